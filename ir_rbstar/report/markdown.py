"""The report's Markdown: tables of means, ranks, comparisons with the baseline and distances."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..io import Qrels
from .catalogue import Column, DISTANCES, about as _about, family_label
from .inputs import _describe
from .mdtable import _cell, _interval, _num, _p, _signed, _table
from .story import _agreement_section, _family_text, _flips_text, _reach_warning, _resamples, _significance_grid




#: which interval the Means table shows, and why
INTERVAL_TEXT = (
    "The interval stays within the measure's range (`ir_rbstar.stats.mean_intervals`; the range as the measure's "
    "declaration gives it: [0, 1] for the trec_eval ratios, the tie-aware, rank-biased, Twist, normalised NRG and "
    "MED measures and 1-RBO). For a measure with a bounded range it is the BCa bootstrap interval (Efron 1987; "
    "9,999 resamples of the queries, seed 0): every resampled mean is a mean of observed values, so the interval "
    "cannot leave the range, and BCa corrects the skew of a mean near a bound (RBP_res near 0, 1-RBO near 1), "
    "where Student's symmetric t interval would cross it. For an unbounded measure it is Student's t interval, "
    "mean \u00b1 t(0.975, n - 1) x sd / sqrt(n).")














def mean_intervals(per_query: pd.DataFrame, names: List[str], columns: List[Column]) -> Dict[Tuple[str, str], Any]:
    """(measure, run) -> (low, high), the 95% interval of the run's mean over the queries with a value, inside
    the measure's range (:func:`~ir_rbstar.report.catalogue.value_range`): :func:`ir_rbstar.stats.mean_intervals`,
    BCa bootstrap for a bounded measure, Student's t otherwise; None for fewer than 2 values. The one place the
    report's intervals come from (report.md and results.json/.tex/.html)."""
    from .catalogue import value_range
    out: Dict[Tuple[str, str], Any] = {}
    for c in columns:
        frame = per_query[c.label].unstack("run").reindex(columns=names)      # queries x runs
        lows, highs = intervals_in_range(frame.to_numpy(dtype=float), value_range(c.measure, c.complement))
        counts = frame.notna().sum(axis=0).to_numpy()
        for j, n in enumerate(names):
            out[(c.label, n)] = (float(lows[j]), float(highs[j])) if counts[j] >= 2 else None
    return out


def with_intervals(table: Any, per_query: pd.DataFrame, names: List[str], columns: List[Column],
                   intervals: Optional[Dict[Tuple[str, str], Any]] = None) -> Any:
    """``table`` (a :class:`~ir_rbstar.report.formats.ResultsTable` of the report's means) with the intervals of
    :func:`mean_intervals` (``intervals``: computed already), so results.json/.tex/.html show the same intervals
    as report.md, inside each measure's range."""
    from dataclasses import replace
    if intervals is None:
        intervals = mean_intervals(per_query, names, columns)
    cells = []
    for run, row in zip(table.runs, table.cells, strict=True):
        line = []
        for label, cell in zip(table.measures, row, strict=True):
            ci = intervals.get((label, run))
            line.append(replace(cell, low=None if ci is None else ci[0], high=None if ci is None else ci[1]))
        cells.append(tuple(line))
    return replace(table, cells=tuple(cells))


