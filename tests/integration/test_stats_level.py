"""Tests that can reach their level after the correction, and intervals that respect the measure's range:
paired_test's sign-flip test against an exact integer enumeration (zero and near-zero mean differences,
ties, every alternative); the report's randomization p-values against scipy.stats.permutation_test
(exact cases) and the adaptive procedure's Holm verdicts against a long fixed-size run; the p floor and
reachability helpers; Holm against statsmodels; Tukey HSD of several measures against one call per
measure; mean_intervals against scipy's BCa, its range guarantees and its coverage."""
import itertools
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import assume, given, settings, strategies as st
from statsmodels.stats.multitest import multipletests

from tests.conftest import examples

from ir_rbstar.errors import BudgetWarning, ParameterError
from ir_rbstar.report import stats as rs
from ir_rbstar.stats import mean_intervals, paired_test, tukey_hsd_randomized

ALTERNATIVES = ("two-sided", "greater", "less")


# ------------------------------------------------------------------- paired_test: exact sign-flip oracle

def exact_sign_flip(d_int, alternative):
    """The exact sign-flip p of the mean of integer differences, by enumeration in integer arithmetic:
    one-sided shares of flipped sums <= / >= the observed sum; two-sided min(1, 2 x the smaller)."""
    observed = sum(d_int)
    flips = itertools.product((1, -1), repeat=len(d_int))
    sums = [sum(s * x for s, x in zip(signs, d_int, strict=True)) for signs in flips]
    less = Fraction(sum(1 for t in sums if t <= observed), len(sums))
    greater = Fraction(sum(1 for t in sums if t >= observed), len(sums))
    return {"less": less, "greater": greater, "two-sided": min(Fraction(1), 2 * min(less, greater))}[alternative]


@st.composite
def decimal_pairs(draw, max_n=12):
    """Paired values in tenths (or thousandths) as floats: their differences carry rounding (0.3 - 0.1 is
    not 0.2), and a third of the cases have a mean difference of exactly 0 (b a permutation of a)."""
    n = draw(st.integers(2, max_n))
    scale = draw(st.sampled_from([10, 1000]))
    a = draw(st.lists(st.integers(0, scale), min_size=n, max_size=n))
    kind = draw(st.sampled_from(["free", "permuted", "ties"]))
    if kind == "permuted":
        b = draw(st.permutations(a))
    elif kind == "ties":
        b = [x + draw(st.sampled_from([-2, 0, 2])) * scale // 10 for x in a]
    else:
        b = draw(st.lists(st.integers(0, scale), min_size=n, max_size=n))
    return a, list(b), scale


@settings(max_examples=examples(60), deadline=None)
@given(case=decimal_pairs(), alternative=st.sampled_from(ALTERNATIVES))
def test_permutation_test_is_the_exact_enumeration(case, alternative):
    a, b, scale = case
    x, y = np.array(a) / scale, np.array(b) / scale
    res = paired_test(x, y, test="permutation", alternative=alternative, effect_ci=None)   # 2^n <= 10,000
    expected = exact_sign_flip([p - q for p, q in zip(a, b, strict=True)], alternative)
    assert res.pvalue == pytest.approx(float(expected), abs=1e-12)


def test_the_issues_zero_mean_example():
    a, b = [.1, .3, .5, .7, .6, .4], [.4, .5, .7, .6, .3, .1]
    assert abs(np.mean(np.subtract(a, b))) < 1e-16 and np.mean(np.subtract(a, b)) != 0     # rounding, not 0
    got = {alt: paired_test(a, b, test="permutation", alternative=alt, effect_ci=None).pvalue for alt in ALTERNATIVES}
    assert got == pytest.approx({"two-sided": 1.0, "greater": 35 / 64, "less": 35 / 64})
    # scipy's own answer, the defect fixed: its allowance is relative to a mean of about 1e-17
    ref = scipy.stats.permutation_test((np.subtract(a, b),), np.mean, permutation_type="samples")
    assert ref.pvalue < 0.97


@settings(max_examples=examples(25), deadline=None)
@given(n=st.integers(14, 30), alternative=st.sampled_from(ALTERNATIVES), seed=st.integers(0, 2**32 - 1),
       data=st.data())
def test_sampled_permutation_p_is_scipys_formula(n, alternative, seed, data):
    """Monte Carlo: scipy's draws and formula -- one-sided (b + 1) / (R + 1), two-sided twice the smaller
    one-sided p -- wherever no flipped mean is a near-tie that only the scale allowance catches."""
    d = np.array(data.draw(st.lists(st.floats(-1, 1, allow_subnormal=False), min_size=n, max_size=n)))
    res = paired_test(d, np.zeros(n), test="permutation", alternative=alternative, n_resamples=999, seed=seed,
                      effect_ci=None)
    ref = scipy.stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=999,
                                       alternative=alternative, rng=np.random.default_rng(seed))
    gap = np.abs(ref.null_distribution - ref.statistic)      # scipy: a tie within 100 eps x |observed|
    assume(not ((gap <= 1e-9 * np.mean(np.abs(d))) & (gap > 2e-14 * abs(ref.statistic))).any())
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    if alternative == "two-sided":                            # the same seed, the same flips
        one = [paired_test(d, np.zeros(n), test="permutation", alternative=alt, n_resamples=999, seed=seed,
                           effect_ci=None).pvalue for alt in ("less", "greater")]
        assert res.pvalue == pytest.approx(min(1.0, 2 * min(one)))


