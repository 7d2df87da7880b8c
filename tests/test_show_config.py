"""Introspection: ``ferric.__version__`` agrees with the package metadata and the Rust
crate, and ``show_config()`` reports version, build profile, SIMD level and threads."""

from __future__ import annotations

import importlib.metadata
import io
import os
import re
import subprocess
import sys

import pytest

import ferric
from ferric import _config, _core


def test_version_matches_metadata_and_crate():
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)*", ferric.__version__)
    assert ferric.__version__ == importlib.metadata.version("ferric")
    assert ferric.__version__ == _core._build_info()["version"]


def test_build_info_fields():
    info = _core._build_info()
    assert info["profile"] in ("release", "debug")
    assert info["cpu_simd"] in ("avx512", "avx2+fma", "sse4.2", "sse2", "neon", "scalar")
    assert isinstance(info["compiled_features"], list)
    # wheels are built for the baseline CPU: nothing beyond the target's defaults
    assert "avx2" not in info["compiled_features"]


def test_show_config_prints_the_essentials(capsys):
    ferric.show_config()
    out = capsys.readouterr().out
    assert out.startswith(f"ferric {ferric.__version__}\n")
    assert re.search(r"build profile: (release|debug)", out)
    assert f"SIMD level: {_config._simd_level()}" in out
    assert f"threads: {ferric.get_num_threads()} " in out


def test_show_config_follows_set_num_threads():
    before = ferric.get_num_threads()
    try:
        ferric.set_num_threads(1)
        buf = io.StringIO()
        ferric.show_config(file=buf)
        assert "threads: 1 " in buf.getvalue()
    finally:
        ferric.set_num_threads(before)


def test_simd_level_prefers_the_kernels_report(monkeypatch):
    monkeypatch.setattr(_core, "_simd_level", lambda: "avx2", raising=False)
    assert _config._simd_level() == "avx2"
    monkeypatch.delattr(_core, "_simd_level")
    assert _config._simd_level() == _core._build_info()["cpu_simd"]


def test_config_dict_is_stable():
    c = _config.config()
    assert set(c) >= {"version", "build_profile", "simd_level", "num_threads", "target"}
    assert c["num_threads"] == ferric.get_num_threads()


@pytest.mark.parametrize("name", ["show_config", "from_dlpack", "__version__"])
def test_public_names(name):
    assert hasattr(ferric, name)


# ------------------------------------------------ FERRIC_SIMD / FERRIC_NUM_THREADS

_REPORT = (
    "import warnings\n"
    "with warnings.catch_warnings(record=True) as caught:\n"
    "    warnings.simplefilter('always')\n"
    "    import ferric\n"
    "for w in caught:\n"
    "    print('WARNING', w.category.__name__, w.message)\n"
    "ferric.show_config()\n"
)


def _run(**env):
    full = {k: v for k, v in os.environ.items() if k not in ("FERRIC_SIMD", "FERRIC_NUM_THREADS")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", _REPORT], env=full, capture_output=True,
                         text=True, check=True)
    assert out.stderr == ""
    return out.stdout


def _line(out, key):
    return next(line.strip() for line in out.splitlines() if line.strip().startswith(key))


LEVELS = _core._simd_levels()  # this CPU's, lowest first


def test_unset_environment_is_detected_without_warnings():
    out = _run()
    assert "WARNING" not in out
    assert _line(out, "SIMD level:") == f"SIMD level: {LEVELS[-1]} (detected at run time)"
    assert _line(out, "threads:").endswith("(FERRIC_NUM_THREADS=unset)")


@pytest.mark.skipif(LEVELS[-1] == "scalar", reason="the CPU has no SIMD level to cap")
def test_a_cap_below_the_cpu_says_capped():
    out = _run(FERRIC_SIMD="scalar")
    assert "WARNING" not in out
    assert _line(out, "SIMD level:") == (
        f"SIMD level: scalar (capped by FERRIC_SIMD=scalar; the CPU supports {LEVELS[-1]})")


@pytest.mark.skipif("avx512f" not in LEVELS, reason="needs an AVX-512 CPU")
def test_avx2_cap_on_an_avx512_cpu():
    out = _run(FERRIC_SIMD=" AVX2 ")  # case and surrounding spaces do not matter
    assert _line(out, "SIMD level:") == (
        "SIMD level: avx2+fma (capped by FERRIC_SIMD=AVX2; the CPU supports avx512f)")


def test_a_cap_at_or_above_the_cpu_is_not_a_cap():
    out = _run(FERRIC_SIMD="avx512")
    assert "WARNING" not in out
    level = _line(out, "SIMD level:")
    if "avx512f" in LEVELS:
        assert level == "SIMD level: avx512f (detected at run time; FERRIC_SIMD=avx512 " \
                        "does not lower it)"
    else:  # avx512 caps to the best level below it, which is the CPU's best
        assert level.startswith(f"SIMD level: {LEVELS[-1]} (detected at run time")


@pytest.mark.parametrize("bad", ["avx3", "sse4.2", "fast"])
def test_an_invalid_simd_value_warns_and_caps_nothing(bad):
    out = _run(FERRIC_SIMD=bad)
    assert (f"WARNING UserWarning FERRIC_SIMD={bad!r} is not a SIMD level (expected one of "
            f"scalar, avx2, avx512, neon); it is ignored and the kernels use {LEVELS[-1]}"
            in out)
    assert _line(out, "SIMD level:") == (
        f"SIMD level: {LEVELS[-1]} (detected at run time; FERRIC_SIMD={bad!r} is not a "
        "level and was ignored)")


@pytest.mark.parametrize("bad", ["0", "-1", "two", "2.5"])
def test_an_invalid_thread_count_warns_and_uses_the_cpus(bad):
    out = _run(FERRIC_NUM_THREADS=bad)
    # the default pool size: what a run without the variable uses
    cpus = int(_line(_run(), "threads:").split()[1])
    assert (f"WARNING UserWarning FERRIC_NUM_THREADS={bad!r} is not a positive integer; it "
            f"is ignored and ferric uses {cpus} threads (the CPUs available)" in out)
    assert _line(out, "threads:") == (
        f"threads: {cpus} (FERRIC_NUM_THREADS={bad!r} is not a positive integer and was "
        "ignored)")


def test_a_valid_thread_count_and_empty_values_do_not_warn():
    out = _run(FERRIC_NUM_THREADS="3", FERRIC_SIMD="")
    assert "WARNING" not in out
    assert _line(out, "threads:") == "threads: 3 (FERRIC_NUM_THREADS='3')"
    assert _line(out, "SIMD level:").endswith("(detected at run time)")


def test_config_reports_the_values_read():
    c = _config.config()
    assert c["FERRIC_SIMD"] == _core._simd_env()[0]
    assert c["FERRIC_NUM_THREADS"] == _core._num_threads_env()[0]
