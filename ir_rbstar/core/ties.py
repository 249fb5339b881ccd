"""Kernels of the tie-aware family (McSherry & Najork 2008) and of their tie-oblivious counterparts.

Input is a flat block of ranked rows: for every row its query (0..n-1, rows of a query contiguous and
in rank order), its 0-based position, and the tie group it belongs to (groups are contiguous runs of
equal score; :class:`TieGroups`). Every expectation over the orderings of the tie groups is computed
in closed form with whole-array operations: linear measures (P, R, F1, DCG, RBP) per group, AP per
group that holds a relevant document, RR per position of the first such group of each query. The
variance over the orderings of a linear measure is also a sum over groups (``variance_weighted``).

The tie-oblivious kernels (``*_ordered``) take the rows in trec_eval order and are the plain
definitions; they serve ir_measures' own ``P``, ``R``, ``AP``, ``RR``, ``nDCG`` and ``RBP`` when this
package's provider is chosen explicitly, and are the baseline of the speed comparison.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .segments import log_factorials, seg_cumcount

__all__ = ["TieGroups", "make_groups", "RelevantGroups", "relevant_groups", "expected_weighted",
           "variance_weighted", "expected_ap", "expected_rr",
           "weighted_ordered", "ap_ordered", "rr_ordered", "discount_cum", "ideal_dcg", "rbp_cum",
           "safe_divide"]


@dataclass
class TieGroups:
    n: int                # number of queries
    gid: np.ndarray       # tie group of each row (groups numbered in row order)
    gseg: np.ndarray      # query of each group
    gstart: np.ndarray    # 0-based position of each group's first row
    gsize: np.ndarray     # number of rows of each group
    untied: bool = False  # every group is one row (gid = 0, 1, 2, ...)
    # the ends of each cutoff asked (init=False: a copy by dataclasses.replace starts with its own, empty)
    _ends: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def end(self, k: Optional[int]) -> np.ndarray:
        """The end (0-based, exclusive) of each group's positions within the top k (all for None)."""
        if k not in self._ends:
            end = self.gstart + self.gsize
            if k is not None:
                np.minimum(end, k, out=end)
                np.maximum(end, self.gstart, out=end)
            self._ends[k] = end
        return self._ends[k]


def make_groups(seg: np.ndarray, pos: np.ndarray, start: np.ndarray, size: np.ndarray, n: int) -> TieGroups:
    """Groups from per-row (group start, group size); rows of one group must be contiguous."""
    if int(size.max(initial=1)) == 1:                # no tie: each row its own group
        return TieGroups(n=n, gid=np.arange(len(seg)), gseg=seg, gstart=start, gsize=size, untied=True)
    first = pos == start
    gid = first.cumsum() - 1
    at = first.nonzero()[0]
    return TieGroups(n=n, gid=gid, gseg=seg[at], gstart=start[at], gsize=size[at])


def _group_sum(groups: TieGroups, values: np.ndarray) -> np.ndarray:
    return np.bincount(groups.gid, weights=values, minlength=len(groups.gstart))      # float64


def expected_weighted(groups: TieGroups, gain: np.ndarray, cum: Optional[Callable[[np.ndarray], np.ndarray]],
                      k: Optional[int]) -> np.ndarray:
    """Per query, the mean over tie orders of sum_{j <= k} gain(v_j) w(j), where ``cum(m)`` is
    sum_{j=1..m} w(j) (None: w = 1, cum(m) = m): each position of a group gets the group's mean gain."""
    end = groups.end(k)
    if cum is None:                      # the positions of each group within k (a float64 of an integer)
        span = (end - groups.gstart).astype(np.float64)
    else:
        span = cum(end) - cum(groups.gstart)
    if groups.untied:
        # a group's sum is its row's gain (bincount's 0.0 + g differs from g only for g = -0.0, and a -0.0
        # share leaves the query's sum as it is) and its size 1
        share = gain * span
    else:
        share = _group_sum(groups, gain) / groups.gsize * span
    return np.bincount(groups.gseg, weights=share, minlength=groups.n)


def _centred_squares(groups: TieGroups, values: np.ndarray) -> np.ndarray:
    """Per group, sum over its rows of (value - the group's mean value)^2."""
    mean = _group_sum(groups, values) / groups.gsize
    dev = values - mean[groups.gid]
    return _group_sum(groups, dev * dev)


def variance_weighted(groups: TieGroups, gain: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Per query, the variance over the uniformly random orders of its tie groups of sum_j gain(v_j) w(j),
    where ``weight`` gives each row the weight w of the position it holds in the rows' order (0 beyond a
    cutoff); every row of each group must be among the rows.

    In a group of g rows with gains a_1..a_g at positions of weights c_1..c_g, a random order gives
    S = sum_i a_pi(i) c_i; each a_pi(i) has variance s2 = sum_i (a_i - mean a)^2 / g and two of them
    covariance -s2/(g-1), so Var S = s2 (sum c^2 - ((sum c)^2 - sum c^2)/(g-1)) = sum_i (a_i - mean a)^2
    sum_i (c_i - mean c)^2 / (g-1) (0 for g = 1). The groups are ordered independently, so the
    variances of a query's groups add up."""
    spread = _centred_squares(groups, gain) * _centred_squares(groups, weight)
    var = np.zeros(len(groups.gsize))
    np.divide(spread, groups.gsize - 1.0, out=var, where=groups.gsize > 1)
    return np.bincount(groups.gseg, weights=var, minlength=groups.n).astype(np.float64, copy=False)


