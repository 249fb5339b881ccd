"""Property tests: the package against the straight-from-the-definition oracles
(tests/oracles/rankbiased.py) on random small inputs, plus invariants and agreement with independent
implementations (PyPI ``rbo``, cwl_eval through ir_measures).

Random inputs: a pool of 8 doc ids chosen to trip string-vs-number and case ordering ('d10' < 'd9',
'D3' < 'a'), runs of 0..6 docs with small integer scores (so the run has ties, broken by doc id
descending), reference runs with tie groups (equal scores), qrels with grades 0..3 (judged
non-relevant docs, unjudged docs), several queries (one numeric-looking), queries missing from the
run / the reference / the qrels, random p in [0.05, 0.95], optional cutoff.
"""
import math
import os
import random
import tempfile
import uuid

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from tests.conftest import examples

from tests.oracles import rankbiased as O

POOL = ['d1', 'd10', 'd2', 'd9', 'D3', 'a', 'b7', 'z0']
QIDS = ['q1', '2', 'q3']
REF_MEASURES = ('RBR', 'RBR_res', 'RBA', 'RBA_res', 'RBO', 'RBO_res', 'RBO_ext')
PAIRS = (('RBP', 'RBP_res'), ('RBR', 'RBR_res'), ('RBA', 'RBA_res'), ('RBO', 'RBO_res'))
TOL = 1e-9

SETTINGS = settings(max_examples=examples(200), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------------------------
# strategies

def scored(draw, max_size, max_score):
    docs = draw(st.lists(st.sampled_from(POOL), max_size=max_size, unique=True))
    return {d: float(draw(st.integers(0, max_score))) for d in docs}


@st.composite
def collections(draw):
    """(qrels, run, ref_run): dicts of dicts; empty queries dropped (they do not exist in a file)."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True))
    qrels, run, ref_run = {}, {}, {}
    for q in qids:
        run[q] = scored(draw, 6, 4)
        judged = draw(st.lists(st.sampled_from(POOL), max_size=6, unique=True))
        qrels[q] = {d: draw(st.integers(0, 3)) for d in judged}
        ref_run[q] = scored(draw, 6, 3)
    if draw(st.booleans()):  # a query only in the run (ignored whenever qrels are given)
        run['q4'] = scored(draw, 4, 4)
    qrels = {q: v for q, v in qrels.items() if v}
    run = {q: v for q, v in run.items() if v}
    ref_run = {q: v for q, v in ref_run.items() if v}
    # a query only in the reference (never in the query set); it also keeps the reference file
    # non-empty (an empty reference file is an input error, not an empty ranking)
    ref_run['q9'] = {'d1': 1.0, 'a': 0.0}
    assume(qrels and run)
    return qrels, run, ref_run


ps = st.floats(min_value=0.05, max_value=0.95, allow_nan=False)
cutoffs = st.one_of(st.none(), st.integers(1, 6))
rels = st.sampled_from(['default', 1, 2, 3])


@st.composite
def untied_ranking(draw, min_size=0, max_size=6):
    return draw(st.lists(st.sampled_from(POOL), min_size=min_size, max_size=max_size, unique=True))


def as_run(qid, ranking):
    return O.ranked_run(qid, ranking)


# ---------------------------------------------------------------------------------------------
# plumbing

def parse(m):
    import ir_rbstar
    return ir_rbstar.parse_measure(m)


def measure_set(p, k, rel_ref, rel_rbp, ref=None, names=O.MEASURES, ties=None):
    """{name: measure string}; ``ties`` None leaves the default ('expected')."""
    out = {}
    for name in names:
        rel = rel_rbp if name in ('RBP', 'RBP_res') else rel_ref
        out[name] = O.measure_string(name, p, k, rel, None if name in ('RBP', 'RBP_res') else ref, ties)
    return out


def expected_values(ms, qrels, run, p, k, rel_ref, rel_rbp, ref_run=None, ties='expected'):
    exp = {}
    for name, m in ms.items():
        rel = rel_rbp if name in ('RBP', 'RBP_res') else rel_ref
        vals = O.evaluate(name, qrels, run, p=p, k=k, rel=rel,
                          ref_run=None if name in ('RBP', 'RBP_res') else ref_run, ties=ties)
        for q, v in vals.items():
            exp[(q, str(parse(m)))] = v
    return exp


def assert_matches(got, exp, context, at_least=()):
    """Every value as the oracle's; those of the measures in ``at_least`` (residuals that are an upper
    bound of the mean over tie orders rather than that mean) at least the oracle's mean."""
    missing = set(exp) - set(got)
    extra = set(got) - set(exp)
    assert not missing, 'no value for %r\n%s' % (sorted(missing), context)
    assert not extra, 'values for queries outside the query set: %r\n%s' % (sorted(extra), context)
    for key, want in exp.items():
        if key[1] in at_least:
            assert got[key] >= want - TOL, '%s: package %r below the mean %r\n%s' % (key, got[key], want, context)
            continue
        assert got[key] == pytest.approx(want, abs=TOL), \
            '%s: package %r, oracle %r\n%s' % (key, got[key], want, context)


