//! The memory order of a fresh elementwise result.
//!
//! PyTorch's TensorIterator gives the output of an elementwise op the memory order of
//! its inputs rather than always row-major: `(a.t() + b.t()).stride()` is `(1, n)`, a
//! unary op or dtype conversion of a transposed tensor is transposed too. Besides being
//! visible (`stride()`, `is_contiguous()`), it is what lets such ops run as one flat
//! pass over both storages instead of a cache-hostile transpose. [`Order`] computes the
//! same strides PyTorch does and hands the kernels the dims in memory order, so they
//! write the output buffer front to back.

use crate::layout::Layout;
use crate::shape::{contiguous_strides, Dims, Strides};
use smallvec::{smallvec, SmallVec};

/// Output strides of an elementwise op, and the order (outermost dim first) in which the
/// kernel walks the dims so that it writes the output sequentially.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    /// `None` when the output is row-major (the walk is the dims' own order).
    walk: Option<Dims>,
    pub strides: Strides,
}

impl Order {
    pub fn row_major(shape: &[usize]) -> Order {
        Order {
            walk: None,
            strides: contiguous_strides(shape),
        }
    }

    /// The layout of `shape`'s result computed from `inputs` (already type-converted, not
    /// yet broadcast; Python numbers count as 0-d tensors, as they do in PyTorch):
    /// - all inputs row-major and of the result's shape: row-major;
    /// - all of the result's shape, dense (a permutation of contiguous) with equal
    ///   strides: exactly those strides (4-d inputs all in channels-last order get
    ///   channels-last strides first);
    /// - otherwise the dims sorted by the inputs' strides, first input first, ignoring
    ///   broadcast dims, ties going to the smaller dim, with TensorIterator's insertion
    ///   sort (which skips over pairs no input orders), then laid out densely.
    pub fn of(shape: &[usize], inputs: &[&Layout]) -> Order {
        let n = shape.len();
        if n < 2 || shape.contains(&0) {
            return Order::row_major(shape);
        }
        if inputs.iter().all(|l| l.shape.as_slice() == shape) {
            if inputs.iter().all(|l| l.is_contiguous()) {
                return Order::row_major(shape);
            }
            if n == 4 && inputs.iter().all(|l| is_channels_last(l)) {
                return Order::channels_last(shape);
            }
            let first = &inputs[0].strides;
            if inputs.iter().all(|l| l.is_dense() && l.strides == *first) {
                return Order::dense(shape, first);
            }
        }
        if inputs.iter().all(|l| has_row_major_strides(l)) {
            // (`x * 2`, `x + bias`: row-major strides never order two dims against
            // row-major's own order, so the sort below would leave it as it is)
            return Order::row_major(shape);
        }
        let strides: SmallVec<[Strides; 3]> =
            inputs.iter().map(|l| broadcast_strides(l, shape)).collect();
        // 1: d0 belongs after (outside) d1; -1: before; 0: no input says
        let compare = |d0: usize, d1: usize| -> i8 {
            for s in &strides {
                let (s0, s1) = (s[d0], s[d1]);
                if s0 == 0 || s1 == 0 {
                    continue;
                }
                if s0 != s1 {
                    return if s0 < s1 { -1 } else { 1 };
                }
                if shape[d0] > shape[d1] {
                    return 1;
                }
            }
            0
        };
        // innermost first, starting from row-major's order
        let mut perm: Dims = (0..n).rev().collect();
        for i in 1..n {
            let mut d1 = i;
            for d0 in (0..i).rev() {
                match compare(perm[d0], perm[d1]) {
                    1 => {
                        perm.swap(d0, d1);
                        d1 = d0;
                    }
                    -1 => break,
                    _ => {}
                }
            }
        }
        if perm.iter().enumerate().all(|(j, &d)| d == n - 1 - j) {
            return Order::row_major(shape);
        }
        let mut out: Strides = smallvec![0; n];
        let mut next: isize = 1;
        for &d in &perm {
            out[d] = next;
            next *= shape[d] as isize;
        }
        perm.reverse();
        Order {
            walk: Some(perm),
            strides: out,
        }
    }

