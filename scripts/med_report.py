#!/usr/bin/env python3
"""MED on the Robust04 and Robust03 official runs: distance matrices, MED-nDCG@20 against the actual
nDCG@20 difference as judgments are added (Fig. 2 of Tan & Clarke, IEEE TKDE 2015, arXiv:1408.3587), and
the family compared (Fig. 3).

For each collection (Robust04: the 10 official TREC 2004 runs, 249 judged topics; Robust03: the 17
official TREC 2003 runs, 100 judged topics; grades 0-2 in both) the script computes

1. the judgment-free MED-nDCG@20 distance matrix, ``ir_rbstar.med.distance_matrix(runs,
   "MED_nDCG(max_rel=2,judgments=False)@20", qrels)``: gains (2^j - 1) / 2^G with G = 2, so 0, 1/4 and
   3/4 as in the paper; the qrels only give the query set. It is printed as a table and drawn with
   ``ir_rbstar.plots.plot_distance_matrix``;
2. for every unordered pair of runs, MED-nDCG@20 (mean over the topics) given 0%, 25%, 75% and 100% of
   the judgments, against the actual difference of the pair. The samples are drawn per topic and are
   nested (see :func:`sample_qrels`); 0% is ``judgments=False`` with the full qrels, so the query set
   never changes. "Actual" is the measure MED maximises: DCG@20 with MED's gains, unjudged documents
   worth 0, divided by MED's normaliser (eq. 17), as the mean over the topics of the per-topic absolute
   difference. ir_measures' standard nDCG@20 (gain = grade, ideal ranking from the qrels) is compared
   too. MED is a maximum, so it can never be below the actual difference: every (pair, topic) value is
   checked, and a violation is reported loudly (it would be a bug);
3. judgment-free MED-nDCG@20, MED-RBP (p = 0.9, the paper's, and 0.95, the package's default),
   MED-ERR@30, MED-AP@100 and 1 - RBO(p = 0.9) over the same pairs, and how they correlate.

It prints a Markdown block and, with ``--write``, puts it between the marker comments of docs/med.md
and draws docs/img/med_robust04.png, med_robust03.png (heat maps) and med_fig2_robust04.png,
med_fig2_robust03.png (MED against the actual difference). ``--check`` exits with status 1 when the
block in docs/med.md differs from what the script computes now.

    python -m scripts.med_report            # print the block (Markdown)
    python -m scripts.med_report --write    # also update docs/med.md and the pictures
    python -m scripts.med_report --check    # is docs/med.md current?

The runs are NIST submissions that may not be copied into this repository; they are read from
``../shared/data`` (or ``--data``). Only derived numbers and pictures are written.
"""
from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence

import numpy as np
import pandas as pd

import ir_measures
import ir_rbstar
from ir_rbstar import dicts, matrices
from ir_rbstar.datasets import resolve_qrels
from ir_rbstar.io import QUERY_IDS, Ranking, ranking_frame
from ir_rbstar.stats import ranking_agreement

# _docblock: what the report scripts share (the docs' marker block, --write/--doc)
if __package__:      # python -m scripts.med_report (from the repository root), or imported as scripts.med_report
    from . import _docblock
else:                # python scripts/med_report.py: this file's folder is the first entry of the path
    import _docblock

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = _docblock.SHARED_DATA
DOC = REPO / "docs" / "med.md"
IMG = REPO / "docs" / "img"
START, END, generated_block, replace_block = _docblock.markers("med-report")


class Collection(NamedTuple):
    key: str            # file names of the pictures
    title: str
    qrels: str          # relative to the data folder
    runs: str           # folder of *.gz runs, relative to the data folder
    what: str           # the runs, in words
    family: bool        # also compare the judgment-free family over its pairs (Fig. 3 analogue)


ROBUST04 = Collection("robust04", "Robust04", "robust04/qrels.robust2004.txt.gz", "robust04/runs-trec2004",
                      "official TREC 2004 runs (one per group)", True)
#: the family table (the paper's Fig. 3) is made for one collection, Robust04, which keeps the report short
ROBUST03 = Collection("robust03", "Robust03", "robust03/qrels.robust03.txt.gz", "robust03/runs",
                      "official TREC 2003 runs (one per group)", False)
