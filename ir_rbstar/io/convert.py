"""Every input form to a :class:`~ir_rbstar.io.tables.Ranking` / :class:`~ir_rbstar.io.tables.Qrels`:
file paths, DataFrames, dicts of dicts, iterables of namedtuples (converted in C passes)."""
from __future__ import annotations

import gc
import inspect
import os
from itertools import chain, compress, islice
from operator import countOf, itemgetter
from dataclasses import dataclass
from typing import AbstractSet, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, cast

import numpy as np
import pandas as pd

from ..errors import InputFormatError
from .columns import qrels_from_columns, ranking_from_columns
from .ids import QUERY_IDS, CodedIds, check_width_budget, query_text
from .tables import Qrels, Ranking
from .trec import read_trec_qrels, read_trec_run

_RUN_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("score",))


_QREL_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("relevance", "label"))


def _pick(df: pd.DataFrame, options, source: str, what: str) -> Any:
    for name in options:
        if name in df.columns:
            col = df[name]
            if name in ("query_id", "qid", "doc_id", "docno"):
                fast = _arrow_ids(col, query=name in ("query_id", "qid"))
                if fast is not None:
                    return fast
            return col.to_numpy(dtype=object) if name != "score" and col.dtype.kind not in "SO" else col.to_numpy()
    raise InputFormatError(f"{source}: {what} DataFrame has no column {options[0]!r} "
                           f"(columns found: {list(df.columns)})")


def _arrow_ids(col: pd.Series, query: bool) -> Any:
    """An id column held by pyarrow (pandas' default string type with pyarrow installed) without a Python
    object per row: query ids interned (:class:`CodedIds`: per block of equal ids, :func:`_query_blocks`,
    else per distinct id through arrow's dictionary encoding), ASCII document ids as a bytes (``S``)
    array (:func:`_ascii_bytes`). None for any other column, or one with missing values, or document ids
    with NUL bytes or non-ASCII characters (the general path handles those)."""
    if not _is_arrow_string(col):
        return None
    import pyarrow as pa
    arr = pa.array(col)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count or len(arr) == 0:
        return None
    return _arrow_query_codes(arr) if query else _ascii_bytes(arr)


def _is_arrow_string(col: pd.Series) -> bool:
    """Whether a column is text held by pyarrow (pandas' default string type with pyarrow installed)."""
    return isinstance(col.dtype, pd.StringDtype) and getattr(col.dtype, "storage", None) == "pyarrow"


def _arrow_query_codes(arr: Any) -> CodedIds:
    """A pyarrow string array without nulls as interned query ids: per block of equal ids
    (:func:`_query_blocks`), else each distinct id once through arrow's dictionary encoding."""
    blocks = _query_blocks(arr)
    if blocks is not None:
        return blocks
    enc = arr.dictionary_encode()
    return CodedIds(QUERY_IDS.encode(enc.dictionary.to_pylist())[enc.indices.to_numpy(zero_copy_only=False)])


