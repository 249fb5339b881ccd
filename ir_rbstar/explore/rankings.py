"""The rankings part of an explorer page, made on whole columns: per query one table of the documents any run
ranks within the depth (in the order they first appear: run by run, rank by rank), their grades, and per run
the table index of each of its top documents, its tie groups there and the length of its whole ranking.

A page of 10 runs x 5,000 queries x depth 100 (5M ranked documents) took 3.7 s here with a Python step per
ranked document, and takes 1.1 s on the columns (docs/explore.md)."""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

import numpy as np

from ..io import QUERY_IDS, Qrels, Ranking
from ..io.docindex import _differ
from ..io.ids import keyed_id_bytes

__all__ = ["ranking_tables", "kept_lengths", "grades_of", "split_by", "with_none", "Tables"]


@contextmanager
def no_collection() -> Iterator[None]:
    """Python's cyclic garbage collector paused (as it was before, after): making millions of small lists, as a
    page's tables are, sets it off again and again, each time walking every list made so far (cutting 5M
    table indices into 70,000 lists took 0.40 s with it, 0.02 s without). Lists of numbers hold no cycles."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def split_by(flat: list, counts: np.ndarray) -> List[list]:
    """``flat`` cut into consecutive pieces of ``counts`` items."""
    ends = np.cumsum(counts).tolist()
    return [flat[a:b] for a, b in zip([0] + ends[:-1], ends, strict=True)]


def kept_lengths(ranking: Ranking, qcodes: np.ndarray, depth: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first, kept, lengths) per query of ``qcodes``: the row of ``ranking`` where the query starts, how many
    of its rows are within ``depth``, and its whole length (0: no rows)."""
    seg = ranking.segment_of(qcodes)
    present = seg >= 0
    lo = np.zeros(len(qcodes), dtype=np.int64)
    lengths = np.zeros(len(qcodes), dtype=np.int64)
    lo[present] = ranking.offsets[seg[present]]
    lengths[present] = ranking.offsets[seg[present] + 1] - lo[present]
    return lo, np.minimum(lengths, depth), lengths


def _top_rows(ranking: Ranking, qcodes: np.ndarray, depth: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, kept, lengths): the rows of ``ranking`` within ``depth`` of each query of ``qcodes``, query by
    query in that order and by rank; how many each query keeps; each query's whole length (0: no rows)."""
    lo, kept, lengths = kept_lengths(ranking, qcodes, depth)
    # lo, lo + 1, ... for each query: a running count restarted at each query's first kept row
    starts = np.cumsum(kept) - kept
    rows = np.arange(int(kept.sum()), dtype=np.int64) + np.repeat(lo - starts, kept)
    return rows, kept, lengths


def _tie_lists(ranking: Ranking, rows: np.ndarray, kept: np.ndarray) -> List[List[List[int]]]:
    """Per query, the tie groups of two or more rows that reach into its kept rows: [start, size], the
    0-based position where the group starts and its size over the whole ranking, in rank order."""
    start, size = ranking.tie_groups()
    s, z = start[rows], size[rows]
    tied = z > 1
    slot = np.repeat(np.arange(len(kept)), kept)
    head = tied.copy()
    # a tied row continues its group when the row before is of the same query and the same group
    head[1:] &= ~(tied[:-1] & (slot[1:] == slot[:-1]) & (s[1:] == s[:-1]))
    pairs = np.column_stack([s[head], z[head]]).tolist()
    return split_by(pairs, np.bincount(slot[head], minlength=len(kept)))


