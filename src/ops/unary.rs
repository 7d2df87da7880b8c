//! Elementwise unary ops. Each op is one row of `UnaryOp` plus its scalar function; the
//! generic strided map does the rest. Float ops with a vector kernel (`kernels::simd`:
//! exp, log, tanh, sigmoid, silu, erf, gelu, relu, neg, abs, sqrt, ...) run it on every
//! contiguous run, whatever the input's layout, so a value's result never depends on
//! the layout it was read from; large tensors are split across ferric's threads.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::simd::{self, SimdFloat};
use crate::kernels::strided::{self, Map1, MapFn};
use crate::memory_order::Order;
use crate::storage::try_output_vec;
use crate::tensor::Tensor;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Floor,
    Ceil,
    Round,
    Trunc,
    Frac,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sqrt,
    Rsqrt,
    Square,
    Reciprocal,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Sigmoid,
    LogSigmoid,
    Relu,
    Gelu,
    GeluTanh,
    Silu,
    Mish,
    Erf,
    Erfc,
    IsNan,
    IsInf,
    IsPosInf,
    IsNegInf,
    IsFinite,
    LogicalNot,
    BitwiseNot,
}

impl UnaryOp {
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Sign => "sign",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Frac => "frac",
            Exp => "exp",
            Exp2 => "exp2",
            Expm1 => "expm1",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Square => "square",
            Reciprocal => "reciprocal",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Sigmoid => "sigmoid",
            LogSigmoid => "logsigmoid",
            Relu => "relu",
            Gelu => "gelu",
            GeluTanh => "gelu",
            Silu => "silu",
            Mish => "mish",
            Erf => "erf",
            Erfc => "erfc",
            IsNan => "isnan",
            IsInf => "isinf",
            IsPosInf => "isposinf",
            IsNegInf => "isneginf",
            IsFinite => "isfinite",
            LogicalNot => "logical_not",
            BitwiseNot => "bitwise_not",
        }
    }
}

/// Floating-point math shared by f32 and f64: the scalar function of each op (used for
/// ops without a vector kernel, and for parameterised variants).
pub trait Float: Element + SimdFloat + std::ops::Neg<Output = Self> {
    fn f(op: UnaryOp) -> fn(Self) -> Self;
}

/// The vector kernel of `op`, if it has one (float64 lacks some; see `kernels::simd`).
fn vector_op(op: UnaryOp) -> Option<simd::Unary> {
    use simd::Unary as V;
    Some(match op {
        UnaryOp::Neg => V::Neg,
        UnaryOp::Abs => V::Abs,
        UnaryOp::Sqrt => V::Sqrt,
        UnaryOp::Rsqrt => V::Rsqrt,
        UnaryOp::Square => V::Square,
        UnaryOp::Reciprocal => V::Reciprocal,
        UnaryOp::Relu => V::Relu,
        UnaryOp::Exp => V::Exp,
        UnaryOp::Log => V::Log,
        UnaryOp::Tanh => V::Tanh,
        UnaryOp::Sigmoid => V::Sigmoid,
        UnaryOp::Silu => V::Silu,
        UnaryOp::Erf => V::Erf,
        UnaryOp::Gelu => V::Gelu,
        UnaryOp::GeluTanh => V::GeluTanh,
        _ => return None,
    })
}

/// Rough cost per element relative to an add, for the parallel-split threshold.
fn cost(op: UnaryOp) -> usize {
    use UnaryOp::*;
    match op {
        Neg | Abs | Relu | Square | Sign | Floor | Ceil | Round | Trunc | Frac => 1,
        Sqrt | Rsqrt | Reciprocal => 2,
        Exp | Log | Tanh | Sigmoid | Silu => 4,
        Erf | Gelu | GeluTanh => 8,
        _ => 16,
    }
}

/// A unary float op on contiguous runs: the vector kernel when the type has one, else
/// the scalar function.
struct FloatRun<T> {
    vector: Option<simd::Unary>,
    scalar: fn(T) -> T,
}

