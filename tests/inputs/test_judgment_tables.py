"""The run-qrels join by merging the run's kept table of sorted keys with the judgments' (ir_rbstar/io/
judgmenttable.py): the grades and judged flags it gives are a dict's, for rankings whose rows the sort moved,
judgments in any query order, queries without judgments and judgments without the run's queries, ids of up
to 8 bytes and longer; equal high bits of different hashes are no match; a 64-bit collision of long ids is
reported; and the measures' values are the same with the merge as without it. (Tables are kept here from
queries of any length, so that small examples take the merge.)"""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar import context
from ir_rbstar.context import gather, join_judgments
from ir_rbstar.errors import RbstarError
from ir_rbstar.io import judgmenttable, querytable
from ir_rbstar.io.convert import to_qrels, to_ranking
from ir_rbstar.io.judgmenttable import judgment_table, judgments_by_tables
from ir_rbstar.io.querytable import sorted_by_query

from tests.conftest import examples
from tests.helpers import keeping_every_table

_DOCS = [f"d{k}" for k in range(8)] + [f"a-long-document-{k}" for k in range(6)]


@st.composite
def _inputs(draw):
    """A run frame (rows sorted, as drawn, or shuffled within queries; scores with ties) and qrels rows
    (in any order, of some of the run's queries and of others) over a shared pool of short and long ids."""
    nq = draw(st.integers(1, 5))
    rows = []
    for q in range(nq):
        docs = draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=10, unique=True))
        scores = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(docs), max_size=len(docs)))
        rows += [(f"q{q}", d, s) for d, s in zip(docs, scores, strict=True)]
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    how = draw(st.sampled_from(["sorted", "as drawn", "shuffled"]))
    if how == "sorted":
        run = run.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
    elif how == "shuffled":
        run = run.sample(frac=1.0, random_state=draw(st.integers(0, 99))).sort_values("query_id", kind="stable")
    judged = draw(st.lists(st.tuples(st.sampled_from([f"q{q}" for q in range(nq + 2)]), st.sampled_from(_DOCS),
                                     st.integers(0, 3)), max_size=40, unique_by=lambda j: j[:2]))
    qrels = pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"])
    return run.reset_index(drop=True), qrels


def _oracle(run, b, qrels: pd.DataFrame):
    """(grade, judged) of every row of ``b`` by a dict of the judgments."""
    grades = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    queries = ir_rbstar.io.QUERY_IDS.decode(run.row_queries()[b.src])
    keys = list(zip(queries, (bytes(d).decode() for d in run.dbytes[b.src]), strict=True))
    return (np.array([grades.get(k, 0) for k in keys], dtype=np.int64),
            np.array([k in grades for k in keys], dtype=bool))


@settings(max_examples=examples(200), deadline=None)
@given(_inputs(), st.sampled_from(["all", "some queries", "cutoff"]), st.sampled_from([None, 25, 31]))
def test_the_merged_join_gives_the_grades_of_a_dict(inputs, rows, shift):
    """``shift``: the run's table keys give its rows more low bits than the judgments' would (as a run of more
    than 2^20 rows does): the judgments keep a table of the run's shift to merge with it."""
    frame, judged = inputs
    least = querytable.MIN_SHIFT
    with keeping_every_table():
        querytable.MIN_SHIFT = shift or least
        try:
            run = to_ranking(frame)
        finally:
            querytable.MIN_SHIFT = least
    if shift is not None and run.held(querytable.KEPT) is not None:
        assert run.held(querytable.KEPT).shift == shift
    qrels = to_qrels(judged) if len(judged) else None
    if qrels is None:
        return
    universe = run.qcodes if rows != "some queries" else run.qcodes[::2]
    b = gather(run, universe, 3 if rows == "cutoff" else None)
    grade, flag = join_judgments(run, qrels, b, lambda: universe[b.seg])
    want = _oracle(run, b, judged)
    assert grade.tolist() == want[0].tolist() and flag.tolist() == want[1].tolist()
    merged = judgments_by_tables(run, qrels, b)
    x = run.held(querytable.KEPT)
    if rows != "cutoff" and x is not None \
            and judgment_table(qrels.rowq, qrels.rowd, qrels.rowb, qrels.grades, x.shift) is not None:
        assert merged is not None                 # the tables answered when both sides have one
    if merged is not None:
        assert merged[0].tolist() == want[0].tolist() and merged[1].tolist() == want[1].tolist()



