"""Rank-biased kernels when the run has ties too: RBR, RBA, RBO and their residuals as the exact mean over
the orders of the tie groups of *both* rankings (Moffat, Mackenzie, Mallia, Petri, SIGIR-AP 2024, with the
expectation they propose for ties in the reference applied to the run as well).

Notation as in :mod:`ir_rbstar.core.rankbiased`. A document e of the run sits in a tie group occupying
positions ``s+1 .. s+g`` (0-based start s, size g); B is the run's first k positions, so only
``t = min(s+g, k) - s`` of the group's positions are in B (t < g: the group *straddles* the cutoff, and
each member is in B with probability t/g). The run's and the reference's tie orders are independent and
uniform, so every per-document quantity is a product of a run-side and a reference-side expectation:

* P(rank_B(e) <= d) = A(d) = clip((min(d, s+t) - s) / g, 0, 1), a ramp that ends at s+t on t/g;
* likewise B(d) for the reference (its groups are never cut: B(d) reaches 1).

RBO's overlap at depth d is X_d = sum_e A(d) B(d): on each stretch where both are linear,
p^d A(d) B(d) / d = p^d (a0 + a1 d)(b0 + b1 d) / d, whose sums over d have closed forms in the prefix sums
H[d] = sum p^j / j, G[d] = sum p^j and K[d] = sum j p^j. No per-depth arrays are needed.

Residuals depend on which of a straddling group's members are in B. Given that h of them are of a kind
that matters (unknown to the reference, say), the kind's count is hypergeometric, and the residual is
averaged over h exactly (:func:`straddle_mix`). Internal: used by :mod:`ir_rbstar.families.rankbiased`.
"""
from __future__ import annotations

import math
from typing import Dict, Tuple

import numpy as np

from .rankbiased import _expected_pair_sum, kept_tables, rbo_finish, rbo_tables
from .segments import seg_sum

__all__ = ["run_half_power_mean", "suffix_tables", "stretch_sums", "rbo_family_tied", "rbo_family_tied_from",
           "overlap_profile_pieces",
           "straddle_mix", "pair_sum_groups"]


def run_half_power_mean(start: np.ndarray, size: np.ndarray, kept: np.ndarray, p: float) -> np.ndarray:
    """E[p^(rank/2) 1(rank <= k)] for a document of a run tie group: (1/g) sum_{j=s+1}^{s+t} p^(j/2)."""
    q = math.sqrt(p)
    return np.power(q, start + 1.0) * -np.expm1(kept * math.log(q)) / ((1.0 - q) * size)


def _pieces(sa: np.ndarray, ga: np.ndarray, ea: np.ndarray, sb: np.ndarray, gb: np.ndarray,
            eb: np.ndarray, last: np.ndarray):
    """The stretches of depth d in [max(sa, sb) + 1, last] where A(d) = a0 + a1 d and B(d) = b0 + b1 d are
    both linear (A ramps up to its end ``ea`` and stays at (ea - sa) / ga after it; B likewise).
    Returns (item, lo, hi, a0, a1, b0, b1), one row per non-empty stretch."""
    d0 = np.maximum(sa, sb) + 1
    m1, m2 = np.minimum(ea, eb), np.maximum(ea, eb)
    los = (d0, np.maximum(d0, m1 + 1), np.maximum(d0, m2 + 1))
    his = (np.minimum(m1, last), np.minimum(m2, last), last)
    item = np.arange(len(sa))
    parts = []
    for lo, hi in zip(los, his, strict=True):
        keep = np.flatnonzero(lo <= hi)
        lo, hi = lo[keep], hi[keep]
        ramp_a = hi <= ea[keep]
        ramp_b = hi <= eb[keep]
        ga_k, gb_k = ga[keep].astype(np.float64), gb[keep].astype(np.float64)
        a0 = np.where(ramp_a, -sa[keep] / ga_k, (ea[keep] - sa[keep]) / ga_k)
        a1 = np.where(ramp_a, 1.0 / ga_k, 0.0)
        b0 = np.where(ramp_b, -sb[keep] / gb_k, (eb[keep] - sb[keep]) / gb_k)
        b1 = np.where(ramp_b, 1.0 / gb_k, 0.0)
        parts.append((item[keep], lo, hi, a0, a1, b0, b1))
    return tuple(np.concatenate(col) for col in zip(*parts, strict=True))


