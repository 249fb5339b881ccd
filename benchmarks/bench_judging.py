#!/usr/bin/env python3
"""How many judgments each judging strategy needs (ir_rbstar.judging), on real collections.

    python -m benchmarks.bench_judging                 # DL19 passage (37 runs), Robust04 and Robust03 (TREC runs)
    python -m benchmarks.bench_judging --quick         # the bundled Vaswani runs: a smoke run of a few seconds
    python -m benchmarks.bench_judging --out DIR       # also write the tables (TSV) and the curves (PNG) there

For each collection and each measure (nDCG@10 and RBP(p=0.8) graded with the collection's top grade), the
strategies of :mod:`ir_rbstar.judging.strategies` are replayed with the qrels as the oracle (a document the
qrels lack counts as non-relevant; :func:`ir_rbstar.judging.simulate`), the measure itself choosing (its
pool: the documents the runs rank within the cutoff, or within rank 31 for RBP(p=0.8) -- where the weight
falls below 0.1% of rank 1's), rounds of as many documents as queries, seed 0. Budgets: whole rounds, a
coarse grid (:data:`FRACTIONS` of the pool) and every round between the last coarse budget that misses a
target and the first from which on it holds (:func:`precise_simulation`), so each count is exact to one
round. Printed: per strategy, the number of judgments from which on it stays at Kendall's tau_b >= 0.9 with
the full-judgment ranking of the runs, and at >= 95% of the full judgments' pairwise verdicts (paired t
test, Holm, alpha 0.05), and the curves' table; the oracle bound of :mod:`benchmarks.judging_oracle` (how
few judgments an order of the relevant documents could need; ``--no-oracle`` leaves it out); and the time
of one selection round of the ``pairs`` goal on DL19 (37 runs, 43 queries, one document per query: the
issue's goal is under a second).

Run time on the 2-core machine shared at a load average of 9-12, the three collections in parallel
(``--collections``, each its own process, ``--out`` a folder each): DL19 28 minutes of wall time (the oracle
16 of them), Robust04 29 (the oracle 18), Robust03 without the oracle (``--no-oracle``, as docs/judging.md
has it) 10. Each process writes its TSV and picture; docs/judging.md's table is the printed one of each
collection together, its oracle table the printed ones of DL19 and Robust04.

Nothing is timed against a peer tool: no packaged tool chooses judgments (trectools builds static pools;
its depth-k and RBP-weighted pools are reproduced here as the ``depth``, ``rbp_sum`` and ``rbp_max``
strategies). The runs under ../shared/data are NIST's and never copied into the repository; only the
derived numbers go into docs/judging.md.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DATA = os.path.normpath(os.path.join(REPO, "..", "shared", "data"))
#: the coarse grid, as shares of the pool (rounded to whole rounds); every round between the last coarse
#: budget that misses a target and the first from which on it holds is then evaluated too
FRACTIONS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
TARGETS = (("tau_b", 0.9), ("verdicts_agree", 0.95))


def round_budgets(size: int, batch: int, fractions=FRACTIONS) -> list:
    """The coarse budgets: each share of a pool of ``size`` rounded to a whole number of rounds of ``batch``
    (at least one round; the last reveals the whole pool; :func:`ir_rbstar.judging.simulate.pool_budgets`,
    with this finer grid). Whole rounds keep every strategy's trajectory the same whatever budgets are
    recorded (a budget inside a round would split it)."""
    from ir_rbstar.judging.simulate import pool_budgets
    return pool_budgets(size, batch, fractions)


def brackets(table, batch: int) -> dict:
    """{strategy: budgets to add}: for each target, every whole round strictly between the last budget of
    ``table`` that misses it and the first budget from which on it holds (from the first round when the
    target holds from the first budget; nothing when it never holds)."""
    out: dict = {}
    for strategy, g in table.groupby("strategy", sort=False):
        g = g.sort_values("budget")
        budgets = g["budget"].to_numpy()
        extra = out.setdefault(strategy, set())
        for col, target in TARGETS:
            ok = g[col].to_numpy() >= target
            tail = np.flip(np.cumprod(np.flip(ok))).astype(bool)
            if not tail.any():
                continue
            first = int(np.argmax(tail))
            low = int(budgets[first - 1]) if first > 0 else 0
            extra.update(range(low + batch, int(budgets[first]), batch))
    return {s: sorted(b) for s, b in out.items() if b}


def precise_simulation(qrels, runs, measure: str, strategies, size: int, batch: int, prior=None, label=None):
    """:func:`ir_rbstar.judging.simulate` on the coarse round budgets, then again (the same seeded
    trajectories: whole rounds) on every round inside each strategy's brackets; the rows together."""
    import pandas as pd

    from ir_rbstar.judging import simulate
    coarse = simulate(qrels, runs, measures=[measure], strategies=strategies, budgets=round_budgets(size, batch),
                      batch=batch, seed=0, prior=prior)
    parts = [coarse]
    for strategy, extra in brackets(coarse, batch).items():
        parts.append(simulate(qrels, runs, measures=[measure], strategies=[strategy], budgets=extra, batch=batch,
                              seed=0, prior=prior))
    table = pd.concat(parts, ignore_index=True)
    table["strategy"] = pd.Categorical(table["strategy"], categories=list(dict.fromkeys(coarse["strategy"])))
    table = table.sort_values(["strategy", "budget"], kind="stable").reset_index(drop=True)
    table["strategy"] = table["strategy"].astype(str)
    return table if label is None else table.assign(strategy=label)


