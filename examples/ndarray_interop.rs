//! ferric from Rust, with `ndarray` arrays in and out: fits a line by least squares with
//! the autograd tape, checks the tape's gradient against the closed form computed in
//! ndarray, then runs a few steps of gradient descent.
//!
//! Run it with `cargo run --release --example ndarray_interop`.

use ferric::autograd::{matmul, pointwise, reduce, Var};
use ferric::ops::unary::UnaryOp;
use ferric::{Error, Result, Tensor};
use ndarray::{array, Array1, Array2, Axis};

/// The loss `mean((X w - y)^2)` on the tape.
fn loss(x: &Var, w: &Var, y: &Var) -> Result<Var> {
    let r = pointwise::sub(&matmul::matmul(x, w)?, y)?;
    reduce::mean(&pointwise::mul(&r, &r)?, None, false, None)
}

fn main() -> Result<()> {
    // data from ndarray: y = 2 x - 1 plus a little deterministic noise
    let xs = Array1::linspace(-1.0f64, 1.0, 8);
    let noise = xs.mapv(|v| 0.05 * (7.0 * v).sin());
    let ys = xs.mapv(|v| 2.0 * v - 1.0) + &noise;
    // design matrix [x, 1]; `from_ndarray` takes the buffer without copying
    let mut design = Array2::<f64>::ones((8, 2));
    design.column_mut(0).assign(&xs);
    let x = Var::plain(Tensor::from_ndarray(design.clone()));
    let y = Var::plain(Tensor::from_ndarray(ys.clone()));

    // a few ops on plain tensors, read back as ndarray views (zero-copy)
    let mut e = ferric::ops::unary::unary(UnaryOp::Exp, &x.t)?;
    println!(
        "exp of the first two rows of X:\n{:.4}",
        e.as_ndarray::<f64>()?.slice_axis(Axis(0), (0..2).into())
    );

    // autograd: the gradient of the loss at w = [0, 0]
    let w0 = array![0.0f64, 0.0];
    let w = Var::leaf(Tensor::from_ndarray(w0.clone()), true)?;
    let l = loss(&x, &w, &y)?;
    l.backward()?;
    // `grad()` is another handle of the stored gradient: read it with a copy
    let grad = w
        .grad()
        .ok_or_else(|| Error::runtime("example", "w has no gradient"))?;
    // the closed form: d/dw mean((Xw - y)^2) = 2/n X^T (Xw - y)
    let closed = design.t().dot(&(design.dot(&w0) - &ys)) * (2.0 / 8.0);
    println!("loss at w = [0, 0]: {:.6}", l.t.item()?.to_f64());
    println!("tape gradient:        {:.6}", grad.to_ndarray::<f64>()?);
    println!("closed-form gradient: {closed:.6}");

    // gradient descent: each step makes a fresh leaf from the updated ndarray
    let mut w_nd = w0;
    for step in 1..=200 {
        let w = Var::leaf(Tensor::from_ndarray(w_nd.clone()), true)?;
        let l = loss(&x, &w, &y)?;
        l.backward()?;
        let g = w
            .grad()
            .ok_or_else(|| Error::runtime("example", "w has no gradient"))?;
        let g = g.to_ndarray::<f64>()?;
        w_nd.scaled_add(-0.4, &g);
        if step % 50 == 0 {
            println!(
                "step {step:3}: loss {:.6}  w = {w_nd:.4}",
                l.t.item()?.to_f64()
            );
        }
    }
    println!(
        "fitted slope {:.4}, intercept {:.4} (data: 2 and -1 plus noise)",
        w_nd[0], w_nd[1]
    );
    Ok(())
}
