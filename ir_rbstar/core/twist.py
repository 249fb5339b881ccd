"""Twist kernels (Ferro, Silvello, Keskustalo, Pirkola, Järvelin, JASIST 2016), on whole columns.

For one query the *recall base* RB is the number of judged documents with grade >= rel. The ideal run
holds them by grade descending, then the non-relevant documents; a relevant grade g occupies the
positions [lo(g), hi(g)] = [1 + #(grades > g), #(grades >= g)] of it, the non-relevant documents the
positions from RB + 1 on. The *relative position* of the document at position j of a run is

    RP[j] = j - lo(g)  if j < lo(g) (above its band),  j - hi(g)  if j > hi(g) (below),  0 otherwise,

and CRP is its running sum. Every function here works on the rows of many queries at once: rows are
grouped by query (``seg``, contiguous, ascending) and in rank order within each query.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Optional

import numpy as np

from ..errors import InputFormatError
from .segments import seg_cumsum, seg_sum

__all__ = ["Bands", "bands", "relative_positions", "TwistValues", "twist", "full_scale_space",
           "ARCHETYPES"]

#: the archetype names, in the order of their integer codes (Ferro et al. 2016, "Run Archetypes")
ARCHETYPES = ("ideal", "worst", "full_scale", "excellent", "up_and_down", "typical_a", "typical_b")
IDEAL, WORST, FULL_SCALE, EXCELLENT, UP_AND_DOWN, TYPICAL_A, TYPICAL_B = range(len(ARCHETYPES))


@dataclass
class Bands:
    """The relevant judgments of every query, sorted by (query, grade descending)."""

    keys: np.ndarray        # sorted key of each relevant judgment (query, then grade descending)
    base: np.ndarray        # recall base RB of each query
    top: int                # highest relevant grade
    span: int               # number of distinct grade values a key can hold per query
    sum_hi: np.ndarray      # per query, sum over its relevant documents of hi(grade)
    none: np.ndarray        # the queries with RB = 0 (indices)
    fs_minus: np.ndarray    # s- of each query's full-scale run, RB (RB + 1) / 2 (float64)
    fs_rest: np.ndarray     # s- less sum_hi: s+ of the full-scale run is RB (M - RB) + this
    band_lo: Optional[np.ndarray] = None    # lo(g) of every key (query, grade), when made: see :func:`bands`
    band_hi: Optional[np.ndarray] = None    # hi(g) of every key

    def key(self, seg: np.ndarray, grade: np.ndarray) -> np.ndarray:
        key = seg.astype(np.int64, copy=False) * self.span
        key += self.top
        key -= grade.astype(np.int64, copy=False)
        return key


def bands(q: np.ndarray, grades: np.ndarray, rel: int, n: int) -> Bands:
    """The grade bands of the ideal runs of queries 0..n-1 from their judgments (query index, grade)."""
    mine = grades >= rel
    q, g = q[mine].astype(np.int64), grades[mine].astype(np.int64)
    top = int(g.max(initial=rel))
    span = top - rel + 1
    if (n + 1) * span >= 2 ** 62:           # the keys (query, grade) are int64: refuse rather than wrap around
        raise InputFormatError(f"Twist: relevant grades from {rel} to {top} span {span} values; with {n} "
                               f"queries that exceeds what Twist's grade bands can index (grades beyond about "
                               f"2^62 / queries): use a grade scale of ordinary size")
    keys = np.sort(q * span + (top - g))
    base = np.bincount(q, minlength=n).astype(np.int64)
    rb = base.astype(np.float64)
    sum_hi = _sum_hi(keys, span, n)
    fs_minus = rb * (rb + 1.0) / 2.0
    b = Bands(keys=keys, base=base, top=top, span=span, sum_hi=sum_hi, none=(base == 0).nonzero()[0],
              fs_minus=fs_minus, fs_rest=fs_minus - sum_hi)
    if n * span <= 4 * len(keys) + 4096:     # every key's band, looked up by the rows (a few searches otherwise)
        every = np.arange(n * span, dtype=np.int64)
        b.band_lo, b.band_hi = _band(b, every // span, every)
    return b


def _band(b: Bands, s: np.ndarray, key: np.ndarray):
    """(lo, hi): the 1-based positions of the ideal ranking of queries ``s`` that hold the keys' grade."""
    first = np.searchsorted(b.keys, s * b.span, side="left")
    lo = np.searchsorted(b.keys, key, side="left") - first + 1
    hi = np.searchsorted(b.keys, key, side="right") - first
    return lo, hi