def intervals_in_range(values: Any, bounds: Tuple[Optional[float], Optional[float]]) -> Tuple[Any, Any]:
    """Low and high ends of the 95% intervals of the means of the columns of ``values`` (queries x runs, NaN: no
    value) for a measure whose values lie in ``bounds`` (None: an open end): :func:`ir_rbstar.stats.mean_intervals`
    (BCa where a bound is finite, else t). The report's and the explorer page's intervals (one mechanism)."""
    from .. import stats
    from ..errors import ParameterError
    lo = -np.inf if bounds[0] is None else bounds[0]
    hi = np.inf if bounds[1] is None else bounds[1]
    if not hasattr(stats, "mean_intervals"):                      # older ir_rbstar.stats: t intervals
        cis = [stats.mean_interval(col[~np.isnan(col)], 0.95, method="t") if (~np.isnan(col)).sum() >= 2 else None
               for col in values.T]
        return ([np.nan if ci is None else ci.low for ci in cis], [np.nan if ci is None else ci.high for ci in cis])
    bounded = np.isfinite(lo) or np.isfinite(hi)
    if bounded:
        # a value past a bound by the last bits of a sum (nDCG_TA 1.0000000000000002) is that bound: the
        # interval then respects the range exactly; a larger excess is left to the check below
        values = np.asarray(values, dtype=float)
        values = np.where((values > hi) & (values <= hi + 1e-12), hi, values)
        values = np.where((values < lo) & (values >= lo - 1e-12), lo, values)
    try:
        got = stats.mean_intervals(values, bounds=(lo, hi) if bounded else None, level=0.95)
    except ParameterError:
        # a value outside the declared range by the last bit of a sum: the BCa interval still stays within
        # the values seen, hence within the range
        got = stats.mean_intervals(values, bounds=None, level=0.95, method="bca" if bounded else "t")
    return got["low"].to_numpy(), got["high"].to_numpy()


_intervals_of = intervals_in_range


def runs_as_rows(names: List[str], columns: List[Column]) -> bool:
    """Whether the means and ranks tables put the runs in rows: when there are more runs than measures
    (the table then grows downwards, one line a run, at any number of runs)."""
    return len(names) > len(columns)


