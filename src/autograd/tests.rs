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
    run(
        &[(y.clone(), ones_like(&y))],
        true,
        false,
        Mode::Accumulate(None),
    )
    .unwrap();
    assert_eq!(grad_of(&x), vec![3.0, 5.0, 7.0]);
    // retained graph: a second backward accumulates
    run(
        &[(y.clone(), ones_like(&y))],
        false,
        false,
        Mode::Accumulate(None),
    )
    .unwrap();
    assert_eq!(grad_of(&x), vec![6.0, 10.0, 14.0]);
    // the graph was freed: a third backward is PyTorch's "second time" error
    let e = run(
        &[(y.clone(), ones_like(&y))],
        false,
        false,
        Mode::Accumulate(None),
    )
    .err()
    .unwrap();
    assert!(e.msg.contains("second time"), "{}", e.msg);
}

#[test]
fn broadcast_gradient_is_reduced() {
    let a = leaf(vec![1.0, 2.0, 3.0], &[3, 1]);
    let b = leaf(vec![10.0, 20.0], &[2]);
    let y = mul(&a, &b).unwrap(); // (3, 2)
    run(
        &[(y.clone(), ones_like(&y))],
        false,
        false,
        Mode::Accumulate(None),
    )
    .unwrap();
    assert_eq!(grad_of(&a), vec![30.0, 30.0, 30.0]);
    assert_eq!(grad_of(&b), vec![6.0, 6.0]);
}

#[test]
fn double_backward() {
    let x = leaf(vec![3.0], &[1]);
    let y = mul(&mul(&x, &x).unwrap(), &x).unwrap(); // x^3
    let g = run(
        &[(y.clone(), ones_like(&y))],
        true,
        true,
        Mode::Capture(std::slice::from_ref(&x)),
    )
    .unwrap();
    let dx = g[0].clone().unwrap();
    assert_eq!(dx.t.to_vec::<f64>().unwrap(), vec![27.0]); // 3x^2
    let g2 = run(
        &[(dx.clone(), ones_like(&dx))],
        false,
        false,
        Mode::Capture(std::slice::from_ref(&x)),
    )
    .unwrap();
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
    run(
        &[(s.clone(), ones_like(&s))],
        false,
        false,
        Mode::Accumulate(None),
    )
    .unwrap();
    assert_eq!(grad_of(&x), vec![1.0]);
    drop(s);
    drop(y);
}
