//! Differentiable `torch.linalg` primitives: `det`, `slogdet`, `inv_ex`, `solve_ex`,
//! `cholesky_ex`, `qr`, `svd`/`svdvals`, `eigh`/`eigvalsh` and `solve_triangular`, with
//! PyTorch's derivative formulas (`FunctionsManual.cpp`) and node names.
//!
//! Rules are written with ferric's differentiable ops (matmul, transposes, the
//! primitives here), so `create_graph=True` differentiates them again. Saved outputs are
//! bound to their node (`Saved::output_nr_of`), as PyTorch saves `result`.
//!
//! Gradients of the vectors of `svd`/`eigh` are, as in PyTorch, only well defined for
//! distinct singular values / eigenvalues: repeated ones divide by zero (inf/nan), which
//! is PyTorch's documented behaviour. A gradient the engine filled with zeros (an output
//! that was not used) counts as absent, as PyTorch's undefined gradients do, so `S` alone
//! stays finite with repeated singular values.

use super::join::{diag_embed, diagonal, tri};
use super::matmul::matmul;
use super::pointwise::{add, div, mul, mul_s, neg, sub};
use super::views::{reshape_like, transpose};
use super::{needs_grad, record, record_multi, Saved, Var};
use crate::error::{Error, Result};

use crate::ops::linalg::{self as ol, QrMode, Triangular};
use crate::tensor::Tensor;

fn mt(x: &Var) -> Result<Var> {
    transpose(x, -2, -1)
}

fn unsqueeze(x: &Var, dim: i64) -> Result<Var> {
    reshape_like("UnsqueezeBackward0", x, x.t.unsqueeze(dim)?)
}

/// `x[..., None, None]`: a batch of scalars against a batch of matrices.
fn as_matrix_scale(x: &Var) -> Result<Var> {
    unsqueeze(&unsqueeze(x, -1)?, -1)
}

/// False for a gradient the engine made up as zeros for an unused output.
fn defined(g: &Var) -> Result<bool> {
    if g.meta.is_some() {
        return Ok(true);
    }
    Ok(g.t.to_vec::<f64>()?.iter().any(|&v| v != 0.0))
}

/// Saves output `nr` of the node about to be recorded as `name`.
fn save_out(t: &Tensor, name: &str, nr: usize) -> (Saved, super::OutputSlot) {
    Saved::output_nr_of(t, name, nr)
}

/// Records the single output `out` of `inputs`; its rule gets the saved output (bound to
/// the recorded Var, so double backward differentiates through it) after `g` and `needs`.
fn record_saving_out(
    name: &'static str,
    out: Tensor,
    inputs: &[&Var],
    rule: impl Fn(&[Var], &[bool], &Saved) -> Result<Vec<Option<Var>>> + 'static,
) -> Var {
    let (so, slot) = save_out(&out, name, 0);
    let v = record(
        name,
        out,
        inputs,
        true,
        Box::new(move |g, needs| rule(g, needs, &so)),
    );
    slot.bind(&v);
    v
}

fn bind(slots: &[(usize, super::OutputSlot)], vs: &[Var]) {
    for (nr, s) in slots {
        if let Some(v) = vs.get(*nr) {
            s.bind(v);
        }
    }
}

/// `linalg.det`: `gA = (g * det)[..., None, None] * A^{-T}`.
pub fn det(a: &Var) -> Result<Var> {
    const NAME: &str = "LinalgDetBackward0";
    let out = ol::det(&a.t)?;
    if !needs_grad(&[a]) {
        return Ok(Var::plain(out));
    }
    let sa = Saved::input(a);
    let v = record_saving_out(NAME, out, &[a], move |g, _, so| {
        let (a, d) = (sa.get(NAME)?, so.get(NAME)?);
        let s = as_matrix_scale(&mul(&g[0], &d)?)?;
        Ok(vec![Some(mul(&s, &mt(&inv_ex(&a, false)?.0)?)?)])
    });
    Ok(v)
}

