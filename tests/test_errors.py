"""Bad input, as a table: (call, exception type, message fragment).

Every row runs on a fresh set of standard tensors, must raise the PyTorch exception type
(never pyo3's PanicException, which derives from BaseException and would escape
``except Exception``), must mention the fragment, and must leave every input unchanged.
Fragments are taken from PyTorch's own messages. Dtype errors of individual ops are also
generated from the op table (test_op_table.py::test_dtype_errors).
"""

from __future__ import annotations

import operator
from types import SimpleNamespace

import numpy as np
import pytest

import ferric

F = ferric


def standard_inputs(mod):
    """Fresh tensors every row may use (and must leave unchanged)."""
    f = mod.arange(12.0).reshape(3, 4)
    return SimpleNamespace(
        f=f,  # float32 (3, 4)
        ft=f.t(),  # non-contiguous view of f
        d=mod.tensor([1.0, 2.0, 3.0], dtype=mod.float64),
        i=mod.tensor([1, 2, 3]),
        b=mod.tensor([True, False]),
        s=mod.tensor(2.5),  # 0-d
        e=mod.zeros(1, 3).expand(2, 3),  # stride 0 in dim 0
        z=mod.zeros(0, 3),
    )


def _snapshot(t):
    return {k: np.array(v.numpy(), copy=True) for k, v in vars(t).items()}


R, I, T, V, M = RuntimeError, IndexError, TypeError, ValueError, MemoryError


def _nested(depth):
    d = [1.0]
    for _ in range(depth):
        d = [d]
    return d


def _self_list():
    x = []
    x.append(x)
    return x


def _hooked(F, hook):
    a = F.ones(3, requires_grad=True)
    a.register_hook(hook)
    a.sum().backward()


