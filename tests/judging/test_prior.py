"""prior=: auxiliary judgments or probabilities of relevance guiding the goals (hand-checked on two runs with
RBP(p=0.8)@2 weights 0.2 and 0.16), rounds that use only the judgments revealed so far, and bad input."""
import numpy as np
import pandas as pd
import pytest

from ir_rbstar import cli
from ir_rbstar.errors import GradeScaleError, InputFormatError, ParameterError
from ir_rbstar.judging import STRATEGIES, build_pool, choose, select, simulate
from ir_rbstar.judging.prior import prior_gains
from ir_rbstar.io import to_qrels
from ir_rbstar.judging.simulate import replay
from tests.helpers import VASWANI

# A ranks x then y, B ranks z then y (y shared at rank 2)
RUNS = {"A": {"q": {"x": 2.0, "y": 1.0}}, "B": {"q": {"z": 2.0, "y": 1.0}}}
M = "RBP(p=0.8)@2"


def probabilities(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "probability"])


def test_without_judgments_x_and_z_tie_and_a_probability_breaks_the_tie_by_hand():
    plain = select(RUNS, None, M, budget=3, strategy="pairs")
    # both runs expect the same unjudged gain (1/2 x 0.36): no direction, each pair at the expected share
    # (1 + 1/4) / 2 = 5/8; x and z: P 1/2 x the flip share 1/2 x 5/8 x 0.2 = 0.03125 (tied), y 0
    assert list(plain["priority"]) == pytest.approx([0.03125, 0.03125, 0.0], rel=1e-12, abs=0.0)
    # prior: z surely relevant, x surely not -> P(z) = (1 + 1/2) / 2 = 0.75, P(x) = (0 + 1/2) / 2 = 0.25;
    # B (z, y) now expects more than A (x, y): z, favouring B, counts in full (P x spread 0.2 x the flip share
    # 1/2 of the one pair, A - B at 0 in [-1, 1]), x, favouring A, a quarter
    table = select(RUNS, None, M, budget=3, strategy="pairs", prior=probabilities([("q", "x", 0.0), ("q", "z", 1.0)]))
    assert list(table["doc_id"]) == ["z", "x", "y"]
    assert list(table["priority"]) == pytest.approx([0.75 * 0.2 / 2, 0.25 * 0.2 / 2 / 4, 0.0])
    assert table["reason"][0].endswith("P(relevant) ~ 0.75 (prior)")
    assert "(prior)" not in table["reason"][2]                             # y: no prior, its own estimate


def test_auxiliary_qrels_give_the_gain_of_their_grade():
    # RBP(p=0.8,max_rel=3): grade 3 -> gain 1, grade 1 -> gain 1/3; P = (gain + 1/2) / 2; flip share 1/2;
    # B (z) expects more than A (x): z in full, x a quarter
    aux = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["x", "z"], "relevance": [1, 3]})
    table = select(RUNS, None, "RBP(p=0.8,max_rel=3)@2", budget=2, strategy="pairs", prior=aux)
    assert list(table["doc_id"]) == ["z", "x"]
    assert list(table["priority"]) == pytest.approx([0.2 * (1 + 0.5) / 4, 0.2 * (1 / 3 + 0.5) / 4 / 4])
    pool = build_pool(RUNS, "RBP(p=0.8,max_rel=3)@2")
    gains = dict(zip(pool.doc_ids(np.arange(3)), prior_gains(pool, aux), strict=True))
    assert gains["x"] == pytest.approx(1 / 3) and gains["z"] == pytest.approx(1.0) and np.isnan(gains["y"])


