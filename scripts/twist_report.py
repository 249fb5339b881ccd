#!/usr/bin/env python3
"""Twist on real runs: run archetypes (Table 2) and system-ranking correlations (Table 4)
of Ferro, Silvello, Keskustalo, Pirkola & Järvelin (JASIST 2016, doi:10.1002/asi.23416).

For TREC DL 2019 passage (37 runs, 43 judged topics, grades 0-3) and Robust04 (10 official TREC 2004
runs and 8 later research runs, 249 judged topics, grades 0-2), the script computes per run and topic
the Twist analysis with :func:`ir_rbstar.twist.twist_table` (whole runs, no cutoff) and AP(rel=...) and
nDCG (whole run depth, gain = grade) with ir_measures' pytrec_eval provider, then three tables:

1. the share of each CRP archetype over all (run, topic) pairs whose topic has a recall base >= 1, and
   the share whose CRP first crosses (or touches) zero at position 1;
2. Kendall's tau-b between the system rankings (mean over topics) by Twist, Twist_rho, Twist_sigma,
   AP and nDCG, over all runs, over the best 75% of the runs by mean AP (the paper's selection), and
   without the shallow runs (fewer than RB documents on at least 10% of the topics);
3. effort against gain per (run, topic): Kendall's tau-b between Twist and AP or nDCG over the pairs,
   and where the pairs fall on the paper's effort/gain grid (gain quartiles x Twist 0.25 / 0.5 / 0.75).

Relevance: DL19 with ``rel=2`` (its convention for binary measures: grade 1 is "related"; Twist keeps
grades 2 and 3 as two bands) and, for comparison with the paper's lenient mapping, ``rel=1``; Robust04
with ``rel=1``. AP uses the same ``rel`` as Twist; nDCG is graded and takes every grade as its gain.

    python -m scripts.twist_report            # print the tables (Markdown)
    python -m scripts.twist_report --write    # also update docs/twist.md between the markers

The runs are NIST submissions and third-party runs that may not be copied into this repository; they
are read from ``../shared/data`` (or ``--data``).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

import ir_measures
from ir_rbstar import dicts
from ir_rbstar.io import QUERY_IDS, read_trec_qrels
from ir_rbstar.stats import ranking_agreement
from ir_rbstar.twist import ARCHETYPES, twist_table

# _docblock: what the report scripts share (the docs' marker block, --write/--doc)
if __package__:      # python -m scripts.twist_report (from the repository root), or imported as scripts.twist_report
    from . import _docblock
else:                # python scripts/twist_report.py: this file's folder is the first entry of the path
    import _docblock

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = _docblock.SHARED_DATA
DOC = REPO / "docs" / "twist.md"
START, END, generated_block, replace_block = _docblock.markers("twist-report")

TOP_SHARE = 0.75        # the paper keeps the best 75% of the runs by MAP for its correlations
SHALLOW = 0.10          # a run with N < RB on at least this share of the topics is "shallow"
PLACES = 4


class Collection(NamedTuple):
    key: str                            # short name used in the tables
    title: str
    qrels: str                          # path relative to the data folder
    groups: Tuple[Tuple[str, str], ...]  # (group name, folder of *.gz runs relative to the data folder)
    rels: Tuple[int, ...]               # the relevance thresholds evaluated


DL19 = Collection("dl19", "DL19 passage", "dl19-passage/qrels.dl19-passage.txt",
                  (("NIST runs", "dl19-passage/runs"),), (2, 1))
ROBUST04 = Collection("robust04", "Robust04", "robust04/qrels.robust2004.txt.gz",
                      (("TREC 2004 runs", "robust04/runs-trec2004"), ("new runs", "robust04/runs-new")), (1,))
COLLECTIONS = (DL19, ROBUST04)

#: measure columns of the per-pair table: the three Twist values and the two gain measures
EFFORT = ("Twist", "Twist_rho", "Twist_sigma")
GAIN = ("AP", "nDCG")
#: Twist with rho from the MATTERS crossing rule (see :func:`crp_crossings`), for comparison
SIGN_CHANGE = ("Twist_sc", "Twist_rho_sc")
#: the columns of the correlation table: (x, y)
CORRELATIONS = (("Twist", "AP"), ("Twist", "nDCG"), ("Twist_rho", "AP"), ("Twist_sigma", "AP"),
                ("AP", "nDCG"),
                ("Twist_sc", "AP"), ("Twist_sc", "nDCG"))
SHOW = {"Twist_sc": "Twist (sign-change rule)", "Twist_rho_sc": "Twist_rho (sign-change rule)"}
LABELS = {"ideal": "ideal", "worst": "worst", "full_scale": "full-scale", "excellent": "excellent",
          "up_and_down": "up and down", "typical_a": "typical A", "typical_b": "typical B"}


# =============================================================================================
# Statistics
# =============================================================================================

#: Twist's column bounds on the paper's effort/gain grid (Figs. 6-10): huge, high, medium, low effort
TWIST_CUTS = (0.25, 0.5, 0.75)


def grid_cells(twist: np.ndarray, gain: np.ndarray):
    """The paper's 4 x 4 effort/gain grid: (gain cut points, gain row 0..3 from the lowest quartile,
    Twist column 0..3 from the most effort). Rows split at the 25th, 50th and 75th percentiles of the
    gain values, columns at Twist 0.25, 0.5, 0.75; intervals are right-closed (a value equal to a cut
    point lies in the lower cell), as in ``ir_rbstar.plots.plot_effort_gain``."""
    cuts = np.percentile(np.asarray(gain, dtype=np.float64), [25, 50, 75])
    row = np.searchsorted(cuts, gain, side="left")
    col = np.searchsorted(np.asarray(TWIST_CUTS), twist, side="left")
    return cuts, row, col


# =============================================================================================
# Per (run, topic) values
# =============================================================================================

def _runs(data_dir: Path, folder: str) -> List[Path]:
    runs = sorted(Path(data_dir, folder).glob("*.gz"))
    if not runs:
        raise FileNotFoundError(f"no runs (*.gz) in {Path(data_dir, folder)}")
    return runs


def crp_crossings(qrels_df: pd.DataFrame, frame: pd.DataFrame, rel: int,
                  grades: Optional[np.ndarray] = None) -> pd.DataFrame:
    """An independent computation of the CRP curves of one run (pandas and numpy, not ir_rbstar's
    kernels), condensed to one row per query of ``frame``: ``query_id``, ``first_touch`` (the first
    crossing by ir_rbstar's rule: CRP[j] and CRP[j+1] on opposite sides of zero, zero counting as both
    sides; as in ir_rbstar, a curve that ends on zero without a crossing crosses at N), ``first_sign_change`` (the first crossing by the rule of the MATTERS toolkit's twist.m, which
    computed the paper's tables: CRP[j] > 0 and CRP[j+1] <= 0 or the reverse, so zero counts as the
    negative side and a CRP that only touches zero does not cross); both 0 when there is none; and
    ``crp_at_rb``, CRP at position min(RB, N).

    ``frame`` holds ``query_id, doc_id`` in trec_eval order (contiguous per query) for queries with a
    recall base >= 1 at ``rel``. ``grades``: the grade of every row of ``frame`` (0 where unjudged), as
    :func:`run_grades` gives it, when the caller has it already (one lookup per run serves every
    ``rel``). Every step is a whole-column operation over the run's rows (segments of queries)."""
    if grades is None:
        grades = run_grades(qrels_df, frame)
    q = frame["query_id"].to_numpy(dtype=object)
    n = len(q)
    new = np.r_[True, q[1:] != q[:-1]] if n else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    seg = np.cumsum(new) - 1                              # the row's query (segment), 0-based
    qids = q[starts]
    length = np.diff(np.r_[starts, n])
    pos = np.arange(1, n + 1) - starts[seg]               # 1-based position within the query
    rel_judged = qrels_df[qrels_df["relevance"] >= rel]
    rb = rel_judged.groupby("query_id").size().reindex(qids).to_numpy(np.int64)
    # the band of each relevant grade in the ideal run: positions [hi - n + 1, hi], grades descending
    counts = rel_judged.groupby(["query_id", "relevance"]).size().unstack(fill_value=0)
    counts = counts.reindex(index=qids, fill_value=0)
    top = int(counts.columns.max()) if len(counts.columns) else rel
    counts = counts.reindex(columns=range(top + 1), fill_value=0).to_numpy(np.int64)
    hi_band = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # per query and grade g: judged with grade >= g
    lo_band = hi_band - counts + 1
    relevant = grades >= rel
    g = np.where(relevant, grades, 0)
    lo = np.where(relevant, lo_band[seg, g], rb[seg] + 1)
    hi = np.where(relevant, hi_band[seg, g], np.iinfo(np.int64).max)   # non-relevant: to the end of the run
    rp = np.where(pos < lo, pos - lo, np.where(pos > hi, pos - hi, 0))
    total = np.cumsum(rp)
    crp = total - (total[starts] - rp[starts])[seg]       # cumulative sum within each query
    same = seg[:-1] == seg[1:]
    a, b = crp[:-1], crp[1:]
    touch = same & (np.sign(a) * np.sign(b) <= 0)
    change = same & ((a > 0) != (b > 0))
    first = {}
    for name, hit in (("first_touch", touch), ("first_sign_change", change)):
        rows = np.flatnonzero(hit)
        first[name] = np.zeros(len(qids), dtype=np.int64)
        which, at = np.unique(seg[rows], return_index=True)   # rows ascend: the first pair of each query
        first[name][which] = pos[rows[at]]
    # that rule looks at pairs only; ir_rbstar adds that a curve ending on the axis without having
    # crossed crosses at N (possible only for N = 1): the same here
    ends_on_axis = (first["first_touch"] == 0) & (crp[starts + length - 1] == 0)
    first["first_touch"][ends_on_axis] = length[ends_on_axis]
    return pd.DataFrame({"query_id": qids, **first,
                         "crp_at_rb": crp[starts + np.minimum(rb, length) - 1].astype(np.int64)})