def pipeline_names(ms, k, rel_rbp):
    """Measures ir_measures' pipeline routes to this package: all but RBP(rel=..) without a cutoff,
    which cwl_eval serves (compared separately below)."""
    return [n for n in ms if not (n == 'RBP' and rel_rbp != 'default' and k is None)]


def shuffled_df(df, seed):
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def write_shuffled_trec(path, run, seed):
    lines = []
    for qid, docs in run.items():
        for rank, doc in enumerate(O.run_ranking(docs), start=1):
            lines.append('%s Q0 %s %d %r shuf\n' % (qid, doc, rank, float(docs[doc])))
    random.Random(seed).shuffle(lines)
    with open(path, 'w') as f:
        f.writelines(lines)
    return str(path)


def ctx(**kw):
    return '\n'.join('  %s = %r' % kv for kv in kw.items())


# ---------------------------------------------------------------------------------------------
# the oracles themselves: bounds and the brute-force RBO_max check (no package involved)

@settings(max_examples=examples(100), deadline=None)
@given(B=st.lists(st.sampled_from("abcdefg"), max_size=8), R=st.lists(st.sampled_from("abcdefg"), max_size=8),
       extra=st.integers(0, 3))
def test_oracle_overlaps_are_the_overlap_at_every_depth(B, R, extra):
    """The oracles' depth-by-depth X_d (one pass) is the set intersection of the two prefixes at every
    depth, repeated items and depths past both ends included."""
    n = max(len(B), len(R)) + extra
    assert O.overlaps(B, R, n) == [len(set(B[:d]) & set(R[:d])) for d in range(n + 1)]


@SETTINGS
@given(B=untied_ranking(max_size=4), R=untied_ranking(max_size=4), p=ps)
def test_oracle_rbo_max_matches_bruteforce(B, R, p):
    assert O.rbo_max_untied(B, R, p) == pytest.approx(O.rbo_max_bruteforce(B, R, p, extra=1), abs=1e-12)


@settings(max_examples=examples(40), deadline=None)
@given(B=untied_ranking(max_size=3), R=untied_ranking(max_size=3), p=ps)
def test_oracle_rbo_max_matches_bruteforce_deeper(B, R, p):
    assert O.rbo_max_untied(B, R, p) == pytest.approx(O.rbo_max_bruteforce(B, R, p, extra=2), abs=1e-12)


@SETTINGS
@given(data=collections(), p=ps, k=cutoffs, rel_ref=rels, rel_rbp=rels, use_ref_run=st.booleans())
def test_oracle_bounds(data, p, k, rel_ref, rel_rbp, use_ref_run):
    qrels, run, ref_run = data
    ref_run = ref_run if use_ref_run else None
    vals = {}
    for name in O.MEASURES:
        rel = rel_rbp if name in ('RBP', 'RBP_res') else rel_ref
        vals[name] = O.evaluate(name, qrels, run, p, k, rel, None if name.startswith('RBP') else ref_run)
    for q in qrels:
        for base, res in PAIRS:
            b, r = vals[base][q], vals[res][q]
            assert -1e-12 <= b <= b + r <= 1 + 1e-12, (q, base, b, r)
            assert r >= -1e-12
        assert vals['RBO'][q] - 1e-12 <= vals['RBO_ext'][q] <= vals['RBO'][q] + vals['RBO_res'][q] + 1e-12


# ---------------------------------------------------------------------------------------------
# package == oracle

