"""One definition of the run order and of a tie: trec_eval's. trec_eval (and pytrec_eval) keep scores as
single-precision floats, so scores equal in float32 are tied and ordered by document id, descending.
The tie-oblivious measures this package computes then equal pytrec_eval's on every input, and the
``_TA`` measures treat float32-equal scores as tied."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from tests.conftest import examples

import ir_measures
import ir_rbstar
from ir_rbstar.provider import PROVIDER

from tests.oracles import ties as O

TOL = 1e-9
SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
DOCS = [f"d{i}" for i in range(8)]
# scores that differ in float64 but not always in float32 (1 + 1e-8 rounds to 1.0f)
NEAR = [1.0, 1.0 + 1e-8, 1.0 + 3e-8, 1.0 + 2e-7, 0.5, 0.5 + 1e-9, 2.0, 2.0 - 1e-9]


def per_query(evaluator_or_provider, measures, qrels, run):
    return {(m.query_id, str(m.measure)): m.value for m in evaluator_or_provider.iter_calc(measures, qrels, run)}


def test_the_reported_case_equals_pytrec_eval():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.00000001, "b": 1.0}}              # equal in float32: b (larger id) first
    ms = [ir_measures.P @ 1, ir_measures.RR, ir_measures.AP, ir_measures.nDCG]
    ours = PROVIDER.calc_aggregate(ms, qrels, run)
    theirs = ir_measures.pytrec_eval.calc_aggregate(ms, qrels, run)
    assert [ours[m] for m in ms] == pytest.approx([0.0, 0.5, 0.5, 0.6309297535714575], abs=1e-12)
    assert [ours[m] for m in ms] == pytest.approx([theirs[m] for m in ms], abs=1e-12)
    # tie-aware: a and b are tied
    ta = ir_rbstar.parse("P_TA@1 RR_TA")
    agg = ir_measures.calc_aggregate(ta, qrels, run)
    assert [agg[m] for m in ta] == pytest.approx([0.5, 0.75])


@st.composite
def near_collections(draw):
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3, unique=True)):
        judged = draw(st.lists(st.sampled_from(DOCS), max_size=6, unique=True))
        qrels[q] = {d: draw(st.integers(0, 3)) for d in judged}
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        run[q] = {d: draw(st.sampled_from(NEAR)) * draw(st.sampled_from([1.0, 1.0, 3.0, 1e30])) for d in docs}
    qrels = {q: v for q, v in qrels.items() if v}
    if not qrels:
        qrels = {next(iter(run)): {DOCS[0]: 1}}
    return qrels, run


@SETTINGS
@given(near_collections(), st.integers(1, 6), st.integers(1, 2))
def test_tie_oblivious_measures_equal_pytrec_eval_with_float32_only_ties(data, k, rel):
    qrels, run = data
    ms = [ir_measures.P(rel=rel) @ k, ir_measures.R(rel=rel) @ k, ir_measures.RR(rel=rel), ir_measures.AP(rel=rel),
          ir_measures.AP(rel=rel) @ k, ir_measures.nDCG, ir_measures.nDCG @ k]
    ours = per_query(PROVIDER, ms, qrels, run)
    theirs = per_query(ir_measures.pytrec_eval, ms, qrels, run)
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=TOL), (key, qrels, run)


@SETTINGS
@given(near_collections(), st.integers(1, 6), st.sampled_from(["P", "R", "AP", "RR", "nDCG", "RBP"]))
def test_tie_aware_measures_tie_scores_equal_in_float32(data, k, name):
    """The brute-force average over every order of the float32 tie groups."""
    qrels, run = data
    params = {"rel": 1} if name in ("P", "R", "AP", "RR", "RBP") else {}
    text = f"{name}_TA({','.join(f'{a}={b}' for a, b in params.items())})@{k}" if params else f"{name}_TA@{k}"
    m = ir_rbstar.parse_measure(text)
    got = per_query(ir_measures, [m], qrels, run)
    for q in qrels:
        as_trec_eval = {d: float(np.float32(s)) for d, s in run.get(q, {}).items()}
        want = O.tie_average(name, as_trec_eval, qrels[q], k=k, **params)
        assert got[(q, str(m))] == pytest.approx(want, abs=TOL), (q, qrels, run)


def test_scores_beyond_float32_range_tie_as_trec_eval_does():
    """1e39 and 2e39 are both +inf as C floats: tied, ordered by document id (b before a)."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 2e39, "b": 1e39}}
    ours = PROVIDER.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR]
    assert ours == ir_measures.pytrec_eval.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == 0.5
