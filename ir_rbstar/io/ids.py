"""Ids: query ids interned as small integer codes, document ids as UTF-8 bytes with a 64-bit hash."""
from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Iterable, List, Optional

import numpy as np

from ..errors import InputFormatError
from . import extension


class _QueryVocab:
    """Interns query ids (few) as dense integer codes."""

    def __init__(self) -> None:
        self._codes: Dict[str, int] = {}
        self._ids: List[str] = []
        # the ids as an object array for decode, grown by doubling: decoding after new ids were interned
        # copies only the new ones (streaming interns a block of new queries at a time)
        self._array = np.empty(0, dtype=object)
        self._filled = 0

    def __len__(self) -> int:
        return len(self._ids)

    def encode(self, values: Iterable[str]) -> np.ndarray:
        values = values if type(values) is list else list(values)
        known = list(map(self._codes.get, values))       # ids interned before: one C pass
        if None not in known:
            return np.array(known, dtype=np.int64)
        out = []
        for v in values:
            code = self._codes.get(v)
            if code is None:
                code = self._codes[v] = len(self._ids)
                self._ids.append(v)
            out.append(code)
        return np.array(out, dtype=np.int64)

    def decode(self, codes: np.ndarray) -> np.ndarray:
        n = len(self._ids)
        if self._filled < n:
            if len(self._array) < n:
                grown = np.empty(max(n, 2 * len(self._array), 1024), dtype=object)
                grown[:self._filled] = self._array[:self._filled]
                self._array = grown
            self._array[self._filled:n] = self._ids[self._filled:n]
            self._filled = n
        return self._array[:n][np.asarray(codes, dtype=np.int64)]


QUERY_IDS = _QueryVocab()


_M1 = np.uint64(0xBF58476D1CE4E5B9)


_M2 = np.uint64(0x94D049BB133111EB)


_GOLD = np.uint64(0x9E3779B97F4A7C15)


_BLOCK = 1 << 20

#: the block of :func:`hash_ids`'s mixing of later words: its temporary (64 KiB) comes from the heap, not
#: from pages mapped afresh for each call
_SCRATCH = 1 << 13


def _mix(h: np.ndarray, scratch: Optional[np.ndarray] = None) -> np.ndarray:
    """splitmix64 finaliser (a bijection on uint64), in place on ``h`` (which it returns); a block at a
    time, so that its temporaries are small and reused rather than new memory the size of ``h``
    (``scratch``: a uint64 array of at least ``min(len(h), _BLOCK)`` cells to use for them)."""
    t = np.empty(min(len(h), _BLOCK), dtype=np.uint64) if scratch is None else scratch
    step = max(len(t), 1)
    for i in range(0, len(h), step):
        b = h[i:i + step]
        u = t[:len(b)]
        np.right_shift(b, np.uint64(30), out=u)
        b ^= u
        b *= _M1
        np.right_shift(b, np.uint64(27), out=u)
        b ^= u
        b *= _M2
        np.right_shift(b, np.uint64(31), out=u)
        b ^= u
    return h


