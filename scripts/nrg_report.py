#!/usr/bin/env python3
"""NRG on TREC DL 2019 passage: Section 4 (Fig. 2), Appendix B (Fig. 3) and Appendix C (Figs. 4
and 5) of Bigdeli, Arabzadeh, Bagheri & Clarke (SIGIR-AP 2024), on the 37 submitted runs.

Every run is registered, with its group and each group's best run by nDCG@10, as one group of prior
runs (``ir_rbstar.register_runs("dl19", runs, teams=..., best=...)``), so that the prior set of a run
is "the best run of every other group" (the paper's Section 4). For every run the script computes

* ``nDCG@10`` (ir_measures, trec_eval's: gain = grade, log2 discount); it picks each group's best run
  and is checked against ``run_groups.tsv`` (nDCG@10 to 4 places and the best run of every group);
* ``NRG(prior='dl19')@10``: base nDCG, graded gains as nDCG's, normalised by the ideal ranking of the
  residual gains (Fig. 2);
* ``UniqueRel(prior='dl19',rel=2)@10``: the number of relevant passages in the run's top 10 that no
  prior run has in its top 10, averaged over the 43 topics (Appendix B's "unique contributions"
  instantiation, NRG with base P, unnormalised, times 10; Fig. 3). Relevant means grade >= 2, DL19's
  convention for binary measures (grade 1 is "related"); ``rel=1`` is given too;
* ``RarP(runs='dl19',rel=2)@10`` (and ``rel=1``): rareness-based precision, rarity per topic over all
  37 runs, the evaluated run included (Fig. 4; RarP ignores teams and best runs);
* ``TaSC(prior='dl19')@10``: (1 - the best prior run's nDCG@10) x the run's nDCG@10 per topic, the
  same prior set as NRG (Fig. 5).

It prints a Markdown block (the per-run table and a summary of how the traditional BASELINE runs
compare with the neural runs) and, with ``--write``, puts it between the marker comments of
docs/nrg.md and draws docs/img/nrg_dl19.png, nrg_unique_dl19.png, nrg_rarp_dl19.png and
nrg_tasc_dl19.png.

    python -m scripts.nrg_report            # print the block (Markdown)
    python -m scripts.nrg_report --write    # also update docs/nrg.md and the pictures

The runs are NIST submissions that may not be copied into this repository; they are read from
``../shared/data`` (or ``--data``). Only derived numbers and pictures are written.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import pandas as pd

import ir_measures
import ir_rbstar
from ir_rbstar.dicts import ranking_dict
from ir_rbstar.io import Ranking
from ir_rbstar.stats import ranking_agreement

# _docblock: what the report scripts share (the docs' marker block, --write/--doc)
if __package__:      # python -m scripts.nrg_report (from the repository root), or imported as scripts.nrg_report
    from . import _docblock
else:                # python scripts/nrg_report.py: this file's folder is the first entry of the path
    import _docblock

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = _docblock.SHARED_DATA
DOC = REPO / "docs" / "nrg.md"
IMG = REPO / "docs" / "img"
START, END, generated_block, replace_block = _docblock.markers("nrg-report")

FOLDER = "dl19-passage"
QRELS = f"{FOLDER}/qrels.dl19-passage.txt"
RUNS = f"{FOLDER}/runs"
GROUPS = f"{FOLDER}/run_groups.tsv"
PRIOR = "dl19"                  # the registered group of prior runs
K = 10                          # DL19's pooling depth and its main cutoff
BASELINE = "BASELINE"           # the group of solicited traditional (non-neural) runs
#: "The best non-neural run (srchvrs_ps_run3) has an NDCG@10 slightly higher than the best BASELINE
#: run" (Bigdeli et al. 2024, Section 4): every run with a higher nDCG@10 is neural
BEST_NON_NEURAL = "srchvrs_ps_run3"
PLACES = 4

#: the measures computed by ir_rbstar, by column name
MEASURES = {
    "NRG@10": f"NRG(prior='{PRIOR}')@{K}",
    "UniqueRel@10": f"UniqueRel(prior='{PRIOR}',rel=2)@{K}",
    "UniqueRel@10 rel=1": f"UniqueRel(prior='{PRIOR}',rel=1)@{K}",
    "RarP@10": f"RarP(runs='{PRIOR}',rel=2)@{K}",
    "RarP@10 rel=1": f"RarP(runs='{PRIOR}',rel=1)@{K}",
    "TaSC@10": f"TaSC(prior='{PRIOR}')@{K}",
}
NDCG = "nDCG@10"
COLUMNS = (NDCG,) + tuple(MEASURES)
#: the pictures: file name, y column, title
PICTURES = (
    ("nrg_dl19.png", "NRG@10", "NRG@10 (prior: the best run of every other group) against nDCG@10"),
    ("nrg_unique_dl19.png", "UniqueRel@10",
     "Unique relevant passages in the top 10 (rel >= 2, per topic) against nDCG@10"),
    ("nrg_rarp_dl19.png", "RarP@10", "Rareness-based P@10 (rel >= 2, alpha = 1, all 37 runs) against nDCG@10"),
    ("nrg_tasc_dl19.png", "TaSC@10", "TaSC@10 (prior: the best run of every other group) against nDCG@10"),
)


# =============================================================================================
# Statistics
# =============================================================================================

pearson = _docblock.pearson


# =============================================================================================
# Values per run
# =============================================================================================

def load(data_dir) -> tuple:
    """(qrels DataFrame, {run name: its :class:`ir_rbstar.io.Ranking`} sorted by name, run_groups.tsv as a
    DataFrame): the runs in the form they are read in, registered and evaluated in (no DataFrame copy)."""
    data_dir = Path(data_dir)
    paths = sorted(Path(data_dir, RUNS).glob("*.gz"))
    if not paths:
        raise FileNotFoundError(f"no runs (*.gz) in {Path(data_dir, RUNS)}")
    qrels = ir_rbstar.read_qrels(str(data_dir / QRELS))
    runs = {p.name[:-len(".gz")]: _docblock.read_ranking(p) for p in paths}
    groups = pd.read_csv(data_dir / GROUPS, sep="\t", dtype={"run": str, "group": str})
    return qrels, runs, groups


def ndcg_at_10(qrels: pd.DataFrame, runs: Dict[str, Ranking]) -> pd.Series:
    """Mean nDCG@10 of every run (ir_measures, pytrec_eval) over the judged topics; the runs go to
    pytrec_eval as dicts of their judged topics' first 10 rows in trec_eval order
    (``ir_rbstar.dicts.ranking_dict``): nDCG@10 looks at no other row, and ir_measures would convert a DataFrame
    through a namedtuple per row."""
    m = ir_measures.parse_measure(NDCG)
    evaluator = ir_measures.evaluator([m], qrels)
    judged = set(qrels["query_id"])
    values = {}
    for name, run in runs.items():
        values[name] = evaluator.calc_aggregate(ranking_dict(run, judged, depth=K))[m]
    return pd.Series(values, name=NDCG)


def best_runs(ndcg: pd.Series, teams: Dict[str, str]) -> Dict[str, str]:
    """The best run of each group by nDCG@10 (ties: the first by name)."""
    best: Dict[str, str] = {}
    for name in sorted(ndcg.index):
        team = teams[name]
        if team not in best or ndcg[name] > ndcg[best[team]]:
            best[team] = name
    return best


def check_groups_table(groups: pd.DataFrame, ndcg: pd.Series, best: Dict[str, str]) -> None:
    """run_groups.tsv must list the same runs, the same nDCG@10 (to its 4 places) and the same best run
    of every group as computed here; ValueError otherwise."""
    table = groups.set_index("run")
    if set(table.index) != set(ndcg.index):
        raise ValueError(f"run_groups.tsv lists other runs than the run files: "
                         f"{sorted(set(table.index) ^ set(ndcg.index))}")
    off = [(name, float(table.loc[name, "ndcg_cut_10"]), float(v)) for name, v in ndcg.items()
           if abs(float(table.loc[name, "ndcg_cut_10"]) - float(v)) > 5e-5 + 1e-12]
    if off:
        raise ValueError(f"nDCG@10 differs from run_groups.tsv for {off}")
    theirs = {row.group: name for name, row in table.iterrows() if int(row.best_in_group) == 1}
    if theirs != best:
        raise ValueError(f"best run per group differs from run_groups.tsv: ours {best}, theirs {theirs}")


def compute(data_dir=DEFAULT_DATA) -> pd.DataFrame:
    """One row per run: ``run, group, kind`` (BASELINE, neural or other) and the columns
    :data:`COLUMNS`; ``attrs`` holds ``best`` (group -> its best run) and ``topics``."""
    qrels, rankings, groups = load(data_dir)
    teams = dict(zip(groups["run"], groups["group"]))
    missing = sorted(set(rankings) - set(teams))
    if missing:
        raise ValueError(f"run_groups.tsv gives no group for {missing}")
    ndcg = ndcg_at_10(qrels, rankings)
    best = best_runs(ndcg, teams)
    check_groups_table(groups, ndcg, best)
    # the evaluated runs are the registered ones, whole (all 200 queries): a run is recognised as
    # itself, and so never its own prior, only when every query matches
    ir_rbstar.register_runs(PRIOR, rankings, teams=teams, best=best)
    try:
        measures = {col: ir_rbstar.parse(text)[0] for col, text in MEASURES.items()}
        evaluator = ir_measures.evaluator(list(measures.values()), qrels)
        rows = []
        for name, run in rankings.items():
            values = evaluator.calc_aggregate(run)
            rows.append({"run": name, "group": teams[name], NDCG: float(ndcg[name]),
                         **{col: float(values[m]) for col, m in measures.items()}})
    finally:
        ir_rbstar.unregister_runs(PRIOR)
    table = pd.DataFrame(rows)
    table = table.sort_values([NDCG, "run"], ascending=[False, True], kind="stable").reset_index(drop=True)
    threshold = float(ndcg[BEST_NON_NEURAL])
    table.insert(2, "kind", np.where(table["group"] == BASELINE, "BASELINE",
                                     np.where(table[NDCG] > threshold, "neural", "other")))
    table.attrs.update(best=best, topics=int(qrels["query_id"].nunique()))
    return table


# =============================================================================================
# Summary: the traditional BASELINE runs against the neural runs
# =============================================================================================

def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per measure: Kendall's tau-b and Pearson's r with nDCG@10 over all runs, tau-b within the
    BASELINE and within the neural runs, the median over the neural runs, how many BASELINE runs lie
    above that median and above every neural run, the share of (BASELINE, neural) pairs in which the
    BASELINE run scores higher (ties count half), and the rank of the best BASELINE run."""
    base = table[table["kind"] == "BASELINE"]
    neural = table[table["kind"] == "neural"]
    rows = []
    for col in COLUMNS:
        b, n = base[col].to_numpy(), neural[col].to_numpy()
        diff = np.sign(b[:, None] - n[None, :])
        rank = 1 + int((table[col] > base[col].max()).sum())
        rows.append({
            "measure": col, "tau_all": ranking_agreement(table[NDCG], table[col]).tau_b,
            "r_all": pearson(table[NDCG], table[col]),
            "tau_baseline": ranking_agreement(base[NDCG], base[col]).tau_b,
            "tau_neural": ranking_agreement(neural[NDCG], neural[col]).tau_b,
            "neural_median": float(np.median(n)), "above_median": int((b > np.median(n)).sum()),
            "above_all_neural": int((b > n.max()).sum()), "pairs_won": float(((diff > 0) + 0.5 * (diff == 0)).mean()),
            "best_baseline_rank": rank,
        })
    out = pd.DataFrame(rows)
    out.attrs.update(n_runs=len(table), n_baseline=len(base), n_neural=len(neural))
    return out


