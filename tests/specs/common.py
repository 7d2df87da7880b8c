"""Shared machinery of the op table: dtypes, PyTorch's promotion rule, value domains,
the ``Spec`` row type and the helpers every op family uses to add rows.

Rows are appended to ``SPECS`` in import order (tests/op_specs.py imports the family
modules); the runner is tests/test_op_table.py.
"""


import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

F32, F64, I64, B = "float32", "float64", "int64", "bool"
ALL = (B, I64, F32, F64)
NUM = (I64, F32, F64)
FLOAT = (F32, F64)
INTEGRAL = (B, I64)

LAYOUTS = ("contiguous", "transposed", "strided", "broadcast", "zero_size", "scalar")


# --- PyTorch's type promotion, written out independently of the library -------------

_ORDER = {B: 0, I64: 1, F32: 2, F64: 3}


def _category(d):
    return 2 if d in FLOAT else (1 if d == I64 else 0)


def promote_types(a, b):
    return a if _ORDER[a] >= _ORDER[b] else b


def _combine(higher, lower):
    """A lower-priority operand group only matters if it has a higher category."""
    if higher is None:
        return lower
    if lower is None or _category(higher) == 2:
        return higher
    if higher == B or _category(lower) == 2:
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """``torch.result_type`` over operands given as ``(dtype, ndim)`` or Python numbers.

    Dimensioned tensors outrank 0-d tensors, which outrank Python numbers; a Python
    float counts as the default dtype (float32).
    """
    groups: list[Any] = [None, None, None]
    for op in operands:
        if isinstance(op, tuple):
            d, slot = op[0], (0 if op[1] > 0 else 1)
        else:
            slot = 2
            d = B if isinstance(op, (bool, np.bool_)) else (
                I64 if isinstance(op, (int, np.integer)) else F32)
        groups[slot] = d if groups[slot] is None else promote_types(groups[slot], d)
    return _combine(groups[0], _combine(groups[1], groups[2])) or F32


def can_cast(src, dst):
    """PyTorch's rule for writing a ``src`` result into a ``dst`` tensor in place."""
    return _category(src) <= _category(dst)


def promote(ops):
    return result_type(*ops)


def to_float(ops):
    d = result_type(*ops)
    return d if d in FLOAT else F32


def boolean(ops):
    return B


def first(ops):
    return ops[0][0]


def const(d):
    return lambda ops: d


# --- value domains -------------------------------------------------------------------

# (float generator, int64 generator); bool inputs are always random True/False.
DOMAINS: dict[str, tuple[Callable, Callable]] = {
    "real": (lambda r, s: r.uniform(-3, 3, s), lambda r, s: r.integers(-5, 6, s)),
    "positive": (lambda r, s: r.uniform(0.1, 5, s), lambda r, s: r.integers(1, 7, s)),
    "unit": (lambda r, s: r.uniform(-0.95, 0.95, s), lambda r, s: r.integers(-1, 2, s)),
    "above_m1": (lambda r, s: r.uniform(-0.9, 4, s), lambda r, s: r.integers(0, 6, s)),
    "above_1": (lambda r, s: r.uniform(1, 5, s), lambda r, s: r.integers(1, 7, s)),
    "nonzero": (lambda r, s: r.choice([-1, 1], s) * r.uniform(0.5, 3, s),
                lambda r, s: r.choice([-4, -3, -2, -1, 1, 2, 3, 4], s)),
    # ties for the rounding ops (round half to even) and exact equalities for isclose
    "halves": (lambda r, s: r.integers(-12, 13, s) / 2.0, lambda r, s: r.integers(-5, 6, s)),
    "exponent": (lambda r, s: r.uniform(-2, 2, s), lambda r, s: r.integers(0, 4, s)),
    "wide": (lambda r, s: r.uniform(-50, 50, s), lambda r, s: r.integers(-50, 51, s)),
}
SPECIALS = (math.nan, math.inf, -math.inf, 0.0, -0.0)


def index_domain(lo, hi):
    """Integers in [lo, hi) (as floats for float dtypes, for the wrong-index-dtype rows):
    indices into a dim of size ``hi`` (``lo < 0`` adds negative indices)."""
    name = f"index[{lo},{hi})"
    gen = lambda r, s: r.integers(lo, hi, s)  # noqa: E731
    DOMAINS[name] = (lambda r, s: gen(r, s).astype(np.float64), gen)
    return name