def few_orders(run, ref_run=None):
    """Whether enumerating the tie orders of every query stays cheap."""
    return all(O.count_orders(run[q]) * O.count_orders((ref_run or {}).get(q, {})) <= 2000 for q in run)


def bounded(ms, ties, k, run_reference):
    """The residuals that are an upper bound of the mean over the run's tie orders, not that mean
    (see the declarations of RBA_res and RBO_res): with a qrels-derived reference RBA_res (at most
    1 - RBA) and RBO_res; with a reference run RBA_res when a tie group may straddle the cutoff."""
    if ties == 'docid':
        return set()
    names = ('RBA_res',) if run_reference and k is not None else () if run_reference else ('RBA_res', 'RBO_res')
    return {str(parse(ms[n])) for n in names if n in ms}


@SETTINGS
@given(data=collections(), p=ps, k=cutoffs, rel_ref=rels, rel_rbp=rels,
       qrels_form=st.sampled_from(['df', 'dict']), run_form=st.sampled_from(['df', 'dict', 'file']),
       ties=st.sampled_from([None, 'docid']))
def test_package_matches_oracle_qrels_reference(data, p, k, rel_ref, rel_rbp, qrels_form, run_form, ties):
    qrels, run, _ = data
    assume(few_orders(run))
    ms = measure_set(p, k, rel_ref, rel_rbp, ties=ties)
    exp = expected_values(ms, qrels, run, p, k, rel_ref, rel_rbp, ties=ties or 'expected')
    at_least = bounded(ms, ties, k, run_reference=False)
    with tempfile.TemporaryDirectory() as tmp:
        q_in = O.qrels_df(qrels) if qrels_form == 'df' else qrels
        r_in = {'df': lambda: O.run_df(run), 'dict': lambda: run,
                'file': lambda: O.write_trec_run(os.path.join(tmp, 'run.txt'), run)}[run_form]()
        context = ctx(qrels=qrels, run=run, p=p, k=k, rel_ref=rel_ref, rel_rbp=rel_rbp,
                      qrels_form=qrels_form, run_form=run_form, ties=ties)
        got = O.per_query(list(ms.values()), q_in, r_in, via='provider')
        assert_matches(got, exp, context, at_least)
        names = pipeline_names(ms, k, rel_rbp)
        got = O.per_query([ms[n] for n in names], q_in, r_in, via='pipeline')
        assert_matches(got, {key: v for key, v in exp.items()
                             if key[1] in {str(parse(ms[n])) for n in names}}, context, at_least)


@SETTINGS
@given(data=collections(), p=ps, k=cutoffs, rel_ref=rels, rel_rbp=rels,
       ref_form=st.sampled_from(['file', 'registered_df', 'registered_dict', 'registered_path']),
       with_qrels=st.booleans(), ties=st.sampled_from([None, 'docid']))
def test_package_matches_oracle_run_reference(data, p, k, rel_ref, rel_rbp, ref_form, with_qrels, ties):
    import ir_rbstar
    qrels, run, ref_run = data
    assume(few_orders(run, ref_run))
    with tempfile.TemporaryDirectory() as tmp:
        path = O.write_trec_run(os.path.join(tmp, 'ref.run'), ref_run)
        if ref_form == 'file':
            ref = path
        else:
            ref = 'prop_%s' % uuid.uuid4().hex
            ir_rbstar.register_run(ref, {'registered_df': lambda: O.run_df(ref_run),
                                         'registered_dict': lambda: ref_run,
                                         'registered_path': lambda: path}[ref_form]())
        names = O.MEASURES if with_qrels else REF_MEASURES
        ms = measure_set(p, k, rel_ref, rel_rbp, ref=ref, names=names, ties=ties)
        q_in = qrels if with_qrels else None
        exp = expected_values(ms, q_in, run, p, k, rel_ref, rel_rbp, ref_run=ref_run, ties=ties or 'expected')
        at_least = bounded(ms, ties, k, run_reference=True)
        context = ctx(qrels=q_in, run=run, ref_run=ref_run, p=p, k=k, rel_ref=rel_ref,
                      rel_rbp=rel_rbp, ref_form=ref_form, ties=ties)
        got = O.per_query(list(ms.values()), None if q_in is None else O.qrels_df(q_in),
                          O.run_df(run), via='provider')
        assert_matches(got, exp, context, at_least)
        pn = pipeline_names(ms, k, rel_rbp)
        got = O.per_query([ms[n] for n in pn], q_in, run, via='pipeline')
        assert_matches(got, {key: v for key, v in exp.items()
                             if key[1] in {str(parse(ms[n])) for n in pn}}, context, at_least)


