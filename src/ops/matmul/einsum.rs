//! `einsum`, computed the way PyTorch does it so results, dtypes and error messages match:
//! every operand is aligned (diagonals for repeated labels, size-1 dims for missing
//! ones, permuted) to the layout `output dims + contraction dims`; operands are then
//! contracted left to right, each pair by a broadcasting multiply when nothing is summed
//! and otherwise by permute + reshape + `bmm`. Dims that only one operand still needs
//! are summed away first.
//!
//! The algorithm is written once over [`EinsumOperand`], a handful of primitive ops. It
//! runs on plain tensors (the fast path) and on autograd `Var`s, where every primitive is
//! differentiable, so einsum's gradient (of any order) comes from the composition.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::binary::{binary, BinaryOp, Operand};
use crate::shape::Dims;
use crate::tensor::Tensor;
use std::collections::VecDeque;

const LETTERS: usize = 26;
const TOTAL_LABELS: usize = 2 * LETTERS;
/// Marker for `...` in a parsed operand.
const ELLIPSIS: usize = TOTAL_LABELS;

fn err(msg: impl std::fmt::Display) -> Error {
    Error::runtime("", format!("einsum(): {msg}"))
}

/// Uppercase letters sort before lowercase ones, as in PyTorch (and ASCII).
fn subscript(c: u8) -> usize {
    if c.is_ascii_uppercase() {
        (c - b'A') as usize
    } else {
        (c - b'a') as usize + LETTERS
    }
}

fn label_char(s: usize) -> char {
    if s < LETTERS {
        (b'A' + s as u8) as char
    } else {
        (b'a' + (s - LETTERS) as u8) as char
    }
}

/// Parses the left-hand side into one label list per operand.
fn parse_inputs(lhs: &[u8], num_ops: usize) -> Result<Vec<Vec<usize>>> {
    let mut labels: Vec<Vec<usize>> = vec![Vec::new(); num_ops];
    let mut ell_seen = false;
    let mut cur = 0usize;
    let mut i = 0usize;
    while i < lhs.len() {
        match lhs[i] {
            b' ' => {}
            b'.' => {
                if ell_seen {
                    return Err(err(format!(
                        "found '.' for operand {cur} for which an ellipsis was already found"
                    )));
                }
                if !(i + 2 < lhs.len() && lhs[i + 1] == b'.' && lhs[i + 2] == b'.') {
                    return Err(err(format!(
                        "found '.' for operand {cur} that is not part of any ellipsis"
                    )));
                }
                i += 2;
                labels[cur].push(ELLIPSIS);
                ell_seen = true;
            }
            b',' => {
                cur += 1;
                if cur >= num_ops {
                    return Err(err(
                        "fewer operands were provided than specified in the equation",
                    ));
                }
                ell_seen = false;
            }
            c if c.is_ascii_alphabetic() => labels[cur].push(subscript(c)),
            _ => {
                return Err(err(format!(
                    "invalid subscript given at index {i} in the equation string, subscripts \
                     must be in [a-zA-Z]"
                )))
            }
        }
        i += 1;
    }
    if cur + 1 != num_ops {
        return Err(err(
            "more operands were provided than specified in the equation",
        ));
    }
    Ok(labels)
}

/// The primitive ops einsum is built from (see the module docs).
pub trait EinsumOperand: Clone + Sized {
    fn shape(&self) -> &[usize];
    /// Brings the operand to the aligned layout described by `a` (a view).
    fn align(&self, a: &Align) -> Result<Self>;
    /// Broadcasting elementwise product.
    fn mul(&self, other: &Self) -> Result<Self>;
    /// Sum over `dims`, keeping them as size-1 dims.
    fn sum_keepdim(&self, dims: &[usize]) -> Result<Self>;
    fn permute(&self, dims: &[i64]) -> Result<Self>;
    fn reshape(&self, sizes: &[i64]) -> Result<Self>;
    fn bmm(&self, other: &Self) -> Result<Self>;
    /// Removes the given size-1 dims.
    fn squeeze_dims(&self, dims: &[usize]) -> Result<Self>;
}

