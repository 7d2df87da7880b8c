//! Advanced indexing (`x[idx]`, `x[mask] = v`, `index_put_`) and the ops built on the same
//! "gather along broadcast index tensors" kernel: `index_select`, `take`, `index_add_`,
//! `index_fill_`. Gather/scatter live in `index/scatter.rs`; masks, `where` and `nonzero`
//! in `index/masked.rs`.
//!
//! The kernel: after the basic view ops (done by `indexing.rs`), an advanced index is a
//! set of view dims `D` with int64 index tensors broadcast to a shape `B`. Every position
//! `b` of `B` names one storage offset `off[b] = view.offset + sum_j idx_j[b] * stride(D_j)`
//! (validated once, before anything is written). The remaining ("rest") dims of the view
//! are copied as one strided block per `b`, so big inputs are read through their strides
//! and never copied first.

pub mod masked;
pub mod scatter;

use crate::dtype::{DType, Element, Scalar};
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::strided;
use crate::shape::{broadcast_shapes, contiguous_strides, normalize_dim, Dims};
use crate::tensor::Tensor;
use smallvec::SmallVec;
use std::borrow::Cow;

/// Calls `f(positions)` for every element of a shape in row-major order, with the storage
/// position of that element in each of `K` strided operands. Strides may be 0 or negative
/// as long as every visited position is in bounds (the per-run offsets are computed in
/// signed arithmetic).
pub(crate) fn visit<const K: usize>(
    shape: &[usize],
    strides: [&[isize]; K],
    offsets: [usize; K],
    mut f: impl FnMut([usize; K]),
) {
    let (cs, st) = strided::coalesce(shape, strides);
    let n = *cs.last().unwrap_or(&1);
    let inner: [isize; K] = std::array::from_fn(|k| *st[k].last().unwrap_or(&0));
    strided::for_each_run(&cs, &st, offsets, |base| {
        for j in 0..n as isize {
            f(std::array::from_fn(|k| {
                (base[k] as isize + j * inner[k]) as usize
            }));
        }
    });
}

/// Like `visit` with one operand, also passing the row-major position of each element.
pub(crate) fn visit_indexed(
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    mut f: impl FnMut(usize, usize),
) {
    let rowmajor = contiguous_strides(shape);
    visit(shape, [strides, &rowmajor], [offset, 0], |[p, k]| f(k, p));
}

/// An advanced index, normalised: int64 index tensors (masks already expanded) for the
/// view dims `dims` (ascending), all broadcast to `bshape`.
struct Plan {
    view: Tensor,
    dims: Vec<usize>,
    idx: Vec<Tensor>,
    bshape: Dims,
    /// Offsets computed up front (a lone boolean mask needs no coordinate tensors).
    offs: Option<Vec<usize>>,
}

/// How out-of-range indices are treated and reported by each op.
struct Bounds<'a> {
    /// Negative indices count from the end (advanced indexing, take, index_fill).
    wrap: bool,
    /// Makes the error for value `v` of index tensor `j` on view dim `dim` of size `size`.
    err: &'a dyn Fn(i64, usize, usize, usize) -> Error,
}

fn index_oob(v: i64, j: usize, _dim: usize, size: usize) -> Error {
    // PyTorch's index kernel names the position of the index tensor, not the view dim.
    Error::index(
        "index",
        format!("index {v} is out of bounds for dimension {j} with size {size}"),
    )
}

fn self_oob(_: i64, _: usize, _: usize, _: usize) -> Error {
    Error::index("", "index out of range in self")
}

