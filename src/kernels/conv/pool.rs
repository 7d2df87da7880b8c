//! Pooling kernels: max (with PyTorch's flattened `h * W + w` argmax indices), average
//! (PyTorch's divisor rules) and adaptive average / max, with their backward scatters.
//!
//! Inputs are a batch of planes read through strides ([`Image`] with N x C planes);
//! outputs and gradients are contiguous (planes, oh, ow) / (planes, H, W).

use super::par::{batch_parts, from_image, split_parts};
use super::{Axis, Image};
use crate::kernels::matmul::MatElem;
use rayon::prelude::*;

/// Element types the pooling kernels support (float32, float64, int64).
pub trait PoolElem: MatElem {
    fn is_nan(self) -> bool;
    /// The start value of a max reduction (-inf, or the smallest integer).
    fn lowest() -> Self;
    /// `self / n` (truncating for integers, like PyTorch's integer average pool).
    fn div_count(self, n: i64) -> Self;
    /// Max-pool step: if `v > *best` or `v` is NaN, `*best = v` and `*arg = cand`.
    /// Written with masks passed through `black_box` so it compiles without a branch:
    /// LLVM otherwise turns the update back into a select and then into a branch on the
    /// loaded value, which mispredicts on every other element of real data (2.4x slower).
    fn pick(v: Self, best: &mut Self, arg: &mut i64, cand: i64);
}

#[inline(always)]
fn masked_arg(arg: &mut i64, cand: i64, take: bool) {
    let m = std::hint::black_box((take as i64).wrapping_neg());
    *arg = arg.wrapping_add(cand.wrapping_sub(*arg) & m);
}

macro_rules! float_pool {
    ($t:ty, $u:ty) => {
        impl PoolElem for $t {
            #[inline]
            fn is_nan(self) -> bool {
                self.is_nan()
            }
            fn lowest() -> Self {
                <$t>::NEG_INFINITY
            }
            #[inline]
            fn div_count(self, n: i64) -> Self {
                self / n as $t
            }
            #[inline(always)]
            fn pick(v: Self, best: &mut Self, arg: &mut i64, cand: i64) {
                let take = (v > *best) | v.is_nan();
                let (bb, vb) = (best.to_bits(), v.to_bits());
                let m = std::hint::black_box((take as $u).wrapping_neg());
                *best = <$t>::from_bits(bb.wrapping_add(vb.wrapping_sub(bb) & m));
                masked_arg(arg, cand, take);
            }
        }
    };
}
float_pool!(f32, u32);
float_pool!(f64, u64);

impl PoolElem for i64 {
    fn is_nan(self) -> bool {
        false
    }
    fn lowest() -> Self {
        i64::MIN
    }
    fn div_count(self, n: i64) -> Self {
        if n == 0 {
            0
        } else {
            self.wrapping_div(n)
        }
    }
    #[inline(always)]
    fn pick(v: Self, best: &mut Self, arg: &mut i64, cand: i64) {
        let take = v > *best;
        masked_arg(best, v, take);
        masked_arg(arg, cand, take);
    }
}

/// Number of planes (N * C) of an image batch.
#[derive(Clone, Copy, Debug)]
pub struct Planes {
    pub n: usize,
    pub c: usize,
}

impl Planes {
    fn count(&self) -> usize {
        self.n * self.c
    }
    #[inline]
    fn base(&self, img: &Image, p: usize) -> usize {
        img.at(p / self.c.max(1), p % self.c.max(1))
    }
}

/// The input rows (or columns) of max-pool window `o` along one axis: start, end, step.
#[inline]
fn max_window(a: &Axis, o: usize) -> (usize, usize) {
    let start = (o * a.stride) as isize - a.pad as isize;
    let end = (start + ((a.kernel - 1) * a.dilation) as isize + 1).min(a.input as isize);
    let mut s = start;
    while s < 0 {
        s += a.dilation as isize;
    }
    (s as usize, end.max(s) as usize)
}

