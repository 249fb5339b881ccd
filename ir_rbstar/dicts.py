"""TREC files and columnar tables as ir_measures' native input, the dict of dicts
(``{query_id: {doc_id: score}}``; qrels ``{query_id: {doc_id: grade}}``), for the measures of the command
line that ir_measures' own providers serve (``nDCG@10``, ``AP``, ...): they get the input form their
providers use internally, with no DataFrame in between, and without pandas or this package's readers
being imported when no measure of this package is asked for.

:func:`read_trec_dict` takes a fast path for regular files: ASCII text, every non-blank line with exactly
the file's number of whitespace-separated fields, scores finite numbers (integer grades for qrels) and no
document twice for a query. Where the C extension is built, it reads such a file in one pass
(``trec_dict``: the same rules, the numbers read as ``float()`` and ``int()`` read them; on a 7,000,000-line
run some four times faster than the Python path, which makes a str of every token first). Otherwise the
file is split in C (``str.split`` over the whole text, the fields taken
by slicing), the scores parsed by ``float`` through ``map`` and each query's dict built by ``dict(zip(...))``,
so there is no Python statement per line. A file that is not regular in any of these ways returns None:
the caller then reads it with the package's reader (:func:`ir_rbstar.io.read_trec_run` /
``read_trec_qrels``), which accepts what it accepts and names the file and line of what it rejects, and
converts the table with :func:`ranking_dict` / :func:`qrels_dict`. Either way the dict holds the same
values: for a regular file, the package's reader reads the same fields, and Python's ``float`` and the
package's scanner both round a decimal correctly to the nearest double.
"""
from __future__ import annotations

import gzip
import os
import zlib
from itertools import compress, islice
from operator import ne
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional

import numpy as np

if TYPE_CHECKING:
    from .io import Qrels, Ranking

__all__ = ["read_trec_dict", "ranking_dict", "qrels_dict"]

#: columns of a regular line, and which hold the query, the document and the value
_LAYOUT = {"run": (6, 0, 2, 4), "qrels": (4, 0, 2, 3)}
#: the grades the package's reader accepts (a whole number within int64)
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
#: without the compiled reader, a file of more bytes goes to the package's reader and :func:`ranking_dict` /
#: :func:`qrels_dict`: the Python path makes a str of every token first, some 2 us a line, against about 1 us
#: a line and some 0.5 s of imports (pandas, pyarrow) for the reader and the conversion (measured on TREC DL
#: 2019's runs and a 7,000,000-line run: 21.8 s against 9.6 s there)
SPLIT_LIMIT = 32 << 20
#: the bytes a regular file holds: printable ASCII, tab, newline, carriage return
_REGULAR = bytes(range(32, 127)) + b"\t\n\r"


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)        # one call: less CPU time than a GzipFile's reads of 8 KB
    return data


