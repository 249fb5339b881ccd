"""The report's Markdown: tables of means, ranks, comparisons with the baseline and distances."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import pandas as pd

from ..io import Qrels
from .catalogue import Column, DISTANCES, about as _about, family_label
from .inputs import _describe


_PLACES = 4


def _table(head: List[str], rows: List[List[str]], align: Optional[str] = None) -> str:
    align = align or "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"
    lines = ["| " + " | ".join(head) + " |", align]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _num(v: float, places: int = _PLACES) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{places}f}"


def _p(v: float) -> str:
    if math.isnan(v):
        return ""
    return f"{v:.1e}" if v < 0.5 * 10 ** -_PLACES else f"{v:.{_PLACES}f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _interval(low: float, high: float) -> str:
    return "" if math.isnan(low) or math.isnan(high) else f"[{_num(low)}, {_num(high)}]"


def mean_intervals(per_query: pd.DataFrame, names: List[str], columns: List[Column]) -> Dict[Tuple[str, str], Any]:
    """(measure, run) -> the 95% t interval of the run's mean over the queries with a value
    (:func:`ir_rbstar.stats.mean_interval`; None for fewer than 2 values)."""
    from ..stats import mean_interval
    out: Dict[Tuple[str, str], Any] = {}
    for n in names:
        mine = per_query.xs(n, level="run")
        for c in columns:
            values = mine[c.label].dropna().to_numpy()
            out[(c.label, n)] = mean_interval(values, 0.95, method="t") if len(values) >= 2 else None
    return out


def _means_markdown(means: pd.DataFrame, names: List[str], columns: List[Column], baseline: Optional[str],
                    nq: int, answered: Dict[str, int], intervals: Dict[Tuple[str, str], Any]) -> str:
    head = ["measure"] + [f"{n} (baseline)" if n == baseline else n for n in names]
    rows = [["queries with a ranking"] + [str(answered[n]) for n in names]]
    table = means.set_index(["measure", "run"])
    for c in columns:
        cells = []
        for n in names:
            mean, count = table.at[(c.label, n), "mean"], int(table.at[(c.label, n), "queries"])
            text = _num(mean) if count else "-"
            ci = intervals.get((c.label, n))
            if ci is not None and _interval(ci.low, ci.high):
                text += f" {_interval(ci.low, ci.high)}"
            if count and count != nq:
                text += f" (n={count})"
            cells.append(text)
        rows.append([f"`{_cell(c.label)}`"] + cells)
    return _table(head, rows)


def _ranks_markdown(means: pd.DataFrame, names: List[str], columns: List[Column]) -> str:
    head = ["measure"] + names
    table = means.set_index(["measure", "run"])
    rows = []
    for c in columns:
        if not c.better:
            continue
        label = f"`{_cell(c.label)}`" + (" (lower is better)" if c.better == "lower" else "")
        ranks = [table.at[(c.label, n), "rank"] for n in names]
        rows.append([label] + ["" if pd.isna(r) else str(int(r)) for r in ranks])
    return _table(head, rows)


def _signed(v: float) -> str:
    return "" if math.isnan(v) else f"{v:+.{_PLACES}f}"


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


def _robust_markdown(rows: pd.DataFrame) -> str:
    head = ["measure", "upper bound", "run", "queries", "run's mean between", "difference from the baseline between",
            "p (Holm), worst case", "p (Holm), best case", "verdict (A: the run, B: the baseline)"]
    body = []
    for r in rows.itertuples(index=False):
        difference = "" if math.isnan(r.difference_low) else \
            f"[{_signed(r.difference_low)}, {_signed(r.difference_high)}]"
        body.append([f"`{_cell(r.measure)}`", f"`{_cell(r.upper)}`", r.run, str(r.queries),
                     _interval(r.mean_low, r.mean_high), difference, _p(r.pvalue_worst_adjusted),
                     _p(r.pvalue_best_adjusted), r.verdict])
    return _table(head, body, "|---|---|---|---:|---:|---:|---:|---:|---|")


def _pairs_markdown(pairs: pd.DataFrame) -> str:
    """The significant pairs: measure, which run is better, the difference of the means and p."""
    rows = []
    for r in pairs[pairs["reject"].astype(bool)].itertuples(index=False):
        a_wins = (r.difference > 0) == (r.better == "higher")
        winner, loser = (r.run_a, r.run_b) if a_wins else (r.run_b, r.run_a)
        rows.append([_cell(r.measure), f"`{winner}` over `{loser}`", _num(abs(r.difference)), _p(r.pvalue)])
    if not rows:
        return "None."
    return _table(["measure", "better run", "difference of the means", "p"], rows, "|---|---|---:|---:|")


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
    return out


def _matrix_markdown(matrix: pd.DataFrame) -> str:
    head = [""] + [str(c) for c in matrix.columns]
    rows = [[str(i)] + [_num(float(v)) for v in matrix.loc[i]] for i in matrix.index]
    return _table(head, rows)


def _markdown(q: Qrels, qrels: Any, inputs: Dict[str, Any], names: List[str], answered: Dict[str, int],
              reference: Any, ref_tag: Optional[str], baseline: Optional[str], base_tag: Optional[str],
              group_of: Optional[Dict[str, str]], prior_tag: str, columns: List[Column], means: pd.DataFrame,
              sig: Optional[pd.DataFrame], pairs: Optional[pd.DataFrame], matrices: Dict[str, pd.DataFrame],
              pictures: List[Tuple[str, str]],
              notes: List[str], missing: List[str], alpha: float, permutations: int, seed: int,
              defaults: bool, drawing: bool, *, per_query: Optional[pd.DataFrame] = None,
              robust_rows: Optional[pd.DataFrame] = None) -> str:
    from .. import __version__
    nq = len(q.qcodes)
    relevant = int((q.grades >= 1).sum())
    out = ["# Evaluation report", ""]
    low, high = int(q.grades.min()), q.max_grade
    grades = f"grade {low}" if low == high else f"grades {low} to {high}"
    out.append(f"Made by ir_rbstar {__version__}. Qrels: {_describe(qrels)}: {nq:,} queries, {len(q.grades):,} "
               f"judgments ({grades}), {relevant:,} with grade >= 1.")
    out.append("")
    rows = []
    for n in names:
        role = "baseline" if n == baseline else ""
        if group_of is not None:
            role = (role + ", " if role else "") + f"group {group_of[n]}"
        rows.append([n, _describe(inputs[n]), str(answered[n]), role])
    out += [f"Runs ({len(names)}):", "", _table(["run", "from", "queries answered", ""], rows,
                                                 "|---|---|---:|---|"), ""]
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

    intervals = mean_intervals(per_query, names, columns) if per_query is not None else {}
    out += ["## Means", "",
            f"Mean over the queries of the qrels ({nq:,}) that have a value, with its 95% confidence interval "
            "[low, high]: Student's t interval over those queries (mean \u00b1 t(0.975, n - 1) x sd / sqrt(n); "
            "`ir_rbstar.stats.mean_interval`), which treats the queries as a sample from a population of "
            "queries; `(n=...)` where fewer queries have a value (e.g. Twist has none for a query without a "
            "relevant document).", "",
            _means_markdown(means, names, columns, baseline, nq, answered, intervals), ""]

    out += ["## Ranks", "", "Rank of each run by its mean (1 = best; equal means share the best rank). Residuals "
            "and measures against the baseline are not ranked.", "", _ranks_markdown(means, names, columns), ""]

    out += ["## Significance against the baseline", ""]
    if sig is None:
        out += ["No baseline was given (`--baseline NAME`).", ""]
    elif not len(sig):
        out += ["Nothing to test: the baseline is the only run, or no measure is ranked.", ""]
    else:
        m = int(sig["p"].notna().sum())
        out += [f"Paired two-sided randomization test (Fisher's sign-flip test; Smucker, Allan and Carterette, "
                f"CIKM 2007) of the per-query differences run - `{baseline}`: p is the share of the 2^n ways of "
                f"flipping the signs of the n differences whose |mean| is at least the observed one; all 2^n when "
                f"2^n <= {permutations:,}, otherwise {permutations:,} random ones (seed {seed}), p = (b + 1) / "
                f"({permutations:,} + 1). Holm-Bonferroni correction (Holm 1979) over all {m} comparisons "
                f"(every run but the baseline x every ranked measure); \u25b2 / \u25bc: significantly better / "
                f"worse than the baseline at \u03b1 = {alpha:g} after the correction. Only queries with a value "
                f"for both the run and the baseline are paired (the queries column). The effect size d_z = mean(d) "
                f"/ sd(d) of the differences d = run - baseline (paired Cohen's d; negative: the run's values are "
                f"lower, which is better for a lower-is-better measure) says how large a difference is against "
                f"its query-to-query spread, whatever p; its 95% interval is the exact one for normally "
                f"distributed differences, from the noncentral t distribution "
                f"(`ir_rbstar.stats.effect_size_dz_interval`).", "",
                _significance_markdown(sig), ""]
        out += _robust_section(robust_rows, baseline, alpha)

    if pairs is not None:
        out += ["## All pairs of runs", ""]
        out += [f"Randomised Tukey HSD test (Carterette, TOIS 2012) of every pair of runs under every ranked "
                f"measure: {permutations:,} resamples (seed {seed}) permute the runs' values within each query and "
                f"record the range of the runs' means; p = (b + 1) / ({permutations:,} + 1), b the resamples whose "
                f"range is at least the pair's |difference|, family-wise over the pairs of the measure. Only "
                f"queries where every run has a value take part. All pairs with their p in `all_pairs.tsv`; "
                f"significant at \u03b1 = {alpha:g}:", ""]
        out += [_pairs_markdown(pairs), ""]

    if matrices:
        out += ["## Distances between the runs", ""]
        for key, _ in DISTANCES:
            matrix = matrices[key]
            judged = "; judged documents count with their grades" if matrix.attrs["measure"].startswith("MED") else ""
            out += [f"{matrix.attrs['distance']}, mean over the queries (rows: run, columns: the run it is "
                    f"compared with{judged}):", ""]
            out += [_matrix_markdown(matrix) if len(names) <= 12 else f"(in `distance_{key}.tsv`)", ""]

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
