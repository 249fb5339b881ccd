"""The columnar tables every input becomes: :class:`Ranking` (rows in trec_eval order, tie groups
known) and :class:`Qrels`; the sort into trec_eval's order (float32 scores descending, then document id
descending)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional, Tuple

import numpy as np

from . import dictscan
from .docindex import DocIndex, MovedIndex, Moves, _find, judgment_index, rows_of_segments, verify_ids
from .ids import QUERY_IDS, _to_str, query_text
from .tiebreak import break_ties_by_docid

if TYPE_CHECKING:                       # (pandas is imported where a DataFrame is made: not by the other doors)
    import pandas as pd


def first_seen(values: np.ndarray) -> np.ndarray:
    """The distinct values of ``values`` in the order they first appear (as ``pandas.unique`` gives them)."""
    _, at = np.unique(values, return_index=True)
    return values[np.sort(at)]


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


def _tie_layout_of(same: np.ndarray, pos: np.ndarray, own: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """:func:`tie_layout` from ``same`` (``same[i]``: row i + 1 is in row i's tie group, as the sort
    found): every row its own group but the tied ones, which get their group's start and size. With
    ``own``, ``pos`` is the caller's new array and becomes the starts (changed in place)."""
    start = pos if own else pos.copy()
    size = np.ones(len(pos), dtype=np.int64)
    if len(same) == 0 or not same.any():
        return start, size
    rows, head, sizes = _tied_rows(same, len(pos))
    start[rows] = pos[rows[head]]
    size[rows] = sizes
    return start, size


