//! Element types and PyTorch's type-promotion rules.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// `torch.set_default_dtype`'s dtype (an index into [`DType::ALL`]); float32 at start.
static DEFAULT_FLOAT: AtomicU8 = AtomicU8::new(8);

/// The dtype Python floats and float factories get (`torch.get_default_dtype()`).
pub fn default_float() -> DType {
    DType::ALL
        .get(DEFAULT_FLOAT.load(Ordering::Relaxed) as usize)
        .copied()
        .unwrap_or(DType::F32)
}

/// `torch.set_default_dtype(d)`; callers accept only floating dtypes, as PyTorch does.
pub fn set_default_float(d: DType) {
    if let Some(i) = DType::ALL.iter().position(|&x| x == d) {
        DEFAULT_FLOAT.store(i as u8, Ordering::Relaxed);
    }
}

/// The element types ferric supports, narrowest first within each category. Only
/// `Bool`, `I64`, `F32` and `F64` have arithmetic kernels of their own; the others are
/// *storage* types that ops compute in [`DType::compute`] (as PyTorch's CPU kernels
/// compute half types through float32) and convert back to at the exit.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
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
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// PyTorch's name (`torch.float32` -> `"float32"`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// PyTorch's C++ scalar type name, used in "not implemented for 'Long'" messages.
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::U8 => "Byte",
            DType::I8 => "Char",
            DType::I16 => "Short",
            DType::I32 => "Int",
            DType::I64 => "Long",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::F32 => "Float",
            DType::F64 => "Double",
        }
    }

    /// PyTorch's C++ type name, used in "Input type (float) and bias type (double)" and
    /// mask messages.
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "unsigned char",
            DType::I8 => "signed char",
            DType::I16 => "short int",
            DType::I32 => "int",
            DType::I64 => "long int",
            DType::F16 => "c10::Half",
            DType::BF16 => "c10::BFloat16",
            DType::F32 => "float",
            DType::F64 => "double",
        }
    }

    /// The legacy tensor type name (`torch.FloatTensor` -> `"FloatTensor"`).
    pub fn tensor_type_name(self) -> &'static str {
        match self {
            DType::Bool => "BoolTensor",
            DType::U8 => "ByteTensor",
            DType::I8 => "CharTensor",
            DType::I16 => "ShortTensor",
            DType::I32 => "IntTensor",
            DType::I64 => "LongTensor",
            DType::F16 => "HalfTensor",
            DType::BF16 => "BFloat16Tensor",
            DType::F32 => "FloatTensor",
            DType::F64 => "DoubleTensor",
        }
    }

    pub fn size_of(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => Category::Int,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Float,
        }
    }

    /// The dtype ops compute in: narrow integers in int64 (two's-complement results
    /// wrapped back to the width give the bits of native-width arithmetic), half types
    /// in float32 (PyTorch's CPU kernels do the same and round each result back).
    pub fn compute(self) -> DType {
        match self {
            DType::U8 | DType::I8 | DType::I16 | DType::I32 => DType::I64,
            DType::F16 | DType::BF16 => DType::F32,
            d => d,
        }
    }

    /// Whether this dtype has kernels of its own (see [`DType::compute`]).
    pub fn is_compute(self) -> bool {
        self.compute() == self
    }

    /// Whether the values are signed (everything but bool and uint8).
    pub fn is_signed(self) -> bool {
        !matches!(self, DType::Bool | DType::U8)
    }

    pub fn is_float(self) -> bool {
        self.category() == Category::Float
    }

    /// Whether PyTorch allows writing a result of this dtype into a `to` tensor in place
    /// (no float into an integer, no integer into bool).
    pub fn can_cast_to(self, to: DType) -> bool {
        self.category() <= to.category()
    }

    /// `torch.promote_types`: the wider type of the higher category, except that
    /// uint8 with int8 needs int16 (to hold both ranges) and float16 with bfloat16 needs
    /// float32 (neither holds the other).
    pub fn promote(self, other: DType) -> DType {
        use DType::*;
        match (self.min(other), self.max(other)) {
            (U8, I8) => I16,
            (F16, BF16) => F32,
            (_, hi) => hi,
        }
    }

    /// The dtype a floating-point op (exp, sqrt, true division, mean...) computes in:
    /// integers and bool go to the default float dtype.
    pub fn to_float(self) -> DType {
        if self.is_float() {
            self
        } else {
            default_float()
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// c10's `overflows<T>(value)`: whether PyTorch refuses to store `s` in `d` (`full`,
/// `fill_`, `masked_fill`, `index_fill`, `tensor(data, dtype=)`). Integers accept
/// their range (unsigned ones also the negated range: `fill_(-1)` of uint8 gives 255);
/// floating values must lie in the range (NaN never does); floating dtypes accept
/// every infinity and NaN, and finite values up to their largest finite value.
pub fn scalar_overflows(s: Scalar, d: DType) -> bool {
    let (lo, hi): (i128, i128) = match d {
        DType::U8 => (0, 255),
        DType::I8 => (-128, 127),
        DType::I16 => (-32768, 32767),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DType::I64 => (i64::MIN as i128, i64::MAX as i128),
        DType::Bool => return false,
        DType::F16 | DType::BF16 | DType::F32 => {
            let max = match d {
                DType::F16 => 65504.0,
                DType::BF16 => 3.3895313892515355e38,
                _ => f32::MAX as f64,
            };
            let v = s.to_f64();
            return v.is_finite() && v.abs() > max;
        }
        DType::F64 => return false,
    };
    match s {
        Scalar::Bool(_) => false,
        Scalar::Int(i) => {
            let i = i as i128;
            if lo == 0 {
                i > hi || -i > hi
            } else {
                i < lo || i > hi
            }
        }
        Scalar::Float(f) => !(f >= lo as f64 && f <= hi as f64),
    }
}

/// The C++ scalar type PyTorch's fill messages name (`uint8_t`, `int`, `c10::Half`).
pub fn c_scalar_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "uint8_t",
        DType::I8 => "int8_t",
        DType::I16 => "int16_t",
        DType::I32 => "int",
        DType::I64 => "int64_t",
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 => "float",
        DType::F64 => "double",
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
            Scalar::Float(_) => default_float(),
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
            .unwrap_or_else(default_float)
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
        match T::DTYPE.category() {
            Category::Bool => Self::from_bool(v.to_bool()),
            Category::Int => Self::from_i64(v.to_i64()),
            Category::Float => Self::from_f64(v.to_f64()),
        }
    }
}