def test_unknown_queries_and_documents_in_the_prior_are_ignored():
    known = [("q", "z", 1.0)]
    prior = probabilities(known + [("q", "nowhere", 1.0), ("other query", "x", 1.0)])
    a = select(RUNS, None, M, budget=3, strategy="pairs", prior=prior)
    b = select(RUNS, None, M, budget=3, strategy="pairs", prior=probabilities(known))
    pd.testing.assert_frame_equal(a, b)
    # ... but a prior of which nothing is in the pool (ids of another form, most likely) is an error, not a
    # prior that guides nothing without a word
    with pytest.raises(ParameterError, match="prior: none of its 2 entries is for a document of the pool"):
        select(RUNS, None, M, budget=3, strategy="pairs",
               prior=probabilities([("q", "nowhere", 1.0), ("other query", "x", 1.0)]))
    with pytest.raises(ParameterError, match="prior: none of its 1 entries"):
        select(RUNS, None, M, budget=3, strategy="pairs", prior={"other query": {"x": 1}})


@pytest.mark.parametrize("strategy", ["depth", "rbp_sum", "residual", "mtf"])
def test_the_baselines_and_residual_ignore_the_prior(strategy):
    prior = probabilities([("q", "x", 0.0), ("q", "z", 1.0), ("q", "y", 0.3)])
    a = select(RUNS, None, M, budget=3, strategy=strategy, prior=prior)
    b = select(RUNS, None, M, budget=3, strategy=strategy)
    pd.testing.assert_frame_equal(a, b)


def test_file_forms_agree_with_the_frame(tmp_path):
    table = tmp_path / "p.tsv"
    table.write_text("query_id\tdoc_id\tprobability\nq\tx\t0.0\nq\tz\t1\n")
    qrels = tmp_path / "aux.qrels"
    qrels.write_text("q 0 x 0\nq 0 z 1\n")
    frame = select(RUNS, None, M, budget=3, prior=probabilities([("q", "x", 0.0), ("q", "z", 1.0)]))
    pd.testing.assert_frame_equal(select(RUNS, None, M, budget=3, prior=str(table)), frame)
    pd.testing.assert_frame_equal(select(RUNS, None, M, budget=3, prior=str(qrels)), frame)


@pytest.mark.parametrize("text, message", [
    ("q x 1.5\n", "line 1: probability '1.5' of document 'x' for query 'q' is not a number in [0, 1]"),
    ("q x 0.5\nq z -0.1\n", "line 2: probability '-0.1'"),
    ("query_id doc_id probability\nq z nan\n", "line 2: probability 'nan'"),
    ("q x 0.5\nq z lots\n", "line 2: probability 'lots'"),
])
def test_a_probability_outside_0_1_names_the_file_line_query_and_document(tmp_path, text, message):
    path = tmp_path / "prior.txt"
    path.write_text(text)
    with pytest.raises(InputFormatError, match="prior.txt") as e:
        select(RUNS, None, M, budget=2, prior=str(path))
    assert message in str(e.value)
    with pytest.raises(InputFormatError, match="not a number in"):
        select(RUNS, None, M, budget=2, prior=probabilities([("q", "x", 2.0)]))


def test_two_probabilities_for_one_document_are_an_error_naming_the_second_line(tmp_path):
    path = tmp_path / "prior.txt"
    path.write_text("query_id doc_id probability\nq x 0.5\nq z 0.1\nq x 0.9\n")
    with pytest.raises(InputFormatError, match=r"prior.txt, line 4: a second probability for document 'x' of "
                                               r"query 'q'"):
        select(RUNS, None, M, budget=2, prior=str(path))
    with pytest.raises(InputFormatError, match=r"prior, line 2: a second probability for document 'z'"):
        select(RUNS, None, M, budget=2, prior=probabilities([("q", "z", 0.2), ("q", "z", 0.2)]))


