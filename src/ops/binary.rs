//! Elementwise binary ops with broadcasting and PyTorch's type promotion.
//!
//! All layouts go through the strided map (`kernels::strided::map2_par` and
//! `zip_inplace_par`); float add/sub/mul/div hand each contiguous or broadcast run to
//! the vector kernels (`kernels::simd`), and large outputs are split across threads.

use crate::dtype::{DType, Element, ResultType, Scalar};
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::pointwise::{self, Pointwise};
use crate::kernels::simd::{self, Arg};
use crate::kernels::strided::{self, Zip2, ZipFn, ZipInPlace};
use crate::kernels::{bessel, poly, special};
use crate::memory_order::Order;
use crate::shape::broadcast_shapes;
use crate::storage::try_output_vec;
use crate::tensor::Tensor;

/// What a binary row computes (the table's `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// a result in the promoted dtype
    Arith,
    /// `==`, `<`, ...: bool results
    Compare,
    /// `logical_and`, ...: bool results of truth values
    Logical,
    /// `&`, `|`, `^`: integers and bool only
    Bitwise,
}

/// The `Kernel` impl of a float type, given the table's `float` functions as match arms
/// (in which `T` is the element type).
macro_rules! float_kernel {
    ($t:ty, [$($arms:tt)*]) => {
        impl Kernel for $t {
            fn vector(op: BinaryOp, a: Arg<$t>, b: Arg<$t>, out: &mut [$t]) -> bool {
                vector_op(op).is_some_and(|v| simd::binary(v, a, b, out))
            }
            fn vector_inplace(op: BinaryOp, d: &mut [$t], b: Arg<$t>) -> bool {
                vector_op(op).is_some_and(|v| simd::binary_inplace(v, d, b))
            }
            fn arith(op: BinaryOp) -> fn($t, $t) -> $t {
                #[allow(clippy::upper_case_acronyms, dead_code)]
                type T = $t;
                match op {
                    $($arms)*
                }
            }
        }
    };
}

macro_rules! binary_rows {
    ($($v:ident { name: $name:literal, node: $node:literal, kind: $kind:ident,
        dunders: [$($dn:ident)*], methods: [$($meth:tt)*], other: $other:ident,
        cost: $cost:literal, simd: [$($simd:ident)?], float: $float:expr, int: $int:expr,
        bool: $bool:expr, grad: [$($grad:tt)*], nested: $nested:literal,
        doc: $doc:literal, ex: [$($ex:literal),*] })*) => {
        /// Every elementwise binary op: the rows of `binary_table!`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BinaryOp {
            $($v,)*
        }

        impl BinaryOp {
            /// PyTorch's name of the op (messages).
            pub fn name(self) -> &'static str {
                match self {
                    $(BinaryOp::$v => $name,)*
                }
            }
            /// The name of the op's backward node.
            pub fn node_name(self) -> &'static str {
                match self {
                    $(BinaryOp::$v => $node,)*
                }
            }
            pub fn kind(self) -> Kind {
                match self {
                    $(BinaryOp::$v => Kind::$kind,)*
                }
            }
            /// Rough cost per element relative to an add (parallel-split threshold).
            fn cost(self) -> usize {
                match self {
                    $(BinaryOp::$v => $cost,)*
                }
            }
        }

        /// The vector kernel of a float op, if it has one.
        fn vector_op(op: BinaryOp) -> Option<simd::Binary> {
            match op {
                $($(BinaryOp::$v => Some(simd::Binary::$simd),)?)*
                _ => None,
            }
        }

        float_kernel!(f32, [$(BinaryOp::$v => $float,)*]);
        float_kernel!(f64, [$(BinaryOp::$v => $float,)*]);

        impl Kernel for i64 {
            fn arith(op: BinaryOp) -> fn(i64, i64) -> i64 {
                match op {
                    $(BinaryOp::$v => $int,)*
                }
            }
        }

        impl Kernel for bool {
            fn arith(op: BinaryOp) -> fn(bool, bool) -> bool {
                match op {
                    $(BinaryOp::$v => $bool,)*
                }
            }
        }
    };
}
crate::ops::table::binary_table!(binary_rows);

