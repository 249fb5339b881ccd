#!/usr/bin/env python3
"""Regenerate tests/fixtures/trectools/rbp_pools.json: trectools' RBP-weighted and depth-k pools on random runs.

The judging baselines ``rbp_sum`` and ``rbp_max`` (ir_rbstar.judging) make the pools trectools makes with
``TrecPoolMaker().make_pool(runs, strategy="rbp", topX=X, rbp_strategy="sum" | "max", rbp_p=p)`` (trectools:
Palotti, Scells & Zuccon, SIGIR 2019, https://pypi.org/project/trectools/): per query, the X
documents of largest summed (largest) RBP weight (1-p) p^(rank-1) over the runs; and the baseline ``depth``
the depth-k pool ``make_pool(runs, strategy="topX", topX=X)``, each run's first X documents of each query (its rows
are given to trectools in rank order, as it reads them from a file). trectools is not in the test
extra (an old package with many dependencies), so its pools are generated once here and stored as a small
fixture; tests/judging/test_trectools_pools.py compares the package with them (and with trectools itself
wherever it is installed).

Run it where trectools installs, in a venv of its own, from the repository root::

    python3 -m venv /tmp/venv-tt && /tmp/venv-tt/bin/pip install trectools==0.0.50
    /tmp/venv-tt/bin/python scripts/make_trectools_fixtures.py

It needs only trectools (not this package). The cases follow from ``--seed``: the same arguments and the
same trectools version give the same file. Each run's ranks are its rows' order (trectools weighs the rank
column as it is given; this package orders by score, so the scores fall with the rank here).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from importlib import metadata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "trectools", "rbp_pools.json")
#: document ids with ordering traps (string against number order, case)
DOCS = [f"d{i}" for i in range(1, 25)] + ["D3", "a", "b7", "z0"]


def cases(n: int, seed: int):
    """``n`` cases: 2-6 runs over 1-4 queries (numeric ids, as trectools keys its pools by ``int``), each
    run ranking 1-20 distinct documents of :data:`DOCS` per query (a query left out of a run now and then),
    X in 1..12, p in [0.5, 0.95], sum or max."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        queries = [str(101 + q) for q in range(rng.randint(1, 4))]
        runs = {}
        for r in range(rng.randint(2, 6)):
            rows = []
            for q in queries:
                if len(queries) > 1 and rng.random() < 0.15:
                    continue
                docs = rng.sample(DOCS, rng.randint(1, 20))
                rows += [[q, d, k + 1, round(100.0 - k, 1)] for k, d in enumerate(docs)]
            runs[f"run{r}"] = rows
        out.append({"runs": runs, "queries": queries, "X": rng.randint(1, 12),
                    "p": round(rng.uniform(0.5, 0.95), 4), "strategy": "sum" if i % 2 == 0 else "max"})
    return out


def pool_of(case, strategy: str = "rbp") -> dict:
    """trectools' pool for one case (``strategy`` "rbp": the case's RBP pool; "topX": its depth-X pool):
    query id -> sorted document ids."""
    import pandas as pd
    from trectools import TrecPoolMaker, TrecRun
    runs = []
    for name, rows in sorted(case["runs"].items()):
        run = TrecRun()
        data = pd.DataFrame(rows, columns=["query", "docid", "rank", "score"])
        data.insert(1, "q0", "Q0")
        data["system"] = name
        run.run_data = data
        runs.append(run)
    pool = TrecPoolMaker().make_pool(runs, strategy=strategy, topX=case["X"], rbp_strategy=case["strategy"],
                                     rbp_p=case["p"]).pool
    return {str(q): sorted(map(str, docs)) for q, docs in pool.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--seed", type=int, default=2029)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    rows = []
    for case in cases(args.cases, args.seed):
        case["pool"] = pool_of(case)
        case["depth_pool"] = pool_of(case, "topX")
        rows.append(case)
    doc = {"generator": "scripts/make_trectools_fixtures.py", "seed": args.seed,
           "trectools_version": metadata.version("trectools"),
           "fields": {"runs": "name -> rows [query, doc, rank, score]",
                      "pool": "TrecPoolMaker().make_pool(runs, strategy='rbp', topX=X, rbp_strategy=strategy, "
                              "rbp_p=p).pool, query -> sorted document ids",
                      "depth_pool": "TrecPoolMaker().make_pool(runs, strategy='topX', topX=X).pool, the same"},
           "cases": rows}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(rows)} cases to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