impl Plan {
    /// Expands bool masks into index tensors and broadcasts all indices together.
    fn new(view: &Tensor, adv: &[(usize, Option<Tensor>)]) -> Result<Plan> {
        let mut view = view.clone();
        let mut dims = Vec::new();
        let mut idx: Vec<Tensor> = Vec::new();
        // dims shift right when a 0-d bool index adds a dimension
        let mut shift = 0usize;
        for (d, t) in adv {
            let Some(t) = t else { continue };
            let d = d + shift;
            match t.dtype() {
                DType::I64 => {
                    if d >= view.ndim() {
                        return Err(too_many(&view));
                    }
                    dims.push(d);
                    idx.push(t.clone());
                }
                DType::Bool if t.ndim() == 0 => {
                    // `x[True]` adds a dim of size 1 and selects it (or nothing, for False)
                    view = view.with_layout(view.layout.unsqueeze(d))?;
                    let n = usize::from(t.item()?.to_bool());
                    dims.push(d);
                    idx.push(Tensor::from_vec(vec![0i64; n], &[n])?);
                    shift += 1;
                }
                DType::Bool => {
                    let k = t.ndim();
                    if d + k > view.ndim() {
                        return Err(too_many(&view));
                    }
                    for j in 0..k {
                        if t.shape()[j] != view.shape()[d + j] {
                            return Err(Error::index(
                                "index",
                                format!(
                                    "The shape of the mask {} at index {j} does not match the \
                                     shape of the indexed tensor {} at index {}",
                                    fmt_shape(t.shape()),
                                    fmt_shape(view.shape()),
                                    d + j
                                ),
                            ));
                        }
                    }
                    if adv.iter().filter(|(_, t)| t.is_some()).count() == 1 {
                        // `x[mask]`: read the view positions of the true elements directly
                        // SAFETY: bool data of the mask, read only.
                        let m = unsafe { t.data::<bool>() };
                        let mut offs = Vec::new();
                        visit(
                            t.shape(),
                            [t.strides(), &view.strides()[d..d + k]],
                            [t.layout.offset, view.layout.offset],
                            |[pm, pv]| {
                                if m[pm] {
                                    offs.push(pv)
                                }
                            },
                        );
                        return Ok(Plan {
                            dims: (d..d + k).collect(),
                            idx: Vec::new(),
                            bshape: Dims::from_slice(&[offs.len()]),
                            offs: Some(offs),
                            view,
                        });
                    }
                    let nz = t.nonzero()?;
                    for j in 0..k {
                        dims.push(d + j);
                        idx.push(nz.with_layout(nz.layout.select(1, j))?);
                    }
                }
                _ => {
                    return Err(Error::index(
                        "index",
                        "tensors used as indices must be long, int, byte or bool tensors",
                    ))
                }
            }
        }
        let mut bshape = Dims::new();
        for t in &idx {
            bshape = broadcast_shapes(&bshape, t.shape()).map_err(|_| {
                let shapes: Vec<String> = idx.iter().map(|t| fmt_shape(t.shape())).collect();
                Error::index(
                    "index",
                    format!(
                        "shape mismatch: indexing tensors could not be broadcast together with \
                         shapes {}",
                        shapes.join(", ")
                    ),
                )
            })?;
        }
        Ok(Plan {
            view,
            dims,
            idx,
            bshape,
            offs: None,
        })
    }

    /// View dims that are not indexed, in order.
    fn rest(&self) -> Vec<usize> {
        (0..self.view.ndim())
            .filter(|d| !self.dims.contains(d))
            .collect()
    }

    /// Where the broadcast dims go among the rest dims of the result: in place of the
    /// indexed dims when those are adjacent, else first (the NumPy/PyTorch rule).
    fn insert_at(&self) -> usize {
        let adjacent = self.dims.windows(2).all(|w| w[1] == w[0] + 1);
        if adjacent {
            self.dims.first().copied().unwrap_or(0)
        } else {
            0
        }
    }

    fn out_shape(&self) -> Dims {
        let rest = self.rest();
        let at = self.insert_at();
        let mut s: Dims = rest[..at].iter().map(|&d| self.view.shape()[d]).collect();
        s.extend_from_slice(&self.bshape);
        s.extend(rest[at..].iter().map(|&d| self.view.shape()[d]));
        s
    }

