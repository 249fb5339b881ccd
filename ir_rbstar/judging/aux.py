"""Evaluation with auxiliary judgments (an LLM, a classifier, another assessor), with provenance.

The human qrels come first; the auxiliary qrels only fill documents the human qrels leave unjudged (where
both judge a document, the human grade stands). For RBP (the measure with a residual of the rank-biased
family that scores a run against qrels), every per-query value splits into

* ``human`` -- RBP with the human judgments alone (unjudged documents gain 0);
* ``auxiliary`` -- what the auxiliary judgments add: RBP with the merged judgments minus ``human``;
* ``residual`` -- RBP_res with the merged judgments: what still nobody has judged, plus the tail;

and ``value`` = ``human`` + ``auxiliary`` is RBP with the merged judgments; the true value (were every
document judged by a human who agreed with the auxiliary judge) lies in [value, value + residual]. Also
``auxiliary_weight``, the rank weight of the documents only the auxiliary judge saw: ``auxiliary`` is at
most that, and ``auxiliary_weight + residual`` is the human-only residual RBP_res (tests/judging/test_aux.py
checks both sums, and that without auxiliary judgments ``auxiliary`` is 0 and the rest are the plain
values). Every number is the package's own RBP / RBP_res through ``ir_measures`` (one query, one number).

An auxiliary grade outside the grade scale -- above ``max_rel`` (graded RBP), or below the lowest grade
of the scale (0, or the lowest human grade if lower) -- raises :class:`~ir_rbstar.errors.GradeScaleError`
naming the query and document.

:func:`aux_verdicts` says which robust verdicts (:func:`ir_rbstar.stats.robust_table` against a baseline, or
:func:`ir_rbstar.stats.robust_pairs` over every pair of runs) depend on the auxiliary judgments: the verdict with
the human judgments alone differs from the one with the merged judgments.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import pandas as pd

from ..errors import ParameterError
from ..io import QUERY_IDS, Qrels, to_qrels
from ..io.ids import _to_str
from .pool import _as_rankings, check_grade_scale, is_residual, load_judgments, measure_or_default, weights_of

__all__ = ["check_aux_grades", "merge_judgments", "aux_split", "aux_verdicts", "AUX_COLUMNS"]

AUX_COLUMNS = ("run", "query_id", "human", "auxiliary", "auxiliary_weight", "residual", "value", "upper")


def _frame(q: Qrels) -> pd.DataFrame:
    return pd.DataFrame({"query_id": QUERY_IDS.decode(q.rowq), "doc_id": _to_str(q.rowb), "relevance": q.grades})


def check_aux_grades(human: Qrels, aux: Qrels, top: int) -> None:
    """Every auxiliary grade on the grade scale: from 0 (or the lowest human grade if lower) to ``top``; else
    a :class:`~ir_rbstar.errors.GradeScaleError` naming the source, the query and the document of the first
    grade outside it (never clipped)."""
    low = min(0, int(human.grades.min()) if len(human.grades) else 0)
    check_grade_scale(aux, low, top, "auxiliary")


def merge_judgments(human: Any, aux: Any, max_rel: Optional[int] = None) -> tuple:
    """(merged qrels frame, provenance Series 'human'/'auxiliary' aligned with it): the human judgments and
    the auxiliary ones for documents the human qrels lack. ``max_rel`` (the top of the scale) checks the
    auxiliary grades; the bottom is 0 or the lowest human grade."""
    h = load_judgments(human)
    a = load_judgments(aux, "aux")
    if h is None:
        raise ParameterError("qrels: the human judgments are needed (auxiliary ones only fill their gaps)")
    if a is None:
        a = to_qrels(pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}).astype(
            {"query_id": str, "doc_id": str, "relevance": int}))
    check_aux_grades(h, a, max_rel if max_rel is not None else (int(h.grades.max()) if len(h.grades) else 1))
    _, known = h.lookup(a.rowq, a.rowd, a.rowb)
    hf, af = _frame(h), _frame(a)[~known]
    merged = pd.concat([hf, af], ignore_index=True)
    source = pd.Series(["human"] * len(hf) + ["auxiliary"] * len(af))
    return merged, source


def aux_split(runs: Any, qrels: Any, aux: Any = None, measure: Optional[str] = None) -> pd.DataFrame:
    """Per run and query (:data:`AUX_COLUMNS`): ``measure`` (an ``RBP`` string; default ``RBP(p=0.8)`` with
    ``max_rel`` the highest grade of ``qrels``) with the human ``qrels`` and the ``aux``
    judgments filling their gaps, split by provenance (see the module). ``aux=None``: no auxiliary
    judgments. The query set is the human qrels'."""
    if measure is None:                  # the human scale (an auxiliary grade beyond it is an error)
        human = load_judgments(qrels)
        measure = str(measure_or_default(None, human, qrels))
        qrels = human
    w = weights_of(measure)
    text = str(measure)
    if w.name != "RBP" or is_residual(text):
        raise ParameterError(f"measure {measure}: auxiliary judgments split RBP (the rank-biased measure "
                             "with a residual that uses the qrels), e.g. RBP(p=0.8,max_rel=3)@10")
    import ir_measures

    from ..parsing import parse_measure
    rbp = parse_measure(text)
    res_text = f"RBP_res(p={w.p}" + (f",rel={w.rel}" if w.rel is not None else "") + ")" + \
        (f"@{w.cutoff}" if w.cutoff is not None else "")
    res = parse_measure(res_text)
    merged, source = merge_judgments(qrels, aux, max_rel=w.max_rel if w.rel is None else None)
    human = merged[: len(merged) - int((source == "auxiliary").sum())]
    queries = list(dict.fromkeys(human["query_id"]))
    rows = []
    for name, run in _as_rankings(runs).items():
        from ..io import ranking_frame
        frame = ranking_frame(run)
        got: Dict[str, Dict[str, float]] = {}
        for label, judgments in (("h", human), ("m", merged)):
            for metric in ir_measures.iter_calc([rbp, res], judgments, frame):
                got.setdefault(metric.query_id, {})[label + ("v" if metric.measure == rbp else "r")] = metric.value
        for q in queries:
            g = got.get(q, {})
            hv, hr = g.get("hv", 0.0), g.get("hr", 1.0)
            mv, mr = g.get("mv", 0.0), g.get("mr", 1.0)
            rows.append((name, q, hv, mv - hv, hr - mr, mr, mv, mv + mr))
    return pd.DataFrame(rows, columns=list(AUX_COLUMNS))


