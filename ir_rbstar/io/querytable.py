"""Each query's rows sorted in a row of a 2-D table: the duplicate check of a conversion
(:func:`.docindex.clashes_by_sort`), whose table a ranking of long queries keeps for the run-reference join
(:func:`kept_pairs`, :func:`merge_by_query`: two tables sorted already are merged, not sorted again; used by
:meth:`ir_rbstar.context.RunContext.match`) and for the run-qrels join (:mod:`.judgmenttable`).

numpy sorts many short rows several times faster than one long array of all the keys (200 queries x 100
rows 0.05 against 0.6 ms, 249 x 1,000 3 against 12 ms). A kept table's cell holds a row's key: the high
bits of its document hash, then its row number shifted left by one (:class:`QueryTable`); two rows of a
query with equal high bits sit side by side once the row is sorted. Internal.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional, Tuple

import numpy as np

__all__ = ["QueryTable", "KEPT", "MIN_SHIFT", "KEEP_WIDTH", "least_shift", "wide_layout", "checked_by_query",
           "sorted_by_query", "no_clash_by_query", "kept_pairs", "merge_by_query", "pair_finisher"]

#: the key under which a ranking keeps the :class:`QueryTable` of its conversion (rows in the ranked order)
KEPT = "rows by query"

#: the most padding :func:`sorted_by_query` accepts, as a share of the rows (the queries' rows are sorted in
#: one table as wide as the longest query)
_PADDING = 0.5

_EVEN_TOP = np.uint64(2 ** 64 - 2)

#: the fewest low bits of a key given to its row: the same for every table of fewer than 2^20 rows (every
#: conversion that sorts to find duplicates), so that two tables' keys, their padding included, compare
#: alike in a join; 42 high bits of the hash are left (two of 1,000 rows share them with odds of 1e-7)
MIN_SHIFT = 22


def least_shift(n: int) -> int:
    """The fewest low bits a key of :func:`sorted_by_query`'s table of ``n`` rows gives to its row:
    :data:`MIN_SHIFT`, or more for the rows numbered in its cells, shifted by one (padding included: below
    2 (n + width) <= 4n): 23 from 2^20 + 1 rows on."""
    return max(MIN_SHIFT, (4 * n - 1).bit_length())


#: cells of the table whose neighbours :func:`sorted_by_query` compares at a time (small temporaries)
_CHECK_CELLS = 16_384


class QueryTable(NamedTuple):
    """Query i's rows in row i of ``table`` (uint64, each row ascending): a row r with document hash h is the
    cell ``(h >> shift << shift) | (r << 1)`` (the low bit left 0: the join marks one side's cells with it).
    A short query's row is filled with padding: the high bits of ``2^64 - 2 - (column << shift)``
    (distinct), low bits even; every real cell is below ``floor``, every padding cell at or above it. ``order``: when
    the rows were then sorted (a ranking's conversion), the input row of each ranked row (an array, or a
    :class:`.docindex.Moves`), None when no row moved: the keys hold input rows."""

    table: np.ndarray
    shift: int
    floor: np.uint64
    order: Any = None


#: the length of the longest query from which a conversion keeps a :class:`QueryTable` (:func:`checked_by_query`):
#: merging two sorted halves beats sorting a row afresh on long rows (Robust04, 1,000 rows a query: the
#: join 11-17 -> 4.5-7 ms), not on short ones, where the keys' extra operations cost more than they save
#: (DL19 runs of 100 rows a query: 0.05-0.1 ms slower a call, measured)
KEEP_WIDTH = 256


_Layout = Tuple[np.ndarray, np.ndarray, int]


def _layout(q: np.ndarray, min_width: int = 0) -> Optional[_Layout]:
    """(each block's first row, its length, the longest) of rows grouped by query, each query in one block,
    whose blocks fit one table (:data:`_PADDING`); None for other rows, and when the longest block is
    shorter than ``min_width``."""
    n = len(q)
    if n == 0:
        return None
    cuts = np.flatnonzero(q[1:] != q[:-1]) + 1
    blocks = len(cuts) + 1
    firsts = np.concatenate(([0], cuts))
    lens = np.diff(np.append(firsts, n))
    width = int(lens.max())
    if width < min_width:
        return None
    if blocks > 1 and len(set(q[firsts].tolist())) < blocks:     # (a set: a fifth of np.unique's time on 200)
        return None                                  # a query in two blocks
    if blocks * width > (1 + _PADDING) * n:
        return None
    return firsts, lens, width


def wide_layout(q: np.ndarray) -> Optional[_Layout]:
    """The layout of rows grouped by query (:func:`_layout`) when they fit a table and its longest query has
    :data:`KEEP_WIDTH` rows or more (a table is then kept: :func:`checked_by_query`); else None."""
    return _layout(q, KEEP_WIDTH)


def checked_by_query(q: np.ndarray, h: np.ndarray, layout: Optional[_Layout] = None
                     ) -> Tuple[bool, Optional[QueryTable]]:
    """(whether no two rows surely hold the same query code and document hash, the :class:`QueryTable` to
    keep or None): by :func:`sorted_by_query` for queries of :data:`KEEP_WIDTH` rows or more, else by
    :func:`no_clash_by_query`, which keeps nothing. False: some may (the caller then looks exactly).
    ``layout``: the rows' :func:`_layout`, when the caller has it."""
    layout = _layout(q) if layout is None else layout
    if layout is None:
        return False, None
    if layout[2] >= KEEP_WIDTH:
        table = sorted_by_query(q, h, layout)
        return table is not None, table
    return no_clash_by_query(q, h, layout), None


def sorted_by_query(q: np.ndarray, h: np.ndarray, layout: Optional[_Layout] = None,
                    shift: int = MIN_SHIFT) -> Optional[QueryTable]:
    """The :class:`QueryTable` of rows with query codes ``q`` and document hashes ``h`` (uint64) when no two
    rows of a query have hashes with the same high bits (so no two hold the same query code and document
    hash); None when some may (the caller then looks exactly), when the rows do not fit a table
    (:func:`_layout`, given as ``layout`` when the caller has it), or when a hash's high bits reach the
    padding's (a 64-bit coincidence, as equal high bits are). ``shift``: the fewest low bits a key gives to
    its row (more when the rows need them), for a table to be merged with another of that shift."""
    layout = _layout(q) if layout is None else layout
    if layout is None:
        return None
    firsts, lens, width = layout
    n, blocks = len(q), len(firsts)
    shift = max(shift, least_shift(n))
    if width << shift >= 2 ** 62:
        return None
    low = np.uint64((1 << shift) - 1)
    floor = (_EVEN_TOP - np.uint64((width - 1) << shift)) & ~low
    if h.max() >= floor:
        return None                                  # a hash with the padding's high bits
    if blocks * width == n:
        table = np.bitwise_and(h, ~low).reshape(blocks, width)
    else:
        table = _padded(h, firsts, lens, width, _EVEN_TOP - (np.arange(width, dtype=np.uint64) << np.uint64(shift)))
        table &= ~low
    # each cell's row, doubled, added into the cleared low bits (in place: a row and a column broadcast);
    # padding gets the row its cell would have, below 2 (n + width)
    table += np.arange(0, 2 * width, 2, dtype=np.uint64)
    table += (2 * firsts.astype(np.uint64))[:, None]
    table.sort(axis=1)
    if width > 1:
        # neighbours compared along the flat table, whole rows at a time (contiguous operands: about half the
        # time of the rows' strided slices), a row's last cell and the next row's first left out
        flat = table.reshape(-1)
        step = max(1, _CHECK_CELLS // width) * width
        for a in range(0, len(flat), step):
            part = flat[a:a + step]
            near = np.bitwise_xor(part[1:], part[:-1]) <= low
            near[width - 1::width] = False
            if bool(near.any()):
                return None                          # equal high bits in a query
    return QueryTable(table, shift, floor)


def no_clash_by_query(q: np.ndarray, h: np.ndarray, layout: Optional[_Layout] = None) -> bool:
    """True when no two rows hold the same query code and document hash, found by sorting each query's
    hashes in a row of its own of a 2-D table (numpy sorts many short rows several times faster than one
    long array of all the keys: 200 queries x 100 rows 0.05 against 0.6 ms, 249 x 1,000 3 against 12 ms);
    False when some may (the caller then looks exactly) or when the rows do not fit a table
    (:func:`_layout`, given as ``layout`` when the caller has it). Short queries are padded with distinct
    values from the top of the range, which a hash equals only by a 64-bit coincidence (then False, and
    the exact look finds nothing)."""
    q = np.asarray(q)
    h = np.ascontiguousarray(h, dtype=np.uint64)
    layout = _layout(q) if layout is None else layout
    if layout is None:
        return False
    firsts, lens, width = layout
    if width < 2:
        return True
    blocks = len(firsts)
    if blocks * width == len(q):
        table = h.reshape(blocks, width)
    else:
        table = _padded(h, firsts, lens, width, np.uint64(2 ** 64 - 1) - np.arange(width, dtype=np.uint64))
    table = np.sort(table, axis=1)
    return not np.any(table[:, 1:] == table[:, :-1])


def _padded(h: np.ndarray, firsts: np.ndarray, lens: np.ndarray, width: int, pad: np.ndarray) -> np.ndarray:
    """The blocks of ``h`` (starting at ``firsts``, of ``lens`` rows) as the rows of a 2-D table ``width``
    wide, each short row ended by ``pad`` (the value of each column). The rows between two short blocks
    are one slice of both ``h`` and the table: copied by slices (a few microseconds each) unless the short
    blocks are many for the rows (tiny queries), then by one scatter (about 9 ns a row: 2.2 ms for
    250,000 rows, against 0.1 ms by slices with 64 blocks short)."""
    blocks = len(lens)
    table = np.empty((blocks, width), dtype=np.uint64)
    flat = table.reshape(-1)
    short = np.flatnonzero(lens < width)
    if len(short) > max(64, len(h) // 256):
        table[:] = pad
        flat[np.arange(len(h), dtype=np.int64) + np.repeat(np.arange(blocks) * width - firsts, lens)] = h
        return table
    src = dst = 0
    for b in short.tolist():
        end = int(firsts[b] + lens[b])
        flat[dst:dst + end - src] = h[src:end]
        table[b, int(lens[b]):] = pad[int(lens[b]):]
        src, dst = end, (b + 1) * width
    flat[dst:] = h[src:]
    return table


#: cells of :func:`merge_by_query`'s joint table sorted at a time (whole queries), as the judgments' merge
#: (:data:`.judgmenttable.CHUNK`): past glibc's 128 KiB threshold, but a quarter of the chunks' numpy calls of
#: 12,000 cells; the run-reference join of the synthetic 700 x 1,000 pair (RBO + RBO_ext from DataFrames, whole
#: call) 118-120 ms with 12,000, 113-118 ms with 48,000 (medians of 7, four rounds turn about)
CHUNK_CELLS = 48_000


def kept_pairs(x: Any, y: Any) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """:func:`merge_by_query` of two rankings (every row of both; the same queries in the same order, as
    the caller knows) from the tables their conversions kept (:data:`KEPT`): the rows (ix, iy) of X and Y
    with the same document. None when either kept none (other doors, or queries too uneven), the
    tables' keys do not compare alike, or :func:`merge_by_query` declines."""
    tx, ty = x.held(KEPT), y.held(KEPT)
    if tx is None or ty is None or tx.shift != ty.shift or len(tx.table) != len(ty.table):
        return None
    # (the keys hold input rows: the ranked rows of those the sort moved looked up, then the hashes compared)
    finish = pair_finisher(x.docs, y.docs, _ranks(tx.order, len(x.docs)), _ranks(ty.order, len(y.docs)))
    return merge_by_query(tx, ty, finish=finish)


_Finish = Callable[[np.ndarray, np.ndarray], Tuple[np.ndarray, np.ndarray]]


def pair_finisher(x_docs: np.ndarray, y_docs: Optional[np.ndarray], rank_x: Optional[np.ndarray] = None,
                  rank_y: Optional[np.ndarray] = None) -> _Finish:
    """The ``finish`` of :func:`merge_by_query` for keys that hold input rows: each side's rows made ranked
    rows (``rank_x``, ``rank_y``: :func:`_ranks`, None when no row moved), then the pairs whose document
    hashes (``x_docs``, ``y_docs``, by ranked row) differ dropped: equal high bits of different documents are
    no pair. ``y_docs`` None: no hashes compared (the caller compares the ids themselves)."""
    def finish(ix: np.ndarray, iy: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        if rank_x is not None:
            ix = rank_x[ix]
        if rank_y is not None:
            iy = rank_y[iy]
        if y_docs is None:
            return ix, iy
        same = x_docs[ix] == y_docs[iy]
        return (ix, iy) if same.all() else (ix[same], iy[same])
    return finish


def _ranks(order: Any, n: int) -> Optional[np.ndarray]:
    """The ranked row of every input row of a ranking of ``n`` rows (``order``: :attr:`QueryTable.order`),
    None when no row moved. (A table of every row: a searchsorted of many rows among the moved ones cost
    10-30 times as much. ``intp``: numpy gathers with index arrays of another type several times slower, 3-4 ms
    a call more on Robust04's judgments with int32.)"""
    if order is None:
        return None
    kind = np.intp
    if hasattr(order, "src"):                    # a few rows moved (Moves)
        ranked = np.arange(n, dtype=kind)
        ranked[order.src] = order.rows
    else:
        ranked = np.empty(n, dtype=kind)
        ranked[order] = np.arange(n, dtype=kind)
    return ranked


def merge_by_query(x: QueryTable, y: QueryTable, chunk: int = CHUNK_CELLS,
                   finish: Optional[Callable[[np.ndarray, np.ndarray], Tuple[np.ndarray, np.ndarray]]] = None,
                   y_rows: Optional[np.ndarray] = None, y_lens: Optional[np.ndarray] = None,
                   x_rows: Optional[np.ndarray] = None) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """The rows (ix, iy) of X and Y (as numbered in the keys) whose hashes have the same high bits, in the
    same query, in no particular order (equal high bits of different hashes are no pair: the caller
    compares the hashes, by ``finish``, given each chunk's rows and returning the pairs kept), from each
    side's :class:`QueryTable` (row i of both the same query, the same shift); ``intp`` rows, which numpy gathers
    with fastest.
    The sorted halves of each row of a joint table (X's keys, then Y's with their low bit set) are
    merged by numpy's stable sort (a merge of two runs: about a quarter of the time of sorting the row
    afresh, 249 queries x 2,000 keys 1.8 against 8.3 ms); a shared hash's two cells are then neighbours
    with equal high bits. Padding (at or above a side's floor) and neighbours of one side are no pair.
    Everything is done ``chunk`` cells at a time (small arrays, no page faults). None when three
    neighbours or more share their high bits (practically never: the caller's other join answers).
    ``y_rows``: the row of Y's table that holds X's query i, for each i (when Y's rows are numbered
    otherwise, e.g. kept judgments with a padding row for queries they lack); by default row i.
    ``y_lens``: the real cells of each row of Y's table (the rest padding), when its rows are uneven: the
    queries are then merged longest first, each chunk only as wide as it needs, and ``x_rows`` (with
    ``y_lens``) names the rows of X's table to merge (the queries asked for; by default all)."""
    n, lx, ly = len(x.table), x.table.shape[1], y.table.shape[1]
    kind = np.intp
    if n == 0 or lx == 0 or ly == 0:
        return np.zeros(0, kind), np.zeros(0, kind)
    low = np.uint64((1 << x.shift) - 1)
    one = np.uint64(1)
    found = []
    ys = np.arange(n) if y_rows is None else y_rows
    # with ``y_lens``: the queries by Y's length, longest first, each chunk as wide as its first needs
    xs = None if y_lens is None else (np.arange(n) if x_rows is None else x_rows)
    if xs is not None and y_lens is not None:
        xs = xs[np.argsort(-y_lens[ys[xs]], kind="stable")]
    qa, m = 0, n if xs is None else len(xs)
    while qa < m:
        lyc = ly if xs is None or y_lens is None else max(1, int(y_lens[ys[xs[qa]]]))
        width = lx + lyc
        qb = min(m, qa + max(1, chunk // width))
        table = np.empty((qb - qa, width), dtype=np.uint64)
        if xs is None:
            table[:, :lx] = x.table[qa:qb]
            np.bitwise_or(y.table[qa:qb] if y_rows is None else y.table[ys[qa:qb]], one, out=table[:, lx:])
        else:
            part = xs[qa:qb]
            table[:, :lx] = x.table[part]
            np.bitwise_or(y.table[ys[part], :lyc], one, out=table[:, lx:])
        qa = qb
        table.sort(axis=1, kind="stable")
        flat = table.reshape(-1)
        equal = np.bitwise_xor(flat[1:], flat[:-1]) <= low       # equal high bits
        equal[width - 1::width] = False          # (the last cell of a query and the first of the next)
        at = np.flatnonzero(equal)
        if len(at) > 1 and bool((at[1:] == at[:-1] + 1).any()):
            return None                          # three cells or more with the same high bits
        left, right = flat[at], flat[at + 1]
        flip = (left & one).astype(bool)         # Y's cell first
        xc, yc = np.where(flip, right, left), np.where(flip, left, right)
        pair = ((left ^ right) & one).astype(bool)   # one cell of each side, ...
        pair &= xc < x.floor                     # ... neither of them padding
        pair &= yc < y.floor
        rows = ((xc[pair] & low) >> one).astype(kind), ((yc[pair] & low) >> one).astype(kind)
        found.append(rows if finish is None else finish(*rows))
    if not found:
        return np.zeros(0, kind), np.zeros(0, kind)
    return np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
