"""RBR, RBA, RBO and their residuals when the run has ties (``ties='expected'``, the default): every value is
the exact mean over the uniformly random orders of the tie groups of both the run and the reference.

Used by :mod:`ir_rbstar.families.rankbiased` for a run with tied scores among the rows that may be in B
(:meth:`ir_rbstar.context.RunContext.tied_observation`); without such ties that module's own path gives
the same numbers faster. Internal.
"""
from __future__ import annotations

import math
from typing import Dict, Tuple

import numpy as np

from ..context import RunContext
from ..core import rankbiased as K
from ..core import rankbiased_ties as T
from ..core.rankbiased import _expected_pair_sum
from ..core.segments import seg_sum
from ..io import Ranking, dictscan, hashes_are_ids

__all__ = ["compute_tied"]


class _Groups:
    """The run's tie groups among the rows that may be in B: one row per group, in rank order."""

    def __init__(self, tied, marked: np.ndarray):
        rows = tied.rows
        first = rows.rank - 1 == tied.start
        self.gid = gid = np.cumsum(first) - 1          # each row's group
        self.seg = rows.seg[first]
        self.start = tied.start[first].astype(np.int64)
        self.size = tied.size[first].astype(np.int64)
        self.kept = tied.kept[first].astype(np.int64)
        self.marked = np.bincount(gid, weights=marked.astype(np.float64), minlength=len(self.seg)).astype(np.int64)
        self.straddle = self.kept < self.size

    def steady_marked(self, n: int) -> np.ndarray:
        """Per query, the marked rows of its groups that do not straddle the cutoff (always in B)."""
        steady = ~self.straddle
        return np.bincount(self.seg[steady], weights=self.marked[steady], minlength=n).astype(np.int64)


def compute_tied(m, ctx: RunContext, cache: dict) -> np.ndarray:
    """The value of one measure (RBR, RBR_res, RBA, RBA_res, RBO, RBO_res or RBO_ext) per query."""
    name, p, cutoff, ref, rel = m.NAME, m["p"], m.params.get("cutoff"), m["ref"], m["rel"]
    tied = ctx.tied_observation(cutoff)
    rows, n = tied.rows, ctx.n
    if name in ("RBO", "RBO_ext") or (name == "RBO_res" and ref is not None):
        return _rbo(m, ctx, tied, cache)
    reference, b_in_r, r_in_b = ctx.match(cutoff, ref, rel, m, tied=True)
    matched = b_in_r >= 0
    rstart, rsize = reference.tie_groups()
    rs, rg = rstart[b_in_r[matched]], rsize[b_in_r[matched]]
    if name in ("RBR", "RBR_res"):
        weight = K.shared_weight(rs, rg, p)
        share = tied.kept[matched] / tied.size[matched]          # the chance that a row is in B
        rbr = seg_sum(share * weight, rows.seg[matched], n)
        if name == "RBR":
            return rbr
        return _rbr_res(m, ctx, tied, matched, weight, rbr)
    if name in ("RBA", "RBA_res"):
        rba = (1.0 - p) / p * seg_sum(T.run_half_power_mean(tied.start[matched], tied.size[matched],
                                                             tied.kept[matched], p)
                                      * K.half_power_mean(rs, rg, p), rows.seg[matched], n)
        if name == "RBA":
            return rba
        return _rba_res(m, ctx, tied, matched, b_in_r, r_in_b, rba)
    # RBO_res with a qrels-derived reference
    family = _rbo_family(m, ctx, tied, cache)[0]
    r = ctx.reference_rows(ref, rel, m)
    return _rbo_res_open(m, ctx, tied, matched, b_in_r, rs, rg, r.lens, family)


def _shared(m, ctx: RunContext, tied) -> Tuple[Ranking, np.ndarray, np.ndarray]:
    """(reference, at, src): the rows of the tied observation found in the reference (ascending) and their
    rows there, from the context's join (:meth:`~ir_rbstar.context.RunContext.match`, made once for every
    measure of the evaluation)."""
    reference, b_in_r, _ = ctx.match(m.params.get("cutoff"), m["ref"], m["rel"], m, tied=True)
    at = np.flatnonzero(b_in_r >= 0)
    return reference, at, b_in_r[at]


