"""The hash index that joins (query, document) pairs of runs, references and qrels, and the
reorderings (:class:`Moves`, :class:`MovedIndex`) that let an index built before a sort answer after it."""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple, cast

import numpy as np

from ..errors import RbstarError
from . import dictscan, extension, querytable
from .ids import _GOLD, _mix, id_words
from .querytable import QueryTable, checked_by_query


#: runs of at most this many rows are checked for a document twice in a query by the C extension where it is built
#: (a table of the blocks' query codes, 32 bytes a block at most: 8 MB for 2^18 one-row blocks); beyond, the numpy
#: checks' fixed costs are a small part of their time
PAIRS_CLASH_ROWS = 1 << 18


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


def _pair_keys(q: np.ndarray, h: np.ndarray) -> np.ndarray:
    """One 64-bit key per (query code, document hash) pair, a new array: the hash xor a multiple of the
    query code (a bijection of the hash within a query, so equal exactly for the same query and document
    hash, and for other pairs only by a 64-bit coincidence)."""
    with np.errstate(over="ignore"):
        key = q.astype(np.uint64)
        key *= _GOLD
        key ^= h
    return key


def clashes_by_sort(qcodes: np.ndarray, dhash: np.ndarray, layout=None
                    ) -> Tuple[Optional[Tuple[np.ndarray, np.ndarray]], Optional[QueryTable]]:
    """(the pairs of rows with the same query code and document hash, as :attr:`DocIndex.clashes` reports
    them, or None when there are none; the :class:`.querytable.QueryTable` that found none, or None), without
    building an index: for a run of at most :data:`PAIRS_CLASH_ROWS` rows in blocks of one query each, a pass of the
    C extension where it is built; else (or when a query's rows are long enough for a table to keep) first each
    query's rows sorted in a row of a 2-D table (:func:`.querytable.checked_by_query`: of long queries, a
    table a conversion keeps for the joins); when that may have found one (or the rows do not fit it), one
    sort of a 64-bit key per row (:func:`_pair_keys`), and on the rare equal keys their rows grouped by
    (query, hash) exactly. About half the cost of the index, for inputs whose joins do not need one (an
    index is built later, on first use). ``layout``: the rows' :func:`.querytable.wide_layout`, when the
    caller has it."""
    q = np.asarray(qcodes, dtype=np.int64)
    h = np.ascontiguousarray(dhash, dtype=np.uint64)
    if layout is None and len(q) <= PAIRS_CLASH_ROWS:
        # the C extension's pass over the rows, unless a query's rows are long enough for a table kept for the
        # joins (then made below, as without the extension) or a query has two blocks: it stops at either
        twice = dictscan.pairs_clash(q, h, querytable.KEEP_WIDTH)     # (read now: tests lower it)
        if twice is not None:
            return (_exact_clashes(q, h) if twice else None), None
    sure, table = checked_by_query(q, h, layout)
    if sure or len(q) < 2:
        return None, table
    return _exact_clashes(q, h), None


