//! Differentiable joining and shape-copy ops: `cat`/`stack` (and the `*stack` helpers),
//! `flip`, `roll`, `repeat`/`tile`, `repeat_interleave`, `tril`/`triu`, diagonals and
//! `pad`. All are linear; each backward rule is written with Var-level ops (mostly the
//! op's own adjoint), so double backward works.

use super::index::index_select;
use super::{needs_grad, record, views, Var};
use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::ops::join::repeat::Repeats;
use crate::ops::join::{self, PadMode};
use crate::shape::{normalize_dim, Dims};
use crate::tensor::Tensor;
use std::rc::Rc;

fn sizes_of(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

/// `cat(tensors, dim)`: each input gets its slice of the gradient (the engine casts it
/// back to the input's dtype after promotion).
pub fn cat(xs: &[Var], dim: i64) -> Result<Var> {
    let ts: Vec<Tensor> = xs.iter().map(|v| v.t.clone()).collect();
    let out = join::cat(&ts, dim)?;
    let refs: Vec<&Var> = xs.iter().collect();
    if !out.dtype().is_float() || !needs_grad(&refs) {
        return Ok(Var::plain(out));
    }
    let d = normalize_dim(dim, out.ndim())?;
    // (start, len) along `dim` of each input; None for the skipped legacy empty `[0]`s
    let mut start = 0usize;
    let spans: Vec<Option<(i64, i64)>> = ts
        .iter()
        .map(|t| {
            if t.shape() == [0] && out.ndim() != 1 {
                return None;
            }
            let len = t.shape().get(d).copied().unwrap_or(0);
            let s = start;
            start += len;
            Some((s as i64, len as i64))
        })
        .collect();
    Ok(record(
        "CatBackward0",
        out,
        &refs,
        false,
        Box::new(move |g, needs| {
            spans
                .iter()
                .zip(needs)
                .map(|(span, &need)| match (need, span) {
                    (false, _) => Ok(None),
                    (true, Some((s, len))) => views::narrow(&g[0], d as i64, *s, *len).map(Some),
                    (true, None) => Ok(Some(Var::plain(Tensor::zeros(
                        "backward",
                        &[0],
                        g[0].t.dtype(),
                    )?))),
                })
                .collect()
        }),
    ))
}

/// `stack(tensors, dim)`: input `i` gets `grad.select(dim, i)`.
pub fn stack(xs: &[Var], dim: i64) -> Result<Var> {
    let ts: Vec<Tensor> = xs.iter().map(|v| v.t.clone()).collect();
    let out = join::stack(&ts, dim)?;
    let refs: Vec<&Var> = xs.iter().collect();
    if !out.dtype().is_float() || !needs_grad(&refs) {
        return Ok(Var::plain(out));
    }
    let d = normalize_dim(dim, out.ndim())? as i64;
    Ok(record(
        "StackBackward0",
        out,
        &refs,
        false,
        Box::new(move |g, needs| {
            needs
                .iter()
                .enumerate()
                .map(|(i, &need)| {
                    if need {
                        views::select(&g[0], d, i as i64).map(Some)
                    } else {
                        Ok(None)
                    }
                })
                .collect()
        }),
    ))
}

/// `atleast_{n}d` as a differentiable reshape.
fn atleast(x: &Var, n: usize) -> Result<Var> {
    let out = join::atleast(&x.t, n)?;
    if out.shape() == x.t.shape() {
        return Ok(x.clone());
    }
    views::reshape(x, &sizes_of(out.shape()))
}

fn non_empty(op: &str, xs: &[Var]) -> Result<()> {
    if xs.is_empty() {
        return Err(Error::runtime(
            op,
            format!("{op} expects a non-empty TensorList"),
        ));
    }
    Ok(())
}

fn all_atleast(xs: &[Var], n: usize) -> Result<Vec<Var>> {
    xs.iter().map(|x| atleast(x, n)).collect()
}

/// `hstack`: along dim 0 for 1-d inputs, else dim 1.
pub fn hstack(xs: &[Var]) -> Result<Var> {
    non_empty("hstack", xs)?;
    let vs = all_atleast(xs, 1)?;
    let dim = if vs[0].t.ndim() == 1 { 0 } else { 1 };
    cat(&vs, dim)
}

/// `vstack` / `row_stack`: at least 2-d inputs along dim 0.
pub fn vstack(xs: &[Var]) -> Result<Var> {
    non_empty("vstack", xs)?;
    cat(&all_atleast(xs, 2)?, 0)
}

/// `dstack`: at least 3-d inputs along dim 2.
pub fn dstack(xs: &[Var]) -> Result<Var> {
    non_empty("dstack", xs)?;
    cat(&all_atleast(xs, 3)?, 2)
}

/// `column_stack`: 0/1-d inputs become columns, then everything joins along dim 1.
pub fn column_stack(xs: &[Var]) -> Result<Var> {
    non_empty("column_stack", xs)?;
    let vs = xs
        .iter()
        .map(|x| {
            if x.t.ndim() <= 1 {
                views::reshape(x, &[x.t.numel() as i64, 1])
            } else {
                Ok(x.clone())
            }
        })
        .collect::<Result<Vec<_>>>()?;
    cat(&vs, 1)
}

/// Records a flip computed as `out`; the gradient is flipped back.
fn record_flip(x: &Var, out: Tensor, dims: Vec<i64>) -> Result<Var> {
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    Ok(record(
        "FlipBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(flip(&g[0], &dims)?)])),
    ))
}

pub fn flip(x: &Var, dims: &[i64]) -> Result<Var> {
    let out = x.t.flip(dims)?;
    record_flip(x, out, dims.to_vec())
}

pub fn fliplr(x: &Var) -> Result<Var> {
    let out = x.t.fliplr()?;
    record_flip(x, out, vec![1])
}

pub fn flipud(x: &Var) -> Result<Var> {
    let out = x.t.flipud()?;
    record_flip(x, out, vec![0])
}

/// `roll(shifts, dims)`; the gradient is rolled back by the same amounts.
pub fn roll(x: &Var, shifts: &[i64], dims: &[i64]) -> Result<Var> {
    let out = x.t.roll(shifts, dims)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    // the reverse shift, reduced modulo the size first so negating cannot overflow
    let back: Vec<i64> = shifts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let n = match dims.get(k) {
                Some(&d) if x.t.ndim() > 0 => x.t.shape()[normalize_dim(d, x.t.ndim())?],
                _ => x.t.numel(),
            } as i64;
            Ok(if n > 0 { -s.rem_euclid(n) } else { 0 })
        })
        .collect::<Result<_>>()?;
    let dims = dims.to_vec();
    Ok(record(
        "RollBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(roll(&g[0], &back, &dims)?)])),
    ))
}

