"""Judging orders made elsewhere, replayed by :func:`ir_rbstar.judging.simulate` beside its own strategies.

An order is the sequence in which some other method would have the documents judged: a pool from trectools, a
strategy of one's own, the ``judge`` command's output of another session. ``simulate(..., orders={name: order})``
reveals its first ``budget`` documents at each budget, under the protocol of the package's strategies (the
qrels are the oracle; a document they lack is non-relevant), so its curves and counts can be compared with
theirs. An order is:

* a DataFrame with the columns ``query_id`` and ``doc_id`` (or PyTerrier's ``qid`` and ``docno``), in order;
* an iterable of ``(query_id, doc_id)`` pairs;
* a file: a table with a header line naming ``query_id`` and ``doc_id`` (tab-separated, as ``ir-rbstar judge``
  writes it), or one document a line, ``query doc`` or qrels-like ``query iteration doc [grade]`` (as the
  ``--stub`` of ``judge`` and most pooling tools write it).

Every document of the order costs a judgment, also one outside the pool (no run ranks it within the measure's
depth). Such a document is judged as the others are, so each value at a budget is the package's evaluation with
the order's first documents as qrels: it can still count for a run that ranks it deeper (RBP without a cutoff
weighs every rank) and for nDCG's ideal, which takes every judged document of the query. A document listed
twice is an error naming both places: a second judgment of the same document would be counted twice.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, NamedTuple, Sequence, Tuple

import numpy as np

from ..errors import InputFormatError, ParameterError
from .pool import Pool

__all__ = ["read_order", "order_positions", "replay_order", "check_names", "Outside"]


def _from_file(path: str) -> Tuple[List[Tuple[str, str]], List[str]]:
    """The pairs of an order file and where each comes from (``file, line n``)."""
    import gzip
    opener: Any = gzip.open if path.endswith(".gz") else open
    pairs: List[Tuple[str, str]] = []
    where: List[str] = []
    with opener(path, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    head = lines[0].split("\t") if lines else []
    if "query_id" in head and "doc_id" in head:
        qi, di = head.index("query_id"), head.index("doc_id")
        for n, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            cells = line.split("\t")
            if len(cells) <= max(qi, di):
                raise InputFormatError(f"{path}, line {n}: {len(cells)} tab-separated fields, the header names "
                                       f"{len(head)}")
            pairs.append((cells[qi], cells[di]))
            where.append(f"{path}, line {n}")
        return pairs, where
    for n, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) == 1:
            raise InputFormatError(f"{path}, line {n}: one field; an order lists 'query doc' or "
                                   f"'query iteration doc [grade]' per line")
        pairs.append((fields[0], fields[1]) if len(fields) == 2 else (fields[0], fields[2]))
        where.append(f"{path}, line {n}")
    return pairs, where


def read_order(order: Any, name: str) -> Tuple[List[Tuple[str, str]], List[str]]:
    """The ``(query_id, doc_id)`` pairs of an order (see the module) as text, and where each comes from (for
    errors); a pair listed twice is an :class:`~ir_rbstar.errors.InputFormatError` naming both places."""
    if isinstance(order, (str, os.PathLike)):
        path = os.fspath(order)
        if not os.path.exists(path):
            raise FileNotFoundError(f"orders[{name!r}]: file not found: {path}")
        pairs, where = _from_file(path)
    elif hasattr(order, "columns"):
        cols = list(order.columns)
        q = "query_id" if "query_id" in cols else "qid" if "qid" in cols else None
        d = "doc_id" if "doc_id" in cols else "docno" if "docno" in cols else None
        if q is None or d is None:
            raise InputFormatError(f"orders[{name!r}]: a DataFrame of query_id and doc_id (or qid and docno); "
                                   f"the columns are {cols}")
        if order[q].isna().any() or order[d].isna().any():
            row = int(np.flatnonzero(order[q].isna().to_numpy() | order[d].isna().to_numpy())[0])
            raise InputFormatError(f"orders[{name!r}], row {row}: a missing query or document id")
        pairs = list(zip(order[q].astype(str), order[d].astype(str), strict=True))
        where = [f"orders[{name!r}], row {i}" for i in range(len(pairs))]
    else:
        pairs, where = [], []
        for i, item in enumerate(order):
            try:
                q, d = item
            except (TypeError, ValueError):
                raise InputFormatError(f"orders[{name!r}], item {i}: a (query_id, doc_id) pair, got {item!r}") \
                    from None
            pairs.append((str(q), str(d)))
            where.append(f"orders[{name!r}], item {i}")
    first: Dict[Tuple[str, str], int] = {}
    for i, pair in enumerate(pairs):
        j = first.setdefault(pair, i)
        if j != i:
            raise InputFormatError(f"{where[i]}: document {pair[1]!r} of query {pair[0]!r} is listed twice "
                                   f"(first at {where[j]}): a document is judged once")
    return pairs, where


class Outside(NamedTuple):
    """The documents of an order that are no candidates of the pool, for the pool's queries: each one's query
    index (into ``pool.queries``), document hash and id (bytes), and place in the order (0 first). Judging one
    can still change a value: a run may rank it below the pool's depth (RBP without a cutoff counts every
    rank), and nDCG's ideal counts every judged document of the query."""
    query: np.ndarray
    dhash: np.ndarray
    dbytes: np.ndarray
    place: np.ndarray


