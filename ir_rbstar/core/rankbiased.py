"""Numeric kernels of the rank-biased family (Moffat, Mackenzie, Mallia, Petri, SIGIR-AP 2024).

Pure numpy over flat arrays: every row carries the index ``seg`` of its query (0..n-1), and the
result of a kernel is one value per query. Ranks are 1-based. Nothing here reads files or knows
about ir_measures; the provider prepares the arrays.

Notation: B is the observation (the run, ``@k`` applied), R the reference ranking. Position ``i`` of
a ranking has weight ``w(i) = (1-p) p^(i-1)``. A tie group of R occupies positions
``start+1 .. start+size``; every quantity is the expectation over a uniformly random order of each
tie group (for RBR this is the paper's "equal share of the group's weight").
"""
from __future__ import annotations

import functools
import math
from typing import Callable, Dict, Optional

import numpy as np

from .segments import log_factorials, seg_cumcount, seg_cumsum, seg_sum

__all__ = [
    "powers", "rank_weights", "rank_weights_at", "rbp_residual", "shared_weight", "half_power_mean",
    "rbr_residual", "rba",
    "rba_residual", "rbo_family", "rbo_finish", "rbo_residual", "rbo_tables",
    "rbo_upper_open", "rbo_upper_from_profile", "rbr_residual_open", "rba_residual_open",
]


def powers(p: float, exponent: np.ndarray, shift: int = 0, scale: float = 1.0) -> np.ndarray:
    """``scale * p ** (exponent + shift)`` element by element; for integer exponents (ranks, depths) each
    distinct power is computed once, over the range present, and gathered: far fewer calls to ``pow``
    (and fewer full-length temporaries) on runs of millions of rows. The numbers are those of ``pow``."""
    exponent = np.asarray(exponent)
    if exponent.dtype.kind in "iu" and len(exponent):
        top = int(exponent.max())
        if exponent.min() >= 0 and top <= 2 * len(exponent) + 1024:
            return (scale * np.power(p, np.arange(shift, top + shift + 1, dtype=np.float64)))[exponent]
    return scale * np.power(p, exponent.astype(np.float64) + shift)


def rank_weights(rank: np.ndarray, p: float) -> np.ndarray:
    """RBP's weight of each 1-based rank: (1-p) p^(rank-1)."""
    return powers(p, rank, shift=-1, scale=1.0 - p)


def rank_weights_at(rank: np.ndarray, p: float, top: int) -> np.ndarray:
    """:func:`rank_weights` of the ranks ``rank`` of some rows of rows whose largest rank is ``top``: the
    same table of powers as :func:`rank_weights` makes for the whole column (so the same doubles), gathered
    at these rows only (no full-length column when a measure reads few rows)."""
    return powers(p, np.arange(1, top + 1, dtype=np.int64), shift=-1, scale=1.0 - p)[rank - 1]


def rbp_residual(unjudged: np.ndarray, weight: np.ndarray, seg: np.ndarray, n: int, depth: np.ndarray,
                 p: float) -> np.ndarray:
    """RBP residual: weight of unjudged positions within the evaluated depth plus the tail p^depth."""
    return seg_sum(np.where(unjudged, weight, 0.0), seg, n) + powers(p, depth)


def shared_weight(start: np.ndarray, size: np.ndarray, p: float) -> np.ndarray:
    """Mean of w(j) over the positions j = start+1 .. start+size of a tie group.

    sum_{j=start+1}^{start+size} (1-p) p^(j-1) = p^start (1 - p^size), shared by `size` items.
    """
    size = size.astype(np.float64)
    return np.power(p, start.astype(np.float64)) * -np.expm1(size * math.log(p)) / size


def half_power_mean(start: np.ndarray, size: np.ndarray, p: float) -> np.ndarray:
    """E[p^(j/2)] for j uniform over the positions start+1 .. start+size of a tie group."""
    q = math.sqrt(p)
    size = size.astype(np.float64)
    return np.power(q, start + 1.0) * (-np.expm1(size * math.log(q))) / ((1.0 - q) * size)


def rbr_residual(ref_len: np.ndarray, n_unknown: np.ndarray, p: float) -> np.ndarray:
    """Eq. 9: (1-p)/p sum_{i=1..b} p^(|R|+i) = p^|R| (1 - p^b)."""
    return np.power(p, ref_len.astype(np.float64)) * -np.expm1(n_unknown * math.log(p))


