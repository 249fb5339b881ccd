"""The oracle bound of benchmarks/judging_oracle.py (a diagnostic reading the answers) and the precise budget
grid of benchmarks/bench_judging.py, on hand-made cases and a small slice of the bundled Vaswani runs."""
import importlib

import numpy as np
import pandas as pd
import pytest

from ir_rbstar.io import QUERY_IDS, read_trec_qrels, to_qrels, to_ranking
from ir_rbstar.judging import build_pool, simulate
from ir_rbstar.judging.simulate import _verdicts, full_values
from tests.helpers import VASWANI

oracle = importlib.import_module("benchmarks.judging_oracle")
bench = importlib.import_module("benchmarks.bench_judging")

# RBP(p=0.5)@3, three runs, two queries; d (q1) and e (q2) are the only relevant documents.
#   d: A rank 1 (0.5), B rank 2 (0.25), C rank 3 (0.125);  e: A rank 2 (0.25), B and C rank 3 (0.125)
#   full means (over 2 queries): A 0.375 > B 0.1875 > C 0.125
#   d alone: A 0.25 > B 0.125 > C 0.0625, the full order: tau_b = 1
#   e alone: A 0.125 > B = C 0.0625: the pair (B, C) tied, tau_b = 2 / sqrt(3 x 2) = 0.816
RUNS = {"A": {"q1": {"d": 3.0, "n1": 2.0, "n2": 1.0}, "q2": {"m1": 3.0, "e": 2.0, "m2": 1.0}},
        "B": {"q1": {"n1": 3.0, "d": 2.0, "n2": 1.0}, "q2": {"m1": 3.0, "m2": 2.0, "e": 1.0}},
        "C": {"q1": {"n1": 3.0, "n2": 2.0, "d": 1.0}, "q2": {"m2": 3.0, "m1": 2.0, "e": 1.0}}}
QRELS = {"q1": {"d": 1, "n1": 0}, "q2": {"e": 1, "m1": 0}}
M = "RBP(p=0.5)@3"


def _setup(runs, qrels, measure):
    qrels = to_qrels(qrels) if isinstance(qrels, dict) else qrels
    runs = {n: to_ranking(r) if isinstance(r, dict) else r for n, r in runs.items()}
    pool = build_pool(runs, measure, queries=list(QUERY_IDS.decode(qrels.qcodes)))
    grades, known = pool.lookup(qrels)
    grades = np.where(known, grades, 0)
    full = full_values(qrels, runs, [measure], pool)[measure]
    return runs, pool, grades, full


def test_full_values_of_the_hand_made_case():
    _, pool, _, full = _setup(RUNS, QRELS, M)
    assert np.allclose(full.mean(axis=1), [0.375, 0.1875, 0.125])


@pytest.mark.parametrize("objective", ["tau", "both"])
def test_the_first_revelation_is_the_one_that_restores_the_ranking(objective):
    runs, pool, grades, full = _setup(RUNS, QRELS, M)
    order = oracle.oracle_order(pool, runs, M, grades, full, objective)
    assert list(pool.doc_ids(order)) == ["d", "e"]
    curve = oracle.oracle_curve(pool, runs, M, grades, full, order, check_every=1)
    assert curve["tau_b"].round(6).tolist()[1:] == [1.0, 1.0]
    assert np.isnan(curve["tau_b"].iloc[0])                   # nothing revealed: every run 0
    assert oracle.oracle_needed(curve)["tau_b"] == 1.0
    # the other first choice would give 0.816 (B and C tied), by hand above
    e_first = oracle.oracle_curve(pool, runs, M, grades, full, order[::-1], check_every=1)
    assert e_first["tau_b"].iloc[1] == pytest.approx(2 / np.sqrt(6))


