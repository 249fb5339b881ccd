"""Inputs of :mod:`ir_rbstar.scale.stream`: TREC files, Parquet files and datasets, and objects in memory,
read as chunks of columns (query ids, document ids, scores or grades, line or row numbers), and the
check that an input is sorted by query id."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, List, Mapping, Optional

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import EmptyInputError, InputFormatError, MissingExtraError
from ..io import QUERY_IDS, doc_bytes, to_qrels, to_ranking
from ..io.columns import _as_float
from ..io.convert import _is_path
from ..io.trec import iter_trec_chunks


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
        if os.path.isdir(path):
            raise InputFormatError(f"{path}: is a directory, expected a {kind} file")
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
        try:
            with opener(self.path, "rb") as f:
                sample = f.read(1 << 16)
        except (OSError, EOFError) as e:                  # a truncated or corrupt .gz: the reader's own error
            raise InputFormatError(f"{self.path}: cannot read the {self.kind} file ({e})") from None
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
            if os.path.isdir(path) and not self.dataset.files:
                raise EmptyInputError(f"{path}: is a directory without a Parquet file, expected a {kind} file "
                                      f"or a directory of Parquet files")
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
            self.q = doc_bytes(QUERY_IDS.decode(r.qcodes[r.row_segments()]))
            self.d, self.v = r.dbytes, np.asarray(r.scores, dtype=np.float64)
        else:
            j = to_qrels(obj, source=label)
            self.q, self.d, self.v = doc_bytes(QUERY_IDS.decode(j.rowq)), j.rowb, np.asarray(j.grades)

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


def _is_parquet(obj: Any) -> bool:
    if not isinstance(obj, (str, os.PathLike)):
        return type(obj).__module__.startswith("pyarrow")
    path = os.fspath(obj)
    if path.lower().endswith(_PARQUET_SUFFIXES):
        return True
    return os.path.isdir(path)


def _keys(q: np.ndarray, mode: str, src: _Source, line: np.ndarray) -> np.ndarray:
    """The ordering key of each row: the id bytes ("sorted"), or the id's integer value ("numeric")."""
    if mode != "numeric":
        return q
    try:
        return q.astype(np.int64)
    except (ValueError, OverflowError):
        for i, x in enumerate(q.tolist()):          # only to name the offending id
            try:
                ok = -(2 ** 63) <= int(x) < 2 ** 63
            except ValueError:
                ok = False
            if not ok:
                shown = x.decode("utf-8", "replace")
                raise InputFormatError(f"{src.name}: {src.word} {int(line[i])}: query id {shown!r} "
                                       f"is not an integer of 64 bits; order='numeric' needs integer query ids (use "
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
