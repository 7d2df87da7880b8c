"""Introspection: ``ferric.__version__`` agrees with the package metadata and the Rust
crate, and ``show_config()`` reports version, build profile, SIMD level and threads."""

from __future__ import annotations

import importlib.metadata
import io
import re

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
