"""Every input form to a :class:`~ir_rbstar.io.tables.Ranking` / :class:`~ir_rbstar.io.tables.Qrels`:
file paths, DataFrames, dicts of dicts, iterables of namedtuples (converted in C passes)."""
from __future__ import annotations

import inspect
import os
import sys
from itertools import chain, compress, islice
from operator import countOf
from dataclasses import dataclass
from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Dict, Optional, Tuple, cast

import numpy as np

from ..errors import InputFormatError
from . import dictscan, framecache, qcache
from .columns import qrels_from_columns, ranking_from_columns
from .idcolumns import (_arrow_query_codes, _ascii_bytes, _id_column, codes_of_blocks, first_missing, first_missing_id,
                        id_blocks, rows_of_blocks)
from .records import _materialised, columns_from_tuples
from .ids import QUERY_IDS, CodedIds, _show, query_text
from .querytable import KEEP_WIDTH
from .tables import Qrels, Ranking
from .trec import read_trec_qrels, read_trec_run

if TYPE_CHECKING:             # (not imported here: a DataFrame given means pandas is; other doors need none)
    import pandas as pd

_RUN_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("score",))
_QREL_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("relevance", "label"))


def _column_name(df: pd.DataFrame, options, source: str, what: str) -> str:
    """The first of ``options`` that names a column of ``df``: exactly one (a name of two columns, or of a level of
    columns, is an error naming it)."""
    name = next((c for c in options if c in df.columns), None)
    if name is None:
        raise InputFormatError(f"{source}: {what} DataFrame has no column {options[0]!r} "
                               f"(columns found: {list(df.columns)})")
    at = df.columns.get_loc(name)
    if type(at) is not int:                  # a slice or a mask: several columns, or a level of columns
        many = np.arange(len(df.columns))[at].size
        if many > 1:
            raise InputFormatError(f"{source}: {what} DataFrame has {many} columns named {name!r}: which one to "
                                   f"take is not clear (columns found: {list(df.columns)})")
        if df[name].ndim > 1:
            raise InputFormatError(f"{source}: {what} DataFrame column {name!r} is a level of columns over "
                                   f"{list(df.columns[at])}: give the column a name of its own")
    return name


def _column(col: pd.Series, name: str, source: str, what: str, rows: Optional[np.ndarray] = None,
            from_arrow: Optional[list] = None) -> Any:
    """A DataFrame's column ``name`` converted (ids: :func:`_arrow_ids` when arrow holds them; the name of such a
    column is appended to ``from_arrow``)."""
    if name in ("query_id", "qid", "doc_id", "docno"):
        fast = _arrow_ids(col, query=name in ("query_id", "qid"))
        if fast is not None:
            if from_arrow is not None:
                from_arrow.append(name)
            return fast
        _no_missing_ids(col, name, source, what, rows)
    return col.to_numpy(dtype=object) if name != "score" and col.dtype.kind not in "SO" else col.to_numpy()


def _numpy_values(values: np.ndarray, name: str) -> np.ndarray:
    """A numpy column's values (a copy of them) as :func:`_column` gives them: scores as they are, grades as
    Python numbers (their checks and casts are the general ones)."""
    return values if name == "score" else values.astype(object)


def _arrow_ids(col: Any, query: bool) -> Any:
    """An id column held by pyarrow (pandas' default string type with pyarrow installed) without a Python
    object per row: query ids interned (:class:`CodedIds`: per block of equal ids, :func:`.idcolumns._query_blocks`,
    else per distinct id through arrow's dictionary encoding), ASCII document ids as a bytes (``S``)
    array (:func:`.idcolumns._ascii_bytes`). None for any other column, or one with missing values, or document ids
    with NUL bytes or non-ASCII characters (the general path handles those)."""
    arr = _arrow_text(col)
    if arr is None:
        return None
    return _arrow_query_codes(arr) if query else _ascii_bytes(arr)


def _arrow_text(col: Any) -> Any:
    """The pyarrow array (one chunk) of a column held by pyarrow as text (a Series or its array), if it has rows
    and no missing value; else None."""
    if not _is_arrow_string(col):
        return None
    import pyarrow as pa
    # the column's own arrow data, through the array's arrow protocol method (every pyarrow-backed string
    # array has one; pa.array(col) goes through pandas' Series conversion: some 20 us a column)
    arr = framecache.array_of(col).__arrow_array__()
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    return None if arr.null_count or len(arr) == 0 else arr


def _is_arrow_string(col: pd.Series) -> bool:
    """Whether a column is text held by pyarrow (pandas' default string type with pyarrow installed)."""
    import pandas as pd
    return isinstance(col.dtype, pd.StringDtype) and getattr(col.dtype, "storage", None) == "pyarrow"


