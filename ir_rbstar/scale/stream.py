"""Out of core on one machine: evaluate runs, qrels and reference runs larger than memory by blocks of
whole queries, in memory bounded by the block size.

>>> from ir_rbstar.scale.stream import stream_aggregate, stream_calc
>>> means = stream_aggregate("RBO(p=0.9,ref='b.run') RBP_res(p=0.8) RBR(p=0.8)@10", "a.run",
...                          qrels="qrels.txt", order="sorted", block_rows=1_000_000)   # doctest: +SKIP
>>> for metric in stream_calc(measures, "a.parquet", qrels="qrels.parquet"): ...          # doctest: +SKIP

**Inputs.** The run, the qrels (or None), every reference run a measure names by a file path
(``ref='b.run'``) and every run of a ``prior=``/``runs=`` string that names files (a file, a glob
``runs/*.run``, a comma list) are read block by block, each file once however many measures name it. An
input is a TREC file (plain or ``.gz``), a Parquet file (``.parquet``/``.pq``), a directory of Parquet
files or a :class:`pyarrow.dataset.Dataset` (columns ``query_id``, ``doc_id``, ``score`` / ``relevance``
as ir_measures names them, or ``qid``/``docno``/``label`` as PyTerrier does; ``columns=`` maps those names
to others, e.g. ``{"query_id": "user_id"}``), or an object already in memory (a DataFrame, ...). Names a
measure gives that are registered runs or groups (:func:`ir_rbstar.register_run`), ``irds:`` ids, and
in-memory runs given in ``runs=``/``groups=`` are in memory already and are used as they are. Parquet
needs pyarrow (the ``scale`` extra).

**Exact.** A query's value depends only on its own rows, so evaluating blocks of whole queries (every
input's rows of a query in the same block) gives each query the value the whole evaluation gives
(tested for every family against ``ir_measures.iter_calc`` on the whole inputs, to 1e-12). The queries
are those of the whole evaluation: with qrels, the qrels' queries (a judged query that the run does not
retrieve gets its value); without, the run's. Bit for bit for most measures; a few (RBO_res, RBO_ext,
RBA, ...) can differ in the last one or two bits, as they do whenever the engine evaluates another set
of queries together (a pt.Experiment batch, a subset of the qrels): some of its vectorised sums run
over the whole batch, and with ``IR_RBSTAR_ENGINE=auto`` the compiled kernels (numba) serve inputs of
at least ``ir_rbstar.engine.MIN_ROWS`` rows, so blocks smaller than that are evaluated by numpy
(``IR_RBSTAR_ENGINE=numba`` makes every block use the compiled kernels).

**Order** (``order=``), how blocks of whole queries are found:

* ``"sorted"``: every input lists its queries in ascending byte order of the query id, each query's rows
  together (as ``LC_ALL=C sort -s -k1,1 FILE`` leaves a TREC file; Parquet likewise, in file order). One
  pass: the inputs are merged by key range, a block holding every input's rows with query id up to a
  bound chosen so that no input gives more than ``block_rows`` rows (plus the rest of its last query).
  A query id smaller than the one before, in any input, raises InputFormatError naming the file, the
  line (row for Parquet) and the query, with the remedies (sort the file, or order="any").
* ``"numeric"``: the same, for inputs sorted by the query ids' integer values (``sort -s -n -k1,1``, or a
  Parquet file sorted by an integer user id); every query id must be an integer.
* ``"any"``: any row order. One pass over each input hash-partitions its rows by query id into P parts
  (``.npy`` files in a temporary directory under ``tmpdir``, removed afterwards, also after an error or
  when the iteration is abandoned and the generator closed), P = (largest input's rows, estimated from
  its size) / ``block_rows``; then the parts are evaluated one at a time. A part that turns out larger
  than twice its share (an estimate too low, e.g. for ``.gz`` files) is split again in the same way.
  Disk needed: about the size of the inputs' id and value columns (as much as the uncompressed text,
  a little less). Queries come out in the parts' order, not the inputs'.
* ``"auto"`` (the default): one cheap pass reads only the query ids of every file and checks the
  orders; sorted (or numeric) when every input holds it, else "any". Sorted files (the common case of
  large exports, which come grouped and ordered by user or query) then cost one light pass more than
  ``order="sorted"``; give the order when you know it.

Files grouped by query but not sorted (each query's rows together, queries in some other order) are not
"sorted": give ``order="any"`` (or sort them), ``"auto"`` does so by itself.

**Memory bound.** sorted/numeric: for each input, its rows of the current block (at most ``block_rows``
plus the rest of the last query, a read chunk more while it is being cut) and the evaluation's working
set of one block, about ``_BYTES_PER_ROW`` bytes per row of the block's inputs together; any: one read
chunk plus the largest part (about ``block_rows`` rows of every input). It does not grow with the
number of rows, only with the block size, and with the number of distinct query ids through the
process-wide table of query ids (``ir_rbstar.io.QUERY_IDS``, about 150 bytes per query) and the means'
accumulators (constant per measure). Parquet files are read through a buffered stream, a batch at a
time (not a row group at a time). ``memory=`` (bytes, or "2G") sets ``block_rows`` from a budget for
the blocks (``budget / (_BYTES_PER_ROW * number of inputs)``); the interpreter and the libraries
(numpy, pandas, numba's kernels, pyarrow) take about 250 MB more.

Measured (two systems' top-100 lists with ties and 10 judgments per user, 8-byte ids, files sorted;
RBO@100 and RBA against the other system, RBP_res@10, RBR@10; 2 shared cores, numba): 10M rows per
system, TREC, ``block_rows=250_000``: 7 s and 381 MB peak (the same 5M rows: 243-368 MB), against 47 s
and 3.5 GB for the whole files in memory; Parquet 7.8 s, 465 MB; order="any" 11 s, 361 MB;
order="auto" 8.8 s (the check pass reads the query ids: about 25% more time).

**Means.** :func:`stream_aggregate` sums each measure's values exactly (integer arithmetic over the
doubles' mantissas, constant memory per measure), so its means equal
:func:`ir_rbstar.scale.blocks.aggregate` on all the per-query values (``math.fsum``, then one
division), whatever the blocks; ``calc_aggregate``'s running sum can differ in the last bits.
"""
from __future__ import annotations

