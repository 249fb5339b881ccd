"""Reading runs and qrels into one columnar form.

Every input form (TREC text file, ``.gz``, pandas DataFrame, dict of dicts, iterable of namedtuples)
is converted once into numpy arrays:

* :class:`Ranking`: one segment per query, rows in trec_eval order, with the tie groups of equal score
  known for every row;
* :class:`Qrels`: judgments with integer grades, sorted by (query, document) key.

Query ids are interned as small integer codes (process-wide). Document ids are kept as bytes
(``numpy`` ``S`` arrays) together with a 64-bit hash of each; rows of different tables are joined on
a 64-bit key made of the query code and the document hash with ``np.searchsorted``, and every match
is verified on the document bytes, so a hash collision can never join two different documents
(it would raise :class:`~ir_rbstar.errors.RbstarError`; with 64-bit hashes it is not expected to happen).

**The run order and a tie**, one definition for every measure: trec_eval keeps a run's scores as
single-precision floats, so a run is ordered by its scores rounded to float32, descending, then by
document id (its bytes), descending; two documents are *tied* when their scores are equal in float32.
This is exactly trec_eval's (and pytrec_eval's) order, so every tie-oblivious measure equals
pytrec_eval's on every input, and a ``_TA`` measure equals its tie-oblivious counterpart whenever no two
scores of a query are equal in float32 (rounding is monotone, so scores that differ in float32 keep
their float64 order). The float64 scores themselves are kept (e.g. in :func:`ranking_frame`).

TREC files are tokenised by a vectorised scanner over the raw bytes (no Python per line); a file the
scanner does not accept (indented or irregular lines) is re-read line by line, which names the first
offending line and the number of columns found. A UTF-8 byte-order mark is skipped; ids must be UTF-8.
"""
from __future__ import annotations

import gc
import gzip
import inspect
import os
from itertools import chain, islice
from operator import itemgetter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple, cast

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from .engine import compiled
from .errors import DuplicateDocumentError, EmptyInputError, InputFormatError, RbstarError

__all__ = ["Ranking", "Qrels", "to_ranking", "to_qrels", "read_trec_run", "read_trec_qrels", "read_run_frame",
           "read_qrels_frame", "QUERY_IDS", "doc_bytes", "hash_ids"]


class _QueryVocab:
    """Interns query ids (few) as dense integer codes."""

    def __init__(self) -> None:
        self._codes: Dict[str, int] = {}
        self._ids: List[str] = []

    def __len__(self) -> int:
        return len(self._ids)

    def encode(self, values: Iterable[str]) -> np.ndarray:
        out = []
        for v in values:
            code = self._codes.get(v)
            if code is None:
                code = self._codes[v] = len(self._ids)
                self._ids.append(v)
            out.append(code)
        return np.array(out, dtype=np.int64)

    def decode(self, codes: np.ndarray) -> np.ndarray:
        ids = np.empty(len(self._ids), dtype=object)
        ids[:] = self._ids
        return ids[np.asarray(codes, dtype=np.int64)]


QUERY_IDS = _QueryVocab()

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


_BLOCK = 1 << 20


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (a bijection on uint64), in place on ``h`` (which it returns); a block at a
    time, so that its temporaries are small and reused rather than new memory the size of ``h``."""
    t = np.empty(min(len(h), _BLOCK), dtype=np.uint64)
    for i in range(0, len(h), _BLOCK):
        b = h[i:i + _BLOCK]
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
    if width % 8 == 0 and ids.flags.c_contiguous:
        w = ids.view(np.uint64).reshape(n, words)                   # whole words already: no padding
    else:
        w = ids.astype(f"S{words * 8}").view(np.uint64).reshape(n, words)   # NUL padding to whole words
    with np.errstate(over="ignore"):
        h = _mix(w[:, 0].copy())          # a bijection: ids of up to 8 bytes never collide
        for j in range(1, words):
            col = w[:, j]
            # all-zero words are padding (ids hold no NUL bytes): skipping them makes the width irrelevant
            nz = col != 0
            if nz.any():
                h[nz] = _mix(h[nz] ^ col[nz])
        return h


def doc_bytes(values: Any) -> np.ndarray:
    """Ids as a bytes (``S``) array, UTF-8 encoded."""
    arr = np.asarray(values)
    if arr.dtype.kind == "S":
        return arr
    if len(arr) == 0:
        return np.empty(0, dtype="S1")
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
            raise InputFormatError(f"{source}:{where} {column} {ids[i]!r} is not UTF-8 text; ids must be UTF-8: "
                                   f"re-encode the file (e.g. iconv -f latin1 -t utf-8)") from None


def _to_str(values: np.ndarray) -> np.ndarray:
    """Bytes ids back to Python strings (object array)."""
    try:
        return values.astype(str).astype(object)
    except UnicodeDecodeError:
        return np.array([v.decode("utf-8") for v in values.tolist()], dtype=object)


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """Segment index of every row, from segment offsets."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def order_key(scores: np.ndarray) -> np.ndarray:
    """The scores as trec_eval compares them: single-precision floats (trec_eval, and pytrec_eval, keep a
    run's scores as C floats). Two scores equal here are tied."""
    with np.errstate(over="ignore"):        # beyond float32's range a score is +-inf, as in trec_eval
        return scores.astype(np.float32)


