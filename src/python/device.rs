//! Devices: ferric computes on the CPU only. The `ferric.device` class and the rules for
//! what a CPU-only PyTorch build says about other devices live in Python
//! (`ferric/_device.py`); the bindings call into it so the rules exist once.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

static DEVICE_MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn device_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    DEVICE_MODULE
        .get_or_try_init(py, || py.import("ferric._device").map(Bound::unbind))
        .map(|m| m.bind(py))
}

/// Accepts a `device=` argument that names the CPU; anything else raises what CPU-only
/// PyTorch raises (e.g. `AssertionError: Torch not compiled with CUDA enabled`).
/// `None` and the plain string "cpu" are checked here without a Python call.
pub fn check_device(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(d) = device else { return Ok(()) };
    if d.is_none() || d.extract::<&str>().is_ok_and(|s| s == "cpu") {
        return Ok(());
    }
    device_module(d.py())?
        .getattr("_check_device")?
        .call1((d,))?;
    Ok(())
}

/// The `ferric.device("cpu")` object every tensor reports as its `device`.
pub fn cpu_device(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    static CPU: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    CPU.get_or_try_init(py, || device_module(py)?.getattr("_CPU").map(Bound::unbind))
        .map(|d| d.bind(py).clone())
}