/// `static_cast<int32_t>` of a floating value as x86 computes it (`cvttsd2si`): the
/// truncated value, or `i32::MIN` for NaN and values out of range (PyTorch CPU's
/// result for these undefined C++ conversions).
fn f64_to_i32_x86(v: f64) -> i32 {
    if v > -2147483649.0 && v < 2147483648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

/// `static_cast<int64_t>` of a floating value as x86 computes it (`i64::MIN` for NaN
/// and values out of range).
fn f64_to_i64_x86(v: f64) -> i64 {
    let two63 = (1u64 << 63) as f64;
    if (-two63..two63).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

/// One `Element` impl: `to(|x| ...)` gives the conversions out of an element `x`, and
/// `from(|v| ...)` the conversions into one from a float64, an int64 and a bool `v`.
#[rustfmt::skip]
macro_rules! element {
    ($t:ty, $d:ident,
     to(|$x:ident| f64: $tf:expr, i64: $ti:expr, bool: $tb:expr, scalar: $ts:expr),
     from(|$v:ident| f64: $ff:expr, i64: $fi:expr, bool: $fb:expr)) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_f64(self) -> f64 { let $x = self; $tf }
            fn to_i64(self) -> i64 { let $x = self; $ti }
            fn to_bool(self) -> bool { let $x = self; $tb }
            fn to_scalar(self) -> Scalar { let $x = self; $ts }
            fn from_f64($v: f64) -> Self { $ff }
            fn from_i64($v: i64) -> Self { $fi }
            fn from_bool($v: bool) -> Self { $fb }
        }
    };
}

