//! The reduction table: one row per reduction or scan, the single place one is declared.
//!
//! Like `ops::table`, `reduce_table!(m)` hands its rows to a consumer macro `m!`:
//!
//! * `ops::reduce` builds the `ReduceOp` enum and `ReduceOp::name()`;
//! * `python::reduce` builds each row's binding: the method (and module function), its
//!   argument parsing from the row's `sig`, its docstring (signature line, `doc`, the
//!   shared `Args:` lines of the `sig` and `out` fields, `Example:` from `ex`), its
//!   registration, and the row as data for Python (`ferric._core._op_table()`, family
//!   `"reduction"`), which nested tensors and the tests read.
//!
//! Fields of a row:
//! * `name`: PyTorch's name: the `Tensor` method and the `ferric` function;
//! * `sig`: the argument shape, shared by rows that PyTorch spells alike; it fixes the
//!   parameters, their defaults and the `Args:` lines (`python::reduce::sig_*` macros):
//!   - `Dims`: `(dim=None, keepdim=False, *, dtype=None, out=None)`, dim an int or a list
//!     (`axis=` too);
//!   - `Amax`: `(dim=(), keepdim=False, *, out=None)`, dim an int or a list (`axis=` too);
//!   - `AllAny`: `(dim=None, keepdim=False, *, out=None)`, dim an int or a list;
//!   - `Arg`: `(dim=None, keepdim=False, *, out=None)`, dim one int;
//!   - `Prod`: `(dim=None, keepdim=False, *, dtype=None, out=None)`, one int, keepdim only
//!     with a dim;
//!   - `MaxMin`: `(dim=None, keepdim=False, *, out=None)` plus the `other` overload;
//!   - `Var`: `(dim=None, unbiased=None, keepdim=False, *, correction=1, out=None)`;
//!   - `Lse`: `(dim, keepdim=False, *, out=None)`, dim required, an int or a list;
//!   - `Norm`: `(p='fro', dim=None, keepdim=False, dtype=None, *, out=None)` (`Tensor.norm`'s
//!     order; `out` keyword-only);
//!   - `Count`: `(dim=None)`, an int or a list, no keepdim;
//!   - `Scan`: `(dim, *, dtype=None, out=None)`; `ScanPair`: `(dim, *, out=None)`;
//!   - `Aminmax`: `(*, dim=None, keepdim=False, out=None)`;
//!   - `VarMean`: a module function only, `(input, dim=None, unbiased=None,
//!     keepdim=False, *, correction=1)`, returning a plain tuple;
//! * `call`: the function in `python::reduce_calls` that runs the row (rows of one
//!   family share it and tell themselves apart by their `ReduceOp`);
//! * `returns`: what the signature line says the call returns; `tuple`: the
//!   `ferric.return_types` named tuple of a two-result row (`none` otherwise);
//! * `out`: PyTorch's `out=`: `yes`, `dim` (only with a dim: PyTorch's full reductions
//!   take none), `pair` (a `(values, indices)` or `(min, max)` tuple of tensors), `no`;
//! * `grad`: the autograd node a differentiable call with a `dim` records (its rule is in
//!   `autograd::reduce`), `"composed"` when the op is built from other recorded ops (no
//!   rule of its own), `"none"` for integer/bool-valued ops;
//! * `nested`: whether `ferric.nested` tensors have it (over the ragged dim per item);
//! * `doc`: what the op computes, and `ex`: the `Example:` lines (doctests in
//!   `tests/test_docstrings.py`).
//!
//! Sort-based ops (median, mode, kthvalue, msort, ...) keep their bindings in
//! `python::sort` and quantile/logcumsumexp are composed in Python: their signatures
//! share nothing with these shapes (see docs/ARCHITECTURE.md).

