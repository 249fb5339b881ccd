"""Worked examples for the rank-biased family of Moffat, Mackenzie, Mallia & Petri (SIGIR-AP 2024,
doi:10.1145/3673791.3698405).

Each example is checked twice: first against the straight-from-the-definition oracles in
``tests/oracles/rankbiased.py`` (these checks do not touch the package), then through the package via
ir_measures measure strings, with the reference given as qrels, as a TREC run file and as a registered run.
"""
import math
import uuid

import pytest

from tests.oracles import rankbiased as O


# ---------------------------------------------------------------------------------------------
# the paper's inputs

T1_R = ['D07', 'D04', 'D11', 'D12', 'D10', 'D15', 'D06', 'D22', 'D19', 'D28']
T1_B = ['D06', 'D23', 'D10', 'D07', 'D04']
T1_TIES = [['D07', 'D04', 'D11'], ['D12'], ['D10', 'D15'], ['D06'], ['D22', 'D19', 'D28']]

T2_P = {'f=0.5': 0.5 ** (1.0 / 3.0), 'f=0.3': 0.3 ** (1.0 / 3.0)}
T2_R = ['R%d' % i for i in range(1, 11)]
T2_ROWS = {  # memberships (1-based positions in R) and the paper's values (phi=0.794, phi=0.669)
    'B1': ([1, 2, 3], 0.500, 0.700),
    'B2': ([2, 3, 4], 0.397, 0.469),
    'B3': ([3, 4, 5], 0.315, 0.314),
    'B4': ([4, 5, 6], 0.250, 0.210),
    'B5': ([2, 4, 5, 6], 0.414, 0.431),
    'B6': ([1, 2, 5, 7, 10], 0.529, 0.657),
}

T3_R = [str(i) for i in range(1, 11)]
T3_PS = (0.6, 0.7, 0.8)
T3_ROWS = [  # observation, RBO at p=.6/.7/.8, RBA at p=.6/.7/.8, as printed (2 d.p.)
    ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], (1.00, 0.99, 0.97), (0.99, 0.97, 0.89)),
    ([2, 1, 4, 3, 6, 5, 8, 7, 10, 9], (0.54, 0.62, 0.70), (0.96, 0.96, 0.89)),
    ([5, 4, 3, 2, 1, 10, 9, 8, 7, 6], (0.23, 0.33, 0.46), (0.78, 0.86, 0.85)),
    ([6, 7, 8, 9, 10, 1, 2, 3, 4, 5], (0.04, 0.10, 0.22), (0.51, 0.68, 0.77)),
    ([10, 9, 8, 7, 6, 5, 4, 3, 2, 1], (0.04, 0.10, 0.22), (0.40, 0.60, 0.73)),
]
# Rounding notes for Table 3 (exact values from the definitions, 4 d.p.):
#   RBO row 1: 0.9989 / 0.9937 / 0.9690 -> 1.00 / 0.99 / 0.97.  Row 1 is B = R, yet RBO < 1: Table 3
#     prints RBO_min (the overlap frozen at 10 after depth 10), not RBO_ext (which would be 1).
#   RBA row 2, p=0.7: 0.9565 prints as 0.96 (only 0.0065 above the 0.955 rounding boundary);
#   RBA row 3, p=0.8: 0.8497 prints as 0.85; RBO row 2, p=0.8: 0.6988 prints as 0.70.
#   Every printed value is the exact value rounded half-up to 2 d.p., so |exact - printed| <= 0.005
#   is the right tolerance; none of the 30 sits within 1e-4 of a rounding boundary.

TABLE3_TOL = 0.005


