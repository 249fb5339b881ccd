"""The duplicate check's table of each query's sorted keys (ir_rbstar/io/querytable.py), kept by a conversion of
long queries and merged by the run-reference join: the table holds every row once, in its query's row,
below the padding; a table means no repeated (query, hash); the merged join gives the pairs a dict gives,
whatever rows the conversion's sort moved; equal high bits of different hashes are no pair; the RBO
family's values are the same with the merge as without it. (Tables are kept here from queries of any
length, :func:`keeping_every_table`, so that small examples take the merge.)"""
from __future__ import annotations


import numpy as np
import pandas as pd
from hypothesis import example, given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar.io import querytable
from ir_rbstar.io.convert import to_ranking
from ir_rbstar.io.querytable import MIN_SHIFT, kept_pairs, merge_by_query, sorted_by_query

from tests.conftest import examples
from tests.helpers import compiled_off, keeping_every_table

_TOP = 2 ** 64 - 1


def test_only_long_queries_keep_a_table():
    rows = [(f"q{q}", f"d{d}", float(-d)) for q in range(3) for d in range(querytable.KEEP_WIDTH)]
    long = to_ranking(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    short = to_ranking(pd.DataFrame(rows[:-1][:querytable.KEEP_WIDTH - 1], columns=["query_id", "doc_id", "score"]))
    assert long.held(querytable.KEPT) is not None and short.held(querytable.KEPT) is None


def test_one_document_last_in_a_query_and_first_in_the_next_makes_a_table():
    """The same hash in two queries (a document retrieved for both), the largest of the first and the smallest of
    the second: neighbours across the end of a row of the table, not a repeat within a query."""
    a, b, c = (np.uint64(k) << np.uint64(50) for k in (1, 2, 3))
    table = sorted_by_query(np.array([0, 0, 1, 1]), np.array([b, a, c, b], dtype=np.uint64))
    assert table is not None
    assert (table.table >> np.uint64(table.shift)).tolist() == [[int(a) >> table.shift, int(b) >> table.shift],
                                                                [int(b) >> table.shift, int(c) >> table.shift]]


def test_a_wide_layout_is_one_of_long_queries_each_in_one_block():
    """``wide_layout`` (which large conversions ask before keeping a table): the layout of rows grouped by
    query whose longest query has KEEP_WIDTH rows or more, None for shorter queries or a query in two blocks."""
    w = querytable.KEEP_WIDTH
    wide = np.repeat(np.arange(3), [w, 2, w - 1])
    firsts, lens, width = querytable.wide_layout(wide)
    assert firsts.tolist() == [0, w, w + 2] and lens.tolist() == [w, 2, w - 1] and width == w
    assert querytable.wide_layout(np.repeat(np.arange(3), w - 1)) is None            # every query too short
    assert querytable.wide_layout(np.concatenate([wide, [0]])) is None               # query 0 in two blocks
    assert querytable._layout(np.repeat(np.arange(3), w - 1)) is not None            # (a table, but none kept)


@st.composite
def _grouped(draw):
    """Rows laid out query after query, of uneven lengths, with hashes from a pool holding repeats, pairs
    equal in their high bits only, and values at the top of the range (where the padding is)."""
    lens = draw(st.lists(st.integers(1, 9), min_size=1, max_size=6))
    spread = [0x9E3779B97F4A7C15 * k % 2 ** 64 for k in range(1, 9)]
    pool = spread + [spread[0] ^ 1, spread[1] ^ (1 << (MIN_SHIFT - 1)), _TOP, _TOP - 1, _TOP - (5 << MIN_SHIFT)]
    q, h = [], []
    for code, n in enumerate(lens):
        q += [code] * n
        h += draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    return np.array(q, dtype=np.int64), np.array(h, dtype=np.uint64)


@settings(max_examples=examples(200), deadline=None)
@given(_grouped())
# (most drawn rows repeat high bits or reach the padding and make no table: the last two examples make one, one
# hash just below the padding; the first, a hash at the padding's high bits, must not: its row would be taken for
# padding and missed by the join)
@example((np.array([0, 0, 1]), np.array([_TOP, 5 << 50, 7 << 50], dtype=np.uint64)))
@example((np.array([0, 0, 0, 1, 2, 2]), np.array([9 << 50, 3 << 50, _TOP - (5 << MIN_SHIFT), 4 << 50, 8 << 50, 2 << 50],
                                                 dtype=np.uint64)))
@example((np.repeat(np.arange(3), [3, 1, 2]), np.arange(1, 7, dtype=np.uint64) << np.uint64(50)))
def test_a_table_holds_every_row_once_in_its_query_and_means_no_repeat(rows):
    q, h = rows
    got = sorted_by_query(q, h)
    if got is None:                          # "maybe": the caller looks exactly
        return
    keys = list(zip(q.tolist(), h.tolist(), strict=True))
    assert len(set(keys)) == len(keys)
    table, low = got.table, np.uint64((1 << got.shift) - 1)
    assert (np.diff(table.astype(object), axis=1) > 0).all()          # each row ascending
    real = table < got.floor
    cells = table[real]
    row = ((cells & low) >> np.uint64(1)).astype(np.int64)
    assert sorted(row.tolist()) == list(range(len(q)))                 # every row once
    assert (np.nonzero(real)[0] == q[row]).all()                      # in its query's row of the table
    assert ((cells & ~low) == (h[row] & ~low)).all()                   # with its hash's high bits
    assert (cells & np.uint64(1) == 0).all() and (table[~real] & np.uint64(1) == 0).all()


def test_spread_hashes_make_a_table_and_a_repeat_does_not():
    q = np.repeat(np.arange(3), [4, 3, 4])
    h = np.array([0x9E3779B97F4A7C15 * k % 2 ** 64 for k in range(1, 12)], dtype=np.uint64)
    got = sorted_by_query(q, h)
    assert got is not None and got.table.shape == (3, 4)             # one row padded
    h[9] = h[8]
    assert sorted_by_query(q, h) is None
    h[9] = h[8] ^ np.uint64(2)                                        # the same high bits: maybe
    assert sorted_by_query(q, h) is None


def _oracle(x, y):
    """(row in X, row in Y) of every (query, document) in both rankings."""
    def rows(r):
        lens = np.diff(r.offsets)
        qs = np.repeat(r.qcodes, lens)
        return {(int(qc), bytes(d)): i for i, (qc, d) in enumerate(zip(qs.tolist(), r.dbytes.tolist(), strict=True))}
    rx, ry = rows(x), rows(y)
    return {(i, ry[k]) for k, i in rx.items() if k in ry}


@st.composite
def _frames(draw):
    """Two run frames of the same queries (in the same order), documents from a small shared pool, scores
    with ties, rows in score order or shuffled (the conversion's sort then moves a few rows, or all)."""
    nq = draw(st.integers(1, 4))
    frames = []
    for _ in range(2):
        rows = []
        for q in range(nq):
            docs = draw(st.lists(st.sampled_from([f"d{k}" for k in range(12)]), min_size=1, max_size=9, unique=True))
            scores = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=len(docs), max_size=len(docs)))
            rows += [(f"q{q}", d, s) for d, s in zip(docs, scores, strict=True)]
        how = draw(st.sampled_from(["sorted", "as drawn", "shuffled within queries"]))
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
        if how == "sorted":
            frame = frame.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
        elif how == "shuffled within queries":
            frame = frame.sample(frac=1.0, random_state=draw(st.integers(0, 99))).sort_values(
                "query_id", kind="stable")
        frames.append(frame.reset_index(drop=True))
    return frames


