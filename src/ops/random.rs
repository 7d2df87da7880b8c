//! The random family: in-place samplers (`uniform_`, `normal_`, `random_`,
//! `bernoulli_`, `exponential_`) and `randperm`, `multinomial`, `normal` with tensor
//! parameters. Each one reproduces the draw order and transform of PyTorch's CPU kernels
//! (`aten/src/ATen/native/cpu/DistributionTemplates.h` and friends), so with the same
//! seed ferric produces PyTorch's numbers.
//!
//! Verified bit-identical against PyTorch 2.15 (x86-64, AVX512 build): `rand`/`uniform_`
//! (float32/float64, any bounds), `randn`/`normal_` (both dtypes, the 16-wide block path
//! for contiguous tensors with >= 16 elements and the cached scalar path otherwise,
//! including views), `randint`/`random_` (all range forms and dtypes), `bernoulli`
//! (scalar and tensor p), `exponential_`, `randperm`, `multinomial` (with and without
//! replacement), `normal(mean, std)` with tensor arguments, and `get_rng_state`.
//!
//! Elements are produced in memory order (the order PyTorch's TensorIterator visits an
//! output), so in-place sampling into a transposed view fills the underlying storage
//! sequentially, exactly as PyTorch does.

mod discrete;
pub mod generator;
mod mathfun;

pub use discrete::{multinomial, randperm};
pub use generator::Generator;

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::strided;
use crate::layout::Layout;
use crate::ops::binary::{binary_, BinaryOp, Operand};
use crate::shape::{broadcast_shapes, contiguous_strides};
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;

fn rt(msg: impl std::fmt::Display) -> Error {
    Error::runtime("", msg)
}

/// `"normal_kernel_cpu" not implemented for 'Long'` (NotImplementedError in PyTorch).
fn not_implemented(kernel: &str, d: DType) -> Error {
    Error::not_implemented(
        "",
        format!("\"{kernel}\" not implemented for '{}'", d.torch_name()),
    )
}

/// The C++ name PyTorch prints for a dtype inside messages (`float`, `long int`).
fn meta_name(d: DType) -> &'static str {
    d.cpp_name()
}

/// Formats a double like C++ `operator<<` (`%g` with 6 significant digits), which is
/// how PyTorch prints numbers inside error messages: `2`, `0.5`, `3e+38`.
pub fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{x:.5e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    }
}

/// The layout of `t` with dims ordered by decreasing stride: iterating it row-major
/// visits elements in memory order, like PyTorch's TensorIterator for an output.
fn memory_order(l: &Layout) -> Layout {
    l.permute(&memory_perm(l))
}

/// The dim permutation behind `memory_order` (a stable sort, so ties keep dim order).
fn memory_perm(l: &Layout) -> Vec<usize> {
    let mut dims: Vec<usize> = (0..l.ndim()).collect();
    dims.sort_by(|&a, &b| l.strides[b].cmp(&l.strides[a]));
    dims
}

/// Writes `vals` (given in memory order) into `t` through its layout.
fn write_in_order<T: Element>(t: &Tensor, vals: &[T]) {
    let l = memory_order(&t.layout);
    let src_strides = contiguous_strides(&l.shape);
    // SAFETY: T is t's dtype (callers dispatch on it); `vals` is a separate buffer.
    let d = unsafe { t.data_mut::<T>() };
    strided::zip_inplace(
        d,
        (&l.strides, l.offset),
        vals,
        (&src_strides, 0),
        &l.shape,
        |_, v| v,
    );
    t.storage.bump_version();
}

/// Fills `t` (any layout) with `next()` values produced in memory order.
fn fill_with<T: Element>(op: &str, t: &Tensor, mut next: impl FnMut() -> T) -> Result<()> {
    let mut vals = try_zeroed_vec::<T>(op, t.numel())?;
    vals.iter_mut().for_each(|v| *v = next());
    write_in_order(t, &vals);
    Ok(())
}

