//! The fused pointwise part of an LSTM cell (PyTorch's `_thnn_fused_lstm_cell`).
//!
//! Given the two gate projections `igates = x @ W_ih^T` and `hgates = h @ W_hh^T`, both
//! `(B, 4H)` in PyTorch's gate order (input, forget, cell, output), the previous cell
//! state `cx` `(B, H)` and the optional biases `(4H,)`:
//!
//! ```text
//! a = (igates + b_ih) + (hgates + b_hh)
//! i, f, g, o = sigmoid(a_i), sigmoid(a_f), tanh(a_g), sigmoid(a_o)
//! cy = f * cx + i * g
//! hy = o * tanh(cy)
//! ```
//!
//! The forward keeps the activated gates (the "workspace") for the backward, which is one
//! more pass: an unrolled LSTM records one node per step for all of this instead of the
//! dozen it takes as separate ops, which is most of the cost of a small cell. The
//! activations are the same vector kernels the standalone `sigmoid`/`tanh` ops use, and
//! the arithmetic is in the same order as the composed cell, so both give the same values.

use crate::dtype::Element;
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::reduce::Float;
use crate::ops::unary::{self, apply_in_place, UnaryOp};
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;
use std::borrow::Cow;

const OP: &str = "_thnn_fused_lstm_cell";

/// The float types the cell runs on: the unary ops' activations and plain arithmetic.
pub trait CellFloat: unary::Float + Float {}
impl<T: unary::Float + Float> CellFloat for T {}

/// The elements of `t` as a contiguous slice (borrowed when already contiguous).
fn flat<T: Element>(t: &Tensor) -> Result<Cow<'_, [T]>> {
    if t.is_contiguous() {
        let (o, n) = (t.layout.offset, t.numel());
        // SAFETY: T is t's dtype (checked by the callers); a contiguous layout's
        // elements are the n slots from its offset.
        Ok(Cow::Borrowed(unsafe { &t.data::<T>()[o..o + n] }))
    } else {
        Ok(Cow::Owned(t.to_vec::<T>()?))
    }
}

/// Shapes and dtypes: gates `(B, 4H)` alike, `cx` `(B, H)`, biases `(4H,)`; returns (B, H).
pub fn check(
    igates: &Tensor,
    hgates: &Tensor,
    cx: &Tensor,
    b_ih: Option<&Tensor>,
    b_hh: Option<&Tensor>,
) -> Result<(usize, usize)> {
    let shape_err = |what: &str, t: &Tensor, want: String| {
        Error::runtime(
            OP,
            format!(
                "expected {what} of shape {want}, but got {}",
                fmt_shape(t.shape())
            ),
        )
    };
    let (b, h4) = match igates.shape() {
        &[b, h4] if h4 % 4 == 0 => (b, h4),
        _ => {
            return Err(Error::runtime(
                OP,
                format!(
                    "expected input_gates of shape (batch, 4 * hidden_size), but got {}",
                    fmt_shape(igates.shape())
                ),
            ))
        }
    };
    let h = h4 / 4;
    if hgates.shape() != igates.shape() {
        return Err(shape_err("hidden_gates", hgates, fmt_shape(igates.shape())));
    }
    if cx.shape() != [b, h] {
        return Err(shape_err("cx", cx, fmt_shape(&[b, h])));
    }
    for (name, t) in [("input_bias", b_ih), ("hidden_bias", b_hh)] {
        if let Some(t) = t {
            if t.shape() != [h4] {
                return Err(shape_err(name, t, fmt_shape(&[h4])));
            }
        }
    }
    let dt = igates.dtype();
    if !dt.is_float() {
        return Err(Error::dtype_not_implemented(OP, dt));
    }
    let all = [Some(hgates), Some(cx), b_ih, b_hh];
    if let Some(t) = all.into_iter().flatten().find(|t| t.dtype() != dt) {
        return Err(Error::runtime(
            OP,
            format!(
                "expected all tensors to have dtype {}, but got {} and {}",
                dt.torch_name(),
                dt.torch_name(),
                t.dtype().torch_name()
            ),
        ));
    }
    Ok((b, h))
}

/// Forward: `(hy, cy, workspace)` where the workspace holds the activated gates `(B, 4H)`.
pub fn forward(
    igates: &Tensor,
    hgates: &Tensor,
    cx: &Tensor,
    b_ih: Option<&Tensor>,
    b_hh: Option<&Tensor>,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (b, h) = check(igates, hgates, cx, b_ih, b_hh)?;
    crate::with_float_dtype!(
        igates.dtype(),
        T,
        forward_t::<T>(igates, hgates, cx, b_ih, b_hh, b, h),
        Err(Error::dtype_not_implemented(OP, igates.dtype()))
    )
}

