//! Joining tensors (`cat`, `stack` and the `*stack` helpers) and `pad`. The shape-copy
//! ops live in `join/repeat.rs` (flip, roll, repeat, tile, repeat_interleave) and
//! `join/tri.rs` (tril/triu, diagonal, diag, diag_embed).

pub mod repeat;
pub mod tri;

use crate::dtype::{DType, ResultType, Scalar};
use crate::error::{fmt_shape, Error, Result};
use crate::shape::{checked_numel, normalize_dim, Dims};
use crate::tensor::Tensor;

/// PyTorch's legacy rule: 1-d empty tensors (shape `[0]`) are skipped by `cat`.
fn cat_skips(t: &Tensor) -> bool {
    t.shape() == [0]
}

/// `cat(tensors, dim)`: the inputs joined along `dim`, promoted to a common dtype.
pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    if tensors.is_empty() {
        return Err(Error::value(
            "",
            "torch.cat(): expected a non-empty list of Tensors",
        ));
    }
    let mut rt = ResultType::default();
    for (i, t) in tensors.iter().enumerate() {
        if t.ndim() == 0 {
            return Err(Error::runtime(
                "cat",
                format!("zero-dimensional tensor (at position {i}) cannot be concatenated"),
            ));
        }
        rt = rt.tensor(t.dtype(), t.ndim());
    }
    let dtype = rt.finish();
    let Some(first) = tensors.iter().find(|t| !cat_skips(t)) else {
        normalize_dim(dim, 1)?;
        return Tensor::zeros("cat", &[0], dtype);
    };
    let nd = first.ndim();
    let d = normalize_dim(dim, nd)?;
    let mut size = 0usize;
    for (i, t) in tensors.iter().enumerate().filter(|(_, t)| !cat_skips(t)) {
        if t.ndim() != nd {
            return Err(Error::runtime(
                "cat",
                format!(
                    "Tensors must have same number of dimensions: got {nd} and {}",
                    t.ndim()
                ),
            ));
        }
        for j in (0..nd).filter(|&j| j != d) {
            if t.shape()[j] != first.shape()[j] {
                return Err(Error::runtime(
                    "cat",
                    format!(
                        "Sizes of tensors must match except in dimension {d}. Expected size {} \
                         but got size {} for tensor number {i} in the list.",
                        first.shape()[j],
                        t.shape()[j]
                    ),
                ));
            }
        }
        size = size
            .checked_add(t.shape()[d])
            .ok_or_else(|| Error::runtime("cat", "the concatenated size overflows"))?;
    }
    let mut shape: Dims = Dims::from_slice(first.shape());
    shape[d] = size;
    let out = Tensor::zeros("cat", &shape, dtype)?;
    let mut start = 0;
    for t in tensors.iter().filter(|t| !cat_skips(t)) {
        let len = t.shape()[d];
        if len > 0 {
            out.with_layout(out.layout.narrow(d, start, len))?
                .copy_from(t)?;
        }
        start += len;
    }
    Ok(out)
}

/// `stack(tensors, dim)`: equally shaped inputs joined along a new dim.
pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let Some(first) = tensors.first() else {
        return Err(Error::runtime(
            "stack",
            "stack expects a non-empty TensorList",
        ));
    };
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() != first.shape() {
            return Err(Error::runtime(
                "stack",
                format!(
                    "stack expects each tensor to be equal size, but got {} at entry 0 and {} at \
                     entry {i}",
                    fmt_shape(first.shape()),
                    fmt_shape(t.shape())
                ),
            ));
        }
    }
    let d = normalize_dim(dim, first.ndim() + 1)?;
    let parts: Vec<Tensor> = tensors
        .iter()
        .map(|t| t.with_layout(t.layout.unsqueeze(d)))
        .collect::<Result<_>>()?;
    cat(&parts, d as i64)
}

/// Reshapes 0/1-d (and for `n == 3`, 2-d) tensors the way `atleast_{n}d` does.
pub fn atleast(t: &Tensor, n: usize) -> Result<Tensor> {
    let s = t.shape();
    let shape: Vec<i64> = match (n, s.len()) {
        (1, 0) => vec![1],
        (2, 0) => vec![1, 1],
        (2, 1) => vec![1, s[0] as i64],
        (3, 0) => vec![1, 1, 1],
        (3, 1) => vec![1, s[0] as i64, 1],
        (3, 2) => vec![s[0] as i64, s[1] as i64, 1],
        _ => return Ok(t.clone()),
    };
    t.reshape(&shape)
}

fn non_empty(op: &str, tensors: &[Tensor]) -> Result<()> {
    if tensors.is_empty() {
        return Err(Error::runtime(
            op,
            format!("{op} expects a non-empty TensorList"),
        ));
    }
    Ok(())
}

