"""``ferric.show_config()``: what this ferric build is and what it runs on."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

from . import _core


def _simd_level() -> str:
    # The kernels report the instruction set their runtime dispatch picked; builds
    # without that hook report what the CPU offers (the same detection, done in Rust).
    level = getattr(_core, "_simd_level", None)
    if level is not None:
        return str(level())
    return str(_core._build_info()["cpu_simd"])


def config() -> dict[str, Any]:
    """The facts :func:`show_config` prints, as a dict (stable keys, for bug reports)."""
    import numpy

    info = _core._build_info()
    return {
        "version": info["version"],
        "build_profile": info["profile"],
        "target": f"{info['target_arch']}-{info['target_os']}",
        "simd_level": _simd_level(),
        "compiled_target_features": list(info["compiled_features"]),
        "num_threads": _core.get_num_threads(),
        "FERRIC_NUM_THREADS": os.environ.get("FERRIC_NUM_THREADS"),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
    }


def show_config(file: Any = None) -> None:
    """Prints ferric's version, build profile, the SIMD level detected at run time and
    the kernel thread count (``ferric.get_num_threads()``).

    Args:
        file (file-like, optional): where to print. Default: ``sys.stdout``

    Example::

        >>> import ferric
        >>> ferric.show_config()  # doctest: +ELLIPSIS
        ferric 0.1.0
          build profile: ...
          SIMD level: ...
          threads: ...
    """
    c = config()
    compiled = ", ".join(c["compiled_target_features"]) or "baseline"
    env = c["FERRIC_NUM_THREADS"]
    lines = [
        f"ferric {c['version']}",
        f"  build profile: {c['build_profile']}",
        f"  target: {c['target']} (compiled for: {compiled})",
        f"  SIMD level: {c['simd_level']} (detected at run time)",
        f"  threads: {c['num_threads']} (FERRIC_NUM_THREADS="
        f"{'unset' if env is None else repr(env)})",
        f"  python: {c['python']}, numpy: {c['numpy']}",
    ]
    print("\n".join(lines), file=sys.stdout if file is None else file)
