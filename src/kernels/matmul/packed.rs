//! ferric's own float32 GEMM for AVX-512: packed operands and a 12 x 32 register tile.
//!
//! The loop nest is the classic five-loop blocking (Goto and van de Geijn): A is packed
//! in row blocks of `MC x KC` (kept in L3), B in blocks of `KC x NC` (kept in L2), and an
//! `MR x NR` tile of C is computed from an `MR x KC` sliver of A (in L1) and a `KC x NR`
//! sliver of B (streamed from L2, prefetched a few depths ahead). The tile holds
//! `MR = 12` rows of C, each two 16-lane vectors wide (`NR = 32`): 24 accumulators, two
//! B vectors and a broadcast A value fit the 32 vector registers. C's columns are the
//! vector lanes, so a row-major C (the usual case) is read and written whole vectors at
//! a time.
//!
//! Packing is what makes the tile fast: slivers are cache-line aligned (a vector load
//! split across two lines costs two), and both packers move 16 x 16 blocks through an
//! in-register transpose when the source runs the other way (row-major A, a transposed
//! B such as `x @ W.T`).
//!
//! A user interrupt (Ctrl-C, [`crate::threads::interrupted`]) stops the kernel before its
//! next `KC x NC` block, a few milliseconds apart; C is then incomplete and the caller
//! discards it.
//!
//! Every element of C is summed over `k` in `KC`-deep blocks in order, with the same
//! instructions wherever its tile lies, so cutting C into panels (one per thread) does
//! not change a single bit of the result.
//!
//! [`wanted`] picks this kernel over the `gemm` crate only where it measured faster on
//! this machine's class (Cascade Lake, one core): wide products (`n >= 512` with a
//! transposed B, `n >= 640` otherwise). Narrower ones go to `gemm`, whose kernels also
//! cover the other tile orientation.

use super::{GemmSpec, MatStrides};
use std::arch::x86_64::*;
use std::cell::RefCell;
use std::mem::MaybeUninit;

/// Rows of C per register tile (broadcast side, read from packed A).
const MR: usize = 12;
/// Columns of C per register tile (two 16-lane vectors, read from packed B).
const NR: usize = 32;
/// Depth of a packed block: an A sliver (`MR x KC`, 18 KiB) stays in L1.
const KC: usize = 384;
/// Columns of a packed B block: `KC x NC` (720 KiB) stays in L2.
const NC: usize = 480;
/// Rows of a packed A block: `MC x KC` (4.5 MiB) stays in L3.
const MC: usize = 3072;
/// How far ahead (in floats) the B sliver is prefetched: four depths.
const PREFETCH: usize = 4 * NR;

/// A cache line of floats: packing buffers are made of these, so every vector load of a
/// packed B sliver reads one aligned line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([f32; 16]);

thread_local! {
    /// Packing buffers (A block, B block), reused across calls on this thread.
    static BUFS: RefCell<(Vec<Line>, Vec<Line>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// True when a float32 product of this shape should use this kernel: the CPU runs
/// AVX-512 (and `FERRIC_SIMD` does not cap it below), and C is wide enough for the tile.
/// Measured against `gemm` on one core: a transposed B (`x @ W.T`) gains from `n = 512`
/// (its packing transposes in registers), a row-major B breaks even near `n = 640`
/// (512: 6% slower, 768: 4% faster).
pub fn wanted(s: &GemmSpec<f32>) -> bool {
    let min_n = if s.b.rs == 1 && s.b.cs != 1 { 512 } else { 640 };
    s.n >= min_n
        && s.m >= 48
        && s.k >= 64
        && crate::kernels::simd::active() == crate::kernels::simd::Level::Avx512
}

/// How a tile is written to C.
#[derive(Clone, Copy)]
struct Update {
    /// Scale of C's old value, or None when C is write-only (never read).
    keep: Option<f32>,
    /// Scale of the product.
    beta: f32,
}

/// `C = alpha * C + beta * A @ B` when `s.read_c`, else `C = beta * A @ B` with C never
/// read; `m x n` of C from `a`, `b`, `c` with the strides of `s`.
///
/// # Safety
/// The CPU must support AVX-512F. Every element the shapes and strides reach must lie
/// inside its buffer; C must not overlap A or B and no two elements of C may share
/// memory; C must be initialised when `s.read_c`.
pub unsafe fn gemm(
    s: &GemmSpec<f32>,
    (m, n): (usize, usize),
    a: *const f32,
    b: *const f32,
    c: *mut MaybeUninit<f32>,
) {
    if m == 0 || n == 0 {
        return;
    }
    BUFS.with(|bufs| {
        let mut bufs = bufs.borrow_mut();
        let (abuf, bbuf) = &mut *bufs;
        let depth = s.k.clamp(1, KC);
        let abuf = grow(abuf, m.min(MC).next_multiple_of(MR) * depth);
        let bbuf = grow(bbuf, n.min(NC).next_multiple_of(NR) * depth);
        // SAFETY: the caller's contract; the buffers hold a packed block of each operand
        unsafe { blocked(s, (m, n), a, b, c, abuf, bbuf) }
    })
}

/// The first `len` floats of `v`, grown (zeroed) to hold them.
fn grow(v: &mut Vec<Line>, len: usize) -> &mut [f32] {
    let lines = len.div_ceil(16);
    if v.len() < lines {
        v.clear();
        v.resize(lines, Line([0.0; 16]));
    }
    // SAFETY: a `Line` is 16 floats without padding and `v` holds at least `lines` of them
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<f32>(), len) }
}

