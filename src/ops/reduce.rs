//! Reductions (sum, mean, prod, max/min, argmax/argmin, var/std, logsumexp, norm,
//! all/any), scans (cumsum, cumprod, cummax/cummin) and softmax on `Tensor`.
//!
//! Each op checks its arguments and picks dtypes the way PyTorch does, then makes one
//! call into the generic reduction driver (`kernels::reduce::reduce`) with a reducer, or
//! into `kernels::reduce::scan`. Outputs are fresh contiguous tensors.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::reduce::{
    conv, fold, is_nan, max_nan, min_nan, reduce, reduce_into, ArgBest, FastSum, Float, LogSumExp,
    Num, Reducer, Welford,
};
use crate::ops::compute;
use crate::shape::{normalize_dim, normalize_dims, Dims};
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;
use smallvec::SmallVec;

/// Runs `$body` with `$A` the accumulator type for output dtype `$d` (bool and
/// integer outputs accumulate in i64, float16 and bfloat16 in f32 as in PyTorch; the
/// callers convert the accumulated result to `$d`).
macro_rules! with_acc {
    ($d:expr, $A:ident, $body:expr) => {
        match $d {
            DType::F32 | DType::F16 | DType::BF16 => {
                type $A = f32;
                $body
            }
            DType::F64 => {
                type $A = f64;
                $body
            }
            _ => {
                type $A = i64;
                $body
            }
        }
    };
}

/// Which dims a reduction removes and the shape it produces.
pub struct Plan {
    pub reduced: SmallVec<[bool; 6]>,
    pub out_shape: Dims,
    pub n_out: usize,
}