def _sum_hi(keys: np.ndarray, span: int, n: int) -> np.ndarray:
    """Per query, the sum over its relevant documents of hi(grade) = sum over grades of n_g * #(grades >= g)."""
    if not len(keys):
        return np.zeros(n)
    q = keys // span
    first = np.searchsorted(keys, q * span, side="left")
    hi = np.searchsorted(keys, keys, side="right") - first
    return seg_sum(hi.astype(np.float64), q, n)


def relative_positions(b: Bands, seg: np.ndarray, pos: Optional[np.ndarray], grade: np.ndarray,
                       relevant: np.ndarray, lens: Optional[np.ndarray] = None,
                       rank: Optional[np.ndarray] = None) -> np.ndarray:
    """RP of every row (int64): ``pos`` is the 0-based position in the run, ``relevant`` whether the row
    holds a judged document of grade >= rel (its ``grade`` is then used). With ``lens`` (rows per query,
    the rows of query i being its positions 0 .. lens[i] - 1 in order) the positions follow from ``lens``
    (``pos`` may be None) and only the rows with RP != 0 are written: a non-relevant row has RP = j - RB - 1
    above position RB + 1 and 0 from there on. ``rank`` (with ``lens``): the rows' 1-based positions, when
    the caller has them (a short run is then done in a few passes over all its rows)."""
    if lens is not None:
        return _relative_positions_by_query(b, lens, seg, grade, relevant, rank)
    if pos is None:
        raise TypeError("relative_positions: give pos, or lens")
    j = pos.astype(np.int64) + 1
    lo = b.base[seg] + 1                                  # non-relevant: band from RB + 1 to the end
    rp = np.where(j < lo, j - lo, 0)
    rows = np.flatnonzero(relevant)
    if len(rows):
        rp[rows] = _relevant_rp(b, seg[rows].astype(np.int64), grade[rows], j[rows])
    return rp


def _relevant_rp(b: Bands, s: np.ndarray, grade: np.ndarray, j: np.ndarray) -> np.ndarray:
    """RP of relevant rows of queries ``s`` at 1-based positions ``j``: 0 within the band of positions of
    the ideal ranking of the query that hold documents of ``grade``, else the distance to the band."""
    key = b.key(s, grade)
    if b.band_lo is not None and b.band_hi is not None and int(grade.max(initial=b.top)) <= b.top:
        lo, hi = b.band_lo[key], b.band_hi[key]          # (a grade above the top has no key of its query)
    else:
        lo, hi = _band(b, s, key)
    # lo <= hi: j - lo < 0 above the band, j - hi > 0 below it, at most one of them non-zero
    out = j - lo
    np.minimum(out, 0, out=out)
    below = j - hi
    np.maximum(below, 0, out=below)
    out += below
    return out


#: a run takes every row's RP at once when its rows besides those above the band are at most this many
#: more than the rows above it (the short-run path of :func:`_relative_positions_by_query`)
_DENSE_SLACK = 8192


def _relative_positions_by_query(b: Bands, lens: np.ndarray, seg: np.ndarray, grade: np.ndarray,
                                 relevant: np.ndarray, rank: Optional[np.ndarray] = None) -> np.ndarray:
    base = b.base[:len(lens)]
    top = np.minimum(base, lens)                          # positions 0 .. RB - 1: above the band
    if rank is not None and len(seg) <= 2 * int(top.sum()) + _DENSE_SLACK:
        # few rows besides those above the band: RP = min(j - RB - 1, 0) on every row, then the relevant
        # rows' own (fewer numpy calls than writing the rows above the band alone)
        j = rank.astype(np.int64, copy=False)
        rp = j - (base + 1)[seg]
        np.minimum(rp, 0, out=rp)
        rows = relevant.nonzero()[0]
        if len(rows):
            rp[rows] = _relevant_rp(b, seg[rows].astype(np.int64, copy=False), grade[rows], j[rows])
        return rp
    rp = np.zeros(len(seg), dtype=np.int64)
    starts = np.cumsum(lens) - lens
    first = np.cumsum(top) - top
    k = np.arange(int(top.sum()), dtype=np.int64)         # position pos = k - first of its query, at row starts + pos
    rp[k + np.repeat(starts - first, top)] = k - np.repeat(first + base, top)     # j - (RB + 1), j = pos + 1
    rows = relevant.nonzero()[0]
    if len(rows):
        s = seg[rows].astype(np.int64, copy=False)
        j = rows - starts[s]
        j += 1
        rp[rows] = _relevant_rp(b, s, grade[rows], j)
    return rp