def _text_size(path: str) -> int:
    """The bytes of a file's text, found before reading it: its size, or for a gzip file the size its trailer
    records (modulo 2^32, as gzip keeps it: a guide for :data:`SPLIT_LIMIT`, not a check)."""
    with open(path, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            return os.fstat(f.fileno()).st_size
        f.seek(-4, os.SEEK_END)
        return int.from_bytes(f.read(4), "little")


def read_trec_dict(path: str, kind: str) -> Optional[Dict[str, Dict[str, Any]]]:
    """A regular TREC ``kind`` file ('run' or 'qrels'; ``.gz`` allowed) as a dict of dicts, or None when
    the file is not regular (see the module's docstring) and must go through the package's reader, or when,
    without the compiled reader, it holds more than :data:`SPLIT_LIMIT` bytes (the package's reader is then
    faster; the dicts hold the same values)."""
    columns, qcol, dcol, vcol = _LAYOUT[kind]
    from .io import extension
    read = extension.step("trec_dict")
    path = os.path.expanduser(os.fspath(path))
    try:
        if read is None and _text_size(path) > SPLIT_LIMIT:
            return None                     # the package's reader and a conversion are faster on a large file
        data = _read_bytes(path)
    except (OSError, EOFError, zlib.error):
        return None                         # unreadable or a truncated .gz: the package's reader says so
    if read is not None:                    # the same rules in one pass in C, without a list of every token
        return read(data, columns, qcol, dcol, vcol, kind == "qrels")
    if not data or data.translate(None, _REGULAR):
        return None                         # empty, non-ASCII or other control bytes
    text = data.decode("ascii")
    tokens = text.split()
    n = len(tokens) // columns
    if n == 0 or len(tokens) != n * columns or not _fields_per_line_ok(data, columns):
        return None                         # some line has another number of fields
    qids, docs, raw = tokens[qcol::columns], tokens[dcol::columns], tokens[vcol::columns]
    if "_" in " ".join(raw):
        return None                         # float() and int() accept digit separators: the reader decides
    try:
        if kind == "run":
            values: List = list(map(float, raw))
            if not np.isfinite(np.array(values, dtype=np.float64)).all():
                return None
        else:
            values = list(map(int, raw))
            if values and not (_INT64_MIN <= min(values) and max(values) <= _INT64_MAX):
                return None                 # beyond int64: the package's reader names the line
    except ValueError:
        return None
    out = _grouped(qids, docs, values)
    if sum(map(len, out.values())) != n:
        return None                         # a document twice for a query: the package's reader names it
    return out


def _fields_per_line_ok(data: bytes, columns: int) -> bool:
    """Whether every non-blank line has ``columns`` fields, given that the file has a multiple of
    ``columns`` fields in all (the totals alone would let a 5-field line followed by a 7-field one
    through): the first and the last field of each group of ``columns`` consecutive fields lie on the
    same line, and each group on a later line than the group before."""
    buf = np.frombuffer(data, dtype=np.uint8)
    space = buf <= 32
    start = ~space
    start[1:] &= space[:-1]
    first = np.flatnonzero(start)
    newlines = np.flatnonzero(buf == 10)
    line_first = np.searchsorted(newlines, first[0::columns])
    line_last = np.searchsorted(newlines, first[columns - 1::columns])
    return bool((line_first == line_last).all() and (line_first[1:] > line_first[:-1]).all())


def _grouped(qids: List[str], docs: List, values: List) -> Dict[str, Dict[str, Any]]:
    """{query: {doc: value}} from three parallel lists, one ``dict(zip(...))`` per block of equal query
    ids (a query in several blocks gets them merged)."""
    # the first line of each block: one C pass comparing each id with the one before (no array of ids)
    starts = [0, *compress(range(1, len(qids)), map(ne, islice(qids, 1, None), qids)), len(qids)]
    out: Dict[str, Dict[str, Any]] = {}
    for a, b in zip(starts[:-1], starts[1:], strict=True):
        block = dict(zip(docs[a:b], values[a:b], strict=True))
        have = out.get(qids[a])
        if have is None:
            out[qids[a]] = block
        else:
            have.update(block)
    return out


def decoded(ids: np.ndarray) -> List[str]:
    """Document ids (bytes) as str: one C pass when all are ASCII, else UTF-8 id by id."""
    try:
        return ids.astype("U").tolist() if ids.dtype.kind == "S" else [str(x) for x in ids]
    except UnicodeDecodeError:
        return [x.decode("utf-8") for x in ids.tolist()]


def ranking_dict(ranking: "Ranking", queries: Optional[Iterable[str]] = None,
                 depth: Optional[int] = None) -> Dict[str, Dict[str, float]]:
    """A :class:`~ir_rbstar.io.Ranking` as ``{query_id: {doc_id: score}}`` (float64 scores), its queries in its
    order. ``queries``: only the queries among these (e.g. the judged ones, the only ones pytrec_eval evaluates);
    ``depth``: each query cut to its first ``depth`` rows in trec_eval order. The rows kept are gathered first and
    their ids decoded together (UTF-8 too)."""
    from .io import QUERY_IDS
    qids = QUERY_IDS.decode(ranking.qcodes).tolist()
    first, end = ranking.offsets[:-1], ranking.offsets[1:]
    if queries is not None:
        wanted = set(queries)
        kept = np.fromiter(map(wanted.__contains__, qids), dtype=bool, count=len(qids))
        qids = list(compress(qids, kept.tolist()))
        first, end = first[kept], end[kept]
    if depth is not None:
        end = np.minimum(end, first + depth)
    lens = end - first
    bounds = np.concatenate(([0], np.cumsum(lens)))
    if queries is None and depth is None:
        rows: Any = slice(None)                                    # every row, in place
    else:
        rows = np.arange(bounds[-1]) + np.repeat(first - bounds[:-1], lens)
    docs, scores, at = decoded(ranking.dbytes[rows]), ranking.scores[rows].tolist(), bounds.tolist()
    return {q: dict(zip(docs[a:b], scores[a:b], strict=True)) for q, a, b in zip(qids, at[:-1], at[1:], strict=True)}


def qrels_dict(qrels: "Qrels") -> Dict[str, Dict[str, int]]:
    """:class:`~ir_rbstar.io.Qrels` as ``{query_id: {doc_id: grade}}``."""
    from .io import QUERY_IDS
    return _grouped(QUERY_IDS.decode(qrels.rowq).tolist(), decoded(qrels.rowb), qrels.grades.tolist())