impl BinaryOp {
    fn is_comparison(self) -> bool {
        self.kind() == Kind::Compare
    }
    fn is_logical(self) -> bool {
        self.kind() == Kind::Logical
    }
}

/// A binary operand: a tensor or a Python number.
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    T(&'a Tensor),
    S(Scalar),
}

impl Operand<'_> {
    fn shape(&self) -> &[usize] {
        match self {
            Operand::T(t) => t.shape(),
            Operand::S(_) => &[],
        }
    }
    /// The operand as a tensor of `dtype` (scalars become 0-d tensors).
    fn as_tensor(&self, dtype: DType) -> Result<Tensor> {
        match self {
            Operand::T(t) => t.to_dtype(dtype),
            Operand::S(s) => Ok(Tensor::scalar(*s, dtype)),
        }
    }
}

/// A float64 special function of two arguments (`kernels::special`) on elements of
/// type `T`: float32 results are the float64 value rounded once.
#[inline]
fn via64<T: Element>(a: T, b: T, f: fn(f64, f64) -> f64) -> T {
    T::from_f64(f(a.to_f64(), b.to_f64()))
}

/// The promoted dtype of two operands (PyTorch's `result_type`).
pub fn result_type(a: &Operand, b: &Operand) -> DType {
    let mut rt = ResultType::default();
    for o in [a, b] {
        rt = match o {
            Operand::T(t) => rt.tensor(t.dtype(), t.ndim()),
            Operand::S(s) => rt.scalar(*s),
        };
    }
    rt.finish()
}

/// (dtype the kernel computes in, dtype of the result). Storage-only dtypes (int8,
/// float16, ...) compute in their [`DType::compute`] type and convert back at the exit.
fn plan(op: BinaryOp, a: &Operand, b: &Operand) -> Result<(DType, DType)> {
    plan_types(op, a, b).map(|(compute, out)| (compute.compute(), out))
}

impl BinaryOp {
    /// The orthogonal polynomials of `torch.special` (`p(x, n)`).
    pub const POLYNOMIALS: [BinaryOp; 12] = [
        BinaryOp::SpecialChebyshevT,
        BinaryOp::SpecialChebyshevU,
        BinaryOp::SpecialChebyshevV,
        BinaryOp::SpecialChebyshevW,
        BinaryOp::SpecialShiftedChebyshevT,
        BinaryOp::SpecialShiftedChebyshevU,
        BinaryOp::SpecialShiftedChebyshevV,
        BinaryOp::SpecialShiftedChebyshevW,
        BinaryOp::SpecialHermiteH,
        BinaryOp::SpecialHermiteHe,
        BinaryOp::SpecialLaguerreL,
        BinaryOp::SpecialLegendreP,
    ];
}

/// The ops PyTorch only has float32 / float64 kernels for (the incomplete gamma
/// functions and the orthogonal polynomials); integer and bool operands promote.
fn no_half_kernel(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, Igamma | Igammac) || BinaryOp::POLYNOMIALS.contains(&op)
}

