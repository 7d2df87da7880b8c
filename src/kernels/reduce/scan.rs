//! Work along one dim: scans (cumsum, cumprod, cummax), and the line iteration softmax
//! (`super::softmax`) shares. Lines along the dim are visited one at a time when the
//! dim is innermost in memory, or as tiles of adjacent lines processed side by side when
//! it is not (e.g. `cumsum(dim=0)` of a matrix), using the reduction driver's geometry.

use super::{Geometry, KeptDims, TILE};
use crate::kernels::strided::for_each_run;
use crate::shape::contiguous_strides;
use smallvec::SmallVec;

/// Work along one dim of a strided view whose output is contiguous with the same shape.
/// Offsets are in elements; `step` moves along the dim, `next` to the adjacent line.
#[derive(Clone, Copy, Debug)]
pub enum Lines {
    /// One line of `n` elements.
    One {
        src: usize,
        src_step: isize,
        dst: usize,
        dst_step: isize,
    },
    /// `width` adjacent lines processed side by side (the lines' own dim is not the
    /// innermost in memory, so rows across the lines are contiguous or nearly so).
    Tile {
        src: usize,
        src_step: isize,
        src_next: isize,
        dst: usize,
        dst_step: isize,
        dst_next: isize,
        width: usize,
    },
}

/// Calls `f` for every line along `dim` (or tile of adjacent lines) of the view. A 0-d
/// view is one line of one element.
pub fn for_each_line(
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    dim: usize,
    mut f: impl FnMut(Lines),
) {
    if shape.contains(&0) {
        return;
    }
    if shape.is_empty() {
        f(Lines::One {
            src: offset,
            src_step: 0,
            dst: 0,
            dst_step: 0,
        });
        return;
    }
    let out_strides = contiguous_strides(shape);
    let kept: KeptDims = (0..shape.len())
        .filter(|&d| d != dim)
        .map(|d| (shape[d], strides[d], out_strides[d]))
        .collect();
    let (src_step, dst_step) = (strides[dim], out_strides[dim]);
    let g = Geometry::from_parts(kept, SmallVec::from_elem((shape[dim], src_step), 1), true);
    let (row_n, row_s, row_o) = g.row();
    if row_n > 1 && g.vertical() {
        let (oshape, ostrides) = g.outer();
        for_each_run(&oshape, &ostrides, [offset, 0], |[io, oo]| {
            let mut t0 = 0;
            while t0 < row_n {
                let width = TILE.min(row_n - t0);
                f(Lines::Tile {
                    src: io + t0 * row_s as usize,
                    src_step,
                    src_next: row_s,
                    dst: oo + t0 * row_o as usize,
                    dst_step,
                    dst_next: row_o,
                    width,
                });
                t0 += width;
            }
        });
        return;
    }
    let kstrides = [g.kin.clone(), g.kout.clone()];
    for_each_run(&g.kshape, &kstrides, [offset, 0], |[io, oo]| {
        for j in 0..row_n {
            f(Lines::One {
                src: io + j * row_s as usize,
                src_step,
                dst: oo + j * row_o as usize,
                dst_step,
            });
        }
    });
}

#[inline(always)]
fn at(base: usize, k: usize, step: isize) -> usize {
    base + k * step as usize
}

/// Inclusive scan along `dim`: `acc = step(acc, x, k)` for the k-th element of each line,
/// then `emit(output_index, acc)` into a contiguous output of the input's shape.
#[allow(clippy::too_many_arguments)]
pub fn scan<S: Copy, A: Copy>(
    src: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    dim: usize,
    init: A,
    step: impl Fn(A, S, usize) -> A,
    mut emit: impl FnMut(usize, A),
) {
    let n = shape.get(dim).copied().unwrap_or(1);
    let mut acc: Vec<A> = Vec::new();
    for_each_line(shape, strides, offset, dim, |l| match l {
        Lines::One {
            src: si,
            src_step,
            dst,
            dst_step,
        } => {
            let mut a = init;
            for k in 0..n {
                a = step(a, src[at(si, k, src_step)], k);
                emit(at(dst, k, dst_step), a);
            }
        }
        Lines::Tile {
            src: si,
            src_step,
            src_next,
            dst,
            dst_step,
            dst_next,
            width,
        } => {
            acc.clear();
            acc.resize(width, init);
            for k in 0..n {
                let (ib, ob) = (at(si, k, src_step), at(dst, k, dst_step));
                for (c, a) in acc.iter_mut().enumerate() {
                    *a = step(*a, src[at(ib, c, src_next)], k);
                    emit(at(ob, c, dst_next), *a);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference cumsum along `dim` of a strided view, into row-major order.
    fn cumsum_ref(
        src: &[i64],
        shape: &[usize],
        strides: &[isize],
        off: usize,
        dim: usize,
    ) -> Vec<i64> {
        let total: usize = shape.iter().product();
        let out_st = contiguous_strides(shape);
        let mut out = vec![0; total];
        for lin in 0..total {
            let mut rem = lin;
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = rem % shape[d];
                rem /= shape[d];
            }
            let mut s = 0;
            for k in 0..=idx[dim] {
                let mut o = off as isize;
                for d in 0..shape.len() {
                    let i = if d == dim { k } else { idx[d] };
                    o += i as isize * strides[d];
                }
                s += src[o as usize];
            }
            let o: isize = idx
                .iter()
                .zip(&out_st)
                .map(|(&i, &st)| i as isize * st)
                .sum();
            out[o as usize] = s;
        }
        out
    }

    #[test]
    fn cumsum_matches_reference_on_layouts() {
        let src: Vec<i64> = (0..400).map(|i| (i * 7919 % 97) as i64 - 48).collect();
        let cases: [(&[usize], &[isize], usize); 4] = [
            (&[3, 4, 6], &[24, 6, 1], 0),
            (&[3, 4, 6], &[1, 3, 12], 0),  // fully transposed
            (&[3, 4, 6], &[100, 0, 2], 5), // expanded + stepped
            (&[5, 40], &[1, 5], 0),
        ];
        for (shape, strides, off) in cases {
            for dim in 0..shape.len() {
                let mut got = vec![0; shape.iter().product()];
                scan(
                    &src,
                    shape,
                    strides,
                    off,
                    dim,
                    0i64,
                    |a, x, _| a + x,
                    |o, a| got[o] = a,
                );
                assert_eq!(
                    got,
                    cumsum_ref(&src, shape, strides, off, dim),
                    "{shape:?} {strides:?} {dim}"
                );
            }
        }
        let mut got = vec![0];
        scan(
            &[7i64],
            &[],
            &[],
            0,
            0,
            0,
            |a, x, _| a + x,
            |o, a| got[o] = a,
        );
        assert_eq!(got, [7]);
    }
}
