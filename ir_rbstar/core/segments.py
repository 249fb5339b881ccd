"""Segment primitives: per-query sums and running sums over flat arrays grouped by query."""
from __future__ import annotations

import numpy as np

__all__ = ["seg_sum", "seg_cumsum", "seg_cumcount", "log_factorials"]


def seg_sum(values: np.ndarray, seg: np.ndarray, n: int) -> np.ndarray:
    """Sum of `values` per segment index (0..n-1)."""
    return np.bincount(seg, weights=values, minlength=n).astype(np.float64, copy=False)


def seg_cumsum(values: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Running sum restarting at each segment; rows of a segment must be contiguous."""
    if len(values) == 0:
        return values.copy()
    c = np.cumsum(values)
    first = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    before = np.r_[values.dtype.type(0), c[first[1:] - 1]] if len(first) > 1 else np.zeros(1, dtype=c.dtype)
    lens = np.diff(np.append(first, len(values)))
    return c - np.repeat(before, lens)


def seg_cumcount(seg: np.ndarray) -> np.ndarray:
    """1-based index of each row within its (contiguous) segment."""
    return seg_cumsum(np.ones(len(seg), dtype=np.int64), seg)


def log_factorials(n: int) -> np.ndarray:
    """log(k!) for k = 0..n."""
    return np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))))

