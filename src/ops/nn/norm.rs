//! Layer norm (statistics per row of the trailing `k` elements) and batch norm
//! (statistics per channel of an `(N, C, S)` input), forward and backward.
//!
//! Layer norm rows run in parallel; its weight/bias gradients are column sums computed
//! by column ranges, so no partial sums are merged across threads. Batch norm
//! accumulates its per-channel statistics in f64 (a channel can hold millions of
//! elements). Nothing here depends on the thread count.

use super::rows_per_task;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::reduce::fast::{dispatch, lane_sum, FastFloat};
use crate::kernels::reduce::moments::row_moments;
use crate::ops::compute;
use crate::storage::{try_output_vec, try_zeroed_vec};
use crate::tensor::Tensor;
use crate::threads;
use rayon::prelude::*;

fn opt_vec<T: Element>(t: Option<&Tensor>) -> Result<Option<Vec<T>>> {
    t.map(|t| t.to_vec::<T>()).transpose()
}

dispatch! {
    /// Normalises consecutive rows of `k` elements; writes each row's mean and 1/std.
    #[allow(clippy::too_many_arguments)]
    fn ln_rows<T: FastFloat>(
        x: &[T],
        y: &mut [T],
        mean: &mut [T],
        rstd: &mut [T],
        w: Option<&[T]>,
        b: Option<&[T]>,
        k: usize,
        eps: T,
    ) {
        // PyTorch's arithmetic, step for step: its row moments, then
        // `y = fma((x - mean) * rstd, w, b)`, `(x - mean) * rstd * w`,
        // `fma(x - mean, rstd, b)` or `(x - mean) * rstd` (tests/test_layer_norm_bits.py)
        let rows = x.chunks_exact(k).zip(y.chunks_exact_mut(k));
        let level = crate::kernels::simd::active();
        for ((xr, yr), (m, r)) in rows.zip(mean.iter_mut().zip(rstd.iter_mut())) {
            let (mu, var) = row_moments(xr, level);
            let rs = T::ONE / (var + eps).sqrt_();
            (*m, *r) = (mu, rs);
            match (w, b) {
                (Some(w), Some(b)) => {
                    for (((o, &v), &wv), &bv) in yr.iter_mut().zip(xr).zip(w).zip(b) {
                        *o = ((v - mu) * rs).mul_add_(wv, bv);
                    }
                }
                (Some(w), None) => {
                    for ((o, &v), &wv) in yr.iter_mut().zip(xr).zip(w) {
                        *o = (v - mu) * rs * wv;
                    }
                }
                (None, Some(b)) => {
                    // PyTorch's compiled loop drops the `* 1` of the absent weight and
                    // fuses what is left
                    for ((o, &v), &bv) in yr.iter_mut().zip(xr).zip(b) {
                        *o = (v - mu).mul_add_(rs, bv);
                    }
                }
                (None, None) => {
                    for (o, &v) in yr.iter_mut().zip(xr) {
                        *o = (v - mu) * rs;
                    }
                }
            }
        }
    }
}