def test_one_qrels_merges_with_runs_of_two_shifts():
    """The judgments keep a table for each shift asked (a run of fewer than 2^20 rows, then one of more):
    both runs' joins are merges, against the same qrels, with a dict's grades."""
    frame = pd.DataFrame([(f"q{q}", d, float(len(_DOCS) - k)) for q in range(3) for k, d in enumerate(_DOCS)],
                         columns=["query_id", "doc_id", "score"])
    judged = pd.DataFrame([(f"q{q}", d, (q + k) % 4) for q in range(4) for k, d in enumerate(_DOCS[q::2])],
                          columns=["query_id", "doc_id", "relevance"])
    qrels = to_qrels(judged)
    least = querytable.MIN_SHIFT
    for shift in (least, 25, least):
        with keeping_every_table():
            querytable.MIN_SHIFT = shift
            try:
                run = to_ranking(frame)
            finally:
                querytable.MIN_SHIFT = least
        assert run.held(querytable.KEPT).shift == shift
        b = gather(run, run.qcodes)
        merged = judgments_by_tables(run, qrels, b)
        want = _oracle(run, b, judged)
        assert merged is not None and merged[0].tolist() == want[0].tolist() and merged[1].tolist() == want[1].tolist()
    assert qrels.held((judgmenttable.TABLE_KEY, least)).table.shift == least
    assert qrels.held((judgmenttable.TABLE_KEY, 25)).table.shift == 25


def test_judgments_needing_more_bits_than_the_run_keep_no_table():
    """More than 2^20 judgments number their rows in 23 low bits of a key; a run of fewer rows gives its
    rows 22: the keys do not compare, so the join declines (the lookup answers) without making a table
    that could not serve (tens of MB for such judgments); a run whose keys give 23 bits merges with them."""
    n = 2 ** 20 + 1
    h = np.arange(1, n + 1, dtype=np.uint64) << np.uint64(30)            # distinct high bits at any shift here
    ids = h.view("S8")
    qrels = _Qrels(h, ids, np.arange(n) % 4)
    run = _Run(h[[5, 7, n - 1]], ids[[5, 7, n - 1]])
    assert run.held(querytable.KEPT).shift == querytable.MIN_SHIFT == 22
    assert judgments_by_tables(run, qrels, _All(run)) is None
    assert qrels._kept == {}                                             # no table made
    least = querytable.MIN_SHIFT
    querytable.MIN_SHIFT = 23
    try:
        wide = _Run(h[[5, 7, n - 1]], ids[[5, 7, n - 1]])
    finally:
        querytable.MIN_SHIFT = least
    grade, judged = judgments_by_tables(wide, qrels, _All(wide))
    assert grade.tolist() == [5 % 4, 7 % 4, (n - 1) % 4] and judged.all()

