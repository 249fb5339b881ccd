"""The goals on trial of benchmarks/judging_final.py (issue 29, item 4; measured, not in the package): their
priorities recomputed by hand from the definition, and the benchmark's simulation taking them.

RBP(p=0.8)@2 weights (1-p) p^(rank-1): 0.2 at rank 1, 0.16 at rank 2. Three runs on one query: A ranks x then y,
B ranks z then y, C ranks y then x.
"""
import importlib

import numpy as np
import pytest

from ir_rbstar.io import to_qrels
from ir_rbstar.judging import build_pool

final = importlib.import_module("benchmarks.judging_final")
choose = final.choose

RUNS = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"z": 2.0, "y": 1.0}}, "C": {"q": {"y": 2.0, "x": 1.0}}}
M = "RBP(p=0.8)@2"
AWAY = final.VARIANTS["final"][1]
RUNS2 = {"A": {"q1": {"x": 2.0, "y": 1.0}, "q2": {"u": 2.0, "v": 1.0}},
         "B": {"q1": {"z": 2.0, "y": 1.0}, "q2": {"v": 2.0, "w": 1.0}}}


def _state(qrels):
    pool = build_pool(RUNS, M)
    grades, judged = pool.lookup(to_qrels(qrels) if qrels else None)
    docs = list(pool.doc_ids(np.arange(pool.n_candidates)))
    return pool, grades, judged, docs


def test_final_priority_by_hand():
    # x judged relevant. P(relevant): A and C, which rank x, have precision (2 x 2/3 + 1) / (2 + 1) = 7/9 (their
    # precision over all queries (1 + 1) / (2 + 1) = 2/3 as the prior), B 1/2; P(z) = 1/2 (only B ranks it),
    # P(y) = (0.16 x 7/9 + 0.16 x 1/2 + 0.2 x 7/9) / 0.52 = 9/13. Expected unjudged gains: A 0.16 x 9/13,
    # B 0.2 x 1/2 + 0.16 x 9/13, C 0.2 x 9/13. Gaps (expected minus current difference, one query):
    # A-B -0.1, A-C -0.36/13, B-C 0.1 - 0.36/13.
    # z (weights 0, 0.2, 0): A-B moves by -0.2, toward, capped at 0.1; A-C not at all; B-C by +0.2, toward,
    # capped at 0.1 - 0.36/13: sum 0.2 - 0.36/13 = 2.24/13, times P(z) = 1/2.
    # y (weights 0.16, 0.16, 0.2): A-B not at all; A-C by -0.04, toward, capped at 0.36/13; B-C by -0.04,
    # away: -0.04 x AWAY; times P(y) = 9/13.
    pool, grades, judged, docs = _state({"q": {"x": 1}})
    pick = choose(pool, judged, grades, "final", 3)
    got = dict(zip([docs[i] for i in pick.index], pick.priority, strict=True))
    assert set(got) == {"y", "z"}
    assert got["z"] == pytest.approx(0.5 * 2.24 / 13, rel=1e-12)
    assert got["y"] == pytest.approx(9 / 13 * (0.36 / 13 - 0.04 * AWAY), rel=1e-12)
    assert [docs[i] for i in pick.index] == ["z", "y"]
    assert pick.reason[0].startswith("final: ")
    # AWAY = 0: y's move away from B-C counts nothing
    pick = choose(pool, judged, grades, "final_a0", 3)
    got = dict(zip([docs[i] for i in pick.index], pick.priority, strict=True))
    assert got["z"] == pytest.approx(0.5 * 2.24 / 13, rel=1e-12)
    assert got["y"] == pytest.approx(9 / 13 * 0.36 / 13, rel=1e-12)


def test_final_with_nothing_judged_has_no_direction():
    # every run expects the same unjudged gain (1/2 x 0.36): no pair has an expected gap, every priority is 0
    # and the tie goes to the most total weight (y: 0.52), as the other goals break ties
    pool, grades, judged, docs = _state(None)
    pick = choose(pool, judged, grades, "final", 3)
    assert pick.priority.tolist() == [0.0, 0.0, 0.0]
    assert docs[pick.index[0]] == "y"


