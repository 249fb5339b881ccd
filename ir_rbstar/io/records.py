"""Runs and qrels given as iterables of namedtuples (ir_measures' ``ScoredDoc`` / ``Qrel`` or any with
these fields) to three columns, in C passes: pyarrow's converter where it can, else one flat copy
and numpy's casts (the general path, which names what is wrong)."""
from __future__ import annotations

import gc
import sys
from itertools import chain, compress, groupby
from operator import countOf, itemgetter
from typing import AbstractSet, Any, Callable, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import InputFormatError
from . import dictscan
from .idcolumns import (_arrow_query_codes, _ascii_bytes, _id_column, _narrowed, codes_of_blocks, first_missing,
                        first_missing_id, rows_of_blocks)
from .ids import QUERY_IDS, CodedIds, _show, query_text
from .tables import _block_firsts

#: rows of namedtuples read without pyarrow's converter, in a process that has not imported pyarrow and pandas,
#: before the converter is taken all the same (``pa.array`` imports pandas): importing both costs about 0.55 s
#: of CPU once, the converter saves about 0.13 us a row at every conversion (700,000 rows: 0.17 against 0.26 s a
#: call), so the import is paid once the rows read without it would have paid for it. As one rents skis until
#: the rent reaches the price: whatever comes next, at most twice the cost of the best choice in hindsight. A
#: script that evaluates a few runs of namedtuples pays no import (700,000 rows in a fresh process: 0.36 against
#: 0.96 s for the first call).
ARROW_IMPORT_ROWS = 4_000_000
_rows_without_arrow = 0


def _arrow_wanted(n: int) -> bool:
    """Whether pyarrow's converter reads a run of ``n`` namedtuples: when pyarrow and pandas are imported
    already, or when this conversion brings the rows read without them to :data:`ARROW_IMPORT_ROWS`. Both
    paths give the same columns (tests/inputs/test_record_fast_path.py), so only the time depends on it."""
    global _rows_without_arrow
    if "pandas" in sys.modules and "pyarrow" in sys.modules:
        return True
    if _rows_without_arrow + n >= ARROW_IMPORT_ROWS:
        return True
    _rows_without_arrow += n
    return False


