"""Named tuples returned by ops with several outputs (``torch.return_types``).

``x.max(dim)`` returns ``return_types.max(values=..., indices=...)``: a tuple subclass
that unpacks like a tuple and has named fields, printed like PyTorch's structseq.
"""

from __future__ import annotations

import operator

__all__ = [
    "aminmax",
    "cummax",
    "cummin",
    "frexp",
    "kthvalue",
    "linalg_cholesky_ex",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_lstsq",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_svd",
    "lu_unpack",
    "max",
    "median",
    "min",
    "mode",
    "nanmedian",
    "qr",
    "slogdet",
    "sort",
    "svd",
    "topk",
    "triangular_solve",
]


def _make(name: str, fields: tuple[str, ...]) -> type:
    def __new__(cls, sequence):
        seq = tuple(sequence)
        if len(seq) != len(fields):
            raise TypeError(
                f"ferric.return_types.{name}() takes a {len(fields)}-sequence "
                f"({len(seq)}-sequence given)"
            )
        return tuple.__new__(cls, seq)

    def __repr__(self):
        items = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self, strict=True))
        return f"ferric.return_types.{name}(\n{items})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    ns = {
        "__new__": __new__,
        "__repr__": __repr__,
        "__reduce__": __reduce__,
        "__slots__": (),
        "__module__": __name__,
        "__qualname__": name,
        "_fields": fields,
        "n_fields": len(fields),
        "n_sequence_fields": len(fields),
    }
    for i, f in enumerate(fields):
        ns[f] = property(operator.itemgetter(i), doc=f"Alias for field number {i}")
    return type(name, (tuple,), ns)


max = _make("max", ("values", "indices"))
min = _make("min", ("values", "indices"))
cummax = _make("cummax", ("values", "indices"))
cummin = _make("cummin", ("values", "indices"))
aminmax = _make("aminmax", ("min", "max"))
sort = _make("sort", ("values", "indices"))
topk = _make("topk", ("values", "indices"))
kthvalue = _make("kthvalue", ("values", "indices"))
median = _make("median", ("values", "indices"))
nanmedian = _make("nanmedian", ("values", "indices"))
mode = _make("mode", ("values", "indices"))
linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
linalg_inv_ex = _make("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = _make("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = _make("linalg_cholesky_ex", ("L", "info"))
linalg_qr = _make("linalg_qr", ("Q", "R"))
linalg_svd = _make("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_lstsq = _make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
slogdet = _make("slogdet", ("sign", "logabsdet"))
qr = _make("qr", ("Q", "R"))
svd = _make("svd", ("U", "S", "V"))
linalg_lu = _make("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = _make("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _make("linalg_lu_factor_ex", ("LU", "pivots", "info"))
lu_unpack = _make("lu_unpack", ("P", "L", "U"))
frexp = _make("frexp", ("mantissa", "exponent"))
triangular_solve = _make("triangular_solve", ("solution", "cloned_coefficient"))