def full_scale_space(b: Bands, length: np.ndarray):
    """(s+, s-) of the full-scale run of each query: the reverse of the ideal run of length
    M = max(length, 2 RB). Its RB first positions are non-relevant (s- = RB (RB + 1) / 2) and its last
    RB positions hold the relevant documents, each below its band (s+ = sum of positions - sum of hi)."""
    rb = b.base.astype(np.float64)
    m = np.maximum(length.astype(np.float64), 2.0 * rb)
    # (the qrels' part made with the bands; every term is an integer below 2^53, so the sum is exact
    # in any order)
    return rb * (m - rb) + b.fs_rest, b.fs_minus


def opposite_sides(sign: np.ndarray, pair: np.ndarray) -> np.ndarray:
    """Def. 3's test on consecutive entries, the one statement of Twist's crossing rule: entry i and
    entry i + 1 of ``sign`` (the signs of CRP at consecutive points of the curves) lie on opposite sides of
    zero, zero counting as both sides (``sign[i] * sign[i + 1] <= 0``), and ``pair[i]`` holds (the two
    are consecutive points of one query's curve). Length ``len(sign) - 1``; ``pair`` of that length.

    The other half of the rule is the query of one row whose curve is on the axis there: its position 1
    is a crossing (see :func:`crossings`). Each caller states that half in its own terms (a row's CRP, the
    RP at the rows of queries of one row, whether position 1 is a step): one form for all three would add
    numpy calls per run to the short runs' path (:func:`_dense`), whose Twist is at its speed goal without
    margin (benchmarks/bench_native.py, row ``twist``)."""
    turn = sign[:-1] * sign[1:]
    out = turn <= 0
    out &= pair
    return out


def first_of_each(qs: np.ndarray, at: np.ndarray):
    """(query, position) of the first of each query's flagged positions, given the flagged positions
    ``at`` (ascending, grouped by query) and their queries ``qs``."""
    once = np.empty(len(at), dtype=bool)            # the first flagged position of its query
    if len(at):
        once[0] = True
        np.not_equal(qs[1:], qs[:-1], out=once[1:])
    return qs[once], at[once]


def crossings(seg: np.ndarray, crp: np.ndarray) -> np.ndarray:
    """Whether each row's position j is a crossing (Def. 3): CRP[j] and CRP[j+1] (the next row of the
    same query) lie on opposite sides of zero, zero counting as both sides (:func:`opposite_sides`). One
    addition: the last row of a query whose curve ends on the axis without a crossing before counts too.
    That can only happen when the query has one row (otherwise CRP[N-1] and CRP[N] = 0 already make a
    crossing), and it gives the ideal run of one document rho = 1, as the paper states for every ideal run.

    This is the definition; :func:`twist` takes each query's first crossing by the same two rules on
    every row's CRP (short runs) or on the steps of the curve (:class:`_Curve`), and the tests compare
    both with this function."""
    out = np.zeros(len(crp), dtype=bool)
    if len(crp) == 0:
        return out
    same = seg[:-1] == seg[1:]
    out[:-1] = opposite_sides(np.sign(crp), same)
    single = np.r_[True, ~same] & np.r_[~same, True]        # the only row of its query
    out |= single & (crp == 0)
    return out


@dataclass
class TwistValues:
    """Per-query results (arrays over queries 0..n-1). Queries with RB = 0 hold NaN ratios."""

    base: np.ndarray            # recall base RB
    length: np.ndarray          # N, documents of the run considered
    first_crossing: np.ndarray  # min of the crossings (1-based); 0 when there is none
    balance: np.ndarray         # balance point beta = max(RB, first crossing); inf without crossing
    rho: np.ndarray
    sigma_plus: np.ndarray
    sigma_minus: np.ndarray
    sigma: np.ndarray
    tau: np.ndarray
    archetype_of: Callable[[], np.ndarray] = field(repr=False, compare=False)

    @cached_property
    def archetype(self) -> np.ndarray:
        """Index into ARCHETYPES of each query; -1 when RB = 0 (decided when first asked: the measures
        need only the ratios)."""
        return self.archetype_of()