def order_positions(pool: Pool, pairs: Sequence[Tuple[str, str]]) -> Tuple[np.ndarray, Outside]:
    """The place in the order (0 first) of every pool candidate, -1 for one the order does not list (the order
    looked up in the pool as qrels whose grades are the places: the pool's own join, :meth:`Pool.lookup`), and
    the order's other documents of the pool's queries (:class:`Outside`)."""
    import pandas as pd
    from ..io import to_qrels
    none = Outside(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64), np.zeros(0, dtype="S1"),
                   np.zeros(0, dtype=np.int64))
    if not pairs:
        return np.full(pool.n_candidates, -1, dtype=np.int64), none
    q, d = zip(*pairs, strict=True)
    places = to_qrels(pd.DataFrame({"query_id": q, "doc_id": d, "relevance": np.arange(len(pairs))}),
                      source="order")
    place, listed = pool.lookup(places)
    positions = np.where(listed, place, -1).astype(np.int64)
    outside = ~np.isin(places.grades, positions[listed])
    qcodes = np.sort(pool.qcodes)
    qi = np.minimum(np.searchsorted(qcodes, places.rowq), max(len(qcodes) - 1, 0))
    ours = outside & (qcodes[qi] == places.rowq) if len(qcodes) else np.zeros(len(outside), dtype=bool)
    index_of = np.argsort(pool.qcodes, kind="stable")           # sorted code -> the pool's query index
    return positions, Outside(index_of[qi[ours]].astype(np.int64), places.rowd[ours], places.rowb[ours],
                              places.grades[ours].astype(np.int64))


def replay_order(pool: Pool, positions: np.ndarray, outside: Outside, length: int, budgets: Sequence[int]
                 ) -> Iterator[Tuple[int, np.ndarray, int, np.ndarray]]:
    """(budget, revealed mask, documents judged, outside documents judged) at every budget (ascending): the
    order's first ``budget`` documents judged (all ``length`` of them once the order is shorter), of which those
    in the pool (``positions``: :func:`order_positions`) revealed, and of its documents outside the pool
    (``outside``) the mask of those judged."""
    for budget in budgets:
        yield budget, (positions >= 0) & (positions < budget), min(budget, length), outside.place < budget


def check_names(orders: Dict[str, Any], known: Sequence[str]) -> None:
    """An order's name must not be one of the package's strategies (``known``: its rows would be taken for
    theirs)."""
    for name in orders:
        if not isinstance(name, str) or not name:
            raise ParameterError(f"orders: a name must be a non-empty string, got {name!r}")
        if name in known:
            raise ParameterError(f"orders: the name {name!r} is one of the package's strategies; give it another")
