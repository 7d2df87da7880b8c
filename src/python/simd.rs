//! Introspection of the elementwise kernels: the SIMD level chosen at run time and the
//! large-buffer cache (`ferric.show_config()` and tests use these).

use pyo3::prelude::*;

/// The instruction-set level the vector kernels run at, e.g. `"avx2+fma"`.
#[pyfunction]
fn _simd_level() -> &'static str {
    crate::ops::config::simd_level()
}

/// Every level this CPU supports, lowest first.
#[pyfunction]
fn _simd_levels() -> Vec<&'static str> {
    crate::ops::config::simd_levels()
}

/// `FERRIC_SIMD` as the kernels read it: `(value, level)` where `level` is the name of
/// the level the value caps to, or None when the value names no level (it then caps
/// nothing); `(None, None)` when it is unset or empty.
#[pyfunction]
fn _simd_env() -> (Option<String>, Option<&'static str>) {
    crate::ops::config::simd_env()
}

/// Bytes held by the cache of freed large buffers.
#[pyfunction]
fn _cached_buffer_bytes() -> usize {
    crate::storage::cached_bytes()
}

/// Frees the cache of freed large buffers.
#[pyfunction]
fn _release_buffer_cache() {
    crate::storage::release_cached_buffers()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            _simd_level,
            _simd_levels,
            _simd_env,
            _cached_buffer_bytes,
            _release_buffer_cache
        ]
    )
}
