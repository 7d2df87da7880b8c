//! SIMD elementwise kernels with run-time CPU dispatch.
//!
//! The crate is compiled for the baseline CPU (a wheel must run everywhere); the vector
//! code lives in `#[target_feature]` functions, one set per instruction-set level, and
//! the best level the CPU supports is detected once and cached. Levels:
//!
//! | level      | lanes (f32/f64) | requires                   |
//! |------------|-----------------|----------------------------|
//! | `avx512f`  | 16 / 8          | x86-64 AVX-512F, AVX2, FMA |
//! | `avx2+fma` | 8 / 4           | x86-64 AVX2, FMA           |
//! | `neon`     | 4 / 2           | aarch64                    |
//! | `scalar`   | 1 / 1           | anything                   |
//!
//! `FERRIC_SIMD=scalar|avx2|avx512|neon` (read once) caps the level, e.g. to compare
//! paths or to work around a CPU problem; a level the CPU lacks falls back to the best
//! one it has below it.
//!
//! All levels run the same algorithms (`math32.rs`, `math64.rs`); the SIMD levels use
//! fused multiply-adds and give bit-identical results to each other. The scalar level
//! rounds products separately and may differ from them by an ULP or so (both stay within
//! the documented accuracy; see `tests.rs`).
//!
//! The AVX-512 intrinsics are stable since Rust 1.89, above the crate's declared
//! `rust-version` (1.85); raising that is left to the crate's owners because it turns
//! on newer lints in other files. Until then the MSRV lint is allowed in this module.
#![allow(clippy::incompatible_msrv)]

mod kernels;
mod math32;
mod math64;
#[cfg(target_arch = "aarch64")]
mod neon;
mod rows;
mod scalar;
#[cfg(test)]
mod tests;
mod vector;
pub mod welford;
#[cfg(target_arch = "x86_64")]
mod x86;

use kernels::Operand;
use std::sync::OnceLock;

/// Unary ops with vector kernels. float64 has all but `Tanh`, `Erf`, `Gelu`, `GeluTanh`
/// (callers fall back to the scalar library functions for those).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    Neg,
    Abs,
    Sqrt,
    Rsqrt,
    Square,
    Reciprocal,
    Relu,
    Exp,
    Log,
    Tanh,
    Sigmoid,
    Silu,
    Erf,
    Gelu,
    GeluTanh,
}

/// Binary arithmetic with vector kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
}

/// An instruction-set level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Scalar,
    Neon,
    Avx2,
    Avx512,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Neon => "neon",
            Level::Avx2 => "avx2+fma",
            Level::Avx512 => "avx512f",
        }
    }
}

/// Every level this CPU can run, best last (always starts with `Scalar`); detected once.
pub fn supported() -> &'static [Level] {
    static LEVELS: OnceLock<Vec<Level>> = OnceLock::new();
    LEVELS.get_or_init(|| {
        let mut v = vec![Level::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma");
            if avx2 {
                v.push(Level::Avx2);
                if std::arch::is_x86_feature_detected!("avx512f") {
                    v.push(Level::Avx512);
                }
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("neon") {
                v.push(Level::Neon);
            }
        }
        v
    })
}

/// What `FERRIC_SIMD` asked for, read once with the level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvCap {
    /// Unset, or empty / only whitespace.
    Unset,
    /// A level name (`value`, as given): the kernels use at most `level`.
    Cap { level: Level, value: String },
    /// A value that names no level (kept as given, for the warning); it caps nothing.
    Invalid(String),
}

/// Parses a `FERRIC_SIMD` value: `scalar`, `neon`, `avx2` (or `avx2+fma`), `avx512` (or
/// `avx512f`), case-insensitive, surrounding whitespace ignored.
pub fn parse_cap(value: Option<&str>) -> EnvCap {
    let Some(raw) = value else {
        return EnvCap::Unset;
    };
    let level = match raw.trim().to_ascii_lowercase().as_str() {
        "" => return EnvCap::Unset,
        "scalar" => Level::Scalar,
        "neon" => Level::Neon,
        "avx2" | "avx2+fma" => Level::Avx2,
        "avx512" | "avx512f" => Level::Avx512,
        _ => return EnvCap::Invalid(raw.to_string()),
    };
    EnvCap::Cap {
        level,
        value: raw.to_string(),
    }
}

/// The best level in `levels` (sorted, starting with `Scalar`) that `cap` allows.
fn capped(levels: &[Level], cap: &EnvCap) -> Level {
    let limit = match cap {
        EnvCap::Cap { level, .. } => *level,
        EnvCap::Unset | EnvCap::Invalid(_) => Level::Avx512,
    };
    levels
        .iter()
        .copied()
        .filter(|&l| l <= limit)
        .max()
        .unwrap_or(Level::Scalar)
}