/// `linalg.slogdet`: (sign, logabsdet); `gA = g_logabsdet[..., None, None] * A^{-T}`.
pub fn slogdet(a: &Var) -> Result<(Var, Var)> {
    const NAME: &str = "LinalgSlogdetBackward0";
    let (s, l) = ol::slogdet(&a.t)?;
    if !needs_grad(&[a]) {
        return Ok((Var::plain(s), Var::plain(l)));
    }
    let sa = Saved::input(a);
    let vs = record_multi(
        NAME,
        vec![s, l],
        &[a],
        true,
        Box::new(move |g, _| {
            let a = sa.get(NAME)?;
            let s = as_matrix_scale(&g[1])?;
            Ok(vec![Some(mul(&s, &mt(&inv_ex(&a, false)?.0)?)?)])
        }),
    );
    let mut it = vs.into_iter();
    match (it.next(), it.next()) {
        (Some(s), Some(l)) => Ok((s, l)),
        _ => Err(Error::runtime(
            "linalg.slogdet",
            "internal: missing outputs",
        )),
    }
}

/// `linalg.inv_ex`: (inverse, info); `gA = -A^{-T} g A^{-T}`.
pub fn inv_ex(a: &Var, check_errors: bool) -> Result<(Var, Tensor)> {
    const NAME: &str = "LinalgInvExBackward0";
    let (out, info) = ol::inv_ex(&a.t, check_errors)?;
    if !needs_grad(&[a]) {
        return Ok((Var::plain(out), info));
    }
    let v = record_saving_out(NAME, out, &[a], move |g, _, so| {
        let it = mt(&so.get(NAME)?)?;
        Ok(vec![Some(neg(&matmul(&matmul(&it, &g[0])?, &it)?)?)])
    });
    Ok((v, info))
}

/// `linalg.solve_ex(A, B, left=)`: (X, info). With `left=False` it solves `X A = B` as
/// `(A^T X^T = B^T)^T`, as PyTorch does.
pub fn solve_ex(a: &Var, b: &Var, left: bool, check_errors: bool) -> Result<(Var, Tensor)> {
    if !left {
        let vector = ol::solve_is_vector(&a.t, &b.t);
        let bt = if vector { b.clone() } else { mt(b)? };
        let (x, info) = solve_ex(&mt(a)?, &bt, true, check_errors)?;
        return Ok((if vector { x } else { mt(&x)? }, info));
    }
    const NAME: &str = "LinalgSolveExBackward0";
    let (out, info) = ol::solve_ex(&a.t, &b.t, check_errors)?;
    if !needs_grad(&[a, b]) {
        return Ok((Var::plain(out), info));
    }
    let vector = ol::solve_is_vector(&a.t, &b.t);
    let sa = Saved::input(a);
    let v = record_saving_out(NAME, out, &[a, b], move |g, needs, so| {
        let (a, x) = (sa.get(NAME)?, so.get(NAME)?);
        let gb = solve_ex(&mt(&a)?, &g[0], true, true)?.0;
        let ga = if needs.first() == Some(&true) {
            let p = if vector {
                matmul(&unsqueeze(&gb, -1)?, &unsqueeze(&x, -2)?)?
            } else {
                matmul(&gb, &mt(&x)?)?
            };
            Some(neg(&p)?)
        } else {
            None
        };
        Ok(vec![ga, Some(gb)])
    });
    Ok((v, info))
}

/// `linalg.solve_triangular`.
pub fn solve_triangular(a: &Var, b: &Var, t: Triangular) -> Result<Var> {
    const NAME: &str = "LinalgSolveTriangularBackward0";
    let out = ol::solve_triangular(&a.t, &b.t, t)?;
    if !needs_grad(&[a, b]) {
        return Ok(Var::plain(out));
    }
    let sa = Saved::input(a);
    let v = record_saving_out(NAME, out, &[a, b], move |g, needs, so| {
        let (a, x) = (sa.get(NAME)?, so.get(NAME)?);
        let flipped = Triangular {
            upper: !t.upper,
            ..t
        };
        let gb = solve_triangular(&mt(&a)?, &g[0], flipped)?;
        let ga = if needs.first() == Some(&true) {
            let p = if t.left {
                matmul(&gb, &mt(&x)?)?
            } else {
                matmul(&mt(&x)?, &gb)?
            };
            // only the triangle that was read gets a gradient (not the unit diagonal)
            let k = i64::from(t.unit);
            let p = if t.upper {
                tri(&p, false, k)?
            } else {
                tri(&p, true, -k)?
            };
            Some(neg(&p)?)
        } else {
            None
        };
        Ok(vec![ga, Some(gb)])
    });
    Ok(v)
}