/// How one operand is aligned: repeated-label dims merged into diagonals (pairs of
/// `(kept dim, removed dim)` applied in order), `appended` size-1 dims added at the end,
/// then the permutation `order`. A function of the shape only, so it can be replayed on
/// any tensor shaped like the operand (autograd's view adjoint does that).
#[derive(Clone, Debug, Default)]
pub struct Align {
    pub diagonals: Vec<(usize, usize)>,
    pub appended: usize,
    pub order: Vec<usize>,
}

impl Align {
    /// `l` with the diagonals taken (strides of a repeated label add up).
    pub fn diagonal(&self, l: &Layout) -> Layout {
        let mut l = l.clone();
        for &(keep, dim) in &self.diagonals {
            l.strides[keep] += l.strides[dim];
            l.shape.remove(dim);
            l.strides.remove(dim);
        }
        l
    }

    /// `l` (already diagonalised) with the size-1 dims appended.
    pub fn unsqueezed(&self, l: &Layout) -> Layout {
        let mut l = l.clone();
        for _ in 0..self.appended {
            l = l.unsqueeze(l.shape.len());
        }
        l
    }

    /// The whole alignment of a layout.
    pub fn apply(&self, l: &Layout) -> Layout {
        self.unsqueezed(&self.diagonal(l)).permute(&self.order)
    }
}

impl EinsumOperand for Tensor {
    fn shape(&self) -> &[usize] {
        Tensor::shape(self)
    }
    fn align(&self, a: &Align) -> Result<Tensor> {
        self.with_layout(a.apply(&self.layout))
    }
    fn mul(&self, other: &Tensor) -> Result<Tensor> {
        binary(BinaryOp::Mul, Operand::T(self), Operand::T(other))
    }
    fn sum_keepdim(&self, dims: &[usize]) -> Result<Tensor> {
        sum_keepdim(self, dims)
    }
    fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        Tensor::permute(self, dims)
    }
    fn reshape(&self, sizes: &[i64]) -> Result<Tensor> {
        Tensor::reshape(self, sizes)
    }
    fn bmm(&self, other: &Tensor) -> Result<Tensor> {
        Tensor::bmm(self, other)
    }
    fn squeeze_dims(&self, dims: &[usize]) -> Result<Tensor> {
        self.with_layout(self.layout.squeeze_dims(dims))
    }
}

