"""Glue between the rank-biased declarations and their kernels: prepares the arrays, calls the kernels."""
from __future__ import annotations

import math
from typing import Dict, Iterable, Tuple, cast

import numpy as np

from ..context import RunContext
from ..core import rankbiased as K
from ..core.rbo_variants import rbo_variants
from ..core.segments import seg_sum
from ..io import dictscan
from .rankbiased_aux import with_aux
from .rankbiased_bounds import extreme, rbr_variance
from .rankbiased_ties import compute_tied



def compute(measures: Iterable, ctx: RunContext) -> Dict[object, np.ndarray]:
    out: Dict[object, np.ndarray] = {}
    rbo_cache: Dict[tuple, Dict[str, np.ndarray]] = {}
    kernels = None
    for m in measures:
        name, p, cutoff = m.NAME, m["p"], m.params.get("cutoff")
        if name in ("RBP", "RBP_res"):
            out[m] = _rbp(m, ctx, p, cutoff)
            continue
        ref, rel, ties = m["ref"], m["rel"], m["ties"]
        if ties in VARIANTS:
            out[m] = _variant(m, ctx)
            continue
        if "stat" in m.SUPPORTED_PARAMS and m["stat"] != "mean":
            out[m] = rbr_variance(m, ctx) if m["stat"] == "var" else extreme(m, ctx)
            continue
        if ties == "expected" and ctx.run.has_ties() and ctx.tied_observation(cutoff).tied:
            out[m] = compute_tied(m, ctx, rbo_cache)
            continue
        if kernels is None and name in _COMPILED:
            kernels = ctx.kernels() or False      # chosen once per evaluation, loaded only when used
        # the compiled engine's steps, or (below its size) their C counterparts for the RBO family
        steps = kernels or (name in _IN_C and dictscan.rbo_kernels())
        if steps and name in _COMPILED and not (ref is None and name == "RBO_res"):
            try:
                out[m] = _compiled(m, ctx, steps, rbo_cache)
                continue
            except dictscan.Declined:             # (a C step declined: the numpy path answers)
                pass
        b = ctx.observation(cutoff)
        reference, b_in_r, r_in_b = ctx.match(cutoff, ref, rel, m)
        matched = b_in_r >= 0
        if name not in ("RBO", "RBO_ext", "RBO_res"):
            start, size = _groups(reference, m)
        if name == "RBR":
            w = K.shared_weight(start[b_in_r[matched]], size[b_in_r[matched]], p)
            out[m] = seg_sum(w, b.seg[matched], ctx.n)
        elif name == "RBR_res":
            unknown = np.bincount(b.seg[_unknown(ctx, cutoff, ref, matched)], minlength=ctx.n)
            if ref is None:          # judged documents may be inserted anywhere in R by their grade
                w = K.shared_weight(start[b_in_r[matched]], size[b_in_r[matched]], p)
                out[m] = K.rbr_residual_open(seg_sum(w, b.seg[matched], ctx.n), unknown, p)
            else:
                out[m] = K.rbr_residual(ctx.reference_rows(ref, rel, m).lens, unknown, p)
        elif name == "RBA":
            rows = b_in_r[matched]
            out[m] = K.rba(b.rank[matched], K.half_power_mean(start[rows], size[rows], p), b.seg[matched], ctx.n, p)
        elif name == "RBA_res" and ref is None:
            unknown = _unknown(ctx, cutoff, ref, matched)
            bound = K.rba_residual_open(ctx.n, p, b.lens, b.rank[unknown].astype(np.float64), b.seg[unknown])
            rows = b_in_r[matched]
            value = K.rba(b.rank[matched], K.half_power_mean(start[rows], size[rows], p), b.seg[matched], ctx.n, p)
            out[m] = np.minimum(bound, np.maximum(1.0 - value, 0.0))       # RBA never exceeds 1
        elif name == "RBA_res":
            r = ctx.reference_rows(ref, rel, m)
            unknown = _unknown(ctx, cutoff, ref, matched)
            r_start, r_size = start[r.src], size[r.src]
            first = np.flatnonzero(r.rank - 1 == r_start)          # first row of each tie group
            gid = np.cumsum(r.rank - 1 == r_start) - 1
            missing = np.bincount(gid, weights=(~r_in_b).astype(np.float64), minlength=len(first))
            out[m] = K.rba_residual(ctx.n, p, b.lens, r.lens, np.bincount(b.seg[matched], minlength=ctx.n),
                                    b.rank[unknown].astype(np.float64), b.seg[unknown],
                                    r.seg[first], r_start[first], r_size[first], missing.astype(np.int64))
        else:  # RBO family: computed together
            key = (cutoff, ref, rel, p, ties)
            r = ctx.reference_rows(ref, rel, m)
            if key not in rbo_cache:
                rbo_cache[key] = K.rbo_family(ctx.n, p, b.lens, r.lens, *_shared_rows(ctx, b, b_in_r, m))
            family = rbo_cache[key]
            if name == "RBO_res" and ref is None:
                # a valid upper bound (also raised to RBO_ext, so that RBO <= RBO_ext <= RBO + RBO_res)
                start, size = _groups(reference, m)
                rows = b_in_r[matched]
                unknown = _unknown(ctx, cutoff, ref, matched)
                hi = K.rbo_upper_open(ctx.n, p, b.lens, r.lens, b.seg[matched], b.rank[matched], start[rows],
                                      size[rows], b.seg[unknown], b.rank[unknown])
                out[m] = np.maximum(np.maximum(hi, family["RBO_ext"]) - family["RBO"], 0.0)
            else:
                out[m] = _rbo_value(family, name)
    return out


