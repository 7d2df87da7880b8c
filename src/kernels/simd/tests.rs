//! Accuracy proofs for the vector math: every level the machine supports is called
//! explicitly and compared with references computed in higher precision (float64 for
//! float32 results, double-double for float64 results), on dense sweeps, random bit
//! patterns and the edge cases (infinities, NaN, signed zeros, subnormals, the
//! overflow/underflow boundaries).

use super::{supported, Arg, Binary, Level, SimdFloat, Unary};

/// Distance from `got` to the exact value `want`, in ULPs of float32 at `want`
/// (subnormal ULP below the normal range). NaN matches NaN; infinities must match.
fn ulps32(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if (want as f32).is_infinite() || got.is_infinite() {
        return if got as f64 == want as f32 as f64 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let e = (want.abs() as f32).max(f32::MIN_POSITIVE).log2().floor() as i32;
    let ulp = 2f64.powi(e - 23);
    (got as f64 - want).abs() / ulp
}

/// As `ulps32` for a float64 result against a double-double `(hi, lo)`.
fn ulps64(got: f64, want: (f64, f64)) -> f64 {
    let (hi, lo) = want;
    if hi.is_nan() || got.is_nan() {
        return if hi.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if hi.is_infinite() || got.is_infinite() {
        return if got == hi { 0.0 } else { f64::INFINITY };
    }
    let e = hi.abs().max(f64::MIN_POSITIVE).log2().floor() as i32;
    // 2^(e-52), built from bits: powi underflows to 0 below 2^-1022
    let ulp = if e - 52 >= -1022 {
        f64::from_bits(((e - 52 + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e - 52 + 1074))
    };
    ((got - hi) - lo).abs() / ulp
}

/// xorshift64*: deterministic random bit patterns.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const EDGE32: [f32; 22] = [
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-45,
    -1e-45,
    1e-40,
    -1e-40,
    f32::MAX,
    f32::MIN,
    1.0,
    -1.0,
    88.722_83,
    88.722_84,
    -87.336_54,
    -103.972_08,
    -103.972_09,
    0.625,
    -0.625,
];

/// Dense sweep over [lo, hi], random bit patterns, and the edge cases.
fn inputs32(lo: f32, hi: f32) -> Vec<f32> {
    let dense = 200_000;
    let mut v: Vec<f32> = (0..=dense)
        .map(|i| lo + (hi - lo) * (i as f32 / dense as f32))
        .collect();
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    v.extend((0..100_000).map(|_| f32::from_bits(r.next() as u32)));
    v.extend(EDGE32);
    v
}

/// Runs `op` at `level` on `xs` (checking an odd length, so tails are covered too).
fn run32(level: Level, op: Unary, xs: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0f32; xs.len()];
    assert!(
        f32::unary_at(level, op, Some(xs), &mut out),
        "{op:?} at {level:?}"
    );
    out
}

fn sigmoid64(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The float64 reference of each float32 op.
fn ref32(op: Unary, x: f64) -> f64 {
    let s2 = std::f64::consts::FRAC_1_SQRT_2;
    match op {
        Unary::Exp => x.exp(),
        Unary::Log => x.ln(),
        Unary::Tanh => x.tanh(),
        Unary::Sigmoid => sigmoid64(x),
        Unary::Silu => x * sigmoid64(x),
        Unary::Erf => libm::erf(x),
        Unary::Gelu if x == f64::NEG_INFINITY => f64::NAN,
        Unary::Gelu => 0.5 * x * libm::erfc(-x * s2),
        Unary::GeluTanh if x == f64::INFINITY => x,
        Unary::GeluTanh if x == f64::NEG_INFINITY => f64::NAN,
        Unary::GeluTanh => {
            let c = (2.0 / std::f64::consts::PI).sqrt();
            x * sigmoid64(2.0 * c * (x + 0.044715 * x * x * x))
        }
        Unary::Neg => -x,
        Unary::Abs => x.abs(),
        Unary::Sqrt => x.sqrt(),
        Unary::Rsqrt => 1.0 / x.sqrt(),
        Unary::Square => x * x,
        Unary::Reciprocal => 1.0 / x,
        Unary::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
    }
}

/// The sweep range per op: where the function is not trivially saturated.
fn range32(op: Unary) -> (f32, f32) {
    match op {
        Unary::Exp => (-110.0, 95.0),
        Unary::Log => (0.0, 10.0),
        Unary::Tanh => (-12.0, 12.0),
        Unary::Sigmoid | Unary::Silu => (-110.0, 110.0),
        Unary::Erf => (-6.0, 6.0),
        Unary::Gelu | Unary::GeluTanh => (-20.0, 20.0),
        _ => (-1e3, 1e3),
    }
}

const ALL32: [Unary; 15] = [
    Unary::Exp,
    Unary::Log,
    Unary::Tanh,
    Unary::Sigmoid,
    Unary::Silu,
    Unary::Erf,
    Unary::Gelu,
    Unary::GeluTanh,
    Unary::Neg,
    Unary::Abs,
    Unary::Sqrt,
    Unary::Rsqrt,
    Unary::Square,
    Unary::Reciprocal,
    Unary::Relu,
];

#[test]
fn f32_within_4_ulp_at_every_level() {
    for &level in supported() {
        for op in ALL32 {
            let (lo, hi) = range32(op);
            let xs = inputs32(lo, hi);
            let got = run32(level, op, &xs);
            let mut worst = (0.0f64, 0.0f32);
            for (&x, &y) in xs.iter().zip(&got) {
                let mut want = ref32(op, x as f64);
                if op == Unary::Log && x == 0.0 {
                    want = f64::NEG_INFINITY;
                }
                let u = ulps32(y, want);
                if u > worst.0 {
                    worst = (u, x);
                }
                assert!(
                    u <= 4.0,
                    "{op:?} at {level:?}: x={x:e} got {y:e} want {want:e} ({u} ulp)"
                );
            }
            eprintln!(
                "{level:?} {op:?}: max {:.3} ulp at x={:e}",
                worst.0, worst.1
            );
        }
    }
}

#[test]
fn f32_edge_cases_exact() {
    let inf = f32::INFINITY;
    let cases: [(Unary, f32, f32); 22] = [
        (Unary::Exp, inf, inf),
        (Unary::Exp, -inf, 0.0),
        (Unary::Exp, 0.0, 1.0),
        (Unary::Exp, -0.0, 1.0),
        (Unary::Exp, 88.722_84, inf),
        (Unary::Exp, -104.0, 0.0),
        (Unary::Log, 0.0, -inf),
        (Unary::Log, -0.0, -inf),
        (Unary::Log, 1.0, 0.0),
        (Unary::Log, inf, inf),
        (Unary::Tanh, inf, 1.0),
        (Unary::Tanh, -inf, -1.0),
        (Unary::Sigmoid, inf, 1.0),
        (Unary::Sigmoid, -inf, 0.0),
        (Unary::Sigmoid, 0.0, 0.5),
        (Unary::Erf, inf, 1.0),
        (Unary::Erf, -inf, -1.0),
        (Unary::Gelu, inf, inf),
        (Unary::GeluTanh, inf, inf),
        (Unary::Relu, -1.0, 0.0),
        (Unary::Silu, inf, inf),
        (Unary::Rsqrt, inf, 0.0),
    ];
    for &level in supported() {
        for (op, x, want) in cases {
            let y = run32(level, op, &[x])[0];
            assert_eq!(y.to_bits(), want.to_bits(), "{op:?}({x}) at {level:?}: {y}");
        }
        // the sign of zero survives where PyTorch keeps it
        for op in [
            Unary::Tanh,
            Unary::Erf,
            Unary::Relu,
            Unary::Gelu,
            Unary::Silu,
        ] {
            let y = run32(level, op, &[-0.0])[0];
            assert_eq!(y.to_bits(), (-0.0f32).to_bits(), "{op:?}(-0) at {level:?}");
        }
        // NaN in, NaN out (also for the ops PyTorch defines as NaN at -inf)
        for op in ALL32 {
            assert!(run32(level, op, &[f32::NAN])[0].is_nan(), "{op:?}(NaN)");
        }
        for op in [Unary::Log, Unary::Sqrt] {
            assert!(run32(level, op, &[-1.0])[0].is_nan(), "{op:?}(-1)");
        }
        assert!(run32(level, Unary::Gelu, &[-inf])[0].is_nan());
        assert!(run32(level, Unary::Silu, &[-inf])[0].is_nan());
        // the subnormal range: exp just above its underflow, log of the smallest
        let y = run32(level, Unary::Exp, &[-100.0])[0];
        assert!(y > 0.0 && y < f32::MIN_POSITIVE);
        assert!(ulps32(y, (-100f64).exp()) <= 1.0);
        let y = run32(level, Unary::Log, &[1e-45])[0];
        assert!(ulps32(y, (1e-45f32 as f64).ln()) <= 1.0);
    }
}

#[test]
fn simd_levels_agree_with_each_other_and_with_scalar() {
    for op in ALL32 {
        let (lo, hi) = range32(op);
        let xs = inputs32(lo, hi);
        let base = run32(Level::Scalar, op, &xs);
        let mut first_simd: Option<Vec<f32>> = None;
        for &level in supported().iter().filter(|&&l| l != Level::Scalar) {
            let got = run32(level, op, &xs);
            for ((&x, &a), &b) in xs.iter().zip(&got).zip(&base) {
                // both sides are within 4 ULP of the truth (tested above); the
                // FMA-free scalar path rounds more often, so allow the same budget
                let u = ulps32(a, b as f64);
                assert!(
                    u <= 4.0,
                    "{op:?} {level:?} vs scalar at {x:e}: {a:e} vs {b:e}"
                );
            }
            match &first_simd {
                None => first_simd = Some(got),
                Some(prev) => {
                    let same = prev
                        .iter()
                        .zip(&got)
                        .all(|(p, g)| p.to_bits() == g.to_bits());
                    assert!(same, "{op:?}: SIMD levels differ");
                }
            }
        }
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn tails_and_in_place_match_full_vectors() {
    let xs: Vec<f32> = (0..97).map(|i| (i as f32 - 48.0) * 0.37).collect();
    for &level in supported() {
        for op in ALL32 {
            let full = run32(level, op, &xs);
            for n in [1, 3, 15, 17, 33, 64, 96] {
                let part = run32(level, op, &xs[..n]);
                assert_eq!(bits(&part), bits(&full[..n]), "{op:?} {level:?} n={n}");
            }
            let mut buf = xs.clone();
            assert!(f32::unary_at(level, op, None, &mut buf));
            assert_eq!(bits(&buf), bits(&full), "{op:?} in place at {level:?}");
        }
    }
}

#[test]
fn binary_ops_match_scalar_arithmetic() {
    let a: Vec<f32> = (0..101).map(|i| (i as f32 - 50.0) * 1.25).collect();
    let b: Vec<f32> = (0..101).map(|i| (i as f32) * 0.5 - 3.0).collect();
    type F = fn(f32, f32) -> f32;
    let ops: [(Binary, F); 4] = [
        (Binary::Add, |x, y| x + y),
        (Binary::Sub, |x, y| x - y),
        (Binary::Mul, |x, y| x * y),
        (Binary::Div, |x, y| x / y),
    ];
    for &level in supported() {
        for (op, f) in ops {
            let want: Vec<f32> = a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect();
            let mut out = vec![0.0; a.len()];
            assert!(f32::binary_at(
                level,
                op,
                Some(Arg::Slice(&a)),
                Arg::Slice(&b),
                &mut out
            ));
            assert_eq!(out, want);
            let want_vs: Vec<f32> = a.iter().map(|&x| f(x, 2.5)).collect();
            assert!(f32::binary_at(
                level,
                op,
                Some(Arg::Slice(&a)),
                Arg::Scalar(2.5),
                &mut out
            ));
            assert_eq!(out, want_vs);
            let want_sv: Vec<f32> = b.iter().map(|&y| f(2.5, y)).collect();
            assert!(f32::binary_at(
                level,
                op,
                Some(Arg::Scalar(2.5)),
                Arg::Slice(&b),
                &mut out
            ));
            assert_eq!(out, want_sv);
            let mut acc = a.clone();
            assert!(f32::binary_at(level, op, None, Arg::Slice(&b), &mut acc));
            assert_eq!(acc, want);
            // float64 too
            let a64: Vec<f64> = a.iter().map(|&x| x as f64).collect();
            let mut o64 = vec![0.0f64; a.len()];
            assert!(f64::binary_at(
                level,
                op,
                Some(Arg::Slice(&a64)),
                Arg::Scalar(3.0),
                &mut o64
            ));
            for (&x, &y) in a64.iter().zip(&o64) {
                let w = match op {
                    Binary::Add => x + 3.0,
                    Binary::Sub => x - 3.0,
                    Binary::Mul => x * 3.0,
                    Binary::Div => x / 3.0,
                };
                assert_eq!(y, w);
            }
        }
    }
    // length mismatches are refused, not read out of bounds
    let mut out = vec![0.0f32; 3];
    assert!(!f32::binary_at(
        Level::Scalar,
        Binary::Add,
        Some(Arg::Slice(&a)),
        Arg::Scalar(1.0),
        &mut out
    ));
    assert!(!f32::unary_at(
        Level::Scalar,
        Unary::Exp,
        Some(&a),
        &mut out
    ));
}

// ------------------------------------------------------------------ float64 via double-double

/// Double-double arithmetic (~106-bit significands) for float64 references.
#[derive(Clone, Copy)]
struct Dd(f64, f64);

impl Dd {
    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }
    fn add(self, o: Dd) -> Dd {
        let s = Dd::two_sum(self.0, o.0);
        let t = s.1 + self.1 + o.1;
        Dd::two_sum(s.0, t)
    }
    fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        let e = self.0.mul_add(o.0, -p);
        Dd::two_sum(p, e + self.0 * o.1 + self.1 * o.0)
    }
    fn scale(self, k: f64) -> Dd {
        Dd(self.0 * k, self.1 * k)
    }
    fn recip(self) -> Dd {
        // one Newton step on 1/x from the float64 guess
        let y = Dd(1.0 / self.0, 0.0);
        let r = Dd(1.0, 0.0).add(self.mul(y).scale(-1.0));
        y.add(y.mul(r))
    }
}

/// ln 2 as a double-double.
const LN2_DD: Dd = Dd(std::f64::consts::LN_2, 2.319_046_813_846_299_6e-17);

/// exp in double-double: x = n ln2 + r, then e^(r/1024) by Taylor, squared 10 times.
fn exp_dd(x: f64) -> (f64, f64) {
    exp_dd2(Dd(x, 0.0))
}

/// exp of a double-double argument.
fn exp_dd2(x: Dd) -> (f64, f64) {
    if x.0.is_nan() || x.0 > 709.8 || x.0 < -746.0 {
        let v = x.0.exp();
        return (v, 0.0);
    }
    let n = (x.0 / std::f64::consts::LN_2).round();
    let r = x.add(LN2_DD.mul(Dd(-n, 0.0))).scale(1.0 / 1024.0);
    let mut term = Dd(1.0, 0.0);
    let mut sum = Dd(1.0, 0.0);
    for k in 1..14 {
        term = term.mul(r).scale(1.0 / k as f64);
        sum = sum.add(term);
    }
    for _ in 0..10 {
        sum = sum.mul(sum);
    }
    // scale by 2^n in two steps so neither factor overflows or underflows early
    let h = (n / 2.0).trunc();
    let (a, b) = (2f64.powi(h as i32), 2f64.powi((n - h) as i32));
    let hi = sum.0 * a * b;
    let lo = sum.1 * a * b;
    (
        hi,
        if hi.is_finite() && hi.abs() > 1e-290 {
            lo
        } else {
            0.0
        },
    )
}

/// log in double-double: one Newton step y + x e^-y - 1 from the float64 log.
fn log_dd(x: f64) -> (f64, f64) {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return (x.ln(), 0.0);
    }
    // tiny x: log(x 2^128) - 128 ln2 keeps e^-y in range
    let (xs, shift) = if x < 1e-290 {
        (x * 2f64.powi(128), 128.0)
    } else {
        (x, 0.0)
    };
    let y = xs.ln();
    let e = exp_dd(-y);
    let t = Dd(xs, 0.0).mul(Dd(e.0, e.1)).add(Dd(-1.0, 0.0));
    let r = Dd(y, 0.0).add(t).add(LN2_DD.mul(Dd(-shift, 0.0)));
    (r.0, r.1)
}

fn sigmoid_dd(x: f64) -> (f64, f64) {
    let e = exp_dd(-x.abs());
    let d = Dd(1.0, 0.0).add(Dd(e.0, e.1)).recip();
    let r = if x >= 0.0 { d } else { Dd(e.0, e.1).mul(d) };
    (r.0, r.1)
}

/// x sigmoid(x); far left as -exp(x + log|x|) so that subnormal results stay exact.
fn silu_dd(x: f64) -> (f64, f64) {
    if x.is_infinite() {
        return (if x > 0.0 { x } else { f64::NAN }, 0.0);
    }
    if x < -700.0 {
        let l = log_dd(-x);
        let e = exp_dd2(Dd(x, 0.0).add(Dd(l.0, l.1)));
        return (-e.0, -e.1);
    }
    let s = sigmoid_dd(x);
    let p = Dd(s.0, s.1).mul(Dd(x, 0.0));
    (p.0, p.1)
}

fn inputs64(lo: f64, hi: f64) -> Vec<f64> {
    let dense = 100_000;
    let mut v: Vec<f64> = (0..=dense)
        .map(|i| lo + (hi - lo) * (i as f64 / dense as f64))
        .collect();
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    v.extend((0..50_000).map(|_| f64::from_bits(r.next())));
    v.extend([
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        709.782_712_893_384,
        709.782_712_893_385,
        -708.4,
        -745.133_219_101_941_1,
        -745.2,
        1.0,
    ]);
    v
}

#[test]
fn f64_within_4_ulp_of_double_double() {
    type R = fn(f64) -> (f64, f64);
    let ops: [(Unary, R, f64, f64); 4] = [
        (Unary::Exp, exp_dd, -750.0, 712.0),
        (Unary::Log, log_dd, 0.0, 10.0),
        (Unary::Sigmoid, sigmoid_dd, -750.0, 750.0),
        (Unary::Silu, silu_dd, -750.0, 750.0),
    ];
    for &level in supported() {
        for (op, reference, lo, hi) in ops {
            let xs = inputs64(lo, hi);
            let mut out = vec![0.0f64; xs.len()];
            assert!(f64::unary_at(level, op, Some(&xs), &mut out));
            let mut worst = (0.0f64, 0.0f64);
            for (&x, &y) in xs.iter().zip(&out) {
                let mut want = reference(x);
                if op == Unary::Log && x == 0.0 {
                    want = (f64::NEG_INFINITY, 0.0);
                }
                let u = ulps64(y, want);
                if u > worst.0 {
                    worst = (u, x);
                }
                assert!(
                    u <= 4.0,
                    "{op:?} at {level:?}: x={x:e} got {y:e} want {want:?} ({u} ulp)"
                );
            }
            eprintln!(
                "f64 {level:?} {op:?}: max {:.3} ulp at x={:e}",
                worst.0, worst.1
            );
        }
    }
}

#[test]
fn f64_ops_without_vector_kernels_say_so() {
    let mut out = [0.0f64; 4];
    for op in [Unary::Tanh, Unary::Erf, Unary::Gelu, Unary::GeluTanh] {
        assert!(!f64::unary_at(
            super::active(),
            op,
            Some(&[1.0; 4]),
            &mut out
        ));
    }
}
