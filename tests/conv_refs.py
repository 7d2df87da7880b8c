"""NumPy references for convolutions, pooling and fold/unfold (direct loops and
einsum over kernel taps, in float64), shared by tests/test_conv.py and the op-table rows
in tests/specs/conv.py."""

from __future__ import annotations

import itertools

import numpy as np


def tup(v, n):
    if isinstance(v, (tuple, list)):
        return tuple(v) * n if len(v) == 1 else tuple(v)
    return (v,) * n


def spatial_pad(x, pads, value=0.0):
    width = [(0, 0)] * (x.ndim - len(pads)) + list(pads)
    return np.pad(x, width, constant_values=value)


def ref_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    sd = w.ndim - 2
    if x.ndim == sd + 1:
        return ref_conv(x[None], w, b, stride, padding, dilation, groups)[0]
    st, dl, k = tup(stride, sd), tup(dilation, sd), w.shape[2:]
    if padding == "valid":
        pads = [(0, 0)] * sd
    elif padding == "same":
        tot = [d * (kk - 1) for kk, d in zip(k, dl, strict=True)]
        pads = [(t // 2, t - t // 2) for t in tot]
    else:
        pads = [(p, p) for p in tup(padding, sd)]
    xp = spatial_pad(x.astype(np.float64), pads)
    osz = [(xp.shape[2 + i] - dl[i] * (k[i] - 1) - 1) // st[i] + 1 for i in range(sd)]
    n, c, oc = x.shape[0], x.shape[1], w.shape[0]
    cg, ocg = c // groups, oc // groups
    out = np.zeros((n, oc, *osz))
    for tap in np.ndindex(*k):
        sl = tuple(slice(tap[i] * dl[i], tap[i] * dl[i] + (osz[i] - 1) * st[i] + 1, st[i])
                   for i in range(sd))
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(groups):
            wt = w[(slice(g * ocg, (g + 1) * ocg), slice(None)) + tap]
            out[:, g * ocg:(g + 1) * ocg] += np.einsum("nc...,oc->no...",
                                                       patch[:, g * cg:(g + 1) * cg], wt)
    if b is not None:
        out += b.reshape((1, -1) + (1,) * sd)
    return out


def ref_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1,
                       dilation=1):
    sd = w.ndim - 2
    if x.ndim == sd + 1:
        return ref_conv_transpose(x[None], w, b, stride, padding, output_padding, groups,
                                  dilation)[0]
    st, p, op, dl = (tup(v, sd) for v in (stride, padding, output_padding, dilation))
    k, s = w.shape[2:], x.shape[2:]
    n, cin, cog = x.shape[0], x.shape[1], w.shape[1]
    cig = cin // groups
    full = [(s[i] - 1) * st[i] + dl[i] * (k[i] - 1) + 1 + op[i] for i in range(sd)]
    buf = np.zeros((n, cog * groups, *full))
    for tap in np.ndindex(*k):
        sl = tuple(slice(tap[i] * dl[i], tap[i] * dl[i] + (s[i] - 1) * st[i] + 1, st[i])
                   for i in range(sd))
        for g in range(groups):
            wt = w[(slice(g * cig, (g + 1) * cig), slice(None)) + tap]
            buf[(slice(None), slice(g * cog, (g + 1) * cog)) + sl] += np.einsum(
                "nc...,co->no...", x[:, g * cig:(g + 1) * cig].astype(np.float64), wt)
    out = buf[(slice(None), slice(None)) + tuple(slice(p[i], full[i] - p[i]) for i in range(sd))]
    if b is not None:
        out = out + b.reshape((1, -1) + (1,) * sd)
    return out


def pool_out(size, k, p, s, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = num // s + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def pick_max(vals, flat):
    """PyTorch's CPU rule: the first maximum, but the last NaN of a window wins."""
    isn = np.isnan(vals)
    first_max = np.argmax(np.where(isn, -np.inf, vals), -1)
    last_nan = vals.shape[-1] - 1 - np.argmax(isn[..., ::-1], -1)
    sel = np.where(isn.any(-1), last_nan, first_max)
    return np.take_along_axis(vals, sel[..., None], -1)[..., 0], flat[sel]


def ref_max_pool2d(x, k, s=None, p=0, d=1, ceil=False):
    k, p, d = tup(k, 2), tup(p, 2), tup(d, 2)
    s = k if s is None else tup(s, 2)
    h, w = x.shape[-2:]
    oh, ow = (pool_out(n, k[i], p[i], s[i], d[i], ceil) for i, n in enumerate((h, w)))
    out = np.empty(x.shape[:-2] + (oh, ow), x.dtype)
    idx = np.empty(out.shape, np.int64)
    for i, j in itertools.product(range(oh), range(ow)):
        rows = [r for r in (i * s[0] - p[0] + a * d[0] for a in range(k[0])) if 0 <= r < h]
        cols = [c for c in (j * s[1] - p[1] + a * d[1] for a in range(k[1])) if 0 <= c < w]
        pos = [(r, c) for r in rows for c in cols]
        vals = np.stack([x[..., r, c] for r, c in pos], -1)
        out[..., i, j], idx[..., i, j] = pick_max(vals, np.array([r * w + c for r, c in pos]))
    return out, idx


def ref_avg_pool2d(x, k, s=None, p=0, ceil=False, count_include_pad=True, divisor=None):
    k, p = tup(k, 2), tup(p, 2)
    s = k if s is None else tup(s, 2)
    h, w = x.shape[-2:]
    oh, ow = (pool_out(n, k[i], p[i], s[i], 1, ceil) for i, n in enumerate((h, w)))
    out = np.empty(x.shape[:-2] + (oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        hs, ws = i * s[0] - p[0], j * s[1] - p[1]
        he, we = min(hs + k[0], h + p[0]), min(ws + k[1], w + p[1])
        pool = (he - hs) * (we - ws)
        hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
        div = divisor or (pool if count_include_pad else (he - hs) * (we - ws))
        out[..., i, j] = x[..., hs:he, ws:we].astype(np.float64).sum((-1, -2)) / div
    return out


def adaptive_windows(n, o):
    return [((i * n) // o, -(-((i + 1) * n) // o)) for i in range(o)]


def ref_adaptive(x, size, kind):
    h, w = x.shape[-2:]
    oh, ow = (v if v is not None else d for v, d in zip(tup(size, 2), (h, w), strict=True))
    out = np.empty(x.shape[:-2] + (oh, ow))
    idx = np.empty(out.shape, np.int64)
    for (i, (hs, he)), (j, (ws, we)) in itertools.product(
            enumerate(adaptive_windows(h, oh)), enumerate(adaptive_windows(w, ow))):
        win = x[..., hs:he, ws:we]
        if kind == "avg":
            out[..., i, j] = win.mean((-1, -2))
        else:
            flat = np.array([r * w + c for r in range(hs, he) for c in range(ws, we)])
            vals = win.reshape(win.shape[:-2] + (len(flat),))
            out[..., i, j], idx[..., i, j] = pick_max(vals, flat)
    return out if kind == "avg" else (out, idx)


def ref_unfold(x, k, d=1, p=0, s=1):
    if x.ndim == 3:
        return ref_unfold(x[None], k, d, p, s)[0]
    k, d, p, s = (tup(v, 2) for v in (k, d, p, s))
    xp = spatial_pad(x.astype(np.float64), [(p[0], p[0]), (p[1], p[1])])
    bh, bw = ((xp.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2))
    n, c = x.shape[:2]
    out = np.empty((n, c, k[0] * k[1], bh * bw))
    for ki, kj in np.ndindex(*k):
        patch = xp[:, :, ki * d[0]:ki * d[0] + (bh - 1) * s[0] + 1:s[0],
                   kj * d[1]:kj * d[1] + (bw - 1) * s[1] + 1:s[1]]
        out[:, :, ki * k[1] + kj] = patch.reshape(n, c, bh * bw)
    return out.reshape(n, c * k[0] * k[1], bh * bw)


def ref_fold(cols, size, k, d=1, p=0, s=1):
    if cols.ndim == 2:
        return ref_fold(cols[None], size, k, d, p, s)[0]
    size, k, d, p, s = (tup(v, 2) for v in (size, k, d, p, s))
    bh, bw = ((size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2))
    n = cols.shape[0]
    c = cols.shape[1] // (k[0] * k[1])
    cols = cols.reshape(n, c, k[0] * k[1], bh, bw)
    buf = np.zeros((n, c, size[0] + 2 * p[0], size[1] + 2 * p[1]))
    for ki, kj in np.ndindex(*k):
        buf[:, :, ki * d[0]:ki * d[0] + (bh - 1) * s[0] + 1:s[0],
            kj * d[1]:kj * d[1] + (bw - 1) * s[1] + 1:s[1]] += cols[:, :, ki * k[1] + kj]
    return buf[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
