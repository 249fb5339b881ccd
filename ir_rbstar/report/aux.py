"""The report with auxiliary judgments (``ir-rbstar report ... --aux QRELS``, ``build_report(..., aux=...)``).

A second qrels (an LLM, a classifier, another assessor) fills the documents the human qrels leave unjudged
(the human grade stands where both judge): every RBP and RBP_res column of the report is evaluated with
``aux=`` (:mod:`ir_rbstar.families.rankbiased_aux`; its label names the file, so pasting it into ir_measures
gives the report's numbers). The same columns are also evaluated with the human judgments alone, and

* ``per_query.tsv`` gains, for every RBP column ``L``, the provenance split of
  :func:`ir_rbstar.judging.aux_split`: ``L human`` (RBP with the human judgments alone), ``L auxiliary``
  (what the auxiliary judgments add: ``L`` - ``L human``) and ``L residual`` (RBP_res with the merged
  judgments: what nobody has judged yet); ``L human`` + ``L auxiliary`` = ``L``;
* the robust verdicts (``robust.tsv``) gain ``verdict_human`` (the verdict over the human-only bounds
  [human, human + human residual]) and ``depends_on_aux`` (it differs from the verdict over the merged
  bounds); report.md marks those verdicts, in the robust section and in "Do the sections agree?", with a count.

Every auxiliary grade must lie on the report's grade scale (0, or the lowest human grade, to ``max_rel``):
else a :class:`~ir_rbstar.errors.GradeScaleError` naming the file, query and document, before any work.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple

import pandas as pd

from ..errors import ParameterError
from ..io import Qrels, Ranking
from .catalogue import Column

#: the measures evaluated with the auxiliary judgments (those with a residual that read the qrels)
AUX_MEASURES = ("RBP", "RBP_res")
#: the file a DataFrame (or dict) of auxiliary judgments is written to, inside the report's folder
AUX_FILE = "aux.qrels"
#: the mark of a verdict that depends on the auxiliary judgments in report.md
MARK = "\u2020"


def aux_spec(aux: Any, out_dir: str, human: Qrels, top: int) -> Tuple[str, Qrels]:
    """(the ``aux=`` of the measures, the auxiliary qrels), every grade checked against the scale first (see
    the module): a file path or an ir_datasets id as given; judgments in memory (a DataFrame ``query_id,
    doc_id, relevance`` or a dict of dicts) are then written to ``out_dir/aux.qrels`` (TREC format) and that
    path is used."""
    from ..judging.aux import check_aux_grades
    if isinstance(aux, (str, os.PathLike)):
        from ..families.rankbiased_aux import load_aux
        spec = os.fspath(aux)
        judgments = load_aux(spec)
        check_aux_grades(human, judgments, top)
        return spec, judgments
    from ..io import to_qrels
    judgments = to_qrels(aux, source="aux")
    check_aux_grades(human, judgments, top)
    frame = judgments.frame()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, AUX_FILE)
    with open(path, "w", encoding="utf-8") as f:
        for q, d, g in zip(frame["query_id"], frame["doc_id"], frame["relevance"], strict=True):
            f.write(f"{q} 0 {d} {int(g)}\n")
    return path, judgments


def aux_columns(columns: List[Column], spec: str) -> Tuple[List[Column], List[Column]]:
    """(the report's columns with ``aux=spec`` in every RBP and RBP_res measure, the human-only columns): the
    second list holds, under the aux columns' labels, their measures without ``aux`` (for the human bounds),
    and ``L residual`` (RBP_res with the auxiliary judgments) for every RBP column ``L`` (for the split)."""
    from ..parsing import parse_measure
    out, human = [], []
    for c in columns:
        m = c.measure
        if c.complement or getattr(m, "NAME", None) not in AUX_MEASURES:
            out.append(c)
            continue
        if "aux" in m.params:
            raise ParameterError(f"measures: {c.label} names its own aux=; with --aux the report sets it")
        merged = m(aux=spec)
        label = str(merged)
        out.append(replace(c, label=label, measure=merged))
        human.append(replace(c, label=label, measure=m))
        if m.NAME == "RBP":
            keep = {k: v for k, v in m.params.items() if k in ("p", "rel", "cutoff") and v is not None}
            res_m = parse_measure("RBP_res")(**keep, aux=spec)
            human.append(Column(f"{label} residual", res_m, better=""))
    return out, human


def human_table(human: List[Column], qrels: Qrels, rankings: Dict[str, Ranking]) -> pd.DataFrame:
    """The human-only values (and the merged residuals of the split) of every run, as the report's table."""
    from .table import per_query_table
    return per_query_table(human, qrels, rankings)


def split_columns(per_query: pd.DataFrame, human: pd.DataFrame, columns: List[Column]) -> pd.DataFrame:
    """``per_query`` with, for every RBP column ``L`` with auxiliary judgments, ``L human``, ``L auxiliary`` and
    ``L residual`` (see the module)."""
    out = per_query.copy()
    for c in columns:
        if c.measure.NAME == "RBP" and "aux" in c.measure.params:
            out[f"{c.label} human"] = human[c.label]
            out[f"{c.label} auxiliary"] = per_query[c.label] - human[c.label]
            out[f"{c.label} residual"] = human[f"{c.label} residual"]
    return out


def mark_robust(robust_rows: Optional[pd.DataFrame], human_rows: Optional[pd.DataFrame],
                columns: List[Column]) -> Optional[pd.DataFrame]:
    """The robust verdicts with ``verdict_human`` (over the human-only bounds; a measure without auxiliary
    judgments: its verdict) and ``depends_on_aux`` (the two differ)."""
    if robust_rows is None:
        return None
    out = robust_rows.copy()
    human = {} if human_rows is None else \
        {(r.measure, r.run): r.verdict for r in human_rows.itertuples(index=False)}
    uses = {c.label for c in columns if "aux" in getattr(c.measure, "params", {})}
    out["verdict_human"] = [human.get((m, r), v) if m in uses else v
                            for m, r, v in zip(out["measure"], out["run"], out["verdict"], strict=True)]
    out["depends_on_aux"] = out["verdict_human"] != out["verdict"]
    return out


def inputs_text(spec: str, human: Qrels, aux: Qrels, columns: List[Column]) -> List[str]:
    """report.md's paragraph on the auxiliary judgments: where from, how many fill a gap, which columns use them."""
    _, known = human.lookup(aux.rowq, aux.rowd, aux.rowb)
    in_queries = pd.Series(aux.rowq).isin(human.qcodes).to_numpy()
    fill = int((~known & in_queries).sum())
    used = [f"`{c.label}`" for c in columns if "aux" in getattr(c.measure, "params", {})]
    return [f"Auxiliary judgments: `{spec}` ({len(aux.grades):,} judgments; {fill:,} of them judge a document of the "
            f"qrels' queries that the qrels leave unjudged, and only these are used: the human grade stands where "
            f"both judge). They fill the holes of " + (", ".join(used) if used else "no column (no RBP or RBP_res "
                                                                                 "among the measures)")
            + " (every other measure reads the human qrels alone). `per_query.tsv` splits each RBP value into its "
            "human part, what the auxiliary judgments add and the residual that remains (columns `... human`, "
            "`... auxiliary`, `... residual`); the robust verdicts "
            f"say which depend on the auxiliary judgments ({MARK}).", ""]


def robust_text(rows: pd.DataFrame) -> List[str]:
    """The robust section's count and explanation of the verdicts that depend on the auxiliary judgments."""
    if "depends_on_aux" not in rows.columns:
        return []
    n = int(rows["depends_on_aux"].sum())
    return [f"{MARK} **{n} of the {len(rows):,} robust verdicts {'depends' if n == 1 else 'depend'} on the "
            f"auxiliary judgments**: with the "
            f"human judgments alone (the bounds [human, human + the human residual], wider, since every document "
            f"only the auxiliary judge saw is then unknown) the verdict differs; it is given in brackets. A "
            f"verdict without {MARK} is the same with or without them.", ""]
