//! `matmul`'s dispatch, written once for plain tensors and graph variables.
//!
//! PyTorch's `matmul` turns into `dot`, `mv`, `mm` (a vector on the left as a one-row
//! matrix), a folded `mm`/`mv` (the batch dims of one operand merged into its rows) or a
//! broadcast `bmm`. Those choices decide the error messages and, under autograd, which
//! nodes the graph records, so both forms must make them alike. [`matmul`] makes them
//! over any [`MatmulOperand`]: `Tensor` (below) and `autograd::Var` (in
//! `autograd/matmul.rs`), the way `EinsumOperand` serves both forms of einsum.

use super::{bmm_dtype_check, product, rt};
use crate::error::Result;
use crate::layout::Layout;
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// The products and views `matmul` is made of. Each is the plain op for a `Tensor`; a
/// graph variable records it (so the graph has PyTorch's nodes and broadcast batch dims
/// are summed back by the expand nodes).
pub trait MatmulOperand: Clone + Sized {
    /// The values (shapes, strides and dtype decide the dispatch).
    fn tensor(&self) -> &Tensor;
    /// Whether the operand needs a gradient: PyTorch folds and squeezes differently for
    /// the gradient's sake (always false for a plain tensor).
    fn requires_grad(&self) -> bool;
    fn dot(&self, other: &Self) -> Result<Self>;
    fn mv(&self, vec: &Self) -> Result<Self>;
    fn mm(&self, mat2: &Self) -> Result<Self>;
    /// (B.., n, k) @ (B.., k', p) for operands with the same batch dims, as
    /// [`flatten_batch`](MatmulOperand::flatten_batch) left them, with `bmm`'s checks
    /// and messages. The result's last two dims are (n, p).
    fn batched_mm(&self, other: &Self) -> Result<Self>;
    /// `x.mT` (a view).
    fn mt(&self) -> Result<Self>;
    fn unsqueeze(&self, dim: usize) -> Result<Self>;
    /// Removes the size-1 dim `dim`; `node` is the name PyTorch's graph gives this squeeze.
    fn squeeze(&self, node: &'static str, dim: usize) -> Result<Self>;
    /// Broadcasts to `shape` (a view).
    fn expand(&self, shape: &[usize]) -> Result<Self>;
    /// Merges the batch dims (all but the last `keep`) into one, as PyTorch reshapes the
    /// operands of its broadcast `bmm`.
    fn flatten_batch(&self, keep: usize) -> Result<Self>;
    fn reshape(&self, sizes: &[i64]) -> Result<Self>;
    /// `at::_unsafe_view`: a fresh product result seen with `shape` (same elements).
    fn unsafe_view(&self, shape: &[usize]) -> Result<Self>;
    fn contiguous(&self) -> Result<Self>;
}

/// `matmul` / `@`, following PyTorch's dispatch to dot / mv / mm / folded mm / bmm (which
/// decides the error messages; the numbers are the same on every path).
pub fn matmul<O: MatmulOperand>(a: &O, b: &O) -> Result<O> {
    let (d1, d2) = (a.tensor().ndim(), b.tensor().ndim());
    if d1 == 0 || d2 == 0 {
        return Err(rt(format!(
            "both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )));
    }
    match (d1, d2) {
        (1, 1) => return a.dot(b),
        (2, 1) => return a.mv(b),
        (1, 2) => return a.unsqueeze(0)?.mm(b)?.squeeze("SqueezeBackward4", 0),
        (2, 2) => return a.mm(b),
        _ => {}
    }
    let t2_requires_grad = if d1 >= d2 {
        b.requires_grad()
    } else {
        a.requires_grad()
    };
    if should_fold(a.tensor(), b.tensor(), t2_requires_grad) {
        return matmul_folded(a, b);
    }
    matmul_batched(a, b)
}

/// PyTorch's `should_fold`: can the batch dims of the larger operand be folded into its
/// rows without a copy, so one `mm`/`mv` does the work? When the smaller operand needs a
/// gradient (`t2_requires_grad`) PyTorch folds even at the price of a copy, so that its
/// gradient comes from one `mm` rather than a batch-sized `bmm` result summed down.
fn should_fold(a: &Tensor, b: &Tensor, t2_requires_grad: bool) -> bool {
    let a_larger = a.ndim() >= b.ndim();
    // only the layout matters here: no view is made
    let t1 = if a_larger {
        a.layout.clone()
    } else {
        b.layout.transpose(b.ndim() - 2, b.ndim() - 1)
    };
    let dim_t2 = if a_larger { b.ndim() } else { a.ndim() };
    if !(t1.ndim() >= 3 && dim_t2 <= 2) {
        return false;
    }
    if t2_requires_grad {
        return true;
    }
    if a.ndim() == 2 {
        // folding 2-D @ N-D would need a transpose + copy of the result
        return false;
    }
    if t1.numel() == 0 {
        return true;
    }
    // PyTorch 2.x folds exactly when `t1.view(-1, t1.size(-1))` needs no copy (size-1
    // dims do not block it), so use the same view computation.
    let last = t1.shape[t1.ndim() - 1];
    let rows: usize = t1.shape[..t1.ndim() - 1].iter().product();
    t1.view(&[rows, last]).is_some()
}

/// The folded path: (B..., n, k) @ (k, p) as one (B*n, k) @ (k, p) product (or the
/// mirrored case for a vector or matrix on the left).
fn matmul_folded<O: MatmulOperand>(a: &O, b: &O) -> Result<O> {
    let (d1, d2) = (a.tensor().ndim(), b.tensor().ndim());
    let transpose = d2 > d1;
    let t1 = if transpose { b.mt()? } else { a.clone() };
    let t2 = if !transpose {
        b.clone()
    } else if d1 == 2 {
        a.mt()?
    } else {
        a.clone()
    };
    let Some((&inner, lead)) = t1.tensor().shape().split_last() else {
        return Err(rt("matmul: internal error: 0-d operand"));
    };
    let folded: usize = lead.iter().product();
    let mut out_shape = lead.to_vec();
    let t1f = t1.reshape(&[folded as i64, inner as i64])?;
    if t2.tensor().ndim() == 2 {
        out_shape.push(t2.tensor().shape()[1]);
        let out = t1f.mm(&t2)?.unsafe_view(&out_shape)?;
        return if transpose {
            out.mt()?.contiguous()
        } else {
            Ok(out)
        };
    }
    t1f.mv(&t2)?.unsafe_view(&out_shape)
}

/// The general path: broadcast the batch dims, one batched product, view the result.
fn matmul_batched<O: MatmulOperand>(a: &O, b: &O) -> Result<O> {
    let (sa, sb) = (a.tensor().shape(), b.tensor().shape());
    let (d1, d2) = (sa.len(), sb.len());
    // PyTorch drops a batch of one from an operand that needs a gradient, so that its
    // gradient comes from a folded `mm` rather than a batch-sized result summed down
    if d1 == 3 && d2 == 3 && sa[0] != sb[0] {
        if sa[0] == 1 && a.requires_grad() {
            return matmul(&a.squeeze("SqueezeBackward1", 0)?, b);
        }
        if sb[0] == 1 && b.requires_grad() {
            return matmul(a, &b.squeeze("SqueezeBackward1", 0)?);
        }
    }
    let n = if d1 > 1 { sa[d1 - 2] } else { 1 };
    let m1 = sa[d1 - 1];
    let m2 = if d2 > 1 { sb[d2 - 2] } else { sb[0] };
    let p = if d2 > 1 { sb[d2 - 1] } else { 1 };
    let batch = broadcast_shapes(&sa[..d1.saturating_sub(2)], &sb[..d2.saturating_sub(2)])?;
    let batch_and = |tail: &[usize]| -> Vec<usize> { batch.iter().chain(tail).copied().collect() };
    let t1 = a.expand(&batch_and(&[n, m1]))?.flatten_batch(2)?;
    let vector_rhs = d2 == 1;
    let t2 = if vector_rhs {
        let e = b.expand(&batch_and(&[m2]))?.flatten_batch(1)?;
        e.unsqueeze(e.tensor().ndim())?
    } else {
        b.expand(&batch_and(&[m2, p]))?.flatten_batch(2)?
    };
    let mut r = t1.batched_mm(&t2)?;
    if vector_rhs {
        r = r.squeeze("SqueezeBackward1", r.tensor().ndim() - 1)?;
    }
    let mut out_shape = batch.to_vec();
    if d1 > 1 {
        out_shape.push(n);
    }
    if d2 > 1 {
        out_shape.push(p);
    }
    r.unsafe_view(&out_shape)
}

/// The plain ops. Broadcast batch dims stay as they are (stride 0): the kernel reads
/// them in place, where merging them would copy.
impl MatmulOperand for Tensor {
    fn tensor(&self) -> &Tensor {
        self
    }
    fn requires_grad(&self) -> bool {
        false
    }
    fn dot(&self, other: &Tensor) -> Result<Tensor> {
        Tensor::dot(self, other)
    }
    fn mv(&self, vec: &Tensor) -> Result<Tensor> {
        Tensor::mv(self, vec)
    }
    fn mm(&self, mat2: &Tensor) -> Result<Tensor> {
        Tensor::mm(self, mat2)
    }
    fn batched_mm(&self, other: &Tensor) -> Result<Tensor> {
        let nd = self.ndim();
        let (n, m1) = (self.shape()[nd - 2], self.shape()[nd - 1]);
        let (m2, p) = (other.shape()[nd - 2], other.shape()[nd - 1]);
        let bprod: usize = self.shape()[..nd - 2].iter().product();
        if m1 != m2 {
            return Err(rt(format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{bprod}, {m1}] \
                 but got: [{bprod}, {m2}]."
            )));
        }
        if bprod > 0 {
            bmm_dtype_check(self.dtype(), other.dtype(), n, m1, p)?;
        }
        product("bmm", self, other)
    }
    fn mt(&self) -> Result<Tensor> {
        let n = self.ndim();
        self.with_layout(self.layout.transpose(n - 2, n - 1))
    }
    fn unsqueeze(&self, dim: usize) -> Result<Tensor> {
        self.with_layout(self.layout.unsqueeze(dim))
    }
    fn squeeze(&self, _node: &'static str, dim: usize) -> Result<Tensor> {
        self.with_layout(self.layout.squeeze_dims(&[dim]))
    }
    fn expand(&self, shape: &[usize]) -> Result<Tensor> {
        self.broadcast_to(shape)
    }
    fn flatten_batch(&self, _keep: usize) -> Result<Tensor> {
        Ok(self.clone())
    }
    fn reshape(&self, sizes: &[i64]) -> Result<Tensor> {
        Tensor::reshape(self, sizes)
    }
    fn unsafe_view(&self, shape: &[usize]) -> Result<Tensor> {
        self.with_layout(Layout::contiguous(shape))
    }
    fn contiguous(&self) -> Result<Tensor> {
        Tensor::contiguous(self)
    }
}