def _ramp(d: np.ndarray, s: np.ndarray, g: np.ndarray, e: np.ndarray) -> np.ndarray:
    """A(d) = clip((min(d, e) - s) / g, 0, 1)."""
    return np.clip((np.minimum(d, e) - s) / g.astype(np.float64), 0.0, 1.0)


@kept_tables
def suffix_tables(p: float, lmax: int):
    """Hs[d] = sum_{j=d}^{N} p^j / j, Gs[d] = sum_{j=d}^{N} p^j and Ks[d] = sum_{j=d}^{N} j p^j for
    d = 1 .. N + 1 (N = 2 lmax + 2; index 0 unused): sums over a stretch of depths are differences of
    them, accurate relative to the stretch's own size (the sums run from the small end)."""
    N = 2 * lmax + 2
    d = np.arange(N + 2, dtype=np.float64)
    pw = np.power(p, d)
    pw[0] = 0.0
    pw[N + 1] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (np.where(d > 0, pw / np.maximum(d, 1.0), 0.0), pw, pw * d)
    return tuple(np.cumsum(t[::-1])[::-1] for t in terms)


def stretch_sums(sa, ga, ea, sb, gb, eb, last, tables, lead=None) -> np.ndarray:
    """sum_{d<=last} p^d A(d) B(d) / d per document (A, B: the ramps of :func:`_ramp`), stretch by stretch
    (at most three, where both are linear), each a combination of three suffix-table differences. The
    compiled engine's ``rbo_tied_sums`` does the same arithmetic document by document.

    Most documents are untied on both sides (a step at d0 = max(rank in B, rank in R), then 1): for them
    the same operations on the same operands as :func:`_stretch_sums_general` are done with the stretches
    that are known to be empty left out, so every value is the same double (``tests/families/
    test_run_ties.py`` holds them equal bit for bit); the other documents take the general path. ``lead``:
    :func:`_lead_tables` of ``tables``, from a caller that sums many blocks with the same tables."""
    sa, sb = np.asarray(sa), np.asarray(sb)
    d0 = np.maximum(sa, sb)                             # d0 - 1, the larger 0-based start ...
    d0 += 1                                             # ... and d0
    # the stretch of depth d0 alone, where one ramp (or both, on equal starts) reaches 1, depends on d0 only:
    # its value for every depth, from the same operations on the same operands, is looked up
    total = _untied_head(sa, sb, d0, np.asarray(last), tables[0], _lead_tables(tables) if lead is None else lead)
    # tied on either side (or a document past ``last``): every stretch of the general path
    tied = np.flatnonzero((np.asarray(ga) != 1) | (np.asarray(gb) != 1) | (np.asarray(ea) != sa + 1)
                          | (np.asarray(eb) != sb + 1) | (np.asarray(last) < d0))
    if len(tied):
        total[tied] = _stretch_sums_general(sa[tied], np.asarray(ga)[tied], np.asarray(ea)[tied], sb[tied],
                                            np.asarray(gb)[tied], np.asarray(eb)[tied],
                                            np.asarray(last)[tied], tables)
    return total


def _untied_head(sa, sb, d0, last, Hs, lead) -> np.ndarray:
    """:func:`stretch_sums` of documents untied on both sides (a new array; ``d0`` = max(sa, sb) + 1): the
    stretch of depth d0 alone, looked up in ``lead`` (:func:`_lead_tables`), then depths d0+1 .. last, where
    both ramps stay at 1 (an empty stretch when d0 = last)."""
    lead_one, lead_both = lead
    total = lead_one[d0]
    same = np.flatnonzero(sa == sb)                     # both ramps reach 1 at d0: a0 b0 = sa^2, a0 b1 + a1 b0 = -2 sa
    if len(same):
        total[same] = lead_both[d0[same]]
    rest = Hs[d0 + 1]
    rest -= Hs[np.maximum(last, d0) + 1]
    total += rest
    return total


def _lead_tables(tables):
    """For every depth d0 (index) of the suffix tables, what the stretch of depth d0 alone adds for a document
    untied on both sides whose larger 0-based start is d0 - 1: (the other start smaller, the starts equal).
    With hd = p^d0 / d0 and gd = p^d0 as the stretch's differences give them, t = d0 - 1: gd - t hd, and
    t^2 hd + -(2t) gd + d0 p^d0: the operations :func:`_stretch_sums_general` does, in its order."""
    Hs, Gs, Ks = tables
    hd = Hs[:-1] - Hs[1:]
    gd = Gs[:-1] - Gs[1:]
    t = np.arange(-1, len(hd) - 1, dtype=np.float64)
    one = gd - t * hd
    both = (t * t * hd + -(t + t) * gd + (Ks[:-1] - Ks[1:]))
    return one, both


