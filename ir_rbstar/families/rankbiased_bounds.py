"""How far ties could move RBR, RBA, RBO and RBO_ext: ``stat='min'`` and ``stat='max'``, the value of the
worst and of the best order of the tie groups of both the run and the reference, exactly.

The best order sorts the documents of each tie group of the run by the tie group they fall in in the
reference (earlier first, documents the reference lacks last), and the documents of each tie group of the
reference by the tie group of the run they come from (earlier first, documents not in B last), documents
sharing both groups in the same order on both sides. Every prefix overlap |B_{1..d} ∩ R_{1..d}| is then as
large as any order makes it, and so are RBR and RBA (each swap of two documents that breaks this order
cannot increase them, by the rearrangement inequality). The worst order is the mirror image: later reference
groups and absent documents first in the run's groups, later run groups and documents not in B first in
the reference's groups, documents sharing both groups in opposite orders. The tests compare both with every
order by brute force. Internal: used by :mod:`ir_rbstar.families.rankbiased`.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from ..core import rankbiased as K
from ..core.segments import seg_sum

__all__ = ["extreme"]

def _within_groups(pos: np.ndarray, start: np.ndarray, size: np.ndarray, sec: np.ndarray, tie: np.ndarray,
                   kernels=None) -> np.ndarray:
    """New 0-based positions of rows laid out query by query in rank order, each tie group (rows from
    ``start`` on, ``size`` of them) reordered by (``sec``, ``tie``), both non-negative integers; rows of
    other groups stay. ``kernels``: the compiled engine, if chosen (the same positions)."""
    if kernels:
        return kernels.reorder_within_groups(pos, size, sec, tie)
    first = pos == start
    group = np.cumsum(first) - 1
    order = _sort_by(group, sec, tie)
    heads = np.flatnonzero(first)
    out = np.empty(len(pos), dtype=np.int64)
    out[order] = start[order] + np.arange(len(pos)) - heads[group[order]]
    return out


def _sort_by(*keys: np.ndarray) -> np.ndarray:
    """The order that sorts rows by ``keys`` (non-negative integers, the first most significant): one
    argsort of a composite key where it fits in 62 bits, else a lexsort."""
    spans = [int(k.max(initial=0)) + 1 for k in keys]
    if int(np.prod([float(x) for x in spans])) < 2 ** 62:
        composite = np.zeros(len(keys[0]), dtype=np.int64)
        for key, span in zip(keys, spans, strict=True):
            composite = composite * span + key
        return np.argsort(composite, kind="stable")
    return np.lexsort(tuple(reversed(keys)))


def _orders(m, ctx: RunContext):
    """The extreme orders of both rankings for one (cutoff, reference, rel), the worst and the best (made
    together: they share every array but the sort keys): for the run's rows that may be in B their new
    0-based positions, and for those of them in R their new 1-based rank in R."""
    cutoff, ref, rel = m.params.get("cutoff"), m["ref"], m["rel"]

    def make():
        kernels = ctx.kernels()
        tied = ctx.tied_observation(cutoff)
        rows = tied.rows
        reference, b_in_r, _ = ctx.match(cutoff, ref, rel, m, tied=True)
        rstart_all, rsize_all = reference.tie_groups()
        matched = b_in_r >= 0
        found = np.flatnonzero(matched)
        src = b_in_r[found]
        # the run's side: within each tie group by the reference group (absent last / first), then the
        # document's row in the reference (an identifier both sides share)
        r_group = np.full(len(b_in_r), int(rstart_all.max(initial=0)) + 1, dtype=np.int64)
        r_group[found] = rstart_all[src]
        b_tie = np.where(matched, b_in_r, 0)
        # the reference's side: only where the documents of the run go matters. Within each tie group of
        # the reference they come first (best) or last (worst), by the run's group, then the same
        # identifier in the same (best) or the opposite (worst) order
        seg, rgs, rsz, bgrp = rows.seg[found], rstart_all[src], rsize_all[src], tied.start[found]
        out = {}
        for best in (True, False):
            b_sec = r_group if best else int(r_group.max(initial=0)) - r_group
            b_pos = _within_groups(rows.rank - 1, tied.start, tied.size, b_sec, b_tie, kernels)
            order = _sort_by(seg, rgs, bgrp, src) if best else \
                _sort_by(seg, rgs, int(bgrp.max(initial=0)) - bgrp, int(src.max(initial=0)) - src)
            s_seg, s_rgs = seg[order], rgs[order]
            head = np.r_[True, (s_seg[1:] != s_seg[:-1]) | (s_rgs[1:] != s_rgs[:-1])] if len(order) else \
                np.zeros(0, dtype=bool)
            heads = np.flatnonzero(head)
            run = np.cumsum(head) - 1
            index = np.arange(len(order)) - heads[run]
            rank = s_rgs + index + 1
            if not best:                                   # after the group's documents not in B
                count = np.diff(np.r_[heads, len(order)])
                rank += rsz[order] - count[run]
            rank_r = np.empty(len(found), dtype=np.int64)
            rank_r[order] = rank
            out[best] = (b_pos, rank_r)
        return tied, found, out, ctx.reference_rows(ref, rel, m).lens
    tied, found, out, lens = ctx.cached(("tie extremes", cutoff, ref, rel), make)
    return (tied, found) + out[m["stat"] == "max"] + (lens,)


def extreme(m, ctx: RunContext) -> np.ndarray:
    """The smallest (``stat='min'``) or largest (``'max'``) value of RBR, RBA, RBO or RBO_ext over every order
    of the ties of both rankings."""
    name, p, n = m.NAME, m["p"], ctx.n
    tied, found, b_pos, rank_r_found, r_lens = _orders(m, ctx)
    rows = tied.rows
    in_b = b_pos[found] < tied.blen[rows.seg[found]]
    shared = found[in_b]
    seg = rows.seg[shared]
    rank_b = b_pos[shared] + 1
    rank_r = rank_r_found[in_b]
    if name == "RBR":
        return seg_sum(K.rank_weights(rank_r, p), seg, n)
    if name == "RBA":
        return (1.0 - p) / p * seg_sum(np.power(p, (rank_b + rank_r) / 2.0), seg, n)
    key = ("tie extreme rbo", m.params.get("cutoff"), m["ref"], m["rel"], m["stat"], p)   # RBO and RBO_ext
    family = ctx.cached(key, lambda: K.rbo_family(n, p, tied.blen, r_lens, seg, rank_b, rank_r - 1,
                                                  np.ones(len(seg), dtype=np.int64)))
    return family[name]


def rbr_variance(m, ctx: RunContext) -> np.ndarray:
    """``RBR(stat='var')``: the variance of RBR over the orders of both rankings' ties, in closed form.

    RBR = sum over the documents e in B of W_e, the weight of e's place in R. Given which members X of a tie
    group straddling k are in B, the documents of B in one tie group of R (c of its n places) take c of
    the group's weights without replacement: variance c(n-c)/(n(n-1)) S, S = sum of (w - mean w)^2 over the
    group's places, and the groups are independent. Over X (t of the straddling group's g members, drawn
    without replacement) the count of a group's members in B is hypergeometric (so E[c] and E[c^2] are
    known), and E[RBR | X] = sum over B of the mean weights mu_e varies by t(g-t)/(g(g-1)) sum (mu - mean
    mu)^2. Var = E[Var(RBR | X)] + Var(E[RBR | X])."""
    p, cutoff, ref, rel, n = m["p"], m.params.get("cutoff"), m["ref"], m["rel"], ctx.n
    tied = ctx.tied_observation(cutoff)
    rows = tied.rows
    reference, b_in_r, _ = ctx.match(cutoff, ref, rel, m, tied=True)
    rstart, rsize = reference.tie_groups()
    found = np.flatnonzero(b_in_r >= 0)
    src = b_in_r[found]
    head = src - (reference.row_positions()[src] - rstart[src])          # the first row of e's group in R
    straddles = tied.kept[found] < tied.size[found]
    groups, first_of, where = np.unique(head, return_index=True, return_inverse=True)
    fixed = np.bincount(where, weights=~straddles, minlength=len(groups))
    member = np.bincount(where, weights=straddles, minlength=len(groups))
    # the straddling group of each query: g members, t of them in B
    g = np.ones(n)
    t = np.ones(n)
    first = np.flatnonzero(tied.kept < tied.size)
    g[rows.seg[first]] = tied.size[first]
    t[rows.seg[first]] = tied.kept[first]
    seg = rows.seg[found][first_of]                                    # each R group's query
    share = member / g[seg]
    mean_y = t[seg] * share
    var_y = np.where(g[seg] > 1, t[seg] * share * (1 - share) * (g[seg] - t[seg]) / np.maximum(g[seg] - 1, 1), 0.0)
    mean_c = fixed + mean_y
    size, start = rsize[groups].astype(np.float64), rstart[groups].astype(np.float64)
    total = np.power(p, start) * -np.expm1(size * np.log(p))                # sum of the group's weights
    squares = (1 - p) ** 2 * np.power(p, 2 * start) * -np.expm1(2 * size * np.log(p)) / (1 - p * p)
    spread = squares - total * total / size                                 # S
    within = np.where(size > 1, (mean_c * size - (var_y + mean_c ** 2)) * spread / (size * np.maximum(size - 1, 1)),
                      0.0)
    out = seg_sum(within, seg, n)
    # Var(E[RBR | X]) over the members of the straddling groups (mu = 0 for those not in R)
    members = np.flatnonzero(tied.kept < tied.size)
    mu = np.zeros(len(members))
    in_r = b_in_r[members] >= 0
    mu[in_r] = K.shared_weight(rstart[b_in_r[members][in_r]], rsize[b_in_r[members][in_r]], p)
    qm = rows.seg[members]
    mean_mu = seg_sum(mu, qm, n) / g
    dev = seg_sum((mu - mean_mu[qm]) ** 2, qm, n)
    out += np.where(g > 1, t * (g - t) / (g * np.maximum(g - 1, 1)) * dev, 0.0)
    return out