@pytest.fixture(scope="module")
def vaswani():
    qrels = read_trec_qrels(str(VASWANI / "qrels"))
    names = ("bm25", "bm25_flat", "bm25l")
    frames = {n: pd.read_csv(VASWANI / f"{n}.run.gz", sep=r"\s+", header=None, usecols=[0, 2, 3, 4],
                             names=["query_id", "doc_id", "rank", "score"], dtype={"query_id": str, "doc_id": str})
              for n in names}
    keep = sorted(set(frames["bm25"]["query_id"]))[:12]
    runs = {n: to_ranking(f[(f["rank"] <= 20) & f["query_id"].isin(keep)][["query_id", "doc_id", "score"]]
                          .reset_index(drop=True)) for n, f in frames.items()}
    return runs, qrels


@pytest.mark.parametrize("measure", ["RBP(p=0.8)@20", "nDCG@10"])
@pytest.mark.parametrize("objective", oracle.OBJECTIVES)
def test_the_oracle_reveals_only_relevant_documents_and_all_of_them(vaswani, measure, objective):
    runs, qrels = vaswani
    runs, pool, grades, full = _setup(runs, qrels, measure)
    order = oracle.oracle_order(pool, runs, measure, grades, full, objective)
    assert len(set(order.tolist())) == len(order)
    assert (grades[order] >= 1).all()
    assert set(order.tolist()) == set(np.flatnonzero(grades >= 1).tolist())
    # the incremental values equal the package's evaluator at every step (oracle_curve raises otherwise)
    curve = oracle.oracle_curve(pool, runs, measure, grades, full, order, check_every=1)
    assert len(curve) == len(order) + 1


def test_after_every_relevant_pool_document_rbp_is_the_full_judgment_value(vaswani):
    # RBP@20 with the pool of the runs' top 20: the pool holds every document the measure reads
    runs, qrels = vaswani
    measure = "RBP(p=0.8)@20"
    runs, pool, grades, full = _setup(runs, qrels, measure)
    order = oracle.oracle_order(pool, runs, measure, grades, full, "error")
    curve = oracle.oracle_curve(pool, runs, measure, grades, full, order)
    st = oracle._State(pool, oracle.contributions(pool, runs, measure, grades), grades, measure)
    for c in order:
        st.reveal(int(c))
    assert np.allclose(st.V, full, atol=1e-12)
    assert curve["tau_b"].iloc[-1] == pytest.approx(1.0) and curve["verdicts_agree"].iloc[-1] == 1.0


def test_the_greedy_verdict_count_equals_the_simulations_verdicts():
    """_verdicts_after (running sums, Holm by critical values) against the simulation's own verdicts, with
    one query's column replaced, on random values with real differences between the runs."""
    rng = np.random.default_rng(7)
    for trial in range(20):
        R, Q, C = 5, 12, 6
        V = rng.random((R, Q)) * 0.3 + np.linspace(0, 0.2, R)[:, None] * (trial % 3)
        full = rng.random((R, Q)) * 0.3 + np.linspace(0, 0.3, R)[:, None]
        names = [f"r{i}" for i in range(R)]
        fv = _verdicts(full, names, 0.05)
        a, b = (np.array(x) for x in zip(*[(i, j) for i in range(R) for j in range(i + 1, R)], strict=True))
        from scipy.stats import t as tdist
        tcrit = tdist.isf(0.05 / (2.0 * (len(a) - np.arange(len(a)))), Q - 1)
        st = type("S", (), {"V": V, "Q": Q})()
        q = rng.integers(0, Q, C)
        cols = rng.random((R, C)) * 0.5
        got = oracle._verdicts_after(st, cols, q, a, b, fv, tcrit)
        for c in range(C):
            W = V.copy()
            W[:, q[c]] = cols[:, c]
            assert got[c] == int((_verdicts(W, names, 0.05) == fv).sum()), (trial, c)


def test_depth_with_a_perfect_relevance_filter_keeps_depths_order():
    runs, pool, grades, _ = _setup(RUNS, QRELS, M)
    assert list(pool.doc_ids(oracle.relevant_in_order(pool, grades, "depth"))) == ["d", "e"]  # rank 1, then 2