@dataclass
class RelevantGroups:
    """The tie groups that hold at least one relevant document (AP and RR need no others)."""

    n: int                # number of queries
    gseg: np.ndarray      # query of each group (groups in rank order)
    gstart: np.ndarray    # 0-based position of each group's first row
    gsize: np.ndarray     # number of rows of each group
    r: np.ndarray         # number of relevant rows of each group
    before: np.ndarray    # number of relevant rows of its query above each group
    untied: bool = False  # every group is one row (r = gsize = 1)


def relevant_groups(seg: np.ndarray, start: np.ndarray, size: np.ndarray, rel: np.ndarray, n: int) -> RelevantGroups:
    """From ranked rows (per row: query, tie-group start, tie-group size) and their relevance; every row
    of a group with a relevant row must be among the rows."""
    idx = rel.nonzero()[0]
    m = len(idx)
    s, t, sz = seg[idx], start[idx], size[idx]
    if int(sz.max(initial=1)) == 1:                   # no relevant row is tied: each its own group
        first = np.arange(m)
        return RelevantGroups(n=n, gseg=s, gstart=t, gsize=sz, r=np.ones(m, dtype=first.dtype),
                              before=first - s.searchsorted(s), untied=True)
    new = np.empty(m + 1, dtype=bool)                 # a group starts at each True (the last: the end)
    new[0] = new[m] = True
    np.not_equal(s[1:], s[:-1], out=new[1:m])
    new[1:m] |= t[1:] != t[:-1]
    bound = new.nonzero()[0]
    first = bound[:-1]
    gseg = s[first]
    # the relevant rows above a group: its first relevant row's index less that of its query's first one
    before = first - s.searchsorted(gseg)
    return RelevantGroups(n=n, gseg=gseg, gstart=t[first], gsize=sz[first], r=bound[1:] - first,
                          before=before)


class _Prefix:
    """A table t[0..m] whose entries do not depend on m (running sums, computed in order), made once for
    the largest m asked so far and handed out as read-only views of its first m + 1 entries. Only up to
    :attr:`KEEP` entries are kept for the life of the process: a larger m (e.g. a user's cutoff of
    millions) gets a table of its own, the same doubles, not kept."""

    #: the most entries kept per table (8 MB of doubles)
    KEEP = 1 << 20

    def __init__(self, make: Callable[[int], tuple]):
        self.make = make
        self.tables: tuple = ()

    def __call__(self, m: int) -> tuple:
        if m >= self.KEEP:
            return self.make(m)
        tables = self.tables
        if not tables or len(tables[0]) <= m:
            tables = self.make(min(max(m, 2 * len(tables[0]) if tables else 0, 64), self.KEEP - 1))
            for a in tables:
                a.flags.writeable = False
            self.tables = tables
        return tuple(a[:m + 1] for a in tables)


def _make_harmonic(m: int) -> tuple:
    h = np.zeros(m + 1)
    h[1:] = np.cumsum(1.0 / np.arange(1, m + 1, dtype=np.float64))
    return (h,)


def _make_discount(m: int) -> tuple:
    w = np.zeros(m + 1)
    w[1:] = 1.0 / np.log2(np.arange(2, m + 2, dtype=np.float64))
    return w, np.cumsum(w)


_harmonic_table = _Prefix(_make_harmonic)
_discount_table = _Prefix(_make_discount)


def _harmonic(m: int) -> np.ndarray:
    """H[i] = sum_{j=1..i} 1/j for i = 0..m (read-only)."""
    return _harmonic_table(m)[0]


def expected_ap(groups: RelevantGroups, k: Optional[int], num_rel: np.ndarray) -> np.ndarray:
    """Tie-aware AP (McSherry & Najork 2008, section 2.4) per query; ``num_rel`` is the number of relevant documents
    of each query in the qrels (AP is 0 where it is 0).

    Position j of a group (positions t+1..t+n, r relevant, ``before`` relevant above it) adds
    (r/n)(before + 1 + (j-t-1)(r-1)/(n-1)) / j; summed over j = t+1..e (e = min(t+n, k)) this is
    a (H_e - H_t) + b ((e - t) - (t+1)(H_e - H_t)) with a = (r/n)(before+1), b = (r/n)(r-1)/(n-1) and
    H the harmonic numbers, so the cost is one term per group with a relevant document."""
    # (integer counts: every operation with a float64 converts them exactly, as astype(float64) would)
    r, size, t = groups.r, groups.gsize, groups.gstart
    before = groups.before                                    # relevant documents above each group
    end = t + size
    span = size                                               # positions of each group within k
    if k is not None:
        end = np.maximum(np.minimum(end, k), t)
        span = end - t
    h = _harmonic(int(end.max(initial=0)))
    dh = h[end] - h[t]
    if groups.untied:
        # r = n = 1: a = before + 1 and b = 0, so b (...) is +-0.0 and adding it leaves a dh as it is
        share = (before + 1) * dh
        return safe_divide(np.bincount(groups.gseg, weights=share, minlength=groups.n), num_rel)
    share = r / size
    a = share * (before + 1)
    # (r/n)(r-1)/(n-1), 0 for n = 1 (then r = 1: the numerator is 0 and the divisor is kept at 1)
    b = share * (r - 1) / np.maximum(size - 1, 1)
    share = a * dh + b * (span - (t + 1) * dh)
    total = np.bincount(groups.gseg, weights=share, minlength=groups.n)
    return safe_divide(total, num_rel)