/// Reductions and scans; see the module docs.
macro_rules! reduce_table {
    ($m:ident) => { $m! {
        Sum { name: "sum", sig: Dims, call: sum_like, returns: "Tensor", tuple: none,
            out: dim, grad: "SumBackward1", nested: true,
            doc: "The sum of the elements (over the dimension(s) ``dim``, or all); integer and \
                  bool inputs sum in int64.",
            ex: "    >>> ferric.sum(ferric.tensor([[1, 2], [3, 4]]), dim=0)\n    tensor([4, 6])" }
        Nansum { name: "nansum", sig: Dims, call: sum_like, returns: "Tensor", tuple: none,
            out: dim, grad: "NansumBackward0", nested: false,
            doc: ":func:`ferric.sum` that treats NaN as zero.",
            ex: "    >>> ferric.nansum(ferric.tensor([1., float('nan'), 3.]))\n    tensor(4.)" }
        Mean { name: "mean", sig: Dims, call: sum_like, returns: "Tensor", tuple: none,
            out: dim, grad: "MeanBackward1", nested: true,
            doc: "The mean of ``input`` (over the dimension(s) ``dim``, or all elements); \
                  ``input`` must be floating point unless ``dtype`` is.",
            ex: "    >>> ferric.mean(ferric.tensor([[1., 2.], [3., 4.]]), dim=1)\n    \
                 tensor([1.5000, 3.5000])" }
        Nanmean { name: "nanmean", sig: Dims, call: sum_like, returns: "Tensor", tuple: none,
            out: dim, grad: "composed", nested: false,
            doc: ":func:`ferric.mean` that ignores NaN elements.",
            ex: "    >>> ferric.nanmean(ferric.tensor([1., float('nan'), 3.]))\n    tensor(2.)" }
        Prod { name: "prod", sig: Prod, call: prod, returns: "Tensor", tuple: none,
            out: dim, grad: "ProdBackward1", nested: false,
            doc: "The product of the elements (over ``dim``, or all); integer and bool inputs \
                  multiply in int64.",
            ex: "    >>> ferric.prod(ferric.tensor([[1, 2], [3, 4]]), 1)\n    tensor([ 2, 12])" }
        Max { name: "max", sig: MaxMin, call: max_min,
            returns: "Tensor or (Tensor values, LongTensor indices)", tuple: "max",
            out: pair, grad: "MaxBackward0", nested: true,
            doc: "Without ``dim``, the largest element as a 0-d tensor; with ``dim``, the named \
                  tuple ``(values, indices)`` of the maxima along it; ``max(input, other)`` is \
                  :func:`ferric.maximum`.",
            ex: "    >>> ferric.max(ferric.tensor([[1., 5.], [3., 2.]]))\n    tensor(5.)\n    \
                 >>> ferric.max(ferric.tensor([[1., 5.], [3., 2.]]), 0)\n    \
                 ferric.return_types.max(\n    values=tensor([3., 5.]),\n    \
                 indices=tensor([1, 0]))" }
        Min { name: "min", sig: MaxMin, call: max_min,
            returns: "Tensor or (Tensor values, LongTensor indices)", tuple: "min",
            out: pair, grad: "MinBackward0", nested: true,
            doc: "Without ``dim``, the smallest element as a 0-d tensor; with ``dim``, the \
                  named tuple ``(values, indices)`` of the minima along it; \
                  ``min(input, other)`` is :func:`ferric.minimum`.",
            ex: "    >>> ferric.min(ferric.tensor([[1., 5.], [3., 2.]]), 1)\n    \
                 ferric.return_types.min(\n    values=tensor([1., 2.]),\n    \
                 indices=tensor([0, 1]))" }
        Amax { name: "amax", sig: Amax, call: amax, returns: "Tensor", tuple: none,
            out: yes, grad: "AmaxBackward0", nested: true,
            doc: "Returns the maximum of ``input`` over the dimension(s) ``dim`` (all when \
                  empty). Unlike :func:`ferric.max` it returns no indices and spreads the \
                  gradient evenly over ties.",
            ex: "    >>> ferric.amax(ferric.tensor([[1., 5.], [3., 2.]]), dim=0)\n    \
                 tensor([3., 5.])" }
        Amin { name: "amin", sig: Amax, call: amax, returns: "Tensor", tuple: none,
            out: yes, grad: "AminBackward0", nested: true,
            doc: "Returns the minimum of ``input`` over the dimension(s) ``dim`` (all when \
                  empty).",
            ex: "    >>> ferric.amin(ferric.tensor([[1., 5.], [3., 2.]]), dim=0)\n    \
                 tensor([1., 2.])" }
        Aminmax { name: "aminmax", sig: Aminmax, call: aminmax,
            returns: "(Tensor min, Tensor max)", tuple: "aminmax",
            out: pair, grad: "AminmaxBackward0", nested: false,
            doc: "Returns the minimum and the maximum of ``input`` (over ``dim``, or all \
                  elements) as a named tuple ``(min, max)``.",
            ex: "    >>> ferric.aminmax(ferric.tensor([1., 5., -2.]))\n    \
                 ferric.return_types.aminmax(\n    min=tensor(-2.),\n    max=tensor(5.))" }
        Argmax { name: "argmax", sig: Arg, call: argmax, returns: "LongTensor", tuple: none,
            out: yes, grad: "none", nested: false,
            doc: "Returns the index of the maximum (the first one on ties) of the flattened \
                  ``input``, or along ``dim``.",
            ex: "    >>> ferric.argmax(ferric.tensor([[1., 5.], [3., 2.]]), dim=1)\n    \
                 tensor([1, 0])" }
        Argmin { name: "argmin", sig: Arg, call: argmax, returns: "LongTensor", tuple: none,
            out: yes, grad: "none", nested: false,
            doc: "Returns the index of the minimum (the first one on ties) of the flattened \
                  ``input``, or along ``dim``.",
            ex: "    >>> ferric.argmin(ferric.tensor([[1., 5.], [3., 2.]]), dim=1)\n    \
                 tensor([0, 1])" }
        All { name: "all", sig: AllAny, call: all_any, returns: "Tensor", tuple: none,
            out: yes, grad: "none", nested: false,
            doc: "Tests whether all elements (along ``dim``, or of the whole tensor) are \
                  nonzero; returns a bool tensor (uint8 for uint8 input).",
            ex: "    >>> ferric.all(ferric.tensor([[True, False], [True, True]]), dim=1)\n    \
                 tensor([False,  True])" }
        Any { name: "any", sig: AllAny, call: all_any, returns: "Tensor", tuple: none,
            out: yes, grad: "none", nested: false,
            doc: "Tests whether any element (along ``dim``, or of the whole tensor) is nonzero.",
            ex: "    >>> ferric.any(ferric.tensor([[True, False], [False, False]]), dim=1)\n    \
                 tensor([ True, False])" }
        Var { name: "var", sig: Var, call: var_std, returns: "Tensor", tuple: none,
            out: yes, grad: "VarBackward0", nested: false,
            doc: "The variance over ``dim`` (all elements by default), with ``correction`` \
                  degrees of freedom removed. ``unbiased=`` is accepted too.",
            ex: "    >>> ferric.var(ferric.tensor([1., 2., 3., 4.]))\n    tensor(1.6667)" }
        Std { name: "std", sig: Var, call: var_std, returns: "Tensor", tuple: none,
            out: yes, grad: "StdBackward0", nested: false,
            doc: "The standard deviation over ``dim`` (all elements by default), with \
                  ``correction`` degrees of freedom removed. ``unbiased=`` is accepted too.",
            ex: "    >>> ferric.std(ferric.tensor([1., 2., 3., 4.]))\n    tensor(1.2910)" }
        VarMean { name: "var_mean", sig: VarMean, call: var_mean,
            returns: "(Tensor, Tensor)", tuple: none,
            out: no, grad: "VarMeanBackward0", nested: false,
            doc: "Returns the variance and the mean of ``input`` over ``dim`` as a plain tuple \
                  ``(var, mean)``, as in PyTorch (the ``unbiased=`` spelling is accepted too).",
            ex: "    >>> x = ferric.tensor([[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]])\n    \
                 >>> ferric.var_mean(x, dim=1)\n    (tensor([1., 4.]), tensor([2., 6.]))\n    \
                 >>> ferric.var_mean(x, dim=0, keepdim=True)\n    \
                 (tensor([[ 4.5000,  8.0000, 12.5000]]), tensor([[2.5000, 4.0000, 5.5000]]))" }
        StdMean { name: "std_mean", sig: VarMean, call: var_mean,
            returns: "(Tensor, Tensor)", tuple: none,
            out: no, grad: "StdMeanBackward0", nested: false,
            doc: "Returns the standard deviation and the mean of ``input`` over ``dim`` as a \
                  tuple ``(std, mean)``, in one pass.",
            ex: "    >>> x = ferric.tensor([[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]])\n    \
                 >>> ferric.std_mean(x, dim=1)\n    (tensor([1., 2.]), tensor([2., 6.]))\n    \
                 >>> ferric.std_mean(x, correction=0)\n    (tensor(2.3805), tensor(4.))" }
        Logsumexp { name: "logsumexp", sig: Lse, call: logsumexp, returns: "Tensor",
            tuple: none, out: yes, grad: "LogsumexpBackward0", nested: false,
            doc: "``log(sum(exp(input), dim))``, computed stably.",
            ex: "    >>> ferric.logsumexp(ferric.tensor([1., 2., 3.]), 0)\n    tensor(3.4076)" }
        Norm { name: "norm", sig: Norm, call: norm, returns: "Tensor", tuple: none,
            out: yes, grad: "LinalgVectorNormBackward0", nested: false,
            doc: "The vector p-norm of ``input`` (flattened, or over ``dim``), or the \
                  Frobenius / nuclear matrix norm for ``p='fro'`` / ``'nuc'``. Prefer \
                  :func:`ferric.linalg.vector_norm` and :func:`ferric.linalg.matrix_norm`.",
            ex: "    >>> ferric.norm(ferric.tensor([3., 4.]))\n    tensor(5.)" }
        CountNonzero { name: "count_nonzero", sig: Count, call: count_nonzero,
            returns: "Tensor", tuple: none, out: no, grad: "none", nested: false,
            doc: "Counts the nonzero elements of ``input`` (along ``dim``, which may be a \
                  tuple).",
            ex: "    >>> ferric.count_nonzero(ferric.tensor([[0, 1], [2, 3]]), dim=0)\n    \
                 tensor([1, 2])" }
        Cumsum { name: "cumsum", sig: Scan, call: cumsum, returns: "Tensor", tuple: none,
            out: yes, grad: "CumsumBackward0", nested: false,
            doc: "The cumulative sum of ``input`` along ``dim``; integer and bool inputs sum \
                  in int64.",
            ex: "    >>> ferric.cumsum(ferric.tensor([1, 2, 3, 4]), 0)\n    \
                 tensor([ 1,  3,  6, 10])" }
        Cumprod { name: "cumprod", sig: Scan, call: cumsum, returns: "Tensor", tuple: none,
            out: yes, grad: "CumprodBackward0", nested: false,
            doc: "The cumulative product of ``input`` along ``dim``; integer and bool inputs \
                  multiply in int64.",
            ex: "    >>> ferric.cumprod(ferric.tensor([1, 2, 3, 4]), 0)\n    \
                 tensor([ 1,  2,  6, 24])" }
        Cummax { name: "cummax", sig: ScanPair, call: cummax,
            returns: "(Tensor values, LongTensor indices)", tuple: "cummax",
            out: pair, grad: "CummaxBackward0", nested: false,
            doc: "The running maximum of ``input`` along ``dim`` and where each was found.",
            ex: "    >>> ferric.cummax(ferric.tensor([1., 3., 2., 5.]), 0)\n    \
                 ferric.return_types.cummax(\n    values=tensor([1., 3., 3., 5.]),\n    \
                 indices=tensor([0, 1, 1, 3]))" }
        Cummin { name: "cummin", sig: ScanPair, call: cummax,
            returns: "(Tensor values, LongTensor indices)", tuple: "cummin",
            out: pair, grad: "CumminBackward0", nested: false,
            doc: "The running minimum of ``input`` along ``dim`` and where each was found.",
            ex: "    >>> ferric.cummin(ferric.tensor([3., 1., 2., 0.]), 0)\n    \
                 ferric.return_types.cummin(\n    values=tensor([3., 1., 1., 0.]),\n    \
                 indices=tensor([0, 1, 1, 3]))" }
    } };
}

pub(crate) use reduce_table;
