//! ferric: strided tensors, SIMD + thread-pool CPU kernels and a define-by-run autograd tape.
//! The numeric core is plain Rust; `python/` (feature `python`) is the only place that
//! knows about PyO3.

pub mod autograd;
pub mod dtype;
pub mod error;
pub mod kernels;
pub mod layout;
pub mod memory_order;
pub mod ops;
pub mod shape;
pub mod storage;
pub mod tensor;
pub mod threads;

#[cfg(feature = "python")]
mod python;

pub use dtype::{DType, Scalar};
pub use error::{Error, Result};
pub use tensor::Tensor;

/// The `ndarray` crate ferric's array interop is built on ([`Tensor::from_ndarray`],
/// [`Tensor::as_ndarray`]), re-exported so callers use the same version.
pub use ndarray;
