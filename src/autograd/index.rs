//! Differentiable indexing ops: `index_select`/`index_add`, `gather`/`scatter_add`,
//! `scatter`, `index_fill`, `index`/`index_put`, `take`, the mask ops and `where`.
//!
//! Every op here is linear in its differentiable inputs, and the backward rules come in
//! adjoint pairs written with the Var-level ops of this file: `index_select` <->
//! `index_add` into zeros, `gather` <-> `scatter_add` into zeros, `index` <-> accumulating
//! `index_put` into zeros, `masked_select` <-> `masked_scatter` into zeros. So
//! `create_graph=True` differentiates a backward rule with the forward op again.
//!
//! Index tensors and masks are saved with their version (like PyTorch's saved
//! variables): changing one in place before backward is reported, not silently wrong.

use super::pointwise::{self as ab, Arg};
use super::{needs_grad, record, views, Saved, Var};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::binary::{BinaryOp, Operand};
use crate::ops::index::scatter::{ScatterReduce, ScatterSrc};
use crate::ops::indexing::IndexItem;
use crate::shape::{broadcast_shapes, Dims};
use crate::tensor::Tensor;
use std::rc::Rc;

/// An index or mask kept for backward.
struct Kept(Saved);

impl Kept {
    fn new(t: &Tensor) -> Kept {
        Kept(Saved::output(t))
    }
    fn get(&self, node: &str) -> Result<Tensor> {
        Ok(self.0.get(node)?.t)
    }
}

fn zeros(shape: &[usize], dtype: DType) -> Result<Var> {
    Ok(Var::plain(Tensor::zeros("backward", shape, dtype)?))
}

/// The sum of all elements (a 0-d result), differentiable.
fn sum_all(v: &Var) -> Result<Var> {
    views::sum_to(v, &[])
}

/// A gradient computed for an input of `shape` that has the same elements but a
/// different rank (0-d vs 1-element 1-d inputs, which the dim-wise ops treat alike).
fn same_numel_as(v: Var, shape: &[usize]) -> Result<Var> {
    if v.t.shape() == shape || v.t.numel() != shape.iter().product::<usize>() {
        return Ok(v);
    }
    let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    views::reshape(&v, &sizes)
}

/// `v` written into the leading corner of zeros of `shape`: `gather`/`scatter` may use an
/// index smaller than `src`, and the unused part of `src` gets no gradient.
fn pad_to(v: Var, shape: &[usize]) -> Result<Var> {
    let n: usize = shape.iter().product();
    if v.t.shape() == shape || v.t.numel() == n {
        return same_numel_as(v, shape);
    }
    if v.t.ndim() != shape.len() {
        // an empty index against a 0-d source
        return zeros(shape, v.t.dtype());
    }
    let sizes: Vec<usize> = v.t.shape().to_vec();
    let corner: views::Replay = Rc::new(move |t: &Tensor| {
        let mut t = t.clone();
        for (d, &len) in sizes.iter().enumerate() {
            t = t.with_layout(t.layout.narrow(d, 0, len))?;
        }
        Ok(t)
    });
    views::unview("SliceBackward0", &v, shape, corner)
}

/// `x.index_select(dim, index)`; the gradient is `index_add` into zeros.
pub fn index_select(x: &Var, dim: i64, index: &Tensor) -> Result<Var> {
    let out = x.t.index_select(dim, index)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape: Dims = x.t.shape().into();
    let si = Kept::new(index);
    Ok(record(
        "IndexSelectBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let index = si.get("IndexSelectBackward0")?;
            let z = zeros(&shape, g[0].t.dtype())?;
            Ok(vec![Some(index_add(
                &z,
                dim,
                &index,
                &g[0],
                Scalar::Int(1),
            )?)])
        }),
    ))
}