/// Max pooling. `out` and `idx` are contiguous (planes, oh, ow). NaN wins (the last NaN
/// of a window is reported) and otherwise the first maximum, like PyTorch's CPU kernel.
///
/// The loops run over window taps outside and output columns inside, so the innermost
/// loop is a branch-free compare-and-select over a row of outputs; every output still
/// sees its window's elements in PyTorch's (row, column) order.
fn max_pool2d_serial<T: PoolElem>(
    x: &[T],
    img: &Image,
    planes: Planes,
    h: &Axis,
    w: &Axis,
    out: &mut [T],
    idx: &mut [i64],
) {
    let [_, _, sh, sw] = img.strides;
    let (ow_n, l) = (w.output, h.output * w.output);
    // first valid column of each window (PyTorch's initial argmax) and, per tap, the
    // range of outputs whose tap lands inside the row
    let first: Vec<i64> = (0..ow_n).map(|o| max_window(w, o).0 as i64).collect();
    let ranges: Vec<(usize, usize)> = (0..w.kernel).map(|kj| w.valid(kj)).collect();
    let step = w.stride * sw;
    for p in 0..planes.count() {
        let base = planes.base(img, p);
        for oh in 0..h.output {
            let (hs, he) = max_window(h, oh);
            let o0 = p * l + oh * ow_n;
            let best = &mut out[o0..o0 + ow_n];
            let arg = &mut idx[o0..o0 + ow_n];
            best.fill(T::lowest());
            for (a, &f) in arg.iter_mut().zip(&first) {
                *a = (hs * w.input) as i64 + f;
            }
            for ih in (hs..he).step_by(h.dilation) {
                let row = base + ih * sh;
                for (kj, &(lo, hi)) in ranges.iter().enumerate() {
                    if lo >= hi {
                        continue;
                    }
                    let iw0 = lo * w.stride + kj * w.dilation - w.pad;
                    let src = &x[row + iw0 * sw..];
                    let at0 = (ih * w.input + iw0) as i64;
                    let (bs, as_) = (&mut best[lo..hi], &mut arg[lo..hi]);
                    match step {
                        1 => max_run::<T, 1>(src, bs, as_, at0, (w.stride, step)),
                        2 => max_run::<T, 2>(src, bs, as_, at0, (w.stride, step)),
                        _ => max_run::<T, 0>(src, bs, as_, at0, (w.stride, step)),
                    }
                }
            }
        }
    }
}

/// One tap of a max-pool row: output `i` compares `src[i * step]` and its input column
/// advances by `stride`. `STEP` is `step` when it is 1 or 2, known at compile time so the
/// loop has no bounds checks and vectorises (compare + blend; a branch per element
/// would mispredict half the time on real data); 0 means "use `step`".
#[inline(always)]
fn max_run<T: PoolElem, const STEP: usize>(
    src: &[T],
    best: &mut [T],
    arg: &mut [i64],
    at0: i64,
    (stride, step): (usize, usize),
) {
    let pick = T::pick;
    let n = best.len();
    if n == 0 {
        return;
    }
    let st = stride as i64;
    match STEP {
        1 => {
            let it = best.iter_mut().zip(arg.iter_mut()).zip(&src[..n]);
            for (i, ((b, a), &v)) in it.enumerate() {
                pick(v, b, a, at0 + i as i64 * st);
            }
        }
        2 => {
            // the last element sits at 2n-2; the chunks cover the first n-1 outputs
            let (bh, bt) = best.split_at_mut(n - 1);
            let (ah, at) = arg.split_at_mut(n - 1);
            let it = bh
                .iter_mut()
                .zip(ah.iter_mut())
                .zip(src[..2 * n - 2].chunks_exact(2));
            for (i, ((b, a), c)) in it.enumerate() {
                pick(c[0], b, a, at0 + i as i64 * st);
            }
            pick(
                src[2 * n - 2],
                &mut bt[0],
                &mut at[0],
                at0 + (n as i64 - 1) * st,
            );
        }
        _ => {
            for (i, (b, a)) in best.iter_mut().zip(arg.iter_mut()).enumerate() {
                pick(src[i * step], b, a, at0 + i as i64 * st);
            }
        }
    }
}

/// Scatters `gy` (contiguous (planes, l)) to the argmax positions into `gx`
/// (contiguous (planes, hw), zeroed). Returns false on an out-of-range index.
fn max_pool_backward_serial<T: PoolElem>(
    gy: &[T],
    idx: &[i64],
    planes: usize,
    l: usize,
    hw: usize,
    gx: &mut [T],
) -> bool {
    for p in 0..planes {
        let g = &mut gx[p * hw..(p + 1) * hw];
        for j in p * l..(p + 1) * l {
            let i = idx[j];
            if i < 0 || i as usize >= hw {
                return false;
            }
            g[i as usize] = T::add(g[i as usize], gy[j]);
        }
    }
    true
}

/// The average-pool window of output `o` along one axis: the clipped range and the
/// window length counted with padding (PyTorch's `pool_size` factor).
#[inline]
fn avg_window(a: &Axis, o: usize) -> (usize, usize, usize) {
    let start = (o * a.stride) as isize - a.pad as isize;
    let end = (start + a.kernel as isize).min((a.input + a.pad) as isize);
    let padded = (end - start).max(0) as usize;
    let s = start.max(0) as usize;
    let e = (end.min(a.input as isize)).max(s as isize) as usize;
    (s, e, padded)
}

/// How an average pool divides: PyTorch's `count_include_pad` and `divisor_override`.
#[derive(Clone, Copy, Debug)]
pub struct AvgRule {
    pub count_include_pad: bool,
    pub divisor_override: Option<i64>,
}

