"""The evaluator's calc_aggregate (no Metric object per query) gives ir_measures' own aggregate to the last
bit: the same running sum from 0.0, the same defaults for the qrels' queries a run lacks, and ir_measures'
path for a measure given twice."""
import ir_measures
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from ir_measures.providers.base import Evaluator

import ir_rbstar
from ir_rbstar.provider import PROVIDER
from tests.conftest import examples

MEASURES = ir_rbstar.parse("RBP(p=0.8,max_rel=3) P_TA@3 AP_TA nDCG_TA@5 Twist RBR(p=0.5)@4")


@st.composite
def collections(draw):
    docs = [f"d{i}" for i in range(7)]
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), min_size=1, max_size=4, unique=True)):
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=5, unique=True))
        qrels[q] = {d: draw(st.integers(0, 3)) for d in judged}
        if draw(st.booleans()):                        # some queries of the qrels have no rows
            ranked = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=7, unique=True))
            run[q] = {d: draw(st.sampled_from([0.1, 0.2, 0.3, 1 / 3, 0.7])) for d in ranked}
    if draw(st.booleans()):
        run["other"] = {"d1": 1.0}                     # a query without judgments
    return qrels, run


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_aggregate_equals_ir_measures_aggregation(data):
    qrels, run = data
    evaluator = PROVIDER.evaluator(MEASURES, qrels)
    ours = evaluator.calc_aggregate(run)
    theirs = Evaluator.calc_aggregate(evaluator, run)          # ir_measures' loop over Metric objects
    assert {str(m): repr(v) for m, v in ours.items()} == {str(m): repr(v) for m, v in theirs.items()}
    assert ours == ir_measures.calc_aggregate(MEASURES, qrels, run)


def test_a_measure_given_twice_takes_ir_measures_path():
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5, "b": 0.7}}
    twice = MEASURES[:1] * 2
    evaluator = PROVIDER.evaluator(twice, qrels)
    assert evaluator.calc_aggregate(run) == Evaluator.calc_aggregate(evaluator, run)


def test_many_queries_sum_in_ir_measures_order():
    # enough queries for numpy's pairwise summation (np.mean, np.sum) to differ from a running sum
    import random
    rnd = random.Random(7)
    qrels = {f"q{i}": {f"d{j}": rnd.randint(0, 3) for j in range(6)} for i in range(300)}
    run = {q: {f"d{j}": rnd.random() for j in range(8)} for q in qrels}
    evaluator = PROVIDER.evaluator(MEASURES, qrels)
    ours = evaluator.calc_aggregate(run)
    theirs = Evaluator.calc_aggregate(evaluator, run)
    assert [repr(ours[m]) for m in MEASURES] == [repr(theirs[m]) for m in MEASURES]


def _fixed_values(monkeypatch, values):
    """Every family of the evaluator returns ``values`` (one per qrels query) for each of its measures."""
    import numpy as np
    from ir_rbstar import provider

    def compute(ms, ctx):
        return {m: np.array(values, dtype=np.float64) for m in ms}
    monkeypatch.setattr(provider, "_compute", lambda family: compute)


@pytest.mark.filterwarnings("ignore:overflow encountered", "ignore:invalid value encountered")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from([0.0, -0.0, float("inf"), -float("inf"), 1e308, -1e308, 5e-324]),
                          st.floats(allow_nan=False)), min_size=1, max_size=6))
@example([-0.0]).via("every value a negative zero: MeanAgg's sum from 0.0 is 0.0")
@example([-0.0, -0.0, 0.0, -0.0])
@example([float("inf"), -float("inf")])
def test_running_sum_is_ir_measures_for_any_doubles(values):
    # the sum without the prepended 0.0 (and + 0.0 at the end) is MeanAgg's to the bit: signed zeros,
    # infinities whose sum is NaN (no value is: no error), overflow
    qrels = {f"q{i}": {"d": 1} for i in range(len(values))}
    with pytest.MonkeyPatch.context() as mp:
        _fixed_values(mp, values)
        evaluator = PROVIDER.evaluator(MEASURES[:2], qrels)
        ours = evaluator.calc_aggregate({"q0": {"d": 1.0}})
        theirs = Evaluator.calc_aggregate(evaluator, {"q0": {"d": 1.0}})
    assert [repr(ours[m]) for m in MEASURES[:2]] == [repr(theirs[m]) for m in MEASURES[:2]]


def test_a_missing_value_is_an_internal_error_at_every_door(monkeypatch):
    from ir_rbstar.errors import RbstarError
    _fixed_values(monkeypatch, [0.5, float("nan"), 0.25])
    evaluator = PROVIDER.evaluator(MEASURES[:1], {"q0": {"d": 1}, "q1": {"d": 1}, "q2": {"d": 0}})
    for door in (evaluator.calc_aggregate, evaluator.values, lambda r: list(evaluator.iter_calc(r))):
        with pytest.raises(RbstarError, match="no value for query 'q1'"):
            door({"q0": {"d": 1.0}})