/// `linalg.cholesky_ex`: (L, info) (U with `upper`). PyTorch's rule (Murray 2016):
/// `gA = L^{-H} Φ(L^H gL) L^{-1}` with Φ the symmetrised lower triangle.
pub fn cholesky_ex(a: &Var, upper: bool, check_errors: bool) -> Result<(Var, Tensor)> {
    const NAME: &str = "LinalgCholeskyExBackward0";
    let (out, info) = ol::cholesky_ex(&a.t, upper, check_errors)?;
    if !needs_grad(&[a]) {
        return Ok((Var::plain(out), info));
    }
    let v = record_saving_out(NAME, out, &[a], move |g, _, so| {
        let l = so.get(NAME)?;
        let (l, gl) = if upper {
            (mt(&l)?, mt(&g[0])?)
        } else {
            (l, g[0].clone())
        };
        let lh = mt(&l)?;
        let p = tri(&matmul(&lh, &gl)?, true, 0)?;
        let p = mul_s(&add(&p, &mt(&tri(&p, true, -1)?)?)?, 0.5)?;
        let upper_left = Triangular {
            upper: true,
            left: true,
            unit: false,
        };
        let lower_right = Triangular {
            upper: false,
            left: false,
            unit: false,
        };
        let ga = solve_triangular(&lh, &p, upper_left)?;
        Ok(vec![Some(solve_triangular(&l, &ga, lower_right)?)])
    });
    Ok((v, info))
}

/// The square-case QR rule (m >= n, reduced): with `M = R gR^T - gQ^T Q`,
/// `gA = (gQ + Q copyltu(M)) R^{-T}`, where `copyltu` mirrors the lower triangle.
fn qr_backward_tall(gq: &Var, gr: &Var, q: &Var, r: &Var) -> Result<Var> {
    let m = sub(&matmul(r, &mt(gr)?)?, &matmul(&mt(gq)?, q)?)?;
    let low = tri(&m, true, -1)?;
    let sym = add(
        &add(&low, &mt(&low)?)?,
        &diag_embed(&diagonal(&m, 0, -2, -1)?, 0, -2, -1)?,
    )?;
    let y = add(gq, &matmul(q, &sym)?)?;
    // Y R^{-T}: solve X R^T = Y, i.e. R X^T = Y^T
    let t = Triangular {
        upper: true,
        left: true,
        unit: false,
    };
    mt(&solve_triangular(r, &mt(&y)?, t)?)
}