def _rbo_family(m, ctx: RunContext, tied, cache: dict):
    """RBO and RBO_ext (and the expected overlap) of every query, computed once for the measures of the
    same cutoff, reference and p: one join and one gather of the shared documents for both."""
    p, cutoff, ref, rel = m["p"], m.params.get("cutoff"), m["ref"], m["rel"]
    key = ("rbo tied", cutoff, ref, rel, p)
    if key not in cache:
        got = _rbo_family_joined(m, ctx, tied)
        if got is not None:
            cache[key] = (*got, None)
    if key not in cache:
        reference, at, src = _shared(m, ctx, tied)
        b = tied.rows
        seg = b.seg_at_ascending(at)
        if b.identity and not tied.straddles:                 # B is the run: its rows are the run's
            start, size = ctx.run.tie_groups_at(at, pos=at - (np.cumsum(b.lens) - b.lens)[seg])
            kept = size
        else:
            start, size, kept = tied.groups_at(at)
        # (only the shared rows' groups; a pair's reference row is of the same query)
        rstart, rsize = reference.tie_groups_at(src, pos=src - ctx.reference_ranges(ref, rel, m)[0][seg])
        family, x_l = T.rbo_family_tied(ctx.n, p, tied.blen, ctx.reference_rows(ref, rel, m).lens, seg, start,
                                        size, kept, rstart, rsize, ctx.kernels())
        cache[key] = family, x_l, at
    return cache[key]


def _rbo_family_joined(m, ctx: RunContext, tied):
    """(family, x_l) of :func:`_rbo_family` joined and summed in one pass, nothing gathered: by the compiled
    engine where it serves the evaluation, else by the C extension's counterparts of its steps
    (:data:`.io.dictscan.RBO_KERNELS`: the same doubles). None where neither applies: neither is there, the
    context has joined these rankings already (for another measure), a document id is longer than 8 bytes (the
    64-bit hashes are then not the ids themselves), or the C steps lack the join needed or decline it."""
    cutoff, ref, rel = m.params.get("cutoff"), m["ref"], m["rel"]
    kernels = ctx.kernels() or dictscan.rbo_kernels()
    if not kernels or ctx.held(("match", cutoff, ref, rel, tied.straddles)) is not None:
        return None
    reference = ctx.reference(ref, rel, m)
    b = tied.rows
    if not hashes_are_ids(b.dbytes, reference.dbytes):
        return None
    r_first, r_len = ctx.reference_ranges(ref, rel, m)
    b_same, r_same = ctx.run.tie_flags(), reference.tie_flags()
    if b.identity and not tied.straddles and b_same is not None and r_same is not None:
        # every row of the run in B, both rankings' tie flags known from their sort: the kernel makes the
        # groups query by query (no start and size columns over all rows of either ranking); B is the run
        # itself (``identity``: the universe is the run's own queries), so its first rows are the run's offsets
        # (the fallback's cumsum(lens) - lens) and its rows are those the run's tie flags index
        def sums(l, s, suffix):
            return kernels.rbo_tied_join_same(ctx.run.offsets[:-1], b.lens.astype(np.int64, copy=False),
                                              b.docs.view(np.int64), b_same, r_first, r_len,
                                              reference.docs.view(np.int64), r_same, l, s, *suffix)
    elif hasattr(kernels, "rbo_tied_join"):
        rstart, rsize = (a.astype(np.int64, copy=False) for a in reference.tie_groups())

        def sums(l, s, suffix):
            return kernels.rbo_tied_join(np.cumsum(b.lens) - b.lens, b.lens.astype(np.int64, copy=False),
                                         b.docs.view(np.int64), *(a.astype(np.int64, copy=False)
                                                                  for a in (tied.start, tied.size, tied.kept)),
                                         r_first, r_len, reference.docs.view(np.int64), rstart, rsize, l, s,
                                         *suffix)
    else:
        return None
    try:
        return T.rbo_family_tied_from(m["p"], tied.blen, r_len, sums, dictscan.rbo_finish_step())
    except dictscan.Declined:
        return None


def _rbo(m, ctx: RunContext, tied, cache: dict) -> np.ndarray:
    """RBO, RBO_ext, or RBO_res against a run (it depends on the lengths and the overlap only)."""
    family, x_l, at = _rbo_family(m, ctx, tied, cache)
    if m.NAME != "RBO_res":
        return family[m.NAME]
    if at is None:                                  # joined by the compiled engine: the rows now
        at = _shared(m, ctx, tied)[1]
    matched = np.zeros(len(tied.rows.docs), dtype=bool)
    matched[at] = True
    return _rbo_res_run(m["p"], tied, matched, ctx.reference_rows(m["ref"], m["rel"], m).lens, x_l, ctx.n)


def _mix(groups: _Groups, n: int, kind: np.ndarray):
    """For the straddling groups: (query, h, probability) of h members of ``kind`` (per group) in B."""
    at = np.flatnonzero(groups.straddle)
    idx, h, prob = T.straddle_mix(groups.size[at], kind[at], groups.kept[at])
    return at[idx], h, prob


