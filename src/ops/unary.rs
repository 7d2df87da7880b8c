//! Elementwise unary ops. Each op is one row of `UnaryOp` plus its scalar function; the
//! generic strided map does the rest. Float ops with a vector kernel (`kernels::simd`:
//! exp, log, tanh, sigmoid, silu, erf, gelu, relu, neg, abs, sqrt, ...) run it on every
//! contiguous run, whatever the input's layout, so a value's result never depends on
//! the layout it was read from; large tensors are split across ferric's threads.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::simd::{self, SimdFloat};
use crate::kernels::strided::{self, Map1, MapFn};
use crate::kernels::{bessel, special};
use crate::memory_order::Order;
use crate::shape::broadcast_shapes;
use crate::storage::{try_output_vec, try_zeroed_vec};
use crate::tensor::Tensor;

/// What an op does with integer (int64) inputs.
pub enum OnInt {
    /// computes in float32 (PyTorch's promotion for float math)
    Float,
    /// the input values, unchanged (rounding ops)
    Copy,
    /// this function, keeping the integer dtype
    Map(fn(i64) -> i64),
    /// PyTorch's `"<kernel>" not implemented for 'Long'`
    Kernel(&'static str),
}

/// What an op does with bool inputs.
pub enum OnBool {
    Float,
    Copy,
    /// the integer rule applied to 0/1, giving int64 (`square`)
    Int,
    Kernel(&'static str),
    /// a RuntimeError with this message
    Runtime(&'static str),
    /// a NotImplementedError with this message
    NotImplemented(&'static str),
}

macro_rules! unary_rows {
    (math: [$($v:ident { name: $name:literal, methods: [$($meth:tt)*], fn_inplace: $fi:literal,
        cost: $cost:literal, simd: [$($simd:ident)?], float: $float:expr,
        ints: $ints:expr, bools: $bools:expr, grad: [$($grad:tt)*], nested: $nested:literal,
        doc: $doc:literal, ex: [$($ex:literal),*] })*]
     predicates: [$($p:ident { name: $pname:ident, test: $test:expr, other: $other:literal,
        doc: $pdoc:literal, ex: [$($pex:literal),*] })*]) => {
        /// Every elementwise unary op: the rows of `unary_table!` (math, then
        /// predicates), then the two logical/bitwise negations.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum UnaryOp {
            $($v,)*
            $($p,)*
            LogicalNot,
            BitwiseNot,
        }

        impl UnaryOp {
            /// PyTorch's name of the op (messages, node names).
            pub fn name(self) -> &'static str {
                use UnaryOp::*;
                match self {
                    $($v => $name,)*
                    $($p => stringify!($pname),)*
                    LogicalNot => "logical_not",
                    BitwiseNot => "bitwise_not",
                }
            }
            /// The float math ops (the table's `math` rows).
            pub const MATH: &'static [UnaryOp] = &[$(UnaryOp::$v,)*];
            /// Whether the op is one of the table's `predicates` rows.
            fn is_predicate(self) -> bool {
                matches!(self, $(UnaryOp::$p)|*)
            }
        }

        /// `op(x)` for a predicate row.
        fn predicate(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
            crate::with_float_dtype!(
                x.dtype(),
                T,
                {
                    let f: fn(T) -> bool = match op {
                        $(UnaryOp::$p => $test,)*
                        _ => |_| false,
                    };
                    map::<T, bool>(op.name(), x, f)
                },
                {
                    let v = match op {
                        $(UnaryOp::$p => $other,)*
                        _ => false,
                    };
                    Tensor::full(op.name(), x.shape(), crate::dtype::Scalar::Bool(v), DType::Bool)
                }
            )
        }

        /// The vector kernel of `op`, if it has one (float64 lacks some; see
        /// `kernels::simd`).
        fn vector_op(op: UnaryOp) -> Option<simd::Unary> {
            match op {
                $($(UnaryOp::$v => Some(simd::Unary::$simd),)?)*
                _ => None,
            }
        }

        /// Rough cost per element relative to an add, for the parallel-split threshold.
        fn cost(op: UnaryOp) -> usize {
            match op {
                $(UnaryOp::$v => $cost,)*
                _ => 16,
            }
        }

        fn on_int(op: UnaryOp) -> OnInt {
            use OnInt::*;
            match op {
                $(UnaryOp::$v => $ints,)*
                _ => Float,
            }
        }

        fn on_bool(op: UnaryOp) -> OnBool {
            use OnBool::*;
            match op {
                $(UnaryOp::$v => $bools,)*
                _ => Float,
            }
        }

        macro_rules! float_fns {
            ($t:ty, $erf:path, $erfc:path) => {
                impl Float for $t {
                    fn f(op: UnaryOp) -> fn($t) -> $t {
                        #[allow(clippy::upper_case_acronyms, dead_code)]
                        type T = $t;
                        match op {
                            $(UnaryOp::$v => $float,)*
                            // the predicates and bitwise ops are handled before dispatch
                            _ => |x| x,
                        }
                    }
                    fn erf_(x: $t) -> $t {
                        $erf(x)
                    }
                    fn erfc_(x: $t) -> $t {
                        $erfc(x)
                    }
                }
            };
        }
    };
}

crate::ops::table::unary_table!(unary_rows);

/// Floating-point math shared by f32 and f64: the scalar function of each op (used for
/// ops without a vector kernel, and for parameterised variants).
pub trait Float: Element + SimdFloat + std::ops::Neg<Output = Self> {
    fn f(op: UnaryOp) -> fn(Self) -> Self;
    fn erf_(x: Self) -> Self;
    fn erfc_(x: Self) -> Self;
}

/// A float64 special function (`kernels::special`) applied to an element of type `T`:
/// float32 results are the float64 value rounded once.
#[inline]
fn via64<T: Element>(x: T, f: fn(f64) -> f64) -> T {
    T::from_f64(f(x.to_f64()))
}

/// PyTorch's sign, `(0 < x) - (x < 0)`: -1, 0 or 1; NaN and -0. give +0.
fn sign<T: Element + num_like::Real>(x: T) -> T {
    let zero = T::zero();
    if x > zero {
        T::one()
    } else if x < zero {
        -T::one()
    } else {
        zero
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

float_fns!(f32, libm::erff, libm::erfcf);
float_fns!(f64, libm::erf, libm::erfc);

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
        + std::ops::Neg<Output = Self>
    {
        fn exp(self) -> Self;
        fn ln_1p(self) -> Self;
        fn sqrt(self) -> Self;
        fn zero() -> Self;
        fn one() -> Self;
        /// `v` rounded to this type.
        fn of(v: f64) -> Self;
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
                fn sqrt(self) -> Self {
                    <$t>::sqrt(self)
                }
                fn zero() -> Self {
                    0.0
                }
                fn one() -> Self {
                    1.0
                }
                fn of(v: f64) -> Self {
                    v as $t
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

/// PyTorch's kernel name of the ops that have float32 / float64 kernels only (the
/// Bessel-type functions of `torch.special`).
fn no_half_kernel(op: UnaryOp) -> Option<&'static str> {
    use UnaryOp::*;
    Some(match op {
        SpecialAiryAi => "airy_ai_cpu",
        SpecialBesselJ0 => "bessel_j0_cpu",
        SpecialBesselJ1 => "bessel_j1_cpu",
        SpecialBesselY0 => "bessel_y0_cpu",
        SpecialBesselY1 => "bessel_y1_cpu",
        SpecialModifiedBesselI0 => "modified_bessel_i0_cpu",
        SpecialModifiedBesselI1 => "modified_bessel_i1_cpu",
        SpecialModifiedBesselK0 => "modified_bessel_k0_cpu",
        SpecialModifiedBesselK1 => "modified_bessel_k1_cpu",
        SpecialScaledModifiedBesselK0 => "scaled_modified_bessel_k0_cpu",
        SpecialScaledModifiedBesselK1 => "scaled_modified_bessel_k1_cpu",
        SpecialSphericalBesselJ0 => "spherical_bessel_j0_cpu",
        _ => return None,
    })
}

/// Applies a unary op with PyTorch's dtype rules: float math promotes integers and bool
/// to float32; sign/abs/rounding keep integer dtypes; predicates return bool.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    use UnaryOp::*;
    let dt = x.dtype();
    if let Some(kernel) = no_half_kernel(op) {
        if dt.is_float() && dt != DType::F32 && dt != DType::F64 {
            return Err(Error::dtype_not_implemented(kernel, dt));
        }
    }
    if !dt.is_compute() {
        return crate::ops::compute::unary(x, |c| unary(op, c));
    }
    match op {
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
        _ if op.is_predicate() => return predicate(op, x),
        _ => {}
    }
    if dt.is_float() {
        return crate::with_float_dtype!(dt, T, float_unary::<T>(op, x), unreachable!());
    }
    // integer and bool inputs: the row's dtype rules
    if dt == DType::Bool {
        match on_bool(op) {
            OnBool::Float => {}
            OnBool::Copy => return x.copy_as(dt),
            OnBool::Int => return int_rule(op, x),
            OnBool::Kernel(k) => return Err(Error::dtype_not_implemented(k, dt)),
            OnBool::Runtime(msg) => return Err(Error::runtime(op.name(), msg)),
            OnBool::NotImplemented(msg) => return Err(Error::not_implemented(op.name(), msg)),
        }
    } else {
        return int_rule(op, x);
    }
    unary(op, &x.to_dtype(crate::dtype::default_float())?)
}

/// `op(x)` for an integer (or, through `OnBool::Int`, bool) tensor.
fn int_rule(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let dt = x.dtype();
    match on_int(op) {
        OnInt::Float => unary(op, &x.to_dtype(crate::dtype::default_float())?),
        OnInt::Copy => x.copy_as(dt),
        OnInt::Map(f) => crate::with_dtype!(dt, T, map::<T, i64>(op.name(), x, |v| f(v.to_i64()))),
        OnInt::Kernel(k) => Err(Error::dtype_not_implemented(k, dt)),
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
    if matches!(x.dtype(), DType::F16 | DType::BF16) {
        return crate::ops::compute::unary(x, |c| map_float(op, c, f32f, f64f));
    }
    match x.dtype() {
        DType::F64 => map::<f64, f64>(op, x, f64f),
        DType::F32 => map::<f32, f32>(op, x, f32f),
        _ => map::<f32, f32>(op, &x.to_dtype(DType::F32)?, f32f),
    }
}

/// Applies `op` in place (`x.exp_()`); the result must be castable to `x`'s dtype.
pub fn unary_(op: UnaryOp, x: &Tensor) -> Result<()> {
    let r = unary(op, x)?;
    if !r.dtype().can_cast_to(x.dtype()) {
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

/// `x` with elements zeroed where `cond` (broadcast against `x`) is true.
pub fn masked_zero(x: &Tensor, cond: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes(x.shape(), cond.shape())?;
    let lx = x.layout.broadcast_to(&shape)?;
    let c = cond.to_dtype(DType::Bool)?;
    let lc = c.layout.broadcast_to(&shape)?;
    let n = crate::shape::checked_numel("masked_fill", &shape)?;
    crate::with_dtype!(x.dtype(), T, {
        let mut dst = try_zeroed_vec::<T>("masked_fill", n)?;
        // SAFETY: dtypes match the slices; dst is fresh.
        let (xs, cs) = unsafe { (x.data::<T>(), c.data::<bool>()) };
        strided::map2(
            xs,
            (&lx.strides, lx.offset),
            cs,
            (&lc.strides, lc.offset),
            &shape,
            &mut dst,
            |v, m| if m { T::default() } else { v },
        );
        Tensor::from_vec(dst, &shape)
    })
}
