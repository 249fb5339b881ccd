"""TREC run and qrels files: a vectorised scanner over the raw bytes (the compiled engine's on large
files), a line-by-line reading that names the offending line when the scanner refuses a file."""
from __future__ import annotations

import gzip
import os
import zlib
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Tuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..engine import compiled
from ..errors import DuplicateDocumentError, EmptyInputError, InputFormatError
from .arrowscan import arrow_columns, pandas_strings, str_array
from .columns import (_POW10, _as_float, _check_scores, qrels_from_columns, ranking_from_columns, text_floats,
                      underscored)
from .ids import QUERY_IDS, _to_str, doc_bytes, width_budget
from .tables import Qrels, Ranking

if TYPE_CHECKING:                   # (pandas is imported where a DataFrame is made)
    import pandas as pd

_CHUNK = 1 << 24


_BOM = b"\xef\xbb\xbf"


# every control byte is a column separator, as for the vectorised scanner (bytes <= 32)
_CONTROL_TO_SPACE = bytes(32 if (b < 32 and b != 10) else b for b in range(256))


def _read_bytes(path: str, what: str) -> bytes:
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what} file not found: {path}")
    if os.path.isdir(path):
        raise InputFormatError(f"{path}: is a directory, expected a {what} file")
    try:
        if path.endswith(".gz"):
            with open(path, "rb") as f:
                raw = f.read()
            try:
                data = gzip.decompress(raw)          # one call: less CPU time than a GzipFile's reads
            except (OSError, EOFError, zlib.error):
                with gzip.open(path, "rb") as f:     # the error (and its words) of the reading kept so far
                    data = f.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except (OSError, EOFError) as e:
        raise InputFormatError(f"{path}: cannot read the {what} file ({e})") from None
    if data.startswith(_BOM):
        data = data[len(_BOM):]            # a UTF-8 byte-order mark is not part of the first query id
    if not data or (len(data) < 1 << 16 and not data.strip()):
        raise EmptyInputError(f"{path}: the {what} file is empty")
    return data


def check_token_width(source: str, nbytes: int, rows: int, width: int, line_of) -> None:
    """Refuse a token ``width`` bytes long when ``rows`` x ``width`` exceeds the memory an input of ``nbytes``
    bytes allows (:func:`.ids.width_budget`: ids are held in fixed-width columns, rows x the longest id;
    docs/guide.md, "Bad input"); ``line_of()`` gives the token's line, for the message."""
    budget = width_budget(nbytes)
    if rows * width <= budget:
        return
    raise InputFormatError(
        f"{source}: line {line_of()}: a column of {width:,} bytes (an id this long?); with {rows:,} rows the "
        f"longest id may have {budget // max(rows, 1):,} bytes: ids are held in fixed-width columns (rows x the "
        f"longest id), limited to max(64 MiB, 8 x the input's size)")


def _line_at(data, start: int, first_line: Any):
    """A callable giving the line number of byte ``start`` of ``data`` (bytes or a uint8 array)."""
    def line_of() -> int:
        head = data[:max(int(start), 0)]
        first = first_line() if callable(first_line) else first_line
        return first + (head.count(b"\n") if isinstance(head, bytes) else int(np.count_nonzero(head == 10)))
    return line_of


