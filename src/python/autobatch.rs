//! The one hook `ferric.autobatch` needs from Rust: binding a computed value into the
//! Python tensor object that stood for it while it was pending.

use pyo3::prelude::*;

use super::tensor::PyTensor;

#[pymethods]
impl PyTensor {
    /// _autobatch_bind(src) -> None
    ///
    /// Makes this tensor object share ``src``'s data and autograd state (its ``grad_fn``,
    /// ``requires_grad`` and version counter), as if it had been returned by the op that
    /// made ``src``. ``ferric.autobatch`` calls it once per pending tensor when the batched
    /// group that computes it has run; it is not meant for user code.
    fn _autobatch_bind(&mut self, src: PyRef<'_, PyTensor>) -> PyResult<()> {
        let meta = src.ag.get()?;
        self.ag.set(meta)?;
        self.t = src.t.clone();
        Ok(())
    }
}