def test_only_judgments_that_fit_a_table_keep_one():
    rowq = np.repeat(np.arange(5), [1, 1, 1, 1, 40])            # one query far longer than the others
    rowd = np.arange(1, 45, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    ids, grades = np.array([f"d{k}".encode() for k in range(44)]), np.arange(44) % 4
    assert judgment_table(rowq, rowd, ids, grades) is None
    kept = judgment_table(np.array([1, 0, 1, 3, 1]), rowd[:5], ids[:5], grades[:5])  # a query's rows apart
    assert kept is not None and kept.lens.tolist() == [1, 3, 1, 0]  # (the last: padding, for code 2)
    assert kept.row_of.tolist() == [0, 1, 3, 2]
    moved = [1, 0, 2, 4, 3]                                         # the rows sorted by query
    assert (kept.docs == rowd[moved]).all() and (kept.ids == ids[moved]).all() and (kept.grades == grades[moved]).all()


class _Run:
    """The parts of a ranking that :func:`judgments_by_tables` reads: one query (code 0) of given hashes and ids."""

    def __init__(self, h, ids):
        self.docs = np.array(h, dtype=np.uint64).view(np.int64)
        self.dbytes = np.array(ids, dtype=bytes)
        self.qcodes, self.offsets = np.array([0]), np.array([0, len(h)])
        self._table = sorted_by_query(np.zeros(len(h), dtype=np.int64), np.array(h, dtype=np.uint64))

    def __len__(self):
        return len(self.docs)

    def held(self, key):
        return self._table if key == querytable.KEPT else None


class _Qrels:
    """The parts of qrels that :func:`judgments_by_tables` reads."""

    def __init__(self, h, ids, grades):
        self.rowq, self.rowd = np.zeros(len(h), dtype=np.int64), np.array(h, dtype=np.uint64).view(np.int64)
        self.rowb, self.grades, self.source = np.array(ids, dtype=bytes), np.array(grades), "<test qrels>"
        self._kept = {}

    def kept(self, key, make):
        return self._kept.setdefault(key, make())


class _All:
    def __init__(self, run):
        self.docs, self.identity = run.docs, True


def test_equal_high_bits_of_different_hashes_are_no_match():
    a, b = 0x9E3779B97F4A7C15, 0x3C6EF372FE94F82A
    run = _Run([a ^ 2, b], [b"x", b"y"])                        # a's high bits, another hash
    grade, judged = judgments_by_tables(run, _Qrels([a, b], [b"w", b"y"], [3, 2]), _All(run))
    assert grade.tolist() == [0, 2] and judged.tolist() == [False, True]


def test_equal_high_bits_of_different_long_ids_are_no_match_and_no_collision():
    a, b = 0x9E3779B97F4A7C15, 0x3C6EF372FE94F82A
    run = _Run([a ^ 2, b], [b"a-long-document-1", b"a-long-document-2"])
    qrels = _Qrels([a, b], [b"a-long-document-3", b"a-long-document-2"], [3, 2])
    grade, judged = judgments_by_tables(run, qrels, _All(run))
    assert grade.tolist() == [0, 2] and judged.tolist() == [False, True]


def test_a_hash_collision_of_long_ids_is_reported():
    a, b = 0x9E3779B97F4A7C15, 0x3C6EF372FE94F82A
    run = _Run([a, b], [b"a-long-document-1", b"y"])
    qrels = _Qrels([a], [b"a-long-document-2"], [1])
    with pytest.raises(RbstarError, match="hash collision"):
        judgments_by_tables(run, qrels, _All(run))


def test_values_are_the_same_with_the_merged_join(monkeypatch):
    rng = np.random.default_rng(11)
    run = pd.DataFrame([(f"q{q}", f"doc-{int(d)}", float(s)) for q in range(6)
                        for d, s in zip(rng.choice(80, 40, replace=False), rng.integers(0, 9, 40), strict=True)],
                       columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame([(f"q{q}", f"doc-{int(d)}", int(g)) for q in range(1, 8)
                          for d, g in zip(rng.choice(80, 30, replace=False), rng.integers(0, 4, 30), strict=True)],
                         columns=["query_id", "doc_id", "relevance"])
    measures = ir_rbstar.parse("RBP(p=0.8,max_rel=3) RBP(p=0.8,rel=2)@10 nDCG_TA AP_TA P_TA@5 Twist RBR(p=0.8) "
                               "RBA(p=0.9)@5")
    calls = []
    merged = judgmenttable.judgments_by_tables
    monkeypatch.setattr(querytable, "KEEP_WIDTH", 1)

    def values():
        return sorted((r.query_id, str(r.measure), r.value) for r in ir_measures.iter_calc(measures, qrels, run))
    monkeypatch.setattr(context, "judgments_by_tables", lambda *a: calls.append(merged(*a)) or calls[-1])
    with_merge = values()
    assert any(c is not None for c in calls)                    # the join took the tables
    monkeypatch.setattr(context, "judgments_by_tables", lambda *a: None)
    assert values() == with_merge
