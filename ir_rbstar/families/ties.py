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
            cut: Dict[Optional[int], tuple] = {}          # the rows of each cutoff, shared by its measures
            for m in ms:
                out[m] = _aware(m, ctx, rows,
                                lambda k, cut=cut, rows=rows, depth=depth: _cut(cut, k, rows, depth, ctx.n))
        else:
            for m in ms:
                out[m] = _ordered(m, ctx, rows)
    return out


def _relevant(m, grade: np.ndarray, judged: np.ndarray) -> np.ndarray:
    return judged & (grade >= param(m, "rel"))


def _cut(cache: dict, k: Optional[int], rows: RankedRows, depth: Optional[int], n: int):
    """(groups, grade, judged) of the whole tie groups that start above k."""
    if k not in cache:
        if k is not None and (depth is None or k < depth):
            keep = np.flatnonzero(rows.start < k)
            cache[k] = (K.make_groups(rows.seg[keep], rows.pos[keep], rows.start[keep], rows.size[keep], n),
                        rows.grade[keep], rows.judged[keep])
        else:
            cache[k] = (K.make_groups(rows.seg, rows.pos, rows.start, rows.size, n), rows.grade, rows.judged)
    return cache[k]


def _aware(m, ctx: RunContext, rows: RankedRows, cut) -> np.ndarray:
    k = param(m, "cutoff")
    name = m.NAME[:-3]
    stat = param(m, "stat")
    if stat in ("min", "max"):
        return _ordered(m, ctx, _extreme_order(rows, _gain_key(m, ctx, name, rows), best=stat == "max"), name)
    if name in ("AP", "RR"):                       # only the groups with a relevant document matter
        rel = _relevant(m, rows.grade, rows.judged)
        groups = K.relevant_groups(rows.seg, rows.start, rows.size, rel, ctx.n)
        if name == "AP":
            return K.expected_ap(groups, k, ctx.relevant_counts(param(m, "rel")))
        return K.expected_rr(groups, k)
    groups, grade, judged = cut(k)
    if name == "nDCG":
        gain = _ndcg_gain(m, grade, judged)
        _, cum = K.discount_cum(int((groups.gstart + groups.gsize).max(initial=0)))
        return K.safe_divide(K.expected_weighted(groups, gain, lambda e: cum[e], k), _ideal(m, ctx, k))
    if name == "RBP":
        return K.expected_weighted(groups, rbp_gain(m, ctx, grade, judged), K.rbp_cum(m["p"]), k)
    rel = _relevant(m, grade, judged)
    count = K.expected_weighted(groups, rel.astype(np.float64), lambda e: e.astype(np.float64), k)
    return _from_count(name, m, ctx, count, k)


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
        return K.ap_ordered(seg, pos, rel, n, k, ctx.relevant_counts(param(m, "rel")))
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
    num_rel = ctx.relevant_counts(param(m, "rel"))
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
    return np.maximum(gain, 0.0)                   # negative gains count as 0, as in trec_eval


def _ndcg_gain(m, grade: np.ndarray, judged: np.ndarray) -> np.ndarray:
    gain = _gain_of_grades(m, grade)
    gain[~judged] = 0.0
    return gain


def _ideal(m, ctx: RunContext, k: Optional[int]) -> np.ndarray:
    mapping = param(m, "gains")
    key = ("ideal_dcg", param(m, "dcg"), None if not mapping else tuple(sorted(mapping.items())), k)
    def make():
        q, grades = ctx.qrels_rows()
        return K.ideal_dcg(q, _gain_of_grades(m, grades), ctx.n, k)
    return ctx.cached(key, make)
