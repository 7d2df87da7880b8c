//! The one error type of the core. Every variant maps to exactly one Python exception
//! (see `python/errors.rs`); messages start with the op name and show shapes/dtypes.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Shape mismatches, invalid views, wrong dtypes for an op: `RuntimeError`.
    Runtime,
    /// Dimension or element index out of range: `IndexError`.
    Index,
    /// Wrong argument type: `TypeError`.
    Type,
    /// Invalid argument value: `ValueError`.
    Value,
    /// Allocation request too large: `MemoryError`.
    Memory,
    /// Documented as unsupported (e.g. an op on nested tensors): `NotImplementedError`.
    NotImplemented,
    /// The user interrupted a long op (Ctrl-C): the interpreter's `KeyboardInterrupt`.
    Interrupted,
    /// A factorization failed (singular, not positive-definite, no convergence):
    /// `ferric.linalg.LinAlgError`, a `RuntimeError` subclass.
    LinAlg,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub msg: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(kind: ErrorKind, op: &str, msg: impl fmt::Display) -> Self {
        let msg = if op.is_empty() {
            msg.to_string()
        } else {
            format!("{op}: {msg}")
        };
        Error { kind, msg }
    }
    pub fn runtime(op: &str, msg: impl fmt::Display) -> Self {
        Self::new(ErrorKind::Runtime, op, msg)
    }
    pub fn index(op: &str, msg: impl fmt::Display) -> Self {
        Self::new(ErrorKind::Index, op, msg)
    }
    pub fn type_(op: &str, msg: impl fmt::Display) -> Self {
        Self::new(ErrorKind::Type, op, msg)
    }
    pub fn value(op: &str, msg: impl fmt::Display) -> Self {
        Self::new(ErrorKind::Value, op, msg)
    }
    pub fn memory(op: &str, msg: impl fmt::Display) -> Self {
        Self::new(ErrorKind::Memory, op, msg)
    }
    pub fn not_implemented(op: &str, msg: impl fmt::Display) -> Self {
        Self::new(ErrorKind::NotImplemented, op, msg)
    }
    pub fn linalg(op: &str, msg: impl fmt::Display) -> Self {
        Self::new(ErrorKind::LinAlg, op, msg)
    }
    pub fn interrupted(op: &str) -> Self {
        Self::new(ErrorKind::Interrupted, op, "interrupted")
    }
    /// PyTorch's `"kernel" not implemented for 'Long'` (NotImplementedError, itself a
    /// RuntimeError subclass in Python).
    pub fn dtype_not_implemented(kernel: &str, dtype: crate::dtype::DType) -> Self {
        Error {
            kind: ErrorKind::NotImplemented,
            msg: format!("\"{kernel}\" not implemented for '{}'", dtype.torch_name()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

/// Formats a shape like PyTorch does in messages: `[2, 3]`.
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}
