"""One block of whole queries, evaluated by the package's engine: the map step of streaming and Spark.

:func:`evaluate_block` takes the rows of a set of queries (run, qrels, and the rows of the same queries
of every run a measure names with ``ref=``, ``prior=`` or ``runs=``) and returns their per-query
values; :func:`aggregate` turns per-query values (of any number of blocks) into each measure's
aggregate, as ``ir_measures.calc_aggregate`` does. A query's value depends only on its own rows, so
the blocks' values are those of the whole run, whatever the blocks are, provided that every input's
rows of a query are in the same block. Equal to the last bits, not always bit for bit: a few rank-biased
measures (RBO, RBO_ext, RBA and residuals) choose their kernel for a whole call, not per query (the exact
tie-averaging one when any query of the call has tied scores), and that kernel and the untied one agree
to about 1e-16, not bit for bit (the compiled and numpy engines, chosen by the call's size, give the same
doubles: tests/integration/test_engine.py); so a value can move by an ulp or two
with the queries that share its block, as it does in any subset of the queries evaluated on one
machine. The tests compare to 1e-12.
"""
from __future__ import annotations

import math
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd
from ir_measures import Metric
from ir_measures import MeanAgg

from ..parsing import parse
from ..provider import PROVIDER, iter_calc_columnar, split_by_provider
from ..references import run_scope
from ..io import Qrels, to_qrels, to_ranking

__all__ = ["evaluate_block", "block_columns", "block_frame", "aggregate", "measure_names", "as_measures"]


def as_measures(measures: Any) -> list:
    """Measure objects from objects or strings (one string may hold several, as :func:`ir_rbstar.parse`)."""
    if isinstance(measures, str):
        return list(parse(measures))
    out: list = []
    for m in measures:
        out.extend(parse(m) if isinstance(m, str) else [m])
    return out


def measure_names(measures: Sequence) -> List[str]:
    """The labels of the measures (``str(measure)``), as per-query frames carry them."""
    return [str(m) for m in measures]


def evaluate_block(measures: Any, run: Any, qrels: Any = None, runs: Optional[Mapping[str, Any]] = None,
                   groups: Optional[Mapping[str, Mapping[str, Any]]] = None,
                   provider: Optional[str] = None, source: Optional[str] = None) -> Iterator[Metric]:
    """Per-query metrics of one block of queries.

    ``run`` and ``qrels`` hold the block's rows in any form the package reads (DataFrames with ir_measures'
    column names, :class:`~ir_rbstar.io.Ranking`, ...); ``qrels`` None means the measures need none. ``runs``
    maps each name a measure gives in ``ref=`` (or ``prior=``/``runs=``) to that run's rows of the same
    queries, and ``groups`` each ``prior=`` string naming several runs to ``{run name: rows}``; a run with
    no row for the block's queries is given as an empty frame, not left out (left out, the name would be
    looked up as a file). Queries are those the whole evaluation would give a value for: with qrels, the
    qrels' queries of the block; without, the run's. ``source`` names the run in error messages.
    """
    ms = as_measures(measures)
    ranking = to_ranking(run, source)
    judged: Optional[Qrels] = None
    if qrels is not None:
        judged = to_qrels(qrels, None if source is None else f"qrels of {source}")
    with run_scope(runs, groups):
        yield from iter_calc_columnar(ms, judged, ranking, provider)


def block_columns(measures: Any, run: Any, qrels: Any = None, runs: Optional[Mapping[str, Any]] = None,
                  groups: Optional[Mapping[str, Mapping[str, Any]]] = None, provider: Optional[str] = None,
                  source: Optional[str] = None) -> Dict[Any, Tuple[np.ndarray, np.ndarray]]:
    """What :func:`evaluate_block` gives, as whole columns: ``{measure: (query ids, values)}``. The
    package's measures come as the engine's arrays (no object per value: the path streaming and Spark
    use for large blocks); ir_measures' own measures through its pipeline, as in :func:`evaluate_block`."""
    ms = as_measures(measures)
    ranking = to_ranking(run, source)
    judged: Optional[Qrels] = None
    if qrels is not None:
        judged = to_qrels(qrels, None if source is None else f"qrels of {source}")
    ours, others = split_by_provider(ms, provider)
    out: Dict[Any, Tuple[np.ndarray, np.ndarray]] = {}
    with run_scope(runs, groups):
        if ours:
            values = PROVIDER.evaluator(ours, judged).values(ranking)
            out.update((m, (values["query_id"], values[m])) for m in ours)
        if others:
            got: Dict[Any, list] = {m: [] for m in others}
            for metric in iter_calc_columnar(others, judged, ranking, provider):
                got[metric.measure].append((metric.query_id, metric.value))
            for m, pairs in got.items():
                out[m] = (np.array([q for q, _ in pairs], dtype=object), np.array([v for _, v in pairs], dtype=float))
    return out


def block_frame(*args: Any, **kwargs: Any) -> pd.DataFrame:
    """:func:`block_columns` (same arguments) as one per-query frame (``query_id``, ``measure`` label, ``value``),
    in the order of the measures."""
    parts = [pd.DataFrame({"query_id": q, "measure": str(m), "value": v})
             for m, (q, v) in block_columns(*args, **kwargs).items()]
    return pd.concat(parts, ignore_index=True).astype(_FRAME_TYPES) if parts else metrics_frame([])


def aggregate(measures: Sequence, values: pd.DataFrame) -> Dict[Any, float]:
    """Each measure's aggregate over a per-query frame (columns ``query_id``, ``measure`` (the label,
    ``str(measure)``), ``value``), with the measure's own ir_measures aggregator. For a mean (every measure
    of this package and most of ir_measures'), the sum is exactly rounded (``math.fsum``), so it does not
    depend on the order in which blocks arrive; it can differ from ``calc_aggregate``'s running sum in
    the last bits (at most n ulps for n queries)."""
    by_label = {label: frame["value"].to_numpy(dtype=float)
                for label, frame in values.groupby("measure", sort=False)}
    out: Dict[Any, float] = {}
    for m in measures:
        vals = by_label.get(str(m), np.empty(0))
        agg = m.aggregator()
        if type(agg) is MeanAgg:
            out[m] = math.fsum(vals.tolist()) / len(vals) if len(vals) else agg.result()
        else:
            for v in vals.tolist():
                agg.add(v)
            out[m] = agg.result()
    return out


def metrics_frame(metrics: Iterable[Metric]) -> pd.DataFrame:
    """A per-query frame (``query_id``, ``measure`` label, ``value``) from ir_measures' metrics."""
    rows = [(m.query_id, str(m.measure), m.value) for m in metrics]
    return pd.DataFrame(rows, columns=list(_FRAME_TYPES)).astype(_FRAME_TYPES)


_FRAME_TYPES = {"query_id": object, "measure": object, "value": float}