/// Layer norm of the dense view of `x` as `m` rows of `k` elements, with optional
/// weight and bias of `k` elements: `(y, mean, rstd)`, the statistics of shape `[m]`.
pub fn layer_norm_forward(
    x: &Tensor,
    m: usize,
    k: usize,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    if !x.dtype().is_compute() {
        // half types normalise in float32; mean and rstd stay float32, as in PyTorch
        let (w, b) = (opt_input(w)?, opt_input(b)?);
        let c = compute::input(x)?;
        let (y, mean, rstd) = layer_norm_forward(&c, m, k, w.as_ref(), b.as_ref(), eps)?;
        return Ok((compute::output(x.dtype(), y)?, mean, rstd));
    }
    let op = "layer_norm";
    let x = x.dense()?;
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            let (w, b) = (opt_vec::<T>(w)?, opt_vec::<T>(b)?);
            // every element is written below (k == 0 means no elements)
            let mut y = try_output_vec::<T>(op, x.numel())?;
            let mut mean = try_zeroed_vec::<T>(op, m)?;
            let mut rstd = try_zeroed_vec::<T>(op, m)?;
            // SAFETY: T is x's dtype.
            let xs = unsafe { x.data::<T>() };
            let eps = T::from_f64(eps);
            let (w, b) = (w.as_deref(), b.as_deref());
            if k == 0 {
                // empty rows: statistics of nothing
                mean.fill(T::NAN);
                rstd.fill(T::NAN);
            } else if threads::worth_splitting(xs.len()) {
                let r = rows_per_task(k);
                threads::install(|| {
                    xs.par_chunks(r * k)
                        .zip(y.par_chunks_mut(r * k))
                        .zip(mean.par_chunks_mut(r).zip(rstd.par_chunks_mut(r)))
                        .for_each(|((x, y), (mu, rs))| ln_rows(x, y, mu, rs, w, b, k, eps));
                });
            } else {
                ln_rows(xs, &mut y, &mut mean, &mut rstd, w, b, k, eps);
            }
            Ok((
                Tensor::from_vec(y, x.shape())?,
                Tensor::from_vec(mean, &[m])?,
                Tensor::from_vec(rstd, &[m])?,
            ))
        },
        Err(Error::dtype_not_implemented(
            "LayerNormKernelImpl",
            x.dtype()
        ))
    )
}

dispatch! {
    /// Input gradient of layer norm for consecutive rows:
    /// `dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))` with `gw = g * w`.
    #[allow(clippy::too_many_arguments)]
    fn ln_back_rows<T: FastFloat>(
        g: &[T],
        x: &[T],
        mean: &[T],
        rstd: &[T],
        w: Option<&[T]>,
        dx: &mut [T],
        k: usize,
    ) {
        let kt = T::from_usize(k);
        let rows = g.chunks_exact(k).zip(x.chunks_exact(k)).zip(dx.chunks_exact_mut(k));
        for (((gr, xr), dr), (&mu, &rs)) in rows.zip(mean.iter().zip(rstd)) {
            // dr holds gw first, then the result
            match w {
                Some(w) => {
                    for ((o, &gv), &wv) in dr.iter_mut().zip(gr).zip(w) {
                        *o = gv * wv;
                    }
                }
                None => dr.copy_from_slice(gr),
            }
            let a = lane_sum(dr, |v| v) / kt;
            let mut acc = [T::ZERO; 16];
            let (dc, xc) = (dr.chunks_exact(16), xr.chunks_exact(16));
            let (drest, xrest) = (dc.remainder(), xc.remainder());
            for (d, xv) in dc.zip(xc) {
                for j in 0..16 {
                    acc[j] = acc[j] + d[j] * ((xv[j] - mu) * rs);
                }
            }
            let mut bsum = acc.iter().fold(T::ZERO, |s, &v| s + v);
            for (&d, &xv) in drest.iter().zip(xrest) {
                bsum = bsum + d * ((xv - mu) * rs);
            }
            let bm = bsum / kt;
            for (o, &xv) in dr.iter_mut().zip(xr) {
                *o = rs * ((*o - a) - ((xv - mu) * rs) * bm);
            }
        }
    }
}

dispatch! {
    /// Columns `j0..j0 + dw.len()` of the weight and bias gradients of layer norm:
    /// `dw = sum_rows(g * xhat)`, `db = sum_rows(g)`.
    #[allow(clippy::too_many_arguments)]
    fn ln_back_cols<T: FastFloat>(
        g: &[T],
        x: &[T],
        mean: &[T],
        rstd: &[T],
        k: usize,
        j0: usize,
        dw: &mut [T],
        db: &mut [T],
    ) {
        let w = dw.len().max(db.len());
        for (r, (&mu, &rs)) in mean.iter().zip(rstd).enumerate() {
            let gr = &g[r * k + j0..r * k + j0 + w];
            let xr = &x[r * k + j0..r * k + j0 + w];
            for ((o, &gv), &xv) in dw.iter_mut().zip(gr).zip(xr) {
                *o = *o + gv * ((xv - mu) * rs);
            }
            for (o, &gv) in db.iter_mut().zip(gr) {
                *o = *o + gv;
            }
        }
    }
}

