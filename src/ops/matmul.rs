//! The matmul family: `mm`, `bmm`, `mv`, `dot`, `matmul`, `outer`, `addmm`, `baddbmm`
//! (and `einsum` in the submodule), with PyTorch's dispatch between them and its error
//! messages. Like PyTorch, none of these promote dtypes (except `outer`, which is a
//! broadcasting multiply): mixed dtypes are a RuntimeError.
//!
//! Every product ends in `kernels::matmul::gemm_batched`, which reads operands through
//! their strides: `a @ b.T`, sliced and expanded operands are never copied.
//!
//! `matmul`'s dispatch lives in `dispatch.rs`, written once over plain tensors and
//! graph variables (`MatmulOperand`), so the two forms cannot drift apart.

pub mod dispatch;
pub mod einsum;
pub mod linear;

use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels::matmul::{self as kern, GemmSpec, MatElem, MatStrides};
use crate::layout::Layout;
use crate::ops::binary::{binary, BinaryOp, Operand};
use crate::ops::compute;
use crate::shape::{checked_numel, contiguous_strides};
use crate::tensor::Tensor;
use std::mem::MaybeUninit;

/// The C++ type name PyTorch prints for a `TypeMeta` (`float`, `long int`).
fn c_type_name(d: DType) -> &'static str {
    d.cpp_name()
}

/// `"bmm" not implemented for 'Bool'` (a NotImplementedError in PyTorch).
fn not_implemented(kernel: &str, d: DType) -> Error {
    Error::not_implemented(
        "",
        format!("\"{kernel}\" not implemented for '{}'", d.torch_name()),
    )
}

fn rt(msg: impl std::fmt::Display) -> Error {
    Error::runtime("", msg)
}

/// Number of matrices handed to the kernel per call (bounds the offset buffer).
const OFFSET_CHUNK: usize = 4096;

/// `a @ b` over matching batch dims into a new contiguous tensor of `shape`
/// (batch..., n, p): `beta * init + alpha * (a @ b)` when `init` (already broadcast to
/// `shape`) is given, else just `alpha * (a @ b)`.
///
/// `a` is (batch..., n, k) and `b` is (batch..., k, p) with broadcast batch dims at
/// stride 0, so nothing is copied. Without `init` the result buffer is never zeroed: the
/// kernel writes every element. `kernel` names the PyTorch kernel for the bool error.
fn gemm_new(
    kernel: &str,
    shape: &[usize],
    a: &Tensor,
    b: &Tensor,
    init: Option<(&Tensor, Scalar)>,
    alpha: Scalar,
) -> Result<Tensor> {
    match a.dtype() {
        DType::F32 => gemm_typed::<f32>(kernel, shape, a, b, init, alpha),
        DType::F64 => gemm_typed::<f64>(kernel, shape, a, b, init, alpha),
        DType::I64 => gemm_typed::<i64>(kernel, shape, a, b, init, alpha),
        DType::Bool => Err(not_implemented(kernel, DType::Bool)),
        // narrow integers and half types multiply in their compute dtype (see
        // `ops::compute`) and are converted back
        d => {
            let init = match init {
                Some((t, s)) => Some((compute::input(t)?, s)),
                None => None,
            };
            let (a, b) = (compute::input(a)?, compute::input(b)?);
            let init = init.as_ref().map(|(t, s)| (t, *s));
            compute::output(d, gemm_new(kernel, shape, &a, &b, init, alpha)?)
        }
    }
}

