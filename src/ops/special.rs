//! The special functions with a parameter (`polygamma(n, x)`, `mvlgamma(x, p)`,
//! `logit(x, eps)`); the one-argument ones are rows of the op table
//! (`crate::ops::table`). Integer and bool inputs compute in float32, as PyTorch's.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::special;
use crate::ops::unary::{map, map_float};
use crate::tensor::Tensor;

/// `polygamma(n, x)`, the n-th derivative of digamma.
pub fn polygamma(n: i64, x: &Tensor) -> Result<Tensor> {
    let n = u32::try_from(n)
        .map_err(|_| Error::runtime("polygamma", "polygamma(n, x) does not support negative n."))?;
    map_float(
        "polygamma",
        x,
        move |v| special::polygamma(n, f64::from(v)) as f32,
        move |v| special::polygamma(n, v),
    )
}

/// The multivariate log-gamma function of dimension `p`.
pub fn mvlgamma(x: &Tensor, p: i64) -> Result<Tensor> {
    if x.dtype() == DType::Bool {
        return Err(Error::runtime(
            "mvlgamma",
            "The input tensor may not be a boolean tensor.",
        ));
    }
    let p = u32::try_from(p)
        .ok()
        .filter(|&p| p >= 1)
        .ok_or_else(|| Error::runtime("mvlgamma", "p has to be greater than or equal to 1"))?;
    map_float(
        "mvlgamma",
        x,
        move |v| special::mvlgamma(f64::from(v), p) as f32,
        move |v| special::mvlgamma(v, p),
    )
}

/// `log(x / (1 - x))`, with `x` clamped to `[eps, 1 - eps]` when `eps` is given and not
/// negative; computed in the element type, as PyTorch's kernel.
pub fn logit(x: &Tensor, eps: Option<f64>) -> Result<Tensor> {
    match eps.filter(|e| *e >= 0.0) {
        None => map_float(
            "logit",
            x,
            |v: f32| (v / (1.0 - v)).ln(),
            |v: f64| (v / (1.0 - v)).ln(),
        ),
        Some(e) => {
            let (lo, hi) = (e, 1.0 - e);
            let (lo32, hi32) = (lo as f32, hi as f32);
            map_float(
                "logit",
                x,
                move |v: f32| {
                    let c = if v < lo32 {
                        lo32
                    } else if v > hi32 {
                        hi32
                    } else {
                        v
                    };
                    (c / (1.0 - c)).ln()
                },
                move |v: f64| {
                    let c = if v < lo {
                        lo
                    } else if v > hi {
                        hi
                    } else {
                        v
                    };
                    (c / (1.0 - c)).ln()
                },
            )
        }
    }
}

/// The factor logit's gradient is multiplied by outside its domain: 0 outside
/// `[eps, 1 - eps]` when `eps >= 0`, else NaN outside `[0, 1]`; 1 inside. In `x`'s
/// dtype.
pub fn logit_grad_scale(x: &Tensor, eps: Option<f64>) -> Result<Tensor> {
    let (lo, hi, outside) = match eps.filter(|e| *e >= 0.0) {
        Some(e) => (e, 1.0 - e, 0.0),
        None => (0.0, 1.0, f64::NAN),
    };
    let scale = crate::with_float_dtype!(
        x.dtype(),
        T,
        map::<T, f64>("logit_backward", x, move |v: T| {
            let v = crate::dtype::Element::to_f64(v);
            if v < lo || v > hi {
                outside
            } else {
                1.0
            }
        }),
        Err(Error::dtype_not_implemented("logit_backward", x.dtype()))
    )?;
    scale.to_dtype(x.dtype())
}
