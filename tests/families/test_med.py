"""MED family (Tan & Clarke, IEEE TKDE 2015): brute force over relevance assignments on random small
inputs (every measure, with judged, unjudged and graded documents), larger brute force for MED_AP and
MED_ERR, eqs. 11 and 13, the metric axioms, monotonicity in the judgments, complete judgments against
ir_measures' own measures (pytrec_eval P/AP/nDCG, gdeval ERR), labels and errors. The search budget
and the grade scale (max_rel) have their own file, test_med_budget.py."""
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar
from ir_rbstar.errors import GradeScaleError, MissingQrelsError, ParameterError, ReferenceNotFoundError
from tests.oracles import med as O

TOL = 1e-9
SETTINGS = settings(max_examples=examples(120), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
POOL = [f"d{i}" for i in range(9)]


def ranked(docs, qid="t"):
    return {qid: {d: float(len(docs) - i) for i, d in enumerate(docs)}}


def med(measure, qrels, a, b, qid="t"):
    """The MED value of run ``a`` against ``b`` (lists of doc ids) for one query."""
    ir_rbstar.register_run("med_b", ranked(b, qid) if b else {"other": {"x": 1.0}})
    try:
        m = measure(ref="med_b")
        return ir_measures.calc_aggregate([m], qrels, ranked(a, qid) if a else {"other": {"y": 1.0}})[m]
    finally:
        ir_rbstar.unregister_run("med_b")


def meds(measures, qrels, a, b, qid="t"):
    """med() of several measures, evaluated in one call (the same values as one by one:
    test_measures_evaluated_together_equal_each_alone)."""
    ir_rbstar.register_run("med_b", ranked(b, qid) if b else {"other": {"x": 1.0}})
    try:
        ms = [m(ref="med_b") for m in measures]
        values = ir_measures.calc_aggregate(ms, qrels, ranked(a, qid) if a else {"other": {"y": 1.0}})
        return [values[m] for m in ms]
    finally:
        ir_rbstar.unregister_run("med_b")


def gain(G):
    return lambda g: (2 ** max(g, 0) - 1) / 2 ** G


lists = st.lists(st.sampled_from(POOL), unique=True, max_size=7)


@st.composite
def cases(draw):
    k = draw(st.integers(1, 5))
    a, b = draw(lists), draw(lists)
    G = draw(st.integers(1, 2))
    judged = draw(st.dictionaries(st.sampled_from(POOL), st.integers(-1, G), max_size=4))
    rel = draw(st.integers(1, G))
    return k, a, b, G, judged, rel


def qrels_of(judged, G, qid="t"):
    """Grades up to G (the graded measures take max_rel=G); "~in" keeps the query in the query set."""
    q = {qid: dict(judged)}
    q[qid]["~in"] = 0
    return q


# --- brute force on random small inputs ---

def brute_force_checks(k, G, judged, rel):
    """(measure, plain score, the same score of every row of a matrix, values a document can take, the
    known values) of every MED measure on one case."""
    binary = {d: float(g >= rel) for d, g in judged.items()}
    graded = {d: gain(G)(g) for d, g in judged.items()}
    grades = [gain(G)(j) for j in range(G + 1)]
    top = grades[-1]
    return [
        (ir_rbstar.MED_P(rel=rel) @ k, lambda v: O.precision(v, k), lambda v: O.precision_rows(v, k), [0, 1], binary),
        (ir_rbstar.MED_RBP(p=0.7, rel=rel) @ k, lambda v: O.rbp(v, 0.7, k), lambda v: O.rbp_rows(v, 0.7, k), [0, 1],
         binary),
        (ir_rbstar.MED_nDCG(max_rel=G) @ k, lambda v: O.ndcg(v, k, top), lambda v: O.ndcg_rows(v, k, top), grades,
         graded),
        (ir_rbstar.MED_AP(rel=rel) @ k, lambda v: O.ap(v, k), lambda v: O.ap_rows(v, k), [0, 1], binary),
        (ir_rbstar.MED_ERR(max_rel=G) @ k, lambda v: O.err(v, k), lambda v: O.err_rows(v, k), grades, graded),
    ]


@SETTINGS
@given(cases())
def test_every_measure_equals_brute_force(case):
    """Every assignment of every unknown document (up to 10, each 0 or 1, or each of the G + 1 grades),
    enumerated by tests/oracles/med.py's med_matrix (checked against its plain loop below)."""
    k, a, b, G, judged, rel = case
    checks = brute_force_checks(k, G, judged, rel)
    got = meds([measure for measure, *_ in checks], qrels_of(judged, G), a, b)
    for value, (measure, _, score_rows, choices, known) in zip(got, checks, strict=True):
        want = O.med_matrix(a, b, k, score_rows, choices, known)
        assert value == pytest.approx(want, abs=TOL), str(measure)


@SETTINGS
@given(cases())
def test_matrix_oracle_is_the_plain_enumeration(case):
    """tests/oracles/med.py's med_matrix (every assignment a row of a matrix) against its plain loop
    (med), every measure, on the cases of the test above with the lists cut to 3 documents."""
    k, a, b, G, judged, rel = case
    k, a, b = min(k, 3), a[:3], b[:3]
    for _, score, score_rows, choices, known in brute_force_checks(k, G, judged, rel):
        assert O.med_matrix(a, b, k, score_rows, choices, known) == pytest.approx(
            O.med(a, b, k, score, choices, known), abs=1e-12)


@SETTINGS
@given(lists, lists, st.sampled_from([0.5, 0.8, 0.9]))
def test_med_rbp_without_cutoff_is_the_limit_of_deeper_cutoffs(a, b, p):
    # RBP to infinity: brute force at depth D (lists padded with unseen documents), within p^D
    D = 12 + 8 * (p > 0.6) + 20 * (p > 0.85)
    got = med(ir_rbstar.MED_RBP(p=p), None, a, b)
    deep = O.med(a, b, D, lambda v: O.rbp(v, p, D), [0, 1], {}, unknown_limit=True)
    assert abs(got - deep) <= p ** D + TOL


# --- larger exact searches: up to 16 shared unjudged documents ---
# One case of 16 shared documents: 2^16 assignments per direction, a search of many nodes' depth, beyond
# the paper's approximations (ERR: at most 5 relevant bound documents); the others of 13 or 14. The
# oracle scores every assignment as a row of a matrix (tests/oracles/med.py's med_matrix: the same
# enumeration as med(..., unknown_limit=True), which it is checked against on smaller inputs below).

def sixteen_case(seed):
    rng = random.Random(seed)
    pool = [f"d{i}" for i in range(24)]
    shared = rng.sample(pool, {0: 16, 1: 14, 2: 14}.get(seed, 13))
    a = shared + rng.sample([d for d in pool if d not in shared], 2)
    b = list(shared)
    rng.shuffle(a)
    rng.shuffle(b)
    judged = {d: rng.randint(0, 2) for d in rng.sample([d for d in pool if d not in shared], 3)}
    return a, b, judged, max(len(a), len(b))


@pytest.mark.parametrize("seed", range(6))
def test_med_ap_and_err_equal_brute_force_with_16_shared_documents(seed):
    a, b, judged, k = sixteen_case(seed)
    qrels = qrels_of(judged, 2)
    got_ap = med(ir_rbstar.MED_AP @ k, qrels, a, b)
    want_ap = O.med_matrix(a, b, k, lambda v: O.ap_rows(v, k), [0, 1], {d: float(g >= 1) for d, g in judged.items()},
                           unknown_limit=True)
    assert got_ap == pytest.approx(want_ap, abs=TOL)
    grades = [gain(2)(j) for j in range(3)]
    got_err = med(ir_rbstar.MED_ERR(max_rel=2) @ k, qrels, a, b)
    # ERR is affine in each value, so shared documents only need the extreme values
    want_err = O.med_matrix(a, b, k, lambda v: O.err_rows(v, k), [grades[0], grades[-1]],
                            {d: gain(2)(g) for d, g in judged.items()}, unknown_limit=True)
    assert got_err == pytest.approx(want_err, abs=TOL)


@pytest.mark.parametrize("seed", range(3))
def test_matrix_oracle_is_the_plain_enumeration_of_shared_documents(seed):
    """tests/oracles/med.py's med_matrix against its plain loop with ``unknown_limit``, on the 16-shared
    cases cut to 9 documents in the first list, at most 7 of them shared."""
    a, b, judged, _ = sixteen_case(seed)
    a = a[:9]
    b = [d for d in b if d in set(a)][:7]
    k = max(len(a), len(b))
    grades = [gain(2)(j) for j in range(3)]
    for known, choices, plain, rows in (
            ({d: float(g >= 1) for d, g in judged.items()}, [0, 1], O.ap, O.ap_rows),
            ({d: gain(2)(g) for d, g in judged.items()}, [grades[0], grades[-1]], O.err, O.err_rows)):
        for x, y in ((a, b), (b, a)):
            want = O.med(x, y, k, lambda v, f=plain: f(v, k), choices, known, unknown_limit=True)
            got = O.med_matrix(x, y, k, lambda v, f=rows: f(v, k), choices, known, unknown_limit=True)
            assert got == pytest.approx(want, abs=1e-12)


def test_core_ap_search_matches_enumeration_of_the_quadratic_form():
    # any symmetric Q and any order of the chain bound (it is valid for every Q, exact only for AP's)
    from ir_rbstar.core import med as K
    import itertools
    rng = np.random.default_rng(3)
    for _ in range(40):
        m = int(rng.integers(1, 11))
        c, l = float(rng.normal()), rng.normal(size=m)
        Q = rng.normal(size=(m, m))
        Q = np.triu(Q, 1) + np.triu(Q, 1).T
        best = max(c + l @ z + 0.5 * z @ Q @ z for z in map(np.array, itertools.product([0.0, 1.0], repeat=m)))
        for order in (None, rng.permutation(m)):
            value, nodes, exact = K.max_qubo(c, l, Q, order)
            assert exact and value == pytest.approx(best, abs=1e-12)


# --- eqs. 11 and 13: judgment-free closed forms ---

@SETTINGS
@given(lists, lists, st.integers(1, 8))
def test_med_p_is_one_minus_overlap(a, b, k):
    assert med(ir_rbstar.MED_P @ k, None, a, b) == pytest.approx(1 - len(set(a[:k]) & set(b[:k])) / k, abs=TOL)


@SETTINGS
@given(lists, lists, st.sampled_from([0.5, 0.9, 0.95]))
def test_med_rbp_is_equation_13(a, b, p):
    def direction(x, y):
        # eq. 13 with the dot-product assignment: a document of x only, or higher in x than in y, is
        # relevant; everything else not; plus the unseen tail p^K of x
        total = 0.0
        for i, d in enumerate(x, 1):
            j = y.index(d) + 1 if d in y else None
            if j is None or i < j:
                total += p ** (i - 1) - (p ** (j - 1) if j else 0.0)
        return (1 - p) * total + p ** len(x)
    assert med(ir_rbstar.MED_RBP(p=p), None, a, b) == pytest.approx(max(direction(a, b), direction(b, a)), abs=TOL)


def test_identical_lists_of_depth_k_have_rbp_distance_p_to_the_k():
    docs = [f"d{i}" for i in range(6)]
    assert med(ir_rbstar.MED_RBP(p=0.9), None, docs, docs) == pytest.approx(0.9 ** 6, abs=1e-12)
    assert med(ir_rbstar.MED_RBP(p=0.9) @ 6, None, docs, docs) == pytest.approx(0.0, abs=1e-12)


# --- metric axioms ---

MEASURES = [ir_rbstar.MED_P @ 4, ir_rbstar.MED_RBP(p=0.8), ir_rbstar.MED_RBP(p=0.8) @ 4,
            ir_rbstar.MED_nDCG(max_rel=2) @ 4, ir_rbstar.MED_AP @ 4, ir_rbstar.MED_ERR(max_rel=2) @ 4]


@SETTINGS
@given(lists, lists, lists, st.dictionaries(st.sampled_from(POOL), st.integers(0, 2), max_size=4))
def test_metric_axioms(a, b, c, judged):
    qrels = qrels_of(judged, 2) if judged else None
    got = {(x, y): meds(MEASURES, qrels, *lists) for x, y, lists in
           (("a", "b", (a, b)), ("b", "a", (b, a)), ("a", "c", (a, c)), ("c", "b", (c, b)))}
    for i, m in enumerate(MEASURES):
        ab, ba = got["a", "b"][i], got["b", "a"][i]
        assert ab >= 0.0
        assert ab == pytest.approx(ba, abs=TOL), str(m)
        assert ab <= got["a", "c"][i] + got["c", "b"][i] + TOL, str(m)


@SETTINGS
@given(st.lists(st.sampled_from(POOL), unique=True, min_size=4, max_size=8),
       st.dictionaries(st.sampled_from(POOL), st.integers(0, 2), max_size=4))
def test_identity_for_lists_of_depth_k(a, judged):
    qrels = qrels_of(judged, 2) if judged else None
    for m, value in zip(MEASURES, meds(MEASURES, qrels, a, a), strict=True):
        if m.NAME == "MED_RBP" and m.params.get("cutoff") is None:
            assert value == pytest.approx(0.8 ** len(a), abs=TOL)
        else:
            assert value == pytest.approx(0.0, abs=TOL), str(m)


@SETTINGS
@given(lists, lists, st.dictionaries(st.sampled_from(POOL), st.integers(0, 2), max_size=6), st.data())
def test_judgments_never_increase_med(a, b, more, data):
    fewer = {d: g for d, g in more.items() if data.draw(st.booleans())}
    with_more, with_fewer = meds(MEASURES, qrels_of(more, 2), a, b), meds(MEASURES, qrels_of(fewer, 2), a, b)
    for m, x, y in zip(MEASURES, with_more, with_fewer, strict=True):
        assert x <= y + TOL, str(m)
    # and no judgments at all is the judgment-free distance, also with judgments=False
    free = meds(MEASURES, None, a, b)
    unused = meds([m(judgments=False) for m in MEASURES], qrels_of(more, 2), a, b)
    empty = meds(MEASURES, qrels_of({}, 2), a, b)
    for m, x, y, z in zip(MEASURES, free, unused, empty, strict=True):
        assert y == pytest.approx(x, abs=TOL), str(m)
        assert z == pytest.approx(x, abs=TOL), str(m)


# --- complete judgments: MED = |S(A) - S(B)| with ir_measures' measures ---

def complete_case(seed, k):
    rng = random.Random(seed)
    pool = [f"d{i:02d}" for i in range(3 * k)]
    a, b = rng.sample(pool, k + 2), rng.sample(pool, k + 2)
    grades = {d: rng.choice([0, 0, 1, 2, 3, 4]) for d in pool}
    qrels = {"1": grades}                # gdeval reads numeric topic ids only
    return a, b, qrels, grades


def single(measure, qrels, docs):
    return ir_measures.calc_aggregate([measure], qrels, ranked(docs, "1"))[measure]


def med1(measure, qrels, a, b):
    return med(measure, qrels, a, b, qid="1")


@pytest.mark.parametrize("seed", range(8))
def test_complete_judgments_give_the_actual_difference(seed):
    k = 6
    a, b, qrels, grades = complete_case(seed, k)
    for rel in (1, 3):
        p_diff = abs(single(ir_measures.P(rel=rel) @ k, qrels, a) - single(ir_measures.P(rel=rel) @ k, qrels, b))
        assert med1(ir_rbstar.MED_P(rel=rel) @ k, qrels, a, b) == pytest.approx(p_diff, abs=TOL)
        # ir_measures' AP@k divides by R, the number of relevant documents; MED's AP divides by k
        R = sum(g >= rel for g in grades.values())
        ap_diff = abs(single(ir_measures.AP(rel=rel) @ k, qrels, a) - single(ir_measures.AP(rel=rel) @ k, qrels, b))
        assert med1(ir_rbstar.MED_AP(rel=rel) @ k, qrels, a, b) == pytest.approx(ap_diff * R / k, abs=TOL)
        rbp = ir_measures.RBP(p=0.8, rel=rel) @ k
        rbp_diff = abs(single(rbp, qrels, a) - single(rbp, qrels, b))
        assert med1(ir_rbstar.MED_RBP(p=0.8, rel=rel) @ k, qrels, a, b) == pytest.approx(rbp_diff, abs=TOL)
    # nDCG with MED's gains (2^g - 1) / 2^G (pytrec_eval with custom gains), rescaled from the ideal DCG
    # of the qrels to MED's normaliser (eq. 17: k documents of the top grade)
    # (pytrec_eval takes integer gains; nDCG does not change when every gain is scaled by 2^G)
    G = 4
    gains = {g: (2 ** g - 1) / 2 ** G for g in range(G + 1)}
    ndcg = ir_measures.nDCG(gains={g: 2 ** g - 1 for g in range(G + 1)}) @ k
    ideal = sorted((gains[g] for g in grades.values()), reverse=True)[:k]
    idcg = sum(v / math.log2(i + 2) for i, v in enumerate(ideal))
    norm = sum(gains[G] / math.log2(i + 2) for i in range(k))
    ndcg_diff = abs(single(ndcg, qrels, a) - single(ndcg, qrels, b)) * idcg / norm
    assert med1(ir_rbstar.MED_nDCG(max_rel=G) @ k, qrels, a, b) == pytest.approx(ndcg_diff, abs=1e-6)
    # ERR: gdeval's ERR@k uses gains (2^g - 1) / 2^4, i.e. max_rel = 4
    err = ir_measures.ERR @ k
    err_diff = abs(single(err, qrels, a) - single(err, qrels, b))
    assert med1(ir_rbstar.MED_ERR(max_rel=4) @ k, qrels, a, b) == pytest.approx(err_diff, abs=1e-5)


def test_complete_judgments_rbp_to_infinity_keeps_the_unseen_tail():
    a, b, qrels, _ = complete_case(11, 6)
    rbp = ir_measures.RBP(p=0.8, rel=1)
    diff = abs(single(rbp @ 1000, qrels, a) - single(rbp @ 1000, qrels, b))
    assert med1(ir_rbstar.MED_RBP(p=0.8), qrels, a, b) == pytest.approx(diff + 0.8 ** len(a), abs=TOL)


# --- the evaluation paths agree; query sets ---

def test_query_set_and_missing_queries():
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    ir_rbstar.register_run("med_ref", {"q1": {"b": 2.0, "a": 1.0}, "q3": {"z": 1.0}})
    try:
        m = ir_rbstar.MED_P(ref="med_ref") @ 2
        # no qrels: the run's queries; q2 has no reference ranking, so everything can differ
        per_query = {r.query_id: r.value for r in ir_measures.iter_calc([m], None, run)}
        assert per_query == {"q1": pytest.approx(0.0), "q2": pytest.approx(1.0)}
        # with qrels: the qrels' queries (q3 is missing from the run: an empty run against z)
        qrels = {"q1": {"a": 1}, "q3": {"z": 0}}
        per_query = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}
        assert per_query == {"q1": pytest.approx(0.0), "q3": pytest.approx(1.0)}
        evaluator = ir_measures.evaluator([m], qrels)
        assert evaluator.calc_aggregate(run)[m] == pytest.approx(0.5)
        assert evaluator.calc_aggregate({"q1": {"a": 1.0}})[m] == pytest.approx(0.75)
    finally:
        ir_rbstar.unregister_run("med_ref")


