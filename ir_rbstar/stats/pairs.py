"""All pairs of runs: paired tests with a multiple-comparison correction (statsmodels' multipletests),
the randomised Tukey HSD test of Carterette (2012), and discriminative power (Sakai 2006). The
citations are in the docstring of :mod:`ir_rbstar.stats`."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import MissingExtraError, ParameterError
from . import _checks
from .paired import (ALTERNATIVES, EFFECT_INTERVALS, PAIRED_TESTS, effect_size_dz, effect_size_dz_interval,
                     paired_test, ttest_rel)

__all__ = ["all_pairs", "tukey_hsd_randomized", "discriminative_power", "CORRECTIONS", "PAIR_COLUMNS",
           "TUKEY_COLUMNS"]

#: the method names of statsmodels.stats.multitest.multipletests (its short aliases are accepted too)
CORRECTIONS: tuple[str, ...] = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel",
                                "fdr_bh", "fdr_by", "fdr_tsbh", "fdr_tsbky", "fdr_gbs")
PAIR_COLUMNS: tuple[str, ...] = ("run_a", "run_b", "mean_a", "mean_b", "difference", "statistic", "pvalue",
                                 "pvalue_adjusted", "reject", "effect_size", "low", "high")
TUKEY_COLUMNS: tuple[str, ...] = ("run_a", "run_b", "mean_a", "mean_b", "difference", "pvalue", "reject")
#: keyword options :func:`all_pairs` passes on to :func:`~ir_rbstar.stats.paired_test`
PAIR_OPTIONS: tuple[str, ...] = ("alternative", "n_resamples", "seed", "zero_method", "confidence",
                                 "effect_resamples")


def _multipletests() -> Any:
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError as exc:  # pragma: no cover - statsmodels is a dependency
        raise MissingExtraError("correction: needs statsmodels (pip install statsmodels)") from exc
    return multipletests


def _correction(name: Any) -> str | None:
    """``name`` if statsmodels' multipletests accepts it (None: no correction)."""
    if name is None or name == "holm":
        return name
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
    elif correction == "holm":       # numpy: multipletests' Holm calls gc.collect(), 0.15 s a call (2026-11-26)
        from ..report.stats import holm
        adjusted[ok] = holm(pvalues[ok])
        reject[ok] = adjusted[ok] <= alpha
    else:
        rej, padj, _, _ = _multipletests()(pvalues[ok], alpha=alpha, method=correction)
        adjusted[ok], reject[ok] = padj, rej
    return adjusted, reject


def _pair_indices(runs: int) -> tuple[np.ndarray, np.ndarray]:
    """The run indices (i, j) of every unordered pair, in the order of ``itertools.combinations``."""
    i, j = np.triu_indices(runs, 1)
    return i.astype(np.intp), j.astype(np.intp)