def _query_blocks(arr: Any) -> Optional[CodedIds]:
    """Query ids interned per block of equal ids (the rows of a query usually come together): each id
    compared with the one before by one arrow kernel, one id interned per block. None when the ids come
    in many short blocks (then arrow's dictionary encoding, which interns each distinct id once, is
    cheaper than a Python step per block)."""
    import pyarrow.compute as pc
    n = len(arr)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = pc.not_equal(arr[1:], arr[:-1]).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(new)
    if len(starts) > max(64, n // 16):
        return None
    codes = QUERY_IDS.encode(arr.take(starts).to_pylist())
    return CodedIds(np.repeat(codes, np.diff(np.append(starts, n))))


def _ascii_bytes(arr: Any, copy: bool = True) -> Optional[np.ndarray]:
    """A pyarrow (large) string array without nulls as a bytes (``S``) array, read from its offsets and
    data buffers with numpy (no pyarrow kernel, no Python object per row): the ids' bytes are scattered
    into a rows x longest-id table of NULs by one boolean mask. None when some id holds a NUL byte (a
    bytes array would drop trailing ones) or a byte >= 128 (non-ASCII: the general path encodes and
    checks it), or for another array type. ``copy=False``: when every id has the same length, the array is
    a (writable) view of the arrow data buffer, for an arrow array the caller made and nothing else holds."""
    import pyarrow as pa
    if pa.types.is_large_string(arr.type):
        wide = True
    elif pa.types.is_string(arr.type):
        wide = False
    else:
        return None
    n = len(arr)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64 if wide else np.int32)[arr.offset:arr.offset + n + 1]
    first, last = int(offsets[0]), int(offsets[-1])
    data = np.frombuffer(bufs[2], dtype=np.uint8)[first:last] if bufs[2] is not None and last > first \
        else np.zeros(0, dtype=np.uint8)
    if len(data) and (int(data.max()) >= 128 or not data.all()):
        return None                                  # non-ASCII ids, or NUL bytes
    if last - first < 2 ** 31:                       # every length fits 4 bytes: half the column
        lengths = np.subtract(offsets[1:], offsets[:-1], out=np.empty(n, dtype=np.int32), casting="unsafe")
    else:
        lengths = np.diff(offsets).astype(np.int64, copy=False)
    check_width_budget(lengths)                      # before padding to rows x the longest id
    width = max(int(lengths.max()), 1)
    if len(data) == n * width:                       # every id of the same length: the buffer is the array
        return (data.copy() if copy or not data.flags.writeable else data).view(f"S{width}")
    # which cells of the table hold a byte: row L of `patterns` for an id of length L (np.take of whole
    # rows is several times faster than broadcasting a comparison over the table)
    patterns = np.arange(width) < np.arange(width + 1)[:, None]
    table = np.zeros((n, width), dtype=np.uint8)
    table[np.take(patterns, lengths, axis=0)] = data
    return table.view(f"S{width}").reshape(n)


def _frame_rows(df: pd.DataFrame, options, queries: AbstractSet[str]) -> pd.DataFrame:
    """The rows of ``df`` whose query id (as text) is one of ``queries``: one vectorised ``isin`` before
    any column is converted (``df`` itself when every row is kept or the query column is missing)."""
    name = next((c for c in options if c in df.columns), None)
    if name is None:
        return df
    col = df[name]
    if not (col.dtype.kind in "OTU" or isinstance(col.dtype, pd.StringDtype)):
        col = col.astype(str)
    keep = col.isin(list(queries)).to_numpy()
    if col.dtype.kind == "O" and not keep.all():
        # ids that are not text (bytes, numbers in an object column) are decided by their text, as the
        # other doors do (query_text); text ids are decided above
        values = col.to_numpy()
        odd = np.flatnonzero(~keep)
        if set(map(type, values[odd].tolist())) - {str}:
            odd, keep = odd[[type(v) is not str for v in values[odd].tolist()]], keep.copy()
            keep[odd] = [query_text(v) in queries for v in values[odd].tolist()]
    return df if keep.all() else df[keep]


def _is_path(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike)) and "\n" not in str(obj)


def to_ranking(run: Any, source: Optional[str] = None, queries: Optional[AbstractSet[str]] = None) -> Ranking:
    """Convert a run in any supported form to a :class:`Ranking`.

    ``queries`` (the query ids an evaluator computes, e.g. the qrels' queries): rows of other queries of a
    dict, an iterable of tuples or a DataFrame are left out before they are converted (they would not be
    evaluated; files and Rankings are taken whole)."""
    if isinstance(run, Ranking):
        return run
    return cast(Ranking, _convert(run, source, _RUN, queries))


def to_qrels(qrels: Any, source: Optional[str] = None) -> Qrels:
    """Convert qrels in any supported form to :class:`Qrels`."""
    if isinstance(qrels, Qrels):
        return qrels
    return cast(Qrels, _convert(qrels, source, _QRELS))


@dataclass(frozen=True)
class _Kind:
    """How one kind of input (run or qrels) is read: its name, file reader (and ir_measures' reader of the
    same name), DataFrame columns, the value field of its tuples and dicts, and its column builder."""

    name: str
    read_file: Callable[[Any], Any]
    reader: str
    frame_columns: Any
    fields: Tuple[str, str, str]
    from_columns: Callable[..., Any]
    #: what ``from_columns`` is told of columns this module made itself from a dict or tuples (new arrays
    #: nothing else holds; a DataFrame's columns may be the user's): the run's may be reordered in place
    fresh: Dict[str, bool]


