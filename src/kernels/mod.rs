//! Pure kernels on slices + layouts: no `Tensor`, no tape, no pyo3.

pub mod bessel;
pub mod conv;
pub mod linalg;
pub mod matmul;
pub mod num;
pub mod pointwise;
pub mod poly;
pub mod reduce;
pub mod simd;
pub mod sort;
pub mod special;
pub mod strided;
