"""MED_AP solves the root of every query's search at once (first-order persistency over padded blocks,
``_roots``) and searches only the directions it leaves open. On random directions, every value is the
maximum found by trying every 0/1 relevance of the variables in AP with R = k (eq. 19 of Tan & Clarke, by
tests/oracles/med.py's plain ``ap``), whichever size the blocks are cut to; a direction solved at its root
counts one node, one without variables none. (A budget that cuts the search from an open root:
test_med_budget.py's test_med_ap_bounds_beyond_the_budget.)"""
import itertools

import numpy as np
import pytest

from ir_rbstar.core.med.ap import _roots, _Terms, med_ap
from tests.families.test_med_ap_terms import _random_direction
from tests.oracles import med as O

TOL = 1e-12


def _lists(d, q, z):
    """The two lists of one direction with the variables' relevance ``z``: ``up`` (fixed values, each variable's
    position holding its value) and ``down`` (the same)."""
    up, down = d.fa[q].copy(), d.fb[q].copy()
    up[d.va[q] >= 0] = z[d.va[q][d.va[q] >= 0]]
    down[d.vb[q] >= 0] = z[d.vb[q][d.vb[q] >= 0]]
    return up.tolist(), down.tolist()


def _brute(d, q) -> float:
    """max over every relevance of the variables of AP(up) - AP(down), R = k."""
    k = d.fa.shape[1]
    best = -np.inf
    for z in itertools.product((0.0, 1.0), repeat=int(d.m[q])):
        up, down = _lists(d, q, np.array(z))
        best = max(best, O.ap(up, k) - O.ap(down, k))
    return float(best)


def _directions(seed, n=40, k=16):
    rng = np.random.default_rng(seed)
    return _random_direction(rng, n, k), _random_direction(rng, n, k)


@pytest.mark.parametrize("seed", range(6))
def test_values_are_the_brute_force_maxima_and_roots_count_one_node(seed):
    ab, ba = _directions(seed)
    got = med_ap(ab, ba, None)
    for q in range(len(ab.m)):
        want = max(0.0, _brute(ab, q), _brute(ba, q))
        assert got.value[q] == pytest.approx(want, abs=TOL), q
    assert got.exact.all()
    for side, d in enumerate((ab, ba)):
        assert (got.nodes[d.m == 0, side] == 0).all()          # no variable: no node
        assert (got.nodes[d.m > 0, side] >= 1).all()


def test_both_paths_are_taken():
    """The random directions above include ones solved at the root and ones left open (else the tests
    above would not check the search from an open root)."""
    solved_open = np.zeros(2, dtype=int)
    for seed in range(6):
        for d in _directions(seed):
            queries = np.flatnonzero(d.m > 0)
            solved, _, rest = _roots(_Terms(d), queries)
            solved_open += [solved.sum(), len(rest)]
            assert set(rest) == set(queries[~solved].tolist())
    assert (solved_open > 0).all(), solved_open


@pytest.mark.parametrize("cap", [1, 50, 400, 1 << 20])
def test_blocks_of_any_size_give_the_same_roots(cap):
    """Chunks of one query (no padding) to all queries at once (padded to the largest): the same queries
    solved, and a solved root's value is its brute-force maximum."""
    ab, _ = _directions(11, n=60)
    t = _Terms(ab)
    queries = np.flatnonzero(ab.m > 0)
    solved, value, rest = _roots(t, queries, cap=cap)
    one_by_one = _roots(t, queries, cap=1)
    np.testing.assert_array_equal(solved, one_by_one[0])
    for i, q in enumerate(queries.tolist()):
        if solved[i]:
            assert value[i] == pytest.approx(_brute(ab, q), abs=TOL)
        else:
            # the open direction's QUBO over its free variables has the same maximum as the whole one
            problem = rest[q]
            free_max = max(problem.c + problem.l @ z + 0.5 * z @ problem.Q @ z
                           for z in map(np.array, itertools.product((0.0, 1.0), repeat=problem.m)))
            assert free_max == pytest.approx(_brute(ab, q), abs=TOL)


def test_floor_is_zero_and_the_constants():
    """Queries without variables are max(0, the two directions' AP differences of the fixed lists), with no node."""
    ab, ba = _directions(3)
    got = med_ap(ab, ba, None)
    none = np.flatnonzero((ab.m == 0) & (ba.m == 0))
    assert len(none)
    k = ab.fa.shape[1]
    for q in none:
        want = max(0.0, O.ap(ab.fa[q].tolist(), k) - O.ap(ab.fb[q].tolist(), k),
                   O.ap(ba.fa[q].tolist(), k) - O.ap(ba.fb[q].tolist(), k))
        assert got.value[q] == pytest.approx(want, abs=TOL)
    assert (got.nodes[none] == 0).all()