def claims(table: pd.DataFrame) -> List[str]:
    """The paper's remarks on single runs (Bigdeli et al. 2024, Section 4), checked on our NRG@10."""
    t = table.set_index("run")
    base = t[t["kind"] == "BASELINE"]["NRG@10"]
    out = []
    for run, said in ((BEST_NON_NEURAL, "an NRG lower than all of them"),
                      ("idst_bert_pr1", "drops NRG below all BASELINE runs")):
        v = float(t.loc[run, "NRG@10"])
        out.append(f"`{run}` (nDCG@10 {t.loc[run, NDCG]:.{PLACES}f}; the paper: \"{said}\"): NRG@10 "
                   f"{v:.{PLACES}f}, below {int((base > v).sum())} of the {len(base)} BASELINE runs")
    top = table.sort_values(["NRG@10", "run"], ascending=[False, True]).head(3)
    out.append("highest NRG@10: " + ", ".join(f"`{run}` ({group}, {v:.{PLACES}f})" for run, group, v in
                                               zip(top["run"], top["group"], top["NRG@10"])))
    return out


# =============================================================================================
# Markdown
# =============================================================================================

def _f(x: float) -> str:
    return "n/a" if x != x else f"{x:.{PLACES}f}"


def markdown_runs(table: pd.DataFrame) -> str:
    topics = table.attrs.get("topics", 43)
    head = ["#", "run", "group", "nDCG@10", "NRG@10", "UniqueRel@10 (total)", "UniqueRel@10 rel=1 (total)",
            "RarP@10", "RarP@10 rel=1", "TaSC@10"]
    align = "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
    rows = []
    for i, r in enumerate(table.to_dict("records"), start=1):
        name = f"**{r['run']}**" if r["kind"] == "BASELINE" else r["run"]
        cells = [str(i), name, r["group"], _f(r[NDCG]), _f(r["NRG@10"])]
        for col in ("UniqueRel@10", "UniqueRel@10 rel=1"):
            cells.append(f"{_f(r[col])} ({int(round(r[col] * topics))})")
        cells += [_f(r["RarP@10"]), _f(r["RarP@10 rel=1"]), _f(r["TaSC@10"])]
        rows.append(cells)
    return _docblock.md_table(head, align, rows)


