//! `views::sum_to` (the engine's broadcast reduction, now one reductions-kernel call)
//! against a scalar reference, and a few rules checked against hand-computed values.

use crate::autograd::engine::{run, Mode};
use crate::autograd::views::sum_to;
use crate::autograd::Var;
use crate::dtype::{DType, Scalar};
use crate::tensor::Tensor;

fn t(v: Vec<f64>, shape: &[usize]) -> Tensor {
    Tensor::from_vec(v, shape).unwrap()
}

/// Reference: add every element of `x` (a row-major list of shape `shape`) into the
/// output element it was broadcast from.
fn reference(x: &[f64], shape: &[usize], target: &[usize]) -> Vec<f64> {
    let lead = shape.len() - target.len();
    let mut out = vec![0.0; target.iter().product()];
    for (flat, &v) in x.iter().enumerate() {
        let (mut rem, mut o, mut ostride) = (flat, 0, 1);
        for d in (0..shape.len()).rev() {
            let i = rem % shape[d];
            rem /= shape[d];
            if d >= lead {
                let td = target[d - lead];
                o += if td == 1 { 0 } else { i } * ostride;
                ostride *= td;
            }
        }
        out[o] += v;
    }
    out
}

#[test]
fn sum_to_matches_a_scalar_reference() {
    let data: Vec<f64> = (0..120).map(|i| (i as f64 * 0.37).sin()).collect();
    let x = t(data.clone(), &[2, 3, 4, 5]);
    for target in [
        vec![3, 4, 5],
        vec![1, 4, 1],
        vec![3, 1, 5],
        vec![1, 1, 1, 1],
        vec![],
        vec![5],
        vec![2, 1, 4, 1],
    ] {
        let got = sum_to(&Var::plain(x.clone()), &target).unwrap().t;
        assert_eq!(got.shape(), &target[..]);
        let want = reference(&data, &[2, 3, 4, 5], &target);
        for (g, w) in got.to_vec::<f64>().unwrap().iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{target:?}: {g} vs {w}");
        }
    }
}

#[test]
fn sum_to_reads_strided_and_expanded_inputs() {
    // a transposed view: shape (4, 3) with strides (1, 4)
    let base = t((0..12).map(f64::from).collect(), &[3, 4]);
    let x = base.transpose(0, 1).unwrap();
    let dense = x.contiguous().unwrap().to_vec::<f64>().unwrap();
    let got = sum_to(&Var::plain(x), &[1, 3]).unwrap().t;
    assert_eq!(
        got.to_vec::<f64>().unwrap(),
        reference(&dense, &[4, 3], &[1, 3])
    );
    // an expanded (stride 0) input: every column of [1, 2, 3] repeated 4 times
    let e = t(vec![1.0, 2.0, 3.0], &[3, 1]).expand(&[2, 3, 4]).unwrap();
    let got = sum_to(&Var::plain(e), &[3, 1]).unwrap().t;
    assert_eq!(got.to_vec::<f64>().unwrap(), vec![8.0, 16.0, 24.0]);
}

#[test]
fn sum_to_keeps_integer_and_bool_dtypes_and_rejects_bad_shapes() {
    let i = Tensor::from_vec(vec![1i64, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let s = sum_to(&Var::plain(i.clone()), &[3]).unwrap().t;
    assert_eq!(s.dtype(), DType::I64);
    assert_eq!(s.to_vec::<i64>().unwrap(), vec![5, 7, 9]);
    let b = Tensor::from_vec(vec![true, false, false, false], &[2, 2]).unwrap();
    let s = sum_to(&Var::plain(b), &[1, 2]).unwrap().t;
    assert_eq!(s.dtype(), DType::Bool);
    assert_eq!(s.to_vec::<bool>().unwrap(), vec![true, false]);
    // empty broadcast dims sum to zeros
    let z = Tensor::zeros("t", &[0, 3], DType::F64).unwrap();
    let s = sum_to(&Var::plain(z), &[3]).unwrap().t;
    assert_eq!(s.to_vec::<f64>().unwrap(), vec![0.0; 3]);
    assert!(sum_to(&Var::plain(i.clone()), &[2]).is_err());
    assert!(sum_to(&Var::plain(i), &[1, 2, 3]).is_err());
}

fn grad_of(x: &Var, y: &Var) -> Vec<f64> {
    let ones = Var::plain(Tensor::full("t", y.t.shape(), Scalar::Int(1), y.t.dtype()).unwrap());
    let r = run(
        &[(y.clone(), ones)],
        false,
        false,
        Mode::Capture(std::slice::from_ref(x)),
    )
    .unwrap();
    r[0].as_ref().unwrap().t.to_vec::<f64>().unwrap()
}

#[test]
fn prod_and_cumprod_gradients_with_zeros() {
    let x = Var::leaf(t(vec![2.0, 0.0, 3.0], &[3]), true).unwrap();
    assert_eq!(
        grad_of(&x, &super::prod(&x, None, false, None).unwrap()),
        vec![0.0, 6.0, 0.0]
    );
    let x = Var::leaf(t(vec![2.0, 0.0, 3.0, 0.0, 5.0], &[5]), true).unwrap();
    let y = super::cumsum(&x, 0, None, true).unwrap();
    assert_eq!(grad_of(&x, &y), vec![1.0, 8.0, 0.0, 0.0, 0.0]);
}

#[test]
fn amax_and_max_share_ties_max_dim_picks_the_index() {
    let x = Var::leaf(t(vec![1.0, 3.0, 3.0], &[3]), true).unwrap();
    assert_eq!(
        grad_of(&x, &super::amax(&x, &[], false, true).unwrap()),
        vec![0.0, 0.5, 0.5]
    );
    assert_eq!(
        grad_of(&x, &super::max_all(&x, true).unwrap()),
        vec![0.0, 0.5, 0.5]
    );
    let (v, _) = super::max_dim(&x, 0, false, true).unwrap();
    assert_eq!(grad_of(&x, &v), vec![0.0, 1.0, 0.0]);
}

#[test]
fn both_outputs_of_one_node_as_backward_roots() {
    // var_mean's two outputs share a node: the engine must count its edges once
    let x = Var::leaf(t(vec![1.0, 2.0, 4.0], &[3]), true).unwrap();
    let (v, m) = super::var_mean(&x, None, 1.0, false, false).unwrap();
    let one =
        |y: &Var| Var::plain(Tensor::full("t", y.t.shape(), Scalar::Int(1), y.t.dtype()).unwrap());
    let r = run(
        &[(v.clone(), one(&v)), (m.clone(), one(&m))],
        false,
        false,
        Mode::Capture(std::slice::from_ref(&x)),
    )
    .unwrap();
    let g = r[0].as_ref().unwrap().t.to_vec::<f64>().unwrap();
    // d var = (x - mean) with n - 1 = 2; d mean = 1/3
    let want = [
        -4.0 / 3.0 + 1.0 / 3.0,
        -1.0 / 3.0 + 1.0 / 3.0,
        5.0 / 3.0 + 1.0 / 3.0,
    ];
    for (a, b) in g.iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{g:?}");
    }
}
