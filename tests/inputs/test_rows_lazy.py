"""Rows gathered for a query universe make their query, rank and source-row columns only when read, and a
ranking's tie groups made from new positions: every column equals the one made eagerly, whatever the
universe (the ranking's own queries, a subset, other queries, a cutoff)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.conftest import examples

from ir_rbstar.context import Rows, gather
from ir_rbstar.io import QUERY_IDS, tie_layout, to_ranking


@st.composite
def runs(draw):
    """A run of a few queries (some with ties, rows in any order) as a dict of dicts."""
    out = {}
    for q in range(draw(st.integers(1, 5))):
        docs = draw(st.lists(st.integers(0, 30), min_size=1, max_size=20, unique=True))
        out[f"q{q}"] = {f"d{d}": float(draw(st.integers(0, 4))) for d in docs}
    return out


@given(runs(), st.integers(0, 3), st.sampled_from([None, 1, 3]), st.booleans(), st.booleans())
@settings(max_examples=examples(60), deadline=None)
def test_lazy_rows_equal_the_eager_columns(run, drop, cutoff, positions_first, lean):
    ranking = to_ranking(run)
    if positions_first:                    # the positions kept before the tie groups are made: copied
        ranking.row_positions()
    start, size = ranking.tie_groups()
    again = tie_layout(ranking.row_segments(), ranking.scores, ranking.row_positions())
    assert np.array_equal(start, again[0]) and np.array_equal(size, again[1])
    assert np.array_equal(ranking.row_positions(), ranking.row_ranks() - 1)
    assert not np.shares_memory(start, ranking.row_positions())
    universe = ranking.qcodes[drop:] if drop < len(ranking.qcodes) else ranking.qcodes[:1]
    universe = np.append(universe, QUERY_IDS.encode(["a query of no run"]))
    for u in (ranking.qcodes, universe):
        rows = gather(ranking, u, cutoff, lean=lean)      # lean: seg, rank and ids made when read
        seg = np.repeat(np.arange(len(u)), rows.lens)
        within = np.arange(len(seg)) - np.repeat(np.cumsum(rows.lens) - rows.lens, rows.lens)
        found = ranking.segment_of(u)
        src = np.concatenate([ranking.offsets[f] + np.arange(k) for f, k in zip(found, rows.lens, strict=True)
                              if k]).astype(np.int64)
        picked = np.arange(len(seg))[::2]
        assert np.array_equal(rows.seg_at(picked), seg[picked])       # before seg is made, and after
        assert np.array_equal(rows.seg, seg) and np.array_equal(rows.seg_at(picked[::-1]), seg[picked[::-1]])
        assert np.array_equal(rows.rank, within + 1) and rows.rank.dtype == np.int64
        assert np.array_equal(rows.src, src) and rows.src.dtype == np.int64
        assert np.array_equal(rows.docs, ranking.docs[src]) and np.array_equal(rows.dbytes, ranking.dbytes[src])
        assert np.array_equal(rows.seg_at_ascending(picked), seg[picked]) and rows.seg.dtype == np.int64


def test_rows_need_their_columns_unless_they_are_the_sources_own():
    a = np.zeros(0, dtype=np.int64)
    with pytest.raises(ValueError, match="needed unless"):
        Rows(seg=None, rank=a, docs=a, dbytes=a, src=a, lens=a)
    with pytest.raises(ValueError, match="needed unless"):
        Rows(seg=a, rank=a, docs=a, dbytes=a, src=None, lens=a, identity=True)


@given(runs(), st.data(), st.booleans())
@settings(max_examples=examples(60), deadline=None)
def test_tie_groups_at_some_rows_equal_the_whole_columns(run, data, made_first):
    """A ranking's tie groups read at some rows (only the tied rows visited) are the whole columns' at
    those rows, whether the columns were made before or not; a tied observation of all rows reads them
    there too, and makes the columns only when asked."""
    from ir_rbstar.context import RunContext
    ranking, again = to_ranking(run), to_ranking(run)
    rows = np.array(data.draw(st.lists(st.integers(0, len(ranking) - 1), max_size=30)), dtype=np.int64)
    if made_first:
        ranking.tie_groups()
    start, size = again.tie_groups()
    got = ranking.tie_groups_at(rows)
    assert np.array_equal(got[0], start[rows]) and np.array_equal(got[1], size[rows])
    assert got[0].dtype == start.dtype and got[1].dtype == size.dtype
    tied = RunContext(ranking, None, ranking.qcodes).tied_observation(None)
    at = tied.groups_at(rows)
    assert all(np.array_equal(a, b[rows]) for a, b in zip(at, (start, size, size), strict=True))
    assert np.array_equal(tied.start, start) and np.array_equal(tied.size, size) and np.array_equal(tied.kept, size)
    assert tied.tied == bool((size > 1).any())


def test_reading_src_of_a_rankings_own_rows_makes_no_other_column():
    ranking = to_ranking({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "d": 1.0, "e": 0.0}})
    rows = gather(ranking, ranking.qcodes)
    assert rows.identity
    assert np.array_equal(rows.src, np.arange(5))
    assert rows._seg is None and rows._rank is None       # src needs only the number of rows