fn gemm_typed<T: MatElem>(
    kernel: &str,
    shape: &[usize],
    a: &Tensor,
    b: &Tensor,
    init: Option<(&Tensor, Scalar)>,
    alpha: Scalar,
) -> Result<Tensor> {
    let nd = shape.len();
    let numel = checked_numel(kernel, shape)?;
    let strides = contiguous_strides(shape);
    let mat = |s: &[isize]| MatStrides {
        rs: s[nd - 2],
        cs: s[nd - 1],
    };
    let spec = GemmSpec::<T> {
        m: shape[nd - 2],
        n: shape[nd - 1],
        k: a.shape()[nd - 1],
        a: mat(a.strides()),
        b: mat(b.strides()),
        c: mat(&strides),
        alpha: T::from_scalar(init.map_or(Scalar::Int(0), |i| i.1)),
        beta: T::from_scalar(alpha),
        read_c: init.is_some(),
    };
    // SAFETY: the callers checked that both operands have dtype T.
    let (ad, bd) = unsafe { (a.data::<T>(), b.data::<T>()) };
    let batch = &shape[..nd - 2];
    let bad = || {
        rt(format!(
            "{kernel}: internal error: operand layout out of bounds"
        ))
    };
    if let Some((input, _)) = init {
        let out = input.copy_as(T::DTYPE)?;
        // SAFETY: `out` is a fresh tensor of dtype T that nothing else references.
        let od = unsafe { out.data_mut::<T>() };
        if od.len() != numel {
            return Err(bad());
        }
        let ok = for_each_chunk(batch, a, b, &strides, |offs| {
            kern::gemm_batched(&spec, ad, bd, od, offs)
        });
        crate::threads::check_interrupt(kernel)?;
        // `init` may have another (foldable) shape with the same elements
        return if ok {
            Ok(out.with_layout(Layout::contiguous(shape))?)
        } else {
            Err(bad())
        };
    }
    let mut buf = uninit_vec::<T>(kernel, numel)?;
    let ok = for_each_chunk(batch, a, b, &strides, |offs| {
        kern::gemm_batched_uninit(&spec, ad, bd, &mut buf, offs)
    });
    if !ok {
        return Err(bad());
    }
    // an interrupted product may have skipped panels: their memory is not initialised
    crate::threads::check_interrupt(kernel)?;
    // every batch entry was listed once, and the kernel wrote each element of its matrix
    // (the result is contiguous, so the matrices cover the whole buffer)
    Tensor::from_vec(assume_init(buf), shape)
}

/// Runs `f` on the `[a, b, out]` offsets of all batch entries, `OFFSET_CHUNK` at a
/// time; true if every call returned true.
fn for_each_chunk(
    batch: &[usize],
    a: &Tensor,
    b: &Tensor,
    out_strides: &[isize],
    mut f: impl FnMut(&[[usize; 3]]) -> bool,
) -> bool {
    let mut offsets: Vec<[usize; 3]> = Vec::with_capacity(OFFSET_CHUNK);
    let mut ok = true;
    for_each_batch(batch, [a, b], out_strides, |offs| {
        offsets.push(offs);
        if offsets.len() == OFFSET_CHUNK {
            ok &= f(&offsets);
            offsets.clear();
        }
    });
    ok && f(&offsets)
}

/// A buffer of `n` uninitialised elements (MemoryError if it cannot be allocated).
fn uninit_vec<T>(op: &str, n: usize) -> Result<Vec<MaybeUninit<T>>> {
    let mut v: Vec<MaybeUninit<T>> = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| crate::storage::too_big::<MaybeUninit<T>>(op, n))?;
    // SAFETY: the capacity is at least n and MaybeUninit needs no initialisation
    unsafe { v.set_len(n) };
    Ok(v)
}

/// The buffer as initialised values.
///
/// Callers guarantee every element has been written.
fn assume_init<T>(v: Vec<MaybeUninit<T>>) -> Vec<T> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: same allocation, layout and length; MaybeUninit<T> has T's layout and the
    // caller guarantees all `len` elements are initialised
    unsafe { Vec::from_raw_parts(ptr.cast::<T>(), len, cap) }
}

/// Calls `f([a_off, b_off, out_off])` for every index of the leading `batch` dims (the
/// output is contiguous with `out_strides`, starting at offset 0).
fn for_each_batch(
    batch: &[usize],
    ts: [&Tensor; 2],
    out_strides: &[isize],
    mut f: impl FnMut([usize; 3]),
) {
    if batch.contains(&0) {
        return;
    }
    let strides = [ts[0].strides(), ts[1].strides(), out_strides];
    let mut off = [ts[0].layout.offset, ts[1].layout.offset, 0];
    let mut idx = vec![0usize; batch.len()];
    loop {
        f(off);
        let mut d = batch.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            for (o, s) in off.iter_mut().zip(strides) {
                *o = (*o as isize + s[d]) as usize;
            }
            if idx[d] < batch[d] {
                break;
            }
            for (o, s) in off.iter_mut().zip(strides) {
                *o = (*o as isize - s[d] * batch[d] as isize) as usize;
            }
            idx[d] = 0;
        }
    }
}

