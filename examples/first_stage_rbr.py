#!/usr/bin/env python3
"""First-stage retrieval judged by rank-biased recall on TREC DL 2019 passage: section 3 of Moffat,
Mackenzie, Mallia & Petri (SIGIR-AP 2024, doi:10.1145/3673791.3698405), the Fig. 3 experiment and the
"Experimental Design" sweep, on real data.

A first stage hands a *set* of k' documents to a re-ranker. The reference ranking R is what the
re-ranker makes of them: here the monoT5-3b re-ranking of a BM25 top-1000 pool
(``rerank/maik-froebe-mono-t5-3b-run.txt.gz``, the 43 judged queries). R10 is its top 10. The script
computes

1. **the Fig. 3 analogue.** B = the top 20 of a ranking, per query (run order: score descending, ties
   by doc id descending, as the package evaluates runs). Observations with Recall(B | R10) = 0.8 (8 of
   R10 in B) and 0.9 are kept and scored with ``RBR(p=0.8,ref=R10)@20`` ("base"), its ``RBR_res``
   and ``RBR(p=0.8,ref=R)@20`` ("full"). They are grouped by which items of R10 were missed. The check
   base <= full and full + RBR_res(R) <= base + RBR_res(R10) runs on every observation; a violation
   makes the script exit with status 1. The rankings: the ten first stages below plus the other 29
   official DL19 runs, as extra observations;
2. **RBR against k'.** For each of the ten first stages (the eight official BM25 runs ``bm25base_p``,
   ``bm25tuned_p`` and their ``_ax``, ``_prf``, ``_rm3`` variants; the ColBERT and SPLADE orderings of
   the BM25 pool, ``rerank/maik-froebe-{colbert,splade}-run.txt.gz``): the mean over the 43 queries of
   ``RBR(p,ref=R)@k'`` and ``RBR_res`` for k' in 5 ... 1000 and p = 0.8 and 0.95, with the Pareto
   frontier over (cost, RBR) where cost = k', the number of documents the second stage re-scores.
   The data has no timings, so k' is the only cost.

R10 is the reference's top 10 in the same order (score descending, ties by doc id descending). A
query whose reference has fewer than 10 documents, or tied scores at ranks 10 and 11 (so that "the
top 10" is not one set), is left out of part 1 and named in the report; ties inside R10 are kept and
shared as the package shares them. All RBR values come from ``ir_measures`` with the references
registered by ``ir_rbstar.register_run``.

It prints a Markdown block and, with ``--write``, puts it between the marker comments of
docs/first_stage.md and draws docs/img/first_stage_fig3.png and first_stage_rbr_cost.png.
``--check`` exits with status 1 when the block in docs/first_stage.md differs from what the script
computes now.

    python -m examples.first_stage_rbr            # print the block (Markdown)
    python -m examples.first_stage_rbr --write    # also update docs/first_stage.md and the pictures
    python -m examples.first_stage_rbr --check    # is docs/first_stage.md current?

The runs are NIST submissions and third-party runs that may not be copied into this repository; they
are read from ``../shared/data`` (or ``--data``). Only derived numbers and pictures are written.
"""
from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

import ir_measures
import ir_rbstar
from ir_rbstar.plots import pareto_frontier
from ir_rbstar.stats import ranking_agreement

try:    # what the report scripts share: the docs' marker block, --write/--doc
    from scripts import _docblock
except ModuleNotFoundError as error:
    if error.name != "scripts":
        raise
    raise SystemExit("run from the repository root: python -m examples.first_stage_rbr [--write | --check]") from None

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = _docblock.SHARED_DATA
DOC = REPO / "docs" / "first_stage.md"
IMG = REPO / "docs" / "img"
START, END, generated_block, replace_block = _docblock.markers("first-stage-report")

FOLDER = "dl19-passage"
QRELS = f"{FOLDER}/qrels.dl19-passage.txt"
RUNS = f"{FOLDER}/runs"
REFERENCE = f"{FOLDER}/rerank/maik-froebe-mono-t5-3b-run.txt.gz"
#: the first stages: the official BM25 runs (file runs/<name>.gz) and two orderings of the BM25 pool
BM25_RUNS = ("bm25base_p", "bm25base_ax_p", "bm25base_prf_p", "bm25base_rm3_p",
             "bm25tuned_p", "bm25tuned_ax_p", "bm25tuned_prf_p", "bm25tuned_rm3_p")