/// `linalg.qr(A, mode)`: (Q, R).
pub fn qr(a: &Var, mode: QrMode) -> Result<(Var, Var)> {
    const NAME: &str = "LinalgQrBackward0";
    let (q, r) = ol::qr(&a.t, mode)?;
    if !needs_grad(&[a]) {
        return Ok((Var::plain(q), Var::plain(r)));
    }
    let (m, n) = (a.t.shape()[a.t.ndim() - 2], a.t.shape()[a.t.ndim() - 1]);
    // the wide rule reads A's right block
    let sa = (m < n).then(|| Saved::input(a));
    let (sq, s0) = save_out(&q, NAME, 0);
    let (sr, s1) = save_out(&r, NAME, 1);
    let vs = record_multi(
        NAME,
        vec![q, r],
        &[a],
        true,
        Box::new(move |g, _| {
            if mode == QrMode::R {
                return Err(Error::runtime(
                    "",
                    "The derivative of linalg.qr depends on Q, which is not computed when \
                     mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to \
                     differentiate through linalg.qr.",
                ));
            }
            if mode == QrMode::Complete && m > n {
                return Err(Error::runtime(
                    "",
                    "The QR decomposition is not differentiable when mode='complete' and nrows \
                     > ncols.",
                ));
            }
            let (q, r) = (sq.get(NAME)?, sr.get(NAME)?);
            let (gq, gr) = (&g[0], &g[1]);
            if m >= n {
                return Ok(vec![Some(qr_backward_tall(gq, gr, &q, &r)?)]);
            }
            // wide: A = [X | Y] with X = Q R1 (square), R2 = Q^T Y
            let k = m as i64;
            let rest = (n - m) as i64;
            let r1 = super::views::narrow(&r, -1, 0, k)?;
            let gr1 = super::views::narrow(gr, -1, 0, k)?;
            let gr2 = super::views::narrow(gr, -1, k, rest)?;
            let a = match &sa {
                Some(sa) => sa.get(NAME)?,
                None => return Err(Error::runtime("linalg.qr", "internal: A not saved")),
            };
            let y = super::views::narrow(&a, -1, k, rest)?;
            let gq2 = add(gq, &matmul(&y, &mt(&gr2)?)?)?;
            let gx = qr_backward_tall(&gq2, &gr1, &q, &r1)?;
            let gy = matmul(&q, &gr2)?;
            Ok(vec![Some(super::join::cat(&[gx, gy], -1)?)])
        }),
    );
    bind(&[(0, s0), (1, s1)], &vs);
    let mut it = vs.into_iter();
    match (it.next(), it.next()) {
        (Some(q), Some(r)) => Ok((q, r)),
        _ => Err(Error::runtime("linalg.qr", "internal: missing outputs")),
    }
}

/// PyTorch's `svd_backward` for real inputs (U, Vh narrowed to k = min(m, n) columns).
fn svd_backward(
    gu: Option<&Var>,
    gs: &Var,
    gvh: Option<&Var>,
    u: &Var,
    s: &Var,
    vh: &Var,
) -> Result<Var> {
    let (m, n) = (u.t.shape()[u.t.ndim() - 2], vh.t.shape()[vh.t.ndim() - 1]);
    let k = s.t.shape()[s.t.ndim() - 1];
    if gu.is_none() && gvh.is_none() {
        return svd_values_backward(gs, u, vh);
    }
    let skew = |x: &Var| -> Result<Var> { sub(x, &mt(x)?) };
    let v = mt(vh)?;
    let s2 = mul(s, s)?;
    // E_jk = S_k^2 - S_j^2, with ones on the diagonal (it only divides zeros there)
    let e = sub(&unsqueeze(&s2, -2)?, &unsqueeze(&s2, -1)?)?;
    let eye = Var::plain(eye_like(&e.t, k)?);
    let e = add(&e, &eye)?;
    let uhgu = gu.map(|gu| skew(&matmul(&mt(u)?, gu)?)).transpose()?;
    let vhgv = gvh.map(|gvh| skew(&matmul(vh, &mt(gvh)?)?)).transpose()?;
    let ret = match (&uhgu, &vhgv) {
        (Some(a), Some(b)) => div(
            &add(&mul(a, &unsqueeze(s, -2)?)?, &mul(&unsqueeze(s, -1)?, b)?)?,
            &e,
        )?,
        (Some(a), None) => mul(&div(a, &e)?, &unsqueeze(s, -2)?)?,
        (None, Some(b)) => mul(&unsqueeze(s, -1)?, &div(b, &e)?)?,
        (None, None) => return Err(Error::runtime("linalg.svd", "internal: no gradient")),
    };
    let ga = add(&ret, &diag_embed(gs, 0, -2, -1)?)?;
    match (gu, gvh) {
        (Some(gu), _) if m > k => {
            let ga = matmul(u, &ga)?;
            let gusinv = div(gu, &unsqueeze(s, -2)?)?;
            let ga = sub(&add(&ga, &gusinv)?, &matmul(u, &matmul(&mt(u)?, &gusinv)?)?)?;
            matmul(&ga, vh)
        }
        (_, Some(gvh)) if n > k => {
            let ga = matmul(&ga, vh)?;
            let sinvgvh = div(gvh, &unsqueeze(s, -1)?)?;
            let ga = sub(&add(&ga, &sinvgvh)?, &matmul(&matmul(&sinvgvh, &v)?, vh)?)?;
            matmul(u, &ga)
        }
        _ => {
            if m >= n {
                matmul(u, &matmul(&ga, vh)?)
            } else {
                matmul(&matmul(u, &ga)?, vh)
            }
        }
    }
}

