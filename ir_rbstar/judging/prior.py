"""A prior for the selection: auxiliary judgments, or probabilities of relevance, used as P(relevant) where
no human judgment exists (issue 29, item 3).

``prior=`` of :func:`~ir_rbstar.judging.select` and :func:`~ir_rbstar.judging.simulate` (``--prior FILE``
on the command line) is either

* auxiliary qrels (a TREC qrels file ``query iteration doc grade``, an ir_datasets id, a qrels DataFrame):
  a document graded g counts as expected gain gain(g), the gain the driving measure gives that grade; or
* a table of probabilities (a DataFrame with columns ``query_id, doc_id, probability``, or a text file of
  three whitespace-separated columns ``query doc probability``, an optional header line allowed): a
  document with probability p counts as p times the gain of the top grade (for a binary measure: P(relevant)).

Where the prior holds a candidate, the goals ``pairs`` and ``ranking`` take the mean of its value and their
own estimate of P(relevant) (the running precision of the runs, :mod:`ir_rbstar.judging.strategies`): a
second judge often disagrees with the first, so a document it calls non-relevant stays reachable. A
(query, document) the pool does not hold is ignored. A probability outside [0, 1] (or not a number), a second
probability for one document, and an auxiliary grade outside the grade scale (above the top grade --
``max_rel`` of a graded RBP, else the top human grade -- or below 0 and the lowest human grade) are errors
naming the file, query and document.
"""
from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np
import pandas as pd

from ..errors import InputFormatError, ParameterError
from ..io import Qrels
from .pool import Pool, Weights, check_grade_scale, load_judgments

__all__ = ["prior_gains", "top_grade"]


def top_grade(weights: Weights, judgments: Optional[Qrels], extra: Optional[Qrels] = None) -> int:
    """The top of the grade scale: ``max_rel`` of a graded RBP, ``rel`` of a binary measure, else the top
    grade of the human judgments (of ``extra`` without them; 1 without either)."""
    if weights.rel is not None:
        return int(weights.rel)
    if weights.name == "RBP":
        return int(weights.max_rel)
    for q in (judgments, extra):
        if q is not None and len(q.grades):
            return max(1, int(q.grades.max()))
    return 1


def _is_probability_file(path: str) -> bool:
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                return len(line.split()) == 3
    return False


def _probability_table(prior: Any) -> Optional[pd.DataFrame]:
    """The prior as a (query_id, doc_id, probability, line) table, or None when it is qrels."""
    if not _is_probabilities(prior):
        return None
    if isinstance(prior, pd.DataFrame):
        missing = {"query_id", "doc_id"} - set(prior.columns)
        if missing:
            raise ParameterError(f"prior: a probability table needs the columns query_id, doc_id, probability "
                                 f"(missing {', '.join(sorted(missing))})")
        t = prior[["query_id", "doc_id", "probability"]].copy()
        t["line"] = np.arange(len(t)) + 1
        t["where"] = "prior"
        return t
    path = os.fspath(prior)
    t = pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "doc_id", "probability"],
                    dtype=str, keep_default_na=False, na_filter=False)
    t["line"] = np.arange(len(t)) + 1
    if len(t) and not _number(t["probability"].iloc[0]):
        t = t.iloc[1:]                                     # a header line
    t["where"] = path
    return t


def prior_judgments(prior: Any) -> Optional[Qrels]:
    """The prior as qrels when it is auxiliary judgments (not probabilities), else None: its grades give the
    default measure's scale when no human judgment exists yet (:func:`.pool.measure_or_default`)."""
    if prior is None or _is_probabilities(prior):
        return None
    return load_judgments(prior, "prior")


def _is_probabilities(prior: Any) -> bool:
    """Whether ``prior`` is a table of probabilities (what :func:`_probability_table` reads), told from its
    columns or its first line, without reading the table."""
    if isinstance(prior, pd.DataFrame):
        return "probability" in prior.columns
    return isinstance(prior, (str, os.PathLike)) and os.path.isfile(prior) and _is_probability_file(os.fspath(prior))


def _number(text: Any) -> bool:
    try:
        float(text)
        return True
    except (TypeError, ValueError):
        return False


def _check_probabilities(t: pd.DataFrame) -> np.ndarray:
    p = pd.to_numeric(t["probability"], errors="coerce").to_numpy(np.float64)
    bad = ~((p >= 0.0) & (p <= 1.0))                          # NaN too
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = t.iloc[i]
        raise InputFormatError(f"{row['where']}, line {int(row['line'])}: probability {row['probability']!r} of "
                               f"document {str(row['doc_id'])!r} for query {str(row['query_id'])!r} is not a "
                               "number in [0, 1]")
    return p


def prior_gains(pool: Pool, prior: Any, judgments: Optional[Qrels] = None) -> Optional[np.ndarray]:
    """The expected gain of every candidate of ``pool`` by ``prior`` (NaN where the prior says nothing), in
    the gain units of the pool's measure; None without a prior. ``judgments`` (the human qrels, if any)
    fix the grade scale."""
    if prior is None:
        return None
    top = pool.weights.gain(np.array([top_grade(pool.weights, judgments)]))[0]
    table = _probability_table(prior)
    out = np.full(pool.n_candidates, np.nan)
    if table is not None:
        p = _check_probabilities(table)
        key = pd.DataFrame({"query_id": table["query_id"].astype(str).to_numpy(),
                            "doc_id": table["doc_id"].astype(str).to_numpy(), "p": p})
        again = key.duplicated(["query_id", "doc_id"]).to_numpy()
        if again.any():                      # two probabilities for one document: which one is meant?
            row = table.iloc[int(np.flatnonzero(again)[0])]
            raise InputFormatError(f"{row['where']}, line {int(row['line'])}: a second probability for document "
                                   f"{str(row['doc_id'])!r} of query {str(row['query_id'])!r}")
        cand = pd.DataFrame({"query_id": pool.query_ids(np.arange(pool.n_candidates)).astype(str),
                             "doc_id": pool.doc_ids(np.arange(pool.n_candidates)).astype(str),
                             "c": np.arange(pool.n_candidates)})
        hit = cand.merge(key, on=["query_id", "doc_id"], how="inner")
        out[hit["c"].to_numpy()] = hit["p"].to_numpy() * top
        return _something_matched(out, len(key))
    aux = load_judgments(prior, "prior")
    if aux is None:
        return None
    low = min(0, int(judgments.grades.min()) if judgments is not None and len(judgments.grades) else 0)
    if pool.weights.rel is None:
        high = top_grade(pool.weights, judgments, aux)
    else:                                    # a binary measure: the human scale, if any, bounds the grades
        high = int(judgments.grades.max()) if judgments is not None and len(judgments.grades) else \
            int(aux.grades.max(initial=1))
    check_grade_scale(aux, low, high, "prior")
    grades, found = pool.lookup(aux)
    out[found] = pool.weights.gain(grades[found])
    return _something_matched(out, len(aux.grades))


def _something_matched(out: np.ndarray, entries: int) -> np.ndarray:
    """``out``, unless the prior has entries and none is for a document of the pool: then its ids are most
    likely of another form than the runs', and it would guide nothing without a word (a ParameterError)."""
    if entries and np.isnan(out).all():
        raise ParameterError(f"prior: none of its {entries} entries is for a document of the pool (the "
                             f"documents the runs rank within the measure's depth); are its query and document "
                             f"ids those of the runs?")
    return out