COLLECTIONS = (ROBUST04, ROBUST03)

K = 20                          # the paper's depth for nDCG
G = 2                           # the top grade: gains 0, 1/4, 3/4
TOP = (2.0 ** G - 1.0) / 2.0 ** G
LEVELS = (0.0, 0.25, 0.75, 1.0)  # shares of the judgments given (Tan & Clarke 2015, Fig. 2 a-d)
SEED = 2015                     # the seed of the judgment samples (numpy.random.default_rng)
PLACES = 4
TOL = 1e-12                     # MED below the actual difference by more than this is a violation

MED_NDCG = f"MED_nDCG(max_rel={G})@{K}"
MED_NDCG_FREE = f"MED_nDCG(max_rel={G},judgments=False)@{K}"
STANDARD = f"nDCG@{K}"          # ir_measures' (pytrec_eval's) nDCG@20: gain = grade, ideal from the qrels

#: the judgment-free measures compared over the pairs (Tan & Clarke 2015, Fig. 3): column label -> measure
FAMILY = {
    "MED-nDCG@20": MED_NDCG_FREE,
    "MED-RBP 0.9": "MED_RBP(p=0.9,judgments=False)",
    "MED-RBP 0.95": "MED_RBP(p=0.95,judgments=False)",
    "MED-ERR@30": f"MED_ERR(max_rel={G},judgments=False)@30",
    "MED-AP@100": "MED_AP(judgments=False)@100",
    "1 - RBO 0.9": "RBO(p=0.9)",
}


def level_name(level: float) -> str:
    return f"{round(100 * level)}%"


# =============================================================================================
# Statistics
# =============================================================================================

pearson = _docblock.pearson


# =============================================================================================
# Input and judgment samples
# =============================================================================================

def load(data_dir, coll: Collection, rankings: bool = False):
    """(qrels DataFrame, {run name: run DataFrame} in file-name order), and with ``rankings`` also {run
    name: its :class:`ir_rbstar.io.Ranking`}, the columnar form the runs are read (and validated) in and
    :func:`compute_collection` evaluates."""
    data_dir = Path(data_dir)
    paths = sorted(Path(data_dir, coll.runs).glob("*.gz"))
    if not paths:
        raise FileNotFoundError(f"no runs (*.gz) in {Path(data_dir, coll.runs)}")
    qrels = ir_rbstar.read_qrels(str(data_dir / coll.qrels))
    read = {p.name[:-len(".gz")]: _docblock.read_ranking(p) for p in paths}
    runs = {name: ranking_frame(r) for name, r in read.items()}           # = ir_rbstar.read_run
    return (qrels, runs, read) if rankings else (qrels, runs)


def sample_qrels(qrels: pd.DataFrame, level: float, seed: int = SEED) -> pd.DataFrame:
    """The first ceil(level x n) of the n judgments of every topic, in an order drawn at random once
    (``numpy.random.default_rng(seed)``, one uniform number per qrels row in file order, rows sorted by
    it within each topic). The same order serves every level, so the samples are nested (25% within
    75% within 100%), and every topic keeps at least one judgment, so the query set is unchanged."""
    u = np.random.default_rng(seed).random(len(qrels))
    frame = qrels.reset_index(drop=True).assign(_u=u)
    frame = frame.sort_values(["query_id", "_u"], kind="stable")
    position = frame.groupby("query_id", sort=False).cumcount().to_numpy()
    size = frame.groupby("query_id", sort=False)["query_id"].transform("size").to_numpy()
    keep = position < np.ceil(level * size - 1e-9)
    return frame[keep].drop(columns="_u").sort_index().reset_index(drop=True)


# =============================================================================================
# Actual values per (run, topic)
# =============================================================================================

def top_k(run: pd.DataFrame, topics: Sequence[str]) -> pd.DataFrame:
    """The top 20 rows of every topic of ``topics`` in trec_eval's (and ir_rbstar's) order: score
    descending, ties by doc id descending; with a column ``rank`` (1-based)."""
    run = run[run["query_id"].isin(set(topics))]
    # rows scored at least as high as the 20th: every row that can be in the top 20, ties included
    place = run.groupby("query_id", sort=False)["score"].rank(method="min", ascending=False)
    top = run[place <= K].sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False],
                                      kind="stable")
    top = top.groupby("query_id", sort=False).head(K).copy()
    top["rank"] = top.groupby("query_id", sort=False).cumcount() + 1
    return top.reset_index(drop=True)