/// The active level and the `FERRIC_SIMD` setting it was chosen under (read once).
fn choice() -> &'static (Level, EnvCap) {
    static CHOICE: OnceLock<(Level, EnvCap)> = OnceLock::new();
    CHOICE.get_or_init(|| {
        let cap = parse_cap(std::env::var("FERRIC_SIMD").ok().as_deref());
        (capped(supported(), &cap), cap)
    })
}

/// The level the kernels use: the best supported one, capped by `FERRIC_SIMD`.
pub fn active() -> Level {
    choice().0
}

/// The `FERRIC_SIMD` setting `active` was chosen under (the bindings warn about an
/// invalid one and `show_config` says when it capped the level).
pub fn env_cap() -> &'static EnvCap {
    &choice().1
}

#[cfg(test)]
mod env_cap_tests {
    use super::{capped, parse_cap, EnvCap, Level};

    fn cap(level: Level, value: &str) -> EnvCap {
        EnvCap::Cap {
            level,
            value: value.into(),
        }
    }

    #[test]
    fn ferric_simd_values_parse() {
        assert_eq!(parse_cap(None), EnvCap::Unset);
        assert_eq!(parse_cap(Some("  ")), EnvCap::Unset);
        assert_eq!(parse_cap(Some(" AVX2 ")), cap(Level::Avx2, " AVX2 "));
        assert_eq!(parse_cap(Some("avx2+fma")), cap(Level::Avx2, "avx2+fma"));
        assert_eq!(parse_cap(Some("avx512f")), cap(Level::Avx512, "avx512f"));
        assert_eq!(parse_cap(Some("scalar")), cap(Level::Scalar, "scalar"));
        assert_eq!(parse_cap(Some("sse")), EnvCap::Invalid("sse".into()));
    }

    #[test]
    fn a_cap_picks_the_best_level_at_or_below_it() {
        let x86 = [Level::Scalar, Level::Avx2, Level::Avx512];
        assert_eq!(capped(&x86, &EnvCap::Unset), Level::Avx512);
        assert_eq!(capped(&x86, &EnvCap::Invalid("x".into())), Level::Avx512);
        assert_eq!(capped(&x86, &cap(Level::Avx2, "avx2")), Level::Avx2);
        assert_eq!(capped(&x86, &cap(Level::Neon, "neon")), Level::Scalar);
        assert_eq!(
            capped(&x86[..2], &cap(Level::Avx512, "avx512")),
            Level::Avx2
        );
    }
}

/// The active level's name, e.g. `"avx2+fma"` (shown by `ferric.show_config()`).
pub fn level() -> &'static str {
    active().name()
}

/// A binary operand: a contiguous run (same length as the output) or one value.
#[derive(Clone, Copy)]
pub enum Arg<'a, T> {
    Slice(&'a [T]),
    Scalar(T),
}

/// Float types with vector kernels.
pub trait SimdFloat: Copy + Send + Sync + 'static {
    /// `dst[i] = op(src[i])` at `level` (or in place when `src` is None); false when the
    /// op has no vector kernel for this type or the CPU lacks the level (nothing written).
    fn unary_at(level: Level, op: Unary, src: Option<&[Self]>, dst: &mut [Self]) -> bool;
    /// `dst = a op b` at `level` (`a` = None means `dst` itself, for in-place ops);
    /// false when the CPU lacks the level (nothing written).
    fn binary_at(
        level: Level,
        op: Binary,
        a: Option<Arg<Self>>,
        b: Arg<Self>,
        dst: &mut [Self],
    ) -> bool;
    /// Softmax (`log`: log-softmax) of the consecutive rows of length `n` of `src` into
    /// `dst` at `level`; false when the lengths disagree or the CPU lacks the level
    /// (nothing written).
    fn softmax_rows_at(level: Level, src: &[Self], dst: &mut [Self], n: usize, log: bool) -> bool;
    /// The vector stage of PyTorch's row moments over the whole 256-bit vectors of `x`
    /// (see `welford`): each lane's mean and sum of squared deviations into `m1` and `m2`
    /// (8 lanes for f32, the first 4 for f64). False, with nothing written, when
    /// `level` is not an x86 level with AVX2+FMA.
    fn welford_lanes_at(level: Level, x: &[Self], m1: &mut [Self; 8], m2: &mut [Self; 8]) -> bool;
    /// An element count as this type (`n as f32` / `n as f64`).
    fn from_usize(n: usize) -> Self;
}

/// The source pointer of a unary kernel: `src`'s, or `dp` itself for an in-place op;
/// None when the lengths disagree.
fn unary_src<T>(src: Option<&[T]>, dp: *mut T, n: usize) -> Option<*const T> {
    match src {
        Some(s) if s.len() == n => Some(s.as_ptr()),
        Some(_) => None,
        None => Some(dp as *const T),
    }
}

fn operand<T: Copy>(a: Arg<T>, n: usize) -> Option<Operand<T>> {
    match a {
        Arg::Slice(s) if s.len() == n => Some(Operand::Ptr(s.as_ptr())),
        Arg::Slice(_) => None,
        Arg::Scalar(v) => Some(Operand::Splat(v)),
    }
}