    /// Positions of the broadcast dims and of the rest dims within the result's dims.
    fn out_positions(&self) -> (Vec<usize>, Vec<usize>) {
        let at = self.insert_at();
        let nb = self.bshape.len();
        let rest: Vec<usize> = (0..self.rest().len())
            .map(|i| if i < at { i } else { i + nb })
            .collect();
        ((at..at + nb).collect(), rest)
    }

    /// The storage offset of the view element named by each broadcast position.
    fn offsets(&self, bounds: &Bounds) -> Result<Cow<'_, [usize]>> {
        if let Some(o) = &self.offs {
            return Ok(Cow::Borrowed(o));
        }
        let nb = crate::shape::checked_numel("index", &self.bshape)?;
        let mut offs = try_filled("index", nb, self.view.layout.offset)?;
        for (j, (&d, t)) in self.dims.iter().zip(&self.idx).enumerate() {
            let size = self.view.shape()[d];
            let stride = self.view.strides()[d] as usize;
            let lb = t.layout.broadcast_to(&self.bshape)?;
            // SAFETY: index tensors are int64 (checked in `Plan::new`).
            let data = unsafe { t.data::<i64>() };
            let mut err = None;
            visit_indexed(&self.bshape, &lb.strides, lb.offset, |k, p| {
                if err.is_some() {
                    return;
                }
                let v = data[p];
                let n = size as i64;
                let w = if bounds.wrap && v < 0 { v + n } else { v };
                if w < 0 || w >= n {
                    err = Some((bounds.err)(v, j, d, size));
                } else {
                    offs[k] += w as usize * stride;
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
        }
        Ok(Cow::Owned(offs))
    }

    /// `view[idx]` as a new contiguous tensor.
    fn gather(&self, bounds: &Bounds) -> Result<Tensor> {
        let src_offs = self.offsets(bounds)?;
        let shape = self.out_shape();
        let out = Tensor::zeros("index", &shape, self.view.dtype())?;
        let (bpos, rpos) = self.out_positions();
        let ost = out.strides();
        let dst_offs = block_offsets(&self.bshape, &pick(ost, &bpos), 0)?;
        let rest = self.rest();
        let rshape: Dims = rest.iter().map(|&d| self.view.shape()[d]).collect();
        crate::with_dtype!(out.dtype(), T, {
            // SAFETY: `out` is fresh (no other slice of it exists) and has dtype T.
            let (d, s) = unsafe { (out.data_mut::<T>(), self.view.data::<T>()) };
            copy_blocks(
                d,
                (&pick(ost, &rpos), &dst_offs),
                s,
                (&pick(self.view.strides(), &rest), &src_offs),
                &rshape,
                |_, x| x,
            );
        });
        Ok(out)
    }

    /// `view[idx] = value` (or `+=` with `accumulate`); `value` broadcasts to the indexed
    /// shape and is converted to the view's dtype.
    fn put(&self, op: &str, value: &Tensor, accumulate: bool, bounds: &Bounds) -> Result<()> {
        // PyTorch allows index_fill_ and index_put_ on an expanded (self-aliasing) tensor
        if matches!(op, "index_fill_" | "index_put_") {
            self.view.check_storage_writable(op)?;
        } else {
            self.view.check_writable(op)?;
        }
        let shape = self.out_shape();
        let lv = value.layout.broadcast_to(&shape).map_err(|_| {
            Error::runtime(
                op,
                format!(
                    "shape mismatch: value tensor of shape {} cannot be broadcast to indexing \
                     result of shape {}",
                    fmt_shape(value.shape()),
                    fmt_shape(&shape)
                ),
            )
        })?;
        let dst_offs = self.offsets(bounds)?;
        let dtype = self.view.dtype();
        // A converted or copied value has its own storage, so the slices below never alias.
        let value = if value.dtype() != dtype || value.shares_storage(&self.view) {
            let c = value.copy_as(dtype)?;
            let l = c.layout.broadcast_to(&shape)?;
            c.with_layout(l)?
        } else {
            value.with_layout(lv)?
        };
        let (bpos, rpos) = self.out_positions();
        let vst = value.strides();
        let src_offs = block_offsets(&self.bshape, &pick(vst, &bpos), value.layout.offset)?;
        let rest = self.rest();
        let rshape: Dims = rest.iter().map(|&d| self.view.shape()[d]).collect();
        crate::with_dtype!(dtype, T, {
            // SAFETY: both have dtype T and `value` does not share the view's storage.
            let (d, s) = unsafe { (self.view.data_mut::<T>(), value.data::<T>()) };
            let dst = (&pick(self.view.strides(), &rest)[..], &dst_offs[..]);
            let src = (&pick(vst, &rpos)[..], &src_offs[..]);
            if accumulate {
                copy_blocks(d, dst, s, src, &rshape, accumulate_fn::<T>());
            } else {
                copy_blocks(d, dst, s, src, &rshape, |_, x| x);
            }
        });
        self.view.storage.bump_version();
        Ok(())
    }
}

fn too_many(view: &Tensor) -> Error {
    Error::index(
        "index",
        format!("too many indices for tensor of dimension {}", view.ndim()),
    )
}

/// `a + b` for accumulating writes (`or` for bool, as PyTorch's add does).
fn accumulate_fn<T: Element>() -> impl Fn(T, T) -> T {
    |a: T, b: T| match T::DTYPE {
        DType::Bool => T::from_bool(a.to_bool() || b.to_bool()),
        DType::I64 => T::from_i64(a.to_i64().wrapping_add(b.to_i64())),
        _ => T::from_f64(a.to_f64() + b.to_f64()),
    }
}

fn pick(strides: &[isize], dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| strides[d]).collect()
}

/// Storage offset of each position of `shape` (row-major) under `strides`.
fn block_offsets(shape: &[usize], strides: &[isize], offset: usize) -> Result<Vec<usize>> {
    let mut out = try_filled("index", shape.iter().product(), 0)?;
    let rowmajor = contiguous_strides(shape);
    visit(shape, [strides, &rowmajor], [offset, 0], |[p, k]| {
        out[k] = p
    });
    Ok(out)
}

/// `n` copies of `v`; a request too large to allocate is a MemoryError, not an abort.
pub(crate) fn try_filled<T: Clone>(op: &str, n: usize, v: T) -> Result<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| crate::storage::too_big::<T>(op, n))?;
    out.resize(n, v);
    Ok(out)
}

