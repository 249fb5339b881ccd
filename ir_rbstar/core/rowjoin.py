"""The join of two rankings whose rows are laid out query after query, done one query per row of a 2-D table.

numpy's sort of a long 1-D array of random 64-bit keys costs more per key as the array grows (its
quicksort's comparisons and branch misses: about 7 ns a key on 100 keys, 29 ns on 20,000, 40 ns on
100,000 on the machine measured), while ``np.sort(table, axis=1)`` sorts each row of a table on its own,
at the per-key cost of the row's length. Rows of a query need only be compared with rows of the same
query (a document in both rankings), so a table with one query per row, padded to
the longest query with a key above every real one, does the work of one sort of all keys about ten
times faster for queries of 100 rows (0.04 against 0.6 ms on 20,000 keys) and three times for queries of
1,000. Padding costs a key per empty cell: :func:`match_by_query` declines (returns None) when the
table would be much larger than the rows, and the caller then takes its 1-D way.

Internal.
"""
from __future__ import annotations

from typing import Optional, Tuple, cast

import numpy as np

__all__ = ["PAD_ROOM", "CHUNK_CELLS", "table_fits", "match_by_query"]

#: the most cells a table may have beyond its rows: ``PAD_ROOM`` times the rows, plus a little
PAD_ROOM = 1.0
_PAD_SLACK = 4096
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_GOLD = np.uint64(0x9E3779B97F4A7C15)           # odd: multiplying by it permutes the 64-bit codes


def table_fits(counts: np.ndarray, rows: int) -> bool:
    """Whether a table of ``len(counts)`` rows as wide as the largest count holds ``rows`` keys with
    little padding (at most ``PAD_ROOM`` empty cells per key, plus a few thousand)."""
    if len(counts) == 0:
        return False
    return len(counts) * int(counts.max()) <= (1.0 + PAD_ROOM) * rows + _PAD_SLACK


#: cells of the table of :func:`match_by_query` sorted at a time (a few dozen queries of 100 rows a side):
#: the table and its temporaries stay below the 128 KiB from which glibc's malloc maps each new array afresh,
#: with its page faults (one table of all queries cost about twice as much in a whole evaluation)
CHUNK_CELLS = 12_000


def match_by_query(x_lens: np.ndarray, x_item: np.ndarray, y_lens: np.ndarray, y_item: np.ndarray,
                   chunk: int = CHUNK_CELLS) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """The rows (ix, iy) of X and Y holding the same item of the same query, as
    :func:`~ir_rbstar.core.rbo_variants.match_counted` gives them (rows laid out query after query,
    ``x_lens[i]`` rows of query i in X, likewise Y; int64 item codes, unique within a ranking of a
    query), in no particular order; None when the queries do not fit a table (:func:`table_fits`) or
    some key is shared by more than one row of X or of Y (practically never: the caller's exact
    join then answers).

    Query i is row i of a table: its X rows in the first ``max(x_lens)`` columns, its Y rows in the
    next ``max(y_lens)`` (padding, all ones, after a shorter query's rows). Each cell holds the high
    bits of the item times an odd constant and, in the low bits, the row (X's rows numbered first, then
    Y's: X's row comes before Y's on equal high bits); one sort along the table's rows puts a shared
    item's two cells side by side. Equal high bits of different items are told apart by comparing the
    items. The table is made and sorted ``chunk`` cells at a time (whole queries)."""
    x_lens = np.asarray(x_lens, dtype=np.int64)
    y_lens = np.asarray(y_lens, dtype=np.int64)
    nx, ny = len(x_item), len(y_item)
    none = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if nx == 0 or ny == 0:
        return none
    n, lx, ly = len(x_lens), int(x_lens.max()), int(y_lens.max())
    width = lx + ly
    if not table_fits(np.array([width]).repeat(n), nx + ny):
        return None
    bits = np.uint64((nx + ny).bit_length())    # a row < nx + ny <= 2**bits - 1: never all ones
    sides = []
    for item, lens, most, first, column in ((x_item, x_lens, lx, 0, 0), (y_item, y_lens, ly, nx, lx)):
        even = int(lens.min()) == most          # every query as long: the side's items reshaped
        at = None if even else np.concatenate(([0], np.cumsum(lens)))
        sides.append((np.asarray(item, dtype=np.int64).view(np.uint64), lens, most, first, column, even, at))
    per = max(1, chunk // width)
    found = []
    with np.errstate(over="ignore"):
        for qa in range(0, n, per):
            qb = min(n, qa + per)
            table = np.empty((qb - qa, width), dtype=np.uint64)
            for item, lens, most, first, column, even, at in sides:
                cells = table[:, column:column + most]
                if even:
                    a, b = qa * most, qb * most
                    np.multiply(item[a:b].reshape(cells.shape), _GOLD, out=cells)
                    cells >>= bits
                    cells <<= bits
                    cells |= np.arange(first + a, first + b, dtype=np.uint64).reshape(cells.shape)
                else:
                    cells.fill(_ALL)
                    _scatter(table, bits, qa, qb, item, cast(np.ndarray, at), lens[qa:qb], first, column)
            pairs = _sorted_pairs(table, bits)
            if pairs is None:
                return None
            found.append(pairs)
    left = np.concatenate([f[0] for f in found])
    right = np.concatenate([f[1] for f in found])
    if bool((left >= nx).any()) or bool((right < nx).any()):
        return None                              # two rows of one side with one key
    right -= nx
    same = sides[0][0][left] == sides[1][0][right]
    if not same.all():
        left, right = left[same], right[same]
    return left, right


def _scatter(table: np.ndarray, bits: np.uint64, qa: int, qb: int, item: np.ndarray, at: np.ndarray,
             lens: np.ndarray, first: int, column: int) -> None:
    """The keys of one side's rows of the queries qa .. qb - 1 (rows at[q] .. at[q + 1] - 1 of ``item``,
    numbered from ``first``) into :func:`match_by_query`'s table (row q - qa), from ``column`` on."""
    a, b = int(at[qa]), int(at[qb])
    key = np.multiply(item[a:b], _GOLD)
    key >>= bits
    key <<= bits
    key |= np.arange(first + a, first + b, dtype=np.uint64)
    # each row's cell: its query's row of the table, its place among the query's rows after ``column``
    cell = np.arange(a, b, dtype=np.int64)
    cell -= np.repeat(at[qa:qb] - np.arange(0, (qb - qa) * table.shape[1], table.shape[1]) - column, lens)
    table.reshape(-1)[cell] = key


def _sorted_pairs(table: np.ndarray, bits: np.uint64) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """Sorted along its rows, the (left, right) low bits of the neighbours in a row of ``table`` with
    equal high bits (padding, all ones, left out); None when three neighbours or more share them."""
    table.sort(axis=1)
    flat = table.reshape(-1)
    step = np.bitwise_xor(flat[1:], flat[:-1])
    equal = step < np.uint64(1) << bits         # equal high bits
    equal[table.shape[1] - 1::table.shape[1]] = False       # (the last cell of a query and the first of the next)
    at = np.flatnonzero(equal)
    right = flat[at + 1]
    real = right != _ALL
    if not real.all():
        at, right = at[real], right[real]
    if len(at) > 1 and bool((at[1:] == at[:-1] + 1).any()):
        return None                              # three rows or more with one key
    mask = (np.uint64(1) << bits) - np.uint64(1)
    return (flat[at] & mask).astype(np.int64), (right & mask).astype(np.int64)
