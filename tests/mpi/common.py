"""Shared by the MPI worker scripts in this folder (run by ``mpiexec`` from
``tests/test_distributed*.py``, never collected by pytest): a table of named checks
whose outcomes each rank writes to ``<out>.<rank>.json``."""

from __future__ import annotations

import datetime
import json
import os
import sys
import traceback
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/ (layouts.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

import ferric  # noqa: E402
import ferric.distributed as dist  # noqa: E402

TIMEOUT = datetime.timedelta(seconds=float(os.environ.get("FERRIC_TEST_MPI_TIMEOUT", "60")))


def init():
    dist.init_process_group("mpi", timeout=TIMEOUT)
    return dist.get_rank(), dist.get_world_size()


class Checks:
    """Runs named checks; records "ok" or the failure text per check."""

    def __init__(self, out: str, rank: int):
        self.out, self.rank = out, rank
        self.results: dict[str, str] = {}

    def run(self, name: str, fn, *args):
        try:
            fn(*args)
            self.results[name] = "ok"
        except Exception as e:  # noqa: BLE001 - every failure is a result to report
            self.results[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"

    def dump(self):
        with open(f"{self.out}.{self.rank}.json", "w") as f:
            json.dump(self.results, f, indent=1)


def rng_for(*key) -> np.random.Generator:
    """The same stream on every rank for the same key (so any rank can rebuild the
    inputs of every other rank and compute the reference itself)."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


# bfloat16 has no NumPy dtype: its values are float32 arrays holding bfloat16 numbers
NP_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
             "bfloat16": np.float32, "int64": np.int64, "int32": np.int32,
             "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}
HALF = ("float16", "bfloat16")


def rounded(arr: np.ndarray, dtype: str) -> np.ndarray:
    """``arr`` rounded to ``dtype`` (a float32 array for bfloat16)."""
    if dtype == "bfloat16":
        return ferric.tensor(np.asarray(arr, np.float32)).to(ferric.bfloat16).float().numpy()
    return np.asarray(arr).astype(NP_DTYPES[dtype])


def values(key, shape, dtype: str) -> np.ndarray:
    g = rng_for(*key)
    if dtype == "bool":
        return g.random(shape) < 0.5
    if dtype == "uint8":
        return g.integers(0, 9, size=shape).astype(np.uint8)
    if dtype.startswith("int"):
        return g.integers(-4, 5, size=shape).astype(NP_DTYPES[dtype])
    return rounded(g.standard_normal(shape).astype(np.float32), dtype)


def npy(t) -> np.ndarray:
    """A tensor's values as NumPy (bfloat16 as float32)."""
    return (t.float() if t.dtype == ferric.bfloat16 else t).numpy()


def fdtype(name: str):
    return getattr(ferric, name)


def assert_equal(got, want, dtype: str, what: str):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        raise AssertionError(f"{what}: shape {got.shape} != {want.shape}")
    if dtype in ("float32", "float64"):
        rtol = 1e-6 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)