def _rbr_res(m, ctx: RunContext, tied, matched: np.ndarray, weight: np.ndarray, rbr: np.ndarray) -> np.ndarray:
    p, ref, n = m["p"], m["ref"], ctx.n
    unknown = ~matched
    if ref is None:
        _, judged = ctx.judgments(m.params.get("cutoff"), tied=True)
        unknown = unknown & ~judged
    groups = _Groups(tied, unknown)
    b0 = groups.steady_marked(n)
    strad = np.zeros(n, dtype=bool)
    strad[groups.seg[groups.straddle]] = True
    g_idx, h, prob = _mix(groups, n, groups.marked)
    q_of = groups.seg[g_idx]
    if ref is not None:
        size_r = ctx.reference_rows(ref, m["rel"], m).lens.astype(np.float64)
        stay = np.power(p, b0)                                   # E[p^b] for the unknown count b
        stay[strad] = 0.0
        stay += seg_sum(prob * np.power(p, b0[q_of] + h), q_of, n)
        return np.power(p, size_r) * (1.0 - stay)
    # qrels-derived reference: E[(1 - p^b)(1 - RBR)], both depending on which members are in B
    value = -np.expm1(b0 * math.log(p)) * (1.0 - rbr)
    value[strad] = 0.0
    w_group = np.bincount(groups.gid[matched], weights=weight, minlength=len(groups.seg))
    fixed = rbr - seg_sum(np.where(groups.straddle, w_group * groups.kept / groups.size, 0.0), groups.seg, n)
    judged_members = (groups.size - groups.marked)[g_idx]
    chosen = groups.kept[g_idx] - h
    part = np.divide(chosen * w_group[g_idx], judged_members, out=np.zeros(len(h)), where=judged_members > 0)
    value += seg_sum(prob * -np.expm1((b0[q_of] + h) * math.log(p)) * (1.0 - fixed[q_of] - part), q_of, n)
    return value