fn at<T>(p: *const T, s: MatStrides, i: usize, j: usize) -> *const T {
    p.wrapping_offset(i as isize * s.rs + j as isize * s.cs)
}

#[target_feature(enable = "avx512f")]
unsafe fn blocked(
    s: &GemmSpec<f32>,
    (m, n): (usize, usize),
    a: *const f32,
    b: *const f32,
    c: *mut MaybeUninit<f32>,
    abuf: &mut [f32],
    bbuf: &mut [f32],
) {
    let k = s.k;
    let first = Update {
        keep: s.read_c.then_some(s.alpha),
        beta: s.beta,
    };
    if k == 0 {
        // an empty sum: C = alpha * C, or zeros
        for i in 0..m {
            for j in 0..n {
                let p = at(c, s.c, i, j).cast_mut();
                let v = first.keep.map_or(0.0, |keep| keep * (*p).assume_init());
                (*p).write(v);
            }
        }
        return;
    }
    for ic in (0..m).step_by(MC) {
        let mc = MC.min(m - ic);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            // later depth blocks add to what the first one wrote
            let up = if pc == 0 {
                first
            } else {
                Update {
                    keep: Some(1.0),
                    beta: s.beta,
                }
            };
            pack_a(at(a, s.a, ic, pc), s.a, mc, kc, abuf);
            for jc in (0..n).step_by(NC) {
                if crate::threads::interrupted() {
                    // a few milliseconds of work per block; the caller discards C
                    return;
                }
                let nc = NC.min(n - jc);
                pack_b(at(b, s.b, pc, jc), s.b, kc, nc, bbuf);
                for ir in (0..mc).step_by(MR) {
                    let ap = abuf.as_ptr().add(ir * kc);
                    for jr in (0..nc).step_by(NR) {
                        let bp = bbuf.as_ptr().add(jr * kc);
                        let ct = at(c, s.c, ic + ir, jc + jr).cast_mut();
                        let edge = (MR.min(mc - ir), NR.min(nc - jr));
                        tile(kc, ap, bp, ct, s.c, edge, up);
                    }
                }
            }
        }
    }
}

/// Packs `mc x kc` of A into slivers of `MR` rows: sliver `s` holds, for each depth `p`,
/// the `MR` values `A[s*MR + i, p]` (zero past `mc`).
#[target_feature(enable = "avx512f")]
unsafe fn pack_a(a: *const f32, s: MatStrides, mc: usize, kc: usize, out: &mut [f32]) {
    assert!(out.len() >= mc.next_multiple_of(MR) * kc);
    let out = out.as_mut_ptr();
    for ir in (0..mc).step_by(MR) {
        let mr = MR.min(mc - ir);
        let dst = out.add(ir * kc);
        let mut p0 = 0;
        if mr == MR && s.cs == 1 {
            // row-major A: 12 x 16 blocks of its rows, transposed in registers
            let rows: [*const f32; MR] = std::array::from_fn(|i| at(a, s, ir + i, 0));
            p0 = kc / 16 * 16;
            for p in (0..p0).step_by(16) {
                let r: [__m512; MR] = std::array::from_fn(|i| _mm512_loadu_ps(rows[i].add(p)));
                transpose(&r, dst.add(p * MR), MR, 0x0FFF);
            }
        }
        for p in p0..kc {
            let d = dst.add(p * MR);
            for i in 0..MR {
                *d.add(i) = if i < mr { *at(a, s, ir + i, p) } else { 0.0 };
            }
        }
    }
}