# ---------------------------------------------------------------------------------------------
# invariants on the package's output

@SETTINGS
@given(data=collections(), p=ps, k=cutoffs, rel_ref=rels, rel_rbp=rels, use_ref_run=st.booleans())
def test_package_bounds(data, p, k, rel_ref, rel_rbp, use_ref_run):
    qrels, run, ref_run = data
    with tempfile.TemporaryDirectory() as tmp:
        ref = O.write_trec_run(os.path.join(tmp, 'ref.run'), ref_run) if use_ref_run else None
        ms = measure_set(p, k, rel_ref, rel_rbp, ref=ref)
        got = O.per_query(list(ms.values()), qrels, run, via='provider')
    for q in qrels:
        v = {name: got[(q, str(parse(m)))] for name, m in ms.items()}
        for base, res in PAIRS:
            assert -1e-12 <= v[base] <= v[base] + v[res] <= 1 + 1e-12, (q, base, v)
            assert v[res] >= -1e-12, (q, res, v)
        assert v['RBO'] - 1e-12 <= v['RBO_ext'] <= v['RBO'] + v['RBO_res'] + 1e-12, (q, v)


@SETTINGS
@given(B=untied_ranking(), R=untied_ranking(), p=ps)
def test_package_rba_symmetric_untied(B, R, p):
    with tempfile.TemporaryDirectory() as tmp:
        path_R = O.write_trec_run(os.path.join(tmp, 'R.run'), as_run('q', R)) if R else None
        path_B = O.write_trec_run(os.path.join(tmp, 'B.run'), as_run('q', B)) if B else None
        # an empty list cannot be written as a run; use a registered empty-for-this-query run then
        if path_R is None:
            path_R = O.write_trec_run(os.path.join(tmp, 'R.run'), {'other': {'zz': 1.0}})
        if path_B is None:
            path_B = O.write_trec_run(os.path.join(tmp, 'B.run'), {'other': {'zz': 1.0}})
        qrels = {'q': {'zz': 0}}  # fixes the query set to {q}; judgments are irrelevant to RBA
        ab = O.per_query([O.measure_string('RBA', p, ref=path_R)], qrels, as_run('q', B) if B else {'x': {'y': 1.0}})
        ba = O.per_query([O.measure_string('RBA', p, ref=path_B)], qrels, as_run('q', R) if R else {'x': {'y': 1.0}})
    ab, ba = list(ab.values()), list(ba.values())
    assert len(ab) == len(ba) == 1
    assert ab[0] == pytest.approx(ba[0], abs=TOL)
    assert ab[0] == pytest.approx(O.rba_untied(B, R, p), abs=TOL)


@SETTINGS
@given(R=untied_ranking(), run_docs=st.dictionaries(st.sampled_from(POOL), st.integers(0, 4), min_size=1, max_size=6),
       p=ps, k=cutoffs, ref_kind=st.sampled_from(['file', 'qrels']))
def test_package_rbr_equals_rbp_of_reference(R, run_docs, p, k, ref_kind):
    # RBR(B|R) = RBP(R|B) (eq. 7) with R untied: RBR of the run's top k against R, and RBP(rel=1) of
    # R's ranking as a run with B's items as the relevant set (B: the run's top k in trec_eval's order,
    # ties broken by document id: ties='docid')
    run = {'q': {d: float(s) for d, s in run_docs.items()}}
    B = O.observation(run['q'], k)
    with tempfile.TemporaryDirectory() as tmp:
        if ref_kind == 'file':
            assume(R)
            ref = O.write_trec_run(os.path.join(tmp, 'R.run'), as_run('q', R))
            rbr = O.per_query([O.measure_string('RBR', p, k, ref=ref, ties='docid')], None, run)
        else:  # distinct grades: R[0] gets the highest
            qrels = O.graded_qrels('q', R) if R else {'q': {'zz': 0}}
            rbr = O.per_query([O.measure_string('RBR', p, k, ties='docid')], qrels, run)
        rbp_run = as_run('q', R) if R else {'other': {'zz': 1.0}}
        rbp = O.per_query([O.measure_string('RBP', p, rel=1)], {'q': {e: 1 for e in B}}, rbp_run,
                          via='provider')
    assert rbr[('q', str(parse(O.measure_string('RBR', p, k, ref=ref if ref_kind == 'file' else None,
                                                ties='docid'))))] \
        == pytest.approx(rbp[('q', str(parse(O.measure_string('RBP', p, rel=1))))], abs=TOL)
    assert list(rbr.values())[0] == pytest.approx(O.rbr_untied(B, R, p), abs=TOL)