def unique_domain(n):
    """Indices into a dim of size ``n`` that never repeat along axis 0 (each column of a
    2-d index is part of a permutation), for ops whose result would depend on the order
    of writes to one place (scatter with a tensor source, index_put without accumulate).
    An expanded (stride-0) copy repeats values only along other axes, so it stays valid."""
    name = f"unique[{n}]"

    def gen(r, s):
        if not s:
            return np.zeros((), np.int64)
        return np.argsort(r.random((n,) + tuple(s[1:])), axis=0)[: s[0]]
    DOMAINS[name] = (lambda r, s: gen(r, s).astype(np.float64), gen)
    return name


def generate(rng, domain, dtype, shape, specials=True):
    """Values of ``dtype`` for ``shape``; float inputs lead with nan/inf/-inf/0/-0."""
    if dtype == B:
        # divisors must not contain False (integer division by zero raises)
        return np.asarray(rng.random(shape) < (2 if domain == "nonzero" else 0.5))
    fgen, igen = DOMAINS[domain]
    if dtype == I64:
        return np.asarray(igen(rng, shape), dtype=np.int64)
    a = np.asarray(fgen(rng, shape), dtype=np.float64).astype(dtype)
    flat = a.reshape(-1)
    if specials and flat.size >= 8:
        flat[: len(SPECIALS)] = SPECIALS
    return a


def rng_for(*parts):
    """A generator seeded from the case id, so every case is reproducible on its own."""
    return np.random.default_rng(zlib.crc32("|".join(map(str, parts)).encode()))


# --- rows -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Spec:
    """One op. ``forms`` maps each public spelling ("exp", "Tensor.exp",
    "Tensor.__add__") to a call; the first is the one run on every layout, the others are
    checked to agree with it. ``rule`` gives PyTorch's result dtype from the operands as
    ``(dtype, ndim)`` pairs plus ``scalars`` (the Python numbers the call passes).

    Kinds: "op" (returns new tensors; ``ref(*float64 arrays)``), "inplace" (mutates its
    first input and returns it; ``ref`` gives that input's new value), "view" (results
    must share memory with input 0), "meta" (returns a plain Python value, compared with
    ``ref(*arrays)`` on NumPy mirrors of the inputs, same dtype and strides), "creation"
    (``call(F, dtype_name_or_None)``, ``ref(dtype)``), "random" (``ref`` gives the result
    shape, or a list of shapes; values must repeat under the same seed). ``rule`` may return
    a tuple with one dtype per result (``max(dim)``: values and int64 indices)."""

    name: str
    forms: dict
    ref: Callable
    kind: str = "op"
    shapes: tuple = ((3, 4),)
    domains: tuple = ("real",)
    dtypes: tuple = tuple((d,) for d in ALL)
    rule: Callable = promote
    scalars: tuple = ()
    errors: tuple = ()  # (dtypes, exception, message fragment)
    layouts: tuple = LAYOUTS
    differentiable: bool = False
    specials: bool = True
    tol: dict = field(default_factory=dict)  # dtype -> (rtol, atol)
    layout_shapes: dict = field(default_factory=dict)  # layout -> shapes (overrides)
    layout_domains: dict = field(default_factory=dict)  # layout -> domains (overrides)
    xfail: tuple = ()  # (dtypes or None, layouts or None, reason)
    requires: str = ""  # Tensor attribute the row needs (ops merged later)
    alias: Any = None  # True: results must share memory with input 0; False: must not
    overlap_ok: bool = False  # in-place op PyTorch allows on expanded (stride-0) tensors
    notes: str = ""

    @property
    def call(self):
        return next(iter(self.forms.values()))

    def domain(self, i, layout=None):
        domains = self.layout_domains.get(layout, self.domains)
        return domains[min(i, len(domains) - 1)]

    def shapes_for(self, layout):
        if layout in self.layout_shapes:
            return self.layout_shapes[layout]
        if layout == "scalar":
            return tuple(() for _ in self.shapes)
        if layout == "zero_size":
            nd = max(len(s) for s in self.shapes)
            return tuple((0,) + tuple(s[1:]) if len(s) == nd and s else s for s in self.shapes)
        return self.shapes

    def expected_dtype(self, dtypes, layout):
        if self.kind == "creation":
            return self.rule([(dtypes[0], 0)])
        nds = [len(s) for s in self.shapes_for(layout)]
        return self.rule([(d, n) for d, n in zip(dtypes, nds, strict=True)] + list(self.scalars))

    def xfail_reason(self, dtypes, layout):
        for dts, lays, reason in self.xfail:
            if (dts is None or tuple(dtypes) in dts) and (lays is None or layout in lays):
                return reason
        return None