def markdown_summary(s: pd.DataFrame) -> str:
    nb, nn = s.attrs["n_baseline"], s.attrs["n_neural"]
    head = ["measure", "tau-b with nDCG@10 (all)", "Pearson r (all)", f"tau-b within BASELINE ({nb})",
            f"tau-b within neural ({nn})", "median over neural", f"BASELINE runs above that median (of {nb})",
            "BASELINE runs above every neural run", "(BASELINE, neural) pairs won by BASELINE",
            "rank of the best BASELINE run"]
    align = "|---|" + "---:|" * (len(head) - 1)
    rows = [[r["measure"], _f(r["tau_all"]), _f(r["r_all"]), _f(r["tau_baseline"]), _f(r["tau_neural"]),
             _f(r["neural_median"]), str(r["above_median"]), str(r["above_all_neural"]),
             f"{100 * r['pairs_won']:.1f}%", f"{r['best_baseline_rank']} of {s.attrs['n_runs']}"]
            for r in s.to_dict("records")]
    return _docblock.md_table(head, align, rows)


def report(table: pd.DataFrame) -> str:
    """The generated Markdown block that goes between the markers of docs/nrg.md."""
    s = summary(table)
    best = table.attrs.get("best", {})
    n_neural = int((table["kind"] == "neural").sum())
    return "\n\n".join([
        f"**The {len(table)} runs** by nDCG@10 ({table.attrs.get('topics', 43)} topics; BASELINE runs in bold; "
        "UniqueRel is the mean number of unique relevant passages per topic, the total over the topics in "
        "parentheses):",
        markdown_runs(table),
        "Prior set of every run: the best run by nDCG@10 of each other group (" +
        ", ".join(f"{g}: `{r}`" for g, r in sorted(best.items(), key=lambda kv: kv[0].lower())) + ").",
        f"**BASELINE against neural runs.** Neural: the {n_neural} runs with a higher nDCG@10 than "
        f"`{BEST_NON_NEURAL}`, which the paper calls the best non-neural run; every one of them has a "
        "higher nDCG@10 than every BASELINE run.",
        markdown_summary(s),
        "\n".join(f"- {c}" for c in claims(table)),
    ])


