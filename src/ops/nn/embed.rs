//! Embedding lookup (a row gather) with its scatter-add backward, and dropout noise.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::reduce::Num;
use crate::ops::random::generator::Generator;
use crate::shape::Dims;
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;

/// PyTorch's legacy tensor-type name in the embedding dtype message.
fn legacy_name(d: DType) -> String {
    format!("torch.{}", d.tensor_type_name())
}

/// Checks the embedding arguments; returns the indices as a flat vector.
fn check(weight: &Tensor, indices: &Tensor) -> Result<Vec<i64>> {
    if !matches!(indices.dtype(), DType::I64 | DType::I32) {
        return Err(Error::runtime(
            "",
            format!(
                "Expected tensor for argument #1 'indices' to have one of the following scalar \
                 types: Long, Int; but got {} instead (while checking arguments for embedding)",
                legacy_name(indices.dtype())
            ),
        ));
    }
    if weight.ndim() != 2 {
        return Err(Error::runtime("", "'weight' must be 2-D"));
    }
    let idx = indices.to_vec::<i64>()?;
    let v = weight.shape()[0] as i64;
    if idx.iter().any(|&i| i < 0 || i >= v) {
        return Err(Error::index("", "index out of range in self"));
    }
    Ok(idx)
}

/// `weight[indices]`: rows of the `(V, D)` weight, shape `indices.shape + [D]`.
pub fn embedding_forward(weight: &Tensor, indices: &Tensor) -> Result<Tensor> {
    let idx = check(weight, indices)?;
    let w = weight.dense()?;
    let d = w.shape()[1];
    let mut shape: Dims = indices.shape().into();
    shape.push(d);
    crate::with_dtype!(w.dtype(), T, {
        let mut out = try_zeroed_vec::<T>("embedding", idx.len() * d)?;
        // SAFETY: T is w's dtype.
        let ws = unsafe { w.data::<T>() };
        if d > 0 {
            for (o, &i) in out.chunks_exact_mut(d).zip(&idx) {
                let r = i as usize * d;
                o.copy_from_slice(&ws[r..r + d]);
            }
        }
        Tensor::from_vec(out, &shape)
    })
}

/// The weight gradient of an embedding: rows of `g` (shape `indices.shape + [D]`) added
/// into a zero `(num_weights, D)` gradient at their indices, in order; the padding row
/// gets nothing; with `scale_grad_by_freq` each row is divided by its index's count in
/// the batch.
pub fn embedding_backward(
    g: &Tensor,
    indices: &Tensor,
    num_weights: usize,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
) -> Result<Tensor> {
    if !g.dtype().is_compute() {
        let c = crate::ops::compute::input(g)?;
        let r = embedding_backward(&c, indices, num_weights, padding_idx, scale_grad_by_freq)?;
        return crate::ops::compute::output(g.dtype(), r);
    }
    let idx = indices.to_vec::<i64>()?;
    let g = g.dense()?;
    let d = g.shape().last().copied().unwrap_or(1);
    let counts = if scale_grad_by_freq {
        let mut c = vec![0usize; num_weights];
        for &i in &idx {
            if let Some(v) = c.get_mut(i as usize) {
                *v += 1;
            }
        }
        c
    } else {
        Vec::new()
    };
    crate::with_float_dtype!(
        g.dtype(),
        T,
        {
            let mut gw = try_zeroed_vec::<T>("embedding_backward", num_weights * d)?;
            // SAFETY: T is g's dtype.
            let gs = unsafe { g.data::<T>() };
            if d > 0 {
                for (row, &i) in gs.chunks_exact(d).zip(&idx) {
                    let i = i as usize;
                    if Some(i) == padding_idx || i >= num_weights {
                        continue;
                    }
                    let scale = match counts.get(i) {
                        Some(&c) if c > 0 => T::ONE / T::from_f64(c as f64),
                        _ => T::ONE,
                    };
                    for (o, &v) in gw[i * d..(i + 1) * d].iter_mut().zip(row) {
                        *o += v * scale;
                    }
                }
            }
            Tensor::from_vec(gw, &[num_weights, d])
        },
        Err(Error::dtype_not_implemented(
            "embedding_backward",
            g.dtype()
        ))
    )
}

/// Dropout's noise: each element is `1 / (1 - p)` with probability `1 - p`, else 0,
/// drawn from the default generator exactly as `empty(shape).bernoulli_(1 - p)` does
/// (one 53-bit uniform per element, in row-major order), so seeded runs match the
/// composite `bernoulli_(1 - p).div_(1 - p)` and PyTorch. `p == 1` gives a 0-d zero
/// without drawing (PyTorch multiplies by `zeros({})`).
pub fn dropout_noise(shape: &[usize], p: f64, dtype: DType) -> Result<Tensor> {
    if !dtype.is_float() {
        return Err(Error::runtime(
            "",
            format!(
                "result type Float can't be cast to the desired output type {}",
                dtype.torch_name()
            ),
        ));
    }
    if p >= 1.0 {
        return Tensor::zeros("dropout", &[], dtype);
    }
    if !dtype.is_compute() {
        // PyTorch computes the scale in float and rounds it once
        return dropout_noise(shape, p, dtype.compute())?.to_dtype(dtype);
    }
    let keep = 1.0 - p;
    let n = crate::shape::checked_numel("dropout", shape)?;
    crate::with_float_dtype!(
        dtype,
        T,
        {
            let mut v = try_zeroed_vec::<T>("dropout", n)?;
            let scale = T::ONE / T::from_f64(keep);
            let mut s = Generator::default_generator().lock();
            for x in v.iter_mut() {
                if s.unit_f64() < keep {
                    *x = scale;
                }
            }
            Tensor::from_vec(v, shape)
        },
        Err(Error::dtype_not_implemented("dropout", dtype))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedding_gathers_and_scatters() {
        let w = Tensor::from_vec((0..6).map(|v| v as f64).collect::<Vec<_>>(), &[3, 2]).unwrap();
        let idx = Tensor::from_vec(vec![2i64, 0, 2], &[3]).unwrap();
        let y = embedding_forward(&w, &idx).unwrap();
        assert_eq!(y.shape(), &[3, 2]);
        assert_eq!(y.to_vec::<f64>().unwrap(), [4.0, 5.0, 0.0, 1.0, 4.0, 5.0]);
        let g = Tensor::from_vec(vec![1.0f64; 6], &[3, 2]).unwrap();
        let gw = embedding_backward(&g, &idx, 3, Some(0), false).unwrap();
        assert_eq!(gw.to_vec::<f64>().unwrap(), [0.0, 0.0, 0.0, 0.0, 2.0, 2.0]);
        let gw = embedding_backward(&g, &idx, 3, None, true).unwrap();
        assert_eq!(gw.to_vec::<f64>().unwrap(), [1.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
        let bad = Tensor::from_vec(vec![3i64], &[1]).unwrap();
        let e = embedding_forward(&w, &bad).err().map(|e| e.msg);
        assert_eq!(e.as_deref(), Some("index out of range in self"));
    }
}