def test_wilcoxon_with_ties_for_small_n_is_the_exact_signed_rank_enumeration():
    """The docstring's claim about scipy 1.17: n <= 13 with ties -> all 2^n flips of the signed ranks."""
    d = np.array([0.1, 0.2, 0.2, -0.3, 0.4, 0.4, 0.5, -0.1, 0.6])
    res = paired_test(d, np.zeros(d.size), test="wilcoxon", alternative="greater", effect_ci=None)
    ranks = scipy.stats.rankdata(np.abs(d))
    observed = ranks[d > 0].sum()
    flips = itertools.product((True, False), repeat=d.size)
    stats = [sum(r for r, s in zip(ranks, signs, strict=True) if s) for signs in flips]
    assert res.pvalue == pytest.approx(sum(1 for t in stats if t >= observed) / len(stats))


def test_wilcoxon_auto_picks_scipys_methods_as_documented():
    rng = np.random.default_rng(12)
    continuous = rng.normal(0.1, 1.0, 20)                          # n <= 50, no ties or zeros: exact
    tied = np.round(rng.normal(0.1, 1.0, 20), 1)                   # 14 <= n <= 50 with ties: normal approximation
    tied[0] = 0.0
    large = rng.normal(0.1, 1.0, 60)                               # n > 50: normal approximation
    for d, method in ((continuous, "exact"), (tied, "asymptotic"), (large, "asymptotic")):
        got = paired_test(d, np.zeros(d.size), test="wilcoxon", effect_ci=None).pvalue
        assert got == pytest.approx(scipy.stats.wilcoxon(d, method=method).pvalue, rel=1e-12), method


# ------------------------------------------------------------------- report: randomization p-values

def integer_diffs(min_n=1, max_n=10):
    return st.lists(st.integers(-12, 12), min_size=min_n, max_size=max_n)


@settings(max_examples=examples(40), deadline=None)
@given(k=integer_diffs(min_n=2))
def test_exact_randomization_p_is_scipys_exact_permutation_test(k):
    d = np.array(k) / 8.0                             # binary fractions: scipy's sums are exact too
    ref = scipy.stats.permutation_test((d,), np.sum, permutation_type="samples", n_resamples=np.inf)
    for permutations in (None, 5000):
        assert rs.randomization_pvalues([d], permutations)[0] == pytest.approx(ref.pvalue, abs=1e-12)


