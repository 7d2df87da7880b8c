//! `ferric.memory_format` objects (`contiguous_format`, `preserve_format`,
//! `channels_last`, `channels_last_3d`) and the `memory_format=` argument of `clone`,
//! `contiguous`, `is_contiguous` and the `*_like` factories.

use crate::layout::Layout;
use crate::memory_order::{is_channels_last, Order};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryFormat {
    Contiguous,
    Preserve,
    ChannelsLast,
    ChannelsLast3d,
}

impl MemoryFormat {
    const ALL: [MemoryFormat; 4] = [
        MemoryFormat::Contiguous,
        MemoryFormat::Preserve,
        MemoryFormat::ChannelsLast,
        MemoryFormat::ChannelsLast3d,
    ];
    fn name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "contiguous_format",
            MemoryFormat::Preserve => "preserve_format",
            MemoryFormat::ChannelsLast => "channels_last",
            MemoryFormat::ChannelsLast3d => "channels_last_3d",
        }
    }

    /// The layout a copy in this format gets (`clone`, `*_like`, `contiguous`).
    pub fn order(self, l: &Layout) -> PyResult<Order> {
        Ok(match self {
            MemoryFormat::Contiguous => Order::row_major(&l.shape),
            MemoryFormat::Preserve => Order::preserve(l),
            MemoryFormat::ChannelsLast | MemoryFormat::ChannelsLast3d => {
                self.check_rank(l)?;
                Order::channels_last(&l.shape)
            }
        })
    }

    /// `t.is_contiguous(memory_format=self)`.
    pub fn holds(self, l: &Layout) -> bool {
        match self {
            MemoryFormat::Contiguous | MemoryFormat::Preserve => l.is_contiguous(),
            MemoryFormat::ChannelsLast => l.ndim() == 4 && is_channels_last(l),
            MemoryFormat::ChannelsLast3d => l.ndim() == 5 && is_channels_last(l),
        }
    }

    fn check_rank(self, l: &Layout) -> PyResult<()> {
        let rank = if self == MemoryFormat::ChannelsLast {
            4
        } else {
            5
        };
        if l.ndim() != rank {
            return Err(PyRuntimeError::new_err(format!(
                "required rank {rank} tensor to use {} format",
                self.name()
            )));
        }
        Ok(())
    }
}

/// `ferric.contiguous_format` and friends (printed as PyTorch prints them).
///
/// Example:
///     >>> ferric.channels_last
///     torch.channels_last
///     >>> x = ferric.ones(1, 2, 3, 3).to(memory_format=ferric.channels_last)
///     >>> x.stride()
///     (18, 1, 6, 2)
///     >>> x.is_contiguous(memory_format=ferric.channels_last)
///     True
#[pyclass(name = "memory_format", module = "ferric", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyMemoryFormat {
    f: MemoryFormat,
}

#[pymethods]
impl PyMemoryFormat {
    fn __repr__(&self) -> String {
        format!("torch.{}", self.f.name())
    }
    /// Pickled by name: unpickling looks up `ferric.<name>`.
    fn __reduce__(&self) -> &'static str {
        self.f.name()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMemoryFormat>()?;
    for f in MemoryFormat::ALL {
        m.add(f.name(), Py::new(m.py(), PyMemoryFormat { f })?)?;
    }
    Ok(())
}

/// The `memory_format=` argument of `op`; `None` gives `default`.
pub fn memory_format_arg(
    op: &str,
    obj: Option<&Bound<'_, PyAny>>,
    default: MemoryFormat,
) -> PyResult<MemoryFormat> {
    match obj {
        None => Ok(default),
        Some(o) if o.is_none() => Ok(default),
        Some(o) => o.cast::<PyMemoryFormat>().map(|f| f.get().f).map_err(|_| {
            PyTypeError::new_err(format!(
                "{op}(): argument 'memory_format' must be torch.memory_format, not {}",
                super::convert::type_name(o)
            ))
        }),
    }
}