def matched_ndcg(top: pd.DataFrame, qrels: pd.DataFrame, topics: Sequence[str]) -> pd.Series:
    """Per topic, DCG@20 with MED's gains (2^g - 1) / 2^G (negative grades 0, unjudged 0) divided by
    MED's normaliser, eq. 17: the sum over i <= 20 of r_G / log2(i + 1). ``top`` is :func:`top_k` of
    the run; a topic the run lacks is 0. ``qrels``: a DataFrame, or its ``relevance`` column indexed by
    ``(query_id, doc_id)``, made once for every run (as :func:`compute_collection` does)."""
    grades = qrels if isinstance(qrels, pd.Series) else qrels.set_index(["query_id", "doc_id"])["relevance"]
    g = grades.reindex(pd.MultiIndex.from_frame(top[["query_id", "doc_id"]])).to_numpy(dtype=np.float64)
    gain = np.where(np.isnan(g), 0.0, (2.0 ** np.maximum(np.nan_to_num(g), 0.0) - 1.0) / 2.0 ** G)
    dcg = pd.Series(gain / np.log2(top["rank"].to_numpy() + 1.0), index=top["query_id"].to_numpy())
    norm = TOP * float(np.sum(1.0 / np.log2(np.arange(1, K + 1) + 1.0)))
    return (dcg.groupby(level=0).sum() / norm).reindex(list(topics), fill_value=0.0)


def standard_ndcg(top: pd.DataFrame, qrels, topics: Sequence[str]) -> pd.Series:
    """Per topic, ir_measures' nDCG@20 (pytrec_eval) of the run's top 20 (:func:`top_k`; nothing below
    rank 20 counts in nDCG@20); a topic the run lacks is 0. ``qrels``: a DataFrame, or an evaluator of
    :data:`STANDARD` made once by ``ir_measures.evaluator`` (converting Robust04's qrels for every run
    was a third of the script's time)."""
    m = ir_measures.parse_measure(STANDARD)
    evaluator = qrels if hasattr(qrels, "iter_calc") else ir_measures.evaluator([m], qrels)
    # pytrec_eval's dict of dicts built from the columns (ir_measures converts a DataFrame through a
    # namedtuple per row): the same rows and scores, so the same values
    run: Dict[str, Dict[str, float]] = {}
    for q, d, s in zip(top["query_id"].tolist(), top["doc_id"].tolist(), top["score"].tolist(), strict=True):
        run.setdefault(q, {})[d] = s
    values = {r.query_id: r.value for r in evaluator.iter_calc(run)}
    return pd.Series(values, dtype=np.float64).reindex(list(topics), fill_value=0.0)


def judged_share(tops: Dict[str, pd.DataFrame], qrels: pd.DataFrame, topics: Sequence[str]) -> pd.DataFrame:
    """Per (run, topic): rows in the top 20 and how many of them are judged."""
    keys = pd.MultiIndex.from_frame(qrels[["query_id", "doc_id"]])
    rows = []
    for name, top in tops.items():
        judged = pd.MultiIndex.from_frame(top[["query_id", "doc_id"]]).isin(keys)
        per = pd.DataFrame({"query_id": top["query_id"].to_numpy(), "judged": judged})
        counts = per.groupby("query_id").agg(rows=("judged", "size"), judged=("judged", "sum"))
        counts = counts.reindex(list(topics), fill_value=0)
        counts.index.name = "query_id"
        counts.insert(0, "run", name)
        rows.append(counts.reset_index())
    return pd.concat(rows, ignore_index=True)


# =============================================================================================
# MED over the pairs
# =============================================================================================