def _no_missing_ids(col: pd.Series, name: str, source: str, what: str, rows: Optional[np.ndarray] = None) -> None:
    """An ``InputFormatError`` naming the column, the row and its index label when an id of ``col`` is
    missing (None, NaN, pandas' NA): the row would otherwise become the id "nan", "None" or "<NA>", or be
    left out as a query the qrels lack. numpy's integer and boolean columns cannot hold one (pandas' nullable
    ``Int64`` and ``boolean`` can: their kind is the same); arrow counts its nulls. ``rows``: the row in the
    user's frame of each row of ``col`` (``col`` is of the rows a query filter kept)."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
        return
    if _is_arrow_string(col):
        if not framecache.array_of(col).__arrow_array__().null_count:
            return
    elif not col.hasnans:
        return
    at = int(np.flatnonzero(col.isna().to_numpy())[0])
    label = col.index[at]
    row = at if rows is None else int(rows[at])
    label = label.item() if isinstance(label, np.generic) else label
    raise InputFormatError(f"{source}: {what} DataFrame column {name!r} has no value at row {row} "
                           f"(index {label!r}): every row needs a query id and a document id")


def _kept_rows(given: pd.Series, name: str, queries: AbstractSet[str], source: str, what: str,
               blocks: Optional[Tuple[np.ndarray, list]] = None) -> Optional[np.ndarray]:
    """Which rows of a DataFrame whose query id column ``name`` is ``given`` (a Series, or the array of one without a
    missing id) hold a query id (as text) of ``queries`` (a boolean mask), or None when every row does: each block
    of equal ids of a pyarrow column (``blocks``, :func:`_arrow_blocks`) looked up once, else one vectorised
    ``isin``, before any column is converted. A missing query id is an error, not a query left out: an object
    column's rows left out are
    searched for one here (a missing id is never text, so it is among the rows decided one by one), the rows
    kept by :func:`_column`, each row once; a string column (text or missing values only) by its null count
    when rows are left out; a number column whole, before its NaN becomes the text "nan"."""
    import pandas as pd
    if blocks is not None:
        # pyarrow strings without a missing id, the rows of a query together (as runs come): each block's id
        # looked up once (pandas' isin costs about 0.3 ms on 4,000 rows, some 0.9 ms after other work has
        # taken the processor's caches)
        starts, heads = blocks
        inside = np.fromiter(map(queries.__contains__, heads), dtype=bool, count=len(heads))
        return None if inside.all() else rows_of_blocks(inside, starts, len(given))
    if not isinstance(given, pd.Series):        # an array of text without a missing id (framecache.frame_columns)
        given = pd.Series(given, copy=False)
    col = given
    if not (col.dtype.kind in "OTU" or isinstance(col.dtype, pd.StringDtype)):
        _no_missing_ids(col, name, source, what)
        col = col.astype(str)
    keep = col.isin(list(queries)).to_numpy()
    if keep.all():
        return None
    # (numbers made text above were checked there: text ids only)
    if col is given and (col.dtype.kind != "O" or isinstance(col.dtype, pd.StringDtype)):
        # a string column holds text or missing values (named here), never another type: no Python object
        # per row to find the ids that are not text (about half the time of this filter on 1M arrow rows)
        _no_missing_ids(given, name, source, what)
    elif col is given:
        # ids that are not text (bytes, numbers, missing values in an object column) are decided by their
        # text, as the other doors do (query_text); text ids are decided above
        values = col.to_numpy()
        odd = np.flatnonzero(~keep)
        if set(map(type, values[odd].tolist())) - {str}:
            odd, keep = odd[[type(v) is not str for v in values[odd].tolist()]], keep.copy()
            if pd.isna(values[odd]).any():           # (its text, "None" or "nan", may be a query's id)
                _no_missing_ids(given, name, source, what)
            keep[odd] = [query_text(v) in queries for v in values[odd].tolist()]
    return None if keep.all() else keep


def _from_blocks(blocks: Tuple[np.ndarray, list], n: int, name: str, from_arrow: list) -> CodedIds:
    """The query id column of ``n`` rows as :func:`_column` makes it from pyarrow's ids, from their blocks found
    already (:func:`_arrow_blocks`, to leave rows out: none was), instead of finding them again."""
    from_arrow.append(name)
    return codes_of_blocks(*blocks, n)


def _arrow_blocks(col: Any) -> Optional[Tuple[np.ndarray, list]]:
    """The blocks of equal ids of a column held by pyarrow as text without a missing id (a Series or its array):
    (each block's first row, its id), or None for another column or ids in many short blocks
    (:func:`.idcolumns.id_blocks`)."""
    arr = _arrow_text(col)
    return None if arr is None else id_blocks(arr)


def _is_frame(obj: Any) -> bool:
    """Whether ``obj`` is a pandas DataFrame, without importing pandas (a DataFrame exists only once it is)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


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


def _from_frame(cols: list, names, src: str, kind: _Kind, queries: Optional[AbstractSet[str]]):
    """A run or qrels from a DataFrame's three columns (Series) named ``names`` (with ``queries``, only the
    rows of those queries)."""
    # a run's float64 scores are taken as they are: the frame's own memory, which a ranking that outlives the
    # call (a registered reference) would share, changing with the frame; so a copy, which the sort may then
    # reorder in place instead of gathering a new array
    own = kind is _RUN and isinstance(cols[2].dtype, np.dtype) and cols[2].dtype == np.float64
    return _from_columns(cols, names, cols[2].to_numpy().copy() if own else None, src, kind, queries, own)


def _from_key(key: framecache.Key, src: str, kind: _Kind, queries: Optional[AbstractSet[str]]):
    """:func:`_from_frame` of the columns :func:`.framecache.key` read (the very columns the key holds, the
    numbers its own copy: the conversion is of what the key is checked against, whatever happens to the
    frame meanwhile, unless the columns themselves change in place: :meth:`.framecache.Key.still_read`).
    (The key's copy of numbers, a numpy column's or an arrow one's: never memory the frame's owner may
    write; the kept entry compares it, so the sort may not reorder it.)"""
    values = key.values if isinstance(key.values, np.ndarray) else key.bits
    cols = list(key.series)
    if not all(_arrow_text(c) is not None for c in cols[:2]):
        # the key's columns may be arrays (framecache.frame_columns), which have no index to name a row with a
        # missing id by: the frame's Series of the same columns (the key checks these, still_read: kept only if
        # they hold its arrays)
        cols = [key.frame[n] for n in key.names]
        key.series = tuple(cols)
    return _from_columns(cols, key.names, values, src, kind, queries, False)


def _from_columns(cols: list, names, values: Optional[np.ndarray], src: str, kind: _Kind,
                  queries: Optional[AbstractSet[str]], own_values: bool):
    """A run or qrels from a DataFrame's three columns (Series) named ``names``; ``values``: the numbers of the
    third as a numpy array to take instead of the column (``own_values``: made for this conversion)."""
    rows = blocks = None
    if queries is not None:
        blocks = _arrow_blocks(cols[0])
        keep = _kept_rows(cols[0], names[0], queries, src, kind.name, blocks)
        if keep is not None:
            rows = np.flatnonzero(keep)
            cols = [c[keep] for c in cols]
            values = values[rows] if values is not None else None
            blocks = None                       # (the blocks of the rows before some were left out)
    from_arrow: list = []
    out = [_column(c, n, src, kind.name, rows, from_arrow) if i or blocks is None
           else _from_blocks(blocks, len(c), n, from_arrow)
           for i, (c, n) in enumerate(zip(cols[:2], names[:2], strict=True))]
    out.append(_column(cols[2], names[2], src, kind.name, rows) if values is None
               else _numpy_values(values, names[2]))
    if kind is not _RUN:
        return kind.from_columns(*out, src)
    # ids read from arrow's buffers (_ascii_bytes): a new array, which the sort may reorder in place
    fresh_ids = names[1] in from_arrow and isinstance(out[1], np.ndarray) and out[1].dtype.kind == "S"
    return kind.from_columns(*out, src, fresh_ids=fresh_ids, fresh_scores=own_values)


def _convert(obj: Any, source: Optional[str], kind: _Kind, queries: Optional[AbstractSet[str]] = None):
    """A run or qrels (``kind``) from a path, a DataFrame, a dict of dicts or an iterable of tuples; with
    ``queries``, only the rows of those queries (of a DataFrame, dict or iterable)."""
    if _is_path(obj):
        return kind.read_file(obj)
    if _is_frame(obj):
        src = source or f"<{kind.name} DataFrame>"
        names = [_column_name(obj, options, src, kind.name) for options in kind.frame_columns]
        arrays = framecache.frame_columns(obj, names)
        cols = arrays if arrays is not None else [obj[name] for name in names]
        # the same unchanged columns as a recent call's: its conversion (io/framecache.py)
        key = framecache.key(cols, names, kind.name, src, queries, obj)
        if key is None:
            return _from_frame([obj[name] for name in names] if arrays is not None else cols, names, src, kind,
                               queries)
        done = framecache.cached(key)
        if done is None:
            done = _from_key(key, src, kind, queries)
            if key.still_read():            # (no column read was changed while it was converted)
                key.series = key.frame = None       # (the kept key holds no column of the user's frame)
                framecache.keep(key, done)
        return done
    if isinstance(obj, dict):
        src = source or f"<{kind.name} dict>"
        if queries is not None:
            obj = _dict_rows(obj, queries, src, kind.name)
        if kind is _QRELS:
            # a dict of dicts equal to the last call's: its conversion (io/qcache.py)
            done = qcache.cached_dict(obj, src)
            if done is None:
                copy = qcache.snapshot_dict(obj)         # taken first, and converted: nothing can change it
                codes, docs, values, _ = _columns_from_dict(obj if copy is None else copy, src, kind.name,
                                                            kind.fields[2])
                done = kind.from_columns(codes, docs, values, src)      # (qrels check duplicates themselves)
                if copy is not None:
                    qcache.keep_dict(copy, src, done)
            return done
        codes, docs, values, distinct = _columns_from_dict(obj, src, kind.name, kind.fields[2])
        return kind.from_columns(codes, docs, values, src, distinct_short=distinct, **kind.fresh)
    if hasattr(obj, "__iter__"):
        path = _reader_file(obj, kind.reader)
        if path is not None:
            return kind.read_file(path)
        src = source or f"<{kind.name} iterable>"
        if kind is _QRELS and queries is None:
            # the same unchanged namedtuples as the last call's (ir_measures hands them on through
            # itertools.tee: the items are compared, not the container): its conversion (io/qcache.py;
            # kept for all the rows: rows left out by ``queries`` would make it another conversion)
            items = obj if isinstance(obj, (list, tuple)) else _materialised(obj)
            done = qcache.cached(items, src)
            if done is None:
                rows = qcache.snapshot(items, copy=items is obj)   # taken first, and converted
                done = kind.from_columns(*columns_from_tuples(items if rows is None else rows, kind.fields, src,
                                                              kind.name), src)
                if rows is not None:
                    qcache.keep(rows, src, done)
            return done
        return kind.from_columns(*columns_from_tuples(obj, kind.fields, src, kind.name, queries), src, **kind.fresh)
    raise InputFormatError(f"unsupported {kind.name} type {type(obj).__name__}: give a TREC {kind.name} file path, "
                           f"a DataFrame ({', '.join(kind.fields)}), a dict of dicts or an iterable of namedtuples")


def _dict_rows(obj: dict, queries: AbstractSet[str], source: str, what: str) -> dict:
    """The entries of ``obj`` whose query id (as text, :func:`query_text`) is one of ``queries`` (``obj``
    itself when that is all of them); text ids are looked up in C passes. A missing query id is an error
    (:func:`_no_missing_keys`), not a query left out."""
    if countOf(map(type, obj), str) == len(obj):
        keep = list(map(queries.__contains__, obj))
        return obj if all(keep) else dict(compress(obj.items(), keep))
    _no_missing_keys(list(obj), source, what)
    if all(query_text(q) in queries for q in obj):
        return obj
    return {q: docs for q, docs in obj.items() if query_text(q) in queries}


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


def _columns_from_dict(obj: "dict | qcache.FlatDict", source: str, what: str,
                       value_name: str) -> Tuple[CodedIds, np.ndarray, np.ndarray, bool]:
    """(CodedIds, doc ids, values, distinct) from a dict of dicts (or its flat copy, :class:`.qcache.FlatDict`):
    one pass in C over the keys and values, the query ids interned once per query (no per-row Python). A
    missing query or document id is an error naming the query and the key (:func:`_no_missing_keys`,
    :func:`_no_missing_docs`). ``distinct``: the compiled reader read every id (each an exact ``str`` key of
    one dict, so no query holds an id twice) and no query has as many rows as a conversion keeps a table for
    (:data:`.querytable.KEEP_WIDTH`): :func:`.columns.ranking_from_columns` may then skip its duplicate check."""
    if isinstance(obj, qcache.FlatDict):            # a copy of a dict of dicts (checked when it was made)
        lens = np.array(obj.lengths, dtype=np.int64)
        n = int(lens.sum())
        codes = np.repeat(_key_codes(obj.queries, source, what), lens)
        docs = _id_column(obj.docs, n, _dict_key(lens, obj.queries, source, what))
        _no_missing_docs(docs, obj.docs, lens, obj.queries, source, what)
        return CodedIds(codes), docs, _listed_values(obj.values(), n, what), False
    for qid, docs in obj.items():
        if not isinstance(docs, dict):
            raise InputFormatError(f"{source}: {what}[{qid!r}] must be a dict of doc_id -> {value_name}")
    # (the ids and values are read through itertools.chain: gathering them into lists first, as the kept
    # qrels' check does, was measured 5% faster on 860 rows but 6% slower on 5,400 and 17% on 43,000)
    lens = np.fromiter(map(len, obj.values()), dtype=np.int64, count=len(obj))
    n = int(lens.sum())
    keys = _key_codes(obj.keys(), source, what)
    codes = np.repeat(keys, lens)
    fast = dictscan.dict_columns(obj, n, grades=what != "run")
    if fast is not None:                            # plain str ids (none missing) and float scores / int grades
        # (two keys of the outer dict may be one query, 1 and '1': then a query's ids come from two dicts)
        distinct = int(lens.max(initial=0)) < KEEP_WIDTH and len(set(keys.tolist())) == len(keys)
        return CodedIds(codes), fast[0], fast[1], distinct
    inner = obj.values()

    def doc_ids():
        return chain.from_iterable(inner)
    docs = _id_column(doc_ids, n, _dict_key(lens, obj, source, what))
    _no_missing_docs(docs, doc_ids, lens, obj, source, what)
    values = _values(lambda: chain.from_iterable(map(dict.values, obj.values())), n, what)
    return CodedIds(codes), docs, values, False


def _key_codes(keys, source: str, what: str) -> np.ndarray:
    """The interned code of each of a dict's query ids, one per key (as text, :func:`query_text`; ``str`` ids
    as they are; a missing one is an error, :func:`_no_missing_keys`); not :func:`.tables._query_codes`, which
    takes a row column and gives a code per row."""
    keys = list(keys)
    if countOf(map(type, keys), str) == len(keys):
        return QUERY_IDS.encode(keys)
    _no_missing_keys(keys, source, what)
    return QUERY_IDS.encode(map(query_text, keys))


_NEEDS_IDS = "every row needs a query id and a document id"


def _no_missing_keys(keys: list, source: str, what: str) -> None:
    """An ``InputFormatError`` naming the key when a query id of a dict (its keys, some not ``str``) is missing
    (None, NaN, pandas' NA, NaT: :func:`.idcolumns.first_missing`, as for a DataFrame column): it would
    otherwise become the query "None" or "nan", or be left out as a query the qrels lack."""
    row = first_missing(np.fromiter(keys, dtype=object, count=len(keys)))
    if row is not None:
        raise InputFormatError(f"{source}: the {what} dict has no query id at key {row} "
                               f"({_show(keys[row])!r}): {_NEEDS_IDS}")


def _no_missing_docs(docs: np.ndarray, make_items, lens: np.ndarray, queries, source: str, what: str) -> None:
    """An ``InputFormatError`` naming the query and the key when a document id of a dict of dicts is missing
    (:func:`.idcolumns.first_missing_id` of the column :func:`_id_column` made; ``lens``: each query's number
    of documents, ``queries``: the query ids, in order)."""
    row = first_missing_id(docs, make_items)
    if row is None:
        return
    qid, at = _dict_place(row, lens, queries)
    value = next(islice(make_items(), row, None))
    raise InputFormatError(f"{source}: query {_show(qid)!r} of the {what} dict has no document id at key {at} "
                           f"({_show(value)!r}): {_NEEDS_IDS}")


def _dict_place(row: int, lens: np.ndarray, queries) -> Tuple[Any, int]:
    """(query id, place among its documents) of document ``row`` of a dict of dicts, counted over all its
    queries (``lens``: each query's number of documents, ``queries``: the query ids, in order)."""
    ends = np.cumsum(lens)
    q = int(np.searchsorted(ends, row, side="right"))
    return next(islice(iter(queries), q, None)), row - int(ends[q] - lens[q])


def _dict_key(lens: np.ndarray, queries, source: str, what: str):
    """``where(row)`` for :func:`.idcolumns._id_column`: document ``row`` of a dict of dicts named by its query
    and key."""
    def where(row: int) -> str:
        qid, at = _dict_place(row, lens, queries)
        return f"{source}: query {_show(qid)!r} of the {what} dict, key {at}"
    return where


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


def _listed_values(items: list, n: int, what: str) -> np.ndarray:
    """:func:`_values` of values held in a list: qrels grades as int64 when they are all integers that
    numpy holds as such (no float, bool or text among them, none beyond int64)."""
    if what != "run" and countOf(map(type, items), int) == n:
        grades = np.array(items)
        if grades.dtype.kind == "i":                # else some grade beyond int64: the general path names it
            return grades
    return _values(lambda: iter(items), n, what)