def test_final_q_on_one_query_is_final():
    # with one query the difference on the candidate's query is the mean difference: the same priorities
    pool, grades, judged, docs = _state({"q": {"x": 1}})
    a = choose(pool, judged, grades, "final", 3)
    b = choose(pool, judged, grades, "final_q", 3)
    assert a.index.tolist() == b.index.tolist()
    assert b.priority.tolist() == pytest.approx(a.priority.tolist(), rel=1e-12)


def test_final_and_final_q_on_two_queries_by_hand():
    # A ranks x, y on q1 and u, v on q2; B ranks z, y on q1 and v, w on q2; x judged relevant.
    # P(relevant): A's precision 2/3 over all queries, 7/9 on q1 ((2 x 2/3 + 1) / 3), 2/3 on q2; B's 1/2
    # everywhere: y 23/36, z 1/2, u 2/3, v (0.16 x 2/3 + 0.2 x 1/2) / 0.36 = 31/54, w 1/2.
    # Expected unjudged gain A - B: q1 -0.2 x 1/2 = -0.1; q2 0.2 x 2/3 - 0.04 x 31/54 - 0.16 x 1/2 = 41/1350;
    # the mean -47/1350.
    pool = build_pool(RUNS2, M)
    grades, judged = pool.lookup(to_qrels({"q1": {"x": 1}}))
    docs = list(pool.doc_ids(np.arange(pool.n_candidates)))

    def prio(strategy):
        pick = choose(pool, judged, grades, strategy, 5)
        return dict(zip([docs[i] for i in pick.index], pick.priority, strict=True))
    # final: m = (W_A - W_B) / 2 against the mean gap -47/1350: z (-0.1) and w (-0.08) toward, capped at
    # 47/1350; v (-0.02) toward, in full; u (+0.1) away; y 0
    got = prio("final")
    want = {"z": 0.5 * 47 / 1350, "w": 0.5 * 47 / 1350, "v": 31 / 54 * 0.02, "u": -AWAY * 2 / 3 * 0.1, "y": 0.0}
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    # final_q: per query, m = W_A - W_B against the query's gap, the sum over 2 queries: z toward on q1 (-0.2,
    # capped at 0.1); u toward on q2 (+0.2, capped at 41/1350); v (-0.04) and w (-0.16) away on q2
    got = prio("final_q")
    want = {"z": 0.5 * 0.1 / 2, "u": 2 / 3 * 41 / 1350 / 2, "y": 0.0,
            "v": -AWAY * 31 / 54 * 0.04 / 2, "w": -AWAY * 0.5 * 0.16 / 2}
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_the_benchmark_simulates_them_and_the_package_does_not_offer_them():
    from ir_rbstar.errors import ParameterError
    from ir_rbstar.judging import STRATEGIES, simulate
    qrels = {"q1": {"x": 1, "z": 0}, "q2": {"v": 1, "w": 0}}
    assert not set(final.EXPERIMENTAL) & set(STRATEGIES)
    with pytest.raises(ParameterError, match="unknown strategy 'final'"):
        simulate(qrels, RUNS2, measures=[M], strategies=["final"], budgets=[1])
    module = importlib.import_module("ir_rbstar.judging.simulate")
    saved = module.STRATEGIES, module.choose
    try:
        final.install()
        table = simulate(qrels, RUNS2, measures=[M], strategies=list(final.EXPERIMENTAL), budgets=[1, 6], batch=1)
    finally:
        module.STRATEGIES, module.choose = saved
    assert set(table["strategy"]) == set(final.EXPERIMENTAL)
    # with the whole pool judged every variant reaches the full-judgment ranking
    assert (table[table["budget"] == 6]["tau_b"] == 1.0).all()