def _grid(measure_labels: List[str], names: List[str], head_of: Dict[str, str], cells: List[List[str]],
          extra: Optional[Tuple[str, List[str]]], by_run: bool) -> str:
    """A measures x runs table (``cells[i][j]``: measure i, run j), or its transpose when ``by_run``;
    ``extra``: a first line (or column) of per-run facts."""
    if by_run:
        head = ["run"] + ([extra[0]] if extra else []) + measure_labels
        rows = [[head_of[n]] + ([extra[1][j]] if extra else []) + [cells[i][j] for i in range(len(measure_labels))]
                for j, n in enumerate(names)]
        return _table(head, rows, "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    head = ["measure"] + [head_of[n] for n in names]
    rows = ([[extra[0]] + extra[1]] if extra else []) + [[label] + cells[i] for i, label in enumerate(measure_labels)]
    return _table(head, rows)


def _means_markdown(means: pd.DataFrame, names: List[str], columns: List[Column], baseline: Optional[str],
                    nq: int, answered: Dict[str, int], intervals: Dict[Tuple[str, str], Any]) -> str:
    head_of = {n: f"{n} (baseline)" if n == baseline else n for n in names}
    table = means.set_index(["measure", "run"])
    cells = []
    for c in columns:
        line = []
        for n in names:
            mean, count = table.at[(c.label, n), "mean"], int(table.at[(c.label, n), "queries"])
            text = _num(mean) if count else "-"
            ci = intervals.get((c.label, n))
            if ci is not None and _interval(ci[0], ci[1]):
                text += f" {_interval(ci[0], ci[1])}"
            if count and count != nq:
                text += f" (n={count})"
            line.append(text)
        cells.append(line)
    labels = [f"`{_cell(c.label)}`" for c in columns]
    return _grid(labels, names, head_of, cells, ("queries with a ranking", [str(answered[n]) for n in names]),
                 runs_as_rows(names, columns))


def _ranks_markdown(means: pd.DataFrame, names: List[str], columns: List[Column]) -> str:
    table = means.set_index(["measure", "run"])
    ranked = [c for c in columns if c.better]
    labels = [f"`{_cell(c.label)}`" + (" (lower is better)" if c.better == "lower" else "") for c in ranked]
    cells = [["" if pd.isna(r) else str(int(r)) for r in (table.at[(c.label, n), "rank"] for n in names)]
             for c in ranked]
    return _grid(labels, names, {n: n for n in names}, cells, None, runs_as_rows(names, columns))




def _significance_markdown(sig: pd.DataFrame) -> str:
    head = ["run", "measure", "queries", "baseline", "run mean", "difference", "p", "p (Holm)", "", "d_z",
            "d_z 95% interval"]
    marks = {"better": "\u25b2", "worse": "\u25bc", "": ""}
    rows = []
    for r in sig.itertuples(index=False):
        label = f"`{_cell(r.measure)}`" + (" (lower is better)" if r.better == "lower" else "")
        interval = "" if math.isnan(r.d_z_low) else f"[{_signed(r.d_z_low)}, {_signed(r.d_z_high)}]"
        rows.append([r.run, label, str(r.queries), _num(r.baseline_mean), _num(r.run_mean), _signed(r.difference),
                     _p(r.p), _p(r.p_holm), marks[r.significant], _signed(r.d_z), interval])
    return _table(head, rows, "|---|---|---:|---:|---:|---:|---:|---:|:---:|---:|---:|")














def _aux_mark(r: Any) -> str:
    """A verdict's mark when it depends on the auxiliary judgments, with the human-only verdict (report.aux)."""
    from .aux import MARK
    return f" {MARK} (human only: {r.verdict_human})" if getattr(r, "depends_on_aux", False) else ""


def _robust_markdown(rows: pd.DataFrame) -> str:
    head = ["measure", "upper bound", "run", "queries", "run's mean between", "difference from the baseline between",
            "p (Holm), worst case", "p (Holm), best case", "verdict (A: the run, B: the baseline)"]
    body = []
    for r in rows.itertuples(index=False):
        difference = "" if math.isnan(r.difference_low) else \
            f"[{_signed(r.difference_low)}, {_signed(r.difference_high)}]"
        body.append([f"`{_cell(r.measure)}`", f"`{_cell(r.upper)}`", r.run, str(r.queries),
                     _interval(r.mean_low, r.mean_high), difference, _p(r.pvalue_worst_adjusted),
                     _p(r.pvalue_best_adjusted), r.verdict + _aux_mark(r)])
    return _table(head, body, "|---|---|---|---:|---:|---:|---:|---:|---|")


#: the most rows a list of significant pairs (or of comparisons with the baseline) shows; beyond, a summary
LIST_ROWS = 40


def _pairs_markdown(pairs: pd.DataFrame, names: List[str]) -> str:
    """The significant pairs: measure, which run is better, the difference of the means and p; when there are
    more than :data:`LIST_ROWS`, per run and measure how many runs it is significantly better / worse than."""
    rows = []
    wins: Dict[Tuple[str, str], List[int]] = {}
    for r in pairs[pairs["reject"].astype(bool)].itertuples(index=False):
        a_wins = (r.difference > 0) == (r.better == "higher")
        winner, loser = (r.run_a, r.run_b) if a_wins else (r.run_b, r.run_a)
        rows.append([_cell(r.measure), f"`{winner}` over `{loser}`", _num(abs(r.difference)), _p(r.pvalue)])
        wins.setdefault((winner, r.measure), [0, 0])[0] += 1
        wins.setdefault((loser, r.measure), [0, 0])[1] += 1
    if not rows:
        return "None."
    if len(rows) <= LIST_ROWS:
        return _table(["measure", "better run", "difference of the means", "p"], rows, "|---|---|---:|---:|")
    measures = list(dict.fromkeys(pairs["measure"]))
    body = [[n] + [("{} / {}".format(*wins[(n, m)]) if (n, m) in wins else "0 / 0") for m in measures] for n in names]
    return (f"{len(rows):,} significant pairs (all in `all_pairs.tsv`). Per run and measure: how many runs it is "
            f"significantly better / worse than.\n\n"
            + _table(["run"] + [f"`{_cell(m)}`" for m in measures], body))


def _robust_section(rows: Optional[pd.DataFrame], baseline: Optional[str], alpha: float) -> List[str]:
    out = ["## Robust to what is not known", ""]
    if rows is None or not len(rows):
        return out + ["No measure with bounds among the measures (a residual such as `RBP_res` next to its "
                      "measure, or a tie-aware measure with both `stat='min'` and `stat='max'`): no robust "
                      "verdicts.", ""]
    out += [f"Some values are only known within bounds: a measure with a residual lies between its value and "
            f"value + residual once the unjudged documents are judged, a tie-aware measure between its values "
            f"for the worst (`stat='min'`) and the best (`stat='max'`) order of the tied scores. Each run (A) is "
            f"compared with `{baseline}` (B) at the two extremes: the worst case for the run (A at its lower "
            f"bounds, B at its upper bounds) and the best case (A at its upper, B at its lower bounds), with the "
            f"paired t test, Holm-corrected over the runs of the measure (`ir_rbstar.stats.robust_table`, "
            f"\u03b1 = {alpha:g}; queries where every run has both bounds).", "",
            "What is guaranteed: whatever the unknown turns out to be (any value of every query within its "
            "bounds, the bounds of A and B taken independently), the mean difference run - baseline lies in the "
            "interval shown. **A better, robust** (or **B better, robust**) means the run is significantly "
            "better (worse) than the baseline in both extreme cases, the worst case for its side included. It "
            "does not say the test is significant at every value in between: a t test's p-value is not monotone "
            "in the per-query differences (a larger difference can widen their spread), so an intermediate "
            "completion can have a larger p than both extremes. **A (B) better only if the unknown favours A "
            "(B)**: significant only in the case that favours that side. **no conclusion**: neither.", "",
            _robust_markdown(rows), ""]
    from .aux import robust_text
    return out + robust_text(rows)


def _scale_text(grade_scale: Optional[Tuple[int, str]], columns: List[Column]) -> List[str]:
    """The grade scale of the graded measures and where it comes from (nothing without a graded measure)."""
    from .catalogue import graded
    if grade_scale is None:
        return []
    scale, source = grade_scale
    shown = [c.label for c in columns if graded(c.measure)]
    if not shown:
        return []
    return [f"Grade scale of the graded measures: 0 to {scale} ({source}): graded gains are grade / {scale}, "
            f"written into each graded measure as `max_rel={scale}` (the default 1 is not shown), so that a label "
            f"such as `{_cell(shown[0])}` pasted into ir_measures (after `import ir_rbstar`) or `ir-rbstar` gives "
            f"the report's numbers. `--max-rel` sets another scale.", ""]


#: the most runs whose distance matrix report.md shows whole; beyond, each run's nearest run (the matrix is in
#: its TSV file and its picture)
MATRIX_RUNS = 12


def _matrix_markdown(matrix: pd.DataFrame) -> str:
    head = [""] + [str(c) for c in matrix.columns]
    rows = [[str(i)] + [_num(float(v)) for v in matrix.loc[i]] for i in matrix.index]
    return _table(head, rows)


def _nearest_markdown(matrix: pd.DataFrame) -> str:
    """Per run: the nearest other run, its distance, and the mean distance to the other runs."""
    values = matrix.to_numpy(dtype=float).copy()
    np.fill_diagonal(values, np.nan)
    rows = []
    for i, name in enumerate(matrix.index):
        line = values[i]
        if np.isnan(line).all():
            rows.append([str(name), "", "", ""])
            continue
        j = int(np.nanargmin(line))
        rows.append([str(name), str(matrix.columns[j]), _num(float(line[j])), _num(float(np.nanmean(line)))])
    return _table(["run", "nearest run", "distance", "mean distance to the others"], rows, "|---|---|---:|---:|")


def _markdown(q: Qrels, qrels: Any, inputs: Dict[str, Any], names: List[str], answered: Dict[str, int],
              reference: Any, ref_tag: Optional[str], baseline: Optional[str], base_tag: Optional[str],
              group_of: Optional[Dict[str, str]], prior_tag: str, columns: List[Column], means: pd.DataFrame,
              sig: Optional[pd.DataFrame], pairs: Optional[pd.DataFrame], matrices: Dict[str, pd.DataFrame],
              pictures: List[Tuple[str, str]],
              notes: List[str], missing: List[str], alpha: float, permutations: Optional[int], seed: int,
              defaults: bool, drawing: bool, *, per_query: Optional[pd.DataFrame] = None,
              robust_rows: Optional[pd.DataFrame] = None, grade_scale: Optional[Tuple[int, str]] = None,
              scope: Optional[str] = None, intervals: Optional[Dict[Tuple[str, str], Any]] = None,
              aux_text: Optional[List[str]] = None) -> str:
    from .. import __version__
    nq = len(q.qcodes)
    relevant = int((q.grades >= 1).sum())
    out = ["# Evaluation report", ""]
    low, high = int(q.grades.min()), q.max_grade
    grades = f"grade {low}" if low == high else f"grades {low} to {high}"
    out.append(f"Made by ir_rbstar {__version__}. Qrels: {_describe(qrels)}: {nq:,} queries, {len(q.grades):,} "
               f"judgments ({grades}), {relevant:,} with grade >= 1.")
    out.append("")
    out += _scale_text(grade_scale, columns)
    rows = []
    for n in names:
        role = "baseline" if n == baseline else ""
        if group_of is not None:
            role = (role + ", " if role else "") + f"group {group_of[n]}"
        rows.append([n, _describe(inputs[n]), str(answered[n]), role])
    out += [f"Runs ({len(names)}):", "", _table(["run", "from", "queries answered", ""], rows,
                                                 "|---|---|---:|---|"), ""]
    if scope:                                   # [26A] which queries are evaluated (report.table)
        out += [scope, ""]
    out += aux_text or []                       # [29a] the auxiliary judgments (report.aux)
    if reference is not None:
        out.append(f"Reference ranking of RBR, RBA and RBO: `{ref_tag}` ({_describe(reference)}).")
    else:
        out.append("No reference ranking (`--reference`): RBR, RBA and RBO are not among the default measures.")
    if baseline is not None:
        alias = f" (as `ref='{base_tag}'`)" if base_tag != baseline else ""
        out.append(f"Baseline: `{baseline}`{alias}.")
    else:
        out.append("No baseline (`--baseline`): no significance tests, and no distances to a baseline.")
    if len(names) > 1:
        if group_of is not None:
            out.append(f"NRG's prior set (`prior='{prior_tag}'`): for each run, the best run by nDCG@10 of every "
                       "other group.")
        else:
            out.append(f"NRG's prior set (`prior='{prior_tag}'`): for each run, all the other runs.")
    out.append("")

    out += ["## Measures", ""]
    if defaults:
        out += ["The default choice: the trec_eval staples nDCG@10 and P@10 (the first page), AP (the whole "
                "ranking) and R@100 (what a first stage hands to a re-ranker), with the tie-aware nDCG_TA@10, "
                "P_TA@10 and AP_TA next to them (the mean over every order of tied scores: a difference between "
                "the two columns is an artefact of trec_eval's tie-breaking by document id); RBP(p=0.8) with its "
                "residual, the room the unjudged documents leave; against the reference ranking, RBR(p=0.8)@20 "
                "(the top 20 as a candidate set for re-ranking) and RBA(p=0.9), RBO(p=0.9) (agreement of the "
                "whole ranking); Twist (the effort a ranking costs its reader); NRG@10 (the nDCG@10 of what the "
                "other runs had not already shown); against the baseline, MED_nDCG@10 (the largest nDCG@10 "
                "difference any relevance of the unjudged documents allows) and 1-RBO(p=0.9).", ""]
    rows = []
    for c in columns:
        about = _about(c.measure)
        if c.complement:
            about = f"1 - ({about}): a distance"
        better = {"higher": "higher", "lower": "lower", "": f"not ranked ({c.note})"}[c.better]
        rows.append([f"`{_cell(c.label)}`", family_label(c.measure), about, better])
    out += [_table(["measure", "family", "what", "better"], rows, "|---|---|---|---|"), ""]

    if intervals is None:                       # [26A] the report computes them once (build.py)
        intervals = mean_intervals(per_query, names, columns) if per_query is not None else {}
    out += ["## Means", "",
            f"Mean over the queries of the qrels ({nq:,}) that have a value, with its 95% confidence interval "
            f"[low, high] over those queries (the queries taken as a sample from a population of queries). "
            f"{INTERVAL_TEXT} `(n=...)` where fewer queries have a value. Every query of the qrels has a value for "
            f"the default measures: a query without a relevant document scores 0 under Twist, as under AP and "
            f"nDCG.", "",
            _means_markdown(means, names, columns, baseline, nq, answered, intervals), ""]

    out += ["## Ranks", "", "Rank of each run by its mean (1 = best; equal means share the best rank). Residuals "
            "and measures against the baseline are not ranked.", "", _ranks_markdown(means, names, columns), ""]

    out += ["## Significance against the baseline", ""]
    if sig is None:
        out += ["No baseline was given (`--baseline NAME`).", ""]
    elif not len(sig):
        out += ["Nothing to test: the baseline is the only run, or no measure is ranked.", ""]
    else:
        out += [f"Paired two-sided randomization test (Fisher's sign-flip test; Smucker, Allan and Carterette, "
                f"CIKM 2007) of the per-query differences run - `{baseline}`: p is the share of the 2^n ways of "
                f"flipping the signs of the n differences whose |mean| is at least the observed one; "
                f"{_flips_text(permutations, seed)} {_family_text(sig, len(names))} \u25b2 / \u25bc: significantly "
                f"better / worse than the baseline at \u03b1 = {alpha:g} after the correction. Only queries with a "
                f"value for both the run and the baseline are paired (the queries column). The effect size d_z = "
                f"mean(d) / sd(d) of the differences d = run - baseline (paired Cohen's d; negative: the run's values "
                f"are lower, which is better for a lower-is-better measure) says how large a difference is against "
                f"its query-to-query spread, whatever p; its 95% interval is the exact one for normally "
                f"distributed differences, from the noncentral t distribution "
                f"(`ir_rbstar.stats.effect_size_dz_interval`).", ""]
        out += _reach_warning(sig, permutations, alpha)
        if len(sig) <= LIST_ROWS:
            out += [_significance_markdown(sig), ""]
        else:
            out += [f"Every one of the {len(sig):,} comparisons, with p, p (Holm), d_z and its interval, is in "
                    f"`significance.tsv`; here the difference run - baseline of each, marked where significant:", "",
                    _significance_grid(sig, names, baseline), ""]
        out += _robust_section(robust_rows, baseline, alpha)

    if pairs is not None:
        out += ["## All pairs of runs", ""]
        out += [f"Randomised Tukey HSD test (Carterette, TOIS 2012) of every pair of runs under every ranked "
                f"measure: {_resamples(permutations)} resamples (seed {seed}) permute the runs' values within each "
                f"query and record the range of the runs' means; p = (b + 1) / (R + 1), b of the R resamples whose "
                f"range is at least the pair's |difference|. The family is the {len(names) * (len(names) - 1) // 2:,} "
                f"pairs of the {len(names)} runs, per measure (Tukey's test controls the error over all of them "
                f"at once, so it needs a larger difference than the comparisons with the baseline alone). Only "
                f"queries where every run has a value take part. All pairs with their p in `all_pairs.tsv`; "
                f"significant at \u03b1 = {alpha:g}:", ""]
        out += [_pairs_markdown(pairs, names), ""]

    if sig is not None and len(sig) and baseline is not None:
        out += _agreement_section(sig, pairs, robust_rows, baseline, len(names))

    if matrices:
        out += ["## Distances between the runs", ""]
        for key, _ in DISTANCES:
            matrix = matrices[key]
            judged = "; judged documents count with their grades" if matrix.attrs["measure"].startswith("MED") else ""
            if len(names) <= MATRIX_RUNS:
                out += [f"{matrix.attrs['distance']}, mean over the queries (rows: run, columns: the run it is "
                        f"compared with{judged}):", "", _matrix_markdown(matrix), ""]
            else:
                out += [f"{matrix.attrs['distance']}, mean over the queries{judged}: the {len(names)} x {len(names)} "
                        f"matrix is in `distance_{key}.tsv` (and its heat map below); here each run's nearest run "
                        f"and its mean distance to the others:", "", _nearest_markdown(matrix), ""]

    out += ["## Pictures", ""]
    if not drawing:
        out += ["No pictures were asked for.", ""]
    if missing:
        out += [f"The pictures were not drawn: {missing[0]}.", ""]
    for name, caption in pictures:
        out += [f"![{name}]({name})", "", caption, ""]
    for note in notes:
        out += [note, ""]
    return "\n".join(out).rstrip("\n") + "\n"