impl<T: Float> Map1<T, T> for FloatRun<T> {
    #[inline]
    fn run(&self, src: &[T], dst: &mut [T]) {
        if let Some(v) = self.vector {
            if simd::unary(v, src, dst) {
                return;
            }
        }
        MapFn(self.scalar).run(src, dst);
    }
}

/// `buf[i] = op(buf[i])` with the kernel the standalone op runs (the vector one where the
/// type has it, else the scalar function), for fused ops activating their own buffers.
pub fn apply_in_place<T: Float>(op: UnaryOp, buf: &mut [T]) {
    if let Some(v) = vector_op(op) {
        if simd::unary_inplace(v, buf) {
            return;
        }
    }
    let f = T::f(op);
    for x in buf.iter_mut() {
        *x = f(*x);
    }
}

/// `op(x)` for a float tensor of element type `T`, into a new tensor in `x`'s memory
/// order.
fn float_unary<T: Float>(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let mut out = try_output_vec::<T>(op.name(), x.numel())?;
    // SAFETY: callers pass T = x.dtype(); `out` is a separate buffer.
    let src = unsafe { x.data::<T>() };
    let k = FloatRun {
        vector: vector_op(op),
        scalar: T::f(op),
    };
    let order = Order::of(x.shape(), &[&x.layout]);
    let ws = order.walk(x.strides());
    strided::map1(
        src,
        (&ws, x.layout.offset),
        &order.walk(x.shape()),
        &mut out,
        cost(op),
        &k,
    );
    Tensor::from_vec_in(out, x.shape(), &order)
}

macro_rules! float_unary {
    ($t:ty, $erf:path, $erfc:path) => {
        impl Float for $t {
            fn f(op: UnaryOp) -> fn($t) -> $t {
                use UnaryOp::*;
                match op {
                    Neg => |x| -x,
                    Abs => |x| x.abs(),
                    Sign => |x| {
                        if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            x * 0.0
                        }
                    },
                    Floor => |x| x.floor(),
                    Ceil => |x| x.ceil(),
                    Round => |x| x.round_ties_even(),
                    Trunc => |x| x.trunc(),
                    Frac => |x| x - x.trunc(),
                    Exp => |x| x.exp(),
                    Exp2 => |x| x.exp2(),
                    Expm1 => |x| x.exp_m1(),
                    Log => |x| x.ln(),
                    Log2 => |x| x.log2(),
                    Log10 => |x| x.log10(),
                    Log1p => |x| x.ln_1p(),
                    Sqrt => |x| x.sqrt(),
                    Rsqrt => |x| 1.0 / x.sqrt(),
                    Square => |x| x * x,
                    Reciprocal => |x| 1.0 / x,
                    Sin => |x| x.sin(),
                    Cos => |x| x.cos(),
                    Tan => |x| x.tan(),
                    Asin => |x| x.asin(),
                    Acos => |x| x.acos(),
                    Atan => |x| x.atan(),
                    Sinh => |x| x.sinh(),
                    Cosh => |x| x.cosh(),
                    Tanh => |x| x.tanh(),
                    Sigmoid => |x| 1.0 / (1.0 + (-x).exp()),
                    // log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable both ways
                    LogSigmoid => |x| x.min(0.0) - (-x.abs()).exp().ln_1p(),
                    // PyTorch's relu keeps NaN and -0
                    Relu => |x| if x < 0.0 { 0.0 } else { x },
                    // x Phi(x) through erfc: no cancellation for negative x
                    Gelu => |x| 0.5 * x * $erfc(-x * std::f64::consts::FRAC_1_SQRT_2 as $t),
                    // 0.5 x (1 + tanh(y)) = x sigmoid(2y), again without cancellation
                    GeluTanh => |x| {
                        let k = (2.0 / std::f64::consts::PI).sqrt() as $t;
                        x / (1.0 + (-2.0 * k * (x + 0.044715 * x * x * x)).exp())
                    },
                    Silu => |x| x / (1.0 + (-x).exp()),
                    Mish => |x| x * softplus_(x, 1.0, 20.0).tanh(),
                    Erf => |x| $erf(x),
                    Erfc => |x| $erfc(x),
                    // the predicates and bitwise ops are handled before dispatch
                    _ => |x| x,
                }
            }
        }
    };
}
float_unary!(f32, libm::erff, libm::erfcf);
float_unary!(f64, libm::erf, libm::erfc);

