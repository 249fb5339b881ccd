"""``ir-rbstar demo``: a table of measures for the bundled Vaswani (NPL) runs, needing no argument.

The collection (11,429 abstracts, 93 queries, binary qrels) and the runs ship inside the package
(``ir_rbstar/data/vaswani``; ``scripts/make_demo_runs.py`` made the runs): three BM25-style first-stage
runs, the BM25 scores rounded to one decimal (a quantised scorer: many tied scores) and, as the
reference ranking, a re-ranking of the BM25 top 100 by a small neural model (all-MiniLM-L6-v2). Each
run is scored with nDCG@10 and P@10 in trec_eval order and averaged over its ties (``_TA``), RBP
against the qrels, with RBR of its top k, RBA and RBO against the reference, with Twist (the
avoidable effort of its whole ranking, 1 = ideal), with NRG@10: its nDCG@10 counting only the
gain the other bundled runs had not already shown, and with MED_nDCG@10: the largest nDCG@10
difference from the reference that any relevance of the unjudged documents could produce.
"""
from __future__ import annotations

import argparse
import os
from importlib import resources
from typing import Dict, List, Optional

import pandas as pd

from .io import read_trec_qrels, read_trec_run
from .parsing import parse
from .provider import iter_calc_columnar
from .references import run_scope

__all__ = ["data_dir", "demo_runs", "demo_measures", "demo_table", "main", "REFERENCE", "GROUP"]

REFERENCE = "minilm_rerank"
GROUP = "vaswani_demo"


def data_dir() -> str:
    """Directory of the bundled Vaswani collection."""
    return str(resources.files("ir_rbstar") / "data" / "vaswani")


def demo_runs() -> Dict[str, str]:
    """Bundled runs by name (file name without ``.run.gz``), the reference included."""
    d = data_dir()
    return {f[: -len(".run.gz")]: os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".run.gz")}


def demo_measures(p: float = 0.8, k: int = 20) -> List:
    ref = f"ref='{REFERENCE}'"
    return parse(f"nDCG@10 nDCG_TA@10 P@10 P_TA@10 RBP(p={p}) RBP_res(p={p}) RBR(p={p},{ref})@{k} "
                 f"RBR_res(p={p},{ref})@{k} RBA(p={p},{ref}) RBO(p={p},{ref}) Twist "
                 f"NRG(prior='{GROUP}')@10 MED_nDCG({ref})@10")


def demo_table(p: float = 0.8, k: int = 20) -> pd.DataFrame:
    """The demo's table: one row per bundled run, one column per measure (means over the 93 queries)."""
    runs = demo_runs()
    qrels = read_trec_qrels(os.path.join(data_dir(), "qrels"))
    measures = demo_measures(p, k)
    rows = {}
    # the reference and (for NRG) each run against the other bundled runs, named for these evaluations only
    with run_scope(runs={REFERENCE: runs[REFERENCE]}, groups={GROUP: runs}):
        for name, path in runs.items():
            aggs = {m: m.aggregator() for m in measures}
            for metric in iter_calc_columnar(measures, qrels, read_trec_run(path)):
                aggs[metric.measure].add(metric.value)
            rows[name] = {str(m): aggs[m].result() for m in measures}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "run"
    return table


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ir-rbstar demo", description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, default=0.8, help="persistence of the rank-biased measures")
    parser.add_argument("--k", type=int, default=20, help="size of the first-stage set for RBR")
    args = parser.parse_args(argv)
    table = demo_table(args.p, args.k)
    print(f"Vaswani (NPL): 93 queries, bundled runs; reference ranking = {REFERENCE} "
          f"(MiniLM re-ranking of the BM25 top 100).")
    print(f"RBR@{args.k}: the run's top {args.k} as a set against the reference; RBP vs the qrels; "
          f"_res = residual (how much the value could still grow);\n_TA = mean over every order of tied "
          f"scores (bm25_round1 has many; trec_eval breaks them by doc id);\nTwist: effort, from how far each "
          f"document sits from its place in the ideal ranking (1 = ideal, 0 = nothing relevant found);\n"
          f"NRG@10: nDCG@10 of what the other bundled runs had not already shown (0 = nothing new);\n"
          f"MED_nDCG@10: the largest nDCG@10 difference from the reference that any relevance of the "
          f"unjudged documents allows.\n")
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(table.round(4).to_string())
    return 0
