"""``ferric.show_config()``: what this ferric build is and what it runs on."""

from __future__ import annotations

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


def _simd_note(level: str) -> str:
    """Why the kernels run at ``level``: detected, or capped by ``FERRIC_SIMD`` (with the
    CPU's best level), or detected because ``FERRIC_SIMD`` held no level name."""
    value, cap = _core._simd_env()
    if value is None:
        return "detected at run time"
    if cap is None:
        return f"detected at run time; FERRIC_SIMD={value!r} is not a level and was ignored"
    best = _core._simd_levels()[-1]
    if level != best:
        return f"capped by FERRIC_SIMD={value.strip()}; the CPU supports {best}"
    return f"detected at run time; FERRIC_SIMD={value.strip()} does not lower it"


def environment_warnings() -> list[str]:
    """Messages for ferric's environment variables that hold invalid values (the kernels
    ignore such a value and use their default); empty when all are valid or unset."""
    out = []
    value, cap = _core._simd_env()
    if value is not None and cap is None:
        out.append(
            f"FERRIC_SIMD={value!r} is not a SIMD level (expected one of scalar, avx2, "
            f"avx512, neon); it is ignored and the kernels use {_simd_level()}"
        )
    value, threads = _core._num_threads_env()
    if value is not None and threads is None:
        out.append(
            f"FERRIC_NUM_THREADS={value!r} is not a positive integer; it is ignored and "
            f"ferric uses {_core.get_num_threads()} threads (the CPUs available)"
        )
    return out


def warn_about_environment() -> None:
    """Emits a ``UserWarning`` per message of :func:`environment_warnings` (at import)."""
    import warnings

    for message in environment_warnings():
        warnings.warn(message, UserWarning, stacklevel=3)


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
        # the values ferric read (once, at first use), not the current environment
        "FERRIC_NUM_THREADS": _core._num_threads_env()[0],
        "FERRIC_SIMD": _core._simd_env()[0],
        "python": platform.python_version(),
        "numpy": numpy.__version__,
    }


def _threads_note(env: str | None) -> str:
    if env is None:
        return "FERRIC_NUM_THREADS=unset"
    _, threads = _core._num_threads_env()
    if threads is None:
        return f"FERRIC_NUM_THREADS={env!r} is not a positive integer and was ignored"
    return f"FERRIC_NUM_THREADS={env!r}"


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
        f"  SIMD level: {c['simd_level']} ({_simd_note(c['simd_level'])})",
        f"  threads: {c['num_threads']} ({_threads_note(env)})",
        f"  python: {c['python']}, numpy: {c['numpy']}",
    ]
    print("\n".join(lines), file=sys.stdout if file is None else file)
