"""What judging costs with many runs or many queries (ir_rbstar.judging), on synthetic runs made here, seeded.

``bench_judging.py`` measures how many judgments each strategy needs on real collections; this script measures
how long the package takes when a collection is larger than those: one selection round of ``select`` and a
simulation of the given strategies, in CPU seconds, with the pool's size and the process's peak memory. Two
shapes of data (``--shape``):

* ``spread``: every query has ``--docs`` documents (default 3,000); each run ranks ``--depth`` of them drawn at
  random, scored by rank, so the runs overlap little and the pool holds many candidates each ranked by few runs;
  200 documents a query judged, grades 0-3 at random.
* ``marco``: MS MARCO's shape: one relevant passage a query among 500; each run scores every passage with noise
  (the relevant one raised by 2) and keeps its top ``--depth``.

Examples (the figures in docs/judging.md)::

    python -m benchmarks.bench_judging_scale --shape spread --runs 130 --queries 50 --depth 100 --rounds 5
    python -m benchmarks.bench_judging_scale --shape marco --runs 10 --queries 1000 --depth 100 --rounds all

Run it with another checkout of the package first on ``PYTHONPATH`` to time that one on the same data.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from typing import Dict, Tuple

import numpy as np


def spread_data(runs: int, queries: int, depth: int, docs: int, seed: int) -> Tuple[dict, dict]:
    """(qrels, runs) as dicts of dicts: runs that overlap little (see the module)."""
    rng = np.random.default_rng(seed)
    names = [f"d{i}" for i in range(docs)]
    qrels = {}
    for q in range(queries):
        judged = rng.choice(docs, min(200, docs), replace=False)
        qrels[f"q{q}"] = {names[i]: int(rng.integers(0, 4)) for i in judged}
    out = {}
    for r in range(runs):
        out[f"r{r:03d}"] = {f"q{q}": {names[i]: float(depth - k) for k, i in
                                      enumerate(rng.choice(docs, depth, replace=False))} for q in range(queries)}
    return qrels, out


def marco_data(runs: int, queries: int, depth: int, docs: int, seed: int) -> Tuple[dict, dict]:
    """(qrels, runs) as dicts of dicts: one relevant passage a query, each run's noisy scores of all of them."""
    rng = np.random.default_rng(seed)
    relevant = [int(rng.integers(docs)) for _ in range(queries)]
    qrels = {f"q{q}": {f"d{relevant[q]}": 1} for q in range(queries)}
    out: Dict[str, dict] = {}
    for r in range(runs):
        run = {}
        for q in range(queries):
            s = rng.normal(0.0, 1.0, docs)
            s[relevant[q]] += 2.0
            top = np.argpartition(-s, depth)[:depth]
            run[f"q{q}"] = {f"d{i}": float(s[i]) for i in top}
        out[f"r{r:03d}"] = run
    return qrels, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Time judging (select, simulate) on large synthetic collections")
    ap.add_argument("--shape", choices=("spread", "marco"), default="spread")
    ap.add_argument("--runs", type=int, default=130)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--docs", type=int, help="documents a query (default 3,000 for spread, 500 for marco)")
    ap.add_argument("--strategies", default="pairs", help="comma-separated, for the simulation")
    ap.add_argument("--rounds", default="5", help="rounds to simulate (rounds of one document a query), or 'all' "
                                                  "for the default budgets up to the whole pool")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from ir_rbstar.judging import build_pool, select, simulate
    docs = args.docs or (3000 if args.shape == "spread" else 500)
    make = spread_data if args.shape == "spread" else marco_data
    qrels, runs = make(args.runs, args.queries, args.depth, docs, args.seed)
    measure = "RBP(p=0.8,max_rel=3)" if args.shape == "spread" else "RBP(p=0.8,max_rel=1)"
    pool = build_pool(runs, measure, queries=list(qrels))
    print(f"data: {args.shape}, {args.runs} runs x {args.queries} queries at depth {args.depth}, {docs} documents a "
          f"query; {measure}: {pool.n_candidates:,} candidates, {int((pool.W > 0).sum()):,} non-zero weights")
    t = time.process_time()
    select(runs, qrels, measure=measure, budget=args.queries)
    print(f"one selection round of pairs ({args.queries} documents): {time.process_time() - t:.2f} s of CPU")
    budgets = None if args.rounds == "all" else [args.queries * int(args.rounds)]
    for s in args.strategies.split(","):
        t = time.process_time()
        simulate(qrels, runs, measures=[measure], strategies=[s], budgets=budgets)
        what = "every round to the whole pool" if budgets is None else f"{args.rounds} rounds"
        print(f"simulate {s}, {what}: {time.process_time() - t:.1f} s of CPU")
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.1f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