POOL_ORDERINGS = {"colbert": f"{FOLDER}/rerank/maik-froebe-colbert-run.txt.gz",
                  "splade": f"{FOLDER}/rerank/maik-froebe-splade-run.txt.gz"}
FIRST_STAGE = "first stage"
OTHER = "other official run"

K = 10                          # the re-ranker's output: R10
K_PRIME = 20                    # |B| in the Fig. 3 experiment
P_FIG3 = 0.8
HITS = (8, 9)                   # Recall(B | R10) = 0.8 and 0.9
K_PRIMES = (5, 10, 20, 50, 100, 200, 500, 1000)
PERSISTENCES = (0.8, 0.95)
PLACES = 4
TOL = 1e-12
#: names under which the references are registered while the script runs
REF_CUT = "first_stage_rbr:R10"
REF_FULL = "first_stage_rbr:R"
PICTURES = ("first_stage_fig3.png", "first_stage_rbr_cost.png")


class Data(NamedTuple):
    qrels: pd.DataFrame
    reference: pd.DataFrame
    runs: Dict[str, pd.DataFrame]          # every ranking, by name
    kind: Dict[str, str]                   # name -> FIRST_STAGE or OTHER


def first_stage_names() -> List[str]:
    return list(BM25_RUNS) + list(POOL_ORDERINGS)


def load(data_dir=DEFAULT_DATA) -> Data:
    """The qrels, the reference, and every ranking (the ten first stages, then the other official runs
    by name), each restricted to the queries of the reference; ValueError when the reference's queries
    are not the judged queries."""
    data_dir = Path(data_dir)
    qrels = ir_rbstar.read_qrels(str(data_dir / QRELS))
    reference = ir_rbstar.read_run(str(data_dir / REFERENCE))
    queries = set(reference["query_id"])
    if queries != set(qrels["query_id"]):
        raise ValueError(f"{REFERENCE}: its {len(queries)} queries are not the {qrels['query_id'].nunique()} "
                         f"judged queries of {QRELS}")
    paths = {name: data_dir / RUNS / f"{name}.gz" for name in BM25_RUNS}
    paths.update({name: data_dir / rel for name, rel in POOL_ORDERINGS.items()})
    kind = {name: FIRST_STAGE for name in paths}
    for path in sorted(Path(data_dir, RUNS).glob("*.gz")):
        name = path.name[:-len(".gz")]
        if name not in paths:
            paths[name], kind[name] = path, OTHER
    # read through _docblock.read_ranking: once per session while the test suite keeps DL19's runs
    runs = {name: _docblock.judged_frame(_docblock.read_ranking(path), queries) for name, path in paths.items()}
    return Data(qrels, reference, runs, kind)


# =============================================================================================
# Part 1: the Fig. 3 analogue
# =============================================================================================

def ranked(run: pd.DataFrame) -> pd.DataFrame:
    """``run`` (query_id, doc_id, score) in the order the package evaluates it (per query: score
    descending, ties by doc id descending, trec_eval's order) with a column ``rank`` (1, 2, ...)."""
    out = run[["query_id", "doc_id", "score"]].sort_values(["query_id", "score", "doc_id"],
                                                           ascending=[True, False, False], kind="stable")
    out = out.reset_index(drop=True)
    out["rank"] = out.groupby("query_id", sort=False).cumcount() + 1
    return out


def untied(order: pd.DataFrame) -> pd.DataFrame:
    """A run in :func:`ranked`'s order as strictly decreasing scores (-rank): one order, no ties."""
    return order[["query_id", "doc_id"]].assign(score=-order["rank"].astype(float))


