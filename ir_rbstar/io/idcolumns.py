"""Id columns made in C passes: pyarrow string arrays as interned query ids or as a bytes (``S``) array
read from arrow's buffers, and document ids from an iterable or an object array as bytes, and where such
a column came from a missing id (:func:`first_missing_id`). Shared by the DataFrame and dict conversions
(:mod:`.convert`) and the namedtuple one (:mod:`.records`)."""
from __future__ import annotations

from itertools import islice
from typing import Any, Callable, Optional, Tuple

import numpy as np

from ..errors import InputFormatError
from . import dictscan
from .ids import QUERY_IDS, CodedIds, check_width_budget, width_budget


def _arrow_query_codes(arr: Any) -> CodedIds:
    """A pyarrow string array without nulls as interned query ids: per block of equal ids
    (:func:`_query_blocks`), else each distinct id once through arrow's dictionary encoding."""
    blocks = _query_blocks(arr)
    if blocks is not None:
        return blocks
    enc = arr.dictionary_encode()
    return CodedIds(QUERY_IDS.encode(enc.dictionary.to_pylist())[enc.indices.to_numpy(zero_copy_only=False)])


def _query_blocks(arr: Any, limit: Optional[int] = None) -> Optional[CodedIds]:
    """Query ids interned per block of equal ids (the rows of a query usually come together): each id
    compared with the one before (:func:`_new_ids`), one id interned per block. None when the ids come
    in many short blocks (then arrow's dictionary encoding, which interns each distinct id once, is
    cheaper than a Python step per block): more than ``limit`` blocks, by default max(64, rows / 16). The blocks
    are found in C where the extension is built (:func:`.dictscan.id_blocks`: one pass over arrow's buffers, each
    block's id decoded there), else by :func:`_new_ids`."""
    got = id_blocks(arr, limit)
    return None if got is None else codes_of_blocks(*got, len(arr))


def codes_of_blocks(starts: np.ndarray, heads: list, n: int) -> CodedIds:
    """The interned query ids of ``n`` rows in blocks of equal ids (each block's first row and its id, as
    :func:`id_blocks` gives them): each block's id interned once."""
    return CodedIds(rows_of_blocks(QUERY_IDS.encode(heads), starts, n))