def figure5(pairing):
    """Figure 5 (p = 0.7) is not printed as lists, only its numbers; this is a reconstruction.
    The residual terms (1-p) p^(avg-1) with avg ranks 7.5, 9, 7, 9.5 and the tail p^11 fix the
    layout: |B∪R| = 11, four unmatched items, so 7 shared items; with the B-only items processed
    first (t = |R|+1, |R|+2) and the R-only items next (t = |B|+1, |B|+2), the only consistent layout
    is |B| = |R| = 9, B-only items at B positions 5 and 7, R-only items at R positions 4 and 8.  The
    7 shared items occupy B positions 1,2,3,4,6,8,9 and R positions 1,2,3,5,6,7,9; which is paired
    with which is not recoverable: exactly three pairings give the printed base 0.835, and all
    three are tested.  (The paper's text writes the residual as (1-p)(p^7.5+p^9+p^7+p^9.5), which is
    0.068; the printed 0.097 is (1-p)/p times that bracket, i.e. Algorithm 1's
    sum (1-p) p^(avg-1) -- the value Algorithm 1 and this package's contract give.)"""
    bpos = [1, 2, 3, 4, 6, 8, 9]
    B = [None] * 9
    R = [None] * 9
    B[5 - 1], B[7 - 1] = 'b_only1', 'b_only2'
    R[4 - 1], R[8 - 1] = 'r_only1', 'r_only2'
    for j, (bp, rp) in enumerate(zip(bpos, pairing)):
        B[bp - 1] = 's%d' % j
        R[rp - 1] = 's%d' % j
    return B, R


FIG5_PAIRINGS = [(1, 2, 3, 6, 5, 9, 7), (1, 3, 2, 5, 6, 7, 9), (1, 2, 3, 5, 7, 9, 6)]


def untied(R, known=None):
    return O.Reference([[e] for e in R], set(R) if known is None else set(known))


# =============================================================================================
# Part 1: the oracles reproduce the paper


def test_table1_oracle_run_reference():
    ref = untied(T1_R)
    assert O.rbr(T1_B, ref, 0.6) == pytest.approx(0.7105, abs=5e-5)
    assert O.rbr_res(T1_B, ref, 0.6) == pytest.approx(0.00242, abs=1e-5)
    # the per-item contributions printed in Table 1
    contrib = [O.rbr([e], ref, 0.6) for e in T1_B]
    for got, printed in zip(contrib, [0.019, 0.000, 0.052, 0.400, 0.240]):
        assert got == pytest.approx(printed, abs=5e-4)
    # paper's residual: b = 1, |R| = 10 -> (1-p)/p p^11
    assert O.rbr_res(T1_B, ref, 0.6) == pytest.approx(0.4 / 0.6 * 0.6 ** 11, abs=1e-15)


def test_table1_oracle_qrels_reference():
    qrels = O.graded_qrels('q1', T1_R)  # D07 grade 10, D04 9, ..., D28 1; D23 unjudged
    assert qrels['q1']['D07'] == 10 and qrels['q1']['D28'] == 1 and 'D23' not in qrels['q1']
    ref = O.ref_from_qrels(qrels['q1'], rel=1)
    assert ref.groups == [[d] for d in T1_R]
    assert O.rbr(T1_B, ref, 0.6) == pytest.approx(0.7105, abs=5e-5)
    assert O.rbr_res(T1_B, ref, 0.6) == pytest.approx(0.00242, abs=1e-5)
    # if D23 were judged non-relevant it would be known not to be in R: no residual
    qrels['q1']['D23'] = 0
    ref = O.ref_from_qrels(qrels['q1'], rel=1)
    assert O.rbr_res(T1_B, ref, 0.6) == 0.0
    assert O.rbr(T1_B, ref, 0.6) == pytest.approx(0.7105, abs=5e-5)


def test_table1_ties_oracle():
    ref = O.Reference(T1_TIES, set(T1_R))
    assert O.rbr(T1_B, ref, 0.6) == pytest.approx(0.5828, abs=5e-5)
    # the paper's shares: D07/D04/D11 get (0.400+0.240+0.144)/3 = 0.261, D10/D15 get 0.041
    assert O.rbr(['D07'], ref, 0.6) == pytest.approx(0.261, abs=5e-4)
    assert O.rbr(['D10'], ref, 0.6) == pytest.approx(0.041, abs=5e-4)
    # exact: (1-p)(1+p+p^2)/3 * 2 + (1-p)(p^4+p^5)/2 + (1-p)p^6
    exact = 0.4 * (1 + 0.6 + 0.36) / 3 * 2 + 0.4 * (0.6 ** 4 + 0.6 ** 5) / 2 + 0.4 * 0.6 ** 6
    assert O.rbr(T1_B, ref, 0.6) == pytest.approx(exact, abs=1e-12)
    # same numbers from tied qrels grades
    qrels = {'D07': 5, 'D04': 5, 'D11': 5, 'D12': 4, 'D10': 3, 'D15': 3, 'D06': 2,
             'D22': 1, 'D19': 1, 'D28': 1}
    ref_q = O.ref_from_qrels(qrels, rel=1)
    assert O.rbr(T1_B, ref_q, 0.6) == pytest.approx(exact, abs=1e-12)
    # and from a tied reference run
    ref_r = O.ref_from_run({d: float(g) for d, g in qrels.items()})
    assert O.rbr(T1_B, ref_r, 0.6) == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize('row', sorted(T2_ROWS))