@settings(max_examples=examples(150), deadline=None)
@given(_frames())
def test_the_merged_join_gives_the_pairs_of_a_dict(frames):
    with keeping_every_table():
        x, y = (to_ranking(f) for f in frames)
    got = kept_pairs(x, y)
    if got is None:                               # queries too uneven for a table: the other join answers
        assert x.held(querytable.KEPT) is None or y.held(querytable.KEPT) is None
        return
    pairs = set(zip(got[0].tolist(), got[1].tolist(), strict=True))
    assert len(pairs) == len(got[0])
    assert pairs == _oracle(x, y)


class _Kept:
    """A ranking's part that :func:`kept_pairs` reads: its document hashes and its kept table."""

    def __init__(self, h):
        self.docs = np.array(h, dtype=np.uint64).view(np.int64)
        self._table = sorted_by_query(np.zeros(len(h), dtype=np.int64), np.array(h, dtype=np.uint64))

    def held(self, key):
        return self._table if key == querytable.KEPT else None


def test_equal_high_bits_of_different_hashes_are_no_pair():
    a, b = 0x9E3779B97F4A7C15, 0x3C6EF372FE94F82A
    twin = a ^ 2                                  # a's high bits, another hash
    x, y = _Kept([a, b]), _Kept([twin, b])
    candidates = merge_by_query(x.held(querytable.KEPT), y.held(querytable.KEPT))
    assert sorted(zip(*(c.tolist() for c in candidates), strict=True)) == [(0, 0), (1, 1)]
    ix, iy = kept_pairs(x, y)
    assert list(zip(ix.tolist(), iy.tolist(), strict=True)) == [(1, 1)]


