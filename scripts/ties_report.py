#!/usr/bin/env python3
"""How much do tied scores matter on real runs? A table over the 37 TREC DL 2019 passage runs.

For every run of ``<data-dir>/runs/*.gz`` and every judged query of ``<data-dir>/qrels.dl19-passage.txt``
(the qrels define the query set: 43 queries) the script computes

* whether the query has a tie inside the top 10: some tie group (documents of equal score) of size >= 2
  has a member at rank <= 10, i.e. starts at rank <= 10; only such a group can change an @10 measure;
* whether the query has a tie inside the top 1000: some tie group of size >= 2 anywhere in the run's
  ranking of the query (every DL19 run retrieves at most 1000 documents per query);
* three measures twice: tie-aware with this package (``nDCG_TA@10``, ``AP_TA(rel=2)``,
  ``RR_TA(rel=2)``, the mean over every ordering of the tie groups) and in trec_eval's order (ties
  broken by document id, descending) with ir_measures' pytrec_eval provider (``nDCG@10``, ``AP(rel=2)``,
  ``RR(rel=2)``). nDCG is graded (gain = grade); AP and RR count grades >= 2 as relevant (grade 1 is
  "related" in DL19).
* the same tie-aware measures with ``stat='min'`` and ``stat='max'``: their value for the worst and the
  best order of the tie groups, so the table says how far the extreme orders can move a run's mean.

:func:`ties_table` condenses this to one row per run: the two query counts, and per measure the
difference of the run's means (tie-aware minus trec_eval order) and the largest per-query absolute
difference with its query, and the range of the run's mean between the worst and the best order of its
ties (mean of ``stat='max'`` minus mean of ``stat='min'``). :func:`summary_lines` gives the headline
numbers. ``main`` prints both as Markdown, and with ``--write`` replaces the block between the marker
comments of ``docs/ties.md``.

    python -m scripts.ties_report            # print
    python -m scripts.ties_report --write    # update docs/ties.md

The runs are NIST submissions that may not be copied into this repository; they are only read from
``../shared/data/dl19-passage`` (or ``--data-dir``).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Tuple

import numpy as np
import pandas as pd

import ir_measures
import ir_rbstar
from ir_rbstar.dicts import ranking_dict
from ir_rbstar.io import QUERY_IDS, Ranking

# _docblock: what the report scripts share (the docs' marker block, --write/--doc)
if __package__:      # python -m scripts.ties_report (from the repository root), or imported as scripts.ties_report
    from . import _docblock
else:                # python scripts/ties_report.py: this file's folder is the first entry of the path
    import _docblock

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = _docblock.SHARED_DATA / "dl19-passage"
DOC = REPO / "docs" / "ties.md"
QRELS_FILE = "qrels.dl19-passage.txt"
START, END, generated_block, replace_block = _docblock.markers("ties-table")

#: (short name, tie-aware measure, trec_eval-order measure, depth whose ties can change it)
MEASURES = [
    ("nDCG@10", "nDCG_TA@10", "nDCG@10", 10),
    ("AP", "AP_TA(rel=2)", "AP(rel=2)", 1000),
    ("RR", "RR_TA(rel=2)", "RR(rel=2)", 1000),
]
DEPTHS = (10, 1000)
NOISE = 1e-12      # |differences| below this are floating-point noise between two implementations: 0
PLACES = 4


def _tie_flags(ranking, keep_seg: np.ndarray) -> pd.DataFrame:
    """Per judged query of the run: does a tie group of size >= 2 reach into the top d (d in DEPTHS)?"""
    seg = ranking.row_segments()
    start, size = ranking.tie_groups()
    tied = (size >= 2) & keep_seg[seg]
    nseg = len(ranking.qcodes)
    flags = {}
    for d in DEPTHS:
        # a group reaches into the top d iff it starts there; its first row is then at pos < d
        hit = tied & (start < d)
        flags[f"tie@{d}"] = np.bincount(seg[hit], minlength=nseg) > 0
    frame = pd.DataFrame(flags)
    frame["query_id"] = QUERY_IDS.decode(ranking.qcodes)
    return frame[keep_seg]


def _values(evaluator, run: pd.DataFrame, labels: dict) -> pd.DataFrame:
    """Per-query values (one column per measure label) of one evaluator on one run."""
    rows = [(m.query_id, labels[m.measure], m.value) for m in evaluator.iter_calc(run)]
    frame = pd.DataFrame(rows, columns=["query_id", "measure", "value"])
    return frame.pivot(index="query_id", columns="measure", values="value")


def judged_runs(data_dir, judged) -> Iterator[Tuple[str, Ranking, np.ndarray, pd.DataFrame]]:
    """For every ``runs/*.gz`` of ``data_dir`` (by name): the run's name, its :class:`Ranking` (all
    queries), which of its queries are in ``judged``, and the rows of those queries as a DataFrame
    ``query_id, doc_id, score`` (in trec_eval order)."""
    runs = sorted(Path(data_dir, "runs").glob("*.gz"))
    if not runs:
        raise FileNotFoundError(f"no runs (*.gz) in {Path(data_dir, 'runs')}")
    for path in runs:
        ranking = _docblock.read_ranking(path)
        keep_seg = np.isin(QUERY_IDS.decode(ranking.qcodes), judged)
        frame = _docblock.judged_frame(ranking, judged)
        yield path.name[:-len(".gz")], ranking, keep_seg, frame


def per_query(data_dir=DEFAULT_DATA, runs: Optional[Iterable[Tuple[str, Ranking, np.ndarray, pd.DataFrame]]] = None
              ) -> pd.DataFrame:
    """One row per (run, judged query): ``run, query_id, tie@10, tie@1000`` and for every measure
    ``<name> TA`` (tie-aware), ``<name> TE`` (trec_eval order), ``<name> diff`` (TA - TE; exactly 0
    where the two agree up to floating-point noise), ``<name> min`` and ``<name> max`` (the worst and
    the best order of the ties). ``runs``: what :func:`judged_runs` yields for ``data_dir``, when the
    caller has read the runs already (the tests use them again); read here otherwise."""
    data_dir = Path(data_dir)
    qrels = ir_rbstar.read_qrels(data_dir / QRELS_FILE)
    judged = pd.unique(qrels["query_id"])
    aware = {ir_measures.parse_measure(ta): name for name, ta, _, _ in MEASURES}
    for m, name in list(aware.items()):
        aware[m(stat="min")], aware[m(stat="max")] = f"{name} min", f"{name} max"
    ordered = {ir_measures.parse_measure(te): name for name, _, te, _ in MEASURES}
    # qrels converted once per evaluator; trec_eval order from pytrec_eval itself, not from ir_rbstar
    aware_eval = ir_measures.evaluator(list(aware), qrels)
    ordered_eval = ir_measures.pytrec_eval.evaluator(list(ordered), qrels)
    parts = []
    for run_name, ranking, keep_seg, run in (judged_runs(data_dir, judged) if runs is None else runs):
        ta = _values(aware_eval, run, aware)
        te = _values(ordered_eval, ranking_dict(ranking, judged), ordered)
        frame = pd.DataFrame({"query_id": judged})
        frame = frame.merge(_tie_flags(ranking, keep_seg), on="query_id", how="left")
        frame[["tie@10", "tie@1000"]] = frame[["tie@10", "tie@1000"]].fillna(False).astype(bool)
        for name, *_ in MEASURES:
            frame[f"{name} TA"] = frame["query_id"].map(ta[name]).fillna(0.0)
            frame[f"{name} min"] = frame["query_id"].map(ta[f"{name} min"]).fillna(0.0)
            frame[f"{name} max"] = frame["query_id"].map(ta[f"{name} max"]).fillna(0.0)
            # pytrec_eval leaves out queries missing from the run; ir_measures' default for them is 0
            frame[f"{name} TE"] = frame["query_id"].map(te[name]).fillna(0.0)
            diff = frame[f"{name} TA"] - frame[f"{name} TE"]
            frame[f"{name} diff"] = diff.where(diff.abs() >= NOISE, 0.0)
        frame.insert(0, "run", run_name)
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def _largest(group: pd.DataFrame, name: str) -> pd.Series:
    """The query with the largest |difference| (among equal ones the lowest id, compared as text)."""
    absdiff = group[f"{name} diff"].abs().round(12)
    order = pd.DataFrame({"a": absdiff, "q": group["query_id"]}).sort_values(["a", "q"], ascending=[False, True])
    i = order.index[0]
    return pd.Series({"max": group.at[i, f"{name} diff"], "query": group.at[i, "query_id"]})


def table_from(pq: pd.DataFrame) -> pd.DataFrame:
    """One row per run from :func:`per_query`'s rows, sorted by the largest per-query difference of
    any measure (descending), then by the ties in the top 10 and in the top 1000, then by run name."""
    groups = pq.groupby("run", sort=True)
    table = pd.DataFrame({"queries": groups.size(),
                          "ties@10": groups["tie@10"].sum(), "ties@1000": groups["tie@1000"].sum()})
    for name, *_ in MEASURES:
        diff_mean = groups[f"{name} TA"].mean() - groups[f"{name} TE"].mean()
        table[f"{name} mean diff"] = diff_mean.where(diff_mean.abs() >= NOISE, 0.0)
        largest = groups[["query_id", f"{name} diff"]].apply(_largest, name=name)
        table[f"{name} max diff"] = largest["max"].astype(float)
        table[f"{name} max query"] = largest["query"]
        spread = groups[f"{name} max"].mean() - groups[f"{name} min"].mean()
        table[f"{name} range"] = spread.where(spread.abs() >= NOISE, 0.0)
    worst = table[[f"{name} max diff" for name, *_ in MEASURES]].abs().max(axis=1).round(12)
    table = table.assign(_worst=worst).reset_index()
    table = table.sort_values(["_worst", "ties@10", "ties@1000", "run"], ascending=[False, False, False, True])
    return table.drop(columns="_worst").reset_index(drop=True)


def ties_table(data_dir=DEFAULT_DATA) -> pd.DataFrame:
    """The per-run table (see the module docstring) over the DL19 runs in ``data_dir``."""
    return table_from(per_query(data_dir))


def _num(x: float) -> str:
    """A signed difference: 0 when there is none, 4 decimals, or 2 significant digits when it is tiny."""
    if x == 0:
        return "0"
    if abs(x) < 0.5 * 10 ** -PLACES:
        return f"{x:+.1e}"
    return f"{x:+.{PLACES}f}"


def markdown_table(table: pd.DataFrame) -> str:
    n = int(table["queries"].max())
    head = ["run", f"ties@10 (of {n})", f"ties@1000 (of {n})"]
    for name, *_ in MEASURES:
        head += [f"{name} mean diff", f"{name} max diff (query)", f"{name} range"]
    lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|" + "---:|" * (3 * len(MEASURES))]
    for row in table.itertuples(index=False):
        r = dict(zip(table.columns, row, strict=True))
        cells = [f"`{r['run']}`", str(int(r["ties@10"])), str(int(r["ties@1000"]))]
        for name, *_ in MEASURES:
            mx = r[f"{name} max diff"]
            cells.append(_num(r[f"{name} mean diff"]))
            cells.append("0" if mx == 0 else f"{_num(mx)} ({r[f'{name} max query']})")
            cells.append("0" if r[f"{name} range"] == 0 else f"{r[f'{name} range']:.{PLACES}f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary_lines(pq: pd.DataFrame, table: pd.DataFrame) -> List[str]:
    nruns, nq = len(table), int(table["queries"].max())
    pairs = len(pq)
    out = [
        f"- {int((table['ties@10'] > 0).sum())} of {nruns} runs have a tie inside the top 10 of at least one "
        f"judged query ({int(pq['tie@10'].sum())} of {pairs} run-query pairs); "
        f"{int((table['ties@1000'] > 0).sum())} runs have a tie somewhere in their ranking of at least one "
        f"query ({int(pq['tie@1000'].sum())} pairs); "
        f"{int((table['ties@1000'] == 0).sum())} runs have no tie at all in the {nq} judged queries.",
    ]
    for name, ta, te, _ in MEASURES:
        diff = pq[f"{name} diff"]
        changed = int((diff != 0).sum())
        if changed == 0:
            out.append(f"- {name}: tie-aware and trec_eval order agree on every run and query.")
            continue
        order = pd.DataFrame({"a": diff.abs().round(12), "r": pq["run"], "q": pq["query_id"]})
        i = order.sort_values(["a", "r", "q"], ascending=[False, True, True]).index[0]
        row = pq.loc[i]
        means = table[f"{name} mean diff"]
        j = means.abs().round(12).sort_values(ascending=False, kind="stable").index[0]
        out.append(
            f"- {name}: {changed} run-query pairs differ. Largest: `{row['run']}`, query {row['query_id']}: "
            f"`{ta}` = {row[f'{name} TA']:.{PLACES}f}, `{te}` = {row[f'{name} TE']:.{PLACES}f} "
            f"({_num(row[f'{name} diff'])}). Largest change of a run's mean: `{table.at[j, 'run']}`, "
            f"{_num(means[j])}.")
    widest = [(table[f"{name} range"].max(), name, table.at[table[f"{name} range"].idxmax(), "run"])
              for name, *_ in MEASURES]
    out.append("- Range: how far the worst and the best order of a run's ties move its mean (`stat='min'` and "
               "`stat='max'` of the tie-aware measure). Widest: "
               + "; ".join(f"{name} {w:.{PLACES}f} (`{run}`)" for w, name, run in widest) + ".")
    return out


def report(pq: pd.DataFrame, table: Optional[pd.DataFrame] = None) -> str:
    """The generated Markdown block (summary and table) that goes between the markers of docs/ties.md."""
    table = table_from(pq) if table is None else table
    return "\n".join(summary_lines(pq, table)) + "\n\n" + markdown_table(table)


def main(argv: Optional[List[str]] = None) -> int:
    parser = _docblock.report_parser(
        __doc__, "--data-dir", DEFAULT_DATA, "folder with qrels.dl19-passage.txt and runs/*.gz (default: %(default)s)",
        DOC, REPO)
    args = parser.parse_args(argv)
    data_dir = Path(args.data_dir)
    if _docblock.data_missing([data_dir / QRELS_FILE]):
        return 2
    return _docblock.print_report(args, report(per_query(data_dir)), START, END)


if __name__ == "__main__":
    sys.exit(main())
