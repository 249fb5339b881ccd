"""Twist's kernel visits only the rows where RP != 0 (the steps of the CRP curve): its first crossings,
CRP values and archetype inputs equal those of the dense curve (every row's CRP and crossing), on random
curves with long flat stretches, zero stretches and queries of one row."""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from ir_rbstar.core import twist as K
from ir_rbstar.core.segments import seg_cumsum


@st.composite
def curves(draw):
    lens = draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
    rp = [draw(st.sampled_from([0, 0, 0, 1, -1, 2, -3])) for _ in range(sum(lens))]
    return np.array(lens, dtype=np.int64), np.array(rp, dtype=np.int64)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
    rows = np.arange(len(rp))
    assert curve.at(rows, seg).tolist() == crp.tolist()
    assert np.bincount(curve.seg, minlength=n).tolist() == np.bincount(seg[rp != 0], minlength=n).tolist()