def _stretch_sums_general(sa, ga, ea, sb, gb, eb, last, tables) -> np.ndarray:
    """:func:`stretch_sums` for any documents: the three stretches of every document. On the first, where
    neither ramp has ended, both are rising; on the last, after both ends, both are flat; only the middle one
    takes each ramp's state from the document. Every term is the one the general formula gives (with the
    factors of a flat ramp 0, which add only zeros), so the sums are the same doubles."""
    Hs, Gs, Ks = tables
    d0 = np.maximum(sa, sb) + 1
    m1, m2 = np.minimum(ea, eb), np.maximum(ea, eb)
    ga_f, gb_f = ga.astype(np.float64), gb.astype(np.float64)
    # the first stretch, both rising: empty for nearly every document tied on one side only, so its terms
    # are made for the others alone
    hi = np.minimum(m1, last)
    some = np.flatnonzero(d0 <= hi)
    total = np.zeros(len(sa))
    if len(some):
        lo, hi1 = d0[some], hi[some] + 1
        a0, a1 = -sa[some] / ga_f[some], 1.0 / ga_f[some]
        b0, b1 = -sb[some] / gb_f[some], 1.0 / gb_f[some]
        total[some] += (a0 * b0 * (Hs[lo] - Hs[hi1]) + (a0 * b1 + a1 * b0) * (Gs[lo] - Gs[hi1])
                        + a1 * b1 * (Ks[lo] - Ks[hi1]))     # (added to 0.0 as before: a -0.0 term is 0.0)
    # the middle stretch: the ramp that ends first is flat, the other rising
    lo, hi = np.maximum(d0, m1 + 1), np.minimum(m2, last)
    ok = lo <= hi
    lo = np.where(ok, lo, 1)
    hi = np.where(ok, hi, 0)                           # an empty stretch: every difference is 0
    ramp_a, ramp_b = hi <= ea, hi <= eb
    a0 = np.where(ramp_a, -sa, ea - sa) / ga_f
    a1 = np.where(ramp_a, 1.0 / ga_f, 0.0)
    b0 = np.where(ramp_b, -sb, eb - sb) / gb_f
    b1 = np.where(ramp_b, 1.0 / gb_f, 0.0)
    total += (a0 * b0 * (Hs[lo] - Hs[hi + 1]) + (a0 * b1 + a1 * b0) * (Gs[lo] - Gs[hi + 1])
              + a1 * b1 * (Ks[lo] - Ks[hi + 1]))
    # the last stretch, both flat: only the first of the three terms is not 0
    lo = np.maximum(d0, m2 + 1)
    ok = lo <= last
    lo = np.where(ok, lo, 1)
    hi = np.where(ok, last, 0)
    total += (ea - sa) / ga_f * ((eb - sb) / gb_f) * (Hs[lo] - Hs[hi + 1])
    return total


#: documents per block of :func:`rbo_family_tied`'s numpy sums (small temporaries, reused from block to block:
#: 64 KiB of doubles, below the 128 KiB from which glibc's malloc maps every new array afresh from the system,
#: paying its page faults; 1 << 14, exactly 128 KiB, made the sums of a run of 20,000 shared documents 1.6x
#: slower, measured)
SUM_BLOCK_ROWS = 1 << 13


