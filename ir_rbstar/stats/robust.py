"""Comparing two runs whose per-query values are only known to lie in intervals (residuals, tie bounds).

For every query ``i`` each run has a lower and an upper value: for a measure with a residual (RBP, RBR,
RBA, RBO) the value v and v + r, since once the unjudged documents are judged (and the lists continued)
the true value lies in ``[v, v + r]`` (see ``RBP_res``, ``RBR_res``, ``RBA_res``, ``RBO_res``); for ties,
``stat='min'`` and ``stat='max'``, the worst and best value over the orders of the tied scores. A
*completion* is any choice of one value per query and run inside these bounds.

:func:`robust_comparison` computes, for runs A and B paired by position:

* ``mean_difference_bounds`` = ``(mean(a_low - b_high), mean(a_high - b_low))`` -- **guaranteed**: for
  every completion each difference ``a_i - b_i`` lies in ``[a_low_i - b_high_i, a_high_i - b_low_i]``,
  hence the mean difference lies in these bounds (also in floating point, for the mean computed as
  ``numpy.mean(a - b)``: rounding is monotone and the summation order is the same);
* :func:`~ir_rbstar.stats.paired_test` at two completions only, the extreme ones: ``worst_for_a`` (A at
  its lows, B at its highs) and ``best_for_a`` (A at its highs, B at its lows), and at the point values
  ``a``, ``b`` when given;
* for ``test='t'`` only, ``pvalue_bound``: an upper bound of the paired t test's p-value over **every**
  completion (see below) -- the one statement about the test that is guaranteed for all completions;
* a ``verdict`` from the tests at the tested completions (see :class:`RobustComparison`).

What is **not** guaranteed: that a test's conclusion at the two extremes holds at every completion in
between. The p-values of these tests are not monotone in each per-query difference: raising one
difference raises the mean but also, for the t test, the standard deviation (d = (1, 1, 1, 1) gives
t = inf, d = (1, 1, 1, 5) gives t = 2); for the sign-flip permutation and bootstrap tests one large
difference widens the null distribution in the same way; for the Wilcoxon test a difference crossing 0
changes the number of non-zero differences and so the null distribution. So a completion strictly
inside the bounds can have a larger p-value than both extremes. "Robust" in the verdict means "significant
at every tested completion (both extremes and the point values)", not "at every completion";
``pvalue_bound`` is the all-completion statement for the t test.

The t bound: for every completion with mean difference m and standard deviation s (ddof=1),
``m >= m_low = mean(a_low - b_high)`` and, for any constant c,
``(n - 1) s**2 = min_c' sum (d_i - c')**2 <= sum_i max((lo_i - c)**2, (hi_i - c)**2)`` (lo, hi the
difference bounds), so ``s <= s_up`` (c chosen numerically to make it small; any c is valid) and, when
``m_low > 0``, ``t = sqrt(n) m / s >= sqrt(n) m_low / s_up``; the p-value, decreasing in t, is at most
the p-value of that t (two-sided: 2 sf; ``'greater'``: sf), symmetrically when
``m_high = mean(a_high - b_low) < 0``; otherwise the bound is the trivial 1. ``s_up`` is inflated by a
relative 1e-9 against rounding. It is exact (up to that margin) when every low equals its high.

The bounds of A and of B are taken independently, per query: a real completion judges a document
shared by both runs once for both, so the reachable completions are a subset of this box; everything
guaranteed over the box holds for them too, but the extremes may not be reachable (the comparison is
conservative). Invalid input raises :class:`~ir_rbstar.errors.ParameterError` naming the parameter.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pandas as pd
import scipy.optimize
import scipy.stats

from ..errors import ParameterError
from . import _checks
from .paired import PairedTest, paired_test, ttest_rel
from .pairs import _adjust, _correction

__all__ = ["RobustComparison", "robust_comparison", "robust_table", "robust_pairs", "VERDICTS", "ROBUST_COLUMNS",
           "ROBUST_PAIR_COLUMNS", "BOUND_TOLERANCE"]

A_ROBUST = "A better, robust"
B_ROBUST = "B better, robust"
A_IF = "A better only if the unknown favours A"
B_IF = "B better only if the unknown favours B"
NONE = "no conclusion"
#: the possible values of :attr:`RobustComparison.verdict` (and of the ``verdict`` column of :func:`robust_table`)
VERDICTS: tuple[str, ...] = (A_ROBUST, B_ROBUST, A_IF, B_IF, NONE)
#: the columns of :func:`robust_table`
ROBUST_COLUMNS: tuple[str, ...] = ("run", "mean_low", "mean_high", "difference_low", "difference_high",
                                   "pvalue_worst", "pvalue_best", "pvalue_worst_adjusted",
                                   "pvalue_best_adjusted", "verdict")
#: the columns of :func:`robust_pairs`
ROBUST_PAIR_COLUMNS: tuple[str, ...] = ("run_a", "run_b", "difference_low", "difference_high", "pvalue_worst",
                                        "pvalue_best", "pvalue_worst_adjusted", "pvalue_best_adjusted", "verdict")
#: a high may lie below its low (or a point value outside its bounds) by this much, relative to
#: 1 + |value|, without an error (the rounding of values computed separately, e.g. stat='min'/'max')
BOUND_TOLERANCE = 1e-12
#: keyword options passed through to :func:`~ir_rbstar.stats.paired_test`
TEST_OPTIONS: tuple[str, ...] = ("alternative", "n_resamples", "seed", "zero_method", "confidence",
                                 "effect_resamples")
_SD_MARGIN = 1e-9


@dataclass(frozen=True)
class RobustComparison:
    """Run A against run B when each per-query value is only known to lie in ``[low, high]``.

    ``worst_for_a`` is :func:`~ir_rbstar.stats.paired_test` of ``a_low`` against ``b_high``,
    ``best_for_a`` of ``a_high`` against ``b_low``, ``point`` of ``a`` against ``b`` (None when no point
    values were given); ``mean_difference_worst`` / ``_best`` / ``_point`` their mean differences (A - B).

    Guaranteed: the mean difference of every completion lies in ``mean_difference_bounds`` =
    ``(mean_difference_worst, mean_difference_best)``; for ``test='t'``, its p-value (with the same
    ``alternative``) is at most ``pvalue_bound`` (None for the other tests). Not guaranteed: the tests
    at the two extremes bound the tests at the completions in between -- their p-values are not
    monotone in the per-query differences (see :mod:`ir_rbstar.stats.robust`).

    ``verdict`` (``alpha`` the level; "significant for A" = mean difference > 0 and p <= alpha,
    "for B" = mean difference < 0 and p <= alpha; a NaN p is never significant). With the default
    two-sided test this is a directional decision from a two-sided test: the direction is the sign of
    the mean difference, and the chance of a false claim in either direction is at most alpha under the
    test's assumptions. With ``alternative='greater'`` ('less') only A (B) can be found better.

    * ``"A better, robust"``: significant for A at every tested completion (worst_for_a, best_for_a and
      the point values if given) -- at the worst case for A included;
    * ``"B better, robust"``: significant for B at every tested completion (best_for_a included);
    * ``"A better only if the unknown favours A"``: not robust, significant for A at the point values
      (without them: at best_for_a);
    * ``"B better only if the unknown favours B"``: not robust, significant for B at the point values
      (without them: at worst_for_a);
    * ``"no conclusion"``: otherwise, including when, without point values, best_for_a is significant
      for A and worst_for_a significant for B (the unknown can decide either way)."""
    worst_for_a: PairedTest
    best_for_a: PairedTest
    point: Optional[PairedTest]
    mean_difference_worst: float
    mean_difference_best: float
    mean_difference_point: Optional[float]
    mean_difference_bounds: tuple[float, float]
    pvalue_bound: Optional[float]
    verdict: str
    test: str
    alternative: str
    alpha: float
    n: int


def _series_index(values: dict[str, Any]) -> None:
    """Every pandas Series among ``values`` carries the index of the first one."""
    first: Optional[tuple[str, pd.Index]] = None
    for name, v in values.items():
        if isinstance(v, pd.Series):
            if first is None:
                first = (name, v.index)
            elif not v.index.equals(first[1]):
                raise ParameterError(f"{name}: its index differs from {first[0]}'s (values are paired by "
                                     f"position); align them first, e.g. {name}.reindex({first[0]}.index)")


def _not_below(high: np.ndarray, low: np.ndarray, name: str, what: str) -> None:
    """``high >= low`` up to :data:`BOUND_TOLERANCE`, else an error on ``name`` saying ``what``."""
    bad = np.flatnonzero(high < low - BOUND_TOLERANCE * (1.0 + np.abs(low)))
    if bad.size:
        i = int(bad[0])
        raise ParameterError(f"{name}: {what} at position(s) {bad[:5].tolist()} "
                             f"(e.g. {high[i]!r} < {low[i]!r})")


def _vectors(values: dict[str, Any]) -> dict[str, np.ndarray]:
    arrays = {name: _checks.vector(v, name) for name, v in values.items()}
    names = list(arrays)
    n = arrays[names[0]].size
    for name in names[1:]:
        if arrays[name].size != n:
            raise ParameterError(f"{name}: has {arrays[name].size} values but {names[0]} has {n}; the "
                                 "values are paired by position (one per query each)")
    _series_index(values)
    return arrays


def _options(test_options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(test_options) - set(TEST_OPTIONS))
    if unknown:
        raise ParameterError(f"{unknown[0]}: unknown option; allowed: {', '.join(TEST_OPTIONS)}")
    return {"effect_resamples": 0, **test_options}


def _significant(mean_difference: float, pvalue: float, alpha: float) -> int:
    """+1 significant for A, -1 for B, 0 neither."""
    if not math.isfinite(pvalue) or pvalue > alpha:
        return 0
    return 1 if mean_difference > 0 else -1 if mean_difference < 0 else 0


def verdict_of(worst: tuple[float, float], best: tuple[float, float], point: Optional[tuple[float, float]],
               alpha: float) -> str:
    """The verdict of :class:`RobustComparison` from (mean difference, p-value) at worst_for_a,
    best_for_a and the point values (None: not given)."""
    s_worst, s_best = _significant(*worst, alpha), _significant(*best, alpha)
    s_point = None if point is None else _significant(*point, alpha)
    tested = [s_worst, s_best] + ([] if s_point is None else [s_point])
    if all(s == 1 for s in tested):
        return A_ROBUST
    if all(s == -1 for s in tested):
        return B_ROBUST
    if s_point is not None:
        return A_IF if s_point == 1 else B_IF if s_point == -1 else NONE
    if s_best == 1 and s_worst == -1:
        return NONE
    return A_IF if s_best == 1 else B_IF if s_worst == -1 else NONE


def t_pvalue_bound(lo: np.ndarray, hi: np.ndarray, alternative: str = "two-sided") -> float:
    """An upper bound of the paired t test's p-value over every vector of differences d with
    ``lo <= d <= hi`` (see :mod:`ir_rbstar.stats.robust`); NaN when every such d is constant at 0."""
    n = lo.size
    mid, half = (lo + hi) / 2.0, (hi - lo) / 2.0

    def spread(c: float) -> float:          # sum_i max((lo_i - c)^2, (hi_i - c)^2)
        return float(np.sum((np.abs(c - mid) + half) ** 2))

    candidates = [float(np.mean(mid)), float(np.mean(lo)), float(np.mean(hi))]
    if np.any(half > 0):
        res = scipy.optimize.minimize_scalar(spread, bounds=(float(lo.min()), float(hi.max())),
                                             method="bounded")
        candidates.append(float(res.x))
    s_up = math.sqrt(min(spread(c) for c in candidates) / (n - 1)) * (1.0 + _SD_MARGIN)
    if s_up == 0.0:                          # every low equals its high and d is constant
        return float(ttest_rel(lo, np.zeros_like(lo), alternative=alternative)[1])
    m_low, m_high = float(np.mean(lo)), float(np.mean(hi))
    df = n - 1
    if m_low > 0 and alternative in ("two-sided", "greater"):
        p = float(scipy.stats.t.sf(math.sqrt(n) * m_low / s_up, df))
    elif m_high < 0 and alternative in ("two-sided", "less"):
        p = float(scipy.stats.t.cdf(math.sqrt(n) * m_high / s_up, df))
    else:
        return 1.0
    return min(1.0, 2.0 * p if alternative == "two-sided" else p)


def robust_comparison(a_low: _checks.Values, a_high: _checks.Values, b_low: _checks.Values,
                      b_high: _checks.Values, test: str = "t", alpha: float = 0.05,
                      a: Optional[_checks.Values] = None, b: Optional[_checks.Values] = None,
                      **test_options: Any) -> RobustComparison:
    """Compare run A with run B when each run's per-query value is only known to lie in ``[low, high]``.

    ``a_low``, ``a_high`` (``b_low``, ``b_high``): run A's (B's) per-query lower and upper values -- for
    a residual measure v and v + r, for ties ``stat='min'`` and ``stat='max'`` -- all paired by position
    (arrays, or pandas Series with one and the same index); ``a``, ``b``: optional point values (e.g. v
    itself, or the tie-averaged value), within the bounds. ``test`` and ``test_options``
    (``alternative``, ``n_resamples``, ``seed``, ``zero_method``, ``confidence``, ``effect_resamples``,
    default 0: no effect-size interval) go to :func:`~ir_rbstar.stats.paired_test`, called on
    ``(a_low, b_high)``, ``(a_high, b_low)`` and ``(a, b)``. ``alpha``: the level of the verdict.

    Guaranteed for every completion within the bounds: its mean difference lies in
    ``mean_difference_bounds``, and for ``test='t'`` its t-test p-value is at most ``pvalue_bound``. The
    verdict is about the tested completions only (the extremes and the point values): a completion in
    between can have a larger p-value than both extremes. See :class:`RobustComparison`."""
    if (a is None) != (b is None):
        missing = "b" if b is None else "a"
        raise ParameterError(f"{missing}: give both point values a and b, or neither")
    values: dict[str, Any] = {"a_low": a_low, "a_high": a_high, "b_low": b_low, "b_high": b_high}
    if a is not None:
        values.update(a=a, b=b)
    arr = _vectors(values)
    _not_below(arr["a_high"], arr["a_low"], "a_high", "below a_low")
    _not_below(arr["b_high"], arr["b_low"], "b_high", "below b_low")
    if a is not None:
        for run in ("a", "b"):
            _not_below(arr[run], arr[f"{run}_low"], run, f"below {run}_low")
            _not_below(arr[f"{run}_high"], arr[run], run, f"above {run}_high")
    level = _checks.confidence(alpha, "alpha")
    options = _options(test_options)
    worst = paired_test(arr["a_low"], arr["b_high"], test=test, **options)
    best = paired_test(arr["a_high"], arr["b_low"], test=test, **options)
    point = None if a is None else paired_test(arr["a"], arr["b"], test=test, **options)
    bound = None
    if worst.test == "t":
        bound = t_pvalue_bound(arr["a_low"] - arr["b_high"], arr["a_high"] - arr["b_low"], worst.alternative)
    verdict = verdict_of((worst.mean_difference, worst.pvalue), (best.mean_difference, best.pvalue),
                         None if point is None else (point.mean_difference, point.pvalue), level)
    return RobustComparison(worst_for_a=worst, best_for_a=best, point=point,
                            mean_difference_worst=worst.mean_difference, mean_difference_best=best.mean_difference,
                            mean_difference_point=None if point is None else point.mean_difference,
                            mean_difference_bounds=(worst.mean_difference, best.mean_difference),
                            pvalue_bound=bound, verdict=verdict, test=worst.test, alternative=worst.alternative,
                            alpha=level, n=worst.n)



def _bound_frames(frame_low: pd.DataFrame, frame_high: pd.DataFrame):
    """(runs, low, high) of two aligned ``run x query`` frames of lower and upper values, checked."""
    runs, low = _checks.frame(frame_low, "frame_low")
    _, high = _checks.frame(frame_high, "frame_high")
    if not (frame_high.index.equals(frame_low.index) and frame_high.columns.equals(frame_low.columns)):
        raise ParameterError("frame_high: its runs (index) and queries (columns) must be frame_low's, in the "
                             "same order; align them first, e.g. frame_high.reindex_like(frame_low)")
    _not_below(high.ravel(), low.ravel(), "frame_high", "below frame_low (flattened row by row)")
    return runs, low, high


def _adjusted_verdicts(out: pd.DataFrame, method, level: float) -> None:
    """Adds to ``out`` (columns difference_low/high, pvalue_worst/best) the adjusted p-values over its rows
    (one family) and the verdict from them."""
    worst_adj, _ = _adjust(out["pvalue_worst"].to_numpy(dtype=float), method, level)
    best_adj, _ = _adjust(out["pvalue_best"].to_numpy(dtype=float), method, level)
    out["pvalue_worst_adjusted"], out["pvalue_best_adjusted"] = worst_adj, best_adj
    out["verdict"] = [verdict_of((dw, pw), (db, pb), None, level) for dw, pw, db, pb in
                      zip(out["difference_low"], worst_adj, out["difference_high"], best_adj, strict=True)]


def robust_table(frame_low: pd.DataFrame, frame_high: pd.DataFrame, baseline: Any, test: str = "t",
                 alpha: float = 0.05, correction: Optional[str] = "holm", **options: Any) -> pd.DataFrame:
    """:func:`robust_comparison` of every run (A) against ``baseline`` (B), for ``run x query``
    DataFrames of lower and upper values (same runs and queries in the same order, no missing values).

    One row per run other than ``baseline``, in the order of ``frame_low.index``: ``run``; ``mean_low``,
    ``mean_high`` (the run's mean lower / upper value); ``difference_low``, ``difference_high`` (the
    guaranteed bounds of the mean difference run - baseline); ``pvalue_worst``, ``pvalue_best`` (the
    test at worst_for_a / best_for_a); ``pvalue_worst_adjusted``, ``pvalue_best_adjusted`` (each column
    adjusted over the runs by ``statsmodels.stats.multitest.multipletests(method=correction)``;
    ``correction=None``: the raw p-values); ``verdict`` (as :class:`RobustComparison`'s without point
    values, from the adjusted p-values). ``options`` go to :func:`~ir_rbstar.stats.paired_test` as in
    :func:`robust_comparison`."""
    runs, low, high = _bound_frames(frame_low, frame_high)
    if baseline not in frame_low.index:
        raise ParameterError(f"baseline: {baseline!r} is not a run of frame_low (its index: "
                             f"{', '.join(map(repr, runs[:10]))})")
    method = _correction(correction)
    level = _checks.confidence(alpha, "alpha")
    kw = _options(options)
    base = runs.index(baseline)
    rows = []
    for i, run in enumerate(runs):
        if i == base:
            continue
        worst = paired_test(low[i], high[base], test=test, **kw)
        best = paired_test(high[i], low[base], test=test, **kw)
        rows.append((run, float(low[i].mean()), float(high[i].mean()), worst.mean_difference,
                     best.mean_difference, worst.pvalue, best.pvalue))
    out = pd.DataFrame(rows, columns=list(ROBUST_COLUMNS[:7]))
    _adjusted_verdicts(out, method, level)
    return out[list(ROBUST_COLUMNS)]


def robust_pairs(frame_low: pd.DataFrame, frame_high: pd.DataFrame, test: str = "t", alpha: float = 0.05,
                 correction: Optional[str] = "holm", **options: Any) -> pd.DataFrame:
    """:func:`robust_comparison` of every pair of runs: A = ``run_a`` (earlier in ``frame_low.index``) against
    B = ``run_b``, for ``run x query`` DataFrames of lower and upper values as in :func:`robust_table`. One row
    per unordered pair (:data:`ROBUST_PAIR_COLUMNS`): the guaranteed bounds of the mean difference A - B, the
    tests at worst_for_a / best_for_a, each column adjusted over **all the pairs** (one family) by
    ``statsmodels.stats.multitest.multipletests(method=correction)``, and the verdict (A: ``run_a``, B:
    ``run_b``) from the adjusted p-values."""
    runs, low, high = _bound_frames(frame_low, frame_high)
    method = _correction(correction)
    level = _checks.confidence(alpha, "alpha")
    kw = _options(options)
    rows = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            worst = paired_test(low[i], high[j], test=test, **kw)
            best = paired_test(high[i], low[j], test=test, **kw)
            rows.append((runs[i], runs[j], worst.mean_difference, best.mean_difference, worst.pvalue, best.pvalue))
    out = pd.DataFrame(rows, columns=list(ROBUST_PAIR_COLUMNS[:6]))
    if not len(out):
        return pd.DataFrame(columns=list(ROBUST_PAIR_COLUMNS))
    _adjusted_verdicts(out, method, level)
    return out[list(ROBUST_PAIR_COLUMNS)]
