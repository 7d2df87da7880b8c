//! Differentiable matmul family: `mm`, `bmm`, `mv`, `dot`/`vdot`, `outer`, `matmul`,
//! `addmm`, `baddbmm` and `einsum`, with PyTorch's derivative formulas and node names.
//!
//! The primitive products (`mm`, `bmm`, `mv`, `dot`, `addmm`, `baddbmm`) record one node
//! each; their rules are products again, so `create_graph=True` differentiates them once
//! more. `matmul`, `outer` and `einsum` are compositions of differentiable ops, mirroring
//! how PyTorch decomposes them (so the recorded nodes carry the same names), and need no
//! rule of their own. Without a graph every op is the plain tensor op.
//!
//! The random family's in-place samplers live here too (`sampled`): their results do
//! not depend on the overwritten values, so the gradient is zero.

use super::pointwise::{binary, mul, Arg};
use super::{needs_grad, record, unary, views, Saved, Var};
use crate::dtype::Scalar;
use crate::error::Result;
use crate::ops::binary::BinaryOp;
use crate::ops::matmul::check_outer;
use crate::ops::matmul::dispatch::{self, MatmulOperand};
use crate::ops::matmul::einsum::{self as es, Align, EinsumOperand};
use crate::ops::matmul::linear::{self as lin, LinearPath};
use crate::tensor::Tensor;
use std::rc::Rc;

/// A rule computing one operand's gradient from the output gradient and the other
/// operand (saved for backward).
type ProductRule = fn(&Var, &Var) -> Result<Var>;

/// Records a bilinear product `out = f(a, b)`. `ga(g, b)` and `gb(g, a)` give the two
/// gradients; each operand is saved only when the other one needs a gradient, like
/// PyTorch's derivative formulas (so `w @ x.detach()` does not pin `w`).
fn bilinear(
    name: &'static str,
    out: Tensor,
    a: &Var,
    b: &Var,
    ga: impl Fn(&Var, &Var) -> Result<Var> + 'static,
    gb: impl Fn(&Var, &Var) -> Result<Var> + 'static,
) -> Result<Var> {
    if !needs_grad(&[a, b]) || !out.dtype().is_float() {
        return Ok(Var::plain(out));
    }
    let save_a = b.requires_grad().then(|| Saved::input(a));
    let save_b = a.requires_grad().then(|| Saved::input(b));
    Ok(record(
        name,
        out,
        &[a, b],
        true,
        Box::new(move |g, needs| {
            let g = &g[0];
            let da = match (needs.first(), &save_b) {
                (Some(true), Some(sb)) => Some(ga(g, &sb.get(name)?)?),
                _ => None,
            };
            let db = match (needs.get(1), &save_a) {
                (Some(true), Some(sa)) => Some(gb(g, &sa.get(name)?)?),
                _ => None,
            };
            Ok(vec![da, db])
        }),
    ))
}

/// `x.t()` / `x.mT` as a differentiable view.
fn mt(x: &Var) -> Result<Var> {
    views::transpose(x, -2, -1)
}

/// `mm`: `grad @ mat2.T` and `self.T @ grad`, each computed in its operand's layout
/// (see `grad_left`).
pub fn mm(a: &Var, b: &Var) -> Result<Var> {
    let out = a.t.mm(&b.t)?;
    let (at, bt) = (is_transposed_dense(&a.t), is_transposed_dense(&b.t));
    bilinear(
        "MmBackward0",
        out,
        a,
        b,
        move |g, b| grad_left(mm, g, b, at),
        move |g, a| grad_right(mm, g, a, bt),
    )
}

