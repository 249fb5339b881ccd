"""Confidence intervals of a mean and paired significance tests on per-query values, each a thin,
documented call of scipy.stats (t interval, bootstrap percentile/BCa, paired t, Wilcoxon signed-rank,
sign-flip permutation, shifted-to-null paired bootstrap), with the paired effect size d_z and its
bootstrap interval. The citations are in the docstring of :mod:`ir_rbstar.stats`."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.stats

from . import _checks
from ._checks import Values

__all__ = ["MeanInterval", "PairedTest", "mean_interval", "paired_test", "effect_size_dz",
           "INTERVAL_METHODS", "PAIRED_TESTS", "ALTERNATIVES", "ZERO_METHODS"]

#: ``method`` of :func:`mean_interval` -> the ``method`` of scipy.stats.bootstrap (None: the t interval)
INTERVAL_METHODS: dict[str, str | None] = {"t": None, "percentile": "percentile", "basic": "basic", "bca": "BCa"}
#: ``test`` of :func:`paired_test`
PAIRED_TESTS: tuple[str, ...] = ("t", "wilcoxon", "permutation", "bootstrap")
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
#: ``zero_method`` of scipy.stats.wilcoxon
ZERO_METHODS: tuple[str, ...] = ("wilcox", "pratt", "zsplit")


@dataclass(frozen=True)
class MeanInterval:
    """A confidence interval ``[low, high]`` of the mean of ``n`` per-query values."""
    mean: float
    low: float
    high: float
    method: str
    confidence: float
    n: int


@dataclass(frozen=True)
class PairedTest:
    """A paired test of ``a`` against ``b`` on ``n`` queries (differences ``d = a - b``).

    ``statistic`` is the test's own (t; Wilcoxon's W as scipy reports it; the mean difference for the
    permutation and bootstrap tests); ``effect_size`` is d_z = mean(d) / sd(d, ddof=1) (NaN when sd(d) is 0);
    ``effect_interval`` its bootstrap percentile interval."""
    statistic: float
    pvalue: float
    mean_difference: float
    effect_size: float
    effect_interval: tuple[float, float]
    test: str
    alternative: str
    n: int


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def effect_size_dz(d: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paired Cohen's d_z = mean(d) / sd(d, ddof=1) along ``axis``; NaN where sd(d) is 0."""
    m = np.mean(d, axis=axis)
    s = np.std(d, axis=axis, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, m / np.where(s > 0, s, 1.0), np.nan)


def mean_interval(values: Values, confidence: float = 0.95, method: str = "t", n_resamples: int = 10000,
                  seed: int | None = 0) -> MeanInterval:
    """A two-sided ``confidence`` interval of the mean of per-query ``values``.

    ``method``: ``'t'`` -- Student's t interval, ``scipy.stats.t.interval(confidence, n - 1, loc=mean,
    scale=sem)`` (a zero-variance sample gives ``[mean, mean]``); ``'percentile'``, ``'basic'``,
    ``'bca'`` -- ``scipy.stats.bootstrap`` with that method, ``n_resamples`` resamples and the Generator
    ``numpy.random.default_rng(seed)`` (so the same seed gives the same interval; a zero-variance sample
    gives NaN bounds under BCa, as scipy reports). ``n_resamples`` and ``seed`` are unused by ``'t'``."""
    x = _checks.vector(values, "values")
    key = _checks.choice(method, "method", tuple(INTERVAL_METHODS))
    level = _checks.confidence(confidence)
    resamples = _checks.positive_int(n_resamples, "n_resamples")
    seed_value = _checks.seed(seed)
    mean = float(np.mean(x))
    scipy_method = INTERVAL_METHODS[key]
    if scipy_method is None:
        sem = float(scipy.stats.sem(x))
        if sem == 0.0:
            low, high = mean, mean
        else:
            low, high = (float(v) for v in scipy.stats.t.interval(level, x.size - 1, loc=mean, scale=sem))
    else:
        res = scipy.stats.bootstrap((x,), _mean, n_resamples=resamples, confidence_level=level,
                                    method=scipy_method, vectorized=True,
                                    **_checks.rng_kw(scipy.stats.bootstrap, seed_value))
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return MeanInterval(mean=mean, low=low, high=high, method=key, confidence=level, n=int(x.size))


