"""Op-table rows for random ops (kind "random"): factories, ``*_like``, sampling from
tensors of parameters and the in-place samplers. Only shapes, dtypes and reproducibility
under ``manual_seed`` are checked (the distributions have tests of their own). The rows
skip (``requires``) until the family is merged.
"""

from __future__ import annotations

from specs.common import (
    ALL,
    DOMAINS,
    F32,
    F64,
    FLOAT,
    I64,
    INTEGRAL,
    NOT_IMPL,
    NUM,
    B,
    const,
    first,
    meta,
    row,
    same,
)

REQ = "uniform_"
# parameters of a distribution: probabilities, and positive weights or spreads
DOMAINS["prob"] = (lambda r, s: r.uniform(0, 1, s), lambda r, s: r.integers(0, 2, s))
IN_PLACE_LAYOUTS = ("contiguous", "transposed", "strided", "zero_size", "scalar")


def rnd(name, forms, shape, **kw):
    """``shape``: the result shape, or a function of the inputs giving it. Rows without
    ``dtypes`` are factories (no tensor inputs)."""
    kw.setdefault("requires", REQ)
    kw.setdefault("specials", False)
    ref = shape if callable(shape) else (lambda *a, s=shape: s)
    if "dtypes" not in kw:  # a factory: no tensor inputs
        kw.update(dtypes=((),), layouts=("contiguous",), shapes=())
    return row(name, forms, ref, kind="random", **kw)


def _dtype(d):
    return lambda F: getattr(F, d)


# --- factories ---------------------------------------------------------------------------

for _n in ("rand", "randn"):
    rnd(_n, {_n: lambda F, n=_n: getattr(F, n)(3, 4),
             _n + "(tuple)": lambda F, n=_n: getattr(F, n)((3, 4)),
             _n + "(size=)": lambda F, n=_n: getattr(F, n)(size=[3, 4])}, (3, 4), rule=const(F32))
    rnd(f"{_n}(dtype=float64)", {_n: lambda F, n=_n: getattr(F, n)(2, 5, dtype=F.float64)},
        (2, 5), rule=const(F64))
    rnd(f"{_n}(0-d)", {_n: lambda F, n=_n: getattr(F, n)(())}, (), rule=const(F32))
    rnd(f"{_n}(empty)", {_n: lambda F, n=_n: getattr(F, n)(0, 3)}, (0, 3), rule=const(F32))
rnd("rand(generator=)", {"Generator": lambda F: F.rand(3, 4, generator=F.Generator()
                                                       .manual_seed(11))},
    (3, 4), rule=const(F32))
rnd("randint(high, size)", {"randint": lambda F: F.randint(10, (3, 4))}, (3, 4), rule=const(I64))
rnd("randint(low, high, size)", {"randint": lambda F: F.randint(-5, 5, size=(6,))}, (6,),
    rule=const(I64))
rnd("randint(dtype=bool)", {"randint": lambda F: F.randint(0, 2, (4,), dtype=F.bool)}, (4,),
    rule=const(B))
rnd("randint(dtype=float32)", {"randint": lambda F: F.randint(3, 10, (2, 2), dtype=F.float32)},
    (2, 2), rule=const(F32))
rnd("randperm", {"randperm": lambda F: F.randperm(6)}, (6,), rule=const(I64))
rnd("randperm(dtype=float64)", {"randperm": lambda F: F.randperm(5, dtype=F.float64)}, (5,),
    rule=const(F64))
rnd("randperm(0)", {"randperm": lambda F: F.randperm(0)}, (0,), rule=const(I64))
rnd("normal(float, float, size)", {"normal": lambda F: F.normal(0.0, 1.0, size=(2, 3))}, (2, 3),
    rule=const(F32))

# --- sampling with tensor parameters ----------------------------------------------------------

_ALL_LAYOUTS = ("contiguous", "transposed", "strided", "broadcast", "zero_size", "scalar")
rnd("normal(tensor, tensor)", {"normal": lambda F, m, s: F.normal(m, s)},
    lambda m, s: (m + s).shape, shapes=((3, 1), (4,)), domains=("real", "positive"),
    dtypes=same(FLOAT, 2), rule=first, layouts=_ALL_LAYOUTS,
    errors=[((I64, I64), *NOT_IMPL)])
rnd("normal(tensor, 2.0)", {"normal": lambda F, m: F.normal(m, 2.0)}, lambda m: m.shape,
    dtypes=same(FLOAT), rule=first, layouts=_ALL_LAYOUTS, errors=[((I64,), *NOT_IMPL)])
rnd("normal(1.0, tensor)", {"normal": lambda F, s: F.normal(1.0, s)}, lambda s: s.shape,
    domains=("positive",), dtypes=same(FLOAT), rule=first, layouts=_ALL_LAYOUTS)
