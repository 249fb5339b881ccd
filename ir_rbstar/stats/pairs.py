"""All pairs of runs: paired tests with a multiple-comparison correction (statsmodels' multipletests),
the randomised Tukey HSD test of Carterette (2012), and discriminative power (Sakai 2006). The
citations are in the docstring of :mod:`ir_rbstar.stats`."""
from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MissingExtraError, ParameterError
from . import _checks
from .paired import PAIRED_TESTS, paired_test

__all__ = ["all_pairs", "tukey_hsd_randomized", "discriminative_power", "CORRECTIONS", "PAIR_COLUMNS",
           "TUKEY_COLUMNS"]

#: the method names of statsmodels.stats.multitest.multipletests (its short aliases are accepted too)
CORRECTIONS: tuple[str, ...] = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel",
                                "fdr_bh", "fdr_by", "fdr_tsbh", "fdr_tsbky", "fdr_gbs")
PAIR_COLUMNS: tuple[str, ...] = ("run_a", "run_b", "mean_a", "mean_b", "difference", "statistic", "pvalue",
                                 "pvalue_adjusted", "reject", "effect_size", "low", "high")
TUKEY_COLUMNS: tuple[str, ...] = ("run_a", "run_b", "mean_a", "mean_b", "difference", "pvalue", "reject")


def _multipletests() -> Any:
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError as exc:  # pragma: no cover - statsmodels is a dependency
        raise MissingExtraError("correction: needs statsmodels (pip install statsmodels)") from exc
    return multipletests


def _correction(name: Any) -> str | None:
    """``name`` if statsmodels' multipletests accepts it (None: no correction)."""
    if name is None:
        return None
    if isinstance(name, str):
        try:
            _multipletests()(np.array([0.5]), method=name)
            return name
        except ValueError:
            pass
    raise ParameterError(f"correction: unknown method {name!r}; allowed: None or a method of "
                         f"statsmodels.stats.multitest.multipletests: {', '.join(CORRECTIONS)}")