def test_values_do_not_depend_on_row_order_or_input_form():
    import pandas as pd
    rng = random.Random(5)
    rows = [(f"q{q}", f"d{d}", rng.random()) for q in range(5) for d in rng.sample(range(30), 12)]
    ref = {f"q{q}": {f"d{d}": rng.random() for d in rng.sample(range(30), 12)} for q in range(5)}
    ir_rbstar.register_run("med_ref", ref)
    try:
        ms = [m(ref="med_ref") for m in MEASURES]
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
        first = ir_measures.calc_aggregate(ms, None, frame)
        again = ir_measures.calc_aggregate(ms, None, frame.sample(frac=1.0, random_state=1))
        nested = {}
        for q, d, s in rows:
            nested.setdefault(q, {})[d] = s
        third = ir_measures.calc_aggregate(ms, None, nested)
        for m in ms:
            assert first[m] == pytest.approx(again[m], abs=1e-12) == third[m]
    finally:
        ir_rbstar.unregister_run("med_ref")


# --- labels, parameters, errors ---

def test_labels_show_ref_and_the_default_depth_and_round_trip():
    assert str(ir_rbstar.MED_nDCG(ref="b.run")) == "MED_nDCG(ref='b.run')@20"
    assert str(ir_rbstar.MED_AP(ref="b.run")) == "MED_AP(ref='b.run')@100"
    assert str(ir_rbstar.MED_ERR(ref="b.run", max_rel=2)) == "MED_ERR(ref='b.run',max_rel=2)@30"
    assert str(ir_rbstar.MED_RBP(ref="b.run")) == "MED_RBP(p=0.95,ref='b.run')"
    assert str(ir_rbstar.MED_P(ref="b.run", judgments=False) @ 10) == "MED_P(ref='b.run',judgments=False)@10"
    for text in ("MED_nDCG(ref='b.run')@20", "MED_RBP(p=0.9,ref='b')@50", "MED_ERR(ref='x',max_rel=3)@10",
                 "MED_AP(ref='x',rel=2)@100", "MED_P(ref='x',judgments=False)@5"):
        m = ir_measures.parse_measure(text)
        assert str(m) == text and ir_measures.parse_measure(str(m)) == m
    assert ir_rbstar.parse("MED_nDCG(ref='b')")[0] == ir_rbstar.parse("MED_nDCG(ref='b')@20")[0]


