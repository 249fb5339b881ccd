"""Tie-aware family (McSherry & Najork, ECIR 2008) against brute force, ir_measures/pytrec_eval and
scikit-learn.

Random inputs: up to 3 queries over a pool of 8 doc ids (ordered so that string order matters),
qrels with grades -1..3 (judged non-relevant, negative and unjudged documents), runs of up to 6
documents with small integer scores (many ties) or distinct scores (no ties), random cutoff, rel, p,
judged_only, dcg and gains.
"""
import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar
from ir_rbstar.errors import ParameterError
from tests.oracles import ties as O

POOL = ['d1', 'd10', 'd2', 'd9', 'D3', 'a', 'b7', 'z0']
QIDS = ['q1', '2', 'q3']
TOL = 1e-9
SETTINGS = settings(max_examples=examples(150), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
OURS = ir_measures.providers.registry['ir_rbstar']


@st.composite
def collections(draw, tied=True, min_grade=-1, max_run=6):
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True))
    qrels, run = {}, {}
    for q in qids:
        judged = draw(st.lists(st.sampled_from(POOL), max_size=6, unique=True))
        qrels[q] = {d: draw(st.integers(min_grade, 3)) for d in judged}
        docs = draw(st.lists(st.sampled_from(POOL), max_size=max_run, unique=True))
        if tied:
            run[q] = {d: float(draw(st.integers(0, 3))) for d in docs}
        else:
            scores = draw(st.lists(st.integers(-50, 50), min_size=len(docs), max_size=len(docs), unique=True))
            run[q] = {d: s / 7.0 for d, s in zip(docs, scores, strict=True)}
    qrels = {q: v for q, v in qrels.items() if v}
    run = {q: v for q, v in run.items() if v}
    assume(qrels and run)
    return qrels, run


def per_query(measures, qrels, run, provider=None):
    calc = provider if provider is not None else ir_measures
    out = {}
    for metric in calc.iter_calc(measures, qrels, run):
        out[(metric.query_id, str(metric.measure))] = metric.value
    return out


@st.composite
def measure_specs(draw, names=O.MEASURES):
    """One random measure of the family: (name, cutoff, params for the string, params for the oracle)."""
    name = draw(st.sampled_from(names))
    needs_k = name in ('P', 'R', 'F1')
    k = draw(st.integers(1, 7)) if needs_k else draw(st.one_of(st.none(), st.integers(1, 7)))
    judged_only = draw(st.booleans())
    params, oracle = {}, {'k': k, 'judged_only': judged_only}
    if judged_only:
        params['judged_only'] = True
    if name == 'nDCG':
        dcg = draw(st.sampled_from(['log2', 'exp-log2']))
        gains = draw(st.one_of(st.none(), st.dictionaries(st.integers(-1, 3), st.integers(-1, 5), max_size=3)))
        if dcg != 'log2':
            params['dcg'] = dcg
        if gains:
            params['gains'] = gains
        oracle.update(dcg=dcg, gains=gains)
    elif name == 'RBP':
        p = draw(st.floats(0.05, 0.95))
        params['p'] = p
        oracle['p'] = p
        rel = draw(st.sampled_from([None, 1, 2]))
        if rel is not None:
            params['rel'] = rel
            oracle['rel'] = rel
        else:                                     # graded: grade / max_rel, the top of the grade scale
            top = draw(st.integers(3, 5))
            if top != 1:
                params['max_rel'] = top
            oracle['top_grade'] = top
    else:
        rel = draw(st.sampled_from([1, 2]))
        params['rel'] = rel
        oracle['rel'] = rel
    return name, k, params, oracle


def make_measure(name, k, params):
    """A measure object (not parsed from a string: ir_measures' parser rejects negative numbers)."""
    m = ir_measures.measures.registry[name](**params)
    return m @ k if k is not None else m


# ---------------------------------------------------------------------------------------------
# with ties: every _TA measure is the mean over every score-respecting order

@SETTINGS
@given(data=st.data(), coll=collections())
def test_tie_aware_equals_brute_force(data, coll):
    qrels, run = coll
    specs = [data.draw(measure_specs()) for _ in range(3)]
    for name, k, params, oracle in specs:
        m = make_measure(name + '_TA', k, params)
        got = per_query([m], qrels, run)
        for q in qrels:
            want = O.tie_average(name, run.get(q, {}), qrels[q], **oracle)
            assert got[(q, str(m))] == pytest.approx(want, abs=TOL), (m, q, qrels, run)