_RUN = _Kind("run", read_trec_run, "read_trec_run", _RUN_COLS, ("query_id", "doc_id", "score"), ranking_from_columns,
             {"fresh": True})
_QRELS = _Kind("qrels", read_trec_qrels, "read_trec_qrels", _QREL_COLS, ("query_id", "doc_id", "relevance"),
               qrels_from_columns, {})


def _convert(obj: Any, source: Optional[str], kind: _Kind, queries: Optional[AbstractSet[str]] = None):
    """A run or qrels (``kind``) from a path, a DataFrame, a dict of dicts or an iterable of tuples; with
    ``queries``, only the rows of those queries (of a DataFrame, dict or iterable)."""
    if _is_path(obj):
        return kind.read_file(obj)
    if isinstance(obj, pd.DataFrame):
        src = source or f"<{kind.name} DataFrame>"
        if queries is not None:
            obj = _frame_rows(obj, kind.frame_columns[0], queries)
        cols = [_pick(obj, c, src, kind.name) for c in kind.frame_columns]
        if kind is _RUN and isinstance(cols[1], np.ndarray) and cols[1].dtype.kind == "S" \
                and _is_arrow_string(obj[next(c for c in kind.frame_columns[1] if c in obj.columns)]):
            # ids read from arrow's buffers (_ascii_bytes): a new array, which the sort may reorder in place
            # (the frame's scores are its own: never)
            return kind.from_columns(*cols, src, fresh_ids=True)
        return kind.from_columns(*cols, src)
    if isinstance(obj, dict):
        src = source or f"<{kind.name} dict>"
        if queries is not None and any(query_text(q) not in queries for q in obj):
            obj = {q: docs for q, docs in obj.items() if query_text(q) in queries}
        return kind.from_columns(*_columns_from_dict(obj, src, kind.name, kind.fields[2]), src, **kind.fresh)
    if hasattr(obj, "__iter__"):
        path = _reader_file(obj, kind.reader)
        if path is not None:
            return kind.read_file(path)
        src = source or f"<{kind.name} iterable>"
        return kind.from_columns(*_columns_from_tuples(obj, kind.fields, src, kind.name, queries), src, **kind.fresh)
    raise InputFormatError(f"unsupported {kind.name} type {type(obj).__name__}: give a TREC {kind.name} file path, "
                           f"a DataFrame ({', '.join(kind.fields)}), a dict of dicts or an iterable of namedtuples")


def _reader_file(items: Any, reader: str) -> Optional[str]:
    """The file of an untouched generator made by ``ir_measures.<reader>(path)``: its rows are that file's
    rows, which this package's reader gives many times faster (and with errors that name the line). None
    for anything else (then the items are read one by one)."""
    if not inspect.isgenerator(items) or inspect.getgeneratorstate(items) != inspect.GEN_CREATED:
        return None
    import ir_measures
    if items.gi_code is not getattr(getattr(ir_measures, reader, None), "__code__", None):
        return None
    path = inspect.getgeneratorlocals(items).get("file")
    if not isinstance(path, str) or "\n" in path or not os.path.isfile(path):
        return None
    items.close()
    return path


def _columns_from_dict(obj: dict, source: str, what: str,
                       value_name: str) -> Tuple[CodedIds, np.ndarray, np.ndarray]:
    """(CodedIds, doc ids, values) from a dict of dicts: one pass in C over the keys and values, the query
    ids interned once per query (no per-row Python)."""
    for qid, docs in obj.items():
        if not isinstance(docs, dict):
            raise InputFormatError(f"{source}: {what}[{qid!r}] must be a dict of doc_id -> {value_name}")
    lens = np.fromiter(map(len, obj.values()), dtype=np.int64, count=len(obj))
    n = int(lens.sum())
    codes = np.repeat(QUERY_IDS.encode(map(query_text, obj.keys())), lens)
    docs = _id_column(lambda: chain.from_iterable(obj.values()), n)
    values = _values(lambda: chain.from_iterable(map(dict.values, obj.values())), n, what)
    return CodedIds(codes), docs, values