/// True when `x >= 0` fails (negative or NaN), the form PyTorch's checks take.
fn is_negative_or_nan(x: f64) -> bool {
    x.is_nan() || x < 0.0
}

fn float_bounds(d: DType) -> (f64, f64) {
    match d {
        DType::F32 => (f32::MIN as f64, f32::MAX as f64),
        DType::F16 => (half::f16::MIN.to_f64(), half::f16::MAX.to_f64()),
        DType::BF16 => (half::bf16::MIN.to_f64(), half::bf16::MAX.to_f64()),
        _ => (f64::MIN, f64::MAX),
    }
}

/// Mantissa digits of a floating dtype (`std::numeric_limits<T>::digits`).
fn float_digits(d: DType) -> u32 {
    match d {
        DType::F16 => 11,
        DType::BF16 => 8,
        DType::F32 => 24,
        _ => 53,
    }
}

/// `static_cast<T>(v)` of an integer into floating dtype `d` and back (through float,
/// as C++ converts into the half types).
fn round_int_to(d: DType, v: i64) -> i64 {
    match d {
        DType::F16 => half::f16::from_f32(v as f32).to_f32() as i64,
        DType::BF16 => half::bf16::from_f32(v as f32).to_f32() as i64,
        DType::F32 => v as f32 as i64,
        _ => v as f64 as i64,
    }
}

/// Fills a floating tensor with draws computed in double precision, each rounded to the
/// tensor's dtype as C++'s `static_cast<scalar_t>(double)` does (through float for the
/// half types). `kernel` names the kernel in the error for other dtypes.
fn fill_rounded(op: &str, kernel: &str, t: &Tensor, mut next: impl FnMut() -> f64) -> Result<()> {
    match t.dtype() {
        DType::F32 => fill_with(op, t, || next() as f32),
        DType::F64 => fill_with(op, t, next),
        DType::F16 => fill_with(op, t, || half::f16::from_f32(next() as f32)),
        DType::BF16 => fill_with(op, t, || half::bf16::from_f32(next() as f32)),
        d => Err(not_implemented(kernel, d)),
    }
}