def collections(quick: bool, data: str = DATA):
    if quick:
        from ir_rbstar.demo import data_dir
        v = data_dir()
        yield "vaswani", f"{v}/qrels", sorted(glob.glob(f"{v}/bm25*.run.gz")), 1
        return
    yield ("DL19 passage", f"{data}/dl19-passage/qrels.dl19-passage.txt",
           sorted(glob.glob(f"{data}/dl19-passage/runs/*.gz")), 3)
    yield ("Robust04 (TREC 2004 runs)", f"{data}/robust04/qrels.robust2004.txt.gz",
           sorted(glob.glob(f"{data}/robust04/runs-trec2004/*.gz")), 2)
    yield ("Robust03 (TREC 2003 runs)", f"{data}/robust03/qrels.robust03.txt.gz",
           sorted(glob.glob(f"{data}/robust03/runs/*.gz")), 2)


def reannotation_prior(data: str = DATA):
    """DL19's second human judgments (../shared/data/dl19-passage/reannotations: eight assessors, two per
    query) as a prior: per (query, document), the mean of the two grades over the top grade 3, as a table
    of probabilities (None when the folder is absent)."""
    import pandas as pd
    paths = sorted(glob.glob(f"{data}/dl19-passage/reannotations/*-qrels.txt"))
    if not paths:
        return None
    frames = [pd.read_csv(p, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "grade"],
                          dtype={"query_id": str, "doc_id": str}) for p in paths]
    grades = pd.concat(frames, ignore_index=True)
    table = grades.groupby(["query_id", "doc_id"], sort=False)["grade"].mean().reset_index()
    table["probability"] = (table["grade"].clip(lower=0) / 3.0).clip(upper=1.0)
    return table[["query_id", "doc_id", "probability"]]