def rbo_family_tied(n: int, p: float, len_b: np.ndarray, len_r: np.ndarray, seg: np.ndarray,
                    b_start: np.ndarray, b_size: np.ndarray, b_kept: np.ndarray,
                    r_start: np.ndarray, r_size: np.ndarray, kernels=None) -> Tuple[Dict[str, np.ndarray], np.ndarray]:
    """RBO, RBO_ext (exact means over both rankings' tie orders) and the expected overlap X_l = E|B ∩ R|,
    from the documents of the run (their B-side groups: start, size, positions kept within k) that are in R
    (their R-side groups). RBO_res is left to the caller (it is not linear in the overlap). ``kernels``:
    the compiled engine, if chosen."""
    def sums(l, s, suffix):
        sa, ga = b_start.astype(np.int64, copy=False), b_size.astype(np.int64, copy=False)
        sb, gb = r_start.astype(np.int64, copy=False), r_size.astype(np.int64, copy=False)
        if kernels:
            ea, eb = sa + b_kept, sb + gb
            head, x_s = kernels.rbo_tied_sums(n, seg, sa, ga, ea, sb, gb, eb, l, s, *suffix)
        else:
            # each document's terms a block of documents at a time (the same operations on the same
            # operands: the same doubles), then summed per query in document order as one column
            per_head, per_x = np.empty(len(seg)), np.empty(len(seg))
            lead = _lead_tables(suffix)                 # once: its size is the depth's, not the block's
            general, tied = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
            for at in range(0, len(seg), SUM_BLOCK_ROWS):
                b = slice(at, at + SUM_BLOCK_ROWS)
                q = seg[b]
                per_head[b], per_x[b], g, t = _block_terms(sa[b], ga[b], b_kept[b], sb[b], gb[b], l[q], s[q],
                                                           suffix, lead)
                general.append(g + at)
                tied.append(t + at)
            # the tied documents of every block together (few, usually: one call instead of one a block,
            # whose some 60 operations on a few dozen documents cost more than the documents' arithmetic),
            # in blocks of documents still when they are many
            _fill_tied(per_head, per_x, np.concatenate(general), np.concatenate(tied), sa, ga, b_kept, sb, gb,
                       lambda rows: l[seg[rows]], lambda rows: s[seg[rows]], suffix)
            head, x_s = seg_sum(per_head, seg, n), seg_sum(per_x, seg, n)
        return head, x_s, seg_sum(b_kept / ga, seg, n)
    return rbo_family_tied_from(p, len_b, len_r, sums)


def _block_terms(sa, ga, kept, sb, gb, last, d, tables, lead):
    """(:func:`stretch_sums`, :func:`_overlap_at` at depth ``d``) of a block of documents whose reference-side
    groups are whole (``eb = sb + gb``): the same operations on the same operands (the same doubles), with
    what both compute (the larger start, which documents are tied on either side) done once, but for the
    terms of the documents tied on either side (or past ``last``), left for the caller (:func:`_fill_tied`):
    (head, overlap, those documents for the head, those for the overlap)."""
    top = np.maximum(sa, sb)                            # the larger 0-based start; d0 = top + 1
    d0 = top + 1
    odd = ga != 1                                       # tied on either side: ea != sa + 1 is kept != 1,
    odd |= gb != 1                                      # eb != sb + 1 is gb != 1
    odd |= kept != 1
    total = _untied_head(sa, sb, d0, last, tables[0], lead)
    general = np.flatnonzero(odd | (last < d0))
    x = (d > top).astype(np.float64)
    tied = np.flatnonzero(odd)
    return total, x, general, tied


def _fill_tied(head, x, general, tied, sa, ga, kept, sb, gb, last_at, d_at, tables) -> None:
    """The terms :func:`_block_terms` leaves out: ``head`` at the rows ``general`` by
    :func:`_stretch_sums_general`, ``x`` at the rows ``tied`` by the product of the ramps (``last_at(rows)``,
    ``d_at(rows)``: ``last`` and ``d`` at those rows), :data:`SUM_BLOCK_ROWS` rows at a time."""
    for at in range(0, len(general), SUM_BLOCK_ROWS):
        g = general[at:at + SUM_BLOCK_ROWS]
        sa_g, sb_g, gb_g = sa[g], sb[g], gb[g]
        head[g] = _stretch_sums_general(sa_g, ga[g], sa_g + kept[g], sb_g, gb_g, sb_g + gb_g, last_at(g), tables)
    for at in range(0, len(tied), SUM_BLOCK_ROWS):
        t = tied[at:at + SUM_BLOCK_ROWS]
        sa_t, sb_t, gb_t, d_t = sa[t], sb[t], gb[t], d_at(t)
        x[t] = _ramp(d_t, sa_t, ga[t], sa_t + kept[t]) * _ramp(d_t, sb_t, gb_t, sb_t + gb_t)