def _materialised(items: Iterable) -> list:
    """``list(items)`` with the cyclic garbage collector paused: millions of new tuples (a generator
    such as ``ir_measures.read_trec_run``) otherwise set off collections that rescan them all, about
    40% of the time. Nothing here creates cycles; the collector's state is restored."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return list(items)
    finally:
        if enabled:
            gc.enable()


def _columns_from_records(items: Sequence, at: List[int], what: str, queries: Optional[AbstractSet[str]],
                          fields: Sequence[str], source: str):
    """Three columns from a list of tuples of one type (its fields ``at`` in order): one C pass copies
    every field into an object array (rows x fields; each tuple is visited once, which is what costs
    on millions of tuples scattered in memory), whose columns numpy then casts. Query ids are
    interned per block of equal ids; with ``queries``, the rows of other queries are left out by block.
    A missing query id (of any row) or document id (of a row kept) is an error naming the item
    (:func:`_no_missing`); ``fields``: the fields' names, ``source``: the input's, for it."""
    whole, blocks = items, None
    if queries is not None and isinstance(items[0][at[0]], str):
        # a few items spread over the list: when one is of a query left out, many may be (e.g. a run's
        # unjudged queries), and dropping them before the copy is cheaper than copying them
        qid = itemgetter(at[0])
        if not all(map(queries.__contains__, map(qid, items[::max(1, len(items) // 64)]))):
            blocks = _judged_blocks(items, qid, queries) if what == "run" and len(items[0]) == 3 else None
            if blocks is not None:
                fast = dictscan.record_columns(blocks[0], at, grades=False)
                if fast is None and _arrow_wanted(len(blocks[0])):
                    fast = _arrow_kept(*blocks, at, _item_names(whole, blocks[0], source, what))
                if fast is not None:
                    return fast
                items = blocks[0]           # the rows kept, as the per-row filter keeps them
            else:
                ids = list(map(qid, items))
                # only text ids are decided here: a bytes or number id may be a query kept (as its text,
                # query_text), so with one anywhere the rows are left to the per-block filter below (one
                # C pass counting the types: checking the dropped rows' types took twice as long on DL 2019)
                if countOf(map(type, ids), str) == len(ids):
                    items = list(compress(items, map(queries.__contains__, ids)))
            if not items:
                empty = np.empty(0, dtype=object)
                return empty, _id_column(empty, 0), np.empty(0, dtype=np.float64) if what == "run" else empty
    # the compiled reader (ir_rbstar/io/dictscan.py) where built, else pyarrow's converter for a run (after the
    # block filter's readers declined, these would decline the same rows for the same reason)
    fast = None
    if blocks is None:
        fast = dictscan.record_columns(items, at, grades=what != "run")
        if fast is None and what == "run" and _arrow_wanted(len(items)):
            fast = _arrow_records(items, at, _item_names(whole, items, source, what))
    if fast is not None:
        return fast if queries is None else _rows_of_queries(fast, queries)
    n, width = len(items), len(items[0])
    flat = np.fromiter(chain.from_iterable(items), dtype=object, count=n * width)
    table = flat.reshape(n, width)
    qids, full = table[:, at[0]], table

    def check(values: np.ndarray, rows: np.ndarray, field: int) -> None:
        _no_missing(values, rows, full[:, at[0]], whole, items, fields[field], source, what)
    try:
        starts = _blocks(qids)
    except TypeError:                   # an id compared as pandas' NA (no truth value): named here
        check(qids, np.arange(n), 0)
        raise
    heads = qids[starts]
    if countOf(map(type, heads.tolist()), str) != len(heads):
        # the first of a run of missing ids starts a block (it equals no id before it): the heads hold it
        check(heads, starts, 0)
    kept = None
    if queries is not None and len(heads):
        keep = np.fromiter(map(queries.__contains__, map(query_text, heads.tolist())), dtype=bool, count=len(heads))
        if not keep.all():
            rows = rows_of_blocks(keep, starts, n)
            kept = np.flatnonzero(rows)
            table, n = table[rows], int(rows.sum())
            qids, starts = table[:, at[0]], _blocks(table[:, at[0]])
            heads = qids[starts]
    if n and all(isinstance(h, str) for h in heads.tolist()):
        codes = codes_of_blocks(starts, heads.tolist(), n)
        query_column: Any = codes
    else:
        query_column = np.ascontiguousarray(qids)
    values = table[:, at[2]]
    if what == "run":
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            values = np.ascontiguousarray(values)
    else:
        values = np.ascontiguousarray(values)
    docs = table[:, at[1]]
    doc_ids = _id_column(docs, n, _item_names(whole, items, source, what, kept))
    row = first_missing_id(doc_ids, docs)
    if row is not None:
        check(docs[row:row + 1], np.array([row if kept is None else kept[row]]), 1)
    return query_column, doc_ids, values


def _item_names(whole: Sequence, items: Sequence, source: str, what: str,
                kept: Optional[np.ndarray] = None) -> Callable[[int], str]:
    """``where(row)`` for the id columns' budget (:func:`.idcolumns._id_column`, :func:`.idcolumns._ascii_bytes`):
    row ``row`` of a column read from ``items`` (some of ``whole``, the items given; ``kept``: the rows of
    ``items`` the column holds, when not all) named by its item's place in ``whole``."""
    def where(row: int) -> str:
        item = items[row if kept is None else int(kept[row])]
        place = row if items is whole and kept is None else next(i for i, x in enumerate(whole) if x is item)
        return f"{source}: item {place} of the {what}"
    return where


def _no_missing(values: np.ndarray, rows: np.ndarray, qids: np.ndarray, whole: Sequence, items: Sequence,
                field: str, source: str, what: str) -> None:
    """An ``InputFormatError`` naming the item (its place in ``whole``, the items given) and the field when
    one of ``values`` (the field's values at ``rows`` of ``items``, which may be some of ``whole``; ``qids``:
    the items' query ids) is missing (None, NaN, pandas' NA, NaT: :func:`.idcolumns.first_missing`, as for a
    DataFrame column); a document id's message also names its query."""
    hit = first_missing(values)
    if hit is None:
        return
    row = int(rows[hit])
    item = items[row]
    place = row if items is whole else next(i for i, x in enumerate(whole) if x is item)
    query = "" if field == "query_id" else f" (query {_show(qids[row])!r})"
    raise InputFormatError(f"{source}: item {place} of the {what}{query} has no {field} "
                           f"({_show(values[hit])!r}): every row needs a query id and a document id")