impl Plan {
    /// `dims` None or empty reduces everything; negative dims wrap; repeats are an error.
    /// A 0-d tensor accepts dim 0 / -1 and stays 0-d.
    pub fn new(x: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Plan> {
        let nd = x.ndim();
        let mut reduced: SmallVec<[bool; 6]> = SmallVec::from_elem(false, nd);
        match dims {
            Some(ds) if !ds.is_empty() => {
                // PyTorch names no op in this message
                for d in normalize_dims("", ds, nd)? {
                    if nd > 0 {
                        reduced[d] = true;
                    }
                }
            }
            _ => reduced.fill(true),
        }
        let mut out_shape = Dims::new();
        for (d, &r) in reduced.iter().enumerate() {
            if !r {
                out_shape.push(x.shape()[d]);
            } else if keepdim {
                out_shape.push(1);
            }
        }
        let n_out = out_shape.iter().product();
        Ok(Plan {
            reduced,
            out_shape,
            n_out,
        })
    }
}

/// Runs reducer `r` over `x` (whose dtype must be `S`) and builds the output from
/// `fin(accumulator, reduced_count)`; large inputs are split across ferric's pool by
/// output elements (results do not depend on the thread count).
fn run<S: Element, O: Element, R: Reducer<S> + Sync>(
    op: &str,
    x: &Tensor,
    plan: &Plan,
    r: &R,
    fin: impl Fn(R::Acc, usize) -> O + Sync,
) -> Result<Tensor> {
    debug_assert_eq!(S::DTYPE, x.dtype());
    let mut out = try_zeroed_vec::<O>(op, plan.n_out)?;
    // SAFETY: callers dispatch on x.dtype(), so S is the storage's element type.
    let src = unsafe { x.data::<S>() };
    let l = &x.layout;
    reduce_into(
        r,
        src,
        &l.shape,
        &l.strides,
        l.offset,
        &plan.reduced,
        &mut out,
        fin,
    );
    Tensor::from_vec(out, &plan.out_shape)
}

/// The dtype sum/prod/cumsum produce: `dtype` if given, else int64 for integers and bool.
fn int_promoted(d: DType, dtype: Option<DType>) -> DType {
    dtype.unwrap_or(if d.is_float() { d } else { DType::I64 })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SumKind {
    Sum,
    NanSum,
    Mean,
    Prod,
}

/// sum / nansum / mean / prod of `x` computed in dtype `od` (the input is converted
/// element by element, which is what PyTorch's cast-then-reduce amounts to).
fn sum_like(op: &str, x: &Tensor, plan: &Plan, od: DType, kind: SumKind) -> Result<Tensor> {
    if od == x.dtype() && matches!(kind, SumKind::Sum | SumKind::Mean) {
        // a float summed in its own type: the SIMD block sum
        let mean = kind == SumKind::Mean;
        let fin = move |a: f64, n: usize| if mean { a / n as f64 } else { a };
        match od {
            DType::F32 => {
                return run::<f32, f32, _>(op, x, plan, &FastSum::default(), |a, n| {
                    if mean {
                        fin(a as f64, n) as f32
                    } else {
                        a
                    }
                })
            }
            DType::F64 => {
                return run::<f64, f64, _>(op, x, plan, &FastSum::default(), fin);
            }
            _ => {}
        }
    }
    let t = crate::with_dtype!(
        x.dtype(),
        S,
        with_acc!(od, A, {
            if kind == SumKind::Prod {
                let r = fold(A::ONE, conv::<S, A>, A::mul, false);
                run::<S, A, _>(op, x, plan, &r, |a, _| a)
            } else {
                let nan_to_zero = |v: S| {
                    let a: A = conv(v);
                    if is_nan(a) {
                        A::ZERO
                    } else {
                        a
                    }
                };
                if kind == SumKind::NanSum {
                    let r = fold(A::ZERO, nan_to_zero, A::add, A::FLOAT);
                    return run::<S, A, _>(op, x, plan, &r, |a, _| a)?.to_dtype(od);
                }
                let r = fold(A::ZERO, conv::<S, A>, A::add, A::FLOAT);
                if kind == SumKind::Mean {
                    run::<S, A, _>(op, x, plan, &r, |a, n| A::from_f64(a.to_f64() / n as f64))
                } else {
                    run::<S, A, _>(op, x, plan, &r, |a, _| a)
                }
            }
        })
    )?;
    // a bool result (dtype=bool) is computed in int64 and converted
    t.to_dtype(od)
}

/// The reductions whose integer and bool inputs accumulate in int64 (sum, nansum, prod).
fn int_promoting(
    op: &str,
    kind: SumKind,
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let plan = Plan::new(x, dims, keepdim)?;
    sum_like(op, x, &plan, int_promoted(x.dtype(), dtype), kind)
}

/// `x.sum(dim, keepdim, dtype=)`: integers and bool sum in int64.
pub fn sum(
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    int_promoting("sum", SumKind::Sum, x, dims, keepdim, dtype)
}

/// `x.nansum(...)`: like sum, with NaNs counted as zero.
pub fn nansum(
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    int_promoting("nansum", SumKind::NanSum, x, dims, keepdim, dtype)
}

/// `x.prod(dim, keepdim, dtype=)` (PyTorch's prod takes at most one dim).
pub fn prod(x: &Tensor, dim: Option<i64>, keepdim: bool, dtype: Option<DType>) -> Result<Tensor> {
    let dims = dim.map(|d| [d]);
    int_promoting(
        "prod",
        SumKind::Prod,
        x,
        dims.as_ref().map(|d| &d[..]),
        keepdim,
        dtype,
    )
}

/// `x.mean(...)`: floating dtypes only; an empty slice gives NaN.
pub fn mean(
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let (what, d) = match dtype {
        Some(d) => ("Optional", d),
        None => ("Input", x.dtype()),
    };
    if !d.is_float() {
        return Err(Error::runtime(
            "",
            format!(
                "mean(): could not infer output dtype. {what} dtype must be either a floating \
                 point or complex dtype. Got: {}",
                d.torch_name()
            ),
        ));
    }
    let plan = Plan::new(x, dims, keepdim)?;
    sum_like("mean", x, &plan, d, SumKind::Mean)
}

/// `x.nanmean(...)`: the mean of the non-NaN elements.
pub fn nanmean(
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return Err(Error::runtime(
            "",
            format!(
                "nanmean(): expected input to have floating point or complex dtype but got {}",
                x.dtype().torch_name()
            ),
        ));
    }
    let od = dtype.unwrap_or(x.dtype());
    let plan = Plan::new(x, dims, keepdim)?;
    let t = crate::with_dtype!(
        x.dtype(),
        S,
        with_acc!(od, A, {
            // (sum, count) pairs, summed pairwise
            let map = |v: S| {
                let a: A = conv(v);
                if is_nan(a) {
                    (A::ZERO, 0.0)
                } else {
                    (a, 1.0)
                }
            };
            let add = |p: (A, f64), q: (A, f64)| (p.0.add(q.0), p.1 + q.1);
            let r = fold((A::ZERO, 0.0), map, add, true);
            run::<S, A, _>("nanmean", x, &plan, &r, |(s, c), _| {
                A::from_f64(s.to_f64() / c)
            })
        })
    )?;
    t.to_dtype(od)
}

/// PyTorch's check that a reduction without identity (max, argmax...) has elements:
/// a full reduction of an empty tensor is a RuntimeError, an empty reduced dim an
/// IndexError naming the dim as the user wrote it.
fn check_nonempty(op: &str, x: &Tensor, dims: Option<&[i64]>, shown: &[i64]) -> Result<()> {
    if x.numel() != 0 {
        return Ok(());
    }
    match dims {
        Some(ds) if !ds.is_empty() => {
            for (&d, &s) in ds.iter().zip(shown) {
                let nd = normalize_dim(d, x.ndim())?;
                if x.shape().get(nd) == Some(&0) {
                    return Err(Error::index(
                        "",
                        format!("{op}: Expected reduction dim {s} to have non-zero size."),
                    ));
                }
            }
            Ok(())
        }
        _ => Err(Error::runtime(
            "",
            format!(
                "{op}: Expected reduction dim to be specified for input.numel() == 0. Specify \
                 the reduction dim with the 'dim' argument."
            ),
        )),
    }
}

/// `amax` (`max` true) or `amin` over `dims` (empty = all), NaN-propagating.
pub fn amax(x: &Tensor, dims: &[i64], keepdim: bool, max: bool) -> Result<Tensor> {
    let op = if max { "amax()" } else { "amin()" };
    check_nonempty(op, x, Some(dims), dims)?;
    if !x.dtype().is_compute() {
        return compute::unary(x, |c| amax(c, dims, keepdim, max));
    }
    let plan = Plan::new(x, Some(dims), keepdim)?;
    crate::with_compute_dtype!(
        x.dtype(),
        T,
        {
            if max {
                run::<T, T, _>(
                    op,
                    x,
                    &plan,
                    &fold(T::LOWEST, |v: T| v, max_nan, false),
                    |a, _| a,
                )
            } else {
                run::<T, T, _>(
                    op,
                    x,
                    &plan,
                    &fold(T::HIGHEST, |v: T| v, min_nan, false),
                    |a, _| a,
                )
            }
        },
        Err(not_compute(op, x))
    )
}

/// The error of a kernel reached with a storage-only dtype (ops convert those first).
fn not_compute(op: &str, x: &Tensor) -> Error {
    Error::runtime(op, format!("internal: no kernel for {}", x.dtype()))
}

/// `x.max()` / `x.min()` without a dim: a 0-d tensor.
pub fn max_all(x: &Tensor, max: bool) -> Result<Tensor> {
    let op = if max { "max()" } else { "min()" };
    check_nonempty(op, x, None, &[])?;
    amax(x, &[], false, max)
}

/// Values and int64 positions of the first extreme along the reduced dims.
fn arg_extreme(op: &str, x: &Tensor, plan: &Plan, max: bool) -> Result<(Tensor, Tensor)> {
    fn go<T: Num, const MAX: bool>(op: &str, x: &Tensor, plan: &Plan) -> Result<(Tensor, Tensor)> {
        let mut vals = try_zeroed_vec::<T>(op, plan.n_out)?;
        let mut idx = try_zeroed_vec::<i64>(op, plan.n_out)?;
        // SAFETY: dispatched on x.dtype() below.
        let src = unsafe { x.data::<T>() };
        let l = &x.layout;
        let r = ArgBest::<T, MAX>::default();
        reduce(
            &r,
            src,
            &l.shape,
            &l.strides,
            l.offset,
            &plan.reduced,
            |o, (v, i), _| {
                vals[o] = v;
                idx[o] = i as i64;
            },
        );
        Ok((
            Tensor::from_vec(vals, &plan.out_shape)?,
            Tensor::from_vec(idx, &plan.out_shape)?,
        ))
    }
    if !x.dtype().is_compute() {
        // the indices stay int64; only the values go back to x's dtype
        let (v, i) = arg_extreme(op, &compute::input(x)?, plan, max)?;
        return Ok((compute::output(x.dtype(), v)?, i));
    }
    crate::with_compute_dtype!(
        x.dtype(),
        T,
        {
            if max {
                go::<T, true>(op, x, plan)
            } else {
                go::<T, false>(op, x, plan)
            }
        },
        Err(not_compute(op, x))
    )
}

/// `x.max(dim)` / `x.min(dim)`: (values, indices), first occurrence, NaN wins.
pub fn max_dim(x: &Tensor, dim: i64, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
    let op = if max { "max()" } else { "min()" };
    let d = normalize_dim(dim, x.ndim())? as i64;
    check_nonempty(op, x, Some(&[d]), &[d])?;
    let plan = Plan::new(x, Some(&[d]), keepdim)?;
    arg_extreme(op, x, &plan, max)
}

/// `x.argmax(dim)` / `x.argmin(dim)`; without a dim, the index into the flattened tensor.
pub fn argmax(x: &Tensor, dim: Option<i64>, keepdim: bool, max: bool) -> Result<Tensor> {
    let name = if max { "argmax" } else { "argmin" };
    if x.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "",
            format!("{name}(): does not support bool input"),
        ));
    }
    let op = format!("{name}()");
    let dims = match dim {
        Some(d) => {
            let d = normalize_dim(d, x.ndim())? as i64;
            check_nonempty(&op, x, Some(&[d]), &[d])?;
            Some([d])
        }
        None => {
            if x.numel() == 0 {
                return Err(Error::index(
                    "",
                    format!("{op}: Expected reduction dim to be specified for input.numel() == 0."),
                ));
            }
            None
        }
    };
    let plan = Plan::new(x, dims.as_ref().map(|d| &d[..]), keepdim)?;
    Ok(arg_extreme(&op, x, &plan, max)?.1)
}

