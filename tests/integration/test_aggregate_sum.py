"""The evaluator's calc_aggregate (no Metric object per query) gives ir_measures' own aggregate to the last
bit: the same running sum from 0.0, the same defaults for the qrels' queries a run lacks, and ir_measures'
path for a measure given twice."""
import ir_measures
from hypothesis import HealthCheck, given, settings, strategies as st
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