import contextlib
import glob as _glob
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, ContextManager, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast

import numpy as np
from ir_measures import Metric
from ir_measures.measures.base import MeanAgg
from numpy.lib.stride_tricks import sliding_window_view

from .. import engine, references
from ..errors import (InputFormatError, MissingExtraError, ParameterError,
                      ReferenceNotFoundError, RbstarError)
from ..io import QUERY_IDS, Qrels, Ranking, hash_ids, qrels_from_columns, ranking_from_columns, to_qrels, to_ranking
from ..io.columns import _as_float
from ..io.trec import iter_trec_chunks
from ..measures.base import RbstarMeasure
from ..progress import Progress
from ..provider import PROVIDER, split_by_provider
from .blocks import as_measures, evaluate_block

__all__ = ["stream_calc", "stream_aggregate", "Means", "ORDERS", "DEFAULT_BLOCK_ROWS"]

#: the values of ``order=``
ORDERS = ("auto", "sorted", "numeric", "any")
#: rows of each input per block when neither ``block_rows`` nor ``memory`` is given
DEFAULT_BLOCK_ROWS = 1_000_000
#: the memory per row of each input that a block takes, its working memory included (measured: about
#: 250 bytes per row for RBO, RBA, RBP_res and RBR with a reference and qrels, 8-byte ids; kept with a
#: margin for longer ids); ``memory=`` divides the budget by this and by the number of inputs
_BYTES_PER_ROW = 400
_BYTES_PER_LINE = 40                       # a TREC run line, to size read chunks from block_rows
_MAX_PARTS = 4096
_RUN, _QRELS = "run", "qrels"
_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
_PARQUET_COLUMNS = {"query_id": ("query_id", "qid"), "doc_id": ("doc_id", "docno"), "score": ("score",),
                    "relevance": ("relevance", "label")}

Source = Any                       # a path, a pyarrow Dataset, or a run/qrels object already in memory


# ------------------------------------------------------------------------------------------ columns

@dataclass
class _Cols:
    """Rows of one input: query ids and doc ids (bytes), values (scores as float64, grades), the 1-based
    line (row) number of each row in its file, the doc-id hashes when the reader made them, and the
    ordering key (the query ids themselves, or their integer values)."""

    q: np.ndarray
    d: np.ndarray
    v: np.ndarray
    line: np.ndarray
    h: Optional[np.ndarray] = None
    key: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return len(self.q)

    def keys(self) -> np.ndarray:
        return self.q if self.key is None else self.key

    def cut(self, a: int, b: int) -> "_Cols":
        def part(x):
            return None if x is None else x[a:b]
        return _Cols(self.q[a:b], self.d[a:b], self.v[a:b], self.line[a:b], part(self.h), part(self.key))

    def take(self, rows: np.ndarray) -> "_Cols":
        def part(x):
            return None if x is None else x[rows]
        return _Cols(self.q[rows], self.d[rows], self.v[rows], self.line[rows], part(self.h), part(self.key))


def _cat(pieces: List[_Cols], kind: str) -> _Cols:
    if not pieces:
        v = np.empty(0, dtype=np.float64 if kind == _RUN else np.int64)
        return _Cols(np.empty(0, "S1"), np.empty(0, "S1"), v, np.empty(0, np.int64))
    if len(pieces) == 1:
        return pieces[0]
    hs = [p.h for p in pieces if p.h is not None]
    keys = [p.key for p in pieces if p.key is not None]
    return _Cols(np.concatenate([p.q for p in pieces]), np.concatenate([p.d for p in pieces]),
                 np.concatenate([p.v for p in pieces]), np.concatenate([p.line for p in pieces]),
                 np.concatenate(hs) if len(hs) == len(pieces) else None,
                 np.concatenate(keys) if len(keys) == len(pieces) else None)


# ------------------------------------------------------------------------------------------ sources

class _Source:
    """One input, read by chunks of rows in its own order."""

    kind: str = _RUN
    name: str = ""
    word: str = "line"                # how its messages number rows: TREC lines, Parquet rows
    in_memory: bool = False

    def chunks(self, query_only: bool = False, mode: Optional[str] = None) -> Iterator[_Cols]:
        raise NotImplementedError

    def estimate_rows(self) -> int:
        raise NotImplementedError


class _TrecSource(_Source):
    def __init__(self, path: str, kind: str, chunk_bytes: int):
        self.path, self.kind, self.name, self.chunk_bytes = path, kind, path, chunk_bytes
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{kind} file not found: {path}")

    def chunks(self, query_only: bool = False, mode: Optional[str] = None) -> Iterator[_Cols]:
        fields = (0,) if query_only else None
        for cols in iter_trec_chunks(self.path, self.kind, self.chunk_bytes, fields):
            q, line = cols[0], cols["line"]
            if query_only:
                yield _Cols(q, q[:0], np.empty(0), line)
                continue
            d = cols[2]
            if self.kind == _RUN:
                v = _as_float(cols[4], q, d, self.path, lambda i, line=line: int(line[i]))
            else:
                v = cols[3]
            yield _Cols(q, d, v, line, cols.get("hash"))

    def estimate_rows(self) -> int:
        size = os.path.getsize(self.path)
        opener: Any = open
        if self.path.endswith(".gz"):
            import gzip
            opener = gzip.open
            with open(self.path, "rb") as f:        # the trailer holds the size modulo 2**32
                f.seek(max(size - 4, 0))
                trailer = int.from_bytes(f.read(4), "little")
            size = max(trailer, 4 * size)
        with opener(self.path, "rb") as f:
            sample = f.read(1 << 16)
        lines = max(sample.count(b"\n"), 1)
        return max(1, int(size / (len(sample) / lines)) if sample else 1)


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.dataset
        import pyarrow.parquet  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError('reading Parquet files and Arrow datasets needs pyarrow: '
                                'pip install "ir-rbstar[scale]"') from exc
    return pyarrow


