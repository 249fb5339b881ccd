#!/usr/bin/env python3
"""The evaluation report of the 37 TREC DL 2019 passage runs: intervals, all-pairs tests, robust verdicts.

Runs ``ir-rbstar report`` (:func:`ir_rbstar.report.build_report`) on ``<data-dir>/qrels.dl19-passage.txt``
and every run of ``<data-dir>/runs/*.gz``, with ``bm25base_p`` (Anserini's BM25 with default parameters) as
the baseline, the groups of ``<data-dir>/run_groups.tsv`` (converted to the report's ``run<TAB>group``
lines in a temporary file) and the measures of :data:`MEASURES` (binary measures at grade >= 2, as DL19's
grade 1 means "related"), into ``--output`` (default ``/tmp/ir_rbstar_report_dl19``; the run files and
the per-query values stay there, never in the repository). From the files it writes, the script
condenses the block of ``docs/report_dl19.md``: the command, the means with their 95% intervals of the
best runs, the comparisons with the baseline (p, d_z and its interval), how many pairs of runs each test
separates, the robust verdicts, and ``results.tex``.

    python -m scripts.report_dl19            # print
    python -m scripts.report_dl19 --write    # update docs/report_dl19.md

The runs are NIST submissions that may not be copied into this repository; they are only read from
``../shared/data/dl19-passage`` (or ``--data-dir``). Takes about a minute.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

import numpy as np
import pandas as pd

# _docblock: what the report scripts share (the docs' marker block, --write/--doc)
if __package__:      # python -m scripts.report_dl19 (from the repository root), or imported as scripts.report_dl19
    from . import _docblock
else:                # python scripts/report_dl19.py: this file's folder is the first entry of the path
    import _docblock

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = _docblock.SHARED_DATA / "dl19-passage"
DEFAULT_OUTPUT = Path(tempfile.gettempdir()) / "ir_rbstar_report_dl19"
DOC = REPO / "docs" / "report_dl19.md"
QRELS_FILE = "qrels.dl19-passage.txt"
GROUPS_FILE = "run_groups.tsv"
BASELINE = "bm25base_p"
START, END, generated_block, replace_block = _docblock.markers("report-dl19")

#: the report's measures: graded nDCG and RBP on DL19's scale 0-3, binary ones at grade >= 2; nDCG_TA@10
#: with its worst and best tie order and RBP with its residual give the bounds of the robust verdicts
MEASURES = ("nDCG@10 nDCG_TA@10 nDCG_TA(stat='min')@10 nDCG_TA(stat='max')@10 P(rel=2)@10 AP(rel=2) "
            "AP_TA(rel=2) RR(rel=2) R(rel=2)@1000 RBP(p=0.8,max_rel=3) RBP_res(p=0.8) Twist "
            f"NRG(prior='others')@10 MED_nDCG(ref='{BASELINE}',max_rel=3)@10 1-RBO(p=0.9,ref='{BASELINE}')")
#: the columns of the means table in the page (the full table is in results.tex)
SHOWN = ["nDCG@10", "P(rel=2)@10", "AP(rel=2)", "RR(rel=2)", "RBP(p=0.8,max_rel=3)"]
TOP = 10
PLACES = 4


def groups_file(data_dir: Path, target: Path) -> Path:
    """run_groups.tsv (a header, then run, group and more columns) as ``run<TAB>group`` lines in ``target``."""
    table = pd.read_csv(data_dir / GROUPS_FILE, sep="\t", dtype=str)
    target.write_text("".join(f"{r}\t{g}\n" for r, g in zip(table["run"], table["group"], strict=True)))
    return target


def command(data: str = "$DL19") -> str:
    """The ``ir-rbstar report`` command the script runs (``data`` for the data folder)."""
    return (f"ir-rbstar report {data}/{QRELS_FILE} {data}/runs/*.gz --baseline {BASELINE} \\\n"
            f"    --groups groups.tsv --max-rel 3 --no-pictures --output /tmp/ir_rbstar_report_dl19 \\\n"
            f"    --measures \"{MEASURES}\"")


def make_report(data_dir: Path, out: Path) -> pd.DataFrame:
    """build_report as :func:`command` runs it; returns its per-query values."""
    from ir_rbstar.report import build_report
    runs = sorted(str(p) for p in (data_dir / "runs").glob("*.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        groups = groups_file(data_dir, Path(tmp) / "groups.tsv")
        return build_report(str(data_dir / QRELS_FILE), runs, out, baseline=BASELINE, groups=str(groups),
                            measures=MEASURES, max_rel=3, pictures=False)


def _f(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{PLACES}f}"


def _s(x: float) -> str:
    return "" if np.isnan(x) else f"{x:+.{PLACES}f}"


def _p(x: float) -> str:
    return "" if np.isnan(x) else (f"{x:.1e}" if x < 0.5 * 10 ** -PLACES else f"{x:.{PLACES}f}")


def means_table(out: Path) -> str:
    """The best runs by nDCG@10 and the baseline: mean [95% interval] of :data:`SHOWN`, from results.json."""
    cells = pd.DataFrame(json.loads((out / "results.json").read_text())["cells"])
    by = cells.set_index(["run", "measure"])
    order = cells[cells["measure"] == "nDCG@10"].sort_values(["mean", "run"], ascending=[False, True])["run"].tolist()
    runs = order[:TOP] + ([BASELINE] if BASELINE not in order[:TOP] else [])
    rows = []
    for run in runs:
        row = [f"`{run}`" + (" (baseline)" if run == BASELINE else "")]
        for m in SHOWN:
            c = by.loc[(run, m)]
            mark = {"better": " \u25b2", "worse": " \u25bc"}.get(c.get("direction") or "", "")
            row.append(f"{_f(c['mean'])} [{_f(c['low'])}, {_f(c['high'])}]{mark}")
        rows.append(row)
    head = ["run (top 10 by nDCG@10)"] + [f"`{m}`" for m in SHOWN]
    return _docblock.md_table(head, "|---|" + "---:|" * len(SHOWN), rows)


def baseline_table(out: Path) -> str:
    """nDCG@10 against the baseline for the same runs: difference, p, p (Holm), d_z [95%], from significance.tsv."""
    sig = pd.read_csv(out / "significance.tsv", sep="\t", keep_default_na=False, na_values=[""],
                      dtype={"run": str, "significant": str})
    rows = sig[sig["measure"] == "nDCG@10"].sort_values(["run_mean", "run"], ascending=[False, True]).head(TOP)
    body = [[f"`{r.run}`", _s(r.difference), _p(r.p), _p(r.p_holm), _s(r.d_z), f"[{_s(r.d_z_low)}, {_s(r.d_z_high)}]"]
            for r in rows.itertuples(index=False)]
    return _docblock.md_table(["run", "nDCG@10 difference", "p", "p (Holm)", "d_z", "d_z 95% interval"],
                              "|---|---:|---:|---:|---:|---:|", body)


def pairs_table(out: Path, per_query: pd.DataFrame) -> str:
    """Per ranked measure: pairs of runs separated by the randomised Tukey HSD (all_pairs.tsv) and by the
    paired t test with Holm's correction over the pairs (ir_rbstar.stats.all_pairs on the same frames)."""
    from ir_rbstar.stats import all_pairs
    tukey = pd.read_csv(out / "all_pairs.tsv", sep="\t", dtype={"run_a": str, "run_b": str})
    names = list(dict.fromkeys(per_query.index.get_level_values("run")))
    rows = []
    for measure, part in tukey.groupby("measure", sort=False):
        frame = per_query[measure].unstack("query_id").reindex(names).dropna(axis=1)
        t = all_pairs(frame, test="t", correction="holm", effect_ci=None)
        rows.append([f"`{measure}`", f"{len(part):,}", str(int(part["reject"].sum())), str(int(t["reject"].sum()))])
    return _docblock.md_table(["measure", "pairs", "randomised Tukey HSD", "paired t + Holm"],
                              "|---|---:|---:|---:|", rows)


