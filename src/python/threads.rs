//! `set_num_threads` / `get_num_threads`: the size of ferric's kernel pool; the hooks
//! that let long kernels release the GIL and stop on Ctrl-C.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

/// set_num_threads(int) -> None
///
/// Sets the number of threads ferric's kernels use (like ``torch.set_num_threads``).
///
/// Args:
///     int (int): the number of threads, at least 1.
///
/// Example:
///     >>> n = ferric.get_num_threads()
///     >>> ferric.set_num_threads(1)
///     >>> ferric.get_num_threads()
///     1
///     >>> ferric.set_num_threads(n)
#[pyfunction]
fn set_num_threads(n: &Bound<'_, PyAny>) -> PyResult<()> {
    if !n.is_instance_of::<PyInt>() || n.is_instance_of::<PyBool>() {
        let got = n.get_type().name()?;
        return Err(PyRuntimeError::new_err(format!(
            "set_num_threads expects an int, but got {got}"
        )));
    }
    let n: i64 = n.extract()?;
    let n = usize::try_from(n).unwrap_or(0);
    Ok(crate::threads::set_num_threads(n)?)
}

/// get_num_threads() -> int
///
/// Returns the number of threads ferric's kernels use.
///
/// Example:
///     >>> ferric.get_num_threads() >= 1
///     True
#[pyfunction]
fn get_num_threads() -> usize {
    crate::threads::num_threads()
}

/// `FERRIC_NUM_THREADS` as ferric read it: `(value, count)` where `count` is None when
/// the value is not a positive integer (the CPU count is used instead); `(None, None)`
/// when it is unset or empty.
#[pyfunction]
fn _num_threads_env() -> (Option<String>, Option<usize>) {
    use crate::threads::EnvThreads;
    match crate::threads::env_threads() {
        EnvThreads::Unset => (None, None),
        EnvThreads::Count { threads, value } => (Some(value.clone()), Some(*threads)),
        EnvThreads::Invalid(v) => (Some(v.clone()), None),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::threads::set_unlock_hook(release_gil);
    // signal handlers can only be set from the main thread, where the module is
    // imported in practice; elsewhere Ctrl-C stays with the interpreter alone
    let threading = m.py().import("threading")?;
    if threading
        .call_method0("current_thread")?
        .is(&threading.call_method0("main_thread")?)
    {
        #[cfg(target_os = "linux")]
        sigint::install();
    }
    add_functions!(m, [set_num_threads, get_num_threads, _num_threads_env])
}

/// The unlock hook of the core (`threads::unlocked`): releases the GIL around a long
/// kernel when this thread holds it, so other Python threads (DataLoader workers,
/// servers, UIs) keep running. Kernels touch only tensor memory, never Python objects
/// or the autograd tape, while it is released; nested calls (already released, or on a
/// pool worker that never held it) run directly.
fn release_gil(f: &mut dyn FnMut()) {
    // SAFETY: `PyGILState_Check` only reads the thread's state; the GIL is released only
    // when this thread holds it, and the guard re-takes it even if `f` unwinds.
    unsafe {
        if pyo3::ffi::Py_IsInitialized() == 0 || pyo3::ffi::PyGILState_Check() == 0 {
            return f();
        }
        struct Retake(*mut pyo3::ffi::PyThreadState);
        impl Drop for Retake {
            fn drop(&mut self) {
                // SAFETY: the state saved below, restored once on this thread
                unsafe { pyo3::ffi::PyEval_RestoreThread(self.0) };
            }
        }
        let _retake = Retake(pyo3::ffi::PyEval_SaveThread());
        f();
    }
}

/// Ctrl-C during a long kernel. Python's own SIGINT handler only sets a flag that the
/// interpreter reads between bytecodes, which a kernel running for seconds never
/// reaches. ferric's handler records the request for the kernels (which stop at their
/// next chunk) and then calls the handler it replaced, so the interpreter raises
/// `KeyboardInterrupt` (or runs the user's handler) as usual. If a program later
/// installs its own handler with `signal.signal`, that replaces this one and long
/// kernels simply run to the end, as before.
#[cfg(target_os = "linux")]
mod sigint {
    use std::sync::OnceLock;

    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    extern "C" fn on_sigint(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        crate::threads::request_interrupt();
        if let Some(prev) = PREVIOUS.get() {
            let h = prev.sa_sigaction;
            if h == libc::SIG_DFL || h == libc::SIG_IGN {
                return;
            }
            // SAFETY: `h` is the handler the kernel would have called, with the calling
            // convention its flags declare
            unsafe {
                if prev.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(h);
                    f(sig, info, ctx);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                    f(sig);
                }
            }
        }
    }

    /// Puts `on_sigint` in front of the current SIGINT handler (Python's), once. Left
    /// alone when SIGINT is ignored or default (then nothing would raise anyway).
    pub fn install() {
        if PREVIOUS.get().is_some() {
            return;
        }
        // SAFETY: plain sigaction calls with zero-initialised structs
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) != 0 {
                return;
            }
            if old.sa_sigaction == libc::SIG_DFL || old.sa_sigaction == libc::SIG_IGN {
                return;
            }
            if PREVIOUS.set(old).is_err() {
                return;
            }
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_sigint as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | (old.sa_flags & libc::SA_ONSTACK);
            libc::sigemptyset(&mut new.sa_mask);
            libc::sigaction(libc::SIGINT, &new, std::ptr::null_mut());
        }
    }
}