def _scan_chunk(buf: np.ndarray, ncols: int, fields: Tuple[int, ...], source: str = "<input>",
                first_line: Any = 1, nbytes: int = 0) -> Optional[Dict[int, np.ndarray]]:
    """Tokenise one chunk of whole lines; None if some line does not have exactly ``ncols`` columns."""
    ws = buf <= 32                     # space, tab, CR, LF (and other control bytes) separate columns
    nonws = ~ws
    st = np.flatnonzero(nonws[1:] & ws[:-1]) + 1
    if len(buf) and nonws[0]:
        st = np.r_[0, st]
    if len(st) == 0:
        return {f: np.empty(0, dtype="S1") for f in fields}
    if len(st) % ncols:
        return None
    line_start = buf[st - 1] == 10
    if st[0] == 0:
        line_start[0] = True
    if not line_start[::ncols].all() or int(np.count_nonzero(line_start)) * ncols != len(st):
        return None
    out = {}
    for f in fields:
        s = st[f::ncols]
        w = 16
        while True:
            if w > 16 and len(s) * w > 2 * len(buf):    # long tokens: their exact widths, before a big window
                ends = np.flatnonzero(ws[1:] & nonws[:-1]) + 1       # token ends, in the order of the starts
                if nonws[-1]:
                    ends = np.r_[ends, len(buf)]
                widths = ends[f::ncols] - s
                longest = int(np.argmax(widths))
                check_token_width(source, nbytes or len(buf), len(s), int(widths[longest]),
                                  _line_at(buf, s[longest], first_line))
                w = int(widths[longest]) + 1
            # a window of w bytes from each token start; the token ends at its first whitespace
            padded = np.concatenate([buf, np.full(w, 32, dtype=np.uint8)])
            mat = sliding_window_view(padded, w)[s]
            stop = mat <= 32
            if stop.any(axis=1).all():
                break
            w *= 4
        width = stop.argmax(axis=1)
        w = max(int(width.max()), 1)
        mat = mat[:, :w]
        mat[np.arange(w)[None, :] >= width[:, None]] = 0
        out[f] = np.ascontiguousarray(mat).view(f"S{w}").ravel()
    return out


def _scan_columns(data: bytes, ncols: int, fields: Tuple[int, ...], source: str = "<input>",
                  first_line: int = 1) -> Optional[Dict[int, np.ndarray]]:
    """Tokenise whitespace-separated columns with numpy, in chunks of whole lines on two threads;
    None if the layout is irregular (the caller then takes the line-aware path)."""
    n = len(data)
    bounds, pos = [], 0
    while pos < n:
        end = data.find(b"\n", min(pos + _CHUNK, n - 1))
        end = n if end < 0 else end + 1
        bounds.append((pos, end))
        pos = end
    whole = np.frombuffer(data, dtype=np.uint8)
    if n and whole[-1] != 10:
        whole = np.r_[whole, np.uint8(10)]
        bounds[-1] = (bounds[-1][0], n + 1)
    jobs = [whole[a:b] for a, b in bounds]
    # each chunk's first line, counted only when a message needs it
    lines = [lambda a=a: first_line + data.count(b"\n", 0, a) for a, _ in bounds]
    if len(jobs) > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
            parts = list(pool.map(lambda b, line: _scan_chunk(b, ncols, fields, source, line, n), jobs, lines))
    else:
        parts = [_scan_chunk(b, ncols, fields, source, line, n) for b, line in zip(jobs, lines, strict=True)]
    done = [p for p in parts if p is not None]
    if len(done) < len(parts):
        return None
    out = {f: np.concatenate([p[f] for p in done]) for f in fields}
    if len(out[fields[0]]) == 0:
        return None
    return out


