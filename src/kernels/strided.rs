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
    // long copies let other Python threads run meanwhile
    crate::threads::unlocked_if_long(dst.len(), || {
        copy_to_contiguous_locked(src, shape, strides, offset, dst, f)
    })
}

fn copy_to_contiguous_locked<S: Copy, D>(
    src: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    dst: &mut [D],
    f: impl Fn(S) -> D,
) {
    let out_strides = crate::shape::contiguous_strides(shape);
    let (cs, [ss, ds]) = coalesce(shape, [strides, &out_strides]);
    if transpose_copy(src, &cs, &ss, &ds, offset, dst, &f) {
        return;
    }
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

/// Side of the square tiles of [`transpose_copy`]: a tile's source lines and destination
/// lines (32 each, 128 bytes of float32) stay in L1 while it is copied.
const TILE: usize = 32;

/// The copy of a transposed layout (`x.t().contiguous()`, NCHW to NHWC and back): when
/// the source's unit-stride dim is not the destination's innermost one, reading along
/// the destination touches a new cache line (and often page) per element; copying
/// square tiles of the two dims instead reads and writes whole cache lines. False (and
/// nothing written) for any other layout.
fn transpose_copy<S: Copy, D>(
    src: &[S],
    cs: &[usize],
    ss: &[isize],
    ds: &[isize],
    offset: usize,
    dst: &mut [D],
    f: &impl Fn(S) -> D,
) -> bool {
    let last = cs.len() - 1;
    let (n, si) = (cs[last], ss[last]);
    // the source's unit-stride dim among the outer ones (the first, should a view
    // made by as_strided have several)
    let Some(t) = (0..last).find(|&d| ss[d] == 1) else {
        return false;
    };
    if si <= 0 || n < TILE / 2 || cs[t] < TILE / 2 || cs.contains(&0) {
        return false;
    }
    let (m, dt) = (cs[t], ds[t] as usize);
    let si = si as usize;
    // every dim but `t` and the innermost one, walked as the outer loop
    let keep = |v: &[isize]| -> Strides { (0..last).filter(|&d| d != t).map(|d| v[d]).collect() };
    let mut oshape: Dims = (0..last).filter(|&d| d != t).map(|d| cs[d]).collect();
    let (mut oss, mut ods) = (keep(ss), keep(ds));
    // `for_each_run` walks all dims but its last: give it a unit one
    oshape.push(1);
    oss.push(0);
    ods.push(0);
    // a tile is read into `buf` in source order and written out from it in destination
    // order, so each cache line is touched once per tile: the lines of one tile are a
    // power-of-two stride apart in the big transposes and would evict each other in L1
    let mut buf = [src[offset]; TILE * TILE];
    for_each_run(&oshape, &[oss, ods], [offset, 0], |[so, d0]| {
        for a0 in (0..m).step_by(TILE) {
            let wa = TILE.min(m - a0);
            for b0 in (0..n).step_by(TILE) {
                let wb = TILE.min(n - b0);
                for b in 0..wb {
                    let s0 = so + a0 + (b0 + b) * si;
                    buf[b * TILE..b * TILE + wa].copy_from_slice(&src[s0..s0 + wa]);
                }
                for a in 0..wa {
                    let o0 = d0 + (a0 + a) * dt + b0;
                    for (b, o) in dst[o0..o0 + wb].iter_mut().enumerate() {
                        *o = f(buf[b * TILE + a]);
                    }
                }
            }
        }
    });
    true
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

/// Like [`for_each_run`], restricted to the flat (row-major) positions `start..end` of
/// the iteration space: calls `f(offsets, pos, len)` for each piece of a run, where
/// `offsets` address the piece's first element in each operand and `pos` is its flat
/// position. Parallel kernels give each worker its own position range this way.
pub fn for_each_run_in<const K: usize>(
    shape: &[usize],
    strides: &[Strides; K],
    base: [usize; K],
    start: usize,
    end: usize,
    mut f: impl FnMut([usize; K], usize, usize),
) {
    // a 0-d shape is one element: one run of length 1 with no outer dims
    let inner = *shape.last().unwrap_or(&1);
    let total: usize = shape.iter().product();
    let end = end.min(total);
    if start >= end {
        return;
    }
    let outer = shape.len().saturating_sub(1);
    let step: [isize; K] = std::array::from_fn(|k| *strides[k].last().unwrap_or(&0));
    // multi-index of `start` over the outer dims, and the offset of its run
    let mut idx: SmallVec<[usize; 6]> = SmallVec::from_elem(0, outer);
    let mut rest = start / inner;
    for d in (0..outer).rev() {
        idx[d] = rest % shape[d];
        rest /= shape[d];
    }
    let mut off: [isize; K] = std::array::from_fn(|k| {
        base[k] as isize
            + (0..outer)
                .map(|d| idx[d] as isize * strides[k][d])
                .sum::<isize>()
    });
    let mut j = start % inner;
    let mut pos = start;
    loop {
        let len = (inner - j).min(end - pos);
        f(
            std::array::from_fn(|k| (off[k] + j as isize * step[k]) as usize),
            pos,
            len,
        );
        pos += len;
        if pos >= end {
            return;
        }
        j = 0;
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

/// Runs `body(start, chunk)` over consecutive chunks of `dst` covering it, on ferric's
/// pool when `dst.len() * cost` is worth splitting, else in one call on this thread.
/// `cost` is a rough per-element weight (1 for an add, more for transcendental math).
///
/// Elementwise kernels compute each element independently of its neighbours (the SIMD
/// kernels finish ragged tails with the same vector code), so the output is bitwise
/// identical whatever the thread count or chunk boundaries.
pub fn par_chunks<O: Send>(dst: &mut [O], cost: usize, body: impl Fn(usize, &mut [O]) + Sync) {
    use rayon::prelude::*;
    let n = dst.len();
    // the vector kernels do an add in a fraction of a nanosecond: below ~1e6 adds (or
    // ~2.5e5 exps) handing chunks to the pool cost more than it saved (measured on 2
    // cores: add on 1e5 f32 took 31 us on one thread, 83 us split in two)
    const SCALE: usize = 16;
    let chunk = forced_chunk().or_else(|| {
        crate::threads::worth_splitting(n.saturating_mul(cost) / SCALE).then(|| {
            // a few chunks per thread balance a machine shared with other work; each
            // chunk stays large (>= 32k elements, a multiple of 64) to amortise hand-offs
            let threads = crate::threads::num_threads().max(1);
            n.div_ceil(4 * threads).max(1 << 15).next_multiple_of(64)
        })
    });
    let Some(chunk) = chunk else {
        crate::threads::unlocked_if_long(n.saturating_mul(cost) / SCALE, || body(0, dst));
        return;
    };
    crate::threads::install(|| {
        if rayon::current_thread_index().is_some() {
            dst.par_chunks_mut(chunk).enumerate().for_each(|(i, c)| {
                // on Ctrl-C the op's result is discarded (threads::check_interrupt)
                if !crate::threads::interrupted() {
                    body(i * chunk, c)
                }
            });
        } else {
            // not inside ferric's pool (one thread, or the setting changed meanwhile):
            // never fall through to rayon's global pool
            for (i, c) in dst.chunks_mut(chunk).enumerate() {
                body(i * chunk, c);
            }
        }
    });
}

#[cfg(test)]
thread_local! {
    /// Tests force chunk boundaries on their own thread without touching the global
    /// thread setting (other tests run concurrently).
    static FORCE_CHUNK: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
fn forced_chunk() -> Option<usize> {
    FORCE_CHUNK.with(|c| c.get())
}

#[cfg(not(test))]
#[inline]
fn forced_chunk() -> Option<usize> {
    None
}

/// The per-run kernel of a unary elementwise op: `dst[i] = f(src[i])` on contiguous runs.
pub trait Map1<S, O>: Sync {
    fn run(&self, src: &[S], dst: &mut [O]);
}

/// A `Map1` from a scalar function (the compiler vectorises the loop where it can).
pub struct MapFn<F>(pub F);

impl<S: Copy, O, F: Fn(S) -> O + Sync> Map1<S, O> for MapFn<F> {
    #[inline]
    fn run(&self, src: &[S], dst: &mut [O]) {
        for (o, &x) in dst.iter_mut().zip(src) {
            *o = (self.0)(x);
        }
    }
}

/// `dst = k(src)` where `src` has any layout and `dst` is contiguous and fresh, split
/// across threads when large. Contiguous runs go straight to the kernel; strided runs
/// are gathered block by block into a small buffer first, so the kernel always sees
/// contiguous slices and every layout computes exactly the same values.
pub fn map1<S: Copy + Default + Sync, O: Send>(
    src: &[S],
    ls: (&[isize], usize),
    shape: &[usize],
    dst: &mut [O],
    cost: usize,
    k: &impl Map1<S, O>,
) {
    const BLOCK: usize = 1024;
    let (cs, [st]) = coalesce(shape, [ls.0]);
    let sts = [st];
    let inner = *sts[0].last().unwrap_or(&1);
    par_chunks(dst, cost, |start, chunk| {
        let end = start + chunk.len();
        let mut buf = [S::default(); BLOCK];
        for_each_run_in(&cs, &sts, [ls.1], start, end, |[so], pos, len| {
            let out = &mut chunk[pos - start..pos - start + len];
            if inner == 1 {
                k.run(&src[so..so + len], out);
                return;
            }
            for (b, o) in (0..len).step_by(BLOCK).zip(out.chunks_mut(BLOCK)) {
                let m = o.len();
                for (j, v) in buf[..m].iter_mut().enumerate() {
                    *v = src[(so as isize + (b + j) as isize * inner) as usize];
                }
                k.run(&buf[..m], o);
            }
        });
    });
}

/// The per-run kernel of a binary elementwise op. The slice forms receive contiguous
/// runs, `b` (or `a`) as one value when it is broadcast along the run; their defaults
/// loop over `one`.
pub trait Zip2<A: Copy, B: Copy, O>: Sync {
    fn one(&self, a: A, b: B) -> O;
    fn vv(&self, a: &[A], b: &[B], out: &mut [O]) {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = self.one(x, y);
        }
    }
    fn vs(&self, a: &[A], b: B, out: &mut [O]) {
        for (o, &x) in out.iter_mut().zip(a) {
            *o = self.one(x, b);
        }
    }
    fn sv(&self, a: A, b: &[B], out: &mut [O]) {
        for (o, &y) in out.iter_mut().zip(b) {
            *o = self.one(a, y);
        }
    }
}

/// A `Zip2` from a scalar function.
pub struct ZipFn<F>(pub F);

impl<A: Copy, B: Copy, O, F: Fn(A, B) -> O + Sync> Zip2<A, B, O> for ZipFn<F> {
    #[inline]
    fn one(&self, a: A, b: B) -> O {
        (self.0)(a, b)
    }
}

/// `dst = k(a, b)` over a common (broadcast) shape into a contiguous fresh `dst`, split
/// across threads when large; the parallel form of [`map2`].
#[allow(clippy::too_many_arguments)]
pub fn map2_par<A: Copy + Sync, B: Copy + Sync, O: Send>(
    a: &[A],
    la: (&[isize], usize),
    b: &[B],
    lb: (&[isize], usize),
    shape: &[usize],
    dst: &mut [O],
    cost: usize,
    k: &impl Zip2<A, B, O>,
) {
    let (cs, st) = coalesce(shape, [la.0, lb.0]);
    let (sa, sb) = (*st[0].last().unwrap_or(&0), *st[1].last().unwrap_or(&0));
    par_chunks(dst, cost, |start, chunk| {
        let end = start + chunk.len();
        for_each_run_in(&cs, &st, [la.1, lb.1], start, end, |[oa, ob], pos, n| {
            let out = &mut chunk[pos - start..pos - start + n];
            match (sa, sb) {
                (1, 1) => k.vv(&a[oa..oa + n], &b[ob..ob + n], out),
                (1, 0) => k.vs(&a[oa..oa + n], b[ob], out),
                (0, 1) => k.sv(a[oa], &b[ob..ob + n], out),
                _ => {
                    for (j, o) in out.iter_mut().enumerate() {
                        let ia = (oa as isize + j as isize * sa) as usize;
                        let ib = (ob as isize + j as isize * sb) as usize;
                        *o = k.one(a[ia], b[ib]);
                    }
                }
            }
        });
    });
}

/// The per-run kernel of an in-place binary op `d = f(d, b)`.
pub trait ZipInPlace<D: Copy, B: Copy>: Sync {
    fn one(&self, d: D, b: B) -> D;
    fn vv(&self, d: &mut [D], b: &[B]) {
        for (o, &y) in d.iter_mut().zip(b) {
            *o = self.one(*o, y);
        }
    }
    fn vs(&self, d: &mut [D], b: B) {
        for o in d.iter_mut() {
            *o = self.one(*o, b);
        }
    }
}

impl<D: Copy, B: Copy, F: Fn(D, B) -> D + Sync> ZipInPlace<D, B> for ZipFn<F> {
    #[inline]
    fn one(&self, d: D, b: B) -> D {
        (self.0)(d, b)
    }
}

/// In-place `d = k(d, b)` with `b` broadcast to `d`'s shape (`b` must not alias `d`).
/// A contiguous `d` is split across threads when large; a strided `d` (which may even
/// repeat elements, e.g. `fill_` on an expanded view) is updated on this thread.
pub fn zip_inplace_par<D: Copy + Send, B: Copy + Sync>(
    d: &mut [D],
    ld: (&[isize], usize),
    b: &[B],
    lb: (&[isize], usize),
    shape: &[usize],
    cost: usize,
    k: &impl ZipInPlace<D, B>,
) {
    let n: usize = shape.iter().product();
    let contiguous = ld.0 == crate::shape::contiguous_strides(shape).as_slice();
    if !contiguous && ld.0 == lb.0 && crate::layout::is_dense(shape, ld.0) {
        // both laid out alike and densely (say both like `w.t()`, as a weight's per-step
        // gradients are): order does not matter elementwise, so run over the two storage
        // blocks as flat arrays and keep the vector kernel and the thread split
        return zip_inplace_par(d, (&[1], ld.1), b, (&[1], lb.1), &[n], cost, k);
    }
    let (cs, st) = coalesce(shape, [ld.0, lb.0]);
    let (sd, sb) = (*st[0].last().unwrap_or(&0), *st[1].last().unwrap_or(&0));
    if contiguous && ld.1 + n <= d.len() {
        let whole = &mut d[ld.1..ld.1 + n];
        par_chunks(whole, cost, |start, chunk| {
            let end = start + chunk.len();
            for_each_run_in(&cs, &st, [0, lb.1], start, end, |[_, ob], pos, len| {
                let out = &mut chunk[pos - start..pos - start + len];
                match sb {
                    1 => k.vv(out, &b[ob..ob + len]),
                    0 => k.vs(out, b[ob]),
                    _ => {
                        for (j, o) in out.iter_mut().enumerate() {
                            *o = k.one(*o, b[(ob as isize + j as isize * sb) as usize]);
                        }
                    }
                }
            });
        });
        return;
    }
    for_each_run_in(&cs, &st, [ld.1, lb.1], 0, n, |[od, ob], _, len| {
        if sd == 1 && sb == 1 {
            k.vv(&mut d[od..od + len], &b[ob..ob + len]);
        } else if sd == 1 && sb == 0 {
            k.vs(&mut d[od..od + len], b[ob]);
        } else {
            for j in 0..len {
                let p = (od as isize + j as isize * sd) as usize;
                d[p] = k.one(d[p], b[(ob as isize + j as isize * sb) as usize]);
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
    fn gather_transposed_in_tiles() {
        // big enough for the tiled path, with ragged tiles, an offset, a step along the
        // strided dim, an extra outer dim, and a conversion on the way
        let src: Vec<i64> = (0..3 * 70 * 90).collect();
        for (shape, strides, offset) in [
            (vec![45usize, 37], vec![1isize, 90], 5usize),
            (vec![37, 45], vec![1, 180], 0),
            (vec![2, 40, 33], vec![6300, 1, 70], 1),
            (vec![3, 70, 16], vec![6300, 1, 70], 0),
        ] {
            let n: usize = shape.iter().product();
            let mut dst = vec![0.0f64; n];
            copy_to_contiguous(&src, &shape, &strides, offset, &mut dst, |x| x as f64);
            let mut want = Vec::with_capacity(n);
            let (s, st) = (&shape, &strides);
            let idx = |i: &[usize]| {
                offset as isize
                    + i.iter()
                        .zip(st)
                        .map(|(&a, &b)| a as isize * b)
                        .sum::<isize>()
            };
            if s.len() == 2 {
                for i in 0..s[0] {
                    for j in 0..s[1] {
                        want.push(src[idx(&[i, j]) as usize] as f64);
                    }
                }
            } else {
                for i in 0..s[0] {
                    for j in 0..s[1] {
                        for k in 0..s[2] {
                            want.push(src[idx(&[i, j, k]) as usize] as f64);
                        }
                    }
                }
            }
            assert_eq!(dst, want, "{shape:?} {strides:?}");
        }
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

    #[test]
    fn runs_in_a_range_cover_exactly_that_range() {
        // a transposed 3x5 view: every sub-range must visit the same offsets as the
        // full iteration, in order
        let shape = [5usize, 3];
        let strides: [Strides; 1] = [SmallVec::from_slice(&[1, 5])];
        let mut all = Vec::new();
        for_each_run(&shape, &strides, [2], |[o]| {
            for j in 0..3 {
                all.push(o + 5 * j);
            }
        });
        for start in 0..15 {
            for end in start..=15 {
                let mut got = Vec::new();
                for_each_run_in(&shape, &strides, [2], start, end, |[o], pos, len| {
                    assert_eq!(pos, start + got.len());
                    for j in 0..len {
                        got.push(o + 5 * j);
                    }
                });
                assert_eq!(got, all[start..end]);
            }
        }
    }

    #[test]
    fn runs_in_a_range_handle_edge_shapes() {
        // collects (offset, pos, len) of every piece
        fn pieces(shape: &[usize], st: &[isize], start: usize, end: usize) -> Vec<[usize; 3]> {
            let strides: [Strides; 1] = [SmallVec::from_slice(st)];
            let mut v = Vec::new();
            for_each_run_in(shape, &strides, [3], start, end, |[o], p, l| {
                v.push([o, p, l])
            });
            v
        }
        // 0-d: one element at the base offset
        assert_eq!(pieces(&[], &[], 0, 1), [[3, 0, 1]]);
        assert!(pieces(&[], &[], 1, 1).is_empty());
        // zero-size dims anywhere, empty and reversed ranges, ranges past the end
        assert!(pieces(&[0, 4], &[4, 1], 0, 8).is_empty());
        assert!(pieces(&[4, 0], &[0, 1], 0, 8).is_empty());
        assert!(pieces(&[2, 3], &[3, 1], 4, 4).is_empty());
        assert!(pieces(&[2, 3], &[3, 1], 5, 2).is_empty());
        assert_eq!(pieces(&[2, 3], &[3, 1], 4, 100), [[7, 4, 2]]);
        // stride 0 (expanded rows): every row starts at the same offset
        assert_eq!(
            pieces(&[3, 2], &[0, 1], 1, 6),
            [[4, 1, 1], [3, 2, 2], [3, 4, 2]]
        );
        // 3-D with a range starting and ending inside runs, crossing two outer dims
        let got = pieces(&[2, 2, 3], &[100, 10, 1], 2, 11);
        assert_eq!(got, [[5, 2, 1], [13, 3, 3], [103, 6, 3], [113, 9, 2]]);
    }

    #[test]
    fn par_chunks_cover_the_buffer_once_at_any_chunking() {
        for n in [0usize, 1, 63, 64, 65, 1000] {
            for chunk in [None, Some(1), Some(64), Some(999), Some(1000), Some(5000)] {
                FORCE_CHUNK.with(|c| c.set(chunk));
                let mut v = vec![0usize; n];
                let calls = std::sync::atomic::AtomicUsize::new(0);
                par_chunks(&mut v, 1, |start, c| {
                    calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if let Some(k) = chunk {
                        // every chunk but the last is exactly `k` long and starts at k*i
                        assert!(start % k == 0 && (c.len() == k || start + c.len() == n));
                    }
                    for (j, x) in c.iter_mut().enumerate() {
                        *x += start + j + 1;
                    }
                });
                FORCE_CHUNK.with(|c| c.set(None));
                assert!(
                    v.iter().enumerate().all(|(i, &x)| x == i + 1),
                    "n {n} {chunk:?}"
                );
                let want = match chunk {
                    Some(k) => n.div_ceil(k),
                    None => 1,
                };
                // an empty buffer is still one (empty) call without forced chunking
                let got = calls.into_inner();
                assert!(
                    got == want || (n == 0 && got <= 1),
                    "n {n} {chunk:?}: {got} calls"
                );
            }
        }
    }

    #[test]
    fn any_chunking_gives_bitwise_identical_results() {
        let n = 300_007;
        let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
        let shape = [n];
        let st = contiguous_strides(&shape);
        let run = |chunk: Option<usize>| {
            FORCE_CHUNK.with(|c| c.set(chunk));
            let mut out = vec![0.0f32; n];
            let k = ZipFn(|x: f32, y: f32| x * y + x / (y + 3.0));
            map2_par(&a, (&st, 0), &b, (&st, 0), &shape, &mut out, 1, &k);
            let mut gathered = vec![0.0f32; 300 * 1000];
            let t = MapFn(|x: f32| x.exp());
            map1(&a, (&[1, 300], 0), &[300, 1000], &mut gathered, 1, &t);
            FORCE_CHUNK.with(|c| c.set(None));
            (out, gathered)
        };
        let one = run(None);
        for chunk in [64, 1000, 4096 + 64, 1 << 15] {
            assert!(run(Some(chunk)) == one, "chunk {chunk} differs");
        }
    }

    #[test]
    fn map1_gathers_strided_runs() {
        // read a 4x3 row-major buffer as its 3x4 transpose with an offset
        let src: Vec<i64> = (0..13).collect();
        let mut dst = vec![0i64; 12];
        map1(
            &src,
            (&[1, 3], 1),
            &[3, 4],
            &mut dst,
            1,
            &MapFn(|x: i64| x * 10),
        );
        assert_eq!(dst, [10, 40, 70, 100, 20, 50, 80, 110, 30, 60, 90, 120]);
    }

    #[test]
    fn inplace_par_matches_serial_on_strided_and_broadcast() {
        let mut d: Vec<i64> = (0..12).collect();
        // d (3,4) += b (4,) broadcast over rows
        let b = [100i64, 200, 300, 400];
        zip_inplace_par(
            &mut d,
            (&[4, 1], 0),
            &b,
            (&[0, 1], 0),
            &[3, 4],
            1,
            &ZipFn(|x: i64, y: i64| x + y),
        );
        assert_eq!(d[..4], [100, 201, 302, 403]);
        assert_eq!(d[8..], [108, 209, 310, 411]);
        // a strided destination (every other column of a 2x4 buffer)
        let mut e = vec![0i64; 8];
        zip_inplace_par(
            &mut e,
            (&[4, 2], 1),
            &[1i64, 2, 3, 4],
            (&[2, 1], 0),
            &[2, 2],
            1,
            &ZipFn(|_, y: i64| y),
        );
        assert_eq!(e, [0, 1, 0, 2, 0, 3, 0, 4]);
    }
}