@SETTINGS
@given(data=collections(), p=ps, k=cutoffs, rel_ref=rels, rel_rbp=rels, seed=st.integers(0, 10 ** 6))
def test_package_row_order_independent(data, p, k, rel_ref, rel_rbp, seed):
    import ir_rbstar
    qrels, run, ref_run = data
    with tempfile.TemporaryDirectory() as tmp:
        ref_file = O.write_trec_run(os.path.join(tmp, 'ref.run'), ref_run)
        ref_file_shuf = write_shuffled_trec(os.path.join(tmp, 'ref_shuf.run'), ref_run, seed)
        run_file_shuf = write_shuffled_trec(os.path.join(tmp, 'run_shuf.run'), run, seed + 1)
        name_a, name_b = 'ord_%s' % uuid.uuid4().hex, 'ord_%s' % uuid.uuid4().hex
        ir_rbstar.register_run(name_a, O.run_df(ref_run))
        ir_rbstar.register_run(name_b, shuffled_df(O.run_df(ref_run), seed + 2))
        # the reference from the qrels, from a file and registered, in order (a) and shuffled (b): the
        # measures of all three in one evaluation per input (each its own measure, with its own ref)
        pairs = {}
        for ref_a, ref_b in ((None, None), (ref_file, ref_file_shuf), (name_a, name_b)):
            ms_a = measure_set(p, k, rel_ref, rel_rbp, ref=ref_a)
            ms_b = measure_set(p, k, rel_ref, rel_rbp, ref=ref_b)
            for name in ms_a:
                pairs[str(parse(ms_a[name]))] = (str(parse(ms_b[name])), name, ref_a)
        a = O.per_query(list(pairs), O.qrels_df(qrels), O.run_df(run), via='provider')
        for q_in, r_in in ((shuffled_df(O.qrels_df(qrels), seed), shuffled_df(O.run_df(run), seed + 3)),
                           (shuffled_df(O.qrels_df(qrels), seed + 4), run_file_shuf)):
            b = O.per_query(list(dict.fromkeys(kb for kb, _, _ in pairs.values())), q_in, r_in, via='provider')
            for ka, (kb, name, ref_a) in pairs.items():
                for q in qrels:
                    assert a[(q, ka)] == pytest.approx(b[(q, kb)], abs=1e-12), \
                        (name, q, ref_a, a[(q, ka)], b[(q, kb)])


@SETTINGS
@given(data=collections(), p=ps, k=cutoffs, rel_ref=rels, rel_rbp=rels, use_ref_run=st.booleans())
def test_package_queries_independent(data, p, k, rel_ref, rel_rbp, use_ref_run):
    qrels, run, ref_run = data
    with tempfile.TemporaryDirectory() as tmp:
        ref = O.write_trec_run(os.path.join(tmp, 'ref.run'), ref_run) if use_ref_run else None
        ms = measure_set(p, k, rel_ref, rel_rbp, ref=ref)
        together = O.per_query(list(ms.values()), qrels, run, via='provider')
        for q in qrels:
            run_q = {q: run[q]} if q in run else {'absent': {'zz': 1.0}}
            # full qrels, this query's run only: identical values for q
            alone = O.per_query(list(ms.values()), qrels, run_q, via='provider')
            for name, m in ms.items():
                key = (q, str(parse(m)))
                assert alone[key] == pytest.approx(together[key], abs=1e-12), (name, q)
            # this query's qrels and run only: identical values for q, except graded RBP, whose
            # normaliser G is the highest grade in the whole qrels by contract
            alone = O.per_query(list(ms.values()), {q: qrels[q]}, run_q, via='provider')
            assert {key[0] for key in alone} == {q}
            for name, m in ms.items():
                if name == 'RBP' and rel_rbp == 'default':
                    continue
                key = (q, str(parse(m)))
                assert alone[key] == pytest.approx(together[key], abs=1e-12), (name, q)


