"""Regular TREC files through the compiled module's scan (where the C extension is built; files under 64 MB)
or pyarrow's CSV reader (multithreaded C++, correctly rounded floats), and id columns handed to pandas as
arrow strings without a Python object per row. (The compiled scan also takes runs of spaces and tabs between
tokens and blanks ending a line, where its tokens are the scanners' too: see csrc/_ir_rbstar_dicts.c; the
conditions below are pyarrow's reader's.)

The reader takes a file only when its tokens are exactly what the package's scanners would find: every
byte <= 32 is the one separator (a space, or a tab) or a newline, every row has the columns' number of
fields and none of them is empty (so separators come one at a time between two tokens, none at a line's
start or end), and no byte-order mark is left; lines may end in LF or CR LF. Anything else (several spaces,
mixed tabs and spaces, a CR elsewhere, indented lines, a wrong column count, a score that is not a finite
number, an id over the long-id budget, an error from arrow) returns None: the scanners of
:mod:`ir_rbstar.io.trec` then read the file and name what they refuse, with the same messages as always.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, Optional, Tuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import dictscan
from .ids import QUERY_IDS, CodedIds

#: tests switch this off to run the scanners on files the reader would take
ENABLED = True


#: bytes per block of the layout's count
_BLOCK = 1 << 22

#: files of at least this many bytes are parsed on several threads
_THREADS = 64 << 20


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:                    # pyarrow is optional: the scanners read every file
        return None
    return pa, pacsv


def _layout(data: bytes) -> Optional[Tuple[bytes, int, int]]:
    """(the separator, the number of bytes <= 32 that are not a newline, the number of tokens), or None when
    ``data`` starts with a (second) byte-order mark. The separator is a tab if the first line holds one, else
    a space; tokens are counted as the scanners find them: a byte above 32 at the start or after one <= 32.
    When every CR is followed by a newline (or ends the file), the CRs count with the newlines: CR LF line ends,
    which arrow's reader takes as line ends too."""
    if not data or data.startswith(b"\xef\xbb\xbf"):     # a second mark: the scanners keep it in the first id
        return None
    end = data.find(b"\n")
    sep = b"\t" if b"\t" in data[:end if end >= 0 else len(data)] else b" "
    buf = np.frombuffer(data, dtype=np.uint8)
    # a block at a time: small temporaries, reused (on a file of hundreds of MB, whole-file masks cost
    # their page faults)
    step = min(len(buf), _BLOCK)
    blank, starts = np.empty(step, dtype=bool), np.empty(step, dtype=bool)
    blanks, tokens, after_blank = 0, 0, True
    for at in range(0, len(buf), step):
        chunk = buf[at:at + step]
        m = len(chunk)
        np.less_equal(chunk, 32, out=blank[:m])
        blanks += int(np.count_nonzero(blank[:m]))
        np.greater(blank[:m - 1], blank[1:m], out=starts[:m - 1])
        tokens += int(np.count_nonzero(starts[:m - 1])) + int(after_blank and not blank[0])
        after_blank = bool(blank[m - 1])
    others = blanks - data.count(b"\n")
    crs = data.count(b"\r")
    if crs and crs == data.count(b"\r\n") + data.endswith(b"\r"):
        others -= crs                      # CR LF line ends (and a CR ending the file): newlines to arrow too
    return sep, others, tokens