/// `gA = U diag(gS) Vh`, in PyTorch's order of products.
fn svd_values_backward(gs: &Var, u: &Var, vh: &Var) -> Result<Var> {
    let (m, n) = (u.t.shape()[u.t.ndim() - 2], vh.t.shape()[vh.t.ndim() - 1]);
    if m >= n {
        matmul(u, &mul(&unsqueeze(gs, -1)?, vh)?)
    } else {
        matmul(&mul(u, &unsqueeze(gs, -2)?)?, vh)
    }
}

/// A `k x k` identity of `like`'s dtype.
fn eye_like(like: &Tensor, k: usize) -> Result<Tensor> {
    let mut v = vec![0.0f64; k * k];
    for i in 0..k {
        v[i * k + i] = 1.0;
    }
    Tensor::from_vec(v, &[k, k])?.to_dtype(like.dtype())
}

/// `linalg.svd(A, full_matrices)`: (U, S, Vh).
pub fn svd(a: &Var, full_matrices: bool) -> Result<(Var, Var, Var)> {
    const NAME: &str = "LinalgSvdBackward0";
    let (u, s, vh) = ol::svd(&a.t, full_matrices, true)?;
    if !needs_grad(&[a]) {
        return Ok((Var::plain(u), Var::plain(s), Var::plain(vh)));
    }
    let k = s.shape()[s.ndim() - 1] as i64;
    let (su, s0) = save_out(&u, NAME, 0);
    let (ss, s1) = save_out(&s, NAME, 1);
    let (sv, s2) = save_out(&vh, NAME, 2);
    let vs = record_multi(
        NAME,
        vec![u, s, vh],
        &[a],
        true,
        Box::new(move |g, _| {
            let (u, s, vh) = (su.get(NAME)?, ss.get(NAME)?, sv.get(NAME)?);
            let narrow_u = |x: &Var| super::views::narrow(x, -1, 0, k);
            let narrow_v = |x: &Var| super::views::narrow(x, -2, 0, k);
            let (u, vh) = if full_matrices {
                (narrow_u(&u)?, narrow_v(&vh)?)
            } else {
                (u, vh)
            };
            let gu = if defined(&g[0])? {
                Some(if full_matrices {
                    narrow_u(&g[0])?
                } else {
                    g[0].clone()
                })
            } else {
                None
            };
            let gvh = if defined(&g[2])? {
                Some(if full_matrices {
                    narrow_v(&g[2])?
                } else {
                    g[2].clone()
                })
            } else {
                None
            };
            let ga = svd_backward(gu.as_ref(), &g[1], gvh.as_ref(), &u, &s, &vh)?;
            Ok(vec![Some(ga)])
        }),
    );
    bind(&[(0, s0), (1, s1), (2, s2)], &vs);
    let mut it = vs.into_iter();
    match (it.next(), it.next(), it.next()) {
        (Some(u), Some(s), Some(vh)) => Ok((u, s, vh)),
        _ => Err(Error::runtime("linalg.svd", "internal: missing outputs")),
    }
}

/// `linalg.svdvals`: `gA = U diag(gS) Vh` (the vectors are computed and kept for it only
/// when a graph is recorded).
pub fn svdvals(a: &Var) -> Result<Var> {
    const NAME: &str = "LinalgSvdBackward0";
    if !needs_grad(&[a]) {
        return Ok(Var::plain(ol::svd(&a.t, false, false)?.1));
    }
    let (u, s, vh) = ol::svd(&a.t, false, true)?;
    let (u, vh) = (Var::plain(u), Var::plain(vh));
    let mut kept = super::SaveForBackward::new(NAME);
    kept.keeps_other();
    Ok(kept.record(
        s,
        &[a],
        Box::new(move |g, _| Ok(vec![Some(svd_values_backward(&g[0], &u, &vh)?)])),
    ))
}