# ---------------------------------------------------------------------------------------------
# independent implementations

@SETTINGS
@given(B=untied_ranking(min_size=1), R=untied_ranking(min_size=1), p=ps)
def test_rbo_ext_against_pypi_rbo(B, R, p):
    """PyPI ``rbo`` 0.1.3, ``RankingSimilarity(S, T).rbo_ext(p)``, implements Webber et al. eq. 32 for
    uneven lengths (its agreement A_d = 2 X_d / (|S_d| + |L_d|) equals X_d / d for lists without
    duplicates), the same quantity as RBO_ext here.  Conventions differ only for empty lists (it
    returns 1 for two empty lists) and it requires duplicate-free lists, so only non-empty untied lists
    are compared."""
    rbo = pytest.importorskip("rbo", reason="PyPI rbo is not installed (it pins numpy < 2; the fixture tests below use its stored values)")
    theirs = rbo.RankingSimilarity(list(B), list(R)).rbo_ext(p)
    assert O.rbo_ext_untied(B, R, p) == pytest.approx(theirs, abs=TOL)
    with tempfile.TemporaryDirectory() as tmp:
        ref = O.write_trec_run(os.path.join(tmp, 'R.run'), as_run('q', R))
        got = O.per_query([O.measure_string('RBO_ext', p, ref=ref)], None, as_run('q', B))
    assert list(got.values())[0] == pytest.approx(theirs, abs=TOL)


@SETTINGS
@given(B=untied_ranking(min_size=1), R=untied_ranking(min_size=1), p=ps, equal=st.booleans())
def test_rbo_min_against_pypi_rbo(B, R, p, equal):
    """PyPI ``rbo``'s ``.rbo(p=p)`` (k=None) is the prefix sum (1-p)/p sum_{d=1..s} p^d X_d/d over the
    shorter list's depth s, with no tail (Webber eq. 7 truncated).  RBO (RBO_min) adds the rest of
    eq. 5 with both lists frozen, so (a) RBO >= rbo.rbo(p) always, and (b) for equal lengths k,
    RBO = rbo.rbo(p) + (1-p)/p X_k (-ln(1-p) - sum_{d<=k} p^d/d) exactly."""
    rbo = pytest.importorskip("rbo", reason="PyPI rbo is not installed (it pins numpy < 2; the fixture tests below use its stored values)")
    if equal:
        n = min(len(B), len(R))
        B, R = B[:n], R[:n]
    prefix = rbo.RankingSimilarity(list(B), list(R)).rbo(p=p)
    with tempfile.TemporaryDirectory() as tmp:
        ref = O.write_trec_run(os.path.join(tmp, 'R.run'), as_run('q', R))
        got = list(O.per_query([O.measure_string('RBO', p, ref=ref)], None, as_run('q', B)).values())[0]
    assert got >= prefix - TOL
    if len(B) == len(R):
        n = len(B)
        xk = len(set(B) & set(R))
        tail = (1 - p) / p * xk * (-math.log1p(-p) - sum(p ** d / d for d in range(1, n + 1)))
        assert got == pytest.approx(prefix + tail, abs=TOL)


def _pypi_rbo_cases():
    """PyPI rbo 0.1.3's values on 300 random pairs, generated once by scripts/make_rbo_fixtures.py (rbo pins
    numpy < 2, so the test extra does not install it; the two tests above use it wherever it is installed)."""
    import json
    from tests.helpers import REPO
    with open(os.path.join(REPO, 'tests', 'fixtures', 'rbo', 'pypi_rbo.json')) as f:
        doc = json.load(f)
    assert doc['rbo_version'] == '0.1.3' and len(doc['cases']) >= 200
    return doc['cases']


def _package_rbo(name, B, R, p):
    """The package's ``name`` (RBO or RBO_ext) of the ranking B against the reference R, one query."""
    import ir_rbstar
    from ir_rbstar.provider import PROVIDER
    m = ir_rbstar.parse_measure('%s(p=%r,ref=%r)' % (name, p, 'pypi_rbo_ref'))
    ev = PROVIDER.evaluator([m], None, runs={'pypi_rbo_ref': as_run('q', R)})
    return float(ev.values(as_run('q', B))[m][0])


