//! PyO3 bindings: the only module that knows about Python. Each file registers one
//! family of functions/methods; bindings convert arguments, call the core, map errors.

use pyo3::prelude::*;

/// Adds the `#[pyfunction]`s named in the list to module `m`; a `PyResult<()>`.
/// Defined before the child modules so that every binding file can use it.
macro_rules! add_functions {
    ($m:expr, [$($f:path),* $(,)?]) => {{
        $($m.add_function(pyo3::wrap_pyfunction!($f, $m)?)?;)*
        pyo3::PyResult::Ok(())
    }};
}

mod arith;
mod autobatch;
mod autocast;
mod autograd;
mod conv;
pub mod convert;
mod creation;
mod data;
pub mod device;
mod dlpack;
mod errors;
mod index;
mod info;
mod join;
mod linalg;
mod matmul;
mod memory_format;
mod nn;
mod node_class;
mod optim;
mod out;
mod pickling;
mod random;
mod reduce;
mod reduce_calls;
mod simd;
mod sort;
mod special;
pub mod tensor;
mod threads;
mod views;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    convert::register(m)?;
    memory_format::register(m)?;
    tensor::register(m)?;
    autograd::register(m)?;
    arith::register(m)?;
    views::register(m)?;
    creation::register(m)?;
    reduce::register(m)?;
    index::register(m)?;
    join::register(m)?;
    linalg::register(m)?;
    matmul::register(m)?;
    nn::register(m)?;
    conv::register(m)?;
    random::register(m)?;
    threads::register(m)?;
    optim::register(m)?;
    dlpack::register(m)?;
    info::register(m)?;
    simd::register(m)?;
    sort::register(m)?;
    special::register(m)?;
    out::register(m)?;
    autocast::register(m)?;
    Ok(())
}
