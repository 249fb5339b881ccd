"""The run-qrels join by two tables of sorted keys (:func:`judgments_by_tables`): the run's conversion kept
one (:data:`.querytable.KEPT`, queries of :data:`.querytable.KEEP_WIDTH` rows or more), the judgments keep
theirs across evaluations (made once, :func:`judgment_table`), and the two are merged query by query
(:func:`.querytable.merge_by_query`) instead of looking every row up in the judgments' hash index
(Robust04, 250,000 rows against 311,000 judgments: measured in the CHANGELOG). Internal; used by
:func:`ir_rbstar.context.join_judgments`.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from .docindex import _differ, hashes_are_ids, verify_matches
from .querytable import (KEPT, MIN_SHIFT, QueryTable, _ranks, least_shift, merge_by_query, pair_finisher,
                         sorted_by_query)

__all__ = ["JudgmentTable", "judgment_table", "judgments_by_tables"]

#: the key under which judgments keep their :class:`JudgmentTable` (None when they have none), with the
#: table's shift: a run of more than 2^20 rows keeps a table of a larger shift (:func:`.querytable.sorted_by_query`),
#: and the judgments keep one of that shift too, to be merged with it
TABLE_KEY = "judgments by query"

#: the most cells a judgments' table may have for each judgment (its width is the longest query's:
#: Robust04's 249 queries of 207 to 2,992 judgments give 2.4)
_MOST_CELLS = 4


#: cells of the joint table merged at a time (:func:`.querytable.merge_by_query`): above the run-reference
#: join's 12,000 (past glibc's 128 KiB threshold), as Robust04's join measured 12.4-13.6 ms (medians) with
#: 12,000 and 12.1-12.4 with 24,000 to 200,000 (its rows are wider: 1,000 run rows and up to 2,992 judgments)
CHUNK = 48_000


class JudgmentTable(NamedTuple):
    """The judgments' :class:`.querytable.QueryTable` (one row per judged query, then one row of padding
    only, for queries without judgments); its keys number the judgments sorted by query, whose document
    hashes, ids and grades are ``docs``, ``ids`` and ``grades`` (the qrels' own arrays when they came
    sorted: copies otherwise, so that a query's judgments are read from one place). ``row_of``: the
    table's row of each query code (below ``len(row_of)``; the padding row for codes without judgments);
    ``lens``: the judgments in each row."""

    table: QueryTable
    row_of: np.ndarray
    lens: np.ndarray
    docs: np.ndarray
    ids: np.ndarray
    grades: np.ndarray


def judgment_table(rowq: np.ndarray, rowd: np.ndarray, rowb: np.ndarray, grades: np.ndarray,
                   shift: int = MIN_SHIFT) -> Optional[JudgmentTable]:
    """The :class:`JudgmentTable` of judgments with query codes ``rowq``, document hashes ``rowd``, ids
    ``rowb`` and ``grades``; None when there are none, when the queries are too uneven for a table
    (:data:`_MOST_CELLS`), or when two judgments of a query have hashes with the same high bits
    (:func:`.querytable.sorted_by_query`). ``shift``: the fewest low bits of a key (the run's table's)."""
    n = len(rowq)
    if n == 0:
        return None
    q = np.asarray(rowq, dtype=np.int64)
    if bool((q[1:] < q[:-1]).any()):
        rows = np.argsort(q, kind="stable")
        q, rowd, rowb, grades = q[rows], rowd[rows], rowb[rows], grades[rows]
    h = np.ascontiguousarray(rowd, dtype=np.uint64)
    firsts = np.concatenate(([0], np.flatnonzero(q[1:] != q[:-1]) + 1))
    lens = np.diff(np.append(firsts, n))
    width = int(lens.max())
    if len(firsts) * width > _MOST_CELLS * n:
        return None
    # one more block, empty: a row of padding only, for the queries without judgments
    table = sorted_by_query(q, h, (np.append(firsts, n), np.append(lens, 0), width), shift)
    if table is None:
        return None
    row_of = np.full(int(q[-1]) + 1, len(firsts), dtype=np.intp)
    row_of[q[firsts]] = np.arange(len(firsts))
    return JudgmentTable(table, row_of, np.append(lens, 0), rowd, rowb, grades)


def judgments_by_tables(run: Any, qrels: Any, b: Any) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(grade, judged) of every row of ``b`` (a :class:`ir_rbstar.context.Rows` of ``run``, a
    :class:`.tables.Ranking`; ``qrels`` a :class:`.tables.Qrels`) from the run's kept table merged with
    the judgments' :class:`JudgmentTable`, merging only B's queries; None when either has none, their keys
    do not compare alike (the judgments number their rows in more bits than the run's keys give theirs:
    no table is then made), B's rows are a small part of its queries' (a cutoff: looking them up is
    cheaper), or the merge declines."""
    x = run.held(KEPT)
    if x is None:
        return None
    # the run's queries in B (each B query's first row), and the rows they hold in the run
    lens = np.diff(run.offsets)
    if b.identity:
        queries = np.flatnonzero(lens)
    else:
        starts = np.cumsum(b.lens) - b.lens
        queries = np.searchsorted(run.offsets, b.src[starts[b.lens > 0]], side="right") - 1
    if 2 * len(b.docs) < int(lens[queries].sum()):
        return None                      # a cutoff: merging whole queries costs more than the lookup
    if least_shift(len(qrels.rowq)) > x.shift:
        return None                      # more than 2^20 judgments, a smaller run: their keys cannot compare
    kept = qrels.kept((TABLE_KEY, x.shift),
                      lambda: judgment_table(qrels.rowq, qrels.rowd, qrels.rowb, qrels.grades, x.shift))
    if kept is None or kept.table.shift != x.shift:
        return None
    y = kept.table
    rank = _ranks(x.order, len(run.docs))
    # the query of each row of the run's table, from its first cell (real: the padding sorts last)
    first = ((x.table[:, 0] & np.uint64((1 << x.shift) - 1)) >> np.uint64(1)).astype(np.int64)
    if rank is not None:
        first = rank[first]
    codes = run.qcodes[np.searchsorted(run.offsets, first, side="right") - 1]
    if len(codes) != len(run.qcodes):
        return None                      # (a table row for every query of the run, as conversions keep)
    row_of = kept.row_of
    y_rows = np.where(codes < len(row_of), row_of[np.minimum(codes, len(row_of) - 1)], len(y.table) - 1)
    # the table rows of B's queries with judgments (the others match nothing)
    table_row = np.full(int(codes.max()) + 1, -1, dtype=np.intp)
    table_row[codes] = np.arange(len(codes))
    x_rows = table_row[run.qcodes[queries]]
    x_rows = x_rows[y_rows[x_rows] != len(y.table) - 1]
    docs, judged_docs = run.docs, kept.docs
    long_ids = not hashes_are_ids(run.dbytes, kept.ids)
    # (long ids: the ids are compared below, the hashes where they differ)
    finish = pair_finisher(docs, None if long_ids else judged_docs, rank)
    pairs = merge_by_query(x, y, CHUNK, finish=finish, y_rows=y_rows, y_lens=kept.lens, x_rows=x_rows)
    if pairs is None:
        return None
    row, judgment = pairs
    if long_ids:
        differ = _differ(kept.ids[judgment], run.dbytes[row])
        if differ.any():                         # equal high bits of different documents: no pair, unless
            bad = np.flatnonzero(differ)         # the hashes are equal too (a collision: reported)
            bad = bad[docs[row[bad]] == judged_docs[judgment[bad]]]
            verify_matches(kept.ids[judgment[bad]], run.dbytes[row[bad]], qrels.source)
            row, judgment = row[~differ], judgment[~differ]
    return grades_of_rows(b, len(run), row, kept.grades[judgment])


def grades_of_rows(b, run_rows: int, row: np.ndarray, grades: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(grade, judged) of every row of ``b`` (rows of a run of ``run_rows`` rows), from the run rows ``row``
    found judged and their ``grades``; the run rows outside ``b`` (past a cutoff, outside the universe)
    are left out."""
    if not b.identity:                   # run rows -> rows of B (-1: outside B)
        at = np.full(run_rows, -1, dtype=np.int64)
        at[b.src] = np.arange(len(b.docs), dtype=np.int64)
        row = at[row]
        inside = row >= 0
        row, grades = row[inside], grades[inside]
    grade = np.zeros(len(b.docs), dtype=np.int64)
    judged = np.zeros(len(b.docs), dtype=bool)
    grade[row] = grades
    judged[row] = True
    return grade, judged