def run_grades(qrels_df: pd.DataFrame, frame: pd.DataFrame) -> np.ndarray:
    """The grade of every row of ``frame`` (``query_id, doc_id``) from the qrels, 0 where unjudged."""
    rows = frame[["query_id", "doc_id"]].merge(qrels_df[["query_id", "doc_id", "relevance"]],
                                               on=["query_id", "doc_id"], how="left")
    return rows["relevance"].fillna(0).to_numpy(np.int64)


def archetype_by_sign_change(pairs: pd.DataFrame) -> pd.Series:
    """The archetype of each pair when crossings follow the MATTERS rule (``first_sign_change``):
    ideal, worst and full-scale as by ir_rbstar; otherwise excellent / up and down for a first crossing
    at or before RB (CRP at min(RB, N) >= 0 or < 0), typical A after RB, typical B without crossing."""
    fc = pairs["first_sign_change"]
    early = np.where(pairs["crp_at_rb"] >= 0, "excellent", "up_and_down")
    other = np.where(fc == 0, "typical_b", np.where(fc > pairs["recall_base"], "typical_a", early))
    fixed = pairs["archetype"].isin(["ideal", "worst", "full_scale"])
    return pd.Series(np.where(fixed, pairs["archetype"], other), index=pairs.index)


def _run_dict(q: np.ndarray, d: np.ndarray, scores: np.ndarray) -> Dict[str, Dict[str, float]]:
    """A run (query ids, doc ids and scores of its rows, queries contiguous) as the dict of dicts pytrec_eval
    takes (built here once per run: ir_measures' conversion of a DataFrame goes row by row)."""
    out: Dict[str, Dict[str, float]] = {}
    s = scores.tolist()
    cuts = np.flatnonzero(np.r_[True, q[1:] != q[:-1], True])
    for a, b in zip(cuts[:-1], cuts[1:]):
        out[str(q[a])] = dict(zip(d[a:b].tolist(), s[a:b]))
    return out