def test_rbo_ext_against_pypi_rbo_fixtures():
    """As test_rbo_ext_against_pypi_rbo, on PyPI rbo's stored values (tests/fixtures/rbo): the oracle
    and the package's RBO_ext both equal rbo's rbo_ext."""
    for case in _pypi_rbo_cases():
        B, R, p, theirs = case['B'], case['R'], case['p'], case['rbo_ext']
        assert O.rbo_ext_untied(B, R, p) == pytest.approx(theirs, abs=TOL), case
        assert _package_rbo('RBO_ext', B, R, p) == pytest.approx(theirs, abs=TOL), case


def test_rbo_min_against_pypi_rbo_fixtures():
    """As test_rbo_min_against_pypi_rbo, on PyPI rbo's stored values: RBO >= rbo.rbo(p) always, and for
    equal lengths RBO = rbo.rbo(p) + (1-p)/p X_k (-ln(1-p) - sum_{d<=k} p^d/d) exactly."""
    equal = 0
    for case in _pypi_rbo_cases():
        B, R, p, prefix = case['B'], case['R'], case['p'], case['rbo_prefix']
        got = _package_rbo('RBO', B, R, p)
        assert got >= prefix - TOL, case
        if len(B) == len(R):
            equal += 1
            n = len(B)
            xk = len(set(B) & set(R))
            tail = (1 - p) / p * xk * (-math.log1p(-p) - sum(p ** d / d for d in range(1, n + 1)))
            assert got == pytest.approx(prefix + tail, abs=TOL), case
    assert equal >= 50          # the closed form is checked on many cases, not a few


@SETTINGS
@given(data=collections(), p=st.floats(min_value=0.05, max_value=0.95), rel=st.integers(1, 3))
def test_rbp_against_cwl_eval(data, p, rel):
    """ir_measures' cwl_eval provider computes RBP as sum gain_i w_i with w_i = p^(i-1) / sum_{j<1000}
    p^j (its max_n = 1000), i.e. (1-p) p^(i-1) / (1 - p^1000): identical to eq. 4 up to a factor
    1 - p^1000 (< 1e-22 away for p <= 0.95).  Gains: grade >= rel -> 1, unjudged -> 0.  It supports
    no cutoff, and orders a run by score only (ties in input order), so runs here have distinct
    scores; queries of the qrels absent from the run get ir_measures' default 0, as B = [] does."""
    import ir_measures
    qrels, run, _ = data
    run = {q: {d: float(len(docs) - i) for i, d in enumerate(O.run_ranking(docs))} for q, docs in run.items()}
    m = ir_measures.RBP(rel=rel, p=p)
    pytest.importorskip("cwl", reason="cwl-eval is in the test extra")
    theirs = {str(x.query_id): x.value for x in ir_measures.cwl_eval.iter_calc([m], qrels, run)}
    ours = O.per_query([m], qrels, run, via='provider')
    for q in qrels:
        assert ours[(q, str(m))] == pytest.approx(theirs[q], abs=TOL), q
        assert ours[(q, str(m))] == pytest.approx(O.rbp(O.observation(run.get(q, {})), qrels[q], p, rel), abs=TOL)
    agg_theirs = ir_measures.cwl_eval.calc_aggregate([m], qrels, run)[m]
    agg_ours = O.package_provider().calc_aggregate([m], qrels, run)[m]
    assert agg_ours == pytest.approx(agg_theirs, abs=TOL)


@settings(max_examples=examples(200), deadline=None)
@given(p=st.floats(min_value=0.01, max_value=0.99), k=st.lists(st.integers(0, 5000), max_size=50))
def test_powers_by_table_equal_elementwise_pow(p, k):
    """RBP's weights p^(rank-1) come from a table of distinct powers: the same numbers as ``pow`` on
    every element (float exponents, negative or very large ones take ``pow`` directly)."""
    import numpy as np
    from ir_rbstar.core.rankbiased import powers
    ks = np.array(k, dtype=np.int64)
    assert np.array_equal(powers(p, ks), np.power(p, ks.astype(np.float64)))
    assert np.array_equal(powers(p, ks.astype(np.float64)), np.power(p, ks.astype(np.float64)))
    assert np.array_equal(powers(p, ks - 3), np.power(p, (ks - 3).astype(np.float64)))
