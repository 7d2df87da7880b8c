//! `_core._build_info()`: how this extension was built and what the CPU offers, for
//! `ferric.show_config()` and bug reports.

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The best SIMD instruction set the running CPU supports, detected at run time. Wheels
/// are compiled for the baseline CPU, so this (not the compile target) is what kernels
/// with runtime dispatch can use.
fn cpu_simd() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "avx512";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return "avx2+fma";
        }
        if std::arch::is_x86_feature_detected!("sse4.2") {
            return "sse4.2";
        }
        "sse2"
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            return "neon";
        }
        "scalar"
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        "scalar"
    }
}

/// A dict: `version` (the crate version), `profile` ("release" or "debug": whether
/// debug assertions are compiled in), `target_arch`, `target_os`, `cpu_simd` (see
/// `cpu_simd`) and `compiled_features` (the target features enabled at compile time;
/// a baseline wheel lists only the architecture's defaults).
#[pyfunction]
fn _build_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", env!("CARGO_PKG_VERSION"))?;
    d.set_item(
        "profile",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    )?;
    d.set_item("target_arch", std::env::consts::ARCH)?;
    d.set_item("target_os", std::env::consts::OS)?;
    d.set_item("cpu_simd", cpu_simd())?;
    let mut compiled: Vec<&str> = Vec::new();
    for (on, name) in [
        (cfg!(target_feature = "sse4.2"), "sse4.2"),
        (cfg!(target_feature = "avx"), "avx"),
        (cfg!(target_feature = "avx2"), "avx2"),
        (cfg!(target_feature = "fma"), "fma"),
        (cfg!(target_feature = "avx512f"), "avx512f"),
        (cfg!(target_feature = "neon"), "neon"),
    ] {
        if on {
            compiled.push(name);
        }
    }
    d.set_item("compiled_features", compiled)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_build_info, m)?)
}