def test_table2_oracle(row):
    members, v1, v2 = T2_ROWS[row]
    B = [T2_R[i - 1] for i in members]
    ref = untied(T2_R)
    assert O.rbr(B, ref, T2_P['f=0.5']) == pytest.approx(v1, abs=5e-4)
    assert O.rbr(B, ref, T2_P['f=0.3']) == pytest.approx(v2, abs=5e-4)
    assert O.rbr_res(B, ref, T2_P['f=0.5']) == 0.0
    assert O.rbr_res(B, ref, T2_P['f=0.3']) == 0.0


def test_table2_exact_relations():
    # B1 = R_{1..3} scores 1 - p^3 = 1 - f exactly; B4 = R_{4..6} scores f (1 - f) (eq. 10)
    ref = untied(T2_R)
    for f, p in ((0.5, T2_P['f=0.5']), (0.3, T2_P['f=0.3'])):
        b1 = O.rbr(T2_R[0:3], ref, p)
        b4 = O.rbr(T2_R[3:6], ref, p)
        assert b1 == pytest.approx(1 - f, abs=1e-12)
        assert b4 == pytest.approx(f * b1, abs=1e-12)


@pytest.mark.parametrize('row', range(len(T3_ROWS)))
def test_table3_oracle(row):
    obs, rbo_printed, rba_printed = T3_ROWS[row]
    B = [str(i) for i in obs]
    ref = untied(T3_R)
    for p, want_rbo, want_rba in zip(T3_PS, rbo_printed, rba_printed):
        assert abs(O.rbo(B, ref, p) - want_rbo) <= TABLE3_TOL, (row, p, O.rbo(B, ref, p))
        assert abs(O.rba(B, ref, p) - want_rba) <= TABLE3_TOL, (row, p, O.rba(B, ref, p))


def test_table3_rbo_rows_4_and_5_equal():
    # the paper's point: rows 4 and 5 have the same overlap at every depth, hence equal RBO
    ref = untied(T3_R)
    B4 = [str(i) for i in T3_ROWS[3][0]]
    B5 = [str(i) for i in T3_ROWS[4][0]]
    for p in T3_PS:
        assert O.rbo(B4, ref, p) == pytest.approx(O.rbo(B5, ref, p), abs=1e-12)
        assert O.rba(B4, ref, p) > O.rba(B5, ref, p)


@pytest.mark.parametrize('p', [0.1, 0.5, 0.6, 0.7, 0.8, 0.95])
def test_identities_oracle(p):
    # RBR(B|R) = RBP(R|B) (eq. 7): R's ranking as the run, B's items the relevant set
    ref = untied(T1_R)
    qrels_B = {e: 1 for e in T1_B}
    assert O.rbr(T1_B, ref, p) == pytest.approx(O.rbp(T1_R, qrels_B, p, rel=1), abs=1e-12)
    # RBA(B|R) = RBA(R|B) (eq. 13)
    for obs, _, _ in T3_ROWS:
        B = [str(i) for i in obs]
        assert O.rba(B, untied(T3_R), p) == pytest.approx(O.rba(T3_R, untied(B), p), abs=1e-12)
    B, R = figure5(FIG5_PAIRINGS[0])
    assert O.rba(B, untied(R), p) == pytest.approx(O.rba(R, untied(B), p), abs=1e-12)
    # RBA(reverse(R), R) = (1-p)/p |R| p^((|R|+1)/2) (eq. 12)
    for n in (1, 2, 5, 10):
        R = ['x%d' % i for i in range(n)]
        eq12 = (1 - p) / p * n * p ** ((n + 1) / 2.0)
        assert O.rba(R[::-1], untied(R), p) == pytest.approx(eq12, abs=1e-12)
        # and fully aligned permutations reach the maximum 1 - p^n
        assert O.rba(R, untied(R), p) == pytest.approx(1 - p ** n, abs=1e-12)