def unordered(frame: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The rows of ``ir_rbstar.med.pairwise`` whose run comes before its ref in ``names``."""
    index = {n: i for i, n in enumerate(names)}
    keep = frame["run"].map(index) < frame["ref"].map(index)
    return frame[keep]


def judged_pairs(rankings: Dict[str, Ranking], qrels: pd.DataFrame) -> pd.DataFrame:
    """:data:`MED_NDCG` (with judgments) of every unordered pair of runs on every query of ``qrels``, as
    the rows ``run, ref, query_id, value`` of ``ir_rbstar.med.pairwise`` whose run comes before its ref in
    ``rankings``' order. Computed for all pairs at once by ``ir_rbstar.matrices.pair_values`` (the
    distance matrices' path: each run prepared once, not once per pair; the values equal ``pairwise``'s,
    which tests/families/test_pair_matrices.py checks), which took a level of the study from 1.5 s to 0.1 s."""
    q = resolve_qrels(qrels)
    m = ir_rbstar.parse(MED_NDCG)[0]
    names = list(rankings)
    values = matrices.pair_values([rankings[n] for n in names], m, q, q.qcodes)      # pairs x queries
    x, y = np.triu_indices(len(names), k=1)
    n = len(q.qcodes)
    return pd.DataFrame({"run": np.repeat(np.array(names, dtype=object)[x], n),
                         "ref": np.repeat(np.array(names, dtype=object)[y], n),
                         "query_id": np.tile(QUERY_IDS.decode(q.qcodes).astype(str), len(x)),
                         "value": values.reshape(-1)})


def distinct_pairs(rankings: Dict[str, Ranking], measures: Sequence[str], qrels: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``ir_rbstar.med.pairwise(rankings, measures, qrels)`` (both orders of each pair) without
    a run against itself, which the family table does not use: 45 evaluations of Robust04's 10 runs
    instead of 55."""
    from ir_rbstar.med import pairwise
    return pairwise(rankings, " ".join(measures), qrels, self_pairs=False)


class Result(NamedTuple):
    coll: Collection
    names: List[str]
    topics: List[str]
    matrix: pd.DataFrame        # judgment-free MED-nDCG@20, mean over the topics
    per_topic: pd.DataFrame     # run, ref, query_id, MED at each level, actual, standard
    pairs: pd.DataFrame         # the same, means over the topics per pair (+ |mean differences|)
    judged: pd.DataFrame        # per (run, topic): rows in the top 20, judged ones
    family: Optional[pd.DataFrame]   # per pair: the judgment-free family's distances
    itself: Dict[str, float]    # judgment-free MED-nDCG@20 of a run against itself where it is not 0


