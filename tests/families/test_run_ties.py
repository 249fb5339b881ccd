"""Ties on both sides of the run-vs-reference measures (RBR, RBA, RBO): the properties the declarations
promise. The values themselves are checked against the brute-force oracle over every tie order of both
rankings in test_rankbiased_oracle.py (``ties='expected'`` and ``'docid'``); here: symmetry, what a run
compared with itself gets, the 0 on the diagonal of every distance matrix, and the issue's toy case."""
import math

import numpy as np

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar
from tests.oracles import rankbiased as O

POOL = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8']
SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SYMMETRIC = ('RBO', 'RBO_ext', 'RBO_res', 'RBA')


@st.composite
def tied_runs(draw):
    """Two runs of two queries, scores with many ties (0..2)."""
    out = []
    for _ in range(2):
        run = {}
        for q in ('q1', 'q2'):
            docs = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=7, unique=True))
            run[q] = {d: float(draw(st.integers(0, 2))) for d in docs}
        out.append(run)
    return out


def values(measure, run, ref_name, qrels=None):
    m = ir_rbstar.parse_measure(measure.replace('(', "(ref=%r," % ref_name, 1))
    qrels = qrels or {q: {'d1': 1} for q in run}
    return {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}


@SETTINGS
@given(runs=tied_runs(), p=st.sampled_from([0.5, 0.8, 0.95]), name=st.sampled_from(SYMMETRIC),
       ties=st.sampled_from(['expected', 'docid']))
def test_symmetric_measures_are_symmetric_with_ties_on_both_sides(runs, p, name, ties):
    a, b = runs
    with ir_rbstar.run_scope(runs={'A': a, 'B': b}):
        ab = values("%s(p=%r,ties=%r)" % (name, p, ties), a, 'B')
        ba = values("%s(p=%r,ties=%r)" % (name, p, ties), b, 'A')
    assert ab.keys() == ba.keys()
    for q in ab:
        assert ab[q] == pytest.approx(ba[q], abs=1e-12), (q, name, a[q], b[q])


@SETTINGS
@given(runs=tied_runs(), p=st.sampled_from([0.5, 0.8, 0.95]))
def test_a_run_against_itself(runs, p):
    """With ties='docid' (one order) RBO_ext of a run with itself is 1 and RBA is the untied self-alignment;
    with 'expected' it is the mean over two independent orders of the ties: below 1 exactly when the run
    has a tie, and equal to the oracle's enumeration."""
    run = runs[0]
    with ir_rbstar.run_scope(runs={'A': run}):
        ext_docid = values("RBO_ext(p=%r,ties='docid')" % p, run, 'A')
        ext = values("RBO_ext(p=%r)" % p, run, 'A')
        rba = values("RBA(p=%r)" % p, run, 'A')
    for q, docs in run.items():
        assert ext_docid[q] == pytest.approx(1.0, abs=1e-12)
        tied = len(set(docs.values())) < len(docs)
        if tied:
            assert ext[q] < 1.0 - 1e-9
        else:
            assert ext[q] == pytest.approx(1.0, abs=1e-12)
        ref = O.ref_from_run(docs)
        want = sum(O.rba(order, ref, p) for order in O.run_orders(docs)) / len(O.run_orders(docs))
        assert rba[q] == pytest.approx(want, abs=1e-12)


def test_issue_toy_case_is_symmetric():
    """Two rankings with ties on both sides gave RBO(A, ref=B) 0.5450 and RBO(B, ref=A) 0.6085 when the run
    side was broken by document id; both are now the mean over both rankings' tie orders."""
    a = {'q': {'d1': 3.0, 'd2': 2.0, 'd3': 2.0, 'd4': 1.0, 'd5': 1.0}}
    b = {'q': {'d2': 3.0, 'd1': 3.0, 'd5': 2.0, 'd3': 1.0, 'd6': 1.0}}
    with ir_rbstar.run_scope(runs={'A': a, 'B': b}):
        ab = values('RBO(p=0.8)', a, 'B')['q']
        ba = values('RBO(p=0.8)', b, 'A')['q']
        ab_docid = values("RBO(p=0.8,ties='docid')", a, 'B')['q']
        ba_docid = values("RBO(p=0.8,ties='docid')", b, 'A')['q']
    want = 0.0
    orders_a, orders_b = O.run_orders(a['q']), O.run_orders(b['q'])
    for x in orders_a:
        for y in orders_b:
            want += O.rbo_min_untied(x, y, 0.8)
    want /= len(orders_a) * len(orders_b)
    assert ab == pytest.approx(want, abs=1e-12) and ba == pytest.approx(want, abs=1e-12)
    # ties='docid' breaks both rankings' ties the same way (trec_eval's order): symmetric too, another value
    assert ab_docid == pytest.approx(ba_docid, abs=1e-12) and ab_docid != pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize('measure', ['RBO(p=0.9)', 'RBA(p=0.9)', 'RBO_ext(p=0.9)', 'MED_RBP(p=0.9)@10',
                                     'MED_nDCG@10'])
