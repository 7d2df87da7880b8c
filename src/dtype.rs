//! Element types and PyTorch's type-promotion rules.

use std::fmt;

/// The element types ferric supports. The declaration order is the promotion order:
/// for these four types PyTorch's `promote_types(a, b)` is simply the larger one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum DType {
    Bool,
    I64,
    F32,
    F64,
}

/// Type category used by the promotion rules (bool < integral < floating).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Category {
    Bool,
    Int,
    Float,
}

impl DType {
    pub const ALL: [DType; 4] = [DType::Bool, DType::I64, DType::F32, DType::F64];

    /// PyTorch's name (`torch.float32` -> `"float32"`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I64 => "int64",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// PyTorch's C++ scalar type name, used in "not implemented for 'Long'" messages.
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::I64 => "Long",
            DType::F32 => "Float",
            DType::F64 => "Double",
        }
    }

    pub fn size_of(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::I64 | DType::F64 => 8,
            DType::F32 => 4,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::I64 => Category::Int,
            DType::F32 | DType::F64 => Category::Float,
        }
    }

    pub fn is_float(self) -> bool {
        self.category() == Category::Float
    }

    /// Whether PyTorch allows writing a result of this dtype into a `to` tensor in place
    /// (no float into an integer, no integer into bool).
    pub fn can_cast_to(self, to: DType) -> bool {
        self.category() <= to.category()
    }

    /// `torch.promote_types`.
    pub fn promote(self, other: DType) -> DType {
        self.max(other)
    }

    /// The dtype a floating-point op (exp, sqrt, true division, mean...) computes in:
    /// integers and bool go to the default float dtype.
    pub fn to_float(self) -> DType {
        if self.is_float() {
            self
        } else {
            DType::F32
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Python number (or 0-d value) before it is given a tensor dtype.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The dtype PyTorch gives a wrapped Python number (`float` -> default dtype).
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::F32,
        }
    }
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(x) => x,
        }
    }
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(x) => x as i64,
        }
    }
    pub fn to_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(x) => x != 0.0,
        }
    }
}

/// Result-type computation following PyTorch's `ResultTypeState`: operands are grouped
/// into dimensioned tensors, zero-dim tensors and wrapped Python numbers; a lower-priority
/// group only matters when it has a higher *category* than the groups above it.
#[derive(Default, Clone, Copy, Debug)]
pub struct ResultType {
    dim: Option<DType>,
    zero_dim: Option<DType>,
    wrapped: Option<DType>,
}

fn merge(slot: &mut Option<DType>, d: DType) {
    *slot = Some(slot.map_or(d, |s| s.promote(d)));
}

fn combine_categories(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (None, l) => l,
        (h, None) => h,
        (Some(h), Some(l)) => {
            if h.is_float() {
                Some(h)
            } else if h == DType::Bool || l.is_float() {
                Some(h.promote(l))
            } else {
                Some(h)
            }
        }
    }
}

impl ResultType {
    pub fn tensor(mut self, dtype: DType, ndim: usize) -> Self {
        if ndim == 0 {
            merge(&mut self.zero_dim, dtype);
        } else {
            merge(&mut self.dim, dtype);
        }
        self
    }
    pub fn scalar(mut self, s: Scalar) -> Self {
        merge(&mut self.wrapped, s.dtype());
        self
    }
    pub fn finish(self) -> DType {
        combine_categories(self.dim, combine_categories(self.zero_dim, self.wrapped))
            .unwrap_or(DType::F32)
    }
}

/// Conversions every element type supports; the kernels are generic over this.
pub trait Element:
    Copy + Send + Sync + PartialOrd + PartialEq + Default + fmt::Debug + 'static
{
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn to_bool(self) -> bool;
    fn from_f64(v: f64) -> Self;
    fn from_i64(v: i64) -> Self;
    fn from_bool(v: bool) -> Self;
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Bool(b) => Self::from_bool(b),
            Scalar::Int(i) => Self::from_i64(i),
            Scalar::Float(x) => Self::from_f64(x),
        }
    }
    fn to_scalar(self) -> Scalar;
    /// Cast from any other element type with C/PyTorch conversion semantics.
    fn cast<T: Element>(v: T) -> Self {
        match T::DTYPE {
            DType::Bool => Self::from_bool(v.to_bool()),
            DType::I64 => Self::from_i64(v.to_i64()),
            DType::F32 | DType::F64 => Self::from_f64(v.to_f64()),
        }
    }
}

macro_rules! float_element {
    ($t:ty, $d:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn to_bool(self) -> bool {
                self != 0.0
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn from_bool(v: bool) -> Self {
                v as u8 as $t
            }
            fn to_scalar(self) -> Scalar {
                Scalar::Float(self as f64)
            }
        }
    };
}
float_element!(f32, DType::F32);
float_element!(f64, DType::F64);

impl Element for i64 {
    const DTYPE: DType = DType::I64;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn to_i64(self) -> i64 {
        self
    }
    fn to_bool(self) -> bool {
        self != 0
    }
    fn from_f64(v: f64) -> Self {
        v as i64
    }
    fn from_i64(v: i64) -> Self {
        v
    }
    fn from_bool(v: bool) -> Self {
        v as i64
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Int(self)
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn to_bool(self) -> bool {
        self
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn from_bool(v: bool) -> Self {
        v
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dtype`.
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident, $body:expr) => {
        match $dtype {
            $crate::dtype::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::dtype::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::dtype::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::dtype::DType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

/// Like `with_dtype!` but only for the floating types; other dtypes evaluate `$other`.
#[macro_export]
macro_rules! with_float_dtype {
    ($dtype:expr, $T:ident, $body:expr, $other:expr) => {
        match $dtype {
            $crate::dtype::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::dtype::DType::F64 => {
                type $T = f64;
                $body
            }
            _ => $other,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_pytorch() {
        let rt = |f: fn(ResultType) -> ResultType| f(ResultType::default()).finish();
        // int tensor + python float -> default float
        assert_eq!(
            rt(|r| r.tensor(DType::I64, 1).scalar(Scalar::Float(1.0))),
            DType::F32
        );
        // float64 tensor + python float -> float64
        assert_eq!(
            rt(|r| r.tensor(DType::F64, 1).scalar(Scalar::Float(1.0))),
            DType::F64
        );
        // float32 tensor + 0-d float64 -> float32 (same category, dimensioned wins)
        assert_eq!(
            rt(|r| r.tensor(DType::F32, 2).tensor(DType::F64, 0)),
            DType::F32
        );
        // int tensor + 0-d float64 -> float64 (higher category)
        assert_eq!(
            rt(|r| r.tensor(DType::I64, 2).tensor(DType::F64, 0)),
            DType::F64
        );
        // bool tensor + python int -> int64
        assert_eq!(
            rt(|r| r.tensor(DType::Bool, 1).scalar(Scalar::Int(1))),
            DType::I64
        );
        // bool tensor + python bool -> bool
        assert_eq!(
            rt(|r| r.tensor(DType::Bool, 1).scalar(Scalar::Bool(true))),
            DType::Bool
        );
        // int tensor + python int -> int64
        assert_eq!(
            rt(|r| r.tensor(DType::I64, 1).scalar(Scalar::Int(3))),
            DType::I64
        );
    }
}
