"""Twist family (Ferro et al., JASIST 2016): the paper's worked example, a from-the-definition oracle on
random inputs, the paper's bounds (Propositions 1-2), ideal orderings, input-order independence, and the
ir_measures / command-line integration (labels, no value for a recall base of 0, errors)."""
import io
import math
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar
from ir_rbstar import cli, twist as T
from ir_rbstar.errors import InputFormatError, MissingQrelsError, ParameterError
from tests.oracles import twist as O

TOL = 1e-12
SETTINGS = settings(max_examples=examples(200), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
POOL = [f"d{i}" for i in range(12)]
MEASURES = ("Twist", "Twist_rho", "Twist_sigma")
FIELD = {"Twist": "tau", "Twist_rho": "rho", "Twist_sigma": "sigma"}

# --- the paper's worked example (Ferro et al. 2016): RB = 7, N = 15, grades hr > fr > pr > nr ---
HR, FR, PR = 3, 2, 1
EXAMPLE_QRELS = {"t": {"hr1": HR, "hr2": HR, "fr1": FR, "fr2": FR, "pr1": PR, "pr2": PR, "pr3": PR,
                       **{f"nr{i}": 0 for i in range(1, 9)}}}


def ranked(docs, qid="t"):
    """A run dict ranking ``docs`` in the given order."""
    return {qid: {d: float(len(docs) - i) for i, d in enumerate(docs)}}


NONREL = [f"nr{i}" for i in range(1, 9)]
IDEAL = ["hr1", "hr2", "fr1", "fr2", "pr1", "pr2", "pr3"] + NONREL
FULL_SCALE = NONREL + ["pr1", "pr2", "pr3", "fr1", "fr2", "hr1", "hr2"]
WORST = NONREL + [f"u{i}" for i in range(7)]        # 8 judged non-relevant, 7 unjudged


def test_worked_example_full_scale_run():
    fs_rp = T.full_scale_rp(EXAMPLE_QRELS, "t", length=15)
    assert fs_rp.tolist() == [-7, -6, -5, -4, -3, -2, -1, 0, 2, 3, 4, 8, 9, 12, 13]
    fs_crp = np.cumsum(fs_rp)
    assert fs_crp.min() == fs_crp[6] == -28          # min CRP = CRP[7] = -RB (RB + 1) / 2 (Prop. 2)
    assert fs_crp[9] == -23 and fs_crp[14] == 23
    curve = T.crp_curve(EXAMPLE_QRELS, ranked(FULL_SCALE), "t")
    assert curve.rp.tolist() == fs_rp.tolist()       # the full-scale run evaluated as a run
    assert curve.rho == pytest.approx(7 / 13) and curve.sigma == 0.0
    assert curve.tau == pytest.approx(0.2692, abs=5e-5)
    assert curve.archetype == "full_scale"


def test_worked_example_worst_and_ideal_runs():
    worst = T.crp_curve(EXAMPLE_QRELS, ranked(WORST), "t")
    assert worst.crp[2] == -18                       # CRP[3] = -7 - 6 - 5
    assert (worst.rho, worst.sigma, worst.tau, worst.archetype) == (0.0, 0.0, 0.0, "worst")
    ideal = T.crp_curve(EXAMPLE_QRELS, ranked(IDEAL), "t")
    assert not ideal.crp.any() and ideal.balance_point == 7
    assert (ideal.rho, ideal.sigma, ideal.tau, ideal.archetype) == (1.0, 1.0, 1.0, "ideal")


def test_worked_example_partial_runs():
    a = T.crp_curve(EXAMPLE_QRELS, ranked(["hr1", "hr2", "fr1", "nr1", "pr1", "fr2"]), "t")
    assert a.rp.tolist() == [0, 0, 0, -4, 0, 2] and a.crp[5] == -2
    b = T.crp_curve(EXAMPLE_QRELS, ranked(["hr1", "nr1", "pr1", "nr2", "fr1", "nr3"]), "t")
    assert b.rp.tolist() == [0, -6, -2, -4, 1, -2] and b.crp[5] == -13


def test_worked_example_through_ir_measures():
    runs = {"ideal": IDEAL, "worst": WORST, "full_scale": FULL_SCALE}
    expected = {"ideal": (1.0, 1.0, 1.0), "worst": (0.0, 0.0, 0.0), "full_scale": (7 / 26, 7 / 13, 0.0)}
    for name, docs in runs.items():
        got = ir_measures.calc_aggregate(ir_rbstar.parse("Twist Twist_rho Twist_sigma"), EXAMPLE_QRELS, ranked(docs))
        assert [got[m] for m in ir_rbstar.parse("Twist Twist_rho Twist_sigma")] == pytest.approx(expected[name])


# --- random inputs against the oracle ---

@st.composite
def collections(draw, max_run=9):
    """Up to 3 queries; qrels with grades -1..3 over a pool (some run documents unjudged); runs with
    distinct scores (Twist is evaluated in trec_eval order; ties are covered by the run-order tests)."""
    qids = draw(st.lists(st.sampled_from(["q1", "2", "q3"]), min_size=1, max_size=3, unique=True))
    qrels, run = {}, {}
    for q in qids:
        judged = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=8, unique=True))
        qrels[q] = {d: draw(st.integers(-1, 3)) for d in judged}
        docs = draw(st.lists(st.sampled_from(POOL), max_size=max_run, unique=True))
        if docs:
            run[q] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    assume(run)
    return qrels, run