    /// The layout of a copy that keeps `l`'s memory format (`clone()`, `.to(dtype)`,
    /// PyTorch's `preserve_format`): a dense layout's exact strides, else the order
    /// [`Order::of`] gives a single input.
    pub fn preserve(l: &Layout) -> Order {
        if has_row_major_strides(l) {
            Order::row_major(&l.shape)
        } else if l.is_dense() {
            Order::dense(&l.shape, &l.strides)
        } else {
            Order::of(&l.shape, &[l])
        }
    }

    /// Channels-last strides for a 4-d (N, C, H, W) or 5-d (N, C, D, H, W) shape: C
    /// innermost, then the spatial dims from the last, N outermost (PyTorch's
    /// `channels_last` / `channels_last_3d`). Other ranks get row-major.
    pub fn channels_last(shape: &[usize]) -> Order {
        let Some(walk) = channels_last_walk(shape.len()) else {
            return Order::row_major(shape);
        };
        let mut strides: Strides = smallvec![0; shape.len()];
        let mut next: isize = 1;
        for &d in walk.iter().rev() {
            strides[d] = next;
            next *= shape[d] as isize;
        }
        Order::dense(shape, &strides)
    }

    /// Keeps the dense `strides` as they are; the walk goes by decreasing stride.
    fn dense(shape: &[usize], strides: &[isize]) -> Order {
        let mut walk: Dims = (0..shape.len()).collect();
        // size-1 dims may carry any stride; they do not move the write position
        walk.sort_by_key(|&d| std::cmp::Reverse(if shape[d] == 1 { 0 } else { strides[d] }));
        Order {
            walk: Some(walk),
            strides: strides.into(),
        }
    }

    pub fn is_row_major(&self) -> bool {
        self.walk.is_none()
    }

    /// `v` (one entry per dim: a shape or an input's broadcast strides) in walk order.
    pub fn walk<T: Copy>(&self, v: &[T]) -> SmallVec<[T; 6]> {
        match &self.walk {
            None => v.into(),
            Some(w) => w.iter().map(|&d| v[d]).collect(),
        }
    }

    /// The output's layout (offset 0 in a fresh buffer).
    pub fn layout(&self, shape: &[usize]) -> Layout {
        Layout {
            shape: shape.into(),
            strides: self.strides.clone(),
            offset: 0,
        }
    }
}

/// Exactly the strides `Layout::contiguous` gives (size-1 dims included, unlike
/// `is_contiguous`).
fn has_row_major_strides(l: &Layout) -> bool {
    let mut expected: isize = 1;
    for (&d, &s) in l.shape.iter().zip(l.strides.iter()).rev() {
        if s != expected {
            return false;
        }
        expected *= d as isize;
    }
    true
}

/// The dims of a channels-last layout, outermost first (4-d and 5-d only).
fn channels_last_walk(ndim: usize) -> Option<&'static [usize]> {
    match ndim {
        4 => Some(&[0, 2, 3, 1]),
        5 => Some(&[0, 2, 3, 4, 1]),
        _ => None,
    }
}

/// PyTorch's `is_contiguous(memory_format=torch.channels_last)` (4-d) or
/// `channels_last_3d` (5-d): C innermost, then the spatial dims from the last, N
/// outermost, size-1 dims skipped. False for other ranks.
pub fn is_channels_last(l: &Layout) -> bool {
    let Some(walk) = channels_last_walk(l.ndim()) else {
        return false;
    };
    let mut expected: isize = 1;
    for &d in walk.iter().rev() {
        if l.shape[d] != 1 {
            if l.strides[d] != expected {
                return false;
            }
            expected *= l.shape[d] as isize;
        }
    }
    true
}