/// `hstack`: along dim 0 for 1-d inputs, else dim 1.
pub fn hstack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty("hstack", tensors)?;
    let ts: Vec<Tensor> = tensors
        .iter()
        .map(|t| atleast(t, 1))
        .collect::<Result<_>>()?;
    let dim = if ts[0].ndim() == 1 { 0 } else { 1 };
    cat(&ts, dim)
}

/// `vstack`: at least 2-d inputs along dim 0.
pub fn vstack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty("vstack", tensors)?;
    let ts: Vec<Tensor> = tensors
        .iter()
        .map(|t| atleast(t, 2))
        .collect::<Result<_>>()?;
    cat(&ts, 0)
}

/// `dstack`: at least 3-d inputs along dim 2.
pub fn dstack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty("dstack", tensors)?;
    let ts: Vec<Tensor> = tensors
        .iter()
        .map(|t| atleast(t, 3))
        .collect::<Result<_>>()?;
    cat(&ts, 2)
}

/// `column_stack`: 0/1-d inputs become columns, then everything joins along dim 1.
pub fn column_stack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty("column_stack", tensors)?;
    let ts: Vec<Tensor> = tensors
        .iter()
        .map(|t| {
            if t.ndim() <= 1 {
                t.reshape(&[t.numel() as i64, 1])
            } else {
                Ok(t.clone())
            }
        })
        .collect::<Result<_>>()?;
    cat(&ts, 1)
}

/// Padding modes of `pad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

impl PadMode {
    pub fn parse(s: &str) -> Result<PadMode> {
        Ok(match s {
            "constant" => PadMode::Constant,
            "reflect" => PadMode::Reflect,
            "replicate" => PadMode::Replicate,
            "circular" => PadMode::Circular,
            _ => {
                return Err(Error::not_implemented(
                    "pad",
                    format!("Unrecognised padding mode {s}"),
                ))
            }
        })
    }
    fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Replicate => "replicate",
            PadMode::Circular => "circular",
        }
    }
}

/// Source index along a dim of size `n` for output position `i` of a dim padded by
/// `left` and `right` (negative pads crop). Circular padding wraps around the cropped
/// input, as PyTorch crops before it wraps.
fn pad_source(mode: PadMode, i: i64, left: i64, right: i64, n: i64) -> i64 {
    let j = i.saturating_sub(left);
    match mode {
        PadMode::Replicate => j.clamp(0, n - 1),
        PadMode::Circular => {
            let start = left.saturating_neg().max(0);
            let kept = n - start - right.saturating_neg().max(0);
            start + i.saturating_sub(left.max(0)).rem_euclid(kept.max(1))
        }
        _ => {
            if n == 1 {
                return 0;
            }
            let m = j.rem_euclid(2 * (n - 1));
            if m >= n {
                2 * (n - 1) - m
            } else {
                m
            }
        }
    }
}

impl Tensor {
    /// `nn.functional.pad(input, pad, mode, value)`: `pad` holds (left, right) pairs
    /// starting from the last dim; negative pads crop.
    pub fn pad(&self, pad: &[i64], mode: PadMode, value: Option<Scalar>) -> Result<Tensor> {
        if mode != PadMode::Constant {
            let mut out = self.clone();
            let gathers = self.pad_gathers(pad, mode, value)?;
            for (d, idx) in &gathers {
                out = out.index_select(*d as i64, idx)?;
            }
            if gathers.is_empty() {
                out = out.copy_as(out.dtype())?;
            }
            return Ok(out);
        }
        let shape = self.pad_shape(pad)?;
        let nd = self.ndim();
        let np = pad.len() / 2;
        let v = value.unwrap_or(Scalar::Int(0));
        let out = Tensor::full("pad", &shape, v, self.dtype())?;
        let (mut src, mut dst) = (self.clone(), out.clone());
        for k in 0..np {
            let d = nd - 1 - k;
            let (l, r) = (pad[2 * k], pad[2 * k + 1]);
            let n = self.shape()[d] as i64;
            let (crop_l, crop_r) = (l.saturating_neg().max(0), r.saturating_neg().max(0));
            let len = n.saturating_sub(crop_l).saturating_sub(crop_r);
            if len <= 0 {
                return Ok(out);
            }
            src = src.with_layout(src.layout.narrow(d, crop_l as usize, len as usize))?;
            dst = dst.with_layout(dst.layout.narrow(d, l.max(0) as usize, len as usize))?;
        }
        dst.copy_from(&src)?;
        Ok(out)
    }

