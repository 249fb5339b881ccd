"""Selection strategies on small hand-checked cases (RBP weights (1-p) p^(rank-1) with p = 0.8: 0.2, 0.16)."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_rbstar.errors import GradeScaleError, ParameterError
from ir_rbstar.io import to_qrels
from ir_rbstar.judging import STRATEGIES, build_pool, choose, select, simulate
from ir_rbstar.judging.pool import measure_or_default
from tests.conftest import examples

# A ranks x then y, B ranks z then y: y is shared at rank 2, x and z are each one run's top document.
RUNS = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"z": 2.0, "y": 1.0}}}
M = "RBP(p=0.8)@2"


def order(strategy, runs=RUNS, qrels=None, **kw):
    table = select(runs, qrels, M, budget=kw.pop("budget", 10), strategy=strategy, **kw)
    return list(table["doc_id"])


def test_pool_weights_by_hand():
    pool = build_pool(RUNS, M)
    docs = list(pool.doc_ids(np.arange(pool.n_candidates)))
    W = {d: tuple(np.round(pool.W[:, i], 6)) for i, d in enumerate(docs)}
    assert W == {"x": (0.2, 0.0), "y": (0.16, 0.16), "z": (0.0, 0.2)}
    assert pool.depth == 2 and np.allclose(pool.tail, 0.8 ** 2)


def test_the_weights_say_what_they_are():
    # pairs' flip share needs [low, low + residual] to be an interval of the measure's values (RBP, P@k: a
    # weighted sum of gains; not nDCG@k, divided by an ideal the unjudged documents change), and the ideal
    # scale applies to nDCG@k only; a weighting that does not say both is refused, not put in some branch
    from ir_rbstar.judging import Weights, weights_of
    kinds = {m: (weights_of(m).value_interval, weights_of(m).ideal_normalised)
             for m in ("RBP(p=0.6)", "RBP_res(p=0.8)@10", "P@5", "P_TA@5", "nDCG@10", "nDCG_TA@10")}
    assert kinds == {"RBP(p=0.6)": (True, False), "RBP_res(p=0.8)@10": (True, False), "P@5": (True, False),
                     "P_TA@5": (True, False), "nDCG@10": (False, True), "nDCG_TA@10": (False, True)}
    assert weights_of("RBP(p=0.6)").pooling_p == 0.6 and weights_of("nDCG@10").pooling_p == 0.8
    with pytest.raises(ParameterError, match="weighting .DCG.;"):
        Weights("DCG", 10)


def test_residual_and_rbp_sum_take_the_shared_document_first():
    # y: 0.16 + 0.16 = 0.32 of residual weight, x and z 0.2 each
    assert order("residual")[0] == "y"
    assert order("rbp_sum")[0] == "y"


def test_rbp_max_and_depth_take_the_top_documents_first():
    # max: x 0.2, z 0.2, y 0.16; depth: x and z at rank 1, y at rank 2
    assert order("rbp_max")[2] == "y" and set(order("rbp_max")[:2]) == {"x", "z"}
    assert order("depth")[2] == "y" and set(order("depth")[:2]) == {"x", "z"}


def test_pairs_ignores_a_document_both_runs_weigh_equally():
    # x judged relevant: A (x, y) and B (z, y). Judging y moves RBP(A) - RBP(B) by |0.16 - 0.16| = 0: it comes
    # last, with priority 0. z: P(relevant) 1/2 (B, which ranks it, has judged nothing: (2 x 1/2 + 0) / 2) x
    # 0.2 x the pair's flip share (A in [0.2, 1.0], B in [0, 1.0]: A - B in [-0.8, 1.0] at 0.2 now, 0.8 of 1.8
    # on the other side of 0), in full: B expects more unjudged gain (0.2 x 1/2 + 0.16 P(y)) than A (0.16 P(y)),
    # so judging z relevant moves the difference toward where the estimates expect it
    table = select(RUNS, {"q": {"x": 1}}, M, budget=3, strategy="pairs")
    assert list(table["doc_id"]) == ["z", "y"]
    assert table["priority"].iloc[1] == 0.0
    assert table["priority"].iloc[0] == pytest.approx(0.5 * 0.2 * 4 / 9, rel=1e-12)
    assert "A vs B" in table["reason"].iloc[0]


def test_pairs_with_nothing_judged_counts_each_pair_at_the_expected_share():
    # nothing judged: both runs expect the same unjudged gain (1/2 x (0.2 + 0.16)), so no document has a
    # direction; toward and away equally likely, each pair counts at t = (1 + 1/4) / 2 = 5/8. x and z:
    # P(relevant) 1/2 ((2 x 1/2 + 0) / 2) x the flip share 1/2 (A and B both in [0, 1.0]: A - B reported tied at
    # 0) x 5/8 x |0.2 - 0| = 0.03125, over 1 query; y: |0.16 - 0.16| = 0 moves no pair, priority 0, last
    table = select(RUNS, None, M, budget=3, strategy="pairs")
    assert table["priority"].tolist() == pytest.approx([0.03125, 0.03125, 0.0], rel=1e-12, abs=0.0)
    assert set(table["doc_id"][:2]) == {"x", "z"} and table["doc_id"].iloc[2] == "y"
    # the reasons say so: x and z move A vs B, in no expected direction yet, at 5/8; y moves no pair
    for reason in table["reason"].iloc[:2]:
        assert "can move 1 unsettled pair(s), most A vs B" in reason
        assert "no direction yet" in reason and "(1 + 0.25) / 2 of its spread" in reason
    assert table["reason"].iloc[2].startswith("pairs: can move no unsettled pair")


def _by_hand_weights(n_docs, measure):
    """rank -> the measure's weight, from the definitions: RBP (1 - p) p^(rank - 1) within its cutoff (RBP(p=0.8)
    without one: every rank here, below the pool's depth of 31); nDCG@10 1 / log2(rank + 1) within 10, over the
    ideal DCG of 10 documents of gain 1."""
    ranks = np.arange(1, n_docs + 1, dtype=np.float64)
    if measure == "RBP(p=0.8)":
        return 0.2 * 0.8 ** (ranks - 1)
    if measure == "RBP(p=0.95)@10":
        return np.where(ranks <= 10, 0.05 * 0.95 ** (ranks - 1), 0.0)
    full = sum(1 / np.log2(i + 1) for i in range(1, 11))
    return np.where(ranks <= 10, 1 / np.log2(ranks + 1), 0.0) / full


@settings(max_examples=examples(50))
@given(st.integers(2, 12), st.integers(2, 25), st.sampled_from(["RBP(p=0.8)", "RBP(p=0.95)@10", "nDCG@10"]),
       st.integers(0, 2 ** 32 - 1))
def test_pairs_gives_no_direction_from_rounding(n_runs, n_docs, measure, seed):
    # runs that rank the same documents, each in its own order, with nothing judged, expect the same unjudged
    # gain (the same weights times the same P(relevant), summed in other orders): no pair has a direction, so
    # each counts at the expected share 5/8 of its spread, however the sums round (12 runs x 20 documents gave
    # priorities up to 0.78 when the direction was the sign of the rounding error). Recomputed from the
    # definitions: every pair is unsettled and reported tied (low 0, the same residual), P(relevant) = 1/2
    # for every document; RBP: x the flip share 1/2; nDCG@10: no flip share, x the ideal scale, the ideal DCG
    # of 10 documents of gain 1 over the expected ideal (1/2 at each of the first min(10, n) places)
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(n_docs)]
    orders = [rng.permutation(n_docs) for _ in range(n_runs)]
    runs = {f"r{j}": {"q": {docs[d]: float(n_docs - i) for i, d in enumerate(o)}} for j, o in enumerate(orders)}
    w = _by_hand_weights(n_docs, measure)
    W = np.zeros((n_runs, n_docs))
    for j, o in enumerate(orders):
        W[j, o] = w
    spread = sum(np.abs(W[a] - W[b]) for a in range(n_runs) for b in range(a + 1, n_runs))
    if measure == "nDCG@10":
        full = sum(1 / np.log2(i + 1) for i in range(1, 11))
        factor = full / max(0.5 * sum(1 / np.log2(i + 1) for i in range(1, min(10, n_docs) + 1)), 0.5)
    else:
        factor = 0.5
    expected = dict(zip(docs, 0.5 * factor * 5 / 8 * spread, strict=True))
    table = select(runs, None, measure, budget=n_docs, strategy="pairs")
    got = dict(zip(table["doc_id"], table["priority"], strict=True))
    assert got == pytest.approx({d: v for d, v in expected.items() if d in got}, rel=1e-9, abs=1e-15)
    assert set(expected) - set(got) == {d for d, v in expected.items() if not W[:, docs.index(d)].any()}
    assert not any("toward the expected order" in r for r in table["reason"])


def test_unsettled_pairs_by_hand():
    # low / residual of runs A, B, C on one query: A in [0.5, 1.0], B in [0, 0.5], C in [0, 1.0]
    from ir_rbstar.judging.strategies import _unsettled
    low, res = np.array([[0.5], [0.0], [0.0]]), np.array([[0.5], [0.5], [1.0]])
    u = _unsettled(low, res, adjacent=False)
    assert u.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]     # A-B settled (A >= B at every completion)
    # ranking A, then B and C tied: both adjacent to A and to each other (A-B settled); the order of the runs
    # used to pick (A,B) and (B,C) only
    adj = _unsettled(low, res, adjacent=True)
    assert adj.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    base = _unsettled(low, res, adjacent=False, baseline=0)     # pairs with A only
    assert base.tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 0]]


def test_flip_share_by_hand():
    # the runs of test_unsettled_pairs_by_hand: A-C has difference 0.5 now in [-0.5, 1.0], 0.5 of its 1.5 on
    # the other side of 0; B-C is tied now (0) in [-1.0, 0.5]: no side reported, share 1/2 (it was 1.0 of 1.5,
    # the side below 0, only because B comes before C); A-B is settled
    from ir_rbstar.judging.strategies import _flip_share, _unsettled
    low, res = np.array([[0.5], [0.0], [0.0]]), np.array([[0.5], [0.5], [1.0]])
    share = _flip_share(low, res, _unsettled(low, res, adjacent=False))
    assert np.allclose(share, [[0, 0, 1 / 3], [0, 0, 1 / 2], [0, 0, 0]])


def test_pairs_priority_weighs_pairs_by_flip_share_by_hand():
    # RBP(p=0.8)@2 (weights 0.2, 0.16, tail 0.64); A: x, y; B: x, z; C: w, z; x judged relevant.
    # low / high: A and B 0.2 / 1.0, C 0 / 1.0. Pair intervals: A-B [-0.8, 0.8] at 0 now: share 1/2;
    # A-C and B-C [-0.8, 1.0] at 0.2 now: share 0.8 / 1.8 = 4/9.
    # P(relevant), from its definition (docs/judging.md): the weight-weighted mean, over the runs ranking the
    # document, of their running precision (2 m + relevant) / (2 + judged) with m = (1 + relevant) / (2 +
    # judged) over all queries (one here). A and B judged x, relevant: m = 2/3, (4/3 + 1) / 3 = 7/9; C judged
    # nothing: m = 1/2, (1 + 0) / 2 = 1/2. y: A alone, 7/9; z: B and C at rank 2, (7/9 + 1/2) / 2 = 23/36;
    # w: C alone, 1/2.
    # Unjudged gain each run expects: A 0.16 x 7/9 = 0.124, B 0.16 x 23/36 = 0.102, C 0.2 / 2 + 0.102 = 0.202.
    # A pair counts in full where the document favours the run expecting more, 1/4 where the other:
    # y favours A over B (toward) and over C (against): 0.16 (1/2 + 4/9 / 4); z favours B over A (against)
    # and C over A (toward), B-C not moved: 0.16 (1/2 / 4 + 4/9); w favours C over A and B (toward): 0.2 (8/9)
    runs = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"x": 2.0, "z": 1.0}}, "C": {"q": {"w": 2.0, "z": 1.0}}}
    pool = build_pool(runs, M)
    grades, judged = pool.lookup(to_qrels(pd.DataFrame({"query_id": ["q"], "doc_id": ["x"], "relevance": [1]})))
    pick = choose(pool, judged, grades, "pairs", 3)
    prob = {"y": 7 / 9, "z": 23 / 36, "w": 1 / 2}
    spread = {"y": 0.16 * (1 / 2 + 4 / 9 / 4), "z": 0.16 * (1 / 2 / 4 + 4 / 9), "w": 0.2 * 8 / 9}
    assert list(pool.doc_ids(pick.index)) == ["w", "y", "z"]       # 0.0889, 0.0760, 0.0582
    for d, v in zip(pool.doc_ids(pick.index), pick.priority, strict=True):
        assert v == pytest.approx(prob[d] * spread[d], rel=1e-12)
    # the reasons count the pairs moved toward the expected order: w both of its pairs (A-C, B-C), y one of
    # two (A-B toward, A-C against), z one of two (A-B against, A-C toward; B-C, equal weights, not moved)
    notes = {d: r.split("; ")[1] for d, r in zip(pool.doc_ids(pick.index), pick.reason, strict=True)}
    assert notes == {"w": "toward the expected order in 2 of them", "y": "toward the expected order in 1 of them",
                     "z": "toward the expected order in 1 of them"}
    assert [r.split(" unsettled")[0] for r in pick.reason] == ["pairs: can move 2"] * 3


def test_nothing_left_to_choose_once_all_candidates_are_judged():
    runs = {"A": {"q": {"x": 2.0}}, "B": {"q": {"z": 2.0}}}
    pool = build_pool(runs, "RBP(p=0.5)@1")
    grades, judged = pool.lookup(to_qrels({"q": {"x": 1, "z": 0}}))
    assert judged.all() and len(choose(pool, judged, grades, "pairs", 5).index) == 0


def test_mtf_follows_a_run_until_a_non_relevant_document():
    assert order("mtf") == ["x", "y", "z"]                 # A first (equal priorities: run order), then B
    # x judged non-relevant: A's priority drops to -1, B goes first
    assert order("mtf", qrels={"q": {"x": 0}}) == ["z", "y"]


def test_bandit_is_seeded_and_takes_each_runs_next_document():
    runs = {f"r{i}": {"q": {f"d{(i + j) % 7}": 10.0 - j for j in range(5)}} for i in range(4)}
    a = select(runs, None, "RBP(p=0.8)@5", budget=6, strategy="bandit", seed=3)
    b = select(runs, None, "RBP(p=0.8)@5", budget=6, strategy="bandit", seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert a["doc_id"].is_unique and len(a) == 6


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_budget_batches_no_repeats_and_judged_documents_skipped(strategy):
    runs = {f"r{i}": {f"q{q}": {f"d{(i + j + q) % 9}": 10.0 - j for j in range(6)} for q in range(3)}
            for i in range(5)}
    qrels = {"q0": {"d0": 1, "d1": 0}}
    table = select(runs, qrels, "RBP(p=0.8)@6", budget=7, strategy=strategy, batch=3, queries=["q0", "q1", "q2"])
    assert len(table) == 7 and list(table["round"]) == [1, 1, 1, 2, 2, 2, 3]
    assert not table.duplicated(["query_id", "doc_id"]).any()
    assert not ((table["query_id"] == "q0") & table["doc_id"].isin(["d0", "d1"])).any()
    capped = select(runs, qrels, "RBP(p=0.8)@6", budget=7, strategy=strategy, per_query=2,
                    queries=["q0", "q1", "q2"])
    assert capped["query_id"].value_counts().max() <= 2 and len(capped) == 6
    # a budget beyond the pool returns the whole pool once
    everything = select(runs, None, "RBP(p=0.8)@6", budget=10_000, strategy=strategy)
    assert len(everything) == build_pool(runs, "RBP(p=0.8)@6").n_candidates


def test_ranking_goal_uses_adjacent_pairs_only():
    # C is far below A and B; the pair (A, B) is the only adjacent unsettled one once C is last
    runs = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"z": 2.0, "y": 1.0}}, "C": {"q": {"w": 2.0}}}
    table = select(runs, None, M, budget=4, strategy="ranking")
    assert table["reason"].str.contains("unsettled").all()


def test_ranking_with_nothing_judged_counts_the_pair_at_the_expected_share():
    # nothing judged: A and B both at 0, tied, so adjacent, and unsettled; both expect 1/2 x (0.2 + 0.16) of
    # unjudged gain: no direction, t = (1 + 1/4) / 2 = 5/8, no flip share for ranking. x and z: P(relevant) 1/2
    # x 5/8 x |0.2 - 0| = 0.0625; y: |0.16 - 0.16| = 0
    table = select(RUNS, None, M, budget=3, strategy="ranking")
    got = dict(zip(table["doc_id"], table["priority"], strict=True))
    assert got == pytest.approx({"x": 0.0625, "z": 0.0625, "y": 0.0}, rel=1e-12, abs=0.0)
    assert "no direction yet" in table["reason"].iloc[0]


def test_ranking_priority_adjacent_pairs_with_direction_by_hand():
    # RBP(p=0.8)@2 (weights 0.2, 0.16); A: x, y; B: z, x; C: w, z; x judged relevant. Values now (unjudged
    # non-relevant): A 0.2, B 0.16, C 0, so the ranking is A, B, C and the adjacent pairs are A-B and B-C (A-C
    # has B strictly between); all three are unsettled (every upper end is 1.0 or 0.8 + 0.2).
    # P(relevant): A and B judged x, relevant: (2 x 2/3 + 1) / 3 = 7/9; C judged nothing: 1/2. y: A alone,
    # 7/9; z: B at rank 1, C at rank 2, (0.2 x 7/9 + 0.16 x 1/2) / 0.36 = 53/81; w: C alone, 1/2.
    # Unjudged gain each run expects: A 0.16 x 7/9 = 0.124, B 0.2 x 53/81 = 0.131, C 0.1 + 0.16 x 53/81 =
    # 0.205: C > B > A. A pair counts in full where the document favours the run expecting more, 1/4 where
    # the other (no flip share for ranking):
    # z favours B over A (toward) by 0.2 and B over C (against) by 0.04: 0.2 + 0.04 / 4.
    # w favours C over B (toward): 0.2; A-B not moved (A-C, not adjacent, would add another 0.2).
    # y favours A over B (against) by 0.16: 0.16 / 4; B-C not moved.
    runs = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"z": 2.0, "x": 1.0}}, "C": {"q": {"w": 2.0, "z": 1.0}}}
    pool = build_pool(runs, M)
    grades, judged = pool.lookup(to_qrels(pd.DataFrame({"query_id": ["q"], "doc_id": ["x"], "relevance": [1]})))
    pick = choose(pool, judged, grades, "ranking", 3)
    expect = {"z": 53 / 81 * 0.21, "w": 1 / 2 * 0.2, "y": 7 / 9 * 0.04}
    # without the direction the order would be z (53/81 x 0.24 = 0.157), y (7/9 x 0.16 = 0.124), w (0.1)
    assert list(pool.doc_ids(pick.index)) == ["z", "w", "y"]
    for d, v in zip(pool.doc_ids(pick.index), pick.priority, strict=True):
        assert v == pytest.approx(expect[d], rel=1e-12)
    reasons = dict(zip(pool.doc_ids(pick.index), pick.reason, strict=True))
    assert reasons["z"].startswith("ranking: can move 2 unsettled pair(s) adjacent in the ranking now, most A vs B "
                                   "by up to 0.2 in the mean; toward the expected order in 1 of them;")
    assert reasons["w"].startswith("ranking: can move 1 unsettled pair(s) adjacent in the ranking now, most B vs C "
                                   "by up to 0.2 in the mean; toward the expected order in 1 of them;")
    assert reasons["y"].startswith("ranking: can move 1 unsettled pair(s) adjacent in the ranking now, most A vs B "
                                   "by up to 0.16 in the mean; toward the expected order in 0 of them;")


@pytest.mark.parametrize("kw, match", [
    ({"budget": 0}, "budget"), ({"budget": -3}, "budget"), ({"budget": 2.5}, "budget"),
    ({"budget": 5, "batch": 0}, "batch"), ({"budget": 5, "per_query": 0}, "per_query"),
    ({"budget": 5, "strategy": "random"}, "strategy"), ({"budget": 5, "baseline": "nope"}, "baseline"),
    ({"budget": 5, "depth": 0}, "depth"),
])
def test_bad_parameters_are_typed_errors(kw, match):
    with pytest.raises(ParameterError, match=match):
        select(RUNS, None, M, **kw)


def test_qrels_of_other_queries_are_an_error_not_an_empty_selection():
    # the qrels set the queries to judge: when no run answers one of them (qrels of another collection, or
    # ids written otherwise), the pool would be empty and the selection or simulation an empty table
    other = pd.DataFrame({"query_id": ["r", "s"], "doc_id": ["x", "x"], "relevance": [1, 0]})
    with pytest.raises(ParameterError, match=r"none of the 2 queries to judge .*'r'.* is a query of the runs "
                                             r"\(e.g. 'q'\)"):
        select(RUNS, other, M, budget=3)
    with pytest.raises(ParameterError, match="none of the 1 queries"):
        select(RUNS, None, M, budget=3, queries=["nope"])
    with pytest.raises(ParameterError, match="none of the 2 queries"):
        simulate(other, RUNS, [M])
    # one query in common is enough (the others have no candidates)
    some = pd.concat([other, pd.DataFrame({"query_id": ["q"], "doc_id": ["x"], "relevance": [1]})])
    assert set(select(RUNS, some, M, budget=3)["doc_id"]) == {"y", "z"}


def test_unsupported_measure_is_a_typed_error():
    with pytest.raises(ParameterError, match="judging supports"):
        select(RUNS, None, "AP", budget=3)
    with pytest.raises(ParameterError, match="cutoff"):
        select(RUNS, None, "nDCG", budget=3)


@pytest.mark.parametrize("strategy", ["depth", "rbp_sum", "rbp_max", "residual", "pairs", "ranking"])
def test_ties_are_broken_the_same_whatever_the_order_of_the_runs(strategy):
    # tied scores inside runs and tied priorities between documents (x and z: rank 1 of one run each)
    runs = {"A": {"q": {"x": 2.0, "y": 1.0, "w": 1.0}}, "B": {"q": {"z": 2.0, "y": 1.0, "v": 1.0}}}
    flipped = {"B": runs["B"], "A": runs["A"]}
    a = select(runs, None, "RBP(p=0.8)@3", budget=5, strategy=strategy)
    b = select(flipped, None, "RBP(p=0.8)@3", budget=5, strategy=strategy)
    assert list(a["doc_id"]) == list(b["doc_id"])
    assert np.allclose(a["priority"], b["priority"])


def test_the_reason_calls_an_expected_grade_an_expected_gain():
    # nDCG@k's gains are the grades: with y judged 3, the runs' running mean gain is above 1, not a probability
    graded = {"q": {"y": 3}}
    table = select(RUNS, graded, "nDCG@2", budget=2, strategy="pairs")
    estimates = [float(r.rsplit("~ ", 1)[1]) for r in table["reason"]]
    assert all("; expected gain ~ " in r and "P(relevant)" not in r for r in table["reason"])
    assert max(estimates) > 1
    # a graded RBP's gains are grade / max_rel: within [0, 1] but a mean gain, not a probability
    table = select(RUNS, graded, "RBP(p=0.8,max_rel=3)@2", budget=2, strategy="pairs")
    assert all("; expected gain ~ " in r and "P(relevant)" not in r for r in table["reason"])
    assert all(0 <= float(r.rsplit("~ ", 1)[1]) <= 1 for r in table["reason"])
    # binary gains (rel=, or grades 0/1 with max_rel=1) give a probability, and call it one
    for measure, judged in (("RBP(p=0.8,rel=2)@2", graded), ("RBP(p=0.8)@2", {"q": {"y": 1}})):
        table = select(RUNS, judged, measure, budget=2, strategy="pairs")
        assert all("; P(relevant) ~ " in r for r in table["reason"]), measure


def test_the_default_measure_takes_the_grade_scale_of_the_judgments():
    # no measure given: RBP(p=0.8) with max_rel the top grade of the qrels (1 for binary or no judgments)
    graded = {"q": {"y": 3, "x": 0}}
    assert measure_or_default(None, to_qrels(graded)) == "RBP(p=0.8,max_rel=3)"
    assert measure_or_default(None, to_qrels({"q": {"y": 1}})) == "RBP(p=0.8)"
    assert measure_or_default(None, None) == "RBP(p=0.8)"
    assert measure_or_default("nDCG@10", to_qrels(graded)) == "nDCG@10"
    default = select(RUNS, graded, budget=3, strategy="pairs")
    given = select(RUNS, graded, "RBP(p=0.8,max_rel=3)", budget=3, strategy="pairs")
    pd.testing.assert_frame_equal(default, given)
    # nothing judged yet: a graded prior gives the scale
    assert select(RUNS, None, budget=2, prior=graded)["reason"].str.contains("expected gain").all()


def test_the_default_scale_is_the_reports_also_for_an_ir_datasets_id(monkeypatch):
    # judged grades that stop below the grades a dataset defines: the dataset's scale, as the report takes it
    import ir_rbstar.datasets
    from ir_rbstar import med
    monkeypatch.setattr(ir_rbstar.datasets, "_defined_grades", lambda did: [0, 1, 2, 3])
    judged = to_qrels({"q": {"y": 2}})
    assert measure_or_default(None, judged, "irds:x/y") == "RBP(p=0.8,max_rel=3)"
    assert measure_or_default(None, judged, "qrels.txt") == "RBP(p=0.8,max_rel=2)"
    assert med.default_distance(judged, "irds:x/y") == "MED_nDCG(max_rel=3)@20"


def test_a_graded_rbp_below_the_grades_of_the_qrels_is_an_error():
    # RBP(p=0.8) is max_rel=1: grade 3 would gain 3, more than a relevant document can; evaluating refuses it
    with pytest.raises(GradeScaleError, match=r"holds grade 3 \(document 'y', query 'q'\), above max_rel=1; "
                                              r"give max_rel=3"):
        select(RUNS, {"q": {"y": 3}}, "RBP(p=0.8)", budget=2)
    select(RUNS, {"q": {"y": 3}}, "RBP(p=0.8,rel=2)", budget=2)          # binary gains: any grade is fine


def test_run_files_are_named_as_the_commands_name_them(tmp_path):
    # runs/bm25.run.gz -> bm25 (as `ir-rbstar judge` names it); a second file of the same name keeps its path
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder in (a, b, c):
        folder.mkdir()
    (a / "bm25.run").write_text("q Q0 x 1 2.0 t\nq Q0 y 2 1.0 t\n")
    (b / "bm25.run").write_text("q Q0 z 1 2.0 t\nq Q0 y 2 1.0 t\n")
    (c / "lm.run.txt").write_text("q Q0 y 1 2.0 t\nq Q0 x 2 1.0 t\n")
    pool = build_pool([str(a / "bm25.run"), b / "bm25.run", str(c / "lm.run.txt")], M)
    assert pool.runs == sorted(["bm25", str(b / "bm25.run"), "lm"])
    table = select([str(a / "bm25.run"), str(c / "lm.run.txt")], None, M, budget=1, strategy="pairs")
    assert "bm25 vs lm" in table["reason"][0]
