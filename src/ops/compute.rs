//! The storage-only dtypes at an op's entry and exit: the one place ops convert them.
//!
//! Kernels exist for bool, int64, float32 and float64 ([`DType::is_compute`]). An op given
//! uint8, int8, int16 or int32 computes in int64, and one given float16 or bfloat16
//! computes in float32, then rounds a result of the compute dtype back to the input's
//! dtype. That is PyTorch's own CPU strategy for the half types (each element is
//! computed in float and rounded once), and for the narrow integers two's-complement
//! wraparound of the int64 result gives the same bits as native-width arithmetic.
//! Results of another dtype (bool predicates, int64 indices, float32 from integer math)
//! are returned as they are.

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// `x` in its compute dtype (itself when it already is one).
pub fn input(x: &Tensor) -> Result<Tensor> {
    x.to_dtype(x.dtype().compute())
}

/// `r`, computed for an input of dtype `dt`, converted back to `dt` when it came out in
/// `dt`'s compute dtype.
pub fn output(dt: DType, r: Tensor) -> Result<Tensor> {
    if r.dtype() != dt && r.dtype() == dt.compute() {
        r.to_dtype(dt)
    } else {
        Ok(r)
    }
}

/// `f(x)` computed through `x`'s compute dtype (see the module docs).
pub fn unary(x: &Tensor, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<Tensor> {
    let dt = x.dtype();
    if dt.is_compute() {
        return f(x);
    }
    output(dt, f(&input(x)?)?)
}
