"""The ``final`` goal on trial (issue 29, item 4): its priority recomputed by hand from the definition.

RBP(p=0.8)@2 weights (1-p) p^(rank-1): 0.2 at rank 1, 0.16 at rank 2. Three runs on one query: A ranks x then y,
B ranks z then y, C ranks y then x.
"""
import numpy as np
import pytest

from ir_rbstar.io import to_qrels
from ir_rbstar.judging import build_pool, choose
from ir_rbstar.judging.strategies import FINAL_AWAY

RUNS = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"z": 2.0, "y": 1.0}}, "C": {"q": {"y": 2.0, "x": 1.0}}}
M = "RBP(p=0.8)@2"


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
    # away: -0.04 x FINAL_AWAY; times P(y) = 9/13.
    pool, grades, judged, docs = _state({"q": {"x": 1}})
    pick = choose(pool, judged, grades, "final", 3)
    got = dict(zip([docs[i] for i in pick.index], pick.priority, strict=True))
    assert set(got) == {"y", "z"}
    assert got["z"] == pytest.approx(0.5 * 2.24 / 13, rel=1e-12)
    assert got["y"] == pytest.approx(9 / 13 * (0.36 / 13 - 0.04 * FINAL_AWAY), rel=1e-12)
    assert [docs[i] for i in pick.index] == ["z", "y"]
    assert pick.reason[0].startswith("final: ")


def test_final_with_nothing_judged_has_no_direction():
    # every run expects the same unjudged gain (1/2 x 0.36): no pair has an expected gap, every priority is 0
    # and the tie goes to the most total weight (y: 0.52), as the other goals break ties
    pool, grades, judged, docs = _state(None)
    pick = choose(pool, judged, grades, "final", 3)
    assert pick.priority.tolist() == [0.0, 0.0, 0.0]
    assert docs[pick.index[0]] == "y"