def test_padding_on_both_sides_is_no_pair():
    """Query 1 is shorter than query 0 on both sides: the padding cells of its row in the two tables have
    the same high bits, and none of them is a row of either side."""
    q = np.repeat(np.arange(2), [3, 1])
    x_hash = np.array([0x9E3779B97F4A7C15 * k % 2 ** 64 for k in (1, 2, 3, 4)], dtype=np.uint64)
    y_hash = x_hash[[2, 0, 1, 3]]                     # query 0's documents in another order, query 1's the same
    tx, ty = sorted_by_query(q, x_hash), sorted_by_query(q, y_hash)
    assert tx is not None and ty is not None and tx.table.shape == ty.table.shape == (2, 3)
    ix, iy = merge_by_query(tx, ty)
    assert sorted(zip(ix.tolist(), iy.tolist(), strict=True)) == [(0, 1), (1, 2), (2, 0), (3, 3)]


def test_tables_of_different_shifts_are_not_merged():
    small = _Kept([1 << 40])
    big = _Kept(np.arange(1, 2 ** 20 + 2, dtype=np.uint64) << np.uint64(40))      # rows past 2^20: a wider shift
    assert small.held(querytable.KEPT).shift != big.held(querytable.KEPT).shift
    assert kept_pairs(small, big) is None


def test_the_rbo_family_is_the_same_with_the_merged_join(monkeypatch):
    rng = np.random.default_rng(7)
    frames = []
    for _ in range(2):
        rows = [(f"q{q}", f"d{int(d)}", float(s)) for q in range(5)
                for d, s in zip(rng.choice(60, 30, replace=False), rng.integers(0, 6, 30), strict=True)]
        frames.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    measures = ir_rbstar.parse("RBO(p=0.9,ref='kept_ref') RBO_ext(p=0.9,ref='kept_ref') RBO(p=0.8,ref='kept_ref')@10")
    calls = []

    def values():
        ir_rbstar.register_run("kept_ref", frames[1])
        try:
            got = ir_measures.iter_calc(measures, None, frames[0])
            return sorted((r.query_id, str(r.measure), r.value) for r in got)
        finally:
            ir_rbstar.unregister_run("kept_ref")
    merged = querytable.kept_pairs
    monkeypatch.setattr(querytable, "kept_pairs", lambda x, y: calls.append(merged(x, y)) or calls[-1])
    monkeypatch.setattr(querytable, "KEEP_WIDTH", 1)
    with compiled_off():                 # (the C extension joins and sums in one pass: tests/inputs/test_rbo_c_join.py)
        with_merge = values()
        assert calls and all(c is not None for c in calls)    # the join took the kept tables
        monkeypatch.setattr(querytable, "kept_pairs", lambda x, y: None)
        assert values() == with_merge