/// For each block `b`: `dst[block at dst_offs[b]] = f(dst, src[block at src_offs[b]])`,
/// where a block is `shape` laid out with the given strides. Blocks are written in order,
/// so with duplicate destinations the last write wins (or all accumulate).
fn copy_blocks<T: Copy>(
    dst: &mut [T],
    (dst_strides, dst_offs): (&[isize], &[usize]),
    src: &[T],
    (src_strides, src_offs): (&[isize], &[usize]),
    shape: &[usize],
    f: impl Fn(T, T) -> T,
) {
    let (cs, st) = strided::coalesce(shape, [dst_strides, src_strides]);
    let n = *cs.last().unwrap_or(&1);
    let (sd, ss) = (*st[0].last().unwrap_or(&0), *st[1].last().unwrap_or(&0));
    if cs.iter().product::<usize>() == 1 {
        // one element per block (e.g. `x[mask]`, or a 1-d `x[idx]`)
        for (&od, &os) in dst_offs.iter().zip(src_offs) {
            dst[od] = f(dst[od], src[os]);
        }
        return;
    }
    for (&od, &os) in dst_offs.iter().zip(src_offs) {
        strided::for_each_run(&cs, &st, [od, os], |[pd, ps]| {
            if sd == 1 && ss == 1 {
                for (d, &s) in dst[pd..pd + n].iter_mut().zip(&src[ps..ps + n]) {
                    *d = f(*d, s);
                }
                return;
            }
            for j in 0..n {
                let (a, b) = (pd + j * sd as usize, ps + j * ss as usize);
                dst[a] = f(dst[a], src[b]);
            }
        });
    }
}

