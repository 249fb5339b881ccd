"""Replaying a simulation equals evaluating with the revealed subset of the judgments, through the package's
own evaluation (ir_measures doors), on the bundled Vaswani runs."""
import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_rbstar
from ir_rbstar.errors import GradeScaleError, ParameterError
from ir_rbstar.io import QUERY_IDS, read_trec_qrels, to_qrels, to_ranking
from ir_rbstar.judging import build_pool
from ir_rbstar.judging.evaluate import RevealedEvaluator
from ir_rbstar.judging.simulate import SIMULATION_COLUMNS, needed, pool_budgets, replay, simulate
from tests.conftest import examples
from tests.helpers import VASWANI

NAMES = ("bm25", "bm25_flat", "bm25l")
MEASURES = ["RBP(p=0.8)", "RBP_res(p=0.8)", "RBP(p=0.8)@10", "RBP_res(p=0.8)@10", "nDCG@10", "P@10",
            "RBP(p=0.8,rel=0)@10"]   # rel=0: a judged grade 0 gains, a document not judged does not


@pytest.fixture(scope="module")
def data():
    qrels = read_trec_qrels(str(VASWANI / "qrels"))
    # each run's top 100 (the same rows for both sides of the comparison; keeps the test fast)
    frames = {n: pd.read_csv(VASWANI / f"{n}.run.gz", sep=r"\s+", header=None, usecols=[0, 2, 3, 4],
                             names=["query_id", "doc_id", "rank", "score"], dtype={"query_id": str, "doc_id": str})
              for n in NAMES}
    frames = {n: f[f["rank"] <= 100][["query_id", "doc_id", "score"]].reset_index(drop=True) for n, f in frames.items()}
    runs = {n: to_ranking(f) for n, f in frames.items()}
    return qrels, runs, frames


@pytest.mark.parametrize("strategy", ["pairs", "bandit"])
def test_replay_equals_evaluation_with_the_revealed_qrels(data, strategy):
    qrels, runs, frames = data
    pool = build_pool(runs, "RBP(p=0.8)", queries=list(QUERY_IDS.decode(qrels.qcodes)))
    grades, in_qrels = pool.lookup(qrels)
    grades = np.where(in_qrels, grades, 0)                 # not in the qrels: non-relevant once revealed
    ev = RevealedEvaluator(pool, runs, MEASURES, grades)
    parsed = ir_rbstar.parse(" ".join(MEASURES))
    for budget, revealed in replay(pool, grades, strategy, [40, 400], batch=25, seed=1):
        assert int(revealed.sum()) == budget
        idx = np.flatnonzero(revealed)
        frame = pd.DataFrame({"query_id": pool.query_ids(idx), "doc_id": pool.doc_ids(idx),
                              "relevance": grades[idx]})
        mine = ev.values(revealed)
        qpos = {q: i for i, q in enumerate(pool.queries)}
        checked = 0
        for r, name in enumerate(pool.runs):
            for metric in ir_measures.iter_calc(parsed, frame, frames[name]):
                got = mine[str(metric.measure)][r, qpos[metric.query_id]]
                assert got == pytest.approx(metric.value, abs=1e-9), (strategy, name, metric)
                checked += 1
        assert checked >= len(NAMES) * len(MEASURES) * len(set(frame["query_id"]))