fn plan_types(op: BinaryOp, a: &Operand, b: &Operand) -> Result<(DType, DType)> {
    use BinaryOp::*;
    let common = result_type(a, b);
    let is_bool = |o: &Operand| match o {
        Operand::T(t) => t.dtype() == DType::Bool,
        Operand::S(s) => matches!(s, Scalar::Bool(_)),
    };
    Ok(match op {
        Div | Atan2 | Xlogy | SpecialXlog1py | SpecialZeta | Copysign | Ldexp => {
            (common.to_float(), common.to_float())
        }
        // float-only kernels (PyTorch's `"<op>_cpu" not implemented for 'Long'`);
        // nextafter's half types would need steps of their own width
        Hypot | Logaddexp | Logaddexp2 | Nextafter
            if !common.is_float()
                || (op == Nextafter && matches!(common, DType::F16 | DType::BF16)) =>
        {
            return Err(Error::dtype_not_implemented(
                &format!("{}_cpu", op.name()),
                common,
            ));
        }
        Gcd | Lcm | LeftShift | RightShift if common.is_float() || common == DType::Bool => {
            let kernel = match op {
                LeftShift => "lshift_cpu".to_string(),
                RightShift => "rshift_cpu".to_string(),
                _ => format!("{}_cpu", op.name()),
            };
            return Err(Error::dtype_not_implemented(&kernel, common));
        }
        Heaviside if operand_dtype(a, common) != operand_dtype(b, common) => {
            return Err(Error::runtime(
                "heaviside",
                "heaviside is not yet implemented for tensors with different dtypes.",
            ));
        }
        _ if no_half_kernel(op) => {
            // PyTorch's kernels of these ops exist for float32 / float64 only (and the
            // incomplete gamma functions do not promote integers)
            let t = if matches!(op, Igamma | Igammac) {
                common
            } else {
                common.to_float()
            };
            if t != DType::F32 && t != DType::F64 {
                let kernel = op.name().trim_start_matches("special_");
                return Err(Error::dtype_not_implemented(&format!("{kernel}_cpu"), t));
            }
            (t, t)
        }
        Eq | Ne | Lt | Le | Gt | Ge => (common, DType::Bool),
        LogicalAnd | LogicalOr | LogicalXor => (DType::Bool, DType::Bool),
        BitAnd | BitOr | BitXor => {
            if common.is_float() {
                return Err(Error::dtype_not_implemented(
                    &format!("{}_cpu", op.name()),
                    common,
                ));
            }
            (common, common)
        }
        Sub if is_bool(a) || is_bool(b) => {
            // PyTorch's two messages (a RuntimeError in both cases)
            let msg = if is_bool(a) && is_bool(b) {
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the \
                 `^` or `logical_xor()` operator instead."
            } else {
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are \
                 trying to invert a mask, use the `~` or `logical_not()` operator instead."
            };
            return Err(Error::runtime("sub", msg));
        }
        FloorDiv | Rem | Fmod | Pow if common == DType::Bool => {
            let kernel = match op {
                FloorDiv => "div_floor_cpu",
                Rem => "remainder_cpu",
                Fmod => "fmod_cpu",
                _ => "pow",
            };
            return Err(Error::dtype_not_implemented(kernel, DType::Bool));
        }
        _ => (common, common),
    })
}

/// A tensor operand's dtype (`common` for a Python number).
fn operand_dtype(o: &Operand, common: DType) -> DType {
    match o {
        Operand::T(t) => t.dtype(),
        Operand::S(_) => common,
    }
}

/// Validates an op's operand dtypes without computing it (e.g. `sub` with a bool operand
/// before `alpha` scaling changes the operand's dtype).
pub fn check_dtypes(op: BinaryOp, a: &Operand, b: &Operand) -> Result<()> {
    plan(op, a, b).map(|_| ())
}

/// PyTorch evaluates `x ** c` for a few constant exponents with dedicated functions
/// (sqrt, square, reciprocal, ...), which differ from `powf` at -inf and -0.
fn special_pow(a: &Operand, b: &Operand) -> Result<Option<Tensor>> {
    use crate::ops::unary::{unary, UnaryOp};
    let (Operand::T(x), Operand::S(e)) = (a, b) else {
        return Ok(None);
    };
    if !x.dtype().is_float() {
        return Ok(None);
    }
    let e = e.to_f64();
    let op = if e == 0.5 {
        UnaryOp::Sqrt
    } else if e == -0.5 {
        UnaryOp::Rsqrt
    } else if e == 2.0 {
        UnaryOp::Square
    } else if e == -1.0 {
        UnaryOp::Reciprocal
    } else {
        return Ok(None);
    };
    Ok(Some(unary(op, x)?))
}

