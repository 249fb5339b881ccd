"""The report's sections, each a function of the one per-query table (:mod:`.table`): means and ranks,
tests against the baseline with effect sizes, robust verdicts over a measure's bounds, all pairs of runs,
and the results table the writers format. No section evaluates a measure."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np
import pandas as pd

from .catalogue import Column
from .formats import ResultsTable
from .stats import holm, randomization_pvalues


def _means(per_query: pd.DataFrame, names: List[str], columns: List[Column]) -> pd.DataFrame:
    """run, measure, mean, queries, rank (1 = best; empty for descriptive measures)."""
    grouped = per_query.groupby(level="run", sort=False)
    means = grouped.mean().reindex(names)
    counts = grouped.count().reindex(names)
    rows = []
    for c in columns:
        rank = pd.Series(np.nan, index=names)
        if c.better:
            rank = means[c.label].rank(method="min", ascending=(c.better == "lower"))
        for name in names:
            rows.append({"run": name, "measure": c.label, "mean": means.at[name, c.label],
                         "queries": int(counts.at[name, c.label]), "rank": rank[name]})
    out = pd.DataFrame(rows)
    out["rank"] = out["rank"].astype("Int64")
    return out


def _significance(per_query: pd.DataFrame, names: List[str], baseline: str, columns: List[Column],
                  permutations: Optional[int], seed: int, alpha: float) -> pd.DataFrame:
    base = per_query.xs(baseline, level="run")
    rows, diffs = [], []
    for name in names:
        if name == baseline:
            continue
        mine = per_query.xs(name, level="run")
        for c in columns:
            if not c.better:
                continue
            a, b = mine[c.label].to_numpy(), base[c.label].to_numpy()
            both = ~np.isnan(a) & ~np.isnan(b)
            d = a[both] - b[both]
            diffs.append(d)
            rows.append({"run": name, "measure": c.label, "better": c.better, "queries": int(both.sum()),
                         "baseline_mean": float(b[both].mean()) if both.any() else np.nan,
                         "run_mean": float(a[both].mean()) if both.any() else np.nan,
                         "difference": float(d.mean()) if len(d) else np.nan})
    out = pd.DataFrame(rows, columns=["run", "measure", "better", "queries", "baseline_mean", "run_mean",
                                      "difference"])
    # one family per measure (story.per_measure corrects within it): permutations=None resolves each p as far
    # as Holm over that family needs, so a large effect can be significant whatever the number of runs
    out["p"] = (randomization_pvalues(diffs, permutations, seed, alpha=alpha, groups=list(out["measure"]))
                if diffs else np.zeros(0))
    out["p_holm"] = holm(out["p"].to_numpy())
    out["d_z"], out["d_z_low"], out["d_z_high"] = _effect_sizes(diffs)
    sign = np.where(out["better"] == "lower", -1.0, 1.0) * np.sign(out["difference"].to_numpy())
    significant = out["p_holm"].to_numpy() <= alpha
    out["significant"] = np.where(significant & (sign > 0), "better", np.where(significant & (sign < 0), "worse", ""))
    return out


def _effect_sizes(diffs: List[np.ndarray]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d_z = mean(d) / sd(d) of each array of per-query differences and its 95% noncentral-t interval
    (:func:`ir_rbstar.stats.effect_size_dz`, :func:`ir_rbstar.stats.effect_size_dz_interval`); NaN for
    fewer than 2 differences or constant ones."""
    from ..stats import effect_size_dz, effect_size_dz_interval
    out = np.full((3, len(diffs)), np.nan)
    for k, d in enumerate(diffs):
        if len(d) >= 2:
            low, high = effect_size_dz_interval(d, 0.95)
            out[:, k] = float(effect_size_dz(d)), float(low), float(high)
    return out[0], out[1], out[2]


def bound_pairs(columns: List[Column]) -> List[Tuple[str, str, str, str]]:
    """(measure, low label, high label, kind) for every ranked, higher-is-better column whose per-query
    value is known only within bounds the report also evaluates: ``X`` with its residual ``X_res`` (same
    parameters; the value lies in [X, X + X_res] once the unjudged documents are judged), and
    ``X(stat='min')`` with ``X(stat='max')`` (the worst and best order of tied scores). ``kind`` is
    ``'residual'`` or ``'ties'``; for a residual the high label names the residual column."""
    def same(a: Any, b: Any, skip: Tuple[str, ...] = ()) -> bool:
        shared = (set(a.SUPPORTED_PARAMS) & set(b.SUPPORTED_PARAMS)) - set(skip)
        return all(a.params.get(k, a.SUPPORTED_PARAMS[k].default) == b.params.get(k, b.SUPPORTED_PARAMS[k].default)
                   for k in shared)

    plain = [c for c in columns if not c.complement]
    out: List[Tuple[str, str, str, str]] = []
    for c in plain:
        if c.better != "higher":
            continue
        m = c.measure
        for r in plain:
            if r.measure.NAME == f"{m.NAME}_res" and same(m, r.measure):
                out.append((c.label, c.label, r.label, "residual"))
                break
        if m.params.get("stat") == "min":
            for r in plain:
                if r.measure.NAME == m.NAME and r.measure.params.get("stat") == "max" and same(m, r.measure, ("stat",)):
                    out.append((c.label, c.label, r.label, "ties"))
                    break
    return out