def test_errors():
    run = ranked(["a", "b"])
    with pytest.raises(ParameterError, match="ref"):
        ir_measures.calc_aggregate([ir_rbstar.MED_nDCG], None, run)
    with pytest.raises(ReferenceNotFoundError):
        ir_measures.calc_aggregate([ir_rbstar.MED_nDCG(ref="no/such/file.run")], None, run)
    with pytest.raises(ParameterError, match="cutoff"):
        ir_measures.calc_aggregate([ir_rbstar.MED_P(ref="x")], None, run)
    with pytest.raises(ParameterError, match="max_rel"):
        ir_rbstar.MED_ERR(ref="x", max_rel=0)
    with pytest.raises(ParameterError, match="persistence"):
        ir_rbstar.MED_RBP(ref="x", p=1.0)
    with pytest.raises(ParameterError, match="cutoff"):
        ir_rbstar.MED_AP(ref="x") @ 0
    with pytest.raises(ParameterError, match="ref"):
        ir_rbstar.MED_AP(ref=" ")
    ir_rbstar.register_run("med_ref", run)
    try:
        with pytest.raises(GradeScaleError, match="grade 3, above max_rel=2"):
            ir_measures.calc_aggregate([ir_rbstar.MED_nDCG(ref="med_ref", max_rel=2)], {"t": {"a": 3}}, run)
        with pytest.raises(MissingQrelsError):
            ir_measures.calc_aggregate([ir_rbstar.MED_nDCG(ref="med_ref"), ir_rbstar.RBP], None, run)
    finally:
        ir_rbstar.unregister_run("med_ref")