/// The gradient of `a` in a matrix product `prod(a, b)` (`mm` or `bmm`), `g @ b^T`,
/// computed the way PyTorch's `mm_mat1_backward` computes it: when `a` is stored
/// column-major (`transposed`: a transposed contiguous matrix, such as `weight.t()` in
/// `x @ weight.t()`) as `(b @ g^T)^T`, in that layout, so the transpose's backward hands
/// a dense gradient on. Besides giving PyTorch's products (and their speed), this keeps
/// the operand with many tiny (subnormal) gradient values, such as a language model's
/// logits gradient, out of the GEMM's broadcast side, where each one costs the CPU a
/// slow assist (13 ms instead of 1.5 ms for a 128x512 @ 512x256 product).
fn grad_left(prod: ProductRule, g: &Var, b: &Var, transposed: bool) -> Result<Var> {
    if transposed {
        mt(&prod(b, &mt(g)?)?)
    } else {
        prod(g, &mt(b)?)
    }
}

/// The gradient of `b` in `prod(a, b)`, `a^T @ g`, or `(g^T @ a)^T` when `b` is stored
/// column-major (PyTorch's `mm_mat2_backward`; see `grad_left`).
fn grad_right(prod: ProductRule, g: &Var, a: &Var, transposed: bool) -> Result<Var> {
    if transposed {
        mt(&prod(&mt(g)?, a)?)
    } else {
        prod(&mt(a)?, g)
    }
}

/// `bmm`: the batched form of `mm`'s rule.
pub fn bmm(a: &Var, b: &Var) -> Result<Var> {
    let out = a.t.bmm(&b.t)?;
    bilinear(
        "BmmBackward0",
        out,
        a,
        b,
        |g, b| bmm(g, &mt(b)?),
        |g, a| bmm(&mt(a)?, g),
    )
}

/// `mv`: `outer(grad, vec)` and `self.T @ grad`.
pub fn mv(a: &Var, v: &Var) -> Result<Var> {
    let out = a.t.mv(&v.t)?;
    bilinear("MvBackward0", out, a, v, outer, |g, a| mv(&mt(a)?, g))
}

/// `dot`: the 0-d gradient scales the other vector.
pub fn dot(a: &Var, b: &Var) -> Result<Var> {
    let out = a.t.dot(&b.t)?;
    bilinear("DotBackward0", out, a, b, mul, mul)
}

/// `vdot` conjugates its first argument; for real dtypes it is `dot` with its own name.
pub fn vdot(a: &Var, b: &Var) -> Result<Var> {
    let out = a.t.dot(&b.t)?;
    bilinear("VdotBackward0", out, a, b, mul, mul)
}

/// `outer` / `ger`: PyTorch computes it as `self.reshape(-1, 1) * vec2` (so dtypes
/// promote), and so does the graph.
pub fn outer(a: &Var, b: &Var) -> Result<Var> {
    if !needs_grad(&[a, b]) {
        return Ok(Var::plain(a.t.outer(&b.t)?));
    }
    check_outer(&a.t, &b.t)?;
    mul(&views::reshape(a, &[-1, 1])?, b)
}

/// `g * s`, skipping the multiply when `s` is 1 (PyTorch's `maybe_multiply`).
fn scaled(g: &Var, s: Scalar) -> Result<Var> {
    if s.to_f64() == 1.0 {
        return Ok(g.clone());
    }
    binary(BinaryOp::Mul, Arg::V(g), Arg::S(s))
}