/// Calls the entry point `$f` of `level`'s backend (the scalar one takes its token
/// first). Expands inside an `unsafe` block whose caller checked the level.
macro_rules! at_level {
    ($level:expr, $f:ident($($a:expr),*)) => {
        match $level {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => kernels::avx512::$f($($a),*),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => kernels::avx2::$f($($a),*),
            #[cfg(target_arch = "aarch64")]
            Level::Neon => kernels::neon::$f($($a),*),
            _ => kernels::$f(scalar::Scalar, $($a),*),
        }
    };
}

macro_rules! simd_float {
    ($t:ty, $unary:ident, $binary:ident, $softmax:ident, $welford:ident) => {
        impl SimdFloat for $t {
            fn unary_at(level: Level, op: Unary, src: Option<&[$t]>, dst: &mut [$t]) -> bool {
                let n = dst.len();
                let dp = dst.as_mut_ptr();
                let Some(sp) = unary_src(src, dp, n) else {
                    return false;
                };
                if !supported().contains(&level) {
                    return false;
                }
                // SAFETY: `sp` and `dp` cover n elements (checked above); the level's
                // instructions are supported (checked above).
                unsafe { at_level!(level, $unary(op, sp, dp, n)) }
            }

            fn binary_at(
                level: Level,
                op: Binary,
                a: Option<Arg<$t>>,
                b: Arg<$t>,
                dst: &mut [$t],
            ) -> bool {
                let n = dst.len();
                let dp = dst.as_mut_ptr();
                let a = match a {
                    Some(a) => operand(a, n),
                    None => Some(Operand::Ptr(dp as *const $t)),
                };
                let (Some(a), Some(b)) = (a, operand(b, n)) else {
                    return false;
                };
                if !supported().contains(&level) {
                    return false;
                }
                // SAFETY: as for `unary_at`.
                unsafe { at_level!(level, $binary(op, a, b, dp, n)) }
                true
            }

            fn softmax_rows_at(
                level: Level,
                src: &[$t],
                dst: &mut [$t],
                n: usize,
                log: bool,
            ) -> bool {
                let len = dst.len();
                if src.len() != len || n == 0 || len % n != 0 || !supported().contains(&level) {
                    return false;
                }
                let (sp, dp, rows) = (src.as_ptr(), dst.as_mut_ptr(), len / n);
                // SAFETY: both slices hold rows * n elements and cannot overlap (one is
                // borrowed mutably); the level's instructions are supported.
                unsafe { at_level!(level, $softmax(sp, dp, rows, n, log)) }
                true
            }

            fn welford_lanes_at(
                level: Level,
                x: &[$t],
                m1: &mut [$t; 8],
                m2: &mut [$t; 8],
            ) -> bool {
                #[cfg(target_arch = "x86_64")]
                if matches!(level, Level::Avx2 | Level::Avx512) && supported().contains(&level) {
                    // SAFETY: AVX-512 levels are detected only with AVX2+FMA present.
                    unsafe { welford::avx2::$welford(x, m1, m2) };
                    return true;
                }
                let _ = (level, x, m1, m2);
                false
            }

            #[inline(always)]
            fn from_usize(n: usize) -> $t {
                n as $t
            }
        }
    };
}
simd_float!(f32, unary_f32, binary_f32, softmax_rows_f32, lanes_f32);
simd_float!(f64, unary_f64, binary_f64, softmax_rows_f64, lanes_f64);

/// `dst[i] = op(src[i])` at the active level; false when there is no vector kernel.
pub fn unary<T: SimdFloat>(op: Unary, src: &[T], dst: &mut [T]) -> bool {
    T::unary_at(active(), op, Some(src), dst)
}

/// `buf[i] = op(buf[i])` at the active level; false when there is no vector kernel.
pub fn unary_inplace<T: SimdFloat>(op: Unary, buf: &mut [T]) -> bool {
    T::unary_at(active(), op, None, buf)
}

/// Softmax (`log`: log-softmax) of the consecutive rows of length `n` of `src` into
/// `dst` at the active level; false when the lengths disagree (nothing written).
pub fn softmax_rows<T: SimdFloat>(src: &[T], dst: &mut [T], n: usize, log: bool) -> bool {
    T::softmax_rows_at(active(), src, dst, n, log)
}

/// `dst = a op b` at the active level.
pub fn binary<T: SimdFloat>(op: Binary, a: Arg<T>, b: Arg<T>, dst: &mut [T]) -> bool {
    T::binary_at(active(), op, Some(a), b, dst)
}

/// `dst = dst op b` at the active level.
pub fn binary_inplace<T: SimdFloat>(op: Binary, dst: &mut [T], b: Arg<T>) -> bool {
    T::binary_at(active(), op, None, b, dst)
}