def test_adaptive_gives_large_effects_a_p_below_alpha_over_the_family():
    rng = np.random.default_rng(3)
    diffs = [rng.normal(0.0, 0.2, 40) for _ in range(599)] + [rng.normal(0.3, 0.2, 40)]
    p, flips, exact = rs.randomization_details(diffs)
    assert not exact.any()
    assert p[-1] < 0.05 / 600 / 2 and rs.holm(p)[-1] <= 0.05
    assert flips.min() == rs.DEFAULT_PERMUTATIONS and flips.max() <= rs.max_permutations(600, 0.05)
    # the fixed-size test of 10,000 flips cannot: its floor x 600 > 0.05
    fixed = rs.randomization_pvalues(diffs, 10_000)
    assert fixed[-1] == 1 / 10_001 and rs.holm(fixed)[-1] > 0.05
    np.testing.assert_array_equal(rs.randomization_pvalues(diffs), p)                   # same seed, same p
    assert not np.array_equal(rs.randomization_pvalues(diffs, seed=1), p)


def test_arrays_of_one_length_share_their_flips():
    rng = np.random.default_rng(4)
    d = rng.normal(0.02, 0.1, 30)
    a = rs.randomization_pvalues([d, d * 3.0, rng.normal(size=31)], 10_000)
    assert a[0] == a[1]                               # the same flips: scaling changes nothing
    assert a[0] == rs.randomization_pvalues([d], 10_000)[0]


