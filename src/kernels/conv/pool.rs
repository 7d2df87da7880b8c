//! Pooling kernels: max (with PyTorch's flattened `h * W + w` argmax indices), average
//! (PyTorch's divisor rules) and adaptive average / max, with their backward scatters.
//!
//! Inputs are a batch of planes read through strides ([`Image`] with N x C planes);
//! outputs and gradients are contiguous (planes, oh, ow) / (planes, H, W).

use super::{Axis, Image};
use crate::kernels::matmul::MatElem;

/// Element types the pooling kernels support (float32, float64, int64).
pub trait PoolElem: MatElem {
    fn is_nan(self) -> bool;
    /// The start value of a max reduction (-inf, or the smallest integer).
    fn lowest() -> Self;
    /// `self / n` (truncating for integers, like PyTorch's integer average pool).
    fn div_count(self, n: i64) -> Self;
}

macro_rules! float_pool {
    ($t:ty) => {
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
        }
    };
}
float_pool!(f32);
float_pool!(f64);

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
/// of a window is reported), like PyTorch's CPU kernel.
pub fn max_pool2d<T: PoolElem>(
    x: &[T],
    img: &Image,
    planes: Planes,
    h: &Axis,
    w: &Axis,
    out: &mut [T],
    idx: &mut [i64],
) {
    let [_, _, sh, sw] = img.strides;
    let l = h.output * w.output;
    let wins: Vec<(usize, usize)> = (0..w.output).map(|o| max_window(w, o)).collect();
    for p in 0..planes.count() {
        let base = planes.base(img, p);
        for oh in 0..h.output {
            let (hs, he) = max_window(h, oh);
            for (ow, &(ws, we)) in wins.iter().enumerate() {
                let mut best = T::lowest();
                let mut at = (hs * w.input + ws) as i64;
                for ih in (hs..he).step_by(h.dilation) {
                    let row = base + ih * sh;
                    for iw in (ws..we).step_by(w.dilation) {
                        let v = x[row + iw * sw];
                        if v > best || v.is_nan() {
                            best = v;
                            at = (ih * w.input + iw) as i64;
                        }
                    }
                }
                let o = p * l + oh * w.output + ow;
                out[o] = best;
                idx[o] = at;
            }
        }
    }
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
pub fn avg_pool2d<T: PoolElem>(
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
                            let v = x[base + r * sh + c * sw];
                            if v > best || v.is_nan() {
                                best = v;
                                at = (r * iw + c) as i64;
                            }
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