def same(dtypes, n=1):
    return tuple((d,) * n for d in dtypes)


def _ignore(fn):
    def wrapped(*a, **k):
        with np.errstate(all="ignore"):
            return fn(*a, **k)
    return wrapped


SPECS: list[Spec] = []


def _as_float64(fn):
    return lambda *arrays: fn(*[np.asarray(a, np.float64) for a in arrays])


def row(name, forms, ref, **kw):
    if ref is not None and kw.get("rule") is to_float:
        ref = _as_float64(ref)  # NumPy would compute bool/int inputs in float16
    s = Spec(name, forms, ref and _ignore(ref), **kw)
    SPECS.append(s)
    return s


# In-place spellings: x.op_() must give op(x) cast to x's dtype, and must raise when
# PyTorch's can_cast forbids writing the result into x (e.g. int64 x.exp_()).
def inplace_of(spec, forms, **kw):
    opts = dict(shapes=spec.shapes, domains=spec.domains, dtypes=spec.dtypes,
                rule=spec.rule, scalars=spec.scalars, errors=spec.errors,
                layouts=spec.layouts, differentiable=spec.differentiable,
                specials=spec.specials, tol=spec.tol, xfail=spec.xfail,
                layout_shapes=spec.layout_shapes, layout_domains=spec.layout_domains)
    opts.update(kw)
    return row(spec.name + "_", forms, spec.ref, kind="inplace", **opts)


NOT_IMPL = (RuntimeError, "not implemented for")
NO0D = tuple(lay for lay in LAYOUTS if lay != "scalar")
# (strides of empty tensors depend on how they were made, in PyTorch too: no zero_size)
NONEMPTY = ("contiguous", "transposed", "strided", "broadcast", "scalar")
WITH_SPECIALS = ["contiguous", "transposed", "strided", "broadcast"]


def pairs(dtypes):
    return [(a, b) for a in dtypes for b in dtypes]


def dname(d):
    return str(d).split(".")[-1]


def fm(names, *args, fn=True, **kwargs):
    """Forms ``F.name(x, *args)`` (unless fn=False) and ``x.name(*args)`` for each of the
    space-separated names."""
    forms = {}
    for n in names.split():
        if fn:
            forms[n] = lambda F, x, n=n: getattr(F, n)(x, *args, **kwargs)
        forms["Tensor." + n] = lambda F, x, n=n: getattr(x, n)(*args, **kwargs)
    return forms


def view(name, forms, ref, shapes=((3, 4),), layouts=NO0D, alias=True, **kw):
    """A shape op: same dtype, values from the NumPy equivalent; with ``alias`` the
    result must share memory with the input (checked through ``np.shares_memory``)."""
    return row(name, forms, ref, kind="view" if alias else "op", shapes=shapes,
               alias=True if alias else None,
               layouts=layouts, rule=first, differentiable=True, **kw)


def meta(name, forms, ref, **kw):
    kw.setdefault("rule", first)
    return row(name, forms, ref, kind="meta", **kw)


# --- known library bugs ------------------------------------------------------------------
# Each entry marks the matching cases of the named rows as strict xfails, so a fix shows
# up as an XPASS and the entry must then be deleted. Layout "errors" means the dtype-error
# cases (test_dtype_errors). Minimal reproducers are in the docstring-like reasons. Each
# family module lists its bugs after its rows.

def known_bug(names, reason, dtypes=None, layouts=None):
    for name in names:
        hits = [i for i, s in enumerate(SPECS) if s.name == name]
        assert hits, f"known_bug: no row named {name!r}"
        for i in hits:
            SPECS[i] = replace(SPECS[i], xfail=SPECS[i].xfail + ((
                None if dtypes is None else tuple(tuple(d) for d in dtypes),
                layouts, "BUG: " + reason),))