def compute_collection(data_dir, coll: Collection, family: Optional[bool] = None) -> Result:
    """Everything the report shows of one collection; ``family`` (default: ``coll.family``) adds the
    judgment-free family's distances over the pairs."""
    family = coll.family if family is None else family
    qrels, runs, rankings = load(data_dir, coll, rankings=True)
    names = list(runs)
    topics = sorted(qrels["query_id"].unique())
    # the judgment-free measures: MED-nDCG@20 over every pair (the matrix, the 0% level, a run against a
    # copy of itself), the rest of the family over the pairs of different runs
    free_values = ir_rbstar.med.pairwise(rankings, MED_NDCG_FREE, qrels)
    if family:
        others = [m for m in FAMILY.values() if m != MED_NDCG_FREE]
        free_values = pd.concat([free_values, distinct_pairs(rankings, others, qrels)], ignore_index=True)
    matrix = ir_rbstar.med.matrix_of(free_values, MED_NDCG_FREE)
    own = free_values[(free_values["run"] == free_values["ref"])
                      & (free_values["measure"] == str(ir_rbstar.parse(MED_NDCG_FREE)[0]))]
    itself = {str(k): float(v) for k, v in own.groupby("run", sort=False)["value"].mean().items() if v != 0.0}

    per_topic = None
    for level in LEVELS:
        if level == 0.0:
            values = free_values[free_values["measure"] == str(ir_rbstar.parse(MED_NDCG_FREE)[0])]
        else:
            sample = qrels if level == 1.0 else sample_qrels(qrels, level)
            if sorted(sample["query_id"].unique()) != topics:
                raise AssertionError(f"the {level_name(level)} sample lost a topic")
            values = judged_pairs(rankings, sample)
        values = unordered(values, names)[["run", "ref", "query_id", "value"]]
        values = values.rename(columns={"value": level_name(level)})
        per_topic = values if per_topic is None else per_topic.merge(values, on=["run", "ref", "query_id"],
                                                                     how="outer", validate="1:1")
    tops = {n: top_k(r, topics) for n, r in runs.items()}
    grades = qrels.set_index(["query_id", "doc_id"])["relevance"]         # indexed once for every run
    matched = {n: matched_ndcg(t, grades, topics) for n, t in tops.items()}
    standard_evaluator = ir_measures.evaluator([ir_measures.parse_measure(STANDARD)],
                                               dicts.qrels_dict(resolve_qrels(qrels)))
    standard = {n: standard_ndcg(t, standard_evaluator, topics) for n, t in tops.items()}
    for column, per_run in (("actual", matched), ("standard", standard)):
        long = pd.concat({n: v for n, v in per_run.items()}, names=["run", "query_id"]).rename("v").reset_index()
        x = per_topic.merge(long, on=["run", "query_id"], how="left")["v"].to_numpy()
        y = per_topic.merge(long.rename(columns={"run": "ref"}), on=["ref", "query_id"], how="left")["v"].to_numpy()
        per_topic[column] = np.abs(x - y)
    index = {n: i for i, n in enumerate(names)}
    per_topic = per_topic.assign(_a=per_topic["run"].map(index), _b=per_topic["ref"].map(index))
    per_topic = per_topic.sort_values(["_a", "_b", "query_id"]).drop(columns=["_a", "_b"]).reset_index(drop=True)
    if per_topic.groupby(["run", "ref"]).size().ne(len(topics)).any():
        raise AssertionError("a pair lacks topics")

    columns = [level_name(x) for x in LEVELS] + ["actual", "standard"]
    pairs = per_topic.groupby(["run", "ref"], sort=False)[columns].mean().reset_index()
    mean_matched = {n: float(v.mean()) for n, v in matched.items()}
    mean_standard = {n: float(v.mean()) for n, v in standard.items()}
    pairs["actual_means"] = [abs(mean_matched[x] - mean_matched[y]) for x, y in zip(pairs["run"], pairs["ref"])]
    pairs["standard_means"] = [abs(mean_standard[x] - mean_standard[y]) for x, y in zip(pairs["run"], pairs["ref"])]
    pairs.attrs.update(matched=mean_matched, standard=mean_standard)

    fam = None
    if family:
        pair_index = pd.MultiIndex.from_frame(pairs[["run", "ref"]])
        cols = {}
        for label, measure in FAMILY.items():      # matrix_of gives 1 - RBO for RBO
            m = ir_rbstar.med.matrix_of(free_values, measure).stack()
            cols[label] = m.reindex(pair_index).to_numpy()
        fam = pd.DataFrame(cols, index=pair_index).reset_index()
    return Result(coll, names, topics, matrix, per_topic, pairs,
                  judged_share(tops, qrels, topics), fam, itself)


def compute(data_dir=DEFAULT_DATA, family: Optional[bool] = None) -> List[Result]:
    return [compute_collection(data_dir, coll, family=family) for coll in COLLECTIONS]


def violations(result: Result) -> Dict[str, int]:
    """Per level, the number of (pair, topic) values with MED below the actual difference."""
    pt = result.per_topic
    return {level_name(x): int((pt[level_name(x)] < pt["actual"] - TOL).sum()) for x in LEVELS}


# =============================================================================================
# Markdown
# =============================================================================================

def fmt(x: float, places: int = PLACES) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{places}f}"