/// Gradients of layer norm `[dx, dw, db]` (each only when `need`s says so) for incoming
/// gradient `g`, from the input and the statistics saved by the forward.
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_backward(
    g: &Tensor,
    x: &Tensor,
    mean: &Tensor,
    rstd: &Tensor,
    w: Option<&Tensor>,
    k: usize,
    need: [bool; 3],
) -> Result<[Option<Tensor>; 3]> {
    if !x.dtype().is_compute() {
        return in_compute_dtype(g, x, w, |g, x, w| {
            layer_norm_backward(g, x, mean, rstd, w, k, need)
        });
    }
    let op = "layer_norm_backward";
    let (g, x) = (g.to_dtype(x.dtype())?.dense()?, x.dense()?);
    let (mean, rstd) = (mean.dense()?, rstd.dense()?);
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            let wv = opt_vec::<T>(w)?;
            // SAFETY: all four are dense tensors of dtype T.
            let (gs, xs, ms, rs) = unsafe {
                (
                    g.data::<T>(),
                    x.data::<T>(),
                    mean.data::<T>(),
                    rstd.data::<T>(),
                )
            };
            let mut out: [Option<Tensor>; 3] = [None, None, None];
            if need[0] {
                // every element is written below (k == 0 means no elements)
                let mut dx = try_output_vec::<T>(op, xs.len())?;
                if k > 0 && threads::worth_splitting(xs.len()) {
                    let r = rows_per_task(k);
                    let wv = wv.as_deref();
                    threads::install(|| {
                        gs.par_chunks(r * k)
                            .zip(xs.par_chunks(r * k))
                            .zip(ms.par_chunks(r).zip(rs.par_chunks(r)))
                            .zip(dx.par_chunks_mut(r * k))
                            .for_each(|(((g, x), (m, s)), d)| ln_back_rows(g, x, m, s, wv, d, k));
                    });
                } else if k > 0 {
                    ln_back_rows(gs, xs, ms, rs, wv.as_deref(), &mut dx, k);
                }
                out[0] = Some(Tensor::from_vec(dx, x.shape())?);
            }
            if need[1] || need[2] {
                let mut dw = try_zeroed_vec::<T>(op, if need[1] { k } else { 0 })?;
                let mut db = try_zeroed_vec::<T>(op, if need[2] { k } else { 0 })?;
                // column ranges of at least 64, one task each when the work is large
                let parts = if threads::worth_splitting(xs.len()) {
                    (threads::current_threads() * 2).min(k / 64).max(1)
                } else {
                    1
                };
                let cols = k.div_ceil(parts).max(1);
                if parts > 1 {
                    let tasks = split_cols(&mut dw, &mut db, k, cols);
                    threads::install(|| {
                        tasks.into_par_iter().for_each(|(j0, w, b)| {
                            ln_back_cols(gs, xs, ms, rs, k, j0, w, b);
                        });
                    });
                } else {
                    ln_back_cols(gs, xs, ms, rs, k, 0, &mut dw, &mut db);
                }
                if need[1] {
                    out[1] = Some(Tensor::from_vec(dw, &[k])?);
                }
                if need[2] {
                    out[2] = Some(Tensor::from_vec(db, &[k])?);
                }
            }
            Ok(out)
        },
        Err(Error::dtype_not_implemented(
            "LayerNormBackwardKernelImpl",
            x.dtype()
        ))
    )
}

/// Splits the (possibly empty) column buffers into ranges of `cols` columns.
fn split_cols<'a, T>(
    dw: &'a mut [T],
    db: &'a mut [T],
    k: usize,
    cols: usize,
) -> Vec<(usize, &'a mut [T], &'a mut [T])> {
    let mut out = Vec::new();
    let (mut w, mut b) = (dw, db);
    let mut j0 = 0;
    while j0 < k {
        let n = cols.min(k - j0);
        let (wh, wt) = w.split_at_mut(n.min(w.len()));
        let (bh, bt) = b.split_at_mut(n.min(b.len()));
        out.push((j0, wh, bh));
        (w, b, j0) = (wt, bt, j0 + n);
    }
    out
}

