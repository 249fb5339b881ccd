"""The optional compiled reader of dicts of dicts and lists of namedtuples, and the other steps of the C extension
(``_ir_rbstar_dicts``, :mod:`.extension`, built from csrc/ by setup.py where a C compiler is there): regular TREC
files scanned, score ties broken, a hash index probed, a run joined with its reference, arrow id columns read.
Without it every function here returns None and the callers take their Python or numpy path, with the same
results.

A run given as ``{query_id: {doc_id: score}}`` (ir_measures' and pytrec_eval's native form) is otherwise read by
``np.fromiter`` over the ids and again over the scores, about 35 ns an id, and a list of namedtuples by pyarrow's
converter: most of a call of a cheap measure such as RBP (docs/benchmarks.md). The compiled reader copies each
id's bytes and each score in one pass in C, for ids that are ``str`` of ASCII characters and values that are
``float`` (grades: ``int``), the usual case; anything else (another type, a non-ASCII id, an id holding a NUL
character, a dict subclass) is left to the Python path, which converts it or names what is wrong.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import extension
from .ids import QUERY_IDS, CodedIds


__all__ = ["SLOW_NUMBERS", "Declined", "RBO_KERNELS", "ascii_ids", "available", "dict_columns", "id_blocks",
           "in_order_ties", "match_rows", "pairs_clash", "probe", "rbo_finish_step", "rbo_kernels", "record_columns",
           "same_lists", "scan_columns", "tie_order"]


def available() -> bool:
    """Whether the compiled reader is installed."""
    return extension.compiled is not None


def dict_columns(obj: dict, n: int, grades: bool) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(document ids as bytes, values) of a dict of dicts with ``n`` documents in all, in its order: the ids an
    ``S`` array as wide as the longest (at least 1), the values float64 (``grades``: int64). None when the
    compiled reader is not installed or the dicts are not of the plain form it reads (the module's docstring)."""
    if extension.compiled is None or n == 0:
        return None
    got = extension.compiled.columns(obj, n, int(grades))
    if got is None:
        return None
    buf, width, longest, values = got
    return _ids(buf, width, longest), np.frombuffer(values, dtype=np.int64 if grades else np.float64)


def record_columns(items: Sequence, at: List[int], grades: bool) -> Optional[Tuple[CodedIds, np.ndarray, np.ndarray]]:
    """(query codes, document ids as bytes, values) of a list (or tuple) of tuples whose fields ``at`` are the
    query id, the document id and the value, as :func:`dict_columns` reads a dict (the query ids interned once
    per block of equal ids, as the Python path does); None as there (also for a query id that is not ``str``)."""
    if extension.compiled is None or not len(items):
        return None
    got = extension.compiled.records(items, at[0], at[1], at[2], int(grades))
    if got is None:
        return None
    heads, lengths, buf, width, longest, values = got
    codes = np.repeat(QUERY_IDS.encode(heads), np.frombuffer(lengths, dtype=np.int64))
    return CodedIds(codes), _ids(buf, width, longest), np.frombuffer(values, dtype=np.int64 if grades else np.float64)


def _ids(buf: bytearray, width: int, longest: int) -> np.ndarray:
    """The ids' rows of ``width`` bytes as an ``S`` array as wide as the longest id, as numpy makes an array of
    them (the buffer is widened ahead of need when a long id comes late)."""
    ids = np.frombuffer(buf, dtype=f"S{width}")
    return ids.astype(f"S{longest}") if longest < width else ids


def same_lists(obj: dict, queries: list, doc_lists: list, value_lists: list) -> Optional[bool]:
    """Whether the dict of dicts ``obj`` holds, in its order, the query ids ``queries`` and each query's
    document ids and values (``doc_lists[i]``, ``value_lists[i]``), each compared by identity or, for ``str``
    ids and ``int`` values, by equality; None when undecided (some id or value of another type, an inner value
    not a dict, or the compiled reader not installed): the caller then compares in Python."""
    if extension.compiled is None:
        return None
    result: Any = extension.compiled.same(obj, queries, doc_lists, value_lists)
    return result