def _arrow_bytes(arr, pa, source: str, first_row: int, column: str) -> np.ndarray:
    """An Arrow column of ids (strings, binary, integers, dictionary) as a numpy bytes (``S``) array,
    without a Python object per row."""
    if arr.null_count:
        i = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputFormatError(f"{source}: row {first_row + i}: {column} is null")
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type) or pa.types.is_binary(arr.type)
            or pa.types.is_large_binary(arr.type)):
        arr = arr.cast(pa.string())
    arr = arr.cast(pa.large_binary())
    n = len(arr)
    if n == 0:
        return np.empty(0, "S1")
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset:arr.offset + n + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, np.uint8)
    starts, lens = offsets[:-1], np.diff(offsets)
    w = max(int(lens.max()), 1)
    padded = np.concatenate([data[:int(offsets[-1])], np.zeros(w, np.uint8)])
    mat = sliding_window_view(padded, w)[starts]
    mat[np.arange(w)[None, :] >= lens[:, None]] = 0
    return np.ascontiguousarray(mat).view(f"S{w}").ravel()


class _ParquetSource(_Source):
    """A Parquet file, a directory of Parquet files, or a pyarrow Dataset (files read in order; rows
    numbered from 1 across them)."""

    word = "row"

    def __init__(self, obj: Any, kind: str, columns: Optional[Mapping[str, str]], batch_rows: int):
        pa = _pyarrow()
        import pyarrow.dataset as ds
        self.kind, self.batch_rows = kind, batch_rows
        if isinstance(obj, ds.Dataset):
            self.dataset, self.name = obj, f"<{kind} dataset>"
        elif not _is_path(obj):                       # a pyarrow Table, RecordBatch, ...
            self.dataset, self.name = ds.dataset(obj), f"<{kind} table>"
        else:
            path = os.fspath(obj)
            if not os.path.exists(path):
                raise FileNotFoundError(f"{kind} file not found: {path}")
            try:
                self.dataset = ds.dataset(path, format="parquet")
            except (pa.ArrowInvalid, OSError) as e:
                raise InputFormatError(f"{path}: cannot read the {kind} as Parquet ({e})") from None
            self.name = path
        names = self.dataset.schema.names
        value = "score" if kind == _RUN else "relevance"
        self.columns = []
        for what in ("query_id", "doc_id", value):
            options = (columns[what],) if columns and what in columns else _PARQUET_COLUMNS[what]
            found = next((c for c in options if c in names), None)
            if found is None:
                raise InputFormatError(f"{self.name}: the {kind} has no column {options[0]!r} (columns found: "
                                       f"{names}); map ir_measures' names to yours with columns=")
            self.columns.append(found)

    def _batches(self, cols: List[str]):
        """Record batches of the columns ``cols``, file after file. Parquet files are read through a
        buffered stream without pre-buffering: memory holds the batch being decoded, not a whole row
        group (pyarrow's dataset scanner decodes whole row groups and reads ahead)."""
        import pyarrow.dataset as ds
        import pyarrow.parquet as pq
        frags = list(self.dataset.get_fragments()) if hasattr(self.dataset, "get_fragments") else []
        if frags and all(isinstance(f, ds.ParquetFileFragment) for f in frags):
            if isinstance(self.name, str) and os.path.isdir(self.name):
                frags.sort(key=lambda f: f.path)
            fs = getattr(self.dataset, "filesystem", None)
            for frag in frags:
                with (fs.open_input_file(frag.path) if fs is not None else open(frag.path, "rb")) as handle:
                    reader = pq.ParquetFile(handle, buffer_size=1 << 20, pre_buffer=False)
                    yield from reader.iter_batches(batch_size=self.batch_rows, columns=cols)
        else:
            yield from self.dataset.to_batches(columns=cols, batch_size=self.batch_rows, batch_readahead=0,
                                               fragment_readahead=0)

    def chunks(self, query_only: bool = False, mode: Optional[str] = None) -> Iterator[_Cols]:
        pa = _pyarrow()
        cols = self.columns[:1] if query_only else self.columns
        row = 1
        for batch in self._batches(cols):
            n = batch.num_rows
            if n == 0:
                continue
            line = np.arange(row, row + n, dtype=np.int64)
            q = _arrow_bytes(batch.column(0), pa, self.name, row, cols[0])
            if query_only:
                yield _Cols(q, q[:0], np.empty(0), line)
                row += n
                continue
            d = _arrow_bytes(batch.column(1), pa, self.name, row, cols[1])
            raw = batch.column(2)
            if raw.null_count:
                i = int(np.flatnonzero(raw.is_null().to_numpy(zero_copy_only=False))[0])
                raise InputFormatError(f"{self.name}: row {row + i}: {cols[2]} is null")
            if self.kind == _RUN:
                try:
                    v = raw.cast(pa.float64()).to_numpy(zero_copy_only=False)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    v = _as_float(raw.to_numpy(zero_copy_only=False), q, d, self.name,
                                  lambda i, line=line: int(line[i]))
            else:
                v = raw.to_numpy(zero_copy_only=False)
            yield _Cols(q, d, np.asarray(v), line)
            row += n

    def estimate_rows(self) -> int:
        return max(1, int(self.dataset.count_rows()))