/// `x.aminmax(dim=, keepdim=)`: (min, max).
pub fn aminmax(x: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let dims: SmallVec<[i64; 1]> = match dim {
        Some(d) => {
            let d = normalize_dim(d, x.ndim())? as i64;
            check_nonempty("aminmax", x, Some(&[d]), &[d])?;
            SmallVec::from_elem(d, 1)
        }
        None if x.numel() == 0 => {
            return Err(Error::runtime(
                "",
                "aminmax(): cannot compute aminmax over an empty dimension as the operation \
                 has no identity.",
            ))
        }
        None => SmallVec::new(),
    };
    Ok((
        amax(x, &dims, keepdim, false)?,
        amax(x, &dims, keepdim, true)?,
    ))
}

/// `x.all(dim)` (`all` true) or `x.any(dim)`: bool results for any input dtype.
pub fn all(x: &Tensor, dims: Option<&[i64]>, keepdim: bool, all: bool) -> Result<Tensor> {
    if x.dtype() == DType::U8 {
        // PyTorch keeps uint8 for uint8 inputs (0 or 1)
        return self::all(&x.to_dtype(DType::Bool)?, dims, keepdim, all)?.to_dtype(DType::U8);
    }
    let op = if all { "all" } else { "any" };
    let plan = Plan::new(x, dims, keepdim)?;
    crate::with_dtype!(x.dtype(), S, {
        let truth = |v: S| v.to_bool();
        if all {
            run::<S, bool, _>(
                op,
                x,
                &plan,
                &fold(true, truth, |a, b| a & b, false),
                |a, _| a,
            )
        } else {
            run::<S, bool, _>(
                op,
                x,
                &plan,
                &fold(false, truth, |a, b| a | b, false),
                |a, _| a,
            )
        }
    })
}

