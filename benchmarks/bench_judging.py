#!/usr/bin/env python3
"""How many judgments each judging strategy needs (ir_rbstar.judging), on real collections.

    python -m benchmarks.bench_judging                 # DL19 passage (37 runs), Robust04 and Robust03 (TREC runs)
    python -m benchmarks.bench_judging --quick         # the bundled Vaswani runs: a smoke run of a few seconds
    python -m benchmarks.bench_judging --out DIR       # also write the tables (TSV) and the curves (PNG) there
    python -m benchmarks.bench_judging --depth 100 --strategies pairs,depth,rbp_sum,rbp_max --no-oracle
                                                       # nDCG@10 from the runs' top 100 (the ideal's documents)
    python -m benchmarks.bench_judging --qrels QRELS --runs RUN [RUN ...] --name NAME
                                                       # a collection of your own (held out), the same tables

For each collection and each measure (nDCG@10 and RBP(p=0.8) graded with the collection's top grade), the
strategies of :mod:`ir_rbstar.judging.strategies` are replayed with the qrels as the oracle (a document the
qrels lack counts as non-relevant; :func:`ir_rbstar.judging.simulate`), the measure itself choosing (its
pool: the documents the runs rank within the cutoff, or within rank 31 for RBP(p=0.8) -- where the weight
falls below 0.1% of rank 1's), rounds of as many documents as queries, seed 0. Budgets: every whole round
until the pool is judged (:func:`every_round`), so each count is exact to one round. (Until 2026-11-28 a
coarse grid was refined only around the first coarse budget from which a target held: a dip below the target
between two later coarse budgets went unseen, and Robust04's RBP tau_b count for ``pairs`` read 2,739
judgments where every round gives 3,735.)
Printed: per strategy, the number of judgments from which on it stays at Kendall's tau_b >= 0.9 with
the full-judgment ranking of the runs, and at >= 95% of the full judgments' pairwise verdicts (paired t
test, Holm, alpha 0.05); the rounds at which ``pairs`` is below each pool (depth-k, RBP-weighted sum and
max: :func:`rounds_below`, the issue's "at every budget"); the curves' table; the oracle bound of
:mod:`benchmarks.judging_oracle` (how few judgments an order of the relevant documents could need;
``--no-oracle`` leaves it out); and the time
of one selection round of the ``pairs`` goal on DL19 (37 runs, 43 queries, one document per query: the
issue's goal is under a second).

Run time on the 2-core machine shared at a load average of 9-12, the three collections in parallel
(``--collections``, each its own process, ``--out`` a folder each): DL19 28 minutes of wall time (the oracle
16 of them), Robust04 29 (the oracle 18), Robust03 without the oracle (``--no-oracle``, as docs/judging.md
has it) 10. Each process writes its TSV and picture; docs/judging.md's table is the printed one of each
collection together, its oracle table the printed ones of DL19 and Robust04. Since the simulation's evaluator
sums only the rows that can hold a judgment (2026-11-28), ``--no-oracle --no-prior --strategies
pairs,depth,rbp_sum,rbp_max`` takes 25 s of wall time for DL19 and 21 s for Robust04, side by side on the
otherwise idle machine; every strategy with DL19's prior rows (``--no-oracle``) about 3 minutes.

Nothing is timed against a peer tool: no packaged tool chooses judgments (trectools builds static pools;
its depth-k and RBP-weighted pools are reproduced here as the ``depth``, ``rbp_sum`` and ``rbp_max``
strategies). The runs under ../shared/data are NIST's and never copied into the repository; only the
derived numbers go into docs/judging.md.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DATA = os.path.normpath(os.path.join(REPO, "..", "shared", "data"))
TARGETS = (("tau_b", 0.9), ("verdicts_agree", 0.95))


def every_round(size: int, batch: int) -> list:
    """Every whole round of ``batch`` documents until a pool of ``size`` is judged (the last round reveals the
    rest): a count of judgments "from which on" a target holds is then exact to one round, a dip below the
    target at any round counting. Whole rounds keep every strategy's trajectory the same whatever budgets are
    recorded (a budget inside a round would split it)."""
    return [batch * i for i in range(1, -(-size // batch) + 1)] if size > 0 else []


def round_simulation(qrels, runs, measure: str, strategies, size: int, batch: int, prior=None, label=None,
                     depth=None):
    """:func:`ir_rbstar.judging.simulate` recorded at every whole round (:func:`every_round`), seed 0; the
    strategy renamed ``label`` when given (a row with a prior); ``depth``: the pool's depth."""
    from ir_rbstar.judging import simulate
    table = simulate(qrels, runs, measures=[measure], strategies=strategies, budgets=every_round(size, batch),
                     batch=batch, seed=0, prior=prior, depth=depth)
    return table if label is None else table.assign(strategy=label)