def cut_reference(reference: pd.DataFrame, k: int = K) -> Tuple[pd.DataFrame, Dict[str, str]]:
    """(the reference's top ``k`` per query, with ``rank``; {query: why it was left out}). A query is
    left out when its reference has fewer than ``k`` documents or the same score at ranks k and k + 1
    (a tie across the cut: its top k is not one set)."""
    r = ranked(reference)
    size = r.groupby("query_id", sort=False).size()
    at_k = r[r["rank"] == k].set_index("query_id")["score"]
    after = r[r["rank"] == k + 1].set_index("query_id")["score"]
    dropped = {str(q): f"only {int(n)} reference documents" for q, n in size.items() if n < k}
    tied = at_k.index.intersection(after.index)
    for q in tied[(at_k[tied] == after[tied]).to_numpy()]:
        dropped[str(q)] = f"tied reference scores at ranks {k} and {k + 1}"
    cut = r[(r["rank"] <= k) & ~r["query_id"].isin(list(dropped))].reset_index(drop=True)
    return cut, dropped


def shared_weights(ranking: pd.DataFrame, p: float) -> np.ndarray:
    """RBR weight of every row of a ranked frame: (1-p) p^(rank-1), tied scores sharing the mean of
    their group's weights (Moffat et al. 2024, "Ties")."""
    w = pd.Series((1.0 - p) * p ** (ranking["rank"].to_numpy(dtype=np.float64) - 1.0), index=ranking.index)
    return w.groupby([ranking["query_id"], ranking["score"]], sort=False).transform("mean").to_numpy()


def missed_label(mask: int, k: int = K) -> str:
    """The ranks of R10 a bit mask of missed items names, e.g. 0b11 -> '1,2'."""
    return ",".join(str(i + 1) for i in range(k) if mask >> i & 1)


def _measures(p: float, k_prime: int) -> list:
    text = (f"RBR(p={p},ref='{REF_CUT}')@{k_prime} RBR_res(p={p},ref='{REF_CUT}')@{k_prime} "
            f"RBR(p={p},ref='{REF_FULL}')@{k_prime} RBR_res(p={p},ref='{REF_FULL}')@{k_prime}")
    return ir_rbstar.parse(text)


def observations(runs: Mapping[str, pd.DataFrame], reference: pd.DataFrame, p: float = P_FIG3, k: int = K,
                 k_prime: int = K_PRIME, kind: Optional[Mapping[str, str]] = None) -> pd.DataFrame:
    """One row per (ranking, query) whose top ``k_prime`` has ``k_prime`` documents: ``system, kind,
    query_id, hits`` (how many of the reference's top ``k`` are in B), ``recall`` (hits / k), ``missed``
    (bit i set: rank i + 1 of R_k missed), ``missed_ranks`` (e.g. '1,2'), ``base`` / ``base_res`` (RBR and
    RBR_res of B against R_k), ``full`` / ``full_res`` (against the whole reference). Queries left out
    by :func:`cut_reference` have no rows; ``attrs`` holds ``dropped`` (query -> why), ``short`` (how many
    (ranking, query) pairs had fewer than ``k_prime`` documents) and ``ref_sizes`` (|R| per query).

    The RBR values are the package's (``ir_measures.iter_calc`` with the references registered), on the run
    in trec_eval's order (its ties broken by document id, :func:`untied`: the observations count the hits
    of one set; the reference's ties stay shared). The hits come from the run's own top ``k_prime``; the
    base score recomputed from them must equal the package's, else ValueError (the two would disagree on
    the run's order or on the ties)."""
    cut, dropped = cut_reference(reference, k)
    kept = set(cut["query_id"])
    full_ref = reference[reference["query_id"].isin(kept)]
    ref_sizes = full_ref.groupby("query_id").size()
    cut = cut.assign(weight=shared_weights(cut, p))
    measures = _measures(p, k_prime)
    ir_rbstar.register_run(REF_CUT, cut[["query_id", "doc_id", "score"]])
    ir_rbstar.register_run(REF_FULL, full_ref)
    parts, short = [], 0
    try:
        for name, run in runs.items():
            run = run[run["query_id"].isin(kept)]
            if not len(run):
                continue
            order = ranked(run)
            top = order[order["rank"] <= k_prime]
            size = top.groupby("query_id").size()
            hit = top.merge(cut[["query_id", "doc_id", "rank", "weight"]].rename(columns={"rank": "ref_rank"}),
                            on=["query_id", "doc_id"], how="inner")
            hit["bit"] = np.left_shift(1, hit["ref_rank"].to_numpy(dtype=np.int64) - 1)
            per = hit.groupby("query_id").agg(hits=("bit", "size"), mask=("bit", "sum"), check=("weight", "sum"))
            per = per.reindex(size.index, fill_value=0)
            per["size"] = size
            values = pd.DataFrame([(m.query_id, str(m.measure), m.value)
                                   for m in ir_measures.iter_calc(measures, None, untied(top))],
                                  columns=["query_id", "measure", "value"])
            values = values.pivot(index="query_id", columns="measure", values="value")
            cols = [str(m) for m in measures]
            names = dict(zip(cols, ["base", "base_res", "full", "full_res"], strict=True))
            per = per.join(values[cols].rename(columns=names))
            off = per[(per["check"] - per["base"]).abs() > 1e-9]
            if len(off):
                q = off.index[0]
                raise ValueError(f"{name}, query {q}: RBR against R{k} is {off.loc[q, 'base']!r} but the top "
                                 f"{k_prime} holds items of R{k} worth {off.loc[q, 'check']!r}")
            short += int((per["size"] < k_prime).sum())
            per = per[per["size"] == k_prime]
            part = pd.DataFrame({
                "system": name, "kind": (kind or {}).get(name, FIRST_STAGE), "query_id": per.index.astype(str),
                "hits": per["hits"].to_numpy(dtype=np.int64), "recall": per["hits"].to_numpy() / k,
                "missed": ((1 << k) - 1) ^ per["mask"].to_numpy(dtype=np.int64),
                "base": per["base"].to_numpy(), "base_res": per["base_res"].to_numpy(),
                "full": per["full"].to_numpy(), "full_res": per["full_res"].to_numpy()})
            parts.append(part)
    finally:
        ir_rbstar.unregister_run(REF_CUT)
        ir_rbstar.unregister_run(REF_FULL)
    columns = ["system", "kind", "query_id", "hits", "recall", "missed", "base", "base_res", "full", "full_res"]
    obs = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
    labels = {m: missed_label(m, k) for m in set(obs["missed"].tolist())}
    obs.insert(6, "missed_ranks", obs["missed"].map(labels).astype(object))
    obs.attrs.update(dropped=dropped, short=short, ref_sizes=ref_sizes, p=p, k=k, k_prime=k_prime)
    return obs


