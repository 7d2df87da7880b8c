//! The differentiable fused LSTM cell (`ThnnFusedLstmCellBackward0`, PyTorch's node for
//! `_thnn_fused_lstm_cell`): one node per step for the whole pointwise part of the cell.
//! Without a graph being built the backward is the fused kernel; under
//! `create_graph=True` it is the same formula in differentiable ops, recomputed from the
//! saved inputs (as PyTorch's `_thnn_differentiable_lstm_cell_backward` does).

use super::super::pointwise as ab;
use super::super::pointwise::unary;
use super::super::reduce as ar;
use super::super::{is_grad_enabled, needs_grad, record_multi, views, Saved, Var};
use super::absent;
use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::ops::binary::BinaryOp;
use crate::ops::nn::rnn;
use crate::ops::unary::UnaryOp;

const NAME: &str = "ThnnFusedLstmCellBackward0";

/// `_thnn_fused_lstm_cell(igates, hgates, cx, b_ih, b_hh)` -> `(hy, cy)`.
pub fn lstm_cell(
    ig: &Var,
    hg: &Var,
    cx: &Var,
    b_ih: Option<&Var>,
    b_hh: Option<&Var>,
) -> Result<(Var, Var)> {
    let (hy, cy, ws) = rnn::forward(&ig.t, &hg.t, &cx.t, b_ih.map(|v| &v.t), b_hh.map(|v| &v.t))?;
    let bi = b_ih.cloned().unwrap_or_else(absent);
    let bh = b_hh.cloned().unwrap_or_else(absent);
    if !needs_grad(&[ig, hg, cx, &bi, &bh]) {
        return Ok((Var::plain(hy), Var::plain(cy)));
    }
    let (s_ig, s_hg, s_cx) = (Saved::input(ig), Saved::input(hg), Saved::input(cx));
    let s_bi = b_ih.map(Saved::input);
    let s_bh = b_hh.map(Saved::input);
    let s_cy = Saved::output(&cy);
    let mut outs = record_multi(
        NAME,
        vec![hy, cy],
        &[ig, hg, cx, &bi, &bh],
        true,
        Box::new(move |g, needs| {
            let (g_hy, g_cy) = match g {
                [a, b] => (a, b),
                _ => return Err(Error::runtime(NAME, "internal: expected two gradients")),
            };
            let cx = s_cx.get(NAME)?;
            let (dg, dcx, db) = if !is_grad_enabled() {
                let cy = s_cy.get(NAME)?;
                let (dg, dcx, db) = rnn::backward(&g_hy.t, &g_cy.t, &cx.t, &cy.t, &ws)?;
                (Var::plain(dg), Var::plain(dcx), Var::plain(db))
            } else {
                let bi = s_bi.as_ref().map(|s| s.get(NAME)).transpose()?;
                let bh = s_bh.as_ref().map(|s| s.get(NAME)).transpose()?;
                let (ig, hg) = (s_ig.get(NAME)?, s_hg.get(NAME)?);
                backward_graph(g_hy, g_cy, &ig, &hg, &cx, bi.as_ref(), bh.as_ref())?
            };
            // the gate inputs (and the biases) enter as one sum: they share a gradient
            Ok(vec![
                needs[0].then(|| dg.clone()),
                needs[1].then(|| dg.clone()),
                needs[2].then_some(dcx),
                needs[3].then(|| db.clone()),
                needs[4].then_some(db),
            ])
        }),
    );
    match (outs.pop(), outs.pop()) {
        (Some(cy), Some(hy)) => Ok((hy, cy)),
        _ => Err(Error::runtime(NAME, "internal: missing outputs")),
    }
}

/// The cell's backward in differentiable ops: `(d_gates, d_cx, d_bias)`.
fn backward_graph(
    g_hy: &Var,
    g_cy: &Var,
    ig: &Var,
    hg: &Var,
    cx: &Var,
    bi: Option<&Var>,
    bh: Option<&Var>,
) -> Result<(Var, Var, Var)> {
    let with_bias = |x: &Var, b: Option<&Var>| match b {
        Some(b) => ab::add(x, b),
        None => Ok(x.clone()),
    };
    let a = ab::add(&with_bias(ig, bi)?, &with_bias(hg, bh)?)?;
    let h = (a.t.shape()[1] / 4) as i64;
    let gate = |k: i64, op: UnaryOp| unary(op, &views::narrow(&a, 1, k * h, h)?);
    let (i, f) = (gate(0, UnaryOp::Sigmoid)?, gate(1, UnaryOp::Sigmoid)?);
    let (g, o) = (gate(2, UnaryOp::Tanh)?, gate(3, UnaryOp::Sigmoid)?);
    let one_minus =
        |x: &Var| ab::binary(BinaryOp::Sub, ab::Arg::S(Scalar::Float(1.0)), ab::Arg::V(x));
    let dsig = |s: &Var| ab::mul(s, &one_minus(s)?);
    let dtanh = |t: &Var| one_minus(&ab::mul(t, t)?);
    let cy = ab::add(&ab::mul(&f, cx)?, &ab::mul(&i, &g)?)?;
    let tc = unary(UnaryOp::Tanh, &cy)?;
    let dc = ab::add(g_cy, &ab::mul(&ab::mul(g_hy, &o)?, &dtanh(&tc)?)?)?;
    let da_i = ab::mul(&ab::mul(&dc, &g)?, &dsig(&i)?)?;
    let da_f = ab::mul(&ab::mul(&dc, cx)?, &dsig(&f)?)?;
    let da_g = ab::mul(&ab::mul(&dc, &i)?, &dtanh(&g)?)?;
    let da_o = ab::mul(&ab::mul(g_hy, &tc)?, &dsig(&o)?)?;
    let dg = super::super::join::cat(&[da_i, da_f, da_g, da_o], 1)?;
    let dcx = ab::mul(&dc, &f)?;
    let db = ar::sum(&dg, Some(&[0]), false, None)?;
    Ok((dg, dcx, db))
}