/// `x.index_add(dim, index, source, alpha=alpha)`.
pub fn index_add(x: &Var, dim: i64, index: &Tensor, source: &Var, alpha: Scalar) -> Result<Var> {
    let out = x.t.copy_as(x.t.dtype())?;
    out.index_add_(dim, index, &source.t, alpha)?;
    if !out.dtype().is_float() || !needs_grad(&[x, source]) {
        return Ok(Var::plain(out));
    }
    let si = Kept::new(index);
    let src_shape: Dims = source.t.shape().into();
    Ok(record(
        "IndexAddBackward0",
        out,
        &[x, source],
        true,
        Box::new(move |g, needs| {
            let gs = if needs[1] {
                let index = si.get("IndexAddBackward0")?;
                let sel = index_select(&g[0], dim, &index)?;
                let sel = if alpha.to_f64() == 1.0 {
                    sel
                } else {
                    ab::binary(BinaryOp::Mul, Arg::V(&sel), Arg::S(alpha))?
                };
                Some(same_numel_as(sel, &src_shape)?)
            } else {
                None
            };
            Ok(vec![needs[0].then(|| g[0].clone()), gs])
        }),
    ))
}

/// `x.gather(dim, index)`; the gradient is `scatter_add` into zeros.
pub fn gather(x: &Var, dim: i64, index: &Tensor) -> Result<Var> {
    let out = x.t.gather(dim, index)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape: Dims = x.t.shape().into();
    let si = Kept::new(index);
    Ok(record(
        "GatherBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let index = si.get("GatherBackward0")?;
            let z = zeros(&shape, g[0].t.dtype())?;
            Ok(vec![Some(scatter_add(&z, dim, &index, &g[0])?)])
        }),
    ))
}

/// The gradient of a scatter's `src`: the gathered gradient, zero where no index reads.
fn src_grad(g: &Var, dim: i64, index: &Tensor, src_shape: &[usize]) -> Result<Var> {
    pad_to(gather(g, dim, index)?, src_shape)
}

/// `x.scatter_add(dim, index, src)`.
pub fn scatter_add(x: &Var, dim: i64, index: &Tensor, src: &Var) -> Result<Var> {
    let out = x.t.scatter(
        "scatter_add",
        dim,
        index,
        ScatterSrc::Tensor(&src.t),
        ScatterReduce::Add,
    )?;
    if !out.dtype().is_float() || !needs_grad(&[x, src]) {
        return Ok(Var::plain(out));
    }
    let si = Kept::new(index);
    let src_shape: Dims = src.t.shape().into();
    Ok(record(
        "ScatterAddBackward0",
        out,
        &[x, src],
        true,
        Box::new(move |g, needs| {
            let gs = if needs[1] {
                let index = si.get("ScatterAddBackward0")?;
                Some(src_grad(&g[0], dim, &index, &src_shape)?)
            } else {
                None
            };
            Ok(vec![needs[0].then(|| g[0].clone()), gs])
        }),
    ))
}

/// The source of a differentiable `scatter`.
#[derive(Clone, Copy)]
pub enum Src<'a> {
    V(&'a Var),
    S(Scalar),
}