def select(obs: pd.DataFrame, hits: int) -> pd.DataFrame:
    """The observations with exactly ``hits`` of R_k in B (Recall(B | R_k) = hits / k)."""
    out = obs[obs["hits"] == hits].reset_index(drop=True)
    out.attrs.update(obs.attrs)
    return out


def bound_violations(obs: pd.DataFrame, tol: float = TOL) -> Dict[str, int]:
    """How many observations break base <= full, and full + full_res <= base + base_res (the unseen part
    of R_k can hold at most what the whole reference puts there)."""
    return {"base > full": int((obs["base"] > obs["full"] + tol).sum()),
            "full + full_res > base + base_res": int((obs["full"] + obs["full_res"]
                                                      > obs["base"] + obs["base_res"] + tol).sum())}


def best_attainable(p: float, k: int, k_prime: int, hits: int) -> float:
    """The largest RBR(B | R) of a set B of ``k_prime`` items with exactly ``hits`` of R's top ``k``:
    R_1..R_hits and R_{k+1}..R_{k+k_prime-hits} (R must be that long)."""
    return (1.0 - p ** hits) + p ** k * (1.0 - p ** (k_prime - hits))


def paper_residual(p: float, k: int, hits: int) -> float:
    """The residual Moffat et al. 2024 describe for Fig. 3 ("always two items in B not appearing in R10 that at
    best could appear in positions R11 and R12"): p^k (1 - p^(k - hits))."""
    return p ** k * (1.0 - p ** (k - hits))


