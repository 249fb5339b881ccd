"""Twist's kernel visits only the rows where RP != 0 (the steps of the CRP curve): its first crossings,
CRP values and archetype inputs equal those of the dense curve (every row's CRP and crossing), on random
curves with long flat stretches, zero stretches and queries of one row."""
import dataclasses

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from ir_rbstar.core import twist as K
from ir_rbstar.core.segments import seg_cumsum
from tests.conftest import examples


@st.composite
def curves(draw):
    lens = draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
    rp = [draw(st.sampled_from([0, 0, 0, 1, -1, 2, -3])) for _ in range(sum(lens))]
    return np.array(lens, dtype=np.int64), np.array(rp, dtype=np.int64)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(curves())
def test_steps_give_the_dense_curve(data):
    lens, rp = data
    n = len(lens)
    seg = np.repeat(np.arange(n), lens)
    starts = np.cumsum(lens) - lens
    crp = seg_cumsum(rp, seg)
    cross = np.flatnonzero(K.crossings(seg, crp))
    expected = np.zeros(n, dtype=np.int64)
    for s in range(n):
        mine = cross[seg[cross] == s] if len(cross) else cross
        if len(mine):
            expected[s] = mine[0] - starts[s] + 1
    curve = K._Curve(rp, seg, starts)
    assert curve.first_crossings(lens, n).tolist() == expected.tolist()
    # the short runs' way (every row's CRP at once) too
    assert K._dense(rp, seg, starts, lens, n)[0].tolist() == expected.tolist()
    rows = np.arange(len(rp))
    assert curve.at(rows, seg).tolist() == crp.tolist()
    assert np.bincount(curve.seg, minlength=n).tolist() == np.bincount(seg[rp != 0], minlength=n).tolist()


def test_opposite_sides_is_def_3():
    """The crossing rule's one statement: two consecutive points of one curve lie on opposite sides of
    zero, zero counting as both sides; points of two curves never cross."""
    values = [-2, -1, 0, 1, 3]
    for a in values:
        for b in values:
            want = (a <= 0 <= b) or (a >= 0 >= b)
            sign = np.sign(np.array([a, b]))
            assert K.opposite_sides(sign, np.array([True])).tolist() == [want], (a, b)
            assert K.opposite_sides(sign, np.array([False])).tolist() == [False]
    assert K.opposite_sides(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)).tolist() == []
    assert K.opposite_sides(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=bool)).tolist() == []


def test_first_of_each_takes_each_querys_first_flag():
    qs, at = K.first_of_each(np.array([0, 0, 2, 5, 5, 5]), np.array([1, 4, 9, 12, 13, 20]))
    assert qs.tolist() == [0, 2, 5] and at.tolist() == [1, 9, 12]
    qs, at = K.first_of_each(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert qs.tolist() == [] and at.tolist() == []


def _drawn_case(queries, rel, rnd):
    """Queries of (run length, judged grades): the bands, and rows with random grades and relevance."""
    lens = np.array([m for m, _ in queries], dtype=np.int64)
    n = len(lens)
    judged_q = np.concatenate([np.full(len(g), i) for i, (_, g) in enumerate(queries)]).astype(np.int64)
    judged_g = np.concatenate([np.array(g, dtype=np.int64) for _, g in queries])
    bands = K.bands(judged_q, judged_g, rel, n)
    seg = np.repeat(np.arange(n), lens)
    pos = np.concatenate([np.arange(m) for m in lens]).astype(np.int64)
    grade = np.array([rnd.choice([0, 1, 2, 3]) for _ in seg], dtype=np.int64)
    relevant = np.array([rnd.random() < 0.5 for _ in seg], dtype=bool) & (grade >= rel)
    return lens, n, bands, seg, pos, grade, relevant


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10), st.lists(st.integers(0, 3), max_size=6)), min_size=1, max_size=5),
       st.integers(1, 2), st.randoms(use_true_random=False))
def test_relative_positions_by_query_equal_row_by_row(queries, rel, rnd):
    """RP written only where it can be nonzero (the first RB rows and the relevant ones) equals RP
    computed for every row."""
    lens, n, bands, seg, pos, grade, relevant = _drawn_case(queries, rel, rnd)
    dense = K.relative_positions(bands, seg, pos, grade, relevant)
    sparse = K.relative_positions(bands, seg, pos, grade, relevant, lens=lens)
    assert sparse.tolist() == dense.tolist()
    # with the rows' ranks given (a short run: every row in one pass, then the relevant ones) the same
    ranked = K.relative_positions(bands, seg, None, grade, relevant, lens=lens, rank=pos + 1)
    assert ranked.dtype == np.int64 and ranked.tolist() == dense.tolist()
    # every key's band looked up in the tables made with the bands = searched for row by row
    searched = dataclasses.replace(bands, band_lo=None, band_hi=None)
    assert K.relative_positions(searched, seg, pos, grade, relevant).tolist() == dense.tolist()
    # (at these sizes the bands always carry their tables, so the comparison above is table against search)
    assert bands.band_lo is not None and bands.band_hi is not None


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10), st.lists(st.integers(0, 3), max_size=6)), min_size=1, max_size=5),
       st.integers(1, 2), st.randoms(use_true_random=False))
def test_short_runs_every_row_equals_the_steps(queries, rel, rnd):
    """A short run's values from every row's CRP at once (``_dense``) equal those from the steps of the
    curve (the deep runs' way), field by field, to the last bit, archetypes included."""
    lens, n, bands, seg, pos, grade, relevant = _drawn_case(queries, rel, rnd)
    rp = K.relative_positions(bands, seg, pos, grade, relevant)
    dense = K.twist(bands, seg, rp, relevant, n, length=lens)
    limit = K._DENSE_ROWS
    try:
        K._DENSE_ROWS = -1
        steps = K.twist(bands, seg, rp, relevant, n, length=lens)
    finally:
        K._DENSE_ROWS = limit
    for f in dataclasses.fields(K.TwistValues):
        if f.name != "archetype_of":
            a, b = getattr(dense, f.name), getattr(steps, f.name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f.name
    assert dense.archetype.tolist() == steps.archetype.tolist()