def robust_lines(out: Path) -> List[str]:
    """The robust verdicts: counts per measure, and every run whose verdict is not 'A better, robust' or
    'no conclusion'."""
    rob = pd.read_csv(out / "robust.tsv", sep="\t", dtype={"run": str})
    verdicts = list(dict.fromkeys(["A better, robust", "A better only if the unknown favours A", "no conclusion",
                                   "B better only if the unknown favours B", "B better, robust"]))
    counts = rob.groupby(["measure", "verdict"], sort=False).size().unstack(fill_value=0)
    rows = [[f"`{m}`", f"`{rob[rob['measure'] == m]['upper'].iloc[0]}`"]
            + [str(int(counts.at[m, v])) if v in counts.columns else "0" for v in verdicts] for m in counts.index]
    lines = [_docblock.md_table(["measure", "upper bound"] + verdicts, "|---|---|" + "---:|" * len(verdicts), rows), ""]
    rare = rob[~rob["verdict"].isin(["A better, robust", "no conclusion"])]
    for r in rare.itertuples(index=False):
        lines.append(f"- `{r.measure}`, `{r.run}`: {r.verdict}; mean difference from the baseline between "
                     f"{_s(r.difference_low)} and {_s(r.difference_high)}, p (Holm) {_p(r.pvalue_worst_adjusted)} "
                     f"in the worst case for the run, {_p(r.pvalue_best_adjusted)} in the best.")
    return lines