def test_err_slopes_are_the_partial_derivatives():
    from ir_rbstar.core import med as K
    rng = np.random.default_rng(7)
    v = rng.uniform(0, 0.9, size=(20, 9))
    slopes = K._err_slopes(v)
    for i in range(v.shape[1]):
        hi, lo = v.copy(), v.copy()
        hi[:, i] = 1.0
        lo[:, i] = 0.0                       # ERR is affine in each value: the slope is a difference
        assert np.allclose(slopes[:, i], K.err_rows(hi) - K.err_rows(lo), atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_med_err_with_common_prefix_and_suffix_equals_brute_force(seed):
    # identical heads and tails are folded before the search (prefix variables 0, the suffix one
    # variable); the maximum must not change
    rng = random.Random(100 + seed)
    pool = [f"d{i}" for i in range(30)]
    rng.shuffle(pool)
    head, middle, tail, extra = pool[:4], pool[4:9], pool[9:13], pool[13:16]
    a = head + middle + tail
    m2 = rng.sample(middle, 3) + rng.sample(extra, 2)
    b = head + m2 + tail
    judged = {d: rng.randint(0, 2) for d in rng.sample(head + middle + tail, 3)}
    k = len(a) + rng.randint(0, 2)
    qrels = qrels_of(judged, 2)
    grades = [gain(2)(j) for j in range(3)]
    known = {d: gain(2)(g) for d, g in judged.items()}
    want = O.med(a, b, k, lambda v: O.err(v, k), [grades[0], grades[-1]], known, unknown_limit=True)
    assert med(ir_rbstar.MED_ERR(max_rel=2) @ k, qrels, a, b) == pytest.approx(want, abs=TOL)
    assert med(ir_rbstar.MED_ERR(max_rel=2) @ len(a), qrels, a, a) == pytest.approx(0.0, abs=TOL)


def test_measures_evaluated_together_equal_each_alone():
    # with MED_RBP (no cutoff) present, the cut measures reuse its full-depth join
    rng = random.Random(1)
    run = {f"q{q}": {f"d{d}": rng.random() for d in rng.sample(range(60), 40)} for q in range(30)}
    ref = {f"q{q}": {f"d{d}": rng.random() for d in rng.sample(range(60), 40)} for q in range(30)}
    qrels = {f"q{q}": {f"d{d}": rng.randint(0, 2) for d in rng.sample(range(60), 10)} for q in range(30)}
    ir_rbstar.register_run("med_ref", ref)
    try:
        ms = ir_rbstar.parse("MED_nDCG(ref='med_ref',max_rel=2)@20 MED_RBP(p=0.95,ref='med_ref') "
                             "MED_ERR(ref='med_ref',max_rel=2)@30 MED_AP(ref='med_ref')@25 MED_P(ref='med_ref')@10")
        together = ir_measures.calc_aggregate(ms, qrels, run)
        for m in ms:
            assert together[m] == pytest.approx(ir_measures.calc_aggregate([m], qrels, run)[m], abs=1e-12)
    finally:
        ir_rbstar.unregister_run("med_ref")
