"""Op-table rows for views and shape ops, basic indexing (every key is a view) and the
in-place writes that are not arithmetic (``__setitem__``, ``copy_``, ``fill_``,
``zero_``)."""

from __future__ import annotations

import numpy as np

from specs.common import (
    ALL,
    LAYOUTS,
    NO0D,
    first,
    fm,
    pairs,
    row,
    same,
    view,
)


def _split_last(x):
    return (*x.shape[:-1], 2, x.shape[-1] // 2)


view("view(split last dim)", {"Tensor.view": lambda F, x: x.view(*_split_last(x))},
     lambda a: a.reshape(_split_last(a)))
view("view(-1)", fm("view", -1, fn=False), lambda a: a.reshape(-1),
     layouts=("contiguous", "zero_size", "scalar"))
view("view(shape tuple)", {"Tensor.view": lambda F, x: x.view((x.shape[0], 1, -1))},
     lambda a: a.reshape(a.shape[0], 1, -1), layouts=("contiguous", "transposed"))
view("view_as", {"Tensor.view_as": lambda F, x: x.view_as(F.zeros(*_split_last(x)))},
     lambda a: a.reshape(_split_last(a)))
view("reshape(-1)", {"reshape": lambda F, x: F.reshape(x, (-1,)),
                     "Tensor.reshape": lambda F, x: x.reshape(-1)},
     lambda a: a.reshape(-1), layouts=LAYOUTS, alias=False)
view("reshape(-1, 2)", fm("reshape", -1, 2, fn=False), lambda a: a.reshape(-1, 2), alias=False)
view("reshape_as",
     {"Tensor.reshape_as": lambda F, x: x.reshape_as(F.zeros(x.shape[-1], x.shape[0]))},
     lambda a: a.reshape(a.shape[-1], a.shape[0]), alias=False)
view("flatten", fm("flatten ravel"), lambda a: a.reshape(-1), layouts=LAYOUTS, alias=False)
view("flatten(0, 1)", fm("flatten", 0, 1), lambda a: a.reshape((-1,) + a.shape[2:]),
     shapes=((2, 3, 4),), alias=False)
view("unflatten", fm("unflatten", -1, (2, -1)), lambda a: a.reshape(a.shape[:-1] + (2, 2)),
     alias=False)
view("permute", {"permute": lambda F, x: F.permute(x, (2, 0, 1)),
                 "Tensor.permute": lambda F, x: x.permute(2, 0, 1)},
     lambda a: a.transpose(2, 0, 1), shapes=((2, 3, 4),))
view("permute(negative dims)", fm("permute", (-1, 0, -2), fn=False),
     lambda a: a.transpose(2, 0, 1), shapes=((2, 3, 4),))
view("transpose", fm("transpose swapaxes swapdims", 0, -1),
     lambda a: np.swapaxes(a, 0, -1) if a.ndim else a, shapes=((2, 3, 4),), layouts=LAYOUTS)
view("t", fm("t"), lambda a: a.T, layouts=LAYOUTS)
view("T", {"Tensor.T": lambda F, x: x.T}, lambda a: a.T, shapes=((2, 3, 4),))
view("mT", {"Tensor.mT": lambda F, x: x.mT}, lambda a: np.swapaxes(a, -1, -2),
     shapes=((2, 3, 4),))
view("expand", {"Tensor.expand": lambda F, x: x.expand(2, *x.shape)},
     lambda a: np.broadcast_to(a, (2,) + a.shape), layouts=LAYOUTS)
view("expand(-1)", fm("expand", -1, 5, fn=False),
     lambda a: np.broadcast_to(a, (a.shape[0], 5)), shapes=((3, 1),))
view("expand_as", {"Tensor.expand_as": lambda F, x: x.expand_as(F.zeros(*x.shape[:-1], 5))},
     lambda a: np.broadcast_to(a, a.shape[:-1] + (5,)), shapes=((3, 1),), layouts=LAYOUTS)
view("broadcast_to", {"broadcast_to": lambda F, x: F.broadcast_to(x, (2, *x.shape)),
                      "Tensor.broadcast_to": lambda F, x: x.broadcast_to((2, *x.shape))},
     lambda a: np.broadcast_to(a, (2,) + a.shape), layouts=LAYOUTS)
view("squeeze", fm("squeeze"), lambda a: a.reshape([d for d in a.shape if d != 1]),
     shapes=((3, 1, 4),), layouts=LAYOUTS)
view("squeeze(dim)", fm("squeeze", -2), lambda a: a.squeeze(1), shapes=((3, 1, 4),))
view("squeeze(non-1 dim)", fm("squeeze", 0), lambda a: a, shapes=((3, 1, 4),))
view("squeeze(dims)", fm("squeeze", (0, 1), fn=False),
     lambda a: a.squeeze(1) if a.shape[0] != 1 else a.squeeze((0, 1)), shapes=((3, 1, 4),))
view("unsqueeze", fm("unsqueeze", 0), lambda a: a[None], layouts=LAYOUTS)
view("unsqueeze(-1)", fm("unsqueeze", -1), lambda a: a[..., None], layouts=LAYOUTS)
view("narrow", fm("narrow", -1, 1, 2), lambda a: a[..., 1:3])
view("narrow(negative start)", fm("narrow", 1, -3, 3), lambda a: a[:, -3:])
view("select", fm("select", -1, 1), lambda a: a[..., 1])
view("select(negative index)", fm("select", 1, -1), lambda a: a[:, -1])
view("unbind", fm("unbind", -1), lambda a: [a[..., i] for i in range(a.shape[-1])])
view("unbind(0)", fm("unbind", fn=False), lambda a: [a[i] for i in range(a.shape[0])])
view("chunk", fm("chunk", 2, -1), lambda a: [a[..., :2], a[..., 2:]])
view("chunk(uneven)", fm("chunk", 3, 1), lambda a: [a[:, :2], a[:, 2:4], a[:, 4:]],
     shapes=((2, 5),))
view("split", fm("split", 3, -1), lambda a: [a[..., :3], a[..., 3:]])
view("split(sizes)", fm("split", [1, 3], dim=-1), lambda a: [a[..., :1], a[..., 1:]])
view("movedim", fm("movedim moveaxis", 0, -1), lambda a: np.moveaxis(a, 0, -1),
     shapes=((2, 3, 4),))
view("movedim(tuples)", fm("movedim", (0, 1), (2, 0)),
     lambda a: np.moveaxis(a, (0, 1), (2, 0)), shapes=((2, 3, 4),))
view("detach", {**fm("detach"), **fm("detach_ cpu", fn=False)}, lambda a: a, layouts=LAYOUTS)
view("contiguous", fm("contiguous", fn=False), lambda a: a,
     layouts=LAYOUTS, alias=False)  # may alias (when already contiguous) or copy
row("clone", {"clone": lambda F, x: F.clone(x), "Tensor.clone": lambda F, x: x.clone()},
    lambda a: a, rule=first, alias=False, differentiable=True)

# basic indexing: every key is a view
for _key, _lays in [((Ellipsis, 1), NO0D), ((slice(None), slice(None, None, 2)), NO0D),
                    ((None, Ellipsis, slice(1, 3)), NO0D), ((slice(1, None), -1), NO0D),
                    ((slice(-2, None), slice(None, None, 3)), NO0D),
                    ((slice(10, 20),), NO0D), ((slice(None), None, 0), NO0D),
                    ((), LAYOUTS), ((None,), LAYOUTS), ((Ellipsis, None), LAYOUTS),
                    (1, ("contiguous", "transposed", "strided", "broadcast")),
                    (-1, ("contiguous", "transposed", "strided", "broadcast"))]:
    view(f"getitem[{_key!r}]", {"Tensor.__getitem__": lambda F, x, k=_key: x[k]},
         lambda a, k=_key: a[k], layouts=_lays)


# --- in-place writes that are not arithmetic ------------------------------------------

def _setitem(key):
    def call(F, x, *v):
        x[key] = v[0] if v else 2.5
        return x

    def ref(a, *v):
        b = a.copy()
        b[key] = v[0] if v else 2.5
        return b
    return call, ref


_c, _r = _setitem((Ellipsis, slice(None, None, 2)))
row("setitem[..., ::2] = tensor", {"Tensor.__setitem__": _c}, _r, kind="inplace",
    shapes=((3, 4), (2,)), dtypes=tuple(pairs(ALL)), rule=first, specials=False, layouts=NO0D,
    differentiable=True)
_c, _r = _setitem((slice(1, None), 1))
row("setitem[1:, 1] = 2.5", {"Tensor.__setitem__": _c}, _r, kind="inplace", rule=first,
    layouts=NO0D, overlap_ok=True)
_c, _r = _setitem(Ellipsis)
row("setitem[...] = 0-d tensor", {"Tensor.__setitem__": _c}, _r, kind="inplace",
    shapes=((3, 4), ()), dtypes=same(ALL, 2), rule=first, specials=False)
row("copy_", {"Tensor.copy_": lambda F, x, y: x.copy_(y)},
    lambda a, b: np.broadcast_to(b, a.shape).astype(a.dtype), kind="inplace",
    shapes=((3, 4), (4,)), dtypes=tuple(pairs(ALL)), rule=first, specials=False,
    differentiable=True)
# In-place ops whose other operand overlaps the written-to tensor in part are refused
# as in PyTorch (error rows in test_errors.py); for layouts PyTorch does not compare
# (not dense, e.g. step-sliced views) ferric copies the operand first, so the result is
# as if it had been cloned.
row("fill_", {"Tensor.fill_": lambda F, x: x.fill_(2.5)}, lambda a: np.full_like(a, 2.5),
    kind="inplace", rule=first, overlap_ok=True)
row("fill_(0-d tensor)", {"Tensor.fill_": lambda F, x, v: x.fill_(v)},
    lambda a, v: np.full_like(a, v), kind="inplace", shapes=((3, 4), ()),
    dtypes=same(ALL, 2), rule=first, specials=False)
row("zero_", {"Tensor.zero_": lambda F, x: x.zero_()}, np.zeros_like, kind="inplace",
    rule=first, overlap_ok=True)



