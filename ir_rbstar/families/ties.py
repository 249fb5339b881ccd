"""Glue between the tie-aware declarations (and ir_measures' P, R, AP, RR, nDCG) and their kernels.

The ``_TA`` measures average over the orderings of tie groups; ir_measures' own ``P``, ``R``, ``AP``,
``RR`` and ``nDCG`` are computed in trec_eval order by the same machinery (served only when this
package's provider is chosen, or when no built-in provider supports their parameters).
"""
from __future__ import annotations

from typing import Dict, Iterable, Optional

import numpy as np
from ..measures.base import NOT_PROVIDED as _NOT_PROVIDED, RbstarMeasure

from ..context import RankedRows, RunContext
from ..core import ties as K
from ..errors import ParameterError
from .qrels_kept import kept
from .rankbiased import rbp_gain

SUPPORTED_ORDERED_PARAMS = {"P": {"cutoff", "rel", "judged_only"}, "R": {"cutoff", "rel", "judged_only"},
                            "AP": {"cutoff", "rel", "judged_only"}, "RR": {"cutoff", "rel", "judged_only"},
                            "nDCG": {"cutoff", "dcg", "gains", "judged_only"}}


def param(m, name: str):
    """A measure's parameter, its default when not given, None when it has neither."""
    value = m.params.get(name, _NOT_PROVIDED)
    if value is _NOT_PROVIDED and name in m.SUPPORTED_PARAMS:
        value = m.SUPPORTED_PARAMS[name].default
    return None if value is _NOT_PROVIDED else value


def check_ordered(m) -> bool:
    """Whether ir_measures' own ``m`` (P, R, AP, RR, nDCG) has parameters this family computes; raises
    ParameterError for values no provider could use (missing or non-positive cutoff, ...)."""
    if set(m.params) - SUPPORTED_ORDERED_PARAMS[m.NAME]:
        return False
    for name, info in m.SUPPORTED_PARAMS.items():
        if name not in SUPPORTED_ORDERED_PARAMS[m.NAME]:
            continue
        value = m.params.get(name, _NOT_PROVIDED)
        if not info.validate(value):
            what = "is required" if value is _NOT_PROVIDED else f"={value!r} is not valid"
            raise ParameterError(f"{m.NAME}: parameter {name} {what}")
    cutoff = param(m, "cutoff")
    if cutoff is not None and cutoff <= 0:
        raise ParameterError(f"{m.NAME}: cutoff @{cutoff} must be a positive integer")
    return True


def compute(measures: Iterable, ctx: RunContext) -> Dict[object, np.ndarray]:
    measures = list(measures)
    ctx.require_qrels(measures[0])
    plans: Dict[tuple, list] = {}
    for m in measures:
        plans.setdefault((isinstance(m, RbstarMeasure), bool(param(m, "judged_only"))), []).append(m)
    out: Dict[object, np.ndarray] = {}
    for (aware, judged_only), ms in plans.items():
        cutoffs = [param(m, "cutoff") for m in ms]
        depth = None if any(c is None for c in cutoffs) else max(cutoffs)
        rows = ctx.ranked(depth, judged_only, aware)
        if aware:
            # the rows of each cutoff and the relevant rows of each rel, shared by the plan's measures
            cut: Dict[Optional[int], tuple] = {}
            shared = _Shared(rows, lambda k, cut=cut, rows=rows, depth=depth: _cut(cut, k, rows, depth, ctx.n))
            for m in ms:
                out[m] = _aware(m, ctx, rows, shared)
        else:
            for m in ms:
                out[m] = _ordered(m, ctx, rows)
    return out


def _relevant(m, grade: np.ndarray, judged: np.ndarray) -> np.ndarray:
    return judged & (grade >= param(m, "rel"))


class _Shared:
    """What the tie-aware measures of one plan share: the rows of each cutoff (``cut(k)``: see :func:`_cut`)
    and the tie groups holding a relevant row, for each ``rel``."""

    def __init__(self, rows: RankedRows, cut):
        self.rows = rows
        self.cut = cut
        self._relevant: Dict[int, K.RelevantGroups] = {}

    def relevant_groups(self, m, n: int) -> K.RelevantGroups:
        rel = param(m, "rel")
        if rel not in self._relevant:
            rows = self.rows
            self._relevant[rel] = K.relevant_groups(rows.seg, rows.start, rows.size,
                                                    _relevant(m, rows.grade, rows.judged), n)
        return self._relevant[rel]


