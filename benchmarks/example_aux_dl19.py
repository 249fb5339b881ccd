"""The worked example of docs/judging.md ("In the report"): the report with auxiliary judgments on TREC DL 2019.

Human judgments: NIST's qrels restricted to a shallow pool, the documents some run ranks in its top ``--depth``
(default 5). Auxiliary judgments: the re-annotation of the DL19 pool by one assessor of each pair of the
"Re-Annotating TREC-DL-2019" study (Parry, Schlatt, Faggioli, Zerhoudi: together every one of the 43 queries),
standing in for an LLM. ``ir-rbstar report`` with ``--aux`` then says which robust verdicts depend on them.

    python -m benchmarks.example_aux_dl19 [--depth 5] [--runs 12] [--out DIR]

Needs ../shared/data (not redistributed; nothing of it is written into the repository: the derived qrels go to
a temporary folder). Prints the figures the docs page quotes.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import pandas as pd

from ._harness import SHARED

DL19 = os.path.join(SHARED, "data", "dl19-passage")
ASSESSORS = ("andrew-parry", "ferdinand-schlatt", "guglielmo-faggioli", "saber-zerhoudi")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--runs", type=int, default=12, help="the first N runs (by file name) of the 37")
    ap.add_argument("--baseline", default="bm25base_p")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import ir_rbstar
    from ir_rbstar.report import build_report

    qrels = ir_rbstar.read_qrels(os.path.join(DL19, "qrels.dl19-passage.txt"))
    qrels["query_id"] = qrels["query_id"].astype(str)
    run_dir = os.path.join(DL19, "runs")
    names = sorted(f for f in os.listdir(run_dir) if f.endswith(".gz"))
    paths = {n[:-3]: os.path.join(run_dir, n) for n in names}
    chosen = sorted(set(list(paths)[: args.runs]) | {args.baseline})
    pool = set()
    for path in paths.values():                     # the shallow pool: every run's top depth
        run = ir_rbstar.read_run(path)
        run["query_id"] = run["query_id"].astype(str)
        top = run.sort_values(["query_id", "score"], ascending=[True, False]).groupby("query_id").head(args.depth)
        pool.update(zip(top["query_id"], top["doc_id"], strict=True))
    keys = list(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    human = qrels[[k in pool for k in keys]]
    parts = [pd.read_csv(os.path.join(DL19, "reannotations", f"{a}-qrels.txt"), sep=r"\s+", header=None,
                         names=["query_id", "it", "doc_id", "relevance"], dtype={"query_id": str, "doc_id": str})
             for a in ASSESSORS]
    aux = pd.concat(parts).drop_duplicates(["query_id", "doc_id"])[["query_id", "doc_id", "relevance"]]
    out = args.out or tempfile.mkdtemp(prefix="aux-dl19-")
    human_path, aux_path = os.path.join(out, "human.qrels"), os.path.join(out, "aux.qrels")
    os.makedirs(out, exist_ok=True)
    for frame, path in ((human, human_path), (aux, aux_path)):
        with open(path, "w") as f:
            f.writelines(f"{q} 0 {d} {int(g)}\n" for q, d, g in frame.itertuples(index=False))
    fills = len(set(zip(aux["query_id"], aux["doc_id"], strict=True)) - set(zip(human["query_id"], human["doc_id"],
                                                                                  strict=True)))
    print(f"human: {len(human):,} of NIST's {len(qrels):,} judgments (top {args.depth} of the {len(paths)} runs); "
          f"auxiliary: {len(aux):,} judgments, {fills:,} of them of documents the human qrels lack")
    start = time.process_time()
    table = build_report(human_path, {n: paths[n] for n in chosen}, os.path.join(out, "report"),
                         baseline=args.baseline, measures="RBP(p=0.8) RBP_res(p=0.8) nDCG@10", pictures=False,
                         aux=aux_path, max_rel=3)
    cpu = time.process_time() - start
    robust = pd.read_csv(os.path.join(out, "report", "robust.tsv"), sep="\t")
    split = pd.read_csv(os.path.join(out, "report", "per_query.tsv"), sep="\t")
    label = [c for c in table.columns if c.startswith("RBP(")][0]
    print(f"{len(chosen)} runs against {args.baseline}, {table.index.get_level_values('query_id').nunique()} queries, "
          f"report in {cpu:.1f} s CPU ({out}/report)")
    means = split[[f"{label} human", f"{label} auxiliary", f"{label} residual", label]].mean()
    print("mean RBP(p=0.8,max_rel=3) split: human {:.4f}, auxiliary {:.4f}, residual {:.4f}, value {:.4f}".format(
        *means))
    from ir_rbstar.judging import aux_split
    check = aux_split({n: paths[n] for n in chosen}, human_path, aux_path, "RBP(p=0.8,max_rel=3)")
    print(f"the same through aux_split: human {check['human'].mean():.4f}, auxiliary {check['auxiliary'].mean():.4f}, "
          f"residual {check['residual'].mean():.4f}; human-only residual "
          f"{(check['auxiliary_weight'] + check['residual']).mean():.4f}")
    dependent = int(robust["depends_on_aux"].sum())
    print(f"robust verdicts: {len(robust)}, depending on the auxiliary judgments: {dependent}")
    for r in robust[robust["depends_on_aux"]].itertuples(index=False):
        print(f"  {r.run}: {r.verdict} (human only: {r.verdict_human})")
    print("verdicts with aux:", robust["verdict"].value_counts().to_dict())
    print("verdicts human only:", robust["verdict_human"].value_counts().to_dict())


if __name__ == "__main__":
    main()