def _line_mapper(path: str):
    """Maps a data-row index to its 1-based line number in the file (blank lines are skipped)."""
    cache = {}

    def line_of(row: int) -> int:
        if "lines" not in cache:
            nums = []
            opener = gzip.open if str(path).endswith(".gz") else open
            with opener(path, "rt", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    if line.strip():
                        nums.append(lineno)
            cache["lines"] = nums
        return cache["lines"][row]
    return line_of


def shape_error(source: str, line: int, ncols: int, found: int, what: str, layout: str) -> InputFormatError:
    """The error for a line with the wrong number of columns, with a hint when the files look swapped."""
    hint = ""
    if what == "run" and found == 4:
        hint = ("; this looks like a qrels file (query_id iteration doc_id relevance): are the qrels and the "
                "run given the other way round?")
    elif what == "qrels" and found == 6:
        hint = ("; this looks like a run file (query_id Q0 doc_id rank score tag): are the qrels and the run "
                "given the other way round?")
    return InputFormatError(f"{source}: line {line}: expected {ncols} whitespace-separated columns ({layout}), "
                            f"found {found}{hint}")


def _line_columns(data: bytes, source: str, ncols: int, fields: Tuple[int, ...], what: str,
                  layout: str, first_line: int = 1) -> Dict[int, np.ndarray]:
    """Line-aware reading (for what the vectorised scanners do not take: indented lines, or an irregular
    file, whose first offending line it names with the number of columns found). ``first_line``: the
    line number of ``data``'s first line in its file (a chunk of a file read by :func:`iter_trec_chunks`)."""
    cols: Dict[int, list] = {f: [] for f in fields}
    for lineno, line in enumerate(data.translate(_CONTROL_TO_SPACE).split(b"\n"), first_line):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != ncols:
            raise shape_error(source, lineno, ncols, len(tokens), what, layout)
        for f in fields:
            cols[f].append(tokens[f])
    if not cols[fields[0]]:
        raise EmptyInputError(f"{source}: the {what} file is empty")
    for v in cols.values():
        lens = np.fromiter(map(len, v), dtype=np.int64, count=len(v))
        i = int(np.argmax(lens))
        check_token_width(source, len(data), len(v), int(lens[i]), lambda i=i: _row_line(data, i, first_line))
    return {f: np.array(v, dtype="S") for f, v in cols.items()}


def _row_line(data: bytes, row: int, first_line: int) -> int:
    """The line number of the ``row``-th non-blank line of ``data`` (for a message)."""
    seen = -1
    for lineno, line in enumerate(data.translate(_CONTROL_TO_SPACE).split(b"\n"), first_line):
        if line.strip():
            seen += 1
            if seen == row:
                return lineno
    return first_line


def _compiled_columns(kernels, data: bytes, ncols: int, fields: Tuple[int, ...], numeric: Optional[int],
                      source: str = "<input>", first_line: int = 1) -> Optional[Dict[Any, np.ndarray]]:
    """The columns by the compiled scanner: bytes (``S``) arrays, and for the ``numeric`` field its values
    as floats when they all convert (else its tokens, for :func:`_as_float` to name the bad one); under
    ``"hash"`` the :func:`hash_ids` of the document ids (the field at index 2). None when the layout is
    irregular (the numpy path then finds and names the offending line)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    rows, starts, lens = kernels.scan_columns(buf, ncols, np.array(fields, dtype=np.int64))
    if rows <= 0:
        return None
    if rows * int(lens[:rows].max()) > width_budget(0):   # one pass; the per-column look only for long tokens
        for j in range(len(fields)):
            i = int(np.argmax(lens[:rows, j]))
            check_token_width(source, len(data), rows, int(lens[i, j]), _line_at(data, starts[i, j], first_line))
    every = np.arange(rows)

    def tokens(j: int, which: np.ndarray, hashed: bool = False) -> np.ndarray:
        mat = kernels.token_matrix(buf, starts, lens, which, j)
        if hashed:
            out["hash"] = kernels.hash_tokens(mat)
        return mat.view(f"S{mat.shape[1]}").ravel()

    out: Dict[Any, np.ndarray] = {}
    for j, f in enumerate(fields):
        if f != numeric:
            out[f] = tokens(j, every, hashed=f == 2)
            continue
        values, ok = kernels.plain_decimals(buf, starts, lens, rows, j, _POW10)
        bad = np.flatnonzero(~ok)
        if len(bad):
            try:
                odd = tokens(j, bad)
                if underscored(odd).any():           # 1_000: refused (numpy would read 1000)
                    raise ValueError(odd)
                values[bad] = text_floats(odd)
            except ValueError:
                values = tokens(j, every)
        out[f] = values
    return out


def _file_columns(path: str, ncols: int, fields: Tuple[int, ...], what: str, layout: str,
                  numeric: Optional[int] = None):
    path = os.fspath(path)
    data = _read_bytes(path, what)
    # regular files (one space or one tab between tokens): pyarrow's reader; the scanners read the others
    cols = arrow_columns(data, ncols, fields, numeric, width_budget(len(data)), query=0)
    if cols is not None:
        return cols
    kernels = compiled(len(data) // 40)            # about 40 bytes per line of a run
    cols = None if kernels is None else _compiled_columns(kernels, data, ncols, fields, numeric, path)
    if cols is None:
        cols = _scan_columns(data, ncols, fields, path)
    if cols is None:
        cols = _line_columns(data, path, ncols, fields, what, layout)
    return cols


def _read_run_columns(path: str):
    path = os.fspath(path)
    cols = _file_columns(path, 6, (0, 2, 4), "run", "query_id Q0 doc_id rank score tag", numeric=4)
    line_of = _line_mapper(path)
    q, d = cols[0], doc_bytes(cols[2])
    s = _as_float(cols[4], q, d, path, line_of)
    _check_scores(s, path, q, d, line_of)
    return q, d, s, line_of, cols.get("hash")


def read_trec_run(path: str) -> Ranking:
    """Read a TREC run file (``qid Q0 docno rank score tag``; ``.gz`` allowed) into a :class:`Ranking`.

    The rank column is ignored: rows are ordered by score (descending), ties by doc id (descending).
    """
    q, d, s, line_of, dhash = _read_run_columns(path)
    return ranking_from_columns(q, d, s, os.fspath(path), line_of, dhash=dhash, loaded_only=False)


def read_trec_qrels(path: str) -> Qrels:
    """Read a TREC qrels file (``qid iteration docno grade``; ``.gz`` allowed)."""
    path = os.fspath(path)
    cols = _file_columns(path, 4, (0, 2, 3), "qrels", "query_id iteration doc_id relevance")
    try:
        return qrels_from_columns(cols[0], cols[2], cols[3], path, _line_mapper(path), dhash=cols.get("hash"))
    except DuplicateDocumentError as e:
        raise DuplicateDocumentError(f"{e}{column_order_hint(cols[2])}") from None


def column_order_hint(docs: np.ndarray) -> str:
    """A hint for qrels whose columns are in another order (``query_id doc_id iteration relevance``...):
    their third column, read as document ids, then holds a handful of distinct values."""
    distinct = np.unique(docs[:100_000])
    if len(distinct) > 5 or len(docs) < 2 * len(distinct) + 1:
        return ""
    shown = ", ".join(repr(v) for v in _to_str(distinct[:3]))
    return (f"; the third column (doc_id) holds only {len(distinct)} distinct value{'s' * (len(distinct) > 1)} "
            f"({shown}): are the columns in the order query_id iteration doc_id relevance?")


def read_run_frame(path: str) -> "pd.DataFrame":
    """Read and validate a TREC run file into a DataFrame ``query_id, doc_id, score``.

    Checks the column count, that every score is a finite number and that no document appears twice
    for a query; errors name the file and line.
    """
    ranking = read_trec_run(path)
    return ranking_frame(ranking)


def ranking_frame(ranking: Ranking) -> "pd.DataFrame":
    """A :class:`Ranking` as a DataFrame ``query_id, doc_id, score`` (rows in trec_eval order)."""
    import pandas as pd
    docs = str_array(ranking.dbytes)       # pandas' arrow strings straight from the bytes, when it uses them
    queries = QUERY_IDS.decode(ranking.qcodes)
    if docs is None:
        return pd.DataFrame({"query_id": queries[ranking.row_segments()],
                             "doc_id": _to_str(ranking.dbytes), "score": ranking.scores})
    # the query ids repeated by arrow (pandas' own take of its strings cost four times as much on 4,300 rows)
    import pyarrow as pa
    query_ids = pandas_strings(pa.array(queries, type=pa.large_string()).take(ranking.row_segments()), docs.dtype)
    if query_ids is None:
        query_ids = pd.array(queries, dtype=docs.dtype).take(ranking.row_segments())
    return pd.DataFrame({"query_id": query_ids, "doc_id": docs, "score": ranking.scores})


# ------------------------------------------------------------------------------------ chunked reading

#: (columns, fields kept, layout, numeric field) of each kind of TREC file
_LAYOUTS = {"run": (6, (0, 2, 4), "query_id Q0 doc_id rank score tag", 4),
            "qrels": (4, (0, 2, 3), "query_id iteration doc_id relevance", None)}


def _row_lines(buf: np.ndarray, rows: int, first_line: int) -> np.ndarray:
    """The 1-based line number of each data row of a chunk of whole lines (``buf``, its bytes) whose
    first line is ``first_line``: rows are the lines holding a byte above 32 (the scanners skip the others)."""
    lines = int(np.count_nonzero(buf == 10)) + (1 if len(buf) and buf[-1] != 10 else 0)
    if rows == lines:                        # no blank line: the rows are the lines
        return np.arange(first_line, first_line + rows, dtype=np.int64)
    newline = np.flatnonzero(buf == 10)
    line_of_byte = np.searchsorted(newline, np.flatnonzero(buf > 32))   # newlines before each byte
    return np.unique(line_of_byte).astype(np.int64) + first_line


def _chunk_columns(data: bytes, path: str, what: str, fields: Tuple[int, ...], first_line: int):
    """The columns of one chunk of whole lines (as :func:`_file_columns` reads a whole file)."""
    ncols, _, layout, numeric = _LAYOUTS[what]
    kernels = compiled(len(data) // 40)
    cols = None if kernels is None else _compiled_columns(kernels, data, ncols, fields,
                                                          numeric if numeric in fields else None, path, first_line)
    if cols is None:
        cols = _scan_columns(data, ncols, fields, path, first_line)
    if cols is None:
        cols = _line_columns(data, path, ncols, fields, what, layout, first_line=first_line)
    return cols


def iter_trec_chunks(path: str, what: str = "run", chunk_bytes: int = _CHUNK,
                     fields: Optional[Tuple[int, ...]] = None) -> Iterator[Dict[Any, np.ndarray]]:
    """Read a TREC run or qrels file (``what``; ``.gz`` allowed) by chunks of about ``chunk_bytes`` bytes of
    whole lines, in file order, with the scanners :func:`read_trec_run` uses: memory holds one chunk.

    Each chunk is a dict of columns: the ``fields`` (column indices; by default query id, doc id and score
    of a run, query id, doc id and grade of qrels) as bytes (``S``) arrays (a run's scores may come as
    floats already, as from the compiled scanner), ``"line"`` (the 1-based line number of each row) and,
    when the compiled scanner read it, ``"hash"`` (:func:`~ir_rbstar.io.ids.hash_ids` of the doc ids).
    Values are not validated here (:func:`~ir_rbstar.io.columns.ranking_from_columns` does, naming lines
    through ``"line"``); a line with the wrong number of columns raises InputFormatError naming it, and a
    file without a row raises EmptyInputError."""
    path = os.fspath(path)
    if what not in _LAYOUTS:
        raise ValueError(f"what must be 'run' or 'qrels', not {what!r}")
    fields = _LAYOUTS[what][1] if fields is None else tuple(fields)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what} file not found: {path}")
    if os.path.isdir(path):
        raise InputFormatError(f"{path}: is a directory, expected a {what} file")
    chunk_bytes = max(int(chunk_bytes), 1)
    opener: Any = gzip.open if path.endswith(".gz") else open
    rows_read = 0
    try:
        with opener(path, "rb") as f:
            rest, first, line = b"", True, 1
            while True:
                try:
                    fresh = f.read(chunk_bytes)
                except (OSError, EOFError) as e:
                    raise InputFormatError(f"{path}: cannot read the {what} file ({e})") from None
                eof = not fresh
                data = rest + fresh if rest else fresh
                if first and data:
                    if len(data) < len(_BOM) and not eof and _BOM.startswith(data):
                        rest = data
                        continue
                    first = False
                    if data.startswith(_BOM):
                        data = data[len(_BOM):]
                if not eof:
                    cut = data.rfind(b"\n")
                    if cut < 0:                  # a line longer than the chunk: read on
                        rest = data
                        continue
                    data, rest = data[:cut + 1], data[cut + 1:]
                else:
                    rest = b""
                buf = np.frombuffer(data, dtype=np.uint8)
                if len(buf) and bool((buf > 32).any()):
                    cols: Dict[Any, np.ndarray] = dict(_chunk_columns(data, path, what, fields, line))
                    n = len(cols[fields[0]])
                    cols["line"] = _row_lines(buf, n, line)
                    rows_read += n
                    yield cols
                line += int(np.count_nonzero(buf == 10))
                if eof:
                    break
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise InputFormatError(f"{path}: cannot read the {what} file ({e})") from None
    if rows_read == 0:
        raise EmptyInputError(f"{path}: the {what} file is empty")