    /// The shape `pad` produces, after checking the pad list.
    fn pad_shape(&self, pad: &[i64]) -> Result<Dims> {
        let nd = self.ndim();
        if !pad.len().is_multiple_of(2) {
            return Err(Error::runtime(
                "pad",
                "Padding length must be divisible by 2",
            ));
        }
        let np = pad.len() / 2;
        if np > nd {
            return Err(Error::runtime(
                "pad",
                format!(
                    "Padding length should be less than or equal to two times the input \
                     dimension but got padding length {} and input of dimension {nd}",
                    pad.len()
                ),
            ));
        }
        let mut shape: Dims = Dims::from_slice(self.shape());
        for k in 0..np {
            let d = nd - 1 - k;
            let (l, r) = (pad[2 * k], pad[2 * k + 1]);
            let n = self.shape()[d] as i64;
            let new = n
                .checked_add(l)
                .and_then(|x| x.checked_add(r))
                .unwrap_or(-1);
            if new < 0 {
                return Err(Error::runtime(
                    "pad",
                    format!(
                        "The input size {n}, plus negative padding {l} and {r} resulted in a \
                         negative output size, which is invalid. Check dimension {d} of your \
                         input."
                    ),
                ));
            }
            shape[d] = new as usize;
        }
        checked_numel("pad", &shape)?;
        Ok(shape)
    }

    /// For the non-constant modes: the `(dim, source indices)` gathers (`index_select`s,
    /// applied in order) that build the padded tensor. Autograd replays them.
    pub fn pad_gathers(
        &self,
        pad: &[i64],
        mode: PadMode,
        value: Option<Scalar>,
    ) -> Result<Vec<(usize, Tensor)>> {
        let shape = self.pad_shape(pad)?;
        let nd = self.ndim();
        let np = pad.len() / 2;
        if value.is_some_and(|v| v.to_f64() != 0.0) {
            return Err(Error::runtime(
                "pad",
                format!(
                    "Padding mode \"{}\" doesn't take in value argument",
                    mode.name()
                ),
            ));
        }
        if nd < np + 1 || nd > np + 2 {
            return Err(Error::not_implemented(
                "pad",
                format!(
                    "Padding size {} is not supported for {nd}D input tensor.\nSupported \
                     combinations for non-constant padding:\n  - 2D or 3D input: padding size \
                     = 2 (pads last dimension)\n  - 3D or 4D input: padding size = 4 (pads last \
                     2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 \
                     dimensions)",
                    pad.len()
                ),
            ));
        }
        if self.dtype() == DType::Bool && matches!(mode, PadMode::Reflect | PadMode::Replicate) {
            let kind = if mode == PadMode::Reflect {
                "reflection"
            } else {
                "replication"
            };
            return Err(Error::dtype_not_implemented(
                &format!("{kind}_pad{np}d"),
                DType::Bool,
            ));
        }
        let mut gathers = Vec::with_capacity(np);
        for k in 0..np {
            let d = nd - 1 - k;
            let (l, r) = (pad[2 * k], pad[2 * k + 1]);
            let n = self.shape()[d] as i64;
            let kept = n - l.saturating_neg().max(0) - r.saturating_neg().max(0);
            let ok = match mode {
                PadMode::Reflect => l < n && r < n,
                PadMode::Circular => l <= n && r <= n && (kept > 0 || shape[d] == 0),
                _ => n > 0,
            };
            if !ok || n == 0 {
                let msg = match mode {
                    PadMode::Circular => {
                        "Padding value causes wrapping around more than once.".to_string()
                    }
                    _ => format!(
                        "Argument #4: Padding size should be less than the corresponding input \
                         dimension, but got: padding ({l}, {r}) at dimension {d} of input {}",
                        fmt_shape(self.shape())
                    ),
                };
                return Err(Error::runtime("pad", msg));
            }
            let len = shape[d];
            let mut idx = crate::storage::try_zeroed_vec::<i64>("pad", len)?;
            for (i, v) in idx.iter_mut().enumerate() {
                *v = pad_source(mode, i as i64, l, r, n);
            }
            gathers.push((d, Tensor::from_vec(idx, &[len])?));
        }
        Ok(gathers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cat_promotes_and_skips_legacy_empty() {
        let a = Tensor::from_vec(vec![1i64, 2], &[1, 2]).unwrap();
        let b = Tensor::from_vec(vec![0.5f64, 1.5], &[1, 2]).unwrap();
        let e = Tensor::zeros("t", &[0], DType::F32).unwrap();
        let c = cat(&[a, e, b], 0).unwrap();
        assert_eq!(c.shape(), &[2, 2]);
        assert_eq!(c.dtype(), DType::F64);
        assert_eq!(c.to_vec::<f64>().unwrap(), vec![1.0, 2.0, 0.5, 1.5]);
    }

    #[test]
    fn pad_modes() {
        let x = Tensor::from_vec(vec![1i64, 2, 3], &[1, 3]).unwrap();
        let r = x.pad(&[2, 1], PadMode::Reflect, None).unwrap();
        assert_eq!(r.to_vec::<i64>().unwrap(), vec![3, 2, 1, 2, 3, 2]);
        let c = x
            .pad(&[1, -1], PadMode::Constant, Some(Scalar::Int(9)))
            .unwrap();
        assert_eq!(c.to_vec::<i64>().unwrap(), vec![9, 1, 2]);
    }
}