class _MemorySource(_Source):
    """A run or qrels already in memory (any form the package reads), validated whole, read in slices."""

    in_memory = True

    def __init__(self, obj: Any, kind: str, label: str, chunk_rows: int):
        self.kind, self.name, self.chunk_rows = kind, label, chunk_rows
        if kind == _RUN:
            r = to_ranking(obj, source=label)
            self.q = _id_bytes(QUERY_IDS.decode(r.qcodes[r.row_segments()]))
            self.d, self.v = r.dbytes, np.asarray(r.scores, dtype=np.float64)
        else:
            j = to_qrels(obj, source=label)
            self.q, self.d, self.v = _id_bytes(QUERY_IDS.decode(j.rowq)), j.rowb, np.asarray(j.grades)

    def chunks(self, query_only: bool = False, mode: Optional[str] = None) -> Iterator[_Cols]:
        n = len(self.q)
        order = np.arange(n)
        if mode in ("sorted", "numeric"):
            order = np.argsort(_keys(self.q, mode, self, np.arange(1, n + 1)), kind="stable")
        for a in range(0, n, self.chunk_rows):
            rows = order[a:a + self.chunk_rows]
            yield _Cols(self.q[rows], self.d[rows], self.v[rows], rows.astype(np.int64) + 1)

    def estimate_rows(self) -> int:
        return max(1, len(self.q))


def _id_bytes(ids: np.ndarray) -> np.ndarray:
    from ..io import doc_bytes
    return doc_bytes(ids)


def _is_parquet(obj: Any) -> bool:
    if not isinstance(obj, (str, os.PathLike)):
        return type(obj).__module__.startswith("pyarrow")
    path = os.fspath(obj)
    if path.lower().endswith(_PARQUET_SUFFIXES):
        return True
    return os.path.isdir(path)


def _is_path(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike)) and "\n" not in str(obj)


def _keys(q: np.ndarray, mode: str, src: _Source, line: np.ndarray) -> np.ndarray:
    """The ordering key of each row: the id bytes ("sorted"), or the id's integer value ("numeric")."""
    if mode != "numeric":
        return q
    try:
        return q.astype(np.int64)
    except (ValueError, OverflowError):
        for i, x in enumerate(q.tolist()):          # only to name the offending id
            try:
                int(x)
            except ValueError:
                shown = x.decode("utf-8", "replace")
                raise InputFormatError(f"{src.name}: {src.word} {int(line[i])}: query id {shown!r} "
                                       f"is not an integer; order='numeric' needs integer query ids (use "
                                       f"order='sorted' for files sorted by the ids' bytes, or order='any')") from None
        raise


# ------------------------------------------------------------------------------------- the order

def _order_error(src: _Source, mode: str, line: int, q: bytes, prev: bytes) -> InputFormatError:
    show = q.decode("utf-8", "replace")
    before = prev.decode("utf-8", "replace")
    if mode == "numeric":
        how, cmd = "ascending numeric order", "sort -s -n -k1,1"
    else:
        how, cmd = "ascending byte order", "LC_ALL=C sort -s -k1,1"
    hint = f"sort it ({cmd} {src.name} > sorted.run)" if src.word == "line" else "sort its rows by query id"
    return InputFormatError(
        f"{src.name}: {src.word} {line}: query {show!r} comes after query {before!r}: order={mode!r} needs every "
        f"input to list its queries in {how} of the query id, each query's rows together; {hint}, or use "
        f"order='any' (any row order, through temporary files) or order='auto'")


class _Cursor:
    """The rows of one sorted input not yet given to a block: whole chunks, the first possibly cut."""

    def __init__(self, src: _Source, mode: str):
        self.src, self.mode = src, mode
        self.it = src.chunks(mode=mode)
        self.buf: List[_Cols] = []
        self.n = 0
        self.eof = False
        self.last: Any = None
        self.last_q: bytes = b""

    def read(self) -> None:
        c = next(self.it, None)
        if c is None:
            self.eof = True
            return
        if len(c) == 0:
            return
        c.key = k = _keys(c.q, self.mode, self.src, c.line)
        bad = np.flatnonzero(k[1:] < k[:-1])
        if self.last is not None and k[0] < self.last:
            raise _order_error(self.src, self.mode, int(c.line[0]), c.q[0], self.last_q)
        if len(bad):
            i = int(bad[0]) + 1
            raise _order_error(self.src, self.mode, int(c.line[i]), c.q[i], c.q[i - 1])
        self.last, self.last_q = k[-1], c.q[-1]
        self.buf.append(c)
        self.n += len(c)

    def fill(self, rows: int) -> None:
        while not self.eof and self.n < rows:
            self.read()

    def bound(self, rows: int) -> Any:
        """The key of the ``rows``-th buffered row when more rows follow it, else None."""
        if self.n <= rows:
            return None
        i = rows - 1
        for c in self.buf:
            if i < len(c):
                return c.keys()[i]
            i -= len(c)
        return None

    def reach(self, t: Any) -> None:
        """Read until a row with key above ``t`` is buffered (or the input ends)."""
        while not self.eof and (self.n == 0 or self.last <= t):
            self.read()

    def take(self, t: Any) -> _Cols:
        """Every buffered row with key <= ``t`` (all of them when ``t`` is None)."""
        pieces = []
        while self.buf:
            c = self.buf[0]
            if t is None or c.keys()[-1] <= t:
                pieces.append(c)
                self.buf.pop(0)
                continue
            i = int(np.searchsorted(c.keys(), t, side="right"))
            if i:
                pieces.append(c.cut(0, i))
                self.buf[0] = c.cut(i, len(c))
            break
        self.n -= sum(len(p) for p in pieces)
        return _cat(pieces, self.src.kind)

    def done(self) -> bool:
        return self.eof and self.n == 0


def _merged_blocks(sources: Sequence[_Source], mode: str, block_rows: int) -> Iterator[List[_Cols]]:
    """Blocks of whole queries of sorted inputs: every input's rows with key <= a bound, the bound the
    smallest key at which some input has ``block_rows`` rows."""
    cursors = [_Cursor(s, mode) for s in sources]
    while True:
        for c in cursors:
            c.fill(block_rows + 1)
        if all(c.done() for c in cursors):
            return
        bounds = [b for b in (c.bound(block_rows) for c in cursors) if b is not None]
        t = min(bounds) if bounds else None
        if t is not None:
            for c in cursors:
                c.reach(t)
        yield [c.take(t) for c in cursors]