/// PyTorch's `linalg_eig_backward` for the Hermitian case.
fn eigh_backward(gl: Option<&Var>, gv: Option<&Var>, l: &Var, v: &Var) -> Result<Var> {
    let Some(gv) = gv else {
        let gl = gl.ok_or_else(|| Error::runtime("linalg.eigh", "internal: no gradient"))?;
        return matmul(&mul(v, &unsqueeze(gl, -2)?)?, &mt(v)?);
    };
    let n = l.t.shape()[l.t.ndim() - 1];
    let vhgv = matmul(&mt(v)?, gv)?;
    let vhgv = mul_s(&sub(&vhgv, &mt(&vhgv)?)?, 0.5)?;
    // E_ij = L_j - L_i, ones on the diagonal
    let e = sub(&unsqueeze(l, -2)?, &unsqueeze(l, -1)?)?;
    let eye = Var::plain(eye_like(&e.t, n)?);
    let ret = div(&vhgv, &add(&e, &eye)?)?;
    // the diagonal holds gL (VhgV is skew, so its diagonal is zero)
    let ret = match gl {
        Some(gl) => add(&ret, &diag_embed(gl, 0, -2, -1)?)?,
        None => ret,
    };
    matmul(&matmul(v, &ret)?, &mt(v)?)
}

/// `linalg.eigh(A, UPLO)`: (eigenvalues, eigenvectors).
pub fn eigh(a: &Var, upper: bool) -> Result<(Var, Var)> {
    const NAME: &str = "LinalgEighBackward0";
    let (l, v) = ol::eigh(&a.t, upper, true)?;
    if !needs_grad(&[a]) {
        return Ok((Var::plain(l), Var::plain(v)));
    }
    let (sl, s0) = save_out(&l, NAME, 0);
    let (sv, s1) = save_out(&v, NAME, 1);
    let vs = record_multi(
        NAME,
        vec![l, v],
        &[a],
        true,
        Box::new(move |g, _| {
            let (l, v) = (sl.get(NAME)?, sv.get(NAME)?);
            let gl = defined(&g[0])?.then(|| g[0].clone());
            let gv = defined(&g[1])?.then(|| g[1].clone());
            if gl.is_none() && gv.is_none() {
                return Ok(vec![Some(Var::plain(Tensor::zeros(
                    "linalg.eigh",
                    v.t.shape(),
                    v.t.dtype(),
                )?))]);
            }
            Ok(vec![Some(eigh_backward(gl.as_ref(), gv.as_ref(), &l, &v)?)])
        }),
    );
    bind(&[(0, s0), (1, s1)], &vs);
    let mut it = vs.into_iter();
    match (it.next(), it.next()) {
        (Some(l), Some(v)) => Ok((l, v)),
        _ => Err(Error::runtime("linalg.eigh", "internal: missing outputs")),
    }
}

/// `linalg.eigvalsh`: `gA = V diag(gL) V^T` (V computed and kept only with a graph).
pub fn eigvalsh(a: &Var, upper: bool) -> Result<Var> {
    const NAME: &str = "LinalgEighBackward0";
    if !needs_grad(&[a]) {
        return Ok(Var::plain(ol::eigh(&a.t, upper, false)?.0));
    }
    let (l, v) = ol::eigh(&a.t, upper, true)?;
    let (lv, v) = (Var::plain(l.clone()), Var::plain(v));
    let mut kept = super::SaveForBackward::new(NAME);
    kept.keeps_other();
    Ok(kept.record(
        l,
        &[a],
        Box::new(move |g, _| Ok(vec![Some(eigh_backward(Some(&g[0]), None, &lv, &v)?)])),
    ))
}
