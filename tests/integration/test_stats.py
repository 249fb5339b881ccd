"""ir_rbstar.stats against scipy / statsmodels called directly, against plain-Python oracles (randomised
Tukey HSD, tau_AP), coverage simulations of the bootstrap intervals and of the noncentral-t interval of d_z
(checked also against scipy.optimize.brentq on scipy.stats.nct.cdf), and its refusals of bad input."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.optimize
import scipy.stats
from hypothesis import assume, given, settings, strategies as st
from statsmodels.stats.multitest import multipletests

from tests.conftest import examples

from ir_rbstar.errors import ParameterError
from ir_rbstar.stats import (CORRECTIONS, all_pairs, discriminative_power, effect_size_dz, effect_size_dz_interval,
                             mean_interval, paired_test, ranking_agreement, ranking_rbo, tau_ap,
                             tukey_hsd_randomized)

R = 300                       # resamples in the exact-equality checks (speed)
unit = st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False)


def vectors(min_n=2, max_n=25):
    return st.lists(unit, min_size=min_n, max_size=max_n).map(np.array)


@st.composite
def paired_vectors(draw, min_n=2, max_n=25):
    n = draw(st.integers(min_n, max_n))
    a = draw(st.lists(unit, min_size=n, max_size=n))
    b = draw(st.lists(unit, min_size=n, max_size=n))
    return np.array(a), np.array(b)


@st.composite
def frames(draw, max_runs=5, max_queries=7):
    runs = draw(st.integers(2, max_runs))
    queries = draw(st.integers(2, max_queries))
    cells = draw(st.lists(unit, min_size=runs * queries, max_size=runs * queries))
    return pd.DataFrame(np.array(cells).reshape(runs, queries), index=[f"run{i}" for i in range(runs)],
                        columns=[f"q{j}" for j in range(queries)])


def rng(seed):
    return np.random.default_rng(seed)


def close(x, y):
    np.testing.assert_allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=1e-12, atol=1e-14,
                               equal_nan=True)


# ---------------------------------------------------------------------------------------------- mean_interval

@settings(max_examples=examples(40))
@given(x=vectors(), confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")         # scipy: precision loss on near-constant data
def test_t_interval_is_scipys(x, confidence):
    res = mean_interval(x, confidence=confidence, method="t")
    assert (res.n, res.method, res.confidence) == (x.size, "t", confidence)
    close(res.mean, np.mean(x))
    if np.std(x) > 0:
        close((res.low, res.high), scipy.stats.ttest_1samp(x, 0.0).confidence_interval(confidence))
        close((res.low, res.high), scipy.stats.t.interval(confidence, x.size - 1, loc=np.mean(x),
                                                          scale=scipy.stats.sem(x)))
    else:
        assert res.low == res.high == res.mean


@settings(max_examples=examples(30))
@given(x=vectors(min_n=3), method=st.sampled_from(["percentile", "basic", "bca"]), seed=st.integers(0, 2**32))
@pytest.mark.filterwarnings("ignore::scipy.stats.DegenerateDataWarning", "ignore::RuntimeWarning")
def test_bootstrap_interval_is_scipys_with_the_same_seed(x, method, seed):
    res = mean_interval(x, confidence=0.9, method=method, n_resamples=R, seed=seed)
    ref = scipy.stats.bootstrap((x,), np.mean, n_resamples=R, confidence_level=0.9,
                                method={"bca": "BCa"}.get(method, method), rng=rng(seed))
    close((res.low, res.high), tuple(ref.confidence_interval))
    # and reproducible
    again = mean_interval(x, confidence=0.9, method=method, n_resamples=R, seed=seed)     # the same seed: the same
    assert np.array_equal([again.mean, again.low, again.high], [res.mean, res.low, res.high], equal_nan=True)


# ------------------------------------------------------------------------------------------------ paired_test

@settings(max_examples=examples(40))
@given(ab=paired_vectors(), alternative=st.sampled_from(["two-sided", "greater", "less"]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_paired_t_is_ttest_rel(ab, alternative):
    a, b = ab
    res = paired_test(a, b, test="t", alternative=alternative, n_resamples=R)
    ref = scipy.stats.ttest_rel(a, b, alternative=alternative)
    close((res.statistic, res.pvalue), (ref.statistic, ref.pvalue))
    close(res.mean_difference, np.mean(a - b))
    assert (res.test, res.alternative, res.n) == ("t", alternative, a.size)


@settings(max_examples=examples(40))
@given(ab=paired_vectors(min_n=3), zero_method=st.sampled_from(["wilcox", "pratt", "zsplit"]),
       alternative=st.sampled_from(["two-sided", "greater", "less"]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
def test_wilcoxon_is_scipys(ab, zero_method, alternative):
    a, b = ab
    d = a - b
    res = paired_test(a, b, test="wilcoxon", alternative=alternative, zero_method=zero_method, effect_resamples=0)
    ref = scipy.stats.wilcoxon(d, zero_method=zero_method, alternative=alternative)
    close((res.statistic, res.pvalue), (ref.statistic, ref.pvalue))


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
def test_wilcoxon_on_identical_runs_is_scipys(zero_method):
    a = np.array([0.2, 0.5, 0.1, 0.9])
    res = paired_test(a, a.copy(), test="wilcoxon", zero_method=zero_method)
    ref = scipy.stats.wilcoxon(a - a, zero_method=zero_method)
    close((res.statistic, res.pvalue), (ref.statistic, ref.pvalue))
    assert math.isnan(res.effect_size)


@settings(max_examples=examples(30))
@given(ab=paired_vectors(), alternative=st.sampled_from(["two-sided", "greater", "less"]),
       seed=st.integers(0, 2**32))
def test_permutation_is_scipys_sign_flip_test(ab, alternative, seed):
    a, b = ab
    res = paired_test(a, b, test="permutation", alternative=alternative, n_resamples=R, seed=seed,
                      effect_resamples=0)
    ref = scipy.stats.permutation_test((a - b,), lambda d, axis: np.mean(d, axis=axis), vectorized=True,
                                       permutation_type="samples", n_resamples=R, alternative=alternative,
                                       rng=rng(seed))
    # paired_test judges ties on the scale of the differences (test_stats_level.py); scipy's allowance is
    # relative to the observed mean: they differ only where a flipped mean is that close to it
    gap = np.abs(ref.null_distribution - ref.statistic)
    assume(not ((gap <= 1e-9 * np.mean(np.abs(a - b))) & (gap > 2e-14 * abs(ref.statistic))).any())
    close((res.statistic, res.pvalue), (ref.statistic, ref.pvalue))


def _bootstrap_oracle(d, alternative, n_resamples, seed):
    """The shifted-to-null bootstrap test counted in plain Python over scipy's resampled means."""
    m = sum(d) / len(d)
    null = scipy.stats.bootstrap((d - np.mean(d),), np.mean, n_resamples=n_resamples, method="percentile",
                                 rng=rng(seed)).bootstrap_distribution
    tol = 1e-12 * abs(m)
    if alternative == "greater":
        b = sum(1 for t in null if t >= m - tol)
    elif alternative == "less":
        b = sum(1 for t in null if -t >= -m - tol)
    else:
        b = sum(1 for t in null if abs(t) >= abs(m) - tol)
    return (b + 1) / (n_resamples + 1)