# =============================================================================================
# Pictures
# =============================================================================================

def draw(table: pd.DataFrame, out_dir=IMG) -> List[Path]:
    """The pictures of :data:`PICTURES` (Bigdeli et al. 2024, Figs. 2-5), BASELINE highlighted."""
    from ir_rbstar.plots import plot_nrg
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, column, title in PICTURES:
        path = Path(out_dir, name)
        fig = plot_nrg(table, x=NDCG, y=column, path=path, title=f"DL19 passage, {len(table)} runs: {title}",
                       highlight=BASELINE)
        plt.close(fig)
        written.append(path)
    return written


def main(argv: Optional[List[str]] = None) -> int:
    parser = _docblock.report_parser(__doc__, "--data", DEFAULT_DATA, f"folder with {FOLDER}/ (default: %(default)s)",
                                     DOC, REPO, also="and draw the pictures")
    parser.add_argument("--img", default=str(IMG), help="folder of the pictures (default: %(default)s)")
    args = parser.parse_args(argv)
    data_dir = Path(args.data)
    if _docblock.data_missing([data_dir / part for part in (QRELS, RUNS, GROUPS)]):
        return 2
    table = compute(data_dir)
    _docblock.print_report(args, report(table), START, END)
    if args.write:
        for path in draw(table, args.img):
            print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