def all_pairs(frame: pd.DataFrame, test: str = "t", correction: str | None = "holm", alpha: float = 0.05, *,
              effect_ci: str | None = "t", **kw: Any) -> pd.DataFrame:
    """:func:`~ir_rbstar.stats.paired_test` on every unordered pair of runs of ``frame`` (rows: runs,
    columns: queries, no missing values), in the order of ``itertools.combinations(frame.index, 2)``.

    ``kw`` goes to :func:`paired_test` (``alternative``, ``n_resamples``, ``seed`` -- the same seed for
    every pair --, ``zero_method``, ``confidence``, ``effect_resamples``). ``pvalue_adjusted`` and
    ``reject`` (at level ``alpha``) come from ``statsmodels.stats.multitest.multipletests(pvalues,
    alpha, method=correction)`` over all pairs (``correction=None``: the raw p-values, reject p <= alpha).
    ``difference`` = mean_a - mean_b; ``effect_size`` = d_z of a - b; ``low``/``high`` its ``confidence``
    interval by ``effect_ci``.

    Every row equals :func:`paired_test` of the pair with the same arguments, but the work is done for all
    pairs at once where scipy allows: the t test is one ``scipy.stats.ttest_rel(..., axis=1)`` call on the
    pairs x queries arrays (through :func:`.paired.ttest_rel`, which answers pairs of exactly equal
    differences itself), and the ``'t'`` interval (:func:`~ir_rbstar.stats.effect_size_dz_interval`)
    one vectorised root-finding. ``effect_ci`` defaults to ``'t'`` here (paired_test's default is
    ``'bootstrap'``): the noncentral-t interval is exact for normal differences, agrees with the t test
    (it excludes 0 exactly when the two-sided t p < 1 - confidence), needs no resampling, and is fast --
    37 runs (666 pairs) x 43 queries take about 0.07 s with it, against about 5 s with 10,000 bootstrap
    resamples per pair (benchmarks/bench_stats.py). ``effect_ci='bootstrap'`` gives paired_test's
    bootstrap percentile interval (``effect_resamples`` resamples, default ``n_resamples``, one call per
    pair); None (or ``effect_resamples=0``) no interval (NaN)."""
    runs, mat = _checks.frame(frame)
    key = _checks.choice(test, "test", PAIRED_TESTS)
    method = _correction(correction)
    level = _checks.confidence(alpha, "alpha")
    eff = None if effect_ci is None else _checks.choice(effect_ci, "effect_ci", EFFECT_INTERVALS)
    unknown = sorted(set(kw) - set(PAIR_OPTIONS))
    if unknown:
        raise ParameterError(f"{unknown[0]}: unknown option; allowed: {', '.join(PAIR_OPTIONS)}")
    options = dict(kw)
    if options.get("effect_resamples") == 0:
        eff = None
    means = mat.mean(axis=1)
    i, j = _pair_indices(len(runs))
    diffs = mat[i] - mat[j]                                     # pairs x queries
    if key == "t":
        # the checks of paired_test (alternative, n_resamples, ...) on the first pair, then all pairs at once
        paired_test(mat[0], mat[1], test="t", effect_ci=None, **options)
        alternative = _checks.choice(options.get("alternative", "two-sided"), "alternative", ALTERNATIVES)
        with np.errstate(divide="ignore", invalid="ignore"):
            statistic, pvalues = ttest_rel(mat[i], mat[j], axis=1, alternative=alternative)
    else:                                                       # one scipy call per pair
        each = "bootstrap" if eff == "bootstrap" else None
        results = [paired_test(mat[a], mat[b], test=key, **options, effect_ci=each)
                   for a, b in zip(i, j, strict=True)]
        statistic = np.array([r.statistic for r in results], dtype=float)
        pvalues = np.array([r.pvalue for r in results], dtype=float)
    effect = np.asarray(effect_size_dz(diffs, axis=1), dtype=float)
    low, high = np.full(len(i), np.nan), np.full(len(i), np.nan)
    if eff == "t":
        low, high = effect_size_dz_interval(diffs, _checks.confidence(options.get("confidence", 0.95)), axis=1)
    elif eff == "bootstrap":
        for k, (a, b) in enumerate(zip(i, j, strict=True)):
            interval = (results[k] if key != "t" else
                        paired_test(mat[a], mat[b], test="t", **options, effect_ci="bootstrap")).effect_interval
            low[k], high[k] = interval
    out = pd.DataFrame({"run_a": [runs[k] for k in i], "run_b": [runs[k] for k in j], "mean_a": means[i],
                        "mean_b": means[j], "difference": means[i] - means[j], "statistic": statistic,
                        "pvalue": pvalues, "effect_size": effect, "low": low, "high": high})
    adjusted, reject = _adjust(pvalues, method, level)
    out["pvalue_adjusted"], out["reject"] = adjusted, reject
    return out[list(PAIR_COLUMNS)]


def tukey_range_distribution(matrix: np.ndarray, n_resamples: int, seed: int | None,
                             block_size: int = 256) -> np.ndarray:
    """The ``n_resamples`` ranges (max - min of the systems' means) of Carterette's randomisation, for a
    ``query x system`` ``matrix`` (or a ``measure x query x system`` stack of them: one row of ranges per
    measure, all from the same permutations): resample r permutes the systems' values within every
    query q in the order ``argsort(u[r, q, :])`` of uniforms ``u = default_rng(seed).random((R, Q, S))``,
    drawn in blocks of ``block_size`` resamples (the stream, hence the result, does not depend on the
    block size)."""
    stack = matrix[None] if matrix.ndim == 2 else matrix
    m, q, s = stack.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty((m, n_resamples))
    offsets = (np.arange(q) * s)[None, :, None]
    flat_stack = stack.reshape(m, q * s)
    for start in range(0, n_resamples, block_size):
        count = min(block_size, n_resamples - start)
        # positions in the flattened query x system matrix (np.take on them: 1.6 x faster than 2-D indexing)
        flat = (rng.random((count, q, s)).argsort(axis=2) + offsets).reshape(count, q * s)
        for k in range(m):                                       # one measure at a time bounds memory
            means = np.take(flat_stack[k], flat).reshape(count, q, s).sum(axis=1) / q      # (count, S)
            ranges[k, start:start + count] = means.max(axis=1) - means.min(axis=1)
    return ranges[0] if matrix.ndim == 2 else ranges


