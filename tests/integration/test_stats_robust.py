"""ir_rbstar.stats.robust against a plain-Python oracle (loops over queries, scipy.stats.ttest_rel and
statsmodels' multipletests called directly), its guarantees as properties over random completions, an
end-to-end comparison on the bundled Vaswani runs (residuals and tie bounds), and its refusals."""
import math
import os

import ir_measures
import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings, strategies as st
from statsmodels.stats.multitest import multipletests

from tests.conftest import examples

import ir_rbstar
from ir_rbstar.demo import data_dir
from ir_rbstar.errors import ParameterError
from ir_rbstar.stats import RobustComparison, paired_test, robust_comparison, robust_table
from ir_rbstar.stats.robust import VERDICTS

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # scipy: precision loss on constant d

ALPHA = 0.05
# values on a grid of 1/64: sums and differences are exact, so the oracle's mean and numpy's agree exactly
grid = st.integers(0, 64).map(lambda k: k / 64)
width = st.sampled_from([0, 0, 1, 2, 4, 8, 16]).map(lambda k: k / 64)


@st.composite
def bounded_pairs(draw, min_n=2, max_n=20, equal=False):
    """(a_low, a_high, b_low, b_high, a, b): A shifted by a random grid offset, points inside the bounds."""
    n = draw(st.integers(min_n, max_n))
    shift = draw(st.integers(-16, 16)) / 64
    a_low = np.array(draw(st.lists(grid, min_size=n, max_size=n))) + shift
    b_low = np.array(draw(st.lists(grid, min_size=n, max_size=n)))
    wa = np.zeros(n) if equal else np.array(draw(st.lists(width, min_size=n, max_size=n)))
    wb = np.zeros(n) if equal else np.array(draw(st.lists(width, min_size=n, max_size=n)))
    ua = np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n, max_size=n)))
    ub = np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n, max_size=n)))
    return a_low, a_low + wa, b_low, b_low + wb, a_low + ua * wa, b_low + ub * wb


# ---------------------------------------------------------------------------------------------- the oracle

def oracle_test(x, y):
    """(mean difference by a loop, p of scipy.stats.ttest_rel on plain lists)."""
    n = len(x)
    total = 0.0
    for i in range(n):
        total += x[i] - y[i]
    p = float(scipy.stats.ttest_rel([float(v) for v in x], [float(v) for v in y]).pvalue)
    return total / n, p


def oracle_direction(md, p, alpha):
    if math.isnan(p) or p > alpha or md == 0:
        return None
    return "A" if md > 0 else "B"


def oracle_verdict(worst, best, point, alpha):
    dirs = [oracle_direction(*worst, alpha), oracle_direction(*best, alpha)]
    if point is not None:
        dirs.append(oracle_direction(*point, alpha))
    for side in ("A", "B"):
        if all(d == side for d in dirs):
            return f"{side} better, robust"
    if point is not None:
        side = oracle_direction(*point, alpha)
    else:
        up, down = oracle_direction(*best, alpha) == "A", oracle_direction(*worst, alpha) == "B"
        side = None if up == down else "A" if up else "B"
    return "no conclusion" if side is None else f"{side} better only if the unknown favours {side}"


def same(x, y):
    assert (math.isnan(x) and math.isnan(y)) or x == y, (x, y)


@settings(max_examples=examples(150), deadline=None)
@given(data=bounded_pairs(), with_point=st.booleans())
def test_pvalues_and_verdict_match_the_oracle(data, with_point):
    a_low, a_high, b_low, b_high, a, b = data
    points = {"a": a, "b": b} if with_point else {}
    res = robust_comparison(a_low, a_high, b_low, b_high, test="t", alpha=ALPHA, **points)
    assert isinstance(res, RobustComparison) and res.verdict in VERDICTS
    worst, best = oracle_test(a_low, b_high), oracle_test(a_high, b_low)
    point = oracle_test(a, b) if with_point else None
    assert res.mean_difference_worst == worst[0] and res.mean_difference_best == best[0]
    same(res.worst_for_a.pvalue, worst[1])
    same(res.best_for_a.pvalue, best[1])
    if with_point:
        assert res.point is not None and res.mean_difference_point == point[0]
        same(res.point.pvalue, point[1])
    else:
        assert res.point is None and res.mean_difference_point is None
    assert res.mean_difference_bounds == (worst[0], best[0])
    assert res.verdict == oracle_verdict(worst, best, point, ALPHA)
    assert (res.test, res.alternative, res.alpha, res.n) == ("t", "two-sided", ALPHA, a_low.size)
    assert all(math.isnan(v) for v in res.worst_for_a.effect_interval)


