"""Segment primitives: per-query sums and running sums over flat arrays grouped by query."""
from __future__ import annotations

import numpy as np

__all__ = ["seg_sum", "seg_cumsum", "seg_cumcount", "log_factorials"]


def seg_sum(values: np.ndarray, seg: np.ndarray, n: int) -> np.ndarray:
    """Sum of `values` per segment index (0..n-1)."""
    return np.bincount(seg, weights=values, minlength=n).astype(np.float64, copy=False)


def seg_cumsum(values: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Running sum restarting at each segment; rows of a segment must be contiguous."""
    n = len(values)
    if n == 0:
        return values.copy()
    c = np.cumsum(values)
    cut = (seg[1:] != seg[:-1]).nonzero()[0] + 1       # the first row of each segment after the first
    m = len(cut)
    if m == 0:
        return c
    before = np.zeros(m + 1, dtype=c.dtype)            # the running sum before each segment
    before[1:] = c[cut - 1]
    lens = np.empty(m + 1, dtype=np.int64)
    lens[0] = cut[0]
    np.subtract(cut[1:], cut[:-1], out=lens[1:m])
    lens[m] = n - cut[-1]
    return c - np.repeat(before, lens)


def seg_cumcount(seg: np.ndarray) -> np.ndarray:
    """1-based index of each row within its (contiguous) segment."""
    return seg_cumsum(np.ones(len(seg), dtype=np.int64), seg)


def log_factorials(n: int) -> np.ndarray:
    """log(k!) for k = 0..n."""
    return np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))))

