"""The Twist analysis of a run: RP and CRP curves, crossings, balance point, ratios and archetypes.

The measures ``Twist``, ``Twist_rho`` and ``Twist_sigma`` (see :mod:`ir_rbstar.measures.twist`) give
one number per query. This module gives what lies behind them, for one query (:func:`crp_curve`) or
for every query of a run at once (:func:`twist_table`)::

    >>> import ir_rbstar
    >>> qrels = {"q1": {"a": 2, "b": 1, "c": 1}}
    >>> run = {"q1": {"x": 5.0, "y": 4.0, "b": 3.0, "a": 2.0, "c": 1.0}}
    >>> curve = ir_rbstar.twist.crp_curve(qrels, run, "q1")
    >>> curve.rp.tolist(), curve.crp.tolist(), curve.crossings.tolist(), curve.archetype
    ([-3, -2, 0, 3, 2], [-3, -5, -5, -2, 0], [4], 'typical_a')
    >>> curve.rho, round(curve.sigma, 4), round(curve.tau, 4)
    (0.75, 0.2308, 0.4904)

Archetypes (Ferro et al. 2016, section "Run Archetypes", Figs. 3-4), decided in this order:

* ``worst``: the run retrieves no relevant document (also when it retrieves nothing);
* ``ideal``: every document lies in its grade's band of the ideal run (CRP is 0 throughout);
* ``full_scale``: the run walks as much space forward and backward as the full-scale run;
* ``excellent`` / ``up_and_down``: CRP crosses zero at or before the recall base (rho = 1), and is at
  least 0 (excellent) or back below 0 (up and down) at position min(RB, N);
* ``typical_a``: the first crossing comes after the recall base (0 < rho < 1);
* ``typical_b``: CRP never crosses zero (rho = 0) although relevant documents were retrieved.

Crossings follow Def. 3 of Ferro et al. 2016: zero counts as both sides, so a run whose
first document is in its place "crosses" at position 1 and has rho = 1. One addition: a run that ends
on the axis without a crossing before also crosses at its last position N. That can only happen when
N = 1 (otherwise CRP[N-1] and CRP[N] = 0 already make a crossing), and it gives the ideal run of one
document rho = 1, as the paper states for every ideal run, instead of 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pandas as pd

from .context import RunContext
from .core import twist as K
from .errors import ParameterError
from .families import twist as family
from .datasets import resolve_qrels
from .io import QUERY_IDS, to_ranking
from .io.ids import _to_str

__all__ = ["CRPCurve", "crp_curve", "twist_table", "full_scale_rp", "ARCHETYPES"]

ARCHETYPES = K.ARCHETYPES


@dataclass
class CRPCurve:
    """Everything Twist derives for one query of one run (positions are 1-based)."""

    query_id: str
    recall_base: int            # RB: judged documents with grade >= rel
    length: int                 # N: documents of the run considered
    doc_ids: np.ndarray         # the run's documents in rank order
    grades: np.ndarray          # their grades (0 when unjudged)
    relevant: np.ndarray        # whether each is relevant (judged, grade >= rel)
    rp: np.ndarray              # relative position of each (Def. 1)
    crp: np.ndarray             # cumulated relative position (Def. 2)
    full_scale_rp: np.ndarray   # RP of the full-scale run, of length max(N, 2 RB)
    crossings: np.ndarray       # the positions j where CRP crosses zero between j and j + 1 (Def. 3)
    balance_point: float        # max(RB, first crossing); inf when there is none
    rho: float
    sigma_plus: float
    sigma_minus: float
    sigma: float
    tau: float
    archetype: str

    @property
    def full_scale_crp(self) -> np.ndarray:
        return np.cumsum(self.full_scale_rp)

    @property
    def ideal_crp(self) -> np.ndarray:
        """CRP of the ideal run: zero at every position."""
        return np.zeros(self.length, dtype=np.int64)


def _context(qrels: Any, run: Any, query_ids=None) -> RunContext:
    qrels, ranking = resolve_qrels(qrels), to_ranking(run)
    if query_ids is None:
        return RunContext(ranking, qrels, qrels.qcodes)
    known = set(QUERY_IDS.decode(qrels.qcodes).tolist())
    for q in query_ids:
        if str(q) not in known:
            raise ParameterError(f"query {q!r} has no judgments in {qrels.source}")
    return RunContext(ranking, qrels, QUERY_IDS.encode([str(q) for q in query_ids]))


def check_rel_cutoff(cutoff: Optional[int], rel: int) -> None:
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff <= 0):
        raise ParameterError(f"cutoff={cutoff!r} must be a positive integer")
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)):
        raise ParameterError(f"rel={rel!r} must be an integer grade")


def full_scale_rp(qrels: Any, query_id: str, rel: int = 1, length: int = 0) -> np.ndarray:
    """RP of the full-scale run of a query: the reverse of its ideal run of length max(length, 2 RB)
    (non-relevant documents first, then the relevant ones by grade ascending)."""
    check_rel_cutoff(None, rel)
    qrels = resolve_qrels(qrels)
    if str(query_id) not in set(QUERY_IDS.decode(qrels.qcodes).tolist()):
        raise ParameterError(f"query {query_id!r} has no judgments in {qrels.source}")
    mine = qrels.rowq == QUERY_IDS.encode([str(query_id)])[0]
    grades = qrels.grades[mine]
    return _full_scale(K.bands(np.zeros(len(grades), dtype=np.int64), grades, rel, 1), length)


def twist_table(qrels: Any, run: Any, rel: int = 1, cutoff: Optional[int] = None) -> pd.DataFrame:
    """One row per query of the qrels: recall base, length, first crossing (0 when none), balance
    point, rho, sigma+, sigma-, sigma, tau and archetype. Queries with recall base 0 have NaN ratios
    and an empty archetype."""
    check_rel_cutoff(cutoff, rel)
    ctx = _context(qrels, run)
    v = family.values(ctx, cutoff, rel)
    names = np.array(ARCHETYPES + ("",), dtype=object)
    return pd.DataFrame({
        "query_id": QUERY_IDS.decode(ctx.universe), "recall_base": v.base, "length": v.length,
        "first_crossing": v.first_crossing, "balance_point": v.balance, "rho": v.rho,
        "sigma_plus": v.sigma_plus, "sigma_minus": v.sigma_minus, "sigma": v.sigma, "tau": v.tau,
        "archetype": names[v.archetype],
    })


def crp_curve(qrels: Any, run: Any, query_id: str, rel: int = 1, cutoff: Optional[int] = None) -> CRPCurve:
    """The RP and CRP curves of ``run`` for ``query_id``, with its crossings, balance point, ratios and
    archetype, and the full-scale run's RP (the ideal run's CRP is 0 everywhere)."""
    check_rel_cutoff(cutoff, rel)
    ctx = _context(qrels, run, [query_id])
    rows, rp, relevant, bands = family.curves(ctx, cutoff, rel)
    v = family.values(ctx, cutoff, rel)
    rb = int(v.base[0])
    grade, _ = ctx.judgments(cutoff)
    crp = np.cumsum(rp)
    crossings = np.flatnonzero(K.crossings(rows.seg, crp)) + 1
    docs = _to_str(rows.dbytes)
    return CRPCurve(query_id=str(query_id), recall_base=rb, length=int(v.length[0]), doc_ids=docs,
                    grades=grade, relevant=relevant, rp=rp, crp=crp,
                    full_scale_rp=_full_scale(bands, int(v.length[0])), crossings=crossings,
                    balance_point=float(v.balance[0]), rho=float(v.rho[0]), sigma_plus=float(v.sigma_plus[0]),
                    sigma_minus=float(v.sigma_minus[0]), sigma=float(v.sigma[0]), tau=float(v.tau[0]),
                    archetype=(ARCHETYPES + ("",))[int(v.archetype[0])])


def _full_scale(bands: K.Bands, length: int) -> np.ndarray:
    """RP of the full-scale run of the single query of ``bands``."""
    rb = int(bands.base[0])
    m = max(length, 2 * rb)
    grades = bands.top - (bands.keys[::-1] % bands.span)        # relevant grades ascending
    grade = np.zeros(m, dtype=np.int64)
    grade[m - rb:] = grades
    relevant = np.zeros(m, dtype=bool)
    relevant[m - rb:] = True
    seg = np.zeros(m, dtype=np.int64)
    return K.relative_positions(bands, seg, np.arange(m), grade, relevant)
