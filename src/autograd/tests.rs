//! Engine tests on small graphs (the Python suite covers every op's gradient).

use super::engine::{run, Mode};
use super::pointwise::{add, binary, mul, Arg};
use super::views::sum_to;
use super::Var;
use crate::dtype::Scalar;
use crate::ops::binary::BinaryOp;
use crate::tensor::Tensor;

fn leaf(v: Vec<f64>, shape: &[usize]) -> Var {
    Var::leaf(Tensor::from_vec(v, shape).unwrap(), true).unwrap()
}

fn ones_like(v: &Var) -> Var {
    Var::plain(Tensor::full("t", v.t.shape(), Scalar::Int(1), v.t.dtype()).unwrap())
}

/// `y.backward(ones, retain_graph=retain)`, accumulating into the leaves.
fn backward(y: &Var, retain: bool) -> crate::error::Result<Vec<Option<Var>>> {
    run(
        &[(y.clone(), ones_like(y))],
        retain,
        false,
        Mode::Accumulate(None),
    )
}

/// `autograd.grad(y, x, ones, retain_graph=retain, create_graph=create)`.
fn grad(y: &Var, x: &Var, retain: bool, create: bool) -> crate::error::Result<Vec<Option<Var>>> {
    run(
        &[(y.clone(), ones_like(y))],
        retain,
        create,
        Mode::Capture(std::slice::from_ref(x)),
    )
}

fn grad_of(v: &Var) -> Vec<f64> {
    v.meta
        .as_ref()
        .unwrap()
        .grad
        .borrow()
        .as_ref()
        .unwrap()
        .t
        .to_vec::<f64>()
        .unwrap()
}

#[test]
fn product_rule_and_accumulation() {
    let x = leaf(vec![1.0, 2.0, 3.0], &[3]);
    let y = add(&mul(&x, &x).unwrap(), &x).unwrap(); // x^2 + x
    backward(&y, true).unwrap();
    assert_eq!(grad_of(&x), vec![3.0, 5.0, 7.0]);
    // retained graph: a second backward accumulates
    backward(&y, false).unwrap();
    assert_eq!(grad_of(&x), vec![6.0, 10.0, 14.0]);
    // the graph was freed: a third backward is PyTorch's "second time" error
    let e = backward(&y, false).err().unwrap();
    assert!(e.msg.contains("second time"), "{}", e.msg);
}

#[test]
fn broadcast_gradient_is_reduced() {
    let a = leaf(vec![1.0, 2.0, 3.0], &[3, 1]);
    let b = leaf(vec![10.0, 20.0], &[2]);
    let y = mul(&a, &b).unwrap(); // (3, 2)
    backward(&y, false).unwrap();
    assert_eq!(grad_of(&a), vec![30.0, 30.0, 30.0]);
    assert_eq!(grad_of(&b), vec![6.0, 6.0]);
}

#[test]
fn double_backward() {
    let x = leaf(vec![3.0], &[1]);
    let y = mul(&mul(&x, &x).unwrap(), &x).unwrap(); // x^3
    let g = grad(&y, &x, true, true).unwrap();
    let dx = g[0].clone().unwrap();
    assert_eq!(dx.t.to_vec::<f64>().unwrap(), vec![27.0]); // 3x^2
    let g2 = grad(&dx, &x, false, false).unwrap();
    assert_eq!(
        g2[0].as_ref().unwrap().t.to_vec::<f64>().unwrap(),
        vec![18.0]
    ); // 6x
}

#[test]
fn long_chain_drops_without_overflow() {
    let x = leaf(vec![1.0], &[1]);
    let mut y = x.clone();
    for _ in 0..150_000 {
        y = binary(BinaryOp::Mul, Arg::V(&y), Arg::S(Scalar::Float(1.0))).unwrap();
    }
    let s = sum_to(&y, &[1]).unwrap();
    backward(&s, false).unwrap();
    assert_eq!(grad_of(&x), vec![1.0]);
    drop(s);
    drop(y);
}