/// Packs `kc x nc` of B into slivers of `NR` columns: sliver `s` holds, for each depth
/// `p`, the `NR` values `B[p, s*NR + j]` (zero past `nc`).
#[target_feature(enable = "avx512f")]
unsafe fn pack_b(b: *const f32, s: MatStrides, kc: usize, nc: usize, out: &mut [f32]) {
    assert!(out.len() >= nc.next_multiple_of(NR) * kc);
    let out = out.as_mut_ptr();
    let full = nc / NR * NR;
    // depths [0, p0) of the whole slivers are packed by a fast path below
    let mut p0 = 0;
    if s.cs == 1 {
        // row-major B: each row is read once, left to right, into every sliver
        p0 = kc;
        for p in 0..kc {
            let row = at(b, s, p, 0);
            for jr in (0..full).step_by(NR) {
                let d = out.add(jr * kc + p * NR);
                _mm512_store_ps(d, _mm512_loadu_ps(row.add(jr)));
                _mm512_store_ps(d.add(16), _mm512_loadu_ps(row.add(jr + 16)));
            }
        }
    } else if s.rs == 1 {
        // a transposed B (columns contiguous along k): 16 x 16 blocks, transposed
        p0 = kc / 16 * 16;
        for jr in (0..full).step_by(NR) {
            for half in [0, 16] {
                let cols: [*const f32; 16] = std::array::from_fn(|j| at(b, s, 0, jr + half + j));
                for p in (0..p0).step_by(16) {
                    let r: [__m512; 16] = std::array::from_fn(|j| _mm512_loadu_ps(cols[j].add(p)));
                    transpose(&r, out.add(jr * kc + p * NR + half), NR, 0xFFFF);
                }
            }
        }
    }
    for jr in (0..nc).step_by(NR) {
        let d = out.add(jr * kc);
        let from = if jr < full { p0 } else { 0 };
        for p in from..kc {
            for j in 0..NR {
                *d.add(p * NR + j) = if jr + j < nc {
                    *at(b, s, p, jr + j)
                } else {
                    0.0
                };
            }
        }
    }
}

/// Transposes up to 16 rows of 16 floats (`r`; missing rows count as zero): column `c`
/// is stored as a row at `dst + c * stride`, its lanes selected by `mask`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn transpose(r: &[__m512], dst: *mut f32, stride: usize, mask: u16) {
    let z = _mm512_setzero_ps();
    let row = |i: usize| r.get(i).copied().unwrap_or(z);
    // 32-bit interleave of row pairs, then 64-bit interleave of those: 128-bit lane `l`
    // of `u[4g + j]` holds column `4l + j` of rows `4g..4g + 4`
    let mut u = [z; 16];
    for g in 0..4 {
        let (r0, r1, r2, r3) = (row(4 * g), row(4 * g + 1), row(4 * g + 2), row(4 * g + 3));
        let t0 = _mm512_castps_pd(_mm512_unpacklo_ps(r0, r1));
        let t1 = _mm512_castps_pd(_mm512_unpackhi_ps(r0, r1));
        let t2 = _mm512_castps_pd(_mm512_unpacklo_ps(r2, r3));
        let t3 = _mm512_castps_pd(_mm512_unpackhi_ps(r2, r3));
        u[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
        u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
        u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
        u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
    }
    // then gather lane `l` of the four row groups: 0x88 takes lanes 0 and 2 of each
    // source, 0xDD lanes 1 and 3
    for j in 0..4 {
        let v = _mm512_shuffle_f32x4::<0x88>(u[j], u[4 + j]);
        let w = _mm512_shuffle_f32x4::<0xDD>(u[j], u[4 + j]);
        let v2 = _mm512_shuffle_f32x4::<0x88>(u[8 + j], u[12 + j]);
        let w2 = _mm512_shuffle_f32x4::<0xDD>(u[8 + j], u[12 + j]);
        let cols = [
            (j, _mm512_shuffle_f32x4::<0x88>(v, v2)),
            (4 + j, _mm512_shuffle_f32x4::<0x88>(w, w2)),
            (8 + j, _mm512_shuffle_f32x4::<0xDD>(v, v2)),
            (12 + j, _mm512_shuffle_f32x4::<0xDD>(w, w2)),
        ];
        for (col, x) in cols {
            _mm512_mask_storeu_ps(dst.add(col * stride), mask, x);
        }
    }
}

