//! `torch.linalg`'s decompositions and solvers on `Tensor`: argument checks with
//! PyTorch's messages, batch broadcasting, then one `kernels::linalg` call over the
//! batch (faer does the numerics). Failures of the factorizations (singular, not
//! positive-definite, non-finite input) come back as per-matrix `info` codes, turned
//! into `LinAlgError`s here (or returned, for the `_ex` forms).
//!
//! Every op returns fresh contiguous tensors of the input's float dtype.

use crate::dtype::DType;
use crate::error::{Error, Result};
/// The flags of `solve_triangular` (the kernel's type, re-exported for the layers above).
pub use crate::kernels::linalg::Triangular;
use crate::kernels::linalg::{self as kl, DetOut, Real};
use crate::shape::broadcast_shapes;
use crate::storage::try_output_vec;
use crate::tensor::Tensor;

/// PyTorch's check that an input is a float tensor (linalg has no integer kernels).
pub fn check_float(op: &str, x: &Tensor) -> Result<()> {
    match x.dtype() {
        DType::F32 | DType::F64 => Ok(()),
        d => Err(Error::runtime(
            op,
            format!(
                "Expected a floating point or complex tensor as input. Got {}",
                d.torch_name()
            ),
        )),
    }
}

/// At least 2-d (`ndim` error as PyTorch's `checkIsMatrix`).
pub fn check_matrix(op: &str, x: &Tensor, name: &str) -> Result<()> {
    if x.ndim() < 2 {
        return Err(Error::runtime(
            op,
            format!("The input tensor {name} must have at least 2 dimensions."),
        ));
    }
    Ok(())
}

/// A float batch of square matrices (PyTorch's `squareCheckInputs`).
pub fn check_square(op: &str, x: &Tensor) -> Result<usize> {
    check_matrix(op, x, "A")?;
    let (m, n) = mn(x);
    if m != n {
        return Err(Error::runtime(
            op,
            format!("A must be batches of square matrices, but they are {m} by {n} matrices"),
        ));
    }
    Ok(n)
}

fn mn(x: &Tensor) -> (usize, usize) {
    let s = x.shape();
    (s[s.len() - 2], s[s.len() - 1])
}

fn batch_dims(x: &Tensor) -> &[usize] {
    &x.shape()[..x.ndim() - 2]
}

/// The batch shape of a stack of matrices and the number of matrices in it.
fn batch_of(x: &Tensor) -> (Vec<usize>, usize) {
    let bshape = batch_dims(x).to_vec();
    let batch = bshape.iter().product();
    (bshape, batch)
}

/// The checks of the ops on a float batch of square matrices, then the matrix size,
/// the batch shape and the batch count.
fn square_batch(op: &str, x: &Tensor) -> Result<(usize, Vec<usize>, usize)> {
    check_float(op, x)?;
    let n = check_square(op, x)?;
    let (bshape, batch) = batch_of(x);
    Ok((n, bshape, batch))
}

fn with(batch: &[usize], tail: &[usize]) -> Vec<usize> {
    batch.iter().chain(tail).copied().collect()
}

/// A fresh zeroed output of `n` elements.
fn buf<T: Real + crate::dtype::Element>(op: &str, n: usize) -> Result<Vec<T>> {
    let mut v = try_output_vec::<T>(op, n)?;
    v.resize(n, T::default());
    Ok(v)
}

/// Runs `$body` with `$T` bound to `x`'s float type (after [`check_float`]).
macro_rules! with_float {
    ($op:expr, $x:expr, $T:ident, $body:expr) => {{
        check_float($op, $x)?;
        match $x.dtype() {
            DType::F64 => {
                type $T = f64;
                $body
            }
            _ => {
                type $T = f32;
                $body
            }
        }
    }};
}

/// The per-matrix `info` codes as an int32 tensor of the batch shape, as PyTorch's
/// (LAPACK's `info` is a C int).
fn info_tensor(info: &[i32], batch: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(info.to_vec(), batch)
}

/// The first failing matrix's error: `msg(info)` prefixed with the batch element as
/// PyTorch does for batched inputs.
fn raise(op: &str, info: &[i32], batched: bool, msg: impl Fn(i32) -> String) -> Result<()> {
    match info.iter().position(|&i| i != 0) {
        None => Ok(()),
        Some(b) => {
            let m = msg(info[b]);
            let m = if batched {
                format!("(Batch element {b}): {m}")
            } else {
                m
            };
            Err(Error::linalg(op, m))
        }
    }
}

