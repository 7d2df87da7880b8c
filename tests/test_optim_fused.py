"""The fused optimizer updates (one Rust pass per parameter) against the op-by-op
update they replace: the op-by-op path still runs for parameters the fused path declines
(non-contiguous ones), so both paths see the same gradients and must agree."""

import numpy as np
import pytest

import ferric
from ferric import optim

CONFIGS = [
    (optim.SGD, {"lr": 0.1}),
    (optim.SGD, {"lr": 0.1, "momentum": 0.9}),
    (optim.SGD, {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    (optim.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    (optim.Adam, {"lr": 0.01}),
    (optim.Adam, {"lr": 0.01, "betas": (0.3, 0.8), "weight_decay": 0.1, "amsgrad": True}),
    (optim.Adam, {"lr": 0.01, "maximize": True, "eps": 1e-3}),
    (optim.AdamW, {"lr": 0.01, "weight_decay": 0.1}),
    (optim.AdamW, {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
]


def _run(opt_cls, kwargs, transposed, dtype):
    g = ferric.Generator().manual_seed(0)
    init = ferric.randn(5, 3, generator=g, dtype=dtype)
    if transposed:  # a non-contiguous leaf: the fused path declines it
        w = init.t().contiguous().t().detach().requires_grad_()
        assert not w.is_contiguous()
    else:
        w = init.clone().requires_grad_()
    opt = opt_cls([w], **kwargs)
    targets = [ferric.randn(5, 3, generator=g, dtype=dtype) for _ in range(4)]
    for t in targets:
        loss = ((w - t) ** 2 * ferric.arange(1.0, 4.0, dtype=dtype)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return w.detach().numpy(), opt


@pytest.mark.parametrize("dtype", [ferric.float32, ferric.float64])
@pytest.mark.parametrize("opt_cls,kwargs", CONFIGS)
def test_fused_and_op_by_op_updates_agree(opt_cls, kwargs, dtype):
    fused, opt = _run(opt_cls, kwargs, transposed=False, dtype=dtype)
    plain, _ = _run(opt_cls, kwargs, transposed=True, dtype=dtype)
    tol = 1e-6 if dtype == ferric.float32 else 1e-13
    np.testing.assert_allclose(fused, plain, rtol=tol, atol=tol)
    # the state the fused path keeps is the state PyTorch's update keeps
    state = opt.state[opt.param_groups[0]["params"][0]]
    if opt_cls is optim.SGD and kwargs.get("momentum"):
        assert state["momentum_buffer"].shape == (5, 3)
    if opt_cls is not optim.SGD:
        assert state["step"].item() == 4
        assert ("max_exp_avg_sq" in state) == kwargs.get("amsgrad", False)


def test_fused_update_bumps_versions():
    # a graph that saved the parameter notices that the step changed it
    w = ferric.ones(3, requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    y = (w * w).sum()
    w.grad = ferric.ones(3)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