/// One `MR x NR` tile: sums `kc` rank-1 updates from the packed slivers `a` and `b`, then
/// writes the `edge = (rows, cols)` part of it that lies inside C.
#[target_feature(enable = "avx512f")]
unsafe fn tile(
    kc: usize,
    a: *const f32,
    b: *const f32,
    c: *mut MaybeUninit<f32>,
    sc: MatStrides,
    (mr, nr): (usize, usize),
    up: Update,
) {
    let mut acc = [_mm512_setzero_ps(); 2 * MR];
    if sc.cs == 1 && up.keep.is_some() {
        // C's rows are read at the end: start bringing them in now
        for i in 0..mr {
            let row = at(c, sc, i, 0).cast::<i8>();
            _mm_prefetch::<_MM_HINT_T0>(row);
            _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(64));
        }
    }
    let mut step = |p: usize| {
        let bp = b.add(p * NR);
        // past the sliver's end this reaches the next one (or unused buffer space): a
        // prefetch never faults, so the address need not be valid
        _mm_prefetch::<_MM_HINT_T0>(bp.wrapping_add(PREFETCH).cast::<i8>());
        _mm_prefetch::<_MM_HINT_T0>(bp.wrapping_add(PREFETCH + 16).cast::<i8>());
        let b0 = _mm512_load_ps(bp);
        let b1 = _mm512_load_ps(bp.add(16));
        let ap = a.add(p * MR);
        for i in 0..MR {
            let av = _mm512_set1_ps(*ap.add(i));
            acc[2 * i] = _mm512_fmadd_ps(av, b0, acc[2 * i]);
            acc[2 * i + 1] = _mm512_fmadd_ps(av, b1, acc[2 * i + 1]);
        }
    };
    // unrolled by four: the loop counter and branch are noise next to 96 FMAs
    let whole = kc / 4 * 4;
    for p in (0..whole).step_by(4) {
        step(p);
        step(p + 1);
        step(p + 2);
        step(p + 3);
    }
    for p in whole..kc {
        step(p);
    }
    if up.beta != 1.0 {
        let beta = _mm512_set1_ps(up.beta);
        for v in acc.iter_mut() {
            *v = _mm512_mul_ps(*v, beta);
        }
    }
    if mr == MR && nr == NR && sc.cs == 1 {
        for i in 0..MR {
            let row = at(c, sc, i, 0).cast_mut().cast::<f32>();
            let (mut v0, mut v1) = (acc[2 * i], acc[2 * i + 1]);
            match up.keep {
                None => {}
                Some(1.0) => {
                    v0 = _mm512_add_ps(_mm512_loadu_ps(row), v0);
                    v1 = _mm512_add_ps(_mm512_loadu_ps(row.add(16)), v1);
                }
                Some(keep) => {
                    let keep = _mm512_set1_ps(keep);
                    v0 = _mm512_fmadd_ps(keep, _mm512_loadu_ps(row), v0);
                    v1 = _mm512_fmadd_ps(keep, _mm512_loadu_ps(row.add(16)), v1);
                }
            }
            _mm512_storeu_ps(row, v0);
            _mm512_storeu_ps(row.add(16), v1);
        }
        return;
    }
    // an edge tile, or a C with strided columns: through a buffer, element by element,
    // with the same arithmetic as the vector path
    let mut t = [0.0f32; MR * NR];
    for i in 0..MR {
        _mm512_storeu_ps(t.as_mut_ptr().add(i * NR), acc[2 * i]);
        _mm512_storeu_ps(t.as_mut_ptr().add(i * NR + 16), acc[2 * i + 1]);
    }
    for i in 0..mr {
        for j in 0..nr {
            let p = at(c, sc, i, j).cast_mut();
            let v = t[i * NR + j];
            let v = match up.keep {
                None => v,
                Some(1.0) => (*p).assume_init() + v,
                Some(keep) => keep.mul_add((*p).assume_init(), v),
            };
            (*p).write(v);
        }
    }
}

#[cfg(test)]
mod tests;