def _tenths(columns: list) -> list:
    """About every tenth of ``columns`` (the first and the last among them), for a printed table."""
    step = max(1, len(columns) // 10)
    return sorted(set(columns[::step]) | {columns[-1]}) if columns else columns


def collections(quick: bool, data: str = DATA, newer: bool = False):
    """(name, qrels, run files, top grade) of each collection; ``newer``: also Robust04 with its 8 newer runs
    (Indri, ATIRE, Terrier, Anserini; third-party runs under ../shared/data), only when asked for by name."""
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
    if newer:
        yield ("Robust04new (8 newer runs)", f"{data}/robust04/qrels.robust2004.txt.gz",
               sorted(glob.glob(f"{data}/robust04/runs-new/*.gz")), 2)


def own_collection(qrels_path: str, run_paths: list, name=None):
    """(name, qrels, run files, top grade) of a collection given on the command line (``--qrels``, ``--runs``):
    its top grade, None here, is the qrels' highest (at least 1, for RBP's ``max_rel``), read with them."""
    label = name or os.path.basename(qrels_path)
    return label if name else f"{label} (given)", qrels_path, list(run_paths), None


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


#: the pools the issue's "at every budget" compares the package's goal with
POOLS = ("depth", "rbp_sum", "rbp_max")


def rounds_below(table, ours: str = "pairs", baselines=POOLS):
    """Per measure, target column and baseline: at how many of the recorded rounds ``ours`` is below the
    baseline (strictly, by more than 1e-12), of how many, by how much at most, and the first and last such
    budget -- the issue's "fewer judgments ... at every budget", counted round by round. Rounds where either
    strategy has no row are left out; a frame with one row per (measure, column, baseline)."""
    import pandas as pd
    rows = []
    for measure, sub in table.groupby("measure", sort=False):
        for col, _ in TARGETS:
            wide = sub.pivot_table(index="budget", columns="strategy", values=col, sort=True)
            if ours not in wide:
                continue
            for base in baselines:
                if base not in wide:
                    continue
                both = wide[[ours, base]].dropna()
                gap = both[base] - both[ours]
                below = gap[gap > 1e-12]
                rows.append({"measure": measure, "target": col, "baseline": base, "rounds below": len(below),
                             "of rounds": len(both), "by at most": round(float(below.max()), 3) if len(below) else 0.0,
                             "first": int(below.index[0]) if len(below) else None,
                             "last": int(below.index[-1]) if len(below) else None})
    return pd.DataFrame(rows, columns=["measure", "target", "baseline", "rounds below", "of rounds", "by at most",
                                       "first", "last"])


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
                        "(dl19, robust04, robust03; default: all; robust04new, Robust04 with its 8 newer runs, "
                        "only when named)")
    parser.add_argument("--qrels", default=None, help="a collection of your own instead (with --runs): its qrels "
                        "file; the measures nDCG@10 and RBP(p=0.8) with max_rel its highest grade; no prior rows")
    parser.add_argument("--runs", nargs="+", default=None, help="the run files of --qrels")
    parser.add_argument("--name", default=None, help="the name of the --qrels collection (default: its file's)")
    parser.add_argument("--depth", type=int, default=None, help="nDCG@10 alone, from a pool of the runs' top DEPTH "
                        "(deeper than its cutoff: the documents ranked only past rank 10 can still raise a query's "
                        "ideal DCG); no prior rows, no oracle")
    args = parser.parse_args(argv)
    if (args.qrels is None) != (args.runs is None):
        parser.error("--qrels and --runs go together")
    if args.qrels is not None and not os.path.exists(args.qrels):
        parser.error(f"--qrels {args.qrels}: no such file")
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
    chosen = (collections(args.quick, args.data, newer="robust04new" in (only or [])) if args.qrels is None
              else [own_collection(args.qrels, args.runs, args.name)])
    for name, qrels_path, run_paths, top in chosen:
        if only is not None and args.qrels is None and name.split()[0].lower() not in only:
            continue
        if not run_paths or not os.path.exists(qrels_path):
            print(f"## {name}: data not found under {args.data}, skipped\n")
            continue
        t0 = time.perf_counter()
        qrels = read_trec_qrels(qrels_path)
        top = top or int(qrels.grades.max(initial=1))
        runs = {os.path.basename(p).replace(".run.gz", "").replace(".gz", ""): read_trec_run(p) for p in run_paths}
        print(f"## {name}: {len(runs)} runs, {len(qrels.qcodes)} queries, {len(qrels.grades)} judgments "
              f"(read in {time.perf_counter() - t0:.1f} s)\n", flush=True)
        tables = []
        for measure in ("nDCG@10",) if args.depth else ("nDCG@10", f"RBP(p=0.8,max_rel={top})"):
            from ir_rbstar.io import QUERY_IDS
            size = build_pool(runs, measure, queries=list(QUERY_IDS.decode(qrels.qcodes)),
                              depth=args.depth).n_candidates
            batch = len(qrels.qcodes)
            t = time.perf_counter()
            table = round_simulation(qrels, runs, measure, strategies, size, batch, depth=args.depth)
            if name.startswith("DL19") and args.qrels is None and not args.no_prior and not args.depth:
                for strategy in with_prior:
                    for label, prior in ((f"{strategy} + re-annotations", reannotation_prior(args.data)),
                                         (f"{strategy} + the qrels as prior", qrels)):
                        if prior is None:
                            continue
                        extra = round_simulation(qrels, runs, measure, [strategy], size, batch, prior=prior,
                                                   label=label)
                        table = pd.concat([table, extra], ignore_index=True)
            budgets = sorted(set(table["budget"]))
            print(f"{measure}: pool of {size} documents, {len(budgets)} budgets, simulated in "
                  f"{time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
            tables.append(table)
        table = pd.concat(tables, ignore_index=True)
        need = needed(table, tau=0.9, verdicts=0.95)
        print(markdown(need), "\n")
        below = rounds_below(table)
        if len(below):
            print("Rounds where pairs is below a pool (tau_b, verdicts_agree; the budget of the first and last):\n")
            print(markdown(below), "\n", flush=True)
        for measure, sub in table.groupby("measure", sort=False):
            for col, what in (("tau_b", "Kendall's tau_b with the full-judgment ranking"),
                              ("verdicts_agree", "share of pairwise verdicts as with full judgments")):
                wide = sub.pivot_table(index="strategy", columns="judged", values=col, sort=False)
                wide = wide[_tenths(sorted(wide.columns))]
                print(f"{measure}: {what}, by judgments made (about every tenth of the rounds; all of them in "
                      f"the TSV of --out):\n")
                print(markdown(wide.round(3), index=True), "\n", flush=True)
        if not args.no_oracle and not args.depth:
            t = time.perf_counter()
            print(markdown(how_far(qrels, runs, need, [str(m) for m in table["measure"].unique()])), "\n")
            print(f"oracle bound computed in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
        if args.out:
            # (a collection of one's own by its whole name: "DL19 re-rankers" must not overwrite DL19's files)
            first = (name.split()[0].lower() if args.qrels is None
                     else re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"))
            slug = first + (f"_depth{args.depth}" if args.depth else "")
            table.to_csv(os.path.join(args.out, f"judging_{slug}.tsv"), sep="\t", index=False, float_format="%.4f")
            import matplotlib.pyplot as plt
            plt.close(plot_simulation(table, os.path.join(args.out, f"judging_{slug}.png")))
        if (name.startswith("DL19") or args.quick or args.qrels) and not args.depth:
            seconds = round_time(runs, qrels, f"RBP(p=0.8,max_rel={top})")
            print(f"one selection round (pairs goal, {len(qrels.qcodes)} documents) on {name}: {seconds:.3f} s\n",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