/// `x.scatter(dim, index, src|value, reduce=...)` (`op` names the op in errors).
/// Like PyTorch, the `reduce=` forms have no derivative: backward through them raises.
pub fn scatter(
    op: &str,
    x: &Var,
    dim: i64,
    index: &Tensor,
    src: Src,
    reduce: ScatterReduce,
) -> Result<Var> {
    let raw = match src {
        Src::V(v) => ScatterSrc::Tensor(&v.t),
        Src::S(s) => ScatterSrc::Value(s),
    };
    let out = x.t.scatter(op, dim, index, raw, reduce)?;
    let mut inputs = vec![x];
    if let Src::V(v) = src {
        inputs.push(v);
    }
    if !out.dtype().is_float() || !needs_grad(&inputs) {
        return Ok(Var::plain(out));
    }
    if reduce != ScatterReduce::Assign {
        return Ok(record(
            "NotImplemented",
            out,
            &inputs,
            false,
            Box::new(|_, _| {
                Err(Error::runtime(
                    "",
                    "derivative for aten::scatter is not implemented",
                ))
            }),
        ));
    }
    let si = Kept::new(index);
    let src_shape: Option<Dims> = match src {
        Src::V(v) => Some(v.t.shape().into()),
        Src::S(_) => None,
    };
    let name = if src_shape.is_some() {
        "ScatterBackward0"
    } else {
        "ScatterBackward1"
    };
    Ok(record(
        name,
        out,
        &inputs,
        true,
        Box::new(move |g, needs| {
            let index = si.get(name)?;
            // the overwritten positions of self get no gradient
            let gx = if needs[0] {
                Some(scatter(
                    "scatter",
                    &g[0],
                    dim,
                    &index,
                    Src::S(Scalar::Int(0)),
                    ScatterReduce::Assign,
                )?)
            } else {
                None
            };
            let mut r = vec![gx];
            if let Some(shape) = &src_shape {
                r.push(if needs.get(1).copied().unwrap_or(false) {
                    Some(src_grad(&g[0], dim, &index, shape)?)
                } else {
                    None
                });
            }
            Ok(r)
        }),
    ))
}

/// A fill value: a number, or a 0-d tensor (which may require grad).
#[derive(Clone, Copy)]
pub enum Fill<'a> {
    S(Scalar),
    V(&'a Var),
}

impl Fill<'_> {
    pub fn scalar(&self) -> Result<Scalar> {
        match self {
            Fill::S(s) => Ok(*s),
            Fill::V(v) => v.t.item(),
        }
    }
}

/// The gradient of a fill op's input: the incoming gradient with the filled positions zeroed.
type ZeroFilled = Rc<dyn Fn(&Var) -> Result<Var>>;

/// Records a fill op: `x` gets `g` with the filled positions zeroed (`zero_filled(g)`),
/// the fill value the sum of `g` over the filled positions.
fn record_fill(
    name0: &'static str,
    name1: &'static str,
    out: Tensor,
    x: &Var,
    value: Fill,
    zero_filled: ZeroFilled,
) -> Result<Var> {
    let mut inputs = vec![x];
    if let Fill::V(v) = value {
        inputs.push(v);
    }
    if !out.dtype().is_float() || !needs_grad(&inputs) {
        return Ok(Var::plain(out));
    }
    let name = if matches!(value, Fill::V(_)) {
        name1
    } else {
        name0
    };
    Ok(record(
        name,
        out,
        &inputs,
        true,
        Box::new(move |g, needs| {
            let kept = zero_filled(&g[0])?;
            let mut r = Vec::new();
            if needs.get(1).copied().unwrap_or(false) {
                r.push(Some(sum_all(&ab::sub(&g[0], &kept)?)?));
            } else if needs.len() > 1 {
                r.push(None);
            }
            r.insert(0, needs[0].then_some(kept));
            Ok(r)
        }),
    ))
}

/// `x.index_fill(dim, index, value)`.
pub fn index_fill(x: &Var, dim: i64, index: &Tensor, value: Fill) -> Result<Var> {
    let out = x.t.copy_as(x.t.dtype())?;
    out.index_fill_(dim, index, value.scalar()?)?;
    let si = Rc::new(Kept::new(index));
    record_fill(
        "IndexFillBackward0",
        "IndexFillBackward1",
        out,
        x,
        value,
        Rc::new(move |g: &Var| {
            let index = si.get("IndexFillBackward0")?;
            index_fill(g, dim, &index, Fill::S(Scalar::Int(0)))
        }),
    )
}

