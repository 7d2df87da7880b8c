//! Bit-exact scalar re-implementation of the float32 Box–Muller block PyTorch's CPU
//! `normal_` uses for contiguous float32 tensors with >= 16 elements
//! (`normal_fill_16_AVX2`, built on the Cephes-style `log256_ps`/`sincos256_ps`).
//!
//! PyTorch compiles that code with FMA contraction, so the exact rounding depends on
//! which multiply-adds the compiler fused. The fused steps below were read off the
//! instructions of the PyTorch 2.x x86-64 build and verified value-for-value against
//! `torch.randn` (millions of samples, several seeds). `mul_add` is a true fused
//! multiply-add in Rust on every target, so this is exact everywhere; the FMA-enabled
//! copy only makes it fast.

/// ln(x) for x in (0, 1], float32, exactly as `log256_ps` (as compiled) computes it.
#[inline(always)]
fn log_ps(x: f32) -> f32 {
    let invalid = x <= 0.0;
    let x = x.max(f32::from_bits(0x0080_0000)); // cut off denormals
    let exponent = (x.to_bits() >> 23) as i32 - 0x7f;
    let mut x = f32::from_bits((x.to_bits() & !0x7f80_0000) | 0.5f32.to_bits());
    let mut e = exponent as f32 + 1.0;
    // if x < sqrt(1/2): e -= 1, x = x + x - 1, else x = x - 1
    let small = x < std::f64::consts::FRAC_1_SQRT_2 as f32;
    let tmp = if small { x } else { 0.0 };
    x -= 1.0;
    if small {
        e -= 1.0;
    }
    x += tmp;
    let z = x * x;
    const P: [f32; 9] = [
        7.0376836292E-2f64 as f32,
        -1.1514610310E-1f64 as f32,
        1.1676998740E-1f64 as f32,
        -1.2420140846E-1f64 as f32,
        1.4249322787E-1f64 as f32,
        -1.6668057665E-1f64 as f32,
        2.0000714765E-1f64 as f32,
        -2.4999993993E-1f64 as f32,
        3.3333331174E-1f64 as f32,
    ];
    let mut y = P[0];
    for &p in &P[1..] {
        y = y.mul_add(x, p);
    }
    y *= x;
    y = y.mul_add(z, e * (-2.12194440e-4f64 as f32));
    y = (-z).mul_add(0.5, y);
    x += y;
    x = e.mul_add(0.693359375f64 as f32, x);
    if invalid {
        f32::NAN
    } else {
        x
    }
}

/// 4 / pi as the float32 constant of the original.
const FOPI: f32 = 1.27323954473516f64 as f32;

/// (sin x, cos x) for x >= 0 as `sincos256_ps` (as compiled) computes them.
#[inline(always)]
fn sincos_ps(x: f32) -> (f32, f32) {
    let sign_in = x.is_sign_negative();
    let mut x = x.abs();
    // j = (int(x * 4/pi) + 1) & ~1
    let j = (((x * FOPI) as i32).wrapping_add(1)) & !1;
    let y = j as f32;
    let swap_sin = j & 4 != 0;
    let poly_first = j & 2 == 0;
    // extended precision modular arithmetic: x = ((x - y*DP1) - y*DP2) - y*DP3
    x = y.mul_add(-0.785_156_25, x);
    x = y.mul_add(-2.418_756_484_985_351_6e-4_f64 as f32, x);
    x = y.mul_add(-3.774_894_977_445_941e-8_f64 as f32, x);
    let neg_cos = (!(j.wrapping_sub(2))) & 4 != 0;
    let neg_sin = sign_in ^ swap_sin;
    let z = x * x;
    let mut c = 2.443315711809948E-5f64 as f32;
    c = c.mul_add(z, -1.388731625493765E-3f64 as f32);
    c = c.mul_add(z, 4.166664568298827E-2f64 as f32);
    c *= z;
    c = c.mul_add(z, -(z * 0.5));
    c += 1.0;
    let mut s = -1.9515295891E-4f64 as f32;
    s = s.mul_add(z, 8.3321608736E-3f64 as f32);
    s = s.mul_add(z, -1.6666654611E-1f64 as f32);
    s *= z;
    s = x.mul_add(s, x);
    let (sin, cos) = if poly_first { (s, c) } else { (c, s) };
    (
        if neg_sin { -sin } else { sin },
        if neg_cos { -cos } else { cos },
    )
}

/// Turns 16 uniforms in [0, 1) into 16 normals in place: element j and j + 8 are the
/// cosine and sine halves of one Box–Muller pair.
#[inline(always)]
fn normal_fill_16_body(data: &mut [f32], mean: f32, std: f32) {
    let two_pi = (2.0 * std::f64::consts::PI) as f32;
    for j in 0..8 {
        let u1 = 1.0 - data[j];
        let u2 = data[j + 8];
        let radius = (log_ps(u1) * -2.0).sqrt();
        let theta = u2 * two_pi;
        let (s, c) = sincos_ps(theta);
        data[j] = (radius * c).mul_add(std, mean);
        data[j + 8] = (radius * s).mul_add(std, mean);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn normal_fill_fma(data: &mut [f32], mean: f32, std: f32) {
    for block in data.chunks_exact_mut(16) {
        normal_fill_16_body(block, mean, std);
    }
}

/// Applies the 16-wide transform to every full block of 16 in `data`.
pub fn normal_fill_blocks(data: &mut [f32], mean: f32, std: f32) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA (checked just above).
            unsafe { normal_fill_fma(data, mean, std) };
            return;
        }
    }
    for block in data.chunks_exact_mut(16) {
        normal_fill_16_body(block, mean, std);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_to_libm() {
        for i in 1..1000 {
            let x = i as f32 / 1000.0;
            assert!((log_ps(x) - x.ln()).abs() <= 2.0 * f32::EPSILON * x.ln().abs().max(1e-3));
            let t = x * 6.2;
            let (s, c) = sincos_ps(t);
            assert!((s - t.sin()).abs() < 1e-6 && (c - t.cos()).abs() < 1e-6);
        }
    }
}
