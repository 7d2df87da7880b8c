//! Sorting and selection along one dim of a strided view: sort, top-k, the k-th
//! smallest value, median and mode. Pure functions on slices, strides and lengths.
//!
//! **Order.** Every op orders elements by PyTorch's value order: NaN is larger than
//! every number (+inf included), `-0.0 == 0.0`. Each value is mapped once to an
//! unsigned integer key whose integer order is that value order ([`SortKey`]; a
//! descending sort or a largest-k flips the key), and rows are sorted or selected as
//! (key, position) pairs. Which of several equal values comes first is PyTorch's
//! choice, op by op:
//!
//! * `sort(stable=True)` keeps equal values in input order: the pairs are compared
//!   whole, so any sort gives that order (the fast unstable one is used).
//! * `sort(stable=False)`, `topk` and `mode` order ties as PyTorch's CPU kernels do,
//!   which call the C++ library's `std::sort` / `nth_element` / `partial_sort` on
//!   pairs compared by value only: [`stl`] repeats those algorithms step for step.
//! * `kthvalue` repeats PyTorch's own quickselect ([`Pick::Kth`]); `median` breaks
//!   ties by position, as PyTorch's comparator does, so any selection agrees.
//!
//! The tie rules were read off PyTorch 2.13 and are checked against its recorded
//! outputs (`tests/fixtures/sort`).
//!
//! **Layout.** The input is read through its strides (transposed, stepped, expanded and
//! 0-d views alike: a 0-d view is one row of one element). Results are written row
//! after row, `m` per row, in the row-major order of the other dims ("dim moved last");
//! the op puts the dim back in place.
//!
//! **Threads.** Rows are split across ferric's pool (never rayon's global one) when
//! there are several rows and enough work; a single long row is sorted with a parallel
//! sort. Rows are independent, so results never depend on the thread count.

use crate::threads::{current_threads, install, worth_splitting, MIN_PARALLEL_WORK};
use rayon::prelude::*;
use smallvec::SmallVec;
use std::ops::Not;

/// An element type with a total order key: integer order of `key()` is PyTorch's value
/// order (NaN above +inf, `-0.0` equal to `0.0`).
pub trait SortKey: Copy + Send + Sync {
    type Key: Copy + Ord + Send + Sync + Not<Output = Self::Key>;
    fn key(self) -> Self::Key;
    fn is_nan(self) -> bool;
}