def hash_ids(ids: np.ndarray) -> np.ndarray:
    """64-bit hash of each id of a bytes (``S``) array; independent of the array's padded width."""
    n = len(ids)
    width = ids.dtype.itemsize
    words = -(-width // 8)
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    if extension.compiled is not None and sys.byteorder == "little":
        # the same words (read in the machine's order) and mixing in C, one id at a time, where the extension is
        # built (the numpy steps below: 0.1 ms for 4,300 ids)
        flat = np.ascontiguousarray(ids).view(np.uint8)
        return np.frombuffer(extension.compiled.hash_ids(flat, width), dtype=np.uint64)
    own = not (width % 8 == 0 and ids.flags.c_contiguous)
    w = id_words(ids, words)                                        # a view of the ids unless ``own``
    with np.errstate(over="ignore"):
        # a bijection: ids of up to 8 bytes never collide (mixed in place when the padded copy is one word)
        h = _mix(w[:, 0] if own and words == 1 else w[:, 0].copy())
        scratch = None
        for j in range(1, words):
            col = w[:, j]
            # all-zero words are padding (ids hold no NUL bytes): skipping them makes the width irrelevant
            nz = col != 0
            some = int(np.count_nonzero(nz))
            if some == 0:
                continue
            if scratch is None:
                scratch = np.empty(min(n, _SCRATCH), dtype=np.uint64)
            if some > n // 2:
                # most ids reach this word: every row mixed in place, the others' hashes put back (none when
                # all do; no temporaries of the column's size, whose fresh pages cost more than the few rows'
                # gather and scatter)
                rest = np.flatnonzero(~nz)
                kept = h[rest]
                h ^= col
                _mix(h, scratch)
                h[rest] = kept
            else:
                h[nz] = _mix(h[nz] ^ col[nz], scratch)
        return h


def id_words(ids: np.ndarray, words: Optional[int] = None, ordered: bool = False) -> np.ndarray:
    """The ids of a bytes (``S``) array as rows of 8-byte words (rows x ``words``, ``uint64``; by default as
    few words as hold the widest id), NUL-padded: the one conversion the package uses to hash, compare and
    order ids a word at a time. Two ids are equal exactly when their rows are (ids hold no NUL byte). The
    words are the ids' bytes in the machine's order, or with ``ordered`` read big-endian, so that the rows
    order (word by word) as the ids do byte for byte. A view of the ids' own buffer when they are whole words
    already and contiguous (unless ``ordered``): not to be written; else a new array (:func:`_padded_words`,
    or numpy's cast where that does not apply)."""
    n, width = len(ids), ids.dtype.itemsize
    need = max(1, -(-width // 8))
    words = need if words is None else words
    if words < need:
        raise ValueError(f"id_words: {words} word(s) cannot hold ids of {width} bytes")
    if n == 0:
        return np.zeros((0, words), dtype=np.uint64)
    if words > need:                        # a common width with wider ids: whole words of NUL bytes after
        out = np.zeros((n, words), dtype=np.uint64)
        out[:, :need] = id_words(ids, need, ordered=ordered)
        return out
    if width == 8 * words and ids.flags.c_contiguous:
        if ordered:                         # one pass: the big-endian words converted to numbers
            return ids.view(">u8").reshape(n, words).astype(np.uint64)
        return ids.view(np.uint64).reshape(n, words)
    if ids.flags.c_contiguous and sys.byteorder == "little":
        w = _padded_words(ids, words)
        return w.byteswap(inplace=True) if ordered else w
    padded = np.ascontiguousarray(ids.astype(f"S{8 * words}"))
    return padded.view(">u8").reshape(n, words).astype(np.uint64) if ordered \
        else padded.view(np.uint64).reshape(n, words)


def keyed_id_bytes(prefix: np.ndarray, ids: np.ndarray, head: int = 8, complement: bool = False) -> np.ndarray:
    """Rows x (``head`` + id width) bytes: each row's ``prefix`` (a non-negative integer below 2^(8 head))
    big-endian, then its id's bytes, NUL-padded, or with ``complement`` each byte subtracted from 255. Rows
    compared as bytes order by (prefix, id), or (prefix, id descending) with ``complement``: a NUL-padded
    prefix of a longer id then sorts after it, as it does before it in ascending order."""
    m, width = len(ids), ids.dtype.itemsize
    key = np.empty((m, head + width), dtype=np.uint8)
    key[:, :head] = np.asarray(prefix).astype(f">u{head}").view(np.uint8).reshape(m, head)
    raw = np.ascontiguousarray(ids).view(np.uint8).reshape(m, width)
    if complement:
        np.subtract(255, raw, out=key[:, head:])
    else:
        key[:, head:] = raw
    return key


def _padded_words(ids: np.ndarray, words: int) -> np.ndarray:
    """``ids.astype(f"S{8 * words}")`` as 8-byte words (rows x words), read from the ids' own bytes: word j
    of an id is the 8 bytes from its byte 8j (a strided view over a copy of the buffer with 8 bytes to
    spare), the bytes past the id cleared by a mask (little-endian: the low bytes are the first). About a
    third of numpy's cast to the wider bytes type."""
    n, width = len(ids), ids.dtype.itemsize
    buf = np.zeros(n * width + 8, dtype=np.uint8)
    buf[:n * width] = ids.view(np.uint8).reshape(-1)
    out = np.empty((n, words), dtype=np.uint64)
    for j in range(words):
        word = np.ndarray((n,), dtype=np.uint64, buffer=buf, offset=8 * j, strides=(width,))
        keep = width - 8 * j                  # bytes of the id in this word (8 or more: all of them)
        if keep >= 8:
            out[:, j] = word
        else:
            np.bitwise_and(word, np.uint64((1 << (8 * keep)) - 1), out=out[:, j])
    return out


def doc_bytes(values: Any) -> np.ndarray:
    """Ids as a bytes (``S``) array, UTF-8 encoded."""
    arr = np.asarray(values)
    if arr.dtype.kind == "S":
        return arr
    if len(arr) == 0:
        return np.empty(0, dtype="S1")
    if arr.dtype.kind == "O":
        _check_widths(arr)
    try:
        return arr.astype("S")
    except UnicodeEncodeError:
        out = []
        for v in arr.tolist():
            try:
                out.append(v if isinstance(v, bytes) else str(v).encode("utf-8"))
            except UnicodeEncodeError as e:
                raise InputFormatError(f"id {v!r} cannot be written as UTF-8 ({e.reason})") from None
        return np.array(out, dtype="S")


def _check_widths(arr: np.ndarray) -> None:
    """Ids become a fixed-width column (rows x the longest id): refuse an id so long that this would
    exceed max(64 MiB, 8 x the ids' total length) (as the TREC readers do), rather than allocate it."""
    try:
        lens = np.fromiter(map(len, arr.tolist()), dtype=np.int64, count=len(arr))
    except TypeError:                       # numbers among the ids: short once written
        return
    check_width_budget(lens)


#: the floor of the budget of a fixed-width column of ids (:func:`check_width_budget`)
WIDTH_FLOOR = 64 << 20


def width_budget(total: int) -> int:
    """The most bytes a fixed-width column of ids of ``total`` bytes in all may take: max(64 MiB, 8 x ``total``)."""
    return max(WIDTH_FLOOR, 8 * total)


def check_width_budget(lens: np.ndarray, where: Optional[Callable[[int], str]] = None) -> None:
    """Refuse ids of these lengths when a fixed-width column of them (rows x the longest) would exceed
    max(64 MiB, 8 x their total length), naming the row of the longest (``where(row)``: how to name it;
    default "row N")."""
    if len(lens) == 0:
        return
    i = int(np.argmax(lens))
    budget = width_budget(int(lens.sum()))
    if len(lens) * int(lens[i]) > budget:
        at = where(i) if where is not None else f"row {i}"
        raise InputFormatError(f"{at}: an id of {int(lens[i]):,} characters; with {len(lens):,} rows the longest "
                               f"id may have {budget // len(lens):,}: ids are held in fixed-width columns (rows x the "
                               f"longest id), limited to max(64 MiB, 8 x the ids' total size)")


def check_utf8(ids: np.ndarray, column: str, source: str, line_of=None) -> None:
    """Every id must be UTF-8 text (ASCII ids are checked by one comparison over the whole column; only
    ids with a byte >= 128 are decoded). An id that is not names its file and line, at every door."""
    if ids.dtype.kind != "S" or len(ids) == 0 or ids.dtype.itemsize == 0:
        return
    raw = ids.view(np.uint8)
    if int(raw.max()) < 128:
        return
    wide = np.flatnonzero(raw.reshape(len(ids), -1).max(axis=1) >= 128)
    for i in wide.tolist():
        try:
            ids[i].decode("utf-8")
        except UnicodeDecodeError:
            where = f" line {line_of(i)}:" if line_of is not None else ""
            raise InputFormatError(f"{source}:{where} {column} {_raw(ids[i])!r} is not UTF-8 text; ids must be UTF-8: "
                                   f"re-encode the file (e.g. iconv -f latin1 -t utf-8)") from None


def query_text(v: Any) -> str:
    """A query id as text: bytes (or a numpy bytes scalar) decoded as UTF-8, as in a bytes column,
    anything else by ``str``."""
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise InputFormatError(f"query id {v!r} is not UTF-8 text; ids must be UTF-8") from None
    return str(v)


def _to_str(values: np.ndarray) -> np.ndarray:
    """Bytes ids back to Python strings (object array)."""
    try:
        return values.astype(str).astype(object)
    except UnicodeDecodeError:
        return np.array([v.decode("utf-8") for v in values.tolist()], dtype=object)


class _Shown(str):
    """Text that a message shows as it is (its ``repr`` without quotes)."""

    def __repr__(self) -> str:
        return str(self)


def _show(v: Any) -> Any:
    """A value for a message: a numpy scalar as the Python value it holds (numpy 2's reprs, such as
    ``np.float64(nan)``, never reach a message; numpy's NaT, whose value is None, as NaT), bytes as text."""
    if isinstance(v, (np.datetime64, np.timedelta64)) and np.isnat(v):
        return _Shown("NaT")
    if isinstance(v, np.generic):
        v = v.item()
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def _raw(v: Any) -> Any:
    """A numpy scalar as the Python value it holds (bytes stay bytes: for ids that are not UTF-8)."""
    return v.item() if isinstance(v, np.generic) else v


class CodedIds:
    """Query ids already interned (:data:`QUERY_IDS` codes, one per row); ``ids[i]`` decodes one, for
    error messages."""

    def __init__(self, codes: np.ndarray):
        self.codes = codes

    def __getitem__(self, i: int) -> str:
        return QUERY_IDS.decode(self.codes[i:i + 1])[0]

    def __len__(self) -> int:
        return len(self.codes)
