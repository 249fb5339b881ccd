#!/usr/bin/env python3
"""Twist on real runs: run archetypes (Table 2) and system-ranking correlations (Table 4)
of Ferro, Silvello, Keskustalo, Pirkola & Järvelin (JASIST 2016, doi:10.1002/asi.23416).

For TREC DL 2019 passage (37 runs, 43 judged topics, grades 0-3) and Robust04 (10 official TREC 2004
runs and 8 later research runs, 249 judged topics, grades 0-2), the script computes per run and topic
the Twist analysis with :func:`ir_rbstar.twist.twist_table` (whole runs, no cutoff) and AP(rel=...) and
nDCG (whole run depth, gain = grade) by trec_eval's definitions (:func:`gain_measures`, whole columns of
the runs as read; the tests compare them with pytrec_eval's), then three tables:

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

from ir_rbstar.io import QUERY_IDS, Qrels, read_trec_qrels
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


def crp_crossings(qrels_df: pd.DataFrame, frame: pd.DataFrame, rel: int) -> pd.DataFrame:
    """An independent computation of the CRP curves of one run (pandas and numpy, not ir_rbstar's
    kernels), condensed to one row per query of ``frame``: ``query_id``, ``first_touch`` (the first
    crossing by ir_rbstar's rule: CRP[j] and CRP[j+1] on opposite sides of zero, zero counting as both
    sides; as in ir_rbstar, a curve that ends on zero without a crossing crosses at N), ``first_sign_change`` (the first crossing by the rule of the MATTERS toolkit's twist.m, which
    computed the paper's tables: CRP[j] > 0 and CRP[j+1] <= 0 or the reverse, so zero counts as the
    negative side and a CRP that only touches zero does not cross); both 0 when there is none; and
    ``crp_at_rb``, CRP at position min(RB, N).

    ``frame`` holds ``query_id, doc_id`` in trec_eval order (contiguous per query) for queries with a
    recall base >= 1 at ``rel``; the grade of each row (0 where unjudged) is looked up here with a pandas
    merge. :func:`collection_pairs` calls :func:`crp_first_crossings` directly on a run's columns."""
    rows = frame[["query_id", "doc_id"]].merge(qrels_df[["query_id", "doc_id", "relevance"]],
                                               on=["query_id", "doc_id"], how="left")
    grades = rows["relevance"].fillna(0).to_numpy(np.int64)
    q = frame["query_id"].to_numpy(dtype=object)
    n = len(q)
    new = np.r_[True, q[1:] != q[:-1]] if n else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    qids = q[starts]
    counts = qrels_df[qrels_df["relevance"] >= 0].groupby(["query_id", "relevance"]).size().unstack(fill_value=0)
    top = max(int(counts.columns.max()) if len(counts.columns) else 0, rel)
    counts = counts.reindex(index=qids, columns=range(top + 1), fill_value=0).to_numpy(np.int64)
    first = crp_first_crossings(np.r_[starts, n], np.asarray(grades, dtype=np.int64), counts, rel)
    return pd.DataFrame({"query_id": qids, **first})


def crp_first_crossings(offsets: np.ndarray, grades: np.ndarray, counts: np.ndarray, rel: int) -> Dict[str, np.ndarray]:
    """:func:`crp_crossings` on columns: the rows of a run in trec_eval order, query ``s`` in rows
    ``offsets[s]:offsets[s + 1]`` (each query at least one row), ``grades`` of the rows (0 where unjudged),
    ``counts[s, g]``: the number of judgments of grade ``g`` of query ``s``. Returns ``first_touch``,
    ``first_sign_change`` and ``crp_at_rb``, one value per query. Every step is a whole-column operation
    over the run's rows (segments of queries)."""
    n = int(offsets[-1])
    starts = np.asarray(offsets[:-1], dtype=np.int64)
    length = np.diff(offsets).astype(np.int64)
    nq = len(starts)
    seg = np.repeat(np.arange(nq), length)                # the row's query (segment), 0-based
    pos = np.arange(1, n + 1) - starts[seg]               # 1-based position within the query
    counts = np.asarray(counts, dtype=np.int64).copy()
    counts[:, :rel] = 0                                   # only grades >= rel are relevant
    rb = counts.sum(axis=1)
    # the band of each relevant grade in the ideal run: positions [hi - n + 1, hi], grades descending
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
        first[name] = np.zeros(nq, dtype=np.int64)
        which, at = np.unique(seg[rows], return_index=True)   # rows ascend: the first pair of each query
        first[name][which] = pos[rows[at]]
    # that rule looks at pairs only; ir_rbstar adds that a curve ending on the axis without having
    # crossed crosses at N (possible only for N = 1): the same here
    ends_on_axis = (first["first_touch"] == 0) & (crp[starts + length - 1] == 0)
    first["first_touch"][ends_on_axis] = length[ends_on_axis]
    first["crp_at_rb"] = crp[starts + np.minimum(rb, length) - 1].astype(np.int64)
    return first


