"""``affine_grid`` / ``grid_sample`` (re-exported by ``ferric.nn.functional``): the
spatial-transformer sampling of PyTorch, composed of differentiable ferric ops.

A sample point's source coordinate is computed per spatial dimension with PyTorch's
formulas (unnormalize, then the padding mode's clip or reflection); the corners (2 per
dimension for (bi/tri)linear, 4 for bicubic, 1 for nearest) are fetched with one
``gather`` over the flattened spatial dimensions and summed with their weights in
PyTorch's order. Gradients with respect to the input (through ``gather``) and the grid
(through the weights and the coordinate transforms) come from the core autograd. See
``docs/nn.md``.
"""

from __future__ import annotations

import math
import warnings

from .. import _core

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")
_CUBIC_A = -0.75
_DEFAULT_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False "
    "since 1.3.0. Please specify align_corners=True if the old behavior is desired. See "
    "the documentation of grid_sample for details.")


def _base_coords(num, align_corners, dtype):
    """PyTorch's ``linspace_from_neg_one``: ``num`` points spanning [-1, 1] (pixel
    centres when not ``align_corners``)."""
    if num <= 1:
        return _core.zeros(num, dtype=dtype)
    r = _core.linspace(-1, 1, num, dtype=dtype)
    if not align_corners:
        r = r * (num - 1) / num
    return r


def affine_grid(theta, size, align_corners=None):
    r"""The sampling grid of a batch of affine transforms, for :func:`grid_sample`.

    Args:
        theta (Tensor): the affine matrices, ``(N, 2, 3)`` for 2-d or ``(N, 3, 4)`` for
            3-d transforms.
        size (torch.Size or tuple): the output size, ``(N, C, H, W)`` or
            ``(N, C, D, H, W)``.
        align_corners (bool, optional): whether -1 and 1 are the centres of the corner
            pixels (``True``) or their outer edges (``False``). Default: ``False``
            (with PyTorch's warning when not given).

    Returns:
        Tensor: the grid, ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> theta = ferric.tensor([[[1., 0., 0.], [0., 1., 0.]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
        tensor([[[[-0.5000, -0.5000],
                  [ 0.5000, -0.5000]],
        <BLANKLINE>
                 [[-0.5000,  0.5000],
                  [ 0.5000,  0.5000]]]])
    """
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    shown = size
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                f"{shown}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                f"{shown}. Got {theta.shape}.")
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {shown}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
            "when align_corners=True. This is not an intended use case of affine_grid. "
            "See the documentation of affine_grid for details.", UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {shown}")
    n = size[0]
    if theta.shape[0] != n:
        raise RuntimeError(
            f"affine_grid: theta has batch size {theta.shape[0]} but size asks for {n}")
    dt = theta.dtype
    # the base grid (x, y[, z], 1) over the output positions, x fastest
    axes = [_base_coords(s, align_corners, dt) for s in reversed(spatial)]  # x, y, z
    shape = list(spatial)
    cols = []
    for k, ax in enumerate(axes):
        view = [1] * len(spatial)
        view[len(spatial) - 1 - k] = -1
        cols.append(ax.reshape(view).expand(shape))
    cols.append(_core.ones(shape, dtype=dt))
    base = _core.stack(cols, dim=-1).reshape(1, -1, len(spatial) + 1).expand(
        n, math.prod(spatial), len(spatial) + 1)
    grid = _core.bmm(base, theta.transpose(1, 2))
    return grid.reshape([n, *spatial, len(spatial)])


def _unnormalize(coord, size, align_corners, vectorized):
    """Grid coordinate in [-1, 1] -> pixel coordinate (the 2-d CPU kernel's vectorized
    form, or the scalar form of the 3-d kernel)."""
    if vectorized:
        if align_corners:
            return (coord + 1) * ((size - 1) / 2)
        return (coord + 1) * (size / 2) - 0.5
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return _core.zeros_like(coord)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = (coord - lo).abs()
    extra = _core.fmod(c, span)
    flips = (c / span).floor()
    even = (flips - 2 * (flips * 0.5).floor()) == 0
    return _core.where(even, extra + lo, span - extra + lo)


def _pad_coord(coord, size, padding_mode, align_corners):
    """The padding mode applied to a pixel coordinate."""
    if padding_mode == "border":  # a NaN coordinate clips to 0, as in PyTorch's kernel
        return coord.clamp(0, size - 1).nan_to_num(0.0)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return coord.clamp(0, size - 1).nan_to_num(0.0)
    return coord


class _Gatherer:
    """Reads ``input`` (N, C, *S) at integer coordinates (one (N, L) float tensor per
    spatial dim, x first): one ``gather`` on the flattened spatial dims, out-of-range
    points read as 0."""

    def __init__(self, input, sizes):
        self.n, self.c = input.shape[0], input.shape[1]
        self.sizes = sizes  # x, y[, z]
        self.flat = input.reshape(self.n, self.c, -1)

    def read(self, coords):
        valid = None
        index = None
        stride = 1
        for c, s in zip(coords, self.sizes, strict=True):
            ok = (c >= 0) & (c <= s - 1)
            valid = ok if valid is None else valid & ok
            # out-of-range and NaN points read index 0 (masked to 0 below)
            i = _core.where(ok, c.detach(), _core.zeros((), dtype=c.dtype)).to(
                _core.int64) * stride
            index = i if index is None else index + i
            stride *= s
        length = index.shape[1]
        values = self.flat.gather(2, index.unsqueeze(1).expand(self.n, self.c, length))
        return _core.where(valid.unsqueeze(1), values, _core.zeros((), dtype=values.dtype))