def probe(local: np.ndarray, levels: list, hashes: np.ndarray, qcodes: np.ndarray, dhash: np.ndarray
          ) -> Optional[np.ndarray]:
    """The row of each (query code, document hash) pair in a :class:`.docindex.DocIndex`'s levels, -1 where there
    is none, looked up one pair at a time in C (the index's own loop makes some fifty numpy calls whatever the
    number of pairs); None when the compiled module is not installed. ``qcodes`` and ``dhash``: int64 arrays."""
    if extension.compiled is None or local.dtype != np.int64 or hashes.dtype != np.int64 or not all(
            m.dtype == b.dtype == np.int64 and t.dtype in (np.int32, np.int64) for m, b, t in levels):
        return None                         # (the numpy loop reads other widths; numpy 2 makes these)
    out = np.empty(len(qcodes), dtype=np.int64)
    extension.compiled.probe(local, tuple(levels), hashes, np.ascontiguousarray(qcodes, dtype=np.int64),
                    np.ascontiguousarray(dhash).view(np.int64), out)
    return out


def match_rows(x_lens: np.ndarray, x_items: np.ndarray, y_lens: np.ndarray, y_items: np.ndarray
               ) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """The rows (ix, iy) of two rankings X and Y laid out query after query that hold the same item of the same
    query (``x_lens[i]`` rows of query i in X, likewise Y; int64 item codes), as
    :func:`~ir_rbstar.core.rowjoin.match_by_query` gives them (the same pairs; here in X's row order), joined in
    C one query at a time through a small hash table (that function sorts a table of keys, some forty numpy calls
    a block of queries); None when the compiled module is not installed or an item appears twice in one query of
    a side (that function declines then too)."""
    if extension.compiled is None:
        return None
    got = extension.compiled.match_rows(np.ascontiguousarray(x_lens, dtype=np.int64),
                                        np.ascontiguousarray(x_items, dtype=np.int64),
                                        np.ascontiguousarray(y_lens, dtype=np.int64),
                                        np.ascontiguousarray(y_items, dtype=np.int64))
    if got is None:
        return None
    return np.frombuffer(got[0], dtype=np.int64), np.frombuffer(got[1], dtype=np.int64)


def in_order_ties(qcodes: np.ndarray, scores: np.ndarray) -> "Optional[np.ndarray | bool]":
    """Whether each row ties with the row before (a bool array of n - 1: same query code, equal float32 score) when
    no float32 score rises within a block of equal query codes; False when one does; None when the compiled module
    is not installed or predates this step. One pass in C."""
    step = extension.step("in_order_ties")
    if step is None:
        return None
    got = step(np.ascontiguousarray(qcodes, dtype=np.int64), np.ascontiguousarray(scores, dtype=np.float64))
    return False if got is None else np.frombuffer(got, dtype=np.bool_)


def rbo_finish_step() -> Optional[Any]:
    """The C extension's ``rbo_finish`` (RBO and RBO_ext of each query from its lengths and sums, as
    :func:`ir_rbstar.core.rankbiased.rbo_finish` computes them), or None where it is not built or predates it."""
    return extension.step("rbo_finish")


def pairs_clash(qcodes: np.ndarray, dhash: np.ndarray, limit: int) -> Optional[bool]:
    """Whether two rows hold the same query code and document hash, for rows in blocks of one query each, in one
    pass in C (a small table a block); None when a block reaches ``limit`` rows or a query has two blocks (then
    undecided here), or when the compiled module is not installed or predates this step."""
    step = extension.step("pairs_clash")
    if step is None:
        return None
    return step(np.ascontiguousarray(qcodes, dtype=np.int64), np.ascontiguousarray(dhash).view(np.int64), limit)


class Declined(Exception):
    """A step of :data:`RBO_KERNELS` declined its input (an item twice in one query of the reference): the numpy
    path answers."""