/// `softplus(x) = log(1 + exp(beta*x)) / beta`, linear above `threshold` (PyTorch's rule).
pub fn softplus_<T: Element + num_like::Real>(x: T, beta: T, threshold: T) -> T {
    let bx = x * beta;
    if bx > threshold {
        x
    } else {
        bx.exp().ln_1p() / beta
    }
}

/// The small part of float arithmetic the parameterised ops need generically.
pub mod num_like {
    pub trait Real:
        Copy
        + PartialOrd
        + std::ops::Add<Output = Self>
        + std::ops::Sub<Output = Self>
        + std::ops::Mul<Output = Self>
        + std::ops::Div<Output = Self>
    {
        fn exp(self) -> Self;
        fn ln_1p(self) -> Self;
        fn zero() -> Self;
        fn is_nan(self) -> bool;
    }
    macro_rules! real {
        ($t:ty) => {
            impl Real for $t {
                fn exp(self) -> Self {
                    <$t>::exp(self)
                }
                fn ln_1p(self) -> Self {
                    <$t>::ln_1p(self)
                }
                fn zero() -> Self {
                    0.0
                }
                fn is_nan(self) -> bool {
                    <$t>::is_nan(self)
                }
            }
        };
    }
    real!(f32);
    real!(f64);
}

/// Maps `f` over `x` (any layout) into a new tensor of element type `O` in `x`'s memory
/// order (PyTorch's rule for elementwise results, see [`Order`]).
pub fn map<S: Element, O: Element>(op: &str, x: &Tensor, f: impl Fn(S) -> O) -> Result<Tensor> {
    // every element is written: a recycled buffer needs no zeroing
    let mut out = try_output_vec::<O>(op, x.numel())?;
    // SAFETY: callers pass S = x.dtype(); `out` is a separate buffer.
    let src = unsafe { x.data::<S>() };
    let order = Order::of(x.shape(), &[&x.layout]);
    let (shape, strides) = (order.walk(x.shape()), order.walk(x.strides()));
    strided::copy_to_contiguous(src, &shape, &strides, x.layout.offset, &mut out, f);
    Tensor::from_vec_in(out, x.shape(), &order)
}

