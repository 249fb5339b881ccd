"""How :mod:`ir_rbstar.scale.stream` cuts its inputs into blocks of whole queries: a merge of sorted
inputs by ranges of query ids (one pass), the check of their order, and hash partitions on disk for
inputs in any order (two passes)."""
from __future__ import annotations

import math
import os
import shutil
import struct
from typing import Any, Iterator, List, Optional, Sequence

import numpy as np

from ..io import hash_ids
from ..progress import Progress

from ._sources import _MAX_PARTS, _Cols, _Source, _cat, _keys, _order_error


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

# A piece of a part file: the row count and the four columns' dtypes (``dtype.str``, never an object dtype),
# then the columns' bytes one after the other. One write and two reads a piece: ``np.save``/``np.load`` of the
# four arrays cost about 0.8 ms a piece in header formatting and parsing, and an input split into p parts in
# chunks of a quarter block writes about 4 p pieces a block (18,000 rows in blocks of 150: 57,600 arrays, 9
# of 11 s).
_HEAD = struct.Struct("<q16s16s16s16s")


def _pack(arrays: Sequence[np.ndarray]) -> bytes:
    arrays = [np.ascontiguousarray(a) for a in arrays]
    for a in arrays:
        if a.dtype.hasobject:
            raise TypeError(f"a hash part cannot hold objects ({a.dtype})")
    head = _HEAD.pack(len(arrays[0]), *(a.dtype.str.encode("ascii") for a in arrays))
    return b"".join([head, *(a.tobytes() for a in arrays)])


def _unpack(f: Any) -> List[np.ndarray]:
    head = f.read(_HEAD.size)
    if len(head) != _HEAD.size:
        raise OSError(f"{f.name}: a hash part ends inside a piece (was it changed while the evaluation ran?)")
    n, *codes = _HEAD.unpack(head)
    dtypes = [np.dtype(c.rstrip(b"\0").decode("ascii")) for c in codes]
    buf = bytearray(sum(n * dt.itemsize for dt in dtypes))
    if f.readinto(buf) != len(buf):
        raise OSError(f"{f.name}: a hash part ends inside a piece (was it changed while the evaluation ran?)")
    out, at = [], 0
    for dt in dtypes:
        out.append(np.frombuffer(buf, dtype=dt, count=n, offset=at) if dt.itemsize else np.empty(n, dt))
        at += n * dt.itemsize
    return out


class _Parts:
    """Rows of every input split by a hash of the query id into ``p`` parts, as files of pieces (:func:`_pack`)."""

    def __init__(self, root: str, p: int, div: int, n_sources: int):
        self.root, self.p, self.div = root, p, div
        self.counts = np.zeros((p, n_sources), dtype=np.int64)
        os.makedirs(root, exist_ok=True)

    def path(self, part: int, si: int) -> str:
        return os.path.join(self.root, f"part{part}-input{si}.bin")

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
                f.write(_pack([c.q[rows], c.d[rows], c.v[rows], c.line[rows]]))

    def read(self, part: int, si: int) -> Iterator[_Cols]:
        path = self.path(part, si)
        if not os.path.exists(path):
            return
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            while f.tell() < size:
                yield _Cols(*_unpack(f))

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
            split = int(sub.counts.max(axis=0).max()) < biggest       # it did split (not one big query)
            yield from _part_blocks(sub, sources, block_rows, level + 1 if split else 3)
            shutil.rmtree(sub.root, ignore_errors=True)
            continue
        block = [_cat(list(parts.read(part, si)), src.kind) for si, src in enumerate(sources)]
        parts.drop(part)
        if any(len(b) for b in block):
            yield block