def _effect_interval(d: np.ndarray, level: float, resamples: int, seed_value: int | None) -> tuple[float, float]:
    if resamples == 0 or not np.std(d, ddof=1) > 0:
        return (float("nan"), float("nan"))
    res = scipy.stats.bootstrap((d,), effect_size_dz, n_resamples=resamples, confidence_level=level,
                                method="percentile", vectorized=True,
                                **_checks.rng_kw(scipy.stats.bootstrap, seed_value))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def _bootstrap_null(d: np.ndarray, resamples: int, seed_value: int | None) -> np.ndarray:
    """The resampled means of the differences shifted to mean 0 (the null), drawn by scipy.stats.bootstrap
    with ``default_rng(seed)``."""
    res = scipy.stats.bootstrap((d - np.mean(d),), _mean, n_resamples=resamples, method="percentile",
                                vectorized=True, **_checks.rng_kw(scipy.stats.bootstrap, seed_value))
    return np.asarray(res.bootstrap_distribution, dtype=float)


def _bootstrap_pvalue(null: np.ndarray, observed: float, alternative: str) -> float:
    if alternative == "greater":
        hits = _checks.at_least(null, observed)
    elif alternative == "less":
        hits = _checks.at_least(-null, -observed)
    else:
        hits = _checks.at_least(np.abs(null), abs(observed))
    return float((np.count_nonzero(hits) + 1) / (null.size + 1))


def paired_test(a: Values, b: Values, test: str = "t", alternative: str = "two-sided", n_resamples: int = 10000,
                seed: int | None = 0, *, zero_method: str = "wilcox", confidence: float = 0.95,
                effect_resamples: int | None = None) -> PairedTest:
    """A paired test of the per-query values ``a`` against ``b`` (paired by position), ``d = a - b``.

    ``test``:

    * ``'t'`` -- ``scipy.stats.ttest_rel(a, b, alternative=...)``;
    * ``'wilcoxon'`` -- ``scipy.stats.wilcoxon(d, zero_method=zero_method, alternative=...)``; the default
      ``zero_method='wilcox'`` (scipy's default, Wilcoxon 1945) drops zero differences before ranking,
      ``'pratt'`` ranks them and then drops them (Pratt 1959), ``'zsplit'`` splits their ranks; scipy picks
      the exact or normal-approximation distribution (``method='auto'``);
    * ``'permutation'`` -- ``scipy.stats.permutation_test((d,), mean, permutation_type='samples')``: the
      randomisation test flipping the sign of each query's difference; statistic the mean difference;
      ``n_resamples`` random sign vectors from ``default_rng(seed)`` and p = (b + 1) / (R + 1) (scipy's
      convention), or the exact distribution when 2**n <= n_resamples;
    * ``'bootstrap'`` -- the shifted-to-null paired bootstrap test (Efron & Tibshirani 1993, ch. 16):
      ``scipy.stats.bootstrap`` resamples the differences centred at 0 (``n_resamples`` resamples from
      ``default_rng(seed)``); statistic the mean difference m; two-sided p = (#{|m*| >= |m|} + 1) / (R + 1),
      one-sided with m* >= m (``'greater'``) or m* <= m (``'less'``).

    ``effect_size`` is d_z = mean(d) / sd(d, ddof=1); ``effect_interval`` its two-sided ``confidence``
    bootstrap percentile interval (``scipy.stats.bootstrap`` on the d_z statistic, ``effect_resamples``
    resamples, default ``n_resamples``, 0 for none: NaN bounds; Generator ``default_rng(seed)``, drawn
    independently of the test's own resamples). Both are NaN when every difference is equal."""
    x, y = _checks.paired(a, b)
    key = _checks.choice(test, "test", PAIRED_TESTS)
    alt = _checks.choice(alternative, "alternative", ALTERNATIVES)
    resamples = _checks.positive_int(n_resamples, "n_resamples")
    seed_value = _checks.seed(seed)
    level = _checks.confidence(confidence)
    eff_resamples = resamples if effect_resamples is None else _checks.positive_int(effect_resamples,
                                                                                     "effect_resamples", 0)
    d = x - y
    mean_d = float(np.mean(d))
    if key == "t":
        res = scipy.stats.ttest_rel(x, y, alternative=alt)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    elif key == "wilcoxon":
        zm = _checks.choice(zero_method, "zero_method", ZERO_METHODS)
        res = scipy.stats.wilcoxon(d, zero_method=zm, alternative=alt)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    elif key == "permutation":
        res = scipy.stats.permutation_test((d,), _mean, permutation_type="samples", vectorized=True,
                                           n_resamples=resamples, alternative=alt,
                                           **_checks.rng_kw(scipy.stats.permutation_test, seed_value))
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    else:
        statistic = mean_d
        pvalue = _bootstrap_pvalue(_bootstrap_null(d, resamples, seed_value), mean_d, alt)
    return PairedTest(statistic=statistic, pvalue=pvalue, mean_difference=mean_d,
                      effect_size=float(effect_size_dz(d)),
                      effect_interval=_effect_interval(d, level, eff_resamples, seed_value),
                      test=key, alternative=alt, n=int(d.size))