fn forward_t<T: CellFloat>(
    igates: &Tensor,
    hgates: &Tensor,
    cx: &Tensor,
    b_ih: Option<&Tensor>,
    b_hh: Option<&Tensor>,
    b: usize,
    h: usize,
) -> Result<(Tensor, Tensor, Tensor)> {
    let h4 = 4 * h;
    let (ig, hg, c) = (flat::<T>(igates)?, flat::<T>(hgates)?, flat::<T>(cx)?);
    let bi = b_ih.map(flat::<T>).transpose()?;
    let bh = b_hh.map(flat::<T>).transpose()?;
    let mut ws = try_zeroed_vec::<T>(OP, b * h4)?;
    let mut cy = try_zeroed_vec::<T>(OP, b * h)?;
    let mut hy = try_zeroed_vec::<T>(OP, b * h)?;
    for r in 0..b {
        let row = r * h4..(r + 1) * h4;
        let w = &mut ws[row.clone()];
        for (j, (o, (&x, &y))) in w
            .iter_mut()
            .zip(ig[row.clone()].iter().zip(&hg[row.clone()]))
            .enumerate()
        {
            let x = bi.as_ref().map_or(x, |bi| x + bi[j]);
            let y = bh.as_ref().map_or(y, |bh| y + bh[j]);
            *o = x + y;
        }
        // gate order i, f, g, o: sigmoid on i and f together, tanh on g, sigmoid on o
        apply_in_place(UnaryOp::Sigmoid, &mut w[..2 * h]);
        apply_in_place(UnaryOp::Tanh, &mut w[2 * h..3 * h]);
        apply_in_place(UnaryOp::Sigmoid, &mut w[3 * h..]);
        let (cr, hr) = (&mut cy[r * h..(r + 1) * h], &mut hy[r * h..(r + 1) * h]);
        let cxr = &c[r * h..(r + 1) * h];
        for j in 0..h {
            cr[j] = w[h + j] * cxr[j] + w[j] * w[2 * h + j];
        }
        hr.copy_from_slice(cr);
        apply_in_place(UnaryOp::Tanh, hr);
        for j in 0..h {
            hr[j] = w[3 * h + j] * hr[j];
        }
    }
    Ok((
        Tensor::from_vec(hy, &[b, h])?,
        Tensor::from_vec(cy, &[b, h])?,
        Tensor::from_vec(ws, &[b, h4])?,
    ))
}

/// Backward from the gradients of `hy` and `cy`: `(d_gates (B, 4H), d_cx (B, H),
/// d_bias (4H,))`. `d_gates` is the gradient of both gate inputs and `d_bias` of both
/// biases (they enter the cell as one sum).
pub fn backward(
    g_hy: &Tensor,
    g_cy: &Tensor,
    cx: &Tensor,
    cy: &Tensor,
    ws: &Tensor,
) -> Result<(Tensor, Tensor, Tensor)> {
    let dt = ws.dtype();
    let (b, h4) = match ws.shape() {
        &[b, h4] => (b, h4),
        s => {
            return Err(Error::runtime(
                OP,
                format!("internal: workspace of shape {}", fmt_shape(s)),
            ))
        }
    };
    let h = h4 / 4;
    for t in [g_hy, g_cy, cx, cy] {
        if t.shape() != [b, h] || t.dtype() != dt {
            return Err(Error::runtime(
                OP,
                format!(
                    "backward: expected gradients of shape {} and dtype {}, but got {} {}",
                    fmt_shape(&[b, h]),
                    dt.torch_name(),
                    fmt_shape(t.shape()),
                    t.dtype().torch_name()
                ),
            ));
        }
    }
    crate::with_float_dtype!(
        dt,
        T,
        backward_t::<T>(g_hy, g_cy, cx, cy, ws, b, h),
        Err(Error::dtype_not_implemented(OP, dt))
    )
}

