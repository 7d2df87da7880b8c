"""Op-table rows for convolutions, pooling and fold/unfold (``torch.nn.functional``
names, also ``ferric.<name>`` like ``torch.conv2d``). References are in tests/conv_refs.py;
tests/test_conv.py has the parameter sweeps, gradients and the error table.

PyTorch computes int64 convolutions and int64 max/average pools (integer averages
truncate), but not bool ones; adaptive pools and fold/unfold are floating-only. Mixed
input/weight dtypes are a RuntimeError. Convolution rows use finite values: with inf in a
weight, whether a padded position (0 * inf) turns an output into NaN depends on the
backend in PyTorch too.
"""

from __future__ import annotations

from conv_refs import (
    ref_adaptive,
    ref_avg_pool2d,
    ref_conv,
    ref_conv_transpose,
    ref_fold,
    ref_max_pool2d,
    ref_unfold,
)

from specs.common import F32, F64, FLOAT, I64, NOT_IMPL, NUM, B, first, row, same

LAY = ("contiguous", "transposed", "strided", "broadcast", "zero_size")
TOL = {F32: (1e-4, 1e-4)}
NOT_BOOL = ((B, NotImplementedError, NOT_IMPL[1]),)


def errors(n, extra=()):
    """Bool inputs (all ``n`` of them) raise NotImplementedError; ``extra`` adds rows."""
    return tuple(((B,) * n, exc, frag) for _, exc, frag in NOT_BOOL) + tuple(extra)


def float_only(n=1):
    return tuple(((d,) * n, NotImplementedError, NOT_IMPL[1]) for d in (B, I64))


def with_indices(ops):
    return (ops[0][0], I64)


MIXED = ((F32, F64, F32), RuntimeError, "expected scalar type Float but found Double")


def conv_row(name, fn, ref, shapes, zero, **kw):
    row(name, {fn: kw.pop("call")}, ref, shapes=shapes, layouts=LAY,
        layout_shapes={"zero_size": zero}, dtypes=same(NUM, len(shapes)), rule=first,
        tol=TOL, specials=False, differentiable=True,
        errors=errors(len(shapes), [MIXED] if len(shapes) == 3 else []), **kw)


conv_row("conv2d", "conv2d", lambda x, w, b: ref_conv(x, w, b, (2, 1), 1, (1, 2)),
         ((2, 4, 6, 7), (3, 4, 3, 2), (3,)), ((0, 4, 6, 7), (3, 4, 3, 2), (3,)),
         call=lambda F, x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)))
conv_row("conv2d(groups, same)", "conv2d",
         lambda x, w: ref_conv(x, w, None, 1, "same", 2, 2),
         ((2, 4, 6, 7), (6, 2, 2, 3)), ((0, 4, 6, 7), (6, 2, 2, 3)),
         call=lambda F, x, w: F.conv2d(x, w, padding="same", dilation=2, groups=2))
conv_row("conv1d", "conv1d", lambda x, w, b: ref_conv(x, w, b, 2, 1),
         ((2, 3, 9), (4, 3, 3), (4,)), ((0, 3, 9), (4, 3, 3), (4,)),
         call=lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1))
conv_row("conv_transpose2d", "conv_transpose2d",
         lambda x, w, b: ref_conv_transpose(x, w, b, 2, (1, 0), 1, 1, 1),
         ((2, 3, 4, 5), (3, 2, 3, 2), (2,)), ((0, 3, 4, 5), (3, 2, 3, 2), (2,)),
         call=lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=(1, 0),
                                                    output_padding=1))
conv_row("conv_transpose1d", "conv_transpose1d",
         lambda x, w: ref_conv_transpose(x, w, None, 1, 1, 0, 2, 2),
         ((2, 4, 6), (4, 3, 3)), ((0, 4, 6), (4, 3, 3)),
         call=lambda F, x, w: F.conv_transpose1d(x, w, padding=1, groups=2, dilation=2))

