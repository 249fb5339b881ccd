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

from .docindex import Moves
from .ids import id_words

__all__ = ["break_ties_by_docid"]


def break_ties_by_docid(order: Optional[np.ndarray], same: np.ndarray, dbytes: np.ndarray):
    """Within each run of tied rows (``same[i]``: ranked row i + 1 ties with row i), put the doc ids
    (``dbytes``, a numpy bytes column, one per input row) in descending order; ``order`` is the sorting
    permutation (None: the rows are sorted already). Returns the new permutation: a new array when
    ``order`` is given, else :class:`Moves` of the tied rows that move, or None when none does (and
    ``order`` itself when no row is tied)."""
    if not same.any():
        return order
    tied = np.zeros(len(same) + 1, dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    rows = np.flatnonzero(tied)              # positions (in sorted order) of every tied row
    opens = np.concatenate(([True], ~same[rows[1:] - 1]))   # a tied row not tied with the one before opens a group
    src = rows if order is None else order[rows]
    ids = dbytes[src]
    w = _words(ids)
    starts = np.flatnonzero(opens)
    sizes = np.diff(np.append(starts, len(rows)))
    # each pair of neighbours in a group: -1 ascending, 1 descending, 0 equal ids
    sign = _compare(w[:-1], w[1:])[~opens[1:]]
    first_pairs = starts - np.arange(len(starts))  # where each group's pairs start (a group of s rows has s - 1)
    ascending = ~np.logical_or.reduceat(sign >= 0, first_pairs)
    descending = ~np.logical_or.reduceat(sign <= 0, first_pairs)
    perm = np.arange(len(rows))
    if ascending.any():                      # reversed: position p of a group [s, e] takes row s + e - p
        rev = np.flatnonzero(np.repeat(ascending, sizes))
        perm[rev] = np.repeat(2 * starts[ascending] + sizes[ascending] - 1, sizes[ascending]) - rev
    mixed = ~(ascending | descending)
    if mixed.any():
        members = np.flatnonzero(np.repeat(mixed, sizes))
        group = np.repeat(np.arange(len(starts))[mixed], sizes[mixed])
        perm[members] = members[_sort_groups(ids[members], group)]
    if order is None:
        moved = src[perm] != rows
        return Moves(rows[moved], src[perm][moved]) if moved.any() else None
    out = order.copy()
    out[rows] = src[perm]
    return out


def _words(ids: np.ndarray) -> np.ndarray:
    """Each id as a row of 64-bit words that order as the ids do (:func:`.ids.id_words`, byte-swapped: the
    words read big-endian, NUL padding keeping the byte order): the neighbours compared word by word
    (numpy's comparison of the bytes arrays themselves gives the same signs four times slower: 1.8 against
    0.45 ms for MU03rob01's 90,099 tied neighbours)."""
    return id_words(ids, ordered=True)


def _compare(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For each row of words: -1 where ``a`` is lexicographically smaller than ``b``, 1 where larger, 0
    where equal."""
    out = np.zeros(len(a), dtype=np.int8)
    for j in range(a.shape[1] - 1, -1, -1):      # the first differing word decides: it is written last
        x, y = a[:, j], b[:, j]
        sign = (x > y).view(np.int8) - (x < y).view(np.int8)
        out = np.where(sign != 0, sign, out)
    return out


def _sort_groups(ids: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The stable order of rows by (``group`` ascending, ``ids`` (bytes, ``S``) descending)."""
    m, width = len(ids), ids.dtype.itemsize
    g = group - group[0]                         # ascending: the last is the largest
    head = 4 if int(g[-1]) < 2 ** 32 else 8
    key = np.empty((m, head + width), dtype=np.uint8)
    key[:, :head] = g.astype(f">u{head}").view(np.uint8).reshape(m, head)
    # complemented, the NUL padding of a shorter id becomes 0xFF: a prefix sorts after the longer id
    np.subtract(255, np.ascontiguousarray(ids).view(np.uint8).reshape(m, width), out=key[:, head:])
    return np.argsort(key.view(f"S{head + width}").reshape(m), kind="stable")
