//! Discrete samplers: `randperm` and `multinomial`, with PyTorch's algorithms (and so
//! its exact draws).

use super::{exponential_, is_negative_or_nan, not_implemented, rt, Generator};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::ops::binary::{binary, BinaryOp, Operand};
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;

/// `randperm(n)`: PyTorch's swap-based shuffle with 32-bit draws (64-bit draws and the
/// inside-out variant for huge n).
pub fn randperm(n: i64, dtype: DType, g: &Generator) -> Result<Tensor> {
    if n < 0 {
        return Err(rt(format!(
            "Trying to create tensor with negative dimension {n}: [{n}]"
        )));
    }
    if dtype == DType::Bool {
        return Err(not_implemented("randperm", dtype));
    }
    if dtype == DType::F32 && n > (1 << 24) + 1 {
        return Err(rt(format!(
            "n is too large for result tensor type: '{}'",
            dtype.torch_name()
        )));
    }
    let n = n as usize;
    let mut v = try_zeroed_vec::<i64>("randperm", n)?;
    let mut s = g.lock();
    if (n as u64) < (u32::MAX / 20) as u64 {
        v.iter_mut().enumerate().for_each(|(i, x)| *x = i as i64);
        for i in 0..n.saturating_sub(1) {
            let z = s.random() as usize % (n - i);
            v.swap(i, z + i);
        }
    } else {
        for i in 0..n {
            let z = (s.random64() % (i as u64 + 1)) as usize;
            v[i] = v[z];
            v[z] = i as i64;
        }
    }
    drop(s);
    Tensor::from_vec(v, &[n])?.to_dtype(dtype)
}

/// `multinomial(input, num_samples, replacement)` over the last dim of a 1-D or 2-D
/// probability tensor.
pub fn multinomial(
    input: &Tensor,
    n_sample: i64,
    replacement: bool,
    g: &Generator,
) -> Result<Tensor> {
    if input.ndim() == 0 || input.ndim() > 2 {
        return Err(rt("prob_dist must be 1 or 2 dim"));
    }
    let d = input.dtype();
    if !d.is_float() {
        return Err(rt(format!(
            "multinomial only supports floating-point dtypes for input, got: {}",
            d.torch_name()
        )));
    }
    if n_sample <= 0 {
        return Err(rt("cannot sample n_sample <= 0 samples"));
    }
    let n_cat = input.shape()[input.ndim() - 1];
    if !replacement && n_sample as u64 > n_cat as u64 {
        return Err(rt(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
        ));
    }
    if n_cat > 1 << 24 {
        return Err(rt("number of categories cannot exceed 2^24"));
    }
    let n_sample = n_sample as usize;
    let n_dist = if input.ndim() == 2 {
        input.shape()[0]
    } else {
        1
    };
    let out_shape: Vec<usize> = if input.ndim() == 1 {
        vec![n_sample]
    } else {
        vec![n_dist, n_sample]
    };
    crate::shape::checked_numel("multinomial", &out_shape)?;
    if n_dist == 0 {
        return Tensor::zeros("multinomial", &out_shape, DType::I64);
    }
    if n_cat == 0 {
        return Err(rt(if n_sample == 1 {
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no \
             identity."
        } else {
            "invalid multinomial distribution (sum of probabilities <= 0)"
        }));
    }
    let rows = input.to_vec::<f64>()?;
    if !replacement || n_sample == 1 {
        if rows.iter().any(|&p| !(0.0..f64::INFINITY).contains(&p)) {
            return Err(rt(
                "probability tensor contains either `inf`, `nan` or element < 0",
            ));
        }
        if rows
            .chunks(n_cat.max(1))
            .any(|r| r.iter().all(|&p| p == 0.0))
        {
            return Err(rt(
                "invalid multinomial distribution (sum of probabilities <= 0)",
            ));
        }
        // Gumbel-style trick: the top-k of p / q with q ~ Exp(1) samples without
        // replacement. q is drawn for the whole tensor first, in input's dtype.
        let q = Tensor::zeros("multinomial", input.shape(), d)?;
        exponential_(&q, 1.0, g)?;
        let keys = binary(BinaryOp::Div, Operand::T(input), Operand::T(&q))?.to_vec::<f64>()?;
        let mut out = sample_buffer(n_dist, n_sample)?;
        for r in keys.chunks(n_cat) {
            let mut idx: Vec<usize> = (0..n_cat).collect();
            // descending by key; NaN first (as the largest), ties keep index order
            idx.sort_by(|&a, &b| {
                let (x, y) = (r[a], r[b]);
                y.partial_cmp(&x)
                    .unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()).reverse())
            });
            out.extend(idx[..n_sample].iter().map(|&i| i as i64));
        }
        return Tensor::from_vec(out, &out_shape);
    }
    let mut s = g.lock();
    let mut out = sample_buffer(n_dist, n_sample)?;
    for row in rows.chunks(n_cat) {
        let cum = if d == DType::F32 {
            cumulative::<f32>(row)?
        } else {
            cumulative::<f64>(row)?
        };
        for _ in 0..n_sample {
            let u = s.unit_f64();
            // first slot whose cumulative probability is >= u
            let (mut lo, mut hi) = (0usize, n_cat);
            while hi > lo {
                let mid = lo + (hi - lo) / 2;
                if cum[mid] < u {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            out.push(lo as i64);
        }
    }
    Tensor::from_vec(out, &out_shape)
}

/// Normalised cumulative distribution in the input's precision (as PyTorch computes
/// it), returned as f64 for comparisons; the last bucket is forced to 1.
fn cumulative<T>(row: &[f64]) -> Result<Vec<f64>>
where
    T: Element + std::ops::Add<Output = T> + std::ops::Div<Output = T>,
{
    let mut sum = T::default();
    let mut cum = Vec::with_capacity(row.len());
    for &p in row {
        let v = T::from_f64(p);
        if is_negative_or_nan(v.to_f64()) {
            return Err(rt(
                "invalid multinomial distribution (encountering probability entry < 0)",
            ));
        }
        if !v.to_f64().is_finite() {
            return Err(rt(
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)",
            ));
        }
        sum = sum + v;
        cum.push(sum);
    }
    if sum.to_f64().is_nan() || sum.to_f64() <= 0.0 {
        return Err(rt(
            "invalid multinomial distribution (sum of probabilities <= 0)",
        ));
    }
    let mut out: Vec<f64> = cum.into_iter().map(|c| (c / sum).to_f64()).collect();
    if let Some(last) = out.last_mut() {
        *last = 1.0;
    }
    Ok(out)
}

/// Room for `n_dist * n_sample` indices, allocated fallibly: the sample count is the
/// user's (with replacement it has no bound).
fn sample_buffer(n_dist: usize, n_sample: usize) -> Result<Vec<i64>> {
    let total = crate::shape::checked_numel("multinomial", &[n_dist, n_sample])?;
    let mut out = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| crate::storage::too_big::<i64>("multinomial", total))?;
    Ok(out)
}