/// The IEEE bit trick: flip all bits of negatives, set the sign bit of positives, so
/// unsigned order is numeric order. NaNs (any sign, any payload) map to the top key.
/// Branch-free: with random signs a branch here mispredicts on half the elements,
/// which made top-k over normal logits ~5x slower.
macro_rules! float_key {
    ($t:ty, $u:ty, $i:ty) => {
        impl SortKey for $t {
            type Key = $u;
            #[inline(always)]
            fn key(self) -> $u {
                // adding +0.0 turns -0.0 into +0.0 and leaves every other value alone
                let b = (self + 0.0).to_bits();
                let sign: $u = 1 << (<$u>::BITS - 1);
                // all ones for a negative value, else zero
                let neg = ((b as $i) >> (<$u>::BITS - 1)) as $u;
                let k = b ^ (neg | sign);
                if self.is_nan() {
                    <$u>::MAX
                } else {
                    k
                }
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
float_key!(f32, u32, i32);
float_key!(f64, u64, i64);

impl SortKey for i64 {
    type Key = u64;
    #[inline(always)]
    fn key(self) -> u64 {
        (self as u64) ^ (1 << 63)
    }
    fn is_nan(self) -> bool {
        false
    }
}

impl SortKey for bool {
    type Key = u8;
    #[inline(always)]
    fn key(self) -> u8 {
        self as u8
    }
    fn is_nan(self) -> bool {
        false
    }
}

/// A position in a row, stored as narrowly as the row length allows (u32 halves the
/// pairs' size for rows shorter than 4G elements).
trait Idx: Copy + Ord + Send + Sync {
    fn of(j: usize) -> Self;
    fn get(self) -> usize;
}

impl Idx for u32 {
    #[inline(always)]
    fn of(j: usize) -> u32 {
        j as u32
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
}

impl Idx for usize {
    #[inline(always)]
    fn of(j: usize) -> usize {
        j
    }
    #[inline(always)]
    fn get(self) -> usize {
        self
    }
}

/// The lines along one dim of a strided view: `count()` rows of `n` elements, row `r`
/// being the `r`-th in the row-major order of the other dims. Strides are in elements
/// and never negative.
#[derive(Clone, Debug)]
pub struct Rows {
    shape: SmallVec<[usize; 6]>,
    strides: SmallVec<[isize; 6]>,
    offset: usize,
    /// Elements per row and the stride between them.
    pub n: usize,
    step: isize,
    count: usize,
}

impl Rows {
    /// The rows along `dim` of the view (`shape`, `strides`, `offset`); a 0-d view
    /// (empty `shape`) is one row of one element. `dim` must be a valid dim (or 0).
    pub fn new(shape: &[usize], strides: &[isize], offset: usize, dim: usize) -> Rows {
        let keep = |d: &usize| *d != dim;
        let kshape: SmallVec<[usize; 6]> =
            (0..shape.len()).filter(keep).map(|d| shape[d]).collect();
        let kstrides = (0..shape.len()).filter(keep).map(|d| strides[d]).collect();
        let n = shape.get(dim).copied().unwrap_or(1);
        // with n > 0 the row count is at most the view's element count, which fits
        let count = if n == 0 {
            0
        } else {
            kshape
                .iter()
                .try_fold(1usize, |a, &s| a.checked_mul(s))
                .unwrap_or(0)
        };
        Rows {
            shape: kshape,
            strides: kstrides,
            offset,
            n,
            step: strides.get(dim).copied().unwrap_or(0),
            count,
        }
    }

    /// The number of rows (0 when the view is empty).
    pub fn count(&self) -> usize {
        self.count
    }

    /// Element offset of the start of row `r`.
    fn start(&self, mut r: usize) -> usize {
        let mut off = self.offset;
        for (&s, &st) in self.shape.iter().zip(&self.strides).rev() {
            off = off.wrapping_add((r % s).wrapping_mul(st as usize));
            r /= s;
        }
        off
    }

    #[inline(always)]
    fn at(&self, start: usize, j: usize) -> usize {
        start.wrapping_add(j.wrapping_mul(self.step as usize))
    }
}

/// Per-thread working memory, reused from row to row.
struct Scratch<K, I> {
    pairs: Vec<(K, I)>,
}

impl<K, I> Default for Scratch<K, I> {
    fn default() -> Self {
        Scratch { pairs: Vec::new() }
    }
}

/// Runs `row(r, scratch, values, indices)` for every row, each writing its `m` results,
/// in parallel on ferric's pool when there are several rows and `work` is large enough.
fn for_rows<T: Send, K: Send, I: Send>(
    rows: usize,
    m: usize,
    work: usize,
    vals: &mut [T],
    idx: &mut [i64],
    row: impl Fn(usize, &mut Scratch<K, I>, &mut [T], &mut [i64]) + Sync,
) {
    if rows == 0 || m == 0 {
        return;
    }
    let (vals, idx) = (&mut vals[..rows * m], &mut idx[..rows * m]);
    if rows > 1 && worth_splitting(work) {
        let per_row = (work / rows).max(1);
        let by_work = (MIN_PARALLEL_WORK / per_row).max(1);
        let by_threads = rows.div_ceil(current_threads().max(1) * 4);
        let chunk = by_work.max(by_threads);
        install(|| {
            vals.par_chunks_mut(chunk * m)
                .zip(idx.par_chunks_mut(chunk * m))
                .enumerate()
                .for_each_init(Scratch::default, |s, (c, (v, i))| {
                    for (k, (v, i)) in v.chunks_mut(m).zip(i.chunks_mut(m)).enumerate() {
                        row(c * chunk + k, s, v, i);
                    }
                });
        });
        return;
    }
    let mut s = Scratch::default();
    for (r, (v, i)) in vals.chunks_mut(m).zip(idx.chunks_mut(m)).enumerate() {
        row(r, &mut s, v, i);
    }
}

/// Calls `$f::<u32>` for rows that u32 can index, else `$f::<usize>`.
macro_rules! by_index_width {
    ($n:expr, $f:ident, $($arg:expr),*) => {
        if u32::try_from($n).is_ok() {
            $f::<T, u32>($($arg),*)
        } else {
            $f::<T, usize>($($arg),*)
        }
    };
}

/// Fills `pairs` with (key, position) for one row; `flip` inverts the key order.
#[inline]
fn fill<T: SortKey, I: Idx>(
    src: &[T],
    rows: &Rows,
    start: usize,
    flip: bool,
    pairs: &mut Vec<(T::Key, I)>,
) {
    pairs.clear();
    pairs.reserve(rows.n);
    if rows.step == 1 {
        let line = &src[start..start + rows.n];
        if flip {
            pairs.extend(line.iter().enumerate().map(|(j, v)| (!v.key(), I::of(j))));
        } else {
            pairs.extend(line.iter().enumerate().map(|(j, v)| (v.key(), I::of(j))));
        }
        return;
    }
    for j in 0..rows.n {
        let k = src[rows.at(start, j)].key();
        pairs.push((if flip { !k } else { k }, I::of(j)));
    }
}

/// Writes the values and positions of `pairs` (in order) to a row of the outputs.
#[inline]
fn emit<T: SortKey, K, I: Idx>(
    src: &[T],
    rows: &Rows,
    start: usize,
    pairs: &[(K, I)],
    vals: &mut [T],
    idx: &mut [i64],
) {
    for ((p, v), i) in pairs.iter().zip(vals.iter_mut()).zip(idx.iter_mut()) {
        *v = src[rows.at(start, p.1.get())];
        *i = p.1.get() as i64;
    }
}

/// Sorts every row (ascending, or descending with NaN first), writing `rows.count()`
/// rows of `rows.n` values and positions. With `stable`, equal values keep their input
/// order; without, they end up as PyTorch's default sort leaves them (libstdc++'s
/// `std::sort` on (value, index) pairs, see [`stl`]), except along an expanded (stride
/// 0) dim, where PyTorch returns the positions in order.
pub fn sort<T: SortKey>(
    src: &[T],
    rows: &Rows,
    descending: bool,
    stable: bool,
    vals: &mut [T],
    idx: &mut [i64],
) {
    by_index_width!(rows.n, sort_w, src, rows, descending, stable, vals, idx)
}

fn sort_w<T: SortKey, I: Idx>(
    src: &[T],
    rows: &Rows,
    descending: bool,
    stable: bool,
    vals: &mut [T],
    idx: &mut [i64],
) {
    let (n, count) = (rows.n, rows.count());
    let work = n.saturating_mul(count);
    let stable = stable || rows.step == 0;
    let one_long_row = count == 1 && worth_splitting(n);
    for_rows(
        count,
        n,
        work,
        vals,
        idx,
        |r, s: &mut Scratch<T::Key, I>, v, i| {
            let start = rows.start(r);
            fill(src, rows, start, descending, &mut s.pairs);
            if !stable {
                stl::sort(&mut s.pairs, &|a, b| a.0 < b.0);
            } else if one_long_row {
                install(|| s.pairs.par_sort_unstable());
            } else {
                s.pairs.sort_unstable();
            }
            emit(src, rows, start, &s.pairs, v, i);
        },
    );
}

/// The `k` largest (or smallest) elements of every row, largest (smallest) first. Ties
/// come out as PyTorch's CPU top-k leaves them: it runs libstdc++'s `partial_sort` when
/// `64 k <= n` and else `nth_element` followed by a `sort` of the first `k - 1` (which
/// `sorted=False` skips); [`stl`] repeats those steps. The partial-sort path reads the
/// row once and keeps only a heap of `k` pairs: most elements of a long row cost one
/// compare with the heap's top. Needs `k <= rows.n`.
pub fn topk<T: SortKey>(
    src: &[T],
    rows: &Rows,
    k: usize,
    largest: bool,
    sorted: bool,
    vals: &mut [T],
    idx: &mut [i64],
) {
    by_index_width!(rows.n, topk_w, src, rows, k, largest, sorted, vals, idx)
}

fn topk_w<T: SortKey, I: Idx>(
    src: &[T],
    rows: &Rows,
    k: usize,
    largest: bool,
    sorted: bool,
    vals: &mut [T],
    idx: &mut [i64],
) {
    let (n, count) = (rows.n, rows.count());
    if k == 0 || k > n {
        return;
    }
    let work = n.saturating_mul(count);
    let lt = |a: &(T::Key, I), b: &(T::Key, I)| a.0 < b.0;
    // the best pairs come first: flip the key when the largest are wanted
    let key = |x: T| if largest { !x.key() } else { x.key() };
    for_rows(
        count,
        k,
        work,
        vals,
        idx,
        |r, s: &mut Scratch<T::Key, I>, v, i| {
            let start = rows.start(r);
            let pairs = &mut s.pairs;
            if k.saturating_mul(64) <= n {
                pairs.clear();
                pairs.extend((0..k).map(|j| (key(src[rows.at(start, j)]), I::of(j))));
                if rows.step == 1 {
                    let tail = src[start + k..start + n].iter().enumerate();
                    stl::heap_select(pairs, tail.map(|(j, &x)| (key(x), I::of(j + k))), &lt);
                } else {
                    let tail = (k..n).map(|j| (key(src[rows.at(start, j)]), I::of(j)));
                    stl::heap_select(pairs, tail, &lt);
                }
                stl::sort_heap(pairs, &lt);
            } else {
                fill(src, rows, start, largest, pairs);
                stl::nth_element(pairs, k - 1, &lt);
                if sorted {
                    stl::sort(&mut pairs[..k - 1], &lt);
                }
                pairs.truncate(k);
            }
            emit(src, rows, start, pairs, v, i);
        },
    );
}

/// What [`select`] picks from each row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The element of rank `k` (0-based) by value; which of equal values is PyTorch's
    /// choice (see `pytorch_select`).
    Kth(usize),
    /// The lower median, or the first NaN if the row has one.
    Median,
    /// The lower median of the non-NaN elements (the first NaN if all are NaN).
    NanMedian,
    /// The most frequent value (the smallest of equally frequent ones) and the position
    /// PyTorch gives (the last occurrence in rows of up to 16; see [`stl`]).
    Mode,
}

/// One (value, position) per row, as `pick` says. Needs `rows.n > 0` and, for
/// `Kth(k)`, `k < rows.n`.
pub fn select<T: SortKey>(src: &[T], rows: &Rows, pick: Pick, vals: &mut [T], idx: &mut [i64]) {
    by_index_width!(rows.n, select_w, src, rows, pick, vals, idx)
}

fn select_w<T: SortKey, I: Idx>(
    src: &[T],
    rows: &Rows,
    pick: Pick,
    vals: &mut [T],
    idx: &mut [i64],
) {
    let (n, count) = (rows.n, rows.count());
    if let Pick::Kth(k) = pick {
        if k >= n {
            return;
        }
    }
    let work = n.saturating_mul(count);
    for_rows(
        count,
        1,
        work,
        vals,
        idx,
        |r, s: &mut Scratch<T::Key, I>, v, i| {
            let start = rows.start(r);
            let j = pick_one(src, rows, start, pick, &mut s.pairs);
            v[0] = src[rows.at(start, j)];
            i[0] = j as i64;
        },
    );
}

/// The position `pick` chooses in one row.
fn pick_one<T: SortKey, I: Idx>(
    src: &[T],
    rows: &Rows,
    start: usize,
    pick: Pick,
    pairs: &mut Vec<(T::Key, I)>,
) -> usize {
    let n = rows.n;
    let first_nan = || (0..n).find(|&j| src[rows.at(start, j)].is_nan());
    let rank = match pick {
        Pick::Kth(k) => {
            fill(src, rows, start, false, pairs);
            return pytorch_select(pairs, k);
        }
        Pick::Median => {
            if let Some(j) = first_nan() {
                return j;
            }
            (n - 1) / 2
        }
        Pick::NanMedian => {
            let nans = (0..n).filter(|&j| src[rows.at(start, j)].is_nan()).count();
            if nans == n {
                return 0;
            }
            (n - nans - 1) / 2
        }
        Pick::Mode => {
            // PyTorch std::sorts (value, index) pairs by value and takes the last pair
            // of the longest run: the same sort gives the same pair
            fill(src, rows, start, false, pairs);
            stl::sort(pairs, &|a, b| a.0 < b.0);
            return mode_of(pairs);
        }
    };
    fill(src, rows, start, false, pairs);
    pairs.select_nth_unstable(rank).1 .1.get()
}

/// The position of the element of rank `k` by key, choosing among equal keys the one
/// PyTorch's `kthvalue` returns: this is the same quickselect (median-of-three pivot,
/// Hoare partition, as in Numerical Recipes' `select`) that its CPU kernel runs on the
/// row in input order, so ties resolve identically (checked against PyTorch 2.13 on
/// 9 000 tie- and NaN-heavy rows). Needs `k < pairs.len()`.
fn pytorch_select<K: Ord + Copy, I: Idx>(a: &mut [(K, I)], k: usize) -> usize {
    let (mut l, mut r) = (0, a.len() - 1);
    loop {
        if r <= l {
            break;
        }
        if r == l + 1 {
            if a[l].0 > a[r].0 {
                a.swap(l, r);
            }
            break;
        }
        let p = l + (r - l) / 2;
        a.swap(p, l + 1);
        if a[l + 1].0 > a[r].0 {
            a.swap(l + 1, r);
        }
        if a[l].0 > a[r].0 {
            a.swap(l, r);
        }
        if a[l + 1].0 > a[l].0 {
            a.swap(l + 1, l);
        }
        // now a[l + 1] <= a[l] <= a[r]: the scans below stop at r and at l + 1
        let (mut i, mut j) = (l + 1, r);
        let piv = a[l].0;
        loop {
            i += 1;
            while piv > a[i].0 {
                i += 1;
            }
            j -= 1;
            while a[j].0 > piv {
                j -= 1;
            }
            if j < i {
                break;
            }
            a.swap(i, j);
        }
        a.swap(l, j);
        if j <= k {
            l = i;
        }
        if j >= k {
            r = j - 1;
        }
    }
    a[k].1.get()
}

/// The last position of the longest run of equal keys in sorted pairs (the first such
/// run on a tie in length, i.e. the smallest value).
fn mode_of<K: Eq, I: Idx>(pairs: &[(K, I)]) -> usize {
    let (mut best_len, mut best) = (0, 0);
    let mut run = 0;
    for (t, p) in pairs.iter().enumerate() {
        run += 1;
        if pairs.get(t + 1).is_none_or(|q| q.0 != p.0) {
            if run > best_len {
                best_len = run;
                best = p.1.get();
            }
            run = 0;
        }
    }
    best
}

pub mod search;
pub mod stl;
#[cfg(test)]
mod tests;
pub mod unique;