/// `addmm` / `baddbmm`: `beta * input + alpha * (m1 @ m2)`. The input's gradient is
/// `beta * grad`, reduced to its (broadcast) shape by the engine.
#[allow(clippy::too_many_arguments)]
fn scaled_product(
    name: &'static str,
    out: Tensor,
    input: &Var,
    m1: &Var,
    m2: &Var,
    beta: Scalar,
    alpha: Scalar,
    prod: ProductRule,
) -> Result<Var> {
    if !needs_grad(&[input, m1, m2]) || !out.dtype().is_float() {
        return Ok(Var::plain(out));
    }
    let save_m1 = m2.requires_grad().then(|| Saved::input(m1));
    let save_m2 = m1.requires_grad().then(|| Saved::input(m2));
    let (m1_t, m2_t) = (is_transposed_dense(&m1.t), is_transposed_dense(&m2.t));
    Ok(record(
        name,
        out,
        &[input, m1, m2],
        true,
        Box::new(move |g, needs| {
            let g = &g[0];
            let need = |i: usize| needs.get(i).copied().unwrap_or(false);
            let di = if need(0) {
                Some(scaled(g, beta)?)
            } else {
                None
            };
            // both operands' gradients in their own layout, as `grad_left` explains
            let d1 = match (need(1), &save_m2) {
                (true, Some(s)) => Some(scaled(&grad_left(prod, g, &s.get(name)?, m1_t)?, alpha)?),
                _ => None,
            };
            let d2 = match (need(2), &save_m1) {
                (true, Some(s)) => Some(scaled(&grad_right(prod, g, &s.get(name)?, m2_t)?, alpha)?),
                _ => None,
            };
            Ok(vec![di, d1, d2])
        }),
    ))
}

/// True for a batch of matrices stored column-major and densely (the transpose of a
/// contiguous tensor), e.g. `weight.t()`.
fn is_transposed_dense(t: &Tensor) -> bool {
    let (shape, strides) = (t.shape(), t.strides());
    let n = shape.len();
    if n < 2 || shape[n - 1] <= 1 || shape[n - 2] <= 1 {
        return false;
    }
    strides[n - 2] == 1 && strides[n - 1] == shape[n - 2] as isize
}

pub fn addmm(input: &Var, m1: &Var, m2: &Var, beta: Scalar, alpha: Scalar) -> Result<Var> {
    let out = input.t.addmm(&m1.t, &m2.t, beta, alpha)?;
    scaled_product("AddmmBackward0", out, input, m1, m2, beta, alpha, mm)
}

pub fn baddbmm(input: &Var, b1: &Var, b2: &Var, beta: Scalar, alpha: Scalar) -> Result<Var> {
    let out = input.t.baddbmm(&b1.t, &b2.t, beta, alpha)?;
    scaled_product("BaddbmmBackward0", out, input, b1, b2, beta, alpha, bmm)
}

/// `weight.t()` recorded as PyTorch records it (`TBackward0`, also for a 1-D weight).
fn t_node(w: &Var) -> Result<Var> {
    let out = lin::weight_t(&w.t)?;
    if !needs_grad(&[w]) {
        return Ok(Var::plain(out));
    }
    let two_d = w.t.ndim() == 2;
    let back = move |g: &Var| {
        if two_d {
            views::transpose(g, 0, 1)
        } else {
            Ok(g.clone())
        }
    };
    let v = record(
        "TBackward0",
        out,
        &[w],
        false,
        Box::new(move |g, _| Ok(vec![Some(back(&g[0])?)])),
    );
    views::mark_view(&v, w, Rc::new(|t: &Tensor| lin::weight_t(t)));
    Ok(v)
}

/// `torch.nn.functional.linear`: the fused tensor op without a graph; with one, PyTorch's
/// decomposition (addmm, folded addmm + view, or matmul + add) so the graph has its
/// nodes. The addmm forms are fused in the forward pass either way.
pub fn linear(x: &Var, w: &Var, b: Option<&Var>) -> Result<Var> {
    let mut vars = vec![x, w];
    vars.extend(b);
    if !needs_grad(&vars) {
        return Ok(Var::plain(x.t.linear(&w.t, b.map(|b| &b.t))?));
    }
    lin::check_linear(&x.t, &w.t)?;
    let wt = t_node(w)?;
    let one = Scalar::Int(1);
    match (b, lin::linear_path(&x.t, b.map(|b| &b.t))) {
        (Some(b), LinearPath::Addmm) => addmm(b, x, &wt, one, one),
        (Some(b), LinearPath::Folded) => {
            let (rows, k) = lin::folded_sizes(&x.t);
            let x2 = views::reshape(x, &[rows as i64, k as i64])?;
            let r = addmm(b, &x2, &wt, one, one)?;
            let shape = lin::unfolded_shape(&x.t, r.t.shape()[1]);
            unsafe_view(&r, &shape)
        }
        (Some(b), _) => {
            // PyTorch adds the bias in place (`out.add_(bias)`): the result keeps the
            // product's dtype and shape
            let out = matmul(x, &wt)?;
            lin::check_bias_add(&out.t, &b.t)?;
            let b = if b.t.dtype() == out.t.dtype() {
                b.clone()
            } else {
                unary::to_dtype(b, out.t.dtype())?
            };
            super::pointwise::add(&out, &b)
        }
        (None, _) => matmul(x, &wt),
    }
}