def _judged_blocks(items: Sequence, qid: Callable,
                   queries: AbstractSet[str]) -> Optional[Tuple[list, List[str], List[int]]]:
    """(the items of ``queries``, their query ids, one per block, and the blocks' lengths) from one C pass
    over the items (``itertools.groupby`` on their query ids: each tuple is touched once, no list of ids),
    deciding each block of equal ids by its first id. None when an id is not text (it may be a query kept
    as its text: :func:`query_text`), or when the ids come in many short blocks (a Python step each)."""
    kept: list = []
    heads: List[str] = []
    lengths: List[int] = []
    budget = max(256, len(items) // 16)
    try:
        for k, block in groupby(items, qid):
            if type(k) is not str or budget == 0:
                return None
            budget -= 1
            if k in queries:
                before = len(kept)
                kept.extend(block)
                heads.append(k)
                lengths.append(len(kept) - before)
    except TypeError:           # an id compared as pandas' NA (no truth value): the general path names it
        return None
    return kept, heads, lengths


def _arrow_kept(kept: list, heads: List[str], lengths: List[int], at: List[int],
                where: Optional[Callable[[int], str]] = None) -> Optional[Tuple[CodedIds, np.ndarray, np.ndarray]]:
    """:func:`_arrow_records`' columns for the items :func:`_judged_blocks` kept: the query ids from the
    blocks' first ids (each block's ids equal it), document ids and scores each read by pyarrow's
    converter (with the types the struct of :func:`_arrow_records` gives them). None as there; ``where`` as
    there."""
    if not kept:
        return None                     # the general path's empty columns
    try:
        import pyarrow as pa
    except ImportError:                                # pragma: no cover - pyarrow is optional
        return None
    try:
        docs = pa.array(map(itemgetter(at[1]), kept), type=pa.large_string(), size=len(kept))
        scores = pa.array(map(itemgetter(at[2]), kept), type=pa.float64(), size=len(kept))
    except (pa.lib.ArrowException, TypeError, ValueError, OverflowError):
        return None
    return _checked_columns(
        lambda: CodedIds(np.repeat(QUERY_IDS.encode(heads), np.asarray(lengths, dtype=np.int64))), docs, scores,
        where)


def _arrow_records(items: Sequence, at: List[int],
                   where: Optional[Callable[[int], str]] = None) -> Optional[Tuple[CodedIds, np.ndarray, np.ndarray]]:
    """The columns of a run given as a list of 3-field tuples of one type (fields ``at``: query id, doc
    id, score), read by pyarrow's converter in one C pass that touches each tuple and field once and
    makes no Python object per row (about 0.35 s less than :func:`_columns_from_records`' copy and casts
    on 7M namedtuples): query ids interned per block, ASCII document ids as bytes, scores as float64.
    The same columns as the general path gives, or None (pyarrow missing, a field that is not text or a
    number, a missing value, a document id that is not ASCII or holds a NUL byte): then the general path
    reads the items and names what is wrong. A document id too long for the id columns' budget is an error
    naming its item by ``where(row)`` (default "row N")."""
    if len(items[0]) != 3:
        return None
    try:
        import pyarrow as pa
    except ImportError:                                # pragma: no cover - pyarrow is optional
        return None
    kinds = [pa.large_string()] * 3
    kinds[at[2]] = pa.float64()
    try:
        arr = pa.array(items, type=pa.struct([pa.field(f"f{i}", t) for i, t in enumerate(kinds)]))
    except (pa.lib.ArrowException, TypeError, ValueError, OverflowError):
        return None                                    # e.g. a number as an id, text as a score
    if isinstance(arr, pa.ChunkedArray):               # pragma: no cover - only beyond 2**31 rows
        return None
    qids, docs, scores = (arr.field(i) for i in at)
    if arr.null_count or qids.null_count:
        return None                                    # None somewhere: the general path says what it is
    return _checked_columns(lambda: _arrow_query_codes(qids), docs, scores, where)


def _checked_columns(codes: Callable[[], CodedIds], docs: Any, scores: Any,
                     where: Optional[Callable[[int], str]] = None) -> Optional[Tuple[CodedIds, np.ndarray, np.ndarray]]:
    """The columns from pyarrow's document id and score arrays (the query codes made by ``codes()``), or
    None where the general path must read the items (a missing value, a document id that is not ASCII or
    holds a NUL byte): it names what is wrong. The arrays are this module's own: their buffers are taken as
    they are (no copy of millions of rows; the sort may move rows within them,
    ranking_from_columns(fresh=True))."""
    if docs.null_count or scores.null_count:
        return None
    dbytes = _ascii_bytes(docs, copy=False, where=where)
    return None if dbytes is None else (codes(), dbytes, _own_floats(scores))


def _own_floats(scores: Any) -> np.ndarray:
    """A float64 arrow array without nulls, made by this module, as a writable numpy array: a view of its
    data buffer when arrow allocated it mutable (as its converter does), else a copy."""
    buf = scores.buffers()[1]
    if buf is not None and buf.is_mutable and len(scores):
        view = np.frombuffer(buf, dtype=np.float64, count=len(scores), offset=8 * scores.offset)
        if view.flags.writeable:
            return view
    return scores.to_numpy(zero_copy_only=False).copy()


def _rows_of_queries(columns: Tuple[CodedIds, np.ndarray, np.ndarray],
                     queries: AbstractSet[str]) -> Tuple[CodedIds, np.ndarray, np.ndarray]:
    """The rows of ``columns`` whose query id is one of ``queries`` (decided once per block of rows of
    one query)."""
    codes, dbytes, scores = columns
    c = codes.codes
    if len(c) == 0:
        return columns
    starts = _blocks(c)
    heads = QUERY_IDS.decode(c[starts]).tolist()
    keep = np.fromiter(map(queries.__contains__, heads), dtype=bool, count=len(heads))
    if keep.all():
        return columns
    if not keep.any():                                 # as the general path leaves no rows
        return CodedIds(c[:0]), np.empty(0, dtype="S1"), scores[:0]
    rows = rows_of_blocks(keep, starts, len(c))
    # as wide as the longest id kept, as the general path's width
    return CodedIds(c[rows]), _narrowed(dbytes[rows]), scores[rows]


def _blocks(qids: np.ndarray) -> np.ndarray:
    """The first row of each block of equal query ids (none for no rows)."""
    return np.flatnonzero(_block_firsts(qids))


def columns_from_tuples(items: Iterable, fields, source: str, what: str,
                         queries: Optional[AbstractSet[str]] = None):
    """Three columns from an iterable of namedtuples (ir_measures' ScoredDoc / Qrel or any with these
    fields): transposed in C when every item has the type of the first, else field by field. With
    ``queries``, the items of other queries are left out first (one C pass over the query ids)."""
    items = items if isinstance(items, (list, tuple)) else _materialised(items)
    first = items[0] if len(items) else None
    # (a string as the first item is not a tuple: the loop below names it at item 0)
    names = getattr(type(first), "_fields", None)
    if first is not None and isinstance(first, tuple) and names and all(f in names for f in fields) \
            and countOf(map(type, items), type(first)) == len(items):
        kind = type(first)
        # a namedtuple class fixes its length (its constructors check it); another tuple type with
        # these fields is checked item by item, as the flat copy would shift fields otherwise
        plain = kind.__iter__ is tuple.__iter__ and kind.__len__ is tuple.__len__
        if plain and (hasattr(kind, "_make") or countOf(map(len, items), len(first)) == len(items)):
            return _columns_from_records(items, [names.index(f) for f in fields], what, queries, fields, source)
    cols: Tuple[List[Any], List[Any], List[Any]] = ([], [], [])
    for i, item in enumerate(items):
        if isinstance(item, str):
            raise InputFormatError(f"{source}: the {what} is an iterable of strings (a file path given where "
                                   f"ir_measures expects records?): read files with ir_rbstar.read_{what}(path)")
        try:
            for col, f in zip(cols, fields, strict=True):
                col.append(getattr(item, f))
        except AttributeError:
            raise InputFormatError(f"{source}: item {i} of the {what} has no field {f!r} "
                                   f"(expected namedtuples with fields {fields})") from None
    columns = tuple(np.array(c, dtype=object) for c in cols)
    every = np.arange(len(items))
    for field, column in zip(fields[:2], columns[:2], strict=True):
        _no_missing(column, every, columns[0], items, items, field, source, what)
    return columns
