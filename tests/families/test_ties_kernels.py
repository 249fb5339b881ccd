"""The tie-aware kernels' shortcuts give the same doubles, to the last bit, as the plain computation:
tie-aware AP of untied relevant rows against the general formula, the relevant groups against a
row-by-row grouping, the kept harmonic and log2-discount tables against tables made for each size, and
the segmented running sum against the plain running sum less its value before each segment."""
import dataclasses

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from ir_rbstar.core import ties as K
from ir_rbstar.core.segments import seg_cumcount, seg_cumsum
from tests.conftest import examples

SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def ranked_rows(draw, tied=True):
    """Rows of up to 5 queries in rank order: (seg, pos, start, size, rel, n) with tie groups."""
    n = draw(st.integers(1, 5))
    seg, pos, start, size, rel = [], [], [], [], []
    for q in range(n):
        at = 0
        for g in draw(st.lists(st.integers(1, 4 if tied else 1), max_size=8)):
            for i in range(g):
                seg.append(q)
                pos.append(at + i)
                start.append(at)
                size.append(g)
                rel.append(draw(st.booleans()))
            at += g
    arrays = [np.array(a, dtype=np.int64) for a in (seg, pos, start, size)]
    return (*arrays, np.array(rel, dtype=bool), n)


def _plain_groups(seg, start, size, rel, n):
    """The groups holding a relevant row, one Python step per row."""
    out: dict = {}
    for s, t, g, r in zip(seg.tolist(), start.tolist(), size.tolist(), rel.tolist(), strict=True):
        if r:
            out.setdefault((s, t), [g, 0])[1] += 1
    keys = sorted(out)
    before, seen = [], {}
    for s, t in keys:
        before.append(seen.get(s, 0))
        seen[s] = seen.get(s, 0) + out[(s, t)][1]
    return keys, [out[k][0] for k in keys], [out[k][1] for k in keys], before


def _running_before(groups):
    """The relevant rows above each group as a segmented running sum of the groups' counts, in floats."""
    r = groups.r.astype(np.float64)
    return seg_cumsum(r, groups.gseg) - r


@SETTINGS
@given(ranked_rows(), st.one_of(st.none(), st.integers(1, 12)))
def test_relevant_groups_and_ap_shortcuts_are_exact(rows, k):
    seg, pos, start, size, rel, n = rows
    groups = K.relevant_groups(seg, start, size, rel, n)
    keys, gsize, r, before = _plain_groups(seg, start, size, rel, n)
    assert list(zip(groups.gseg.tolist(), groups.gstart.tolist(), strict=True)) == keys
    assert groups.gsize.tolist() == gsize and groups.r.tolist() == r and groups.before.tolist() == before
    assert groups.untied == (max(gsize, default=1) == 1)
    num_rel = np.bincount(seg[rel], minlength=n).astype(np.float64) + np.arange(n) % 2
    value = K.expected_ap(groups, k, num_rel)
    # the general formula, with the relevant rows above each group counted by a running sum (as before
    # the shortcuts: a float column)
    plain = dataclasses.replace(groups, before=_running_before(groups), untied=False)
    assert value.tobytes() == K.expected_ap(plain, k, num_rel).tobytes()


@SETTINGS
@given(ranked_rows(tied=False), st.one_of(st.none(), st.integers(1, 12)))
def test_untied_ap_takes_the_shortcut(rows, k):
    seg, pos, start, size, rel, n = rows
    groups = K.relevant_groups(seg, start, size, rel, n)
    assert groups.untied
    num_rel = np.bincount(seg[rel], minlength=n).astype(np.float64)
    plain = dataclasses.replace(groups, before=_running_before(groups), untied=False)
    assert K.expected_ap(groups, k, num_rel).tobytes() == K.expected_ap(plain, k, num_rel).tobytes()