/// A fresh zeroed contiguous tensor for a product result.
fn fresh(op: &str, shape: &[usize], dtype: DType) -> Result<Tensor> {
    checked_numel(op, shape)?;
    Tensor::zeros(op, shape, dtype)
}

fn dims_str(shape: &[usize]) -> String {
    let v: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    v.join("x")
}

/// Batched product of equal-batch operands: (B..., n, k) @ (B..., k, p).
///
/// Like PyTorch, an empty result or an empty inner dim returns zeros (in `b`'s dtype)
/// before the kernel's dtype checks run, so e.g. bool operands are accepted there.
fn product(kernel: &str, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let nd = a.ndim();
    let mut shape = a.shape()[..nd - 1].to_vec();
    shape.push(b.shape()[nd - 1]);
    if checked_numel(kernel, &shape)? == 0 || a.shape()[nd - 1] == 0 {
        return fresh(kernel, &shape, b.dtype());
    }
    gemm_new(kernel, &shape, a, b, None, Scalar::Int(1))
}

impl Tensor {
    /// `mm`: (n, k) @ (k, p). Shape is checked before dtype, as in PyTorch.
    pub fn mm(&self, mat2: &Tensor) -> Result<Tensor> {
        check_matrix("mm", "self", self)?;
        check_matrix("mm", "mat2", mat2)?;
        check_mm_shapes("mm: ", self, mat2)?;
        check_mm_dtypes(self, mat2)?;
        product("addmm_impl_cpu_", self, mat2)
    }

    /// `bmm`: (b, n, k) @ (b, k, p).
    pub fn bmm(&self, mat2: &Tensor) -> Result<Tensor> {
        if self.ndim() != 3 {
            return Err(rt("batch1 must be a 3D tensor"));
        }
        if mat2.ndim() != 3 {
            return Err(rt("batch2 must be a 3D tensor"));
        }
        check_bmm(self, mat2)?;
        product("bmm", self, mat2)
    }

    /// `mv`: (n, k) @ (k,).
    pub fn mv(&self, vec: &Tensor) -> Result<Tensor> {
        if self.ndim() == 0 {
            // PyTorch sizes the result from self.size(0) before checking dims
            return Err(Error::index(
                "",
                "Dimension specified as 0 but tensor has no dimensions",
            ));
        }
        if self.ndim() != 2 || vec.ndim() != 1 {
            return Err(rt(format!(
                "vector + matrix @ vector expected, got 1, {}, {}",
                self.ndim(),
                vec.ndim()
            )));
        }
        let (n, k) = (self.shape()[0], self.shape()[1]);
        if vec.shape()[0] != k {
            return Err(rt(format!(
                "size mismatch, got input ({n}), mat ({n}x{k}), vec ({})",
                vec.shape()[0]
            )));
        }
        if self.dtype() != vec.dtype() {
            // PyTorch's result takes the vector's dtype and is listed first.
            let (v, m) = (vec.dtype().torch_name(), self.dtype().torch_name());
            return Err(rt(format!(
                "addmv input tensors must have the same dtype, but got {v}, {m}, and {v}"
            )));
        }
        let col = vec.with_layout(vec.layout.unsqueeze(1))?;
        let out = product("addmv_impl_cpu", self, &col)?;
        out.with_layout(Layout::contiguous(&[n]))
    }

