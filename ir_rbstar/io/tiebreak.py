"""Score ties broken by document id, descending (trec_eval's order), on whole columns.

Only the tied rows are touched, a group of tied rows (same query, same float32 score) at a time:

* a group whose ids already descend stays as it is, and one whose ids ascend is reversed: TREC runs
  as NIST distributes them list tied documents by ascending id (of 23 Robust 2003 and 2004 runs with ties,
  every tied neighbour in 18 of them, all but 1-21 in three more), so a run with integer scores, nearly
  all of whose rows are tied, is put in order by one comparison of neighbours;
* the other groups (ids in no order, or an id twice) are sorted by (group, id descending), keeping equal
  ids in their order, by one stable ``argsort`` of a bytes key per row: the group's number, big-endian, then
  the id's bytes complemented (a shorter id, a prefix of a longer one, then sorts after it, as
  trec_eval has it). numpy's stable sort of bytes is a timsort, which the groups, already in order, make
  nearly linear.

The whole step, against the one ``lexsort`` of every tied row's 64-bit id words it replaces: 4.4 against 23
ms for Robust 2003's MU03rob01 (integer scores, 90,099 tied neighbours, ascending ids), 3.8 against 17 ms for
rutcor03100 (99,545 tied neighbours, ids nearly ascending), 11.6 against 21 ms for MU03rob01's ties with its
ids shuffled, 0.33 against 1.89 s for 2.9M tied rows of 3M in groups of about five in no order.

Internal.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import dictscan
from .docindex import Moves
from .ids import id_words, keyed_id_bytes

__all__ = ["break_ties_by_docid"]


def break_ties_by_docid(order: Optional[np.ndarray], same: np.ndarray, dbytes: np.ndarray):
    """Within each run of tied rows (``same[i]``: ranked row i + 1 ties with row i), put the doc ids
    (``dbytes``, a numpy bytes column, one per input row) in descending order; ``order`` is the sorting
    permutation (None: the rows are sorted already). Returns the new permutation: a new array when
    ``order`` is given, else :class:`Moves` of the tied rows that move, or None when none does (and
    ``order`` itself when no row is tied).

    Each large array is freed as soon as it is used: on a machine whose kernel hands out fresh pages slowly,
    the pages this step adds to the heap were most of its cost (a dict of Robust 2003's rutcor03100, 99.5%
    of its rows tied: 1,921 page faults a call, 1,662 now; by medians of 41 calls, 22.8 ms an evaluation
    instead of 24.9)."""
    if not same.any():
        return order
    # in C where the extension is built (:func:`.dictscan.tie_order`: the same order without the forty numpy
    # calls below, most of this step on runs of 100 documents a query)
    compiled = dictscan.tie_order(same, order, dbytes)
    if compiled is not None:
        rows, ranked = compiled
        return _finished(order, rows, rows if order is None else None, ranked)
    tied = np.zeros(len(same) + 1, dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    head = tied.copy()
    head[1:] &= ~same                        # a tied row not tied with the row before opens a group
    rows = np.flatnonzero(tied)              # positions (in sorted order) of every tied row
    opens = head[rows]
    del tied, head
    src = rows if order is None else order[rows]
    # the ids as big-endian words, compared word by word (numpy's comparison of the bytes arrays themselves gives
    # the same signs four times slower: 1.8 against 0.45 ms for MU03rob01's 90,099 tied neighbours)
    less, greater = _neighbours(id_words(dbytes[src], ordered=True))
    # a group [s, e) of tied rows has its pairs of neighbours at s .. e - 2 (pair e - 1 leads to the next group)
    inner = ~opens[1:]
    starts = np.flatnonzero(opens)
    np.logical_xor(less & inner, inner, out=less)            # pairs of a group not ascending
    np.logical_xor(greater & inner, inner, out=greater)      # ... not descending (equal ids: neither)
    ascending = ~np.logical_or.reduceat(less, starts)
    descending = ~np.logical_or.reduceat(greater, starts)
    del less, greater, inner
    sizes = np.diff(np.append(starts, len(rows)))
    # position p of a reversed group [s, e) takes row s + e - 1 - p; the others keep theirs
    take = np.repeat(np.where(ascending, 2 * starts + sizes - 1, 0), sizes)
    at = np.arange(len(rows))
    np.subtract(take, at, out=take)
    np.copyto(take, at, where=~np.repeat(ascending, sizes))
    del at
    mixed = ~(ascending | descending)
    if mixed.any():
        members = np.flatnonzero(np.repeat(mixed, sizes))
        group = np.repeat(np.arange(len(starts))[mixed], sizes[mixed])
        take[members] = members[_sort_groups(dbytes[src[members]], group)]
    ranked = src[take]
    del take
    return _finished(order, rows, src, ranked)


def _finished(order: Optional[np.ndarray], rows: np.ndarray, src: Optional[np.ndarray], ranked: np.ndarray):
    """What :func:`break_ties_by_docid` returns, from the ranked positions of the tied rows (``rows``), their
    input rows before (``src``, given when ``order`` is None) and after the ties are broken (``ranked``)."""
    if order is None:
        moved = ranked != src
        return Moves(rows[moved], ranked[moved]) if moved.any() else None
    out = order.copy()
    out[rows] = ranked
    return out


def _neighbours(w: np.ndarray):
    """(row i < row i + 1, row i > row i + 1) for each pair of neighbouring rows of words, compared word by
    word (the first differing word decides), as two bool arrays."""
    a, b = w[:-1], w[1:]
    last = w.shape[1] - 1
    less, greater = a[:, last] < b[:, last], a[:, last] > b[:, last]
    for j in range(last - 1, -1, -1):
        x, y = a[:, j], b[:, j]
        equal = x == y
        less &= equal
        less |= x < y
        greater &= equal
        greater |= x > y
    return less, greater


def _sort_groups(ids: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The stable order of rows by (``group`` ascending, ``ids`` (bytes, ``S``) descending)."""
    g = group - group[0]                         # ascending: the last is the largest
    head = 4 if int(g[-1]) < 2 ** 32 else 8
    # complemented, the NUL padding of a shorter id becomes 0xFF: a prefix sorts after the longer id
    key = keyed_id_bytes(g, ids, head, complement=True)
    return np.argsort(key.view(f"S{key.shape[1]}").reshape(len(ids)), kind="stable")
