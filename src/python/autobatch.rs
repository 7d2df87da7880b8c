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
        self.ag.set_pending(false);
        self.t = src.t.clone();
        Ok(())
    }

    /// _autobatch_mark() -> None
    ///
    /// Marks this tensor object as the placeholder of a pending ``ferric.autobatch``
    /// value: until :meth:`_autobatch_bind` gives it its value, an op that reaches it
    /// directly raises ``RuntimeError`` instead of computing on the empty placeholder.
    fn _autobatch_mark(&self) {
        self.ag.set_pending(true);
    }
}