def _cut(cache: dict, k: Optional[int], rows: RankedRows, depth: Optional[int], n: int):
    """(groups, grade, judged, pos) of the whole tie groups that start above k."""
    if k not in cache:
        if k is not None and (depth is None or k < depth):
            keep = (rows.start < k).nonzero()[0]
            pos = rows.pos[keep]
            cache[k] = (K.make_groups(rows.seg[keep], pos, rows.start[keep], rows.size[keep], n),
                        rows.grade[keep], rows.judged[keep], pos)
        else:
            cache[k] = (K.make_groups(rows.seg, rows.pos, rows.start, rows.size, n), rows.grade, rows.judged,
                        rows.pos)
    return cache[k]


def _aware(m, ctx: RunContext, rows: RankedRows, shared: _Shared) -> np.ndarray:
    k = param(m, "cutoff")
    cut = shared.cut
    name = m.NAME[:-3]
    stat = param(m, "stat")
    if stat in ("min", "max"):
        return _ordered(m, ctx, _extreme_order(rows, _gain_key(m, ctx, name, rows), best=stat == "max"), name)
    if stat == "var":
        return _variance(m, ctx, name, k, *cut(k))
    if name in ("AP", "RR"):                       # only the groups with a relevant document matter
        groups = shared.relevant_groups(m, ctx.n)
        if name == "AP":
            return K.expected_ap(groups, k, _num_rel(ctx, param(m, "rel")))
        return K.expected_rr(groups, k)
    groups, grade, judged, _ = cut(k)
    if name == "nDCG":
        gain = _ndcg_gain(m, grade, judged)
        _, cum = K.discount_cum(int(groups.end(k).max(initial=0)))      # (the table's first entries)
        return K.safe_divide(K.expected_weighted(groups, gain, lambda e: cum[e], k), _ideal(m, ctx, k))
    if name == "RBP":
        return K.expected_weighted(groups, rbp_gain(m, ctx, grade, judged), K.rbp_cum(m["p"]), k)
    rel = _relevant(m, grade, judged)
    count = K.expected_weighted(groups, rel.astype(np.float64), None, k)      # w = 1: cum(m) = m
    return _from_count(name, m, ctx, count, k)


