"""The join of two rankings by a table with one query per row, sorted along its rows (ir_rbstar/core/rowjoin.py):
the pairs a dict gives, whatever the chunk of queries sorted at a time; None where the caller's exact
join must decide: queries too unequal for a table, or high bits shared by more than two rows (made here
on purpose with the inverse of the odd multiplier)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ir_rbstar.core.rbo_variants import match_counted
from ir_rbstar.core.rowjoin import _GOLD, match_by_query

from tests.conftest import examples

_INV = pow(int(_GOLD), -1, 2 ** 64)          # multiplying by it undoes the multiplier


def test_queries_too_unequal_for_a_table_are_declined():
    lens = np.array([6000] + [1] * 20, dtype=np.int64)
    items = np.arange(int(lens.sum()), dtype=np.int64)
    assert match_by_query(lens, items, lens, items) is None
    ix, iy = match_counted(lens, items, lens, items)          # (the caller's way then)
    assert sorted(ix.tolist()) == sorted(iy.tolist()) == list(range(len(items)))


def _oracle(x_lens, x_item, y_lens, y_item):
    where, out, xa, ya = {}, set(), 0, 0
    for i, (lx, ly) in enumerate(zip(x_lens.tolist(), y_lens.tolist(), strict=True)):
        for k in range(ya, ya + ly):
            where[(i, int(y_item[k]))] = k
        for k in range(xa, xa + lx):
            if (i, int(x_item[k])) in where:
                out.add((k, where[(i, int(x_item[k]))]))
        xa, ya = xa + lx, ya + ly
    return out


@st.composite
def _two_rankings(draw):
    n = draw(st.integers(1, 6))
    # on each side, every query as long (the side's items reshaped into the table) or not (scattered)
    lx, ly = ([draw(st.integers(0, 7))] * n if draw(st.booleans())
              else draw(st.lists(st.integers(0, 7), min_size=n, max_size=n)) for _ in range(2))
    pool = list(range(-3, 9)) + [2 ** 63 - 1, -(2 ** 63), 4242424242424242]
    xs, ys = [], []
    for a, b in zip(lx, ly, strict=True):
        xs += draw(st.lists(st.sampled_from(pool), min_size=a, max_size=a, unique=True))
        ys += draw(st.lists(st.sampled_from(pool), min_size=b, max_size=b, unique=True))
    return (np.array(lx, dtype=np.int64), np.array(xs, dtype=np.int64),
            np.array(ly, dtype=np.int64), np.array(ys, dtype=np.int64))


@settings(max_examples=examples(300), deadline=None)
@given(_two_rankings(), st.sampled_from([1, 5, 16, 12_000]))
def test_match_by_query_gives_the_pairs_of_a_dict(rankings, chunk):
    """Whatever the number of cells sorted at a time (a query at least)."""
    got = match_by_query(*rankings, chunk=chunk)
    assert got is not None
    pairs = set(zip(got[0].tolist(), got[1].tolist(), strict=True))
    assert len(pairs) == len(got[0])
    assert pairs == _oracle(*rankings)
    if len(rankings[1]) and len(rankings[3]):
        ix, iy = match_counted(*rankings)
        assert pairs == set(zip(ix.tolist(), iy.tolist(), strict=True))


def _twin(item: int) -> int:
    """An int64 item whose product with the multiplier differs from ``item``'s in the lowest bit only."""
    product = (item * int(_GOLD) % 2 ** 64) ^ 1
    return np.array([product * _INV % 2 ** 64], dtype=np.uint64).view(np.int64)[0]


def test_equal_high_bits_of_different_items_are_no_match():
    a = 7
    b = _twin(a)
    lens = np.array([2], dtype=np.int64)
    ix, iy = match_by_query(lens, np.array([a, 100], dtype=np.int64), lens, np.array([b, 100], dtype=np.int64))
    assert list(zip(ix.tolist(), iy.tolist(), strict=True)) == [(1, 1)]          # 100 with 100; a is not b


@pytest.mark.parametrize("x, y", [([7, "t"], [7]), ([7], [7, "t"]), ([7, "t"], [5])])
def test_high_bits_shared_within_one_side_are_declined(x, y):
    """Two rows of one ranking of a query whose items share the high bits: the exact join must decide."""
    items = [[_twin(7) if v == "t" else v for v in side] for side in (x, y)]
    got = match_by_query(np.array([len(x)]), np.array(items[0], dtype=np.int64),
                         np.array([len(y)]), np.array(items[1], dtype=np.int64))
    assert got is None


def test_an_item_last_in_one_query_and_first_in_the_next_is_no_pair():
    """Full rows of the table (no padding): the last cell of query 0's row and the first of query 1's are
    neighbours in the flat table; an item that is X's largest key in query 0 and Y's smallest in query 1
    joins nothing (the queries differ)."""
    pool = [3, 4, 5, 6, 7, 8]
    bits = 3                                           # (4 rows: the keys keep the item's high bits above 3)
    low, mid, high = sorted(pool, key=lambda v: (v * int(_GOLD) % 2 ** 64) >> bits)[:3]
    lens = np.array([1, 1], dtype=np.int64)
    x, y = np.array([mid, high], dtype=np.int64), np.array([low, mid], dtype=np.int64)
    got = match_by_query(lens, x, lens, y)
    assert got is not None and len(got[0]) == len(got[1]) == 0
    assert _oracle(lens, x, lens, y) == set()