def tukey_hsd_randomized(frame: Any, n_resamples: int = 10000, seed: int | None = 0,
                         alpha: float = 0.05, *, block_size: int = 256) -> pd.DataFrame:
    """The randomised Tukey HSD test (Carterette 2012) over every unordered pair of runs of ``frame``
    (rows: runs, columns: queries), in the order of ``itertools.combinations(frame.index, 2)``.

    Under the null hypothesis that all runs are equivalent, the runs' values are exchangeable within each
    query: each of ``n_resamples`` resamples permutes them within every query (see
    :func:`tukey_range_distribution`, seeded by ``seed``) and records the range max - min of the runs'
    mean values. The p-value of a pair is p = (b + 1) / (R + 1), b the number of resamples whose range is
    >= the pair's observed |mean_a - mean_b| (up to a relative 1e-12 rounding allowance), R =
    ``n_resamples``; it already accounts for all the pairs of the frame (family-wise: one test per
    measure), so ``reject`` is p <= ``alpha`` with no further correction, and the smallest p it can give,
    1 / (R + 1) (about 1e-4 by default), is far below alpha. (Correcting over several measures as well,
    e.g. Bonferroni over m measures, needs 1 / (R + 1) <= alpha / m.) ``block_size`` bounds memory
    (block_size x queries x runs numbers) only.

    Several measures at once: ``frame`` a dict {measure: frame} or a list of frames. The permutations are
    drawn once for all frames with the same runs (in the same order) and the same query columns, and
    every frame's rows equal its own call with the same ``seed`` (tested); the result is one table with
    a first column ``measure`` (the dict's keys, or the list positions), the frames in the order given."""
    if isinstance(frame, pd.DataFrame):
        return _tukey_tables([frame], n_resamples, seed, alpha, block_size)[0]
    if isinstance(frame, dict):
        labels, frames = list(frame), list(frame.values())
    elif isinstance(frame, (list, tuple)):
        labels, frames = list(range(len(frame))), list(frame)
    else:
        raise ParameterError(f"frame: expected a DataFrame (rows: runs, columns: queries), or a dict or list "
                             f"of them, got {type(frame).__name__}")
    tables = _tukey_tables(frames, n_resamples, seed, alpha, block_size)
    for label, table in zip(labels, tables, strict=True):
        table.insert(0, "measure", [label] * len(table))
    columns = ["measure", *TUKEY_COLUMNS]
    return pd.concat(tables, ignore_index=True)[columns] if tables else pd.DataFrame(columns=columns)


def _tukey_tables(frames: list[Any], n_resamples: int, seed: int | None, alpha: float,
                  block_size: int) -> list[pd.DataFrame]:
    resamples = _checks.positive_int(n_resamples, "n_resamples")
    seed_value = _checks.seed(seed)
    block = _checks.positive_int(block_size, "block_size")
    level = _checks.confidence(alpha, "alpha")
    checked = [_checks.frame(f, "frame" if len(frames) == 1 else f"frame[{k}]") for k, f in enumerate(frames)]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for k, f in enumerate(frames):
        groups.setdefault((tuple(f.index), tuple(f.columns)), []).append(k)
    ranges: list[np.ndarray] = [np.empty(0)] * len(frames)
    for members in groups.values():
        stack = np.stack([checked[k][1].T for k in members])            # measures x queries x runs
        drawn = tukey_range_distribution(stack, resamples, seed_value, block)
        for k, row in zip(members, drawn, strict=True):
            ranges[k] = np.sort(row)
    return [_tukey_table(runs, mat, ranges[k], resamples, level) for k, (runs, mat) in enumerate(checked)]


def _tukey_table(runs: list[Any], mat: np.ndarray, ranges: np.ndarray, resamples: int, level: float) -> pd.DataFrame:
    means = mat.mean(axis=1)
    i, j = _pair_indices(len(runs))
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
        table = all_pairs(frame, test=test, correction=correction, alpha=alpha, **{"effect_ci": None, **kw})
    return float(table["reject"].mean())