def _variance(m, ctx: RunContext, name: str, k: Optional[int], groups: K.TieGroups, grade: np.ndarray,
              judged: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The variance over the uniformly random orders of the tie groups of a linear measure: the value is
    sum_j a(v_j) c(j) with c(j) = 0 beyond k, so each group adds (1/(g-1)) sum (a - mean a)^2 sum (c - mean c)^2
    (:func:`~ir_rbstar.core.ties.variance_weighted`). A factor of the weights common to a whole query
    (1/k, 1/|Rel|, 2/(k+|Rel|), 1/IDCG) multiplies the query's variance by its square."""
    inside = (pos < k) if k is not None else np.ones(len(pos), dtype=bool)
    if name == "nDCG":
        gain = _ndcg_gain(m, grade, judged)
        w, _ = K.discount_cum(int(pos.max(initial=0)) + 1)
        var = K.variance_weighted(groups, gain, np.where(inside, w[pos + 1], 0.0))
        ideal = _ideal(m, ctx, k)
        return K.safe_divide(var, ideal * ideal)
    if name == "RBP":
        p = m["p"]
        weight = np.where(inside, (1.0 - p) * np.power(p, pos.astype(np.float64)), 0.0)
        return K.variance_weighted(groups, rbp_gain(m, ctx, grade, judged), weight)
    if name not in ("P", "R", "F1") or k is None:
        raise ParameterError(f"{m}: stat='var' is defined only for P_TA, R_TA, F1_TA (with a cutoff), "
                             f"nDCG_TA and RBP_TA")
    rel = _relevant(m, grade, judged)
    var = K.variance_weighted(groups, rel.astype(np.float64), inside.astype(np.float64))
    if name == "P":                                # P@k = count / k
        return var / (k * k)
    num_rel = _num_rel(ctx, param(m, "rel"))
    if name == "R":                                # R@k = count / |Rel| (0 when |Rel| = 0)
        return K.safe_divide(var, num_rel * num_rel)
    return 4.0 * var / ((k + num_rel) ** 2)        # F1@k = 2 count / (k + |Rel|)


def _ordered(m, ctx: RunContext, rows: RankedRows, name: Optional[str] = None) -> np.ndarray:
    """The tie-oblivious measure ``name`` (default: the measure's own name) of rows in their order."""
    name = name or m.NAME
    k = param(m, "cutoff")
    seg, pos, n = rows.seg, rows.pos, ctx.n
    if name == "nDCG":
        gain = _ndcg_gain(m, rows.grade, rows.judged)
        w, _ = K.discount_cum(int(pos.max(initial=0)) + 1)
        return K.safe_divide(K.weighted_ordered(seg, pos, gain, w, n, k), _ideal(m, ctx, k))
    if name == "RBP":
        gain = rbp_gain(m, ctx, rows.grade, rows.judged)
        w = np.zeros(int(pos.max(initial=0)) + 2)
        w[1:] = (1.0 - m["p"]) * np.power(m["p"], np.arange(len(w) - 1, dtype=np.float64))
        return K.weighted_ordered(seg, pos, gain, w, n, k)
    rel = _relevant(m, rows.grade, rows.judged)
    if name == "AP":
        return K.ap_ordered(seg, pos, rel, n, k, _num_rel(ctx, param(m, "rel")))
    if name == "RR":
        return K.rr_ordered(seg, pos, rel, n, k)
    keep = rel & (pos < k) if k is not None else rel
    count = np.bincount(seg[keep], minlength=n).astype(np.float64)
    return _from_count(name, m, ctx, count, k)


def _gain_key(m, ctx: RunContext, name: str, rows: RankedRows) -> np.ndarray:
    """What a row is worth to the measure ``name``: its gain (nDCG, RBP) or whether it is relevant."""
    if name == "nDCG":
        return _ndcg_gain(m, rows.grade, rows.judged)
    if name == "RBP":
        return rbp_gain(m, ctx, rows.grade, rows.judged)
    return _relevant(m, rows.grade, rows.judged).astype(np.float64)


def _extreme_order(rows: RankedRows, key: np.ndarray, best: bool) -> RankedRows:
    """The rows that count (``key`` > 0) at their positions in the best (``best``) or worst order of their
    tie groups: within each group by ``key`` descending at the group's first positions (best), or ascending
    at its last positions (worst); each row then its own group. Every measure of the family is
    non-decreasing when a row of higher key moves up past one of lower key, so these orders give its
    maximum and minimum over all orders of the ties; rows with key 0 add nothing wherever they stand, so
    only the others are sorted (few, against the whole run)."""
    sel = np.flatnonzero(key > 0)
    seg, start, size, k = rows.seg[sel], rows.start[sel], rows.size[sel], key[sel]
    order = np.lexsort((-k if best else k, start, seg))
    seg, start, size, sel = seg[order], start[order], size[order], sel[order]
    m = len(sel)
    first = np.r_[True, (seg[1:] != seg[:-1]) | (start[1:] != start[:-1])] if m else np.zeros(0, dtype=bool)
    firsts = np.flatnonzero(first)
    rank = np.arange(m) - np.repeat(firsts, np.diff(np.r_[firsts, m]))          # rank within the group
    count = np.repeat(np.diff(np.r_[firsts, m]), np.diff(np.r_[firsts, m]))     # counted rows in the group
    pos = start + rank if best else start + size - count + rank
    return RankedRows(seg, pos, pos, np.ones(m, dtype=np.int64), rows.grade[sel], rows.judged[sel])


def _from_count(name: str, m, ctx: RunContext, count: np.ndarray, k: int) -> np.ndarray:
    """P, R or F1 at k from the (expected) number of relevant documents in the top k."""
    if name == "P":
        return count / k
    num_rel = _num_rel(ctx, param(m, "rel"))
    if name == "R":
        return K.safe_divide(count, num_rel)
    return 2.0 * count / (k + num_rel)            # F1


def _gain_of_grades(m, grades: np.ndarray) -> np.ndarray:
    gain = grades.astype(np.float64)
    mapping = param(m, "gains")
    if mapping:
        for grade, value in mapping.items():
            gain[grades == grade] = value
    if param(m, "dcg") == "exp-log2":
        gain = np.exp2(gain) - 1.0
    return np.maximum(gain, 0.0, out=gain)         # negative gains count as 0, as in trec_eval


def _ndcg_gain(m, grade: np.ndarray, judged: np.ndarray) -> np.ndarray:
    gain = _gain_of_grades(m, grade)
    np.copyto(gain, 0.0, where=~judged)
    return gain


def _ideal(m, ctx: RunContext, k: Optional[int]) -> np.ndarray:
    mapping = param(m, "gains")
    key = ("ideal_dcg", param(m, "dcg"), None if not mapping else tuple(sorted(mapping.items())), k)
    def make():
        q, grades = ctx.qrels_rows()
        return K.ideal_dcg(q, _gain_of_grades(m, grades), ctx.n, k)
    return kept(ctx, key, make)


def _num_rel(ctx: RunContext, rel: int) -> np.ndarray:
    """Number of judged documents with grade >= rel of each universe query (kept with the qrels)."""
    return kept(ctx, ("num_rel", rel), lambda: ctx.relevant_counts(rel))