@settings(max_examples=examples(60), deadline=None)
@given(data=bounded_pairs(equal=True))
def test_without_residual_the_three_tests_coincide(data):
    a_low, a_high, b_low, b_high, a, b = data
    res = robust_comparison(a_low, a_high, b_low, b_high, a=a, b=b)
    assert res.point is not None
    same(res.worst_for_a.pvalue, res.best_for_a.pvalue)
    same(res.worst_for_a.pvalue, res.point.pvalue)
    assert res.mean_difference_bounds[0] == res.mean_difference_bounds[1] == res.mean_difference_point
    assert res.verdict in ("A better, robust", "B better, robust", "no conclusion")
    expected = oracle_direction(*oracle_test(a, b), ALPHA)
    assert res.verdict == ("no conclusion" if expected is None else f"{expected} better, robust")
    if not math.isnan(res.point.pvalue):               # the t bound is then the test itself (up to its margin)
        assert res.point.pvalue <= res.pvalue_bound <= res.point.pvalue + 1e-6


@settings(max_examples=examples(25), deadline=None)
@given(data=bounded_pairs(max_n=12), test=st.sampled_from(["wilcoxon", "permutation", "bootstrap"]),
       seed=st.integers(0, 1000))
def test_other_tests_are_paired_test_at_the_extremes(data, test, seed):
    a_low, a_high, b_low, b_high, a, b = data
    res = robust_comparison(a_low, a_high, b_low, b_high, test=test, a=a, b=b, n_resamples=199, seed=seed)
    for got, (x, y) in ((res.worst_for_a, (a_low, b_high)), (res.best_for_a, (a_high, b_low)), (res.point, (a, b))):
        ref = paired_test(x, y, test=test, n_resamples=199, seed=seed, effect_resamples=0)
        for field in ("statistic", "pvalue", "mean_difference", "effect_size", "test", "alternative", "n"):
            assert getattr(got, field) == getattr(ref, field) or (
                math.isnan(getattr(got, field)) and math.isnan(getattr(ref, field)))
    assert res.pvalue_bound is None
    assert res.verdict == oracle_verdict((res.mean_difference_worst, res.worst_for_a.pvalue),
                                         (res.mean_difference_best, res.best_for_a.pvalue),
                                         (res.mean_difference_point, res.point.pvalue), ALPHA)


# ---------------------------------------------------------------------------------------------- guarantees

unit = st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False)


@st.composite
def float_bounds(draw):
    n = draw(st.integers(2, 15))
    cols = [np.array(draw(st.lists(unit, min_size=n, max_size=n))) for _ in range(4)]
    shift = draw(st.floats(-0.5, 0.5, allow_subnormal=False))
    scale = draw(st.sampled_from([0.0, 0.01, 0.1, 0.5]))
    a_low, b_low = cols[0] + shift, cols[1]
    return a_low, a_low + scale * cols[2], b_low, b_low + scale * cols[3]


@settings(max_examples=examples(80), deadline=None)
@given(data=float_bounds(), seed=st.integers(0, 2**32 - 1),
       alternative=st.sampled_from(["two-sided", "greater", "less"]))
def test_every_completion_within_the_bounds_obeys_the_guarantees(data, seed, alternative):
    a_low, a_high, b_low, b_high = data
    res = robust_comparison(a_low, a_high, b_low, b_high, alternative=alternative)
    low, high = res.mean_difference_bounds
    assert low <= high
    rng = np.random.default_rng(seed)
    n = a_low.size
    for k in range(30):
        if k % 2:                                     # a vertex of the box
            a = np.where(rng.random(n) < 0.5, a_low, a_high)
            b = np.where(rng.random(n) < 0.5, b_low, b_high)
        else:
            a = np.clip(a_low + rng.random(n) * (a_high - a_low), a_low, a_high)
            b = np.clip(b_low + rng.random(n) * (b_high - b_low), b_low, b_high)
        md = float(np.mean(a - b))
        assert low <= md <= high
        p = float(scipy.stats.ttest_rel(a, b, alternative=alternative).pvalue)
        if not math.isnan(p):
            assert p <= res.pvalue_bound + 1e-12, (p, res.pvalue_bound)


