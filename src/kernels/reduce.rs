//! Reductions, scans and softmax over any strided layout.
//!
//! Every reduction (sum, mean, prod, max, argmax, var, logsumexp, norm, all, ...) is one
//! `Reducer` (init / step / merge) driven by [`reduce`]. The driver splits the dims into
//! kept and reduced ones, sorts and coalesces each group (strided::coalesce), and picks
//! one of two loop orders:
//!
//! * **inner**: the reduced elements of one output are close in memory (e.g. the last
//!   dim of a contiguous tensor, or everything): each output reduces its slice; a
//!   unit-stride slice goes through `Reducer::run`, which sums pairwise / in 8 lanes.
//! * **vertical**: a kept dim has the smallest stride (e.g. `sum(dim=0)` of a matrix):
//!   whole rows of accumulators are updated at once, which vectorises and reads memory
//!   sequentially, instead of striding down columns. Float sums cascade blocks of rows
//!   (a binary counter of partial rows) so long columns stay accurate.
//!
//! Scans (cumsum, cumprod, cummax) and softmax use the same geometry along one dim.
//! Strides are in elements and never negative (ferric has no negative strides).
//!
//! **Threads and reproducibility.** [`reduce_into`] splits large reductions across
//! ferric's pool by *output* elements (sub-views along the first kept dim), so every
//! output is accumulated exactly as on one thread. A reduction to a single value of a
//! float sum ([`FastSum`]) splits its input into fixed blocks whose totals are added in
//! a fixed tree: the blocking depends only on the length. So no reduction here (sum,
//! mean, prod, max, var, logsumexp, norm, ...), and neither softmax, gives results that
//! depend on the thread count; they may differ in the last bits between memory layouts
//! (a strided view is summed in another order than a contiguous one), as in PyTorch.

pub mod accumulators;
pub mod fast;
pub mod moments;
pub mod scan;
pub mod softmax;

/// The element arithmetic every reduction is written over.
pub use crate::kernels::num::{Float, Num};
pub use accumulators::{ArgBest, LogSumExp, Moments, Welford};

use crate::dtype::Element;
use crate::kernels::strided::{coalesce, for_each_run};
use crate::shape::{contiguous_strides, Dims, Strides};
use smallvec::SmallVec;
use std::marker::PhantomData;

/// `A::cast(v)` that is a no-op when the types are the same (`Element::cast` goes
/// through f64 for floats, which costs two conversions per element and blocks
/// vectorisation of f32 loops).
#[inline(always)]
pub fn conv<S: Element, A: Element>(v: S) -> A {
    if S::DTYPE == A::DTYPE {
        // SAFETY: equal DTYPEs mean S and A are the same type.
        unsafe { std::mem::transmute_copy(&v) }
    } else {
        A::cast(v)
    }
}

/// True only for a float NaN (`x != x`), so generic code needs no float bound.
#[inline(always)]
#[allow(clippy::eq_op)]
pub fn is_nan<T: PartialEq>(x: T) -> bool {
    x != x
}

/// `max` that propagates NaN (PyTorch's max/amax semantics).
#[inline(always)]
pub fn max_nan<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if b > a || is_nan(b) {
        b
    } else {
        a
    }
}

/// `min` that propagates NaN.
#[inline(always)]
pub fn min_nan<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if b < a || is_nan(b) {
        b
    } else {
        a
    }
}

/// An accumulator over the elements of one reduced slice.
pub trait Reducer<S: Copy> {
    type Acc: Copy;
    /// True when the result depends on the visiting order (arg-reducers report the
    /// row-major position), so the driver must not reorder reduced dims.
    const ORDERED: bool = false;
    fn init(&self) -> Self::Acc;
    /// Folds element `x`, the `i`-th of the slice in row-major order.
    fn step(&self, acc: Self::Acc, x: S, i: usize) -> Self::Acc;
    /// Combines partial results; `b` covers elements that come after `a`'s.
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Folds a unit-stride run whose first element is the `i0`-th. Reducers override
    /// this with a vectorisable or more accurate (pairwise) version where they can.
    #[inline]
    fn run(&self, acc: Self::Acc, xs: &[S], i0: usize) -> Self::Acc {
        let mut a = acc;
        for (j, &x) in xs.iter().enumerate() {
            a = self.step(a, x, i0 + j);
        }
        a
    }
    /// True for float sums: long strided or vertical accumulations are then done in
    /// blocks whose partial results are merged pairwise.
    fn cascade(&self) -> bool {
        false
    }
}