def fig3_summary(sel: pd.DataFrame) -> dict:
    """The numbers of one pane of the Fig. 3 analogue."""
    p, k, kp = sel.attrs["p"], sel.attrs["k"], sel.attrs["k_prime"]
    hits = int(sel["hits"].iloc[0])
    groups = sel.groupby("missed")["full"]
    ranges = (groups.max() - groups.min())[groups.size() >= 2]
    band = (sel["full"] - sel["base"]) / sel["base_res"]
    return {
        "hits": hits, "observations": len(sel), "first_stage": int((sel["kind"] == FIRST_STAGE).sum()),
        "queries": sel["query_id"].nunique(), "systems": sel["system"].nunique(),
        "groups": groups.ngroups, "possible": math.comb(k, k - hits),
        "base_min": float(sel["base"].min()), "base_max": float(sel["base"].max()),
        "base_distinct": sel["base"].round(12).nunique(), "full_distinct": sel["full"].round(12).nunique(),
        "residual": sorted(set(sel["base_res"].round(12))), "eq9": p ** k * (1.0 - p ** (kp - hits)),
        "multi": len(ranges), "range_median": float(ranges.median()) if len(ranges) else float("nan"),
        "range_max": float(ranges.max()) if len(ranges) else float("nan"),
        "band_median": float(band.median()), "band_max": float(band.max()),
        "violations": bound_violations(sel),
        "two_item": paper_residual(p, k, hits),
        "above_two_item": int((sel["full"] > sel["base"] + paper_residual(p, k, hits) + TOL).sum()),
        "best": best_attainable(p, k, kp, hits), "full_max": float(sel["full"].max()),
        "largest_group": (missed_label(int(groups.size().idxmax()), k), int(groups.size().max())),
    }


# =============================================================================================
# Part 2: RBR against k', the Pareto frontier
# =============================================================================================

def rbr_by_depth(runs: Mapping[str, pd.DataFrame], reference: pd.DataFrame, qrels: pd.DataFrame,
                 k_primes: Sequence[int] = K_PRIMES, ps: Sequence[float] = PERSISTENCES) -> pd.DataFrame:
    """One row per (first stage, p, k'): the mean over the queries of the qrels of
    ``RBR(p,ref=R)@k'`` and ``RBR_res(p,ref=R)@k'`` (a query the run lacks counts 0 and 1), and
    ``frontier``: on the Pareto frontier over (cost = k', RBR) among all first stages at that p."""
    measures = {(p, k): ir_rbstar.parse(f"RBR(p={p},ref='{REF_FULL}')@{k} RBR_res(p={p},ref='{REF_FULL}')@{k}")
                for p in ps for k in k_primes}
    ir_rbstar.register_run(REF_FULL, reference)
    try:
        evaluator = ir_measures.evaluator([m for pair in measures.values() for m in pair], qrels)
        rows = []
        for name, run in runs.items():
            agg = evaluator.calc_aggregate(run)
            for (p, k), (rbr, res) in measures.items():
                rows.append({"system": name, "p": p, "k": k, "rbr": float(agg[rbr]), "rbr_res": float(agg[res])})
    finally:
        ir_rbstar.unregister_run(REF_FULL)
    table = pd.DataFrame(rows)
    table["frontier"] = False
    for _p, part in table.groupby("p"):
        # means that differ only by float rounding (e.g. two rankings of the same pool at k' = 1000) count as equal
        table.loc[part.index, "frontier"] = pareto_frontier(part["k"], part["rbr"].round(12))
    return table


def recall_at(obs: pd.DataFrame) -> pd.Series:
    """Mean Recall(B | R_k) per system over its observations."""
    return obs.groupby("system")["recall"].mean()


def matching_depth(table: pd.DataFrame, p: float, k: int = K_PRIME) -> Tuple[str, float, Dict[str, Optional[int]]]:
    """(the best first stage at k' = ``k``, its mean RBR(p), {every other first stage: the smallest k' of
    the sweep at which its mean RBR(p) reaches that value, None if none does})."""
    part = table[table["p"] == p]
    at = part[part["k"] == k].sort_values(["rbr", "system"], ascending=[False, True])
    best, target = str(at["system"].iloc[0]), float(at["rbr"].iloc[0])
    need: Dict[str, Optional[int]] = {}
    for name, mine in part[part["system"] != best].groupby("system", sort=False):
        reach = mine[mine["rbr"] >= target]["k"]
        need[str(name)] = int(reach.min()) if len(reach) else None
    return best, target, need


# =============================================================================================
# Markdown
# =============================================================================================