for _n, _bad in [("rand_like", INTEGRAL), ("randn_like", INTEGRAL)]:
    rnd(_n, {_n: lambda F, x, n=_n: getattr(F, n)(x)}, lambda x: x.shape, dtypes=same(FLOAT),
        rule=first, layouts=_ALL_LAYOUTS, errors=[((d,), *NOT_IMPL) for d in _bad])
rnd("rand_like(dtype=float64)", {"rand_like": lambda F, x: F.rand_like(x, dtype=F.float64)},
    lambda x: x.shape, dtypes=same(ALL), rule=const(F64), layouts=_ALL_LAYOUTS)
rnd("randint_like(x, 2)", {"randint_like": lambda F, x: F.randint_like(x, 2)},
    lambda x: x.shape, dtypes=same(ALL), rule=first, layouts=_ALL_LAYOUTS)
rnd("randint_like(x, 2, 10)", {"randint_like": lambda F, x: F.randint_like(x, 2, 10)},
    lambda x: x.shape, dtypes=same(NUM), rule=first, layouts=_ALL_LAYOUTS)
rnd("bernoulli", {"bernoulli": lambda F, p: F.bernoulli(p),
                  "Tensor.bernoulli": lambda F, p: p.bernoulli()},
    lambda p: p.shape, domains=("prob",), dtypes=same(FLOAT), rule=first, layouts=_ALL_LAYOUTS,
    errors=[((I64,), *NOT_IMPL)])
rnd("bernoulli(p=0.3)", {"bernoulli": lambda F, x: F.bernoulli(x, p=0.3),
                         "Tensor.bernoulli": lambda F, x: x.bernoulli(0.3)},
    lambda x: x.shape, dtypes=same(FLOAT), rule=first, layouts=_ALL_LAYOUTS)
rnd("multinomial", {"multinomial": lambda F, w: F.multinomial(w, 3),
                    "Tensor.multinomial": lambda F, w: w.multinomial(3)},
    lambda w: (w.shape[0], 3), domains=("positive",), dtypes=same(FLOAT), rule=const(I64),
    layouts=("contiguous", "transposed", "strided", "broadcast"),
    errors=[((I64,), RuntimeError, "multinomial only supports floating-point dtypes")])
rnd("multinomial(replacement)", {"Tensor.multinomial": lambda F, w: w.multinomial(6, True)},
    (6,), shapes=((4,),), domains=("positive",), dtypes=same(FLOAT), rule=const(I64),
    layouts=("contiguous", "transposed", "strided", "broadcast"))

# --- in-place samplers (written-to tensors must not be expanded: tests/test_errors.py) ----------

CONTINUOUS = "is a continuous probability distribution"
for _n, _args, _dts, _errs in [
    ("uniform_", (-1.0, 2.0), FLOAT, [((d,), *NOT_IMPL) for d in INTEGRAL]),
    ("normal_", (1.0, 2.0), FLOAT, [((d,), *NOT_IMPL) for d in INTEGRAL]),
    ("log_normal_", (), FLOAT, [((d,), *NOT_IMPL) for d in INTEGRAL]),
    ("exponential_", (), FLOAT, [((d,), RuntimeError, CONTINUOUS) for d in INTEGRAL]),
    ("cauchy_", (), FLOAT, [((d,), RuntimeError, CONTINUOUS) for d in INTEGRAL]),
    ("geometric_", (0.3,), NUM, [((B,), *NOT_IMPL)]),
    ("bernoulli_", (0.5,), ALL, []),
    ("random_", (0, 2), ALL, []),
    ("random_(to)", (10,), NUM, []),
    ("random_()", (), NUM, []),
]:
    _m = _n.split("(")[0]
    rnd(f"Tensor.{_n}{_args}", {"Tensor." + _m: lambda F, x, m=_m, a=_args: getattr(x, m)(*a)},
        lambda x: x.shape, shapes=((3, 4),), dtypes=same(_dts), rule=first,
        layouts=IN_PLACE_LAYOUTS, errors=_errs)

# --- seeding -------------------------------------------------------------------------------------


def _replay(F):
    """The state saved before a draw replays it; manual_seed sets initial_seed."""
    F.manual_seed(7)
    state = F.get_rng_state()
    a = F.rand(5).tolist()
    F.set_rng_state(state)
    return a == F.rand(5).tolist() and F.initial_seed() == 7


def _fresh_seed(F):
    """seed() picks a new seed and returns it."""
    s = F.seed()
    return isinstance(s, int) and F.initial_seed() == s


for _name, _fn in [("seeding(replay)", _replay), ("seeding(seed)", _fresh_seed)]:
    _keys = (("manual_seed", "get_rng_state", "set_rng_state") if _fn is _replay else
             ("seed", "initial_seed"))
    meta(_name, {k: _fn for k in _keys}, lambda: True, shapes=(), dtypes=((),),
         layouts=("contiguous",), requires=REQ)