@pytest.mark.parametrize('pairing', FIG5_PAIRINGS)
def test_figure5_oracle(pairing):
    p = 0.7
    B, R = figure5(pairing)
    ref = untied(R)
    assert O.rba(B, ref, p) == pytest.approx(0.835, abs=5e-4)
    res = O.rba_res(B, ref, p)
    extra = (1 - p) * (p ** 6.5 + p ** 8 + p ** 6 + p ** 8.5)  # avg ranks 7.5, 9, 7, 9.5
    assert extra == pytest.approx(0.097, abs=5e-4)
    assert p ** 11 == pytest.approx(0.020, abs=5e-4)
    assert res == pytest.approx(extra + p ** 11, abs=1e-12)
    # the upper bound is attained by the completion Algorithm 1 describes
    B_full = B + ['r_only1', 'r_only2'] + ['tail%d' % i for i in range(200)]
    R_full = R + ['b_only1', 'b_only2'] + ['tail%d' % i for i in range(200)]
    assert O.rba_untied(B_full, R_full, p) == pytest.approx(O.rba(B, ref, p) + res, abs=1e-12)


def test_rbp_oracle_hand_examples():
    p = 0.5
    qrels = {'q1': {'a': 1, 'b': 3, 'n': 0}, 'q2': {'c': 2}}
    G = 3
    # graded gain is grade / G with G = max_rel, the top of the grade scale, so q2's top doc counts 2/3
    assert O.rbp(['c'], qrels['q2'], p, None, G) == pytest.approx(0.5 * 2 / 3)
    B = ['a', 'x', 'b', 'n']  # x unjudged, n judged non-relevant
    assert O.rbp(B, qrels['q1'], p, None, G) == pytest.approx(0.5 * 1 / 3 + 0.125 * 3 / 3)
    assert O.rbp(B, qrels['q1'], p, 1, G) == pytest.approx(0.5 + 0.125)
    assert O.rbp(B, qrels['q1'], p, 2, G) == pytest.approx(0.125)
    assert O.rbp_res(B, qrels['q1'], p) == pytest.approx(0.25 + 0.5 ** 4)
    assert O.rbp_res(B[:2], qrels['q1'], p) == pytest.approx(0.25 + 0.5 ** 2)
    assert O.rbp_res([], qrels['q1'], p) == 1.0


def test_run_order_oracle():
    # score descending, ties by doc id descending as strings ('d9' > 'd10', 'b' > 'B')
    run = {'a': 1.0, 'b': 1.0, 'B': 1.0, 'd10': 2.0, 'd9': 2.0, 'z': 0.5}
    assert O.run_ranking(run) == ['d9', 'd10', 'b', 'a', 'B', 'z']
    assert O.observation(run, 3) == ['d9', 'd10', 'b']


def test_rbo_oracle_small_cases():
    p = 0.9
    # identical lists of length 1: RBO_min = (1-p)/p * (-ln(1-p)); RBO_ext = 1; RBO_max = 1
    assert O.rbo_min_untied(['a'], ['a'], p) == pytest.approx((1 - p) / p * -math.log(1 - p))
    assert O.rbo_ext_untied(['a'], ['a'], p) == pytest.approx(1.0)
    assert O.rbo_max_untied(['a'], ['a'], p) == pytest.approx(1.0)
    # disjoint lists of length 1: min 0, max = (1-p)/p (0 + sum_{d>=2} p^d min(d, 2(d-1))/d) = 1-(1-p)
    assert O.rbo_min_untied(['a'], ['b'], p) == 0.0
    assert O.rbo_max_untied(['a'], ['b'], p) == pytest.approx(p)
    # empty lists: RBO 0 and (everything can still happen) RBO_max 1
    assert O.rbo_min_untied([], [], p) == 0.0
    assert O.rbo_ext_untied([], [], p) == 0.0
    assert O.rbo_max_untied([], [], p) == pytest.approx(1.0)
    assert O.rbo_max_untied([], ['a', 'b'], p) == pytest.approx(1.0)
    for B, R in ((['a'], ['b']), (['a', 'b'], ['b']), ([], ['a']), (['a', 'b', 'c'], ['c', 'x'])):
        assert O.rbo_max_untied(B, R, p) == pytest.approx(O.rbo_max_bruteforce(B, R, p, 2), abs=1e-12)


# =============================================================================================
# Part 2: the same examples through the package

REF_MODES = ['qrels', 'file', 'registered']