def _adjust(pvalues: np.ndarray, correction: str | None, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(adjusted p, reject) by multipletests over the finite p-values; NaN p-values stay NaN, not rejected."""
    adjusted = np.full(pvalues.shape, np.nan)
    reject = np.zeros(pvalues.shape, dtype=bool)
    ok = np.isfinite(pvalues)
    if not ok.any():
        return adjusted, reject
    if correction is None:
        adjusted[ok] = pvalues[ok]
        reject[ok] = pvalues[ok] <= alpha
    else:
        rej, padj, _, _ = _multipletests()(pvalues[ok], alpha=alpha, method=correction)
        adjusted[ok], reject[ok] = padj, rej
    return adjusted, reject


def all_pairs(frame: pd.DataFrame, test: str = "t", correction: str | None = "holm", alpha: float = 0.05,
              **kw: Any) -> pd.DataFrame:
    """:func:`~ir_rbstar.stats.paired_test` on every unordered pair of runs of ``frame`` (rows: runs,
    columns: queries, no missing values), in the order of ``itertools.combinations(frame.index, 2)``.

    ``kw`` goes to :func:`paired_test` (``alternative``, ``n_resamples``, ``seed`` -- the same seed for
    every pair --, ``zero_method``, ``confidence``, ``effect_resamples``). ``pvalue_adjusted`` and
    ``reject`` (at level ``alpha``) come from ``statsmodels.stats.multitest.multipletests(pvalues,
    alpha, method=correction)`` over all pairs (``correction=None``: the raw p-values, reject p <= alpha).
    ``difference`` = mean_a - mean_b; ``effect_size`` = d_z of a - b; ``low``/``high`` its bootstrap interval."""
    runs, mat = _checks.frame(frame)
    method = _correction(correction)
    level = _checks.confidence(alpha, "alpha")
    means = mat.mean(axis=1)
    rows = []
    for i, j in combinations(range(len(runs)), 2):
        res = paired_test(mat[i], mat[j], test=test, **kw)
        rows.append((runs[i], runs[j], means[i], means[j], means[i] - means[j], res.statistic, res.pvalue,
                     res.effect_size, *res.effect_interval))
    out = pd.DataFrame(rows, columns=["run_a", "run_b", "mean_a", "mean_b", "difference", "statistic", "pvalue",
                                      "effect_size", "low", "high"])
    adjusted, reject = _adjust(out["pvalue"].to_numpy(dtype=float), method, level)
    out["pvalue_adjusted"], out["reject"] = adjusted, reject
    return out[list(PAIR_COLUMNS)]


def tukey_range_distribution(matrix: np.ndarray, n_resamples: int, seed: int | None,
                             block_size: int = 256) -> np.ndarray:
    """The ``n_resamples`` ranges (max - min of the systems' means) of Carterette's randomisation, for a
    ``query x system`` ``matrix``: resample r permutes the systems' values within every query q in the
    order ``argsort(u[r, q, :])`` of uniforms ``u = default_rng(seed).random((R, Q, S))``, drawn in blocks
    of ``block_size`` resamples (the stream, hence the result, does not depend on the block size)."""
    q, s = matrix.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty(n_resamples)
    rows = np.arange(q)[None, :, None]
    for start in range(0, n_resamples, block_size):
        count = min(block_size, n_resamples - start)
        order = rng.random((count, q, s)).argsort(axis=2)
        means = matrix[rows, order].mean(axis=1)                 # (count, S)
        ranges[start:start + count] = means.max(axis=1) - means.min(axis=1)
    return ranges


def tukey_hsd_randomized(frame: pd.DataFrame, n_resamples: int = 10000, seed: int | None = 0,
                         alpha: float = 0.05, *, block_size: int = 256) -> pd.DataFrame:
    """The randomised Tukey HSD test (Carterette 2012) over every unordered pair of runs of ``frame``
    (rows: runs, columns: queries), in the order of ``itertools.combinations(frame.index, 2)``.

    Under the null hypothesis that all runs are equivalent, the runs' values are exchangeable within each
    query: each of ``n_resamples`` resamples permutes them within every query (see
    :func:`tukey_range_distribution`, seeded by ``seed``) and records the range max - min of the runs'
    mean values. The p-value of a pair is p = (b + 1) / (R + 1), b the number of resamples whose range is
    >= the pair's observed |mean_a - mean_b| (up to a relative 1e-12 rounding allowance), R =
    ``n_resamples``; it already accounts for all the pairs (family-wise), so ``reject`` is p <= ``alpha``
    with no further correction. ``block_size`` bounds memory (block_size x queries x runs numbers) only."""
    runs, mat = _checks.frame(frame)
    resamples = _checks.positive_int(n_resamples, "n_resamples")
    seed_value = _checks.seed(seed)
    block = _checks.positive_int(block_size, "block_size")
    level = _checks.confidence(alpha, "alpha")
    ranges = np.sort(tukey_range_distribution(mat.T, resamples, seed_value, block))
    means = mat.mean(axis=1)
    pairs = list(combinations(range(len(runs)), 2))
    i, j = (np.array([p[k] for p in pairs]) for k in (0, 1))
    diff = means[i] - means[j]
    threshold = np.abs(diff) * (1.0 - _checks.REL_TOL)
    hits = resamples - np.searchsorted(ranges, threshold, side="left")
    pvalues = (hits + 1.0) / (resamples + 1.0)
    return pd.DataFrame({"run_a": [runs[k] for k in i], "run_b": [runs[k] for k in j], "mean_a": means[i],
                         "mean_b": means[j], "difference": diff, "pvalue": pvalues, "reject": pvalues <= level},
                        columns=list(TUKEY_COLUMNS))


def discriminative_power(frame: pd.DataFrame, test: str = "t", alpha: float = 0.05,
                         correction: str | None = None, **kw: Any) -> float:
    """The share of the unordered pairs of runs of ``frame`` whose difference is significant at level
    ``alpha`` (Sakai 2006): ``reject`` of :func:`all_pairs` (``test`` a test of :func:`paired_test`,
    ``correction`` any multipletests method or None), or of :func:`tukey_hsd_randomized` for
    ``test='tukey'`` (family-wise by construction: ``correction`` must then be None; ``kw`` takes
    ``n_resamples``, ``seed``). A pair whose p-value is NaN (e.g. the t test on identical runs) counts as
    not significant."""
    if _checks.choice(test, "test", (*PAIRED_TESTS, "tukey")) == "tukey":
        if correction is not None:
            raise ParameterError("correction: must be None for test='tukey' (its p-values are already "
                                 f"family-wise), got {correction!r}")
        table = tukey_hsd_randomized(frame, alpha=alpha, **kw)
    else:
        table = all_pairs(frame, test=test, correction=correction, alpha=alpha, **kw)
    return float(table["reject"].mean())