def _first_seen(slots: np.ndarray, hashes: np.ndarray, ids: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """For entries listed in the order of first appearance within each slot (slots ascending): (group, firsts),
    the group of equal (slot, id) of each entry, numbered in order of first appearance, and each group's first
    entry. Equal ids are found by their 64-bit hashes, then confirmed byte for byte; where two ids share a
    key, by the ids themselves."""
    n = len(slots)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # one 64-bit key, the slot in the high bits and the hash's high bits below: a stable argsort of it keeps
    # each group's entries in their order (a lexsort of the two columns took four times as long); two ids
    # that share the key are told apart below
    shift = np.uint64(max(int(slots[-1]).bit_length(), 1))
    key = slots.astype(np.uint64) << (np.uint64(64) - shift)
    key |= hashes.view(np.uint64) >> shift
    order = np.argsort(key, kind="stable")
    k = key[order]
    new = np.ones(n, dtype=bool)
    new[1:] = k[1:] != k[:-1]
    label = np.cumsum(new) - 1
    head = order[new]                                   # each group's first entry
    group_of = np.empty(n, dtype=np.int64)
    group_of[order] = label
    if _differ(ids, ids[head[group_of]]).any():         # a hash shared by two ids: group by the ids
        return _first_seen_exact(slots, ids)
    return _by_appearance(group_of, head)


def _first_seen_exact(slots: np.ndarray, ids: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """:func:`_first_seen` by the ids' bytes (the slot, big-endian, then the id), without hashes."""
    key = keyed_id_bytes(slots, ids)
    _, head, group_of = np.unique(key.view(f"V{key.shape[1]}").ravel(), return_index=True, return_inverse=True)
    return _by_appearance(group_of.ravel(), head)


def _by_appearance(group_of: np.ndarray, head: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The groups renumbered by the position of their first entry."""
    order = np.argsort(head, kind="stable")
    rank = np.empty(len(head), dtype=np.int64)
    rank[order] = np.arange(len(head))
    return rank[group_of], head[order]


class Tables(NamedTuple):
    """The rankings part of a page (:func:`ranking_tables`)."""
    docs: List[List[str]]
    grades: List[List[Optional[int]]]
    positions: List[List[List[int]]]
    ties: List[List[List[List[int]]]]
    lengths: List[List[int]]
    aux: Optional[List[List[Optional[int]]]]


def ranking_tables(qrels: Qrels, rankings: Dict[str, Ranking], qids: List[str], depth: int,
                   aux: Optional[Qrels] = None) -> Tables:
    """(docs, grades, positions, ties, lengths): per query the documents any run ranks within ``depth`` (a
    table, in order of first appearance) and their grades (None: unjudged); per run and query the table
    indices of its top ``depth``, its tie groups there ([start, size] with 0-based start, size over the whole
    ranking, groups of two or more) and the length of its whole ranking; with ``aux`` (other judgments: a
    second assessor, a model's labels) their grades of the same documents too, looked up by the same keys."""
    with no_collection():
        return _tables(qrels, rankings, qids, depth, aux)


def _tables(qrels: Qrels, rankings: Dict[str, Ranking], qids: List[str], depth: int, aux: Optional[Qrels]) -> Tables:
    qcodes = QUERY_IDS.encode(np.asarray(qids, dtype=object)) if qids else np.empty(0, dtype=np.int64)
    nq = len(qids)
    ties, lengths, counts, parts = [], [], [], []
    for ranking in rankings.values():
        rows, kept, whole = _top_rows(ranking, qcodes, depth)
        ties.append(_tie_lists(ranking, rows, kept))
        lengths.append(whole.tolist())
        counts.append(kept)
        parts.append((np.repeat(np.arange(nq, dtype=np.int64), kept), ranking.docs[rows], ranking.dbytes[rows]))
    if not parts:
        return Tables([[] for _ in qids], [[] for _ in qids], [], [], [], None if aux is None else [[] for _ in qids])
    slots = np.concatenate([p[0] for p in parts])
    hashes = np.concatenate([p[1] for p in parts]).view(np.int64)
    ids = np.concatenate([p[2] for p in parts])
    # (query, run, rank): the order in which a query's documents first appear
    order = np.argsort(slots, kind="stable")
    group, firsts = _first_seen(slots[order], hashes[order], ids[order])
    doc_slot = slots[order][firsts]
    per_query = np.bincount(doc_slot, minlength=nq)
    table_index = group - np.repeat(np.cumsum(per_query) - per_query, per_query)[group]
    index = np.empty(len(slots), dtype=np.int64)
    index[order] = table_index
    doc_ids = ids[order][firsts]
    names = [d.decode("utf-8") for d in doc_ids.tolist()]
    docs = split_by(names, per_query)
    keys = (qcodes[doc_slot], hashes[order][firsts], doc_ids)
    grades = split_by(grades_of(qrels, *keys), per_query)
    positions, at = [], 0
    for kept in counts:
        n = int(kept.sum())
        positions.append(split_by(index[at:at + n].tolist(), kept))
        at += n
    return Tables(docs, grades, positions, ties, lengths,
                  None if aux is None else split_by(grades_of(aux, *keys), per_query))


def grades_of(qrels: Qrels, qcodes: np.ndarray, hashes: np.ndarray, ids: np.ndarray) -> List[Optional[int]]:
    """The grade in ``qrels`` of each (query code, document) pair (``hashes``: the ids' 64-bit hashes, ``ids``:
    their bytes), None where it is not judged."""
    if len(ids) == 0:
        return []
    grade, judged = qrels.lookup(np.asarray(qcodes, dtype=np.int64), np.asarray(hashes).view(np.uint64), ids)
    return with_none(grade, ~judged)


def with_none(values: np.ndarray, missing: np.ndarray) -> list:
    """``values.tolist()`` with None where ``missing`` (the page's JSON holds no NaN and no made-up grade), in
    one pass of numpy rather than a Python step per value."""
    cells = values.astype(object)
    cells[missing] = None
    return cells.tolist()