    /// `dot`: inner product of two 1-D tensors (a 0-d result).
    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || other.ndim() != 1 {
            return Err(rt(format!(
                "1D tensors expected, but got {}D and {}D tensors",
                self.ndim(),
                other.ndim()
            )));
        }
        if self.dtype() != other.dtype() {
            return Err(rt(format!(
                "dot : expected both vectors to have same dtype, but found {} and {}",
                self.dtype().torch_name(),
                other.dtype().torch_name()
            )));
        }
        let (n, m) = (self.shape()[0], other.shape()[0]);
        if n != m {
            return Err(rt(format!(
                "inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same \
                 number of elements, but got {n} and {m} elements respectively"
            )));
        }
        let (xs, ys) = (
            self.strides()[0].max(0) as usize,
            other.strides()[0].max(0) as usize,
        );
        let (xo, yo) = (self.layout.offset, other.layout.offset);
        macro_rules! run {
            ($T:ty) => {{
                // SAFETY: both dtypes are $T; only shared slices are taken.
                let (x, y) = unsafe { (self.data::<$T>(), other.data::<$T>()) };
                let fits = |o: usize, s: usize, len: usize| n == 0 || o + (n - 1) * s < len;
                if !(fits(xo, xs, x.len()) && fits(yo, ys, y.len())) {
                    return Err(rt("dot: internal error: operand layout out of bounds"));
                }
                let v = if n == 0 {
                    <$T as MatElem>::zero()
                } else {
                    kern::dot(x, xo, xs, y, yo, ys, n)
                };
                Tensor::from_vec(vec![v], &[])
            }};
        }
        match self.dtype() {
            DType::F32 => run!(f32),
            DType::F64 => run!(f64),
            DType::I64 => run!(i64),
            DType::Bool => Err(not_implemented("dot", DType::Bool)),
            d => compute::output(d, compute::input(self)?.dot(&compute::input(other)?)?),
        }
    }

    /// `outer` / `ger`: a broadcasting multiply, so (unlike `mm`) dtypes promote.
    pub fn outer(&self, vec2: &Tensor) -> Result<Tensor> {
        check_outer(self, vec2)?;
        let col = self.with_layout(self.layout.unsqueeze(1))?;
        binary(BinaryOp::Mul, Operand::T(&col), Operand::T(vec2))
    }

    /// `matmul` / `@`, following PyTorch's dispatch to dot / mv / mm / folded mm / bmm
    /// (see `dispatch.rs`, shared with the differentiable form).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        dispatch::matmul(self, other)
    }

    /// `addmm`: `beta * self + alpha * (mat1 @ mat2)`; `self` broadcasts to the result.
    /// With `beta == 0` the input is ignored (its NaNs do not propagate).
    pub fn addmm(
        &self,
        mat1: &Tensor,
        mat2: &Tensor,
        beta: Scalar,
        alpha: Scalar,
    ) -> Result<Tensor> {
        check_matrix("addmm", "self", mat1)?;
        check_matrix("addmm", "mat2", mat2)?;
        check_mm_shapes("", mat1, mat2)?;
        let shape = [mat1.shape()[0], mat2.shape()[1]];
        let input = expand_input(self, &shape)?;
        if self.dtype() != mat2.dtype() {
            return Err(rt(format!(
                "self and mat2 must have the same dtype, but got {} and {}",
                self.dtype().torch_name(),
                mat2.dtype().torch_name()
            )));
        }
        if mat1.dtype() != mat2.dtype() {
            return Err(rt(format!(
                "mat1 and mat2 must have the same dtype, but got {} and {}",
                mat1.dtype().torch_name(),
                mat2.dtype().torch_name()
            )));
        }
        scaled_product("addmm_impl_cpu_", &input, mat1, mat2, beta, alpha)
    }

    /// `baddbmm`: `beta * self + alpha * bmm(batch1, batch2)`.
    pub fn baddbmm(
        &self,
        batch1: &Tensor,
        batch2: &Tensor,
        beta: Scalar,
        alpha: Scalar,
    ) -> Result<Tensor> {
        if batch1.ndim() != 3 {
            return Err(rt("batch1 must be a 3D tensor"));
        }
        if batch2.ndim() != 3 {
            return Err(rt("batch2 must be a 3D tensor"));
        }
        let shape = [batch1.shape()[0], batch1.shape()[1], batch2.shape()[2]];
        let input = expand_input(self, &shape)?;
        if self.dtype() != batch1.dtype() || batch1.dtype() != batch2.dtype() {
            return Err(rt(format!(
                "Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}",
                c_type_name(self.dtype()),
                c_type_name(batch1.dtype()),
                c_type_name(batch2.dtype())
            )));
        }
        check_bmm(batch1, batch2)?;
        scaled_product("baddbmm", &input, batch1, batch2, beta, alpha)
    }
}

/// `outer`'s argument checks (shared with the differentiable form).
pub fn check_outer(a: &Tensor, b: &Tensor) -> Result<()> {
    for (name, t) in [("self", a), ("vec2", b)] {
        if t.ndim() != 1 {
            return Err(rt(format!(
                "outer: Expected 1-D argument {name}, but got {}-D",
                t.ndim()
            )));
        }
    }
    Ok(())
}