def _detect_order(sources: Sequence[_Source]) -> str:
    """"sorted" when every file lists its queries in byte order, else "numeric" when every one does in
    integer order, else "any"; reads the query ids only."""
    byte_ok, num_ok = True, True
    for src in sources:
        if src.in_memory:                      # sorted by us, in whichever order
            continue
        last_b: Any = None
        last_n: Any = None
        for c in src.chunks(query_only=True):
            q = c.q
            if not len(q):
                continue
            if byte_ok:
                if (last_b is not None and q[0] < last_b) or bool((q[1:] < q[:-1]).any()):
                    byte_ok = False
                last_b = q[-1]
            if num_ok:
                try:
                    k = q.astype(np.int64)
                except (ValueError, OverflowError):
                    num_ok = False
                else:
                    if (last_n is not None and k[0] < last_n) or bool((k[1:] < k[:-1]).any()):
                        num_ok = False
                    last_n = k[-1]
            if not (byte_ok or num_ok):
                return "any"
    return "sorted" if byte_ok else "numeric"


# -------------------------------------------------------------------------------- hash partitions

class _Parts:
    """Rows of every input split by a hash of the query id into ``p`` parts, as ``.npy`` chunk files."""

    def __init__(self, root: str, p: int, div: int, n_sources: int):
        self.root, self.p, self.div = root, p, div
        self.counts = np.zeros((p, n_sources), dtype=np.int64)
        os.makedirs(root, exist_ok=True)

    def path(self, part: int, si: int) -> str:
        return os.path.join(self.root, f"part{part}-input{si}.npy")

    def add(self, si: int, c: _Cols) -> None:
        if not len(c):
            return
        part = ((hash_ids(c.q) // np.uint64(self.div)) % np.uint64(self.p)).astype(np.int64)
        order = np.argsort(part, kind="stable")
        counts = np.bincount(part, minlength=self.p)
        self.counts[:, si] += counts
        ends = np.cumsum(counts)
        for p in np.flatnonzero(counts).tolist():
            rows = order[ends[p] - counts[p]:ends[p]]
            with open(self.path(p, si), "ab") as f:
                for arr in (c.q[rows], c.d[rows], c.v[rows], c.line[rows]):
                    np.save(f, arr, allow_pickle=False)

    def read(self, part: int, si: int) -> Iterator[_Cols]:
        path = self.path(part, si)
        if not os.path.exists(path):
            return
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            while f.tell() < size:
                q, d, v, line = (np.load(f, allow_pickle=False) for _ in range(4))
                yield _Cols(q, d, v, line)

    def drop(self, part: int) -> None:
        for si in range(self.counts.shape[1]):
            path = self.path(part, si)
            if os.path.exists(path):
                os.remove(path)


def _parts_for(rows: int, block_rows: int) -> int:
    return int(min(max(1, math.ceil(rows / block_rows)), _MAX_PARTS))


def _partitioned_blocks(sources: Sequence[_Source], block_rows: int, root: str,
                        progress: Optional[Progress]) -> Iterator[List[_Cols]]:
    """Blocks of whole queries of inputs in any order: hash partitions on disk, one part at a time."""
    p = _parts_for(max(s.estimate_rows() for s in sources), block_rows)
    parts = _Parts(os.path.join(root, "0"), p, 1, len(sources))
    for si, src in enumerate(sources):
        for c in src.chunks():
            parts.add(si, c)
        if progress is not None:
            progress(si + 1, len(sources), f"partitioned {src.name} into {p} parts")
    yield from _part_blocks(parts, sources, block_rows, 0)


def _part_blocks(parts: _Parts, sources: Sequence[_Source], block_rows: int, level: int) -> Iterator[List[_Cols]]:
    for part in range(parts.p):
        counts = parts.counts[part]
        biggest = int(counts.max())
        if biggest > 2 * block_rows and level < 3:
            sub = _Parts(os.path.join(parts.root, f"{part}.s"), _parts_for(biggest, block_rows),
                         parts.div * parts.p, len(sources))
            for si in range(len(sources)):
                for c in parts.read(part, si):
                    sub.add(si, c)
            parts.drop(part)
            if int(sub.counts.max(axis=0).max()) < biggest:       # the split did split (not one big query)
                yield from _part_blocks(sub, sources, block_rows, level + 1)
                shutil.rmtree(sub.root, ignore_errors=True)
                continue
            yield from _part_blocks(sub, sources, block_rows, 3)
            shutil.rmtree(sub.root, ignore_errors=True)
            continue
        block = [_cat(list(parts.read(part, si)), src.kind) for si, src in enumerate(sources)]
        parts.drop(part)
        if any(len(b) for b in block):
            yield block


# ------------------------------------------------------------------------------------- the plan

@dataclass
class _Plan:
    sources: List[_Source]
    run: int                                          # index of the run in sources
    qrels: Optional[int]
    refs: Dict[str, int]                              # ref string -> source
    groups: Dict[str, List[Tuple[str, Union[int, Ranking]]]]   # prior/runs string -> its runs


class _Planner:
    def __init__(self, columns, chunk_bytes: int, chunk_rows: int):
        self.columns, self.chunk_bytes, self.chunk_rows = columns, chunk_bytes, chunk_rows
        self.sources: List[_Source] = []
        self.index: Dict[Any, int] = {}

    def add(self, obj: Any, kind: str, label: str) -> int:
        if isinstance(obj, (Ranking, Qrels)) or not (_is_path(obj) or _is_parquet(obj)):
            key: Any = ("object", id(obj), kind)
        else:
            key = ("path", os.path.abspath(os.path.expanduser(os.fspath(obj))) if _is_path(obj) else id(obj), kind)
        if key not in self.index:
            self.index[key] = len(self.sources)
            self.sources.append(self._make(obj, kind, label))
        return self.index[key]

    def _make(self, obj: Any, kind: str, label: str) -> _Source:
        if _is_path(obj) or _is_parquet(obj):
            if _is_parquet(obj):
                return _ParquetSource(obj if not _is_path(obj) else os.path.expanduser(os.fspath(obj)), kind,
                                      self.columns, self.chunk_rows)
            return _TrecSource(os.path.expanduser(os.fspath(obj)), kind, self.chunk_bytes)
        return _MemorySource(obj, kind, label, self.chunk_rows)


def _streamable(name: str) -> bool:
    path = os.path.expanduser(name)
    return os.path.isfile(path) or (os.path.isdir(path) and _is_parquet(path))


def _plan(ms: Sequence, run: Source, qrels: Optional[Source], runs: Mapping[str, Source],
          groups: Mapping[str, Mapping[str, Source]], planner: _Planner) -> _Plan:
    run_i = planner.add(run, _RUN, "<run>")
    qrels_i = None if qrels is None else planner.add(qrels, _QRELS, "<qrels>")
    refs: Dict[str, int] = {}
    sets: Dict[str, List[Tuple[str, Union[int, Ranking]]]] = {}
    for m in ms:
        if not isinstance(m, RbstarMeasure):
            continue
        ref = m.params.get("ref")
        if isinstance(ref, str) and ref not in refs:
            if ref in runs:
                refs[ref] = planner.add(runs[ref], _RUN, f"run {ref!r}")
            elif references._named_run(ref) is None and _streamable(ref):
                refs[ref] = planner.add(ref, _RUN, ref)
            else:
                references.resolve_run(ref, f"{m}: ref")      # in memory (registered, irds:), or the error
        for what in ("prior", "runs"):
            spec = m.params.get(what)
            if isinstance(spec, str) and spec not in sets:
                items = _group_items(spec, f"{m}: {what}", runs, groups, planner)
                if items is not None:
                    sets[spec] = items
    return _Plan(planner.sources, run_i, qrels_i, refs, sets)


def _group_items(spec: str, what: str, runs: Mapping[str, Source], groups: Mapping[str, Mapping[str, Source]],
                 planner: _Planner) -> Optional[List[Tuple[str, Union[int, Ranking]]]]:
    """The runs of a ``prior=``/``runs=`` string, as :func:`ir_rbstar.references.resolve_runs` finds them,
    files streamed (source indices), in-memory runs as they are; None for a group in memory (registered)."""
    if spec in groups:
        return [(str(n), planner.add(r, _RUN, f"run {n!r} of group {spec!r}")) for n, r in groups[spec].items()]
    if references._named_group(spec) is not None:
        return None
    if spec not in runs and _streamable(spec):
        return [(spec, planner.add(spec, _RUN, spec))]
    out: List[Tuple[str, Union[int, Ranking]]] = []
    for item in references.split_list(spec):
        if not item:
            raise ReferenceNotFoundError(f"{what}={spec!r}: an empty name in the list")
        if item in runs:
            out.append((item, planner.add(runs[item], _RUN, f"run {item!r}")))
            continue
        group, named = references._named(item)
        if group is not None:
            out.extend(group.runs)
        elif named is not None:
            out.append((item, named))
        elif references._GLOB_CHARS & set(item):
            paths = sorted(p for p in _glob.glob(os.path.expanduser(item)) if os.path.isfile(p))
            if not paths:
                raise ReferenceNotFoundError(f"{what}={spec!r}: the glob {item!r} matches no file "
                                             f"(looked in {os.path.abspath(os.path.dirname(item) or '.')})")
            out.extend((path, planner.add(path, _RUN, path)) for path in paths)
        elif _streamable(item):
            out.append((item, planner.add(item, _RUN, item)))
        else:
            out.append((item, references.resolve_run(item, what)))    # irds:, or the error
    return out


# ------------------------------------------------------------------------------------- evaluation

def _table(src: _Source, cols: _Cols):
    """The block's rows of one input as a validated Ranking / Qrels (messages name the input's lines)."""
    lines = cols.line

    def line_of(i: int) -> int:
        return int(lines[i])
    try:
        if src.kind == _RUN:
            return ranking_from_columns(cols.q, cols.d, cols.v, src.name, line_of, dhash=cols.h)
        return qrels_from_columns(cols.q, cols.d, cols.v, src.name, line_of, dhash=cols.h)
    except RbstarError as e:
        if src.word == "line":
            raise
        text = str(e).replace(f"{src.name}: line ", f"{src.name}: row ").replace("(lines ", "(rows ")
        raise type(e)(text) from None


def _engine_for(sources: Sequence[_Source]) -> Callable[[], ContextManager]:
    """The engine for the blocks: the one the whole inputs would get. Under ``"auto"`` the compiled
    kernels serve inputs of at least ``MIN_ROWS`` rows; blocks are smaller, but the work is the whole
    input's, so large inputs are read and evaluated by the compiled kernels when numba is there (the
    engine is set for each block's reading and evaluation, not across the iteration's yields)."""
    if engine.get_engine() != "auto" or max(s.estimate_rows() for s in sources) < engine.MIN_ROWS:
        return contextlib.nullcontext
    try:
        engine._load()
    except (RbstarError, ImportError):
        return contextlib.nullcontext
    return lambda: engine.using("numba")


@dataclass
class _Block:
    run: Ranking
    qrels: Optional[Qrels]
    runs: Dict[str, Ranking]
    groups: Dict[str, references.PriorSet]
    fast: Callable[[], ContextManager] = contextlib.nullcontext

    def empty(self) -> bool:
        """No query to evaluate: with qrels, none judged in the block; without, none retrieved."""
        return len(self.qrels.qcodes) == 0 if self.qrels is not None else len(self.run.qcodes) == 0


def _blocks(plan: _Plan, mode: str, block_rows: int, tmpdir: Optional[str],
            progress: Optional[Progress]) -> Iterator[_Block]:
    sources = plan.sources
    fast = _engine_for(sources)
    if mode == "auto":
        with fast():
            mode = _detect_order(sources)
    root = None
    try:
        if mode == "any":
            root = tempfile.mkdtemp(prefix="ir_rbstar-stream-", dir=tmpdir)
            raw: Iterator[List[_Cols]] = _partitioned_blocks(sources, block_rows, root, progress)
            total = 0
        else:
            raw = _merged_blocks(sources, mode, block_rows)
            total = max(1, math.ceil(sources[plan.run].estimate_rows() / block_rows)) if progress else 0
        step = 0
        while True:
            with fast():
                cols = next(raw, None)
                if cols is None:
                    break
                tables = [_table(s, c) for s, c in zip(sources, cols, strict=True)]
            step += 1
            groups = {spec: references.PriorSet([(n, tables[r] if isinstance(r, int) else r) for n, r in items])
                      for spec, items in plan.groups.items()}
            block = _Block(tables[plan.run], None if plan.qrels is None else tables[plan.qrels],
                           {name: tables[i] for name, i in plan.refs.items()}, groups, fast)
            if progress is not None:
                rows = len(cols[plan.run])
                progress(step, max(total, step), f"block {step}: {len(block.run.qcodes)} queries, {rows} run rows")
            if not block.empty():
                yield block
    finally:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


def _block_rows(block_rows: Optional[int], memory: Any, n_inputs: int) -> int:
    if block_rows is not None:
        if isinstance(block_rows, bool) or not isinstance(block_rows, (int, np.integer)) or block_rows < 1:
            raise ParameterError(f"block_rows must be a positive integer, not {block_rows!r}")
        return int(block_rows)
    if memory is None:
        return DEFAULT_BLOCK_ROWS
    budget = _bytes(memory)
    return max(1000, budget // (_BYTES_PER_ROW * max(n_inputs, 1)))


def _bytes(memory: Any) -> int:
    if isinstance(memory, (int, np.integer)) and not isinstance(memory, bool) and memory > 0:
        return int(memory)
    if isinstance(memory, str):
        text = memory.strip().upper().rstrip("B")
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
        try:
            value = float(text[:-1] if text[-1:] in "KMGT" else text) * scale
        except ValueError:
            value = -1
        if value > 0:
            return int(value)
    raise ParameterError(f"memory must be a number of bytes or a size such as '2G', not {memory!r}")


def _prepare(measures, run, qrels, runs, groups, order, block_rows, memory, columns):
    ms = as_measures(measures)
    if order not in ORDERS:
        raise ParameterError(f"order must be one of {', '.join(repr(o) for o in ORDERS)}, not {order!r}")
    for m in ms:                                  # bad measures fail before any file is read
        if isinstance(m, RbstarMeasure):
            m.validate_params()
            m.check_required()
    if columns is not None:
        unknown = set(columns) - set(_PARQUET_COLUMNS)
        if unknown:
            raise ParameterError(f"columns: unknown name {sorted(unknown)[0]!r}; map {', '.join(_PARQUET_COLUMNS)}")
    planner = _Planner(columns, chunk_bytes=1 << 20, chunk_rows=1 << 16)
    plan = _plan(ms, run, qrels, dict(runs or {}), dict(groups or {}), planner)
    rows = _block_rows(block_rows, memory, len(plan.sources))
    # read chunks of about a quarter of a block: a cursor holds at most a block and a chunk
    for src in plan.sources:
        if isinstance(src, _TrecSource):
            src.chunk_bytes = int(min(max(rows * _BYTES_PER_LINE // 4, 256), 16 << 20))
        elif isinstance(src, _ParquetSource):
            src.batch_rows = int(min(max(rows // 4, 16), 1 << 18))
        elif isinstance(src, _MemorySource):
            src.chunk_rows = int(min(max(rows // 4, 16), 1 << 18))
    return ms, plan, rows


def stream_calc(measures: Any, run: Source, qrels: Optional[Source] = None, *,
                runs: Optional[Mapping[str, Source]] = None,
                groups: Optional[Mapping[str, Mapping[str, Source]]] = None,
                order: str = "auto", block_rows: Optional[int] = None, memory: Any = None,
                tmpdir: Optional[str] = None, columns: Optional[Mapping[str, str]] = None,
                provider: Optional[str] = None, progress: Optional[Progress] = None) -> Iterator[Metric]:
    """Per-query metrics of ``run`` (and ``qrels``, None when every measure compares with a reference),
    read and evaluated by blocks of whole queries (see the module's documentation): the values
    ``ir_measures.iter_calc`` gives on the whole inputs, block after block.

    ``runs`` maps a name a measure gives in ``ref=`` (or in a ``prior=``/``runs=`` list) to its input,
    ``groups`` a ``prior=``/``runs=`` string to ``{run name: input}``; file paths in measures are read
    as they are. ``order``: "auto", "sorted", "numeric" or "any"; ``block_rows``: rows of each input per
    block (default 1,000,000), or ``memory`` a budget in bytes ("4G") from which it is set; ``tmpdir``:
    where order="any" puts its temporary parts; ``columns``: ir_measures' column names -> the Parquet
    inputs' own; ``provider``: the provider of ir_measures' own measures; ``progress(step, total, message)``
    is called once per block (total: an estimate). The temporary files are removed when the iteration
    ends, fails, or is closed (``generator.close()``, or a ``with contextlib.closing(...)``)."""
    ms, plan, rows = _prepare(measures, run, qrels, runs, groups, order, block_rows, memory, columns)
    for block in _blocks(plan, order, rows, tmpdir, progress):
        with block.fast():
            metrics = list(evaluate_block(ms, block.run, block.qrels, block.runs, cast(Any, block.groups), provider))
        yield from metrics


def _block_arrays(ms: Sequence, block: _Block, provider: Optional[str]) -> Dict[Any, np.ndarray]:
    """Each measure's per-query values of a block as an array (ir_rbstar's measures without Metric objects)."""
    ours, others = split_by_provider(ms, provider)
    out: Dict[Any, np.ndarray] = {}
    if ours:
        with references.run_scope(block.runs, block.groups):
            values = PROVIDER.evaluator(ours, block.qrels).values(block.run)
        out.update((m, values[m]) for m in ours)
    if others:
        got: Dict[Any, List[float]] = {m: [] for m in others}
        for metric in evaluate_block(others, block.run, block.qrels, block.runs, cast(Any, block.groups),
                                     provider):
            got[metric.measure].append(metric.value)
        out.update((m, np.asarray(v, dtype=np.float64)) for m, v in got.items())
    return out


def stream_aggregate(measures: Any, run: Source, qrels: Optional[Source] = None, **options: Any) -> Dict[Any, float]:
    """Each measure's aggregate (its mean, summed exactly) over every query, streamed as
    :func:`stream_calc` (same arguments): ``{measure: value}`` as ``ir_measures.calc_aggregate`` returns."""
    unknown = set(options) - {"runs", "groups", "order", "block_rows", "memory", "tmpdir", "columns", "provider",
                              "progress"}
    if unknown:
        raise TypeError(f"stream_aggregate: unexpected argument {sorted(unknown)[0]!r}")
    ms, plan, rows = _prepare(measures, run, qrels, options.get("runs"), options.get("groups"),
                              options.get("order", "auto"), options.get("block_rows"), options.get("memory"),
                              options.get("columns"))
    means = Means(ms)
    for block in _blocks(plan, options.get("order", "auto"), rows, options.get("tmpdir"), options.get("progress")):
        with block.fast():
            arrays = _block_arrays(ms, block, options.get("provider"))
        for m, values in arrays.items():
            means.add(m, values)
    return means.result()


# ------------------------------------------------------------------------------------------ means

_SHIFT = 1126          # 2**-1074 is the smallest double: mantissa * 2**(e - 53 + _SHIFT) is an integer


class _ExactSum:
    """The exact sum of many doubles in an integer scaled by 2**_SHIFT (vectorised: the mantissas of a
    block are summed per exponent in int64 halves, a few Python integers per block)."""

    def __init__(self) -> None:
        self.total = 0
        self.special = 0.0                    # inf / nan, summed as floats (as fsum would raise or return)
        self.has_special = False

    def add(self, values: np.ndarray) -> None:
        v = np.asarray(values, dtype=np.float64)
        finite = np.isfinite(v)
        if not finite.all():
            self.has_special = True
            self.special += float(np.sum(v[~finite]))
            v = v[finite]
        v = v[v != 0]
        if not len(v):
            return
        mant, exp = np.frexp(v)                                  # v = mant * 2**exp, 0.5 <= |mant| < 1
        m = (mant * 2.0 ** 53).astype(np.int64)                  # exact
        order = np.argsort(exp, kind="stable")
        exp, m = exp[order], m[order]
        starts = np.flatnonzero(np.r_[True, exp[1:] != exp[:-1]])
        hi = np.add.reduceat(m >> 26, starts)                     # |m >> 26| < 2**27: no overflow below 2**36 rows
        lo = np.add.reduceat(m & ((1 << 26) - 1), starts)
        for e, a, b in zip(exp[starts].tolist(), hi.tolist(), lo.tolist(), strict=True):
            self.total += ((a << 26) + b) << (e - 53 + _SHIFT)

    def value(self) -> float:
        if self.has_special:
            return self.special + float(Fraction(self.total, 1 << _SHIFT))
        return float(Fraction(self.total, 1 << _SHIFT))        # correctly rounded, as math.fsum


class Means:
    """Each measure's aggregate over per-query values given in any number of pieces, in memory that does
    not grow with the number of queries: a mean (every measure of this package and most of ir_measures')
    from an exact sum (equal to ``math.fsum`` of all the values, divided by their count, whatever the
    pieces and their order); any other aggregator is fed the values as they come."""

    def __init__(self, measures: Sequence):
        self.measures = list(measures)
        self._sums: Dict[Any, _ExactSum] = {}
        self._counts: Dict[Any, int] = {}
        self._aggs: Dict[Any, Any] = {}
        self._pending: Dict[Any, List[float]] = {}
        for m in self.measures:
            agg = m.aggregator()
            if type(agg) is MeanAgg:
                self._sums[m], self._counts[m] = _ExactSum(), 0
            else:
                self._aggs[m] = agg

    def add(self, measure: Any, values: Any) -> None:
        """Per-query values (an array) of ``measure``."""
        if measure in self._sums:
            arr = np.asarray(values, dtype=np.float64)
            self._sums[measure].add(arr)
            self._counts[measure] += len(arr)
        else:
            agg = self._aggs[measure]
            for v in np.asarray(values, dtype=np.float64).tolist():
                agg.add(v)

    def add_metric(self, metric: Metric) -> None:
        """One per-query value (buffered, summed by pieces)."""
        pending = self._pending.setdefault(metric.measure, [])
        pending.append(metric.value)
        if len(pending) >= 1 << 16:
            self._flush(metric.measure)

    def _flush(self, measure: Any) -> None:
        pending = self._pending.pop(measure, None)
        if pending:
            self.add(measure, pending)

    def result(self) -> Dict[Any, float]:
        for m in list(self._pending):
            self._flush(m)
        out: Dict[Any, float] = {}
        for m in self.measures:
            if m in self._sums:
                n = self._counts[m]
                out[m] = self._sums[m].value() / n if n else m.aggregator().result()
            else:
                out[m] = self._aggs[m].result()
        return out