def expected_rr(groups: RelevantGroups, k: Optional[int]) -> np.ndarray:
    """Tie-aware RR (McSherry & Najork 2008, section 2.5) per query. In the first group with a relevant document
    (n rows, r relevant) the first relevant one is at offset x (1-based) with probability
    C(n-x, r-1) / C(n, r)."""
    if len(groups.r) == 0:
        return np.zeros(groups.n)
    qs = groups.gseg
    new = np.empty(len(qs), dtype=bool)
    new[0] = True
    np.not_equal(qs[1:], qs[:-1], out=new[1:])
    first = new.nonzero()[0]
    t, size, r = groups.gstart[first], groups.gsize[first], groups.r[first]
    span = size if k is None else np.clip(k - t, 0, size)    # positions of the group within the cutoff
    g = np.repeat(np.arange(len(first)), span)
    x = np.arange(len(g)) - np.repeat(np.cumsum(span) - span, span) + 1
    size_g, r_g = size[g], r[g]
    lf = log_factorials(int(size.max(initial=1)))
    a, b = size_g - x, r_g - 1
    ok = a >= b
    a_ok, b_ok = np.where(ok, a, 0), np.where(ok, b, 0)
    log_p = (lf[a_ok] - lf[b_ok] - lf[a_ok - b_ok]) - (lf[size_g] - lf[r_g] - lf[size_g - r_g])
    prob = np.where(ok, np.exp(log_p), 0.0)
    return np.bincount(qs[first][g], weights=prob / (t[g] + x), minlength=groups.n).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# tie-oblivious (trec_eval order)

def weighted_ordered(seg: np.ndarray, pos: np.ndarray, gain: np.ndarray, weight: np.ndarray, n: int,
                     k: Optional[int]) -> np.ndarray:
    """Per query sum_{j <= k} gain(v_j) w(j); ``weight[j]`` = w(j) for 1-based j."""
    keep = pos < k if k is not None else slice(None)
    return np.bincount(seg[keep], weights=gain[keep] * weight[pos[keep] + 1], minlength=n).astype(np.float64)


def ap_ordered(seg: np.ndarray, pos: np.ndarray, rel: np.ndarray, n: int, k: Optional[int],
               num_rel: np.ndarray) -> np.ndarray:
    keep = rel if k is None else rel & (pos < k)
    s = seg[keep]
    hits = seg_cumcount(s)                                    # relevant documents so far, this one included
    total = np.bincount(s, weights=hits / (pos[keep] + 1.0), minlength=n)
    return safe_divide(total, num_rel)


def rr_ordered(seg: np.ndarray, pos: np.ndarray, rel: np.ndarray, n: int, k: Optional[int]) -> np.ndarray:
    keep = rel if k is None else rel & (pos < k)
    s, p = seg[keep], pos[keep]
    first = np.r_[True, s[1:] != s[:-1]] if len(s) else np.zeros(0, dtype=bool)
    out = np.zeros(n)
    out[s[first]] = 1.0 / (p[first] + 1.0)
    return out


# ---------------------------------------------------------------------------------------------
# weights, ideal rankings

def discount_cum(m: int):
    """(w, cum) for the log2 discount: w[j] = 1/log2(j+1) and cum[m] = sum_{j<=m} w[j], j = 0..m
    (read-only)."""
    return _discount_table(m)


def rbp_cum(p: float) -> Callable[[np.ndarray], np.ndarray]:
    """cum(m) = sum_{j=1..m} (1-p) p^(j-1) = 1 - p^m."""
    return lambda m: 1.0 - np.power(p, m.astype(np.float64))


def ideal_dcg(qidx: np.ndarray, gains: np.ndarray, n: int, k: Optional[int]) -> np.ndarray:
    """Per query the DCG@k of its judged documents sorted by gain (positive gains only)."""
    keep = gains > 0
    q, g = qidx[keep], gains[keep]
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    pos = seg_cumcount(q) - 1
    if k is not None:
        q, g, pos = q[pos < k], g[pos < k], pos[pos < k]
    return np.bincount(q, weights=g / np.log2(pos + 2.0), minlength=n)


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den where den > 0, else 0."""
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(len(num))
    np.divide(num, den, out=out, where=den > 0)
    return out
