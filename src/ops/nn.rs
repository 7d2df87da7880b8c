//! Fused neural-network kernels on `Tensor`: negative log likelihood (the second half of
//! cross entropy), layer and batch normalisation, embedding lookup and dropout noise.
//!
//! Each forward makes one or two passes over its input and returns what its backward
//! needs (total weight, per-row mean and inverse std, ...); each backward is one pass
//! too. The autograd nodes (`autograd::nn`) call these when no graph is being built and
//! fall back to differentiable compositions under `create_graph=True`.

pub mod embed;
pub mod loss;
pub mod norm;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A loss's `reduction=` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

impl Reduction {
    /// PyTorch's `_Reduction.get_enum`: ValueError for anything else.
    pub fn parse(s: &str) -> Result<Reduction> {
        match s {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            _ => Err(Error::value(
                "",
                format!("{s} is not a valid value for reduction"),
            )),
        }
    }
}

/// PyTorch's "expected scalar type X but found Y" for a parameter whose dtype must equal
/// the input's.
pub(crate) fn same_dtype(expected: DType, t: &Tensor) -> Result<()> {
    if t.dtype() == expected {
        return Ok(());
    }
    Err(Error::runtime(
        "",
        format!(
            "expected scalar type {} but found {}",
            expected.torch_name(),
            t.dtype().torch_name()
        ),
    ))
}

/// Rows per parallel task for row-wise kernels with rows of `k` elements: ~64k elements.
pub(crate) fn rows_per_task(k: usize) -> usize {
    (crate::threads::MIN_PARALLEL_WORK / k.max(1)).max(1)
}