def test_auxiliary_grades_outside_the_scale_are_grade_scale_errors():
    above = pd.DataFrame({"query_id": ["q"], "doc_id": ["x"], "relevance": [4]})
    with pytest.raises(GradeScaleError, match=r"grade 4 of document 'x' for query 'q' is outside the grade scale 0..3"):
        select(RUNS, None, "RBP(p=0.8,max_rel=3)@2", budget=2, prior=above)
    below = pd.DataFrame({"query_id": ["q"], "doc_id": ["z"], "relevance": [-1]})
    with pytest.raises(GradeScaleError, match="grade -1 of document 'z'"):
        select(RUNS, None, M, budget=2, prior=below)
    # nDCG: the top of the scale is the human judgments' top grade
    human = {"q": {"y": 2}}
    with pytest.raises(GradeScaleError, match="0..2"):
        select(RUNS, human, "nDCG@2", budget=2, prior=pd.DataFrame({"query_id": ["q"], "doc_id": ["x"],
                                                                      "relevance": [3]}))
    with pytest.raises(ParameterError, match="missing doc_id"):
        select(RUNS, None, M, budget=2, prior=pd.DataFrame({"query_id": ["q"], "probability": [0.5]}))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_round_uses_only_the_judgments_revealed_so_far(strategy):
    # two oracles that agree on what the first two rounds reveal and differ everywhere else: the third round
    # must choose the same documents under both
    runs = {f"r{i}": {f"q{q}": {f"d{(3 * i + j + q) % 11}": 10.0 - j for j in range(6)} for q in range(3)}
            for i in range(5)}
    pool = build_pool(runs, "RBP(p=0.8)@6", queries=["q0", "q1", "q2"])
    rng = np.random.default_rng(7)
    first = rng.integers(0, 3, pool.n_candidates)
    steps = list(replay(pool, first, strategy, [4, 8, 12], batch=4, seed=5))
    seen = steps[1][1]
    second = np.where(seen, first, 3 - first)
    other = list(replay(pool, second, strategy, [4, 8, 12], batch=4, seed=5))
    for (b1, m1), (b2, m2) in zip(steps, other, strict=True):
        assert b1 == b2 and np.array_equal(m1, m2)
    assert int(steps[2][1].sum()) == 12


def test_choose_with_a_prior_is_deterministic_and_never_repeats():
    runs = {f"r{i}": {f"q{q}": {f"d{(2 * i + j + q) % 13}": 10.0 - j for j in range(7)} for q in range(4)}
            for i in range(6)}
    pool = build_pool(runs, "nDCG@7")
    prior = np.where(np.arange(pool.n_candidates) % 3 == 0, np.linspace(0, 1, pool.n_candidates), np.nan)
    judged = np.zeros(pool.n_candidates, dtype=bool)
    grades = np.zeros(pool.n_candidates, dtype=np.int64)
    taken = []
    while not judged.all():
        pick = choose(pool, judged, grades, "pairs", 5, prior=prior)
        again = choose(pool, judged, grades, "pairs", 5, prior=prior)
        assert np.array_equal(pick.index, again.index) and not judged[pick.index].any()
        judged[pick.index] = True
        grades[pick.index] = pick.index % 2
        taken.extend(pick.index.tolist())
    assert sorted(taken) == list(range(pool.n_candidates))


def test_simulate_with_a_prior_keeps_the_qrels_as_the_oracle():
    qrels = str(VASWANI / "qrels")
    runs = {n: str(VASWANI / f"{n}.run.gz") for n in ("bm25", "bm25_flat", "bm25l")}
    kw = dict(measures=["RBP(p=0.8)@10"], strategies=["pairs"], budgets=[60, 2000], seed=0)
    with_prior = simulate(qrels, runs, prior=qrels, **kw)
    plain = simulate(qrels, runs, **kw)
    # the whole pool judged: the same values whatever guided the choice
    last_a, last_b = with_prior.iloc[-1], plain.iloc[-1]
    assert last_a["judged"] == last_b["judged"] and last_a["tau_b"] == last_b["tau_b"] == 1.0
    pd.testing.assert_frame_equal(with_prior, simulate(qrels, runs, prior=qrels, **kw))


