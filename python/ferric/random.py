"""``ferric.random`` (``torch.random``): the CPU random number generator's seeding and
state, and :func:`fork_rng`, a context manager that restores that state on exit."""

from __future__ import annotations

import contextlib

from . import _core
from ._core import default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed",
           "seed", "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Forks the RNG: inside the ``with`` block random ops advance a copy of the state,
    and the CPU generator's state is put back on exit (also when the block raises).
    ferric has no CUDA generators, so ``devices`` must be empty or ``None``.

    Args:
        devices (iterable of int, optional): accelerator devices whose RNG to fork (none
            exist in ferric; a non-empty list raises ``RuntimeError``).
        enabled (bool, optional): ``False`` makes the context manager a no-op.
        device_type (str, optional): the accelerator type (``"cuda"``); ignored.

    Example::

        >>> import ferric
        >>> _ = ferric.manual_seed(0)
        >>> with ferric.random.fork_rng():
        ...     a = ferric.rand(2)
        >>> bool((ferric.rand(2) == a).all())
        True
    """
    if not enabled:
        yield
        return
    if devices:
        raise RuntimeError(f"{_caller}: ferric is CPU-only and has no {device_type} "
                           f"generator for {_devices_kw}={list(devices)}")
    state = _core.get_rng_state()
    try:
        yield
    finally:
        _core.set_rng_state(state)