/// PyTorch's `suggest_memory_format() == channels_last` for a 4-d view: its strides
/// order the dims as N, H, W, C from outermost to innermost (dense or not). Ambiguous
/// layouts (one channel, or 1x1 planes, where the NCHW and NHWC strides coincide) are
/// NCHW, as in PyTorch. Convolutions and pools give channels-last results for such
/// inputs.
pub fn suggests_channels_last(l: &Layout) -> bool {
    if l.ndim() != 4 || l.strides[1] == 0 {
        return false;
    }
    let mut min: isize = 0;
    // from the innermost dim of channels-last (C) outwards
    for d in [1, 3, 2, 0] {
        let (size, stride) = (l.shape[d], l.strides[d]);
        // an N111-like view (all strides equal to C's) counts as NCHW
        if size == 0 || stride < min || (d == 0 && min == l.strides[1]) {
            return false;
        }
        min = if size > 1 {
            stride * size as isize
        } else {
            stride
        };
    }
    true
}

/// `l`'s strides against the broadcast `shape`: 0 for leading dims it lacks and for its
/// size-1 dims that broadcast; size-1 dims of the result keep their stride.
fn broadcast_strides(l: &Layout, shape: &[usize]) -> Strides {
    let n = shape.len();
    let lead = n - l.ndim();
    let mut s: Strides = smallvec![0; n];
    for (j, (&d, &st)) in l.shape.iter().zip(l.strides.iter()).enumerate() {
        s[lead + j] = if d == 1 && shape[lead + j] != 1 {
            0
        } else {
            st
        };
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(shape: &[usize], inputs: &[Layout]) -> Vec<isize> {
        let refs: Vec<&Layout> = inputs.iter().collect();
        Order::of(shape, &refs).strides.to_vec()
    }

    #[test]
    fn strides_follow_pytorch() {
        let c = |s: &[usize]| Layout::contiguous(s);
        // (expected strides taken from PyTorch 2.x)
        assert_eq!(of(&[3, 4], &[c(&[3, 4]), c(&[3, 4])]), [4, 1]);
        let t = c(&[4, 3]).transpose(0, 1);
        assert_eq!(of(&[3, 4], &[t.clone(), t.clone()]), [1, 3]);
        // the first input decides when they disagree
        assert_eq!(of(&[3, 4], &[t.clone(), c(&[3, 4])]), [1, 3]);
        assert_eq!(of(&[3, 4], &[c(&[3, 4]), t.clone()]), [4, 1]);
        // broadcast inputs and numbers do not vote
        assert_eq!(of(&[3, 4], &[t.clone(), c(&[4])]), [1, 3]);
        assert_eq!(of(&[3, 4], &[c(&[]), t.clone()]), [1, 3]);
        // (2, 3, 4) permuted to (4, 2, 3) memory order
        let p = c(&[4, 2, 3]).permute(&[1, 2, 0]);
        assert_eq!(of(&[2, 3, 4], std::slice::from_ref(&p)), [3, 1, 6]);
        // a step slice is not dense but keeps its order
        let s = c(&[4, 6]).transpose(0, 1).slice(0, 0, 6, 2).unwrap();
        assert_eq!(of(&[3, 4], std::slice::from_ref(&s)), [1, 3]);
        // row-major when nothing says otherwise
        assert_eq!(of(&[3, 4], &[c(&[1, 4]), c(&[3, 1])]), [4, 1]);
        assert!(Order::of(&[2, 0], &[&t]).is_row_major());
        // channels-last inputs give channels-last strides, even where the size-1 dims
        // of the input carried others
        let cl = Layout {
            shape: [1, 2, 1, 4].as_slice().into(),
            strides: [2, 1, 1, 2].as_slice().into(),
            offset: 0,
        };
        assert_eq!(of(&[1, 2, 1, 4], &[cl.clone(), cl.clone()]), [8, 1, 8, 2]);
        // ... but with a number in the mix the sort decides
        assert_eq!(of(&[1, 2, 1, 4], &[cl, c(&[])]), [2, 1, 1, 2]);
    }

    #[test]
    fn dense_inputs_keep_their_exact_strides() {
        let t = Layout::contiguous(&[4, 1, 3]).permute(&[2, 1, 0]);
        let o = Order::preserve(&t);
        assert_eq!(o.strides.as_slice(), t.strides.as_slice());
        assert_eq!(o.walk(&[10, 20, 30]).as_slice(), &[30, 10, 20]);
    }
}