def test_a_completion_inside_can_be_less_significant_than_both_extremes():
    """Why the verdict speaks of the tested completions only: the t test is not monotone per query."""
    zero = np.zeros(5)
    a_low, a_high = np.array([1.0, 1, 1, 1, 1]), np.array([1.1, 1.1, 1.1, 1.1, 5.0])
    inside = np.array([1.0, 1, 1, 1, 5])
    res = robust_comparison(a_low, a_high, zero, zero, a=inside, b=zero, alpha=0.08)
    assert res.worst_for_a.pvalue == 0.0 and res.best_for_a.pvalue < 0.075
    assert res.point.pvalue > 0.08 > max(res.worst_for_a.pvalue, res.best_for_a.pvalue)
    assert res.verdict == "no conclusion"             # significant at both extremes, not in between
    assert res.pvalue_bound >= res.point.pvalue


# ---------------------------------------------------------------------------------------------- robust_table

@st.composite
def bound_frames(draw):
    runs, queries = draw(st.integers(2, 5)), draw(st.integers(2, 12))
    low = np.array(draw(st.lists(grid, min_size=runs * queries, max_size=runs * queries))).reshape(runs, queries)
    low += np.array([draw(st.integers(-16, 16)) / 64 for _ in range(runs)])[:, None]
    wid = np.array(draw(st.lists(width, min_size=runs * queries, max_size=runs * queries))).reshape(runs, queries)
    index, columns = [f"run{i}" for i in range(runs)], [f"q{j}" for j in range(queries)]
    return pd.DataFrame(low, index=index, columns=columns), pd.DataFrame(low + wid, index=index, columns=columns)


@settings(max_examples=examples(20), deadline=None)          # multipletests calls gc.collect(): 0.15 s a call here
@given(frames=bound_frames(), base=st.integers(0, 4), correction=st.sampled_from([None, "holm", "fdr_bh"]))
def test_table_matches_the_oracle(frames, base, correction):
    low, high = frames
    baseline = low.index[base % len(low)]
    table = robust_table(low, high, baseline, correction=correction)
    others = [r for r in low.index if r != baseline]
    assert table["run"].tolist() == others
    worst = [oracle_test(low.loc[r].to_numpy(), high.loc[baseline].to_numpy()) for r in others]
    best = [oracle_test(high.loc[r].to_numpy(), low.loc[baseline].to_numpy()) for r in others]

    def adjust(ps):
        ps = np.array(ps)
        out = ps.copy()
        ok = ~np.isnan(ps)
        if correction is not None and ok.any():
            out[ok] = multipletests(ps[ok], alpha=ALPHA, method=correction)[1]
        return out
    pw, pb = adjust([w[1] for w in worst]), adjust([b[1] for b in best])
    for k, run in enumerate(others):
        row = table.iloc[k]
        assert row["mean_low"] == pytest.approx(sum(low.loc[run]) / low.shape[1], rel=1e-12)
        assert row["mean_high"] == pytest.approx(sum(high.loc[run]) / low.shape[1], rel=1e-12)
        assert (row["difference_low"], row["difference_high"]) == (worst[k][0], best[k][0])
        same(row["pvalue_worst"], worst[k][1])
        same(row["pvalue_best"], best[k][1])
        np.testing.assert_allclose([row["pvalue_worst_adjusted"], row["pvalue_best_adjusted"]], [pw[k], pb[k]],
                                   rtol=1e-12, equal_nan=True)
        assert row["verdict"] == oracle_verdict((worst[k][0], pw[k]), (best[k][0], pb[k]), None, ALPHA)


# ---------------------------------------------------------------------------------------------- end to end

def _per_query(measures, run):
    d = data_dir()
    qrels = ir_measures.read_trec_qrels(f"{d}/qrels")
    rows = [(m.query_id, str(m.measure), m.value)
            for m in ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(f"{d}/{run}.run.gz"))]
    return pd.DataFrame(rows, columns=["query", "measure", "value"]).pivot(index="query", columns="measure",
                                                                          values="value")