element!(bool, Bool,
    to(|x| f64: x as u8 as f64, i64: x as i64, bool: x, scalar: Scalar::Bool(x)),
    from(|v| f64: v != 0.0, i64: v != 0, bool: v));
element!(i64, I64,
    to(|x| f64: x as f64, i64: x, bool: x != 0, scalar: Scalar::Int(x)),
    from(|v| f64: f64_to_i64_x86(v), i64: v, bool: v as i64));

/// The narrow integer types: values wrap (two's complement) from int64, and floating
/// values convert as PyTorch CPU converts them on x86: int32, int16 and int8 through a
/// 32-bit truncation, uint8 through int64 (c10's `static_cast_with_inter_type`).
macro_rules! int_element {
    ($t:ty, $d:ident, |$v:ident| $from_float:expr) => {
        element!($t, $d,
            to(|x| f64: x as f64, i64: x as i64, bool: x != 0, scalar: Scalar::Int(x as i64)),
            from(|$v| f64: $from_float, i64: $v as $t, bool: $v as $t));
    };
}
int_element!(i32, I32, |v| f64_to_i32_x86(v));
int_element!(i16, I16, |v| f64_to_i32_x86(v) as i16);
int_element!(i8, I8, |v| f64_to_i32_x86(v) as i8);
int_element!(u8, U8, |v| f64_to_i64_x86(v) as u8);

/// The half types: values are stored rounded to nearest-even; a float64 is first
/// rounded to float32, as c10's `Half(double)` / `BFloat16(double)` do.
macro_rules! half_element {
    ($t:ty, $d:ident) => {
        element!($t, $d,
            to(|x| f64: x.to_f64(), i64: f64_to_i64_x86(x.to_f64()), bool: x.to_f32() != 0.0,
               scalar: Scalar::Float(x.to_f64())),
            from(|v| f64: <$t>::from_f32(v as f32), i64: <$t>::from_f32(v as f32),
                 bool: <$t>::from_f32(v as u8 as f32)));
    };
}
half_element!(half::f16, F16);
half_element!(half::bf16, BF16);

macro_rules! float_element {
    ($t:ty, $d:ident) => {
        element!($t, $d,
            to(|x| f64: x as f64, i64: x as i64, bool: x != 0.0, scalar: Scalar::Float(x as f64)),
            from(|v| f64: v as $t, i64: v as $t, bool: v as u8 as $t));
    };
}
float_element!(f32, F32);
float_element!(f64, F64);

