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

:func:`aux_verdicts` says which robust verdicts (:func:`ir_rbstar.stats.robust_table`) against a baseline
hold only thanks to the auxiliary judgments.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np
import pandas as pd

from ..errors import GradeScaleError, ParameterError
from ..io import QUERY_IDS, Qrels, to_qrels
from ..io.ids import _to_str
from .pool import _as_rankings, weights_of
from .select import load_judgments

__all__ = ["merge_judgments", "aux_split", "aux_verdicts", "AUX_COLUMNS"]

AUX_COLUMNS = ("run", "query_id", "human", "auxiliary", "auxiliary_weight", "residual", "value", "upper")


def _frame(q: Qrels) -> pd.DataFrame:
    return pd.DataFrame({"query_id": QUERY_IDS.decode(q.rowq), "doc_id": _to_str(q.rowb), "relevance": q.grades})


def merge_judgments(human: Any, aux: Any, max_rel: Optional[int] = None) -> tuple:
    """(merged qrels frame, provenance Series 'human'/'auxiliary' aligned with it): the human judgments and
    the auxiliary ones for documents the human qrels lack. ``max_rel`` (the top of the scale) checks the
    auxiliary grades; the bottom is 0 or the lowest human grade."""
    h = load_judgments(human)
    a = load_judgments(aux)
    if h is None:
        raise ParameterError("qrels: the human judgments are needed (auxiliary ones only fill their gaps)")
    if a is None:
        a = to_qrels(pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}).astype(
            {"query_id": str, "doc_id": str, "relevance": int}))
    low = min(0, int(h.grades.min()) if len(h.grades) else 0)
    top = max_rel if max_rel is not None else (int(h.grades.max()) if len(h.grades) else 1)
    bad = (a.grades < low) | (a.grades > top)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise GradeScaleError(f"{a.source}: auxiliary grade {int(a.grades[i])} of document "
                              f"{_to_str(a.rowb[i:i + 1])[0]!r} for query {QUERY_IDS.decode(a.rowq[i:i + 1])[0]!r} "
                              f"is outside the grade scale {low}..{top}")
    _, known = h.lookup(a.rowq, a.rowd, a.rowb)
    hf, af = _frame(h), _frame(a)[~known]
    merged = pd.concat([hf, af], ignore_index=True)
    source = pd.Series(["human"] * len(hf) + ["auxiliary"] * len(af))
    return merged, source


def aux_split(runs: Any, qrels: Any, aux: Any = None, measure: str = "RBP(p=0.8)") -> pd.DataFrame:
    """Per run and query (:data:`AUX_COLUMNS`): ``measure`` (an ``RBP`` string) with the human ``qrels``
    and the ``aux`` judgments filling their gaps, split by provenance (see the module). ``aux=None``: no
    auxiliary judgments. The query set is the human qrels'."""
    w = weights_of(measure)
    text = str(measure)
    if w.name != "RBP" or "_res" in text.split("(")[0].split("@")[0]:
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


def aux_verdicts(runs: Any, qrels: Any, aux: Any, baseline: str, measure: str = "RBP(p=0.8)",
                 alpha: float = 0.05) -> pd.DataFrame:
    """:func:`ir_rbstar.stats.robust_table` of every run against ``baseline`` twice -- with the human bounds
    [human, human + human residual] and with the auxiliary ones [value, value + residual] -- side by side:
    ``verdict_human``, ``verdict_with_aux`` and ``depends_on_aux`` (robust with the auxiliary judgments,
    not robust without them)."""
    from ..stats import robust_table
    split = aux_split(runs, qrels, aux, measure)
    if baseline not in set(split["run"]):
        raise ParameterError(f"baseline: unknown run {baseline!r}")
    piv = {c: split.pivot(index="run", columns="query_id", values=c) for c in ("human", "value", "residual")}
    human_res = split.assign(hres=split["auxiliary_weight"] + split["residual"]).pivot(
        index="run", columns="query_id", values="hres")
    order = list(dict.fromkeys(split["run"]))
    low_h, high_h = piv["human"].loc[order], (piv["human"] + human_res).loc[order]
    low_a, high_a = piv["value"].loc[order], (piv["value"] + piv["residual"]).loc[order]
    th = robust_table(low_h, high_h, baseline, alpha=alpha)
    ta = robust_table(low_a, high_a, baseline, alpha=alpha)
    out = pd.DataFrame({"run": th["run"], "verdict_human": th["verdict"], "verdict_with_aux": ta["verdict"]})
    robust = out["verdict_with_aux"].str.endswith("robust") & ~out["verdict_human"].str.endswith("robust")
    out["depends_on_aux"] = robust
    return out