def test_simulate_table_is_deterministic_and_complete(data):
    qrels, runs, _ = data
    kw = dict(measures=["RBP(p=0.8)@10", "nDCG@10"], strategies=["pairs", "depth", "bandit"], budgets=[30, 90],
              seed=2)
    a = simulate(qrels, runs, **kw)
    b = simulate(qrels, runs, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert tuple(a.columns) == SIMULATION_COLUMNS and len(a) == 3 * 2 * 2
    assert a["tau_b"].dropna().between(-1, 1).all() and a["verdicts_agree"].between(0, 1).all()
    assert a.loc[a["measure"] == "nDCG@10", "mean_residual"].isna().all()
    rbp = a[a["measure"] == "RBP(p=0.8)@10"]
    assert rbp["mean_residual"].between(0, 1).all()
    # more judgments never leave more residual weight
    for _, g in rbp.groupby("strategy"):
        assert np.all(np.diff(g.sort_values("budget")["mean_residual"].to_numpy()) <= 1e-12)
    table = needed(a, tau=2.0, verdicts=0.0)              # tau_b never reaches 2; every share is >= 0
    assert table["tau_b>=2"].isna().all() and (table["verdicts_agree>=0"] == 30).all()


def test_simulation_with_every_document_revealed_matches_full_judgments(data):
    # at a budget covering the whole pool of RBP@5, the top 5 of every run is judged: RBP@5 equals the full value
    qrels, runs, _ = data
    table = simulate(qrels, runs, measures=["RBP(p=0.8)@5"], strategies=["residual"], budgets=[100_000])
    row = table.iloc[0]
    assert row["tau_b"] == pytest.approx(1.0) and row["verdicts_agree"] == 1.0
    assert row["mean_residual"] == pytest.approx(0.8 ** 5)          # only the tail p^k is left


def test_simulate_bad_input(data):
    qrels, runs, _ = data
    with pytest.raises(ParameterError, match="oracle"):
        simulate(None, runs)
    with pytest.raises(ParameterError, match="strategies"):
        simulate(qrels, runs, strategies=["nope"])
    with pytest.raises(ParameterError, match="budgets"):
        simulate(qrels, runs, budgets=[0])
    with pytest.raises(ParameterError, match="budgets: give at least one"):
        simulate(qrels, runs, budgets=[])
    with pytest.raises(ParameterError, match="at least 2"):
        simulate(qrels, {"bm25": runs["bm25"]})
    graded = {"1": {"1": 3}}
    with pytest.raises(GradeScaleError, match="max_rel"):
        simulate(graded, runs, measures=["RBP(p=0.8)@5"], budgets=[5])


def test_pool_budgets_are_whole_rounds_at_shares_of_the_pool():
    assert pool_budgets(100, 10, (0.02, 0.5, 1.0)) == [10, 50, 100]
    assert pool_budgets(95, 10, (0.5, 1.0)) == [50, 100]        # the last round reveals the rest
    assert pool_budgets(1000, 7, (0.001, 0.5)) == [7, 497]      # at least one round; 500 / 7 rounds to 71
    assert pool_budgets(0, 10) == []
    assert pool_budgets(400, 93) == [93, 186, 279, 465]         # the default shares, some in the same round;
    assert pool_budgets(400, 93, (1.0,)) == [465]               # 4.3 rounds: the fifth reveals the rest


def test_simulate_without_budgets_covers_the_pool(data):
    """No budgets: the default shares of the pool, in whole rounds of one document per query; the last
    reveals the whole pool, where every run's value is the full-judgment one."""
    qrels, runs, _ = data
    measure = "RBP(p=0.8)@5"
    pool = build_pool(runs, measure, queries=list(QUERY_IDS.decode(qrels.qcodes)))
    table = simulate(qrels, runs, measures=[measure], strategies=["depth"])
    batch = len(pool.queries)
    assert list(table["budget"]) == pool_budgets(pool.n_candidates, batch) and len(table) >= 4
    assert all(b % batch == 0 for b in table["budget"][:-1])
    last = table.iloc[-1]
    assert last["judged"] == pool.n_candidates and last["tau_b"] == pytest.approx(1.0)
    assert last["verdicts_agree"] == 1.0 and last["mean_residual"] == pytest.approx(0.8 ** 5)


@pytest.mark.parametrize("strategy", ["pairs", "depth"])
def test_replay_of_a_deeper_ndcg_pool_equals_evaluation_with_the_revealed_qrels(data, strategy):
    # nDCG@10 from the runs' top 40: the documents ranked only past rank 10, once revealed, raise the queries'
    # ideal DCG exactly as qrels holding them do in the package's evaluation
    qrels, runs, frames = data
    queries = list(QUERY_IDS.decode(qrels.qcodes))
    pool = build_pool(runs, "nDCG@10", queries=queries, depth=40)
    within = build_pool(runs, "nDCG@10", queries=queries).n_candidates
    grades, in_qrels = pool.lookup(qrels)
    grades = np.where(in_qrels, grades, 0)
    measures = ["nDCG@10", "nDCG@5", "P@10"]
    ev = RevealedEvaluator(pool, runs, measures, grades)
    parsed = ir_rbstar.parse(" ".join(measures))
    deep = pool.W.sum(axis=0) == 0
    budget = within + 300
    for _, revealed in replay(pool, grades, strategy, [budget], batch=100, seed=0):
        assert (revealed & deep & (grades > 0)).any()       # relevant documents past rank 10 are among them
        idx = np.flatnonzero(revealed)
        frame = pd.DataFrame({"query_id": pool.query_ids(idx), "doc_id": pool.doc_ids(idx),
                              "relevance": grades[idx]})
        mine = ev.values(revealed)
        qpos = {q: i for i, q in enumerate(pool.queries)}
        for r, name in enumerate(pool.runs):
            for metric in ir_measures.iter_calc(parsed, frame, frames[name]):
                got = mine[str(metric.measure)][r, qpos[metric.query_id]]
                assert got == pytest.approx(metric.value, abs=1e-9), (strategy, name, metric)


# random small collections: runs with tied scores that may leave a query out, qrels with negative grades and
# queries no run answers, any subset of the pool revealed, documents of an order judged from outside the pool
_DOCS = [f"d{i}" for i in range(9)]
_run = st.dictionaries(st.sampled_from(["q1", "q2", "q3"]),
                       st.dictionaries(st.sampled_from(_DOCS), st.integers(0, 3).map(float), min_size=1, max_size=9),
                       min_size=1, max_size=3)
_MEASURES = ["RBP(p=0.7,max_rel=3)", "RBP(p=0.5,rel=0)", "RBP(p=0.8,rel=2)@3", "RBP_res(p=0.7)",
             "RBP_res(p=0.6)@4", "nDCG@3", "nDCG@5", "P@2", "P@4"]


@settings(max_examples=examples(100), deadline=None)
@given(runs=st.lists(_run, min_size=2, max_size=3),
       judgments=st.dictionaries(st.tuples(st.sampled_from(["q1", "q2", "q3", "q4"]), st.sampled_from(_DOCS)),
                                 st.integers(-1, 3), min_size=1, max_size=14),
       select_measure=st.sampled_from(["RBP(p=0.7)@3", "nDCG@3", "P@4"]),
       picks=st.lists(st.booleans(), min_size=40, max_size=40),
       outside=st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(_DOCS)), max_size=4,
                        unique=True))
