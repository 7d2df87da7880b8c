//! The C++ standard library's unstable sort and selection (`std::sort`,
//! `std::nth_element`, `std::partial_sort`) step for step as GNU libstdc++ performs
//! them, so that elements with equal keys end up in the same order as in PyTorch's CPU
//! kernels, which call these on (value, index) pairs: `sort(stable=False)`, `topk` and
//! `mode` give the indices of tied values in that order. Written from the algorithms'
//! published descriptions (introsort: median-of-three pivot, unguarded Hoare partition,
//! depth limit 2*floor(log2 n), insertion sort below 16 elements; introselect; heap
//! select) and checked against PyTorch 2.13 on thousands of tie- and NaN-heavy rows
//! (`tests/fixtures/sort`).
//!
//! `lt` must be a strict weak order (ours compares integer keys); the unguarded scans
//! then stay inside the slice, as in the C++ originals.

/// `floor(log2(n))` for n >= 1.
fn lg(n: usize) -> usize {
    (usize::BITS - 1 - n.leading_zeros()) as usize
}

fn insertion_sort<P: Copy>(a: &mut [P], lt: &impl Fn(&P, &P) -> bool) {
    for i in 1..a.len() {
        if lt(&a[i], &a[0]) {
            a[..=i].rotate_right(1);
        } else {
            linear_insert(a, i, lt);
        }
    }
}

/// Moves `a[last]` down to its place; some earlier element is not greater than it.
fn linear_insert<P: Copy>(a: &mut [P], mut last: usize, lt: &impl Fn(&P, &P) -> bool) {
    let v = a[last];
    while lt(&v, &a[last - 1]) {
        a[last] = a[last - 1];
        last -= 1;
    }
    a[last] = v;
}

/// Puts the median of a[x], a[y], a[z] at a[r].
fn median_to_first<P: Copy>(
    a: &mut [P],
    r: usize,
    x: usize,
    y: usize,
    z: usize,
    lt: &impl Fn(&P, &P) -> bool,
) {
    let m = if lt(&a[x], &a[y]) {
        if lt(&a[y], &a[z]) {
            y
        } else if lt(&a[x], &a[z]) {
            z
        } else {
            x
        }
    } else if lt(&a[x], &a[z]) {
        x
    } else if lt(&a[y], &a[z]) {
        z
    } else {
        y
    };
    a.swap(r, m);
}

/// Partitions `a[1..]` around the pivot at `a[0]`; returns the cut.
fn partition_pivot<P: Copy>(a: &mut [P], lt: &impl Fn(&P, &P) -> bool) -> usize {
    let n = a.len();
    median_to_first(a, 0, 1, n / 2, n - 1, lt);
    let (mut f, mut l) = (1, n);
    loop {
        while lt(&a[f], &a[0]) {
            f += 1;
        }
        l -= 1;
        while lt(&a[0], &a[l]) {
            l -= 1;
        }
        if f >= l {
            return f;
        }
        a.swap(f, l);
        f += 1;
    }
}

/// Sifts `v` down from `hole` in the max-heap `a[..len]` (libstdc++'s `__adjust_heap`
/// followed by `__push_heap`).
fn adjust_heap<P: Copy>(
    a: &mut [P],
    mut hole: usize,
    len: usize,
    v: P,
    lt: &impl Fn(&P, &P) -> bool,
) {
    let top = hole;
    let mut child = hole;
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if lt(&a[child], &a[child - 1]) {
            child -= 1;
        }
        a[hole] = a[child];
        hole = child;
    }
    if len.is_multiple_of(2) && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        a[hole] = a[child - 1];
        hole = child - 1;
    }
    while hole > top {
        let parent = (hole - 1) / 2;
        if !lt(&a[parent], &v) {
            break;
        }
        a[hole] = a[parent];
        hole = parent;
    }
    a[hole] = v;
}

fn make_heap<P: Copy>(a: &mut [P], lt: &impl Fn(&P, &P) -> bool) {
    let n = a.len();
    if n < 2 {
        return;
    }
    for parent in (0..=(n - 2) / 2).rev() {
        adjust_heap(a, parent, n, a[parent], lt);
    }
}

/// `std::__heap_select` with the tail supplied by `tail` (its elements are only ever
/// compared with the heap's top, so they need not be stored): afterwards `heap` holds
/// the `heap.len()` smallest elements as a max-heap.
pub fn heap_select<P: Copy>(
    heap: &mut [P],
    tail: impl Iterator<Item = P>,
    lt: &impl Fn(&P, &P) -> bool,
) {
    make_heap(heap, lt);
    let k = heap.len();
    if k == 0 {
        return;
    }
    for v in tail {
        if lt(&v, &heap[0]) {
            adjust_heap(heap, 0, k, v, lt);
        }
    }
}

/// `std::__sort_heap`.
pub fn sort_heap<P: Copy>(a: &mut [P], lt: &impl Fn(&P, &P) -> bool) {
    let mut last = a.len();
    while last > 1 {
        last -= 1;
        let v = a[last];
        a[last] = a[0];
        adjust_heap(a, 0, last, v, lt);
    }
}

fn introsort_loop<P: Copy>(mut a: &mut [P], mut depth: usize, lt: &impl Fn(&P, &P) -> bool) {
    while a.len() > 16 {
        if depth == 0 {
            make_heap(a, lt);
            sort_heap(a, lt);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(a, lt);
        let (lo, hi) = a.split_at_mut(cut);
        introsort_loop(hi, depth, lt);
        a = lo;
    }
}

/// `std::sort`.
pub fn sort<P: Copy>(a: &mut [P], lt: &impl Fn(&P, &P) -> bool) {
    if a.len() < 2 {
        return;
    }
    introsort_loop(a, 2 * lg(a.len()), lt);
    if a.len() > 16 {
        insertion_sort(&mut a[..16], lt);
        for i in 16..a.len() {
            linear_insert(a, i, lt);
        }
    } else {
        insertion_sort(a, lt);
    }
}

/// `std::nth_element`: afterwards `a[nth]` is the element of that rank, smaller ones
/// (or equal) before it.
pub fn nth_element<P: Copy>(a: &mut [P], nth: usize, lt: &impl Fn(&P, &P) -> bool) {
    if nth >= a.len() {
        return;
    }
    let mut depth = 2 * lg(a.len());
    let (mut first, mut last) = (0, a.len());
    while last - first > 3 {
        if depth == 0 {
            heap_select_in_place(&mut a[first..last], nth + 1 - first, lt);
            a.swap(first, nth);
            return;
        }
        depth -= 1;
        let cut = first + partition_pivot(&mut a[first..last], lt);
        if cut <= nth {
            first = cut;
        } else {
            last = cut;
        }
    }
    insertion_sort(&mut a[first..last], lt);
}

/// `std::__heap_select` on a slice whose tail is kept (the elements the heap gives up
/// go where the accepted ones were), as `nth_element`'s fallback leaves it.
fn heap_select_in_place<P: Copy>(a: &mut [P], middle: usize, lt: &impl Fn(&P, &P) -> bool) {
    make_heap(&mut a[..middle], lt);
    for i in middle..a.len() {
        if lt(&a[i], &a[0]) {
            let v = a[i];
            a[i] = a[0];
            adjust_heap(&mut a[..middle], 0, middle, v, lt);
        }
    }
}