def matrix_block(result: Result) -> str:
    m = result.matrix
    names = result.names
    n = len(names)
    head = ["#", "run"] + [str(i + 1) for i in range(n)] + ["nearest run"]
    align = "|---:|---|" + "---:|" * n + "---|"
    rows = []
    values = m.to_numpy()
    for i, name in enumerate(names):
        others = [(values[i, j], names[j]) for j in range(n) if j != i]
        near_v, near = min(others)
        rows.append([str(i + 1), f"`{name}`"] + [fmt(values[i, j], 3) for j in range(n)]
                    + [f"`{near}` ({near_v:.3f})"])
    iu = np.triu_indices(n, 1)
    pair_values = values[iu]
    order = np.argsort(pair_values, kind="stable")
    closest = [f"`{names[iu[0][k]]}` / `{names[iu[1][k]]}` ({pair_values[k]:.3f})" for k in order[:3]]
    farthest = [f"`{names[iu[0][k]]}` / `{names[iu[1][k]]}` ({pair_values[k]:.3f})" for k in order[::-1][:3]]
    mean_to_others = (values.sum(axis=1) - np.diag(values)) / (n - 1)
    lone = int(np.argmax(mean_to_others))
    text = [
        f"**Judgment-free MED-nDCG@20** (`{MED_NDCG_FREE}`, mean over the {len(result.topics)} topics; "
        f"columns numbered as the rows):",
        _docblock.md_table(head, align, rows),
        f"The {len(pair_values)} pairs range from {pair_values.min():.3f} to {pair_values.max():.3f} "
        f"(median {np.median(pair_values):.3f}). Closest: {', '.join(closest)}. Farthest: {', '.join(farthest)}. "
        f"Farthest from the others on average: `{names[lone]}` ({mean_to_others[lone]:.3f})."
        + " The diagonal is 0: a run is at distance 0 from itself."
        + ("" if not result.itself else " Evaluated against a copy of itself (`pairwise`), " + ", ".join(
            f"`{x}` gets {v:.3f}" for x, v in result.itself.items())
           + ": a run shorter than 20, whose positions after its last document are unseen documents that "
             "may differ between two copies of it."),
        f"![Judgment-free MED-nDCG@20 between the {result.coll.title} runs](img/med_{result.coll.key}.png)",
    ]
    return "\n\n".join(text)


def judged_sentence(result: Result) -> str:
    j = result.judged
    rows, judged = int(j["rows"].sum()), int(j["judged"].sum())
    full = (j["rows"] == K) & (j["judged"] == K)
    depth = j.groupby("run", sort=False)["rows"].agg(["min", "max"])
    short = depth[depth["min"] < K]
    pt = result.per_topic
    complete = pd.Series(full.to_numpy(), index=pd.MultiIndex.from_frame(j[["run", "query_id"]]))
    pair_full = (complete.loc[pd.MultiIndex.from_arrays([pt["run"], pt["query_id"]])].to_numpy()
                 & complete.loc[pd.MultiIndex.from_arrays([pt["ref"], pt["query_id"]])].to_numpy())
    equal = np.isclose(pt["100%"], pt["actual"], rtol=0, atol=1e-12)
    text = (f"Of the {rows:,} documents in the runs' top 20 over the {len(result.topics)} topics, "
            f"{rows - judged:,} ({100 * (rows - judged) / rows:.1f}%) are unjudged; "
            f"{int(full.sum()):,} of the {len(j):,} (run, topic) top-20 lists are judged throughout.")
    if len(short):
        text += " Shorter than 20: " + ", ".join(
            f"`{n}` ({int(d['min'])} to {int(d['max'])} documents per topic)" for n, d in short.iterrows()) + "."
    text += (f" With 100% of the judgments MED equals the actual difference on {int(equal.sum()):,} of the "
             f"{len(pt):,} (pair, topic) values; {int(pair_full.sum()):,} of them have both lists judged to "
             f"depth 20, and there MED equals the actual difference "
             f"{'in every case' if equal[pair_full].all() else 'NOT in every case (a bug)'}.")
    return text


def shallow_runs(result: Result) -> List[str]:
    """The runs with fewer than 20 documents on some topic."""
    j = result.judged
    return [n for n in result.names if (j.loc[j["run"] == n, "rows"] < K).any()]