def outside_reference(run: pd.DataFrame, reference: pd.DataFrame, k: int) -> float:
    """The share of the documents in ``run``'s top ``k`` (over all its queries) that ``reference`` does
    not contain."""
    top = ranked(run)
    top = top[top["rank"] <= k]
    inside = top.merge(reference[["query_id", "doc_id"]], on=["query_id", "doc_id"], how="inner")
    return 1.0 - len(inside) / len(top) if len(top) else float("nan")


def _f(x: float, places: int = PLACES) -> str:
    return "n/a" if x != x else f"{x:.{places}f}"


def _share_range(values: Sequence[float]) -> str:
    return f"{100 * min(values):.1f}% to {100 * max(values):.1f}%"


def markdown_fig3(summaries: List[dict], obs: pd.DataFrame) -> str:
    p, k, kp = obs.attrs["p"], obs.attrs["k"], obs.attrs["k_prime"]
    head = ["", *[f"Recall(B \\| R{k}) = {s['hits'] / k:.1f}" for s in summaries]]
    rows = [
        ["observations (ranking x query)", *[f"{s['observations']:,}" for s in summaries]],
        ["... from the ten first stages", *[f"{s['first_stage']:,}" for s in summaries]],
        ["rankings / queries involved", *[f"{s['systems']} / {s['queries']}" for s in summaries]],
        [f"groups (which items of R{k} were missed), present of possible",
         *[f"{s['groups']} of {s['possible']}" for s in summaries]],
        ["largest group: ranks missed (observations)",
         *[f"{s['largest_group'][0]} ({s['largest_group'][1]})" for s in summaries]],
        ["distinct scores: Recall / base / full",
         *[f"1 / {s['base_distinct']} / {s['full_distinct']}" for s in summaries]],
        [f"base RBR(p={p}) vs R{k}: lowest - highest",
         *[f"{_f(s['base_min'])} - {_f(s['base_max'])}" for s in summaries]],
        [f"residual vs R{k} (eq. 9, b = {kp} - hits)",
         *[" / ".join(_f(r) for r in s["residual"]) + f" (formula {_f(s['eq9'])})" for s in summaries]],
        ["full - base as a share of the residual: median (max)",
         *[f"{_f(s['band_median'], 3)} ({_f(s['band_max'], 3)})" for s in summaries]],
        ["spread of full within a group (max - min): median (max), groups of >= 2",
         *[f"{_f(s['range_median'])} ({_f(s['range_max'])}), {s['multi']} groups" for s in summaries]],
        ["check: base <= full <= full + RBR_res(R) <= base + residual, violations",
         *[str(sum(s["violations"].values())) for s in summaries]],
        ["full above base + the paper's two-item residual p^10 (1 - p^(10 - hits))",
         *[f"{s['above_two_item']:,} (residual {_f(s['two_item'])})" for s in summaries]],
        ["best attainable full score (dashed line) / highest observed",
         *[f"{_f(s['best'])} / {_f(s['full_max'])}" for s in summaries]],
    ]
    return _docblock.md_table(head, "|---|" + "---:|" * len(summaries), rows)


def markdown_depth(table: pd.DataFrame, p: float, recall: pd.Series) -> str:
    part = table[table["p"] == p]
    ks = sorted(part["k"].unique())
    head = ["first stage", *[f"k'={k}" for k in ks], f"Recall(B \\| R{K})@{K_PRIME}"]
    rows = []
    for name in dict.fromkeys(part["system"]):
        mine = part[part["system"] == name].set_index("k")
        cells = [f"**{_f(mine.loc[k, 'rbr'])}**" if mine.loc[k, "frontier"] else _f(mine.loc[k, "rbr"]) for k in ks]
        rows.append([f"`{name}`", *cells, _f(float(recall.get(name, float("nan"))), 3)])
    return _docblock.md_table(head, "|---|" + "---:|" * (len(ks) + 1), rows)


def frontier_text(table: pd.DataFrame, p: float) -> str:
    part = table[(table["p"] == p) & table["frontier"]].sort_values(["k", "system"])
    return ", ".join(f"k'={int(r.k)} `{r.system}` ({_f(r.rbr)})" for r in part.itertuples())