/// `x.masked_fill(mask, value)` (the result has the broadcast shape of `x` and `mask`).
pub fn masked_fill(x: &Var, mask: &Tensor, value: Fill) -> Result<Var> {
    let out = x.t.masked_fill(mask, value.scalar()?)?;
    let sm = Rc::new(Kept::new(mask));
    record_fill(
        "MaskedFillBackward0",
        "MaskedFillBackward1",
        out,
        x,
        value,
        Rc::new(move |g: &Var| {
            crate::autograd::pointwise::masked_zero(g, &sm.get("MaskedFillBackward0")?)
        }),
    )
}

/// The `indices` of `index_put` as index items (None keeps the whole dim).
fn items_of(indices: &[Option<Tensor>]) -> Vec<IndexItem> {
    indices
        .iter()
        .map(|t| match t {
            Some(t) => IndexItem::Tensor(t.clone()),
            None => IndexItem::Slice(None, None, None),
        })
        .collect()
}

/// `x[indices]` for the `indices` list of `index_put` (PyTorch's `aten::index`).
pub fn index(x: &Var, indices: &[Option<Tensor>]) -> Result<Var> {
    views::getitem(x, &items_of(indices))
}

/// `x.index_put(indices, values, accumulate)`.
pub fn index_put(
    x: &Var,
    indices: &[Option<Tensor>],
    values: &Var,
    accumulate: bool,
) -> Result<Var> {
    let out = x.t.copy_as(x.t.dtype())?;
    out.index_put_(indices, &values.t, accumulate)?;
    if !out.dtype().is_float() || !needs_grad(&[x, values]) {
        return Ok(Var::plain(out));
    }
    let kept: Vec<Option<Kept>> = indices.iter().map(|t| t.as_ref().map(Kept::new)).collect();
    Ok(record(
        "IndexPutBackward0",
        out,
        &[x, values],
        true,
        Box::new(move |g, needs| {
            let indices = kept
                .iter()
                .map(|k| k.as_ref().map(|k| k.get("IndexPutBackward0")).transpose())
                .collect::<Result<Vec<_>>>()?;
            let gx = match (needs[0], accumulate) {
                (false, _) => None,
                (true, true) => Some(g[0].clone()),
                // overwritten positions get no gradient
                (true, false) => {
                    let zero = Var::plain(Tensor::scalar(Scalar::Int(0), g[0].t.dtype()));
                    Some(index_put(&g[0], &indices, &zero, false)?)
                }
            };
            let gv = if needs[1] {
                Some(index(&g[0], &indices)?)
            } else {
                None
            };
            Ok(vec![gx, gv])
        }),
    ))
}

/// `x.take(index)`; the gradient is an accumulating `index_put` into flat zeros.
pub fn take(x: &Var, index: &Tensor) -> Result<Var> {
    let out = x.t.take(index)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape: Vec<i64> = x.t.shape().iter().map(|&d| d as i64).collect();
    let n = x.t.numel();
    let si = Kept::new(index);
    Ok(record(
        "TakeBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let index = si.get("TakeBackward0")?;
            let flat = zeros(&[n], g[0].t.dtype())?;
            let r = index_put(&flat, &[Some(index)], &g[0], true)?;
            Ok(vec![Some(views::reshape(&r, &shape)?)])
        }),
    ))
}

/// `x.masked_select(mask)`; the gradient is `masked_scatter` into zeros.
pub fn masked_select(x: &Var, mask: &Tensor) -> Result<Var> {
    let out = x.t.masked_select(mask)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape = broadcast_shapes(x.t.shape(), mask.shape())?;
    let sm = Kept::new(mask);
    Ok(record(
        "MaskedSelectBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let mask = sm.get("MaskedSelectBackward0")?;
            let z = zeros(&shape, g[0].t.dtype())?;
            Ok(vec![Some(masked_scatter(&z, &mask, &g[0])?)])
        }),
    ))
}