/// `a op b` with broadcasting; the core of `+ - * / // % **`, comparisons and friends.
pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape()).map_err(|e| {
        Error::runtime(
            op.name(),
            format!(
                "{} (shapes {} and {})",
                e.msg,
                fmt_shape(a.shape()),
                fmt_shape(b.shape())
            ),
        )
    })?;
    let (common, out) = plan_types(op, &a, &b)?;
    let compute = common.compute();
    if op == BinaryOp::Pow {
        if let Some(r) = special_pow(&a, &b)? {
            return Ok(r);
        }
    }
    let ta = operand_in(op, &a, common)?;
    let tb = operand_in(op, &b, common)?;
    check_operands(op, &b, &tb, compute)?;
    let la = ta.layout.broadcast_to(&shape)?;
    let lb = tb.layout.broadcast_to(&shape)?;
    let n = crate::shape::checked_numel(op.name(), &shape)?;
    // the result takes the operands' memory order; the kernel walks the dims in it
    let order = Order::of(&shape, &[&ta.layout, &tb.layout]);
    let walk_shape = order.walk(&shape);
    let (wa, wb) = (order.walk(&la.strides), order.walk(&lb.strides));
    let result = crate::with_compute_dtype!(
        compute,
        T,
        {
            // SAFETY: both operands were converted to dtype `compute` = T.
            let (xa, xb) = unsafe { (ta.data::<T>(), tb.data::<T>()) };
            let sa = (&wa[..], la.offset);
            let sb = (&wb[..], lb.offset);
            if op.is_comparison() || op.is_logical() {
                let mut dst = try_output_vec::<bool>(op.name(), n)?;
                let k = ZipFn(<T as Kernel>::predicate(op));
                strided::map2_par(xa, sa, xb, sb, &walk_shape, &mut dst, 1, &k);
                Tensor::from_vec_in(dst, &shape, &order)?
            } else {
                let mut dst = try_output_vec::<T>(op.name(), n)?;
                let k = Arith::<T>::new(op);
                strided::map2_par(xa, sa, xb, sb, &walk_shape, &mut dst, k.cost(), &k);
                Tensor::from_vec_in(dst, &shape, &order)?
            }
        },
        return Err(no_kernel(op, compute))
    );
    if result.dtype() != out {
        result.to_dtype(out)
    } else {
        Ok(result)
    }
}

/// An operand converted to the compute dtype of the op's `common` dtype. For a
/// storage-only `common` dtype the operand is first converted to `common` itself, as
/// PyTorch casts every operand to the common dtype (a Python int wraps to int8: `x == 1000`
/// compares with -24, as in PyTorch), except that half-type add, sub, mul, div and
/// floor division read a one-element operand's original value in float32 (PyTorch's
/// `original_scalar_value<opmath_t>`).
fn operand_in(op: BinaryOp, o: &Operand, common: DType) -> Result<Tensor> {
    use BinaryOp::*;
    let compute = common.compute();
    if common == compute {
        return o.as_tensor(compute);
    }
    let single = match o {
        Operand::S(_) => true,
        Operand::T(t) => t.numel() == 1,
    };
    if common.is_float() && single && matches!(op, Add | Sub | Mul | Div | FloorDiv) {
        return o.as_tensor(compute);
    }
    o.as_tensor(common)?.to_dtype(compute)
}