/// `einsum(equation, *operands)`.
pub fn einsum<O: EinsumOperand>(equation: &str, operands: &[O]) -> Result<O> {
    let num_ops = operands.len();
    if num_ops == 0 {
        return Err(err("must provide at least one operand"));
    }
    let eq = equation.as_bytes();
    let arrow = equation.find("->");
    let lhs = &eq[..arrow.unwrap_or(eq.len())];
    let op_labels = parse_inputs(lhs, num_ops)?;

    let mut label_count = [0usize; TOTAL_LABELS];
    let mut ell_num_dim = 0usize;
    for (i, (labels, t)) in op_labels.iter().zip(operands).enumerate() {
        let ndim = t.shape().len();
        let has_ell = labels.contains(&ELLIPSIS);
        let nlabels = labels.len() - has_ell as usize;
        for &l in labels.iter().filter(|&&l| l != ELLIPSIS) {
            label_count[l] += 1;
        }
        let ok = if has_ell {
            nlabels <= ndim
        } else {
            nlabels == ndim
        };
        if !ok {
            return Err(err(format!(
                "the number of subscripts in the equation ({nlabels}) {} the number of \
                 dimensions ({}) for operand {i}{}",
                if has_ell {
                    "is more than"
                } else {
                    "does not match"
                },
                ndim,
                if has_ell {
                    ""
                } else {
                    " and no ellipsis was given"
                }
            )));
        }
        if has_ell {
            ell_num_dim = ell_num_dim.max(ndim - nlabels);
        }
    }

    // Position of every label in the aligned layout: output dims first, then the
    // contraction dims.
    let mut perm_of: [Option<usize>; TOTAL_LABELS] = [None; TOTAL_LABELS];
    let mut perm_index = 0usize;
    let mut ell_index = 0usize;
    let mut ell_in_output = false;
    match arrow {
        None => {
            // implicit output: the ellipsis dims, then labels seen exactly once, sorted
            perm_index = ell_num_dim;
            ell_in_output = true;
            for l in 0..TOTAL_LABELS {
                if label_count[l] == 1 {
                    perm_of[l] = Some(perm_index);
                    perm_index += 1;
                }
            }
        }
        Some(pos) => {
            let rhs = &eq[pos + 2..];
            let mut i = 0usize;
            while i < rhs.len() {
                match rhs[i] {
                    b' ' => {}
                    b'.' => {
                        if ell_in_output {
                            return Err(err(
                                "found '.' for output but an ellipsis (...) was already found",
                            ));
                        }
                        if !(i + 2 < rhs.len() && rhs[i + 1] == b'.' && rhs[i + 2] == b'.') {
                            return Err(err(
                                "found '.' for output that is not part of any ellipsis (...)",
                            ));
                        }
                        i += 2;
                        ell_index = perm_index;
                        perm_index += ell_num_dim;
                        ell_in_output = true;
                    }
                    c if c.is_ascii_alphabetic() => {
                        let l = subscript(c);
                        if label_count[l] == 0 || perm_of[l].is_some() {
                            return Err(err(format!(
                                "output subscript {} {}",
                                c as char,
                                if perm_of[l].is_some() {
                                    "appears more than once in the output"
                                } else {
                                    "does not appear in the equation for any input operand"
                                }
                            )));
                        }
                        perm_of[l] = Some(perm_index);
                        perm_index += 1;
                    }
                    _ => {
                        return Err(err(format!(
                            "invalid subscript given at index {} in the equation string, \
                             subscripts must be in [a-zA-Z]",
                            lhs.len() + 2 + i
                        )))
                    }
                }
                i += 1;
            }
        }
    }
    let out_num_dim = perm_index;
    if !ell_in_output {
        ell_index = perm_index;
        perm_index += ell_num_dim;
    }
    for l in 0..TOTAL_LABELS {
        if label_count[l] > 0 && perm_of[l].is_none() {
            perm_of[l] = Some(perm_index);
            perm_index += 1;
        }
    }

    // Align every operand to `perm_index` dims, counting for each aligned dim how many
    // operands have it with a size other than 1.
    let mut label_size = [1usize; TOTAL_LABELS];
    let mut ell_sizes = vec![1usize; ell_num_dim];
    let mut dim_counts = vec![0usize; perm_index];
    let mut ops: VecDeque<O> = VecDeque::with_capacity(num_ops);
    for (i, (labels, t)) in op_labels.iter().zip(operands).enumerate() {
        // sizes of the operand's remaining dims as diagonals are taken
        let mut shape: Dims = t.shape().into();
        let mut align = Align::default();
        let mut perm: Vec<Option<usize>> = vec![None; perm_index];
        let mut dim = 0usize;
        for &s in labels {
            if s == ELLIPSIS {
                let covered = t.shape().len() - (labels.len() - 1);
                for j in ell_num_dim - covered..ell_num_dim {
                    let size = shape[dim];
                    if size != 1 {
                        if ell_sizes[j] != 1 && ell_sizes[j] != size {
                            return Err(err(format!(
                                "dimension {dim} covered by ellipsis in operand {i}has size \
                                 {size} which does not broadcast with previously seen ellipsis \
                                 with size {} for the respective dimension",
                                ell_sizes[j]
                            )));
                        }
                        ell_sizes[j] = size;
                        dim_counts[ell_index + j] += 1;
                    }
                    perm[ell_index + j] = Some(dim);
                    dim += 1;
                }
            } else {
                let target = perm_of[s].unwrap_or(0);
                match perm[target] {
                    None => {
                        let size = shape[dim];
                        if size != 1 {
                            if label_size[s] != 1 && label_size[s] != size {
                                return Err(err(format!(
                                    "subscript {} has size {size} for operand {i} which does not \
                                     broadcast with previously seen size {}",
                                    label_char(s),
                                    label_size[s]
                                )));
                            }
                            label_size[s] = size;
                            dim_counts[target] += 1;
                        }
                        perm[target] = Some(dim);
                        dim += 1;
                    }
                    Some(prev) => {
                        // repeated label: take the diagonal, kept at the first position
                        if shape[dim] != shape[prev] {
                            return Err(err(format!(
                                "subscript {} is repeated for operand {i} but the sizes don't \
                                 match, {} != {}",
                                label_char(s),
                                shape[dim],
                                shape[prev]
                            )));
                        }
                        align.diagonals.push((prev, dim));
                        shape.remove(dim);
                    }
                }
            }
        }
        // dims the operand lacks become size-1 dims appended after its own
        align.order = perm
            .into_iter()
            .map(|p| {
                p.unwrap_or_else(|| {
                    align.appended += 1;
                    dim += 1;
                    dim - 1
                })
            })
            .collect();
        ops.push_back(t.align(&align)?);
    }

    // Contract left to right.
    while ops.len() > 1 {
        let (Some(mut a), Some(mut b)) = (ops.pop_front(), ops.pop_front()) else {
            break;
        };
        let mut sum_dims = Vec::new();
        let (mut a_sum, mut b_sum) = (Vec::new(), Vec::new());
        for (d, count) in dim_counts.iter_mut().enumerate().skip(out_num_dim) {
            let (sa, sb) = (a.shape()[d], b.shape()[d]);
            if sa != 1 && sb != 1 {
                *count = count.saturating_sub(1);
                if *count == 1 {
                    sum_dims.push(d);
                    *count = 0;
                }
            } else if *count == 1 {
                if sa != 1 {
                    a_sum.push(d);
                    *count = 0;
                } else if sb != 1 {
                    b_sum.push(d);
                    *count = 0;
                }
            }
        }
        if !a_sum.is_empty() {
            a = a.sum_keepdim(&a_sum)?;
        }
        if !b_sum.is_empty() {
            b = b.sum_keepdim(&b_sum)?;
        }
        ops.push_front(sumproduct_pair(&a, &b, &sum_dims)?);
    }
    let Some(result) = ops.pop_front() else {
        return Err(err("must provide at least one operand"));
    };
    if perm_index > out_num_dim {
        let contraction: Vec<usize> = (out_num_dim..perm_index).collect();
        if num_ops > 1 {
            // every contraction dim has size 1 by now
            return result.squeeze_dims(&contraction);
        }
        return result.sum_keepdim(&contraction)?.squeeze_dims(&contraction);
    }
    Ok(result)
}

