"""What both MED searches and the closed-form MED share: the two lists of a direction (:class:`Side`),
their dense per-query matrices (:class:`Dense`), the per-row ERR and AP of dense values, the closed form
of the dot-product measures, and the result of a search (:class:`Searched`). See :mod:`ir_rbstar.core.med`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Side", "Dense", "Searched", "dot_direction", "dense", "err_rows", "ap_rows", "stack_directions",
           "finish_search", "TOL"]

TOL = 1e-12

@dataclass
class Side:
    """One list (A or B) of every query: flat rows, contiguous per query, in rank order."""

    seg: np.ndarray       # query of each row
    pos: np.ndarray       # 1-based rank
    value: np.ndarray     # the judged value (gain) of the row's document; NaN when unjudged
    partner: np.ndarray   # 1-based rank of the same document in the other list (0: not there)
    lens: np.ndarray      # rows per query

    @property
    def judged(self) -> np.ndarray:
        return ~np.isnan(self.value)

    @property
    def bound(self) -> np.ndarray:
        return (self.partner > 0) & np.isnan(self.value)


def dot_direction(up: Side, down: Side, disc, tail: np.ndarray, top: float, n: int) -> np.ndarray:
    """max (C_up . D - C_down . D) per query (not normalised), for a discount ``disc(rank)``.

    ``tail`` is, per query, the sum of the discounts after ``up``'s last row (free filler positions)."""
    # the discount of each rank once (a run's rows repeat the same few hundred ranks over every query):
    # disc works element by element, so a table of its values gives each row the same number
    deepest = max(int(up.pos.max(initial=0)), int(down.pos.max(initial=0)))
    table = disc(np.arange(1, deepest + 1, dtype=up.pos.dtype))
    d_up = table[up.pos - 1]
    judged = up.judged
    # (judgment-free: no judged row, every row's gain is top x its discount, as np.where would give it)
    gain = np.where(judged, np.nan_to_num(up.value) * d_up, top * d_up) if judged.any() else top * d_up
    # = up.bound, as row numbers: a boolean mask indexes three times, each pass over every row (about half
    # of them are bound against a full-depth reference), the row numbers once (7.6 -> 2.7 ms on 249k rows)
    bound = np.flatnonzero((up.partner > 0) & ~judged)
    gain[bound] = top * np.maximum(0.0, d_up[bound] - table[up.partner[bound] - 1])
    dj = np.flatnonzero(down.judged)
    lost = np.bincount(down.seg[dj], weights=down.value[dj] * table[down.pos[dj] - 1], minlength=n)
    return np.bincount(up.seg, weights=gain, minlength=n) + top * tail - lost


@dataclass
class Dense:
    """One direction of every query pair as dense (query x depth) matrices (position i at column i-1)."""

    fa: np.ndarray   # values of ``up``: judged value, r_G for free and filler positions, 0 at bound ones
    fb: np.ndarray   # values of ``down``: judged value, 0 otherwise
    va: np.ndarray   # variable of each ``up`` position (-1: none)
    vb: np.ndarray   # variable of each ``down`` position (-1: none)
    m: np.ndarray    # number of variables per query
    top: float

    @property
    def M(self) -> int:
        """The largest number of variables of a query."""
        return int(self.m.max(initial=0))

    def gather_index(self, v: np.ndarray) -> np.ndarray:
        """``va`` / ``vb`` with -1 replaced by M: column M of an assignment matrix holds 0."""
        return np.where(v >= 0, v, self.M)


def dense(up: Side, down: Side, n: int, k: int, top: float) -> Dense:
    """Dense matrices of a direction; variables are numbered per query by their higher position."""
    fa = np.full((n, k), top)
    fb = np.zeros((n, k))
    judged, bound = up.judged, up.bound
    fa[up.seg, up.pos - 1] = np.where(judged, np.nan_to_num(up.value), np.where(bound, 0.0, top))
    dj = np.flatnonzero(down.judged)
    fb[down.seg[dj], down.pos[dj] - 1] = down.value[dj]
    va = np.full((n, k), -1, dtype=np.int64)
    vb = np.full((n, k), -1, dtype=np.int64)
    rows = np.flatnonzero(bound)
    seg, pa, pb = up.seg[rows], up.pos[rows], up.partner[rows]
    order = np.lexsort((np.maximum(pa, pb), np.minimum(pa, pb), seg))
    seg, pa, pb = seg[order], pa[order], pb[order]
    m = np.bincount(seg, minlength=n)
    var = np.arange(len(seg)) - np.repeat(np.cumsum(m) - m, m)
    va[seg, pa - 1] = var
    vb[seg, pb - 1] = var
    return Dense(fa, fb, va, vb, m, top)


def err_rows(v: np.ndarray) -> np.ndarray:
    """ERR (eq. 23) of each row of a (rows x depth) matrix of values in [0, 1]."""
    if v.shape[1] == 0:
        return np.zeros(v.shape[0])
    reach = np.empty_like(v)
    reach[:, 0] = 1.0
    np.cumprod(1.0 - v[:, :-1], axis=1, out=reach[:, 1:])
    # a sum along each row, not a matrix product: BLAS blocks rows, so a row's rounding would depend
    # on how many rows (queries, search nodes) are evaluated with it
    reach *= v
    reach /= np.arange(1, v.shape[1] + 1)
    return reach.sum(axis=1)


def ap_rows(v: np.ndarray) -> np.ndarray:
    """AP with R = k (eq. 19) of each row of a (rows x k) matrix of 0/1 values."""
    k = v.shape[1]
    if k == 0:
        return np.zeros(v.shape[0])
    terms = np.cumsum(v, axis=1)
    terms *= v
    terms /= np.arange(1, k + 1)                # summed row by row (see err_rows), not by BLAS
    return terms.sum(axis=1) / k


@dataclass
class Searched:
    """The result of searching both directions of every query pair (one row per query)."""

    value: np.ndarray    # the maximum (at least 0), or a certified upper bound of it where not ``exact``
    lower: np.ndarray    # a value attained by some assignment (at least 0): value - lower is the uncertainty
    exact: np.ndarray    # True where the search finished within its budget (value == lower)
    nodes: np.ndarray    # (queries x 2) nodes expanded in the directions (up = A, up = B)


def stack_directions(ab: Dense, ba: Dense) -> Dense:
    """Both directions of every query as one Dense: rows 0..n-1 are ``ab``, rows n..2n-1 ``ba``."""
    return Dense(np.vstack([ab.fa, ba.fa]), np.vstack([ab.fb, ba.fb]), np.vstack([ab.va, ba.va]),
                 np.vstack([ab.vb, ba.vb]), np.concatenate([ab.m, ba.m]), ab.top)


def finish_search(lower: np.ndarray, cut: np.ndarray, nodes: np.ndarray) -> Searched:
    """``cut``: per query and direction (queries x 2), the highest bound of the open nodes left when the
    budget stopped the direction (-inf: finished)."""
    cut = cut.max(axis=1)
    exact = ~(cut > lower + TOL)
    return Searched(np.where(exact, lower, np.maximum(lower, cut)), lower, exact, nodes)