def _id_column(make_items, n: int) -> np.ndarray:
    """Document ids as bytes (``S``) in one C pass when every id is ASCII text or bytes (the usual case:
    no object array, no second conversion), else as objects for :func:`doc_bytes` (which encodes UTF-8
    and names an id that cannot be). ``make_items()`` gives a new iterator over the ids, or is an object
    array of them (converted by numpy's cast, which is the same encoding).

    The width is guessed from the first ids, with a byte to spare; when some id fills it (it may have
    been cut) the exact width is measured and the pass redone. Otherwise the longest id is one byte
    shorter than the guess (the first ids are among all ids), unless ids end in NUL bytes (a bytes
    array drops them): then the width is trimmed to the longest id as stored."""
    objects = make_items if isinstance(make_items, np.ndarray) else None
    try:
        first = islice(objects if objects is not None else make_items(), 1000)
        width = max(map(len, first), default=0) + 1                   # one byte to spare
        if objects is not None:
            ids = objects.astype(f"S{width}")                         # numpy encodes str as ASCII
        else:
            ids = np.fromiter(make_items(), dtype=f"S{width}", count=n)
        if n == 0:
            return ids
        cols = ids.view(np.uint8).reshape(n, width)
        if cols[:, -1].any():                                         # some id fills the width
            if objects is not None:
                return objects.astype("S")
            width = max(map(len, make_items()))
            return np.fromiter(make_items(), dtype=f"S{max(width, 1)}", count=n)
        if width == 1:
            return ids
        if width > 2 and not cols[:, width - 2].any():                # ids that ended in NUL bytes
            used = np.flatnonzero(cols.any(axis=0))
            return ids.astype(f"S{int(used[-1]) + 1 if len(used) else 1}")
        return ids.astype(f"S{width - 1}")
    except (TypeError, ValueError, UnicodeError):
        if objects is not None:
            return objects
        return np.fromiter(make_items(), dtype=object, count=n)


def _values(make_items, n: int, what: str) -> np.ndarray:
    """Scores as float64 in one pass (their checks follow), or as objects when some is not a number
    (for the error that names it); qrels grades as objects (so that a non-integer grade is named, never
    truncated). ``make_items()`` gives a new iterator over the values."""
    if what == "run":
        try:
            return np.fromiter(make_items(), dtype=np.float64, count=n)
        except (TypeError, ValueError):
            pass
    return np.fromiter(make_items(), dtype=object, count=n)


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


