"""The last few DataFrames converted (runs and qrels), kept for a next call given the same unchanged columns.

A program often hands the same DataFrame over again: the reference of ``RBO(ref=...)`` registered before
every evaluation, one run evaluated with several lists of measures, the qrels of every system of an
experiment. Converting a DataFrame of 20,000 rows costs about as much as the measures on it (1.5 ms of the
3 ms of RBO and RBO_ext on a run of 200 queries x 100 documents, measured). So the last
:data:`SLOTS` conversions of DataFrames used are kept and given again only while they cannot be stale:

* the query and document id columns are held by pyarrow (pandas' default string type with pyarrow
  installed) and are **the very same arrow arrays** as those converted. pandas never writes into an arrow
  array: a change to such a column (``df.loc[i, "doc_id"] = ...``, a new column) makes a new one, so the
  same array holds the same ids. The kept entry holds the arrays, so none can be freed and another take
  its place. Only arrow arrays of text are held so (pyarrow lays text out itself: never numpy's memory,
  unless built by hand with ``pyarrow.Array.from_buffers`` over memory written later). Id columns of Python
  objects (pandas' ``object`` dtype) or of numbers are never kept: telling whether one changed means reading
  every id, which is what the conversion costs;
* the score (or relevance) column holds the same bits as a copy taken when it was converted (a numpy
  column can be changed in place), or is the same arrow array, of text, or of numbers (without a missing
  value) holding the same bits as a copy taken when it was converted: pyarrow makes a numeric array from
  numpy without copying it (and pandas 1.5 its ``float64[pyarrow]`` columns), so the numpy array's owner
  can change its numbers in place under the same arrow array;
* the column names chosen, the source name and the queries the rows were filtered to are the same.

Anything else is converted again. Only frames of at most :data:`MAX_ROWS` rows are kept, at most
:data:`TOTAL_ROWS` rows in all, and only while their arrow columns are not a few rows of much larger
buffers (:data:`SPARE`) (a frame of a million rows and its conversion hold some 50-100 MB; the copy of
the scores is taken at every call). :func:`clear` (and :func:`ir_rbstar.references.clear_cache`) drops them.
"""
from __future__ import annotations

import functools
import threading
from typing import Any, List, Optional, Tuple

import numpy as np

#: the most rows of a DataFrame whose conversion is kept (its Ranking or Qrels stays alive until it is
#: pushed out or :func:`clear`)
MAX_ROWS = 1_000_000
#: how many conversions are kept (a run and its reference, the qrels, one more)
SLOTS = 4
#: the most rows of all the frames kept together (the oldest are dropped first)
TOTAL_ROWS = 2_000_000
#: a frame is kept only while its arrow columns hold at most this many times the bytes of their rows (plus
#: :data:`SLACK` bytes): a few rows sliced from a large frame (``head``, ``iloc[a:b]``, a group of a
#: ``groupby``: pandas does not copy them) hold all of its buffers, which a kept entry would keep alive
SPARE = 4
SLACK = 1 << 20

_lock = threading.Lock()