/// Independent accumulators in `lanes`: enough to hide add latency with vector units.
pub const LANES: usize = 16;

/// Folds `xs` in `LANES` independent lanes (so the loop vectorises and the adds do not
/// wait on each other); `init` must be the identity of `comb`.
#[inline(always)]
pub fn lanes<S: Copy, A: Copy>(
    xs: &[S],
    init: A,
    map: &impl Fn(S) -> A,
    comb: &impl Fn(A, A) -> A,
) -> A {
    if xs.len() < LANES {
        // short runs (e.g. reducing a small last dim) skip the lane set-up and merge
        return xs.iter().fold(init, |a, &x| comb(a, map(x)));
    }
    let mut acc = [init; LANES];
    let chunks = xs.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            acc[k] = comb(acc[k], map(c[k]));
        }
    }
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for k in 0..w {
            acc[k] = comb(acc[k], acc[k + w]);
        }
    }
    let mut r = acc[0];
    for &x in rest {
        r = comb(r, map(x));
    }
    r
}

/// Pairwise fold (NumPy's summation scheme): blocks of 128 are folded in 8 lanes and the
/// halves combined recursively, so rounding error grows like log(n), not n.
pub fn pairwise<S: Copy, A: Copy>(
    xs: &[S],
    init: A,
    map: &impl Fn(S) -> A,
    comb: &impl Fn(A, A) -> A,
) -> A {
    if xs.len() <= 128 {
        return lanes(xs, init, map, comb);
    }
    let half = (xs.len() / 2) & !(LANES - 1);
    comb(
        pairwise(&xs[..half], init, map, comb),
        pairwise(&xs[half..], init, map, comb),
    )
}

/// The common reducer: `comb`-fold of `map(x)`; `comb` must be associative with identity
/// `init`. Covers sum, prod, max, min, all, any, nansum, count_nonzero and norms.
pub struct Fold<S, A, M, C> {
    pub init: A,
    pub map: M,
    pub comb: C,
    /// Fold runs pairwise and cascade long accumulations (float sums).
    pub pairwise: bool,
    _s: PhantomData<fn(S)>,
}

pub fn fold<S, A, M, C>(init: A, map: M, comb: C, pairwise: bool) -> Fold<S, A, M, C>
where
    S: Copy,
    A: Copy,
    M: Fn(S) -> A,
    C: Fn(A, A) -> A,
{
    Fold {
        init,
        map,
        comb,
        pairwise,
        _s: PhantomData,
    }
}

impl<S: Copy, A: Copy, M: Fn(S) -> A, C: Fn(A, A) -> A> Reducer<S> for Fold<S, A, M, C> {
    type Acc = A;
    #[inline(always)]
    fn init(&self) -> A {
        self.init
    }
    #[inline(always)]
    fn step(&self, acc: A, x: S, _i: usize) -> A {
        (self.comb)(acc, (self.map)(x))
    }
    #[inline(always)]
    fn merge(&self, a: A, b: A) -> A {
        (self.comb)(a, b)
    }
    #[inline]
    fn run(&self, acc: A, xs: &[S], _i0: usize) -> A {
        let part = if self.pairwise {
            pairwise(xs, self.init, &self.map, &self.comb)
        } else {
            lanes(xs, self.init, &self.map, &self.comb)
        };
        (self.comb)(acc, part)
    }
    fn cascade(&self) -> bool {
        self.pairwise
    }
}

/// The float sum in the input's own precision (sum/mean of f32 and f64): contiguous runs
/// go through the blocked SIMD sum of [`fast::sum`] (pairwise over blocks), long strided
/// or vertical accumulations are cascaded like other float sums.
pub struct FastSum<T>(PhantomData<T>);

impl<T> Default for FastSum<T> {
    fn default() -> Self {
        FastSum(PhantomData)
    }
}

impl<T: Num + Send + Sync> Reducer<T> for FastSum<T> {
    type Acc = T;
    #[inline(always)]
    fn init(&self) -> T {
        T::ZERO
    }
    #[inline(always)]
    fn step(&self, acc: T, x: T, _i: usize) -> T {
        acc.add(x)
    }
    #[inline(always)]
    fn merge(&self, a: T, b: T) -> T {
        a.add(b)
    }
    #[inline]
    fn run(&self, acc: T, xs: &[T], _i0: usize) -> T {
        acc.add(fast::sum(xs))
    }
    fn cascade(&self) -> bool {
        true
    }
}