@settings(max_examples=examples(30))
@given(ab=paired_vectors(), alternative=st.sampled_from(["two-sided", "greater", "less"]),
       seed=st.integers(0, 2**32))
def test_bootstrap_test_is_the_shifted_null_count(ab, alternative, seed):
    a, b = ab
    res = paired_test(a, b, test="bootstrap", alternative=alternative, n_resamples=R, seed=seed,
                      effect_resamples=0)
    assert res.statistic == res.mean_difference
    close(res.pvalue, _bootstrap_oracle(a - b, alternative, R, seed))
    assert 0 < res.pvalue <= 1


@settings(max_examples=examples(30))
@given(ab=paired_vectors(min_n=3), seed=st.integers(0, 2**32))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_effect_size_and_its_interval(ab, seed):
    a, b = ab
    d = a - b
    res = paired_test(a, b, test="t", n_resamples=R, seed=seed, confidence=0.9)
    if np.std(d) == 0:
        assert math.isnan(res.effect_size) and all(map(math.isnan, res.effect_interval))
        return
    close(res.effect_size, np.mean(d) / np.std(d, ddof=1))
    ref = scipy.stats.bootstrap((d,), effect_size_dz, n_resamples=R, method="percentile", confidence_level=0.9,
                                rng=rng(seed))
    close(res.effect_interval, tuple(ref.confidence_interval))


def test_effect_size_dz_on_known_values():
    d = np.array([1.0, 2.0, 3.0, 6.0])
    assert effect_size_dz(d) == pytest.approx(3.0 / np.sqrt(14.0 / 3.0))
    assert math.isnan(effect_size_dz(np.ones(4)))


# ------------------------------------------------------------------- d_z interval from the noncentral t

def _nct_oracle(d, confidence):
    """The noncentral-t interval of d_z by scipy.optimize.brentq on scipy.stats.nct.cdf, one bound at a time:
    nc with P(T <= t_obs; n - 1, nc) = (1 + confidence) / 2 (low) and (1 - confidence) / 2 (high), / sqrt(n)."""
    n = d.size
    t = math.sqrt(n) * np.mean(d) / np.std(d, ddof=1)
    step = 0.25 * math.sqrt(1.0 + t * t / (2.0 * (n - 1)))
    bounds = []
    for p in ((1.0 + confidence) / 2.0, (1.0 - confidence) / 2.0):
        def f(nc, p=p):
            return scipy.stats.nct.cdf(t, n - 1, nc) - p        # falls as nc grows
        lo = hi = t
        while not f(lo) > 0:         # step outwards in small steps (scipy's cdf is NaN at some far-tail points)
            lo -= step
        while not f(hi) < 0:
            hi += step
        bounds.append(scipy.optimize.brentq(f, lo, hi, xtol=1e-13, rtol=1e-14) / math.sqrt(n))
    return tuple(bounds)