/// `view[adv]` where `adv` holds (dim, integer-or-bool index tensor) pairs.
pub fn advanced_getitem(view: &Tensor, adv: &[(usize, Tensor)]) -> Result<Tensor> {
    let adv: Vec<(usize, Option<Tensor>)> =
        adv.iter().map(|(d, t)| (*d, Some(t.clone()))).collect();
    Plan::new(view, &adv)?.gather(&Bounds {
        wrap: true,
        err: &index_oob,
    })
}

/// `view[adv] = value`, or `view[adv] += value` with repeated indices accumulating.
pub fn advanced_setitem(
    view: &Tensor,
    adv: &[(usize, Tensor)],
    value: &Tensor,
    accumulate: bool,
) -> Result<()> {
    let adv: Vec<(usize, Option<Tensor>)> =
        adv.iter().map(|(d, t)| (*d, Some(t.clone()))).collect();
    Plan::new(view, &adv)?.put(
        "index_put_",
        value,
        accumulate,
        &Bounds {
            wrap: true,
            err: &index_oob,
        },
    )
}

/// Checks an `index` argument of the dim-wise ops: at most 1-d, int64.
fn vector_index(op: &str, index: &Tensor) -> Result<Tensor> {
    if index.ndim() > 1 {
        return Err(Error::index(
            op,
            format!("{op}(): Index is supposed to be a vector"),
        ));
    }
    if index.dtype() != DType::I64 {
        return Err(Error::runtime(
            op,
            // (PyTorch's two spellings of the same check)
            if op.starts_with("index_add") {
                format!("{op}(): Expected dtype int32/int64 for index")
            } else {
                format!("{op}(): Expected dtype int32 or int64 for index")
            },
        ));
    }
    index.with_layout(index.layout.view(&[index.numel()]).unwrap_or_else(|| {
        // a 0-d or 1-d layout can always be viewed as 1-d; keep a safe fallback
        index.layout.clone()
    }))
}

/// A 0-d tensor viewed as 1-d, so dim-wise ops can treat it like PyTorch does.
fn at_least_1d(t: &Tensor) -> Result<Tensor> {
    if t.ndim() == 0 {
        t.with_layout(t.layout.unsqueeze(0))
    } else {
        Ok(t.clone())
    }
}

fn dim_index_plan(x: &Tensor, d: usize, index: Tensor) -> Result<Plan> {
    let bshape: Dims = SmallVec::from_slice(index.shape());
    Ok(Plan {
        view: at_least_1d(x)?,
        dims: vec![d],
        idx: vec![index],
        bshape,
        offs: None,
    })
}

impl Tensor {
    /// `index_select(dim, index)`: entries of `index` (int64, at most 1-d, no negative
    /// values) along `dim`.
    pub fn index_select(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        let d = normalize_dim(dim, self.ndim())?;
        let index = vector_index("index_select", index)?;
        if self.ndim() == 0 && index.numel() != 1 {
            return Err(Error::runtime(
                "index_select",
                format!(
                    "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                    index.numel()
                ),
            ));
        }
        let out = dim_index_plan(self, d, index)?.gather(&Bounds {
            wrap: false,
            err: &self_oob,
        })?;
        if self.ndim() == 0 {
            return out.with_layout(out.layout.squeeze_dims(&[0]));
        }
        Ok(out)
    }

    /// `take(index)`: elements of the flattened input; the result has `index`'s shape.
    pub fn take(&self, index: &Tensor) -> Result<Tensor> {
        if index.dtype() != DType::I64 {
            return Err(Error::runtime(
                "take",
                "take(): Expected a long tensor for index, but got ".to_string()
                    + index.dtype().torch_name(),
            ));
        }
        let flat = self.reshape(&[-1])?;
        let numel = flat.numel();
        if numel == 0 && index.numel() > 0 {
            return Err(Error::index(
                "take",
                "take(): tried to take from an empty tensor",
            ));
        }
        let err = move |v: i64, _: usize, _: usize, _: usize| {
            Error::index(
                "take",
                format!("out of range: tried to access index {v} on a tensor of {numel} elements."),
            )
        };
        Plan::new(&flat, &[(0, Some(index.clone()))])?.gather(&Bounds {
            wrap: true,
            err: &err,
        })
    }