def tie_layout(seg: np.ndarray, scores: np.ndarray, pos: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Tie groups of ranked rows (runs of equal score within a query, rows of a query contiguous and in
    rank order): for each row the 0-based position where its group starts, and the group's size."""
    n = len(seg)
    key = order_key(scores)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = (seg[1:] != seg[:-1]) | (key[1:] != key[:-1])
    gid = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    sizes = np.diff(np.append(first, n))
    return pos[first][gid], sizes[gid]


@dataclass
class Ranking:
    """A run in columnar form: one segment per query, rows in trec_eval order."""

    qcodes: np.ndarray      # query code of each segment (unique)
    offsets: np.ndarray     # segment boundaries, len(qcodes) + 1
    dbytes: np.ndarray      # document id (bytes) of each row
    docs: np.ndarray        # 64-bit hash of each row's document id
    scores: np.ndarray      # score of each row
    source: str = "<run>"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def row_segments(self) -> np.ndarray:
        if "seg" not in self._cache:
            self._cache["seg"] = segment_ids(self.offsets)
        return self._cache["seg"]

    def row_positions(self) -> np.ndarray:
        """0-based rank of each row within its query."""
        if "pos" not in self._cache:
            self._cache["pos"] = self.row_ranks() - 1
        return self._cache["pos"]

    def row_ranks(self) -> np.ndarray:
        """1-based rank of each row within its query: a running count that restarts at each query (one
        array: each query's first row holds 1 minus the length of the query before, then a cumsum)."""
        if "rank" not in self._cache:
            rank = np.ones(len(self), dtype=np.int64)
            rank[self.offsets[1:-1]] = 1 - np.diff(self.offsets[:-1])
            np.cumsum(rank, out=rank)
            self._cache["rank"] = rank
        return self._cache["rank"]

    def tie_groups(self) -> Tuple[np.ndarray, np.ndarray]:
        """For each row: the 0-based position where its tie group (equal score) starts, and its size."""
        if "ties" not in self._cache:
            self._cache["ties"] = tie_layout(self.row_segments(), self.scores, self.row_positions())
        return self._cache["ties"]

    def row_queries(self) -> np.ndarray:
        """The query code of every row."""
        if "rowq" not in self._cache:
            self._cache["rowq"] = rows_of_segments(self.offsets, self.qcodes)
        return self._cache["rowq"]

    def has_index(self) -> bool:
        return "index" in self._cache

    def build_index(self) -> None:
        """Build the hash index of (query, document) pairs now (references do so when first converted)."""
        if "index" not in self._cache:
            self._cache["index"] = DocIndex(self.row_queries(), self.docs)

    def find(self, qcodes: np.ndarray, dhash: np.ndarray, dbytes: np.ndarray) -> np.ndarray:
        """Row index (or -1) of each (query code, document) pair; every match is verified."""
        self.build_index()
        rows = self._cache["index"].lookup(qcodes, dhash)
        verify_ids(self.dbytes, rows, dbytes, self.source)
        return rows

    def segment_of(self, qcodes: np.ndarray) -> np.ndarray:
        """Segment index of each query code, -1 where the query has no rows here."""
        if "qsort" not in self._cache:
            perm = np.argsort(self.qcodes, kind="stable")
            self._cache["qsort"] = (self.qcodes[perm], perm)
        sorted_q, perm = self._cache["qsort"]
        return _find(sorted_q, perm, np.asarray(qcodes, dtype=np.int64))

    def segment_lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


@dataclass
class Qrels:
    """Relevance judgments, one row per (query, document), in input order."""

    qcodes: np.ndarray      # unique query codes, in first-seen order
    rowq: np.ndarray        # query code of each row
    rowd: np.ndarray        # doc hash of each row
    rowb: np.ndarray        # doc id (bytes) of each row
    grades: np.ndarray      # integer grade of each row
    source: str = "<qrels>"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def max_grade(self) -> int:
        return int(self.grades.max()) if len(self.grades) else 0

    def lookup(self, qcodes: np.ndarray, dhash: np.ndarray, dbytes: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(grade, judged) for each (query code, document) pair."""
        rows = self.find_rows(qcodes, dhash)
        verify_ids(self.rowb, rows, dbytes, self.source)
        judged = rows >= 0
        grade = np.zeros(len(rows), dtype=np.int64)
        grade[judged] = self.grades[rows[judged]]
        return grade, judged

    def find_rows(self, qcodes: np.ndarray, dhash: np.ndarray) -> np.ndarray:
        """The qrels row of each (query code, document hash) pair, -1 where there is none; the document
        ids are not verified here (:meth:`lookup` does, and callers that already used it may skip it)."""
        if "index" not in self._cache:
            self._cache["index"] = DocIndex(self.rowq, self.rowd)
        return self._cache["index"].lookup(qcodes, dhash)

    def as_ranking(self, rel: int) -> Ranking:
        """The reference ranking derived from the judgments: grade >= rel, grade descending, equal grades tied."""
        key = ("ranking", rel)
        if key not in self._cache:
            keep = self.grades >= rel
            self._cache[key] = _build_ranking(self.rowq[keep], self.rowb[keep], self.rowd[keep],
                                              self.grades[keep].astype(np.float64), f"{self.source} (grade >= {rel})",
                                              qorder=self.qcodes, break_ties=False)
        return self._cache[key]

    def frame(self) -> pd.DataFrame:
        """The judgments as a DataFrame ``query_id, doc_id, relevance``."""
        return pd.DataFrame({"query_id": QUERY_IDS.decode(self.rowq), "doc_id": _to_str(self.rowb),
                             "relevance": self.grades})


def _find(sorted_keys: np.ndarray, perm: Optional[np.ndarray], keys: np.ndarray) -> np.ndarray:
    if len(sorted_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    pos = np.searchsorted(sorted_keys, keys)
    pos_c = np.minimum(pos, len(sorted_keys) - 1)
    hit = sorted_keys[pos_c] == keys
    out = np.where(hit, pos_c, -1).astype(np.int64)
    if perm is not None:
        out[hit] = perm[out[hit]]
    return out


def rows_of_segments(offsets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values[s]`` for every row of segment ``s`` (segments given by their offsets)."""
    lens = np.diff(offsets)
    if len(lens) == 0:
        return np.empty(0, dtype=values.dtype)
    if (lens > 0).all():
        # one write per segment start and a cumulative sum: cheaper than np.repeat with counts
        step = np.zeros(int(offsets[-1]), dtype=np.int64)
        step[offsets[1:-1]] = 1
        return values[np.cumsum(step)]
    return np.repeat(values, lens)


class DocIndex:
    """Hash index of (query code, document hash) pairs, one row each, with a table per query.

    The rows of each query get their own open-addressing table (a power of two of at least twice their
    number of slots); a row sits at the slot given by the low bits of its document hash. All tables are
    filled at once by one numpy scatter: of the rows that want the same slot one wins, the others go to
    the next level, whose tables use other bits of the hash, and so on (each level holds a fraction of
    the previous one). Because rows usually come grouped by query, each query's reads and writes stay
    within its own table, a few kilobytes: unlike one big table over all pairs, the memory accesses are
    local, which is what makes this index several times faster to build than a general hash table.

    Two rows of the same query with the same document hash are reported by :attr:`clashes` (pairs of
    row numbers), not stored: for a run or qrels that is a duplicate document (or, with different ids,
    a 64-bit hash collision).
    """

    def __init__(self, qcodes: np.ndarray, dhash: np.ndarray):
        qcodes = np.asarray(qcodes, dtype=np.int64)
        self._hash = np.ascontiguousarray(dhash, dtype=np.uint64).view(np.int64)
        # the queries present get local numbers 0..k-1: the tables' bookkeeping is per present query
        present = np.zeros(int(qcodes.max(initial=-1)) + 1, dtype=bool)
        present[qcodes] = True
        self._local = np.cumsum(present) - 1
        self._local[~present] = -1
        k = int(present.sum())
        self._levels: List[Tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        clash_a, clash_b = [], []
        rows = np.arange(len(qcodes), dtype=np.int32 if len(qcodes) < 2 ** 31 else np.int64)
        q, h = self._local[qcodes], self._hash
        level = 0
        while len(rows):
            count = np.bincount(q, minlength=k)
            # slots per query: a power of two >= 2 x its rows (one slot, always empty, for absent queries)
            bits = np.zeros(k, dtype=np.int64)
            has = count > 0
            bits[has] = np.ceil(np.log2(count[has])).astype(np.int64) + 1
            size = np.left_shift(1, bits)
            base = np.cumsum(size) - size
            slot = base[q] + (_level_hash(h, level) & (size - 1)[q])
            table = np.full(int(size.sum()), -1, dtype=rows.dtype)
            table[slot] = rows
            holder = table[slot]
            lost = np.flatnonzero(holder != rows)
            self._levels.append((size - 1, base, table))
            if len(lost):
                same = self._hash[holder[lost]] == h[lost]
                if same.any():                   # same query (same table) and same document hash
                    clash_a.append(holder[lost[same]])
                    clash_b.append(rows[lost[same]])
                    lost = lost[~same]
            rows, q, h = rows[lost], q[lost], h[lost]
            level += 1
        self.clashes = (np.concatenate(clash_a).astype(np.int64), np.concatenate(clash_b).astype(np.int64)) \
            if clash_a else None

    def lookup(self, qcodes: np.ndarray, dhash: np.ndarray) -> np.ndarray:
        """The row of each (query code, document hash) pair, -1 where there is none."""
        q = np.asarray(qcodes, dtype=np.int64)
        h = np.ascontiguousarray(dhash, dtype=np.uint64).view(np.int64)
        if len(q) == 0 or not self._levels:
            return np.full(len(q), -1, dtype=np.int64)
        if q.max() < len(self._local) and q.min() >= 0:
            q = self._local[q]
        else:
            q = np.where((q >= 0) & (q < len(self._local)), self._local[np.clip(q, 0, len(self._local) - 1)], -1)
        out = None
        todo = None                            # positions (in out) of the pairs still looked for
        if (q < 0).any():
            out = np.full(len(q), -1, dtype=np.int64)
            todo = np.flatnonzero(q >= 0)
            q, h = q[todo], h[todo]
        for level, (mask, base, table) in enumerate(self._levels):
            # few full-length temporaries: on runs of millions of rows each costs its page faults
            slot = np.take(mask, q)
            np.bitwise_and(slot, _level_hash(h, level), out=slot)
            slot += np.take(base, q)
            holder = table[slot]
            held = holder >= 0
            np.take(self._hash, holder, out=slot)          # the document hash held there (any, if empty)
            hit = np.equal(slot, h)
            hit &= held
            del slot
            if out is None:
                out = holder.astype(np.int64)
                out[~hit] = -1
            else:
                out[cast(np.ndarray, todo)[hit]] = holder[hit]
            # an empty slot ends the search; a slot held by another document sends it to the next level
            more = np.flatnonzero(held & ~hit)
            if len(more) == 0:
                break
            todo = more if todo is None else todo[more]
            q, h = q[more], h[more]
        return cast(np.ndarray, out)             # set at the first level (there is at least one)


class Moves:
    """A reordering that moves few rows (score ties broken by document id in a run already in score
    order): ranked row ``rows[k]`` holds input row ``src[k]``; every other row stays where it is. Cheaper
    than a full permutation on millions of rows: only the moved rows are copied and looked up."""

    def __init__(self, rows: np.ndarray, src: np.ndarray):
        self.rows, self.src = rows, src
        by_src = np.argsort(src)
        self._src_sorted, self._rows_by_src = src[by_src], rows[by_src]

    def input_of(self, ranked: np.ndarray) -> np.ndarray:
        """The input row of each ranked row."""
        return _remap(ranked, self.rows, self.src)

    def ranked_of(self, inputs: np.ndarray) -> np.ndarray:
        """The ranked row of each input row."""
        return _remap(inputs, self._src_sorted, self._rows_by_src)

    def apply(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per input row) in ranked order: a copy with the moved rows moved."""
        out = values.copy()
        out[self.rows] = values[self.src]
        return out


def _remap(x: np.ndarray, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each of ``x`` replaced by ``values[k]`` where it equals ``keys[k]`` (``keys`` sorted), else kept."""
    out = np.array(x, dtype=np.int64)
    if len(keys) == 0 or len(out) == 0:
        return out
    k = np.minimum(np.searchsorted(keys, out), len(keys) - 1)
    hit = keys[k] == out
    out[hit] = values[k[hit]]
    return out


def input_rows(order, ranked: np.ndarray) -> np.ndarray:
    """The input row of each ranked row, for ``order`` a full permutation or :class:`Moves`."""
    return order.input_of(ranked) if isinstance(order, Moves) else order[ranked]


class MovedIndex:
    """A :class:`DocIndex` built on a ranking's input rows, answering with its ranked rows (the rows were
    sorted after the index was built: ``order[i]`` is the input row of ranked row i, or ``order`` is a
    :class:`Moves`). Keeping it saves building a second index for the ranking's joins."""

    def __init__(self, index: DocIndex | MovedIndex, order):
        self.index = index
        self._order = order
        self._ranked: Optional[np.ndarray] = None

    def _ranked_of(self, inputs: np.ndarray) -> np.ndarray:
        if isinstance(self._order, Moves):
            return self._order.ranked_of(inputs)
        ranked = self._ranked
        if ranked is None:                              # the inverse permutation, made on first use
            n = len(self._order)
            kind = np.int32 if n < 2 ** 31 else np.int64
            ranked = self._ranked = np.empty(n, dtype=kind)
            ranked[self._order] = np.arange(n, dtype=kind)
        return ranked[inputs]

    def lookup(self, qcodes: np.ndarray, dhash: np.ndarray) -> np.ndarray:
        rows = self.index.lookup(qcodes, dhash)
        hit = rows >= 0
        rows[hit] = self._ranked_of(rows[hit])
        return rows


def _level_hash(h: np.ndarray, level: int) -> np.ndarray:
    """The hash bits that place a row at ``level`` (the document hash itself at level 0, then remixed)."""
    if level == 0:
        return h
    with np.errstate(over="ignore"):
        return _mix(h.view(np.uint64) + np.uint64(level) * _GOLD).view(np.int64)


def verify_ids(table_ids: np.ndarray, rows: np.ndarray, ids: np.ndarray, source: str) -> None:
    """The documents matched by hash (``rows``, -1 for none) must be the same ids.

    A :class:`DocIndex` match means equal query and equal 64-bit document hash; ids of up to 8 bytes hash
    bijectively, so only longer ids are compared, byte for byte."""
    if table_ids.dtype.itemsize <= 8 and ids.dtype.itemsize <= 8:
        return
    hit = np.flatnonzero(rows >= 0)
    verify_matches(table_ids[rows[hit]], ids[hit], source)


def verify_matches(bytes_a: np.ndarray, bytes_b: np.ndarray, source: str) -> None:
    """Rows matched by (query, document hash) must hold the same document id."""
    bad = bytes_a != bytes_b
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise RbstarError(f"{source}: 64-bit hash collision between document ids {bytes_a[i]!r} and "
                          f"{bytes_b[i]!r}; please report this (it should practically never happen)")


# ---------------------------------------------------------------------------------------------
# Building a Ranking from columns
# ---------------------------------------------------------------------------------------------

def _query_codes(qids: np.ndarray) -> np.ndarray:
    """Query codes per row; cheap when rows come in query blocks (as in TREC files)."""
    n = len(qids)
    if n == 0:
        return np.empty(0, dtype=np.int64)
    change = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    starts = np.r_[0, change]
    heads = qids[starts]
    if heads.dtype.kind == "S":
        heads = _to_str(heads)
    codes = QUERY_IDS.encode(str(h) for h in heads.tolist())
    return np.repeat(codes, np.diff(np.r_[starts, n]))


def _sort_key(scores: np.ndarray, place: np.ndarray) -> np.ndarray:
    """One int64 per row that sorts rows into (``place`` ascending, float32 score descending) order:
    ``place`` (the query's place in the output, < 2**31) in the high 32 bits, the descending code of
    the score (:func:`_descending_code`) in the low 32; equal exactly when both are equal. Built in
    ``place`` itself when it is int64 (few full-length temporaries: on millions of rows each costs its
    page faults)."""
    key = place.astype(np.int64, copy=False)      # the caller's fresh array, reused
    key <<= 32
    key += 0x7FFFFFFF
    key -= _order_bits(order_key(scores))        # += the descending code
    return key


def _descending_code(key: np.ndarray) -> np.ndarray:
    """An int64 per float32 score in 0 .. 2**32-1, smaller for a larger score, equal exactly for equal
    scores (-0.0 and 0.0 included): the float's bits made order-preserving as a signed integer, reversed."""
    code = np.full(len(key), 0x7FFFFFFF, dtype=np.int64)
    code -= _order_bits(key)
    return code


def _order_bits(key: np.ndarray) -> np.ndarray:
    """The float32 scores as int32 that compare as the scores do (-0.0 equal to 0.0)."""
    bits = (key + np.float32(0.0)).view(np.int32)  # a copy in which -0.0 is 0.0
    # negative floats: the bits of the magnitude count the wrong way; flip them (keeping the sign)
    flip = bits >> 31
    flip &= 0x7FFFFFFF
    bits ^= flip
    return bits


def _build_ranking(qcodes: np.ndarray, dbytes: np.ndarray, dhash: np.ndarray, scores: np.ndarray, source: str,
                   qorder: Optional[np.ndarray] = None, break_ties: bool = True,
                   index: Optional[DocIndex | MovedIndex] = None, with_order: bool = False):
    """Sort rows into trec_eval order (doc ids break score ties, descending, when ``break_ties``; else
    tied rows keep their input order). With ``with_order``: (ranking, the input row of each ranked row, as
    an array or as :class:`Moves` when only tied rows moved, or None when no row moved).

    The sort key is one int64 per row, the query's place in the output (high bits) and the descending
    code of the float32 score (low 32 bits): one ``argsort`` of integers, several times faster than a
    ``lexsort`` over the two columns."""
    n = len(qcodes)
    if n == 0:
        empty = Ranking(qcodes=np.empty(0, dtype=np.int64), offsets=np.zeros(1, dtype=np.int64),
                        dbytes=dbytes, docs=dhash, scores=scores, source=source)
        return (empty, None) if with_order else empty
    if qorder is None:
        # segments in order of first appearance in the input
        change = np.r_[True, qcodes[1:] != qcodes[:-1]]
        qorder = pd.unique(qcodes[change])
    rank_of_q = np.full(int(max(qcodes.max(), qorder.max())) + 1, -1, dtype=np.int64)
    rank_of_q[qorder] = np.arange(len(qorder))
    sort_key = _sort_key(scores, rank_of_q[qcodes])
    if bool(np.all(sort_key[1:] >= sort_key[:-1])):
        order = None            # already in (query, score descending) order, as TREC files usually are
    else:
        order = np.argsort(sort_key, kind=None if break_ties else "stable")
    if break_ties and n > 1:
        order = _break_ties_by_docid(order, sort_key, dbytes)
    del sort_key
    if isinstance(order, Moves):               # a few tied rows moved, within their query
        dbytes, dhash, scores = order.apply(dbytes), order.apply(dhash), order.apply(scores)
    elif order is not None:
        qcodes, dbytes, dhash, scores = qcodes[order], dbytes[order], dhash[order], scores[order]
    if order is not None and index is not None:     # built on the input order: rows have moved
        index = MovedIndex(index, order)
    starts = np.flatnonzero(np.r_[True, qcodes[1:] != qcodes[:-1]])
    offsets = np.append(starts, n).astype(np.int64)
    ranking = Ranking(qcodes=qcodes[starts], offsets=offsets, dbytes=dbytes, docs=dhash, scores=scores, source=source)
    ranking._cache["rowq"] = qcodes
    if index is not None:
        ranking._cache["index"] = index        # built once for the duplicate check; reused for joins
    return (ranking, order) if with_order else ranking


def _break_ties_by_docid(order: Optional[np.ndarray], sort_key: np.ndarray, dbytes: np.ndarray):
    """Within each run of equal sort key (same query, same float32 score), put the doc ids in descending
    order (trec_eval's order); ``order`` is the sorting permutation (None: the rows are sorted already).
    Returns the new permutation (:class:`Moves` when ``order`` is None and some tied row moves).

    Only the tied rows are touched: they are gathered and sorted by (tie group, doc id descending), the
    doc ids read as big-endian 64-bit words (their byte order)."""
    ks = sort_key if order is None else sort_key[order]
    same = ks[1:] == ks[:-1]                 # row i + 1 ties with row i
    if not same.any():
        return order
    tied = np.zeros(len(ks), dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    rows = np.flatnonzero(tied)              # positions (in sorted order) of every tied row
    group = np.cumsum(np.r_[True, ~same[rows[1:] - 1]])    # a tied row not tied with the one before opens a group
    src = rows if order is None else order[rows]
    words = -(-dbytes.dtype.itemsize // 8)
    ids = np.zeros(len(rows), dtype=f"S{8 * words}")                # NUL padding keeps the byte order
    ids[...] = dbytes[src]
    w = ids.view(">u8").reshape(len(rows), words)
    # lexsort: last key first; the complement of each word sorts the doc ids in descending order
    perm = np.lexsort(tuple(~w[:, j].astype(np.uint64) for j in range(words - 1, -1, -1)) + (group,))
    if order is None:
        moved = src[perm] != rows
        return Moves(rows[moved], src[perm][moved]) if moved.any() else None
    out = order.copy()
    out[rows] = src[perm]
    return out


def _check_duplicates(clashes: Optional[Tuple[np.ndarray, np.ndarray]], qcodes: np.ndarray, dbytes: np.ndarray,
                      what: str, source: str, line_of=None) -> None:
    """Raise on the ``clashes`` (pairs of rows with the same query and document hash), if any.

    A document given more than once is reported by its first two rows, the one whose second row comes
    first in the input (whichever rows the clashes name, so every engine reports the same lines)."""
    if clashes is None or len(clashes[0]) == 0:
        return
    rows = np.unique(np.concatenate(clashes))
    q, d = qcodes[rows], dbytes[rows]
    order = np.lexsort((rows, d, q))
    rows, q, d = rows[order], q[order], d[order]
    repeat = np.flatnonzero((q[1:] == q[:-1]) & (d[1:] == d[:-1]))
    if len(repeat) == 0:
        a, b = int(clashes[0][0]), int(clashes[1][0])
        raise RbstarError(f"{source}: 64-bit hash collision between document ids {dbytes[a]!r} and "
                          f"{dbytes[b]!r}; please report this (it should practically never happen)")
    firsts = repeat[np.r_[True, repeat[1:] != repeat[:-1] + 1]]      # the first repeat of each document
    i = firsts[np.argmin(rows[firsts + 1])]
    a, b = int(rows[i]), int(rows[i + 1])
    where = f" (lines {line_of(a)} and {line_of(b)})" if line_of is not None else ""
    verb = "appears twice" if what == "run" else "is judged twice"
    raise DuplicateDocumentError(
        f"{source}: document {_to_str(dbytes[b:b + 1])[0]!r} {verb} for query "
        f"{QUERY_IDS.decode(qcodes[b:b + 1])[0]!r}{where}; a {what} may hold each document once per query")


def _check_scores(scores: np.ndarray, source: str, qids, dids, line_of=None) -> None:
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = f" line {line_of(i)}:" if line_of is not None else ""
        raise InputFormatError(f"{source}:{where} score {scores[i]!r} of document {_show(dids[i])!r} for query "
                               f"{_show(qids[i])!r} is not a finite number")


def _show(v: Any) -> Any:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


_POW10 = 10.0 ** np.arange(16)


def _plain_decimals(tokens: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Values of byte-string tokens ``[+-]digits[.digits]`` with at most 15 digits, and where they apply.

    Such a token is an integer m < 10^15 < 2^53 divided by 10^f with f <= 15: both are exact doubles,
    so the one division is correctly rounded, the same double as ``float(token)`` (strtod). It works a
    character column at a time over all tokens, about twice as fast as numpy's per-token
    conversion; other tokens (exponents, more digits, nan, garbage) are flagged for that conversion.
    """
    n, w = len(tokens), tokens.dtype.itemsize
    chars = np.ascontiguousarray(tokens.view(np.uint8).reshape(n, w).T)
    mantissa = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int16)
    frac = np.zeros(n, dtype=np.int16)
    seen_dot = np.zeros(n, dtype=bool)
    ended = np.zeros(n, dtype=bool)
    bad = np.zeros(n, dtype=bool)
    neg = chars[0] == ord("-")
    sign = neg | (chars[0] == ord("+"))
    for j in range(w):
        c = chars[j]
        d = c - np.uint8(ord("0"))
        is_digit = d < 10
        pad = c == 0
        dot = c == ord(".")
        other = ~(is_digit | pad | dot)
        if j == 0:
            other &= ~sign
        bad |= other | (dot & seen_dot) | (ended & ~pad)
        ended |= pad
        seen_dot |= dot
        mantissa *= np.where(is_digit, 10, 1)
        mantissa += np.where(is_digit, d, 0)
        digits += is_digit
        frac += is_digit & seen_dot
    ok = ~bad & (digits >= 1) & (digits <= 15)
    values = mantissa / _POW10[np.where(ok, frac, 0)]
    np.negative(values, out=values, where=neg)
    return values, ok


def _as_float(scores: Any, qids, dids, source: str, line_of=None) -> np.ndarray:
    try:
        if isinstance(scores, np.ndarray) and scores.dtype.kind == "S" and 0 < scores.dtype.itemsize <= 17:
            values, ok = _plain_decimals(scores)
            if not ok.all():
                values[~ok] = np.asarray(scores[~ok], dtype=np.float64)
            return values
        return np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raw = np.asarray(scores, dtype=object)
        conv = pd.to_numeric(pd.Series(raw), errors="coerce").to_numpy(dtype=np.float64)
        i = int(np.flatnonzero(np.isnan(conv))[0])
        where = f" line {line_of(i)}:" if line_of is not None else ""
        raise InputFormatError(f"{source}:{where} score {_show(raw[i])!r} of document {_show(dids[i])!r} for query "
                               f"{_show(qids[i])!r} is not a number") from None


class CodedIds:
    """Query ids already interned (:data:`QUERY_IDS` codes, one per row); ``ids[i]`` decodes one, for
    error messages."""

    def __init__(self, codes: np.ndarray):
        self.codes = codes

    def __getitem__(self, i: int) -> str:
        return QUERY_IDS.decode(self.codes[i:i + 1])[0]

    def __len__(self) -> int:
        return len(self.codes)


def _query_column(qids, source: str, line_of) -> Tuple[Any, np.ndarray]:
    """(the query ids for messages, their codes) from an array of ids or :class:`CodedIds`."""
    if isinstance(qids, CodedIds):
        return qids, qids.codes
    qids = np.asarray(qids) if isinstance(qids, np.ndarray) else np.asarray(qids, dtype=object)
    check_utf8(qids, "query id", source, line_of)
    return qids, _query_codes(qids)


_PARALLEL_ROWS = 1_000_000


def ranking_from_columns(qids, dids, scores, source: str, line_of=None, dhash: Optional[np.ndarray] = None,
                         loaded_only: bool = True) -> Ranking:
    """A :class:`Ranking` from columns (query ids or :class:`CodedIds`, document ids, scores), validated."""
    dbytes = doc_bytes(dids if isinstance(dids, np.ndarray) else np.asarray(dids, dtype=object))
    qids, qc = _query_column(qids, source, line_of)
    check_utf8(dbytes, "document id", source, line_of)
    scores = _as_float(scores, qids, dbytes, source, line_of)
    _check_scores(scores, source, qids, dbytes, line_of)
    dh = hash_ids(dbytes) if dhash is None else dhash
    kernels = compiled(len(qc), loaded_only=loaded_only)
    if kernels is None:
        if len(qc) < _PARALLEL_ROWS:
            index = DocIndex(qc, dh)
            _check_duplicates(index.clashes, qc, dbytes, "run", source, line_of)
            return _build_ranking(qc, dbytes, dh, scores, source, index=index)
        # large inputs: the duplicate check and the sort are independent numpy work, run side by side
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(DocIndex, qc, dh)
            ranking, order = _build_ranking(qc, dbytes, dh, scores, source, with_order=True)
            index = pending.result()
        _check_duplicates(index.clashes, qc, dbytes, "run", source, line_of)
        # kept for joins (judgments, references): built on the input order, answering in the ranked one
        ranking._cache["index"] = index if order is None else MovedIndex(index, order)
        return ranking
    # compiled: sort first, then look for duplicates query by query (rows of a query are contiguous)
    ranking, order = _build_ranking(qc, dbytes, dh, scores, source, with_order=True)
    first, later = kernels.segment_clashes(ranking.offsets, ranking.docs.view(np.int64))
    if len(first):
        if order is not None:
            first, later = input_rows(order, first), input_rows(order, later)
        _check_duplicates((first, later), qc, dbytes, "run", source, line_of)
    return ranking


def qrels_from_columns(qids, dids, grades, source: str, line_of=None, dhash: Optional[np.ndarray] = None) -> Qrels:
    """:class:`Qrels` from columns (query ids or :class:`CodedIds`, document ids, integer grades), validated."""
    dbytes = doc_bytes(dids if isinstance(dids, np.ndarray) else np.asarray(dids, dtype=object))
    qids, qc = _query_column(qids, source, line_of)
    check_utf8(dbytes, "document id", source, line_of)
    raw = np.asarray(grades)
    g = None
    if raw.dtype.kind in "iub":
        g = raw.astype(np.int64)
    elif raw.dtype.kind == "S":
        try:
            g = raw.astype(np.int64)
        except ValueError:
            g = None
    if g is None:
        try:                                   # Python numbers (a dict of dicts): one C pass
            conv = raw.astype(np.float64)
        except (TypeError, ValueError):
            conv = pd.to_numeric(pd.Series(raw, dtype=object).map(_show), errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(conv) | (conv != np.round(conv))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = f" line {line_of(i)}:" if line_of is not None else ""
            raise InputFormatError(f"{source}:{where} relevance {_show(raw[i])!r} of document {_show(dbytes[i])!r} "
                                   f"for query {_show(qids[i])!r} is not an integer grade")
        g = conv.astype(np.int64)
    dh = hash_ids(dbytes) if dhash is None else dhash
    index = DocIndex(qc, dh)
    _check_duplicates(index.clashes, qc, dbytes, "qrels", source, line_of)
    qorder = pd.unique(qc) if len(qc) else np.empty(0, dtype=np.int64)
    qrels = Qrels(qcodes=np.asarray(qorder, dtype=np.int64), rowq=qc, rowd=dh, rowb=dbytes, grades=g, source=source)
    qrels._cache["index"] = index
    return qrels


# ---------------------------------------------------------------------------------------------
# TREC files
# ---------------------------------------------------------------------------------------------

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
            with gzip.open(path, "rb") as f:
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


def _scan_chunk(buf: np.ndarray, ncols: int, fields: Tuple[int, ...]) -> Optional[Dict[int, np.ndarray]]:
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


def _scan_columns(data: bytes, ncols: int, fields: Tuple[int, ...]) -> Optional[Dict[int, np.ndarray]]:
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
    if len(jobs) > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
            parts = list(pool.map(lambda b: _scan_chunk(b, ncols, fields), jobs))
    else:
        parts = [_scan_chunk(b, ncols, fields) for b in jobs]
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
                  layout: str) -> Dict[int, np.ndarray]:
    """Line-aware reading (for what the vectorised scanners do not take: indented lines, or an irregular
    file, whose first offending line it names with the number of columns found)."""
    cols: Dict[int, list] = {f: [] for f in fields}
    for lineno, line in enumerate(data.translate(_CONTROL_TO_SPACE).split(b"\n"), 1):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != ncols:
            raise shape_error(source, lineno, ncols, len(tokens), what, layout)
        for f in fields:
            cols[f].append(tokens[f])
    if not cols[fields[0]]:
        raise EmptyInputError(f"{source}: the {what} file is empty")
    return {f: np.array(v, dtype="S") for f, v in cols.items()}


def _compiled_columns(kernels, data: bytes, ncols: int, fields: Tuple[int, ...],
                      numeric: Optional[int]) -> Optional[Dict[Any, np.ndarray]]:
    """The columns by the compiled scanner: bytes (``S``) arrays, and for the ``numeric`` field its values
    as floats when they all convert (else its tokens, for :func:`_as_float` to name the bad one); under
    ``"hash"`` the :func:`hash_ids` of the document ids (the field at index 2). None when the layout is
    irregular (the numpy path then finds and names the offending line)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    rows, starts, lens = kernels.scan_columns(buf, ncols, np.array(fields, dtype=np.int64))
    if rows <= 0:
        return None
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
                values[bad] = np.asarray(tokens(j, bad), dtype=np.float64)
            except ValueError:
                values = tokens(j, every)
        out[f] = values
    return out


def _file_columns(path: str, ncols: int, fields: Tuple[int, ...], what: str, layout: str,
                  numeric: Optional[int] = None):
    path = os.fspath(path)
    data = _read_bytes(path, what)
    kernels = compiled(len(data) // 40)            # about 40 bytes per line of a run
    cols = None if kernels is None else _compiled_columns(kernels, data, ncols, fields, numeric)
    if cols is None:
        cols = _scan_columns(data, ncols, fields)
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
    return qrels_from_columns(cols[0], cols[2], cols[3], path, _line_mapper(path), dhash=cols.get("hash"))


def read_run_frame(path: str) -> pd.DataFrame:
    """Read and validate a TREC run file into a DataFrame ``query_id, doc_id, score``.

    Checks the column count, that every score is a finite number and that no document appears twice
    for a query; errors name the file and line.
    """
    ranking = read_trec_run(path)
    return ranking_frame(ranking)


def ranking_frame(ranking: Ranking) -> pd.DataFrame:
    """A :class:`Ranking` as a DataFrame ``query_id, doc_id, score`` (rows in trec_eval order)."""
    return pd.DataFrame({"query_id": QUERY_IDS.decode(ranking.qcodes[ranking.row_segments()]),
                         "doc_id": _to_str(ranking.dbytes), "score": ranking.scores})


def read_qrels_frame(path: str) -> pd.DataFrame:
    """Read and validate a TREC qrels file into a DataFrame ``query_id, doc_id, relevance`` (int).

    ``path`` may also be an ir_datasets id, ``'irds:<id>'`` or bare (``'msmarco-passage/trec-dl-2019'``;
    needs ``ir_rbstar[datasets]``): the dataset's qrels. A path that exists wins over an id.
    """
    from .datasets import load_qrels
    return load_qrels(path)


# ---------------------------------------------------------------------------------------------
# Any input form
# ---------------------------------------------------------------------------------------------

_RUN_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("score",))
_QREL_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("relevance", "label"))


def _pick(df: pd.DataFrame, options, source: str, what: str) -> np.ndarray:
    for name in options:
        if name in df.columns:
            col = df[name]
            return col.to_numpy(dtype=object) if name != "score" and col.dtype.kind not in "SO" else col.to_numpy()
    raise InputFormatError(f"{source}: {what} DataFrame has no column {options[0]!r} "
                           f"(columns found: {list(df.columns)})")


def _is_path(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike)) and "\n" not in str(obj)


def to_ranking(run: Any, source: Optional[str] = None) -> Ranking:
    """Convert a run in any supported form to a :class:`Ranking`."""
    if isinstance(run, Ranking):
        return run
    if _is_path(run):
        return read_trec_run(run)
    if isinstance(run, pd.DataFrame):
        src = source or "<run DataFrame>"
        q, d, s = (_pick(run, c, src, "run") for c in _RUN_COLS)
        return ranking_from_columns(q, d, s, src)
    if isinstance(run, dict):
        src = source or "<run dict>"
        return ranking_from_columns(*_columns_from_dict(run, src, "run", "score"), src)
    if hasattr(run, "__iter__"):
        path = _reader_file(run, "read_trec_run")
        if path is not None:
            return read_trec_run(path)
        src = source or "<run iterable>"
        q, d, s = _columns_from_tuples(run, ("query_id", "doc_id", "score"), src, "run")
        return ranking_from_columns(q, d, s, src)
    raise InputFormatError(f"unsupported run type {type(run).__name__}: give a TREC run file path, a DataFrame "
                           f"(query_id, doc_id, score), a dict of dicts or an iterable of namedtuples")


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


def to_qrels(qrels: Any, source: Optional[str] = None) -> Qrels:
    """Convert qrels in any supported form to :class:`Qrels`."""
    if isinstance(qrels, Qrels):
        return qrels
    if _is_path(qrels):
        return read_trec_qrels(qrels)
    if isinstance(qrels, pd.DataFrame):
        src = source or "<qrels DataFrame>"
        q, d, g = (_pick(qrels, c, src, "qrels") for c in _QREL_COLS)
        return qrels_from_columns(q, d, g, src)
    if isinstance(qrels, dict):
        src = source or "<qrels dict>"
        return qrels_from_columns(*_columns_from_dict(qrels, src, "qrels", "relevance"), src)
    if hasattr(qrels, "__iter__"):
        path = _reader_file(qrels, "read_trec_qrels")
        if path is not None:
            return read_trec_qrels(path)
        src = source or "<qrels iterable>"
        q, d, g = _columns_from_tuples(qrels, ("query_id", "doc_id", "relevance"), src, "qrels")
        return qrels_from_columns(q, d, g, src)
    raise InputFormatError(f"unsupported qrels type {type(qrels).__name__}: give a TREC qrels file path, a "
                           f"DataFrame (query_id, doc_id, relevance), a dict of dicts or an iterable of namedtuples")


def _columns_from_dict(obj: dict, source: str, what: str,
                       value_name: str) -> Tuple[CodedIds, np.ndarray, np.ndarray]:
    """(CodedIds, doc ids, values) from a dict of dicts: one pass in C over the keys and values, the query
    ids interned once per query (no per-row Python)."""
    for qid, docs in obj.items():
        if not isinstance(docs, dict):
            raise InputFormatError(f"{source}: {what}[{qid!r}] must be a dict of doc_id -> {value_name}")
    lens = np.fromiter(map(len, obj.values()), dtype=np.int64, count=len(obj))
    n = int(lens.sum())
    codes = np.repeat(QUERY_IDS.encode(str(q) for q in obj.keys()), lens)
    docs = _id_column(lambda: chain.from_iterable(obj.values()), n)
    values = _values(lambda: chain.from_iterable(map(dict.values, obj.values())), n, what)
    return CodedIds(codes), docs, values


def _id_column(make_items, n: int) -> np.ndarray:
    """Document ids as bytes (``S``) in one C pass when every id is ASCII text or bytes (the usual case:
    no object array, no second conversion), else as objects for :func:`doc_bytes` (which encodes UTF-8
    and names an id that cannot be). ``make_items()`` gives a new iterator over the ids.

    The width is guessed from the first ids, with a byte to spare; when some id fills it (it may have
    been cut) the exact width is measured and the pass redone; a guess too wide is trimmed to the
    longest id (ids hold no trailing NUL bytes: a bytes array drops them)."""
    try:
        width = max(map(len, islice(make_items(), 1000)), default=0) + 1   # one byte to spare
        ids = np.fromiter(make_items(), dtype=f"S{width}", count=n)   # numpy encodes str as ASCII
        if n == 0:
            return ids
        cols = ids.view(np.uint8).reshape(n, width)
        if cols[:, -1].any():                                         # some id fills the width
            width = max(map(len, make_items()))
            return np.fromiter(make_items(), dtype=f"S{max(width, 1)}", count=n)
        used = np.flatnonzero(cols.any(axis=0))
        return ids.astype(f"S{int(used[-1]) + 1 if len(used) else 1}")
    except (TypeError, ValueError, UnicodeError):
        return np.fromiter(make_items(), dtype=object, count=n)


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


def _materialised(items: Iterable) -> list:
    """``list(items)`` with the cyclic garbage collector paused: millions of new tuples (a generator
    such as ``ir_measures.read_trec_run``) otherwise set off collections that rescan them all, about
    40% of the time. Nothing here creates cycles; the collector's state is restored."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return list(items)
    finally:
        if enabled:
            gc.enable()


def _columns_from_tuples(items: Iterable, fields, source: str, what: str):
    """Three columns from an iterable of namedtuples (ir_measures' ScoredDoc / Qrel or any with these
    fields): transposed in C when every item has the type of the first, else field by field."""
    items = items if isinstance(items, (list, tuple)) else _materialised(items)
    first = items[0] if len(items) else None
    if isinstance(first, str):
        raise InputFormatError(f"{source}: the {what} is an iterable of strings (a file path given where "
                               f"ir_measures expects records?): read files with ir_rbstar.read_{what}(path)")
    names = getattr(type(first), "_fields", None)
    if first is not None and isinstance(first, tuple) and names and all(f in names for f in fields) \
            and len(set(map(type, items))) == 1:
        q, d, v = (itemgetter(names.index(f)) for f in fields)
        n = len(items)
        return (np.fromiter(map(q, items), dtype=object, count=n), _id_column(lambda: map(d, items), n),
                _values(lambda: map(v, items), n, what))
    cols: Tuple[List[Any], List[Any], List[Any]] = ([], [], [])
    for i, item in enumerate(items):
        if isinstance(item, str):
            raise InputFormatError(f"{source}: the {what} is an iterable of strings (a file path given where "
                                   f"ir_measures expects records?): read files with ir_rbstar.read_{what}(path)")
        try:
            for col, f in zip(cols, fields, strict=True):
                col.append(getattr(item, f))
        except AttributeError:
            raise InputFormatError(f"{source}: item {i} of the {what} has no field {f!r} "
                                   f"(expected namedtuples with fields {fields})") from None
    return (np.array(cols[0], dtype=object), np.array(cols[1], dtype=object), np.array(cols[2], dtype=object))