def test_judge_and_simulate_take_prior_files(tmp_path, capsys):
    prior = tmp_path / "prior.tsv"
    prior.write_text("q x 0\nq z 1\n")
    run_a, run_b = tmp_path / "A.run", tmp_path / "B.run"
    run_a.write_text("q Q0 x 1 2.0 A\nq Q0 y 2 1.0 A\n")
    run_b.write_text("q Q0 z 1 2.0 B\nq Q0 y 2 1.0 B\n")
    assert cli.main(["judge", "none", str(run_a), str(run_b), "--measure", M, "--budget", "2",
                     "--prior", str(prior)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[1] for line in lines[1:]] == ["z", "x"]
    prior.write_text("q x 7\n")
    assert cli.main(["judge", "none", str(run_a), str(run_b), "--measure", M, "--budget", "2",
                     "--prior", str(prior)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "prior.tsv, line 1" in err
    qrels = str(VASWANI / "qrels")
    runs = [str(VASWANI / "bm25.run.gz"), str(VASWANI / "bm25_flat.run.gz")]
    assert cli.main(["simulate-judging", qrels, *runs, "--measures", "RBP(p=0.8)@10", "--strategies", "pairs",
                     "--budgets", "40", "--prior", qrels]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_ndcg_goals_weigh_a_query_by_its_expected_ideal_by_hand():
    # nDCG@2, query a: y judged grade 3, x and z unjudged with expected gain 0.5 -> expected ideal
    # 3 + 0.5 / log2(3); query b: nothing judged -> 0.5 + 0.5 / log2(3); scale = (1 + 1 / log2(3)) / ideal
    from ir_rbstar.judging.strategies import _ideal_scale
    runs = {"A": {"a": {"x": 2.0, "y": 1.0}, "b": {"x": 2.0, "y": 1.0}},
            "B": {"a": {"z": 2.0, "y": 1.0}, "b": {"z": 2.0, "y": 1.0}}}
    pool = build_pool(runs, "nDCG@2", queries=["a", "b"])
    grades, judged = pool.lookup(to_qrels({"a": {"y": 3}}))
    scale = _ideal_scale(pool, judged, grades, np.full(pool.n_candidates, 0.5))
    full = 1 + 1 / np.log2(3)
    expect = np.where(pool.cand_query == 0, full / (3 + 0.5 / np.log2(3)), full / (0.5 + 0.5 / np.log2(3)))
    assert scale == pytest.approx(expect)
    # so the pairs goal asks first about the query whose values one judgment moves most. With B ranking z alone
    # (so the runs expect different unjudged gains: A more, in both queries), nDCG's gains are grades: A's
    # running estimate on a is (2 m + 3) / 3 = 17/9 with m = (1 + 3) / 3 = 4/3, on b it is m = 4/3; B's 1/2.
    # x on a: 17/9 x w1 x scale (1 + 1/log2(3)) / (3 + (17/9) / log2(3)), on b: 4/3 x w1 x (1 + 1/log2(3)) /
    # (4/3 + (4/3) / log2(3)), w1 = 1 / (1 + 1/log2(3)), each over the 2 queries: b's x first though a's
    # estimate is higher; then a's x (0.2253) before b's y (w2 = w1 / log2(3): 0.1934)
    asym = {"A": runs["A"], "B": {"a": {"z": 2.0}, "b": {"z": 2.0}}}
    table = select(asym, {"a": {"y": 3}}, "nDCG@2", budget=3, strategy="pairs", queries=["a", "b"])
    assert list(zip(table["query_id"], table["doc_id"], strict=True)) == [("b", "x"), ("a", "x"), ("b", "y")]
    L = np.log2(3)
    assert list(table["priority"]) == pytest.approx([4 / 3 / (4 / 3 + 4 / 3 / L) / 2, 17 / 9 / (3 + 17 / 9 / L) / 2,
                                                     4 / 3 / L / (4 / 3 + 4 / 3 / L) / 2], rel=1e-12)