fn backward_t<T: CellFloat>(
    g_hy: &Tensor,
    g_cy: &Tensor,
    cx: &Tensor,
    cy: &Tensor,
    ws: &Tensor,
    b: usize,
    h: usize,
) -> Result<(Tensor, Tensor, Tensor)> {
    let h4 = 4 * h;
    let (ghy, gcy) = (flat::<T>(g_hy)?, flat::<T>(g_cy)?);
    let (c, cyv, w) = (flat::<T>(cx)?, flat::<T>(cy)?, flat::<T>(ws)?);
    let mut dg = try_zeroed_vec::<T>(OP, b * h4)?;
    let mut dcx = try_zeroed_vec::<T>(OP, b * h)?;
    let mut db = try_zeroed_vec::<T>(OP, h4)?;
    let mut tc = try_zeroed_vec::<T>(OP, h)?;
    let one = T::ONE;
    for r in 0..b {
        let wr = &w[r * h4..(r + 1) * h4];
        let (i, f, g, o) = (&wr[..h], &wr[h..2 * h], &wr[2 * h..3 * h], &wr[3 * h..]);
        tc.copy_from_slice(&cyv[r * h..(r + 1) * h]);
        apply_in_place(UnaryOp::Tanh, &mut tc);
        let d = &mut dg[r * h4..(r + 1) * h4];
        for j in 0..h {
            let (ghj, tcj) = (ghy[r * h + j], tc[j]);
            let dc = gcy[r * h + j] + ghj * o[j] * (one - tcj * tcj);
            d[j] = dc * g[j] * i[j] * (one - i[j]);
            d[h + j] = dc * c[r * h + j] * f[j] * (one - f[j]);
            d[2 * h + j] = dc * i[j] * (one - g[j] * g[j]);
            d[3 * h + j] = ghj * tcj * o[j] * (one - o[j]);
            dcx[r * h + j] = dc * f[j];
        }
        for (s, &v) in db.iter_mut().zip(d.iter()) {
            *s = *s + v;
        }
    }
    Ok((
        Tensor::from_vec(dg, &[b, h4])?,
        Tensor::from_vec(dcx, &[b, h])?,
        Tensor::from_vec(db, &[h4])?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f64], s: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), s).unwrap()
    }

    fn sig(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    #[test]
    fn forward_matches_the_formula_and_backward_matches_finite_differences() {
        let (b, h) = (2, 3);
        let ig: Vec<f64> = (0..b * 4 * h)
            .map(|k| ((k * 7 % 11) as f64 - 5.0) * 0.1)
            .collect();
        let hg: Vec<f64> = (0..b * 4 * h)
            .map(|k| ((k * 5 % 13) as f64 - 6.0) * 0.07)
            .collect();
        let cx: Vec<f64> = (0..b * h).map(|k| (k as f64 - 2.5) * 0.3).collect();
        let bi: Vec<f64> = (0..4 * h).map(|k| (k as f64) * 0.01).collect();
        let run = |ig: &[f64]| {
            let (hy, cy, ws) = forward(
                &t(ig, &[b, 4 * h]),
                &t(&hg, &[b, 4 * h]),
                &t(&cx, &[b, h]),
                Some(&t(&bi, &[4 * h])),
                None,
            )
            .unwrap();
            (hy.to_vec::<f64>().unwrap(), cy.to_vec::<f64>().unwrap(), ws)
        };
        let (hy, cy, ws) = run(&ig);
        for r in 0..b {
            for j in 0..h {
                let a = |k: usize| {
                    ig[r * 4 * h + k * h + j] + bi[k * h + j] + hg[r * 4 * h + k * h + j]
                };
                let c = sig(a(1)) * cx[r * h + j] + sig(a(0)) * a(2).tanh();
                assert!((cy[r * h + j] - c).abs() < 1e-12);
                assert!((hy[r * h + j] - sig(a(3)) * c.tanh()).abs() < 1e-12);
            }
        }
        // loss = sum(hy * 1.5) + sum(cy * -0.5): compare d loss / d igates
        let ghy = t(&vec![1.5; b * h], &[b, h]);
        let gcy = t(&vec![-0.5; b * h], &[b, h]);
        let cyt = t(&cy, &[b, h]);
        let (dg, _, db) = backward(&ghy, &gcy, &t(&cx, &[b, h]), &cyt, &ws).unwrap();
        let dg = dg.to_vec::<f64>().unwrap();
        let loss = |ig: &[f64]| {
            let (hy, cy, _) = run(ig);
            hy.iter().sum::<f64>() * 1.5 - cy.iter().sum::<f64>() * 0.5
        };
        for k in 0..ig.len() {
            let (mut p, mut m) = (ig.clone(), ig.clone());
            p[k] += 1e-6;
            m[k] -= 1e-6;
            let fd = (loss(&p) - loss(&m)) / 2e-6;
            assert!((fd - dg[k]).abs() < 1e-6, "{k}: {fd} vs {}", dg[k]);
        }
        let db = db.to_vec::<f64>().unwrap();
        for k in 0..4 * h {
            assert!((db[k] - (dg[k] + dg[4 * h + k])).abs() < 1e-12);
        }
    }

    #[test]
    fn bad_shapes_and_dtypes_are_errors() {
        let g = t(&[0.0; 8], &[2, 4]);
        let c = t(&[0.0; 2], &[2, 1]);
        assert!(forward(&t(&[0.0; 6], &[2, 3]), &g, &c, None, None).is_err());
        assert!(forward(&g, &t(&[0.0; 8], &[1, 8]), &c, None, None).is_err());
        assert!(forward(&g, &g, &t(&[0.0; 2], &[1, 2]), None, None).is_err());
        assert!(forward(&g, &g, &c, Some(&t(&[0.0; 3], &[3])), None).is_err());
        let g32 = Tensor::from_vec(vec![0.0f32; 8], &[2, 4]).unwrap();
        assert!(forward(&g, &g32, &c, None, None).is_err());
        assert!(forward(&g, &g, &c, None, None).is_ok());
    }
}
