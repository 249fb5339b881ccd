"""The ir_measures provider of ir_rbstar, and which provider serves which measure.

It converts the qrels once per :meth:`evaluator` call (reused for every run given to that evaluator)
and each run once per call, to the columnar form of :mod:`ir_rbstar.io`, then lets each measure family
compute whole columns of per-query values.

Which provider serves a measure (ir_measures picks, for each measure, the first provider of
``ir_measures.DefaultPipeline`` that supports it):

* ir_rbstar's own measure objects (everything :func:`ir_rbstar.parse` returns for ir_rbstar's names,
  ``RBP`` included, and the objects ``ir_rbstar.RBP``, ``ir_rbstar.RBR``, ...) are served by ir_rbstar,
  whose pipeline entry comes first and claims nothing else. So ``RBP(p=0.8,rel=1)`` from
  :func:`ir_rbstar.parse` gives the same number from a file, a DataFrame or a namedtuple iterable.
* ir_measures' own measure objects (``ir_measures.RBP``, ``ir_measures.nDCG@10``, anything
  ``ir_measures.parse_measure`` returns for ir_measures' names) go to ir_measures' built-in providers as
  before; only where none of them can serve one (e.g. ``ir_measures.RBP@10``, graded or with a cutoff,
  or ``R(rel=2)@10``) does ir_rbstar's second pipeline entry, at the end, serve it.
* ``ir_measures.providers.registry['ir_rbstar']`` (``--provider ir_rbstar`` on the command line) serves
  both kinds.

Nothing of ir_measures is replaced: its ``RBP`` object, its registry entry and its labels stay as they are.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, Optional, cast

import numpy as np
import ir_measures
from ir_measures import providers
from ir_measures import Metric

from .errors import ParameterError, RbstarError
from .measures import ALL as DECLARED
from .measures.base import RbstarMeasure
from .measures.families import FOREIGN_FAMILY, family_of

if TYPE_CHECKING:
    from . import references
    from .references import PriorSet
    from .io import Qrels, Ranking

# the readers, the families and pandas are imported when an evaluator is first built, not with the package
# (``import ir_rbstar`` registers the measures and this provider without them)

__all__ = ["RbstarProvider", "RbstarEvaluator", "PROVIDER", "iter_calc_columnar", "serving_provider",
           "split_by_provider"]



_loaded: Dict[str, Any] = {}


def _lazy(name: str) -> Any:
    """This package's module ``name`` (``"io"``, ``"context"``, ``"families.rankbiased"``, ...), imported on
    first use, then taken from a dict: an import statement in a function costs a few microseconds at each
    call, and a call on a small run is about a millisecond."""
    module = _loaded.get(name)
    if module is None:
        module = _loaded[name] = importlib.import_module(f".{name}", __package__)
    return module


def _compute(family: str):
    """Each family's compute function (per-query columns for a list of its measures), by the ``FAMILY`` key
    of the declarations (:data:`ir_rbstar.measures.families.FAMILIES`): ``ir_rbstar.families.<key>.compute``."""
    return _lazy(f"families.{family}").compute


def __getattr__(name: str) -> Any:
    if name == "COMPUTE":            # every family's compute function, by key (imports them all)
        from .measures.families import FAMILIES
        return {key: _compute(key) for key in FAMILIES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def to_qrels(qrels: Any) -> "Qrels":
    """:func:`ir_rbstar.io.to_qrels` (imported on first use)."""
    return _lazy("io").to_qrels(qrels)


def to_ranking(run: Any, queries=None) -> "Ranking":
    """:func:`ir_rbstar.io.to_ranking` (imported on first use)."""
    return _lazy("io").to_ranking(run, queries=queries)


def _family_key(measure) -> str:
    """The family computing ``measure`` ('' when none): a declaration's ``FAMILY``; for ir_measures' own
    measures, the family that computes them (:data:`~ir_rbstar.measures.families.FOREIGN_FAMILY`)."""
    family = family_of(measure)
    return "" if family is None else family.key


def _pinned_scope(measures) -> references.Scope:
    """Every run a measure names (``ref=``, ``prior=``, ``runs=``), resolved now: a wrong name fails
    when the evaluator is built, before any run is evaluated, and later registrations do not change
    what this evaluator computes."""
    references = _lazy("references")
    runs: Dict[str, Ranking] = {}
    groups: Dict[str, "PriorSet"] = {}
    for m in measures:
        if not isinstance(m, RbstarMeasure):
            continue
        ref = m.params.get("ref")
        if isinstance(ref, str) and ref not in runs:
            runs[ref] = references.resolve_run(ref, f"{m}: ref")
        for name in ("prior", "runs"):
            spec = m.params.get(name)
            if isinstance(spec, str) and spec not in groups:
                groups[spec] = references.resolve_runs(spec, f"{m}: {name}")
    return references.Scope(runs, groups)


class RbstarEvaluator(providers.Evaluator):
    """Evaluates runs for a fixed set of measures and qrels (converted once); the runs the measures
    name are resolved when it is built (see :func:`ir_rbstar.run_scope`)."""

    def __init__(self, measures: Iterable, qrels):
        measures = list(measures)
        for m in measures:                      # also when the provider is called directly
            if not PROVIDER.supports(m):
                raise ParameterError(f"ir_rbstar does not compute {m}")
        QUERY_IDS = _lazy("io").QUERY_IDS
        self.scope = _pinned_scope(measures)
        self.qrels: Optional[Qrels] = None if qrels is None else to_qrels(qrels)
        qids: list = []
        self._queries: Optional[frozenset] = None
        if self.qrels is not None:
            # a run's rows of other queries are not evaluated: a dict, tuples or a DataFrame leave them out
            # before they are converted (the ids kept with the qrels: a kept conversion is given again)
            def ids_of(qcodes=self.qrels.qcodes):
                ids = list(QUERY_IDS.decode(qcodes))
                return ids, frozenset(map(str, ids))
            known = self.qrels.kept("query_ids", ids_of)
            qids, self._queries = list(known[0]), known[1]
        # the measures by the family computing them (fixed for this evaluator: grouped once)
        self._by_family: Dict[str, list] = {}
        for m in measures:
            self._by_family.setdefault(_family_key(m), []).append(m)
        super().__init__(list(measures), qids)

    def values(self, run) -> Dict[object, np.ndarray]:
        """Per-query values as numpy arrays (one for every query of the universe: the qrels' queries,
        or the run's without qrels), plus the query ids under the key ``'query_id'``."""
        out, universe = self._computed(run)
        for m in self.measures:
            _no_gap(m, out[m], universe)
        out["query_id"] = _lazy("io").QUERY_IDS.decode(universe)
        return out

    def _computed(self, run) -> "tuple[Dict[object, np.ndarray], np.ndarray]":
        """(each measure's per-query values, the universe's query codes), not yet checked for gaps."""
        references, RunContext = _lazy("references"), _lazy("context").RunContext
        ranking = to_ranking(run, self._queries)
        universe = self.qrels.qcodes if self.qrels is not None else ranking.qcodes
        ctx = RunContext(ranking, self.qrels, universe)
        out: Dict[object, np.ndarray] = {}
        with references.pinned(self.scope):
            for family, ms in self._by_family.items():
                out.update(_compute(family)(ms, ctx))
        return out, universe

    def calc_aggregate(self, run) -> Dict[Any, Any]:
        """ir_measures' aggregate without a Metric object per query and measure (21,000 of them for
        three measures on 7,000 queries): the mean of each measure's per-query values, summed as
        ir_measures' MeanAgg sums (one addition at a time from 0.0, in query order: a running sum, not
        numpy's pairwise one), so the numbers are the same to the last bit. Other aggregators or a
        measure given twice take ir_measures' own path."""
        aggs = {m: m.aggregator() for m in self.measures}
        if len(aggs) != len(list(self.measures)) or any(type(a) is not ir_measures.MeanAgg for a in aggs.values()):
            return super().calc_aggregate(run)
        # every query of ``qrel_qids`` has a value: they are the universe's (the qrels' queries; none
        # without qrels), and values() gives one for each query of the universe
        vals, universe = self._computed(run)
        out = {}
        for m, agg in aggs.items():
            v = vals[m].astype(np.float64, copy=False)
            count = len(v)
            if not count:
                out[m] = agg.result()
                continue
            # the running sum from 0.0 (MeanAgg's), without prepending the 0.0: 0.0 + x is x but for
            # x = -0.0, and a running sum from 0.0 is never -0.0, so adding 0.0 at the end gives the same
            # double; a NaN anywhere makes the sum NaN, so the values are searched for gaps only then
            # (the same check and error as values(); on a small run each numpy call of a measure counts)
            total = float(np.add.accumulate(v)[-1]) + 0.0
            if total != total:
                _no_gap(m, v, universe)
            out[m] = total / count
        return out

    def _iter_calc(self, run) -> Iterator[Metric]:
        vals = self.values(run)
        qids = vals.pop("query_id")
        for m in self.measures:
            for qid, v in zip(qids, vals[m].tolist(), strict=True):
                yield Metric(query_id=qid, measure=m, value=v)


def _no_gap(measure, values: np.ndarray, universe: np.ndarray) -> None:
    """Every query of the universe has a value: a NaN is a bug, never a silent gap (an internal error)."""
    bad = np.flatnonzero(np.isnan(values))
    if len(bad):
        q = _lazy("io").QUERY_IDS.decode(universe[bad[:1]])[0]
        raise RbstarError(f"internal error: {measure} has no value for query {q!r}; please report this")


def _checked(measure) -> bool:
    """Validate one of this package's declarations (raises ParameterError for a bad value)."""
    measure.validate_params()
    measure.check_required()
    return True


def _computes_foreign(measure) -> bool:
    """Whether ``measure``, one of ir_measures' own objects, is one this package computes (raises
    ParameterError for values no provider could use)."""
    unknown = set(measure.params) - set(type(measure).SUPPORTED_PARAMS)
    if unknown:                  # ir_measures accepts any parameter name and fails later, in repr
        raise ParameterError(f"{measure.NAME}: unknown parameter {sorted(unknown)[0]!r} of ir_measures' "
                             f"{measure.NAME}; ir_rbstar.parse_measure gives ir_rbstar's measures")
    if measure.NAME == "RBP":
        from .measures import rankbiased as decl
        decl.RBP(**measure.params)               # re-declare it to validate its values
        return True
    if FOREIGN_FAMILY.get(measure.NAME) == "ties":
        from .families import ties
        return ties.check_ordered(measure)
    return False


class RbstarProvider(providers.Provider):
    """ir_rbstar: rank-biased measures with residuals, tie-aware measures, Twist, NRG, MED.

    This instance (``ir_measures.providers.registry['ir_rbstar']``) serves ir_rbstar's declarations and
    the ir_measures measures it can compute (RBP, P, R, AP, RR, nDCG: the tie-oblivious ones in
    trec_eval's order)."""

    NAME = "ir_rbstar"
    SUPPORTED_MEASURES = list(DECLARED)

    def supports(self, measure) -> bool:
        if not _family_key(measure):
            return False
        if isinstance(measure, RbstarMeasure):
            return _checked(measure)
        return _computes_foreign(measure)

    def _evaluator(self, measures, qrels) -> RbstarEvaluator:
        return RbstarEvaluator(measures, qrels)

    def evaluator(self, measures, qrels, runs: Optional[Dict[str, Any]] = None,
                  groups: Optional[Dict[str, Any]] = None) -> RbstarEvaluator:
        """ir_measures' ``evaluator`` (measures checked), typed as this provider's evaluator. ``runs`` and
        ``groups`` name runs for this evaluator's measures only (as :func:`ir_rbstar.run_scope` does):
        ``PROVIDER.evaluator([RBO(ref='base')], qrels, runs={'base': base_run})``."""
        if runs is None and groups is None:
            return cast(RbstarEvaluator, super().evaluator(measures, qrels))
        from . import references
        with references.run_scope(runs, groups):
            return cast(RbstarEvaluator, super().evaluator(measures, qrels))

    def install_instructions(self) -> str:
        return "pip install ir_rbstar"


class _PipelineEntry(RbstarProvider):
    """One of the two places of this package in ``ir_measures.DefaultPipeline``: ``own=True`` (first)
    claims only this package's declarations, ``own=False`` (last) only ir_measures' own measures that no
    built-in provider before it serves. Both compute with :data:`PROVIDER`."""

    def __init__(self, own: bool):
        super().__init__()
        self.own = own

    def supports(self, measure) -> bool:
        if not _family_key(measure) or isinstance(measure, RbstarMeasure) != self.own:
            return False
        return _checked(measure) if self.own else _computes_foreign(measure)


PROVIDER = RbstarProvider()
FIRST = _PipelineEntry(own=True)
LAST = _PipelineEntry(own=False)


def _is_place(p, own: bool) -> bool:
    """Whether ``p`` is one of the places that ir_measures made from this package's entry points
    (:mod:`ir_rbstar._entry`, recognised by name, so that this module does not import it)."""
    return getattr(p, "NAME", None) == PROVIDER.NAME and getattr(p, "OWN", None) is own


def register() -> None:
    """Register the provider with ir_measures and put its two places into the default pipeline: first
    (this package's declarations only) and last (ir_measures' measures no built-in serves). Idempotent;
    when ir_measures found this package through its entry points (see :mod:`ir_rbstar._entry`), the
    places it made are kept."""
    providers.registry[PROVIDER.NAME] = PROVIDER
    pipeline = getattr(ir_measures, "DefaultPipeline", None)
    if pipeline is None:                 # ir_measures is being imported and is loading its entry points
        return
    places = pipeline.providers
    if not any(p is FIRST or _is_place(p, own=True) for p in places):
        places.insert(0, FIRST)
    if not any(p is LAST or _is_place(p, own=False) for p in places):
        places.append(LAST)


def is_ours(provider) -> bool:
    return isinstance(provider, RbstarProvider)


def serving_provider(measure, choice: Optional[str] = None):
    """The provider that evaluates ``measure``: the one named ``choice``, or the first of ir_measures'
    default pipeline that supports it and is installed. Raises ParameterError naming the measure when
    there is none (or when ``choice`` cannot compute it)."""
    if choice:
        if choice not in providers.registry:
            raise ParameterError(f"unknown provider {choice!r}; known: {', '.join(sorted(providers.registry))}")
        provider = providers.registry[choice]
        if not provider.supports(measure):
            raise ParameterError(f"provider {choice!r} does not compute {measure}")
        if not provider.is_available():
            raise ParameterError(f"provider {choice!r} is not installed ({provider.install_instructions()})")
        return provider
    for provider in ir_measures.DefaultPipeline.providers:
        if provider.supports(measure) and provider.is_available():
            return provider
    raise ParameterError(f"no installed provider computes {measure}")


def split_by_provider(measures, choice: Optional[str] = None):
    """(the measures this package's provider serves, the others), in their given order."""
    ours = [m for m in measures if is_ours(serving_provider(m, choice))]
    return ours, [m for m in measures if m not in ours]


def iter_calc_columnar(measures, qrels: Optional[Qrels], run: Ranking, choice: Optional[str] = None):
    """Per-query metrics for a run and qrels already in columnar form (as the command line reads them).

    ir_rbstar's measures get the columnar run and qrels as they are; the others (nDCG@10, ...) go
    through ir_measures' pipeline (or the provider named by ``choice``) with dicts of dicts, the form its
    default provider (pytrec_eval) takes as it is (a DataFrame of arrow strings would be read row by row:
    about 5 times slower on the demo's runs).
    """
    ours, others = split_by_provider(measures, choice)
    if ours:
        yield from PROVIDER.evaluator(ours, qrels).iter_calc(run)
    if others:
        from .dicts import qrels_dict, ranking_dict
        from .io import Qrels
        native_qrels = qrels_dict(qrels) if isinstance(qrels, Qrels) else qrels
        calc = providers.registry[choice] if choice else ir_measures
        yield from calc.iter_calc(others, native_qrels, ranking_dict(run))