def archetype_by_sign_change(pairs: pd.DataFrame) -> pd.Series:
    """The archetype of each pair when crossings follow the MATTERS rule (``first_sign_change``):
    ideal, worst and full-scale as by ir_rbstar; otherwise excellent / up and down for a first crossing
    at or before RB (CRP at min(RB, N) >= 0 or < 0), typical A after RB, typical B without crossing."""
    fc = pairs["first_sign_change"]
    early = np.where(pairs["crp_at_rb"] >= 0, "excellent", "up_and_down")
    other = np.where(fc == 0, "typical_b", np.where(fc > pairs["recall_base"], "typical_a", early))
    fixed = pairs["archetype"].isin(["ideal", "worst", "full_scale"])
    return pd.Series(np.where(fixed, pairs["archetype"], other), index=pairs.index)


class Judgments(NamedTuple):
    """A collection's qrels arranged for this script's own lookups (pandas' hash tables, not ir_rbstar's
    index): the judged documents' 64-bit id hashes (as the reader gives them) with their ids; the key
    ``query code x len(docs) + document`` of every judgment, with its grade; the number of judgments per
    query code and grade; and the ideal DCG per query code (trec_eval's ``ndcg``: every judged grade > 0
    as gain, in descending order)."""
    hashes: pd.Index
    docs: np.ndarray
    keys: pd.Index
    grades: np.ndarray
    counts: np.ndarray
    ideal_dcg: np.ndarray


def judgments(qrels: Qrels) -> Judgments:
    """:class:`Judgments` of ``qrels`` (read by ``ir_rbstar.io.read_trec_qrels``); ValueError if two
    document ids share a hash or a query judges a document twice."""
    hashes, first, doc = np.unique(qrels.rowd, return_index=True, return_inverse=True)
    doc = doc.ravel()
    docs = qrels.rowb[first]
    if not (docs[doc] == qrels.rowb).all():
        raise ValueError(f"{qrels.source}: two document ids with the same 64-bit hash")
    q = qrels.rowq.astype(np.int64)
    key = q * len(docs) + doc
    grades = qrels.grades.astype(np.int64)
    keys = pd.Index(key)
    if not keys.is_unique:
        raise ValueError(f"{qrels.source}: a document judged twice for one query")
    nq = int(q.max(initial=-1)) + 1
    ok = grades >= 0
    counts = np.zeros((nq, max(int(grades.max(initial=0)), 0) + 1), dtype=np.int64)
    np.add.at(counts, (q[ok], grades[ok]), 1)
    # ideal DCG: per query the grades > 0 in descending order, added one by one in that order (bincount
    # adds the weights of a bin in array order, as trec_eval's loop does)
    gained = np.flatnonzero(grades > 0)
    ideal = gained[np.lexsort((-grades[gained], q[gained]))]
    iq = q[ideal]
    new = np.r_[True, iq[1:] != iq[:-1]] if len(iq) else np.zeros(0, dtype=bool)
    start = np.flatnonzero(new)
    rank = np.arange(1, len(iq) + 1) - start[np.cumsum(new) - 1]
    ideal_dcg = np.bincount(iq, weights=grades[ideal] / np.log2(rank + 1.0), minlength=nq)
    return Judgments(pd.Index(hashes), docs, keys, grades, counts, ideal_dcg)


def row_grades(judged: Judgments, qcodes: np.ndarray, dhash: np.ndarray, dbytes: np.ndarray) -> np.ndarray:
    """The grade of every row (query code, document id hash, document id) of a run, 0 where unjudged:
    two lookups in :class:`Judgments`' hash tables, a found document's id compared in full."""
    doc = judged.hashes.get_indexer(dhash)
    found = doc >= 0
    found[found] = judged.docs[doc[found]] == dbytes[found]
    at = judged.keys.get_indexer(qcodes.astype(np.int64) * len(judged.docs) + doc)
    found &= at >= 0
    return np.where(found, judged.grades[at], 0)