/// In-place `a op= b`: the result must be castable to `a`'s dtype, `b` broadcasts to `a`.
pub fn binary_(op: BinaryOp, a: &Tensor, b: Operand) -> Result<()> {
    let name = format!("{}_", op.name());
    a.check_writable(&name)?;
    let (compute, out) = plan(op, &Operand::T(a), &b)?;
    if !can_cast(out, a.dtype()) {
        return Err(Error::runtime(
            &name,
            format!(
                "result type {} can't be cast to the desired output type {}",
                out.torch_name(),
                a.dtype().torch_name()
            ),
        ));
    }
    let shape = a.shape().to_vec();
    let bs = broadcast_shapes(&shape, b.shape())
        .ok()
        .filter(|s| s.as_slice() == shape.as_slice());
    if bs.is_none() {
        return Err(Error::runtime(
            &name,
            format!(
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_shape(&shape),
                fmt_shape(&broadcast_shapes(&shape, b.shape()).unwrap_or_default())
            ),
        ));
    }
    if op == BinaryOp::Pow {
        // `x **= 0.5` is sqrt in place too, as the out-of-place form
        if let Some(r) = special_pow(&Operand::T(a), &b)? {
            return a.copy_from(&r);
        }
    }
    // Fast path: same dtype throughout, `b` does not alias `a`.
    let simple =
        compute == a.dtype() && out == a.dtype() && !op.is_comparison() && !op.is_logical();
    let tb = b.as_tensor(compute)?;
    check_operands(op, &b, &tb, compute)?;
    a.check_no_partial_overlap(&tb, &name)?;
    if simple {
        let tb = if tb.shares_storage(a) {
            tb.copy_as(compute)?
        } else {
            tb
        };
        let lb = tb.layout.broadcast_to(&shape)?;
        crate::with_compute_dtype!(
            compute,
            T,
            {
                // SAFETY: `tb` has dtype T and its own storage; `a` has dtype T.
                let d = unsafe { a.data_mut::<T>() };
                let s = unsafe { tb.data::<T>() };
                let k = Arith::<T>::new(op);
                strided::zip_inplace_par(
                    d,
                    (a.strides(), a.layout.offset),
                    s,
                    (&lb.strides, lb.offset),
                    &shape,
                    k.cost(),
                    &k,
                );
            },
            return Err(no_kernel(op, compute))
        );
        a.storage.bump_version();
        return Ok(());
    }
    let r = binary(op, Operand::T(a), b)?;
    a.copy_from(&r)
}

/// `plan` hands kernels compute dtypes only; this is the error if that ever broke.
fn no_kernel(op: BinaryOp, d: DType) -> Error {
    Error::runtime(op.name(), format!("internal: no kernel for {d}"))
}

/// Whether PyTorch allows writing a `from` result into a `to` tensor in place.
pub fn can_cast(from: DType, to: DType) -> bool {
    from.can_cast_to(to)
}

/// Integer division by zero is an error in PyTorch; so are negative integer *scalar*
/// powers (tensor exponents give 0, 1 or -1 like C integer arithmetic).
fn check_operands(op: BinaryOp, bo: &Operand, b: &Tensor, compute: DType) -> Result<()> {
    if compute != DType::I64 {
        return Ok(());
    }
    match op {
        BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Fmod if b.to_vec::<i64>()?.contains(&0) => {
            return Err(Error::runtime(op.name(), "ZeroDivisionError"));
        }
        BinaryOp::Pow
            if matches!(bo, Operand::S(_)) && b.to_vec::<i64>()?.iter().any(|&e| e < 0) =>
        {
            return Err(Error::runtime(
                "pow",
                "Integers to negative integer powers are not allowed.",
            ));
        }
        _ => {}
    }
    Ok(())
}

/// An arithmetic op on runs: the vector kernel where the dtype has one, else `f`.
struct Arith<T> {
    op: BinaryOp,
    f: fn(T, T) -> T,
}

impl<T: Kernel> Arith<T> {
    fn new(op: BinaryOp) -> Arith<T> {
        Arith {
            op,
            f: T::arith(op),
        }
    }
    fn cost(&self) -> usize {
        self.op.cost()
    }
}