def arrow_columns(data: bytes, ncols: int, fields: Tuple[int, ...], numeric: Optional[int],
                  budget: int, query: Optional[int] = None) -> Optional[Dict[Any, Any]]:
    """The ``fields`` columns of ``data`` (a whole TREC file, its mark removed) as the scanners give them:
    bytes (``S``) arrays as wide as their longest token, the ``numeric`` field as float64, the ``query``
    field as :class:`~ir_rbstar.io.ids.CodedIds` (interned a run of equal ids at a time); None when the
    file is not one this reader takes (see the module's docstring), an id column would take more than
    ``budget`` bytes (rows x its longest id: the scanners then name the line), or pyarrow is absent."""
    if not ENABLED:
        return None
    if query == fields[0] == 0 and len(data) < _THREADS:
        # the compiled module's scan, where it is built: a 4,300-row run in a fifth of pyarrow's time, whose
        # reader has fixed costs each call (0.9 ms for its CSV reader, 1 ms more for the columns here)
        cols = dictscan.scan_columns(data, ncols, fields, numeric, budget)
        if cols is not None:
            return cols
    mods = _pyarrow()
    if mods is None:
        return None
    pa, pacsv = mods
    layout = _layout(data)
    if layout is None:
        return None
    sep, seps, tokens = layout
    names = [f"c{i}" for i in range(ncols)]
    types = {names[f]: (pa.float64() if f == numeric else pa.binary()) for f in fields}
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            # threads cost some CPU time (3-10% on a 40 MB run): only for files that take a while
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22, use_threads=len(data) >= _THREADS),
            parse_options=pacsv.ParseOptions(delimiter=sep.decode(), quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(include_columns=[names[f] for f in fields], column_types=types,
                                                 null_values=[], true_values=[], false_values=[],
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowException, ValueError, OverflowError):
        return None                        # a wrong column count, a score arrow does not read, ...
    # each row has ncols fields (arrow checks); they are the scanners' tokens when every byte <= 32 but the
    # newlines is one of the rows' separators and no field is empty
    rows = table.num_rows
    if rows == 0 or seps != (ncols - 1) * rows or tokens != ncols * rows:
        return None
    out: Dict[Any, Any] = {}
    try:
        for f in fields:
            col = table.column(names[f])
            if f == query:
                coded = _coded_ids(col.combine_chunks(), pa, budget)
                if coded is None:
                    return None
                out[f] = coded
                continue
            if f == numeric:
                values = col.to_numpy()
                if not np.isfinite(values).all():      # nan, inf: the scanners name the line
                    return None
                out[f] = np.ascontiguousarray(values, dtype=np.float64)
                continue
            fixed = _fixed_width(col.combine_chunks(), budget)
            if fixed is None:
                return None
            out[f] = fixed
    except (pa.ArrowException, ValueError, OverflowError):     # e.g. over 2 GiB of ids in one column
        return None
    return out


def _coded_ids(arr, pa, budget: int) -> Optional[CodedIds]:
    """Query ids (a pyarrow binary array) as :data:`~ir_rbstar.io.ids.QUERY_IDS` codes, without a fixed-width
    column: the first id of each run of equal ids is decoded and interned (as ``tables._query_codes`` does),
    the others repeat its code. None when an id is not UTF-8 or a fixed-width column of them would take more
    than ``budget`` bytes (the scanners then name the line)."""
    import pyarrow.compute as pc
    n = len(arr)
    lens = np.diff(np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset:arr.offset + n + 1])
    if n == 0 or n * int(lens.max()) > budget or int(lens.min()) == 0:
        return None
    change = pc.not_equal(arr.slice(1), arr.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.r_[0, np.flatnonzero(change) + 1]
    try:
        heads = [h.decode("utf-8") for h in arr.take(pa.array(starts)).to_pylist()]
    except UnicodeDecodeError:
        return None
    return CodedIds(np.repeat(QUERY_IDS.encode(heads), np.diff(np.r_[starts, n])))


#: the low k bytes of a little-endian 64-bit word, k = 0..8
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


def _fixed_width(arr, budget: int) -> Optional[np.ndarray]:
    """A pyarrow binary array as a NUL-padded ``S`` array as wide as its longest value (at least 1); None
    when that takes more than ``budget`` bytes."""
    n = len(arr)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int32)[arr.offset:arr.offset + n + 1].astype(np.int64)
    values = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, dtype=np.uint8)
    lens = np.diff(offsets)
    width = max(int(lens.max()), 1)
    if n * width > budget or int(lens.min()) == 0:
        return None
    first, last = int(offsets[0]), int(offsets[-1])
    if int(lens.min()) == width:           # all ids as long: the bytes are the matrix already
        return values[first:last].copy().view(f"S{width}")
    words = -(-width // 8)
    padded = np.concatenate([values[first:last], np.zeros(8 * words, dtype=np.uint8)])
    starts = offsets[:-1] - first
    if sys.byteorder != "little":          # a window of ``width`` bytes from each id's start, its tail zeroed
        mat = sliding_window_view(padded, width)[starts]
        mat *= np.arange(width) < lens[:, None]
        return np.ascontiguousarray(mat).view(f"S{width}").ravel()
    # the ids' bytes as 8-byte words read from any byte (an unaligned view), the bytes past each id's end
    # masked off: one gather per word of the widest id
    anywhere = np.ndarray(buffer=padded.data, dtype=np.uint64, shape=(len(padded) - 7,), strides=(1,))
    out = np.empty((n, words), dtype=np.uint64)
    for j in range(words):
        word = anywhere[starts + 8 * j] if j else anywhere[starts]
        word &= _LOW_BYTES[np.clip(lens - 8 * j, 0, 8)]
        out[:, j] = word
    return np.ascontiguousarray(out.view(np.uint8)[:, :width]).view(f"S{width}").ravel()


def str_array(ids: np.ndarray):
    """A bytes (``S``, UTF-8, no NUL byte inside an id) array as pandas' arrow-backed ``str`` array, built
    from the bytes without a Python string per row; None when pandas' strings are not arrow-backed
    (pandas 2 without ``future.infer_string``) or pyarrow is absent."""
    mods = _pyarrow()
    if mods is None:
        return None
    pa = mods[0]
    import pandas as pd
    want = _inferred_strings()
    if not isinstance(want, pd.StringDtype) or want.storage != "pyarrow":
        return None
    n, width = len(ids), ids.dtype.itemsize
    if n == 0 or width == 0:
        return None
    mat = np.ascontiguousarray(ids).view(np.uint8).reshape(n, width)
    if bool(mat[:, -1].all()):
        data, lens = mat.reshape(-1), None
    else:
        held = mat != 0
        data = mat[held]
        lens = np.char.str_len(ids)        # NUL-padded: an id's length is where its padding starts
        if len(data) != int(lens.sum()):    # a NUL byte inside an id (not from a TREC file): pandas converts
            return None
    if len(data) >= 2 ** 31:
        return None
    # 64-bit offsets: pandas' arrow strings are large_string (from 32-bit ones pandas converts every id again)
    offsets = np.empty(n + 1, dtype=np.int64)
    if lens is None:
        offsets[:] = np.arange(0, (n + 1) * width, width, dtype=np.int64)
    else:
        offsets[0] = 0
        np.cumsum(lens, out=offsets[1:])
    strings = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data)))
    return pandas_strings(strings, want)


def pandas_strings(strings, want=None):
    """A pyarrow string array as pandas' ``str`` array (of dtype ``want``, :func:`_inferred_strings` when not
    given), or None when pandas converts it to another dtype."""
    import pandas as pd
    want = _inferred_strings() if want is None else want
    out = pd.array(strings, dtype=want)
    return out if out.dtype == want else None


_STRINGS: Dict[Any, Any] = {}


def _inferred_strings():
    """The dtype pandas gives a column of Python strings (``str`` backed by arrow on pandas 3, ``object`` on
    pandas 2 unless ``future.infer_string``), found once for each value of that option (a Series made
    each time was a seventh of reading a run of 4,300 rows into a DataFrame)."""
    import pandas as pd
    key: Tuple[Any, ...] = (pd.__version__,)
    if pd.__version__.startswith(("0.", "1.", "2.")):  # (pandas 3 always infers str; its option is deprecated)
        try:
            key = (pd.__version__, pd.get_option("future.infer_string"))
        except (KeyError, pd.errors.OptionError):    # (no such option)
            pass
    if key not in _STRINGS:
        _STRINGS[key] = pd.Series(["a"]).dtype
    return _STRINGS[key]
