"""Glue between the MED declarations and their kernels: both lists cut at k, joined, judged, then solved."""
from __future__ import annotations

import warnings
from typing import Dict, Iterable, Optional, Tuple

import numpy as np

from ..context import Rows, RunContext, gather
from ..core import med as K
from ..core.ties import discount_cum
from ..errors import BudgetWarning, ParameterError
from ..io import QUERY_IDS, DocIndex, verify_ids

GRADED = ("MED_nDCG", "MED_ERR")


def lists(ctx: RunContext, cutoff: Optional[int], ref: str, measure, judgments: bool = True) -> Tuple[K.Side, K.Side]:
    """(A, B): the run and the reference cut at ``cutoff``, each row with its grade (NaN when unjudged,
    or for every row when ``judgments`` is False or there are no qrels) and the 1-based rank of its
    document in the other list (0 when absent)."""
    def make():
        a = ctx.observation(cutoff)
        if cutoff is None:
            reference, a_in_r, _ = ctx.match(None, ref, 1, measure)
            b = ctx.reference_rows(ref, 1, measure)   # the rows that join gathered: the same, made once
            row_in_b = np.full(len(reference), -1, dtype=np.int64)
            row_in_b[b.src] = np.arange(len(b.src))
            hit = np.flatnonzero(a_in_r >= 0)
            b_rows = row_in_b[a_in_r[hit]]           # never -1: the join found them among b's rows
        else:
            # only the reference's top k can be a partner: A's rows are joined with those (a hash index of
            # B's top k), not with every row of the reference (a fifth of the family table's time on
            # Robust04's depth-1000 runs went to looking up all of a reference's rows in A's top k)
            reference = ctx.reference(ref, 1, measure)
            b = gather(reference, ctx.universe, cutoff)
            a_in_b = _join(ctx, a, b, reference.source)
            hit = np.flatnonzero(a_in_b >= 0)
            b_rows = a_in_b[hit]
        a_partner = np.zeros(len(a.src), dtype=np.int64)
        b_partner = np.zeros(len(b.src), dtype=np.int64)
        a_partner[hit] = b.rank[b_rows]
        b_partner[b_rows] = a.rank[hit]
        judged = judgments and ctx.qrels is not None
        grade_a = _grades(*ctx.judgments(cutoff)) if judged else np.full(len(a.src), np.nan)
        if judged:
            grade_b = _grades(*ctx.qrels.lookup(ctx.queries(b), b.docs, b.dbytes))
        else:
            grade_b = np.full(len(b.src), np.nan)
        side_a = K.Side(a.seg, a.rank, grade_a, a_partner, a.lens)
        side_b = K.Side(b.seg, b.rank, grade_b, b_partner, b.lens)
        return side_a, side_b
    return ctx.cached(("med_lists", cutoff, ref, judgments), make)


def _join(ctx: RunContext, a: Rows, b: Rows, source: str) -> np.ndarray:
    """The row of ``b`` holding each row's document of ``a`` for the same query (-1: none), every match
    verified by its id (as the context's joins do)."""
    found = DocIndex(ctx.queries(b), b.docs).lookup(ctx.queries(a), a.docs)
    verify_ids(b.dbytes, found, a.dbytes, source)
    return found


