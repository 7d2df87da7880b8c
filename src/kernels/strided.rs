//! The one generic strided iteration every elementwise op, copy and reduction uses.
//!
//! Operands are described by strides over a common shape. Dimensions are coalesced first
//! (merging dims that are contiguous with respect to each other in *every* operand), so
//! a contiguous or uniformly strided tensor becomes a single run; the work then happens
//! in "runs" along the innermost dim, where the compiler can vectorise the unit-stride
//! and broadcast (stride 0) cases.

use crate::shape::{Dims, Strides};
use smallvec::SmallVec;

/// Merges dims that can be iterated as one for all `K` operands and drops size-1 dims.
/// Always returns at least one dim (size 1 for a 0-d iteration space).
pub fn coalesce<const K: usize>(shape: &[usize], strides: [&[isize]; K]) -> (Dims, [Strides; K]) {
    let mut out_shape: Dims = SmallVec::new();
    let mut out_strides: [Strides; K] = std::array::from_fn(|_| SmallVec::new());
    for (i, &d) in shape.iter().enumerate() {
        if d == 1 {
            continue;
        }
        if let Some(&last) = out_shape.last() {
            // previous (outer) dim can absorb this one if stride_outer == stride_inner * size_inner
            let mergeable =
                (0..K).all(|k| *out_strides[k].last().unwrap_or(&0) == strides[k][i] * d as isize);
            if mergeable {
                let n = out_shape.len();
                out_shape[n - 1] = last * d;
                for k in 0..K {
                    let m = out_strides[k].len();
                    out_strides[k][m - 1] = strides[k][i];
                }
                continue;
            }
        }
        out_shape.push(d);
        for k in 0..K {
            out_strides[k].push(strides[k][i]);
        }
    }
    if out_shape.is_empty() {
        out_shape.push(1);
        for s in out_strides.iter_mut() {
            s.push(0);
        }
    }
    (out_shape, out_strides)
}

/// Calls `f(offsets)` with the starting offset of each innermost run, in row-major order.
/// `shape` must be non-empty (use `coalesce`). Empty shapes call nothing.
#[inline]
pub fn for_each_run<const K: usize>(
    shape: &[usize],
    strides: &[Strides; K],
    base: [usize; K],
    mut f: impl FnMut([usize; K]),
) {
    if shape.contains(&0) {
        return;
    }
    let outer = shape.len() - 1;
    if outer == 0 {
        f(base);
        return;
    }
    let mut idx: SmallVec<[usize; 6]> = SmallVec::from_elem(0, outer);
    let mut off = base.map(|b| b as isize);
    loop {
        f(off.map(|o| o as usize));
        // increment the multi-index over the outer dims
        let mut d = outer;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            for k in 0..K {
                off[k] += strides[k][d];
            }
            if idx[d] < shape[d] {
                break;
            }
            for k in 0..K {
                off[k] -= strides[k][d] * shape[d] as isize;
            }
            idx[d] = 0;
        }
    }
}

/// Gathers a strided view into a contiguous destination, converting element types.
pub fn copy_to_contiguous<S: Copy, D>(
    src: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    dst: &mut [D],
    f: impl Fn(S) -> D,
) {
    let out_strides = crate::shape::contiguous_strides(shape);
    let (cs, [ss, ds]) = coalesce(shape, [strides, &out_strides]);
    let n = *cs.last().unwrap_or(&1);
    let (si, di) = (*ss.last().unwrap_or(&0), *ds.last().unwrap_or(&1));
    for_each_run(&cs, &[ss.clone(), ds.clone()], [offset, 0], |[so, d0]| {
        let out = &mut dst[d0..d0 + n];
        if si == 1 {
            for (o, &x) in out.iter_mut().zip(&src[so..so + n]) {
                *o = f(x);
            }
        } else {
            for (j, o) in out.iter_mut().enumerate() {
                *o = f(src[so + j * si as usize]);
            }
        }
        let _ = di;
    });
}