    /// `index_put_(indices, values, accumulate)`: `indices[i]` (None skips a dim) indexes
    /// dim `i`; `values` must have `self`'s dtype.
    pub fn index_put_(
        &self,
        indices: &[Option<Tensor>],
        values: &Tensor,
        accumulate: bool,
    ) -> Result<()> {
        if values.dtype() != self.dtype() {
            return Err(Error::runtime(
                "index_put_",
                format!(
                    "Index put requires the source and destination dtypes match, got {} for \
                     the destination and {} for the source.",
                    self.dtype().torch_name(),
                    values.dtype().torch_name()
                ),
            ));
        }
        // like `apply_basic`, a k-d mask consumes k dims
        let mut adv = Vec::with_capacity(indices.len());
        let mut d = 0usize;
        for t in indices {
            adv.push((d, t.clone()));
            d += match t {
                Some(t) if t.dtype() == DType::Bool => t.ndim(),
                _ => 1,
            };
        }
        if d > self.ndim() {
            return Err(Error::index(
                "index_put_",
                format!(
                    "too many indices for tensor of dimension {} (got {d})",
                    self.ndim()
                ),
            ));
        }
        let plan = Plan::new(self, &adv)?;
        if plan.dims.is_empty() {
            // no index given: PyTorch writes the whole tensor
            return if accumulate {
                crate::ops::binary::binary_(
                    crate::ops::binary::BinaryOp::Add,
                    self,
                    crate::ops::binary::Operand::T(values),
                )
            } else {
                self.copy_from(values)
            };
        }
        plan.put(
            "index_put_",
            values,
            accumulate,
            &Bounds {
                wrap: true,
                err: &index_oob,
            },
        )
    }

    /// `index_add_(dim, index, source, alpha)`: `self[.., index[i], ..] += alpha * source[.., i, ..]`.
    pub fn index_add_(
        &self,
        dim: i64,
        index: &Tensor,
        source: &Tensor,
        alpha: Scalar,
    ) -> Result<()> {
        let d = normalize_dim(dim, self.ndim())?;
        let index = vector_index("index_add_", index)?;
        if source.dtype() != self.dtype() {
            return Err(Error::runtime(
                "index_add_",
                format!(
                    "index_add_(): self ({}) and source ({}) must have the same scalar type",
                    self.dtype().torch_name(),
                    source.dtype().torch_name()
                ),
            ));
        }
        if !self.dtype().is_float() && matches!(alpha, Scalar::Float(_)) {
            return Err(Error::runtime(
                "index_add_",
                "For integral input tensors, argument alpha must not be a floating point number.",
            ));
        }
        let (x, src) = (at_least_1d(self)?, at_least_1d(source)?);
        let n = index.numel();
        let src_n = src.shape().get(d).copied().unwrap_or(1);
        if n != src_n {
            return Err(Error::runtime(
                "index_add_",
                format!(
                    "index_add_(): Number of indices ({n}) should be equal to source.size(dim): \
                     ({src_n}), for dim: {d}"
                ),
            ));
        }
        let mut expect: Dims = SmallVec::from_slice(x.shape());
        expect[d] = n;
        if src.shape() != expect.as_slice() {
            return Err(Error::runtime(
                "index_add_",
                format!(
                    "source tensor shape must match self tensor shape, excluding the specified \
                     dimension. Got self.shape = {} source.shape = {}",
                    fmt_shape(self.shape()),
                    fmt_shape(source.shape())
                ),
            ));
        }
        let src = if alpha.to_f64() == 1.0 {
            src
        } else {
            let scaled = crate::ops::binary::binary(
                crate::ops::binary::BinaryOp::Mul,
                crate::ops::binary::Operand::T(&src),
                crate::ops::binary::Operand::S(alpha),
            )?;
            scaled.to_dtype(self.dtype())?
        };
        // unlike index_select, PyTorch's index_add_ reports a bad index as a RuntimeError
        let err = |v: i64, _: usize, dim: usize, size: usize| {
            Error::runtime(
                "index_add_",
                format!("index {v} is out of bounds for dimension {dim} with size {size}"),
            )
        };
        dim_index_plan(self, d, index)?.put(
            "index_add_",
            &src,
            true,
            &Bounds {
                wrap: false,
                err: &err,
            },
        )
    }