impl AvgRule {
    fn divisor(&self, padded: usize, inside: usize) -> i64 {
        match self.divisor_override {
            Some(d) => d,
            None if self.count_include_pad => padded as i64,
            None => inside as i64,
        }
    }
}

/// Average pooling into contiguous `out` (planes, oh, ow).
fn avg_pool2d_serial<T: PoolElem>(
    x: &[T],
    img: &Image,
    planes: Planes,
    h: &Axis,
    w: &Axis,
    rule: AvgRule,
    out: &mut [T],
) {
    let [_, _, sh, sw] = img.strides;
    let l = h.output * w.output;
    let wins: Vec<_> = (0..w.output).map(|o| avg_window(w, o)).collect();
    for p in 0..planes.count() {
        let base = planes.base(img, p);
        for oh in 0..h.output {
            let (hs, he, hp) = avg_window(h, oh);
            for (ow, &(ws, we, wp)) in wins.iter().enumerate() {
                let o = p * l + oh * w.output + ow;
                if hs >= he || ws >= we {
                    out[o] = T::zero();
                    continue;
                }
                let mut s = T::zero();
                for ih in hs..he {
                    let row = base + ih * sh;
                    for iw in ws..we {
                        s = T::add(s, x[row + iw * sw]);
                    }
                }
                out[o] = s.div_count(rule.divisor(hp * wp, (he - hs) * (we - ws)));
            }
        }
    }
}

/// The adjoint of [`avg_pool2d`]: spreads `gy` (contiguous (planes, l)) over the windows
/// into `gx` (contiguous (planes, H, W), zeroed).
pub fn avg_pool2d_backward<T: PoolElem>(
    gy: &[T],
    planes: usize,
    h: &Axis,
    w: &Axis,
    rule: AvgRule,
    gx: &mut [T],
) {
    let l = h.output * w.output;
    let hw = h.input * w.input;
    let wins: Vec<_> = (0..w.output).map(|o| avg_window(w, o)).collect();
    for p in 0..planes {
        let g = &mut gx[p * hw..(p + 1) * hw];
        for oh in 0..h.output {
            let (hs, he, hp) = avg_window(h, oh);
            for (ow, &(ws, we, wp)) in wins.iter().enumerate() {
                if hs >= he || ws >= we {
                    continue;
                }
                let div = rule.divisor(hp * wp, (he - hs) * (we - ws));
                let v = gy[p * l + oh * w.output + ow].div_count(div);
                for ih in hs..he {
                    for e in &mut g[ih * w.input + ws..ih * w.input + we] {
                        *e = T::add(*e, v);
                    }
                }
            }
        }
    }
}

/// The adaptive window `[floor(o*in/out), ceil((o+1)*in/out))` of output `o`.
#[inline]
pub fn adaptive_window(input: usize, output: usize, o: usize) -> (usize, usize) {
    let s = o * input / output;
    let e = ((o + 1) * input).div_ceil(output);
    (s, e)
}

/// Adaptive pooling over planes of size (ih, iw) into (oh, ow). With `idx`, takes the
/// maximum (NaN wins) and records its flattened position; without, the average.
#[allow(clippy::too_many_arguments)]
pub fn adaptive_pool2d<T: PoolElem>(
    x: &[T],
    img: &Image,
    planes: Planes,
    (ih, iw): (usize, usize),
    (oh, ow): (usize, usize),
    out: &mut [T],
    mut idx: Option<&mut [i64]>,
) {
    let [_, _, sh, sw] = img.strides;
    let l = oh * ow;
    let wins: Vec<_> = (0..ow).map(|o| adaptive_window(iw, ow, o)).collect();
    for p in 0..planes.count() {
        let base = planes.base(img, p);
        for i in 0..oh {
            let (hs, he) = adaptive_window(ih, oh, i);
            for (j, &(ws, we)) in wins.iter().enumerate() {
                let o = p * l + i * ow + j;
                if let Some(ix) = idx.as_deref_mut() {
                    let mut best = T::lowest();
                    let mut at = (hs * iw + ws) as i64;
                    for r in hs..he {
                        for c in ws..we {
                            T::pick(
                                x[base + r * sh + c * sw],
                                &mut best,
                                &mut at,
                                (r * iw + c) as i64,
                            );
                        }
                    }
                    out[o] = best;
                    ix[o] = at;
                } else {
                    let mut s = T::zero();
                    for r in hs..he {
                        for c in ws..we {
                            s = T::add(s, x[base + r * sh + c * sw]);
                        }
                    }
                    out[o] = s.div_count(((he - hs) * (we - ws)) as i64);
                }
            }
        }
    }
}