def robust(per_query: pd.DataFrame, names: List[str], baseline: str, columns: List[Column],
           alpha: float) -> Optional[pd.DataFrame]:
    """Every run against the baseline over the bounds of each measure of :func:`bound_pairs`, by
    :func:`ir_rbstar.stats.robust_table` (paired t at the two extreme completions, Holm over the runs of
    the measure, level ``alpha``) on the queries where every run has both bounds. One row per measure and
    run: ``measure`` (the lower bound's column), ``upper`` (the upper bound: ``X + X_res`` or the
    ``stat='max'`` column), ``bounds`` (``residual`` / ``ties``), robust_table's columns, ``queries``.
    None when no measure has bounds or there is only one run."""
    from ..stats import robust_table
    pairs = bound_pairs(columns)
    if not pairs or len(names) < 2:
        return None
    parts = []
    for measure, low_label, high_label, kind in pairs:
        low = per_query[low_label].unstack("query_id").reindex(names)
        high = per_query[high_label].unstack("query_id").reindex(names)
        if kind == "residual":
            high = low + high
        ok = low.notna().all(axis=0) & high.notna().all(axis=0)
        low, high = low.loc[:, ok], high.loc[:, ok]
        if low.shape[1] < 2:
            continue
        table = robust_table(low, high, baseline, test="t", alpha=alpha, correction="holm")
        table.insert(0, "bounds", kind)
        table.insert(0, "upper", f"{measure} + {high_label}" if kind == "residual" else high_label)
        table.insert(0, "measure", measure)
        table["queries"] = low.shape[1]
        parts.append(table)
    return pd.concat(parts, ignore_index=True) if parts else None




def all_pairs(per_query: pd.DataFrame, names: List[str], columns: List[Column], resamples: int, seed: int,
              alpha: float) -> pd.DataFrame:
    """Every pair of runs under every ranked measure, by the randomised Tukey HSD test (Carterette, TOIS 2012;
    :func:`ir_rbstar.stats.tukey_hsd_randomized`, ``resamples`` resamples, ``seed``): family-wise over the
    pairs of one measure. Only the queries where every run has a value take part (``queries``)."""
    from ..stats import tukey_hsd_randomized
    frames, meta = {}, {}
    for c in columns:
        if not c.better:
            continue
        frame = per_query[c.label].unstack("query_id").reindex(names).dropna(axis=1)
        if frame.shape[1] < 2:
            continue
        frames[c.label] = frame
        meta[c.label] = (c.better, frame.shape[1])
    parts = []
    if frames:
        # one call: the measures share their permutations (same runs and queries), as many tests, less work
        res = tukey_hsd_randomized(frames, n_resamples=resamples, seed=seed, alpha=alpha)
        res["better"] = [meta[m][0] for m in res["measure"]]
        res["queries"] = [meta[m][1] for m in res["measure"]]
        parts.append(res)
    columns_out = ["measure", "run_a", "run_b", "mean_a", "mean_b", "difference", "pvalue", "reject", "better",
                   "queries"]
    return pd.concat(parts, ignore_index=True)[columns_out] if parts else pd.DataFrame(columns=columns_out)


def results_table(per_query: pd.DataFrame, means: pd.DataFrame, sig: Optional[pd.DataFrame], columns: List[Column],
                  baseline: Optional[str], alpha: float, intervals: bool = True) -> ResultsTable:
    """The report's means as a :class:`~ir_rbstar.report.formats.ResultsTable`: each with its 95% t interval
    over the queries that have a value (:func:`ir_rbstar.stats.mean_interval`; ``intervals=False``: none, for a
    caller that sets its own), and, against the baseline, the Holm-corrected p of the randomization test and
    the direction where it is significant."""
    from ..stats import mean_interval
    frame = means[["run", "measure", "mean"]].copy()
    lows, highs = [], []
    for run, label in zip(frame["run"], frame["measure"], strict=True):
        values = per_query.loc[run, label].dropna().to_numpy() if intervals else ()
        if len(values) >= 2:
            ci = mean_interval(values, confidence=0.95, method="t")
            lows.append(ci.low)
            highs.append(ci.high)
        else:
            lows.append(np.nan)
            highs.append(np.nan)
    frame["low"], frame["high"] = lows, highs
    if sig is not None:
        marks = sig[["run", "measure", "p_holm", "significant"]].rename(columns={"p_holm": "p",
                                                                              "significant": "direction"})
        frame = frame.merge(marks, on=["run", "measure"], how="left")
    lower = frozenset(c.label for c in columns if c.better == "lower")
    plain = frozenset(c.label for c in columns if not c.better)
    return ResultsTable.from_frame(frame, baseline=baseline, alpha=alpha, lower_is_better=lower, descriptive=plain)