def twist(b: Bands, seg: np.ndarray, rp: np.ndarray, relevant: np.ndarray, n: int,
          length: Optional[np.ndarray] = None) -> TwistValues:
    """Recovery ratio, space ratios, Twist and archetype of each query from the RP of its rows (and
    whether each row holds a relevant document); ``length``: the rows of each query, when the caller has them
    (else counted from ``seg``).

    A query with RB = 0 has no value (NaN); one with RB >= 1 and no rows gets 0 for every ratio (the
    run retrieved nothing: archetype worst).

    Only the rows with RP != 0 are visited after one scan (a non-relevant document below position RB
    has RP = 0, so on deep runs they are few): CRP is constant between them (:class:`_Curve`).
    """
    length = np.bincount(seg, minlength=n).astype(np.int64) if length is None else length.astype(np.int64)
    rb = b.base
    starts = length.cumsum() - length
    curve: Optional[_Curve] = None
    if len(rp) <= _DENSE_ROWS and rp.dtype.kind in "iu":
        first_crossing, s_plus, s_minus = _dense(rp, seg, starts, length, n)
    else:
        curve = _Curve(rp, seg, starts)
        first_crossing = curve.first_crossings(length, n)
        # (integer RP: the weights are converted to float64 exactly, as the sums are exact)
        s_plus = seg_sum(np.maximum(curve.values, 0), curve.seg, n)
        s_minus = seg_sum(np.maximum(-curve.values, 0), curve.seg, n)
    crossed = first_crossing > 0
    balance = np.where(crossed, np.maximum(rb, first_crossing), np.inf)          # float64 (inf)
    none = b.none
    # only a query with RB = 0 divides by zero (its full-scale spaces are 0; RB >= 1 makes them >= 1)
    with np.errstate(divide="ignore", invalid="ignore") if len(none) else contextlib.nullcontext():
        rho = rb / balance                                   # (0 without a crossing: RB / inf)
        fs_plus, fs_minus = full_scale_space(b, length)
        sp = 1.0 - s_plus / fs_plus
        sm = 1.0 - s_minus / fs_minus
        total = sp + sm
        positive = total > 0
        sigma = np.where(positive, 2.0 * sp * sm / np.where(positive, total, 1.0), 0.0)
    empty = (length == 0).nonzero()[0]
    if len(empty):
        sp[empty] = sm[empty] = sigma[empty] = 0.0
    tau = (rho + sigma) / 2.0
    def archetype() -> np.ndarray:
        steps = _Curve(rp, seg, starts) if curve is None else curve
        return _archetypes(rb, length, starts, seg, relevant, steps, first_crossing, s_plus, s_minus,
                           fs_plus, fs_minus, n)
    if len(none):
        for a in (rho, sp, sm, sigma, tau):
            a[none] = np.nan
    return TwistValues(base=rb, length=length, first_crossing=first_crossing, balance=balance, rho=rho,
                       sigma_plus=sp, sigma_minus=sm, sigma=sigma, tau=tau, archetype_of=archetype)


#: runs of at most this many rows take every row's CRP at once (fewer numpy calls than the steps' curve)
_DENSE_ROWS = 8192


def _dense(rp: np.ndarray, seg: np.ndarray, starts: np.ndarray, length: np.ndarray, n: int):
    """(first crossing, s+, s-) of each query from every row's integer RP: CRP by one running sum less its
    value before each query (exact in integers), the crossings as :func:`crossings` defines them, the
    spaces as sums of the positive and negative RP (integers, so the float64 sums are exact)."""
    total = rp.cumsum()
    crp = total - (total - rp)[starts[seg]]
    at = opposite_sides(np.sign(crp), seg[:-1] == seg[1:]).nonzero()[0]
    first = np.zeros(n, dtype=np.int64)
    qs, at = first_of_each(seg[at], at)
    first[qs] = at - starts[qs] + 1
    single = (length == 1).nonzero()[0]             # the only row of its query, on the axis: a crossing
    if len(single):
        first[single[rp[starts[single]] == 0]] = 1
    return first, seg_sum(np.maximum(rp, 0), seg, n), seg_sum(np.maximum(-rp, 0), seg, n)