def test_distance_matrix_diagonal_is_zero(measure):
    runs = {'tied': {'q1': {'d1': 1.0, 'd2': 1.0, 'd3': 1.0, 'd4': 0.5}, 'q2': {'d2': 2.0, 'd5': 2.0}},
            'short': {'q1': {'d1': 1.0}, 'q2': {'d5': 1.0, 'd6': 0.0}},
            'other': {'q1': {'d4': 3.0, 'd1': 2.0, 'd2': 1.0}, 'q2': {'d6': 1.0, 'd5': 0.5}}}
    matrix = ir_rbstar.med.distance_matrix(runs, measure)
    assert [matrix.loc[n, n] for n in runs] == [0.0, 0.0, 0.0]
    pairs = ir_rbstar.med.pairwise(runs, measure)
    own = pairs[(pairs['run'] == 'tied') & (pairs['ref'] == 'tied')]['value']
    if measure.startswith('RB'):          # the value of a tied run against a copy of itself is kept there
        assert (own < 1.0 - 1e-9).all()
    off = matrix.to_numpy()[~np.eye(3, dtype=bool)]
    assert all(math.isfinite(v) and v >= 0.0 for v in off)


@pytest.mark.parametrize('p', [0.5, 0.9, 0.99, 0.999])
def test_stretch_sums_equal_the_depth_by_depth_sum(p):
    """The closed forms behind RBO with ties on both sides, against sum_{d<=last} p^d A(d) B(d) / d summed
    depth by depth (math.fsum), for deep and wide tie groups; the compiled engine's loop gives the same."""
    from ir_rbstar.core import rankbiased_ties as T
    rng = np.random.default_rng(7)
    n = 400
    sa, ga = rng.integers(0, 1500, n), rng.integers(1, 50, n)
    ea = sa + np.minimum(ga, rng.integers(1, 60, n))          # some groups straddle the cutoff
    sb, gb = rng.integers(0, 1500, n), rng.integers(1, 50, n)
    eb = sb + gb
    last = np.maximum(ea, eb) + rng.integers(0, 100, n)
    tables = T.suffix_tables(p, int(last.max()))
    got = T.stretch_sums(sa, ga, ea, sb, gb, eb, last, tables)
    for i in range(0, n, 20):
        d = np.arange(1, last[i] + 1)
        a = np.clip((np.minimum(d, ea[i]) - sa[i]) / ga[i], 0, 1)
        b = np.clip((np.minimum(d, eb[i]) - sb[i]) / gb[i], 0, 1)
        want = math.fsum(p ** d * a * b / d)
        assert got[i] == pytest.approx(want, rel=1e-9, abs=1e-300), i
    numba = pytest.importorskip('numba')
    assert numba
    from ir_rbstar import _compiled
    seg = np.arange(n)
    head, _ = _compiled.rbo_tied_sums(n, seg, sa, ga, ea, sb, gb, eb, last, np.minimum(ea, eb), *tables)
    assert np.allclose(head, got, rtol=1e-12, atol=0)


def test_has_ties_looks_within_queries_only():
    from ir_rbstar.io import to_ranking
    assert not to_ranking({'q1': {'a': 1.0, 'b': 2.0}, 'q2': {'a': 1.0}}).has_ties()
    assert not to_ranking({'q1': {'a': 1.0}, 'q2': {'a': 1.0, 'b': 0.0}}).has_ties()
    assert to_ranking({'q1': {'a': 1.0}, 'q2': {'b': 3.0, 'a': 3.0}}).has_ties()
    # equal in single precision, as trec_eval compares scores
    assert to_ranking({'q1': {'a': 1.0, 'b': 1.0 + 1e-9}}).has_ties()