def _ints(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


class _RboKernels:
    """The compiled engine's ``rbo_tied_join_same``, ``match_ranges`` and ``rbo_sums`` (``ir_rbstar._compiled``:
    the RBO family's join and sums over the shared documents), done by the C extension with the same arguments
    and the same results (the same doubles: numba's operations in its order), for inputs too small for that
    engine. A step that declines its input raises :class:`Declined`. :func:`rbo_kernels` gives it where the
    extension is built."""

    @staticmethod
    def rbo_tied_join_same(b_first, b_len, b_hash, b_same, r_first, r_len, r_hash, r_same, l, s, Hs, Gs, Ks
                           ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(head, x_s, x_l) per query: the tie-aware sums over the documents a run (every row of it) shares with
        its reference, both rankings' tie groups made from their sort's flags (``b_same``, ``r_same``)."""
        def flags(a):
            return np.ascontiguousarray(a, dtype=bool).view(np.uint8)
        got = extension.compiled.rbo_tied_join_same(
            _ints(b_first), _ints(b_len), _ints(b_hash), flags(b_same), _ints(r_first), _ints(r_len), _ints(r_hash),
            flags(r_same), _ints(l), _ints(s), *(np.ascontiguousarray(t, dtype=np.float64) for t in (Hs, Gs, Ks)))
        if got is None:
            raise Declined
        head, x_s, x_l = (np.frombuffer(g, dtype=np.float64) for g in got)
        return head, x_s, x_l

    @staticmethod
    def match_ranges(b_start, b_len, b_hash, r_start, r_len, r_hash) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The documents of B found in R, query by query (rows ``b_start[i] .. + b_len[i]`` of B, likewise R, by
        their 64-bit codes): each one's universe query, 1-based rank in B and row in R, in B's order."""
        got = extension.compiled.match_ranges(_ints(b_start), _ints(b_len), _ints(b_hash), _ints(r_start),
                                              _ints(r_len), _ints(r_hash))
        if got is None:
            raise Declined
        seg, rank, row = (np.frombuffer(g, dtype=np.int64) for g in got)
        return seg, rank, row

    @staticmethod
    def rbo_sums(n, seg, rank, row, t_start, t_size, l, s, H, G) -> Tuple[np.ndarray, np.ndarray]:
        """Per query: the sum over the shared documents of sum_{d<=l} p^d f_e(d) / d and of f_e(s), from the
        tables H and G of :func:`ir_rbstar.core.rankbiased.rbo_tables`."""
        head, x_s = extension.compiled.rbo_sums(int(n), _ints(seg), _ints(rank), _ints(row), _ints(t_start),
                                                _ints(t_size), _ints(l), _ints(s),
                                                np.ascontiguousarray(H, dtype=np.float64),
                                                np.ascontiguousarray(G, dtype=np.float64))
        return np.frombuffer(head, dtype=np.float64), np.frombuffer(x_s, dtype=np.float64)


RBO_KERNELS = _RboKernels()


def rbo_kernels() -> Optional[_RboKernels]:
    """:data:`RBO_KERNELS` where the C extension (with these steps) is built, else None."""
    if extension.compiled is None or not all(hasattr(extension.compiled, step) for step in
                                             ("rbo_tied_join_same", "match_ranges", "rbo_sums")):
        return None
    return RBO_KERNELS


def id_blocks(offsets: np.ndarray, data: np.ndarray, limit: int) -> "Optional[Tuple[np.ndarray, list] | Tuple[()]]":
    """The blocks of equal ids of an arrow string array given by its ``offsets`` and ``data`` (as
    :func:`.idcolumns._string_buffers` gives them): (the row each block starts at, each block's id as a ``str``),
    read in C; ``()`` when there are more than ``limit`` blocks; None when the compiled module is not installed
    or an id is not UTF-8."""
    if extension.compiled is None:
        return None
    got = extension.compiled.id_blocks(offsets, data, limit)
    if not got:
        return got
    return np.frombuffer(got[0], dtype=np.int64), got[1]


def ascii_ids(offsets: np.ndarray, data: np.ndarray, budget: int, view: bool
              ) -> Optional[Tuple[Optional[np.ndarray], int]]:
    """The ids of an arrow string array (``offsets``, ``data`` as for :func:`id_blocks`) as a bytes (``S``) array
    as wide as the longest id (at least 1 byte), NUL-padded, made in C, and that width; with ``view``, ids all of
    one length give (None, width): ``data`` itself is the column. None when the compiled module is not installed,
    some id holds a NUL byte or a byte >= 128, or rows x width would exceed ``budget``."""
    if extension.compiled is None:
        return None
    got = extension.compiled.ascii_ids(offsets, data, budget, view)
    if got is None:
        return None
    buf, width = got
    return (None if buf is None else np.frombuffer(buf, dtype=f"S{width}")), width


def tie_order(same: np.ndarray, order: Optional[np.ndarray], dbytes: np.ndarray
              ) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(the ranked positions of every tied row, the input row each holds once ties are broken by document id,
    descending) as :func:`.tiebreak.break_ties_by_docid` breaks them, in C (its numpy steps number some forty
    whatever the number of tied rows); None when the compiled module is not installed. ``same``: whether each
    ranked row but the first ties with the row before; ``order``: each ranked row's input row (None: the same);
    ``dbytes``: the input rows' ids (``S``)."""
    if extension.compiled is None or dbytes.dtype.kind != "S" or dbytes.dtype.itemsize < 1:
        return None
    ranked_of = None if order is None else np.ascontiguousarray(order, dtype=np.int64)
    rows, ranked = extension.compiled.tie_order(np.ascontiguousarray(same, dtype=bool).view(np.uint8), ranked_of,
                                       np.ascontiguousarray(dbytes), dbytes.dtype.itemsize)
    return np.frombuffer(rows, dtype=np.int64), np.frombuffer(ranked, dtype=np.int64)


#: files up to this size have their numbers beyond the exact fast path (more than 15 significant digits, such as
#: Python's 17-digit reprs of scores) read by the C library's correctly rounded strtod_l; larger ones go to pyarrow's
#: reader at the first such number, whose parser of them is faster (measured on a DL 2019 run cut to 60,000 rows,
#: 3.4 MB: 22 against 25 ms; 100,000 rows, 5.6 MB: 36-48 against 32-35 ms)
SLOW_NUMBERS = 4 << 20


def scan_columns(data: bytes, ncols: int, fields: Tuple[int, ...], numeric: Optional[int], budget: int
                 ) -> Optional[dict]:
    """The ``fields`` columns of a regular TREC file (``data``: its bytes, the mark removed) as
    :func:`.arrowscan.arrow_columns` gives them (the first field, the query ids, as :class:`CodedIds`; the
    ``numeric`` one as float64, correctly rounded as Python's ``float`` reads it; the others as ``S`` arrays as
    wide as their longest token), read in C in one pass over the bytes to check the layout and one to copy; None
    when the compiled module is not installed or the file is not regular (see the module's C source: then
    pyarrow's reader or the scanners read it), or it is larger than :data:`SLOW_NUMBERS` and holds a number
    beyond the exact fast path."""
    if extension.compiled is None or data.startswith(b"\xef\xbb\xbf"):     # (a second byte-order mark: as pyarrow's)
        return None
    got = extension.compiled.scan(data, ncols, tuple(fields), -1 if numeric is None else numeric, budget,
                                  len(data) <= SLOW_NUMBERS)
    if got is None:
        return None
    heads, lengths, columns, values = got
    try:
        texts = [h.decode("utf-8") for h in heads]
    except UnicodeDecodeError:
        return None                         # (the scanners name the line)
    out: dict = {fields[0]: CodedIds(np.repeat(QUERY_IDS.encode(texts), np.frombuffer(lengths, dtype=np.int64)))}
    others = iter(columns)
    for f in fields[1:]:
        if f == numeric:
            out[f] = np.frombuffer(values, dtype=np.float64)
        else:
            buf, width, longest = next(others)
            out[f] = _ids(buf, width, longest)
    return out

