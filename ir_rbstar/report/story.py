"""One report, one story: the verdicts of the report's three tests on the same (run, measure) against the
baseline, side by side, with the reason wherever two of them differ, and the families of their corrections.

The baseline table (sign-flip test, Holm), the all-pairs section (randomised Tukey HSD) and the robust section
(paired t at the bounds, Holm) answer different questions with different tests and families, so they may
differ in *significance* for the same pair and measure; :func:`agreement` names the reason of every such
difference. They must never differ in *direction* (one calls the run better, another worse): that is a
contradiction, which :func:`agreement` flags and the report prints as a warning."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from .mdtable import _cell, _signed, _table

#: the most rows a list of differences between the sections shows; beyond, grouped by reason and measure
LIST_ROWS = 40

#: the words of a verdict: significantly better / worse than the baseline, or no significant difference
BETTER, WORSE, NONE = "better", "worse", ""

_ROBUST = {"A better, robust": BETTER, "B better, robust": WORSE}


def per_measure(sig: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """The baseline table with Holm's correction over a family per measure (the runs compared with the baseline
    under that measure) instead of one over every (run, measure): ``p_holm`` and ``significant`` recomputed, a
    ``family`` column (the measure) added. So whether a run beats the baseline under one measure does not depend
    on how many other measures the report holds (with 58 runs x 10 measures in one family, 10,000 sign flips
    could not reach 0.05 at all)."""
    from .stats import holm
    out = sig.copy()
    out["p_holm"] = np.nan
    for _, idx in out.groupby("measure", sort=False).groups.items():
        out.loc[idx, "p_holm"] = holm(out.loc[idx, "p"].to_numpy(dtype=float))
    sign = np.where(out["better"] == "lower", -1.0, 1.0) * np.sign(out["difference"].to_numpy(dtype=float))
    significant = out["p_holm"].to_numpy() <= alpha
    out["significant"] = np.where(significant & (sign > 0), BETTER, np.where(significant & (sign < 0), WORSE, NONE))
    out["family"] = out["measure"]
    return out


def holm_family(sig: pd.DataFrame) -> Tuple[str, Dict[str, int]]:
    """("measure", sizes) when the baseline table's Holm correction runs over the runs of each measure, ("all",
    {"": size}) when over every comparison of the table: read from a ``family`` column when the table has one,
    else from which of the two reproduces its corrected p-values."""
    from .stats import holm
    tested = sig[sig["p"].notna()]
    if "family" in sig.columns and (sig["family"].astype(str) == sig["measure"].astype(str)).all():
        return "measure", {str(k): int(v) for k, v in tested.groupby("measure", sort=False).size().items()}
    per_measure = tested.groupby("measure", sort=False)
    if len(per_measure) > 1:
        adjusted = pd.concat([pd.Series(holm(g["p"].to_numpy()), index=g.index) for _, g in per_measure])
        if np.allclose(adjusted.reindex(tested.index).to_numpy(), tested["p_holm"].to_numpy(), rtol=1e-12, atol=0):
            return "measure", {str(k): int(len(g)) for k, g in per_measure}
    return "all", {"": int(len(tested))}


def family_sizes(sig: pd.DataFrame) -> pd.Series:
    """The size of the Holm family of every row of the baseline table (NaN where it was not tested)."""
    kind, sizes = holm_family(sig)
    if kind == "measure":
        out = sig["measure"].astype(str).map(sizes).astype(float)
    else:
        out = pd.Series(float(sizes[""]), index=sig.index)
    return out.where(sig["p"].notna())


def unreachable(sig: pd.DataFrame, permutations: Optional[int], alpha: float) -> pd.DataFrame:
    """The comparisons of the baseline table that cannot be significant at ``alpha`` after the correction
    whatever their data: their smallest possible p (:func:`ir_rbstar.report.stats.pvalue_floor`, from the
    number of queries and sign flips) times the size of their family exceeds ``alpha``. Columns run, measure,
    queries, family, floor."""
    family = family_sizes(sig)
    tested = sig["p"].notna()
    n = sig["queries"].to_numpy(dtype=np.int64)
    floors = np.full(len(sig), np.nan)
    for size in family[tested].unique():
        rows = (tested & (family == size)).to_numpy()
        floors[rows] = _floor(n[rows], permutations, int(size), alpha)
    out = pd.DataFrame({"run": sig["run"], "measure": sig["measure"], "queries": sig["queries"],
                        "family": family, "floor": floors})
    return out[tested.to_numpy() & (floors * family.to_numpy() > alpha)].reset_index(drop=True)


def _floor(n: np.ndarray, permutations: Optional[int], family: int, alpha: float) -> np.ndarray:
    from . import stats
    if hasattr(stats, "pvalue_floor"):
        return np.asarray(stats.pvalue_floor(n, permutations, family=family, alpha=alpha), dtype=float)
    r = float(permutations or stats.DEFAULT_PERMUTATIONS)            # older report.stats: the fixed-size test
    nn = n.astype(float)
    return np.where(np.exp2(nn) <= r, np.exp2(1.0 - nn), 1.0 / (r + 1.0))


def _pair_verdicts(pairs: Optional[pd.DataFrame], baseline: str) -> Dict[Tuple[str, str], Tuple[str, int]]:
    """(run, measure) -> (verdict of the run against the baseline in the all-pairs test, its queries)."""
    out: Dict[Tuple[str, str], Tuple[str, int]] = {}
    if pairs is None or not len(pairs):
        return out
    mine = pairs[(pairs["run_a"] == baseline) | (pairs["run_b"] == baseline)]
    for r in mine.itertuples(index=False):
        run = r.run_b if r.run_a == baseline else r.run_a
        diff = r.difference if r.run_a == run else -r.difference       # run - baseline
        up = diff > 0 if r.better == "higher" else diff < 0
        verdict = (BETTER if up else WORSE) if bool(r.reject) and diff != 0 else NONE
        out[(run, r.measure)] = (verdict, int(r.queries))
    return out


def _robust_verdicts(robust_rows: Optional[pd.DataFrame]) -> Dict[Tuple[str, str], str]:
    if robust_rows is None or not len(robust_rows):
        return {}
    return {(r.run, r.measure): _ROBUST.get(r.verdict, NONE) for r in robust_rows.itertuples(index=False)}


def _aux_dependent(robust_rows: Optional[pd.DataFrame]) -> Optional[Dict[Tuple[str, str], str]]:
    """(run, measure) -> the robust verdict with the human judgments alone, for the verdicts that depend on the
    auxiliary judgments (:mod:`.aux`); None when the report has no auxiliary judgments."""
    if robust_rows is None or "depends_on_aux" not in robust_rows.columns:
        return None
    return {(r.run, r.measure): _ROBUST.get(r.verdict_human, NONE)
            for r in robust_rows.itertuples(index=False) if r.depends_on_aux}


def agreement(sig: pd.DataFrame, pairs: Optional[pd.DataFrame], robust_rows: Optional[pd.DataFrame],
              baseline: str, runs: int) -> pd.DataFrame:
    """Every (run, measure) of the baseline table with the verdicts of the sections that test it: ``table``
    (the baseline table), ``pairs`` (all pairs; None: not tested there), ``robust`` (None: no bounds for the
    measure); with auxiliary judgments (:mod:`.aux`) also ``robust_human`` (the robust verdict with the human
    judgments alone) and ``depends_on_aux`` (the robust verdict differs from it); ``contradiction`` (True: two
    sections disagree in direction) and ``why``: empty where the sections agree, else the reason they differ.
    ``runs``: how many runs the report compares (the all-pairs
    family is their pairs)."""
    kind, sizes = holm_family(sig)
    family = family_sizes(sig)
    paired = _pair_verdicts(pairs, baseline)
    robust = _robust_verdicts(robust_rows)
    dependent = _aux_dependent(robust_rows)
    n_pairs = runs * (runs - 1) // 2
    rows: List[Dict[str, Any]] = []
    for i, r in enumerate(sig.itertuples(index=False)):
        table = r.significant or NONE
        pair, pair_queries = paired.get((r.run, r.measure), (None, None))
        rob = robust.get((r.run, r.measure))
        said = {name: v for name, v in (("table", table), ("pairs", pair), ("robust", rob)) if v is not None}
        directions = {v for v in said.values() if v}
        contradiction = len(directions) > 1
        why: List[str] = []
        if contradiction:
            why.append("CONTRADICTION: " + ", ".join(f"{k} says {v or 'no difference'}" for k, v in said.items()))
        if pair is not None and pair != table:
            m = "" if np.isnan(family.iloc[i]) else f"{int(family.iloc[i])} "
            size = None if np.isnan(family.iloc[i]) else int(family.iloc[i])
            larger = table and not pair and size is not None and n_pairs > size
            why.append(f"all pairs: another test and family (randomised Tukey HSD over the {n_pairs:,} pairs of the "
                       f"{runs} runs, which judges a difference against the range of all runs' means when the values "
                       f"are permuted within each query; the significance table: the sign-flip test of this pair's "
                       f"own differences, Holm over {m}comparisons)"
                       + (": the larger family needs a larger difference" if larger else ""))
            if pair_queries is not None and pair_queries != int(r.queries):
                why.append(f"all pairs uses the {pair_queries} queries every run has a value for, the baseline "
                           f"table the {int(r.queries)} this pair has")
        if rob is not None and rob != table:
            why.append("robust: tests the bounds of the values (the extremes the unjudged documents or tied "
                       "scores allow) with the paired t test, Holm over the runs of the measure; the baseline "
                       "table tests the values as evaluated with the sign-flip test")
        row = {"run": r.run, "measure": r.measure, "table": table, "pairs": pair, "robust": rob,
               "contradiction": contradiction, "why": "; ".join(why)}
        if dependent is not None:
            row["robust_human"] = dependent.get((r.run, r.measure), rob)
            row["depends_on_aux"] = (r.run, r.measure) in dependent
        rows.append(row)
    names = ["run", "measure", "table", "pairs", "robust", "contradiction", "why"]
    return pd.DataFrame(rows, columns=names + ([] if dependent is None else ["robust_human", "depends_on_aux"]))


# ---------------------------------------------------------------------------------------------
# the words of report.md

def _significance_grid(sig: pd.DataFrame, names: List[str], baseline: Optional[str]) -> str:
    """Runs (rows) x measures: the difference run - baseline, with \u25b2 / \u25bc where significant."""
    marks = {"better": " \u25b2", "worse": " \u25bc", "": ""}
    measures = list(dict.fromkeys(sig["measure"]))
    cell = {(r.run, r.measure): _signed(r.difference) + marks[r.significant or ""] for r in sig.itertuples(index=False)}
    labels = {r.measure: f"`{_cell(r.measure)}`" + (" (lower is better)" if r.better == "lower" else "")
              for r in sig.itertuples(index=False)}
    rows = [[n] + [cell.get((n, m), "") for m in measures] for n in names if n != baseline]
    return _table(["run"] + [labels[m] for m in measures], rows)

def _resamples(permutations: Optional[int]) -> str:
    from .stats import DEFAULT_PERMUTATIONS
    return f"{permutations if permutations is not None else DEFAULT_PERMUTATIONS:,}"

def _agreement_section(sig: pd.DataFrame, pairs: Optional[pd.DataFrame], robust_rows: Optional[pd.DataFrame],
                       baseline: str, runs: int) -> List[str]:
    """Do the baseline table, the all-pairs section and the robust section tell one story? Their verdicts on
    every (run, measure) against the baseline, and why they differ where they do."""
    table = agreement(sig, pairs, robust_rows, baseline, runs)
    out = ["## Do the sections agree?", ""]
    sections = ["The significance table"] + (["all pairs"] if pairs is not None and len(pairs) else []) + \
        (["the robust verdicts"] if robust_rows is not None and len(robust_rows) else [])
    if len(sections) < 2:
        return []
    differ = table[table["why"] != ""]
    clash = table[table["contradiction"]]
    out.append(f"{', '.join(sections[:-1])} and {sections[-1]} each judge every run against `{baseline}` "
               f"(the robust verdicts on the measures with bounds). They use different tests and families, so they "
               f"may differ in significance for the same run and measure, never in direction. Of the "
               f"{len(table):,} (run, measure) comparisons, {len(table) - len(differ):,} get the same verdict from "
               f"every section that tests them; {len(differ) - len(clash):,} differ in significance only, for the "
               f"reason given below; " + (f"**{len(clash)} contradict each other in direction** (listed first)."
                                           if len(clash) else "none contradicts another in direction."))
    out.append("")
    names_of = {"better": "better", "worse": "worse", "": "no difference"}

    def word(v: Any) -> str:
        if isinstance(v, str) and v.endswith("\u2020"):
            return v
        return names_of.get(v, "not tested") if isinstance(v, str) else "not tested"
    if "depends_on_aux" in table.columns:          # [29a] the robust verdicts that hold only with the aux judgments
        from .aux import MARK
        dep = table[table["depends_on_aux"].astype(bool)]
        out += [f"{MARK} With the auxiliary judgments: **{len(dep):,} of the {int(table['robust'].notna().sum()):,} "
                f"robust verdicts {'depends' if len(dep) == 1 else 'depend'} on them** (with the human judgments "
                f"alone the robust verdict differs); the significance table and the all-pairs test of the measures "
                f"with auxiliary judgments use the merged "
                f"judgments too." + (" They are:" if 0 < len(dep) <= LIST_ROWS else ""), ""]
        if 0 < len(dep) <= LIST_ROWS:
            out += [_table(["run", "measure", "robust, with the auxiliary judgments", "robust, human judgments only"],
                           [[r.run, f"`{_cell(r.measure)}`", word(r.robust), word(r.robust_human)]
                            for r in dep.itertuples(index=False)], "|---|---|---|---|"), ""]
        table = table.assign(robust=[(word(v) + f" {MARK}") if d else v
                                     for v, d in zip(table["robust"], table["depends_on_aux"], strict=True)])
        differ = table[table["why"] != ""]
        clash = table[table["contradiction"]]
    if not len(differ):
        return out
    ordered = pd.concat([clash, differ[~differ["contradiction"]]])
    if len(ordered) <= LIST_ROWS:
        rows = [[r.run, f"`{_cell(r.measure)}`", word(r.table), word(r.pairs), word(r.robust), _cell(r.why)]
                for r in ordered.itertuples(index=False)]
        out += [_table(["run", "measure", "significance table", "all pairs", "robust", "why they differ"], rows,
                       "|---|---|---|---|---|---|"), ""]
        return out
    rows = []
    keys = ordered.assign(**{k: ordered[k].map(word) for k in ("table", "pairs", "robust")})
    for (measure, table_says, pairs_say, robust_says, why), group in keys.groupby(
            ["measure", "table", "pairs", "robust", "why"], sort=False):
        rows.append([f"`{_cell(measure)}`", ", ".join(f"`{n}`" for n in group["run"]), table_says, pairs_say,
                     robust_says, _cell(why)])
    out += [_table(["measure", "runs", "significance table", "all pairs", "robust", "why they differ"], rows,
                   "|---|---|---|---|---|---|"), ""]
    return out

def _flips_text(permutations: Optional[int], seed: int) -> str:
    if permutations is None:
        return ("all 2^n when there are few queries, otherwise random ones (seed "
                f"{seed}), as many as the comparison needs to be decided against the corrected threshold "
                "(adaptive: 10,000 first, more only near the threshold; `ir_rbstar.report.randomization_pvalues`), "
                "p = (b + 1) / (R + 1) with b of its R flips at least as extreme.")
    return (f"all 2^n when 2^n <= {permutations:,}, otherwise {permutations:,} random ones (seed {seed}), "
            f"p = (b + 1) / ({permutations:,} + 1), b the flips at least as extreme.")

def _family_text(sig: pd.DataFrame, runs: int) -> str:
    """The family of the baseline table's Holm correction, in words."""
    kind, sizes = holm_family(sig)
    if kind == "measure":
        size = max(sizes.values()) if sizes else 0
        return (f"Holm-Bonferroni correction (Holm 1979) over the {size} runs compared with the baseline, per "
                f"measure (a family per measure: whether a run beats the baseline under one measure does not "
                f"depend on how many other measures the report holds).")
    return (f"Holm-Bonferroni correction (Holm 1979) over all {sizes.get('', 0)} comparisons of the table (every "
            f"run but the baseline x every ranked measure, one family).")

def _reach_warning(sig: pd.DataFrame, permutations: Optional[int], alpha: float) -> List[str]:
    """A plain warning when some comparisons cannot be significant after the correction whatever their data."""
    bad = unreachable(sig, permutations, alpha)
    if not len(bad):
        return []
    worst = bad.iloc[int(np.argmax((bad["floor"] * bad["family"]).to_numpy()))]
    return [f"**Warning:** {len(bad):,} of the {int(sig['p'].notna().sum()):,} comparisons cannot be significant at "
            f"\u03b1 = {alpha:g} after the correction, whatever their data: with {int(worst['queries'])} queries the "
            f"smallest p the test can give is {worst['floor']:.2g}, and x {int(worst['family'])} (the family) it "
            f"exceeds \u03b1. Give more `--permutations` (or compare fewer runs); an empty \u25b2 / \u25bc there "
            f"says nothing.", ""]