/// `x.count_nonzero(dim)`: int64 counts.
pub fn count_nonzero(x: &Tensor, dims: Option<&[i64]>) -> Result<Tensor> {
    let plan = Plan::new(x, dims, false)?;
    crate::with_dtype!(x.dtype(), S, {
        let r = fold(0i64, |v: S| v.to_bool() as i64, |a, b| a + b, false);
        run::<S, i64, _>("count_nonzero", x, &plan, &r, |a, _| a)
    })
}

/// For dispatch arms that earlier checks rule out.
fn internal(op: &str) -> Error {
    Error::runtime(op, "internal error: unexpected dtype")
}

fn check_float_var(x: &Tensor) -> Result<()> {
    if x.dtype().is_float() {
        Ok(())
    } else {
        Err(Error::runtime(
            "",
            "std and var only support floating point and complex dtypes",
        ))
    }
}

/// Moments of `x` over the plan's dims as (var, mean) tensors of x's dtype; `sqrt`
/// turns the variance into the standard deviation.
fn moments(
    op: &str,
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    sqrt: bool,
    want_mean: bool,
) -> Result<(Tensor, Option<Tensor>)> {
    check_float_var(x)?;
    if !x.dtype().is_compute() {
        let dt = x.dtype();
        let c = compute::input(x)?;
        let (v, m) = moments(op, &c, dims, correction, keepdim, sqrt, want_mean)?;
        let m = m.map(|m| compute::output(dt, m)).transpose()?;
        return Ok((compute::output(dt, v)?, m));
    }
    let plan = Plan::new(x, dims, keepdim)?;
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            let mut v = try_zeroed_vec::<T>(op, plan.n_out)?;
            let mut m = try_zeroed_vec::<T>(op, if want_mean { plan.n_out } else { 0 })?;
            // SAFETY: T is x's dtype.
            let src = unsafe { x.data::<T>() };
            let l = &x.layout;
            reduce(
                &Welford,
                src,
                &l.shape,
                &l.strides,
                l.offset,
                &plan.reduced,
                |o, a, _| {
                    let var = a.var(correction);
                    v[o] = T::from_f64(if sqrt { var.sqrt() } else { var });
                    if want_mean {
                        m[o] = T::from_f64(if a.n == 0.0 { f64::NAN } else { a.mean });
                    }
                },
            );
            let mean = if want_mean {
                Some(Tensor::from_vec(m, &plan.out_shape)?)
            } else {
                None
            };
            Ok((Tensor::from_vec(v, &plan.out_shape)?, mean))
        },
        Err(internal(op))
    )
}

