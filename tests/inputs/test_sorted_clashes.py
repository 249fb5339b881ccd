"""The duplicate check by one sort (:func:`clashes_by_sort`) finds the pairs the hash index reports: the
same rows with a repeated (query, document hash), none otherwise, whatever the hashes (collisions of the
mixed key across queries included)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ir_rbstar.io import extension
from ir_rbstar.io.docindex import DocIndex, clashes_by_sort
from tests.conftest import examples


def sorted_clashes(q, h):
    """The pairs :func:`clashes_by_sort` reports (None when there are none)."""
    return clashes_by_sort(q, h)[0]


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


_TOP = 2 ** 64 - 1


@st.composite
def _grouped(draw):
    """Rows laid out query after query (a query's rows together, as runs come), of uneven lengths, with
    hashes among few values, some at the top of the range (where the 2-D sort pads short queries), and
    sometimes a query's rows split into two blocks."""
    lens = draw(st.lists(st.integers(1, 9), min_size=1, max_size=6))
    hashes = st.sampled_from([0, 1, 7, _TOP, _TOP - 1, _TOP - 2, _TOP - 8])
    q, h = [], []
    for code, n in enumerate(lens):
        q += [code] * n
        h += draw(st.lists(hashes, min_size=n, max_size=n))
    if draw(st.booleans()) and len(lens) > 1:         # the first query again, in a block of its own
        extra = draw(st.integers(1, 3))
        q += [0] * extra
        h += draw(st.lists(hashes, min_size=extra, max_size=extra))
    return np.array(q, dtype=np.int64), np.array(h, dtype=np.uint64)


@settings(max_examples=examples(150), deadline=None)
@given(_grouped())
def test_the_sort_query_by_query_finds_what_the_definition_finds(rows):
    from ir_rbstar.io.querytable import no_clash_by_query
    q, h = rows
    keys = list(zip(q.tolist(), h.tolist(), strict=True))
    expected = {i for i, k in enumerate(keys) if keys.count(k) > 1}
    if no_clash_by_query(q, h):                        # "none" must be true; "maybe" is looked at exactly
        assert not expected
    assert _repeated_rows(sorted_clashes(q, h)) == expected


def test_the_sort_query_by_query_is_used_and_says_none_or_maybe():
    from ir_rbstar.io.querytable import no_clash_by_query
    q = np.repeat(np.arange(3), [4, 3, 4])
    h = np.arange(11, dtype=np.uint64)
    assert no_clash_by_query(q, h)                     # one table, one row padded
    h[9] = h[8]
    assert not no_clash_by_query(q, h)
    assert not no_clash_by_query(np.array([0, 1, 0]), np.arange(3, dtype=np.uint64))   # query 0 twice
    assert not no_clash_by_query(np.repeat([0, 1], [1, 9]), np.arange(10, dtype=np.uint64))  # too uneven
    h = np.arange(11, dtype=np.uint64)
    h[4] = np.uint64(_TOP - 3)                         # query 1's row equals the padding value of its slot 3
    assert not no_clash_by_query(q, h) and sorted_clashes(q, h) is None


def _blocks(q: np.ndarray) -> list:
    """(query code, rows) of each block of consecutive rows of one query code."""
    out: list = []
    for code in q.tolist():
        if out and out[-1][0] == code:
            out[-1][1] += 1
        else:
            out.append([code, 1])
    return out


@pytest.mark.skipif(extension.step("pairs_clash") is None, reason="the C extension (with pairs_clash) is not built")
@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(_grouped(), st.lists(st.tuples(st.integers(0, 4), st.sampled_from([0, 1, 7, _TOP, _TOP - 1])),
                                      max_size=40).map(lambda p: (np.array([x[0] for x in p], dtype=np.int64),
                                                                  np.array([x[1] for x in p], dtype=np.uint64)))),
       st.integers(1, 12))
def test_the_c_pass_says_what_the_definition_says(rows, limit):
    """The C extension's pass (``dictscan.pairs_clash``, used for runs of up to PAIRS_CLASH_ROWS rows): whether a
    (query, hash) pair repeats, or None (undecided) when a block reaches ``limit`` rows or a query has two blocks
    (unless a repeat within a block is found first); and clashes_by_sort reports the same rows with it and without it
    (the numpy checks)."""
    from ir_rbstar.io import dictscan
    q, h = rows
    keys = list(zip(q.tolist(), h.tolist(), strict=True))
    twice = len(set(keys)) < len(keys)
    blocks = _blocks(q)
    undecided = any(n >= limit for _, n in blocks) or len({c for c, _ in blocks}) < len(blocks)
    got = dictscan.pairs_clash(q, h, limit)
    if got is None:
        assert undecided
    else:
        assert got == twice
        assert not undecided or twice
    with_c = _repeated_rows(sorted_clashes(q, h))
    real = dictscan.pairs_clash
    try:
        dictscan.pairs_clash = lambda *a: None
        assert _repeated_rows(sorted_clashes(q, h)) == with_c
    finally:
        dictscan.pairs_clash = real


def test_a_long_query_still_gets_its_table_and_a_big_run_the_numpy_checks(monkeypatch):
    """A query of KEEP_WIDTH rows or more keeps the table the joins use, with the C pass or without (the pass
    stops at that query); a run of more than PAIRS_CLASH_ROWS rows is not given to it; a run of short queries is
    answered by it."""
    from ir_rbstar.io import docindex, dictscan
    from ir_rbstar.io.querytable import KEEP_WIDTH
    q = np.repeat(np.arange(3, dtype=np.int64), [KEEP_WIDTH, 5, KEEP_WIDTH - 1])
    h = np.arange(len(q), dtype=np.uint64) * np.uint64(2 ** 40)
    clashes, table = clashes_by_sort(q, h)
    assert clashes is None and table is not None
    if dictscan.available():
        assert dictscan.pairs_clash(q, h, KEEP_WIDTH) is None
    calls = []
    real = dictscan.pairs_clash
    monkeypatch.setattr(dictscan, "pairs_clash", lambda *a: calls.append(len(a[0])) or real(*a))
    monkeypatch.setattr(docindex, "PAIRS_CLASH_ROWS", len(q) - 1)
    assert clashes_by_sort(q, h)[1] is not None and calls == []
    monkeypatch.setattr(docindex, "PAIRS_CLASH_ROWS", len(q))
    short = q >= 1                       # (queries of 5 and KEEP_WIDTH - 1 rows)
    assert clashes_by_sort(q[short], h[short]) == (None, None)
    assert calls == [int(short.sum())]
    if dictscan.available():
        assert real(q[short], h[short], KEEP_WIDTH) is False