def report(data: Data, obs: pd.DataFrame, table: pd.DataFrame) -> str:
    """The generated Markdown block that goes between the markers of docs/first_stage.md."""
    ref = data.reference
    sizes = ref.groupby("query_id").size()
    tied = ref[ref.duplicated(["query_id", "score"], keep=False)]
    tied_rank = ranked(ref).merge(tied[["query_id", "doc_id"]], on=["query_id", "doc_id"])["rank"]
    dropped = obs.attrs["dropped"]
    n_first = sum(1 for v in data.kind.values() if v == FIRST_STAGE)
    n_other = len(data.kind) - n_first
    summaries = [fig3_summary(select(obs, h)) for h in HITS]
    first = obs[obs["kind"] == FIRST_STAGE]
    recall = recall_at(first)
    res_max = table.groupby("p")["rbr_res"].max()
    lines = [
        f"**Data.** Reference R: monoT5-3b re-ranking of the BM25 top-1000 pool, {sizes.size} queries "
        f"(the judged ones), {int(sizes.median())} documents per query (median; fewest {int(sizes.min())}). "
        f"Tied scores in R: {tied['query_id'].nunique()} queries, {len(tied)} documents, the shallowest at rank "
        f"{int(tied_rank.min()) if len(tied_rank) else 'n/a'}; queries with a tie across ranks {K} and {K + 1}: "
        f"{sum(why.startswith('tied') for why in dropped.values())}. "
        f"Left out of part 1: " + (", ".join(f"query {q} ({why})" for q, why in sorted(dropped.items())) or "none") +
        f"; (ranking, query) pairs with fewer than {K_PRIME} documents: {obs.attrs['short']}. "
        f"Rankings: the {n_first} first stages below and, for part 1 only, the other {n_other} official DL19 runs. "
        f"Share of the official BM25 runs' top {K_PRIME} / top {max(K_PRIMES)} that is not in R (never re-scored; "
        f"counts 0): " + " / ".join(_share_range([outside_reference(data.runs[n], ref, k) for n in BM25_RUNS])
                                     for k in (K_PRIME, max(K_PRIMES))) + ".",
        f"**The Fig. 3 analogue** (B = top {K_PRIME} of a ranking, p = {P_FIG3}; picture "
        f"`docs/img/{PICTURES[0]}`):",
        markdown_fig3(summaries, obs),
    ]
    for p in sorted(table["p"].unique()):
        lines += [
            f"**Mean RBR(p={p}) against k'** over the {data.qrels['query_id'].nunique()} queries (bold: on the "
            f"Pareto frontier over (k', RBR) of all ten first stages; last column: mean Recall(B | R{K}) of the top "
            f"{K_PRIME} over the queries of part 1). Largest mean RBR_res in the table: {_f(float(res_max[p]), 6)}.",
            markdown_depth(table, p, recall),
            f"Frontier at p = {p}: {frontier_text(table, p)}.",
        ]
        best, target, need = matching_depth(table, p)
        groups: Dict[Optional[int], List[str]] = {}
        for name, k in need.items():
            groups.setdefault(k, []).append(f"`{name}`")
        lines.append(f"To reach the mean RBR(p={p}) of `{best}` at k'={K_PRIME} ({_f(target)}), the others need k' = " +
                     "; ".join(f"{k if k is not None else 'more than ' + str(max(K_PRIMES))}: {', '.join(names)}"
                               for k, names in sorted(groups.items(),
                                                      key=lambda kv: (kv[0] is None, kv[0] or 0))) + ".")
    means = first.groupby("system")[["recall", "full"]].mean()
    bm25 = means.loc[[name for name in BM25_RUNS if name in means.index]]
    lines.append(f"Over the same {first['query_id'].nunique()} queries, ordering the ten first stages by mean "
                 f"Recall(B | R{K}) of their top {K_PRIME} or by mean RBR(p={P_FIG3})@{K_PRIME} against R gives "
                 f"Kendall's tau-b = {_f(ranking_agreement(means['recall'], means['full']).tau_b, 3)}; among the "
                 f"{len(bm25)} BM25 runs alone {_f(ranking_agreement(bm25['recall'], bm25['full']).tau_b, 3)}.")
    return "\n\n".join(lines)