/// `repeat(*sizes)`; the gradient sums over the copies: viewed as
/// `(r0, s0, r1, s1, ...)` it is summed down to `(1, s0, 1, s1, ...)`.
pub fn repeat(x: &Var, sizes: &[i64]) -> Result<Var> {
    let out = x.t.repeat(sizes)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let lead = sizes.len() - x.t.ndim();
    let mut split = Vec::with_capacity(2 * sizes.len());
    let mut kept: Dims = Dims::new();
    for (i, &r) in sizes.iter().enumerate() {
        let s = if i < lead { 1 } else { x.t.shape()[i - lead] };
        split.extend([r, s as i64]);
        kept.extend([1, s]);
    }
    let shape = sizes_of(x.t.shape());
    Ok(record(
        "RepeatBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| {
            let parts = views::reshape(&g[0], &split)?;
            let summed = views::sum_to(&parts, &kept)?;
            Ok(vec![Some(views::reshape(&summed, &shape)?)])
        }),
    ))
}

/// `tile(dims)`: `repeat` with `dims` padded by leading ones to the tensor's rank.
pub fn tile(x: &Var, dims: &[i64]) -> Result<Var> {
    let mut reps = vec![1i64; x.t.ndim().saturating_sub(dims.len())];
    reps.extend_from_slice(dims);
    repeat(x, &reps)
}

/// `repeat_interleave(repeats, dim)`: an `index_select` of the (flattened) input.
pub fn repeat_interleave(x: &Var, repeats: Repeats, dim: Option<i64>) -> Result<Var> {
    let (xv, d, idx) = x.t.repeat_interleave_plan(repeats, dim)?;
    let xv = if xv.shape() == x.t.shape() {
        x.clone()
    } else {
        views::reshape(x, &sizes_of(xv.shape()))?
    };
    index_select(&xv, d as i64, &idx)
}

/// `tril(diagonal)` / `triu(diagonal)`: the gradient is masked the same way.
pub fn tri(x: &Var, lower: bool, diagonal: i64) -> Result<Var> {
    let out = if lower {
        x.t.tril(diagonal)?
    } else {
        x.t.triu(diagonal)?
    };
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let name = if lower {
        "TrilBackward0"
    } else {
        "TriuBackward0"
    };
    Ok(record(
        name,
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(tri(&g[0], lower, diagonal)?)])),
    ))
}

fn diagonal_replay(offset: i64, d1: i64, d2: i64) -> views::Replay {
    Rc::new(move |t: &Tensor| t.diagonal(offset, d1, d2))
}

/// The `diagonal(offset, dim1, dim2)` view.
pub fn diagonal(x: &Var, offset: i64, d1: i64, d2: i64) -> Result<Var> {
    views::view_op("DiagonalBackward0", x, diagonal_replay(offset, d1, d2))
}