def levels_block(result: Result) -> str:
    p, pt = result.pairs, result.per_topic
    n_pairs = len(p)
    bad = violations(result)
    rows = []
    for level in LEVELS:
        c = level_name(level)
        above = int((p[c] >= p["actual"] - TOL).sum())
        rows.append([c, fmt(p[c].mean()), fmt((p[c] - p["actual"]).mean()), f"{above} of {n_pairs}",
                     f"{bad[c]} of {len(pt):,}",
                     fmt(pearson(p[c], p["actual"])), fmt(ranking_agreement(p[c], p["actual"]).tau_b),
                     fmt(pearson(p[c], p["standard"])), fmt(ranking_agreement(p[c], p["standard"]).tau_b),
                     fmt(pearson(p[c], p["standard_means"])), fmt(ranking_agreement(p[c], p["standard_means"]).tau_b)])
    head = ["judgments", "mean MED", "mean MED - actual", "pairs with MED >= actual",
            "(pair, topic) values with MED < actual", "Pearson r", "Kendall tau-b",
            "r, ir_measures nDCG@20", "tau-b, ir_measures nDCG@20",
            "r, abs. diff. of mean nDCG@20", "tau-b, abs. diff. of mean nDCG@20"]
    align = "|---|" + "---:|" * (len(head) - 1)
    total_bad = sum(bad.values())
    warning = ("" if total_bad == 0 else
               f"\n\n**WARNING: MED is below the actual difference {total_bad} times. MED is a maximum over "
               "every relevance assignment consistent with the judgments, the true one included; this is a "
               "bug.**")
    shallow = shallow_runs(result)
    without = ""
    if shallow:
        q = p[~p["run"].isin(shallow) & ~p["ref"].isin(shallow)]
        without = (f"Without {', '.join(f'`{x}`' for x in shallow)} (shorter than 20; {len(q)} pairs), "
                   f"Pearson r at " + "/".join(level_name(x) for x in LEVELS) + " of the judgments is "
                   + "/".join(fmt(pearson(q[level_name(x)], q["actual"]), 3) for x in LEVELS)
                   + ", Kendall tau-b "
                   + "/".join(fmt(ranking_agreement(q[level_name(x)], q["actual"]).tau_b, 3) for x in LEVELS)
                   + ", and r with the |difference of the mean nDCG@20| (ir_measures) "
                   + "/".join(fmt(pearson(q[level_name(x)], q["standard_means"]), 3) for x in LEVELS) + ".")
    text = [
        f"**MED-nDCG@20 against the actual difference** ({n_pairs} pairs, means over the "
        f"{len(result.topics)} topics; the actual difference is the mean per-topic |difference| of DCG@20 "
        f"with MED's gains and normaliser, its mean over the pairs {fmt(p['actual'].mean())}; the last "
        f"four columns correlate MED with ir_measures' nDCG@20 instead, as the mean per-topic |difference| "
        f"and as the |difference| of the two runs' mean nDCG@20):" + warning,
        _docblock.md_table(head, align, rows),
        judged_sentence(result) + (" " + without if without else ""),
        f"![MED-nDCG@20 against the actual difference, {result.coll.title}](img/med_fig2_{result.coll.key}.png)",
    ]
    return "\n\n".join(text)


def family_block(result: Result) -> str:
    fam = result.family
    labels = list(FAMILY)
    head = ["", *labels]
    align = "|---|" + "---:|" * len(labels)
    rows = []
    for i, x in enumerate(labels):
        cells = []
        for j, y in enumerate(labels):
            if i == j:
                cells.append("")
            elif i < j:
                cells.append(fmt(pearson(fam[x], fam[y]), 3))
            else:
                cells.append(fmt(ranking_agreement(fam[x], fam[y]).tau_b, 3))
        rows.append([x] + cells)
    spread = ", ".join(f"{x} {fam[x].min():.3f}-{fam[x].max():.3f}" for x in labels)
    return "\n\n".join([
        f"**{result.coll.title}**, {len(fam)} pairs (above the diagonal Pearson r, below Kendall tau-b):",
        _docblock.md_table(head, align, rows),
        f"Range over the pairs: {spread}.",
    ])