/// Kept dims as (size, input stride, output stride) and reduced dims as (size, stride),
/// sorted outermost-first by input stride and coalesced.
pub(crate) struct Geometry {
    pub(crate) kshape: Dims,
    pub(crate) kin: Strides,
    pub(crate) kout: Strides,
    rshape: Dims,
    rin: Strides,
}

pub(crate) type KeptDims = SmallVec<[(usize, isize, isize); 6]>;
pub(crate) type RedDims = SmallVec<[(usize, isize); 6]>;

impl Geometry {
    /// Geometry of a reduction over the dims flagged in `reduced`; outputs are numbered
    /// row-major over the kept dims.
    fn new(shape: &[usize], strides: &[isize], reduced: &[bool], ordered: bool) -> Geometry {
        let kept_shape: Dims = (0..shape.len())
            .filter(|&d| !reduced[d])
            .map(|d| shape[d])
            .collect();
        let kept_out = contiguous_strides(&kept_shape);
        let mut kept = KeptDims::new();
        let mut red = RedDims::new();
        for d in 0..shape.len() {
            if reduced[d] {
                red.push((shape[d], strides[d]));
            } else {
                kept.push((shape[d], strides[d], kept_out[kept.len()]));
            }
        }
        Self::from_parts(kept, red, ordered)
    }

    pub(crate) fn from_parts(mut kept: KeptDims, mut red: RedDims, ordered: bool) -> Geometry {
        // Order the kept dims so the one with the smallest input stride is innermost
        // (output order does not matter: every output has its own offset). Reduced dims
        // are reordered the same way unless the reducer reports positions.
        kept.sort_by_key(|e| std::cmp::Reverse(e.1));
        if !ordered {
            red.sort_by_key(|e| std::cmp::Reverse(e.1));
        }
        let ks: Dims = kept.iter().map(|e| e.0).collect();
        let ki: Strides = kept.iter().map(|e| e.1).collect();
        let ko: Strides = kept.iter().map(|e| e.2).collect();
        let (kshape, [kin, kout]) = coalesce(&ks, [&ki, &ko]);
        let rs: Dims = red.iter().map(|e| e.0).collect();
        let ri: Strides = red.iter().map(|e| e.1).collect();
        let (rshape, [rin]) = coalesce(&rs, [&ri]);
        Geometry {
            kshape,
            kin,
            kout,
            rshape,
            rin,
        }
    }

    /// Innermost kept dim: (size, input stride, output stride).
    pub(crate) fn row(&self) -> (usize, isize, isize) {
        let n = self.kshape.len() - 1;
        (self.kshape[n], self.kin[n], self.kout[n])
    }

    /// Rows are worth processing whole when the innermost kept dim is long enough and
    /// strictly inside every reduced dim in memory (a stride-0 reduced dim re-reads the
    /// same row, which also suits the row loop).
    pub(crate) fn vertical(&self) -> bool {
        let (n, s, _) = self.row();
        let red_min = self
            .rin
            .iter()
            .zip(&self.rshape)
            .filter(|(_, &d)| d > 1)
            .map(|(&st, _)| if st == 0 { isize::MAX } else { st })
            .min();
        n >= 4 && s > 0 && red_min.is_some_and(|m| s < m)
    }

    /// The kept dims other than the row, as a space of single positions.
    pub(crate) fn outer(&self) -> (Dims, [Strides; 2]) {
        let n = self.kshape.len() - 1;
        let mut shape: Dims = self.kshape[..n].into();
        let mut si: Strides = self.kin[..n].into();
        let mut so: Strides = self.kout[..n].into();
        shape.push(1);
        si.push(0);
        so.push(0);
        (shape, [si, so])
    }
}

/// Elements per row tile in the vertical loop: the accumulators stay in L1/L2.
pub(crate) const TILE: usize = 1024;
/// Rows folded into one block before a cascading reducer merges partial rows.
const BLOCK: usize = 32;
/// Strided runs of a cascading reducer are gathered in chunks of this many elements so
/// they get the pairwise `run` too.
const GATHER: usize = 256;

