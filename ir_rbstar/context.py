"""The evaluation context of one run: the query universe, the run's rows per query, references, joins.

Everything a measure family needs is derived here once and cached for the other measures of the same
call: the run's top-k rows as flat arrays (``Rows``), the reference ranking restricted to the query
universe, and the joins between them and with the qrels. Families turn these arrays into values with
the kernels of :mod:`ir_rbstar.core`.

Internal: not part of the public API (docs/api.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple, cast

import numpy as np

from .engine import compiled
from .errors import GradeScaleError, MissingQrelsError
from .core.rbo_variants import match_counted
from .core.rowjoin import match_by_query
from .core.segments import seg_cumcount
from .io import QUERY_IDS, Qrels, Ranking, dictscan, hashes_are_ids, querytable, tie_layout, verify_pairs
from .io.tables import KeepsDerived
from .io.judgmenttable import grades_of_rows, judgments_by_tables
from .references import resolve_run

__all__ = ["Rows", "TiedRows", "RankedRows", "RunContext"]


class Rows:
    """Rows of a ranking gathered for the query universe (query i of the universe is segment i).

    ``seg``: universe index of each row; ``rank``: 1-based rank of each row within its query; ``docs``:
    document id hashes; ``dbytes``: document ids (bytes); ``src``: row index in the source ranking;
    ``lens``: number of rows per universe query; ``identity``: the rows are all the source's rows, in
    place (``src`` is then 0, 1, 2, ..., ``seg`` and ``rank`` the source's own, all made on first use:
    many measures never read them). Rows gathered with their ``source`` (``gather(..., lean=True)``) may
    also leave ``seg``, ``rank`` and ``dbytes`` to be made on first use, from ``lens`` and ``src``."""

    __slots__ = ("_seg", "_rank", "docs", "_dbytes", "_src", "lens", "identity", "_source")

    def __init__(self, seg: Optional[np.ndarray], rank: Optional[np.ndarray], docs: np.ndarray,
                 dbytes: Optional[np.ndarray], src: Optional[np.ndarray], lens: np.ndarray, identity: bool = False,
                 source: Optional[Ranking] = None):
        if (source is None and (seg is None or rank is None or dbytes is None or src is None)
                or src is None and not identity):
            raise ValueError("Rows: seg, src, rank and dbytes are needed unless the rows are their source's own "
                             "(identity), or src with the source")
        self._seg, self._rank, self.docs, self._dbytes, self._src = seg, rank, docs, dbytes, src
        self.lens, self.identity, self._source = lens, identity, source

    @property
    def seg(self) -> np.ndarray:
        """The universe index of each row."""
        if self._seg is None:
            self._seg = cast(Ranking, self._source).row_segments() if self.identity else _segments(self.lens)
        return self._seg

    def seg_at(self, rows: np.ndarray) -> np.ndarray:
        """``seg[rows]``, without making ``seg`` when it is not made yet (then one search per row asked for
        among the queries' ends)."""
        if self._seg is None:
            return np.searchsorted(np.cumsum(self.lens), rows, side="right").astype(np.int64, copy=False)
        return self.seg[rows]

    def seg_at_ascending(self, rows: np.ndarray) -> np.ndarray:
        """``seg[rows]`` for ascending ``rows``, without ``seg``: one search per query among the rows and a
        repeat (a search per row among the queries' ends, numpy's ``searchsorted``, took 3-5 times as long
        on 17,000 rows of 200 queries, measured)."""
        cut = np.searchsorted(rows, np.cumsum(self.lens))
        return np.repeat(np.arange(len(self.lens), dtype=np.int64), np.diff(cut, prepend=0))

    def seg_rank_at(self, rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(``seg[rows]``, ``rank[rows]``) without making ``seg`` or ``rank`` when they are not made yet (then
        one search per row asked for among the queries' ends): for measures that read a few rows."""
        seg = self.seg_at(rows)
        if self._rank is None:
            return seg, rows - (np.cumsum(self.lens) - self.lens)[seg] + 1
        return seg, self._rank[rows]

    @property
    def src(self) -> np.ndarray:
        """The row index in the source ranking of each row."""
        if self._src is None:
            self._src = np.arange(len(self.docs), dtype=np.int64)
        return self._src

    @property
    def rank(self) -> np.ndarray:
        """The 1-based rank of each row within its query."""
        if self._rank is None:
            self._rank = cast(Ranking, self._source).row_ranks() if self.identity else _positions(self.lens) + 1
        return self._rank

    @property
    def id_width(self) -> int:
        """The width in bytes of :attr:`dbytes` (without making it)."""
        if self._dbytes is None:
            return cast(Ranking, self._source).dbytes.dtype.itemsize
        return self._dbytes.dtype.itemsize

    @property
    def dbytes(self) -> np.ndarray:
        """The document id (bytes) of each row."""
        if self._dbytes is None:
            self._dbytes = cast(Ranking, self._source).dbytes[self.src]
        return self._dbytes


class TiedRows:
    """The rows of the run that may be in B when its ties are not broken: its top k rows and the rest of a
    tie group that straddles k, with every row's tie group.

    ``rows``: those rows (``rows.lens`` counts them per query); ``start``: 0-based position where each
    row's tie group starts; ``size``: the group's size; ``kept``: how many of the group's positions are
    within B (= size unless it straddles k); ``blen``: |B| per query (min(k, run length)); ``straddles``:
    whether some group straddles k; ``tied``: whether some group has more than one row. When the rows are
    all the run's rows (no cutoff splits a group), ``start``, ``size`` and ``kept`` are the run's tie
    groups, made on first use; :meth:`groups_at` reads them at some rows without making them."""

    __slots__ = ("rows", "_start", "_size", "_kept", "blen", "straddles", "tied", "_run")

    def __init__(self, rows: Rows, start: Optional[np.ndarray], size: Optional[np.ndarray],
                 kept: Optional[np.ndarray], blen: np.ndarray, straddles: bool, tied: bool,
                 run: Optional[Ranking] = None):
        if (start is None or size is None or kept is None) and not (rows.identity and run is not None):
            raise ValueError("TiedRows: start, size and kept are needed unless the rows are the run's own")
        self.rows, self._start, self._size, self._kept = rows, start, size, kept
        self.blen, self.straddles, self.tied, self._run = blen, straddles, tied, run

    def _groups(self) -> None:
        if self._start is None:
            self._start, self._size = cast(Ranking, self._run).tie_groups()
            self._kept = self._size

    @property
    def start(self) -> np.ndarray:
        self._groups()
        return cast(np.ndarray, self._start)

    @property
    def size(self) -> np.ndarray:
        self._groups()
        return cast(np.ndarray, self._size)

    @property
    def kept(self) -> np.ndarray:
        self._groups()
        return cast(np.ndarray, self._kept)

    def groups_at(self, at: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(start, size, kept) at the rows ``at``."""
        if self._start is None:
            start, size = cast(Ranking, self._run).tie_groups_at(at)
            return start, size, size
        size = self.size[at]
        return self.start[at], size, (size if self._kept is self._size else self.kept[at])


@dataclass
class RankedRows:
    """Rows of the run with their tie groups and judgments, as the tie-aware family uses them."""

    seg: np.ndarray       # universe index of each row
    pos: np.ndarray       # 0-based position within the query
    start: np.ndarray     # 0-based position where the row's tie group starts (= pos when ties are broken)
    size: np.ndarray      # size of the row's tie group (1 when ties are broken)
    grade: np.ndarray     # grade of each row (0 when unjudged)
    judged: np.ndarray    # whether each row is judged


def ranges(ranking: Ranking, universe: np.ndarray, cutoff: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """For each universe query, its first row in ``ranking`` and its number of rows (at most ``cutoff``;
    0 where the ranking does not have the query)."""
    if len(universe) == len(ranking.qcodes) and np.array_equal(universe, ranking.qcodes):   # (its own, in order)
        lens = ranking.segment_lengths().astype(np.int64, copy=False)
        return ranking.offsets[:-1].astype(np.int64), (lens if cutoff is None else np.minimum(lens, cutoff))
    segs = ranking.segment_of(universe)
    found = segs >= 0
    lens = np.zeros(len(universe), dtype=np.int64)
    lens[found] = ranking.segment_lengths()[segs[found]]
    if cutoff is not None:
        lens = np.minimum(lens, cutoff)
    starts = np.zeros(len(universe), dtype=np.int64)
    starts[found] = ranking.offsets[segs[found]]
    return starts, lens


def gather(ranking: Ranking, universe: np.ndarray, cutoff: Optional[int] = None,
           lens: Optional[np.ndarray] = None, lean: bool = False,
           spans: Optional[Callable[[], Tuple[np.ndarray, np.ndarray]]] = None) -> Rows:
    """The rows of ``ranking`` for each universe query: its first ``cutoff`` rows, or its first ``lens[i]``
    rows of query i when ``lens`` is given. ``lean``: only the documents and the source rows now, the
    queries, ranks and ids of the rows on first use (for callers that join on the documents). ``spans``:
    gives what ``ranges(ranking, universe, cutoff)`` gives, when the caller keeps it (asked for only when
    the rows are not the ranking's own)."""
    if (lens is None and len(universe) == len(ranking.qcodes) and np.array_equal(universe, ranking.qcodes)
            and (cutoff is None or ranking.segment_lengths().max(initial=0) <= cutoff)):
        # every row, in place (the common case: no cutoff, the run's own queries)
        return Rows(seg=None, rank=None, docs=ranking.docs, dbytes=ranking.dbytes, src=None,
                    lens=ranking.segment_lengths(), identity=True, source=ranking)
    starts, found = ranges(ranking, universe, cutoff) if spans is None else spans()
    lens = found if lens is None else lens
    if lean:        # each row's source row: its query's first row there, moved by its place in the output
        total = int(lens.sum())
        src = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total, dtype=np.int64)
        return Rows(seg=None, rank=None, docs=ranking.docs[src], dbytes=None, src=src, lens=lens, source=ranking)
    seg, pos = _segments(lens), _positions(lens)
    src = starts[seg] + pos
    # (the ids on first use: most joins need only the hashes, which are the ids when no id is longer than 8 bytes)
    return Rows(seg=seg, rank=pos + 1, docs=ranking.docs[src], dbytes=None, src=src, lens=lens, source=ranking)


def _segments(lens: np.ndarray) -> np.ndarray:
    """The segment (universe query) of each row of a layout of ``lens[i]`` rows per query."""
    return np.repeat(np.arange(len(lens), dtype=np.int64), lens)


def _positions(lens: np.ndarray) -> np.ndarray:
    """The 0-based position of each row within its query, for a layout of ``lens[i]`` rows per query."""
    return np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)


def _offsets(lens: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=out[1:])
    return out


def join_judgments(run: Ranking, qrels: Qrels, b: Rows, queries: Callable[[], np.ndarray],
                   side: Optional[str] = None) -> Tuple[np.ndarray, np.ndarray]:
    """(grade, judged) of every row of ``b`` (rows of ``run``; ``queries()`` gives their query codes).

    ``side="rows"`` looks each row up in the judgments; ``side="judgments"`` looks each judgment up in
    the run (its index); both give the same arrays. By default the run's side is taken when the run keeps
    an index (from its duplicate check) and the judgments are far fewer than the rows."""
    found = judgments_by_tables(run, qrels, b) if side is None else None     # (both kept sorted keys)
    if found is not None:
        return found
    if side is None:
        side = "judgments" if run.has_index() and 4 * len(qrels.rowq) < len(b.docs) else "rows"
    if side == "rows":
        # (the rows' ids made only where they are compared: some id longer than 8 bytes)
        return qrels.lookup(queries(), b.docs, lambda: b.dbytes, b.id_width)
    run_row = run.find(qrels.rowq, qrels.rowd, qrels.rowb)
    judgment = np.flatnonzero(run_row >= 0)
    return grades_of_rows(b, len(run), run_row[judgment], qrels.grades[judgment])


class RunContext(KeepsDerived):
    """One run evaluated over a query universe, with cached derived arrays."""

    def __init__(self, run: Ranking, qrels: Optional[Qrels], universe: np.ndarray):
        self.run = run
        self.qrels = qrels
        self.universe = universe
        self.n = len(universe)
        self._cache: Dict[Tuple, object] = {}

    def kernels(self):
        """The compiled kernels for this evaluation, or None for numpy: chosen once per evaluation (from
        the engine setting and the run's size) the first time a measure asks, so numba is loaded only
        for measures that use it, and every measure of the evaluation runs on the same engine."""
        return self.cached(("engine",), lambda: compiled(len(self.run)))

    #: the value stored under ``key`` for this run, made by ``make()`` the first time
    cached = KeepsDerived.kept

    def require_qrels(self, measure) -> Qrels:
        if self.qrels is None:
            raise MissingQrelsError(f"{measure} needs relevance judgments, but no qrels were given")
        return self.qrels

    def observation(self, cutoff: Optional[int]) -> Rows:
        """The run's top-k rows (B) per universe query."""
        return self.cached(("obs", cutoff), lambda: gather(self.run, self.universe, cutoff))

    def tied_observation(self, cutoff: Optional[int]) -> TiedRows:
        """B with the run's tie groups kept (see :class:`TiedRows`)."""
        def make():
            b = self.observation(cutoff)
            if b.identity:
                # every row of every query (the run's own rows): no group reaches past its query's last row, so
                # every position of every group is kept, and the groups are the run's (made when it was read)
                return TiedRows(b, None, None, None, b.lens, False, self.run.has_ties(), run=self.run)
            reach = b.lens.copy()
            has = np.flatnonzero(b.lens > 0)
            last = np.cumsum(b.lens)[has] - 1                      # the last row of B of each query
            start, size = (a[b.src] for a in self.run.tie_groups())
            reach[has] = np.maximum(b.lens[has], start[last] + size[last])
            straddles = bool((reach > b.lens).any())
            if not straddles:
                # the group of a query's last row of B ends within B, and so do the groups before it: every
                # position of every group is kept
                return TiedRows(b, start, size, size, b.lens, False, bool((size > 1).any()))
            rows = gather(self.run, self.universe, lens=reach)
            start, size = (a[rows.src] for a in self.run.tie_groups())
            kept = np.minimum(start + size, b.lens[rows.seg]) - start
            return TiedRows(rows, start, size, kept, b.lens, straddles, bool((size > 1).any()))
        return self.cached(("tied obs", cutoff), make)

    def queries(self, rows: Rows) -> np.ndarray:
        """The query code of every row of ``rows`` (gathered for this context's universe)."""
        return self.universe[rows.seg]

    def judgments(self, cutoff: Optional[int], tied: bool = False) -> Tuple[np.ndarray, np.ndarray]:
        """(grade, judged) of every row of B (``tied``: of :meth:`tied_observation`'s rows)."""
        if tied and not self.tied_observation(cutoff).straddles:
            return self.judgments(cutoff)

        def make():
            b = self.tied_observation(cutoff).rows if tied else self.observation(cutoff)
            return join_judgments(self.run, self.qrels, b, lambda: self.queries(b))
        return self.cached(("judg", cutoff, tied), make)

    def reference(self, ref: Optional[str], rel: int, measure) -> Ranking:
        if ref is None:
            return self.require_qrels(measure).as_ranking(rel)
        return resolve_run(ref)

    def reference_ranges(self, ref: Optional[str], rel: int, measure) -> Tuple[np.ndarray, np.ndarray]:
        """:func:`ranges` of the reference for the universe: each universe query's first row there and
        its number of rows."""
        return self.cached(("ref ranges", ref, rel), lambda: ranges(self.reference(ref, rel, measure), self.universe))

    def reference_rows(self, ref: Optional[str], rel: int, measure) -> Rows:
        """The reference's rows per universe query: their documents and source rows (their queries, ranks
        and ids made when first read)."""
        def make():
            return gather(self.reference(ref, rel, measure), self.universe, lean=True,
                          spans=lambda: self.reference_ranges(ref, rel, measure))
        return self.cached(("ref", ref, rel), make)

    def match(self, cutoff: Optional[int], ref: Optional[str], rel: int, measure, tied: bool = False):
        """Join B and R once: for each B row its row in the reference (-1 if absent), and for each
        gathered R row whether it is in B: by the compiled engine when it serves the evaluation, by the
        reference's hash index when it has one already, else by merging the tables of sorted keys both
        conversions kept (:func:`.io.querytable.kept_pairs`, B and R all their rows), by a table of one query a
        row (:func:`.core.rowjoin.match_by_query`), or by one sort of both sides' keys. ``tied``: the rows of
        :meth:`tied_observation` instead of B."""
        if tied and not self.tied_observation(cutoff).straddles:
            return self.match(cutoff, ref, rel, measure)

        def make():
            b = self.tied_observation(cutoff).rows if tied else self.observation(cutoff)
            reference = self.reference(ref, rel, measure)
            r = self.reference_rows(ref, rel, measure)
            kernels = self.kernels()
            if kernels is not None:
                b_off, r_off = _offsets(b.lens), _offsets(r.lens)
                seg, rank, at = kernels.match_ranges(b_off[:-1], b.lens, b.docs.view(np.int64),
                                                     r_off[:-1], r.lens, r.docs.view(np.int64))
                # (the matched rows in the reference, whose own ids are compared: the lean rows' ids are not
                # gathered for this)
                b_in_r, r_in_b = _matched(reference, b, r, b_off[seg] + rank - 1, r.src[at], at)
            elif reference.has_index():           # kept with a reference (e.g. for the judgments' joins)
                b_in_r = reference.find(self.queries(b), b.docs, b.dbytes)
                pos_in_r = np.full(len(reference), -1, dtype=np.int64)
                pos_in_r[r.src] = np.arange(len(r.docs))
                r_in_b = np.zeros(len(r.docs), dtype=bool)
                r_in_b[pos_in_r[b_in_r[b_in_r >= 0]]] = True
            else:
                # one sort of both sides' (query, document) keys, block by block: no hash index to build
                # (building one and looking B up took 1.3-2 times as long on TREC runs, measured)
                # (a table with one query per row, sorted along its rows, when the queries fit one)
                # (merged from the tables of sorted keys both conversions kept, when B and R are all their rows)
                pairs = querytable.kept_pairs(self.run, reference) if b.identity and r.identity else None
                if pairs is None:       # (in C where the extension is built; the numpy table declines alike)
                    pairs = dictscan.match_rows(b.lens, b.docs.view(np.int64), r.lens, r.docs.view(np.int64))
                if pairs is None:
                    pairs = match_by_query(b.lens, b.docs.view(np.int64), r.lens, r.docs.view(np.int64))
                ib, ir = pairs if pairs is not None else \
                    match_counted(b.lens, b.docs.view(np.int64), r.lens, r.docs.view(np.int64))
                b_in_r, r_in_b = _matched(reference, b, r, ib, ir if r.identity else r.src[ir], ir)
            return reference, b_in_r, r_in_b
        return self.cached(("match", cutoff, ref, rel, tied), make)

    def shared(self, cutoff: Optional[int], ref: Optional[str], rel: int, measure, kernels):
        """The documents of B found in R, by the compiled engine (no rows gathered, no index built):
        (reference, their universe query, 1-based rank in B, row in the reference, |B| and |R| per query)."""
        def make():
            reference = self.reference(ref, rel, measure)
            b_start, b_len = ranges(self.run, self.universe, cutoff)
            r_start, r_len = self.reference_ranges(ref, rel, measure)
            seg, rank, row = kernels.match_ranges(b_start, b_len, self.run.docs.view(np.int64),
                                                  r_start, r_len, reference.docs.view(np.int64))
            # (verify_pairs checks this too; checked here first so that B's rows are computed only when compared)
            if not hashes_are_ids(reference.dbytes, self.run.dbytes):
                verify_pairs(reference.dbytes, row, self.run.dbytes, b_start[seg] + rank - 1, reference.source)
            return reference, seg, rank, row, b_len, r_len
        return self.cached(("shared", cutoff, ref, rel), make)

    def ranked(self, depth: Optional[int], judged_only: bool, aware: bool) -> RankedRows:
        """The run's rows whose tie group starts above ``depth`` (all rows for None), with tie groups
        (``aware``) or in trec_eval order (every row its own group), and their judgments. With
        ``judged_only`` unjudged rows (and, as in trec_eval, rows with a negative grade) are removed first
        and positions and ties are those of what is left."""
        def make():
            b = self.observation(None)
            pos = b.rank - 1
            if judged_only:
                grade, judged = self.judgments(None)
                judged = judged & (grade >= 0)           # trec_eval: a negative grade counts as unjudged here
                seg, grade = b.seg[judged], grade[judged]
                pos = seg_cumcount(seg) - 1
                if aware:
                    start, size = tie_layout(seg, self.run.scores[b.src[judged]], pos)
                else:
                    start, size = pos, np.ones(len(pos), dtype=np.int64)
                sel = None if depth is None else np.flatnonzero(start < depth)
                rows = RankedRows(seg, pos, start, size, grade, np.ones(len(seg), dtype=bool))
                return rows if sel is None else RankedRows(*(a[sel] for a in vars(rows).values()))
            if aware:
                start, size = self.run.tie_groups()
                if not b.identity:
                    start, size = start[b.src], size[b.src]
            else:
                start, size = pos, np.ones(len(pos), dtype=np.int64)
            if depth is None:
                grade, judged = self.judgments(None)
                return RankedRows(b.seg, pos, start, size, grade, judged)
            sel = np.flatnonzero(start < depth)
            if ("judg", None) in self._cache:
                grade, judged = self.judgments(None)
                grade, judged = grade[sel], judged[sel]
            else:
                grade, judged = self.qrels.lookup(self.queries(b)[sel], b.docs[sel], b.dbytes[sel])
            return RankedRows(b.seg[sel], pos[sel], start[sel], size[sel], grade, judged)
        return self.cached(("ranked", depth, judged_only, aware), make)

    def qrels_universe(self) -> Tuple[np.ndarray, np.ndarray]:
        """(qrels row, universe index) of every judgment of a universe query."""
        def make():
            qrels = self.qrels
            top = int(max(self.universe.max(initial=-1), qrels.rowq.max(initial=-1))) + 1
            index = np.full(top, -1, dtype=np.int64)
            index[self.universe] = np.arange(self.n)
            q = index[qrels.rowq]
            mine = np.flatnonzero(q >= 0)
            return mine, q[mine]
        return self.cached(("qrels_universe",), make)

    def qrels_rows(self) -> Tuple[np.ndarray, np.ndarray]:
        """(universe index, grade) of every judgment of a universe query."""
        def make():
            rows, q = self.qrels_universe()
            return q, self.qrels.grades[rows]
        return self.cached(("qrels_rows",), make)

    def check_grade_scale(self, measure, top: int, otherwise: str = "rel=... for binary relevance") -> None:
        """Raise GradeScaleError if a judgment of a universe query has a grade above ``top`` (the top of
        the grade scale, ``max_rel``, of a graded measure). Only the universe queries' own judgments are
        looked at, so whether a query raises never depends on the other queries."""
        qrels = self.require_qrels(measure)

        def make():
            if self.universe is qrels.qcodes:        # every judgment is of a universe query (an evaluator's)
                return int(qrels.grades.max(initial=0))
            rows, q = self.qrels_universe()
            return int(qrels.grades[rows].max(initial=0))
        highest = self.cached(("highest_grade",), make)
        if highest <= top:
            return
        rows, q = self.qrels_universe()
        i = rows[np.flatnonzero(qrels.grades[rows] > top)[0]]
        qid = QUERY_IDS.decode(qrels.rowq[i:i + 1])[0]
        doc = qrels.rowb[i].decode("utf-8", "replace")
        give = f"give max_rel={highest} or more (e.g. max_rel=3 for TREC DL)"
        if not type(measure).__module__.startswith("ir_rbstar"):
            # ir_measures' own measure object (ir_measures.parse_measure) has no max_rel parameter
            text = str(measure)
            at = text.find(")") if "(" in text else -1
            graded = (text[:at] + f",max_rel={highest}" + text[at:] if at >= 0 else
                      text.replace("@", f"(max_rel={highest})@", 1) if "@" in text else f"{text}(max_rel={highest})")
            give = (f"ir_measures' own {text} takes no max_rel: parse it with ir_rbstar.parse({graded!r}) "
                    f"(max_rel={highest} or more, e.g. 3 for TREC DL; the ir-rbstar command line takes that text "
                    f"too)")
        raise GradeScaleError(f"{measure}: query {qid!r} judges document {doc!r} with grade "
                              f"{int(qrels.grades[i])}, above max_rel={top} (the top of the grade "
                              f"scale); {give}, or {otherwise}")

    def relevant_counts(self, rel: int) -> np.ndarray:
        """Number of judged documents with grade >= rel of each universe query."""
        def make():
            q, grades = self.qrels_rows()
            return np.bincount(q[grades >= rel], minlength=self.n).astype(np.float64)
        return self.cached(("num_rel", rel), make)


def _matched(reference, b, r, b_rows: np.ndarray, ref_rows: np.ndarray, r_rows: np.ndarray):
    """(b_in_r, r_in_b) of a join of B and R: B's rows ``b_rows`` are the reference's rows ``ref_rows`` (their
    ids compared where some id is longer than its 8-byte hash), and R's gathered rows ``r_rows`` are in B."""
    verify_pairs(reference.dbytes, ref_rows, b.dbytes, b_rows, reference.source)
    b_in_r = np.full(len(b.docs), -1, dtype=np.int64)
    b_in_r[b_rows] = ref_rows
    r_in_b = np.zeros(len(r.docs), dtype=bool)
    r_in_b[r_rows] = True
    return b_in_r, r_in_b