@settings(max_examples=examples(50), deadline=None)
@given(st.lists(st.integers(0, 3000), min_size=1, max_size=6))
def test_kept_tables_equal_tables_made_for_each_size(sizes):
    for m in sizes:
        h = np.zeros(m + 1)
        h[1:] = np.cumsum(1.0 / np.arange(1, m + 1, dtype=np.float64))
        assert K._harmonic(m).tobytes() == h.tobytes()
        w = np.zeros(m + 1)
        w[1:] = 1.0 / np.log2(np.arange(2, m + 2, dtype=np.float64))
        kept_w, kept_cum = K.discount_cum(m)
        assert kept_w.tobytes() == w.tobytes() and kept_cum.tobytes() == np.cumsum(w).tobytes()
        assert not kept_w.flags.writeable and not kept_cum.flags.writeable


def test_tables_above_the_kept_size_are_made_for_the_call_and_not_kept(monkeypatch):
    """A size at or above ``_Prefix.KEEP`` (a user's cutoff of millions) gets a table of its own, the same
    doubles as a kept one would hold, and the kept table stays below the cap."""
    table = K._Prefix(K._make_discount)
    monkeypatch.setattr(K._Prefix, "KEEP", 100)
    small_w, small_cum = table(40)
    big_w, big_cum = table(250)
    assert len(big_w) == 251 and len(table.tables[0]) <= 100
    w = np.zeros(251)
    w[1:] = 1.0 / np.log2(np.arange(2, 252, dtype=np.float64))
    assert big_w.tobytes() == w.tobytes() and big_cum.tobytes() == np.cumsum(w).tobytes()
    assert small_cum.tobytes() == big_cum[:41].tobytes()
    table(99)                                   # the largest kept size: made once, kept below the cap
    assert len(table.tables[0]) == 100 and table(99)[1].tobytes() == big_cum[:100].tobytes()


@SETTINGS
@given(st.lists(st.lists(st.floats(-1e3, 1e3, allow_nan=False), max_size=7), min_size=1, max_size=6),
       st.booleans())
def test_seg_cumsum_is_the_running_sum_less_its_value_before_the_segment(parts, as_int):
    parts = [p for p in parts if p] or [[1.0]]
    dtype = np.int64 if as_int else np.float64
    values = np.concatenate([np.array(p) for p in parts]).astype(dtype)
    seg = np.repeat(np.arange(len(parts)) * 2, [len(p) for p in parts])     # ascending, with gaps
    total = np.cumsum(values)
    expected, at = [], 0
    for p in parts:
        before = total[at - 1] if at else dtype(0)
        expected.extend(total[at + i] - before for i in range(len(p)))
        at += len(p)
    out = seg_cumsum(values, seg)
    assert out.dtype == total.dtype and out.tobytes() == np.array(expected, dtype=dtype).tobytes()
    if as_int:                       # integers: exactly the running sum of each segment
        assert out.tolist() == np.concatenate([np.cumsum(np.array(p).astype(dtype)) for p in parts]).tolist()
    assert seg_cumcount(seg).tolist() == np.concatenate([np.arange(1, len(p) + 1) for p in parts]).tolist()


@SETTINGS
@given(ranked_rows(tied=False), st.one_of(st.none(), st.integers(1, 12)), st.data())
def test_untied_expected_weighted_takes_the_shortcut(rows, k, data):
    seg, pos, start, size, rel, n = rows
    groups = K.make_groups(seg, pos, start, size, n)
    assert groups.untied
    gain = np.array(data.draw(st.lists(st.sampled_from([0.0, -0.0, 1.0, 0.5, 3.0, 1 / 3]), min_size=len(seg),
                                       max_size=len(seg))), dtype=np.float64)
    w, cum = K.discount_cum(int(pos.max(initial=0)) + 2)
    plain = dataclasses.replace(groups, untied=False)
    assert plain._ends is not groups._ends          # a copy does not share the ends kept for each cutoff
    for weights in (lambda e: cum[e], None):
        got = K.expected_weighted(groups, gain, weights, k)
        assert got.tobytes() == K.expected_weighted(plain, gain, weights, k).tobytes()