def test_vaswani_rbp_with_residuals():
    for name in ("qrels", "bm25.run.gz", "bm25_flat.run.gz"):
        assert os.path.exists(os.path.join(data_dir(), name))
    measures = ir_rbstar.parse("RBP(p=0.8)@10 RBP_res(p=0.8)@10")
    rbp, res = (str(m) for m in measures)
    a, b = _per_query(measures, "bm25"), _per_query(measures, "bm25_flat")
    assert a.index.equals(b.index) and len(a) == 93
    out = robust_comparison(a[rbp], a[rbp] + a[res], b[rbp], b[rbp] + b[res], a=a[rbp], b=b[rbp])
    assert out.verdict in VERDICTS and out.n == 93
    low, high = out.mean_difference_bounds
    # the point values (the judged RBP) lie between the extremes, so their mean difference does too
    assert low <= out.mean_difference_point <= high
    assert low == pytest.approx(np.mean(a[rbp] - b[rbp] - b[res])) and high == pytest.approx(
        np.mean(a[rbp] + a[res] - b[rbp]))
    # Vaswani's qrels list relevant documents only: every other document is unjudged, RBP + residual is 1
    # and the extremes are significant in opposite directions: the unknown decides
    assert out.worst_for_a.mean_difference < 0 < out.best_for_a.mean_difference
    assert max(out.worst_for_a.pvalue, out.best_for_a.pvalue) < 1e-10
    assert out.point.pvalue > ALPHA and out.verdict == "no conclusion"
    table = robust_table(pd.DataFrame({"bm25": a[rbp], "bm25_flat": b[rbp]}).T,
                         pd.DataFrame({"bm25": a[rbp] + a[res], "bm25_flat": b[rbp] + b[res]}).T, "bm25_flat")
    assert table["run"].tolist() == ["bm25"]
    assert (table.loc[0, "difference_low"], table.loc[0, "difference_high"]) == out.mean_difference_bounds
    assert table.loc[0, "verdict"] == "no conclusion"


def test_vaswani_precision_with_tie_bounds():
    measures = ir_rbstar.parse("P_TA@10 P_TA(stat='min')@10 P_TA(stat='max')@10")
    mean, worst, best = (str(m) for m in measures)
    a, b = _per_query(measures, "bm25l"), _per_query(measures, "bm25_round1")    # round1: rounded scores, ties
    assert (b[worst] <= b[mean]).all() and (b[mean] <= b[best]).all() and (b[worst] < b[best]).any()
    out = robust_comparison(a[worst], a[best], b[worst], b[best], a=a[mean], b=b[mean])
    low, high = out.mean_difference_bounds
    assert low <= out.mean_difference_point <= high
    # B (the rounded run) is better on the tie average and in A's worst case, not in A's best case
    assert out.point.pvalue <= ALPHA and out.worst_for_a.pvalue <= ALPHA and out.best_for_a.pvalue > ALPHA
    assert out.verdict == "B better only if the unknown favours B"
    assert out.pvalue_bound == 1.0                       # the mean difference bounds contain 0: nothing is sure


# ---------------------------------------------------------------------------------------------- refusals

def _err(name, func, *args, **kw):
    with pytest.raises(ParameterError, match=f"^{name}:"):
        func(*args, **kw)


def test_bad_input_names_the_parameter():
    lo, hi = np.array([0.1, 0.2, 0.3]), np.array([0.2, 0.3, 0.4])
    _err("b_high", robust_comparison, lo, hi, lo, hi[:2])
    _err("a_high", robust_comparison, lo, lo - 0.01, lo, hi)
    _err("b_high", robust_comparison, lo, hi, hi, lo)
    _err("a", robust_comparison, lo, hi, lo, hi, a=hi + 0.1, b=lo)
    _err("b", robust_comparison, lo, hi, lo, hi, a=lo, b=lo - 0.1)
    _err("b", robust_comparison, lo, hi, lo, hi, a=lo)
    _err("a_low", robust_comparison, [0.1, float("nan"), 0.2], hi, lo, hi)
    _err("alpha", robust_comparison, lo, hi, lo, hi, alpha=1.5)
    _err("test", robust_comparison, lo, hi, lo, hi, test="z")
    _err("alternative", robust_comparison, lo, hi, lo, hi, alternative="up")
    _err("bogus", robust_comparison, lo, hi, lo, hi, bogus=1)
    s = pd.Series(lo, index=["q1", "q2", "q3"])
    _err("b_low", robust_comparison, s, s + 0.1, pd.Series(lo, index=["q1", "q2", "x"]), s + 0.1)
    frame = pd.DataFrame([lo, hi], index=["r1", "r2"])
    _err("baseline", robust_table, frame, frame + 0.1, "r3")
    _err("frame_high", robust_table, frame, frame.iloc[:, :2] + 0.1, "r1")
    _err("frame_high", robust_table, frame, frame.rename(index={"r2": "r9"}), "r1")
    _err("frame_high", robust_table, frame, frame - 0.1, "r1")
    _err("correction", robust_table, frame, frame + 0.1, "r1", correction="nope")
    _err("frame_low", robust_table, lo, frame, "r1")
    # rounding-level disagreement of a low and a high is accepted
    robust_comparison(lo, lo - 1e-15, lo, hi)