def test_revealed_values_equal_the_evaluation_of_the_revealed_qrels(runs, judgments, select_measure, picks, outside):
    named = {f"r{i}": r for i, r in enumerate(runs)}
    qrels = to_qrels(pd.DataFrame({"query_id": [q for q, _ in judgments], "doc_id": [d for _, d in judgments],
                                   "relevance": list(judgments.values())}))
    rankings = {n: to_ranking(r) for n, r in named.items()}
    try:
        pool = build_pool(rankings, select_measure, queries=list(QUERY_IDS.decode(qrels.qcodes)))
    except ParameterError:
        return                                  # no run answers a query of the qrels (its own test)
    grades, in_qrels = pool.lookup(qrels)
    grades = np.where(in_qrels, grades, 0)
    revealed = np.array(picks[:pool.n_candidates] + [False] * max(0, pool.n_candidates - len(picks)))
    ev = RevealedEvaluator(pool, rankings, _MEASURES, grades)
    # documents outside the pool (no candidate), judged as an order would judge them
    cand = set(zip(pool.query_ids(np.arange(pool.n_candidates)), pool.doc_ids(np.arange(pool.n_candidates)),
                   strict=True))
    qpos = {q: i for i, q in enumerate(pool.queries)}
    extra = [(q, d) for q, d in outside if (q, d) not in cand and q in qpos]
    from ir_rbstar.io import hash_ids
    ids = np.array([d.encode() for _, d in extra], dtype="S8") if extra else np.zeros(0, dtype="S8")
    truth = np.array([judgments.get((q, d), 0) for q, d in extra], dtype=np.int64)     # 0: not in the qrels
    judged_out = ev.judged(np.array([qpos[q] for q, _ in extra], dtype=np.int64), hash_ids(ids), ids, truth)
    mine = ev.values(revealed, judged_out, np.ones(len(extra), dtype=bool))
    idx = np.flatnonzero(revealed)
    frame = pd.DataFrame({"query_id": list(pool.query_ids(idx)) + [q for q, _ in extra],
                          "doc_id": list(pool.doc_ids(idx)) + [d for _, d in extra],
                          "relevance": list(grades[idx]) + list(truth)})
    if frame.empty:
        return
    parsed = ir_rbstar.parse(" ".join(_MEASURES))
    for r, name in enumerate(pool.runs):
        run = pd.DataFrame([(q, d, s) for q, docs in named[name].items() for d, s in docs.items()],
                           columns=["query_id", "doc_id", "score"])
        for metric in ir_measures.iter_calc(parsed, frame, run):
            got = mine[str(metric.measure)][r, qpos[metric.query_id]]
            assert got == pytest.approx(metric.value, abs=1e-12), (name, metric, got)


@pytest.mark.parametrize("strategy", ["residual", "pairs", "ranking", "depth", "rbp_sum", "rbp_max", "mtf", "bandit"])
def test_every_strategy_judges_the_whole_pool_so_a_budget_of_it_needs_no_rounds(data, strategy):
    """Each strategy, asked round after round, chooses until no candidate is left: the whole pool, whatever its
    order. ``replay`` takes a budget of the pool or more as that (no rounds replayed to get there), and the
    budgets before it as they are."""
    from ir_rbstar.judging.strategies import choose
    qrels, runs, _ = data
    runs = {n: runs[n] for n in NAMES[:2]}
    pool = build_pool(runs, "RBP(p=0.8)@5", queries=list(QUERY_IDS.decode(qrels.qcodes)))
    grades, in_qrels = pool.lookup(qrels)
    grades = np.where(in_qrels, grades, 0)
    revealed = np.zeros(pool.n_candidates, dtype=bool)
    rng = np.random.default_rng(2)
    for _ in range(pool.n_candidates):
        pick = choose(pool, revealed, grades, strategy, 7, rng=rng, explain=False)
        if len(pick.index) == 0:
            break
        assert not revealed[pick.index].any()
        revealed[pick.index] = True
    assert revealed.all()
    got = list(replay(pool, grades, strategy, [14, pool.n_candidates, pool.n_candidates + 9], batch=7, seed=2))
    assert [int(r.sum()) for _, r in got] == [14, pool.n_candidates, pool.n_candidates]
    rounds = dict(replay(pool, grades, strategy, [14], batch=7, seed=2))
    assert np.array_equal(got[0][1], rounds[14])
