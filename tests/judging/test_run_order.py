"""The order the runs are given in changes nothing a strategy chooses: the flip share of a pair reported tied
is 1/2 (not the share of whichever run comes first), runs tied now are all adjacent for ``ranking``, and every
sum over the runs goes in one order (by name), so the priorities agree to the last bit."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_rbstar.io import to_qrels
from ir_rbstar.judging import STRATEGIES, build_pool, choose, select
from ir_rbstar.judging.strategies import _flip_share, _unsettled
from tests.conftest import examples


def test_flip_share_of_a_pair_reported_tied_is_one_half_in_either_order():
    # both runs at 0 now; A can rise by 0.5, B by 1.0: A - B in [-1.0, 0.5]. No side is reported, so
    # neither (hi_B - lo_A) / 1.5 = 2/3 nor (hi_A - lo_B) / 1.5 = 1/3 (what the order of the runs chose).
    low, res = np.zeros((2, 1)), np.array([[0.5], [1.0]])
    share = _flip_share(low, res, _unsettled(low, res, adjacent=False))
    assert share.tolist() == [[0, 0.5], [0, 0]]
    flipped = _flip_share(low[::-1], res[::-1], _unsettled(low[::-1], res[::-1], adjacent=False))
    assert flipped.tolist() == [[0, 0.5], [0, 0]]


def test_flip_share_is_symmetric_off_ties():
    # A at 0.4 in [0.4, 0.6], B at 0.1 in [0.1, 1.0]: A - B in [-0.6, 0.5] at 0.3 now, 0.6 of 1.1 below 0
    low, res = np.array([[0.4], [0.1]]), np.array([[0.2], [0.9]])
    assert _flip_share(low, res, np.ones((2, 2)))[0, 1] == pytest.approx(0.6 / 1.1)
    assert _flip_share(low[::-1], res[::-1], np.ones((2, 2)))[0, 1] == pytest.approx(0.6 / 1.1)


def test_runs_tied_now_are_all_adjacent():
    # A 0.5, B and C tied at 0, D at 0.8: ranking D, A, {B, C}; every pair unsettled
    low, res = np.array([[0.5], [0.0], [0.0], [0.8]]), np.ones((4, 1))
    adj = _unsettled(low, res, adjacent=True)
    assert adj.tolist() == [[0, 1, 1, 1], [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    # nothing judged yet: every run tied, every unsettled pair adjacent (ranking = pairs without the share)
    assert _unsettled(np.zeros((4, 1)), res, adjacent=True).tolist() == np.triu(np.ones((4, 4)), 1).tolist()


@pytest.mark.parametrize("names", [["A", "B"], ["B", "A"]])
def test_pairs_priority_at_a_tie_by_hand(names):
    # P@2 (rank weight 1/2, no tail): A ranks x, y; B ranks z only. Nothing judged: both at 0, A can rise by 1,
    # B by 1/2; A - B in [-1/2, 1] at 0: flip share 1/2 (the order of the runs used to make it 1/3 or 2/3).
    # Each document moves the pair by 1/2; P(relevant) 1/2 (nothing judged). A expects 1/2 x (1/2 + 1/2) of
    # unjudged gain, B 1/2 x 1/2: x and y favour A, the run expecting more (in full: 1/2 x 1/2 x 1/2), z
    # favours B (a quarter of that)
    runs = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"z": 2.0}}}
    table = select({n: runs[n] for n in names}, None, "P@2", budget=3, strategy="pairs")
    assert list(table["doc_id"]) == ["x", "y", "z"]
    assert table["priority"].tolist() == [0.125, 0.125, 0.03125]


docs = [f"d{i}" for i in range(7)]
run_st = st.dictionaries(st.sampled_from(["q1", "q2"]),
                         st.dictionaries(st.sampled_from(docs), st.integers(0, 3).map(float), min_size=1, max_size=6),
                         min_size=1, max_size=2)


@settings(max_examples=examples(60), deadline=None)
@given(runs=st.lists(run_st, min_size=2, max_size=5),
       grades=st.dictionaries(st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from(docs)), st.integers(0, 2),
                              max_size=6),
       perm=st.randoms(use_true_random=False),
       measure=st.sampled_from(["RBP(p=0.8,max_rel=2)@4", "RBP(p=0.6)", "P@3", "nDCG@3"]),
       strategy=st.sampled_from(STRATEGIES), k=st.integers(1, 5), with_baseline=st.booleans())
def test_permuting_the_runs_changes_no_choice_and_no_priority(runs, grades, perm, measure, strategy, k,
                                                              with_baseline):
    named = {f"r{i}": r for i, r in enumerate(runs)}
    order = list(named)
    perm.shuffle(order)
    shuffled = {n: named[n] for n in order}
    qrels = to_qrels(pd.DataFrame({"query_id": [q for q, _ in grades], "doc_id": [d for _, d in grades],
                                   "relevance": list(grades.values())})) if grades else None
    picks = []
    for given_runs in (named, shuffled):
        pool = build_pool(given_runs, measure, queries=["q1", "q2"])
        grade, judged = pool.lookup(qrels)
        base = pool.runs.index("r0") if with_baseline and strategy in ("pairs", "ranking") else None
        c = choose(pool, judged, grade, strategy, k, baseline=base, rng=np.random.default_rng(1))
        picks.append((list(zip(pool.query_ids(c.index), pool.doc_ids(c.index), strict=True)),
                      c.priority.tolist(), c.reason))
    assert picks[0] == picks[1]            # the same documents, the same priorities to the last bit, reasons


def test_the_pool_holds_the_runs_in_name_order_and_a_simulation_ignores_the_given_order():
    # the pool is built in name order once; the simulation's full-judgment values must follow the pool's
    # order (not the caller's), else every verdict and tau would compare the wrong runs
    runs = {"c": {"q1": {"a": 3.0, "b": 2.0, "x": 1.0}, "q2": {"d": 2.0, "e": 1.0}},
            "a": {"q1": {"x": 3.0, "b": 2.0}, "q2": {"e": 2.0, "y": 1.0}},
            "b": {"q1": {"b": 3.0, "a": 2.0}, "q2": {"d": 2.0, "y": 1.0}}}
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "x", "d", "y"],
                          "relevance": [1, 0, 2, 1]})
    assert build_pool(runs, "P@2").runs == ["a", "b", "c"]
    from ir_rbstar.judging import simulate
    tables = [simulate(qrels, {n: runs[n] for n in order}, measures=["P@2", "RBP(p=0.5,max_rel=2)"],
                       strategies=["pairs", "depth"], budgets=[1, 2, 4, 8], batch=2)
              for order in (["a", "b", "c"], ["c", "a", "b"])]
    pd.testing.assert_frame_equal(tables[0], tables[1])
    # with every judgment revealed the values are the full ones: tau_b 1, every verdict as with them
    last = tables[1][tables[1]["budget"] == 8]
    assert np.allclose(last["tau_b"], 1.0) and (last["verdicts_agree"] == 1.0).all()


@pytest.mark.parametrize("strategy", ["depth", "mtf", "residual", "pairs"])
def test_without_qrels_or_queries_the_query_order_ignores_the_given_order(strategy):
    # no qrels and no queries: the queries come from the runs, in order of first appearance over the runs in
    # name order (A's q1 first), whatever order the runs are given in; the query order breaks the ties here
    runs = {"B": {"q2": {"x": 2.0, "y": 1.0}, "q1": {"x": 2.0}}, "A": {"q1": {"x": 2.0, "y": 1.0}, "q2": {"x": 2.0}}}
    for order in (["A", "B"], ["B", "A"]):
        given = {n: runs[n] for n in order}
        assert list(build_pool(given, "P@2").queries) == ["q1", "q2"]
        assert list(select(given, None, "P@2", budget=1, strategy=strategy)["query_id"]) == ["q1"]