/// `linalg.det`.
pub fn det(x: &Tensor) -> Result<Tensor> {
    let op = "linalg.det";
    let (n, bshape, batch) = square_batch(op, x)?;
    with_float!(op, x, T, {
        let a = x.to_vec::<T>()?;
        let mut d = buf::<T>(op, batch)?;
        kl::det(&a, n, batch, DetOut::Det, &mut d, &mut []);
        Tensor::from_vec(d, &bshape)
    })
}

/// `linalg.slogdet`: (sign, logabsdet).
pub fn slogdet(x: &Tensor) -> Result<(Tensor, Tensor)> {
    let op = "linalg.slogdet";
    let (n, bshape, batch) = square_batch(op, x)?;
    with_float!(op, x, T, {
        let a = x.to_vec::<T>()?;
        let (mut s, mut l) = (buf::<T>(op, batch)?, buf::<T>(op, batch)?);
        kl::det(&a, n, batch, DetOut::SignLog, &mut s, &mut l);
        Ok((Tensor::from_vec(s, &bshape)?, Tensor::from_vec(l, &bshape)?))
    })
}

/// `linalg.inv_ex`: (inverse, info); with `check_errors` a singular matrix raises.
pub fn inv_ex(x: &Tensor, check_errors: bool) -> Result<(Tensor, Tensor)> {
    let op = "linalg.inv";
    check_matrix(op, x, "A")?;
    let n = check_square(op, x)?;
    check_float(op, x)?;
    let (bshape, batch) = batch_of(x);
    let mut info = vec![0; batch];
    let out = with_float!(op, x, T, {
        let a = x.to_vec::<T>()?;
        let mut o = buf::<T>(op, batch * n * n)?;
        kl::inv(&a, n, batch, &mut o, &mut info);
        Tensor::from_vec(o, x.shape())?
    });
    if check_errors {
        raise(op, &info, x.ndim() > 2, |i| {
            format!(
                "The diagonal element {i} is zero, the inversion could not be completed because \
                 the input matrix is singular."
            )
        })?;
    }
    Ok((out, info_tensor(&info, &bshape)?))
}

/// Whether `linalg.solve` treats `b` as a (batch of) vector(s): PyTorch's rule.
pub fn solve_is_vector(a: &Tensor, b: &Tensor) -> bool {
    b.ndim() == 1 || (b.ndim() + 1 == a.ndim() && b.shape() == &a.shape()[..a.ndim() - 1])
}

/// Broadcasts the batch dims of two matrix batches; returns both expanded (not copied)
/// and the common batch shape.
fn broadcast_batch(a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor, Vec<usize>)> {
    let bs = broadcast_shapes(batch_dims(a), batch_dims(b))?.to_vec();
    let sizes = |x: &Tensor| -> Vec<i64> {
        let (m, n) = mn(x);
        bs.iter().chain(&[m, n]).map(|&s| s as i64).collect()
    };
    Ok((a.expand(&sizes(a))?, b.expand(&sizes(b))?, bs))
}

/// `linalg.solve_ex(A, B)` with `left=True` (the autograd layer transposes for
/// `left=False`): (X, info).
pub fn solve_ex(a: &Tensor, b: &Tensor, check_errors: bool) -> Result<(Tensor, Tensor)> {
    let op = "linalg.solve";
    check_float(op, a)?;
    check_matrix(op, a, "A")?;
    let n = check_square(op, a)?;
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(
            op,
            format!(
                "Expected A and B to have the same dtype, but found A of type {} and B of type \
                 {} instead",
                a.dtype().torch_name(),
                b.dtype().torch_name()
            ),
        ));
    }
    let vector = solve_is_vector(a, b);
    let bm = if vector { b.unsqueeze(-1)? } else { b.clone() };
    if bm.ndim() < 2 || mn(&bm).0 != n {
        let (r, c) = if bm.ndim() < 2 {
            (bm.numel(), 1)
        } else {
            mn(&bm)
        };
        return Err(Error::runtime(
            op,
            format!("Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {r}x{c})"),
        ));
    }
    let (ae, be, bs) = broadcast_batch(a, &bm)?;
    let k = mn(&be).1;
    let batch: usize = bs.iter().product();
    let mut info = vec![0; batch];
    let x = with_float!(op, a, T, {
        let (av, bv) = (ae.to_vec::<T>()?, be.to_vec::<T>()?);
        let mut o = buf::<T>(op, batch * n * k)?;
        kl::solve(&av, &bv, (n, k, batch), &mut o, &mut info);
        Tensor::from_vec(o, &with(&bs, &[n, k]))?
    });
    if check_errors {
        raise("torch.linalg.solve", &info, a.ndim() > 2, |_| {
            "The solver failed because the input matrix is singular.".to_string()
        })?;
    }
    let x = if vector { x.squeeze(Some(&[-1]))? } else { x };
    Ok((x, info_tensor(&info, &bs)?))
}