/// Partial rows merged like a binary counter: level k holds 2^k blocks, older levels
/// higher, so merging keeps element order and error grows like log(blocks).
struct Cascade<A> {
    levels: Vec<Vec<A>>,
    full: Vec<bool>,
}

impl<A: Copy> Cascade<A> {
    fn new() -> Self {
        Cascade {
            levels: Vec::new(),
            full: Vec::new(),
        }
    }

    /// Carries the finished block `cur` up the levels and resets it to `init`.
    fn push(&mut self, cur: &mut [A], init: A, merge: &impl Fn(A, A) -> A) {
        let mut k = 0;
        loop {
            if k == self.levels.len() {
                self.levels.push(Vec::with_capacity(cur.len()));
                self.full.push(false);
            }
            if !self.full[k] {
                self.levels[k].clear();
                self.levels[k].extend_from_slice(cur);
                self.full[k] = true;
                break;
            }
            for (c, &l) in cur.iter_mut().zip(&self.levels[k]) {
                *c = merge(l, *c);
            }
            self.full[k] = false;
            k += 1;
        }
        cur.fill(init);
    }

    /// Merges all levels (oldest first) in front of the last, partial block `cur`.
    fn finish(&mut self, cur: &mut [A], merge: &impl Fn(A, A) -> A) {
        for k in 0..self.levels.len() {
            if self.full[k] {
                for (c, &l) in cur.iter_mut().zip(&self.levels[k]) {
                    *c = merge(l, *c);
                }
                self.full[k] = false;
            }
        }
    }
}

/// Reduces the strided view `(src, shape, strides, offset)` over the dims flagged in
/// `reduced`. For each output (numbered row-major over the kept dims) calls
/// `emit(output_index, accumulator, reduced_count)` exactly once. With no reduced
/// elements every output gets `init()`.
pub fn reduce<S: Copy, R: Reducer<S>>(
    r: &R,
    src: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    reduced: &[bool],
    mut emit: impl FnMut(usize, R::Acc, usize),
) {
    let n_out: usize = (0..shape.len())
        .filter(|&d| !reduced[d])
        .map(|d| shape[d])
        .product();
    let n_red: usize = (0..shape.len())
        .filter(|&d| reduced[d])
        .map(|d| shape[d])
        .product();
    if n_out == 0 {
        return;
    }
    if n_red == 0 {
        for o in 0..n_out {
            emit(o, r.init(), 0);
        }
        return;
    }
    let g = Geometry::new(shape, strides, reduced, R::ORDERED);
    if n_out > 1 && g.vertical() {
        reduce_vertical(r, src, offset, &g, n_red, &mut emit);
        return;
    }
    let (rn, rs) = (*g.rshape.last().unwrap_or(&1), *g.rin.last().unwrap_or(&0));
    let contiguous = g.rshape.len() == 1 && rs == 1;
    let rstrides = [g.rin.clone()];
    let cascade = r.cascade();
    let merge = |a, b| r.merge(a, b);
    let mut levels = Cascade::new();
    let mut reduce_one = |base: usize| -> R::Acc {
        if contiguous {
            let xs = &src[base..base + rn];
            if rn < LANES {
                // many tiny slices (a short last dim): stay inline, no lane set-up
                let mut a = r.init();
                for (j, &x) in xs.iter().enumerate() {
                    a = r.step(a, x, j);
                }
                return a;
            }
            return r.run(r.init(), xs, 0);
        }
        let mut acc = [r.init()];
        let (mut i, mut pending) = (0, 0);
        for_each_run(&g.rshape, &rstrides, [base], |[o]| {
            if !cascade {
                acc[0] = fold_run(r, acc[0], src, o, rn, rs, i);
                i += rn;
                return;
            }
            // Float sums: fold chunks of about GATHER elements (pairwise inside), and
            // merge the chunk sums pairwise too, so many runs stay accurate.
            let mut j = 0;
            while j < rn {
                let m = GATHER.min(rn - j);
                acc[0] = fold_run(r, acc[0], src, o + j * rs as usize, m, rs, i + j);
                (pending, j) = (pending + m, j + m);
                if pending >= GATHER {
                    levels.push(&mut acc, r.init(), &merge);
                    pending = 0;
                }
            }
            i += rn;
        });
        if cascade {
            levels.finish(&mut acc, &merge);
        }
        acc[0]
    };
    let (row_n, row_s, row_o) = g.row();
    let kstrides = [g.kin.clone(), g.kout.clone()];
    for_each_run(&g.kshape, &kstrides, [offset, 0], |[io, oo]| {
        for j in 0..row_n {
            let acc = reduce_one(io + j * row_s as usize);
            emit(oo + j * row_o as usize, acc, n_red);
        }
    });
}