def _grades(grade: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """Grades as floats, NaN where unjudged."""
    return np.where(judged, grade.astype(np.float64), np.nan)


def _valued(side: K.Side, values) -> K.Side:
    """The side with grades replaced by values (NaN stays NaN: unjudged)."""
    judged = np.flatnonzero(~np.isnan(side.value))     # row numbers: indexed twice
    value = np.full(len(side.value), np.nan)
    value[judged] = values(side.value[judged])
    return K.Side(side.seg, side.pos, value, side.partner, side.lens)


def top_grade(ctx: RunContext, m) -> int:
    """G of the graded measures: ``max_rel`` (default 1), never the qrels' highest grade, so that a query's
    value does not depend on the other queries' judgments. With judgments used, a judged grade above it
    raises GradeScaleError."""
    G = int(m["max_rel"])
    if m["judgments"] and ctx.qrels is not None:
        ctx.check_grade_scale(m, G, "judgments=False for a judgment-free distance")
    return G


def searched(m, ctx: RunContext) -> K.Searched:
    """Per-query values of one MED measure with, for MED_AP and MED_ERR, whether each is the exact maximum
    or a certified upper bound (its search reached ``budget``), and the search nodes per direction. The
    closed-form measures are always exact (0 nodes)."""
    name, cutoff, ref = m.NAME, m.params.get("cutoff"), m["ref"]
    a, b = lists(ctx, cutoff, ref, m, m["judgments"])
    if name in GRADED:
        G = top_grade(ctx, m)
        top = (2.0 ** G - 1.0) / 2.0 ** G
        value = lambda g: (2.0 ** np.maximum(g, 0) - 1.0) / 2.0 ** G   # noqa: E731
    else:
        top, rel = 1.0, m["rel"]
        value = lambda g: (g >= rel).astype(np.float64)   # noqa: E731
    a, b = _valued(a, value), _valued(b, value)
    if name in ("MED_ERR", "MED_AP"):
        solve = K.med_ap if name == "MED_AP" else K.med_err
        return solve(K.dense(a, b, ctx.n, cutoff, top), K.dense(b, a, ctx.n, cutoff, top), int(m["budget"]))
    v = _dot(name, m, a, b, ctx.n, cutoff, top)
    return K.Searched(v, v, np.ones(ctx.n, dtype=bool), np.zeros((ctx.n, 2), dtype=np.int64))


def compute(measures: Iterable, ctx: RunContext) -> Dict[object, np.ndarray]:
    out: Dict[object, np.ndarray] = {}
    bounded = []
    # measures without a cutoff first: their full-depth join then serves the cut ones
    for m in sorted(measures, key=lambda m: m.params.get("cutoff") is not None):
        result = searched(m, ctx)
        out[m] = result.value
        if not result.exact.all():
            bounded.append((m, np.flatnonzero(~result.exact)))
    if bounded:
        warnings.warn(BudgetWarning(budget_message(bounded, ctx)), stacklevel=2)
    return out


def budget_message(bounded, ctx: RunContext, shown: int = 5) -> str:
    """The text of the one BudgetWarning of an evaluation: per measure, how many queries have a bound
    rather than an exact value, the first ``shown`` of them, and what to do."""
    parts = []
    for m, rows in bounded:
        qids = ", ".join(repr(q) for q in QUERY_IDS.decode(ctx.universe[rows[:shown]]))
        more = f" and {len(rows) - shown} more" if len(rows) > shown else ""
        budget = int(m["budget"])                 # as given, else the default for the cutoff
        raised = type(m)(**{**m.params, "budget": 10 * budget})
        parts.append(f"{m}: {len(rows)} of {ctx.n} queries reached the search budget of {budget} nodes per "
                     f"query and direction (queries {qids}{more}); their values are certified upper bounds of "
                     f"the maximum, not exact values. Raise budget= for exact values, e.g. {raised}")
    return ("; ".join(parts) + ". ir_rbstar.med.exactness() tells which queries are exact.")


def _dot(name: str, m, a: K.Side, b: K.Side, n: int, cutoff: Optional[int], top: float) -> np.ndarray:
    """MED of the dot-product measures (P, RBP, nDCG): both directions, the larger one."""
    if cutoff is None and name != "MED_RBP":
        raise ParameterError(f"{m}: {name} needs a cutoff (e.g. {name}(ref=...)@10)")
    k = int(cutoff or 0)
    if name == "MED_RBP":
        p = m["p"]
        disc = lambda i: (1.0 - p) * p ** (i - 1.0)       # noqa: E731
        end = 0.0 if cutoff is None else p ** float(cutoff)
        tail = lambda lens: p ** lens.astype(np.float64) - end   # noqa: E731
        norm = 1.0
    elif name == "MED_P":
        disc = lambda i: np.ones(len(i))                  # noqa: E731 (rows are within the top k)
        tail = lambda lens: (k - lens).astype(np.float64)   # noqa: E731
        norm = float(k)
    else:  # MED_nDCG
        disc = lambda i: 1.0 / np.log2(i + 1.0)           # noqa: E731
        _, cum = discount_cum(k)
        tail = lambda lens: cum[k] - cum[lens]            # noqa: E731
        norm = top * float(cum[cutoff])
    ab = K.dot_direction(a, b, disc, tail(a.lens), top, n)
    ba = K.dot_direction(b, a, disc, tail(b.lens), top, n)
    return np.maximum(np.maximum(ab, ba), 0.0) / norm