@SETTINGS
@given(data=st.data(), coll=collections())
def test_tie_bounds_equal_brute_force(data, coll):
    """stat='min' / 'max' are the smallest and largest value over every score-respecting order, and
    min <= mean <= max."""
    qrels, run = coll
    for name, k, params, oracle in [data.draw(measure_specs()) for _ in range(3)]:
        lo, mean, hi = (make_measure(name + '_TA', k, dict(params, stat=stat) if stat else params)
                        for stat in ('min', None, 'max'))
        got = per_query([lo, mean, hi], qrels, run)
        for q in qrels:
            want_lo, want_hi = O.tie_extremes(name, run.get(q, {}), qrels[q], **oracle)
            assert got[(q, str(lo))] == pytest.approx(want_lo, abs=TOL), (lo, q, qrels, run)
            assert got[(q, str(hi))] == pytest.approx(want_hi, abs=TOL), (hi, q, qrels, run)
            assert got[(q, str(lo))] - TOL <= got[(q, str(mean))] <= got[(q, str(hi))] + TOL


def test_tie_bounds_of_a_fully_tied_run():
    """The issue's example: one relevant document among three tied ones. RR: mean 0.6111 (1, 1/2, 1/3
    equally likely), best order 1, worst 1/3."""
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    ms = ir_rbstar.parse("RR_TA(stat='min') RR_TA RR_TA(stat='max') P_TA(stat='min')@1 P_TA(stat='max')@1")
    got = ir_measures.calc_aggregate(ms, qrels, run)
    assert [round(got[m], 4) for m in ms] == [0.3333, 0.6111, 1.0, 0.0, 1.0]


# ---------------------------------------------------------------------------------------------
# stat='var': the variance over the uniformly random orders of the ties (linear measures only)