def _cubic_coefficients(t):
    a = _CUBIC_A
    x1 = t + 1
    c0 = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    c1 = ((a + 2) * t - (a + 3)) * t * t + 1
    x2 = 1 - t
    c2 = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1
    x3 = x2 + 1
    c3 = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a
    return [c0, c1, c2, c3]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    r"""Samples ``input`` at the locations of ``grid`` (normalized to [-1, 1]: -1 is the
    left/top edge, 1 the right/bottom one), as the spatial transformer does.

    Args:
        input (Tensor): ``(N, C, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        grid (Tensor): ``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``;
            ``grid[..., 0]`` indexes the width, ``grid[..., 1]`` the height.
        mode (str): ``'bilinear'`` (trilinear for 5-d input), ``'nearest'`` or
            ``'bicubic'`` (4-d only). Default: ``'bilinear'``.
        padding_mode (str): values outside the input: ``'zeros'``, ``'border'`` or
            ``'reflection'``. Default: ``'zeros'``.
        align_corners (bool, optional): whether -1 and 1 are the centres of the corner
            pixels (``True``) or their outer edges (``False``). Default: ``False``
            (with PyTorch's warning when not given).

    Returns:
        Tensor: ``(N, C, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(4.).view(1, 1, 2, 2)
        >>> grid = ferric.tensor([[[[0., 0.], [-1., -1.], [1., 1.]]]])
        >>> F.grid_sample(x, grid, align_corners=True)
        tensor([[[[1.5000, 0.0000, 3.0000]]]])
        >>> F.grid_sample(x, grid, align_corners=False)
        tensor([[[[1.5000, 0.0000, 0.7500]]]])
    """
    if mode not in _MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', "
            f"or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    _check(input, grid, mode)
    d = input.dim() - 2
    n, c = input.shape[0], input.shape[1]
    out_spatial = list(grid.shape[1:-1])
    sizes = list(reversed(input.shape[2:]))  # x, y[, z]
    g = grid.reshape(n, -1, d)
    vectorized = d == 2
    coords = [_unnormalize(g[:, :, k], sizes[k], align_corners, vectorized) for k in range(d)]
    reader = _Gatherer(input, sizes)
    if mode == "bicubic":
        out = _bicubic(reader, coords, sizes, padding_mode, align_corners)
    else:
        coords = [_pad_coord(x, s, padding_mode, align_corners)
                  for x, s in zip(coords, sizes, strict=True)]
        if mode == "nearest":
            rounded = [x.round() for x in coords]
            out = reader.read(rounded)
            # keep the grid in the graph with PyTorch's zero gradient (exactly 1.0 here)
            one = sum(r - r.detach() for r in rounded).nan_to_num(0.0) + 1
            out = out * one.unsqueeze(1)
        else:
            out = _linear(reader, coords, vectorized)
    return out.reshape([n, c, *out_spatial])


def _linear(reader, coords, vectorized):
    lows = [x.floor() for x in coords]
    fracs = [x - lo for x, lo in zip(coords, lows, strict=True)]
    out = None
    corners = [(0, 0), (0, 1), (1, 0), (1, 1)] if len(coords) == 2 else [
        (z, y, x) for z in (0, 1) for y in (0, 1) for x in (0, 1)]
    for bits in corners:
        bits_x_first = list(reversed(bits))
        if vectorized:  # the 2-d kernel: nw = (1 - fy) * (1 - fx), ...
            wy = fracs[1] if bits_x_first[1] else 1 - fracs[1]
            wx = fracs[0] if bits_x_first[0] else 1 - fracs[0]
            w = wy * wx
        else:  # the 3-d kernel: tnw = (x_hi - x) * (y_hi - y) * (z_hi - z), ...
            w = None
            for k, b in enumerate(bits_x_first):
                f = coords[k] - lows[k] if b else lows[k] + 1 - coords[k]
                w = f if w is None else w * f
        vals = reader.read([lo + b for lo, b in zip(lows, bits_x_first, strict=True)])
        term = vals * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(reader, coords, sizes, padding_mode, align_corners):
    (ix, iy), (sx, sy) = coords, sizes
    x0, y0 = ix.floor(), iy.floor()
    cx, cy = _cubic_coefficients(ix - x0), _cubic_coefficients(iy - y0)

    def at(x, y):
        x = _pad_coord(x, sx, padding_mode, align_corners)
        y = _pad_coord(y, sy, padding_mode, align_corners)
        return reader.read([x, y])

    out = None
    for i in range(4):
        row = None
        for j in range(4):
            term = cx[j].unsqueeze(1) * at(x0 + (j - 1), y0 + (i - 1))
            row = term if row is None else row + term
        term = cy[i].unsqueeze(1) * row
        out = term if out is None else out + term
    return out


def _check(input, grid, mode):
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype_name(input.dtype)} but found "
            f"{_dtype_name(grid.dtype)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got "
            f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last "
            f"dimension, but got grid with sizes {list(grid.shape)}")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of "
            f"dimensions, but got input with sizes {list(input.shape)} and grid with "
            f"sizes {list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {i} being empty")
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def _dtype_name(dtype):
    return {"float32": "Float", "float64": "Double", "float16": "Half",
            "bfloat16": "BFloat16"}.get(str(dtype).rsplit(".", 1)[-1], str(dtype))
