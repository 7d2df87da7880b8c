"""L-BFGS with an optional strong-Wolfe line search, as ``torch.optim.LBFGS`` runs it
(itself modelled on Mark Schmidt's minFunc).

Scalars such as the step length ``t``, ``y.dot(s)`` or the directional derivative stay
0-d tensors of the parameters' dtype wherever PyTorch keeps them so, because that
decides how they round (and so which branch a float32 line search takes).
"""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from .optimizer import Optimizer, _check_lr, _run_closure, _to_scalar

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """Implements L-BFGS.

    Each ``step(closure)`` runs up to ``max_iter`` iterations (and ``max_eval`` closure
    calls): the search direction comes from the two-loop recursion over the last
    ``history_size`` curvature pairs, the step length is ``lr`` (the first iteration
    of a run scales it by ``min(1, 1 / |g|_1)``), or, with
    ``line_search_fn="strong_wolfe"``, the point a bracketing and zooming line search
    finds that satisfies the strong Wolfe conditions (``c1=1e-4``, ``c2=0.9``, cubic
    interpolation). The run stops early when the gradient's largest element is at most
    ``tolerance_grad``, or when the step or the loss change drops below
    ``tolerance_change``.

    The optimizer's state lives under its first parameter (``func_evals``, ``n_iter``,
    the last direction ``d`` and step ``t``, the history ``old_dirs``/``old_stps``/
    ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss`` and the two-loop buffer
    ``al``), so ``state_dict`` round trips with PyTorch's.

    Args:
        params (iterable): tensors to optimize (a single parameter group).
        lr (float, Tensor): learning rate (default: 1).
        max_iter (int): iterations per ``step`` (default: 20).
        max_eval (int, optional): closure evaluations per ``step``
            (default: ``max_iter * 5 // 4``).
        tolerance_grad (float): stop once ``max |g| <= tolerance_grad`` (default: 1e-7).
        tolerance_change (float): stop once the step or the change of the loss is
            below this (default: 1e-9).
        history_size (int): curvature pairs kept (default: 100).
        line_search_fn (str, optional): ``"strong_wolfe"`` or ``None`` (default: None).

    Example:
        >>> import ferric
        >>> x = ferric.tensor([-1.5, 2.0], dtype=ferric.float64, requires_grad=True)
        >>> opt = ferric.optim.LBFGS([x], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        ...     loss.backward()
        ...     return loss
        >>> for _ in range(3):
        ...     loss = opt.step(closure)
        >>> [round(v, 4) for v in x.tolist()]
        [1.0, 1.0]
    """

    def __init__(
        self,
        params,
        lr: float | Tensor = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    @property
    def _params(self) -> list[Tensor]:
        return self.param_groups[0]["params"]

    # -- the parameters as one flat vector -------------------------------------------

    def _gather_flat_grad(self) -> Tensor:
        views = [p.grad.reshape(-1) if p.grad is not None else _core.zeros_like(p).reshape(-1)
                 for p in self._params]
        return _core.cat(views, 0)

    def _add_grad(self, step_size, direction: Tensor) -> None:
        """``params += step_size * direction`` (``direction`` is flat)."""
        alpha = _number(step_size)
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset:offset + n].view_as(p), alpha=alpha)
            offset += n

    def _clone_params(self) -> list[Tensor]:
        return [p.clone() for p in self._params]

    def _set_params(self, values: list[Tensor]) -> None:
        for p, v in zip(self._params, values, strict=True):
            p.copy_(v)

    # -- the step ----------------------------------------------------------------------

    def step(self, closure):  # type: ignore[override]
        """Runs up to ``max_iter`` L-BFGS iterations and returns the loss the closure gave
        at the starting point.

        Args:
            closure (Callable): re-evaluates the model (zeroing and recomputing the
                gradients) and returns the loss.
        """
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        # LBFGS has only global state; it is kept under the first parameter so that
        # load_state_dict casts it with the parameters
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = _run_closure(closure)
        loss = _number(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # search direction
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # keep only pairs with positive curvature
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)  # scale of the initial inverse Hessian
                if "al" not in state:
                    state["al"] = [None] * history_size
                d = _two_loop_direction(flat_grad, old_dirs, old_stps, ro, h_diag,
                                        state["al"])

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)  # directional derivative
            if gtd > -tolerance_change:
                break

            ls_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = self._clone_params()
                direction = d

                def evaluate(step_len, start=start, direction=direction):
                    self._add_grad(step_len, direction)
                    value = _number(_run_closure(closure))
                    grad = self._gather_flat_grad()
                    self._set_params(start)
                    return value, grad

                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    evaluate, t, d, loss, flat_grad, gtd, max_ls=max_eval - evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # the last iteration skips this evaluation: in a stochastic setting
                    # it would be wasted
                    loss = _number(_run_closure(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals

            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:  # the step is too small
                break
            if abs(loss - prev_loss) < tolerance_change:  # the loss stopped moving
                break

        state["d"] = d
        state["t"] = t
        state["old_dirs"] = old_dirs
        state["old_stps"] = old_stps
        state["ro"] = ro
        state["H_diag"] = h_diag
        state["prev_flat_grad"] = prev_flat_grad
        state["prev_loss"] = prev_loss
        return orig_loss


def _number(x) -> float:
    """A loss or step length as a Python float (0-d tensors without a graph warning)."""
    return x.detach().item() if isinstance(x, Tensor) else float(x)


def _two_loop_direction(flat_grad, old_dirs, old_stps, ro, h_diag, al) -> Tensor:
    """``-H g`` for the L-BFGS inverse-Hessian estimate ``H`` (Nocedal's two-loop
    recursion, with ``h_diag * I`` as the initial estimate); ``al`` is the caller's
    buffer for the first loop's coefficients."""
    q = flat_grad.neg()
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        q.add_(old_dirs[i], alpha=-_number(al[i]))
    r = _core.mul(q, h_diag)
    for i in range(len(old_dirs)):
        be_i = old_dirs[i].dot(r) * ro[i]
        r.add_(old_stps[i], alpha=_number(al[i] - be_i))
    return r


def _over(num, den):
    """``num / den`` as PyTorch computes it: a Python number over a tensor is the
    tensor's reciprocal times the number (two roundings, where ferric's ``/`` rounds
    once); the interpolation steps depend on it."""
    if isinstance(den, Tensor) and not isinstance(num, Tensor):
        return den.reciprocal() * num
    return num / den


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with their values and slopes,
    clamped to ``bounds`` (default: the interval between the points); the interval's
    midpoint when the cubic has no real minimiser."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - _over(3 * (f1 - f2), x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step length along ``d`` satisfying the strong Wolfe conditions.

    ``evaluate(t)`` returns the loss and flat gradient at ``x + t * d``; ``f``, ``g`` and
    ``gtd`` are the loss, gradient and directional derivative at ``x``. First a bracket
    containing such a point is grown (extrapolating with cubic steps), then it is
    zoomed into until the conditions hold, the bracket is shorter than
    ``tolerance_change`` or ``max_ls`` evaluations are spent. Returns the loss,
    gradient and step of the best point found and the number of evaluations.
    """
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)

    # bracketing: each end is (step, loss, gradient, directional derivative)
    prev = (0, f, g, gtd)
    ends = None
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= prev[1]):
            ends = [prev, (t, f_new, g_new.clone(), gtd_new)]
            break
        if abs(gtd_new) <= -c2 * gtd:
            ends = [(t, f_new, g_new, None)]
            done = True
            break
        if gtd_new >= 0:
            ends = [prev, (t, f_new, g_new.clone(), gtd_new)]
            break
        # extrapolate: a cubic step between 1.01x and 10x further
        t_next = _cubic_interpolate(prev[0], prev[1], prev[3], t, f_new, gtd_new,
                                    bounds=(t + 0.01 * (t - prev[0]), t * 10))
        prev = (t, f_new, g_new.clone(), gtd_new)
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter >= max_ls:
        ends = [(0, f, g, None), (t, f_new, g_new, None)]

    # zoom: shrink the bracket around a point satisfying the conditions
    low, high = (0, 1) if ends[0][1] <= ends[-1][1] else (1, 0)
    insufficient_progress = False
    while not done and ls_iter < max_ls:
        if abs(ends[1][0] - ends[0][0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(ends[0][0], ends[0][1], ends[0][3],
                               ends[1][0], ends[1][1], ends[1][3])
        # a trial too close to an end (twice in a row, or outside the bracket) moves
        # to a tenth of the bracket away from the nearer end
        top = max(ends[0][0], ends[1][0])
        bottom = min(ends[0][0], ends[1][0])
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:
            if insufficient_progress or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False

        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        point = (t, f_new, g_new.clone(), gtd_new)
        if f_new > (f + c1 * t * gtd) or f_new >= ends[low][1]:
            # no sufficient decrease, or not below the low end: the new high end
            ends[high] = point
            low, high = (0, 1) if ends[0][1] <= ends[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (ends[high][0] - ends[low][0]) >= 0:
                ends[high] = ends[low]  # the old low end becomes the high end
            ends[low] = point

    t, f_new, g_new, _ = ends[low]
    return f_new, g_new, t, evals