def _exact_clashes(q: np.ndarray, h: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """:func:`clashes_by_sort`'s pairs of rows, by one sort of a key a row."""
    ordered = _pair_keys(q, h)
    ordered.sort()                  # (in place: the keys in row order are made again in the rare case below)
    equal = ordered[1:] == ordered[:-1]
    if not equal.any():
        return None
    return _same_pairs(np.flatnonzero(np.isin(_pair_keys(q, h), ordered[1:][equal])), q, h)


def _same_pairs(rows: np.ndarray, q: np.ndarray, h: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """Of ``rows`` (candidates with equal keys, each once, ascending), the pairs of rows with the same query
    code and document hash (None when there are none), found exactly: the rows sorted by (query, hash, row)."""
    rows = rows[np.lexsort((rows, h[rows], q[rows]))]
    same = (q[rows[1:]] == q[rows[:-1]]) & (h[rows[1:]] == h[rows[:-1]])
    if not same.any():
        return None
    return rows[:-1][same], rows[1:][same]


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
            # slot = base + (hash & (size - 1)), with two full-length arrays instead of four (on millions
            # of rows each new array costs its page faults)
            slot = np.take(size - 1, q)
            np.bitwise_and(slot, _level_hash(h, level), out=slot)
            slot += np.take(base, q)
            table = np.full(int(size.sum()), -1, dtype=rows.dtype)
            table[slot] = rows
            holder = np.take(table, slot)
            del slot
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
        # in C where the extension is built (:func:`.dictscan.probe`: some fifty numpy calls fewer a lookup, a
        # fifth of a call of RBP on a run of 100 documents a query)
        rows = dictscan.probe(self._local, self._levels, self._hash, q, h)
        if rows is not None:
            return rows
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
        self._by_src: Optional[Tuple[np.ndarray, np.ndarray]] = None     # (src sorted, their rows): on first use

    def input_of(self, ranked: np.ndarray) -> np.ndarray:
        """The input row of each ranked row."""
        return _remap(ranked, self.rows, self.src)

    def ranked_of(self, inputs: np.ndarray) -> np.ndarray:
        """The ranked row of each input row."""
        if self._by_src is None:            # (an argsort of the moved rows: 0.9 ms for Robust04's 24,000)
            by_src = np.argsort(self.src)
            self._by_src = self.src[by_src], self.rows[by_src]
        return _remap(inputs, *self._by_src)

    def apply(self, values: np.ndarray, inplace: bool = False) -> np.ndarray:
        """``values`` (one per input row) in ranked order: a copy with the moved rows moved, or, with
        ``inplace``, ``values`` itself with them moved (no copy of millions of rows to move a few).
        ``values`` itself, unchanged, when every moved row carries the same bytes as the row it replaces
        (e.g. the equal scores of tied rows): the ranked order is then the input order, bit for bit."""
        moved = values[self.src]
        if not inplace and _same_bytes(moved, values[self.rows]):
            return values
        out = values if inplace else values.copy()
        out[self.rows] = moved
        return out

    def undo(self, values: np.ndarray) -> np.ndarray:
        """``values`` in ranked order back in input order (a copy): the inverse of :meth:`apply`."""
        out = values.copy()
        out[self.src] = values[self.rows]
        return out


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of one numeric dtype hold the same bytes (-0.0 and 0.0 differ; for the
    numeric columns a ranking moves)."""
    if a.dtype != b.dtype or a.dtype.kind not in "iuf" or a.dtype.itemsize not in (4, 8):
        return False
    kind = np.int64 if a.dtype.itemsize == 8 else np.int32
    return bool(np.array_equal(a.view(kind), b.view(kind)))


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

    def __init__(self, index: "DocIndex | SortedIndex | MovedIndex", order):
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


def hashes_are_ids(*columns: np.ndarray) -> bool:
    """Whether every id of these bytes (``S``) columns is at most 8 bytes: :func:`.ids.hash_ids` is then a
    bijection, so documents matched by (query, hash) are the same documents and need no comparison of their
    ids; a longer id may share its hash with another, and every join compares those byte for byte
    (:func:`verify_pairs`)."""
    return all(c.dtype.itemsize <= 8 for c in columns)


def verify_pairs(ids_a: np.ndarray, rows_a: np.ndarray, ids_b: np.ndarray, rows_b: np.ndarray, source: str) -> None:
    """Rows matched by (query, document hash), ``ids_a[rows_a]`` with ``ids_b[rows_b]``, must hold the same ids:
    compared (:func:`verify_matches`) unless :func:`hashes_are_ids`."""
    if not hashes_are_ids(ids_a, ids_b):
        verify_matches(ids_a[rows_a], ids_b[rows_b], source)


def verify_ids(table_ids: np.ndarray, rows: np.ndarray, ids: "np.ndarray | Callable[[], np.ndarray]", source: str,
               width: Optional[int] = None) -> None:
    """The documents matched by hash (``rows``: for each of ``ids``, its row of ``table_ids``, -1 for none)
    must be the same ids (:func:`verify_pairs`). ``ids`` may be a function giving them, ``width`` bytes wide:
    it is called only when they are compared (some id of either side longer than 8 bytes, :func:`hashes_are_ids`)."""
    if callable(ids):
        if width is None:
            raise ValueError("verify_ids: the width of ids given by a function")
        if width <= 8 and hashes_are_ids(table_ids):
            return
        ids = ids()
    if hashes_are_ids(table_ids, ids):
        return
    hit = np.flatnonzero(rows >= 0)
    verify_pairs(table_ids, rows[hit], ids, hit, source)


def verify_matches(bytes_a: np.ndarray, bytes_b: np.ndarray, source: str) -> None:
    """Rows matched by (query, document hash) must hold the same document id."""
    bad = _differ(bytes_a, bytes_b)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise RbstarError(f"{source}: 64-bit hash collision between document ids {bytes(bytes_a[i])!r} and "
                          f"{bytes(bytes_b[i])!r}; please report this (it should practically never happen)")


def _differ(bytes_a: np.ndarray, bytes_b: np.ndarray) -> np.ndarray:
    """``bytes_a != bytes_b`` for two bytes (``S``) columns: compared as 8-byte words (:func:`.ids.id_words`,
    NUL-padded to a common width of whole words), some twenty times faster than numpy's comparison of byte
    strings on ids of 16 bytes, and a column of words at a time (100,000 ids of 16 bytes: 0.1 ms, against
    1.4 by one ``any`` along the rows); numpy's comparison for other columns."""
    if bytes_a.dtype.kind != "S" or bytes_b.dtype.kind != "S" or len(bytes_a) != len(bytes_b):
        return bytes_a != bytes_b
    words = -(-max(bytes_a.dtype.itemsize, bytes_b.dtype.itemsize, 1) // 8)
    a, b = id_words(bytes_a, words), id_words(bytes_b, words)
    bad = a[:, 0] != b[:, 0]
    for word in range(1, words):
        bad |= a[:, word] != b[:, word]
    return bad


#: the most judgments of qrels indexed by a :class:`JudgmentIndex` rather than a :class:`DocIndex`
#: (:func:`judgment_index`): 1 MB of keys
SMALL_INDEX = 1 << 17
#: the most pairs a :class:`JudgmentIndex` looks up in its sorted keys; more go to its hash index
FEW_PROBES = 2048


def judgment_index(qcodes: np.ndarray, dhash: np.ndarray) -> "DocIndex | JudgmentIndex":
    """The index of a qrels' (query, document) pairs: a :class:`JudgmentIndex` for at most
    :data:`SMALL_INDEX` rows, else a :class:`DocIndex` (the same answers). Where the compiled probe is built
    (:func:`.dictscan.probe`), always a :class:`DocIndex`: the probe answers even a few pairs faster than the
    sorted keys' twenty numpy calls (860 pairs of a DL 2019 run: some 10 us against 70 us), and one index is
    built instead of the sorted keys and, at the first lookup, the hash index (9,260 judgments: 0.55 ms against
    0.13 + 0.55 ms; 0.42 ms more where no lookup follows)."""
    if len(qcodes) > SMALL_INDEX or extension.compiled is not None:
        return DocIndex(qcodes, dhash)
    return JudgmentIndex(qcodes, dhash)


class JudgmentIndex:
    """The index of a small qrels (TREC's: about 10,000 judgments): a :class:`SortedIndex` (built for the
    duplicate check in about a quarter of a :class:`DocIndex`'s time: one sort against a dozen numpy
    calls per level) answering lookups of at most :data:`FEW_PROBES` pairs (the judged rows of a small
    run), and a :class:`DocIndex` built on the first larger lookup and kept (it answers many pairs
    faster: no sort of the probes). Both give the same rows. (Where the compiled probe is built,
    :func:`judgment_index` gives a :class:`DocIndex` instead.)"""

    def __init__(self, qcodes: np.ndarray, dhash: np.ndarray, few_probes: int = FEW_PROBES):
        self._sorted = SortedIndex(qcodes, dhash)
        self.clashes = self._sorted.clashes
        self._few = few_probes
        self._hashed: Optional[DocIndex] = None

    def lookup(self, qcodes: np.ndarray, dhash: np.ndarray) -> np.ndarray:
        """The row of each (query code, document hash) pair, -1 where there is none."""
        if len(qcodes) <= self._few:
            return self._sorted.lookup(qcodes, dhash)
        if self._hashed is None:
            self._hashed = DocIndex(self._sorted._q, self._sorted._h)
        return self._hashed.lookup(qcodes, dhash)


class SortedIndex:
    """The (query code, document hash) pairs of a run as one sorted column, for the duplicate check and
    the joins of a large run: the same answers as :class:`DocIndex` (``clashes``, ``lookup``), about
    half the cost to build on millions of rows (one ``np.sort`` of 64-bit integers, which numpy does with
    SIMD, against the index's scatters per level).

    Each row's 64-bit key mixes its query code into its document hash (as :func:`clashes_by_sort` does);
    its high ``64 - row_bits`` bits and the row number in the low ``row_bits`` are packed into one
    integer, so sorting the packed column sorts the keys and carries the rows along (no ``argsort``).
    Rows with equal key prefixes are told apart exactly by their query code and document hash: equal
    prefixes of different pairs are rare (about n**2 / 2**(65 - row_bits), a few in ten million rows)
    and handled one by one."""

    def __init__(self, qcodes: np.ndarray, dhash: np.ndarray, row_bits: Optional[int] = None):
        self._q = np.asarray(qcodes, dtype=np.int64)
        self._h = np.ascontiguousarray(dhash, dtype=np.uint64)
        n = len(self._q)
        self._bits = np.uint64(row_bits if row_bits is not None else max(1, (n - 1).bit_length()))
        packed = _pair_keys(self._q, self._h)
        packed >>= self._bits
        packed <<= self._bits
        packed |= np.arange(n, dtype=np.uint64)
        packed.sort()
        self._packed = packed
        self._rowmask = (np.uint64(1) << self._bits) - np.uint64(1)
        self.clashes = self._clashes()

    def _clashes(self) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        prefix = self._packed >> self._bits
        equal = np.flatnonzero(prefix[1:] == prefix[:-1])
        if len(equal) == 0:
            return None
        rows = np.unique((self._packed[np.concatenate([equal, equal + 1])] & self._rowmask).astype(np.int64))
        return _same_pairs(rows, self._q, self._h)

    def lookup(self, qcodes: np.ndarray, dhash: np.ndarray) -> np.ndarray:
        """The row of each (query code, document hash) pair, -1 where there is none (the first row of
        the pair when the run holds it twice)."""
        q = np.asarray(qcodes, dtype=np.int64)
        h = np.ascontiguousarray(dhash, dtype=np.uint64)
        out = np.full(len(q), -1, dtype=np.int64)
        if len(q) == 0 or len(self._packed) == 0:
            return out
        # probes in key order (each search starts where the one before ended, and a sorted search is
        # several times faster than one in the probes' own order even on a few hundred probes): the probe
        # number packed below the key prefix, in at least as many bits as it needs (a sort of packed
        # integers, numpy's SIMD sort, rather than an argsort)
        low = _pair_keys(q, h)
        probe_bits = np.uint64(max(int(self._bits), (len(q) - 1).bit_length()))
        order = low >> probe_bits
        order <<= probe_bits
        order |= np.arange(len(q), dtype=np.uint64)
        order.sort()
        probe_mask = (np.uint64(1) << probe_bits) - np.uint64(1)
        probe = (order & probe_mask).astype(np.int64)         # the probe of each sorted key
        if probe_bits == self._bits:
            low = order & ~self._rowmask
        else:                                                 # more probes than rows: wider probe numbers
            low = low[probe]
            low >>= self._bits
            low <<= self._bits
        pos = np.searchsorted(self._packed, low)
        inside = pos < len(self._packed)
        pos_c = np.minimum(pos, len(self._packed) - 1)
        held = self._packed[pos_c]
        hit = inside & ((held >> self._bits) == (low >> self._bits))
        row = (held & self._rowmask).astype(np.int64)
        exact = hit & (self._q[row] == q[probe]) & (self._h[row] == h[probe])
        out[probe[exact]] = row[exact]
        for k in np.flatnonzero(hit & ~exact).tolist():  # an equal prefix of another pair: look further
            i = int(pos_c[k]) + 1
            while i < len(self._packed) and (self._packed[i] >> self._bits) == (low[k] >> self._bits):
                r = int(self._packed[i] & self._rowmask)
                if self._q[r] == q[probe[k]] and self._h[r] == h[probe[k]]:
                    out[probe[k]] = r
                    break
                i += 1
        return out