@st.composite
def wide_ties(draw):
    """Up to 3 queries whose runs are mostly judged documents (grades -1..3) in wide tie groups (two or
    three scores over up to 6 documents), so that tied documents differ in gain and a cutoff often falls
    inside a group."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True))
    levels = draw(st.integers(1, 3))
    qrels, run = {}, {}
    for q in qids:
        judged = draw(st.lists(st.sampled_from(POOL), min_size=2, max_size=6, unique=True))
        qrels[q] = {d: draw(st.integers(-1, 3)) for d in judged}
        docs = draw(st.lists(st.sampled_from(judged), min_size=2, max_size=6, unique=True))
        docs += draw(st.lists(st.sampled_from([d for d in POOL if d not in judged] or POOL), max_size=2,
                              unique=True))
        run[q] = {d: float(draw(st.integers(0, levels - 1))) for d in dict.fromkeys(docs)}
    return qrels, {q: v for q, v in run.items() if v}


def _with_stat(name, k, params, stat):
    return make_measure(name + '_TA', k, dict(params, stat=stat) if stat else params)


@SETTINGS
@given(data=st.data(), coll=st.one_of(collections(), wide_ties()))
def test_tie_variance_equals_brute_force(data, coll):
    """stat='var' is the population variance of the value over every score-respecting order: P, R, F1,
    nDCG and RBP, binary and graded, judged_only or not, cutoffs inside tie groups, several queries."""
    qrels, run = coll
    specs = [data.draw(measure_specs(O.LINEAR_MEASURES)) for _ in range(3)]
    ms = [_with_stat(name, k, params, 'var') for name, k, params, _ in specs]
    got = per_query(ms, qrels, run)
    for m, (name, _, _, oracle) in zip(ms, specs, strict=True):
        for q in qrels:
            want = O.tie_variance(name, run.get(q, {}), qrels[q], **oracle)
            assert got[(q, str(m))] == pytest.approx(want, abs=TOL), (m, q, qrels, run)


def test_tie_variance_of_a_cut_tie_group():
    """A cutoff inside a tie group, graded gains, judged_only, and a query without relevant documents:
    every value against the enumeration of the orders."""
    qrels = {'q1': {'a': 3, 'b': 0, 'c': 2, 'd': 1, 'e': -1}, 'q2': {'a': 0, 'x': 0}}
    run = {'q1': {'z': 5.0, 'a': 4.0, 'b': 4.0, 'c': 4.0, 'd': 4.0, 'e': 4.0, 'y': 4.0, 'f': 1.0},
           'q2': {'a': 2.0, 'x': 2.0, 'b': 2.0}}
    cases = [('P', 3, {}), ('R', 4, {'rel': 2}), ('F1', 3, {}), ('nDCG', 4, {}),
             ('nDCG', 3, {'dcg': 'exp-log2', 'gains': {3: 2, 1: 4}}), ('RBP', 5, {'p': 0.7, 'max_rel': 3}),
             ('RBP', None, {'p': 0.5, 'rel': 2})]
    for judged_only in (False, True):
        for name, k, params in cases:
            extra = {'judged_only': True} if judged_only else {}
            m = _with_stat(name, k, dict(params, **extra), 'var')
            oracle = {key: v for key, v in params.items() if key != 'max_rel'}
            if name == 'RBP' and 'rel' not in params:
                oracle['top_grade'] = params['max_rel']
            got = per_query([m], qrels, run)
            for q in qrels:
                want = O.tie_variance(name, run[q], qrels[q], k=k, judged_only=judged_only, **oracle)
                assert got[(q, str(m))] == pytest.approx(want, abs=TOL), (m, q)
            # judged_only leaves a, b, c, d tied at ranks 1-4: R@4 sees all of them in every order
            assert (got[('q1', str(m))] == 0.0) == (judged_only and name == 'R'), (m, got)
            assert got[('q2', str(m))] == 0.0                  # nothing relevant: every order scores 0


def test_tie_variance_values_and_aggregate():
    """One relevant document among three tied ones: P@1 is 1 in a third of the orders (variance 2/9);
    a query the run does not answer gets 0, and calc_aggregate gives the mean of the variances."""
    qrels = {'q': {'a': 1, 'b': 0, 'c': 0}, 'unanswered': {'x': 1}}
    run = {'q': {'a': 1.0, 'b': 1.0, 'c': 1.0}}
    m, rbp = ir_rbstar.parse("P_TA(stat='var')@1 RBP_TA(p=0.5,stat='var')")
    got = per_query([m, rbp], qrels, run)
    assert got[('q', str(m))] == pytest.approx(2 / 9, abs=TOL)
    assert got[('unanswered', str(m))] == 0.0
    values = [0.5, 0.25, 0.125]                                  # RBP of the relevant document at rank 1, 2, 3
    mean = sum(values) / 3
    assert got[('q', str(rbp))] == pytest.approx(sum((v - mean) ** 2 for v in values) / 3, abs=TOL)
    agg = ir_measures.calc_aggregate([m], qrels, run)
    assert agg[m] == pytest.approx(1 / 9, abs=TOL)


@pytest.mark.parametrize('text', ["AP_TA(stat='var')", "AP_TA(stat='var',rel=2)@10", "RR_TA(stat='var')",
                                  "RR_TA(stat='var')@5"])
def test_tie_variance_raises_for_ap_and_rr(text):
    name = text.split('(')[0]
    with pytest.raises(ParameterError, match=rf"^{name}: stat='var' .*no closed form"):
        ir_measures.parse_measure(text)
    with pytest.raises(ParameterError, match=rf"^{name}: stat='var' .*no closed form"):
        ir_measures.measures.registry[name](stat='var')


@SETTINGS
@given(data=st.data(), coll=st.one_of(collections(), wide_ties()))
def test_tie_variance_is_bounded_by_the_range(data, coll):
    """0 <= var <= (max - min)^2 / 4 (Popoviciu's inequality): the spread of the value over the orders
    bounds its variance (mean +- sqrt(var) need not lie within [min, max])."""
    qrels, run = coll
    for name, k, params, _ in [data.draw(measure_specs(O.LINEAR_MEASURES)) for _ in range(3)]:
        lo, var, hi = (_with_stat(name, k, params, stat) for stat in ('min', 'var', 'max'))
        got = per_query([lo, var, hi], qrels, run)
        for q in qrels:
            spread = got[(q, str(hi))] - got[(q, str(lo))]
            assert 0.0 <= got[(q, str(var))] <= spread * spread / 4 + TOL, (var, q, qrels, run)


@SETTINGS
@given(data=st.data(), coll=collections(tied=False))
def test_tie_variance_is_zero_without_ties(data, coll):
    qrels, run = coll
    ms = [_with_stat(name, k, params, 'var') for name, k, params, _ in
          [data.draw(measure_specs(O.LINEAR_MEASURES)) for _ in range(3)]]
    got = per_query(ms, qrels, run)
    for m in ms:
        for q in qrels:
            assert got[(q, str(m))] == 0.0, (m, q, qrels, run)


# ---------------------------------------------------------------------------------------------
# without ties: every _TA measure equals its ir_measures counterpart (pytrec_eval, msmarco, cwl_eval)

COUNTERPART_PARAMS = {'P': ('rel', 'judged_only'), 'R': ('judged_only',), 'AP': ('rel', 'judged_only'),
                      'RR': ('rel', 'judged_only'), 'nDCG': ('gains', 'judged_only'), 'RBP': ('p', 'rel')}


def _hangs_pytrec_eval(name, k, params, qrels):
    """pytrec_eval (trec_eval 9.0.x inside) can loop for hours on ``ndcg`` without cutoff when a query's
    judgments are all negative: ir_measures maps the grades through ``gains`` (``{0: -1}`` turns grade 0
    into -1), trec_eval's ``te_form_res_rels`` then allocates no relevance-level table for the query (its
    largest grade is -1) and keeps the level count of an earlier query, so after an earlier ``evaluate``
    in the same process (which frees the table) ``m_ndcg``'s ideal loop counts up to whatever the freed
    memory holds. Reproduced: ``RelevanceEvaluator({'q1': {'d1': -1}}, {'ndcg'}).evaluate(...)`` after a
    few other evaluations hangs within a few calls. Such inputs are checked against the oracle instead."""
    if name != 'nDCG' or k is not None:
        return False                              # ndcg_cut stops at its cutoff
    gains = params.get('gains') or {}
    return any(all(gains.get(g, g) < 0 for g in judged.values()) for judged in qrels.values())


def _pytrec_eval_unjudges_negative(name, k, params, qrels_q, run_q):
    """trec_eval codes a document outside the qrels as relevance -1 (``RELVALUE_NONPOOL``) and one in the
    pool but unjudged as -2 (``RELVALUE_UNJUDGED``), and its judged-only option (``-J``) drops every document
    whose relevance is negative. ir_measures hands trec_eval the grades mapped through ``gains``, so
    ``nDCG(gains={0: -1}, judged_only=True)`` drops the judged documents of grade 0 as if unjudged (pytrec_eval
    gives 1.0 for a run [d10 (grade 0), d1 (grade 1)]: d10 removed). By the definition a judged document keeps
    its place (its negative gain counts as 0). The values differ exactly when a retrieved document of positive
    gain has one of negative gain above it and the drop moves it within the cutoff; such queries are checked
    against the oracle instead."""
    if name != 'nDCG' or not params.get('judged_only'):
        return False
    gains = params.get('gains') or {}
    ranked = [gains.get(qrels_q[d], qrels_q[d]) for d in O.trec_order(run_q) if d in qrels_q]
    dropped = 0
    for place, gain in enumerate(ranked, start=1):
        dropped += gain < 0
        if gain > 0 and dropped and (k is None or place - dropped <= k):
            return True
    return False


# found by hypothesis: grade 0 mapped to -1 with judged_only, a grade-0 document ranked first
NEGATIVE_JUDGED_EXAMPLE = dict(coll=({'q1': {'d1': 1, 'd10': 0, 'd2': 0, 'd9': 0, 'D3': 0, 'a': 0}},
                                     {'q1': {'d1': 0.0, 'd10': 0.14285714285714285}}),
                               spec=('nDCG', None, {'gains': {0: -1}, 'judged_only': True}, {}))


# the class of input that hung pytrec_eval in an earlier run (that example was not captured): this one hangs
# ir_measures' nDCG(gains={0: -1}) within a few calls when earlier evaluations used grades up to 5
HANG_EXAMPLE = dict(coll=({'q1': {'d1': 0, 'd2': 0}, 'q3': {'d10': 2}},
                          {'q1': {'d1': 1.0, 'z0': 0.5}, 'q3': {'d10': 1.0}}),
                    spec=('nDCG', None, {'gains': {0: -1}}, {}))


@SETTINGS
@example(**HANG_EXAMPLE)
@example(**NEGATIVE_JUDGED_EXAMPLE)
@given(coll=collections(tied=False, min_grade=0), spec=measure_specs())
def test_untied_equals_ir_measures(coll, spec):
    qrels, run = coll
    name, k, params, _ = spec
    assume(name != 'F1')
    allowed = COUNTERPART_PARAMS[name]
    params = {key: v for key, v in params.items() if key in allowed}
    if name == 'RR' and k is not None:
        params.pop('judged_only', None)           # ir_measures' RR@k (msmarco) has no judged_only
    if name == 'RBP':
        k = None                                  # cwl_eval serves binary RBP without cutoff
        params.setdefault('rel', 1)
        params.pop('max_rel', None)
    theirs = make_measure(name, k, params)
    mine = make_measure(name + '_TA', k, params)
    got = per_query([mine], qrels, run)
    hangs = _hangs_pytrec_eval(name, k, params, qrels)
    ref = {} if hangs else per_query([theirs], qrels, run)
    for q in qrels:
        if hangs or _pytrec_eval_unjudges_negative(name, k, params, qrels[q], run.get(q, {})):
            want = O.tie_average('nDCG', run.get(q, {}), qrels[q], k=k, gains=params.get('gains'),
                                 judged_only=params.get('judged_only', False))
        else:
            want = ref[(q, str(theirs))]
        assert got[(q, str(mine))] == pytest.approx(want, abs=TOL), (mine, q, qrels, run)


def test_the_pytrec_eval_hang_guard():
    """The guard names exactly the class that hangs: ndcg without cutoff, a query whose judgments all map
    to a negative grade; a cutoff, a non-negative gain or another measure is compared with pytrec_eval."""
    qrels = HANG_EXAMPLE['coll'][0]
    assert _hangs_pytrec_eval('nDCG', None, {'gains': {0: -1}}, qrels)
    assert not _hangs_pytrec_eval('nDCG', 5, {'gains': {0: -1}}, qrels)
    assert not _hangs_pytrec_eval('nDCG', None, {'gains': {0: 1}}, qrels)
    assert not _hangs_pytrec_eval('nDCG', None, {}, qrels)
    assert not _hangs_pytrec_eval('AP', None, {'gains': {0: -1}}, qrels)


def test_the_pytrec_eval_judged_only_guard():
    """The guard names exactly the queries where trec_eval's -J changes nDCG: a retrieved document of
    negative gain above one of positive gain that the drop brings within the cutoff. A negative gain below
    every positive one, beyond the cutoff, without judged_only or not mapped is compared with pytrec_eval
    (and agrees: the first assertions of the loop below)."""
    qrels_q = {'d1': 1, 'd10': 0, 'd2': 1}
    neg_first = {'d10': 1.0, 'd1': 0.5, 'd2': 0.25}
    neg_last = {'d1': 1.0, 'd2': 0.5, 'd10': 0.25}
    spec = {'gains': {0: -1}, 'judged_only': True}
    assert _pytrec_eval_unjudges_negative('nDCG', None, spec, qrels_q, neg_first)
    assert _pytrec_eval_unjudges_negative('nDCG', 1, spec, qrels_q, neg_first)
    assert not _pytrec_eval_unjudges_negative('nDCG', 1, spec, qrels_q, {'d1': 1.0, 'd10': 0.5, 'd2': 0.25})
    assert not _pytrec_eval_unjudges_negative('nDCG', None, spec, qrels_q, neg_last)
    assert not _pytrec_eval_unjudges_negative('nDCG', None, {'gains': {0: -1}}, qrels_q, neg_first)
    assert not _pytrec_eval_unjudges_negative('nDCG', None, {'judged_only': True}, qrels_q, neg_first)
    assert not _pytrec_eval_unjudges_negative('AP', None, spec, qrels_q, neg_first)
    for k, run_q in [(None, neg_last), (1, {'d1': 1.0, 'd10': 0.5, 'd2': 0.25}), (None, neg_first), (1, neg_first)]:
        qrels, run = {'q1': qrels_q}, {'q1': run_q}
        theirs, mine = make_measure('nDCG', k, spec), make_measure('nDCG_TA', k, spec)
        same = per_query([theirs], qrels, run)[('q1', str(theirs))] == pytest.approx(
            per_query([mine], qrels, run)[('q1', str(mine))], abs=TOL)
        assert same is not _pytrec_eval_unjudges_negative('nDCG', k, spec, qrels_q, run_q), (k, run_q)


@SETTINGS
@given(coll=collections(tied=False, min_grade=0), k=st.integers(1, 7), rel=st.sampled_from([1, 2]))
def test_untied_f1_is_harmonic_mean_and_setf(coll, k, rel):
    """F1_TA@k = harmonic mean of pytrec_eval's P@k and R@k; = SetF of the run cut at k when the run
    has at least k documents."""
    qrels, run = coll
    f1 = ir_measures.parse_measure(f'F1_TA(rel={rel})@{k}')
    got = per_query([f1], qrels, run)
    cut = {q: dict(sorted(d.items(), key=lambda x: -x[1])[:k]) for q, d in run.items()}
    setf = per_query([ir_measures.SetF(rel=rel)], qrels, cut)
    pr = per_query([ir_measures.P(rel=rel) @ k, ir_measures.R @ k], qrels, run)
    for q in qrels:
        prec, recall = pr[(q, str(ir_measures.P(rel=rel) @ k))], pr[(q, str(ir_measures.R @ k))]
        if rel == 1:
            hm = 2 * prec * recall / (prec + recall) if prec + recall else 0.0
            assert got[(q, str(f1))] == pytest.approx(hm, abs=TOL)
        if len(run.get(q, {})) >= k:
            assert got[(q, str(f1))] == pytest.approx(setf[(q, str(ir_measures.SetF(rel=rel)))], abs=TOL)


# ---------------------------------------------------------------------------------------------
# the tie-oblivious path of this package (ir_measures' own P, R, AP, RR, nDCG) equals pytrec_eval,
# ties included (trec_eval breaks them by doc id, descending)

@SETTINGS
@given(data=st.data(), coll=collections(tied=True, min_grade=-1))
def test_ordered_path_equals_pytrec_eval(data, coll):
    qrels, run = coll
    name, k, params, _ = data.draw(measure_specs())
    assume(name not in ('F1', 'RBP'))
    if name == 'RR':
        k = None                                   # pytrec_eval has no RR@k
    params = {key: v for key, v in params.items() if key in COUNTERPART_PARAMS[name] + ('rel',)}
    if name == 'R':
        params.pop('rel', None)
    if name == 'nDCG':
        params.pop('dcg', None)
        if params.get('judged_only') and params.get('gains'):
            # ir_measures maps the qrels' grades before pytrec_eval sees them, so a grade mapped to a
            # negative gain counts as unjudged there; here judged_only looks at the grades themselves
            params['gains'] = {g: max(v, 0) for g, v in params['gains'].items()}
            assume(all(g >= 0 for g in params['gains']))
    m = make_measure(name, k, params)
    # pytrec_eval is never given a negative grade (it sometimes never returned with one, depending on what ran
    # before in the process, with and without gains); each is written as what it means to trec_eval. With
    # ``gains``, the grades are mapped here as ir_measures would map them (gains.get(g, g)) and pytrec_eval
    # gets the measure without gains. This package gets the grades and the measure as they are.
    gains = params.get('gains') or {}
    m_theirs = make_measure(name, k, {key: v for key, v in params.items() if key != 'gains'}) if gains else m
    mapped = {q: {d: gains.get(g, g) for d, g in docs.items()} for q, docs in qrels.items()}
    if params.get('judged_only'):            # a negative grade is an unjudged document there: left out
        theirs = {q: {d: g for d, g in docs.items() if g >= 0} for q, docs in mapped.items()}
    else:                                    # a negative grade is a judged, not relevant document: 0
        theirs = {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in mapped.items()}
    theirs = {q: docs for q, docs in theirs.items() if docs}
    ref_raw = per_query([m_theirs], theirs, run, ir_measures.providers.registry['pytrec_eval'])
    ref = {(q, str(m)): v for (q, label), v in ref_raw.items()}
    got = per_query([m], qrels, run, OURS)
    for q in qrels:
        expected = ref.get((q, str(m)), 0.0)         # a query left without judgments: nothing to find
        assert got[(q, str(m))] == pytest.approx(expected, abs=TOL), (m, q, qrels, run)


@SETTINGS
@given(coll=collections(tied=True, min_grade=-1), k=st.integers(1, 7), rel=st.sampled_from([1, 2]))
def test_ordered_path_equals_brute_force_definition(coll, k, rel):
    """R(rel=2)@k, RR@k and F1-style values in trec_eval order, which pytrec_eval cannot compute."""
    qrels, run = coll
    ms = [ir_measures.parse_measure(s) for s in (f'R(rel={rel})@{k}', f'RR(rel={rel})@{k}', f'AP(rel={rel})@{k}')]
    got = per_query(ms, qrels, run, OURS)
    for q in qrels:
        order = O.trec_order(run.get(q, {}))
        for m in ms:
            want = O.measure_on_ranking(m.NAME, order, qrels[q], k=k, rel=rel)
            assert got[(q, str(m))] == pytest.approx(want, abs=TOL), (m, q)


# ---------------------------------------------------------------------------------------------
# scikit-learn's tie-averaged nDCG

@SETTINGS
@given(coll=collections(tied=True, min_grade=0, max_run=8), k=st.one_of(st.none(), st.integers(1, 8)),
       exp=st.booleans())
def test_ndcg_ta_equals_sklearn(coll, k, exp):
    """sklearn's ndcg_score(ignore_ties=False) builds the ideal from the scored items only: the
    conventions coincide when the run holds every judged document of the query."""
    sklearn_metrics = pytest.importorskip('sklearn.metrics')
    import numpy as np
    qrels, run = coll
    full = {}
    for q, judged in qrels.items():
        scores = dict(run.get(q, {}))
        for i, d in enumerate(judged):
            scores.setdefault(d, -1.0 - (i % 2))       # judged docs the run missed, with ties among them
        full[q] = scores
    m = ir_measures.parse_measure("nDCG_TA(dcg='exp-log2')" if exp else 'nDCG_TA')
    m = m @ k if k is not None else m
    got = per_query([m], qrels, full)
    for q, scores in full.items():
        docs = sorted(scores)
        grades = np.array([[qrels[q].get(d, 0) for d in docs]], dtype=float)
        if exp:
            grades = 2.0 ** grades - 1.0
        if grades.max() <= 0 or len(docs) < 2:
            continue                                # sklearn needs two items; undefined ideal
        want = sklearn_metrics.ndcg_score(grades, np.array([[scores[d] for d in docs]]), k=k, ignore_ties=False)
        assert got[(q, str(m))] == pytest.approx(want, abs=TOL), (m, q, qrels[q], scores)


# ---------------------------------------------------------------------------------------------
# the fully tied toy case (every document at one score)

def test_fully_tied_toy_case():
    qrels = {'q': {'a': 1}}
    run = {'q': {'a': 1.0, 'b': 1.0, 'z': 1.0}}
    ms = [ir_measures.parse_measure(s) for s in ('P_TA@1', 'RR_TA', 'AP_TA', 'nDCG_TA@3')]
    got = ir_measures.calc_aggregate(ms, qrels, run)
    assert got[ms[0]] == pytest.approx(1 / 3, abs=TOL)
    assert got[ms[1]] == pytest.approx(11 / 18, abs=TOL)        # (1 + 1/2 + 1/3) / 3 = 0.6111
    assert got[ms[2]] == pytest.approx(11 / 18, abs=TOL)
    assert got[ms[3]] == pytest.approx((1 + 1 / __import__('math').log2(3) + 0.5) / 3, abs=TOL)
    assert round(got[ms[3]], 4) == 0.7103
    # trec_eval's order depends on the doc id: 'z' first gives RR = 1/3; renamed to 'a' first, 1
    assert ir_measures.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == pytest.approx(1 / 3)
    renamed = {'q': {'zz': 1.0, 'b': 1.0, 'a': 1.0}}
    assert ir_measures.calc_aggregate([ir_measures.RR], {'q': {'zz': 1}}, renamed)[ir_measures.RR] == 1.0
    assert ir_measures.calc_aggregate([ms[1]], {'q': {'zz': 1}}, renamed)[ms[1]] == pytest.approx(11 / 18)