POOL_SHAPE = ((2, 3, 7, 8),)
POOL_ZERO = {"zero_size": ((0, 3, 7, 8),)}
row("max_pool2d", {"max_pool2d": lambda F, x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True)},
    lambda a: ref_max_pool2d(a, 3, 2, 1, 1, True)[0], shapes=POOL_SHAPE, layouts=LAY,
    layout_shapes=POOL_ZERO, dtypes=same(NUM), rule=first, errors=errors(1),
    differentiable=True)
row("max_pool2d_with_indices",
    {"max_pool2d_with_indices": lambda F, x: F.max_pool2d_with_indices(x, (2, 3), 1, 1, 2)},
    lambda a: ref_max_pool2d(a, (2, 3), 1, 1, 2), shapes=POOL_SHAPE, layouts=LAY,
    layout_shapes=POOL_ZERO, dtypes=same(NUM), rule=with_indices, errors=errors(1),
    differentiable=True)
row("max_pool1d", {"max_pool1d": lambda F, x: F.max_pool1d(x, 2)},
    lambda a: ref_max_pool2d(a[:, :, None], (1, 2))[0][:, :, 0], shapes=((3, 4, 9),),
    layouts=LAY, dtypes=same(FLOAT), rule=first, errors=float_only(), differentiable=True)
row("avg_pool2d", {"avg_pool2d": lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, False)},
    lambda a: ref_avg_pool2d(a, 3, 2, 1, True, False), shapes=POOL_SHAPE, layouts=LAY,
    layout_shapes=POOL_ZERO, dtypes=same(NUM), rule=first, errors=errors(1),
    differentiable=True)
row("avg_pool1d", {"avg_pool1d": lambda F, x: F.avg_pool1d(x, 3, 2, 1)},
    lambda a: ref_avg_pool2d(a[:, :, None], (1, 3), (1, 2), (0, 1))[:, :, 0],
    shapes=((3, 4, 9),), layouts=LAY, dtypes=same(NUM), rule=first, errors=errors(1),
    differentiable=True)
row("adaptive_avg_pool2d", {"adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x, (3, 5))},
    lambda a: ref_adaptive(a, (3, 5), "avg"), shapes=POOL_SHAPE, layouts=LAY,
    layout_shapes=POOL_ZERO, dtypes=same(FLOAT), rule=first, errors=float_only(),
    differentiable=True)
row("adaptive_avg_pool1d", {"adaptive_avg_pool1d": lambda F, x: F.adaptive_avg_pool1d(x, 4)},
    lambda a: ref_adaptive(a[:, :, None], (1, 4), "avg")[:, :, 0], shapes=((3, 4, 9),),
    layouts=LAY, dtypes=same(FLOAT), rule=first, errors=float_only(), differentiable=True)
row("adaptive_max_pool2d",
    {"adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x, (4, 3), True)},
    lambda a: ref_adaptive(a, (4, 3), "max"), shapes=POOL_SHAPE, layouts=LAY,
    layout_shapes=POOL_ZERO, dtypes=same(FLOAT), rule=with_indices, errors=float_only(),
    differentiable=True)
# torch.adaptive_max_pool1d (the top-level function) returns the values and the indices
row("adaptive_max_pool1d", {"adaptive_max_pool1d": lambda F, x: F.adaptive_max_pool1d(x, 4)},
    lambda a: tuple(r[:, :, 0] for r in ref_adaptive(a[:, :, None], (1, 4), "max")),
    shapes=((3, 4, 9),), layouts=LAY, dtypes=same(FLOAT), rule=with_indices,
    errors=float_only(), differentiable=True)
row("unfold", {"unfold": lambda F, x: F.unfold(x, (2, 3), 1, 1, (2, 1))},
    lambda a: ref_unfold(a, (2, 3), 1, 1, (2, 1)), shapes=POOL_SHAPE, layouts=LAY,
    layout_shapes=POOL_ZERO, dtypes=same(FLOAT), rule=first, errors=float_only(),
    differentiable=True)
row("fold", {"fold": lambda F, x: F.fold(x, (4, 5), 2, 1, 0, 1)},
    lambda a: ref_fold(a, (4, 5), 2), shapes=((2, 12, 12),), layouts=LAY,
    layout_shapes={"zero_size": ((0, 12, 12),)}, dtypes=same(FLOAT), rule=first,
    errors=float_only(), differentiable=True)