def rbo_family_tied_from(p: float, len_b: np.ndarray, len_r: np.ndarray,
                         sums, finish_step=None) -> Tuple[Dict[str, np.ndarray], np.ndarray]:
    """:func:`rbo_family_tied` from ``sums(l, s, suffix_tables)`` -> (head, x_s, x_l) per query, the sums
    over the shared documents (l = max(|B|, |R|), s = min(|B|, |R|)): the compiled engine's join computes
    them without gathering the documents. ``finish_step``: as :func:`.rankbiased.rbo_finish` takes it."""
    len_b = len_b.astype(np.int64, copy=False)
    len_r = len_r.astype(np.int64, copy=False)
    s = np.minimum(len_b, len_r)
    l = np.maximum(len_b, len_r)
    lmax = int(l.max(initial=0))
    head, x_s, x_l = sums(l, s, suffix_tables(p, lmax))
    family = rbo_finish(p, s, l, head, x_l, x_s, rbo_tables(p, lmax), residual=False, finish_step=finish_step)
    return family, x_l


def _overlap_at(d: np.ndarray, sa, ga, ea, sb, gb, eb) -> np.ndarray:
    """A(d) B(d) per document: 1.0 or 0.0 for a document untied on both sides (whether depth d reaches
    it in both rankings: the value the two ramps give), the product of the ramps for the others."""
    out = (d > np.maximum(sa, sb)).astype(np.float64)
    tied = np.flatnonzero((ga != 1) | (gb != 1) | (ea != sa + 1) | (eb != sb + 1))
    if len(tied):
        out[tied] = _ramp(d[tied], sa[tied], ga[tied], ea[tied]) * _ramp(d[tied], sb[tied], gb[tied], eb[tied])
    return out


def overlap_profile_pieces(n: int, slots: np.ndarray, seg: np.ndarray, sa, ga, ea, sb, gb, eb,
                           last: np.ndarray) -> np.ndarray:
    """X_d = sum_e A(d) B(d) for d = 1 .. slots[q] of every query, laid out query after query: each
    stretch adds a quadratic in d, accumulated through difference arrays of its three coefficients."""
    base = np.cumsum(slots) - slots
    total = int(slots.sum())
    coef = np.zeros((3, total + 1))
    if len(sa):
        item, lo, hi, a0, a1, b0, b1 = _pieces(np.asarray(sa), np.asarray(ga), np.asarray(ea), np.asarray(sb),
                                               np.asarray(gb), np.asarray(eb), np.asarray(last))
        at_lo = base[seg[item]] + lo - 1
        at_hi = base[seg[item]] + hi
        for row, c in enumerate((a0 * b0, a0 * b1 + a1 * b0, a1 * b1)):
            np.add.at(coef[row], at_lo, c)
            np.add.at(coef[row], at_hi, -c)
    c0, c1, c2 = (np.cumsum(coef[row])[:total] for row in range(3))
    d = (np.arange(total) - np.repeat(base, slots) + 1).astype(np.float64)
    return c0 + c1 * d + c2 * d * d


def straddle_mix(group_size: np.ndarray, kind: np.ndarray, kept: np.ndarray):
    """The distribution of how many members of a given kind a straddling tie group puts into B: for each
    group (size g, ``kind`` members of the kind, t positions in B), every possible count h with its
    hypergeometric probability. Returns (group index, h, probability), one row per (group, h)."""
    from scipy.stats import hypergeom      # here: scipy.stats takes a while to import, and few runs need it
    g = group_size.astype(np.int64)
    m = kind.astype(np.int64)
    t = kept.astype(np.int64)
    lo = np.maximum(0, t - (g - m))
    hi = np.minimum(t, m)
    width = hi - lo + 1
    idx = np.repeat(np.arange(len(g)), width)
    h = lo[idx] + np.arange(int(width.sum())) - np.repeat(np.cumsum(width) - width, width)
    prob = hypergeom.pmf(h, g[idx], m[idx], t[idx])
    return idx, h, prob


def pair_sum_groups(n: int, q: float, seg: np.ndarray, start: np.ndarray, size: np.ndarray,
                    marked: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """E[sum_i q^(a_i + i + offset)] per query, a_1 < a_2 < ... the ranks of the marked members of tie
    groups laid out in rank order (each group's members in uniformly random order): the i-th marked
    member overall gets i. ``seg``/``start``/``size``/``marked`` describe one row per group (its query,
    0-based start, the positions it fills, how many of them are marked); ``offset`` per group."""
    before = np.cumsum(marked) - marked
    first = np.r_[True, seg[1:] != seg[:-1]] if len(seg) else np.zeros(0, dtype=bool)
    before = before - np.repeat(before[first], np.diff(np.r_[np.flatnonzero(first), len(seg)]))
    expo = (start + before + offset).astype(np.float64)
    return seg_sum(np.power(q, expo) * _expected_pair_sum(size, marked, q), seg, n)