@pytest.fixture
def pkg():
    import ir_rbstar
    import ir_measures  # noqa: F401
    return ir_rbstar


def reference(pkg, mode, qid, tmp_path, R=None, groups=None):
    """Return (qrels, ref) for a reference ranking given as an untied list R or as tie groups.
    qrels mode: the ranking becomes grades (best = highest), ref=None.  file / registered modes:
    the ranking becomes a run (best = highest score), qrels=None (query set = the run's queries)."""
    if groups is None:
        groups = [[e] for e in R]
    n = len(groups)
    scores = {e: n - i for i, g in enumerate(groups) for e in g}
    if mode == 'qrels':
        return {qid: {e: int(s) for e, s in scores.items()}}, None
    ref_run = {qid: {e: float(s) for e, s in scores.items()}}
    if mode == 'file':
        path = tmp_path / ('ref_%s.run' % uuid.uuid4().hex)
        return None, O.write_trec_run(path, ref_run)
    name = 'examples_%s' % uuid.uuid4().hex
    pkg.register_run(name, ref_run)
    return None, name


@pytest.mark.parametrize('mode', REF_MODES)
@pytest.mark.parametrize('cutoff', [None, 5])
def test_table1_package(pkg, mode, cutoff, tmp_path):
    qrels, ref = reference(pkg, mode, 'q1', tmp_path, R=T1_R)
    run = O.ranked_run('q1', T1_B)
    ms = [O.measure_string('RBR', 0.6, cutoff, ref=ref), O.measure_string('RBR_res', 0.6, cutoff, ref=ref)]
    got = O.per_query(ms, qrels, run)
    exact_rbr = O.rbr(T1_B, untied(T1_R), 0.6)
    exact_res = O.rbr_res(T1_B, untied(T1_R), 0.6)
    import ir_measures  # noqa: F401
    import ir_rbstar
    m_rbr, m_res = [str(ir_rbstar.parse_measure(m)) for m in ms]
    assert got[('q1', m_rbr)] == pytest.approx(0.7105, abs=5e-5)
    assert got[('q1', m_rbr)] == pytest.approx(exact_rbr, abs=1e-9)
    if mode != 'qrels':
        # a run reference: D23, unknown to R, can only come after R's end (the paper's 0.002)
        assert got[('q1', m_res)] == pytest.approx(0.00242, abs=1e-5)
        assert got[('q1', m_res)] == pytest.approx(exact_res, abs=1e-9)
    else:
        # a qrels-derived reference: D23, unjudged, may be judged above D07 and enter R at its top;
        # that completion attains the bound: RBR(B | D23, D07, D04, ...) - RBR = (1 - 0.6)(1 - RBR)
        best = O.rbr(T1_B, untied(['D23'] + T1_R), 0.6)
        assert got[('q1', m_res)] == pytest.approx(best - exact_rbr, abs=1e-9)
        assert got[('q1', m_res)] == pytest.approx(0.1158, abs=5e-5)


@pytest.mark.parametrize('mode', REF_MODES)
def test_table1_ties_package(pkg, mode, tmp_path):
    qrels, ref = reference(pkg, mode, 'q1', tmp_path, groups=T1_TIES)
    run = O.ranked_run('q1', T1_B)
    m = O.measure_string('RBR', 0.6, ref=ref)
    got = O.per_query([m], qrels, run)
    import ir_measures  # noqa: F401
    import ir_rbstar
    assert got[('q1', str(ir_rbstar.parse_measure(m)))] == pytest.approx(0.5828, abs=5e-5)
    assert got[('q1', str(ir_rbstar.parse_measure(m)))] == pytest.approx(
        O.rbr(T1_B, O.Reference(T1_TIES, set(T1_R)), 0.6), abs=1e-9)


def test_table1_parse_helper(pkg):
    # ir_rbstar.parse returns a list of measure objects, mixing built-in and package measures
    ms = pkg.parse('nDCG@10 RBR(p=0.6)@5 RBR_res(p=0.6)@5')
    assert len(ms) == 3
    import ir_measures  # noqa: F401
    import ir_rbstar
    assert ms[0] == ir_rbstar.parse_measure('nDCG@10')
    qrels = O.graded_qrels('q1', T1_R)
    run = O.ranked_run('q1', T1_B)
    got = O.per_query(ms[1:], qrels, run)
    assert got[('q1', str(ms[1]))] == pytest.approx(0.7105, abs=5e-5)
    # qrels-derived reference: D23 may be judged above D07 (see test_table1_package)
    assert got[('q1', str(ms[2]))] == pytest.approx(0.4 * (1 - got[('q1', str(ms[1]))]), abs=1e-9)