class Key:
    """What a conversion of a DataFrame depends on, as :func:`key` reads it from the frame."""

    __slots__ = ("kind", "source", "queries", "names", "arrays", "values", "bits", "series", "rows", "frame")

    def __init__(self, kind: str, source: str, queries: Optional[frozenset], names: Tuple[str, ...],
                 arrays: Tuple[Any, ...], values: Any, series: Any = None, bits: Optional[np.ndarray] = None):
        self.kind, self.source, self.queries, self.names = kind, source, queries, names
        self.arrays, self.values = arrays, values
        #: a copy of the numbers of an arrow value column (None for a numpy or text one), which the
        #: conversion reads (not the arrow array: it may be numpy's memory, written later)
        self.bits = bits
        #: the frame's columns read for the key: Series, or the arrays pandas holds them in
        #: (:func:`frame_columns`); the conversion reads these (dropped once converted, before the key is kept)
        self.series = series
        #: the frame itself (its Series are read from it when the conversion needs them; dropped with ``series``)
        self.frame: Any = None
        self.rows = len(values)

    @property
    def held(self) -> Tuple[Any, ...]:
        """The arrow arrays the key holds: the id columns', and the value column's when arrow holds it."""
        return (*self.arrays, *(() if isinstance(self.values, np.ndarray) else (self.values,)))

    def still_read(self) -> bool:
        """Whether the columns read for the key still hold the key's arrow arrays. pandas with copy-on-write
        (3.0, the default) never changes a column read; earlier versions change an arrow column's array in
        place (``df.loc[i, "doc_id"] = ...``), which a conversion running meanwhile may have read."""
        if self.series is None:
            return False
        held = self.held
        return all(_arrow_column(s, numbers=i == 2) is a for i, (s, a) in
                   enumerate(zip(self.series[:len(held)], held, strict=True)))

    def same(self, other: "Key") -> bool:
        """Whether ``other`` (read from a frame now) is this key: the same arrow arrays (identity) and the
        same bits of a numpy value column."""
        # (the arrays first: the other keys of a loop over runs differ there, and it costs the least)
        if len(self.arrays) != len(other.arrays) \
                or any(a is not b for a, b in zip(self.arrays, other.arrays, strict=True)) \
                or self.kind != other.kind or self.source != other.source or self.names != other.names \
                or self.queries != other.queries:
            return False
        a, b = self.values, other.values
        if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray):
            return a is b and (self.bits is None) == (other.bits is None) \
                and (self.bits is None or _same_bits(self.bits, other.bits))
        return _same_bits(a, b)


def _same_bits(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> bool:
    """Whether two numeric columns hold the same numbers, bit for bit."""
    if a is None or b is None:
        return False
    # their bytes compared (NaN equal to the same NaN, -0.0 apart from 0.0): two copies and a memcmp, a third of
    # the time of np.array_equal over byte views (3 against 10 us for 4,300 scores)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


_kept: List[Tuple[Key, Any]] = []


def _arrow_column(col: Any, numbers: bool = False) -> Any:
    """The arrow array pandas holds a column in (the same object until the column is changed), if it holds
    text (or, with ``numbers``, numbers); None for another type or a column that pandas does not hold in
    pyarrow (other extension arrays, such as ``string[python]`` or the nullable ``Int64``, make a new arrow
    array each time they are asked for one)."""
    import pandas as pd
    dtype = col.dtype
    held = (isinstance(dtype, pd.StringDtype) and getattr(dtype, "storage", None) == "pyarrow") \
        or isinstance(dtype, getattr(pd, "ArrowDtype", ()))
    arrow = getattr(array_of(col), "__arrow_array__", None) if held else None
    if arrow is None:
        return None
    try:
        array = arrow()
    except (TypeError, ValueError):          # pragma: no cover - a pandas array that cannot give one
        return None
    return array if _is_text(array.type) or (numbers and _is_number(array.type)) else None


@functools.lru_cache(maxsize=None)
def _type_ids(kind: str) -> frozenset:
    """The ids (``DataType.id``) of arrow's text types (``kind`` "text": strings and binaries of every layout this
    pyarrow has) or number types ("number": integers, floats, booleans), found once: a column's type is then
    told by one set lookup, not by six of pyarrow's predicates (some 2 us a column, at every conversion)."""
    import pyarrow as pa
    makers: Tuple[str, ...]
    if kind == "text":
        makers = ("string", "large_string", "string_view", "binary", "large_binary", "binary_view")
    else:
        makers = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
                  "float64", "bool_")
    return frozenset(getattr(pa, m)().id for m in makers if hasattr(pa, m))


def _is_text(t: Any) -> bool:
    return t.id in _type_ids("text")


def _is_number(t: Any) -> bool:
    return t.id in _type_ids("number")


def _compact(arrays: Tuple[Any, ...]) -> bool:
    """Whether arrow arrays hold no more memory than :data:`SPARE` times the bytes of their rows, plus
    :data:`SLACK` (their buffers, which a kept entry keeps alive, may be those of a larger array sliced)."""
    try:
        held = sum(a.get_total_buffer_size() for a in arrays)
        # (the bytes of the rows, ``nbytes``, cost pyarrow a walk over the offsets of text: some 5 us a column,
        # needless when all the memory held is within the slack)
        return held <= SLACK or held <= SPARE * sum(a.nbytes for a in arrays) + SLACK
    except AttributeError:                   # pragma: no cover - a pyarrow without the sizes
        return False