def _columns_from_records(items: Sequence, at: List[int], what: str, queries: Optional[AbstractSet[str]]):
    """Three columns from a list of tuples of one type (its fields ``at`` in order): one C pass copies
    every field into an object array (rows x fields; each tuple is visited once, which is what costs
    on millions of tuples scattered in memory), whose columns numpy then casts. Query ids are
    interned per block of equal ids; with ``queries``, the rows of other queries are left out by block."""
    if queries is not None and isinstance(items[0][at[0]], str):
        # a few items spread over the list: when one is of a query left out, many may be (e.g. a run's
        # unjudged queries), and dropping them before the copy is cheaper than copying them
        qid = itemgetter(at[0])
        if not all(map(queries.__contains__, map(qid, items[::max(1, len(items) // 64)]))):
            ids = list(map(qid, items))
            # only text ids are decided here: a bytes or number id may be a query kept (as its text,
            # query_text), so with one anywhere the rows are left to the per-block filter below (one C
            # pass counting the types: checking the dropped rows' types took twice as long on DL 2019)
            if countOf(map(type, ids), str) == len(ids):
                items = list(compress(items, map(queries.__contains__, ids)))
            if not items:
                empty = np.empty(0, dtype=object)
                return empty, _id_column(empty, 0), np.empty(0, dtype=np.float64) if what == "run" else empty
    fast = _arrow_records(items, at) if what == "run" else None
    if fast is not None:
        return fast if queries is None else _rows_of_queries(fast, queries)
    n, width = len(items), len(items[0])
    flat = np.fromiter(chain.from_iterable(items), dtype=object, count=n * width)
    table = flat.reshape(n, width)
    qids = table[:, at[0]]
    starts = _blocks(qids)
    heads = qids[starts]
    if queries is not None and len(heads):
        keep = np.fromiter(map(queries.__contains__, map(query_text, heads.tolist())), dtype=bool, count=len(heads))
        if not keep.all():
            rows = np.repeat(keep, np.diff(np.append(starts, n)))
            table, n = table[rows], int(rows.sum())
            qids, starts = table[:, at[0]], _blocks(table[:, at[0]])
            heads = qids[starts]
    if n and all(isinstance(h, str) for h in heads.tolist()):
        codes = CodedIds(np.repeat(QUERY_IDS.encode(heads.tolist()), np.diff(np.append(starts, n))))
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
    return query_column, _id_column(table[:, at[1]], n), values


def _arrow_records(items: Sequence, at: List[int]) -> Optional[Tuple[CodedIds, np.ndarray, np.ndarray]]:
    """The columns of a run given as a list of 3-field tuples of one type (fields ``at``: query id, doc
    id, score), read by pyarrow's converter in one C pass that touches each tuple and field once and
    makes no Python object per row (about 0.35 s less than :func:`_columns_from_records`' copy and casts
    on 7M namedtuples): query ids interned per block, ASCII document ids as bytes, scores as float64.
    The same columns as the general path gives, or None (pyarrow missing, a field that is not text or a
    number, a missing value, a document id that is not ASCII or holds a NUL byte): then the general path
    reads the items and names what is wrong."""
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
    if arr.null_count or qids.null_count or docs.null_count or scores.null_count:
        return None                                    # None somewhere: the general path says what it is
    # the struct array is this function's own: its buffers are taken as they are (no copy of millions of
    # rows; the sort may move rows within them, ranking_from_columns(fresh=True))
    dbytes = _ascii_bytes(docs, copy=False)
    if dbytes is None:
        return None
    return _arrow_query_codes(qids), dbytes, _own_floats(scores)


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
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    heads = QUERY_IDS.decode(c[starts]).tolist()
    keep = np.fromiter(map(queries.__contains__, heads), dtype=bool, count=len(heads))
    if keep.all():
        return columns
    if not keep.any():                                 # as the general path leaves no rows
        return CodedIds(c[:0]), np.empty(0, dtype="S1"), scores[:0]
    rows = np.repeat(keep, np.diff(np.append(starts, len(c))))
    kept = dbytes[rows]
    used = np.flatnonzero(kept.view(np.uint8).reshape(len(kept), -1).any(axis=0))
    width = int(used[-1]) + 1 if len(used) else 1      # the longest id kept, as the general path's width
    return CodedIds(c[rows]), kept.astype(f"S{width}") if width < kept.dtype.itemsize else kept, scores[rows]


def _blocks(qids: np.ndarray) -> np.ndarray:
    """The first row of each block of equal query ids (at least one row)."""
    if len(qids) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, qids[1:] != qids[:-1]])


def _columns_from_tuples(items: Iterable, fields, source: str, what: str,
                         queries: Optional[AbstractSet[str]] = None):
    """Three columns from an iterable of namedtuples (ir_measures' ScoredDoc / Qrel or any with these
    fields): transposed in C when every item has the type of the first, else field by field. With
    ``queries``, the items of other queries are left out first (one C pass over the query ids)."""
    items = items if isinstance(items, (list, tuple)) else _materialised(items)
    first = items[0] if len(items) else None
    if isinstance(first, str):
        raise InputFormatError(f"{source}: the {what} is an iterable of strings (a file path given where "
                               f"ir_measures expects records?): read files with ir_rbstar.read_{what}(path)")
    names = getattr(type(first), "_fields", None)
    if first is not None and isinstance(first, tuple) and names and all(f in names for f in fields) \
            and countOf(map(type, items), type(first)) == len(items):
        kind = type(first)
        # a namedtuple class fixes its length (its constructors check it); another tuple type with
        # these fields is checked item by item, as the flat copy would shift fields otherwise
        plain = kind.__iter__ is tuple.__iter__ and kind.__len__ is tuple.__len__
        if plain and (hasattr(kind, "_make") or countOf(map(len, items), len(first)) == len(items)):
            return _columns_from_records(items, [names.index(f) for f in fields], what, queries)
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
    return (np.array(cols[0], dtype=object), np.array(cols[1], dtype=object), np.array(cols[2], dtype=object))
