"""The pairs' directed spread of every candidate (ir_rbstar/judging/strategies.py::_pair_spread_toward), which
each run's pass computes only over the candidates that run ranks, equals its definition summed pair by pair
and candidate by candidate: sum over a < b of u[a, b] |W[a] - W[b]| t, with t = 1 toward the order the runs'
expected unjudged gains give, AGAINST_SHARE away from it and UNKNOWN_SHARE where both expect the same."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_rbstar.judging import build_pool
from ir_rbstar.judging.strategies import AGAINST_SHARE, SAME_REST, UNKNOWN_SHARE, _pair_spread_toward
from tests.conftest import examples


def _defined(pool, u, rest):
    R, C = pool.W.shape
    scale = np.abs(rest).max(axis=0)
    out = np.zeros(C)
    for c in range(C):
        q = pool.cand_query[c]
        for a in range(R):
            for b in range(a + 1, R):
                if u[a, b] == 0:
                    continue
                d = pool.W[a, c] - pool.W[b, c]
                e = rest[a, q] - rest[b, q]
                if abs(e) <= SAME_REST * scale[q]:
                    t = UNKNOWN_SHARE
                elif d * e > 0:
                    t = 1.0
                else:
                    t = AGAINST_SHARE
                out[c] += u[a, b] * abs(d) * t
    return out


@st.composite
def _case(draw):
    n_runs = draw(st.integers(2, 6))
    docs = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in ("q1", "q2"):
            ranked = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
            if ranked:
                run[q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
        runs[f"r{r}"] = run or {"q1": {docs[0]: 1.0}}
    measure = draw(st.sampled_from(["RBP(p=0.8)", "P@3", "nDCG@2"]))
    seed = draw(st.integers(0, 2 ** 16))
    return runs, measure, seed


@settings(max_examples=examples(120), deadline=None)
@given(_case())
def test_the_spread_is_its_definition(case):
    runs, measure, seed = case
    pool = build_pool(runs, measure)
    R, Q = len(pool.runs), len(pool.queries)
    rng = np.random.default_rng(seed)
    u = np.triu(rng.random((R, R)) < 0.7, 1) * rng.choice([0.5, 1.0, 0.3], size=(R, R))
    rest = rng.choice([0.0, 0.25, 0.5, 1.0], size=(R, Q))          # equal expected gains are common
    assert _pair_spread_toward(pool, u, rest) == pytest.approx(_defined(pool, u, rest), rel=1e-12, abs=1e-15)


def test_a_pair_both_of_whose_runs_rank_the_document_counts_once():
    # A ranks x first, B ranks x second and y first; C ranks nothing of x, y. RBP(p=0.5): W = 0.5 at rank 1,
    # 0.25 at rank 2. A and B both rank x: |0.5 - 0.25| = 0.25, once (not once per run's pass)
    runs = {"A": {"q": {"x": 2.0}}, "B": {"q": {"y": 2.0, "x": 1.0}}, "C": {"q": {"z": 1.0}}}
    pool = build_pool(runs, "RBP(p=0.5)")
    x = int(np.flatnonzero(pool.cand_doc == b"x")[0])
    u = np.triu(np.ones((3, 3)), 1)
    rest = np.array([[1.0], [0.0], [0.0]])        # A expects more: x favours A (toward), in pairs A-B and A-C
    got = _pair_spread_toward(pool, u, rest)[x]
    # A-B: 0.25 toward (1); A-C: 0.5 toward (1); B-C: 0.25, both expect the same (UNKNOWN_SHARE)
    assert got == pytest.approx(0.25 + 0.5 + 0.25 * UNKNOWN_SHARE)


@settings(max_examples=examples(120), deadline=None)
@given(_case(), st.integers(1, 12), st.sampled_from([2, 3, 1000]))
def test_the_k_best_are_the_first_k_of_the_whole_order(case, k, levels):
    # _top sorts only the candidates whose priority reaches the k-th largest; the result is the first k of
    # the whole order (priority, then total weight, then query, then candidate), ties at the k-th included
    from ir_rbstar.judging.strategies import _top
    runs, measure, seed = case
    pool = build_pool(runs, measure)
    rng = np.random.default_rng(seed)
    prio = rng.integers(0, levels, pool.n_candidates).astype(np.float64)       # few levels: many ties
    eligible = rng.random(pool.n_candidates) < 0.8
    idx = np.flatnonzero(eligible)
    whole = idx[np.lexsort((idx, pool.cand_query[idx], -pool.W[:, idx].sum(axis=0), -prio[idx]))]
    assert _top(pool, prio, eligible, k, None).tolist() == whole[:k].tolist()


@settings(max_examples=examples(120), deadline=None)
@given(_case(), st.integers(1, 40), st.sampled_from([2, 3, 1000]))
def test_the_k_best_of_a_deeper_ndcg_pool_are_the_first_k_of_the_whole_order(case, k, levels):
    # with nDCG@1 from the runs' top 4, the candidates ranked only past rank 1 are ordered after the others of
    # their priority: those not `later` first, then by how many runs rank them (more first), then best rank
    from ir_rbstar.judging.strategies import _top
    runs, _, seed = case
    pool = build_pool(runs, "nDCG@1", depth=4)
    rng = np.random.default_rng(seed)
    prio = rng.integers(0, levels, pool.n_candidates).astype(np.float64)
    prio[pool.W.sum(axis=0) == 0] = 0.0               # as the goals give them: no run's DCG moves
    eligible = rng.random(pool.n_candidates) < 0.8
    later = rng.random(pool.n_candidates) < 0.5
    idx = np.flatnonzero(eligible)
    total = pool.W[:, idx].sum(axis=0)
    deep = total == 0
    n_runs = (pool.rank[:, idx] > 0).sum(axis=0)
    best = np.where(pool.rank[:, idx] > 0, pool.rank[:, idx], 10 ** 9).min(axis=0)
    key = [(-prio[c], -total[j], bool(deep[j] and later[c]), -n_runs[j] if deep[j] else 0,
            best[j] if deep[j] else 0, int(pool.cand_query[c]), int(c)) for j, c in enumerate(idx)]
    whole = [int(idx[j]) for j in sorted(range(len(idx)), key=key.__getitem__)]
    assert _top(pool, prio, eligible, k, None, later).tolist() == whole[:k]


@settings(max_examples=examples(120), deadline=None)
@given(_case(), st.sampled_from(["float", "bool", "grades"]))
def test_the_sums_by_query_are_their_definition_to_the_bit(case, kind):
    # _by_query reads only the non-zero weights; its sums are taken candidate by candidate, as the definition's,
    # so they are the same doubles, and its runs x queries result has the layout (a transposed queries x runs
    # array) whose sums over an axis the strategies then take (numpy's order of addition follows the layout)
    from ir_rbstar.judging.strategies import _by_query
    runs, measure, seed = case
    pool = build_pool(runs, measure)
    R, Q = len(pool.runs), len(pool.queries)
    rng = np.random.default_rng(seed)
    x = {"float": rng.random(pool.n_candidates), "bool": rng.random(pool.n_candidates) < 0.5,
         "grades": rng.integers(0, 4, pool.n_candidates) / 3.0}[kind]
    for matrix, M in (("W", pool.W), ("present", (pool.W > 0).astype(np.float64))):
        want = np.zeros((R, Q))
        for c in range(pool.n_candidates):
            for r in range(R):
                want[r, pool.cand_query[c]] += M[r, c] * float(x[c])
        got = _by_query(pool, matrix, x)
        assert got.shape == (R, Q) and np.array_equal(got, want), (matrix, got, want)
        assert got.flags.f_contiguous and got.T.flags.c_contiguous


@settings(max_examples=examples(120), deadline=None)
@given(_case(), st.floats(0.0, 1.0))
def test_the_relevance_estimate_is_its_definition_to_the_bit(case, share):
    # P(relevant) of a candidate: the W-weighted mean over the runs of their running precision on its query,
    # summed run by run (the non-zero weights only, in that order: the same doubles as over every run)
    from ir_rbstar.judging.strategies import PRIOR_WEIGHT, _by_query, _relevance
    runs, measure, seed = case
    pool = build_pool(runs, measure)
    rng = np.random.default_rng(seed)
    judged = rng.random(pool.n_candidates) < share
    grades = rng.integers(0, 2, pool.n_candidates)
    gain = np.where(judged, pool.weights.gain(grades), 0.0)
    got, seen = _by_query(pool, "present", gain), _by_query(pool, "present", judged)
    overall = (1.0 + got.sum(axis=1)) / (2.0 + seen.sum(axis=1))
    theta = (PRIOR_WEIGHT * overall[:, None] + got) / (PRIOR_WEIGHT + seen)
    want = np.full(pool.n_candidates, 0.5)
    for c in range(pool.n_candidates):
        num = total = 0.0
        for r in range(len(pool.runs)):
            num += pool.W[r, c] * theta[r, pool.cand_query[c]]
            total += pool.W[r, c]
        if total > 0:
            want[c] = num / total
    assert np.array_equal(_relevance(pool, judged, grades), want)