/// `diag_embed(offset, dim1, dim2)`; the gradient is the diagonal of the gradient.
pub fn diag_embed(x: &Var, offset: i64, d1: i64, d2: i64) -> Result<Var> {
    let out = x.t.diag_embed(offset, d1, d2)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    Ok(record(
        "DiagEmbedBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(diagonal(&g[0], offset, d1, d2)?)])),
    ))
}

/// `diag(diagonal)`: `diag_embed` of a 1-d input, a copy of the diagonal of a 2-d one.
pub fn diag(x: &Var, k: i64) -> Result<Var> {
    if x.t.ndim() == 1 {
        return diag_embed(x, k, 0, 1);
    }
    let out = x.t.diag(k)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape: Dims = x.t.shape().into();
    Ok(record(
        "DiagonalBackward0_copy",
        out,
        &[x],
        false,
        Box::new(move |g, _| {
            Ok(vec![Some(views::unview(
                "DiagonalBackward0",
                &g[0],
                &shape,
                diagonal_replay(k, 0, 1),
            )?)])
        }),
    ))
}

/// `nn.functional.pad`. Constant padding's gradient is the gradient padded by the negated
/// amounts (which crops what was added and zero-fills what was cropped); the other modes
/// are gathers, whose gradient accumulates with `index_add`.
pub fn pad(x: &Var, pads: &[i64], mode: PadMode, value: Option<Scalar>) -> Result<Var> {
    let out = x.t.pad(pads, mode, value)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    if mode == PadMode::Constant {
        let back: Vec<i64> = pads
            .iter()
            .map(|p| {
                p.checked_neg()
                    .ok_or_else(|| Error::runtime("pad", "padding size overflows"))
            })
            .collect::<Result<_>>()?;
        return Ok(record(
            "ConstantPadNdBackward0",
            out,
            &[x],
            false,
            Box::new(move |g, _| Ok(vec![Some(pad(&g[0], &back, PadMode::Constant, None)?)])),
        ));
    }
    let gathers = x.t.pad_gathers(pads, mode, value)?;
    // the shape before each gather, to undo them in reverse
    let mut shapes: Vec<Dims> = Vec::with_capacity(gathers.len());
    let mut cur: Dims = x.t.shape().into();
    for (d, idx) in &gathers {
        shapes.push(cur.clone());
        cur[*d] = idx.numel();
    }
    let np = pads.len() / 2;
    let name = match mode {
        PadMode::Reflect => format!("ReflectionPad{np}DBackward0"),
        PadMode::Replicate => format!("ReplicationPad{np}DBackward0"),
        // PyTorch builds circular padding from slice copies
        _ => "CopySlices".to_string(),
    };
    Ok(record(
        &name,
        out,
        &[x],
        false,
        Box::new(move |g, _| {
            let mut g = g[0].clone();
            for ((d, idx), shape) in gathers.iter().zip(&shapes).rev() {
                let z = Var::plain(Tensor::zeros("backward", shape, g.t.dtype())?);
                g = super::index::index_add(&z, *d as i64, idx, &g, Scalar::Int(1))?;
            }
            Ok(vec![Some(g)])
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autograd::engine::{run, Mode};

    fn grad(out: &Var, x: &Var) -> Vec<f64> {
        let ones = Tensor::full("t", out.t.shape(), Scalar::Int(1), out.t.dtype()).unwrap();
        let g = run(
            &[(out.clone(), Var::plain(ones))],
            false,
            false,
            Mode::Capture(std::slice::from_ref(x)),
        )
        .unwrap();
        g[0].as_ref().unwrap().t.to_vec::<f64>().unwrap()
    }

    #[test]
    fn reflect_pad_accumulates_into_the_mirrored_elements() {
        let x = Var::leaf(
            Tensor::from_vec(vec![1.0, 2.0, 3.0], &[1, 3]).unwrap(),
            true,
        )
        .unwrap();
        let y = pad(&x, &[2, 1], PadMode::Reflect, None).unwrap(); // 3 2 | 1 2 3 | 2
        assert_eq!(y.grad_fn().unwrap().name, "ReflectionPad1DBackward0");
        assert_eq!(grad(&y, &x), vec![1.0, 3.0, 2.0]);
    }

    #[test]
    fn repeat_sums_over_the_copies() {
        let x = Var::leaf(Tensor::from_vec(vec![1.0, 2.0], &[2]).unwrap(), true).unwrap();
        let y = repeat(&x, &[3, 2]).unwrap();
        assert_eq!(y.t.shape(), &[3, 4]);
        assert_eq!(grad(&y, &x), vec![6.0, 6.0]);
    }
}