/// [`reduce`] into `out` (one slot per output, row-major over the kept dims) through
/// `fin(accumulator, reduced_count)`, split across ferric's pool when the input is large.
/// Each task reduces the sub-view holding a range of the first kept dim, so it writes a
/// contiguous range of `out`, and every output is computed as by the serial driver.
#[allow(clippy::too_many_arguments)]
pub fn reduce_into<S, R, O>(
    r: &R,
    src: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    reduced: &[bool],
    out: &mut [O],
    fin: impl Fn(R::Acc, usize) -> O + Sync,
) where
    S: Copy + Sync,
    R: Reducer<S> + Sync,
    O: Send,
{
    // long reductions let other Python threads run meanwhile
    let n = shape.iter().product::<usize>();
    crate::threads::unlocked_if_long(n, || {
        use rayon::prelude::*;
        let Some((d, parts)) = split_plan(shape, reduced, out.len()) else {
            reduce(r, src, shape, strides, offset, reduced, |k, a, n| {
                out[k] = fin(a, n)
            });
            return;
        };
        let (size, inner) = (shape[d], out.len() / shape[d]);
        let mut pieces = Vec::with_capacity(parts);
        let (mut rest, mut start) = (out, 0);
        for p in 0..parts {
            let len = size / parts + usize::from(p < size % parts);
            let (head, tail) = rest.split_at_mut(len * inner);
            pieces.push((start, len, head));
            (rest, start) = (tail, start + len);
        }
        let fin = &fin;
        crate::threads::install(|| {
            pieces.into_par_iter().for_each(|(a, len, o)| {
                let mut sub: Dims = shape.into();
                sub[d] = len;
                let off = offset + a * strides[d] as usize;
                reduce(r, src, &sub, strides, off, reduced, |k, acc, n| {
                    o[k] = fin(acc, n)
                });
            });
        });
    })
}

/// Where to split a reduction with `n_out` outputs: the first kept dim longer than one
/// and the number of pieces. Pieces keep at least 4 entries of that dim, so a dim that
/// is the vertical loop's row stays long enough for that loop (same per-output order).
fn split_plan(shape: &[usize], reduced: &[bool], n_out: usize) -> Option<(usize, usize)> {
    let total: usize = shape.iter().product();
    if n_out < 2 || !crate::threads::worth_splitting(total) {
        return None;
    }
    let d = (0..shape.len()).find(|&d| !reduced[d] && shape[d] > 1)?;
    let parts = (crate::threads::current_threads() * 4).min(shape[d] / 4);
    (parts >= 2).then_some((d, parts))
}

/// Folds `n` elements at `src[o + j * s]` into `acc` (positions from `i0`).
#[inline]
fn fold_run<S: Copy, R: Reducer<S>>(
    r: &R,
    acc: R::Acc,
    src: &[S],
    o: usize,
    n: usize,
    s: isize,
    i0: usize,
) -> R::Acc {
    if s == 1 {
        return r.run(acc, &src[o..o + n], i0);
    }
    let s = s as usize;
    if r.cascade() && n >= 16 {
        // gather strided chunks so float sums keep the pairwise accuracy
        let mut buf = [src[o]; GATHER];
        let mut acc = acc;
        let mut j = 0;
        while j < n {
            let m = GATHER.min(n - j);
            for (k, b) in buf[..m].iter_mut().enumerate() {
                *b = src[o + (j + k) * s];
            }
            acc = r.run(acc, &buf[..m], i0 + j);
            j += m;
        }
        return acc;
    }
    let mut acc = acc;
    for j in 0..n {
        acc = r.step(acc, src[o + j * s], i0 + j);
    }
    acc
}