def run_order(run, q):
    return [d for d, _ in sorted(run.get(q, {}).items(), key=lambda x: -x[1])]


@given(collections(), st.integers(1, 3), st.one_of(st.none(), st.integers(1, 10)))
@SETTINGS
def test_table_and_measures_equal_the_oracle(data, rel, k):
    qrels, run = data
    table = T.twist_table(qrels, run, rel=rel, cutoff=k).set_index("query_id")
    suffix = "" if k is None else f"@{k}"
    measures = ir_rbstar.parse(" ".join(f"{m}(rel={rel}){suffix}" for m in MEASURES))
    got = {(x.query_id, x.measure.NAME): x.value for x in ir_measures.iter_calc(measures, qrels, run)}
    for q, judged in qrels.items():
        docs = run_order(run, q)[:k]
        want = O.twist(judged, docs, rel)
        if want is None:           # recall base 0: no value in the analysis table, 0 as a measure
            assert math.isnan(table.loc[q, "tau"]) and table.loc[q, "archetype"] == ""
            assert all(got[(q, name)] == 0.0 for name in MEASURES)
            continue
        for field in ("rho", "sigma_plus", "sigma_minus", "sigma", "tau"):
            assert table.loc[q, field] == pytest.approx(want[field], abs=TOL), field
        for name in MEASURES:
            assert got[(q, name)] == pytest.approx(want[FIELD[name]], abs=TOL)
        if docs:
            curve = T.crp_curve(qrels, run, q, rel=rel, cutoff=k)
            assert curve.rp.tolist() == want["rp"] and curve.crp.tolist() == want["crp"]
            assert curve.crossings.tolist() == want["crossings"]
            assert curve.full_scale_crp.tolist() == want["full_scale_crp"]