/// `linalg.cholesky_ex`: (L, info) (`U` with `upper`).
pub fn cholesky_ex(x: &Tensor, upper: bool, check_errors: bool) -> Result<(Tensor, Tensor)> {
    let op = "linalg.cholesky";
    let (n, bshape, batch) = square_batch(op, x)?;
    let mut info = vec![0; batch];
    let out = with_float!(op, x, T, {
        let a = x.to_vec::<T>()?;
        let mut o = buf::<T>(op, batch * n * n)?;
        kl::cholesky(&a, n, batch, upper, &mut o, &mut info);
        Tensor::from_vec(o, x.shape())?
    });
    if check_errors {
        raise(op, &info, x.ndim() > 2, |i| {
            format!(
                "The factorization could not be completed because the input is not \
                 positive-definite (the leading minor of order {i} is not positive-definite)."
            )
        })?;
    }
    Ok((out, info_tensor(&info, &bshape)?))
}

/// `linalg.qr`'s modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QrMode {
    Reduced,
    Complete,
    R,
}

impl QrMode {
    pub fn parse(mode: &str) -> Result<QrMode> {
        match mode {
            "reduced" => Ok(QrMode::Reduced),
            "complete" => Ok(QrMode::Complete),
            "r" => Ok(QrMode::R),
            _ => Err(Error::runtime(
                "",
                format!(
                    "qr received unrecognized mode '{mode}' but expected one of 'reduced' \
                     (default), 'r', or 'complete'"
                ),
            )),
        }
    }
}

/// `linalg.qr`: (Q, R); with mode `r`, Q is an empty tensor.
pub fn qr(x: &Tensor, mode: QrMode) -> Result<(Tensor, Tensor)> {
    let op = "linalg.qr";
    check_float(op, x)?;
    check_matrix(op, x, "A")?;
    let (m, n) = mn(x);
    let k = m.min(n);
    let (bshape, batch) = batch_of(x);
    let complete = mode == QrMode::Complete;
    let (qc, rr) = if complete { (m, m) } else { (k, k) };
    with_float!(op, x, T, {
        let a = x.to_vec::<T>()?;
        let mut r = buf::<T>(op, batch * rr * n)?;
        let mut q = buf::<T>(op, batch * m * qc)?;
        if mode == QrMode::R {
            kl::qr(&a, (m, n, batch), false, None, &mut r);
            q = Vec::new();
        } else {
            kl::qr(&a, (m, n, batch), complete, Some(&mut q), &mut r);
        }
        let qt = if mode == QrMode::R {
            Tensor::from_vec(q, &[0])?
        } else {
            Tensor::from_vec(q, &with(&bshape, &[m, qc]))?
        };
        Ok((qt, Tensor::from_vec(r, &with(&bshape, &[rr, n]))?))
    })
}

fn svd_error(op: &str, info: &[i32], batched: bool) -> Result<()> {
    raise(op, info, batched, |i| {
        if i == kl::NON_FINITE {
            "The algorithm failed to converge because the input matrix contained non-finite \
             values."
                .to_string()
        } else {
            format!(
                "The algorithm failed to converge because the input matrix is ill-conditioned \
                 or has too many repeated singular values (error code: {i})."
            )
        }
    })
}