def gain_measures(offsets: np.ndarray, grades: np.ndarray, qcodes: np.ndarray, judged: Judgments,
                  rels: Sequence[int]) -> Dict[tuple, np.ndarray]:
    """AP(rel=r) for every r of ``rels`` and nDCG (whole depth, gain = grade) per query of a run, by
    trec_eval's definitions (as pytrec_eval computes ``map`` and ``ndcg``; the tests compare): the rows in
    trec_eval order, query ``s`` (code ``qcodes[s]``) in rows ``offsets[s]:offsets[s + 1]``, ``grades``
    as :func:`row_grades` gives them. AP sums precision at each relevant row, in rank order, and divides
    by the number of judged relevant documents; nDCG divides the DCG (gain / log2(rank + 1)) by the
    ideal DCG. Keys ``("AP", r)`` and ``("nDCG", None)``, one value per query (0 without relevant
    judgments, as trec_eval)."""
    length = np.diff(offsets).astype(np.int64)
    nq = len(length)
    seg = np.repeat(np.arange(nq), length)
    rank = np.arange(1, int(offsets[-1]) + 1) - np.asarray(offsets[:-1], dtype=np.int64)[seg]
    out: Dict[tuple, np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for rel in rels:
            relevant = grades >= rel
            total = np.cumsum(relevant)
            found = total - (total[offsets[:-1]] - relevant[offsets[:-1]])[seg]   # relevant rows so far
            rows = np.flatnonzero(relevant)
            summed = np.bincount(seg[rows], weights=found[rows] / rank[rows], minlength=nq)
            num_rel = judged.counts[qcodes, rel:].sum(axis=1)
            out["AP", rel] = np.where(num_rel > 0, summed / num_rel, 0.0)
        rows = np.flatnonzero(grades > 0)
        dcg = np.bincount(seg[rows], weights=grades[rows] / np.log2(rank[rows] + 1.0), minlength=nq)
        ideal = judged.ideal_dcg[qcodes]
        out["nDCG", None] = np.where(ideal > 0, dcg / ideal, 0.0)
    return out


def collection_pairs(data_dir, coll: Collection) -> pd.DataFrame:
    """One row per (rel, run, topic of the qrels): ``collection, rel, group, run, query_id, recall_base,
    length, first_crossing, archetype`` and ``Twist, Twist_rho, Twist_sigma`` (from twist_table), ``AP, nDCG``
    (:func:`gain_measures`), ``first_touch, first_sign_change, crp_at_rb`` (from this script's own CRP
    curves, :func:`crp_first_crossings`, on grades of its own lookup, :func:`row_grades`),
    ``archetype_sign_change``, and ``Twist_rho_sc, Twist_sc`` (rho and Twist with the MATTERS crossing
    rule, the same sigma). Topics with recall base 0 at that ``rel`` are left out (Twist has no value
    there). Topics missing from a run get 0 for AP and nDCG (ir_measures' convention; twist_table gives
    them 0 and the archetype worst)."""
    data_dir = Path(data_dir)
    qrels = read_trec_qrels(str(data_dir / coll.qrels))
    judged = judgments(qrels)
    parts: Dict[str, list] = {}
    for group, folder in coll.groups:
        for path in _runs(data_dir, folder):
            ranking = _docblock.read_ranking(path)
            # the run's queries that have judgments, their rows (in trec_eval order) and grades
            keep_seg = np.isin(ranking.qcodes, qrels.rowq)
            lengths = np.diff(ranking.offsets)[keep_seg]
            offsets = np.r_[0, np.cumsum(lengths)]
            rows = np.flatnonzero(keep_seg[ranking.row_segments()])
            qcodes = ranking.qcodes[keep_seg]
            grades = row_grades(judged, np.repeat(qcodes, lengths), ranking.docs[rows], ranking.dbytes[rows])
            gain = gain_measures(offsets, grades, qcodes, judged, coll.rels)
            mine = pd.Index(QUERY_IDS.decode(qcodes))
            for rel in coll.rels:
                tw = twist_table(qrels, ranking, rel=rel)
                tw = tw[tw["recall_base"].to_numpy() >= 1]
                at = mine.get_indexer(tw["query_id"])        # -1: a topic missing from the run
                there = at >= 0
                own = crp_first_crossings(offsets, grades, judged.counts[qcodes], rel)
                n = len(tw)
                columns = {
                    "collection": np.full(n, coll.key, dtype=object), "rel": np.full(n, rel),
                    "group": np.full(n, group, dtype=object), "run": np.full(n, path.name[:-len(".gz")], dtype=object),
                    "query_id": tw["query_id"].to_numpy(dtype=object), "recall_base": tw["recall_base"].to_numpy(),
                    "length": tw["length"].to_numpy(), "first_crossing": tw["first_crossing"].to_numpy(),
                    "archetype": tw["archetype"].to_numpy(dtype=object), "Twist": tw["tau"].to_numpy(),
                    "Twist_rho": tw["rho"].to_numpy(), "Twist_sigma": tw["sigma"].to_numpy()}
                for name, key in (("AP", ("AP", rel)), ("nDCG", ("nDCG", None))):
                    columns[name] = np.where(there, gain[key][at], 0.0)
                # a topic missing from the run has no curve: no crossing
                for name in ("first_touch", "first_sign_change", "crp_at_rb"):
                    columns[name] = np.where(there, own[name][at], 0).astype(np.int64)
                for name, values in columns.items():
                    parts.setdefault(name, []).append(values)
    out = pd.DataFrame({name: np.concatenate(values) for name, values in parts.items()})
    out["archetype_sign_change"] = archetype_by_sign_change(out)
    rb, fc = out["recall_base"].to_numpy(), out["first_sign_change"].to_numpy()
    # the all-zero curve of an ideal ordering has rho = 1 under both rules
    rho_sc = np.where(out["archetype"] == "ideal", 1.0, np.where(fc > 0, rb / np.maximum(rb, fc), 0.0))
    out["Twist_rho_sc"] = rho_sc
    out["Twist_sc"] = (rho_sc + out["Twist_sigma"].to_numpy()) / 2.0
    return out


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
                row[f"{x} vs {y}"] = _docblock.tau_b(m[x], m[y])
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
                    "tau_b": _docblock.tau_b(twist, g), "cuts": tuple(float(c) for c in cuts),
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