@given(collections(max_run=12), st.integers(1, 2))
@SETTINGS
def test_ratios_in_unit_interval_and_crp_within_full_scale_bounds(data, rel):
    qrels, run = data
    table = T.twist_table(qrels, run, rel=rel).set_index("query_id")
    for q in qrels:
        row = table.loc[q]
        if row["recall_base"] == 0:
            continue
        for field in ("rho", "sigma_plus", "sigma_minus", "sigma", "tau"):
            assert -TOL <= row[field] <= 1 + TOL, field
        if q not in run:
            continue
        curve = T.crp_curve(qrels, run, q, rel=rel)
        fs = curve.full_scale_crp
        rb = curve.recall_base
        fs_rp = T.full_scale_rp(qrels, q, rel=rel, length=curve.length)
        top_hi = sum(1 for g in qrels[q].values() if g == max(qrels[q].values()))
        assert fs_rp.min() == -rb and fs_rp.max() == len(fs_rp) - top_hi          # Prop. 1
        assert fs_rp.min() <= curve.rp.min() and curve.rp.max() <= fs_rp.max()
        assert fs.min() == fs[rb - 1] == -rb * (rb + 1) // 2                       # Prop. 2, lower bound
        assert fs.min() <= curve.crp.min()
        # Prop. 2's upper bound (max CRP of the full-scale run) does not hold in general (see
        # test_proposition_2_upper_bound_counterexample); CRP never exceeds the full-scale forward space
        assert curve.crp.max() <= fs_rp[fs_rp > 0].sum()
        assert (curve.rho == 1.0) == (curve.balance_point == rb)
        expected_rho = {"ideal": (1, 1), "excellent": (1, 1), "up_and_down": (1, 1), "typical_a": (0, 1),
                        "typical_b": (0, 0), "worst": (0, 0), "full_scale": (0, 1)}[curve.archetype]
        assert expected_rho[0] <= curve.rho <= expected_rho[1]
        if curve.archetype == "typical_a":
            assert 0 < curve.rho < 1


def test_proposition_2_upper_bound_counterexample():
    """Prop. 2 of Ferro et al. 2016 says no run's CRP exceeds max CRP of the full-scale run
    (= CRP_fs[N]). With binary grades, RB = 3 and N = 6 that maximum is 0, yet r r n n n r reaches 2:
    the lower bound holds, the upper one does not (docs/twist.md says so)."""
    qrels = {"t": {"a": 1, "b": 1, "c": 1}}
    fs = np.cumsum(T.full_scale_rp(qrels, "t", length=6))
    assert fs.tolist() == [-3, -5, -6, -5, -3, 0]
    curve = T.crp_curve(qrels, ranked(["a", "b", "x", "y", "z", "c"]), "t")
    assert curve.crp.tolist() == [0, 0, -1, -1, -1, 2] and curve.crp.max() > fs.max()


@given(st.lists(st.integers(-1, 3), min_size=1, max_size=10), st.integers(1, 3), st.randoms())
@SETTINGS
def test_ideal_ordering_of_any_judged_set_scores_one(grades, rel, rnd):
    assume(any(g >= rel for g in grades))
    docs = [f"d{i}" for i in range(len(grades))]
    qrels = {"q": dict(zip(docs, grades))}
    relevant = sorted((d for d in docs if qrels["q"][d] >= rel), key=lambda d: -qrels["q"][d])
    others = [d for d in docs if qrels["q"][d] < rel]
    rnd.shuffle(others)                              # any order of the non-relevant ones is ideal
    run = ranked(relevant + others, "q")
    table = T.twist_table(qrels, run, rel=rel)
    assert table[["rho", "sigma", "tau"]].iloc[0].tolist() == [1.0, 1.0, 1.0]
    assert table["archetype"].iloc[0] == "ideal"