/// `at::_unsafe_view`: a reshape of a fresh product result (always a view here).
fn unsafe_view(x: &Var, shape: &[usize]) -> Result<Var> {
    let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let out = x.t.reshape(&sizes)?;
    views::reshape_like("UnsafeViewBackward0", x, out)
}

fn unsqueeze(x: &Var, dim: usize) -> Result<Var> {
    let out = x.t.with_layout(x.t.layout.unsqueeze(dim))?;
    views::reshape_like("UnsqueezeBackward0", x, out)
}

/// `squeeze(dim)` (`name` tells the in-place `squeeze_` PyTorch uses in one place).
fn squeeze(name: &str, x: &Var, dim: usize) -> Result<Var> {
    let out = x.t.with_layout(x.t.layout.squeeze_dims(&[dim]))?;
    views::reshape_like(name, x, out)
}

/// `contiguous()`: a differentiable copy only when needed.
fn contiguous(x: &Var) -> Result<Var> {
    if x.t.is_contiguous() {
        return Ok(x.clone());
    }
    unary::clone(x)
}

/// `matmul` / `@`: the plain tensor op without a graph; with one, PyTorch's dispatch
/// (`ops::matmul::dispatch`, shared with the tensor op) over the `Var` ops below, so the
/// graph has PyTorch's nodes and broadcast batch dims are summed back by the expand
/// nodes.
pub fn matmul(a: &Var, b: &Var) -> Result<Var> {
    if !needs_grad(&[a, b]) || a.t.ndim() == 0 || b.t.ndim() == 0 {
        return Ok(Var::plain(a.t.matmul(&b.t)?));
    }
    dispatch::matmul(a, b)
}

/// matmul's primitives on `Var`s: each records its node.
impl MatmulOperand for Var {
    fn tensor(&self) -> &Tensor {
        &self.t
    }
    fn requires_grad(&self) -> bool {
        Var::requires_grad(self)
    }
    fn dot(&self, other: &Var) -> Result<Var> {
        dot(self, other)
    }
    fn mv(&self, vec: &Var) -> Result<Var> {
        mv(self, vec)
    }
    fn mm(&self, mat2: &Var) -> Result<Var> {
        mm(self, mat2)
    }
    fn batched_mm(&self, other: &Var) -> Result<Var> {
        bmm(self, other)
    }
    fn mt(&self) -> Result<Var> {
        mt(self)
    }
    fn unsqueeze(&self, dim: usize) -> Result<Var> {
        unsqueeze(self, dim)
    }
    fn squeeze(&self, node: &'static str, dim: usize) -> Result<Var> {
        squeeze(node, self, dim)
    }
    fn expand(&self, shape: &[usize]) -> Result<Var> {
        let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        views::expand_sizes(self, &sizes)
    }
    fn flatten_batch(&self, keep: usize) -> Result<Var> {
        let shape = self.t.shape();
        let (batch, rest) = shape.split_at(shape.len() - keep);
        let sizes: Vec<i64> = std::iter::once(batch.iter().product::<usize>())
            .chain(rest.iter().copied())
            .map(|d| d as i64)
            .collect();
        views::reshape(self, &sizes)
    }
    fn reshape(&self, sizes: &[i64]) -> Result<Var> {
        views::reshape(self, sizes)
    }
    fn unsafe_view(&self, shape: &[usize]) -> Result<Var> {
        unsafe_view(self, shape)
    }
    fn contiguous(&self) -> Result<Var> {
        contiguous(self)
    }
}