/// `x.masked_scatter(mask, source)` (the result has the broadcast shape of `x` and `mask`).
pub fn masked_scatter(x: &Var, mask: &Tensor, source: &Var) -> Result<Var> {
    let shape = broadcast_shapes(x.t.shape(), mask.shape())
        .map_err(|e| Error::runtime("masked_scatter", e.msg))?;
    let out = x.t.broadcast_to(&shape)?.copy_as(x.t.dtype())?;
    out.masked_scatter_(mask, &source.t)?;
    if !out.dtype().is_float() || !needs_grad(&[x, source]) {
        return Ok(Var::plain(out));
    }
    let sm = Kept::new(mask);
    let src_shape: Dims = source.t.shape().into();
    Ok(record(
        "MaskedScatterBackward0",
        out,
        &[x, source],
        true,
        Box::new(move |g, needs| {
            let mask = sm.get("MaskedScatterBackward0")?;
            let gx = if needs[0] {
                Some(crate::autograd::pointwise::masked_zero(&g[0], &mask)?)
            } else {
                None
            };
            let gs = if needs[1] {
                // the first elements of source (row-major) were used, the rest get zeros
                let sel = masked_select(&g[0], &mask)?;
                let n: usize = src_shape.iter().product();
                let sizes: Vec<i64> = src_shape.iter().map(|&d| d as i64).collect();
                Some(views::reshape(&pad_to(sel, &[n])?, &sizes)?)
            } else {
                None
            };
            Ok(vec![gx, gs])
        }),
    ))
}

fn operand<'a>(a: &Arg<'a>) -> Operand<'a> {
    match a {
        Arg::V(v) => Operand::T(&v.t),
        Arg::S(s) => Operand::S(*s),
    }
}

/// `where(cond, a, b)`: each branch gets the gradient where it was chosen; the condition
/// is not differentiable.
pub fn where_(cond: &Tensor, a: Arg, b: Arg) -> Result<Var> {
    let out = crate::ops::index::masked::where_(cond, operand(&a), operand(&b))?;
    let vars: Vec<&Var> = [a, b]
        .iter()
        .filter_map(|x| match x {
            Arg::V(v) => Some(*v),
            Arg::S(_) => None,
        })
        .collect();
    if !out.dtype().is_float() || !needs_grad(&vars) {
        return Ok(Var::plain(out));
    }
    let tensors = (matches!(a, Arg::V(_)), matches!(b, Arg::V(_)));
    let sc = Kept::new(cond);
    Ok(record(
        "WhereBackward0",
        out,
        &vars,
        true,
        Box::new(move |g, needs| {
            let cond = sc.get("WhereBackward0")?;
            let mut r = Vec::new();
            let mut k = 0;
            if tensors.0 {
                r.push(if needs[k] {
                    let not =
                        crate::ops::unary::unary(crate::ops::unary::UnaryOp::LogicalNot, &cond)?;
                    Some(crate::autograd::pointwise::masked_zero(&g[0], &not)?)
                } else {
                    None
                });
                k += 1;
            }
            if tensors.1 {
                r.push(if needs[k] {
                    Some(crate::autograd::pointwise::masked_zero(&g[0], &cond)?)
                } else {
                    None
                });
            }
            Ok(r)
        }),
    ))
}