/// An `(N, C, S)` view of a batch-norm input: N samples, C channels, S positions.
#[derive(Clone, Copy, Debug)]
pub struct Nc {
    pub n: usize,
    pub c: usize,
    pub s: usize,
}

impl Nc {
    pub fn of(shape: &[usize]) -> Nc {
        Nc {
            n: shape.first().copied().unwrap_or(1),
            c: shape.get(1).copied().unwrap_or(1),
            s: shape.iter().skip(2).product(),
        }
    }

    /// Elements per channel.
    pub fn per_channel(&self) -> usize {
        self.n * self.s
    }

    /// Calls `f(channel, run)` for every contiguous run of S elements, in memory order.
    fn runs<'a, T>(&self, xs: &'a [T], mut f: impl FnMut(usize, &'a [T])) {
        for (i, run) in xs.chunks_exact(self.s.max(1)).enumerate() {
            f(i % self.c.max(1), run);
        }
    }
}

/// Per-channel `sum(map(x))` in f64 over the runs of `xs`.
fn channel_sums<T: FastFloat>(nc: &Nc, xs: &[T], map: impl Fn(usize, T) -> f64) -> Vec<f64> {
    let mut acc = vec![0.0f64; nc.c];
    nc.runs(xs, |c, run| acc[c] += lane_sum(run, |v| map(c, v)));
    acc
}

/// Batch-norm statistics of the dense `(N, C, S)` input: per-channel mean and biased
/// variance, both accumulated in f64 (two passes).
pub fn batch_stats<T: FastFloat>(nc: &Nc, xs: &[T]) -> (Vec<f64>, Vec<f64>) {
    let cnt = nc.per_channel() as f64;
    let mean: Vec<f64> = channel_sums(nc, xs, |_, v| v.to_f64())
        .into_iter()
        .map(|s| s / cnt)
        .collect();
    let var: Vec<f64> = channel_sums(nc, xs, |c, v| {
        let d = v.to_f64() - mean[c];
        d * d
    })
    .into_iter()
    .map(|s| s / cnt)
    .collect();
    (mean, var)
}

/// `y = x * alpha[c] + beta[c]` over the dense `(N, C, S)` input.
pub fn channel_affine<T: FastFloat>(nc: &Nc, xs: &[T], alpha: &[T], beta: &[T]) -> Vec<T> {
    let mut y = xs.to_vec();
    for (i, run) in y.chunks_exact_mut(nc.s.max(1)).enumerate() {
        let c = i % nc.c.max(1);
        let (a, b) = (alpha[c], beta[c]);
        for v in run.iter_mut() {
            *v = *v * a + b;
        }
    }
    y
}

/// Per-channel `(sum(g), sum((x - mean) * g))` in f64 for the batch-norm backward.
pub fn batch_grad_sums<T: FastFloat>(
    nc: &Nc,
    g: &[T],
    xs: &[T],
    mean: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let mut sg = vec![0.0f64; nc.c];
    let mut dot = vec![0.0f64; nc.c];
    let s = nc.s.max(1);
    for (i, (gr, xr)) in g.chunks_exact(s).zip(xs.chunks_exact(s)).enumerate() {
        let c = i % nc.c.max(1);
        let m = mean[c];
        sg[c] += lane_sum(gr, |v| v.to_f64());
        let mut d = 0.0;
        for (&gv, &xv) in gr.iter().zip(xr) {
            d += (xv.to_f64() - m) * gv.to_f64();
        }
        dot[c] += d;
    }
    (sg, dot)
}

/// The checks and dtype PyTorch applies to a batch-norm parameter of `c` elements.
pub fn check_channel_param(name: &str, t: &Tensor, c: usize, dtype: DType) -> Result<()> {
    if t.numel() != c {
        return Err(Error::runtime(
            "",
            format!("{name} should contain {c} elements not {}", t.numel()),
        ));
    }
    if t.dtype() != dtype {
        return Err(Error::runtime(
            "",
            format!(
                "mixed dtype (CPU): expect parameter to have scalar type of {}",
                dtype.torch_name()
            ),
        ));
    }
    Ok(())
}