def rba(b_rank: np.ndarray, h_ref: np.ndarray, seg: np.ndarray, n: int, p: float) -> np.ndarray:
    """Eq. 11 over the items of B found in R: (1-p)/p p^(rank_B/2) E[p^(rank_R/2)]."""
    return seg_sum((1.0 - p) / p * np.power(p, b_rank / 2.0) * h_ref, seg, n)


def rba_residual(n: int, p: float, len_b: np.ndarray, len_r: np.ndarray, n_common: np.ndarray,
                 unk_rank: np.ndarray, unk_seg: np.ndarray,
                 grp_seg: np.ndarray, grp_start: np.ndarray, grp_size: np.ndarray,
                 grp_missing: np.ndarray) -> np.ndarray:
    """Algorithm 1's ``extra + p^|B ∪ R|``.

    unk_rank/unk_seg: B-ranks of the unknown items of B (in B order within each query).
    grp_*: every tie group of R in R order within each query, with ``grp_missing`` = how many of its
    items are not in B. Those items take B positions |B|+1, |B|+2, ... in R order; with ties the
    expectation over the group's random order is taken exactly (order statistics, see
    :func:`_expected_pair_sum`).
    """
    q = math.sqrt(p)
    c = (1.0 - p) / p
    # items of B that R does not know: R positions |R|+1, |R|+2, ... in B order
    t = len_r[unk_seg] + seg_cumcount(unk_seg)
    extra = seg_sum(c * np.power(q, unk_rank + t), unk_seg, n)
    # items of R that are not in B: B positions |B|+1, ... in R order
    before = seg_cumsum_exclusive(grp_missing, grp_seg)
    base_exp = len_b[grp_seg] + before + grp_start
    tsum = _expected_pair_sum(grp_size, grp_missing, q)
    extra += seg_sum(c * np.power(q, base_exp.astype(np.float64)) * tsum, grp_seg, n)
    union = len_b + len_r - n_common
    return extra + np.power(p, union.astype(np.float64))


