"""Keeps the statically visible API in step with the runtime one, so type checkers
(which cannot run the package's dynamic re-export code) see every public name."""

from __future__ import annotations

import ferric
import ferric.nn.modules as modules


def test_nn_modules_all_lists_every_layer():
    layers = {n for n in vars(modules) if n[:1].isupper()}
    assert set(modules.__all__) == layers


def test_namespace_reexports_match_the_stub_names():
    # `ferric/__init__.py` copies every public `_core` name at run time; the stub is what
    # type checkers read instead, through `from ._core import *`
    core = {n for n in dir(ferric._core) if not n.startswith("_")}
    assert core <= set(dir(ferric))


def test_py_typed_marker_ships():
    from importlib import resources

    assert resources.files("ferric").joinpath("py.typed").is_file()
    assert resources.files("ferric").joinpath("_core.pyi").is_file()