/// The adjoint of adaptive average pooling: `gy` (contiguous (planes, oh, ow)) spread
/// into `gx` (contiguous (planes, ih, iw), zeroed).
pub fn adaptive_avg_backward<T: PoolElem>(
    gy: &[T],
    planes: usize,
    (ih, iw): (usize, usize),
    (oh, ow): (usize, usize),
    gx: &mut [T],
) {
    let (l, hw) = (oh * ow, ih * iw);
    let wins: Vec<_> = (0..ow).map(|o| adaptive_window(iw, ow, o)).collect();
    for p in 0..planes {
        let g = &mut gx[p * hw..(p + 1) * hw];
        for i in 0..oh {
            let (hs, he) = adaptive_window(ih, oh, i);
            for (j, &(ws, we)) in wins.iter().enumerate() {
                let v = gy[p * l + i * ow + j].div_count(((he - hs) * (we - ws)) as i64);
                for r in hs..he {
                    for e in &mut g[r * iw + ws..r * iw + we] {
                        *e = T::add(*e, v);
                    }
                }
            }
        }
    }
}

/// Runs a pool over image ranges in parallel when the batch is large enough: each range
/// gets the matching chunk of the (planes, l) outputs.
fn by_images<T: PoolElem>(
    img: &Image,
    planes: Planes,
    (l, window): (usize, usize),
    out: &mut [T],
    idx: Option<&mut [i64]>,
    f: impl Fn(&Image, Planes, &mut [T], Option<&mut [i64]>) + Sync,
) {
    // one window element costs about as much as a dozen GEMM multiply-adds (a compare
    // and select on one scattered element rather than a vector FMA on packed data)
    let work = planes.count().saturating_mul(l).saturating_mul(window) * 16;
    let parts = batch_parts(planes.n, work);
    if parts.len() == 1 {
        return f(img, planes, out, idx);
    }
    let per = planes.c * l;
    let outs = split_parts(out, &parts, per);
    let idxs: Vec<Option<&mut [i64]>> = match idx {
        Some(i) => split_parts(i, &parts, per).into_iter().map(Some).collect(),
        None => parts.iter().map(|_| None).collect(),
    };
    crate::threads::install(|| {
        parts
            .par_iter()
            .zip(outs)
            .zip(idxs)
            .for_each(|((&(n0, n1), o), i)| {
                let sub = Planes {
                    n: n1 - n0,
                    c: planes.c,
                };
                f(&from_image(img, n0), sub, o, i)
            });
    })
}

/// Max pooling into contiguous `out` and `idx` (planes, oh, ow); see
/// `max_pool2d_serial` for the NaN and tie rules.
pub fn max_pool2d<T: PoolElem>(
    x: &[T],
    img: &Image,
    planes: Planes,
    h: &Axis,
    w: &Axis,
    out: &mut [T],
    idx: &mut [i64],
) {
    let l = h.output * w.output;
    by_images(
        img,
        planes,
        (l, h.kernel * w.kernel),
        out,
        Some(idx),
        |im, p, o, i| {
            if let Some(i) = i {
                max_pool2d_serial(x, im, p, h, w, o, i);
            }
        },
    );
}

/// Average pooling into contiguous `out` (planes, oh, ow).
pub fn avg_pool2d<T: PoolElem>(
    x: &[T],
    img: &Image,
    planes: Planes,
    h: &Axis,
    w: &Axis,
    rule: AvgRule,
    out: &mut [T],
) {
    let l = h.output * w.output;
    by_images(
        img,
        planes,
        (l, h.kernel * w.kernel),
        out,
        None,
        |im, p, o, _| avg_pool2d_serial(x, im, p, h, w, rule, o),
    );
}

/// Scatters `gy` (contiguous (planes, l)) to the argmax positions into `gx`
/// (contiguous (planes, hw), zeroed). Returns false on an out-of-range index.
pub fn max_pool_backward<T: PoolElem>(
    gy: &[T],
    idx: &[i64],
    planes: usize,
    l: usize,
    hw: usize,
    gx: &mut [T],
) -> bool {
    let parts = batch_parts(planes, planes.saturating_mul(l.max(hw)) * 16);
    if parts.len() == 1 {
        return max_pool_backward_serial(gy, idx, planes, l, hw, gx);
    }
    if gy.len() < planes * l || idx.len() < planes * l {
        return false;
    }
    let chunks = split_parts(gx, &parts, hw);
    crate::threads::install(|| {
        parts
            .par_iter()
            .zip(chunks)
            .map(|(&(p0, p1), g)| {
                let (gy, idx) = (&gy[p0 * l..p1 * l], &idx[p0 * l..p1 * l]);
                max_pool_backward_serial(gy, idx, p1 - p0, l, hw, g)
            })
            .reduce(|| true, |a, b| a && b)
    })
}