def _tied_rows(same: np.ndarray, n: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From ``same`` (as in :func:`_tie_layout_of`, over ``n`` rows): the rows in a tie group of two or more
    (ascending), and for each the index among them of its group's first row, and its group's size."""
    tied = np.zeros(n, dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    rows = np.flatnonzero(tied)
    opens = np.concatenate(([True], ~same[rows[1:] - 1])) if len(rows) else np.zeros(0, dtype=bool)
    first = np.flatnonzero(opens)
    gid = np.cumsum(opens) - 1
    return rows, first[gid], np.diff(np.append(first, len(rows))).astype(np.int64)[gid]


class KeepsDerived:
    """An object that does not change, keeping what is derived from it (in its ``_cache`` dict) for the
    next use: :meth:`kept` is the one way other modules read and fill that store."""

    _cache: dict

    def kept(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value kept with this object under ``key``, made by ``make()`` on first use. It is only right
        while the object does not change (its arrays are never written after it is made); a mutable value
        (e.g. a list) kept here may serve as a slot the caller replaces."""
        cache = self._cache
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def held(self, key: Any) -> Any:
        """The value kept under ``key``, or None when nothing is (nothing is made)."""
        return self._cache.get(key)

    def keep(self, key: Any, value: Any) -> None:
        """Keep ``value`` under ``key``: for the maker of the object, which derived it while making it (e.g.
        the index built for the duplicate check), before anything has read that key."""
        self._cache[key] = value


@dataclass
class Ranking(KeepsDerived):
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

    def remembered(self, key: Any) -> Any:
        """What a measure family kept with this ranking under ``key`` (:meth:`remember`), or None."""
        return self._cache.get(("memo", key))

    def remember(self, key: Any, value: Any) -> Any:
        """Keep ``value`` with this ranking under ``key`` (e.g. what every evaluation against it as a
        prior or reference needs again); returns ``value``."""
        self._cache[("memo", key)] = value
        return value

    def row_segments(self) -> np.ndarray:
        if "seg" not in self._cache:
            self._cache["seg"] = segment_ids(self.offsets)
        return self._cache["seg"]

    def row_positions(self) -> np.ndarray:
        """0-based rank of each row within its query."""
        if "pos" not in self._cache:
            self._cache["pos"] = self.row_ranks() - 1 if "rank" in self._cache else self._positions()
        return self._cache["pos"]

    def row_ranks(self) -> np.ndarray:
        """1-based rank of each row within its query: a running count that restarts at each query."""
        if "rank" not in self._cache:
            self._cache["rank"] = self._counted(1)
        return self._cache["rank"]

    def _positions(self) -> np.ndarray:
        """A new array of :meth:`row_positions`, not cached."""
        return self._counted(0)

    def _counted(self, first: int) -> np.ndarray:
        """A new array: each row's place within its query, counted from ``first`` (the first row of the
        ranking holds ``first``, each query's first row 1 minus the length of the query before, then a
        cumsum)."""
        out = np.ones(len(self), dtype=np.int64)
        out[self.offsets[1:-1]] = 1 - np.diff(self.offsets[:-1])
        if len(out):
            out[0] = first
        np.cumsum(out, out=out)
        return out

    def has_ties(self) -> bool:
        """Whether two rows of a query have equal scores (as trec_eval compares them): cheaper than
        :meth:`tie_groups`, which a run without ties does not need."""
        if "has ties" not in self._cache:
            if "same" in self._cache:
                self._cache["has ties"] = bool(self._cache["same"].any())
            elif "ties" in self._cache:
                self._cache["has ties"] = bool((self._cache["ties"][1] > 1).any())
            else:
                key = order_key(self.scores)
                same = key[1:] == key[:-1]
                same[self.offsets[1:-1] - 1] = False          # the first row of a query ties with no row before
                self._cache["has ties"] = bool(same.any())
        return self._cache["has ties"]

    def tie_flags(self) -> Optional[np.ndarray]:
        """``flags[j]``: row j + 1 ties with row j (the same query), as the sort into trec_eval's order found
        them; None for a ranking not made by that sort (then :meth:`tie_groups` computes the groups)."""
        return self._cache.get("same")

    def tie_groups(self) -> Tuple[np.ndarray, np.ndarray]:
        """For each row: the 0-based position where its tie group (equal score) starts, and its size."""
        if "ties" not in self._cache:
            if "same" in self._cache:                # known from the sort: only the tied rows are visited
                # the groups' starts are the positions but at tied rows: made in place from new positions
                # unless they are kept already (a measure that needs only the groups keeps one array fewer)
                fresh = "pos" not in self._cache
                pos = self._positions() if fresh else self.row_positions()
                self._cache["ties"] = _tie_layout_of(self._cache["same"], pos, own=fresh)
            else:
                self._cache["ties"] = tie_layout(self.row_segments(), self.scores, self.row_positions())
        return self._cache["ties"]

    def tie_groups_at(self, rows: np.ndarray, pos: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        """``tie_groups()`` at ``rows`` only. When the sort found the ties and the columns over all rows are
        not made, only the tied rows are visited (their groups kept); the others are their own group, at
        their position: ``pos``, the rows' 0-based positions within their queries when the caller has them
        (else one search per row among the queries' ends, the cost ``pos`` saves)."""
        if "ties" in self._cache or "same" not in self._cache:
            start, size = self.tie_groups()
            return start[rows], size[rows]
        rows = np.asarray(rows, dtype=np.int64)
        start = self._positions_at(rows) if pos is None else np.array(pos, dtype=np.int64)
        size = np.ones(len(rows), dtype=np.int64)
        if "tied rows" not in self._cache:
            at, head, sizes = _tied_rows(self._cache["same"], len(self))
            pos = self._positions_at(at)
            # each row's place among the tied rows, -1 for an untied one: one look a row (a search among the
            # tied rows instead cost 7 of the 54 ms of RBO against a reference 65% of whose rows tie)
            slot = np.full(len(self), -1, dtype=np.int32 if len(at) < 2 ** 31 else np.int64)
            slot[at] = np.arange(len(at))
            self._cache["tied rows"] = (pos[head], sizes, slot)
        group_start, group_size, slot = self._cache["tied rows"]
        if len(group_start):
            k = slot[rows]
            hit = np.flatnonzero(k >= 0)
            k = k[hit]
            start[hit] = group_start[k]
            size[hit] = group_size[k]
        return start, size

    def _positions_at(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`row_positions` at ``rows`` only: each row less its query's first row."""
        return rows - self.offsets[np.searchsorted(self.offsets, rows, side="right") - 1]

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
class Qrels(KeepsDerived):
    """Relevance judgments, one row per (query, document), in input order. The arrays are made read-only:
    what is derived from them (the document index, values the measure families keep for the next
    evaluation) is kept with the object (:meth:`kept`), so the object must not change;
    ``dataclasses.replace`` makes a new object with an empty store."""

    qcodes: np.ndarray      # unique query codes, in first-seen order
    rowq: np.ndarray        # query code of each row
    rowd: np.ndarray        # doc hash of each row
    rowb: np.ndarray        # doc id (bytes) of each row
    grades: np.ndarray      # integer grade of each row
    source: str = "<qrels>"
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for column in (self.qcodes, self.rowq, self.rowd, self.rowb, self.grades):
            if isinstance(column, np.ndarray):
                column.flags.writeable = False

    @property
    def max_grade(self) -> int:
        return int(self.grades.max()) if len(self.grades) else 0

    def lookup(self, qcodes: np.ndarray, dhash: np.ndarray, dbytes: "np.ndarray | Callable[[], np.ndarray]",
               width: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(grade, judged) for each (query code, document) pair; ``dbytes`` (the documents' ids) as
        :func:`.docindex.verify_ids` takes them: or a function giving them, ``width`` bytes wide."""
        rows = self.find_rows(qcodes, dhash)
        verify_ids(self.rowb, rows, dbytes, self.source, width)
        # the grades after a 0 for "not judged" (row -1): one gather instead of a mask and a scatter
        padded = self.kept("grades after 0", lambda: np.concatenate((np.zeros(1, dtype=np.int64),
                                                                      self.grades.astype(np.int64))))
        return padded[rows + 1], rows >= 0

    def find_rows(self, qcodes: np.ndarray, dhash: np.ndarray) -> np.ndarray:
        """The qrels row of each (query code, document hash) pair, -1 where there is none; the document
        ids are not verified here (:meth:`lookup` does, and callers that already used it may skip it)."""
        return self.kept("index", lambda: judgment_index(self.rowq, self.rowd)).lookup(qcodes, dhash)

    def as_ranking(self, rel: int) -> Ranking:
        """The reference ranking derived from the judgments: grade >= rel, grade descending, equal grades tied."""
        def make() -> Ranking:
            keep = self.grades >= rel
            return _build_ranking(self.rowq[keep], self.rowb[keep], self.rowd[keep],
                                  self.grades[keep].astype(np.float64), f"{self.source} (grade >= {rel})",
                                  qorder=self.qcodes, break_ties=False)
        return self.kept(("ranking", rel), make)

    def frame(self) -> "pd.DataFrame":
        """The judgments as a DataFrame ``query_id, doc_id, relevance``."""
        import pandas as pd
        return pd.DataFrame({"query_id": QUERY_IDS.decode(self.rowq), "doc_id": _to_str(self.rowb),
                             "relevance": self.grades})


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
    codes = QUERY_IDS.encode(map(query_text, heads.tolist()))
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
                   index: Optional[DocIndex | MovedIndex] = None, with_order: bool = False,
                   inplace: Tuple[bool, bool, bool] = (False, False, False)):
    """Sort rows into trec_eval order (doc ids break score ties, descending, when ``break_ties``; else
    tied rows keep their input order). With ``with_order``: (ranking, the input row of each ranked row, as
    an array or as :class:`Moves` when only tied rows moved, or None when no row moved).

    ``inplace``: whether ``dbytes``, ``dhash`` and ``scores`` are the caller's new arrays, which nothing
    else holds: when only a few tied rows move (:class:`Moves`), they are moved within those arrays
    (on millions of rows each copy costs its time and its page faults), and the arrays passed in then
    hold the ranked order.

    The sort key is one int64 per row, the query's place in the output (high bits) and the descending
    code of the float32 score (low 32 bits): one ``argsort`` of integers, several times faster than a
    ``lexsort`` over the two columns."""
    n = len(qcodes)
    if n == 0:
        empty = Ranking(qcodes=np.empty(0, dtype=np.int64), offsets=np.zeros(1, dtype=np.int64),
                        dbytes=dbytes, docs=dhash, scores=scores, source=source)
        return (empty, None) if with_order else empty
    first = _block_firsts(qcodes)
    if qorder is None:
        # segments in order of first appearance in the input (the blocks' queries, when no query has two)
        heads = qcodes[first]
        qorder = heads if len(set(heads.tolist())) == len(heads) else first_seen(heads)
    same = _in_order_ties(qcodes, scores, qorder, first)
    if same is not None:
        order = None            # already in (query, score descending) order, as TREC files usually are
    else:
        rank_of_q = np.full(int(max(qcodes.max(), qorder.max())) + 1, -1, dtype=np.int64)
        rank_of_q[qorder] = np.arange(len(qorder))
        sort_key = _sort_key(scores, rank_of_q[qcodes])
        order = np.argsort(sort_key, kind=None if break_ties else "stable")
        if break_ties:
            ks = sort_key[order]
            same = ks[1:] == ks[:-1]             # row i + 1 ties with row i (in ranked order)
            del ks
        del sort_key
    if break_ties and n > 1 and same is not None:
        order = break_ties_by_docid(order, same, dbytes)
    if isinstance(order, Moves):               # a few tied rows moved, within their query
        dbytes, dhash, scores = (order.apply(a, own) for a, own in zip((dbytes, dhash, scores), inplace, strict=True))
    elif order is not None:
        qcodes, dbytes, dhash, scores = qcodes[order], dbytes[order], dhash[order], scores[order]
        first = _block_firsts(qcodes)
    if order is not None and index is not None:     # built on the input order: rows have moved
        index = MovedIndex(index, order)
    starts = np.flatnonzero(first)
    offsets = np.append(starts, n).astype(np.int64)
    ranking = Ranking(qcodes=qcodes[starts], offsets=offsets, dbytes=dbytes, docs=dhash, scores=scores, source=source)
    # (the query of every row is not kept: row_queries() makes it from the offsets when a join needs it,
    # and a measure that does not frees its memory for the rest of the evaluation)
    if same is not None:
        ranking.keep("same", same)             # tie groups, for the measures that need them
    if index is not None:
        ranking.keep("index", index)           # built once for the duplicate check; reused for joins
    return (ranking, order) if with_order else ranking


def _block_firsts(qcodes: np.ndarray) -> np.ndarray:
    """Whether each row starts a block of equal query codes (the first row does)."""
    first = np.empty(len(qcodes), dtype=bool)
    first[:1] = True
    np.not_equal(qcodes[1:], qcodes[:-1], out=first[1:])
    return first


def _in_order_ties(qcodes: np.ndarray, scores: np.ndarray, qorder: np.ndarray,
                   first: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
    """When the rows are in trec_eval's order already (one block of rows per query, the blocks in the
    order ``qorder``, float32 scores non-increasing within a block, as in TREC files), whether each row
    ties with the row before (same query, equal float32 score; one value per row but the first); else
    None. A few comparisons over the columns, without the int64 sort key that ordering the rows needs.
    ``first``: :func:`_block_firsts` of ``qcodes``, when the caller has it."""
    if first is None:
        first = _block_firsts(qcodes)
    new_query = first[1:]
    heads = qcodes[first]
    if len(heads) != len(qorder) or not np.array_equal(heads, qorder):
        return None                             # a query in more than one block, or blocks to reorder
    compiled = dictscan.in_order_ties(qcodes, scores)     # in C where the extension is built: the same flags
    if compiled is False:
        return None                             # a score rises within a block
    if isinstance(compiled, np.ndarray):
        return compiled
    key = order_key(scores)
    step = key[1:] <= key[:-1]
    step |= new_query
    if not step.all():
        return None
    same = key[1:] == key[:-1]
    same &= ~new_query
    return same