def collection_pairs(data_dir, coll: Collection) -> pd.DataFrame:
    """One row per (rel, run, topic of the qrels): ``collection, rel, group, run, query_id, recall_base,
    length, first_crossing, archetype`` and ``Twist, Twist_rho, Twist_sigma`` (from twist_table), ``AP, nDCG``
    (pytrec_eval through ir_measures), ``first_touch, first_sign_change, crp_at_rb`` (from this script's
    own CRP curves, :func:`crp_crossings`), ``archetype_sign_change``, and ``Twist_rho_sc, Twist_sc``
    (rho and Twist with the MATTERS crossing rule, the same sigma). Topics with recall base 0 at
    that ``rel`` are left out (Twist has no value there). Topics missing from a run get 0 for AP and
    nDCG (ir_measures' convention; twist_table gives them 0 and the archetype worst)."""
    data_dir = Path(data_dir)
    qrels = read_trec_qrels(str(data_dir / coll.qrels))
    qrels_df = qrels.frame()
    judged = pd.unique(qrels_df["query_id"])
    # one evaluator for every rel: pytrec_eval sees each run once
    labels = {ir_measures.nDCG: ("nDCG", None)}
    labels.update({ir_measures.AP(rel=rel): ("AP", rel) for rel in coll.rels})
    evaluator = ir_measures.pytrec_eval.evaluator(list(labels), dicts.qrels_dict(qrels))
    parts = []
    for group, folder in coll.groups:
        for path in _runs(data_dir, folder):
            ranking = _docblock.read_ranking(path)
            keep_seg = np.isin(QUERY_IDS.decode(ranking.qcodes), judged)
            seg = ranking.row_segments()
            keep = keep_seg[seg]
            columns = {"query_id": QUERY_IDS.decode(ranking.qcodes[seg[keep]]),
                       "doc_id": ranking.dbytes[keep].astype(str), "score": ranking.scores[keep]}
            frame = pd.DataFrame(columns)
            gain: Dict[tuple, Dict[str, float]] = {}
            for m in evaluator.iter_calc(_run_dict(*columns.values())):
                gain.setdefault(labels[m.measure], {})[m.query_id] = m.value
            grades = run_grades(qrels_df, frame)          # one lookup for every rel
            for rel in coll.rels:
                tw = twist_table(qrels, ranking, rel=rel)
                tw = tw[tw["recall_base"] >= 1].reset_index(drop=True)
                out = pd.DataFrame({
                    "collection": coll.key, "rel": rel, "group": group, "run": path.name[:-len(".gz")],
                    "query_id": tw["query_id"].astype(str), "recall_base": tw["recall_base"], "length": tw["length"],
                    "first_crossing": tw["first_crossing"], "archetype": tw["archetype"],
                    "Twist": tw["tau"], "Twist_rho": tw["rho"], "Twist_sigma": tw["sigma"]})
                topics = out["query_id"].tolist()
                for name, values in (("AP", gain.get(("AP", rel), {})), ("nDCG", gain.get(("nDCG", None), {}))):
                    out[name] = np.array([float(values.get(t, 0.0)) for t in topics])
                scored = frame["query_id"].isin(set(topics)).to_numpy()
                own = crp_crossings(qrels_df, frame[scored], rel, grades[scored]).set_index("query_id")
                # a topic missing from the run has no curve: no crossing
                own = own.reindex(topics, fill_value=0)
                for name in ("first_touch", "first_sign_change", "crp_at_rb"):
                    out[name] = own[name].to_numpy(np.int64)
                out["archetype_sign_change"] = archetype_by_sign_change(out)
                rb, fc = out["recall_base"].to_numpy(), out["first_sign_change"].to_numpy()
                # the all-zero curve of an ideal ordering has rho = 1 under both rules
                rho_sc = np.where(out["archetype"] == "ideal", 1.0, np.where(fc > 0, rb / np.maximum(rb, fc), 0.0))
                out["Twist_rho_sc"] = rho_sc
                out["Twist_sc"] = (rho_sc + out["Twist_sigma"].to_numpy()) / 2.0
                parts.append(out)
    return pd.concat(parts, ignore_index=True)