# =============================================================================================
# Pictures
# =============================================================================================

def draw(obs: pd.DataFrame, table: pd.DataFrame, out_dir=IMG) -> List[Path]:
    """docs/img/first_stage_fig3.png (two panes: Recall 0.8 and 0.9) and first_stage_rbr_cost.png (RBR
    against k' per first stage with the Pareto frontier, one pane per p)."""
    from ir_rbstar.plots import DPI, plot_rbr_bounds, plot_rbr_cost
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    p, k, kp = obs.attrs["p"], obs.attrs["k"], obs.attrs["k_prime"]
    fig, axes = plt.subplots(len(HITS), 1, figsize=(11, 4.2 * len(HITS)), constrained_layout=True)
    for ax, hits in zip(axes, HITS, strict=True):
        sel = select(obs, hits)
        s = fig3_summary(sel)
        plot_rbr_bounds(sel, base="base", residual="base_res", full="full", best=best_attainable(p, k, kp, hits),
                        ax=ax, title=f"Recall(B | R{k}) = {hits / k:.1f}: {len(sel)} observations, "
                                     f"{s['groups']} groups of missed items")
        ax.set_ylabel(f"RBR(p={p}) of B, |B| = {kp}")
    fig.suptitle(f"DL19 passage, reference monoT5-3b: RBR base (vs R{k}), base + residual and full (vs R)")
    written = []
    path = Path(out_dir, PICTURES[0])
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    written.append(path)

    ps = sorted(table["p"].unique())
    fig, axes = plt.subplots(1, len(ps), figsize=(7.5 * len(ps), 6), constrained_layout=True)
    for ax, p in zip(np.atleast_1d(axes), ps, strict=True):
        plot_rbr_cost(table[table["p"] == p], system="system", cost="k", rbr="rbr", ax=ax,
                      title=f"p = {p}", xlabel="k' = documents re-scored by the second stage (cost)",
                      ylabel=f"mean RBR(p={p}) of the top k' against R")
    fig.suptitle("DL19 passage, reference monoT5-3b: first stages by RBR against k', Pareto frontier")
    path = Path(out_dir, PICTURES[1])
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    written.append(path)
    return written


def compute(data_dir=DEFAULT_DATA) -> Tuple[Data, pd.DataFrame, pd.DataFrame]:
    """(the data, the observations of part 1, the table of part 2)."""
    data = load(data_dir)
    obs = observations(data.runs, data.reference, kind=data.kind)
    first = {name: data.runs[name] for name in first_stage_names()}
    table = rbr_by_depth(first, data.reference, data.qrels)
    return data, obs, table


def main(argv: Optional[List[str]] = None) -> int:
    parser = _docblock.report_parser(__doc__, "--data", DEFAULT_DATA, f"folder with {FOLDER}/ (default: %(default)s)",
                                     DOC, REPO, also="and draw the pictures")
    parser.add_argument("--img", default=str(IMG), help="folder of the pictures (default: %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when the block of --doc differs from what is computed now")
    args = parser.parse_args(argv)
    data_dir = Path(args.data)
    needed = [QRELS, REFERENCE, RUNS, *POOL_ORDERINGS.values()] + [f"{RUNS}/{name}.gz" for name in BM25_RUNS]
    if _docblock.data_missing([data_dir / part for part in needed]):
        return 2
    data, obs, table = compute(data_dir)
    status = 0
    for hits in HITS:
        bad = bound_violations(select(obs, hits))
        if any(bad.values()):
            print(f"\n*** Recall {hits / K:.1f}: RBR OUTSIDE ITS BOUNDS: {bad}. This is a bug. ***\n", file=sys.stderr)
            status = 1
    block = report(data, obs, table)
    if args.check:
        current = generated_block(Path(args.doc).read_text())
        if current != block:
            print(f"{args.doc} is stale: run  python -m examples.first_stage_rbr --write", file=sys.stderr)
            return 1
        print(f"{args.doc} is current", file=sys.stderr)
        return status
    _docblock.print_report(args, block, START, END)
    if args.write:
        for path in draw(obs, table, args.img):
            print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