@pytest.mark.parametrize('mode', REF_MODES)
def test_table2_package(pkg, mode, tmp_path):
    import ir_measures  # noqa: F401
    import ir_rbstar
    qids = sorted(T2_ROWS)
    # one query per row of Table 2, all sharing the same reference ranking
    run = {}
    for row in qids:
        run.update(O.ranked_run(row, [T2_R[i - 1] for i in T2_ROWS[row][0]]))
    if mode == 'qrels':
        qrels = {row: O.graded_qrels(row, T2_R)[row] for row in qids}
        ref = None
    else:
        ref_run = {row: {e: float(10 - i) for i, e in enumerate(T2_R)} for row in qids}
        qrels = None
        if mode == 'file':
            ref = O.write_trec_run(tmp_path / 'table2_ref.run', ref_run)
        else:
            ref = 'table2_%s' % uuid.uuid4().hex
            pkg.register_run(ref, ref_run)
    ms = []
    for p in (T2_P['f=0.5'], T2_P['f=0.3']):
        ms += [O.measure_string('RBR', p, ref=ref), O.measure_string('RBR_res', p, ref=ref)]
    got = O.per_query(ms, qrels, run)
    names = [str(ir_rbstar.parse_measure(m)) for m in ms]
    for row in qids:
        _, v1, v2 = T2_ROWS[row]
        assert got[(row, names[0])] == pytest.approx(v1, abs=5e-4), row
        assert got[(row, names[2])] == pytest.approx(v2, abs=5e-4), row
        B = [T2_R[i - 1] for i in T2_ROWS[row][0]]
        assert got[(row, names[0])] == pytest.approx(O.rbr(B, untied(T2_R), T2_P['f=0.5']), abs=1e-9)
        assert got[(row, names[2])] == pytest.approx(O.rbr(B, untied(T2_R), T2_P['f=0.3']), abs=1e-9)
        assert got[(row, names[1])] == pytest.approx(0.0, abs=1e-12), row
        assert got[(row, names[3])] == pytest.approx(0.0, abs=1e-12), row


@pytest.mark.parametrize('mode', REF_MODES)
def test_table3_package(pkg, mode, tmp_path):
    import ir_measures  # noqa: F401
    import ir_rbstar
    run = {}
    for j, (obs, _, _) in enumerate(T3_ROWS):
        run.update(O.ranked_run('row%d' % j, [str(i) for i in obs]))
    qids = sorted(run)
    if mode == 'qrels':
        qrels = {q: O.graded_qrels(q, T3_R)[q] for q in qids}
        ref = None
    else:
        qrels = None
        ref_run = {q: {e: float(10 - i) for i, e in enumerate(T3_R)} for q in qids}
        if mode == 'file':
            ref = O.write_trec_run(tmp_path / 'table3_ref.run', ref_run)
        else:
            ref = 'table3_%s' % uuid.uuid4().hex
            pkg.register_run(ref, ref_run)
    ms = {}
    for p in T3_PS:
        ms[('RBO', p)] = O.measure_string('RBO', p, ref=ref)
        ms[('RBA', p)] = O.measure_string('RBA', p, ref=ref)
    got = O.per_query(list(ms.values()), qrels, run)
    for j, (obs, rbo_printed, rba_printed) in enumerate(T3_ROWS):
        B = [str(i) for i in obs]
        for p, want_rbo, want_rba in zip(T3_PS, rbo_printed, rba_printed):
            v_rbo = got[('row%d' % j, str(ir_rbstar.parse_measure(ms[('RBO', p)])))]
            v_rba = got[('row%d' % j, str(ir_rbstar.parse_measure(ms[('RBA', p)])))]
            assert abs(v_rbo - want_rbo) <= TABLE3_TOL, ('RBO', j, p, v_rbo)
            assert abs(v_rba - want_rba) <= TABLE3_TOL, ('RBA', j, p, v_rba)
            assert v_rbo == pytest.approx(O.rbo(B, untied(T3_R), p), abs=1e-9)
            assert v_rba == pytest.approx(O.rba(B, untied(T3_R), p), abs=1e-9)


