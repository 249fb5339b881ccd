"""The report's one per-query table: every run x judged query x measure, each value computed once.

Every section of the report (means, ranks, tests against the baseline, all pairs, robust verdicts, the
pictures' values) is a function of this table; none evaluates a measure again.

* Only the queries with judgments are evaluated: every measure of the report is evaluated over the
  qrels' queries (a query without judgments has no value at any door), so the rows a run holds for other
  queries are dropped once, right after reading (:func:`judged_only`). On a TREC Deep Learning track that
  is most of what is read (DL19: 157 of the 200 queries of each run; DL20: 146 of 200).
* Each value by the fastest exact door: this package's provider serves its own measures and ir_measures'
  staples (P, R, AP, RR, nDCG in trec_eval's order of ties, with pytrec_eval's values: the tests compare
  them), whole columns per run; only a measure no part of this package computes goes through ir_measures'
  pipeline.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np
import pandas as pd

from ..errors import RbstarError
from ..dicts import qrels_dict, ranking_dict
from ..io import QUERY_IDS, Qrels, Ranking
from .catalogue import Column


def judged_only(ranking: Ranking, qcodes: np.ndarray) -> Ranking:
    """``ranking`` with only the queries in ``qcodes`` (the same rows in the same order; the ranking
    itself when it has no other query)."""
    keep = np.isin(ranking.qcodes, qcodes)
    if keep.all():
        return ranking
    lens = np.diff(ranking.offsets)[keep]
    offsets = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    rows = np.repeat(ranking.offsets[:-1][keep] - offsets[:-1], lens) + np.arange(int(offsets[-1]))
    return Ranking(qcodes=ranking.qcodes[keep], offsets=offsets, dbytes=ranking.dbytes[rows],
                   docs=ranking.docs[rows], scores=ranking.scores[rows], source=ranking.source)


class Evaluator:
    """Every measure of the report for one qrels, built once and applied to each run (whole columns)."""

    def __init__(self, columns: List[Column], qrels: Qrels):
        import ir_measures
        from ..provider import PROVIDER
        self.columns = columns
        self.measures = list(dict.fromkeys(c.measure for c in columns))
        # this package's provider first: it also serves ir_measures' staples (same values as pytrec_eval)
        self.ours = [m for m in self.measures if PROVIDER.supports(m)]
        self.others = [m for m in self.measures if m not in self.ours]
        self.qids = np.asarray(QUERY_IDS.decode(qrels.qcodes)).astype(str)
        self.row = {q: i for i, q in enumerate(self.qids.tolist())}
        self.ev_ours = PROVIDER.evaluator(self.ours, qrels) if self.ours else None
        # ir_measures' own measures get dicts of dicts, the form pytrec_eval takes as it is
        self.ev_others = ir_measures.evaluator(self.others, qrels_dict(qrels)) if self.others else None

    def arrays(self, ranking: Ranking) -> Dict[Any, np.ndarray]:
        """Per-query values of one run, one array per measure over the qrels' queries (in their order)."""
        got: Dict[Any, np.ndarray] = {}
        if self.ev_ours is not None:
            vals = self.ev_ours.values(ranking)
            if list(np.asarray(vals["query_id"]).astype(str)) != self.qids.tolist():
                raise RbstarError("internal: the provider's query order differs from the qrels'")
            for m in self.ours:
                got[m] = np.asarray(vals[m], dtype=np.float64)
        if self.ev_others is not None:
            for m in self.others:
                got[m] = np.full(len(self.qids), np.nan)
            for metric in self.ev_others.iter_calc(ranking_dict(ranking)):
                i = self.row.get(str(metric.query_id))
                if i is not None:
                    got[metric.measure][i] = metric.value
        return got

    def values(self, ranking: Ranking) -> pd.DataFrame:
        """Per-query values of one run: rows = the qrels' queries, columns = the labels (NaN: none)."""
        got = self.arrays(ranking)
        data = {c.label: (1.0 - got[c.measure]) if c.complement else got[c.measure] for c in self.columns}
        return pd.DataFrame(data, index=pd.Index(self.qids, name="query_id"))


def per_query_table(columns: List[Column], qrels: Qrels, rankings: Dict[str, Ranking],
                    step: Optional[Callable[[str], None]] = None) -> pd.DataFrame:
    """The table: a DataFrame indexed by (run, query_id) over the qrels' queries, one column per label,
    each run evaluated once with every measure."""
    evaluator = Evaluator(columns, qrels)
    frames = []
    for name, ranking in rankings.items():
        if step is not None:
            step(f"evaluating {name} ({len(evaluator.measures)} measures)")
        frames.append(evaluator.values(ranking))
    return pd.concat(frames, keys=list(rankings), names=["run", "query_id"])


def effort_gain_values(per_query: pd.DataFrame, qrels: Qrels, twist: str = "Twist", gain: str = "AP",
                       rel: int = 1) -> Optional[pd.DataFrame]:
    """The points of the effort/gain picture taken from the table: ``run, query_id, twist, gain`` for every
    run and query with a recall base >= 1 at ``rel`` (a query with no relevant document has no Twist
    point), as :func:`ir_rbstar.plots.effort_gain_points` computes them; None when the table lacks either
    column. ``attrs['gain']`` names the gain measure (its label)."""
    if twist not in per_query.columns or gain not in per_query.columns:
        return None
    relevant = np.unique(qrels.rowq[qrels.grades >= rel])
    has_base = np.isin(qrels.qcodes, relevant)
    qids = np.asarray(QUERY_IDS.decode(qrels.qcodes)).astype(str)[has_base]
    frame = per_query[[twist, gain]].reset_index()
    frame = frame[frame["query_id"].isin(qids)]
    points = pd.DataFrame({"run": frame["run"].astype(str).to_numpy(), "query_id": frame["query_id"].to_numpy(),
                           "twist": frame[twist].to_numpy(dtype=np.float64),
                           "gain": frame[gain].to_numpy(dtype=np.float64)})
    points = points[points["twist"].notna() & points["gain"].notna()].reset_index(drop=True)
    from ..plots.effort_gain import _gain_measure
    points.attrs["gain"] = _gain_measure(gain, rel, None)
    return points