/// What the batch-norm backward needs from the forward: the per-channel mean and 1/std
/// that were used (batch statistics in training, running ones in evaluation).
#[derive(Clone, Debug)]
pub struct BnSaved {
    pub mean: Vec<f64>,
    pub invstd: Vec<f64>,
}

/// Batch norm of `x` (`(N, C, *)`): with batch statistics when `training` (updating
/// `running` = (mean, var) in place when given), else with the running statistics.
/// Parameters must have been checked with [`check_channel_param`].
pub fn batch_norm_forward(
    x: &Tensor,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    running: Option<(&Tensor, &Tensor)>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<(Tensor, BnSaved)> {
    if !x.dtype().is_compute() {
        let (w, b) = (opt_input(w)?, opt_input(b)?);
        let c = compute::input(x)?;
        let (y, saved) = match running {
            Some((rm, rv)) if !rm.dtype().is_compute() => {
                // running statistics of a half type: updated in float32, written back
                let (m32, v32) = (compute::input(rm)?, compute::input(rv)?);
                let r = batch_norm_forward(
                    &c,
                    w.as_ref(),
                    b.as_ref(),
                    Some((&m32, &v32)),
                    training,
                    momentum,
                    eps,
                )?;
                rm.copy_from(&m32)?;
                rv.copy_from(&v32)?;
                r
            }
            _ => batch_norm_forward(&c, w.as_ref(), b.as_ref(), running, training, momentum, eps)?,
        };
        return Ok((compute::output(x.dtype(), y)?, saved));
    }
    let x = x.dense()?;
    let nc = Nc::of(x.shape());
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            // SAFETY: T is x's dtype.
            let xs = unsafe { x.data::<T>() };
            let (mean, invstd) = if training {
                let (mean, var) = batch_stats(&nc, xs);
                if let Some((rm, rv)) = running {
                    let cnt = nc.per_channel() as f64;
                    let old_m = rm.to_vec::<f64>()?;
                    let old_v = rv.to_vec::<f64>()?;
                    let upd = |old: &[f64], new: &[f64], scale: f64| -> Vec<f64> {
                        old.iter()
                            .zip(new)
                            .map(|(&o, &n)| momentum * n * scale + (1.0 - momentum) * o)
                            .collect()
                    };
                    let new_m = upd(&old_m, &mean, 1.0);
                    let new_v = upd(&old_v, &var, cnt / (cnt - 1.0));
                    rm.copy_from(&Tensor::from_vec(new_m, rm.shape())?)?;
                    rv.copy_from(&Tensor::from_vec(new_v, rv.shape())?)?;
                }
                let invstd: Vec<f64> = var.iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
                (mean, invstd)
            } else {
                let (rm, rv) = running.ok_or_else(|| {
                    Error::runtime("", "running_mean must be defined in evaluation mode")
                })?;
                let invstd = rv
                    .to_vec::<f64>()?
                    .iter()
                    .map(|v| 1.0 / (v + eps).sqrt())
                    .collect();
                (rm.to_vec::<f64>()?, invstd)
            };
            let wv = w.map(|w| w.to_vec::<f64>()).transpose()?;
            let bv = b.map(|b| b.to_vec::<f64>()).transpose()?;
            let mut alpha = Vec::with_capacity(nc.c);
            let mut beta = Vec::with_capacity(nc.c);
            for c in 0..nc.c {
                let a = invstd[c] * wv.as_ref().map_or(1.0, |w| w[c]);
                alpha.push(T::from_f64(a));
                beta.push(T::from_f64(bv.as_ref().map_or(0.0, |b| b[c]) - mean[c] * a));
            }
            let y = channel_affine(&nc, xs, &alpha, &beta);
            Ok((Tensor::from_vec(y, x.shape())?, BnSaved { mean, invstd }))
        },
        Err(Error::dtype_not_implemented("batch_norm", x.dtype()))
    )
}