/// `SaveForBackward`: what it saves, how the node lists it, and the bound output.
mod save_for_backward {
    use super::super::engine::{run, Mode};
    use super::super::{SaveForBackward, SavedRole, Var};
    use crate::dtype::Scalar;
    use crate::ops::unary::{unary, UnaryOp};
    use crate::tensor::Tensor;

    /// `exp(x)` whose rule uses its saved output: the gradient of `exp` is `exp(x)` itself.
    /// (The rule returns the saved output as is: the tests seed backward with 1.)
    fn exp(x: &Var) -> Var {
        let out = unary(UnaryOp::Exp, &x.t).unwrap();
        let name = "ExpBackward0";
        let mut s = SaveForBackward::new(name);
        let so = s.output(&out);
        s.record(
            out,
            &[x],
            Box::new(move |_, _| Ok(vec![Some(so.get(name)?)])),
        )
    }

    fn one() -> Var {
        Var::plain(Tensor::scalar(Scalar::Float(1.0), crate::dtype::DType::F64))
    }

    /// A float64 0-d leaf holding 0.5 that requires grad.
    fn half() -> Var {
        Var::leaf(
            Tensor::scalar(Scalar::Float(0.5), crate::dtype::DType::F64),
            true,
        )
        .unwrap()
    }

    fn item(v: &Var) -> f64 {
        v.t.to_vec::<f64>().unwrap()[0]
    }

    #[test]
    fn the_bound_output_carries_the_graph_for_double_backward() {
        let x = half();
        let y = exp(&x);
        let g = run(
            &[(y.clone(), one())],
            true,
            true,
            Mode::Capture(std::slice::from_ref(&x)),
        )
        .unwrap();
        let gx = g[0].clone().unwrap();
        assert!((item(&gx) - 0.5f64.exp()).abs() < 1e-15);
        // the gradient is the saved output bound to y's node, so it differentiates again
        assert!(gx.requires_grad());
        let same = gx.grad_fn().unwrap();
        assert!(std::rc::Rc::ptr_eq(&same, &y.grad_fn().unwrap()));
        let gg = run(&[(gx, one())], false, false, Mode::Capture(&[x])).unwrap();
        assert!((item(gg[0].as_ref().unwrap()) - 0.5f64.exp()).abs() < 1e-15);
    }

    #[test]
    fn saves_are_listed_inputs_first_and_freed_after_one_backward() {
        let x = half();
        let out = unary(UnaryOp::Exp, &x.t).unwrap();
        let name = "ExpBackward0";
        let mut s = SaveForBackward::new(name);
        let (sx, so) = (s.input(&x), s.output(&out));
        let y = s.record(
            out,
            &[&x],
            Box::new(move |_, _| {
                sx.get(name)?;
                Ok(vec![Some(so.get(name)?)])
            }),
        );
        let node = y.grad_fn().unwrap();
        let roles: Vec<SavedRole> = node.saved.iter().map(|(r, _)| *r).collect();
        assert_eq!(roles, vec![SavedRole::Input(0), SavedRole::Output(0)]);
        run(&[(y.clone(), one())], false, false, Mode::Accumulate(None)).unwrap();
        let e = run(&[(y, one())], false, false, Mode::Accumulate(None))
            .err()
            .unwrap();
        assert!(e.msg.contains("backward through the graph a second time"));
    }

    #[test]
    fn nothing_saved_means_a_rule_that_may_run_again() {
        let x = half();
        let y = SaveForBackward::new("AliasBackward0").record(
            x.t.clone(),
            &[&x],
            Box::new(|g, _| Ok(vec![Some(g[0].clone())])),
        );
        for _ in 0..2 {
            run(&[(y.clone(), one())], false, false, Mode::Accumulate(None)).unwrap();
        }
        let grad = x.meta.as_ref().unwrap().grad.borrow().clone().unwrap();
        assert_eq!(item(&grad), 2.0);
    }
}