class _Curve:
    """The CRP curves of many queries held by their steps: the rows where RP != 0 (``rows``, ascending),
    their query, RP and CRP. Between two steps of a query CRP is constant, and 0 before its first."""

    def __init__(self, rp: np.ndarray, seg: np.ndarray, starts: np.ndarray):
        self.rows = rows = rp.nonzero()[0]
        self.seg = seg = seg[rows]
        self.values = values = rp[rows]
        head = np.empty(len(rows), dtype=bool)                 # the first step of its query
        if len(rows):
            head[0] = True
            np.not_equal(seg[1:], seg[:-1], out=head[1:])
        self.head = head
        if values.dtype.kind in "iu":      # integer RP: CRP from one running sum, exactly
            crp = values.cumsum()
            before = crp - values                              # the running sum before each step
            self.crp = crp - before[seg.searchsorted(seg)]
        else:
            self.crp = seg_cumsum(values, seg)
        self.starts = starts

    def at(self, rows: np.ndarray, seg: np.ndarray) -> np.ndarray:
        """CRP at the given rows (of queries ``seg``): that of the last step at or before each row."""
        k = np.searchsorted(self.rows, rows, side="right") - 1
        out = np.zeros(len(rows), dtype=self.crp.dtype)
        ok = k >= 0
        ok[ok] = self.seg[k[ok]] == seg[ok]
        out[ok] = self.crp[k[ok]]
        return out

    def first_crossings(self, length: np.ndarray, n: int) -> np.ndarray:
        """The first crossing (1-based; 0 for none) of each query, as :func:`crossings` defines them.

        CRP changes only at the steps r_1 < r_2 < ... (0-based positions, CRP c_i from r_i on) and is 0
        before r_1. A query with rows whose first row is not a step (CRP[0] = 0: positions 1 and 2, or the
        only row, make a crossing) has its first crossing at 1. Otherwise CRP[0] = c_1 != 0, and between
        two steps CRP stays at one non-zero value or at 0, so the first crossing is the pair of positions
        r_i - 1 and r_i (1-based r_i) of the first step i >= 2 with sign(c_(i-1)) sign(c_i) <= 0, and there
        is none when no step has it. One comparison per step, no search."""
        first = (length > 0).astype(np.int64)
        seg, crp = self.seg, self.crp
        if not len(seg):
            return first
        local = self.rows - self.starts[seg]
        head = self.head
        heads = head.nonzero()[0]
        opened = seg[heads[local[heads] == 0]]                 # the queries whose row 0 is a step
        first[opened] = 0
        is_open = first == 0
        pair = is_open[seg[1:]]                                # both steps of one open query
        pair &= ~head[1:]
        flip = opposite_sides(np.sign(crp), pair).nonzero()[0] + 1
        qs, flip = first_of_each(seg[flip], flip)              # the first such step of its query
        first[qs] = local[flip]
        return first


def _archetypes(rb, length, starts, seg, relevant, curve, first_crossing, s_plus, s_minus, fs_plus, fs_minus, n):
    """The run archetype of each query (Ferro et al. 2016, Figs. 3 and 4), decided in this order:

    worst: no relevant document retrieved; ideal: every RP is 0; full_scale: as much space as the
    full-scale run in both directions; a first crossing at or before RB: excellent if CRP at
    min(RB, N) is >= 0, up_and_down if it has dropped below zero again; a first crossing after RB:
    typical_a; no crossing: typical_b.
    """
    found = np.bincount(seg[relevant], minlength=n)
    out = np.full(n, TYPICAL_B, dtype=np.int64)
    crossed = first_crossing > 0
    out[crossed & (first_crossing > rb)] = TYPICAL_A
    early = crossed & (first_crossing <= rb)
    at = starts + np.minimum(rb, length) - 1                  # row of position min(RB, N)
    below = np.zeros(n, dtype=bool)
    ok = early & (length > 0)
    below[ok] = curve.at(at[ok], np.flatnonzero(ok)) < 0
    out[early & ~below] = EXCELLENT
    out[early & below] = UP_AND_DOWN
    out[(s_plus >= fs_plus) & (s_minus >= fs_minus) & (length > 0)] = FULL_SCALE
    zero = np.bincount(curve.seg, minlength=n) == 0              # no step: every RP is 0
    out[zero & (length > 0)] = IDEAL
    out[found == 0] = WORST
    out[rb == 0] = -1
    return out