def markdown(frame, index: bool = False) -> str:
    """A DataFrame as a markdown table (numbers as they print; NaN as '-')."""
    frame = frame.reset_index() if index else frame
    head = [str(c) for c in frame.columns]
    rows = [["-" if v != v else (f"{v:.3f}" if isinstance(v, float) and v != int(v) else
             (str(int(v)) if isinstance(v, float) else str(v))) for v in row] for row in frame.itertuples(index=False)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def round_time(runs, qrels, measure: str, repeat: int = 3) -> float:
    """Best of ``repeat`` wall times of one selection round (pairs goal, one document per query) with the qrels'
    grades of every fifth candidate revealed."""
    import numpy as np

    from ir_rbstar.io import QUERY_IDS
    from ir_rbstar.judging import build_pool, choose
    pool = build_pool(runs, measure, queries=list(QUERY_IDS.decode(qrels.qcodes)))
    grades, judged = pool.lookup(qrels)
    judged = judged & (np.arange(pool.n_candidates) % 5 == 0)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        choose(pool, judged, grades, "pairs", len(pool.queries))
        best = min(best, time.perf_counter() - t)
    return best


def how_far(qrels, runs, need, measures):
    """Per measure and target: depth-k pooling's count, half of it, ``pairs``'s count, and the oracle bounds
    of benchmarks/judging_oracle.py (judgments of relevant documents only; NaN: never)."""
    import pandas as pd

    from benchmarks.judging_oracle import bound
    rows = []
    for measure in measures:
        got = bound(qrels, runs, measure)
        counts = need[need["measure"] == measure].set_index("strategy")
        for (col, target), label in zip(TARGETS, ("tau_b >= 0.9", "95% of the verdicts"), strict=True):
            key = f"{col}>={target:g}"
            depth = float(counts.loc["depth", key])
            rows.append({"measure": measure, "target": label, "depth": depth, "half of depth": depth / 2,
                         "pairs": float(counts.loc["pairs", key]) if "pairs" in counts.index else float("nan"),
                         "depth, relevant only": got["depth, relevant only"][col],
                         "oracle": got["oracle"][col], "relevant in the pool": got["relevant"]["count"],
                         "all relevant revealed": got["relevant"][col]})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=None)
    parser.add_argument("--data", default=DATA, help="the shared data folder (default: ../shared/data)")
    parser.add_argument("--strategies", default=None, help="comma-separated (default: all)")
    parser.add_argument("--no-prior", action="store_true", help="leave out the rows with a prior (DL19)")
    parser.add_argument("--prior-strategies", default="pairs", help="comma-separated: the strategies given the "
                        "DL19 priors (default: pairs); the goals on trial of benchmarks/judging_final.py "
                        "(final, final_q, final_a0, final_q_a0) are taken here and in --strategies")
    parser.add_argument("--no-oracle", action="store_true", help="leave out the oracle bound (benchmarks/"
                        "judging_oracle.py)")
    parser.add_argument("--collections", default=None, help="comma-separated first words of the collections "
                        "(dl19, robust04, robust03; default: all)")
    args = parser.parse_args(argv)
    import pandas as pd

    from ir_rbstar.io import read_trec_qrels, read_trec_run
    from ir_rbstar.judging import STRATEGIES, build_pool, needed, plot_simulation
    strategies = args.strategies.split(",") if args.strategies else list(STRATEGIES)
    with_prior = [s for s in args.prior_strategies.split(",") if s]
    from benchmarks.judging_final import EXPERIMENTAL, install
    if any(s in EXPERIMENTAL for s in strategies + with_prior):
        install()              # the goals on trial, not in the package (benchmarks/judging_final.py)
    only = [c.strip().lower() for c in args.collections.split(",")] if args.collections else None
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    for name, qrels_path, run_paths, top in collections(args.quick, args.data):
        if only is not None and name.split()[0].lower() not in only:
            continue
        if not run_paths or not os.path.exists(qrels_path):
            print(f"## {name}: data not found under {args.data}, skipped\n")
            continue
        t0 = time.perf_counter()
        qrels = read_trec_qrels(qrels_path)
        runs = {os.path.basename(p).replace(".run.gz", "").replace(".gz", ""): read_trec_run(p) for p in run_paths}
        print(f"## {name}: {len(runs)} runs, {len(qrels.qcodes)} queries, {len(qrels.grades)} judgments "
              f"(read in {time.perf_counter() - t0:.1f} s)\n", flush=True)
        tables = []
        for measure in ("nDCG@10", f"RBP(p=0.8,max_rel={top})"):
            from ir_rbstar.io import QUERY_IDS
            size = build_pool(runs, measure, queries=list(QUERY_IDS.decode(qrels.qcodes))).n_candidates
            batch = len(qrels.qcodes)
            t = time.perf_counter()
            table = precise_simulation(qrels, runs, measure, strategies, size, batch)
            if name.startswith("DL19") and not args.no_prior:
                for strategy in with_prior:
                    for label, prior in ((f"{strategy} + re-annotations", reannotation_prior(args.data)),
                                         (f"{strategy} + the qrels as prior", qrels)):
                        if prior is None:
                            continue
                        extra = precise_simulation(qrels, runs, measure, [strategy], size, batch, prior=prior,
                                                   label=label)
                        table = pd.concat([table, extra], ignore_index=True)
            budgets = sorted(set(table["budget"]))
            print(f"{measure}: pool of {size} documents, {len(budgets)} budgets, simulated in "
                  f"{time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
            tables.append(table)
        table = pd.concat(tables, ignore_index=True)
        need = needed(table, tau=0.9, verdicts=0.95)
        print(markdown(need), "\n")
        for measure, sub in table.groupby("measure", sort=False):
            for col, what in (("tau_b", "Kendall's tau_b with the full-judgment ranking"),
                              ("verdicts_agree", "share of pairwise verdicts as with full judgments")):
                wide = sub.pivot_table(index="strategy", columns="judged", values=col, sort=False)
                wide = wide[sorted(wide.columns)]
                print(f"{measure}: {what}, by judgments made:\n")
                print(markdown(wide.round(3), index=True), "\n", flush=True)
        if not args.no_oracle:
            t = time.perf_counter()
            print(markdown(how_far(qrels, runs, need, [str(m) for m in table["measure"].unique()])), "\n")
            print(f"oracle bound computed in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
        if args.out:
            slug = name.split()[0].lower()
            table.to_csv(os.path.join(args.out, f"judging_{slug}.tsv"), sep="\t", index=False, float_format="%.4f")
            import matplotlib.pyplot as plt
            plt.close(plot_simulation(table, os.path.join(args.out, f"judging_{slug}.png")))
        if name.startswith("DL19") or args.quick:
            seconds = round_time(runs, qrels, f"RBP(p=0.8,max_rel={top})")
            print(f"one selection round (pairs goal, {len(qrels.qcodes)} documents) on {name}: {seconds:.3f} s\n",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