def _unknown_part(groups: _Groups, n: int, q: float, offset: np.ndarray
                  ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """sum_i q^(a_i + i + offset) over the marked rows of B (exact mean over the tie orders) for the
    steady groups (per query), and for the straddling groups (query, h, probability, the sum given h
    marked members in B, u0 + h, h): u0 counts the marked rows of the query's steady groups."""
    steady = ~groups.straddle
    part = T.pair_sum_groups(n, q, groups.seg[steady], groups.start[steady], groups.size[steady],
                             groups.marked[steady], offset[groups.seg[steady]])
    u0 = groups.steady_marked(n)
    g_idx, h, prob = _mix(groups, n, groups.marked)
    q_of = groups.seg[g_idx]
    cond = np.power(q, (groups.start[g_idx] + u0[q_of] + offset[q_of]).astype(np.float64)) \
        * _expected_pair_sum(groups.kept[g_idx], h, q)
    return part, q_of, prob, cond, u0[q_of] + h, h


def _rba_res(m, ctx: RunContext, tied, matched, b_in_r, r_in_b, rba: np.ndarray) -> np.ndarray:
    p, ref, n = m["p"], m["ref"], ctx.n
    q, c = math.sqrt(p), (1.0 - p) / p
    cutoff = m.params.get("cutoff")
    blen = tied.blen.astype(np.int64)
    if ref is None:
        _, judged = ctx.judgments(cutoff, tied=True)
        groups = _Groups(tied, ~matched & ~judged)
        part, q_of, prob, cond, u, _ = _unknown_part(groups, n, q, np.zeros(n, dtype=np.int64))
        value = c * part
        strad = np.zeros(n, dtype=bool)
        strad[q_of] = True
        u_all = np.bincount(groups.seg, weights=groups.marked, minlength=n)
        value += np.where(strad, 0.0, np.power(q, blen + u_all))
        value += seg_sum(prob * (c * cond + np.power(q, (blen[q_of] + u).astype(np.float64))), q_of, n)
        return np.minimum(value, np.maximum(1.0 - rba, 0.0))            # RBA never exceeds 1
    r = ctx.reference_rows(ref, m["rel"], m)
    len_r = r.lens.astype(np.int64)
    groups = _Groups(tied, ~matched)
    # documents of B unknown to R: R positions |R|+1, ... in B order
    part, q_of, prob, cond, _, h = _unknown_part(groups, n, q, len_r)
    value = c * part + seg_sum(prob * c * cond, q_of, n)
    # documents of R that cannot be in B: B positions |B|+1, ... in R order (exact); members of R in a
    # straddling group that miss B come among them: bounded by their best place (see the declaration)
    rstart, rsize = ctx.reference(ref, m["rel"], m).tie_groups()
    r_start, r_size = rstart[r.src], rsize[r.src]
    head = r.rank - 1 == r_start
    gid = np.cumsum(head) - 1
    missing = np.bincount(gid, weights=(~r_in_b).astype(np.float64), minlength=int(head.sum())).astype(np.int64)
    gseg = r.seg[head]
    value += c * T.pair_sum_groups(n, q, gseg, r_start[head].astype(np.int64), r_size[head].astype(np.int64),
                                   missing, blen[gseg])
    strad_rows = np.flatnonzero(matched & (tied.kept < tied.size))
    if len(strad_rows):
        before = np.cumsum(missing) - missing                       # missing rows in earlier groups ...
        first = np.r_[True, gseg[1:] != gseg[:-1]]
        before = before - np.repeat(before[first], np.diff(np.r_[np.flatnonzero(first), len(gseg)]))
        at_src = np.zeros(len(rstart), dtype=np.int64)               # ... of each reference row's query
        at_src[r.src] = before[gid]
        src = b_in_r[strad_rows]
        miss = 1.0 - tied.kept[strad_rows] / tied.size[strad_rows]
        value += seg_sum(miss * c * np.power(q, (blen[tied.rows.seg[strad_rows]] + rstart[src] + at_src[src] + 2)
                                             .astype(np.float64)), tied.rows.seg[strad_rows], n)
    # the tail p^|B ∪ R|, |B ∩ R| = the shared documents in B
    common_fixed = np.bincount(tied.rows.seg[matched & (tied.kept == tied.size)], minlength=n)
    strad = np.zeros(n, dtype=bool)
    strad[q_of] = True
    value += np.where(strad, 0.0, np.power(p, (blen + len_r - common_fixed).astype(np.float64)))
    # h counts the unknown members of the straddling group in B, so kept - h of its members of R are
    kept_of = np.zeros(n, dtype=np.int64)
    kept_of[groups.seg[groups.straddle]] = groups.kept[groups.straddle]
    common = common_fixed[q_of] + kept_of[q_of] - h
    value += seg_sum(prob * np.power(p, (blen[q_of] + len_r[q_of] - common).astype(np.float64)), q_of, n)
    return np.minimum(value, np.maximum(1.0 - rba, 0.0))            # RBA never exceeds 1


def _rbo_res_run(p: float, tied, matched: np.ndarray, len_r: np.ndarray, x_l: np.ndarray, n: int) -> np.ndarray:
    """RBO_max - RBO_min depends on the overlap |B ∩ R| only; its mean over the members of R a straddling
    group puts into B (hypergeometric)."""
    len_b = tied.blen.astype(np.int64)
    len_r = len_r.astype(np.int64)
    s, l = np.minimum(len_b, len_r), np.maximum(len_b, len_r)
    tables = K.rbo_tables(p, int(l.max(initial=0)))
    if not tied.straddles:                                        # |B ∩ R| is the same in every order
        return K.rbo_residual(p, s, l, np.rint(x_l).astype(np.int64), tables)
    groups = _Groups(tied, matched)
    fixed = groups.steady_marked(n)
    out = K.rbo_residual(p, s, l, fixed, tables)
    g_idx, h, prob = _mix(groups, n, groups.marked)
    if len(h):
        q_of = groups.seg[g_idx]
        out[np.unique(q_of)] = 0.0
        out += seg_sum(prob * K.rbo_residual(p, s[q_of], l[q_of], fixed[q_of] + h, tables), q_of, n)
    return out


def _rbo_res_open(m, ctx: RunContext, tied, matched, b_in_r, rs, rg, len_r: np.ndarray,
                  family: Dict[str, np.ndarray]) -> np.ndarray:
    """An upper bound of RBO for a qrels-derived reference, from the mean overlap profile X_d and the mean
    count U_d of unjudged documents among B's first d (min(d, .) is concave, so the bound of the mean
    order is at least the mean of every order's bound)."""
    p, n = m["p"], ctx.n
    _, judged = ctx.judgments(m.params.get("cutoff"), tied=True)
    unknown = ~matched & ~judged
    len_b = tied.blen.astype(np.int64)
    l = np.maximum(len_b, len_r.astype(np.int64))
    slots = l + 1
    seg = tied.rows.seg
    sa, ga = tied.start.astype(np.int64), tied.size.astype(np.int64)
    ea = sa + tied.kept.astype(np.int64)
    reach = T.overlap_profile_pieces(n, slots, seg[matched], sa[matched], ga[matched], ea[matched],
                                     rs.astype(np.int64), rg.astype(np.int64), (rs + rg).astype(np.int64),
                                     l[seg[matched]])
    ones = np.ones(int(unknown.sum()), dtype=np.int64)
    reach += T.overlap_profile_pieces(n, slots, seg[unknown], sa[unknown], ga[unknown], ea[unknown],
                                      0 * ones, ones, ones, l[seg[unknown]])
    hi = K.rbo_upper_from_profile(n, p, len_b, l, slots, reach)
    return np.maximum(np.maximum(hi, family["RBO_ext"]) - family["RBO"], 0.0)