/// Applies a unary op with PyTorch's dtype rules: float math promotes integers and bool
/// to float32; sign/abs/rounding keep integer dtypes; predicates return bool.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    use UnaryOp::*;
    let dt = x.dtype();
    match op {
        IsNan | IsInf | IsPosInf | IsNegInf | IsFinite => {
            return crate::with_float_dtype!(
                dt,
                T,
                {
                    let f: fn(T) -> bool = match op {
                        IsNan => |v| v.is_nan(),
                        IsInf => |v| v.is_infinite(),
                        IsPosInf => |v| v == T::INFINITY,
                        IsNegInf => |v| v == T::NEG_INFINITY,
                        _ => |v| v.is_finite(),
                    };
                    map::<T, bool>(op.name(), x, f)
                },
                {
                    let v = op == IsFinite;
                    Tensor::full(
                        op.name(),
                        x.shape(),
                        crate::dtype::Scalar::Bool(v),
                        DType::Bool,
                    )
                }
            );
        }
        LogicalNot => {
            return crate::with_dtype!(dt, T, map::<T, bool>(op.name(), x, |v| !v.to_bool()));
        }
        BitwiseNot => {
            return match dt {
                DType::Bool => map::<bool, bool>(op.name(), x, |v| !v),
                DType::I64 => map::<i64, i64>(op.name(), x, |v| !v),
                _ => Err(Error::runtime(
                    op.name(),
                    format!(
                        "\"bitwise_not_cpu\" not implemented for '{}'",
                        dt.torch_name()
                    ),
                )),
            };
        }
        _ => {}
    }
    if dt.is_float() {
        return crate::with_float_dtype!(dt, T, float_unary::<T>(op, x), unreachable!());
    }
    // integer and bool inputs
    match (op, dt) {
        (Neg, DType::Bool) => Err(Error::runtime(
            "neg",
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying \
             to invert a mask, use the `~` or `logical_not()` operator instead.",
        )),
        (Neg, _) => map::<i64, i64>("neg", x, |v| v.wrapping_neg()),
        (Abs, DType::Bool) => Err(Error::dtype_not_implemented("abs_cpu", dt)),
        (Relu, DType::Bool) => Err(Error::not_implemented(
            "relu",
            "Boolean inputs not supported for relu",
        )),
        (Abs, _) => map::<i64, i64>("abs", x, |v| v.wrapping_abs()),
        (Relu, _) => map::<i64, i64>("relu", x, |v| v.max(0)),
        (Floor | Ceil | Round | Trunc, DType::Bool) => Err(Error::dtype_not_implemented(
            &format!("{}_vml_cpu", op.name()),
            dt,
        )),
        (Sign, DType::Bool) | (Floor | Ceil | Round | Trunc, _) => x.copy_as(dt),
        (Sign, _) => map::<i64, i64>("sign", x, |v| v.signum()),
        (Frac, _) => Err(Error::dtype_not_implemented("frac_cpu", dt)),
        (Gelu | GeluTanh, _) => Err(Error::dtype_not_implemented("GeluKernelImpl", dt)),
        (Silu, _) => Err(Error::dtype_not_implemented("silu_cpu", dt)),
        (Mish, _) => Err(Error::dtype_not_implemented("mish_cpu", dt)),
        (LogSigmoid, _) => Err(Error::dtype_not_implemented("log_sigmoid_cpu", dt)),
        (Square, _) => crate::with_dtype!(
            dt,
            T,
            map::<T, i64>("square", x, |v| {
                let i = v.to_i64();
                i.wrapping_mul(i)
            })
        ),
        _ => float_unary::<f32>(op, &x.to_dtype(DType::F32)?),
    }
}

/// Ops like softplus / leaky_relu / elu are only defined for floating inputs.
pub fn require_float(kernel: &str, x: &Tensor) -> Result<()> {
    if !x.dtype().is_float() {
        return Err(Error::dtype_not_implemented(kernel, x.dtype()));
    }
    Ok(())
}

/// Applies a float function with parameters (clamp, softplus, leaky_relu, ...): integer
/// inputs are computed in float32 unless `keep_int` says the op keeps integer dtypes.
pub fn map_float(
    op: &str,
    x: &Tensor,
    f32f: impl Fn(f32) -> f32,
    f64f: impl Fn(f64) -> f64,
) -> Result<Tensor> {
    match x.dtype() {
        DType::F64 => map::<f64, f64>(op, x, f64f),
        DType::F32 => map::<f32, f32>(op, x, f32f),
        _ => map::<f32, f32>(op, &x.to_dtype(DType::F32)?, f32f),
    }
}

/// Applies `op` in place (`x.exp_()`); the result must be castable to `x`'s dtype.
pub fn unary_(op: UnaryOp, x: &Tensor) -> Result<()> {
    let r = unary(op, x)?;
    if !crate::ops::binary::can_cast(r.dtype(), x.dtype()) {
        return Err(Error::runtime(
            &format!("{}_", op.name()),
            format!(
                "result type {} can't be cast to the desired output type {}",
                r.dtype().torch_name(),
                x.dtype().torch_name()
            ),
        ));
    }
    x.copy_from(&r)
}