# ---------------------------------------------------------------------------------------------
# stat='min' / 'max': the worst and best order of both rankings' ties, against every order

@st.composite
def tied_case(draw):
    """(qrels, run, ref_run) with ties on both sides, few enough orders to enumerate."""
    run, ref_run, qrels = {}, {}, {}
    for q in ('q1', 'q2'):
        docs = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=6, unique=True))
        run[q] = {d: float(draw(st.integers(0, 2))) for d in docs}
        rdocs = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=6, unique=True))
        ref_run[q] = {d: float(draw(st.integers(0, 2))) for d in rdocs}
        judged = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=6, unique=True))
        qrels[q] = {d: draw(st.integers(0, 3)) for d in judged}
    return qrels, run, ref_run


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=tied_case(), p=st.sampled_from([0.3, 0.7, 0.95]), k=st.one_of(st.none(), st.integers(1, 5)),
       name=st.sampled_from(['RBR', 'RBA', 'RBO', 'RBO_ext']), stat=st.sampled_from(['min', 'max']),
       use_ref=st.booleans(), rel=st.integers(1, 2))
def test_tie_extremes_equal_brute_force(case, p, k, name, stat, use_ref, rel):
    _check_statistic(case, p, k, name, stat, use_ref, rel)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=tied_case(), p=st.sampled_from([0.3, 0.7, 0.95]), k=st.one_of(st.none(), st.integers(1, 5)),
       use_ref=st.booleans(), rel=st.integers(1, 2))
def test_rbr_variance_equals_brute_force(case, p, k, use_ref, rel):
    """RBR(stat='var'): the population variance of RBR over every order of both rankings' ties."""
    _check_statistic(case, p, k, 'RBR', 'var', use_ref, rel)


def _check_statistic(case, p, k, name, stat, use_ref, rel):
    qrels, run, ref_run = case
    from hypothesis import assume
    assume(all(O.count_orders(run[q]) * O.count_orders(ref_run[q] if use_ref else
                                                       {d: float(g) for d, g in qrels[q].items() if g >= rel})
               <= 3000 for q in run))
    text = '%s(p=%r,rel=%d,stat=%r)%s' % (name, p, rel, stat, '@%d' % k if k else '')
    with ir_rbstar.run_scope(runs={'R': ref_run}):
        m = ir_rbstar.parse_measure(text.replace('(', "(ref='R',", 1) if use_ref else text)
        got = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}
        mean = {r.query_id: r.value for r in ir_measures.iter_calc(
            [ir_rbstar.parse_measure(str(m).replace(",stat='%s'" % stat, ''))], qrels, run)}
    want = O.evaluate_extreme(name, qrels, run, p, k, rel, ref_run if use_ref else None, stat)
    for q in qrels:
        assert got[q] == pytest.approx(want[q], abs=1e-12), (q, text, run[q], ref_run[q] if use_ref else qrels[q])
        if stat != 'var':          # the mean lies between the extremes
            assert (got[q] <= mean[q] + 1e-12) if stat == 'min' else (got[q] >= mean[q] - 1e-12)