def report(results: List[Result]) -> str:
    parts = [
        f"Judgment samples: `numpy.random.default_rng({SEED})`, nested, ceil(share x n) of the n "
        f"judgments of every topic (so no topic is lost). Gains 0, 1/4, 3/4 (max_rel = {G}); MED with "
        f"judgments is `{MED_NDCG}` with the sampled qrels, 0% is `{MED_NDCG_FREE}` with the full qrels."
    ]
    for r in results:
        parts.append(f"### {r.coll.title}: {len(r.names)} {r.coll.what}, {len(r.topics)} topics")
        parts.append(matrix_block(r))
        parts.append(levels_block(r))
    with_family = [r for r in results if r.family is not None]
    if with_family:
        parts.append("### The judgment-free family compared (Fig. 3 analogue)")
        parts.append("Every measure judgment-free (`judgments=False`), the mean over the topics per pair: "
                     + ", ".join(f"{label} = `{m}`" for label, m in FAMILY.items()) + ".")
        parts.extend(family_block(r) for r in with_family)
    return "\n\n".join(parts)


# =============================================================================================
# Pictures
# =============================================================================================

def draw(results: List[Result], out_dir=IMG) -> List[Path]:
    from ir_rbstar.plots import plot_distance_matrix
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    written = []
    for r in results:
        path = Path(out_dir, f"med_{r.coll.key}.png")
        fig = plot_distance_matrix(r.matrix, path=path, title=(
            f"{r.coll.title}: judgment-free MED-nDCG@20 between {len(r.names)} runs ({len(r.topics)} topics)"))
        plt.close(fig)
        written.append(path)

        p = r.pairs
        fig, axes = plt.subplots(2, 2, figsize=(10, 8), sharex=True, sharey=True, constrained_layout=True)
        # the axes are scaled apart (the actual differences are much smaller than judgment-free MED);
        # the dashed line is MED = actual, which no point may lie below
        x_hi = float(p["actual"].max()) * 1.08
        y_hi = float(p[[level_name(x) for x in LEVELS]].to_numpy().max()) * 1.05
        for ax, level, letter in zip(axes.ravel(), LEVELS, "abcd"):
            c = level_name(level)
            ax.plot([0, x_hi], [0, x_hi], color="grey", linewidth=0.8, linestyle="--", label="MED = actual")
            ax.scatter(p["actual"], p[c], s=14, alpha=0.75, color="C0", edgecolors="none")
            ax.set_title(f"({letter}) {c} of the judgments: r = {pearson(p[c], p['actual']):.2f}, "
                         f"tau-b = {ranking_agreement(p[c], p['actual']).tau_b:.2f}", fontsize="medium")
            ax.set_xlim(0, x_hi)
            ax.set_ylim(0, y_hi)
            ax.grid(True, linewidth=0.3, alpha=0.5)
        for ax in axes[1]:
            ax.set_xlabel("actual |nDCG@20 difference| (mean over topics)")
        for ax in axes[:, 0]:
            ax.set_ylabel("MED-nDCG@20 (mean over topics)")
        axes[0, 0].legend(loc="lower right", fontsize="small")
        fig.suptitle(f"{r.coll.title}: MED-nDCG@20 against the actual difference, {len(p)} pairs of "
                     f"{len(r.names)} runs")
        path = Path(out_dir, f"med_fig2_{r.coll.key}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def main(argv: Optional[List[str]] = None) -> int:
    parser = _docblock.report_parser(__doc__, "--data", DEFAULT_DATA,
                                     "folder with robust04/ and robust03/ (default: %(default)s)",
                                     DOC, REPO, also="and draw the pictures")
    parser.add_argument("--img", default=str(IMG), help="folder of the pictures (default: %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when the block of --doc differs from what is computed now")
    args = parser.parse_args(argv)
    data_dir = Path(args.data)
    if _docblock.data_missing([data_dir / part for c in COLLECTIONS for part in (c.qrels, c.runs)]):
        return 2
    results = compute(data_dir)
    for r in results:
        bad = violations(r)
        if any(bad.values()):
            print(f"\n*** {r.coll.title}: MED-nDCG@20 BELOW THE ACTUAL DIFFERENCE: {bad} (pair, topic) values. "
                  "MED is a maximum; this is a bug. ***\n", file=sys.stderr)
    block = report(results)
    if args.check:
        current = generated_block(Path(args.doc).read_text())
        if current != block:
            print(f"{args.doc} is stale: run  python -m scripts.med_report --write", file=sys.stderr)
            return 1
        print(f"{args.doc} is current", file=sys.stderr)
        return 0
    _docblock.print_report(args, block, START, END)
    if args.write:
        for path in draw(results, args.img):
            print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
