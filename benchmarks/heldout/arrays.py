"""Array plumbing the held-out problems share (no modelling): their costs are vectorised over
decisions, a decision axis in front of the rows."""

from __future__ import annotations

import numpy as np


def columns(a, k, copy=True):
    """``a`` with its last axis first and k axes after it (padded on the left), contiguous
    unless ``copy`` is false (then a view: where the normals are read once, a copy costs more)."""
    a = np.moveaxis(a, -1, 0)
    if copy and not a.flags.c_contiguous:
        # copied a slab of rows at a time: a plain copy thrashes
        out = np.empty(a.shape)
        for i in range(0, a.shape[-1], 1024):
            out[..., i:i + 1024] = a[..., i:i + 1024]
        a = out
    return a.reshape(a.shape[:1] + (1,) * (k - a.ndim + 1) + a.shape[1:])


def lognormal(sd, u):
    """A mean-one lognormal factor from standard normals ``u``: exp(sd u - sd^2 / 2)."""
    return np.exp(sd * u - 0.5 * sd**2)


def scenario(parts):
    """The scenario's columns: each part (c_i, ...) broadcast to the others' trailing shape,
    stacked along its first axis, which becomes the last (W's columns)."""
    shape = np.broadcast_shapes(*(p.shape[1:] for p in parts))
    return np.moveaxis(np.concatenate([np.broadcast_to(p, p.shape[:1] + shape)
                                       for p in parts]), 0, -1)