def test_engines_agree_on_ties_and_their_bounds():
    """The compiled loops (reordering tie groups, RBO's sums over two ramps) give what numpy gives, on a
    run and a reference with many ties (groups of up to 80 rows: both of the loop's sorting branches)."""
    pytest.importorskip('numba')
    from ir_rbstar import engine
    rng = np.random.default_rng(3)
    docs = ['d%d' % i for i in range(300)]

    def tied_run(levels):
        return {'q%d' % q: {d: float(rng.integers(0, levels[q % 2])) for d in rng.choice(docs, 200, replace=False)}
                for q in range(20)}
    run, ref = tied_run((2, 30)), tied_run((30, 5))      # groups of about 100 rows, 7 and 40
    names = ["%s(p=0.95,ref='R'%s)%s" % (n, s, k) for n in ('RBR', 'RBA', 'RBO', 'RBO_ext')
             for s in ('', ",stat='min'", ",stat='max'") for k in ('', '@50')]
    measures = [ir_rbstar.parse_measure(x) for x in names]
    got = {}
    for name in ('numpy', 'numba'):
        with engine.using(name), ir_rbstar.run_scope(runs={'R': ref}):
            got[name] = {(r.query_id, str(r.measure)): r.value for r in ir_measures.iter_calc(measures, None, run)}
    assert got['numpy'].keys() == got['numba'].keys()
    for key, value in got['numpy'].items():
        assert got['numba'][key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


@st.composite
def stretch_inputs(draw):
    """Documents mostly untied on both sides (as in real runs), some tied, some on equal ranks; some tie
    groups of the run cut short by the cutoff; ``last`` at or past both groups' ends."""
    n = draw(st.integers(1, 40))
    top = draw(st.integers(1, 400))
    ints = st.integers(0, top)

    def sizes():
        return np.array(draw(st.lists(st.one_of(st.just(1), st.just(1), st.integers(1, 6)), min_size=n, max_size=n)))
    ga, gb = sizes(), sizes()
    sa = np.array(draw(st.lists(ints, min_size=n, max_size=n)))
    sb = np.array(draw(st.lists(ints, min_size=n, max_size=n)))
    same = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    sb = np.where(same, sa, sb)
    kept = np.array([draw(st.integers(0, g)) if draw(st.integers(0, 4)) == 0 else g for g in ga])
    last = np.maximum(sa + ga, sb + gb) + np.array(draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))
    p = draw(st.sampled_from([0.1, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999]))
    return p, sa, ga, sa + kept, sb, gb, sb + gb, last


@given(stretch_inputs())
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_stretch_sums_shortcut_is_bit_for_bit_the_general_path(case):
    """The shortcut for documents untied on both sides gives the very doubles of the general three-stretch
    path (values must not move in their last bits when the code gets faster); likewise the overlap at a
    depth. The compiled engine's loop (same arithmetic, document by document) gives them too."""
    from ir_rbstar.core import rankbiased_ties as T
    p, sa, ga, ea, sb, gb, eb, last = case
    tables = T.suffix_tables(p, int(last.max()))
    got = T.stretch_sums(sa, ga, ea, sb, gb, eb, last, tables)
    want = T._stretch_sums_general(sa, ga, ea, sb, gb, eb, last, tables)
    assert got.view(np.int64).tolist() == want.view(np.int64).tolist()
    d = np.minimum(sa, sb) + (last - np.minimum(sa, sb)) // 2
    at = T._overlap_at(d, sa, ga, ea, sb, gb, eb)
    assert at.view(np.int64).tolist() == (T._ramp(d, sa, ga, ea) * T._ramp(d, sb, gb, eb)).view(np.int64).tolist()
    try:
        from ir_rbstar import _compiled
    except ImportError:
        return
    n = len(sa)
    head, x_s = _compiled.rbo_tied_sums(n, np.arange(n), sa, ga, ea, sb, gb, eb, last, d, *tables)
    assert head.view(np.int64).tolist() == want.view(np.int64).tolist()
    assert x_s.view(np.int64).tolist() == at.view(np.int64).tolist()


@pytest.mark.parametrize('engine_name', ['numpy', 'numba'])
def test_hash_collision_between_a_tied_run_and_its_reference_is_reported(monkeypatch, engine_name):
    """The RBO family's own joins (a sort on numpy, one pass with the sums on numba) check long ids matched
    by hash, as the context's join does."""
    from ir_rbstar import engine
    from ir_rbstar.errors import RbstarError
    from tests.inputs.test_docindex import _colliding_hash
    if engine_name == 'numba':
        pytest.importorskip('numba')
    _colliding_hash(monkeypatch)
    run = {'q1': {'doc-aaaaaaaaaa': 2.0, 'doc-cccccccccc': 2.0, 'doc-dddddddddd': 1.0}}
    ref = {'q1': {'doc-bbbbbbbbbb': 2.0, 'doc-cccccccccc': 1.0}}
    ir_rbstar.register_run('collide_tied_ref', ref)
    try:
        with engine.using(engine_name), pytest.raises(RbstarError, match='hash collision'):
            ir_measures.calc_aggregate(ir_rbstar.parse("RBO(p=0.9,ref='collide_tied_ref') RBO_ext(p=0.9,"
                                                       "ref='collide_tied_ref')"), None, run)
    finally:
        ir_rbstar.unregister_run('collide_tied_ref')