/// `linalg.svd`: (U, S, Vh); without `compute_uv` only S is computed (U and Vh are
/// empty, as `torch.linalg.svdvals` sees them).
pub fn svd(x: &Tensor, full_matrices: bool, compute_uv: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let op = "linalg.svd";
    check_float(op, x)?;
    check_matrix(op, x, "A")?;
    let (m, n) = mn(x);
    let k = m.min(n);
    let (bshape, batch) = batch_of(x);
    let (uc, vr) = if full_matrices { (m, n) } else { (k, k) };
    let mut info = vec![0; batch];
    let out = with_float!(op, x, T, {
        let a = x.to_vec::<T>()?;
        let mut s = buf::<T>(op, batch * k)?;
        let (u, vh) = if compute_uv {
            let mut u = buf::<T>(op, batch * m * uc)?;
            let mut vh = buf::<T>(op, batch * vr * n)?;
            kl::svd(
                &a,
                (m, n, batch),
                full_matrices,
                &mut s,
                Some((&mut u, &mut vh)),
                &mut info,
            );
            (
                Tensor::from_vec(u, &with(&bshape, &[m, uc]))?,
                Tensor::from_vec(vh, &with(&bshape, &[vr, n]))?,
            )
        } else {
            kl::svd(&a, (m, n, batch), false, &mut s, None, &mut info);
            (
                Tensor::from_vec(Vec::<T>::new(), &[0])?,
                Tensor::from_vec(Vec::<T>::new(), &[0])?,
            )
        };
        (u, Tensor::from_vec(s, &with(&bshape, &[k]))?, vh)
    });
    svd_error(op, &info, x.ndim() > 2)?;
    Ok(out)
}

/// Parses `UPLO`: true for the upper triangle.
pub fn parse_uplo(uplo: &str) -> Result<bool> {
    match uplo {
        "L" | "l" => Ok(false),
        "U" | "u" => Ok(true),
        _ => Err(Error::runtime(
            "",
            format!("Expected UPLO argument to be 'L' or 'U', but got {uplo}"),
        )),
    }
}

/// `linalg.eigh`: (eigenvalues ascending, eigenvectors as columns); without `vectors`
/// the second is an empty tensor.
pub fn eigh(x: &Tensor, upper: bool, vectors: bool) -> Result<(Tensor, Tensor)> {
    let op = "linalg.eigh";
    if !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Err(Error::dtype_not_implemented("linalg_eigh_cpu", x.dtype()));
    }
    let n = check_square(op, x)?;
    let (bshape, batch) = batch_of(x);
    let mut info = vec![0; batch];
    let out = with_float!(op, x, T, {
        let a = x.to_vec::<T>()?;
        let mut w = buf::<T>(op, batch * n)?;
        let v = if vectors {
            let mut v = buf::<T>(op, batch * n * n)?;
            kl::eigh(&a, n, batch, upper, &mut w, Some(&mut v), &mut info);
            Tensor::from_vec(v, x.shape())?
        } else {
            kl::eigh(&a, n, batch, upper, &mut w, None, &mut info);
            Tensor::from_vec(Vec::<T>::new(), &[0])?
        };
        (Tensor::from_vec(w, &with(&bshape, &[n]))?, v)
    });
    raise(op, &info, x.ndim() > 2, |i| {
        format!(
            "The algorithm failed to converge because the input matrix is ill-conditioned or \
             has too many repeated eigenvalues (error code: {i})."
        )
    })?;
    Ok(out)
}

/// `linalg.solve_triangular(A, B, upper=, left=, unitriangular=)`.
pub fn solve_triangular(a: &Tensor, b: &Tensor, t: Triangular) -> Result<Tensor> {
    let op = "linalg.solve_triangular";
    check_float(op, a)?;
    check_matrix(op, a, "A")?;
    check_matrix(op, b, "B")?;
    let n = check_square(op, a)?;
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(
            op,
            format!(
                "Expected out tensor to have dtype {}, but got {} instead",
                a.dtype().torch_name(),
                b.dtype().torch_name()
            ),
        ));
    }
    let (br, bc) = mn(b);
    let fits = if t.left { br == n } else { bc == n };
    if !fits {
        let eq = if t.left { "AX = B" } else { "XA = B" };
        return Err(Error::runtime(
            op,
            format!("Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {br}x{bc})"),
        ));
    }
    let (ae, be, bs) = broadcast_batch(a, b)?;
    let k = if t.left { bc } else { br };
    let batch: usize = bs.iter().product();
    with_float!(op, a, T, {
        let (av, bv) = (ae.to_vec::<T>()?, be.to_vec::<T>()?);
        let mut o = buf::<T>(op, batch * n * k)?;
        kl::solve_triangular(&av, &bv, (n, k, batch), t, &mut o);
        Tensor::from_vec(o, &with(&bs, &[br, bc]))
    })
}