/// Storage positions of a layout's elements, in row-major order.
fn storage_positions(l: &crate::layout::Layout) -> Vec<usize> {
    let n = l.numel();
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let nd = l.ndim();
    let mut idx = vec![0usize; nd];
    for _ in 0..n {
        let p = l.offset as isize
            + idx
                .iter()
                .zip(l.strides.iter())
                .map(|(&i, &s)| i as isize * s)
                .sum::<isize>();
        out.push(p as usize);
        for d in (0..nd).rev() {
            idx[d] += 1;
            if idx[d] < l.shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// `as_strided` (PyTorch's `AsStridedBackward0`): the gradient of an input element is the
/// sum of the output gradients at every output reading its memory (several when the
/// output overlaps itself); outputs reading memory outside the input give none. Unlike
/// the other views, the result is not re-derived when its base is later written in place.
pub fn as_strided(x: &Var, size: &[i64], stride: &[i64], offset: Option<i64>) -> Result<Var> {
    let out = x.t.as_strided(size, stride, offset)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let (in_layout, out_layout) = (x.t.layout.clone(), out.layout.clone());
    Ok(record(
        "AsStridedBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| {
            // input element (row-major) at each storage position the input covers
            let mut owner = std::collections::HashMap::new();
            for (i, p) in storage_positions(&in_layout).into_iter().enumerate() {
                owner.entry(p).or_insert(i as i64);
            }
            let (mut from, mut to) = (Vec::new(), Vec::new());
            for (j, p) in storage_positions(&out_layout).into_iter().enumerate() {
                if let Some(&i) = owner.get(&p) {
                    from.push(j as i64);
                    to.push(i);
                }
            }
            let (nf, nt) = (from.len(), to.len());
            let from = Tensor::from_vec(from, &[nf])?;
            let to = Tensor::from_vec(to, &[nt])?;
            let picked = index_select(&views::reshape(&g[0], &[-1])?, 0, &from)?;
            let n_in = in_layout.numel();
            let zeros = Var::plain(Tensor::zeros("backward", &[n_in], g[0].t.dtype())?);
            let flat = index_add(&zeros, 0, &to, &picked, Scalar::Int(1))?;
            let shape: Vec<i64> = in_layout.shape.iter().map(|&d| d as i64).collect();
            Ok(vec![Some(views::reshape(&flat, &shape)?)])
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autograd::engine::{run, Mode};

    fn leaf(v: Vec<f64>, shape: &[usize]) -> Var {
        Var::leaf(Tensor::from_vec(v, shape).unwrap(), true).unwrap()
    }

    fn idx(v: Vec<i64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    /// Gradients of `inputs` for `out` with the given output gradient.
    fn grads(out: &Var, g: Vec<f64>, inputs: &[Var]) -> Vec<Var> {
        let gv = Var::plain(Tensor::from_vec(g, out.t.shape()).unwrap());
        run(&[(out.clone(), gv)], false, false, Mode::Capture(inputs))
            .unwrap()
            .into_iter()
            .map(|g| g.unwrap())
            .collect()
    }

    #[test]
    fn gather_scatters_back_and_double_backward_gathers_again() {
        let x = leaf(vec![1.0, 2.0, 3.0], &[3]);
        let y = gather(&x, 0, &idx(vec![2, 2, 0], &[3])).unwrap();
        assert_eq!(y.grad_fn().unwrap().name, "GatherBackward0");
        // a grad_output that requires grad: the backward rule must be differentiable
        let go = leaf(vec![1.0, 10.0, 100.0], &[3]);
        let gx = run(&[(y, go.clone())], true, true, Mode::Capture(&[x])).unwrap();
        let gx = gx[0].clone().unwrap();
        assert_eq!(gx.t.to_vec::<f64>().unwrap(), vec![100.0, 0.0, 11.0]);
        assert_eq!(gx.grad_fn().unwrap().name, "ScatterAddBackward0");
        let gg = grads(&gx, vec![1.0, 2.0, 3.0], &[go]);
        assert_eq!(gg[0].t.to_vec::<f64>().unwrap(), vec![3.0, 3.0, 1.0]);
    }

    #[test]
    fn where_routes_each_branch() {
        let a = leaf(vec![1.0, 2.0], &[2]);
        let cond = Tensor::from_vec(vec![true, false], &[2]).unwrap();
        let y = where_(&cond, Arg::V(&a), Arg::S(Scalar::Float(0.0))).unwrap();
        let g = grads(&y, vec![5.0, 7.0], &[a]);
        assert_eq!(g[0].t.to_vec::<f64>().unwrap(), vec![5.0, 0.0]);
    }
}