/// `x.var(dim, correction=, keepdim=)` (`std` with `sqrt`).
pub fn var(
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    sqrt: bool,
) -> Result<Tensor> {
    let op = if sqrt { "std" } else { "var" };
    Ok(moments(op, x, dims, correction, keepdim, sqrt, false)?.0)
}

/// `torch.var_mean` / `torch.std_mean`: (var or std, mean).
pub fn var_mean(
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    sqrt: bool,
) -> Result<(Tensor, Tensor)> {
    let op = if sqrt { "std_mean" } else { "var_mean" };
    let (v, m) = moments(op, x, dims, correction, keepdim, sqrt, true)?;
    let m = m.ok_or_else(|| Error::runtime(op, "internal: mean missing"))?;
    Ok((v, m))
}

/// `x.logsumexp(dim, keepdim)`: stable log(sum(exp(x))); integer inputs give float32.
pub fn logsumexp(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let plan = Plan::new(x, Some(dims), keepdim)?;
    let od = x.dtype().to_float();
    crate::with_dtype!(
        x.dtype(),
        S,
        with_acc!(od, A, {
            run::<S, A, _>("logsumexp", x, &plan, &LogSumExp, |a, _| {
                A::from_f64(LogSumExp::finish(a))
            })
        })
    )?
    .to_dtype(od)
}