/// Gradients `[dx, dw, db]` of batch norm (only those `need`ed) for incoming `g`.
pub fn batch_norm_backward(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    saved: &BnSaved,
    training: bool,
    need: [bool; 3],
) -> Result<[Option<Tensor>; 3]> {
    if !x.dtype().is_compute() {
        return in_compute_dtype(g, x, w, |g, x, w| {
            batch_norm_backward(g, x, w, saved, training, need)
        });
    }
    let (g, x) = (g.to_dtype(x.dtype())?.dense()?, x.dense()?);
    let nc = Nc::of(x.shape());
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            // SAFETY: both dense with dtype T.
            let (gs, xs) = unsafe { (g.data::<T>(), x.data::<T>()) };
            let (sg, dot) = batch_grad_sums(&nc, gs, xs, &saved.mean);
            let cnt = nc.per_channel() as f64;
            let wv = w.map(|w| w.to_vec::<f64>()).transpose()?;
            let mut out: [Option<Tensor>; 3] = [None, None, None];
            if need[0] {
                let mut dx = try_zeroed_vec::<T>("batch_norm_backward", xs.len())?;
                let s = nc.s.max(1);
                let rows = gs.chunks_exact(s).zip(xs.chunks_exact(s));
                for (i, ((gr, xr), dr)) in rows.zip(dx.chunks_exact_mut(s)).enumerate() {
                    let c = i % nc.c.max(1);
                    let iw = saved.invstd[c] * wv.as_ref().map_or(1.0, |w| w[c]);
                    if training {
                        // dx = (g - mean(g) - (x - mean) * dot * invstd^2 / cnt) * invstd * w
                        let k = dot[c] * saved.invstd[c] * saved.invstd[c] / cnt;
                        let (gm, m) = (T::from_f64(sg[c] / cnt), T::from_f64(saved.mean[c]));
                        let (k, iw) = (T::from_f64(k), T::from_f64(iw));
                        for ((o, &gv), &xv) in dr.iter_mut().zip(gr).zip(xr) {
                            *o = ((gv - gm) - (xv - m) * k) * iw;
                        }
                    } else {
                        let iw = T::from_f64(iw);
                        for (o, &gv) in dr.iter_mut().zip(gr) {
                            *o = gv * iw;
                        }
                    }
                }
                out[0] = Some(Tensor::from_vec(dx, x.shape())?);
            }
            let c_shape = [nc.c];
            if need[1] {
                let dw: Vec<T> = (0..nc.c)
                    .map(|c| T::from_f64(dot[c] * saved.invstd[c]))
                    .collect();
                out[1] = Some(Tensor::from_vec(dw, &c_shape)?);
            }
            if need[2] {
                let db: Vec<T> = sg.iter().map(|&v| T::from_f64(v)).collect();
                out[2] = Some(Tensor::from_vec(db, &c_shape)?);
            }
            Ok(out)
        },
        Err(Error::dtype_not_implemented(
            "batch_norm_backward",
            x.dtype()
        ))
    )
}

/// An optional parameter in its compute dtype.
fn opt_input(t: Option<&Tensor>) -> Result<Option<Tensor>> {
    t.map(compute::input).transpose()
}

/// A norm's backward for a half-type `x`: `run` on `g`, `x` and `w` in float32, and the
/// gradients `[dx, dw, db]` converted back to `x`'s and `w`'s dtypes.
fn in_compute_dtype(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    run: impl FnOnce(&Tensor, &Tensor, Option<&Tensor>) -> Result<[Option<Tensor>; 3]>,
) -> Result<[Option<Tensor>; 3]> {
    let w16 = w.map(|w| w.dtype());
    let wc = opt_input(w)?;
    let (gc, xc) = (compute::input(g)?, compute::input(x)?);
    let r = run(&gc, &xc, wc.as_ref())?;
    back_to(r, [Some(x.dtype()), w16, w16])
}

/// Gradients computed in float32 converted back to their operands' dtypes.
fn back_to(r: [Option<Tensor>; 3], dts: [Option<DType>; 3]) -> Result<[Option<Tensor>; 3]> {
    let mut out: [Option<Tensor>; 3] = [None, None, None];
    for ((o, g), d) in out.iter_mut().zip(r).zip(dts) {
        *o = match (g, d) {
            (Some(g), Some(d)) => Some(compute::output(d, g)?),
            (g, _) => g,
        };
    }
    Ok(out)
}