def per_pair(data_dir=DEFAULT_DATA, collections: Sequence[Collection] = COLLECTIONS) -> pd.DataFrame:
    """:func:`collection_pairs` of every collection, concatenated."""
    return pd.concat([collection_pairs(data_dir, c) for c in collections], ignore_index=True)


# =============================================================================================
# Tables
# =============================================================================================

def _settings(pairs: pd.DataFrame):
    """(collection, rel, its rows) in table order: the collections in COLLECTIONS order, rel descending."""
    order = {c.key: i for i, c in enumerate(COLLECTIONS)}
    keys = sorted({(c, int(r)) for c, r in zip(pairs["collection"], pairs["rel"])},
                  key=lambda k: (order.get(k[0], len(order)), -k[1]))
    for coll, rel in keys:
        yield coll, rel, pairs[(pairs["collection"] == coll) & (pairs["rel"] == rel)]


def _title(coll: str) -> str:
    return {c.key: c.title for c in COLLECTIONS}.get(coll, coll)


#: the crossing rules of the archetype table: (label, archetype column, first-crossing column)
RULES = (("zero counts (ir_rbstar)", "archetype", "first_crossing"),
         ("sign change (MATTERS)", "archetype_sign_change", "first_sign_change"))


def archetype_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per collection, rel, group of runs (and all groups together when there are several) and crossing
    rule: the number of runs, topics and pairs, the share (%) of each archetype, of excellent + up and
    down (the paper's "Excellent" column), and of pairs whose first crossing is at position 1."""
    rows = []
    for coll, rel, sub in _settings(pairs):
        groups = list(dict.fromkeys(sub["group"]))
        subsets = [(g, sub[sub["group"] == g]) for g in groups]
        if len(groups) > 1:
            subsets.append((" + ".join(groups), sub))
        for label, part in subsets:
            for rule, column, crossing in RULES:
                n = len(part)
                counts = part[column].value_counts()
                row = {"collection": _title(coll), "rel": rel, "runs": label, "n_runs": part["run"].nunique(),
                       "topics": part["query_id"].nunique(), "pairs": n, "rule": rule}
                for a in ARCHETYPES:
                    row[a] = 100.0 * counts.get(a, 0) / n
                row["excellent_or_up_and_down"] = row["excellent"] + row["up_and_down"]
                row["crossing_at_1"] = 100.0 * (part[crossing] == 1).sum() / n
                rows.append(row)
    return pd.DataFrame(rows)


def system_means(part: pd.DataFrame) -> pd.DataFrame:
    """Mean of every measure per run (over the topics of ``part``)."""
    return part.groupby("run")[list(EFFORT + GAIN + SIGN_CHANGE)].mean()


def correlation_table(pairs: pd.DataFrame, top_share: float = TOP_SHARE) -> pd.DataFrame:
    """Kendall's tau-b between system rankings, per collection and rel: over all runs, over the best
    ceil(top_share x runs) runs by mean AP, and (when there are any) without the shallow runs: those
    shorter than the recall base (N < RB, where Twist's space ratio reads high) on at least
    SHALLOW of the topics."""
    rows = []
    for coll, rel, sub in _settings(pairs):
        means = system_means(sub)
        n = len(means)
        k = int(math.ceil(top_share * n))
        subsets = [(f"all {n}", means),
                   (f"best {k} by AP", means.sort_values("AP", ascending=False, kind="stable").iloc[:k])]
        short = (sub["length"] < sub["recall_base"]).groupby(sub["run"]).mean()
        deep = short < SHALLOW
        if not deep.all():
            subsets.append((f"{int(deep.sum())} without shallow runs", means[deep.reindex(means.index)]))
        for label, m in subsets:
            row = {"collection": _title(coll), "rel": rel, "runs": label, "n_runs": len(m)}
            for x, y in CORRELATIONS:
                row[f"{x} vs {y}"] = ranking_agreement(m[x], m[y]).tau_b
            rows.append(row)
    return pd.DataFrame(rows)


def effort_gain_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per collection, rel, effort measure (Twist, and Twist with the sign-change rule) and gain measure,
    over all (run, topic) pairs: Kendall's tau-b between effort and gain, the gain's quartile cut points,
    and the share (%) of pairs on the diagonal of the paper's grid (Twist column = gain row, see
    :func:`grid_cells`), above it (Twist in a better column than the gain's row: less effort than the
    gain suggests) and below it, and in two corners the paper points at: top gain quartile with
    Twist <= 0.5 (high gain, high effort) and bottom gain quartile with Twist > 0.75 (low gain, low
    effort)."""
    rows = []
    for coll, rel, sub in _settings(pairs):
        for effort in ("Twist", "Twist_sc"):
            twist = sub[effort].to_numpy()
            for gain in GAIN:
                g = sub[gain].to_numpy()
                cuts, row, col = grid_cells(twist, g)
                n = len(sub)
                rows.append({
                    "collection": _title(coll), "rel": rel, "effort": SHOW.get(effort, effort),
                    "gain": gain if gain != "AP" else f"AP(rel={rel})", "pairs": n,
                    "tau_b": ranking_agreement(twist, g).tau_b, "cuts": tuple(float(c) for c in cuts),
                    "same": 100.0 * (col == row).sum() / n, "twist_higher": 100.0 * (col > row).sum() / n,
                    "twist_lower": 100.0 * (col < row).sum() / n,
                    "high_gain_high_effort": 100.0 * ((row == 3) & (col <= 1)).sum() / n,
                    "low_gain_low_effort": 100.0 * ((row == 0) & (col == 3)).sum() / n,
                })
    return pd.DataFrame(rows)


# =============================================================================================
# Markdown
# =============================================================================================

def _pct(x: float) -> str:
    return f"{x:.2f}%"


def _tau(x: float) -> str:
    return "n/a" if x != x else f"{x:.{PLACES}f}"


def markdown_archetypes(table: pd.DataFrame) -> str:
    head = ["collection", "rel", "runs", "topics", "pairs", "crossing rule"] + [LABELS[a] for a in ARCHETYPES]
    head += ["excellent + up and down", "first crossing at 1"]
    align = "|---|---:|---|---:|---:|---|" + "---:|" * (len(ARCHETYPES) + 2)
    rows = []
    for r in table.to_dict("records"):
        cells = [r["collection"], str(r["rel"]), f"{r['runs']} ({r['n_runs']})", str(r["topics"]), str(r["pairs"]),
                 r["rule"]]
        cells += [_pct(r[a]) for a in ARCHETYPES]
        cells += [_pct(r["excellent_or_up_and_down"]), _pct(r["crossing_at_1"])]
        rows.append(cells)
    return _docblock.md_table(head, align, rows)


def markdown_correlations(table: pd.DataFrame) -> str:
    head = ["collection", "rel", "runs"] + [f"{SHOW.get(x, x)} vs {y}" for x, y in CORRELATIONS]
    align = "|---|---:|---|" + "---:|" * len(CORRELATIONS)
    rows = [[r["collection"], str(r["rel"]), r["runs"]] + [_tau(r[f"{x} vs {y}"]) for x, y in CORRELATIONS]
            for r in table.to_dict("records")]
    return _docblock.md_table(head, align, rows)


def markdown_effort_gain(table: pd.DataFrame) -> str:
    head = ["collection", "rel", "effort", "gain", "pairs", "tau-b (effort, gain)", "gain quartile cuts",
            "diagonal", "effort column above gain row", "below", "top gain quartile, effort <= 0.5",
            "bottom gain quartile, effort > 0.75"]
    align = "|---|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|"
    rows = [[r["collection"], str(r["rel"]), r["effort"], f"`{r['gain']}`", str(r["pairs"]), _tau(r["tau_b"]),
             " / ".join(f"{c:.3f}" for c in r["cuts"]),
             _pct(r["same"]), _pct(r["twist_higher"]), _pct(r["twist_lower"]),
             _pct(r["high_gain_high_effort"]), _pct(r["low_gain_low_effort"])]
            for r in table.to_dict("records")]
    return _docblock.md_table(head, align, rows)


def report(pairs: pd.DataFrame) -> str:
    """The generated Markdown block that goes between the markers of docs/twist.md."""
    return "\n\n".join([
        "**Archetypes** (share of the (run, topic) pairs whose topic has a recall base >= 1):",
        markdown_archetypes(archetype_table(pairs)),
        "**System rankings** (Kendall's tau-b between the rankings of the runs by their mean over the topics):",
        markdown_correlations(correlation_table(pairs)),
        "**Effort against gain per (run, topic) pair** (the paper's 4 x 4 grid: gain quartiles x Twist "
        "0.25 / 0.5 / 0.75):",
        markdown_effort_gain(effort_gain_table(pairs)),
    ])


def main(argv: Optional[List[str]] = None) -> int:
    parser = _docblock.report_parser(__doc__, "--data", DEFAULT_DATA,
                                     "folder with dl19-passage/ and robust04/ (default: %(default)s)", DOC, REPO)
    args = parser.parse_args(argv)
    data_dir = Path(args.data)
    if _docblock.data_missing([data_dir / coll.qrels for coll in COLLECTIONS]):
        return 2
    return _docblock.print_report(args, report(per_pair(data_dir)), START, END)


if __name__ == "__main__":
    sys.exit(main())