def test_every_round_until_the_pool_is_judged():
    assert bench.every_round(100, 10) == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert bench.every_round(95, 10)[-2:] == [90, 100]                 # the last round reveals the rest
    assert bench.every_round(7, 10) == [10] and bench.every_round(0, 10) == []


def test_whole_round_budgets_give_the_same_trajectory_whatever_is_recorded(vaswani):
    """With whole rounds the seeded trajectories (here the bandit's random draws too) are the same whatever
    budgets are recorded: the benchmark's rows at every round are those each budget alone would give."""
    runs, qrels = vaswani
    batch = len(qrels.qcodes)
    both = simulate(qrels, runs, ["RBP(p=0.8)@20"], ["pairs", "bandit"], [batch, 2 * batch, 3 * batch], seed=3)
    alone = simulate(qrels, runs, ["RBP(p=0.8)@20"], ["pairs", "bandit"], [2 * batch], seed=3)
    pd.testing.assert_frame_equal(both[both["budget"] == 2 * batch].reset_index(drop=True), alone)


def test_rounds_below_a_pool_are_counted_by_hand():
    # two rounds (budgets 10 and 20) of one measure: pairs below depth on tau_b at 10 (by 0.2), equal at 20;
    # below rbp_sum on the verdicts at both (0.1 and 0.3); rbp_max has no row at 20 (left out there)
    rows = [("pairs", 10, 0.5, 0.8), ("pairs", 20, 0.9, 0.6),
            ("depth", 10, 0.7, 0.8), ("depth", 20, 0.9, 0.5),
            ("rbp_sum", 10, 0.1, 0.9), ("rbp_sum", 20, 0.2, 0.9),
            ("rbp_max", 10, 0.6, 0.7)]
    table = pd.DataFrame([(s, b, "M", t, v) for s, b, t, v in rows],
                         columns=["strategy", "budget", "measure", "tau_b", "verdicts_agree"])
    got = bench.rounds_below(table).set_index(["target", "baseline"])
    assert got.loc[("tau_b", "depth"), ["rounds below", "of rounds", "first", "last"]].tolist() == [1, 2, 10, 10]
    assert got.loc[("tau_b", "depth"), "by at most"] == pytest.approx(0.2)
    assert got.loc[("tau_b", "rbp_sum"), "rounds below"] == 0
    assert got.loc[("verdicts_agree", "rbp_sum"), ["rounds below", "first", "last"]].tolist() == [2, 10, 20]
    assert got.loc[("verdicts_agree", "rbp_sum"), "by at most"] == pytest.approx(0.3)
    assert got.loc[("tau_b", "rbp_max"), ["rounds below", "of rounds"]].tolist() == [1, 1]
    assert got.loc[("verdicts_agree", "depth"), "rounds below"] == 0


def test_the_benchmark_runs_on_a_collection_given_by_its_files(tmp_path, capsys):
    """``--qrels`` and ``--runs``: a held-out collection of one's own gets the same tables (both measures, RBP
    graded with the qrels' top grade), the rounds below the pools and a selection round's time."""
    _, qrels, paths, top = next(bench.collections(quick=True))
    code = bench.main(["--qrels", qrels, "--runs", *paths[:3], "--name", "Vaswani three", "--no-oracle",
                       "--strategies", "pairs,depth", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith(f"## Vaswani three: 3 runs, {len(read_trec_qrels(qrels).qcodes)} queries")
    # named by the whole name: not the files of the built-in collection whose name starts the same
    table = pd.read_csv(tmp_path / "judging_vaswani_three.tsv", sep="\t")
    assert set(table["measure"]) == {"nDCG@10", f"RBP(p=0.8,max_rel={top})"}
    assert set(table["strategy"]) == {"pairs", "depth"}
    assert "one selection round (pairs goal" in out and "| measure | strategy | tau_b>=0.9" in out
    with pytest.raises(SystemExit):
        bench.main(["--qrels", qrels])
    with pytest.raises(SystemExit):
        bench.main(["--qrels", str(tmp_path / "absent"), "--runs", *paths[:2]])
    assert "no such file" in capsys.readouterr().err
