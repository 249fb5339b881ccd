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


# the same join in C (ir_rbstar.io.dictscan.match_rows), which the RBO family's run-reference join takes first
# where the extension is built: the same pairs, in X's row order; None for an item twice in a query of a side

def _compiled():
    from ir_rbstar.io import extension
    if extension.compiled is None:
        pytest.skip("the C extension is not built (no C compiler at install time)")
    return extension.compiled


@pytest.fixture
def compiled_join():
    from ir_rbstar.io import dictscan
    _compiled()
    return dictscan.match_rows


@settings(max_examples=examples(300), deadline=None)
@given(rankings=_two_rankings())
def test_the_compiled_join_gives_the_pairs_of_a_dict(rankings):
    from ir_rbstar.io import dictscan
    _compiled()
    got = dictscan.match_rows(*rankings)
    assert got is not None
    assert got[0].tolist() == sorted(got[0].tolist())           # X's row order
    assert set(zip(got[0].tolist(), got[1].tolist(), strict=True)) == _oracle(*rankings)
    assert len(set(got[0].tolist())) == len(got[0])


@pytest.mark.parametrize("x, y", [([7, 7], [7]), ([7], [5, 7, 7]), ([3, 7, 7], [5]), ([1, 2, 1], [])])
def test_the_compiled_join_declines_an_item_twice_in_a_query(compiled_join, x, y):
    lens = (np.array([1, len(x)], dtype=np.int64), np.array([1, len(y)], dtype=np.int64))
    x_items, y_items = np.array([7] + x, dtype=np.int64), np.array([7] + y, dtype=np.int64)
    assert compiled_join(lens[0], x_items, lens[1], y_items) is None
    assert match_by_query(lens[0], x_items, lens[1], y_items) is None       # (the numpy table declines alike)
    # the same item in two queries is no repeat
    got = compiled_join(np.array([1, 1]), np.array([7, 7]), np.array([1, 1]), np.array([7, 7]))
    assert [a.tolist() for a in got] == [[0, 1], [0, 1]]


def test_the_compiled_join_on_long_queries_and_colliding_slots():
    """Queries of thousands of rows (tables grown past the first size), and items that all fall in one slot
    chain of a small table (multiples of a large power of two differ only in bits the mask drops, before the
    mixing: after it they spread; here checked against the dict either way)."""
    from ir_rbstar.io import dictscan
    _compiled()
    rng = np.random.default_rng(5)
    lx, ly = np.array([3000, 0, 17, 5000]), np.array([2500, 9, 0, 4999])
    x = np.concatenate([rng.choice(20_000, n, replace=False) << 40 for n in lx]).astype(np.int64)
    y = np.concatenate([rng.choice(20_000, n, replace=False) << 40 for n in ly]).astype(np.int64)
    got = dictscan.match_rows(lx, x, ly, y)
    assert set(zip(got[0].tolist(), got[1].tolist(), strict=True)) == _oracle(lx, x, ly, y)


@pytest.mark.parametrize("bad, message", [
    (dict(y_lens=np.array([2, 1, 4, 0])), "one length"),
    (dict(x_lens=np.array([3, 2, 1])), "add up to the items"),
    (dict(y_lens=np.array([2, -1, 6])), "add up to the items"),
    (dict(x_items=np.array([5, 6, 7, 1, 2], dtype=np.int32)), "x_items must hold 8-byte integers")])
def test_the_compiled_join_refuses_inconsistent_buffers(bad, message):
    compiled = _compiled()
    args = dict(x_lens=np.array([3, 2, 0]), x_items=np.array([5, 6, 7, 1, 2]), y_lens=np.array([2, 1, 4]),
                y_items=np.array([7, 5, 2, 9, 8, 7, 6]))
    args = {k: np.asarray(v) for k, v in {**args, **bad}.items()}
    with pytest.raises(ValueError, match=message):
        compiled.match_rows(*(args[k] for k in ("x_lens", "x_items", "y_lens", "y_items")))