@given(collections(), st.randoms())
@SETTINGS
def test_independent_of_row_order(data, rnd):
    qrels, run = data
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    qrows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    first = T.twist_table(pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"]),
                          pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    rnd.shuffle(rows)
    rnd.shuffle(qrows)
    second = T.twist_table(pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"]),
                           pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    key = lambda t: t.sort_values("query_id").reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(key(first), key(second))


def test_ties_are_broken_in_trec_eval_order():
    qrels = {"q": {"a": 1, "b": 0}}
    tied = {"q": {"a": 1.0, "b": 1.0}}               # trec_eval: doc id descending, so b before a
    assert T.crp_curve(qrels, tied, "q").doc_ids.tolist() == ["b", "a"]
    assert T.twist_table(qrels, tied)["tau"].iloc[0] == T.twist_table(qrels, ranked(["b", "a"], "q"))["tau"].iloc[0]


# --- archetypes (Ferro et al. 2016, Figs. 3-4) ---

def archetype(qrels, docs):
    return T.crp_curve({"t": qrels}, ranked(docs), "t").archetype


def test_archetypes():
    q = EXAMPLE_QRELS["t"]
    assert archetype(q, IDEAL) == "ideal"
    assert archetype(q, WORST) == "worst"
    assert archetype(q, FULL_SCALE) == "full_scale"
    # a permutation of the ideal run up to RB (Fig. 3D): below zero, back up before RB, stays >= 0
    assert archetype(q, ["fr1", "fr2", "hr1", "hr2", "pr1", "pr2", "pr3"] + NONREL) == "excellent"
    # a first-ranked fr below zero that never comes back up stays typical B
    assert archetype(q, ["fr1", "hr1", "hr2", "fr2", "pr1", "pr2", "pr3"] + NONREL) == "typical_b"
    # crossing first at RB or before, then down again and below zero at RB (Fig. 3F)
    assert archetype(q, ["hr1", "nr1", "hr2", "fr1", "fr2", "pr1", "nr2", "pr2", "pr3"]) == "up_and_down"
    # crosses after RB (Fig. 3G)
    assert archetype(q, ["nr1", "nr2", "nr3", "pr1", "pr2", "pr3", "fr1", "fr2", "hr1", "hr2"]) == "typical_a"
    assert T.crp_curve(EXAMPLE_QRELS, ranked(["nr1", "nr2", "nr3", "pr1", "pr2", "pr3", "fr1", "fr2", "hr1", "hr2"]),
                       "t").crossings.tolist() == [9]
    # never crosses although relevant documents come (Fig. 3H)
    assert archetype(q, ["nr1", "pr1", "nr2", "nr3", "pr2", "nr4"]) == "typical_b"
    values = T.twist_table({"t": q}, ranked(["nr1", "pr1", "nr2", "nr3", "pr2", "nr4"]))
    assert values["rho"].iloc[0] == 0.0 and values["first_crossing"].iloc[0] == 0


def test_binary_run_starting_with_a_relevant_document_touches_zero_at_one():
    """ir_rbstar's crossing rule counts zero as both sides: rel, non-rel, ... crosses at position 1."""
    curve = T.crp_curve({"t": {"a": 1, "b": 1}}, ranked(["a", "x", "y", "b"]), "t")
    assert curve.crp.tolist() == [0, -1, -1, 1] and curve.crossings.tolist() == [1, 3]
    assert curve.balance_point == 2 and curve.rho == 1.0 and curve.archetype == "up_and_down"


# --- edge cases and integration ---

def test_recall_base_zero_scores_zero_and_empty_result_gets_zero():
    """Every query of the qrels has a value (0 without a relevant document), so Twist's mean is the
    same alone and next to ir_measures' measures (it was 0.5 alone and 1/3 with nDCG@10)."""
    qrels = {"none": {"a": 0}, "empty": {"b": 1}, "ok": {"c": 1}}
    run = {"none": {"a": 1.0}, "ok": {"c": 1.0}}
    got = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc([ir_rbstar.Twist], qrels, run)}
    assert got == {("none", "Twist"): 0.0, ("empty", "Twist"): 0.0, ("ok", "Twist"): 1.0}
    alone = ir_measures.calc_aggregate([ir_rbstar.Twist], qrels, run)[ir_rbstar.Twist]
    mixed = ir_measures.calc_aggregate([ir_rbstar.Twist, ir_measures.nDCG @ 10, ir_measures.AP], qrels, run)
    assert alone == mixed[ir_rbstar.Twist] == pytest.approx(1 / 3)
    table = T.twist_table(qrels, run).set_index("query_id")
    assert table.loc["empty", "archetype"] == "worst" and table.loc["empty", "length"] == 0


def test_single_document_ideal_run():
    assert T.crp_curve({"q": {"a": 1}}, {"q": {"a": 1.0}}, "q").tau == 1.0
    single_wrong = T.crp_curve({"q": {"a": 2, "b": 1}}, {"q": {"b": 1.0}}, "q")
    assert single_wrong.crossings.tolist() == [] and single_wrong.rho == 0.0


def test_cutoff_equals_truncated_run():
    qrels = EXAMPLE_QRELS
    docs = ["nr1", "pr1", "hr1", "nr2", "fr1", "hr2", "pr2", "fr2", "nr3", "pr3"]
    for k in (1, 3, 6, 10, 20):
        cut = ir_measures.calc_aggregate(ir_rbstar.parse(f"Twist@{k}"), qrels, ranked(docs))
        whole = ir_measures.calc_aggregate(ir_rbstar.parse("Twist"), qrels, ranked(docs[:k]))
        assert list(cut.values()) == pytest.approx(list(whole.values()), abs=TOL)


def test_labels_and_parameters():
    assert [str(m) for m in ir_rbstar.parse("Twist Twist@100 Twist_rho(rel=2)@10 Twist_sigma")] == \
        ["Twist", "Twist@100", "Twist_rho(rel=2)@10", "Twist_sigma"]
    for text in ("Twist(rel=2)@10", "Twist_sigma@5"):
        m = ir_measures.parse_measure(text)
        assert ir_measures.parse_measure(str(m)) == m
    with pytest.raises(ParameterError, match="cutoff"):
        ir_rbstar.parse("Twist@0")
    with pytest.raises(ParameterError, match="p"):
        ir_rbstar.parse("Twist(p=0.5)")
    with pytest.raises(MissingQrelsError):
        ir_rbstar.PROVIDER.evaluator([ir_rbstar.Twist], None).calc_aggregate({"q": {"a": 1.0}})
    with pytest.raises(ParameterError, match="no judgments"):
        T.crp_curve({"q": {"a": 1}}, {"q": {"a": 1.0}}, "other")
    with pytest.raises(ParameterError, match="cutoff"):
        T.twist_table({"q": {"a": 1}}, {"q": {"a": 1.0}}, cutoff=0)


def test_a_grade_scale_too_wide_for_the_bands_is_refused_by_name():
    # Twist's (query, grade) keys are int64: grades up to 2^62 with two queries would wrap around (a bare
    # numpy error before); a large but indexable scale still evaluates, equal to the same ranks of grades 1-3
    run = {"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"d3": 1.0}}
    with pytest.raises(InputFormatError, match=r"Twist: relevant grades from 1 to 4611686018427387904"):
        ir_measures.calc_aggregate(ir_rbstar.parse("Twist"), {"q1": {"d1": 2 ** 62, "d2": 1}, "q2": {"d3": 3}}, run)
    wide = ir_measures.calc_aggregate(ir_rbstar.parse("Twist"), {"q1": {"d1": 2 ** 40, "d2": 1}, "q2": {"d3": 3}}, run)
    small = ir_measures.calc_aggregate(ir_rbstar.parse("Twist"), {"q1": {"d1": 3, "d2": 1}, "q2": {"d3": 3}}, run)
    assert list(wide.values()) == list(small.values())


def test_command_line(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"t 0 {d} {g}\n" for d, g in EXAMPLE_QRELS["t"].items()))
    run = tmp_path / "run"
    run.write_text("".join(f"t Q0 {d} {i + 1} {15 - i} x\n" for i, d in enumerate(FULL_SCALE)))
    out = io.StringIO()
    assert cli.run_measures([str(qrels), str(run), "Twist", "Twist_rho", "Twist_sigma@15"], out=out) == 0
    assert out.getvalue().split("\n")[:3] == ["Twist\t0.2692", "Twist_rho\t0.5385", "Twist_sigma@15\t0.0000"]


def test_large_random_run_matches_oracle():
    """A deeper case than hypothesis draws: 3 queries x 300 documents, 4 grades, unjudged documents."""
    rnd = random.Random(7)
    qrels, run = {}, {}
    for q in ("a", "b", "c"):
        docs = [f"{q}{i}" for i in range(400)]
        qrels[q] = {d: rnd.choice([0, 0, 0, 1, 2, 3]) for d in rnd.sample(docs, 150)}
        ranking = rnd.sample(docs, 300)
        run[q] = {d: float(300 - i) for i, d in enumerate(ranking)}
    table = T.twist_table(qrels, run).set_index("query_id")
    for q in qrels:
        want = O.twist(qrels[q], run_order(run, q))
        assert table.loc[q, "tau"] == pytest.approx(want["tau"], abs=TOL)
        assert table.loc[q, "sigma"] == pytest.approx(want["sigma"], abs=TOL)