@st.composite
def families(draw):
    k = draw(st.integers(3, 12))
    n = draw(st.sampled_from([20, 24]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    shifts = rng.choice([0.0, 0.05, 0.1, 0.15, 0.3], size=k)
    return [rng.normal(s, 0.2, n) for s in shifts]


@settings(max_examples=12, deadline=None)
@given(diffs=families(), alpha=st.sampled_from([0.05, 0.1]))
def test_adaptive_holm_verdicts_equal_a_long_fixed_run(diffs, alpha):
    """The adaptive p's flips are a prefix of the fixed run's (same seed): comparisons that ran to the
    cap have the fixed run's p, the others were stopped where Holm's verdict was settled."""
    top = rs.max_permutations(len(diffs), alpha)
    p, flips, _ = rs.randomization_details(diffs, alpha=alpha)
    long = rs.randomization_pvalues(diffs, top)
    capped = flips == top
    np.testing.assert_array_equal(p[capped], long[capped])
    np.testing.assert_array_equal(rs.holm(p) <= alpha, rs.holm(long) <= alpha)


def test_groups_are_holm_families_each_equal_to_its_own_call():
    rng = np.random.default_rng(11)

    def with_t(t, n=30):                                  # differences whose t statistic is t
        z = rng.normal(size=n)
        return (z - z.mean()) / z.std(ddof=1) + t / np.sqrt(n)

    diffs = [with_t(t) for t in (2.7, 2.5, 2.3, 0.5, 6.0, 2.6, 2.4, 1.0, 2.2, 5.0, 0.0)] + [[]]
    labels = ["AP"] * 5 + ["nDCG"] * 5 + ["P@10"] * 2
    p, flips, _ = rs.randomization_details(diffs, groups=labels)
    assert len(set(flips[:10])) >= 3                      # near Holm's thresholds of each family: more flips
    for label in ("AP", "nDCG", "P@10"):
        members = [i for i, g in enumerate(labels) if g == label]
        alone, alone_flips, _ = rs.randomization_details([diffs[i] for i in members])
        np.testing.assert_array_equal(p[members], alone)
        np.testing.assert_array_equal(flips[members], alone_flips)
    with pytest.raises(ParameterError, match="one label per array"):
        rs.randomization_pvalues(diffs, groups=labels[:-1])
    with pytest.raises(ParameterError, match="family"):
        rs.randomization_pvalues(diffs, groups=labels, family=20)


def test_the_budget_stops_undecided_comparisons_with_a_warning():
    z = np.random.default_rng(5).normal(size=60)
    diffs = [(z - z.mean()) / z.std(ddof=1) + 1.98 / np.sqrt(60)]           # t = 1.98: p near 0.05, undecided
    with pytest.warns(BudgetWarning, match="budget"):
        p, flips, _ = rs.randomization_details(diffs, budget=0)
    assert (flips == rs.DEFAULT_PERMUTATIONS).all() and 0.03 < p[0] < 0.07
    assert rs.randomization_details(diffs)[1][0] > rs.DEFAULT_PERMUTATIONS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rs.randomization_details(diffs[:1], 10_000, budget=0)              # the fixed test has no budget


def test_pvalue_floor_and_reachability():
    assert rs.pvalue_floor(5, 10_000) == 2 / 32
    assert rs.pvalue_floor(54, 10_000) == 1 / 10_001
    assert rs.pvalue_floor(54) == 1 / (rs.max_permutations(1, 0.05) + 1)
    assert rs.pvalue_floor(17) == 2 / 2**17                                  # adaptive: enumerated
    np.testing.assert_array_equal(rs.pvalue_floor(np.array([0, 3])), [np.nan, 0.25])
    # the issue's report: 58 runs x 10 measures at 10,000 flips cannot reach 0.05; the adaptive test can
    assert not rs.can_reach_alpha(54, 10_000, family=580)
    assert rs.can_reach_alpha(54, None, family=580)
    assert rs.max_permutations(580, 0.05) * 0.05 / 580 >= 64
    assert rs.can_reach_alpha(np.array([0, 4, 8, 9, 60]), None, family=10).tolist() == [False, False, False, True, True]
    with pytest.raises(ParameterError, match="family"):
        rs.can_reach_alpha(5, family=0)
    with pytest.raises(ParameterError, match="alpha"):
        rs.randomization_pvalues([[1.0, 2.0]], alpha=1.5)
    with pytest.raises(ParameterError, match="seed"):
        rs.randomization_pvalues([[1.0, 2.0]], seed=-1)
    with pytest.raises(ParameterError, match="smaller than the 2 comparisons"):
        rs.randomization_pvalues([[1.0, 2.0], [1.0, 3.0]], family=1)
    assert rs.pvalue_floor(np.array([3.0, 54.0]), 10_000).tolist() == [0.25, 1 / 10_001]      # whole floats
    with pytest.raises(ParameterError, match="whole numbers"):
        rs.pvalue_floor(2.5)


@settings(max_examples=examples(20), deadline=None)           # multipletests calls gc.collect(): 0.15 s a call here
@given(st.lists(st.one_of(st.floats(0, 1), st.just(float("nan")), st.sampled_from([0.0, 0.01, 1.0])),
                min_size=0, max_size=40))
def test_holm_equals_statsmodels(p):
    p = np.array(p, dtype=float)
    got = rs.holm(p)
    ok = ~np.isnan(p)
    assert np.isnan(got[~ok]).all()
    if ok.any():
        np.testing.assert_allclose(got[ok], multipletests(p[ok], method="holm")[1], rtol=1e-15, atol=0)


# ------------------------------------------------------------------- Tukey HSD of several measures

def test_tukey_of_several_measures_equals_one_call_per_measure():
    rng = np.random.default_rng(8)
    runs, queries = [f"r{i}" for i in range(5)], [f"q{j}" for j in range(12)]
    frames = {m: pd.DataFrame(rng.random((5, 12)) + np.arange(5)[:, None] * 0.1 * k, index=runs, columns=queries)
              for k, m in enumerate(["AP", "nDCG", "P@10"])}
    frames["RR"] = frames["AP"].iloc[:, :9]                      # other queries: its own draw
    frames["R"] = frames["AP"].iloc[::-1]                        # other run order: its own draw
    both = tukey_hsd_randomized(frames, n_resamples=500, seed=3, block_size=64)
    assert both["measure"].unique().tolist() == list(frames)
    for m, f in frames.items():
        alone = tukey_hsd_randomized(f, n_resamples=500, seed=3)
        mine = both[both.measure == m].drop(columns="measure").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone)
    listed = tukey_hsd_randomized(list(frames.values()), n_resamples=500, seed=3)
    assert listed["measure"].unique().tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ParameterError, match=r"frame\[1\]"):
        tukey_hsd_randomized([frames["AP"], "not a frame"], n_resamples=10)