/// einsum's primitives on `Var`s: each is a differentiable op, so the composed einsum
/// is differentiable (to any order) without a rule of its own.
impl EinsumOperand for Var {
    fn shape(&self) -> &[usize] {
        self.t.shape()
    }
    fn align(&self, a: &Align) -> Result<Var> {
        let mut x = self.clone();
        if !a.diagonals.is_empty() {
            let al = a.clone();
            x = views::view_op(
                "DiagonalBackward0",
                &x,
                Rc::new(move |t: &Tensor| t.with_layout(al.diagonal(&t.layout))),
            )?;
        }
        if a.appended > 0 {
            let out = x.t.with_layout(a.unsqueezed(&x.t.layout))?;
            x = views::reshape_like("UnsqueezeBackward0", &x, out)?;
        }
        let order: Vec<i64> = a.order.iter().map(|&d| d as i64).collect();
        views::permute(&x, &order)
    }
    fn mul(&self, other: &Var) -> Result<Var> {
        mul(self, other)
    }
    fn sum_keepdim(&self, dims: &[usize]) -> Result<Var> {
        if !self.t.dtype().is_float() {
            // integer sums widen to int64 (and carry no gradient)
            return Ok(Var::plain(es::sum_keepdim(&self.t, dims)?));
        }
        let mut shape = self.t.shape().to_vec();
        for &d in dims {
            shape[d] = 1;
        }
        views::sum_to(self, &shape)
    }
    fn permute(&self, dims: &[i64]) -> Result<Var> {
        views::permute(self, dims)
    }
    fn reshape(&self, sizes: &[i64]) -> Result<Var> {
        views::reshape(self, sizes)
    }
    fn bmm(&self, other: &Var) -> Result<Var> {
        bmm(self, other)
    }
    fn squeeze_dims(&self, dims: &[usize]) -> Result<Var> {
        let out = self.t.with_layout(self.t.layout.squeeze_dims(dims))?;
        views::reshape_like("SqueezeBackward1", self, out)
    }
}

/// `einsum`: the fused tensor path without a graph, the composed `Var` path with one.
pub fn einsum(equation: &str, operands: &[Var]) -> Result<Var> {
    let refs: Vec<&Var> = operands.iter().collect();
    if !needs_grad(&refs) {
        let ts: Vec<Tensor> = operands.iter().map(|v| v.t.clone()).collect();
        return Ok(Var::plain(es::einsum(equation, &ts)?));
    }
    es::einsum(equation, operands)
}

/// The result of an op that overwrites `inputs[0]` with values that do not depend on
/// any input (the in-place random samplers, `bernoulli(p)`, `normal(mean, std)`): a node
/// named like PyTorch's whose gradient is zero for every input.
pub fn sampled(name: &str, value: Tensor, inputs: &[&Var]) -> Var {
    if !needs_grad(inputs) || !value.dtype().is_float() {
        return Var::plain(value);
    }
    let metas: Vec<(Vec<usize>, crate::dtype::DType)> = inputs
        .iter()
        .map(|v| (v.t.shape().to_vec(), v.t.dtype()))
        .collect();
    record(
        name,
        value,
        inputs,
        false,
        Box::new(move |_, needs| {
            metas
                .iter()
                .zip(needs)
                .map(|((shape, dtype), &need)| {
                    Ok(if need {
                        Some(Var::plain(Tensor::zeros("backward", shape, *dtype)?))
                    } else {
                        None
                    })
                })
                .collect()
        }),
    )
}