_COMPILED = ("RBR", "RBA", "RBO", "RBO_res", "RBO_ext")
#: the measures whose compiled steps the C extension also has (:data:`.io.dictscan.RBO_KERNELS`)
_IN_C = ("RBO", "RBO_res", "RBO_ext")


def _compiled(m, ctx: RunContext, kernels, rbo_cache: dict) -> np.ndarray:
    """RBR, RBA and the RBO family by the compiled engine: sums over the shared documents, found query
    by query without gathering rows (the same formulas as the numpy path, item by item, in the same
    order: the same values bit for bit, ``tests/integration/test_engine.py``)."""
    name, p, cutoff, ref, rel = m.NAME, m["p"], m.params.get("cutoff"), m["ref"], m["rel"]
    reference, seg, rank, row, len_b, len_r = ctx.shared(cutoff, ref, rel, m, kernels)
    start, size = _groups(reference, m)
    # the powers come from tables made by numpy, the loops sum in the numpy path's order: its very doubles
    # (numpy's vectorised power and expm1 can differ from the C library's, which compiled code calls, in
    # the last bit)
    if name in ("RBR", "RBA"):
        top_t = int(start.max(initial=0)) + 1
        top_g = np.arange(int(size.max(initial=1)) + 1, dtype=np.float64)
        if name == "RBR":
            pw = np.power(p, np.arange(top_t, dtype=np.float64))
            return kernels.rbr_sums(ctx.n, seg, row, start, size, pw, -np.expm1(top_g * math.log(p)))
        q = math.sqrt(p)
        half = np.power(p, np.arange(int(rank.max(initial=0)) + 1) / 2.0)
        pq = np.power(q, np.arange(top_t, dtype=np.float64) + 1.0)
        return kernels.rba_sums(ctx.n, seg, rank, row, start, size, (1.0 - p) / p, q, half, pq,
                                -np.expm1(top_g * math.log(q)))
    key = (cutoff, ref, rel, p, m["ties"])
    if key not in rbo_cache:
        s, l = np.minimum(len_b, len_r), np.maximum(len_b, len_r)
        tables = K.rbo_tables(p, int(l.max(initial=0)))
        head, x_s = kernels.rbo_sums(ctx.n, seg, rank, row, start, size, l, s, tables[1], tables[2])
        x_l = np.bincount(seg, minlength=ctx.n).astype(np.float64)
        # (RBO_res, some fifteen numpy calls, only when a measure asks for it: _rbo_value)
        rbo_cache[key] = K.rbo_finish(p, s, l, head, x_l, x_s, tables, residual=False,
                                      finish_step=dictscan.rbo_finish_step())
        rbo_cache[key][_RESIDUAL] = (p, s, l, x_l, tables)
    return _rbo_value(rbo_cache[key], name)


#: where a family's entry of ``rbo_cache`` holds what RBO_res is computed from until it is asked for
_RESIDUAL = "residual of"


def _rbo_value(family: dict, name: str) -> np.ndarray:
    """``family[name]`` (RBO, RBO_ext, RBO_res), RBO_res computed on first use when the entry holds its
    inputs instead (:data:`_RESIDUAL`)."""
    if name == "RBO_res" and name not in family:
        p, s, l, x_l, tables = family.pop(_RESIDUAL)
        family[name] = K.rbo_residual(p, s, l, x_l.astype(np.int64), tables)
    return family[name]


def _shared_rows(ctx: RunContext, b, b_in_r: np.ndarray, m):
    """(query, rank in B, start and size of the reference's tie group) of the rows of B found in the
    reference, in B's order: what ``b.seg[matched]``, ``b.rank[matched]`` and :func:`_groups` at their
    reference rows give, read at those rows only (no column over all rows of B or of the reference: on
    runs of a quarter of a million rows each such column costs its page faults)."""
    at = np.flatnonzero(b_in_r >= 0)
    rows = b_in_r[at]
    seg = b.seg_at_ascending(at)
    rank = at - (np.cumsum(b.lens) - b.lens)[seg] + 1           # (B's rows are laid out query after query)
    pos = rows - ctx.reference_ranges(m["ref"], m["rel"], m)[0][seg]       # (a pair's rows are of one query)
    if m["ties"] == "docid" and m["ref"] is not None:
        return seg, rank, pos, np.ones(len(pos), dtype=np.int64)
    start, size = ctx.reference(m["ref"], m["rel"], m).tie_groups_at(rows, pos=pos)
    return seg, rank, start, size


