"""Choosing the next documents to judge: :func:`select` (Python) and the files an assessment tool takes."""
from __future__ import annotations

import os
from typing import Any, Optional, Sequence

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..io import Qrels
from ..progress import Progress
from .pool import Pool, build_pool, check_measure_scale, load_judgments, measure_or_default
from .prior import prior_gains, prior_judgments
from .strategies import GOALS, STRATEGIES, choose

__all__ = ["select", "write_selection", "write_stub", "SELECTION_COLUMNS", "load_judgments", "positive_int"]

#: the columns of :func:`select`'s table (and of the TSV file :func:`write_selection` writes)
SELECTION_COLUMNS = ("query_id", "doc_id", "priority", "round", "strategy", "reason")


def positive_int(value: Any, name: str, allow_none: bool = False) -> Optional[int]:
    """``value`` as a positive int, or a :class:`ParameterError` naming ``name``."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ParameterError(f"{name}: must be a positive integer, got {value!r}")
    return int(value)


def _queries_of(qrels: Optional[Qrels], queries: Optional[Sequence[str]]) -> Optional[Sequence[str]]:
    if queries is not None:
        return [str(q) for q in queries]
    if qrels is None or len(qrels.grades) == 0:
        return None
    from ..io import QUERY_IDS
    return list(QUERY_IDS.decode(qrels.qcodes))


def _baseline_index(pool: Pool, baseline: Optional[str]) -> Optional[int]:
    if baseline is None:
        return None
    from ..plots.common import named_run
    baseline = named_run(baseline, pool.runs)
    if baseline not in pool.runs:
        raise ParameterError(f"baseline: unknown run {baseline!r}; the runs are {', '.join(pool.runs)}")
    return pool.runs.index(baseline)


def select(runs: Any, qrels: Any = None, measure: Any = None, budget: int = 100,
           strategy: str = "pairs", batch: Optional[int] = None, per_query: Optional[int] = None,
           depth: Optional[int] = None, baseline: Optional[str] = None, seed: int = 0,
           queries: Optional[Sequence[str]] = None, prior: Any = None,
           progress: Optional[Progress] = None) -> pd.DataFrame:
    """The next ``budget`` (query, document) pairs to judge, as a table (:data:`SELECTION_COLUMNS`).

    ``runs``: a mapping name -> run (any form the package reads) or a list of run files (named as the commands
    name them: ``runs/bm25.run.gz`` is ``bm25``; by its path where two files share a name). ``qrels``: the
    judgments made so far (a file, an ir_datasets id, any qrels form) or None (or an empty file) to start
    from nothing; with
    qrels the query set is theirs, otherwise every query of the runs (``queries`` overrides). ``strategy``:
    a goal (``'residual'``, ``'pairs'``, ``'ranking'``) or a baseline (``'depth'``, ``'rbp_sum'``,
    ``'rbp_max'``, ``'mtf'``, ``'bandit'``); see :mod:`ir_rbstar.judging.strategies`. The documents come in
    rounds of ``batch`` (default: all in one round); no document is chosen twice nor one already judged;
    later rounds cannot know the judgments of earlier ones, so they are proposed as if those were pending.
    ``per_query`` caps the documents chosen per query; ``baseline`` (a run name) restricts ``pairs`` and
    ``ranking`` to the comparisons with that run. ``prior`` (auxiliary qrels or a table of probabilities
    of relevance, :mod:`ir_rbstar.judging.prior`) is averaged into the goals' estimate of P(relevant)
    where it holds a document no human has judged (the baselines and ``residual`` do not use it). Fewer
    than ``budget`` rows come back when the pool (the documents ranked within ``depth`` by some run) runs
    out; for ``nDCG@k`` a ``depth`` past the cutoff adds the documents that can only raise a query's ideal
    DCG, which the goals take after the others (:mod:`ir_rbstar.judging.strategies`). ``priority`` is the
    strategy's score (higher first), ``reason`` what the judgment can change.

    Each round is one selection over the whole pool, so ``budget / batch`` rounds cost that many selections
    (for ``pairs`` on DL 2019's 37 runs, all 200 queries, nothing judged: about a third of a second each;
    36 ms on its 43 judged queries): a budget in rounds of one document can take minutes. ``progress``: a
    ``progress(step, total, message)`` callable (:mod:`ir_rbstar.progress`; ``ir-rbstar judge`` makes one, on
    a terminal or with ``--progress``), called after each round.

    ``measure`` (whose rank weights and gains drive the choice): ``RBP(...)[@k]``, ``nDCG@k`` or ``P@k``;
    by default ``RBP(p=0.8)`` with ``max_rel`` the highest grade of ``qrels`` (of a graded ``prior`` when
    nothing is judged yet), e.g. ``RBP(p=0.8,max_rel=3)`` on TREC DL. A graded RBP whose ``max_rel`` is
    below a grade of ``qrels`` is an error (its gains would pass 1), as it is when evaluating."""
    budget = int(positive_int(budget, "budget") or 0)
    batch = positive_int(batch, "batch", allow_none=True) or budget
    cap = positive_int(per_query, "per_query", allow_none=True)
    if strategy not in STRATEGIES:
        raise ParameterError(f"strategy: unknown strategy {strategy!r}; one of {', '.join(STRATEGIES)} "
                             f"(the goals: {', '.join(GOALS)})")
    judgments = load_judgments(qrels, empty_ok=True)
    if measure is None and judgments is None and prior is not None:
        as_qrels = prior_judgments(prior)    # nothing judged: a graded prior sets the scale (loaded once, here)
        measure = measure_or_default(None, as_qrels, prior)
        prior = as_qrels if as_qrels is not None else prior
    measure = measure_or_default(measure, judgments, qrels)
    pool = build_pool(runs, measure, queries=_queries_of(judgments, queries), depth=depth)
    check_measure_scale(pool.weights, judgments, measure)
    base = _baseline_index(pool, baseline)
    grades, judged = pool.lookup(judgments)
    expected = prior_gains(pool, prior, judgments)
    rng = np.random.default_rng(seed)
    chosen = np.zeros(pool.n_candidates, dtype=bool)
    per_q = None if cap is None else np.full(len(pool.queries), cap, dtype=np.int64)
    rows = []
    rnd = 0
    rounds = -(-budget // batch)
    while int(chosen.sum()) < budget:
        rnd += 1
        k = min(batch, budget - int(chosen.sum()))
        limit = None if per_q is None else per_q - np.bincount(pool.cand_query[chosen], minlength=len(per_q))
        pick = choose(pool, judged, grades, strategy, k, per_query=limit, exclude=chosen, rng=rng, baseline=base,
                      prior=expected)
        if len(pick.index) == 0:
            break
        chosen[pick.index] = True
        rows.append(pd.DataFrame({"query_id": pool.query_ids(pick.index), "doc_id": pool.doc_ids(pick.index),
                                  "priority": pick.priority, "round": rnd, "strategy": strategy,
                                  "reason": pick.reason}))
        if progress is not None:
            progress(rnd, rounds, f"round {rnd}: {int(chosen.sum())} of {budget} chosen")
    if not rows:
        return pd.DataFrame({c: [] for c in SELECTION_COLUMNS})
    return pd.concat(rows, ignore_index=True)[list(SELECTION_COLUMNS)]


def write_selection(table: pd.DataFrame, path: str) -> None:
    """The selection as a TSV file with a header line (query_id, doc_id, priority, round, strategy, reason)."""
    table.to_csv(os.fspath(path), sep="\t", index=False, float_format="%.6g")


def write_stub(table: pd.DataFrame, path: str) -> None:
    """A qrels-like stub, ``query_id 0 doc_id _`` per line: the assessor replaces ``_`` by the grade (a stub
    not filled in is not valid qrels, so it cannot be read as judgments by mistake)."""
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        for q, d in zip(table["query_id"], table["doc_id"], strict=True):
            f.write(f"{q} 0 {d} _\n")
