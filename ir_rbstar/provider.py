"""The one ir_measures provider of ir_rbstar.

It converts the qrels once per :meth:`evaluator` call (reused for every run given to that evaluator)
and each run once per call, to the columnar form of :mod:`ir_rbstar.io`, then lets each measure family
compute whole columns of per-query values. It is registered with ir_measures and appended to
``ir_measures.DefaultPipeline`` after the built-in providers, so that it never takes a measure that a
built-in provider serves (``RBP`` with ``rel`` and no cutoff goes to cwl_eval when that is installed).
"""
from __future__ import annotations

from typing import Dict, Iterable, Iterator, Optional

import numpy as np
import ir_measures
from ir_measures import providers
from ir_measures.util import Metric

from .context import RunContext
from .families import med, nrg, rankbiased, ties, twist
from .errors import ParameterError
from .io import QUERY_IDS, Qrels, Ranking, ranking_frame, to_qrels, to_ranking
from .measures.base import RbstarMeasure

__all__ = ["RbstarProvider", "RbstarEvaluator", "PROVIDER", "iter_calc_columnar"]

FAMILIES = {name: rankbiased for name in rankbiased.NAMES}
FAMILIES.update({name: ties for name in ties.NAMES})
FAMILIES.update({name: twist for name in twist.NAMES})
FAMILIES.update({name: nrg for name in nrg.NAMES})
FAMILIES.update({name: med for name in med.NAMES})


class RbstarEvaluator(providers.Evaluator):
    """Evaluates runs for a fixed set of measures and qrels (converted once)."""

    def __init__(self, measures: Iterable, qrels):
        measures = list(measures)
        for m in measures:                      # also when the provider is called directly
            if not PROVIDER.supports(m):
                raise ParameterError(f"ir_rbstar does not compute {m}")
        self.qrels: Optional[Qrels] = None if qrels is None else to_qrels(qrels)
        qids = [] if self.qrels is None else list(QUERY_IDS.decode(self.qrels.qcodes))
        super().__init__(list(measures), qids)

    def values(self, run) -> Dict[object, np.ndarray]:
        """Per-query values as numpy arrays, plus the query ids under the key ``'query_id'``."""
        ranking = to_ranking(run)
        universe = self.qrels.qcodes if self.qrels is not None else ranking.qcodes
        ctx = RunContext(ranking, self.qrels, universe)
        by_family: Dict[object, list] = {}
        for m in self.measures:
            by_family.setdefault(FAMILIES[m.NAME], []).append(m)
        out: Dict[object, np.ndarray] = {}
        for family, ms in by_family.items():
            out.update(family.compute(ms, ctx))
        out["query_id"] = QUERY_IDS.decode(universe)
        return out

    def iter_calc(self, run) -> Iterator[Metric]:
        """Per-query metrics. Every query of the universe gets its value already; a query without one
        (NaN, e.g. Twist when the recall base is 0) is left out, not filled with a default."""
        return self._iter_calc(run)

    def _iter_calc(self, run) -> Iterator[Metric]:
        vals = self.values(run)
        qids = vals.pop("query_id")
        for m in self.measures:
            for qid, v in zip(qids, vals[m].tolist()):
                if v == v:                      # NaN: no value for this query (e.g. Twist when RB = 0)
                    yield Metric(query_id=qid, measure=m, value=v)


class RbstarProvider(providers.Provider):
    """ir_rbstar: rank-biased measures with residuals, tie-aware measures, Twist, NRG, MED."""

    NAME = "ir_rbstar"
    SUPPORTED_MEASURES = []

    def supports(self, measure) -> bool:
        if measure.NAME not in FAMILIES:
            return False
        if not isinstance(measure, RbstarMeasure):
            # e.g. an RBP object made from ir_measures' own class: re-declare it to validate
            from .measures import rankbiased as decl
            if measure.NAME == "RBP":
                decl.RBP(**measure.params)
                return True
            if measure.NAME in ties.ORDERED:
                # ir_measures' own P, R, AP, RR, nDCG in trec_eval order: built-in providers come first
                return ties.check_ordered(measure)
            return False
        measure.validate_params()
        measure.check_required()
        return True

    def _evaluator(self, measures, qrels) -> RbstarEvaluator:
        return RbstarEvaluator(measures, qrels)

    def install_instructions(self) -> str:
        return "pip install ir_rbstar"


PROVIDER = RbstarProvider()


def register() -> None:
    """Register the provider with ir_measures and append it to the default pipeline (idempotent)."""
    providers.registry.setdefault(PROVIDER.NAME, PROVIDER)
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(getattr(p, "NAME", None) == PROVIDER.NAME for p in pipeline):
        pipeline.append(PROVIDER)


def _serving_provider(measure, choice: Optional[str]):
    if choice:
        return providers.registry[choice]
    for provider in ir_measures.DefaultPipeline.providers:
        if provider.supports(measure) and provider.is_available():
            return provider
    raise ParameterError(f"no installed provider supports {measure}")


def split_by_provider(measures, choice: Optional[str] = None):
    """(the measures this package's provider serves, the others), in their given order."""
    ours = [m for m in measures if _serving_provider(m, choice) is PROVIDER]
    return ours, [m for m in measures if m not in ours]


def iter_calc_columnar(measures, qrels: Optional[Qrels], run: Ranking, choice: Optional[str] = None):
    """Per-query metrics for a run and qrels already in columnar form (as the command line reads them).

    ir_rbstar's measures get the columnar run and qrels as they are; the others (nDCG@10, ...) go
    through ir_measures' pipeline (or the provider named by ``choice``) with DataFrames.
    """
    ours, others = split_by_provider(measures, choice)
    if ours:
        yield from PROVIDER.evaluator(ours, qrels).iter_calc(run)
    if others:
        frame_qrels = qrels.frame() if isinstance(qrels, Qrels) else qrels
        calc = providers.registry[choice] if choice else ir_measures
        yield from calc.iter_calc(others, frame_qrels, ranking_frame(run))