def _too_few_grads(F):
    class Mul(F.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    x, y = F.ones(2, requires_grad=True), F.ones(2, requires_grad=True)
    Mul.apply(x, y).sum().backward()


def _multi_view(F, how):
    x = F.ones(4, requires_grad=True) * 1
    if how == "unbind":
        x.view(2, 2).unbind()[1].add_(1)
    else:
        getattr(x, how)(2)[0].mul_(2)
DIM = "Dimension out of range"
OVERLAP = "more than one element of the written-to tensor refers to a single memory location"
PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory"
CAST = "can't be cast to the desired output type"
ZERO = "ZeroDivisionError"

# (id, call(F, t), exception, fragment)
ROWS = [
    # broadcasting
    ("add shape mismatch", lambda F, t: t.f + t.d, R, "must match the size of tensor b (3)"),
    ("mul shape mismatch", lambda F, t: t.f * t.f.t(), R, "must match the size of tensor"),
    ("eq shape mismatch", lambda F, t: t.i == t.b, R, "must match the size of tensor"),
    ("in-place result larger than self", lambda F, t: t.d.add_(t.f[:, :3]), R,
     "doesn't match the broadcast shape"),
    ("copy_ source does not broadcast", lambda F, t: t.d.copy_(t.f), R, "must match the size"),
    ("expand to a smaller size", lambda F, t: t.d.expand(4), R,
     "The expanded size of the tensor (4) must match the existing size (3)"),
    ("expand with fewer dims", lambda F, t: t.f.expand(4), R,
     "the number of sizes provided (1) must be greater or equal to the number of dimensions"),
    ("expand with -1 in a new dim", lambda F, t: t.f.expand(-1, 3, 4), R, "expanded size"),
    ("broadcast_to mismatch", lambda F, t: t.f.broadcast_to((4, 4)), R, "expanded size"),
    ("broadcast_tensors mismatch", lambda F, t: F.broadcast_tensors(t.f, t.d), R,
     "must match the size"),
    ("broadcast_shapes mismatch", lambda F, t: F.broadcast_shapes((3,), (4,)), R, "broadcast"),
    ("clamp bound shape mismatch", lambda F, t: t.f.clamp(F.zeros(5)), R, "must match the size"),
    ("setitem value does not broadcast", lambda F, t: t.f.__setitem__(0, F.zeros(5)), R,
     "must match the existing size (5)"),
    # views and reshapes
    ("view of transposed", lambda F, t: t.ft.view(-1), R,
     "view size is not compatible with input tensor's size and stride"),
    ("view wrong numel", lambda F, t: t.f.view(5), R,
     "shape '[5]' is invalid for input of size 12"),
    ("reshape two -1", lambda F, t: t.f.reshape(-1, -1), R, "only one dimension can be inferred"),
    ("reshape -1 not divisible", lambda F, t: t.f.reshape(5, -1), R,
     "shape '[5, -1]' is invalid for input of size 12"),
    ("view negative size", lambda F, t: t.f.view(-2, 6), R, "invalid shape dimension -2"),
    ("reshape -1 with zero dim", lambda F, t: t.z.reshape(-1, 0), R,
     "the unspecified dimension size -1 can be any value"),
    ("unflatten wrong sizes", lambda F, t: t.f.unflatten(1, (3, 3)), R,
     "don't multiply up to the size of dim 1 (4)"),
    ("unflatten empty sizes", lambda F, t: t.f.unflatten(0, ()), R, "sizes must be non-empty"),
    ("flatten start after end", lambda F, t: t.f.flatten(1, 0), R,
     "start_dim cannot come after end_dim"),
    ("permute too few dims", lambda F, t: t.f.permute(0), R, "number of dimensions"),
    ("permute repeated dim", lambda F, t: t.f.permute(0, 0), R, "duplicate dims are not allowed"),
    ("squeeze repeated dim", lambda F, t: t.f.squeeze((0, 0)), R, "appears multiple times"),
    ("t of 3-d", lambda F, t: F.zeros(2, 2, 2).t(), R, "expects a tensor with <= 2 dimensions"),
    ("mT of 1-d", lambda F, t: t.i.mT, R, "only supported on matrices or batches of matrices"),
    ("narrow past the end", lambda F, t: t.f.narrow(1, 3, 2), R,
     "start (3) + length (2) exceeds dimension size (4)"),
    ("narrow negative length", lambda F, t: t.f.narrow(1, 0, -1), R, "length must be non-negative"),
    ("narrow start out of range", lambda F, t: t.f.narrow(1, 5, 0), I, "start out of range"),
    ("narrow of 0-d", lambda F, t: t.s.narrow(0, 0, 1), R, "cannot be applied to a 0-dim tensor"),
    ("split sizes wrong sum", lambda F, t: t.f.split([1, 2], 1), R,
     "split_with_sizes expects split_sizes to sum exactly to 4"),
    ("split size 0", lambda F, t: t.f.split(0, 1), R, "split_size can only be 0"),
    ("split negative size", lambda F, t: t.f.split(-1), R, "split_size be non-negative"),
    ("chunk 0", lambda F, t: t.f.chunk(0), R, "chunk expects `chunks` to be greater than 0"),
    ("chunk of 0-d", lambda F, t: t.s.chunk(1), R, "at least a 1-dimensional tensor"),
    ("movedim length mismatch", lambda F, t: t.f.movedim((0, 1), (1,)), R,
     "should contain the same number of dims"),
    ("movedim repeated source", lambda F, t: t.f.movedim((0, 0), (1, 0)), R, "repeated dim"),
    # dims out of range
    ("transpose dim", lambda F, t: t.f.transpose(0, 2), I, DIM),
    ("unsqueeze dim", lambda F, t: t.f.unsqueeze(3), I, DIM),
    ("select dim", lambda F, t: t.f.select(2, 0), I, DIM),
    ("size dim", lambda F, t: t.f.size(2), I, DIM),
    ("stride negative dim", lambda F, t: t.f.stride(-3), I, DIM),
    ("flatten end_dim", lambda F, t: t.f.flatten(0, 5), I, DIM),
    ("squeeze dim", lambda F, t: t.f.squeeze(3), I, DIM),
    ("movedim dim", lambda F, t: t.f.movedim(0, 5), I, DIM),
    ("chunk dim", lambda F, t: t.f.chunk(2, 3), I, DIM),
    ("unbind dim", lambda F, t: t.f.unbind(2), I, DIM),
    ("narrow dim", lambda F, t: t.f.narrow(2, 0, 1), I, DIM),
    ("permute dim", lambda F, t: t.f.permute(0, 2), I, DIM),
    ("size of 0-d", lambda F, t: t.s.size(0), I, "Dimension specified as 0 but tensor has no dim"),
    ("stride of 0-d", lambda F, t: t.s.stride(0), I, "Dimension specified as 0 but tensor has no"),
    ("unbind of 0-d", lambda F, t: t.s.unbind(0), I, "Dimension specified as 0 but tensor has no"),
    ("select of 0-d", lambda F, t: t.s.select(0, 0), I, "select() cannot be applied to a 0-dim"),
    # indices out of range
    ("getitem int", lambda F, t: t.f[3], I, "index 3 is out of bounds for dimension 0 with size 3"),
    ("getitem negative int", lambda F, t: t.f[:, -5], I,
     "index -5 is out of bounds for dimension 1 with size 4"),
    ("getitem too many", lambda F, t: t.f[0, 0, 0], I,
     "too many indices for tensor of dimension 2"),
    ("getitem on 0-d", lambda F, t: t.s[0], I, "invalid index of a 0-dim tensor"),
    ("getitem float", lambda F, t: t.f[1.5], I, "only integers, slices"),
    ("getitem negative step", lambda F, t: t.f[::-1], V, "step must be greater than zero"),
    ("getitem zero step", lambda F, t: t.f[::0], V, "step"),
    ("setitem int", lambda F, t: t.f.__setitem__(3, 1.0), I, "index 3 is out of bounds"),
    ("select index", lambda F, t: t.f.select(0, 3), I, "index 3 out of range"),
    ("select negative index", lambda F, t: t.f.select(1, -5), I, "index -5 out of range"),
    # dtypes
    ("bitwise_and float", lambda F, t: t.f.bitwise_and(t.f), R, "not implemented for 'Float'"),
    ("| float", lambda F, t: t.d | t.d, R, "not implemented for 'Double'"),
    ("|= float", lambda F, t: t.f.__ior__(t.f), R, "not implemented for 'Float'"),
    ("~ float", lambda F, t: ~t.f, T, "only implemented on integer and Boolean-type tensors"),
    ("bitwise_not float", lambda F, t: F.bitwise_not(t.f), R, "not implemented for 'Float'"),
    ("neg bool", lambda F, t: -t.b, R, "Negation, the `-` operator, on a bool tensor"),
    ("sub bools", lambda F, t: t.b - t.b, R, "Subtraction, the `-` operator, with two bool"),
    ("frac int", lambda F, t: t.i.frac(), R, "not implemented for 'Long'"),
    ("abs bool", lambda F, t: t.b.abs(), R, "not implemented for 'Bool'"),
    ("requires_grad int", lambda F, t: setattr(t.i, "requires_grad", True), R,
     "only Tensors of floating point"),
    ("requires_grad_ bool", lambda F, t: t.b.requires_grad_(), R, "only Tensors of floating point"),
    ("factory requires_grad int", lambda F, t: F.zeros(2, dtype=F.int64, requires_grad=True), R,
     "Tensors of floating point"),
    ("int ** negative int", lambda F, t: t.i ** -1, R, "Integers to negative integer powers"),
    ("int pow_ negative", lambda F, t: t.i.pow_(-2), R, "Integers to negative integer powers"),
    ("0-d int ** negative", lambda F, t: F.tensor(2) ** -1, R, "Integers to negative integer"),
    ("int exp_", lambda F, t: t.i.exp_(), R, CAST),
    ("int += float", lambda F, t: operator.iadd(t.i, 1.5), R, CAST),
    ("int /= int", lambda F, t: operator.itruediv(t.i, 2), R, CAST),
    ("bool += int", lambda F, t: operator.iadd(t.b, 1), R, CAST),
    ("int div_ float result", lambda F, t: t.i.div_(t.i), R, CAST),
    ("int clamp_ float bound", lambda F, t: t.i.clamp_(0.5, 1.5), R, CAST),
    # integer division by zero
    ("int // 0", lambda F, t: t.i // 0, R, ZERO),
    ("int % tensor with a zero", lambda F, t: t.i % F.tensor([1, 0, 1]), R, ZERO),
    ("fmod int 0", lambda F, t: F.fmod(t.i, 0), R, ZERO),
    ("div trunc int 0", lambda F, t: F.div(t.i, 0, rounding_mode="trunc"), R, ZERO),
    ("div floor int zeros", lambda F, t: F.div(t.i, F.zeros(3, dtype=F.int64),
                                              rounding_mode="floor"), R, ZERO),
    ("int //= 0", lambda F, t: operator.ifloordiv(t.i, 0), R, ZERO),
    ("int remainder_ 0", lambda F, t: t.i.remainder_(0), R, ZERO),
    # sizes
    ("zeros negative", lambda F, t: F.zeros(-1), R, "negative"),
    ("ones negative", lambda F, t: F.ones(2, -3), R, "negative dimension -3"),
    ("full negative", lambda F, t: F.full((-1,), 1.0), R, "negative dimension -1"),
    ("empty negative", lambda F, t: F.empty(-5), R, "negative dimension -5"),
    ("zeros numel overflow", lambda F, t: F.zeros(2**62, 2**62), R, "overflow"),
    ("zeros numel overflow 2", lambda F, t: F.zeros(2**31, 2**31), R, "overflow"),
    ("linspace negative steps", lambda F, t: F.linspace(0, 1, -1), R,
     "number of steps must be non-negative"),
    ("logspace negative steps", lambda F, t: F.logspace(0, 1, -2), R, "must be non-negative"),
    ("eye negative n", lambda F, t: F.eye(-1), R, "n must be greater or equal to 0, got -1"),
    ("eye negative m", lambda F, t: F.eye(2, -1), R, "m must be greater or equal to 0, got -1"),
    ("arange zero step", lambda F, t: F.arange(0, 10, 0), R, "step must be nonzero"),
    ("arange wrong sign", lambda F, t: F.arange(10, 0, 1), R, "inconsistent with step sign"),
    # in-place on expanded tensors
    ("add_ expanded", lambda F, t: t.e.add_(1), R, OVERLAP),
    ("exp_ expanded", lambda F, t: t.e.exp_(), R, OVERLAP),
    ("copy_ into expanded", lambda F, t: t.e.copy_(F.zeros(2, 3)), R, OVERLAP),
    ("setitem tensor into expanded", lambda F, t: t.e.__setitem__((slice(None), 0), F.zeros(2)),
     R, OVERLAP),
    ("clamp_ expanded", lambda F, t: t.e.clamp_(0, 1), R, OVERLAP),
    ("mul_ expanded by itself", lambda F, t: t.e.mul_(t.e), R, OVERLAP),
    ("+= expanded", lambda F, t: operator.iadd(t.e, 1), R, OVERLAP),
    ("fill_ with a 1-d tensor", lambda F, t: t.f.fill_(F.zeros(2)), R,
     "fill_ only supports 0-dimension value tensor"),
    # conversions of multi-element tensors
    ("item of 2 elements", lambda F, t: t.b.item(), R,
     "a Tensor with 2 elements cannot be converted to Scalar"),
    ("item of empty", lambda F, t: t.z.item(), R, "a Tensor with 0 elements cannot be converted"),
    ("bool of 2 elements", lambda F, t: bool(t.b), R,
     "Boolean value of Tensor with more than one value is ambiguous"),
    ("bool of empty", lambda F, t: bool(t.z), R, "Boolean value of Tensor with no values"),
    ("float of 3 elements", lambda F, t: float(t.d), V,
     "only one element tensors can be converted to Python scalars"),
    ("int of 3 elements", lambda F, t: int(t.i), V,
     "only one element tensors can be converted to Python scalars"),
    ("int of nan", lambda F, t: int(F.tensor(float("nan"))), V, "cannot convert float NaN"),
    ("index of float", lambda F, t: operator.index(t.s), T,
     "only integer tensors of a single element can be converted to an index"),
    ("index of 3 ints", lambda F, t: operator.index(t.i), T, "only integer tensors of a single"),
    ("len of 0-d", lambda F, t: len(t.s), T, "len() of a 0-d tensor"),
    ("iter of 0-d", lambda F, t: iter(t.s), T, "iteration over a 0-d tensor"),
    # argument types and values
    ("tensor + str", lambda F, t: t.f + "a", T, "unsupported operand type"),
    ("add(str)", lambda F, t: t.f.add("a"), T, "must be Tensor"),
    ("maximum(float)", lambda F, t: t.f.maximum(2.5), T, "must be Tensor, not float"),
    ("atan2(float)", lambda F, t: F.atan2(t.f, 1.0), T, "must be Tensor, not float"),
    ("zeros(str)", lambda F, t: F.zeros("a"), T, "tuple of ints"),
    ("zeros(float)", lambda F, t: F.zeros(2.5), T, "tuple of ints"),
    ("view(float)", lambda F, t: t.f.view(2.5, 2), T, ""),
    ("reshape(str)", lambda F, t: t.f.reshape("ab"), T, "tuple of ints"),
    ("permute(float)", lambda F, t: t.f.permute(0.5, 1), T, ""),
    ("unsqueeze(str)", lambda F, t: t.f.unsqueeze("0"), T, "must be int"),
    ("exp(list)", lambda F, t: F.exp([1.0, 2.0]), T, "must be Tensor, not list"),
    ("dtype=str", lambda F, t: F.ones(2, dtype="float32"), T, "dtype"),
    ("promote_types(str)", lambda F, t: F.promote_types(F.float32, "abc"), T, "dtype"),
    ("full(str)", lambda F, t: F.full((2,), "a"), T, "must be Number, not str"),
    ("fill_(str)", lambda F, t: t.f.fill_("a"), T, ""),
    ("type_as(int)", lambda F, t: t.f.type_as(2), T, "must be Tensor, not int"),
    ("tensor([1, str])", lambda F, t: F.tensor([1, "a"]), T, "invalid data type 'str'"),
    ("tensor ragged", lambda F, t: F.tensor([[1, 2], [3]]), V,
     "expected sequence of length 2 at dim 1 (got 1)"),
    ("from_numpy(list)", lambda F, t: F.from_numpy([1, 2]), T, "expected np.ndarray (got list)"),
    ("div bad rounding_mode", lambda F, t: F.div(t.f, t.f, rounding_mode="bad"), R,
     "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'bad'"),
    ("gelu bad approximate", lambda F, t: F.gelu(t.f, approximate="bad"), R,
     "approximate argument must be either none or tanh"),
    ("clamp without bounds", lambda F, t: t.f.clamp(), R,
     "At least one of 'min' or 'max' must not be None"),
    ("add float alpha to ints", lambda F, t: t.i.add(t.i, alpha=0.5), R,
     "alpha must not be a floating point number"),
    # (PyTorch's CPU allocator raises RuntimeError here; ferric deliberately raises
    # MemoryError. 2**40 float32 is 4 TiB, refused up front: nothing is touched.)
    ("huge allocation", lambda F, t: F.zeros(2**40), M, "you tried to allocate"),
    ("huge allocation is also a RuntimeError", lambda F, t: F.zeros(2**40), R,
     "DefaultCPUAllocator: can't allocate memory"),
    ("arange of 1e13 elements", lambda F, t: F.arange(0, 1e13), R, "can't allocate memory"),
    ("linspace of 1e13 steps", lambda F, t: F.linspace(0, 1, 10**13), R,
     "can't allocate memory"),
    ("linspace of 2**62 steps", lambda F, t: F.linspace(0, 1, 2**62), R, "overflows"),
    ("multinomial of 2**40 samples",
     lambda F, t: F.multinomial(F.ones(3), 2**40, replacement=True), R,
     "can't allocate memory"),
] + [
    # writes whose input shares part of the written memory (PyTorch's partial overlap)
    ("add_ partial overlap", lambda F, t: t.f[1:].add_(t.f[:-1]), R, PARTIAL),
    ("mul_ by own row", lambda F, t: t.f.mul_(t.f[0]), R, PARTIAL),
    ("setitem partial overlap", lambda F, t: t.f.__setitem__(slice(1, None), t.f[:-1]), R,
     PARTIAL),
    ("copy_ own transpose", lambda F, t: (lambda x: x.copy_(x.t()))(F.ones(3, 3)), R, PARTIAL),
] + [
    # sizes, strides and values that overflow (PyTorch 2.13's types and messages)
    ("zeros whose strides overflow", lambda F, t: F.zeros(0, 2**62, 2**62), R,
     "Stride calculation overflowed"),
    ("narrow past the end by 2**63-1", lambda F, t: t.d.narrow(0, 1, 2**63 - 1), R,
     "exceeds dimension size"),
    ("split sizes summing past int64", lambda F, t: t.d.split([2**62] * 4 + [3]), R,
     "split_with_sizes expects split_sizes to sum exactly to 3"),
    ("tensor of 2**63", lambda F, t: F.tensor([2**63]), V, "Overflow when unpacking long long"),
    ("full of 2**63 (int64)", lambda F, t: F.full((2,), 2**63), R,
     "value cannot be converted to type int64_t without overflow"),
    ("tensor nested 100 deep", lambda F, t: F.tensor(_nested(100)), V,
     "too many dimensions 'list'"),
    ("tensor of a list that holds itself", lambda F, t: F.tensor(_self_list()), V,
     "too many dimensions 'list'"),
] + [
    # out= of the factories
    ("zeros out=5", lambda F, t: F.zeros(2, out=5), T,
     "zeros(): argument 'out' must be Tensor, not int"),
    ("ones out= with another dtype", lambda F, t: F.ones(2, dtype=F.float64, out=F.empty(2)),
     R, "dtype Double does not match dtype of out parameter (Float)"),
    ("arange out= that requires grad",
     lambda F, t: F.arange(3.0, out=F.empty(3, requires_grad=True)), R,
     "functions with out=... arguments don't support automatic differentiation"),
] + [
    # autograd misuse
    ("hook changes the size", lambda F, t: _hooked(F, lambda g: g[:2]), R,
     "has changed the size of value"),
    ("hook changes the dtype", lambda F, t: _hooked(F, lambda g: g.double()), R,
     "has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)"),
    ("Function.backward returns too few grads", lambda F, t: _too_few_grads(F), R,
     "returned an incorrect number of gradients (expected 2, got 1)"),
    ("grad() with no inputs",
     lambda F, t: F.autograd.grad(F.ones(1, requires_grad=True).sum(), []), R,
     "`inputs` argument to `grad()` cannot be empty."),
    ("in-place on an output of split", lambda F, t: _multi_view(F, "split"), R,
     "Output 0 of Split is a view and is being modified inplace"),
    ("in-place on an output of unbind", lambda F, t: _multi_view(F, "unbind"), R,
     "Output 1 of Unbind is a view and is being modified inplace"),
    ("in-place on an output of chunk", lambda F, t: _multi_view(F, "chunk"), R,
     "Output 0 of Split is a view and is being modified inplace"),
    ("detach_ on a view", lambda F, t: (F.ones(4, requires_grad=True) * 1)[:2].detach_(), R,
     "Can't detach views in-place. Use detach() instead."),
] + [
    # nn input checks
    ("LSTM input_size 0", lambda F, t: F.nn.LSTM(0, 3), V, "input_size must be greater than zero"),
    ("Flatten of a 0-d tensor", lambda F, t: F.nn.Flatten()(t.s), I, DIM),
    ("binary_cross_entropy target above 1",
     lambda F, t: F.nn.functional.binary_cross_entropy(F.tensor([0.5]), F.tensor([2.0])), R,
     "all elements of target should be between 0 and 1"),
    ("binary_cross_entropy NaN input",
     lambda F, t: F.nn.functional.binary_cross_entropy(F.tensor([float("nan")]),
                                                       F.tensor([1.0])), R,
     "all elements of input should be between 0 and 1"),
    ("huge allocation float64", lambda F, t: F.ones(2**45, dtype=F.float64), M,
     "you tried to allocate"),
] + [
    # index ops: indices out of range (PyTorch's types differ by op: gather/scatter check
    # in the kernel and raise RuntimeError, the index_* ops raise IndexError)
    ("index_select index out of range", lambda F, t: t.f.index_select(0, F.tensor([0, 3])), I,
     "index out of range in self"),
    ("index_select 0-d with 2 indices", lambda F, t: t.s.index_select(0, F.tensor([0, 0])), R,
     "index_select(): Index to scalar can have only 1 value, got 2 value(s)"),
    ("gather index out of range", lambda F, t: t.f.gather(1, F.tensor([[4]])), R,
     "index 4 is out of bounds for dimension 1 with size 4"),
    ("gather negative index", lambda F, t: t.f.gather(0, F.tensor([[-1]])), R,
     "index -1 is out of bounds for dimension 0 with size 3"),
    ("scatter index out of range", lambda F, t: t.f.scatter(0, F.tensor([[3]]), 1.0), R,
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("scatter_add index out of range",
     lambda F, t: t.f.scatter_add(1, F.tensor([[0, 9]]), t.f), R,
     "index 9 is out of bounds for dimension 1 with size 4"),
    ("index_add index out of range",
     lambda F, t: t.f.index_add(0, F.tensor([3]), F.ones(1, 4)), R,
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("index_fill index out of range",
     lambda F, t: t.f.index_fill(1, F.tensor([4]), 0.0), I,
     "index 4 is out of bounds for dimension 1 with size 4"),
    ("index_put index out of range",
     lambda F, t: t.f.index_put((F.tensor([3]),), F.tensor(1.0)), I,
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("index_put_ negative index out of range",
     lambda F, t: t.d.index_put_((F.tensor([-4]),), F.tensor(1.0, dtype=F.float64)), I,
     "index -4 is out of bounds for dimension 0 with size 3"),
    ("take index out of range", lambda F, t: t.f.take(F.tensor([12])), I,
     "out of range: tried to access index 12 on a tensor of 12 elements"),
    ("take negative index out of range", lambda F, t: t.f.take(F.tensor([0, -13])), I,
     "tried to access index -13 on a tensor of 12 elements"),
    ("take from empty", lambda F, t: t.z.take(F.tensor([0])), I,
     "take(): tried to take from an empty tensor"),
    # index ops: wrong index dtype
    ("index_select float index", lambda F, t: t.f.index_select(0, t.d), R,
     "index_select(): Expected dtype int32 or int64 for index"),
    # (PyTorch 2.x says "int32/int64" here, older versions "int64")
    ("gather float index", lambda F, t: t.f.gather(0, t.f), R, "gather(): Expected dtype int"),
    ("gather bool index", lambda F, t: t.d.gather(0, F.tensor([True])), R,
     "gather(): Expected dtype int"),
    ("scatter float index", lambda F, t: t.f.scatter(0, t.f, 1.0), R,
     "scatter(): Expected dtype int"),
    ("scatter_add float index", lambda F, t: t.f.scatter_add(0, t.f, t.f), R,
     "scatter(): Expected dtype int"),
    ("take float index", lambda F, t: t.f.take(t.d), R,
     "take(): Expected a long tensor for index, but got Double"),
    ("index_add float index", lambda F, t: t.d.index_add(0, t.d, t.d), R,
     "index_add_(): Expected dtype int32/int64 for index"),
    ("index_fill float index", lambda F, t: t.d.index_fill(0, t.d, 1.0), I,
     "index_fill_(): Expected dtype int64 for index"),
    ("index_put float index", lambda F, t: t.d.index_put((t.d,), t.d), I,
     "tensors used as indices must be long, int, byte or bool tensors"),
    # index ops: shapes and dtypes of the other operands
    ("gather index larger than self", lambda F, t: t.f.gather(0, F.zeros(3, 5, dtype=F.int64)),
     R, "Size does not match at dimension 1 expected index [3, 5] to be no larger than self "
     "[3, 4] apart from dimension 0"),
    ("gather index ndim", lambda F, t: t.f.gather(0, F.zeros(3, dtype=F.int64)), R,
     "Index tensor must have the same number of dimensions as input tensor"),
    ("gather dim out of range", lambda F, t: t.f.gather(2, F.zeros(3, 4, dtype=F.int64)), I, DIM),
    ("scatter src dtype", lambda F, t: t.f.scatter(0, F.zeros(1, 3, dtype=F.int64), t.f.double()),
     R, "Expected self.dtype to be equal to src.dtype"),
    ("scatter bad reduce", lambda F, t: t.f.scatter(0, F.zeros(1, 3, dtype=F.int64), t.f,
                                                    reduce="max"), R,
     "reduce argument must be either add or multiply"),
    ("scatter_ into expanded", lambda F, t: t.e.scatter_(0, F.zeros(1, 3, dtype=F.int64), 1.0), R,
     OVERLAP),
    ("index_add source size", lambda F, t: t.f.index_add(0, F.tensor([0]), F.ones(2, 4)), R,
     "index_add_(): Number of indices (1) should be equal to source.size(dim): (2), for dim: "
     "0"),
    ("index_add source dtype",
     lambda F, t: t.f.index_add(0, F.tensor([0]), F.ones(1, 4, dtype=F.float64)), R,
     "index_add_(): self (Float) and source (Double) must have the same scalar type"),
    ("index_add_ into expanded", lambda F, t: t.e.index_add_(0, F.tensor([0]), F.ones(1, 3)), R,
     OVERLAP),
    ("index_fill 1-d value", lambda F, t: t.f.index_fill(0, F.tensor([0]), F.zeros(2)), R,
     "only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)"),
    ("index_put values dtype",
     lambda F, t: t.f.index_put((F.tensor([0]),), F.zeros(4, dtype=F.float64)), R,
     "Index put requires the source and destination dtypes match, got Float for the "
     "destination and Double for the source"),
    ("index_put too many indices", lambda F, t: t.d.index_put((t.i, t.i), t.d), I,
     "too many indices for tensor of dimension 1 (got 2)"),
    ("index_put values shape", lambda F, t: t.f.index_put((F.tensor([0, 1]),), F.zeros(3)), R,
     "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of "
     "shape [2, 4]"),
    ("index_put None index", lambda F, t: t.f.index_put((None, F.tensor([0])), F.tensor(1.0)),
     T, "expected Tensor as element 0 in argument"),
    # masks
    ("masked_fill mask shape", lambda F, t: t.f.masked_fill(F.ones(3, dtype=F.bool), 0.0), R,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ("masked_fill_ mask larger than self",
     lambda F, t: t.d.masked_fill_(F.ones(2, 3, dtype=F.bool), 0.0), R,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("masked_fill float mask", lambda F, t: t.f.masked_fill(F.ones(3, 4), 0.0), R,
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    ("masked_fill int mask", lambda F, t: t.f.masked_fill(F.ones(3, 4, dtype=F.int64), 0.0), R,
     "masked_fill_ only supports boolean masks, but got mask with dtype long"),
    ("masked_fill 1-d value", lambda F, t: t.f.masked_fill(t.f > 5, F.zeros(2)), R,
     "only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)"),
    ("masked_fill str value", lambda F, t: t.f.masked_fill(t.f > 5, "a"), T, ""),
    ("masked_select float mask", lambda F, t: t.f.masked_select(t.f), R,
     "masked_select: expected BoolTensor for mask"),
    ("masked_select mask shape", lambda F, t: t.f.masked_select(F.ones(3, dtype=F.bool)), R,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ("masked_scatter source too small",
     lambda F, t: t.f.masked_scatter(F.ones(3, 4, dtype=F.bool), F.zeros(5)), R,
     "Number of elements of source < number of ones in mask"),
    ("masked_scatter float mask", lambda F, t: t.f.masked_scatter(t.f, t.f), R,
     "masked_scatter_ only supports boolean masks, but got mask with dtype Float"),
    ("masked_scatter_ into expanded",
     lambda F, t: t.e.masked_scatter_(F.ones(2, 3, dtype=F.bool), F.zeros(6)), R, OVERLAP),
    ("where float condition", lambda F, t: F.where(t.f, t.f, t.f), R,
     "where expected condition to be a boolean tensor, but got a tensor with dtype Float"),
    ("where shape mismatch", lambda F, t: F.where(t.b, t.f, 0.0), R,
     "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 1"),
    ("where str operand", lambda F, t: F.where(t.f > 5, t.f, "a"), T, ""),
    # joins
    ("cat ndim mismatch", lambda F, t: F.cat([t.f, t.d]), R,
     "Tensors must have same number of dimensions: got 2 and 1"),
    ("cat size mismatch", lambda F, t: F.cat([t.f, F.zeros(2, 3)]), R,
     "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 3 for "
     "tensor number 1 in the list."),
    ("cat empty list", lambda F, t: F.cat([]), V, "expected a non-empty list of Tensors"),
    ("cat 0-d", lambda F, t: F.cat([t.s, t.s]), R,
     "zero-dimensional tensor (at position 0) cannot be concatenated"),
    ("cat dim out of range", lambda F, t: F.concat([t.f, t.f], 2), I, DIM),
    ("cat non-tensor item", lambda F, t: F.cat([t.f, 1]), T,
     "expected Tensor as element 1 in argument 0, but got int"),
    ("cat of a tensor", lambda F, t: F.cat(t.f), T, "must be tuple of Tensors, not Tensor"),
    ("stack size mismatch", lambda F, t: F.stack([t.f, t.ft]), R,
     "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [4, 3] at "
     "entry 1"),
    ("stack empty list", lambda F, t: F.stack([]), R, "stack expects a non-empty TensorList"),
    ("stack dim out of range", lambda F, t: F.stack([t.f, t.f], 3), I, DIM),
    ("hstack ndim mismatch", lambda F, t: F.hstack([t.f, t.d]), R,
     "Tensors must have same number of dimensions: got 2 and 1"),
    ("vstack size mismatch", lambda F, t: F.vstack([t.f, t.d]), R,
     "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 3"),
    ("dstack size mismatch", lambda F, t: F.dstack([t.f, t.ft]), R,
     "Sizes of tensors must match except in dimension 2"),
    ("column_stack size mismatch", lambda F, t: F.column_stack([t.f, t.i[:2]]), R,
     "Sizes of tensors must match except in dimension 1. Expected size 3 but got size 2"),
    # pad
    ("pad odd length", lambda F, t: F.pad(t.f, (1, 1, 1)), R,
     "Padding length must be divisible by 2"),
    ("pad too long", lambda F, t: F.pad(t.f, (1, 1, 1, 1, 1, 1)), R,
     "Padding length should be less than or equal to two times the input dimension but got "
     "padding length 6 and input of dimension 2"),
    ("pad 0-d", lambda F, t: F.pad(t.s, (1, 1)), R,
     "Padding length should be less than or equal to two times the input dimension"),
    ("pad crops below zero", lambda F, t: F.pad(t.f, (-3, -2)), R, ""),
    ("pad reflect too wide", lambda F, t: F.pad(t.f, (4, 2), mode="reflect"), R,
     "Padding size should be less than the corresponding input dimension, but got: padding "
     "(4, 2) at dimension 1 of input [3, 4]"),
    ("pad circular wraps twice", lambda F, t: F.pad(t.f, (5, 2), mode="circular"), R,
     "Padding value causes wrapping around more than once"),
    ("pad replicate 4 pads on 2-d", lambda F, t: F.pad(t.f, (1, 1, 1, 1), mode="replicate"),
     NotImplementedError, "Padding size 4 is not supported for 2D input tensor"),
    ("pad reflect 1-d", lambda F, t: F.pad(t.d, (1, 1), mode="reflect"), NotImplementedError,
     "Padding size 2 is not supported for 1D input tensor"),
    ("pad bad mode", lambda F, t: F.pad(t.f, (1, 1), mode="bad"), NotImplementedError,
     "Unrecognised padding mode bad"),
    # flip, roll, repeat, tril/triu, diagonals
    ("flip repeated dim", lambda F, t: t.f.flip(0, 0), R,
     "dim 0 appears multiple times in the list of dims"),
    ("flip dim out of range", lambda F, t: t.f.flip(2), I, DIM),
    ("fliplr 1-d", lambda F, t: t.d.fliplr(), R, "Input must be >= 2-d."),
    ("flipud 0-d", lambda F, t: t.s.flipud(), R, "Input must be >= 1-d."),
    ("roll shifts and dims differ", lambda F, t: t.f.roll((1, 2), (0,)), R,
     "shifts and dimensions must align. shifts: 2, dims:1"),
    ("roll dim out of range", lambda F, t: t.f.roll(1, 2), I, DIM),
    ("repeat fewer dims", lambda F, t: t.f.repeat(2), R,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
     "tensor"),
    ("repeat negative", lambda F, t: t.d.repeat(-1), R,
     "Trying to create tensor with negative dimension -3: [-3]"),
    ("tile negative", lambda F, t: t.d.tile(-1), R, "negative dimension -3"),
    ("repeat_interleave negative", lambda F, t: t.d.repeat_interleave(-1), R,
     "Repeats must be non-negative"),
    ("repeat_interleave repeats length", lambda F, t: t.d.repeat_interleave(F.tensor([1, 2]), 0),
     R, "repeats must have the same size as input along dim, but got repeats.size(0) = 2 and "
     "input.size(0) = 3"),
    ("repeat_interleave negative repeats", lambda F, t: t.d.repeat_interleave(-t.i, 0), R,
     "repeats can not be negative"),
    ("repeat_interleave 2-d repeats", lambda F, t: F.repeat_interleave(t.i[None]), R,
     "repeat_interleave only accept 1D vector as repeat"),
    ("tril 1-d", lambda F, t: t.d.tril(), R, "tril: input tensor must have at least 2 dimensions"),
    ("triu_ 0-d", lambda F, t: t.s.triu_(), R,
     "triu: input tensor must have at least 2 dimensions"),
    ("diag 3-d", lambda F, t: F.diag(F.zeros(2, 2, 2)), R,
     "diag(): Supports 1D or 2D tensors. Got 3D"),
    ("diag 0-d", lambda F, t: t.s.diag(), R, "diag(): Supports 1D or 2D tensors. Got 0D"),
    ("diagonal same dims", lambda F, t: t.f.diagonal(0, 1, 1), R,
     "diagonal dimensions cannot be identical 1, 1"),
    ("diagonal dim out of range", lambda F, t: t.f.diagonal(0, 0, 2), I, DIM),
    ("diag_embed same dims", lambda F, t: t.f.diag_embed(0, 1, 1), R,
     "diagonal dimensions cannot be identical 1, 1"),
    ("diag_embed of 0-d", lambda F, t: t.s.diag_embed(), I, DIM),
    # matmul family
    ("mm shapes", lambda F, t: F.mm(t.f, t.f), R,
     "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)"),
    ("matmul shapes", lambda F, t: t.f @ t.d.float(), R, "size mismatch"),
    ("matmul 0-d", lambda F, t: F.matmul(t.s, t.s), R,
     "both arguments to matmul need to be at least 1D, but they are 0D and 0D"),
    ("matmul dtypes", lambda F, t: t.f @ t.ft.double(), R,
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    ("matmul bool", lambda F, t: t.b @ t.b, NotImplementedError, "not implemented for 'Bool'"),
    ("bmm of 2-d", lambda F, t: F.bmm(t.f, t.ft), R, "batch1 must be a 3D tensor"),
    ("dot sizes", lambda F, t: t.d.dot(F.ones(2, dtype=F.float64)), R,
     "inconsistent tensor size, expected tensor [3] and src [2] to have the same number of "
     "elements, but got 3 and 2 elements respectively"),
    ("dot of 2-d", lambda F, t: t.f.dot(t.f), R, "1D tensors expected, but got 2D and 2D tensors"),
    ("mv sizes", lambda F, t: t.f.mv(t.d.float()), R, "size mismatch"),
    ("addmm input shape", lambda F, t: F.addmm(F.zeros(2), t.f, t.ft), R, ""),
    ("einsum operand dims", lambda F, t: F.einsum("ijk", t.f), R,
     "the number of subscripts in the equation (3) does not match the number of dimensions (2) "
     "for operand 0"),
    ("einsum too many operands", lambda F, t: F.einsum("ij", t.f, t.f), R,
     "more operands were provided than specified in the equation"),
    ("einsum sizes", lambda F, t: F.einsum("ij,ij->i", t.f, t.ft), R,
     "subscript i has size 4 for operand 1 which does not broadcast with previously seen size 3"),
    ("einsum str operand", lambda F, t: F.einsum("i,i", t.d, "a"), T, ""),
    # random
    ("uniform_ into expanded", lambda F, t: t.e.uniform_(), R, OVERLAP),
    ("normal_ into expanded", lambda F, t: t.e.normal_(), R, OVERLAP),
    ("randint empty range", lambda F, t: F.randint(5, 5, (2,)), R,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=5"),
    ("randperm negative", lambda F, t: F.randperm(-1), R, "negative dimension -1"),
    ("rand negative size", lambda F, t: F.rand(-1), R, "negative dimension -1"),
    ("multinomial too many samples", lambda F, t: F.multinomial(F.ones(3), 4), R,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    ("multinomial negative weight", lambda F, t: F.multinomial(F.tensor([1.0, -1.0]), 1), R,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    ("multinomial int weights", lambda F, t: t.i.multinomial(1), R,
     "multinomial only supports floating-point dtypes for input"),
    ("bernoulli_ p above 1", lambda F, t: t.f.bernoulli_(1.5), R,
     "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    ("normal negative std", lambda F, t: F.normal(t.f, -1.0), R, "normal expects std >= 0.0"),
    ("uniform_ from > to", lambda F, t: t.f.uniform_(2.0, 1.0), R,
     "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
    ("manual_seed str", lambda F, t: F.manual_seed("a"), V, "invalid literal for int()"),
    # reductions
    ("max of empty", lambda F, t: t.z.max(), R,
     "max(): Expected reduction dim to be specified for input.numel() == 0"),
    ("max over empty dim", lambda F, t: t.z.max(0), I,
     "max(): Expected reduction dim 0 to have non-zero size"),
    ("amax over empty dim", lambda F, t: t.z.amax(0), I,
     "amax(): Expected reduction dim 0 to have non-zero size"),
    ("argmax of empty", lambda F, t: t.z.argmax(), I, "argmax(): Expected reduction dim"),
    ("sum dim out of range", lambda F, t: t.f.sum(2), I, DIM),
    ("mean negative dim out of range", lambda F, t: t.f.mean(-3), I, DIM),
    ("sum repeated dim", lambda F, t: t.f.sum((0, -2)), R,
     "dim 0 appears multiple times in the list of dims"),
    ("cumsum without dim", lambda F, t: t.f.cumsum(), T, ""),
    ("softmax without dim", lambda F, t: F.softmax(t.f), T, ""),
    ("logsumexp without dim", lambda F, t: t.f.logsumexp(), T, ""),
    ("prod of dims tuple", lambda F, t: t.f.prod((0, 1)), T, ""),
    ("var unbiased and correction", lambda F, t: t.f.var(0, unbiased=True, correction=0), T, ""),
    ("norm bad p", lambda F, t: t.f.norm("abc"), R, ""),
    ("cumsum dim out of range", lambda F, t: t.f.cumsum(2), I, DIM),
    ("softmax dim out of range", lambda F, t: t.f.softmax(-3), I, DIM),
    ("mean of ints", lambda F, t: t.i.mean(), R,
     "mean(): could not infer output dtype. Input dtype must be either a floating point or "
     "complex dtype. Got: Long"),
    ("sum(str dim)", lambda F, t: t.f.sum("a"), T, ""),
]

# Known library bugs (strict xfail): id -> reason with a minimal reproducer. The right
# exception type with PyTorch-different wording is listed as "message": ferric aims to
# match PyTorch's messages too.
MESSAGES = {
    "copy_ source does not broadcast": "copy_ says 'the size of the source [3, 4] cannot be "
    "broadcast to the destination [3]'; PyTorch: 'The size of tensor a (3) must match the "
    "size of tensor b (4) at non-singleton dimension 1'",
    "broadcast_tensors mismatch": "'Shape mismatch: objects cannot be broadcast...'; PyTorch: "
    "'The size of tensor a (4) must match the size of tensor b (3) ...'",
    "setitem value does not broadcast": "x[0] = zeros(5) says 'copy_: the size of the source "
    "[5] cannot be broadcast'; PyTorch: 'The expanded size of the tensor (4) must match the "
    "existing size (5) at non-singleton dimension 0'",
    "zeros(str)": "zeros('a') says 'size must be int, not str'; PyTorch: \"zeros(): argument "
    "'size' (position 1) must be tuple of ints, not str\"",
    "reshape(str)": "as zeros(str)",
    "unsqueeze(str)": "pyo3's \"'str' object cannot be interpreted as an integer\"; PyTorch: "
    "\"unsqueeze(): argument 'dim' (position 1) must be int, not str\"",
    "exp(list)": "ferric.exp([1.]) gives the method-descriptor message \"descriptor 'exp' for "
    "'ferric.Tensor' objects doesn't apply to a 'list' object\"; PyTorch: \"exp(): argument "
    "'input' (position 1) must be Tensor, not list\"",
    "type_as(int)": "pyo3's \"'int' object cannot be cast as 'Tensor'\"; PyTorch: "
    "\"type_as(): argument 'other' (position 1) must be Tensor, not int\"",
    "masked_fill mask shape": "x(3, 4).masked_fill(ones(3, dtype=bool), 0.) says 'The size of "
    "tensor a (4) must match the size of tensor b (3)'; PyTorch names the mask first: 'tensor "
    "a (3) must match the size of tensor b (4) at non-singleton dimension 1'",
    "masked_select mask shape": "as 'masked_fill mask shape'",
    "masked_fill_ mask larger than self": "zeros(3).masked_fill_(ones(2, 3, dtype=bool), 0.) "
    "says 'the number of sizes provided (1) must be greater or equal to the number of "
    "dimensions in the tensor (2)'; PyTorch: \"output with shape [3] doesn't match the "
    "broadcast shape [2, 3]\"",
}

# wrong exception types (none known today): id -> reason with a minimal reproducer
BUGS: dict[str, str] = {}


def check_row(mod, call, exc, frag):
    t = standard_inputs(mod)
    before = _snapshot(t)
    try:
        call(mod, t)
    except BaseException as e:  # noqa: BLE001 - PanicException derives from BaseException
        assert type(e).__name__ != "PanicException", f"Rust panic: {e}"
        assert isinstance(e, exc), f"expected {exc.__name__}, got {type(e).__name__}: {e}"
        assert frag in str(e), f"{frag!r} not in {str(e)!r}"
    else:
        pytest.fail(f"did not raise {exc.__name__}")
    after = _snapshot(t)
    for k, v in before.items():
        assert np.array_equal(after[k], v), f"input {k} changed"


@pytest.mark.parametrize(
    "call,exc,frag",
    [pytest.param(c, e, m, id=i, marks=[pytest.mark.xfail(strict=True, reason="BUG: " + BUGS[i])]
                  if i in BUGS else [pytest.mark.xfail(strict=True,
                                                       reason="BUG: message: " + MESSAGES[i])]
                  if i in MESSAGES else []) for i, c, e, m in ROWS])
def test_bad_input(call, exc, frag):
    check_row(F, call, exc, frag)


def test_table_is_big_and_ids_unique():
    ids = [r[0] for r in ROWS]
    assert len(ids) >= 60 and len(set(ids)) == len(ids)
    assert set(BUGS) | set(MESSAGES) <= set(ids)


def test_an_escaping_panic_is_a_runtime_error():
    """The policy for a Rust panic that escapes library code anyway (src/python/errors.rs;
    tests/test_rust_hygiene.py keeps panic paths out): pyo3's ``PanicException`` is
    rebased on ``RuntimeError``, so ``except RuntimeError`` / ``except Exception`` catch it
    as they catch PyTorch's internal errors, and it still has its own name."""
    import ferric._core  # noqa: F401 - the policy is set when the extension loads

    panics = [c for c in RuntimeError.__subclasses__()
              if c.__name__ == "PanicException" and c.__module__ == "pyo3_runtime"]
    assert panics, "ferric's PanicException is not a RuntimeError"
    assert all(not issubclass(RuntimeError, p) for p in panics)