# ------------------------------------------------------------------- mean_intervals

def test_mean_intervals_bca_is_scipys_on_data_without_ties():
    x = np.random.default_rng(0).beta(0.5, 3, size=(30, 40))
    got = mean_intervals(x, (0.0, 1.0), n_resamples=1999, seed=4)
    ref = scipy.stats.bootstrap((x,), np.mean, axis=0, method="BCa", n_resamples=1999,
                                rng=np.random.default_rng(4)).confidence_interval
    np.testing.assert_allclose(got["low"], ref.low, rtol=1e-10)
    np.testing.assert_allclose(got["high"], ref.high, rtol=1e-10)
    assert (got["method"] == "bca").all() and (got["n"] == 30).all()
    pct = mean_intervals(x[:, :3], (0.0, 1.0), method="percentile", n_resamples=999, seed=2)
    ref = scipy.stats.bootstrap((x[:, :3],), np.mean, axis=0, method="percentile", n_resamples=999,
                                rng=np.random.default_rng(2)).confidence_interval
    np.testing.assert_allclose(pct["low"], ref.low, rtol=1e-10)


def test_bca_counts_resampled_means_equal_up_to_rounding_as_ties():
    """Discrete values (tenths): many resampled means equal the mean, up to the order of summation. The
    z0 is the share below, ties counted half -- judged in exact arithmetic here."""
    x = np.array([0.1, 0.3, 0.3, 0.6, 0.0, 0.2, 0.7, 0.1, 0.3, 0.4])
    n, resamples = x.size, 2000
    got = mean_intervals(x, (0, 1), n_resamples=resamples, seed=5)
    idx = np.random.default_rng(5).integers(0, n, (resamples, n))
    tenths = np.rint(x * 10).astype(int)
    sums, total = tenths[idx].sum(axis=1), tenths.sum()
    share = ((sums < total).sum() + (sums <= total).sum()) / (2 * resamples)
    z0 = scipy.stats.norm.ppf(share)
    u = x - x.mean()
    a = (u ** 3).sum() / (6 * ((u ** 2).sum()) ** 1.5)
    z = scipy.stats.norm.ppf([0.025, 0.975])
    probs = scipy.stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    expected = np.quantile(np.sort(sums) / (10 * n), probs)                 # linear, as scipy.stats.quantile
    assert got.loc[0, ["low", "high"]].tolist() == pytest.approx(expected.tolist(), abs=1e-12)


def test_mean_intervals_t_is_scipys_and_labels_follow_the_frame():
    x = np.random.default_rng(1).normal(size=(20, 3))
    frame = pd.DataFrame(x, columns=["a", "b", "c"])
    got = mean_intervals(frame, level=0.9)                       # unbounded: t
    for c in frame:
        low, high = scipy.stats.t.interval(0.9, 19, loc=frame[c].mean(), scale=scipy.stats.sem(frame[c]))
        assert got.loc[c, ["low", "high"]].tolist() == pytest.approx([low, high])
    assert got.index.tolist() == ["a", "b", "c"] and (got["method"] == "t").all()
    mixed = mean_intervals(np.abs(x), [(0, np.inf), None, (0, 10)])
    assert mixed["method"].tolist() == ["bca", "t", "bca"]


def test_mean_intervals_columns_are_independent_and_missing_values_are_left_out():
    x = np.random.default_rng(2).random((25, 6))
    x[[1, 4], 2] = np.nan
    whole = mean_intervals(x, (0, 1), n_resamples=999)
    for c in range(6):
        column = x[:, c][~np.isnan(x[:, c])]
        alone = mean_intervals(column, (0, 1), n_resamples=999)
        np.testing.assert_allclose(whole.loc[c, ["mean", "low", "high", "n"]].to_numpy(dtype=float),
                                   alone.loc[0, ["mean", "low", "high", "n"]].to_numpy(dtype=float), rtol=1e-13)
    assert whole.loc[2, "n"] == 23