/// The row loop: for each outer position and tile of the row, sweep all reduced
/// positions in order, updating a row of accumulators.
fn reduce_vertical<S: Copy, R: Reducer<S>>(
    r: &R,
    src: &[S],
    offset: usize,
    g: &Geometry,
    n_red: usize,
    emit: &mut impl FnMut(usize, R::Acc, usize),
) {
    let (row_n, row_s, row_o) = g.row();
    let (oshape, ostrides) = g.outer();
    let (rn, rs) = (*g.rshape.last().unwrap_or(&1), *g.rin.last().unwrap_or(&0));
    let rstrides = [g.rin.clone()];
    let init = r.init();
    let cascade = r.cascade();
    let merge = |a, b| r.merge(a, b);
    let mut acc: Vec<R::Acc> = vec![init; row_n.min(TILE)];
    let mut levels = Cascade::new();
    for_each_run(&oshape, &ostrides, [offset, 0], |[io, oo]| {
        let mut t0 = 0;
        while t0 < row_n {
            let w = TILE.min(row_n - t0);
            let acc = &mut acc[..w];
            acc.fill(init);
            let base = io + t0 * row_s as usize;
            let mut i = 0;
            for_each_run(&g.rshape, &rstrides, [base], |[ro]| {
                for j in 0..rn {
                    let o = ro + j * rs as usize;
                    if row_s == 1 {
                        for (a, &x) in acc.iter_mut().zip(&src[o..o + w]) {
                            *a = r.step(*a, x, i);
                        }
                    } else {
                        for (c, a) in acc.iter_mut().enumerate() {
                            *a = r.step(*a, src[o + c * row_s as usize], i);
                        }
                    }
                    i += 1;
                    if cascade && i % BLOCK == 0 {
                        levels.push(acc, init, &merge);
                    }
                }
            });
            if cascade {
                levels.finish(acc, &merge);
            }
            for (c, &a) in acc.iter().enumerate() {
                emit(oo + (t0 + c) * row_o as usize, a, n_red);
            }
            t0 += w;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random integers in -50..50.
    fn data(n: usize) -> Vec<i64> {
        let mut s: u64 = 0x2545_f491_4f6c_dd1d;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s % 100) as i64 - 50
            })
            .collect()
    }

    /// The full reduction of the contiguous `xs`.
    fn reduce_all<S: Copy, R: Reducer<S>>(r: &R, xs: &[S]) -> R::Acc
    where
        R::Acc: Default,
    {
        let mut out = R::Acc::default();
        reduce(r, xs, &[xs.len()], &[1], 0, &[true], |_, a, _| out = a);
        out
    }

    /// Scalar reference: for each output (row-major over kept dims) the elements of its
    /// slice in row-major order.
    fn slices<T: Copy>(
        src: &[T],
        shape: &[usize],
        strides: &[isize],
        offset: usize,
        reduced: &[bool],
    ) -> Vec<Vec<T>> {
        let n_out: usize = (0..shape.len())
            .filter(|&d| !reduced[d])
            .map(|d| shape[d])
            .product();
        let mut out = vec![Vec::new(); n_out];
        let total: usize = shape.iter().product();
        for lin in 0..total {
            let (mut rem, mut off, mut o, mut mul) = (lin, offset as isize, 0, 1);
            for d in (0..shape.len()).rev() {
                let i = rem % shape[d];
                rem /= shape[d];
                off += i as isize * strides[d];
                if !reduced[d] {
                    o += i * mul;
                    mul *= shape[d];
                }
            }
            out[o].push(src[off as usize]);
        }
        out
    }

    /// Layout variants of a 3-d (2, 3, 5) view: contiguous, permuted, step-sliced and
    /// expanded, each as (storage, shape, strides, offset).
    /// (storage, shape, strides, offset)
    type View = (Vec<i64>, Vec<usize>, Vec<isize>, usize);

    fn layouts() -> Vec<View> {
        let d = data(300);
        vec![
            (d.clone(), vec![2, 3, 5], vec![15, 5, 1], 0),
            (d.clone(), vec![2, 3, 5], vec![1, 10, 2], 0), // permuted
            (d.clone(), vec![2, 3, 5], vec![40, 10, 2], 3), // step-sliced with offset
            (d.clone(), vec![2, 3, 5], vec![0, 5, 1], 1),  // expanded dim 0
            (d.clone(), vec![2, 3, 5], vec![15, 0, 1], 0), // expanded dim 1
            (d, vec![6, 40], vec![1, 6], 0),               // transposed matrix
        ]
    }

    fn masks(nd: usize) -> Vec<Vec<bool>> {
        (0..1u32 << nd)
            .map(|m| (0..nd).map(|d| m & (1 << d) != 0).collect())
            .collect()
    }

    #[test]
    fn sum_and_argmax_match_reference_on_every_layout() {
        for (src, shape, strides, off) in layouts() {
            for red in masks(shape.len()) {
                let want = slices(&src, &shape, &strides, off, &red);
                let mut sums = vec![0; want.len()];
                let r = fold(0i64, |v: i64| v, i64::add, false);
                reduce(&r, &src, &shape, &strides, off, &red, |o, a, _| sums[o] = a);
                let exp: Vec<i64> = want.iter().map(|s| s.iter().sum()).collect();
                assert_eq!(sums, exp, "{shape:?} {strides:?} {red:?}");

                let mut arg = vec![(0, 0); want.len()];
                reduce(
                    &ArgBest::<i64, true>::default(),
                    &src,
                    &shape,
                    &strides,
                    off,
                    &red,
                    |o, a, _| arg[o] = a,
                );
                for (s, &(v, i)) in want.iter().zip(&arg) {
                    let m = *s.iter().max().unwrap();
                    let first = s.iter().position(|&x| x == m).unwrap();
                    assert_eq!((v, i), (m, first), "{shape:?} {strides:?} {red:?}");
                }
            }
        }
    }

    #[test]
    fn empty_slices_get_init_and_empty_outputs_nothing() {
        let r = fold(1i64, |v: i64| v, i64::mul, false);
        let mut got = vec![];
        reduce(
            &r,
            &[0i64; 0],
            &[3, 0],
            &[0, 1],
            0,
            &[false, true],
            |o, a, n| got.push((o, a, n)),
        );
        assert_eq!(got, vec![(0, 1, 0), (1, 1, 0), (2, 1, 0)]);
        let mut calls = 0;
        reduce(
            &r,
            &[0i64; 0],
            &[0, 3],
            &[3, 1],
            0,
            &[false, true],
            |_, _, _| calls += 1,
        );
        assert_eq!(calls, 0);
    }

    #[test]
    fn float_sums_stay_accurate() {
        let r = fold(0.0f32, |v: f32| v, f32::add, true);
        // 1e7 contiguous elements: pairwise
        let xs = vec![0.1f32; 10_000_000];
        let got = reduce_all(&r, &xs);
        assert!((got as f64 - 1e6).abs() / 1e6 < 1e-5, "{got}");
        // a long column (vertical loop with cascading) and a long strided run
        let (rows, cols) = (1_000_000, 4);
        let xs = vec![0.1f32; rows * cols];
        let mut cols_sum = vec![0.0; cols];
        reduce(
            &r,
            &xs,
            &[rows, cols],
            &[cols as isize, 1],
            0,
            &[true, false],
            |o, a, _| cols_sum[o] = a,
        );
        let mut strided = 0.0;
        reduce(&r, &xs, &[rows], &[cols as isize], 0, &[true], |_, a, _| {
            strided = a
        });
        // many short runs: reduce dims 0 and 2 of (250000, 2, 2)
        let mut runs = vec![0.0; 2];
        let (shape, st) = ([250_000, 2, 2], [4, 2, 1]);
        reduce(&r, &xs, &shape, &st, 0, &[true, false, true], |o, a, _| {
            runs[o] = a
        });
        runs.iter_mut().for_each(|v| *v *= 2.0);
        for v in cols_sum.clone().into_iter().chain([strided]).chain(runs) {
            assert!((v as f64 - 1e5).abs() / 1e5 < 1e-5, "{v} {cols_sum:?}");
        }
    }

    #[test]
    fn nan_propagates_and_first_nan_wins() {
        let xs = [1.0f64, f64::NAN, 3.0, f64::NAN, 3.0];
        let v = reduce_all(&fold(f64::LOWEST, |x: f64| x, max_nan, false), &xs);
        assert!(v.is_nan());
        let a = reduce_all(&ArgBest::<f64, false>::default(), &xs);
        assert_eq!(a.1, 1);
        let ys = [f64::NEG_INFINITY; 3];
        let a = reduce_all(&ArgBest::<f64, true>::default(), &ys);
        assert_eq!(a, (f64::NEG_INFINITY, 0));
    }
}