/// `dst[i] = f(a[i], b[i])` over a common shape; `dst` is contiguous and freshly made.
/// The broadcast operand (stride 0) cases get their own loops so they vectorise.
#[allow(clippy::too_many_arguments)]
pub fn map2<A: Copy, B: Copy, O>(
    a: &[A],
    la: (&[isize], usize),
    b: &[B],
    lb: (&[isize], usize),
    shape: &[usize],
    dst: &mut [O],
    f: impl Fn(A, B) -> O,
) {
    let out_strides = crate::shape::contiguous_strides(shape);
    let (cs, st) = coalesce(shape, [la.0, lb.0, &out_strides]);
    let n = *cs.last().unwrap_or(&1);
    let (sa, sb) = (*st[0].last().unwrap_or(&0), *st[1].last().unwrap_or(&0));
    for_each_run(&cs, &st, [la.1, lb.1, 0], |[oa, ob, od]| {
        let out = &mut dst[od..od + n];
        match (sa, sb) {
            (1, 1) => {
                for ((o, &x), &y) in out.iter_mut().zip(&a[oa..oa + n]).zip(&b[ob..ob + n]) {
                    *o = f(x, y);
                }
            }
            (1, 0) => {
                let y = b[ob];
                for (o, &x) in out.iter_mut().zip(&a[oa..oa + n]) {
                    *o = f(x, y);
                }
            }
            (0, 1) => {
                let x = a[oa];
                for (o, &y) in out.iter_mut().zip(&b[ob..ob + n]) {
                    *o = f(x, y);
                }
            }
            _ => {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = f(a[oa + j * sa as usize], b[ob + j * sb as usize]);
                }
            }
        }
    });
}

/// In-place `d[i] = f(d[i], b[i])` where `d` may itself be strided (views written
/// through) and `b` is broadcast to `d`'s shape. `b` must not alias `d`.
pub fn zip_inplace<D: Copy, B: Copy>(
    d: &mut [D],
    ld: (&[isize], usize),
    b: &[B],
    lb: (&[isize], usize),
    shape: &[usize],
    f: impl Fn(D, B) -> D,
) {
    let (cs, st) = coalesce(shape, [ld.0, lb.0]);
    let n = *cs.last().unwrap_or(&1);
    let (sd, sb) = (*st[0].last().unwrap_or(&0), *st[1].last().unwrap_or(&0));
    for_each_run(&cs, &st, [ld.1, lb.1], |[od, ob]| match (sd, sb) {
        (1, 1) => {
            for (o, &y) in d[od..od + n].iter_mut().zip(&b[ob..ob + n]) {
                *o = f(*o, y);
            }
        }
        (1, 0) => {
            let y = b[ob];
            for o in d[od..od + n].iter_mut() {
                *o = f(*o, y);
            }
        }
        _ => {
            for j in 0..n {
                let p = od + j * sd as usize;
                d[p] = f(d[p], b[ob + j * sb as usize]);
            }
        }
    });
}

/// In-place unary `d[i] = f(d[i])` through a strided layout.
pub fn apply_inplace<D: Copy>(
    d: &mut [D],
    ld: (&[isize], usize),
    shape: &[usize],
    f: impl Fn(D) -> D,
) {
    let (cs, st) = coalesce(shape, [ld.0]);
    let n = *cs.last().unwrap_or(&1);
    let sd = *st[0].last().unwrap_or(&0);
    for_each_run(&cs, &st, [ld.1], |[od]| {
        if sd == 1 {
            for o in d[od..od + n].iter_mut() {
                *o = f(*o);
            }
        } else {
            for j in 0..n {
                let p = od + j * sd as usize;
                d[p] = f(d[p]);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::contiguous_strides;

    #[test]
    fn coalesce_contiguous_is_one_run() {
        let st = contiguous_strides(&[2, 3, 4]);
        let (s, [c]) = coalesce(&[2, 3, 4], [&st]);
        assert_eq!(s.as_slice(), &[24]);
        assert_eq!(c.as_slice(), &[1]);
    }

    #[test]
    fn coalesce_keeps_transposed_dims() {
        let (s, [c]) = coalesce(&[3, 2], [&[1, 3]]);
        assert_eq!(s.as_slice(), &[3, 2]);
        assert_eq!(c.as_slice(), &[1, 3]);
    }

    #[test]
    fn gather_transposed() {
        // 2x3 matrix stored row-major, read as its 3x2 transpose
        let src = [0, 1, 2, 3, 4, 5];
        let mut dst = [0; 6];
        copy_to_contiguous(&src, &[3, 2], &[1, 3], 0, &mut dst, |x| x);
        assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn broadcast_add() {
        let a = [1.0f32, 2.0, 3.0];
        let b = [10.0f32, 20.0];
        let mut dst = [0.0f32; 6];
        // a as column (3,1)->(3,2) stride (1,0); b as row (2,) -> (3,2) stride (0,1)
        map2(
            &a,
            (&[1, 0], 0),
            &b,
            (&[0, 1], 0),
            &[3, 2],
            &mut dst,
            |x, y| x + y,
        );
        assert_eq!(dst, [11.0, 21.0, 12.0, 22.0, 13.0, 23.0]);
    }

    #[test]
    fn strided_inplace() {
        let mut d = [0i64; 6];
        // write into column 1 of a 3x2 matrix
        zip_inplace(&mut d, (&[2], 1), &[7i64], (&[0], 0), &[3], |_, y| y);
        assert_eq!(d, [0, 7, 0, 7, 0, 7]);
    }
}