def seg_cumsum_exclusive(values: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Sum of `values` over the earlier rows of the same segment (rows grouped by segment)."""
    inclusive = seg_cumsum(values, seg)
    return inclusive - values


def _expected_pair_sum(g: np.ndarray, m: np.ndarray, q: float, batch: int = 2_000_000) -> np.ndarray:
    """T(g, m) = E[ sum_{i=1..m} q^(i + X_(i)) ] for X_(1) < ... < X_(m) a uniform m-subset of {1..g}.

    Closed forms for m = 0 and m = g; otherwise the exact order-statistic distribution
    P(X_(i) = x) = C(x-1, i-1) C(g-x, m-i) / C(g, m), evaluated for all (i, x) pairs in batches.
    """
    g = g.astype(np.int64)
    m = m.astype(np.int64)
    out = np.zeros(len(g), dtype=np.float64)
    full = (m == g) & (m > 0)
    # all positions of the group are taken: X_(i) = i
    q2 = q * q
    out[full] = q2 * (-np.expm1(g[full] * math.log(q2))) / (1.0 - q2)
    part = np.flatnonzero((m > 0) & (m < g))
    if len(part) == 0:
        return out
    lf = log_factorials(int(g[part].max()) + 1)
    width = g[part] - m[part] + 1
    cnt = m[part] * width
    start = 0
    while start < len(part):
        csum = np.cumsum(cnt[start:])
        stop = start + max(1, int(np.searchsorted(csum, batch, side="right")))
        idx = np.arange(start, stop)
        ci = cnt[idx]
        k = np.repeat(np.arange(len(idx)), ci)
        within = np.arange(int(ci.sum())) - np.repeat(np.cumsum(ci) - ci, ci)
        wk = width[idx][k]
        i = within // wk + 1
        x = i + within % wk
        gg, mm = g[part][idx][k], m[part][idx][k]
        logp = (lf[x - 1] - lf[i - 1] - lf[x - i]) + (lf[gg - x] - lf[mm - i] - lf[gg - x - mm + i]) \
            - (lf[gg] - lf[mm] - lf[gg - mm])
        vals = np.exp(logp + (i + x) * math.log(q))
        out[part[idx]] = np.bincount(k, weights=vals, minlength=len(idx))
        start = stop
    return out


#: tables of rankings up to this length are kept (read-only) for the next evaluation with the same p: 3 x 8 x
#: (2 x 4,096 + 3) bytes at most a table set; a small run's RBO call (100 documents a query) spent about 40 us
#: of its 1.5 ms making the same tables again
TABLES_KEPT_UP_TO = 4096


def kept_tables(make):
    """``make(p, lmax)`` whose arrays are made once for each (p, lmax) with lmax <= :data:`TABLES_KEPT_UP_TO` (the
    last 32 kept), read-only, and made anew (writable) for longer rankings."""
    kept = functools.lru_cache(maxsize=32)(lambda p, lmax: tuple(_read_only(a) for a in make(p, lmax)))

    @functools.wraps(make)
    def tables(p: float, lmax: int):
        return kept(float(p), int(lmax)) if lmax <= TABLES_KEPT_UP_TO else make(p, lmax)
    return tables


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@kept_tables
def rbo_tables(p: float, lmax: int):
    """p^d, H[d] = sum_{j<=d} p^j / j and G[d] = sum_{j<=d} p^j for d = 0 .. 2 lmax + 2."""
    pw = np.power(p, np.arange(2 * lmax + 3, dtype=np.float64))      # p^d
    dd = np.arange(1, 2 * lmax + 3, dtype=np.float64)
    H = np.concatenate(([0.0], np.cumsum(pw[1:] / dd)))
    G = np.concatenate(([0.0], np.cumsum(pw[1:])))
    return pw, H, G


def rbo_family(n: int, p: float, len_b: np.ndarray, len_r: np.ndarray,
               com_seg: np.ndarray, com_rank_b: np.ndarray, com_start: np.ndarray,
               com_size: np.ndarray) -> Dict[str, np.ndarray]:
    """RBO (= RBO_min), RBO_res (= RBO_max - RBO_min) and RBO_ext (Webber et al. 2010, eq. 32).

    With X_d = E|B_{1..d} ∩ R_{1..d}| and l = max(|B|, |R|), s = min(|B|, |R|):
    RBO_min = (1-p)/p [sum_{d<=l} p^d X_d / d + X_l sum_{d>l} p^d / d]. A common item e (rank r_B in
    B, tie group start+1..start+size in R) contributes f_e(d) = 1[d >= r_B] clip((d - start)/size, 0, 1)
    to X_d, so sum_d p^d X_d / d is a sum over items of closed forms in the prefix sums
    H[d] = sum_{j<=d} p^j / j and G[d] = sum_{j<=d} p^j: no per-depth arrays are needed.
    """
    len_b = len_b.astype(np.int64)
    len_r = len_r.astype(np.int64)
    s = np.minimum(len_b, len_r)
    l = np.maximum(len_b, len_r)
    _, H, G = tables = rbo_tables(p, int(l.max(initial=0)))
    size = com_size.astype(np.int64, copy=False)       # (read only: no copy of what is int64 already)
    start = com_start.astype(np.int64, copy=False)
    d0 = np.maximum(com_rank_b.astype(np.int64, copy=False), start + 1)        # first depth where f_e > 0
    d1 = start + size                                               # f_e = 1 from here on
    l_e, s_e = l[com_seg], s[com_seg]
    ramp = d1 > d0
    # sum_{d<=l} p^d f_e(d) / d: a step at d0 (untied, or the group is complete by then) ...
    head_e = H[l_e] - H[d0 - 1]
    # ... or a ramp (d - start)/size on d0..d1, then 1
    if ramp.any():
        r0, r1, rs, rg = d0[ramp], d1[ramp], start[ramp], size[ramp].astype(np.float64)
        head_e[ramp] = ((G[r1] - G[r0 - 1]) - rs * (H[r1] - H[r0 - 1])) / rg + (H[l_e[ramp]] - H[r1])
    # f_e at depth s (for X_s)
    at_s = np.where(s_e >= d0, 1.0, 0.0)
    if ramp.any():
        in_ramp = ramp & (s_e >= d0) & (s_e < d1)
        at_s[in_ramp] = (s_e[in_ramp] - start[in_ramp]) / size[in_ramp]
    head = seg_sum(head_e, com_seg, n)                              # sum_{d<=l} p^d X_d / d
    x_l = np.bincount(com_seg, minlength=n).astype(np.float64)      # X_l = |B ∩ R|
    x_s = seg_sum(at_s, com_seg, n)
    return rbo_finish(p, s, l, head, x_l, x_s, tables)


def rbo_finish(p: float, s: np.ndarray, l: np.ndarray, head: np.ndarray, x_l: np.ndarray, x_s: np.ndarray,
               tables, residual: bool = True, finish_step: Optional[Callable] = None) -> Dict[str, np.ndarray]:
    """RBO, RBO_res and RBO_ext of each query from s = min(|B|, |R|), l = max(|B|, |R|) and the sums
    over the shared documents: ``head`` = sum_{d<=l} p^d X_d / d, ``x_l`` = X_l, ``x_s`` = X_s
    (RBO_res only with ``residual``: it needs the overlap X_l as a whole number). ``finish_step``: the C
    extension's ``rbo_finish`` (:func:`.io.dictscan.rbo_finish_step`), which computes RBO and RBO_ext by the same
    operations (tests/families/test_rbo_finish.py holds them equal bit for bit)."""
    pw, H, G = tables
    n = len(s)
    L_inf = -math.log1p(-p)                                         # sum_{j>=1} p^j / j
    c = (1.0 - p) / p
    if finish_step is not None:         # the C extension's pass: the same operations, one query at a time
        got = finish_step(c, L_inf, *(np.ascontiguousarray(a, dtype=np.int64) for a in (s, l)),
                          *(np.ascontiguousarray(a, dtype=np.float64) for a in (head, x_l, x_s, pw, H, G)))
        out = {"RBO": np.frombuffer(got[0]), "RBO_ext": np.frombuffer(got[1])}
        if residual:
            out["RBO_res"] = rbo_residual(p, s, l, x_l.astype(np.int64), tables)
        return out
    rbo_min = c * (head + x_l * (L_inf - H[l]))
    # extrapolation (eq. 32), unequal lengths allowed
    frac_s = np.divide(x_s, s, out=np.zeros(n), where=s > 0)
    mid = (G[l] - G[s]) - s * (H[l] - H[s])                         # sum_{s<d<=l} p^d (d-s)/d
    frac_l = np.divide(x_l - x_s, l, out=np.zeros(n), where=l > 0)
    rbo_ext = np.where(l > 0, c * (head + frac_s * mid) + (frac_l + frac_s) * pw[l], 0.0)
    out = {"RBO": rbo_min, "RBO_ext": rbo_ext}
    if residual:
        out["RBO_res"] = rbo_residual(p, s, l, x_l.astype(np.int64), tables)
    return out


def rbo_residual(p: float, s: np.ndarray, l: np.ndarray, x_l: np.ndarray, tables) -> np.ndarray:
    """RBO_max - RBO_min: the largest possible increase over all extensions of both lists, from the
    lengths and the whole-number overlap x_l = |B ∩ R|. With a = X_l + (l - s):
    X^max_d = X_d + (d - s) for s < d <= l, a + 2(d - l) for l < d < 2l - a, d after."""
    _, H, G = tables
    L_inf = -math.log1p(-p)
    mid = (G[l] - G[s]) - s * (H[l] - H[s])
    a = x_l + (l - s)
    D = np.maximum(2 * l - a, l + 1)
    ramp_hi = D - 1
    res = mid
    res = res + 2.0 * (G[ramp_hi] - G[l]) - (l + s) * (H[ramp_hi] - H[l])
    res = res + np.power(p, D.astype(np.float64)) / (1.0 - p) - x_l * (L_inf - H[D - 1])
    # (tiny negative values can only come from rounding: the residual is a sum of non-negative terms)
    return np.maximum((1.0 - p) / p * res, 0.0)


# ---------------------------------------------------------------------------------------------
# Residuals when the reference is derived from the qrels ("open" references)
#
# A qrels-derived reference R holds the judged documents with grade >= rel, by grade. Judging an
# unjudged document of the run does not append it after R's end (the assumption behind eq. 9 and
# Algorithm 1, true for a run reference) but inserts it by grade: possibly at the top, possibly into a
# tie group. The completions covered here: every unjudged document of B takes any grade (those
# reaching rel enter R by grade, equal grades tied), and, for RBA and RBO, B may go on after its end
# with any documents; documents in neither B nor the qrels stay not relevant.

def rbr_residual_open(value: np.ndarray, n_unknown: np.ndarray, p: float) -> np.ndarray:
    """RBR_res for a qrels-derived reference: (1 - p^b) (1 - RBR), b unjudged documents in B.

    Inserting a document of B into R at position j adds w(j) and shifts the documents below by one,
    which costs them at most sum_{i>=j} (1-p) w(i) = w(j); so RBR never decreases (with ties: the same
    for every order of the ties, hence for their mean), and moving an inserted document up never
    decreases it either. The largest RBR therefore puts the b unjudged documents above every judged
    one: they take weight 1 - p^b, and every document of R keeps p^b of its weight."""
    return -np.expm1(n_unknown * math.log(p)) * (1.0 - value)


def rba_residual_open(n: int, p: float, len_b: np.ndarray, unk_rank: np.ndarray, unk_seg: np.ndarray) -> np.ndarray:
    """RBA_res for a qrels-derived reference: (1-p)/p sum_i p^((a_i + i)/2) + p^((|B| + u)/2).

    a_1 < ... < a_u are the B-ranks of the u unjudged documents of B. A document of B ∩ R can only be
    pushed down in R (its term cannot grow); the unjudged documents of B and whatever follows B's end
    take distinct positions of R, so by the rearrangement inequality their terms are at most those of
    the i-th of them (in B order) at R position i: the sum above, whose last part is the continuation
    (B positions |B|+t at R positions u+t). (RBA never exceeds 1, by the same inequality over all
    documents: callers take the smaller of this and 1 - RBA.)"""
    q = math.sqrt(p)
    c = (1.0 - p) / p
    i = seg_cumcount(unk_seg).astype(np.float64)
    extra = seg_sum(c * np.power(q, unk_rank + i), unk_seg, n)
    u = np.bincount(unk_seg, minlength=n)
    return extra + np.power(q, (len_b + u).astype(np.float64))


def rbo_upper_open(n: int, p: float, len_b: np.ndarray, len_r: np.ndarray,
                   com_seg: np.ndarray, com_rank_b: np.ndarray, com_start: np.ndarray, com_size: np.ndarray,
                   unk_seg: np.ndarray, unk_rank: np.ndarray) -> np.ndarray:
    """An upper bound of RBO for a qrels-derived reference: (1-p)/p sum_d p^d X^max_d / d with
    X^max_d = min(d, X_d + U_d + max(0, d - |B|)).

    X_d is the (expected) overlap of the documents of B ∩ R at depth d, which insertions into R can only
    lower; U_d counts the unjudged documents among B's first d (each may enter R at its top); past B's
    end every further document of B may be new and relevant. Per-depth arrays of max(|B|, |R|) + 1
    entries per query (the rows of the longer list); beyond that depth the sum has a closed form."""
    len_b = len_b.astype(np.int64)
    l = np.maximum(len_b, len_r.astype(np.int64))
    slots = l + 1                                        # depths 1 .. l + 1 (the last holds range ends)
    base = np.cumsum(slots) - slots
    total = int(slots.sum())
    step = np.zeros(total)                               # X_d - X_{d-1}: point values
    ramp = np.zeros(total + 1)                           # slopes of the tie ramps, as differences
    start = com_start.astype(np.int64)
    size = com_size.astype(np.int64)
    d0 = np.maximum(com_rank_b.astype(np.int64), start + 1)
    d1 = start + size
    at0 = np.minimum((d0 - start) / size, 1.0)
    np.add.at(step, base[com_seg] + d0 - 1, at0)
    has = d1 > d0
    inv = 1.0 / size[has]
    np.add.at(ramp, base[com_seg[has]] + d0[has], inv)          # slope on d0+1 .. d1
    np.add.at(ramp, base[com_seg[has]] + d1[has], -inv)
    step += np.cumsum(ramp[:-1])
    np.add.at(step, base[unk_seg] + unk_rank.astype(np.int64) - 1, 1.0)
    seg = np.repeat(np.arange(n), slots)
    reach = seg_cumsum(step, seg) if total else step             # X_d + U_d
    return rbo_upper_from_profile(n, p, len_b, l, slots, reach)


def rbo_upper_from_profile(n: int, p: float, len_b: np.ndarray, l: np.ndarray, slots: np.ndarray,
                           reach: np.ndarray) -> np.ndarray:
    """:func:`rbo_upper_open` from X_d + U_d for d = 1 .. l + 1 of every query (``slots`` = l + 1 values
    per query, query after query)."""
    pw, H, G = rbo_tables(p, int(l.max(initial=0)))
    base = np.cumsum(slots) - slots
    total = int(slots.sum())
    seg = np.repeat(np.arange(n), slots)
    d = np.arange(total) - np.repeat(base, slots) + 1
    beyond = np.maximum(d - len_b[seg], 0)
    x_max = np.minimum(d, reach + beyond)
    keep = d <= l[seg]
    head = seg_sum(np.where(keep, pw[np.minimum(d, len(pw) - 1)] * x_max / d, 0.0), seg, n)
    # past depth l: X^max_d = d - N, N = |B| - (X_l + U): the judged non-relevant documents of B
    at_l = np.zeros(n)
    last = base + l - 1
    ok = l > 0
    at_l[ok] = reach[last[ok]]
    short = len_b - at_l
    g_inf, h_inf = p / (1.0 - p), -math.log1p(-p)
    tail = (g_inf - G[l]) - short * (h_inf - H[l])
    return (1.0 - p) / p * (head + tail)