column_values = st.lists(st.sampled_from([0.0, 1.0, 0.5, 0.01, 0.99, 0.3]) | st.floats(0, 1), min_size=1, max_size=8)


@settings(max_examples=examples(60), deadline=None)
@given(columns=st.lists(column_values, min_size=1, max_size=5), level=st.sampled_from([0.5, 0.9, 0.95, 0.99]),
       method=st.sampled_from(["auto", "bca", "percentile", "t"]))
def test_mean_intervals_stay_in_range_and_hold_the_mean(columns, level, method):
    length = max(len(c) for c in columns)
    x = np.full((length, len(columns)), np.nan)
    for j, c in enumerate(columns):
        x[:len(c), j] = c
    out = mean_intervals(x, (0.0, 1.0), level=level, method=method, n_resamples=199)
    assert (out["low"] <= out["mean"]).all() and (out["mean"] <= out["high"]).all()
    assert (out["low"] >= 0.0).all() and (out["high"] <= 1.0).all()
    flat = np.array([np.nanmin(x[:, j]) == np.nanmax(x[:, j]) for j in range(len(columns))]) & (out["n"] >= 2)
    assert (out.loc[flat, "low"] == out.loc[flat, "high"]).all()
    assert (out.loc[out["n"] == 1, ["low", "high"]] == [0.0, 1.0]).all().all()


def test_mean_intervals_degenerate_columns():
    x = np.array([[0.0, 1.0, 0.4, 0.0, 0.2], [0.0, 1.0, 0.4, 1.0, np.nan]])
    out = mean_intervals(x, (0, 1))
    assert out[["low", "high"]].to_numpy().tolist() == [[0, 0], [1, 1], [0.4, 0.4], [0, 1], [0, 1]]
    empty = mean_intervals(np.full((3, 1), np.nan), (0, 1))
    assert np.isnan(empty.loc[0, ["mean", "low", "high"]].to_numpy(dtype=float)).all()


def test_bca_covers_the_mean_of_a_skewed_bounded_measure():
    """400 samples of 30 values from Beta(0.3, 3) (mean 0.0909, a measure near its bound 0): BCa's 95%
    interval covers the mean in 90-98.5% of them, stays in [0, 1]; the t interval leaves [0, 1] for some."""
    x = np.random.default_rng(9).beta(0.3, 3.0, size=(30, 400))
    out = mean_intervals(x, (0, 1), n_resamples=1999)
    covered = ((out["low"] <= 0.3 / 3.3) & (0.3 / 3.3 <= out["high"])).mean()
    assert 0.90 <= covered <= 0.985
    assert (out["low"] >= 0).all()


def test_mean_intervals_refuse_bad_input():
    with pytest.raises(ParameterError, match="outside its bounds"):
        mean_intervals(np.array([[0.5], [1.2]]), (0, 1))
    rounded = mean_intervals(np.array([[1.0 + 2e-16], [1.0], [0.9]]), (0, 1))        # a ratio's rounding
    assert rounded.loc[0, "high"] <= 1.0
    with pytest.raises(ParameterError, match="bounds"):
        mean_intervals(np.zeros((3, 2)), [(0, 1)])
    with pytest.raises(ParameterError, match="lo <= hi"):
        mean_intervals(np.zeros((3, 1)), (1, 0))
    with pytest.raises(ParameterError, match="method"):
        mean_intervals(np.zeros((3, 1)), method="wald")
    with pytest.raises(ParameterError, match="level"):
        mean_intervals(np.zeros((3, 1)), level=95)
    with pytest.raises(ParameterError, match="2-D"):
        mean_intervals(np.zeros((3, 1, 1)))