/// `beta * input + alpha * (a @ b)` into a fresh tensor of `input`'s (expanded) shape.
fn scaled_product(
    kernel: &str,
    input: &Tensor,
    a: &Tensor,
    b: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    let shape = input.shape();
    if beta.to_f64() == 0.0 {
        // the input is ignored entirely (its NaNs do not propagate)
        if checked_numel(kernel, shape)? == 0 || a.shape()[a.ndim() - 1] == 0 {
            return fresh(kernel, shape, a.dtype());
        }
        return gemm_new(kernel, shape, a, b, None, alpha);
    }
    gemm_new(kernel, shape, a, b, Some((input, beta)), alpha)
}

/// Broadcasts an `addmm`/`baddbmm` input to the result shape. The message names the
/// last mismatching dim, as PyTorch's `expand` does.
fn expand_input(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if let Ok(l) = t.layout.broadcast_to(shape) {
        return t.with_layout(l);
    }
    let (src, nd) = (t.shape(), shape.len());
    let lead = nd.saturating_sub(src.len());
    let bad = (0..nd)
        .rev()
        .find(|&i| i >= lead && src[i - lead] != 1 && src[i - lead] != shape[i]);
    let msg = match bad {
        Some(i) => format!(
            "The expanded size of the tensor ({}) must match the existing size ({}) at \
             non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
            shape[i],
            src[i - lead],
            crate::error::fmt_shape(shape),
            crate::error::fmt_shape(src)
        ),
        None => format!(
            "expand(torch.{}Tensor{{{}}}, size={}): the number of sizes provided ({nd}) must \
             be greater or equal to the number of dimensions in the tensor ({})",
            t.dtype().torch_name(),
            crate::error::fmt_shape(src),
            crate::error::fmt_shape(shape),
            src.len()
        ),
    };
    Err(rt(msg))
}

fn check_matrix(op: &str, name: &str, t: &Tensor) -> Result<()> {
    if t.ndim() != 2 {
        return Err(rt(format!(
            "{op}: {name} must be a matrix, got {}-D tensor",
            t.ndim()
        )));
    }
    Ok(())
}

fn check_mm_shapes(prefix: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.shape()[1] != b.shape()[0] {
        return Err(rt(format!(
            "{prefix}mat1 and mat2 shapes cannot be multiplied ({} and {})",
            dims_str(a.shape()),
            dims_str(b.shape())
        )));
    }
    Ok(())
}

fn check_mm_dtypes(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(rt(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            c_type_name(a.dtype()),
            c_type_name(b.dtype())
        )));
    }
    Ok(())
}

/// bmm's checks on (b, n, k) @ (b', k', p): batch and inner sizes, then dtype.
fn check_bmm(a: &Tensor, b: &Tensor) -> Result<()> {
    let (bs, k) = (a.shape()[0], a.shape()[2]);
    if b.shape()[0] != bs || b.shape()[1] != k {
        return Err(rt(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but \
             got: [{}, {}].",
            b.shape()[0],
            b.shape()[1]
        )));
    }
    if bs == 0 {
        return Ok(());
    }
    bmm_dtype_check(a.dtype(), b.dtype(), a.shape()[1], k, b.shape()[2])
}

/// PyTorch's bmm checks dtypes inside its kernels, which differ by problem size: below
/// 400 multiply-adds per matrix one kernel dispatches on `batch1`'s dtype; above, each
/// matrix goes through the BLAS/addmm path. Empty problems return zeros unchecked.
fn bmm_dtype_check(a: DType, b: DType, n: usize, k: usize, p: usize) -> Result<()> {
    if n == 0 || k == 0 || p == 0 {
        return Ok(());
    }
    if n.saturating_mul(k).saturating_mul(p) < 400 {
        if a == DType::Bool {
            return Err(not_implemented("bmm", a));
        }
        if a != b {
            return Err(rt(format!(
                "expected scalar type {} but found {}",
                a.torch_name(),
                b.torch_name()
            )));
        }
        return Ok(());
    }
    if a != b {
        return Err(rt(if b.is_float() {
            format!(
                "expected scalar type {} but found {}",
                b.torch_name(),
                a.torch_name()
            )
        } else {
            format!(
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                c_type_name(a),
                c_type_name(b)
            )
        }));
    }
    if a == DType::Bool {
        return Err(not_implemented("addmm_impl_cpu_", a));
    }
    Ok(())
}