def rows_of_blocks(per_block: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """One value per block (``per_block``: e.g. whether its query is kept) given to each of its rows: ``n`` rows
    in blocks beginning at ``starts``."""
    return np.repeat(per_block, np.diff(np.append(starts, n)))


def id_blocks(arr: Any, limit: Optional[int] = None) -> Optional[Tuple[np.ndarray, list]]:
    """The blocks of equal ids of a pyarrow string array without nulls: (the row each starts at, each one's id as
    a ``str``), or None when there are more than ``limit`` of them (by default max(64, rows / 16)). Found in C
    where the extension is built (:func:`.dictscan.id_blocks`: one pass over arrow's buffers), else by
    :func:`_new_ids`."""
    limit = max(64, len(arr) // 16) if limit is None else limit
    held = _string_buffers(arr)
    got = None if held is None else dictscan.id_blocks(held[0], held[1], limit)
    if got is not None:
        return got if got else None
    starts = np.flatnonzero(_new_ids(arr))
    if len(starts) > limit:
        return None
    return starts, arr.take(starts).to_pylist()


def _new_ids(arr: Any) -> np.ndarray:
    """Whether each id of a pyarrow string array without nulls differs from the one before (the first
    does): arrow's ``not_equal`` of the array and itself shifted by one, its bitmap unpacked by numpy (no
    conversion through a boolean array). (Comparing rows of the data buffer with numpy, for ids all of
    one length, was measured 3-15 times slower on 4,000 to 250,000 query ids of 3 to 7 characters.)"""
    import pyarrow.compute as pc
    n = len(arr)
    new = np.ones(n, dtype=bool)
    if n < 2:
        return new
    diff = pc.not_equal(arr[1:], arr[:-1])
    bits = np.frombuffer(diff.buffers()[1], dtype=np.uint8)
    new[1:] = np.unpackbits(bits, count=diff.offset + n - 1, bitorder="little")[diff.offset:].view(bool)
    return new


def _string_buffers(arr: Any) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(offsets, data) of a pyarrow (large) string array, as numpy views of its buffers: ``len(arr) + 1``
    offsets (the array's own, past its slice offset) and the bytes they point into (from the first id's
    first byte); None for another array type."""
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
    return offsets, data


#: the size (rows x longest id) from which :func:`_ascii_bytes` lets arrow pad ids of several lengths (its
#: ``ascii_rpad``, the ids being ASCII: a third of ``utf8_rpad``'s time): against the boolean scatter, 3.2-3.3
#: against 6.6-7.0 ms on Robust04's 250,000 ids of 7 to 16 bytes, 0.21 against 0.29 ms on 20,000 of 1 to 7,
#: 0.07 against 0.08 ms on 4,000 (measured); below it, arrow's call costs more than the scatter
_PAD_BY_ARROW = 1 << 14


def _ascii_bytes(arr: Any, copy: bool = True, where: Optional[Callable[[int], str]] = None) -> Optional[np.ndarray]:
    """A pyarrow (large) string array without nulls as a bytes (``S``) array, read from its offsets and
    data buffers (no Python object per row): ids of one length are the data buffer itself; ids of several
    lengths are scattered into a rows x longest-id table of NULs by one boolean mask, or, from
    :data:`_PAD_BY_ARROW` cells on, padded with NULs by arrow's ``ascii_rpad``. None when some id holds a NUL
    byte (a bytes array would drop trailing ones) or a byte >= 128 (non-ASCII: the general path encodes and
    checks it), or for another array type. ``copy=False``: when every id has the same length, the array is
    a (writable) view of the arrow data buffer, for an arrow array the caller made and nothing else holds.
    An id too long for the budget of :func:`.ids.check_width_budget` is an error naming it by ``where(row)``.
    Where the C extension is built, the column is made there in one pass (:func:`.dictscan.ascii_ids`), which
    declines what the steps above then answer (the refusals, and the error naming an id)."""
    held = _string_buffers(arr)
    if held is None:
        return None
    offsets, data = held
    n = len(arr)
    view = not copy and data.flags.writeable
    got = dictscan.ascii_ids(offsets, data, width_budget(len(data)), view)    # in C where built: one pass
    if got is not None:
        ids, width = got
        return data.view(f"S{width}") if ids is None else ids
    if len(data) and (int(data.max()) >= 128 or not data.all()):
        return None                                  # non-ASCII ids, or NUL bytes
    if len(data) < 2 ** 31:                          # every length fits 4 bytes: half the column
        lengths = np.subtract(offsets[1:], offsets[:-1], out=np.empty(n, dtype=np.int32), casting="unsafe")
    else:
        lengths = np.diff(offsets).astype(np.int64, copy=False)
    check_width_budget(lengths, where)               # before padding to rows x the longest id
    width = max(int(lengths.max()), 1)
    if len(data) == n * width:                       # every id of the same length: the buffer is the array
        return (data.copy() if copy or not data.flags.writeable else data).view(f"S{width}")
    if n * width >= _PAD_BY_ARROW:
        # arrow pads each id with NUL bytes to the longest (ASCII, checked above: a character a byte, which
        # ascii_rpad counts without decoding); the padded array's data buffer is the bytes array (a new
        # buffer of arrow's, mutable: a writable view)
        import pyarrow.compute as pc
        padded = _string_buffers(pc.ascii_rpad(arr, width=width, padding="\x00"))
        if padded is not None and len(padded[1]) == n * width:
            data = padded[1]
            return (data if data.flags.writeable else data.copy()).view(f"S{width}")
    # which cells of the table hold a byte: row L of `patterns` for an id of length L (np.take of whole
    # rows is several times faster than broadcasting a comparison over the table)
    patterns = np.arange(width) < np.arange(width + 1)[:, None]
    table = np.zeros((n, width), dtype=np.uint8)
    table[np.take(patterns, lengths, axis=0)] = data
    return table.view(f"S{width}").reshape(n)


def _id_column(make_items, n: int, where: Optional[Callable[[int], str]] = None) -> np.ndarray:
    """Document ids as bytes (``S``) in one C pass when every id is ASCII text or bytes (the usual case:
    no object array, no second conversion), else as objects for :func:`doc_bytes` (which encodes UTF-8
    and names an id that cannot be). ``make_items()`` gives a new iterator over the ids, or is an object
    array of them (converted by numpy's cast, which is the same encoding).

    The width is guessed from the first ids, with a byte to spare; when some id fills it (it may have
    been cut) the exact width is measured and the pass redone. Otherwise the longest id is one byte
    shorter than the guess (the first ids are among all ids), unless ids end in NUL bytes (a bytes
    array drops them): then the width is trimmed to the longest id as stored.

    Before a column wider than the guess, or one the guess makes larger than the budget of
    :func:`.ids.check_width_budget` with the ids' total estimated from the first ones, is allocated, every id's
    length is measured and the column held to that budget (an id too long is an ``InputFormatError`` naming it
    by ``where(row)``): a single id of millions of characters among thousands of rows must not become a column
    of gigabytes."""
    objects = make_items if isinstance(make_items, np.ndarray) else None
    try:
        first = list(map(len, islice(objects if objects is not None else make_items(), 1000)))
        width = max(first, default=0) + 1                             # one byte to spare
        # (the budget with the ids' total estimated from the first ones: measured exactly only past it)
        if n * width > width_budget(sum(first) * n // max(len(first), 1)):
            width = _budgeted_width(make_items, objects, n, where) + 1
        if objects is not None:
            ids = objects.astype(f"S{width}")                         # numpy encodes str as ASCII
        else:
            ids = np.fromiter(make_items(), dtype=f"S{width}", count=n)
        if n == 0:
            return ids
        cols = ids.view(np.uint8).reshape(n, width)
        # (np.count_nonzero: half the time of .any() on these strided columns, 4 against 8 us on 4,000 ids)
        if np.count_nonzero(cols[:, -1]):                             # some id fills the width
            width = max(_budgeted_width(make_items, objects, n, where), 1)
            if objects is not None:
                return objects.astype(f"S{width}")
            return np.fromiter(make_items(), dtype=f"S{width}", count=n)
        if width == 1:
            return ids
        if width > 2 and not np.count_nonzero(cols[:, width - 2]):    # ids that ended in NUL bytes
            return _narrowed(ids)
        return ids.astype(f"S{width - 1}")
    except InputFormatError:                # an id too long for the budget (_budgeted_width): named there
        raise
    except (TypeError, ValueError, UnicodeError):
        if objects is not None:
            return objects
        return np.fromiter(make_items(), dtype=object, count=n)


def _budgeted_width(make_items, objects: Optional[np.ndarray], n: int,
                    where: Optional[Callable[[int], str]]) -> int:
    """The longest of the ids (:func:`_id_column`'s argument), once a column of them is known to fit the budget
    (:func:`.ids.check_width_budget`, which names the longest by ``where``)."""
    lens = np.fromiter(map(len, objects.tolist() if objects is not None else make_items()), dtype=np.int64, count=n)
    check_width_budget(lens, where)
    return int(lens.max(initial=0))


def _narrowed(ids: np.ndarray) -> np.ndarray:
    """A bytes (``S``) array as wide as its longest id as stored (at least 1 byte): ``ids`` itself when it
    is already."""
    if len(ids) == 0:
        return ids
    used = np.flatnonzero(ids.view(np.uint8).reshape(len(ids), -1).any(axis=0))
    width = int(used[-1]) + 1 if len(used) else 1
    return ids.astype(f"S{width}") if width < ids.dtype.itemsize else ids


#: how numpy writes a missing id (``pandas.isna``) into a bytes (``S``) column, by its ``str``: the first three
#: bytes of every such text. "None", "NaT", "<NA>"; a float NaN of any type "nan"; a complex one "nanj" or
#: "(...nan...)" (any first three bytes after the parenthesis); a Decimal NaN "NaN", "-NaN", with digits after it
_MISSING_HEADS = (b"Non", b"NaT", b"<NA", b"nan", b"NaN", b"-Na")


def first_missing(values: np.ndarray) -> Optional[int]:
    """The first row of an object array whose value is missing as pandas decides (``pandas.isna``: None, a
    float NaN of any type, pandas' NA, NaT): the DataFrame door's test (``Series.isna``); None when none is."""
    import pandas as pd
    hits = np.flatnonzero(pd.isna(values))
    return int(hits[0]) if len(hits) else None


def first_missing_id(ids: np.ndarray, make_items) -> Optional[int]:
    """The first row whose document id was missing (:func:`first_missing`), of a column :func:`_id_column`
    made from ``make_items`` (the same argument). An object column is searched whole (the general path); a
    bytes column, where numpy wrote a missing value as its text ("None", "nan", ...), only at the rows that
    spell one (:func:`_spelled_missing`: one search of the ids' first bytes when none begins as one does),
    whose values are then looked up (an id that is the text "None" is an id)."""
    if ids.dtype.kind != "S":
        return first_missing(ids)
    rows = _spelled_missing(ids)
    if not len(rows):
        return None
    objects = make_items if isinstance(make_items, np.ndarray) else \
        np.fromiter(make_items(), dtype=object, count=len(ids))
    hit = first_missing(objects[rows])
    return None if hit is None else int(rows[hit])


def _spelled_missing(ids: np.ndarray) -> np.ndarray:
    """The rows of a bytes (``S``) column whose id may be the text of a missing value (a superset: the
    values are then looked up): the ids that begin as one of :data:`_MISSING_HEADS` or with "(" (a complex
    number). None when no id begins with "N", "n", "<", "-" or "(" (the ids' first bytes searched as one
    bytes object, by ``memchr``: a few microseconds for 4,000 ids), else the first three bytes of the ids
    that do, compared."""
    n, width = len(ids), ids.dtype.itemsize
    if n == 0 or width < 3:
        return np.empty(0, dtype=np.intp)            # no room for one
    if not ids.flags.c_contiguous:
        ids = np.ascontiguousarray(ids)
    table = ids.view(np.uint8).reshape(n, width)
    heads = table[:, 0].tobytes()
    if not any(c in heads for c in (b"N", b"n", b"<", b"-", b"(")):
        return np.empty(0, dtype=np.intp)
    first = np.frombuffer(heads, dtype=np.uint8)
    rows = np.flatnonzero(((first | 32) == ord("n")) | (first == ord("<")) | (first == ord("-"))
                          | (first == ord("(")))
    if not len(rows):
        return rows
    three = np.ascontiguousarray(table[rows, :3]).view("S3").reshape(len(rows))
    return rows[np.isin(three, np.array(_MISSING_HEADS)) | (table[rows, 0] == ord("("))]