def aux_verdicts(runs: Any, qrels: Any, aux: Any, baseline: Optional[str] = None, measure: Optional[str] = None,
                 alpha: float = 0.05) -> pd.DataFrame:
    """The robust comparison (paired t at the extreme completions, Holm) twice -- with the human bounds
    [human, human + human residual] and with the merged ones [value, value + residual] -- side by side:
    ``verdict_human``, ``verdict_with_aux`` and ``depends_on_aux`` (the two verdicts differ: the conclusion
    depends on the auxiliary judgments). With a ``baseline``: every other run (A, column ``run``) against it
    (B), :func:`ir_rbstar.stats.robust_table`, Holm over the runs. Without (``baseline=None``): every pair of
    runs (A ``run_a``, B ``run_b``), :func:`ir_rbstar.stats.robust_pairs`, Holm over the pairs. The queries
    are the human qrels'."""
    from ..stats import robust_pairs, robust_table
    split = aux_split(runs, qrels, aux, measure)
    if baseline is not None and baseline not in set(split["run"]):
        raise ParameterError(f"baseline: unknown run {baseline!r}")
    order = list(dict.fromkeys(split["run"]))
    split = split.assign(hres=split["auxiliary_weight"] + split["residual"])
    piv = {c: split.pivot(index="run", columns="query_id", values=c).loc[order]
           for c in ("human", "hres", "value", "residual")}
    bounds = {"human": (piv["human"], piv["human"] + piv["hres"]),
              "with_aux": (piv["value"], piv["value"] + piv["residual"])}
    tables = {k: (robust_table(lo, hi, baseline, alpha=alpha) if baseline is not None
                  else robust_pairs(lo, hi, alpha=alpha)) for k, (lo, hi) in bounds.items()}
    keys = ["run"] if baseline is not None else ["run_a", "run_b"]
    out = tables["human"][keys].copy()
    out["verdict_human"] = tables["human"]["verdict"].to_numpy()
    out["verdict_with_aux"] = tables["with_aux"]["verdict"].to_numpy()
    out["depends_on_aux"] = out["verdict_human"] != out["verdict_with_aux"]
    return out.reset_index(drop=True)