/// The `p` of a vector norm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormP {
    /// 'fro' (same as 2 for vectors).
    Fro,
    P(f64),
}

/// `x.norm(p, dim, keepdim, dtype)` as a vector norm over `dims` (all when None).
pub fn norm(
    x: &Tensor,
    p: NormP,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let d = dtype.unwrap_or(x.dtype());
    // the input itself must be floating (dtype= does not rescue an integer input)
    for t in [x.dtype(), d] {
        if !t.is_float() {
            return Err(Error::runtime(
                "",
                format!(
                    "linalg.vector_norm: Expected a floating point or complex tensor as input. \
                     Got {}",
                    t.torch_name()
                ),
            ));
        }
    }
    let x = &x.to_dtype(d)?;
    if !d.is_compute() {
        return compute::unary(x, |c| norm(c, p, dims, keepdim, None));
    }
    let p = match p {
        NormP::Fro => 2.0,
        NormP::P(p) => p,
    };
    let plan = Plan::new(x, dims, keepdim)?;
    if p.is_infinite() && x.numel() == 0 {
        let any_empty = plan
            .reduced
            .iter()
            .zip(x.shape())
            .any(|(&r, &s)| r && s == 0);
        if any_empty || plan.reduced.is_empty() {
            return Err(Error::runtime(
                "",
                "linalg.vector_norm cannot compute the inf norm on an empty tensor because the \
                 operation does not have an identity",
            ));
        }
    }
    crate::with_float_dtype!(
        d,
        T,
        {
            let pt = T::from_f64(p);
            let id = |a: T, _| a;
            if p == 2.0 {
                let r = fold(T::ZERO, |v: T| v * v, T::add, true);
                run::<T, T, _>("norm", x, &plan, &r, |a, _| T::from_f64(a.to_f64().sqrt()))
            } else if p == 1.0 {
                run::<T, T, _>(
                    "norm",
                    x,
                    &plan,
                    &fold(T::ZERO, Float::abs, T::add, true),
                    id,
                )
            } else if p == 0.0 {
                let r = fold(T::ZERO, |v: T| T::from_bool(v != T::ZERO), T::add, true);
                run::<T, T, _>("norm", x, &plan, &r, id)
            } else if p == f64::INFINITY {
                run::<T, T, _>(
                    "norm",
                    x,
                    &plan,
                    &fold(T::ZERO, Float::abs, max_nan, false),
                    id,
                )
            } else if p == f64::NEG_INFINITY {
                let r = fold(T::HIGHEST, Float::abs, min_nan, false);
                run::<T, T, _>("norm", x, &plan, &r, id)
            } else {
                let r = fold(T::ZERO, |v: T| v.abs().powf(pt), T::add, true);
                let inv = T::ONE / pt;
                run::<T, T, _>("norm", x, &plan, &r, |a, _| a.powf(inv))
            }
        },
        Err(internal("norm"))
    )
}

mod scans;
pub use scans::*;

/// Builds `ReduceOp` from the reduction table's rows.
macro_rules! reduce_op_enum {
    ($($v:ident { name: $name:literal, $($rest:tt)* })*) => {
        /// One variant per row of `ops::reduce_table`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum ReduceOp {
            $($v,)*
        }

        impl ReduceOp {
            /// PyTorch's name of the op (error messages, `out=` checks).
            pub fn name(self) -> &'static str {
                match self {
                    $(ReduceOp::$v => $name,)*
                }
            }
        }
    };
}

crate::ops::reduce_table::reduce_table!(reduce_op_enum);