/// `(left * right).sum(sum_dims, keepdim=True)` for operands with the same number of
/// dims, via permute + reshape + bmm (or a plain broadcasting multiply).
fn sumproduct_pair<O: EinsumOperand>(left: &O, right: &O, sum_dims: &[usize]) -> Result<O> {
    if sum_dims.is_empty() {
        return left.mul(right);
    }
    let nd = left.shape().len();
    let (mut left, mut right) = (left.clone(), right.clone());
    let (mut lro, mut lo, mut ro) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lro_size, mut lo_size, mut ro_size, mut sum_size) = (1usize, 1usize, 1usize, 1usize);
    let mismatch = || err("non-broadcast dimensions must match");
    for i in 0..nd {
        let (sl, sr) = (left.shape()[i] != 1, right.shape()[i] != 1);
        if sum_dims.contains(&i) {
            if sl && sr {
                if left.shape()[i] != right.shape()[i] {
                    return Err(mismatch());
                }
                sum_size *= left.shape()[i];
            } else if sl {
                left = left.sum_keepdim(&[i])?;
            } else if sr {
                right = right.sum_keepdim(&[i])?;
            }
        } else if sl && sr {
            if left.shape()[i] != right.shape()[i] {
                return Err(mismatch());
            }
            lro.push(i);
            lro_size *= left.shape()[i];
        } else if sl {
            lo.push(i);
            lo_size *= left.shape()[i];
        } else {
            ro.push(i);
            ro_size *= right.shape()[i];
        }
    }
    let cat = |parts: &[&[usize]]| -> Vec<i64> {
        parts
            .iter()
            .flat_map(|p| p.iter().map(|&d| d as i64))
            .collect()
    };
    let lperm = cat(&[&lro, &lo, sum_dims, &ro]);
    let rperm = cat(&[&lro, sum_dims, &ro, &lo]);
    let l3 = left
        .permute(&lperm)?
        .reshape(&[lro_size as i64, lo_size as i64, sum_size as i64])?;
    let r3 = right
        .permute(&rperm)?
        .reshape(&[lro_size as i64, sum_size as i64, ro_size as i64])?;
    let prod = l3.bmm(&r3)?;
    let mut out_size: Vec<usize> = Vec::with_capacity(nd);
    out_size.extend(lro.iter().map(|&d| left.shape()[d]));
    out_size.extend(lo.iter().map(|&d| left.shape()[d]));
    out_size.extend(sum_dims.iter().map(|_| 1));
    out_size.extend(ro.iter().map(|&d| right.shape()[d]));
    let mut operm = vec![0i64; nd];
    for (pos, &d) in lro.iter().chain(&lo).chain(sum_dims).chain(&ro).enumerate() {
        operm[d] = pos as i64;
    }
    let out_sizes: Vec<i64> = out_size.iter().map(|&d| d as i64).collect();
    // bmm's result is contiguous, so this reshape is a view
    prod.reshape(&out_sizes)?.permute(&operm)
}

