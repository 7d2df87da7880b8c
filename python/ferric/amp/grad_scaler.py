"""``GradScaler``: loss scaling for mixed-precision training, as ``torch.amp.GradScaler``.

For ``device="cuda"`` (the default) it disables itself with PyTorch's warning, as on a
CPU-only PyTorch build: ``scale()`` returns its input, ``step()`` just calls
``optimizer.step()``, ``update()`` does nothing and ``state_dict()`` is ``{}``. For
``device="cpu"`` it really scales: losses are multiplied by the scale, ``unscale_``
divides the gradients and looks for inf/NaN, ``step`` skips the update when it finds
one, and ``update`` backs off or grows the scale on PyTorch's schedule.
"""

from __future__ import annotations

import warnings

from .. import _core
from .._core import Tensor

__all__ = ["GradScaler"]

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """Scales the loss so small float16 gradients do not underflow (see module docstring
    for what it does on ferric).

    Example:
        >>> import ferric
        >>> p = ferric.nn.Parameter(ferric.ones(2))
        >>> opt = ferric.optim.SGD([p], lr=0.5)
        >>> scaler = ferric.amp.GradScaler("cpu", init_scale=4.0)
        >>> scaler.scale((p * 3).sum()).backward()   # gradients are 4x too large...
        >>> scaler.step(opt)                         # ...and unscaled before the step
        >>> scaler.update()
        >>> p
        Parameter containing:
        tensor([-0.5000, -0.5000], requires_grad=True)
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        # per optimizer (by id): stage and whether its gradients held inf/NaN
        self._per_optimizer: dict[int, dict] = {}

    def is_enabled(self) -> bool:
        """Whether the scaler scales (``False`` for CUDA on ferric)."""
        return self._enabled

    def get_scale(self) -> float:
        """The current scale factor (``1.0`` when disabled)."""
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        """Factor the scale grows by after ``growth_interval`` clean steps."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Sets the growth factor."""
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        """Factor the scale shrinks by after a step with inf/NaN gradients."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Sets the backoff factor."""
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        """Number of clean steps between growths."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Sets the growth interval."""
        self._growth_interval = int(new_interval)

    def scale(self, outputs):
        """Multiplies a tensor (or nested lists/tuples of tensors) by the scale; returns
        ``outputs`` unchanged when disabled."""
        if not self._enabled:
            return outputs
        factor = _core.tensor(self._scale, dtype=_core.float32)
        return _map_tensors(outputs, lambda t: t * factor)

    def _state(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY,
                                                              "found_inf": False})

    def unscale_(self, optimizer) -> None:
        """Divides ``optimizer``'s gradients by the scale (in place), noting inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.grad.mul_(inv)
                if not bool(p.grad.isfinite().all()):
                    found = True
        state["found_inf"] = found
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales (if not done yet) and calls ``optimizer.step()``, unless the
        gradients held inf/NaN; returns what ``optimizer.step`` returned (or ``None``)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError(
                "Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Adjusts the scale: backs off after inf/NaN, grows after ``growth_interval``
        clean steps, or takes ``new_scale`` (a float or one-element tensor)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor)
                                else new_scale)
        else:
            if not self._per_optimizer:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(s["found_inf"] for s in self._per_optimizer.values()):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer.clear()

    def state_dict(self) -> dict:
        """The scale and schedule (``{}`` when disabled), as PyTorch stores them."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores what :meth:`state_dict` returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a "
                "disabled instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])


def _map_tensors(obj, fn):
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_tensors(o, fn) for o in obj)
    raise ValueError("outputs must be a Tensor or an iterable of Tensors")