@pytest.mark.parametrize('p', [0.3, 0.6, 0.8, 0.95])
def test_identity_rbr_equals_rbp_package(pkg, p, tmp_path):
    # RBR(B|R) through the package (B the run, R a reference run file) equals RBP(R|B) through the
    # package (R's ranking the run, qrels = B's items with grade 1, rel=1).  RBP is computed by the
    # package's provider directly: via ir_measures' pipeline RBP(rel=1) without a cutoff is served by
    # cwl_eval, which is compared separately in test_rankbiased_oracle.py.
    ref = O.write_trec_run(tmp_path / 'r.run', O.ranked_run('q1', T1_R))
    rbr = O.per_query([O.measure_string('RBR', p, ref=ref)], None, O.ranked_run('q1', T1_B))
    rbp = O.per_query([O.measure_string('RBP', p, rel=1)], {'q1': {e: 1 for e in T1_B}},
                      O.ranked_run('q1', T1_R), via='provider')
    assert list(rbr.values())[0] == pytest.approx(list(rbp.values())[0], abs=1e-9)
    assert list(rbr.values())[0] == pytest.approx(O.rbr(T1_B, untied(T1_R), p), abs=1e-9)


@pytest.mark.parametrize('p', [0.3, 0.6, 0.8, 0.95])
def test_identity_rba_symmetric_package(pkg, p, tmp_path):
    cases = [([str(i) for i in obs], T3_R) for obs, _, _ in T3_ROWS] + [figure5(FIG5_PAIRINGS[1])]
    for j, (B, R) in enumerate(cases):
        path_R = O.write_trec_run(tmp_path / ('R%d.run' % j), O.ranked_run('q', R))
        path_B = O.write_trec_run(tmp_path / ('B%d.run' % j), O.ranked_run('q', B))
        ab = list(O.per_query([O.measure_string('RBA', p, ref=path_R)], None, O.ranked_run('q', B)).values())
        ba = list(O.per_query([O.measure_string('RBA', p, ref=path_B)], None, O.ranked_run('q', R)).values())
        assert ab[0] == pytest.approx(ba[0], abs=1e-9), j
        assert ab[0] == pytest.approx(O.rba(B, untied(R), p), abs=1e-9), j


@pytest.mark.parametrize('mode', REF_MODES)
@pytest.mark.parametrize('p', [0.3, 0.6, 0.8, 0.95])
def test_identity_rba_reverse_eq12_package(pkg, mode, p, tmp_path):
    import ir_measures  # noqa: F401
    import ir_rbstar
    R = ['x%d' % i for i in range(10)]
    qrels, ref = reference(pkg, mode, 'q', tmp_path, R=R)
    m = O.measure_string('RBA', p, ref=ref)
    got = O.per_query([m], qrels, O.ranked_run('q', R[::-1]))
    eq12 = (1 - p) / p * 10 * p ** 5.5
    assert got[('q', str(ir_rbstar.parse_measure(m)))] == pytest.approx(eq12, abs=1e-9)


@pytest.mark.parametrize('mode', REF_MODES)
@pytest.mark.parametrize('pairing', FIG5_PAIRINGS)
def test_figure5_package(pkg, mode, pairing, tmp_path):
    import ir_measures  # noqa: F401
    import ir_rbstar
    p = 0.7
    B, R = figure5(pairing)
    qrels, ref = reference(pkg, mode, 'q', tmp_path, R=R)
    ms = [O.measure_string('RBA', p, ref=ref), O.measure_string('RBA_res', p, ref=ref)]
    got = O.per_query(ms, qrels, O.ranked_run('q', B))
    base = got[('q', str(ir_rbstar.parse_measure(ms[0])))]
    res = got[('q', str(ir_rbstar.parse_measure(ms[1])))]
    assert base == pytest.approx(0.835, abs=5e-4)
    if mode != 'qrels':            # Algorithm 1 (a run reference: unknown items only after R's end)
        assert res == pytest.approx(0.097 + 0.020, abs=1e-3)
        assert res == pytest.approx(O.rba_res(B, untied(R), p), abs=1e-9)
    else:                          # qrels-derived: an unjudged document may be judged into R's top
        assert res == pytest.approx(O.rba_res_open(B, untied(R), p), abs=1e-9)
        assert res >= O.rba_res(B, untied(R), p)