    /// `index_fill_(dim, index, value)`: sets the entries `index` along `dim` to `value`.
    pub fn index_fill_(&self, dim: i64, index: &Tensor, value: Scalar) -> Result<()> {
        let d = normalize_dim(dim, self.ndim())?;
        crate::tensor::check_fill(value, self.dtype())?;
        if index.ndim() > 1 {
            return Err(Error::index(
                "index_fill_",
                "Index has to be a vector/scalar",
            ));
        }
        if index.dtype() != DType::I64 {
            return Err(Error::index(
                "index_fill_",
                "index_fill_(): Expected dtype int64 for index.",
            ));
        }
        let index = vector_index("index_fill_", index)?;
        let err = |v: i64, _: usize, dim: usize, size: usize| {
            Error::index(
                "index_fill_",
                format!("index {v} is out of bounds for dimension {dim} with size {size}"),
            )
        };
        dim_index_plan(self, d, index)?.put(
            "index_fill_",
            &Tensor::scalar(value, self.dtype()),
            false,
            &Bounds {
                wrap: true,
                err: &err,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<i64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    #[test]
    fn adjacent_indices_stay_in_place() {
        let x = t((0..24).collect(), &[2, 3, 4]);
        let i = t(vec![2, 0], &[2]);
        let r = advanced_getitem(&x, &[(1, i)]).unwrap();
        assert_eq!(r.shape(), &[2, 2, 4]);
        assert_eq!(&r.to_vec::<i64>().unwrap()[..4], &[8, 9, 10, 11]);
    }

    #[test]
    fn separated_indices_go_first() {
        let x = t((0..24).collect(), &[2, 3, 4]);
        let a = t(vec![1, 0], &[2]);
        let b = t(vec![3, -1], &[2]);
        let r = advanced_getitem(&x, &[(0, a), (2, b)]).unwrap();
        assert_eq!(r.shape(), &[2, 3]);
        assert_eq!(r.to_vec::<i64>().unwrap(), vec![15, 19, 23, 3, 7, 11]);
    }

    #[test]
    fn out_of_bounds_is_an_index_error() {
        let x = t(vec![1, 2, 3], &[3]);
        let Err(e) = advanced_getitem(&x, &[(0, t(vec![5], &[1]))]) else {
            panic!("expected an error")
        };
        assert_eq!(e.kind, crate::error::ErrorKind::Index);
        assert!(e
            .msg
            .contains("index 5 is out of bounds for dimension 0 with size 3"));
    }

    #[test]
    fn setitem_bumps_the_version_and_writes_through_views() {
        let base = t((0..12).collect(), &[3, 4]);
        let view = base.transpose(0, 1).unwrap(); // (4, 3)
        let v0 = base.storage.version();
        advanced_setitem(&view, &[(0, t(vec![1, 3], &[2]))], &t(vec![-1], &[]), false).unwrap();
        assert!(base.storage.version() > v0);
        let got = base.to_vec::<i64>().unwrap();
        assert_eq!(&got[..4], &[0, -1, 2, -1]);
    }

    #[test]
    fn setitem_duplicates_accumulate() {
        let x = t(vec![0, 0, 0], &[3]);
        let i = t(vec![1, 1, 2], &[3]);
        x.index_put_(&[Some(i)], &t(vec![5], &[1]), true).unwrap();
        assert_eq!(x.to_vec::<i64>().unwrap(), vec![0, 10, 5]);
    }
}