def _arrow_numbers(array: Any) -> Optional[np.ndarray]:
    """A copy of the numbers of an arrow array of numbers without a missing value, else None."""
    if array.null_count:
        return None
    return np.array(array.to_numpy(), copy=True)


def array_of(col: Any) -> Any:
    """The array of a column: a Series' ``array``, or the array itself (:func:`frame_columns`)."""
    return getattr(col, "array", col)


def frame_columns(frame: Any, names: List[str]) -> Optional[List[Any]]:
    """The arrays pandas holds the columns ``names`` of ``frame`` in (an extension array, or a numpy array:
    a view of its block), without making a Series of each: ``frame[name]`` costs some 15 us a column, 50 us
    right after other work has taken the processor's caches, as much as looking up a kept conversion. None
    when a name is not found at one place (a level of columns over one column; two columns of one name are an
    error before, :func:`.convert._column_name`) or this pandas has no such access (then ``frame[name]`` is read)."""
    get = getattr(frame, "_get_column_array", None)
    if get is None:                           # pragma: no cover - every pandas this package supports has it
        return None
    at = [frame.columns.get_loc(name) for name in names]
    return [get(i) for i in at] if all(type(i) is int for i in at) else None


def key(cols: List[Any], names: List[str], kind: str, source: str, queries: Optional[Any],
        frame: Any = None) -> Optional[Key]:
    """The key of the conversion as a ``kind`` of a DataFrame's three columns ``cols`` (its query and document
    ids and its values, as read by ``frame[name]`` for ``names``, or their arrays, :func:`frame_columns`), or
    None when the frame is not kept: no row or more than :data:`MAX_ROWS`, an id column not held by pyarrow as
    text, a value column neither numeric numpy nor arrow numbers without a
    missing value, arrow columns that are a few rows of larger buffers. ``frame``: the frame they are of."""
    if not 0 < len(cols[0]) <= MAX_ROWS:
        return None
    arrays = tuple(_arrow_column(c) for c in cols[:2])
    if any(a is None for a in arrays):
        return None
    values: Any = _arrow_column(cols[2], numbers=True)
    bits = None
    if values is None:
        if not (isinstance(cols[2].dtype, np.dtype) and cols[2].dtype.kind in "biuf"):
            return None
        values = np.array(cols[2], copy=True)
    elif _is_number(values.type):
        bits = _arrow_numbers(values)
        if bits is None:
            return None
    k = Key(kind, source, None if queries is None else frozenset(queries), tuple(names), arrays, values,
            tuple(cols), bits)
    k.frame = frame
    return k if _compact(k.held) else None


def cached(k: Key) -> Any:
    """The conversion kept under a key :meth:`Key.same` as ``k``, or None. The entry found becomes the
    most recent (the qrels of a loop over more runs than :data:`SLOTS` stay kept)."""
    with _lock:
        entries = list(_kept)
    for entry in entries:
        if entry[0].same(k):
            with _lock:
                at = next((i for i, e in enumerate(_kept) if e is entry), None)
                if at is not None:
                    _kept.insert(0, _kept.pop(at))
            return entry[1]
    return None


def keep(k: Key, converted: Any) -> None:
    """Keep ``converted`` under ``k`` (the oldest dropped beyond :data:`SLOTS` entries or :data:`TOTAL_ROWS`
    rows). Its arrays are made read-only (a Qrels' are already): every later call given the frame gets this
    object, which no holder may change in place."""
    for name in ("qcodes", "offsets", "dbytes", "docs", "scores"):
        array = getattr(converted, name, None)
        if isinstance(array, np.ndarray):
            array.flags.writeable = False
    with _lock:
        _kept[:] = [entry for entry in _kept if not entry[0].same(k)]     # (converted by another call at once)
        _kept.insert(0, (k, converted))
        del _kept[SLOTS:]
        while len(_kept) > 1 and sum(kept.rows for kept, _ in _kept) > TOTAL_ROWS:
            _kept.pop()


def clear() -> None:
    """Drop every conversion kept (and the arrays and copies they are checked against)."""
    with _lock:
        _kept.clear()