def test_rbp_hand_examples_package(pkg):
    # graded RBP divides by max_rel, the top of the grade scale (here 3), whatever queries are evaluated
    p = 0.5
    qrels = {'q1': {'a': 1, 'b': 3, 'n': 0}, 'q2': {'c': 2}}
    run = {'q1': {'a': 4.0, 'x': 3.0, 'b': 2.0, 'n': 1.0}, 'q2': {'c': 1.0}}
    ms = ['RBP(p=0.5,max_rel=3)', 'RBP(p=0.5,rel=1)', 'RBP(p=0.5,rel=2)', 'RBP_res(p=0.5)', 'RBP_res(p=0.5)@2']
    got = O.per_query(ms, qrels, run, via='provider')
    import ir_measures  # noqa: F401
    import ir_rbstar
    n = [str(ir_rbstar.parse_measure(m)) for m in ms]
    assert got[('q2', n[0])] == pytest.approx(0.5 * 2 / 3, abs=1e-12)
    assert got[('q1', n[0])] == pytest.approx(0.5 / 3 + 0.125, abs=1e-12)
    assert got[('q1', n[1])] == pytest.approx(0.625, abs=1e-12)
    assert got[('q1', n[2])] == pytest.approx(0.125, abs=1e-12)
    assert got[('q1', n[3])] == pytest.approx(0.25 + 0.0625, abs=1e-12)
    assert got[('q1', n[4])] == pytest.approx(0.25 + 0.25, abs=1e-12)
    assert got[('q2', n[3])] == pytest.approx(0.5, abs=1e-12)  # nothing unjudged, tail p^1


def test_rbp_query_missing_from_run_package(pkg):
    # a query in the qrels but absent from the run: B is empty, so RBP = 0 and RBP_res = p^0 = 1
    qrels = {'q1': {'a': 1}, 'q2': {'c': 2}}
    run = {'q1': {'a': 1.0}}
    got = O.per_query(['RBP(p=0.5,max_rel=2)', 'RBP_res(p=0.5)', 'RBA_res(p=0.5)', 'RBO_res(p=0.5)'],
                      qrels, run, via='provider')
    import ir_measures  # noqa: F401
    import ir_rbstar
    n = [str(ir_rbstar.parse_measure(m)) for m in
         ['RBP(p=0.5,max_rel=2)', 'RBP_res(p=0.5)', 'RBA_res(p=0.5)', 'RBO_res(p=0.5)']]
    assert got[('q2', n[0])] == 0.0
    assert got[('q2', n[1])] == pytest.approx(1.0, abs=1e-12)
    # B empty, R = [c]: Algorithm 1 gives w(1) + p^1 = 1; RBO_max with B empty is 1
    assert got[('q2', n[2])] == pytest.approx(1.0, abs=1e-12)
    assert got[('q2', n[3])] == pytest.approx(1.0, abs=1e-12)


def test_run_order_ties_package(pkg):
    # RBP breaks the run's ties by doc id descending (string compare), as trec_eval; RBR with
    # ties='docid' too, and by default averages over the run's tie orders
    p = 0.5
    qrels = {'q1': {'d9': 1, 'a': 1}}
    run = {'q1': {'a': 1.0, 'b': 1.0, 'B': 1.0, 'd10': 2.0, 'd9': 2.0, 'z': 0.5}}
    import ir_measures  # noqa: F401
    import ir_rbstar
    names = ['RBP(p=0.5,rel=1)@3', "RBR(p=0.5,ties='docid')@1", 'RBR(p=0.5)@1', 'RBR(p=0.5)@2']
    got = O.per_query(names, qrels, run, via='provider')
    value = {m: got[('q1', str(ir_rbstar.parse_measure(m)))] for m in names}
    # order: d9, d10, b, a, B, z
    assert value['RBP(p=0.5,rel=1)@3'] == pytest.approx(0.5)
    # R = {d9, a} tied (both grade 1): each gets (w(1)+w(2))/2 = 0.375
    assert value["RBR(p=0.5,ties='docid')@1"] == pytest.approx(0.375)
    # {d9, d10} tied at the top straddle k = 1: d9 is in B half of the time
    assert value['RBR(p=0.5)@1'] == pytest.approx(0.1875)
    assert value['RBR(p=0.5)@2'] == pytest.approx(0.375)
    assert got[('q1', str(ir_rbstar.parse_measure('RBR(p=0.5)@2')))] == pytest.approx(0.375)