def _groups(reference, m):
    """The reference's tie groups (0-based start and size of each row's group); with ``ties='docid'`` a
    reference run's ties are broken as trec_eval orders a run (its stored order), so every group is one
    row. A qrels-derived reference keeps its ties (equal grades have no order)."""
    if m["ties"] == "docid" and m["ref"] is not None:
        pos = reference.row_positions()
        return pos, np.ones(len(pos), dtype=np.int64)
    return reference.tie_groups()


#: the values of ``ties`` that select one of Corsi & Urbano's variants (RBO, RBO_res, RBO_ext)
VARIANTS = ("w", "a", "b")
_SCORE = {"RBO": "min", "RBO_res": "res", "RBO_ext": "ext"}


def _variant(m, ctx: RunContext) -> np.ndarray:
    """RBO, RBO_res or RBO_ext in Corsi & Urbano's variant ``ties`` (w, a or b): the run's top k (a tie
    group that straddles k kept whole) against the reference with its ties. A query the run does not
    answer gets the measure's DEFAULT (0, or 1 for RBO_res), as with every other ``ties``."""
    p, cutoff, ref, rel, ties = m["p"], m.params.get("cutoff"), m["ref"], m["rel"], m["ties"]

    def make():
        tied = ctx.tied_observation(cutoff)
        b = tied.rows
        reference = ctx.reference(ref, rel, m)
        r = ctx.reference_rows(ref, rel, m)
        r_start, r_size = (a[r.src] for a in reference.tie_groups())
        scores = rbo_variants(p, ties, ctx.n, b.seg, b.docs.view(np.int64), tied.start, tied.size,
                              r.seg, r.docs.view(np.int64), r_start, r_size)
        unanswered = tied.blen == 0
        for name, score in _SCORE.items():
            scores[score][unanswered] = 1.0 if name == "RBO_res" else 0.0
        return scores
    return ctx.cached(("rbo variant", cutoff, ref, rel, p, ties), make)[_SCORE[m.NAME]]


def _unknown(ctx: RunContext, cutoff, ref, matched: np.ndarray) -> np.ndarray:
    """Items of B whose rank in R is unknown: not in R and, for a qrels-derived R, not judged."""
    if ref is None:
        _, judged = ctx.judgments(cutoff)
        return ~matched & ~judged
    return ~matched


def _rbp(m, ctx: RunContext, p: float, cutoff) -> np.ndarray:
    ctx.require_qrels(m)
    b = ctx.observation(cutoff)
    grade, judged = ctx.judgments(cutoff)
    if m.params.get("aux") is not None:
        grade, judged = with_aux(m, ctx, cutoff, grade, judged)
    key = ("rbp weights", cutoff, p)
    if m.NAME == "RBP_res":
        # the weights of B's ranks, shared by RBP_res and RBP of the same p and cutoff
        weight = ctx.cached(key, lambda: K.rank_weights(b.rank, p))
        return K.rbp_residual(~judged, weight, b.seg, ctx.n, b.lens, p)
    some, gain = rbp_gain_rows(m, ctx, grade, judged)
    seg, weight = _weights_at(ctx, b, key, p, some)
    return seg_sum(gain * weight, seg, ctx.n)          # RBP, eq. 4: sum of gain x (1-p) p^(rank-1)


def _weights_at(ctx: RunContext, b, key, p: float, rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(query, RBP weight) of B's ``rows``: the weights RBP_res cached for the whole of B when it has, else
    the same doubles made at these rows alone (RBP reads only the rows with a gain, usually few: no
    full-length rank, query or weight column of B is made for it)."""
    weights = ctx.held(key)
    if weights is not None:
        return b.seg_at(rows), cast(np.ndarray, weights)[rows]
    seg, rank = b.seg_rank_at(rows)
    return seg, K.rank_weights_at(rank, p, int(b.lens.max(initial=0)))


def rbp_gain(m, ctx: RunContext, grade: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """RBP's gain: 1/0 for grade >= rel; without rel, max(grade, 0) / max_rel (the top of the grade scale,
    1 unless given; a judgment above it raises GradeScaleError)."""
    rel = m.params.get("rel")
    if rel is not None:
        return (judged & (grade >= rel)).astype(np.float64)
    return np.where(judged, np.maximum(grade, 0), 0) / float(_grade_top(m, ctx))


def rbp_gain_rows(m, ctx: RunContext, grade: np.ndarray, judged: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The rows with a gain and their gains: ``rbp_gain(...)[rows]`` where it is not 0, the same doubles,
    without a full-length gain column (only the judged rows above the bottom grade have one)."""
    rel = m.params.get("rel")
    if rel is not None:
        rows = np.flatnonzero(judged & (grade >= rel))
        return rows, np.ones(len(rows))
    top = _grade_top(m, ctx)
    rows = np.flatnonzero(judged & (grade > 0))
    return rows, grade[rows] / float(top)


def _grade_top(m, ctx: RunContext):
    """``max_rel`` (1 unless given), checked against the judgments' grades."""
    top = m.params.get("max_rel", 1)
    ctx.check_grade_scale(m, top)
    return top
