"""MED_AP builds every query's quadratic 0-1 problem with whole-matrix operations (``_Terms``); each
query's constant, linear and quadratic terms must be exactly those of :func:`ap_qubo`, the per-query
construction from eq. 20 of Tan & Clarke (2015), on random directions (fixed values of 0/1, some
positions bound to variables, any number of variables per query)."""
import numpy as np
import pytest

from ir_rbstar.core.med.ap import _Terms, ap_qubo
from ir_rbstar.core.med.common import Dense


def _random_direction(rng, n: int, k: int) -> Dense:
    fa = rng.integers(0, 2, size=(n, k)).astype(np.float64)
    fb = rng.integers(0, 2, size=(n, k)).astype(np.float64)
    va = np.full((n, k), -1, dtype=np.int64)
    vb = np.full((n, k), -1, dtype=np.int64)
    m = rng.integers(0, k // 2 + 1, size=n)
    for q in range(n):
        up = rng.choice(k, size=m[q], replace=False)
        down = rng.choice(k, size=m[q], replace=False)
        va[q, up] = np.arange(m[q])
        vb[q, down] = np.arange(m[q])
        fa[q, up] = 0.0                      # a bound position of ``up`` holds its variable, not a value
        fb[q, down] = 0.0
    return Dense(fa, fb, va, vb, m, 1.0)


@pytest.mark.parametrize("seed", range(5))
def test_terms_equal_ap_qubo_query_by_query(seed):
    rng = np.random.default_rng(seed)
    d = _random_direction(rng, n=25, k=12)
    terms = _Terms(d)
    want = {}
    for q in range(len(d.m)):
        pa = np.empty(d.m[q], dtype=np.int64)
        pb = np.empty(d.m[q], dtype=np.int64)
        pa[d.va[q][d.va[q] >= 0]] = np.flatnonzero(d.va[q] >= 0) + 1
        pb[d.vb[q][d.vb[q] >= 0]] = np.flatnonzero(d.vb[q] >= 0) + 1
        want[q] = ap_qubo(d.fa[q], d.fb[q], pa, pb)
    # each query alone, and every group of queries with the same number of variables built together
    groups = [np.array([q]) for q in range(len(d.m))] + [np.flatnonzero(d.m == m) for m in np.unique(d.m)]
    for group in groups:
        for q, problem in zip(group.tolist(), terms.problems(group), strict=True):
            c, l, Q = want[q]
            assert problem.c == c
            np.testing.assert_array_equal(problem.l, l)
            np.testing.assert_array_equal(problem.Q, Q)