def report(out: Path, per_query: pd.DataFrame) -> str:
    """The generated block of docs/report_dl19.md, from the files of the report in ``out``."""
    runs = per_query.index.get_level_values("run").nunique()
    queries = per_query.index.get_level_values("query_id").nunique()
    parts = ["```sh", "# DL19: the folder of the TREC DL 2019 passage data (NIST runs, not redistributed)",
             "# groups.tsv: run<TAB>group, the first two columns of its run_groups.tsv", command(), "```", "",
             f"{runs} runs, {queries} judged queries. The means with their 95% intervals over the queries (BCa "
             f"bootstrap, within [0, 1]) of the ten best runs by nDCG@10 and of the baseline (\u25b2 / \u25bc: "
             f"significantly better / worse than `{BASELINE}` by the randomization test, Holm over the runs of each "
             f"measure):", "",
             means_table(out), "",
             "Against the baseline, nDCG@10 (p: randomization test; d_z with its noncentral-t interval):", "",
             baseline_table(out), "",
             f"Pairs of runs that differ significantly at 0.05, of the {runs * (runs - 1) // 2:,} pairs, per measure:",
             "", pairs_table(out, per_query), "",
             f"Robust verdicts, each run (A) against `{BASELINE}` (B) over the bounds (number of runs):", ""]
    parts += robust_lines(out)
    parts += ["", "`results.tex`, the full table for a paper (booktabs):", "", "```latex",
              (out / "results.tex").read_text().rstrip("\n"), "```"]
    return "\n".join(parts)


def main(argv: Optional[List[str]] = None) -> int:
    parser = _docblock.report_parser(
        __doc__, "--data-dir", DEFAULT_DATA,
        "folder with qrels.dl19-passage.txt, run_groups.tsv and runs/*.gz (default: %(default)s)", DOC, REPO)
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="the report's folder (default: %(default)s)")
    args = parser.parse_args(argv)
    data_dir = Path(args.data_dir)
    if _docblock.data_missing([data_dir / QRELS_FILE, data_dir / GROUPS_FILE, data_dir / "runs"]):
        return 2
    out = Path(args.output)
    per_query = make_report(data_dir, out)
    return _docblock.print_report(args, report(out, per_query), START, END)


if __name__ == "__main__":
    sys.exit(main())