/// `uniform_(from, to)`: 24 (float32) or 53 (float64) random bits scaled into
/// `[from, to)` as `x * (to - from) + from` (a fused multiply-add in PyTorch's build).
pub fn uniform_(t: &Tensor, from: f64, to: f64, g: &Generator) -> Result<()> {
    let d = t.dtype();
    if !d.is_float() {
        return Err(not_implemented("check_uniform_bounds", d));
    }
    let (min, max) = float_bounds(d);
    for (v, name) in [(from, "from"), (to, "to")] {
        if !(v >= min && v <= max) {
            return Err(rt(format!("{name} is out of bounds for {}", meta_name(d))));
        }
    }
    if from > to {
        return Err(rt(format!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            fmt_g(from),
            fmt_g(to)
        )));
    }
    if to - from > max {
        return Err(rt(format!(
            "uniform_ expects to-from <= std::numeric_limits<{}>::max(), but found to={} and \
             from={} which result in to-from to exceed the limit",
            d.torch_name(),
            fmt_g(to),
            fmt_g(from)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable("uniform_")?;
    let mut s = g.lock();
    match d {
        DType::F32 => {
            let (f, range) = (from as f32, to as f32 - from as f32);
            fill_with("uniform_", t, || s.unit_f32().mul_add(range, f))
        }
        DType::F16 | DType::BF16 => {
            // PyTorch draws the float32 value (24 random bits, `x * (to - from) + from`
            // fused) and rounds it to the half type; a value that rounds up to `to` is
            // replaced by `from`, keeping the range half-open
            let (f, range) = (from as f32, to as f32 - from as f32);
            let round = |v: f32| match d {
                DType::F16 => half::f16::from_f32(v).to_f32(),
                _ => half::bf16::from_f32(v).to_f32(),
            };
            let (lo, hi) = (round(f), round(to as f32));
            fill_rounded("uniform_", "uniform_kernel_cpu", t, || {
                let v = round(s.unit_f32().mul_add(range, f));
                f64::from(if v == hi { lo } else { v })
            })
        }
        _ => {
            let range = to - from;
            fill_with("uniform_", t, || s.unit_f64().mul_add(range, from))
        }
    }
}

/// `normal_(mean, std)`. Contiguous tensors with >= 16 elements use PyTorch's block
/// Box–Muller (all uniforms first, then 16 at a time; a ragged tail recomputes the last
/// 16 from fresh uniforms); everything else draws element by element through the
/// generator's cached-pair normal.
pub fn normal_(t: &Tensor, mean: f64, std: f64, g: &Generator) -> Result<()> {
    if is_negative_or_nan(std) {
        return Err(rt(format!(
            "normal expects std >= 0.0, but found std {}",
            fmt_g(std)
        )));
    }
    let d = t.dtype();
    if !d.is_float() {
        return Err(not_implemented("normal_kernel_cpu", d));
    }
    let n = t.numel();
    if n == 0 {
        return Ok(());
    }
    t.check_writable("normal_")?;
    let mut s = g.lock();
    if !d.is_compute() {
        // float16/bfloat16: PyTorch's element-wise double draws, rounded (its block
        // Box–Muller in half arithmetic for contiguous tensors of >= 16 elements is not
        // reproduced: those samples are valid normals but not PyTorch's stream)
        return fill_rounded("normal_", "normal_kernel_cpu", t, || {
            s.normal_f64(mean, std)
        });
    }
    if n >= 16 && t.is_contiguous() {
        let off = t.layout.offset;
        if d == DType::F32 {
            // SAFETY: f32 storage; no other slice of it is live during this call.
            let data = unsafe { &mut t.data_mut::<f32>()[off..off + n] };
            data.iter_mut().for_each(|x| *x = s.unit_f32());
            mathfun::normal_fill_blocks(data, mean as f32, std as f32);
            if !n.is_multiple_of(16) {
                let tail = &mut data[n - 16..];
                tail.iter_mut().for_each(|x| *x = s.unit_f32());
                mathfun::normal_fill_blocks(tail, mean as f32, std as f32);
            }
        } else {
            // SAFETY: f64 storage; no other slice of it is live during this call.
            let data = unsafe { &mut t.data_mut::<f64>()[off..off + n] };
            data.iter_mut().for_each(|x| *x = s.unit_f64());
            normal_fill_f64(data, mean, std);
            if !n.is_multiple_of(16) {
                let tail = &mut data[n - 16..];
                tail.iter_mut().for_each(|x| *x = s.unit_f64());
                normal_fill_f64(tail, mean, std);
            }
        }
        t.storage.bump_version();
        return Ok(());
    }
    if d == DType::F32 {
        fill_with("normal_", t, || s.normal_f64(mean, std) as f32)
    } else {
        fill_with("normal_", t, || s.normal_f64(mean, std))
    }
}

/// float64 block Box–Muller (PyTorch's generic `normal_fill_16`), on full blocks of 16.
fn normal_fill_f64(data: &mut [f64], mean: f64, std: f64) {
    let two_pi = 2.0 * std::f64::consts::PI;
    for b in data.chunks_exact_mut(16) {
        for j in 0..8 {
            let u1 = 1.0 - b[j];
            let u2 = b[j + 8];
            let radius = (-2.0 * u1.ln()).sqrt();
            let theta = two_pi * u2;
            b[j] = (radius * theta.cos()).mul_add(std, mean);
            b[j + 8] = (radius * theta.sin()).mul_add(std, mean);
        }
    }
}

/// PyTorch's `update_from`/`update_to`: nudges integer bounds that a floating dtype
/// cannot represent to the nearest representable value inside the range.
fn adjust_bound(v: i64, d: DType, digits: u32, upper: bool) -> i64 {
    let step = if upper {
        v.wrapping_sub(1)
    } else {
        v.wrapping_add(1)
    };
    let rounded = round_int_to(d, step);
    let outside = if upper { rounded >= v } else { rounded < v };
    if !outside {
        return v;
    }
    let mut mag = step.unsigned_abs();
    let mut n = 0i32;
    while mag > 1 {
        mag >>= 1;
        n += 1;
    }
    let shift = (n - digits as i32 + 1).max(0) as u32;
    if upper {
        rounded - (1i64 << shift)
    } else {
        rounded + (1i64 << shift)
    }
}

fn check_in_range(from: i64, to_inc: i64, d: DType) -> Result<()> {
    let (lo, hi) = match d {
        DType::Bool => (0.0, 1.0),
        DType::I64 => (i64::MIN as f64, i64::MAX as f64),
        _ => float_bounds(d),
    };
    for (v, name) in [(from, "from"), (to_inc, "to - 1")] {
        if !((v as f64) >= lo && (v as f64) <= hi) {
            return Err(rt(format!("{name} is out of bounds for {}", meta_name(d))));
        }
    }
    Ok(())
}

/// One value of `random_(from, to)`: `draw % range + from`. PyTorch (2.x, open-source
/// builds) switches to a 64-bit draw from a range of 2^28 up, for every dtype, to bound
/// the modulo skew.
fn from_to_value(s: &mut generator::GenState, range: u64, base: i64) -> i64 {
    let v = if range >= 1 << 28 {
        s.random64()
    } else {
        s.random() as u64
    };
    (v % range).wrapping_add(base as u64) as i64
}

fn fill_ints(op: &str, t: &Tensor, mut next: impl FnMut() -> i64) -> Result<()> {
    crate::with_dtype!(t.dtype(), T, fill_with(op, t, || T::from_i64(next())))
}

/// `random_(from, to)`: integers in `[from, to)`; with `to = None`, in `[from, max]`
/// where max is the dtype's largest value (2^mantissa for floats).
pub fn random_from_to_(t: &Tensor, from: i64, to: Option<i64>, g: &Generator) -> Result<()> {
    let d = t.dtype();
    let digits = float_digits(d);
    let (from, range) = match to {
        Some(to) => {
            if from >= to {
                return Err(rt(format!(
                    "random_ expects 'from' to be less than 'to', but got from={from} >= to={to}"
                )));
            }
            let (mut f, mut tt) = (from, to);
            if d.is_float() {
                f = adjust_bound(f, d, digits, false);
                tt = adjust_bound(tt, d, digits, true);
                if f >= tt {
                    return Err(rt(format!(
                        "random_ expects 'from' casted to dtype to be less than 'to' casted to \
                         dtype, but got from={f} >= to={tt}"
                    )));
                }
            }
            check_in_range(f, tt - 1, d)?;
            (f, (tt as u64).wrapping_sub(f as u64))
        }
        None if from != i64::MIN => {
            let mut f = from;
            let to_inc = match d {
                DType::Bool => 1,
                DType::I64 => i64::MAX,
                _ => {
                    f = adjust_bound(f, d, digits, false);
                    let to_inc = 1i64 << digits;
                    if f >= to_inc {
                        return Err(rt(format!(
                            "random_ expects 'from' casted to dtype to be less than or equal to \
                             'to_inc' casted to dtype, but got from={f} > to_inc={to_inc}"
                        )));
                    }
                    to_inc
                }
            };
            check_in_range(f, to_inc, d)?;
            (f, (to_inc as u64).wrapping_sub(f as u64).wrapping_add(1))
        }
        None => {
            // the full int64 range: every 64-bit draw is a value
            if d == DType::Bool {
                return Err(not_implemented("random_full_64_bits_range_kernel_cpu", d));
            }
            if t.numel() == 0 {
                return Ok(());
            }
            t.check_writable("random_")?;
            let mut s = g.lock();
            return fill_ints("random_", t, || s.random64() as i64);
        }
    };
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable("random_")?;
    let mut s = g.lock();
    fill_ints("random_", t, || from_to_value(&mut s, range, from))
}

/// `random_()` with no bounds: `[0, max]` for integers, `[0, 2^mantissa]` for floats,
/// `{0, 1}` for bool.
pub fn random_(t: &Tensor, g: &Generator) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable("random_")?;
    let mut s = g.lock();
    match t.dtype() {
        DType::Bool => fill_with("random_", t, || s.random() & 1 == 1),
        DType::I64 => fill_with("random_", t, || (s.random64() % (1u64 << 63)) as i64),
        DType::F32 => fill_with("random_", t, || {
            (s.random() as u64 % ((1 << 24) + 1)) as f32
        }),
        DType::F64 => fill_with("random_", t, || (s.random64() % ((1 << 53) + 1)) as f64),
        // the narrower types draw 32 bits, modulo `max + 1` (PyTorch's rule for ranges
        // below 2^32)
        DType::U8 => fill_with("random_", t, || (s.random() % 256) as u8),
        DType::I8 => fill_with("random_", t, || (s.random() % 128) as i8),
        DType::I16 => fill_with("random_", t, || (s.random() % 32768) as i16),
        DType::I32 => fill_with("random_", t, || (s.random() as u64 % (1u64 << 31)) as i32),
        DType::F16 => fill_with("random_", t, || {
            half::f16::from_f32((s.random() % ((1 << 11) + 1)) as f32)
        }),
        DType::BF16 => fill_with("random_", t, || {
            half::bf16::from_f32((s.random() % ((1 << 8) + 1)) as f32)
        }),
    }
}

fn bernoulli_fill(t: &Tensor, mut hit: impl FnMut() -> bool) -> Result<()> {
    crate::with_dtype!(
        t.dtype(),
        T,
        fill_with("bernoulli_", t, || T::from_bool(hit()))
    )
}

/// `bernoulli_(p)` with a scalar probability: `u < p` for a 53-bit uniform `u`.
pub fn bernoulli_scalar_(t: &Tensor, p: f64, g: &Generator) -> Result<()> {
    if !(0.0..=1.0).contains(&p) {
        return Err(rt(format!(
            "bernoulli_ expects p to be in [0, 1], but got p={}",
            fmt_g(p)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable("bernoulli_")?;
    let mut s = g.lock();
    bernoulli_fill(t, || s.unit_f64() < p)
}

/// `bernoulli_(p)` with a probability tensor broadcast to `t`: float64 probabilities use
/// 53-bit uniforms, float32 ones 24-bit uniforms.
pub fn bernoulli_tensor_(t: &Tensor, p: &Tensor, g: &Generator) -> Result<()> {
    let pd = p.dtype();
    if !pd.is_float() {
        return Err(not_implemented("bernoulli_tensor_cpu_p_", pd));
    }
    let pl = p
        .layout
        .broadcast_to(t.shape())
        .map_err(|e| rt(e.msg.trim_start_matches("expand: ")))?;
    // Read p in t's memory order; validate before touching the generator or `t`.
    let probs = p
        .with_layout(pl.permute(&memory_perm(&t.layout)))?
        .to_vec::<f64>()?;
    if probs.iter().any(|&q| !(0.0..=1.0).contains(&q)) {
        return Err(rt(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error \
             message be improved?  If so, please report an enhancement request to PyTorch.)",
        ));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable("bernoulli_")?;
    let mut s = g.lock();
    let mut it = probs.into_iter();
    if pd == DType::F64 {
        bernoulli_fill(t, || s.unit_f64() < it.next().unwrap_or(0.0))
    } else {
        bernoulli_fill(t, || s.unit_f32() < it.next().unwrap_or(0.0) as f32)
    }
}

/// `exponential_(lambd)`: `-1/lambd * log1p(-u)` for a 53-bit uniform `u`.
pub fn exponential_(t: &Tensor, lambd: f64, g: &Generator) -> Result<()> {
    let d = t.dtype();
    if !d.is_float() {
        return Err(rt(format!(
            "Exponential distribution is a continuous probability distribution. dtype must be a \
             floating point but you specified {}",
            d.torch_name()
        )));
    }
    if lambd.is_nan() || lambd <= 0.0 {
        return Err(rt(format!(
            "exponential_ expects lambda > 0.0, but found lambda={}",
            fmt_g(lambd)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable("exponential_")?;
    let mut s = g.lock();
    let scale = -1.0 / lambd;
    fill_rounded("exponential_", "exponential_cpu", t, || {
        scale * (-s.unit_f64()).ln_1p()
    })
}

/// Fills a floating tensor with `f(draw)` values computed in double precision (the
/// per-element serial kernels of `cauchy_`, `log_normal_` and friends).
fn fill_float(op: &str, t: &Tensor, next: impl FnMut() -> f64) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable(op)?;
    let kernel = format!("{}_cpu", op.trim_end_matches('_'));
    fill_rounded(op, &kernel, t, next)
}

/// `cauchy_(median, sigma)`: `median + sigma * tan(pi * (u - 0.5))`.
pub fn cauchy_(t: &Tensor, median: f64, sigma: f64, g: &Generator) -> Result<()> {
    if sigma.is_nan() || sigma <= 0.0 {
        return Err(rt(format!(
            "cauchy_ expects sigma > 0.0, but found sigma={}",
            fmt_g(sigma)
        )));
    }
    if !t.dtype().is_float() {
        return Err(rt(format!(
            "Cauchy distribution is a continuous probability distribution. dtype must be a \
             floating point but you specified {}",
            meta_name(t.dtype())
        )));
    }
    let mut s = g.lock();
    fill_float("cauchy_", t, || {
        let u = s.unit_f64();
        sigma.mul_add((std::f64::consts::PI * (u - 0.5)).tan(), median)
    })
}

/// `log_normal_(mean, std)`: `exp` of the cached-pair scalar normal.
pub fn log_normal_(t: &Tensor, mean: f64, std: f64, g: &Generator) -> Result<()> {
    if std.is_nan() || std <= 0.0 {
        return Err(rt(format!(
            "log_normal_ expects std > 0.0, but found std={}",
            fmt_g(std)
        )));
    }
    if !t.dtype().is_float() {
        return Err(not_implemented("log_normal_cpu", t.dtype()));
    }
    let mut s = g.lock();
    fill_float("log_normal_", t, || s.normal_f64(mean, std).exp())
}

/// `geometric_(p)`: the number of Bernoulli(p) trials up to the first success,
/// `ceil(log(u) / log(1 - p))`; any dtype.
pub fn geometric_(t: &Tensor, p: f64, g: &Generator) -> Result<()> {
    if !(p > 0.0 && p < 1.0) {
        return Err(rt(format!(
            "geometric_ expects p to be in (0, 1), but got p={}",
            fmt_g(p)
        )));
    }
    if t.dtype() == DType::Bool {
        return Err(not_implemented("geometric_cpu", DType::Bool));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    t.check_writable("geometric_")?;
    let mut s = g.lock();
    let denom = (1.0 - p).ln();
    fill_ints("geometric_", t, || {
        (s.unit_f64().ln() / denom).ceil() as i64
    })
}

/// `normal(mean, std)` with tensor arguments: samples N(0, 1) (or N(0, std) for a float
/// std) into a tensor of the broadcast shape, then scales and shifts it in place exactly
/// as PyTorch does (`output.mul_(std).add_(mean)`).
pub fn normal_tensors(mean: Operand, std: Operand, g: &Generator) -> Result<Tensor> {
    let (dtype, shape) = match (&mean, &std) {
        (Operand::T(m), Operand::T(s)) => (m.dtype(), broadcast_shapes(m.shape(), s.shape())?),
        (Operand::T(m), Operand::S(_)) => (m.dtype(), m.shape().into()),
        (Operand::S(_), Operand::T(s)) => (s.dtype(), s.shape().into()),
        (Operand::S(_), Operand::S(_)) => {
            return Err(Error::type_("normal", "expected a tensor mean or std"))
        }
    };
    match std {
        Operand::S(s) => {
            if is_negative_or_nan(s.to_f64()) {
                return Err(rt(format!(
                    "normal expects std >= 0.0, but found std {}",
                    fmt_g(s.to_f64())
                )));
            }
        }
        Operand::T(st) => {
            if st.to_vec::<f64>()?.into_iter().any(is_negative_or_nan) {
                return Err(rt("normal expects all elements of std >= 0.0"));
            }
        }
    }
    let out = Tensor::zeros("normal", &shape, dtype)?;
    match std {
        Operand::S(s) => normal_(&out, 0.0, s.to_f64(), g)?,
        Operand::T(_) => {
            normal_(&out, 0.0, 1.0, g)?;
            binary_(BinaryOp::Mul, &out, std)?;
        }
    }
    binary_(BinaryOp::Add, &out, mean)?;
    Ok(out)
}

/// `torch.bernoulli(input)`: a new tensor of `input`'s dtype and shape with each element
/// 1 with probability `input[i]`.
pub fn bernoulli(input: &Tensor, g: &Generator) -> Result<Tensor> {
    let out = Tensor::zeros("bernoulli", input.shape(), input.dtype())?;
    bernoulli_tensor_(&out, input, g)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cxx_number_format() {
        assert_eq!(fmt_g(2.0), "2");
        assert_eq!(fmt_g(-1.0), "-1");
        assert_eq!(fmt_g(1.5), "1.5");
        assert_eq!(fmt_g(3e38), "3e+38");
        assert_eq!(fmt_g(0.0001), "0.0001");
        assert_eq!(fmt_g(0.00001), "1e-05");
        assert_eq!(fmt_g(123456.0), "123456");
        assert_eq!(fmt_g(1234567.0), "1.23457e+06");
        assert_eq!(fmt_g(0.1), "0.1");
    }

    #[test]
    fn memory_order_of_transpose() {
        let l = Layout::contiguous(&[2, 3]).transpose(0, 1);
        let m = memory_order(&l);
        assert_eq!(m.shape.as_slice(), &[2, 3]);
        assert_eq!(m.strides.as_slice(), &[3, 1]);
    }

    #[test]
    fn seeded_values_match_pytorch() {
        // torch.manual_seed(0); torch.randint(0, 10, (8,))
        let g = Generator::new();
        g.manual_seed(0);
        let t = Tensor::zeros("t", &[8], DType::I64).unwrap();
        random_from_to_(&t, 0, Some(10), &g).unwrap();
        assert_eq!(t.to_vec::<i64>().unwrap(), [4, 9, 3, 0, 3, 9, 7, 3]);
    }

    #[test]
    fn samplers_write_views_in_memory_order_and_bump_version() {
        let g = Generator::new();
        let base = Tensor::zeros("t", &[2, 3], DType::F32).unwrap();
        let v0 = base.storage.version();
        // the transpose is filled in memory order, so the base reads like rand(6)
        let tr = base.with_layout(base.layout.transpose(0, 1)).unwrap();
        g.manual_seed(0);
        uniform_(&tr, 0.0, 1.0, &g).unwrap();
        assert!(base.storage.version() > v0);
        g.manual_seed(0);
        let flat = Tensor::zeros("t", &[6], DType::F32).unwrap();
        uniform_(&flat, 0.0, 1.0, &g).unwrap();
        assert_eq!(base.to_vec::<f32>().unwrap(), flat.to_vec::<f32>().unwrap());
        // a failed call leaves the tensor and its version alone
        let v1 = base.storage.version();
        assert!(normal_(&base, 0.0, -1.0, &g).is_err());
        assert_eq!(base.storage.version(), v1);
    }

    #[test]
    fn float_bounds_adjust_like_pytorch() {
        // to - 1 = 2^25 + 6 rounds up to 2^25 + 8 in float32, so `to` moves down
        assert_eq!(
            adjust_bound((1 << 25) + 7, DType::F32, 24, true),
            (1 << 25) + 4
        );
        assert_eq!(adjust_bound(10, DType::F32, 24, true), 10);
        assert_eq!(
            adjust_bound(-((1 << 25) + 7), DType::F32, 24, false),
            -((1 << 25) + 4)
        );
    }
}