impl<T: Kernel> Zip2<T, T, T> for Arith<T> {
    #[inline]
    fn one(&self, a: T, b: T) -> T {
        (self.f)(a, b)
    }
    fn vv(&self, a: &[T], b: &[T], out: &mut [T]) {
        if !T::vector(self.op, Arg::Slice(a), Arg::Slice(b), out) {
            Zip2::vv(&ZipFn(self.f), a, b, out);
        }
    }
    fn vs(&self, a: &[T], b: T, out: &mut [T]) {
        if !T::vector(self.op, Arg::Slice(a), Arg::Scalar(b), out) {
            Zip2::vs(&ZipFn(self.f), a, b, out);
        }
    }
    fn sv(&self, a: T, b: &[T], out: &mut [T]) {
        if !T::vector(self.op, Arg::Scalar(a), Arg::Slice(b), out) {
            Zip2::sv(&ZipFn(self.f), a, b, out);
        }
    }
}

impl<T: Kernel> ZipInPlace<T, T> for Arith<T> {
    #[inline]
    fn one(&self, d: T, b: T) -> T {
        (self.f)(d, b)
    }
    fn vv(&self, d: &mut [T], b: &[T]) {
        if !T::vector_inplace(self.op, d, Arg::Slice(b)) {
            ZipInPlace::vv(&ZipFn(self.f), d, b);
        }
    }
    fn vs(&self, d: &mut [T], b: T) {
        if !T::vector_inplace(self.op, d, Arg::Scalar(b)) {
            ZipInPlace::vs(&ZipFn(self.f), d, b);
        }
    }
}

/// Per-dtype elementwise semantics (PyTorch's, which follow Python for `//` and `%`).
pub trait Kernel: Element {
    fn arith(op: BinaryOp) -> fn(Self, Self) -> Self;
    /// `out = a op b` with a vector kernel; false (nothing written) when there is none.
    fn vector(_op: BinaryOp, _a: Arg<Self>, _b: Arg<Self>, _out: &mut [Self]) -> bool {
        false
    }
    /// `d = d op b` with a vector kernel; false (nothing written) when there is none.
    fn vector_inplace(_op: BinaryOp, _d: &mut [Self], _b: Arg<Self>) -> bool {
        false
    }
    fn predicate(op: BinaryOp) -> fn(Self, Self) -> bool {
        use BinaryOp::*;
        match op {
            Eq => |a, b| a == b,
            Ne => |a, b| a != b,
            Lt => |a, b| a < b,
            Le => |a, b| a <= b,
            Gt => |a, b| a > b,
            Ge => |a, b| a >= b,
            LogicalAnd => |a, b| a.to_bool() && b.to_bool(),
            LogicalOr => |a, b| a.to_bool() || b.to_bool(),
            _ => |a, b| a.to_bool() ^ b.to_bool(),
        }
    }
}

/// Python's floor division and remainder for floats (PyTorch follows Python for `//`
/// and `%`).
trait FloorRem: Sized {
    fn floor_div(a: Self, b: Self) -> Self;
    fn py_rem(a: Self, b: Self) -> Self;
}

macro_rules! floor_rem {
    ($t:ty) => {
        impl FloorRem for $t {
            fn floor_div(a: $t, b: $t) -> $t {
                if b == 0.0 {
                    return a / b;
                }
                let m = a % b;
                let mut div = (a - m) / b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                    div -= 1.0;
                }
                if div != 0.0 {
                    let f = div.floor();
                    if div - f > 0.5 {
                        f + 1.0
                    } else {
                        f
                    }
                } else {
                    (0.0 as $t).copysign(a / b)
                }
            }
            fn py_rem(a: $t, b: $t) -> $t {
                let m = a % b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                    m + b
                } else {
                    m
                }
            }
        }
    };
}
floor_rem!(f32);
floor_rem!(f64);

// zero divisors are rejected before the integer kernels run
fn floor_div_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn rem_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// C-like integer powers; negative exponents give 0 except for bases 1 and -1.
fn pow_i64(a: i64, b: i64) -> i64 {
    if b >= 0 {
        a.wrapping_pow(b.min(u32::MAX as i64) as u32)
    } else {
        match a {
            1 => 1,
            -1 if b & 1 == 1 => -1,
            -1 => 1,
            _ => 0,
        }
    }
}
