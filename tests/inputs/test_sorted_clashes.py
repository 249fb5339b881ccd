"""The duplicate check by one sort (:func:`sorted_clashes`) finds the pairs the hash index reports: the
same rows with a repeated (query, document hash), none otherwise, whatever the hashes (collisions of the
mixed key across queries included)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from ir_rbstar.io.docindex import DocIndex, sorted_clashes

from tests.conftest import examples


def _repeated_rows(clashes):
    return set() if clashes is None or len(clashes[0]) == 0 else set(np.concatenate(clashes).tolist())


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 6)), max_size=40),
       st.sampled_from([np.uint64(0), np.uint64(2 ** 63 + 12345), np.uint64(0xFFFFFFFFFFFFFFFF)]))
def test_sorted_clashes_agree_with_the_index(pairs, base):
    q = np.array([p[0] for p in pairs], dtype=np.int64)
    h = np.array([p[1] for p in pairs], dtype=np.uint64) + base if pairs else np.zeros(0, dtype=np.uint64)
    got = sorted_clashes(q, h)
    expected = {i for i, p in enumerate(pairs) if pairs.count(p) > 1}
    assert _repeated_rows(got) == expected == _repeated_rows(DocIndex(q, h).clashes)
    if got is not None:           # every pair names two rows of one (query, hash)
        a, b = got
        assert (q[a] == q[b]).all() and (h[a] == h[b]).all() and (a < b).all()


def test_a_key_shared_across_queries_is_no_duplicate():
    """Two rows of different queries whose mixed keys are equal (made so by choosing the second hash)
    are not reported; a real repeat among them still is."""
    from ir_rbstar.io.ids import _GOLD
    with np.errstate(over="ignore"):
        h1 = np.uint64(987654321)
        h2 = (np.uint64(1) * _GOLD) ^ h1 ^ (np.uint64(2) * _GOLD)     # q=1,h1 and q=2,h2: the same key
        assert np.uint64(1) * _GOLD ^ h1 == np.uint64(2) * _GOLD ^ h2
    q = np.array([1, 2, 1], dtype=np.int64)
    assert sorted_clashes(q[:2], np.array([h1, h2])) is None
    a, b = sorted_clashes(q, np.array([h1, h2, h1]))
    assert a.tolist() == [0] and b.tolist() == [2]