/// The `match` behind the `with_*dtype!` macros: one arm per listed dtype binding `$T`
/// to its element type, and `$other` for the rest when given.
#[doc(hidden)]
#[macro_export]
macro_rules! match_dtype {
    ($dtype:expr, $T:ident, $body:expr, [$($d:ident => $t:ty),+] $(, $other:expr)?) => {
        match $dtype {
            $($crate::dtype::DType::$d => {
                type $T = $t;
                $body
            })+
            $(_ => $other,)?
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dtype` (any dtype: for
/// bodies that only move, compare or convert elements).
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident, $body:expr) => {
        $crate::match_dtype!($dtype, $T, $body, [
            Bool => bool, U8 => u8, I8 => i8, I16 => i16, I32 => i32, F16 => half::f16,
            BF16 => half::bf16, I64 => i64, F32 => f32, F64 => f64
        ])
    };
}

/// Runs `$body` with `$T` bound to the element type of a *compute* dtype (bool, int64,
/// float32, float64: the types with arithmetic kernels); other dtypes evaluate
/// `$other`. Ops convert storage-only dtypes with [`DType::compute`] first.
#[macro_export]
macro_rules! with_compute_dtype {
    ($dtype:expr, $T:ident, $body:expr, $other:expr) => {
        $crate::match_dtype!($dtype, $T, $body, [Bool => bool, I64 => i64, F32 => f32, F64 => f64], $other)
    };
}

/// Like `with_dtype!` but only for float32 and float64; other dtypes (float16 and
/// bfloat16 included: ops convert them to float32 first) evaluate `$other`.
#[macro_export]
macro_rules! with_float_dtype {
    ($dtype:expr, $T:ident, $body:expr, $other:expr) => {
        $crate::match_dtype!($dtype, $T, $body, [F32 => f32, F64 => f64], $other)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_pytorch() {
        use DType::*;
        use Scalar::{Bool as B, Float as F, Int as I};
        // (tensor dtype and ndim, the other operand: a Python scalar or a 0-d tensor, result)
        enum Other {
            Py(Scalar),
            ZeroD(DType),
        }
        use Other::*;
        let cases = [
            (I64, 1, Py(F(1.0)), F32),    // int tensor + python float -> default float
            (F64, 1, Py(F(1.0)), F64),    // float64 tensor + python float -> float64
            (F32, 2, ZeroD(F64), F32),    // same category: the dimensioned tensor wins
            (I64, 2, ZeroD(F64), F64),    // higher category wins
            (Bool, 1, Py(I(1)), I64),     // bool tensor + python int -> int64
            (Bool, 1, Py(B(true)), Bool), // bool tensor + python bool -> bool
            (I64, 1, Py(I(3)), I64),      // int tensor + python int -> int64
            (I8, 1, Py(I(1000)), I8),     // int8 tensor + python int stays int8
            (I8, 1, ZeroD(I64), I8),      // int8 tensor + 0-d int64 too (same category)
            (F16, 1, Py(F(1.5)), F16),    // float16 tensor + python float stays float16
        ];
        for (dtype, ndim, other, want) in cases {
            let r = ResultType::default().tensor(dtype, ndim);
            let r = match other {
                Py(s) => r.scalar(s),
                ZeroD(d) => r.tensor(d, 0),
            };
            assert_eq!(r.finish(), want, "{dtype:?} (ndim {ndim})");
        }
    }

    #[test]
    fn narrow_promotions() {
        use DType::*;
        assert_eq!(U8.promote(I8), I16);
        assert_eq!(I8.promote(U8), I16);
        assert_eq!(U8.promote(I16), I16);
        assert_eq!(U8.promote(Bool), U8);
        assert_eq!(F16.promote(BF16), F32);
        assert_eq!(BF16.promote(I64), BF16);
        assert_eq!(I32.promote(F16), F16);
        for d in DType::ALL {
            assert_eq!(d.promote(d), d);
            for e in DType::ALL {
                assert_eq!(d.promote(e), e.promote(d));
            }
        }
        // the default dtype's index is float32's
        assert_eq!(default_float(), F32);
    }

    #[test]
    fn casts_follow_pytorch_on_x86() {
        assert_eq!(i32::from_f64(3e9), i32::MIN);
        assert_eq!(i32::from_f64(f64::NAN), i32::MIN);
        assert_eq!(i16::from_f64(40000.0), -25536);
        assert_eq!(i8::from_f64(128.0), -128);
        assert_eq!(u8::from_f64(-1.0), 255);
        assert_eq!(u8::from_f64(300.7), 44);
        assert_eq!(u8::from_i64(-1), 255);
        assert_eq!(i64::from_f64(1e20), i64::MIN);
        assert_eq!(half::f16::from_f64(65520.0).to_f64(), f64::INFINITY);
        assert_eq!(half::f16::from_f64(0.1).to_f64(), 0.0999755859375);
        assert_eq!(half::bf16::from_f64(0.1).to_f64(), 0.10009765625);
        assert_eq!(<half::f16 as Element>::cast::<i64>(2049).to_f64(), 2048.0);
        assert_eq!(
            <i8 as Element>::cast::<half::f16>(half::f16::from_f32(-1.5)),
            -1
        );
    }
}