/// Sum over `dims`, keeping them as size-1 dims. Integer and bool inputs sum in int64,
/// like `torch.sum`.
pub(crate) fn sum_keepdim(t: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let nd = t.ndim();
    let kept: Vec<usize> = (0..nd).filter(|d| !dims.contains(d)).collect();
    let order: Vec<usize> = kept.iter().chain(dims.iter()).copied().collect();
    let moved = t.with_layout(t.layout.permute(&order))?;
    let group: usize = dims.iter().map(|&d| t.shape()[d]).product();
    let mut out_shape: Dims = t.shape().into();
    for &d in dims {
        out_shape[d] = 1;
    }
    let out_n: usize = kept.iter().map(|&d| t.shape()[d]).product();
    fn reduce<T: crate::dtype::Element + std::ops::Add<Output = T>>(
        v: &[T],
        group: usize,
        out_n: usize,
    ) -> Vec<T> {
        if group == 0 {
            return vec![T::default(); out_n];
        }
        v.chunks_exact(group)
            .map(|c| c.iter().fold(T::default(), |acc, &x| acc + x))
            .collect()
    }
    match t.dtype() {
        DType::F32 => Tensor::from_vec(reduce(&moved.to_vec::<f32>()?, group, out_n), &out_shape),
        DType::F64 => Tensor::from_vec(reduce(&moved.to_vec::<f64>()?, group, out_n), &out_shape),
        DType::I64 | DType::Bool => {
            let v: Vec<i64> = moved.to_vec::<i64>()?;
            let r: Vec<i64> = if group == 0 {
                vec![0; out_n]
            } else {
                v.chunks_exact(group)
                    .map(|c| c.iter().fold(0i64, |acc, &x| acc.wrapping_add(x)))
                    .collect()
            };
            Tensor::from_vec(r, &out_shape)
        }
        // sums in the compute dtype (int64 for narrow integers, float32 for half types)
        d => crate::ops::compute::output(
            d.compute(),
            sum_keepdim(&crate::ops::compute::input(t)?, dims)?,
        ),
    }
}