@settings(max_examples=examples(40), deadline=None)
@given(ab=paired_vectors(min_n=3), confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_dz_t_interval_equals_root_finding_on_the_nct_cdf(ab, confidence):
    a, b = ab
    d = a - b
    res = paired_test(a, b, test="t", confidence=confidence, effect_ci="t")
    if not np.std(d) > 1e-9 * (1 + np.abs(d).max()) or abs(res.statistic) > 50:
        return                   # constant (NaN interval, below) or beyond the oracle's plain bracket
    np.testing.assert_allclose(res.effect_interval, _nct_oracle(d, confidence), rtol=1e-9, atol=1e-11)
    assert res.effect_interval[0] < res.effect_size < res.effect_interval[1]


def test_dz_t_interval_on_known_values_and_degenerate_input():
    # d = (1, 2, 3, 6): d_z = 3 / sqrt(14/3); the interval by the oracle (brentq on scipy.stats.nct.cdf)
    d = np.array([1.0, 2.0, 3.0, 6.0])
    low, high = effect_size_dz_interval(d)
    np.testing.assert_allclose((low, high), _nct_oracle(d, 0.95), rtol=1e-10)
    np.testing.assert_allclose((low, high), (-0.0917361796, 2.7878204423), atol=1e-9)
    # symmetric differences: d_z = 0 and a symmetric interval
    low, high = effect_size_dz_interval(np.array([-0.3, 0.1, -0.1, 0.3]), 0.9)
    assert low == pytest.approx(-high, abs=1e-12) and high > 0
    # constant differences: no interval; NaN rows stay NaN beside computed ones
    assert all(math.isnan(v) for v in effect_size_dz_interval(np.full(5, 0.2)))
    rows = np.vstack([np.full(4, 0.1), d, [np.nan, 1.0, 2.0, 3.0]])
    low, high = effect_size_dz_interval(rows, axis=1)
    assert np.isnan(low[[0, 2]]).all() and np.isnan(high[[0, 2]]).all()
    np.testing.assert_allclose((low[1], high[1]), _nct_oracle(d, 0.95), rtol=1e-10)
    # along axis 0 as along axis 1 of the transpose
    many = rng(8).normal(0.2, 1.0, size=(6, 30))
    np.testing.assert_array_equal(effect_size_dz_interval(many.T, axis=0)[1], effect_size_dz_interval(many)[1])


@pytest.mark.parametrize("n,delta", [(5, 0.0), (12, 0.8), (43, 0.3), (43, 2.0)])
def test_dz_t_interval_covers_the_true_effect_on_normal_data(n, delta):
    """4,000 samples of n normal differences with true d_z = delta (sd 2, mean 2 delta); the exact interval
    must cover delta in 95% of them: accepted [0.938, 0.962] (the binomial sd at 0.95 is 0.0034)."""
    g = np.random.default_rng(1000 + n)
    d = g.normal(2.0 * delta, 2.0, size=(4000, n))
    low, high = effect_size_dz_interval(d, 0.95, axis=1)
    assert np.isfinite(low).all() and np.isfinite(high).all()
    share = np.mean((low <= delta) & (delta <= high))
    assert 0.938 <= share <= 0.962, share
    # each bound alone misses on its side about 2.5% of the time (an equal-tailed interval)
    assert 0.018 <= np.mean(low > delta) <= 0.032 and 0.018 <= np.mean(high < delta) <= 0.032


@settings(max_examples=examples(60), deadline=None)
@given(ab=paired_vectors(min_n=3), confidence=st.sampled_from([0.9, 0.95, 0.99]))
def test_dz_t_interval_excludes_zero_exactly_when_the_t_test_rejects(ab, confidence):
    a, b = ab
    res = scipy.stats.ttest_rel(a, b)
    if not np.isfinite(res.pvalue) or abs(res.pvalue - (1 - confidence)) < 1e-8 or abs(res.statistic) > 1e4:
        return
    low, high = effect_size_dz_interval(a - b, confidence)
    assert (low > 0 or high < 0) == (res.pvalue < 1 - confidence)


# ------------------------------------------------------------------------------------------------- all_pairs

@settings(max_examples=15, deadline=None)
@given(frame=frames(max_runs=5, max_queries=9), test=st.sampled_from(["t", "wilcoxon", "permutation", "bootstrap"]),
       effect_ci=st.sampled_from(["t", "bootstrap", None]), alternative=st.sampled_from(["two-sided", "less"]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
def test_all_pairs_rows_are_paired_test(frame, test, effect_ci, alternative):
    """Every row of all_pairs (vectorised over the pairs for the t test and the 't' interval) equals
    paired_test on that pair with the same options."""
    out = all_pairs(frame, test=test, effect_ci=effect_ci, alternative=alternative, n_resamples=99, seed=4,
                    confidence=0.9)
    for row in out.itertuples(index=False):
        one = paired_test(frame.loc[row.run_a], frame.loc[row.run_b], test=test, effect_ci=effect_ci,
                          alternative=alternative, n_resamples=99, seed=4, confidence=0.9)
        close((row.statistic, row.pvalue, row.effect_size), (one.statistic, one.pvalue, one.effect_size))
        np.testing.assert_allclose((row.low, row.high), one.effect_interval, rtol=1e-12, atol=1e-13, equal_nan=True)


def test_all_pairs_default_interval_is_the_noncentral_t():
    frame = pd.DataFrame(rng(6).random((4, 20)), index=list("ABCD"))
    out = all_pairs(frame)
    d = (frame.loc["A"] - frame.loc["C"]).to_numpy()
    row = out[(out.run_a == "A") & (out.run_b == "C")].iloc[0]
    np.testing.assert_allclose((row.low, row.high), _nct_oracle(d, 0.95), rtol=1e-9)
    assert all_pairs(frame, effect_resamples=0)[["low", "high"]].isna().all().all()
    assert all_pairs(frame, effect_ci=None)[["low", "high"]].isna().all().all()


@settings(max_examples=examples(25))
@given(frame=frames(), correction=st.sampled_from(["holm", "bonferroni", "fdr_bh", "hommel", "sidak"]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_all_pairs_adjusts_like_multipletests(frame, correction):
    out = all_pairs(frame, test="t", correction=correction, effect_resamples=0)
    pairs = list(itertools.combinations(frame.index, 2))
    assert list(zip(out.run_a, out.run_b, strict=True)) == pairs
    raw = np.array([scipy.stats.ttest_rel(frame.loc[x], frame.loc[y]).pvalue for x, y in pairs])
    close(out.pvalue, raw)
    close(out.difference, [frame.loc[x].mean() - frame.loc[y].mean() for x, y in pairs])
    ok = np.isfinite(raw)
    if ok.any():
        reject, adjusted, _, _ = multipletests(raw[ok], alpha=0.05, method=correction)
        close(out.pvalue_adjusted[ok], adjusted)
        assert out.reject[ok].tolist() == reject.tolist()
    assert not out.reject[~ok].any()


def test_all_pairs_columns_and_a_second_test():
    frame = pd.DataFrame(rng(3).random((4, 12)), index=list("ABCD"))
    out = all_pairs(frame, test="permutation", correction="fdr_by", n_resamples=500, seed=7, effect_ci="bootstrap")
    assert list(out.columns) == ["run_a", "run_b", "mean_a", "mean_b", "difference", "statistic", "pvalue",
                                 "pvalue_adjusted", "reject", "effect_size", "low", "high"]
    assert len(out) == 6
    one = paired_test(frame.loc["B"], frame.loc["D"], test="permutation", n_resamples=500, seed=7)
    row = out[(out.run_a == "B") & (out.run_b == "D")].iloc[0]
    close((row.pvalue, row.effect_size, row.low, row.high), (one.pvalue, one.effect_size, *one.effect_interval))
    close(out.pvalue_adjusted, multipletests(out.pvalue, method="fdr_by")[1])


def test_all_pairs_without_correction_and_discriminative_power():
    frame = pd.DataFrame(rng(4).random((5, 30)) + np.arange(5)[:, None] * 0.08, index=list("ABCDE"))
    out = all_pairs(frame, correction=None, effect_resamples=0)
    close(out.pvalue_adjusted, out.pvalue)
    assert discriminative_power(frame, alpha=0.05, effect_resamples=0) == pytest.approx(
        np.mean(out.pvalue <= 0.05))
    holm = discriminative_power(frame, correction="holm", effect_resamples=0)
    assert holm == pytest.approx(np.mean(multipletests(out.pvalue, method="holm")[0]))
    assert discriminative_power(frame, test="tukey", n_resamples=500) == pytest.approx(
        tukey_hsd_randomized(frame, n_resamples=500).reject.mean())


# ---------------------------------------------------------------------------------------- randomised Tukey HSD

def tukey_oracle(frame, n_resamples, seed):
    """Carterette's randomised Tukey HSD in plain Python: resample r permutes, within every query q, the
    systems' values in the order sorted(range(S), key=u[q]) of the uniforms u = rng.random((Q, S)) drawn
    resample after resample from default_rng(seed); p = (b + 1) / (R + 1)."""
    x = frame.to_numpy().tolist()                   # runs x queries
    runs, s, q = list(frame.index), len(frame.index), len(frame.columns)
    g = np.random.default_rng(seed)
    ranges = []
    for _ in range(n_resamples):
        u = g.random((q, s)).tolist()
        sums = [0.0] * s
        for k in range(q):
            order = sorted(range(s), key=lambda j, k=k: u[k][j])
            for pos in range(s):
                sums[pos] += x[order[pos]][k]
        means = [v / q for v in sums]
        ranges.append(max(means) - min(means))
    out = {}
    for i, j in itertools.combinations(range(s), 2):
        diff = abs(sum(x[i]) / q - sum(x[j]) / q)
        b = sum(1 for r in ranges if r >= diff - 1e-12 * diff)
        out[(runs[i], runs[j])] = (b + 1) / (n_resamples + 1)
    return out


@settings(max_examples=examples(25))
@given(frame=frames(), seed=st.integers(0, 2**32))
def test_tukey_matches_the_plain_python_oracle(frame, seed):
    out = tukey_hsd_randomized(frame, n_resamples=200, seed=seed, block_size=64)
    oracle = tukey_oracle(frame, 200, seed)
    assert list(zip(out.run_a, out.run_b, strict=True)) == list(oracle)
    assert out.pvalue.tolist() == list(oracle.values())
    assert (out.reject == (out.pvalue <= 0.05)).all()


def test_tukey_is_reproducible_and_independent_of_the_block_size():
    frame = pd.DataFrame(rng(5).random((6, 15)) + np.arange(6)[:, None] * 0.05)
    ref = tukey_hsd_randomized(frame, n_resamples=1000, seed=11)
    for block in (1, 7, 1000, 5000):
        pd.testing.assert_frame_equal(tukey_hsd_randomized(frame, n_resamples=1000, seed=11, block_size=block), ref)
    assert not tukey_hsd_randomized(frame, n_resamples=1000, seed=12).pvalue.equals(ref.pvalue)


def test_tukey_separates_a_clearly_better_run_and_is_family_wise():
    base = rng(6).random((5, 40))
    base[0] += 0.5
    out = tukey_hsd_randomized(pd.DataFrame(base, index=list("ABCDE")), n_resamples=2000)
    assert out[out.run_a == "A"].reject.all()
    # the Tukey p-value is never below the per-pair randomisation p-value of the same pair
    single = paired_test(base[1], base[2], test="permutation", n_resamples=2000, effect_resamples=0)
    row = out[(out.run_a == "B") & (out.run_b == "C")].iloc[0]
    assert row.pvalue >= single.pvalue - 0.03


# ------------------------------------------------------------------------------------------ ranking agreement

def tau_ap_oracle(reference, compared):
    """tau_AP by its definition in Yilmaz et al. (2008): the systems ranked by `compared`; C(i) counts the
    systems above rank i there that `reference` ranks above the system at rank i."""
    systems = sorted(compared, key=lambda k: -compared[k])
    n = len(systems)
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if reference[systems[j]] > reference[systems[i]])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


@st.composite
def distinct_scores(draw):
    n = draw(st.integers(2, 12))
    a = draw(st.lists(unit, min_size=n, max_size=n, unique=True))
    b = draw(st.lists(unit, min_size=n, max_size=n, unique=True))
    names = [f"s{i}" for i in range(n)]
    return pd.Series(a, index=names), pd.Series(b, index=names)


@settings(max_examples=examples(60))
@given(ab=distinct_scores(), shuffle_seed=st.integers(0, 100))
def test_tau_ap_and_tau_b_against_oracles(ab, shuffle_seed):
    a, b = ab
    b = b.sample(frac=1.0, random_state=shuffle_seed)          # aligned on the index, not by position
    res = ranking_agreement(a, b)
    close(res.tau_ap, tau_ap_oracle(a.to_dict(), b.to_dict()))
    close(res.tau_ap_symmetric, (tau_ap_oracle(a.to_dict(), b.to_dict()) + tau_ap_oracle(b.to_dict(), a.to_dict())) / 2)
    ref = scipy.stats.kendalltau(a, b.reindex(a.index))
    close((res.tau_b, res.tau_b_pvalue), (ref.statistic, ref.pvalue))
    assert -1 - 1e-12 <= res.tau_ap <= 1 + 1e-12
    close(tau_ap(a, b), res.tau_ap)


@pytest.mark.parametrize("n", [2, 3, 10, 37])
def test_tau_ap_is_one_for_identical_and_minus_one_for_reversed_orders(n):
    a = pd.Series(np.linspace(0.1, 0.9, n), index=[f"s{i}" for i in range(n)])
    assert tau_ap(a, a * 2 + 1) == pytest.approx(1.0)
    assert tau_ap(a, -a) == pytest.approx(-1.0)
    assert ranking_agreement(a, a).tau_b == pytest.approx(1.0)


def test_tau_ap_weighs_swaps_at_the_top_more():
    ref = [0.9, 0.8, 0.7, 0.6, 0.5]
    top_swap = [0.8, 0.9, 0.7, 0.6, 0.5]
    bottom_swap = [0.9, 0.8, 0.7, 0.5, 0.6]
    assert tau_ap(ref, top_swap) < tau_ap(ref, bottom_swap)
    assert scipy.stats.kendalltau(ref, top_swap).statistic == scipy.stats.kendalltau(ref, bottom_swap).statistic


# ------------------------------------------------------------------------------------------ coverage simulation

def test_bootstrap_intervals_cover_the_true_mean():
    """400 samples of n=50 from an exponential distribution (mean 1, skewed); 95% intervals with 2000
    resamples each. Accepted coverage: [0.91, 0.98] (the binomial sd at 0.95 is 0.011; percentile intervals
    are known to under-cover a little on skewed data)."""
    g = np.random.default_rng(2024)
    samples = g.exponential(1.0, size=(400, 50))
    coverage = {}
    for method in ("percentile", "bca"):
        hits = 0
        for k, x in enumerate(samples):
            res = mean_interval(x, method=method, n_resamples=2000, seed=k)
            hits += res.low <= 1.0 <= res.high
        coverage[method] = hits / len(samples)
    for method, share in coverage.items():
        assert 0.91 <= share <= 0.98, (method, share)


# -------------------------------------------------------------------------------------------------- bad input

def _raises(parameter, func, *args, **kwargs):
    with pytest.raises(ParameterError, match=rf"^{parameter}\b"):
        func(*args, **kwargs)


def test_bad_input_names_the_parameter():
    a, b = np.array([0.1, 0.5, 0.3]), np.array([0.2, 0.4, 0.1])
    frame = pd.DataFrame(rng(0).random((3, 4)), index=list("ABC"))
    _raises("b", paired_test, a, b[:2])
    _raises("b", paired_test, pd.Series(a, index=list("xyz")), pd.Series(b, index=list("zyx")))
    _raises("a", paired_test, a[:1], b[:1])
    _raises("values", mean_interval, [0.3])
    _raises("values", mean_interval, [0.3, float("nan")])
    _raises("values", mean_interval, np.ones((2, 2)))
    _raises("method", mean_interval, a, method="bootstrap")
    _raises("confidence", mean_interval, a, confidence=95)
    _raises("n_resamples", mean_interval, a, method="bca", n_resamples=0)
    _raises("seed", mean_interval, a, method="bca", seed=-1)
    _raises("test", paired_test, a, b, test="sign")
    _raises("alternative", paired_test, a, b, alternative="both")
    _raises("zero_method", paired_test, a, b, test="wilcoxon", zero_method="drop")
    _raises("effect_ci", paired_test, a, b, effect_ci="bca")
    _raises("effect_ci", all_pairs, frame, effect_ci="normal")
    _raises("confidence", all_pairs, frame, confidence=1.0)
    _raises("alternative", all_pairs, frame, alternative="both")
    _raises("n_resamples", all_pairs, frame, n_resamples=0)
    _raises("resamples", all_pairs, frame, resamples=10)
    _raises("confidence", effect_size_dz_interval, a - b, confidence=0.0)
    _raises("d", effect_size_dz_interval, np.array([0.1]))
    _raises("d", effect_size_dz_interval, np.ones((2, 1)), axis=1)
    _raises("correction", all_pairs, frame, correction="tukey")
    _raises("correction", discriminative_power, frame, test="tukey", correction="holm")
    _raises("test", all_pairs, frame, test="anova")
    _raises("test", discriminative_power, frame, test="anova")
    _raises("alpha", all_pairs, frame, alpha=1.5)
    _raises("frame", all_pairs, frame.iloc[:1])
    _raises("frame", all_pairs, frame.iloc[:, :1])
    _raises("frame", tukey_hsd_randomized, frame.iloc[:, :1])
    _raises("frame", tukey_hsd_randomized, frame.to_numpy())
    missing = frame.copy()
    missing.iloc[1, 2] = np.nan
    _raises("frame", tukey_hsd_randomized, missing)
    _raises("n_resamples", tukey_hsd_randomized, frame, n_resamples=0)
    s = pd.Series([0.1, 0.2, 0.3], index=list("xyz"))
    _raises("scores_b", ranking_agreement, s, s.rename({"z": "w"}))
    _raises("scores_b", ranking_agreement, [0.1, 0.2, 0.3], [0.1, 0.2])
    _raises("scores_a", ranking_agreement, [0.1], [0.2])


def test_the_unknown_correction_error_lists_the_allowed_methods():
    frame = pd.DataFrame(rng(0).random((3, 4)))
    with pytest.raises(ParameterError) as info:
        all_pairs(frame, correction="tukey")
    for name in CORRECTIONS:
        assert name in str(info.value)


# ------------------------------------------------------------------------------------------ PyTerrier

@pytest.mark.parametrize("test", ["t", "wilcoxon", "permutation", "bootstrap"])
def test_pt_experiment_takes_the_tests(test):
    """pt.Experiment(..., baseline=0, test=experiment_test(name)) reports, for the second system, the p-value
    paired_test gives on the per-query values pt.Experiment(perquery=True) reports."""
    pt = pytest.importorskip("pyterrier")
    import ir_rbstar
    from ir_rbstar.stats import experiment_test, paired_test
    rng = np.random.default_rng(5)
    qids = [f"q{i}" for i in range(12)]
    qrels = pd.DataFrame([(q, f"d{j}", int(rng.integers(0, 3))) for q in qids for j in range(8)],
                         columns=["qid", "docno", "label"])
    topics = pd.DataFrame({"qid": qids, "query": "x"})
    systems = [pd.DataFrame([(q, f"d{j}", float(rng.random())) for q in qids for j in range(8)],
                            columns=["qid", "docno", "score"]) for _ in range(2)]
    measures = ir_rbstar.parse("nDCG_TA@5 RBP(p=0.8,max_rel=2)")
    fn = experiment_test(test, seed=3, n_resamples=999)
    table = pt.Experiment(systems, topics, qrels, eval_metrics=measures, names=["a", "b"], baseline=0, test=fn)
    per_query = pt.Experiment(systems, topics, qrels, eval_metrics=measures, names=["a", "b"], perquery=True)
    for m in measures:
        values = {n: per_query[(per_query["name"] == n) & (per_query["measure"] == str(m))]
                  .set_index("qid")["value"].reindex(qids).to_numpy() for n in ("a", "b")}
        want = paired_test(values["b"], values["a"], test=test, seed=3, n_resamples=999, effect_resamples=0).pvalue
        got = table.set_index("name").loc["b", f"{m} p-value"]
        assert got == pytest.approx(want, rel=1e-12), (test, str(m))


# -------------------------------------------------------------------------------- ranking agreement with ties, RBO

def strict_orders(scores):
    """Every order of the systems (dict keys) by decreasing score that breaks the ties some way."""
    groups = [[k for k in scores if scores[k] == v] for v in sorted(set(scores.values()), reverse=True)]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [k for part in parts for k in part]


def rbo_ext_oracle(order_a, order_b, p):
    """Webber, Moffat & Zobel (2010), eq. (32): RBO_EXT of two rankings seen to depth k,
    X_k / k * p^k + (1 - p) / p * sum_{d=1..k} X_d / d * p^d, X_d the overlap of the first d items."""
    k = len(order_a)
    overlap = [len(set(order_a[:d]) & set(order_b[:d])) for d in range(1, k + 1)]
    head = sum(overlap[d - 1] / d * p ** d for d in range(1, k + 1))
    return overlap[-1] / k * p ** k + (1 - p) / p * head


def expected_over_tie_orders(a, b, statistic):
    """The mean of statistic(order by a, order by b) over every way of breaking the ties of a and of b."""
    values = [statistic(oa, ob) for oa in strict_orders(a) for ob in strict_orders(b)]
    return math.fsum(values) / len(values)


def _as_ranking(order):
    return {k: -r for r, k in enumerate(order)}       # higher score = ranked higher


@st.composite
def tied_scores(draw, max_n=6, levels=4):
    """Two score vectors on a coarse grid (many ties), neither constant."""
    n = draw(st.integers(2, max_n))
    grid = st.integers(0, levels - 1).map(float)
    a = draw(st.lists(grid, min_size=n, max_size=n).filter(lambda v: len(set(v)) > 1))
    b = draw(st.lists(grid, min_size=n, max_size=n).filter(lambda v: len(set(v)) > 1))
    names = [f"s{i}" for i in range(n)]
    return pd.Series(a, index=names), pd.Series(b, index=names)


@settings(max_examples=examples(80), deadline=None)
@given(ab=tied_scores(max_n=30, levels=5))
def test_tau_b_with_ties_equals_scipy(ab):
    a, b = ab
    res = ranking_agreement(a, b)
    ref = scipy.stats.kendalltau(a.to_numpy(), b.to_numpy())
    assert res.tau_b == ref.statistic and res.tau_b_pvalue == ref.pvalue      # the same call: identical
    assert res.n == len(a)
    assert res.tied_a == sum(c for c in a.value_counts() if c > 1)
    assert res.tied_b == sum(c for c in b.value_counts() if c > 1)


@settings(max_examples=examples(60), deadline=None)
@given(ab=tied_scores(), shuffle_seed=st.integers(0, 100))
def test_tau_ap_with_ties_is_the_mean_over_the_orders_that_break_them(ab, shuffle_seed):
    a, b = ab
    b = b.sample(frac=1.0, random_state=shuffle_seed)
    da, db = a.to_dict(), b.to_dict()
    forward = expected_over_tie_orders(da, db, lambda oa, ob: tau_ap_oracle(_as_ranking(oa), _as_ranking(ob)))
    backward = expected_over_tie_orders(db, da, lambda ob, oa: tau_ap_oracle(_as_ranking(ob), _as_ranking(oa)))
    res = ranking_agreement(a, b)
    close(res.tau_ap, forward)
    close(res.tau_ap_symmetric, (forward + backward) / 2)
    close(tau_ap(a, b), forward)


@settings(max_examples=examples(60), deadline=None)
@given(ab=distinct_scores(), p=st.floats(0.05, 0.95), shuffle_seed=st.integers(0, 100))
def test_rbo_of_the_system_rankings_against_the_definition(ab, p, shuffle_seed):
    a, b = ab
    b = b.sample(frac=1.0, random_state=shuffle_seed)
    oa, ob = next(strict_orders(a.to_dict())), next(strict_orders(b.to_dict()))
    want = rbo_ext_oracle(oa, ob, p)
    close(ranking_rbo(a, b, p=p), want)
    res = ranking_agreement(a, b, p=p)
    close(res.rbo, want)
    assert res.rbo_p == p and res.tied_a == res.tied_b == 0


@settings(max_examples=examples(60), deadline=None)
@given(ab=tied_scores(), p=st.sampled_from([0.5, 0.8, 0.9, 0.98]))
def test_rbo_with_ties_is_the_mean_over_the_orders_that_break_them(ab, p):
    a, b = ab
    want = expected_over_tie_orders(a.to_dict(), b.to_dict(), lambda oa, ob: rbo_ext_oracle(oa, ob, p))
    close(ranking_rbo(a, b, p=p), want)
    close(ranking_agreement(a, b, p=p).rbo, want)
    close(ranking_rbo(b, a, p=p), want)                                  # symmetric


def test_rbo_is_one_for_identical_orders_and_weighs_the_top():
    a = pd.Series(np.linspace(0.1, 0.9, 8), index=[f"s{i}" for i in range(8)])
    assert ranking_rbo(a, 3 * a - 1) == pytest.approx(1.0, abs=1e-15)
    top = a.copy()
    top[["s7", "s6"]] = top[["s6", "s7"]].to_numpy()
    bottom = a.copy()
    bottom[["s0", "s1"]] = bottom[["s1", "s0"]].to_numpy()
    assert ranking_rbo(a, top) < ranking_rbo(a, bottom) < 1.0
    assert 0.0 < ranking_rbo(a, -a) < ranking_rbo(a, top)


def test_ties_are_expectations_not_dropped_systems():
    """Two systems tied in b: tau_AP and RBO are the means of the two ways of ordering them (hand values),
    no system is left out (n = 3)."""
    a = [0.3, 0.2, 0.1]
    b = [0.5, 0.5, 0.1]
    res = ranking_agreement(a, b, p=0.5)
    # the orders of b: (0, 1, 2) identical to a's: tau_AP 1; (1, 0, 2): C(2) = 0, C(3) = 2, tau_AP = 0
    assert res.tau_ap == pytest.approx(0.5, abs=1e-15)
    # RBO_EXT, p = 1/2, (1 - p) / p = 1: (0, 1, 2): 1; (1, 0, 2): overlaps 0, 2, 3 at depths 1, 2, 3,
    # 0 / 1 * 1/2 + 2 / 2 * 1/4 + 3 / 3 * 1/8 + 3 / 3 * 1/8 = 1/2; the mean 3/4
    assert rbo_ext_oracle([0, 1, 2], [1, 0, 2], 0.5) == 0.5
    assert res.rbo == pytest.approx(0.75, abs=1e-15)
    assert (res.n, res.tied_a, res.tied_b) == (3, 0, 2)
    assert res.tau_b == pytest.approx(scipy.stats.kendalltau(a, b).statistic)


def test_constant_scores_give_nan_as_scipy_does():
    s = pd.Series([0.4, 0.4, 0.4], index=list("xyz"))
    t = pd.Series([0.1, 0.2, 0.3], index=list("xyz"))
    with np.errstate(all="ignore"):
        ref = scipy.stats.kendalltau(s, t)
    assert math.isnan(ref.statistic)
    for res in (ranking_agreement(s, t), ranking_agreement(t, s), ranking_agreement(s, s)):
        assert all(math.isnan(v) for v in (res.tau_b, res.tau_b_pvalue, res.tau_ap, res.tau_ap_symmetric, res.rbo))
        assert res.n == 3
    assert (ranking_agreement(s, t).tied_a, ranking_agreement(s, t).tied_b) == (3, 0)
    assert math.isnan(tau_ap(s, t)) and math.isnan(tau_ap(t, s)) and math.isnan(ranking_rbo(s, t))


def test_ranking_agreement_is_fast_enough_for_many_items():
    """The studies correlate thousands of (run, topic) pairs: tau_AP is counted in blocks (bounded memory)."""
    r = rng(3)
    a, b = r.integers(0, 50, 3000).astype(float), r.integers(0, 50, 3000).astype(float)
    res = ranking_agreement(a, b)
    close(res.tau_b, scipy.stats.kendalltau(a, b).statistic)
    assert -1 <= res.tau_ap <= 1 and 0 <= res.rbo <= 1


def test_ranking_agreement_refuses_a_bad_persistence():
    s = pd.Series([0.1, 0.2, 0.3], index=list("xyz"))
    for bad in (0, 1, 1.5, -0.1, True, "0.9", None):
        _raises("p", ranking_agreement, s, s, p=bad)
        _raises("p", ranking_rbo, s, s, p=bad)
    _raises("compared", tau_ap, s, s.rename({"z": "w"}))
    _raises("scores_b", ranking_rbo, [0.1, 0.2, 0.3], [0.1, 0.2])


@st.composite
def ttest_inputs(draw):
    """Rows x queries of values on a grid of quarters (exact differences), some rows of constant differences
    (every query's difference the same, 0 included), 1 to 6 queries."""
    rows, n = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    grid = st.integers(0, 4).map(lambda k: k / 4.0)
    x = np.array(draw(st.lists(st.lists(grid, min_size=n, max_size=n), min_size=rows, max_size=rows)))
    y = np.array(draw(st.lists(st.lists(grid, min_size=n, max_size=n), min_size=rows, max_size=rows)))
    shifts = draw(st.lists(st.one_of(st.none(), st.integers(-2, 2)), min_size=rows, max_size=rows))
    for r, k in enumerate(shifts):
        if k is not None:
            y[r] = x[r] - k / 4.0
    return x, y


@given(ttest_inputs(), st.sampled_from(["two-sided", "greater", "less"]))
@settings(max_examples=examples(300), deadline=None)
def test_ttest_rel_is_scipys_without_its_warning_on_exactly_equal_differences(xy, alternative):
    """stats.paired.ttest_rel: the statistic and p-value of scipy.stats.ttest_rel bit for bit (rows and a single
    vector), and no "catastrophic cancellation" warning where a row's differences are all exactly equal
    (scipy's own numbers there: t = +-inf and p 0 or 1, NaN for differences of 0)."""
    import warnings
    from ir_rbstar.stats.paired import ttest_rel
    x, y = xy
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        want = scipy.stats.ttest_rel(x, y, axis=1, alternative=alternative)
        want1 = scipy.stats.ttest_rel(x[0], y[0], alternative=alternative)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.filterwarnings("error", message="Precision loss")
        constant = (np.ptp(x - y, axis=1) == 0) if x.shape[1] >= 2 else np.zeros(len(x), dtype=bool)
        if constant.all():                   # (rows not all constant may still warn, from scipy: near-equal)
            t, p = ttest_rel(x, y, axis=1, alternative=alternative)
        else:
            warnings.simplefilter("ignore")
            t, p = ttest_rel(x, y, axis=1, alternative=alternative)
        if not constant[0]:
            warnings.simplefilter("ignore")
        t1, p1 = ttest_rel(x[0], y[0], alternative=alternative)
    assert np.array_equal(np.asarray(want.statistic, dtype=float), t, equal_nan=True)
    assert np.array_equal(np.asarray(want.pvalue, dtype=float), p, equal_nan=True)
    assert np.array_equal(np.asarray(want1.statistic, dtype=float), t1, equal_nan=True)
    assert np.array_equal(np.asarray(want1.pvalue, dtype=float), p1, equal_nan=True)
    assert t.shape == (len(x),) and np.ndim(t1) == 0
