#!/usr/bin/env python3
"""Deterministic synthetic TREC data at scale: a run, a reference run and qrels.

Writes into ``--out DIR`` (default ``./bench-data``):

* ``synthetic.run``     -- ``--queries`` queries x ``--depth`` documents (7,000 x 1,000 = 7M rows by default)
* ``synthetic_ref.run`` -- a "reference" (e.g. re-ranked) run over the same queries, depth ``--depth``,
  sharing about ``--shared`` (60%) of each query's documents with ``synthetic.run``, in a perturbed
  order; the rest comes from the query's candidate pool
* ``synthetic.qrels``   -- about ``--judged`` (100) judged documents per query, grades 0-3, mostly from
  the top of both runs (a depth-40 pool) plus random documents of the candidate pool

Realism knobs: document ids look like ``D1234567`` (a 10M-document collection) and are drawn per query
from a candidate pool of 3 x depth documents; scores are BM25-like (top score 15-35, decreasing by
random gaps), printed with 4 decimals, and 3-5% of adjacent score pairs are exactly tied (per query, the
tie rate is drawn in [0.03, 0.05]); tied documents appear in random order in the file, the rank column
is 1..depth in file order (as real run files do). Query ids are distinct random 6-digit numbers, in
ascending order in every file.

Everything follows from ``--seed`` (numpy ``default_rng``): the same arguments give byte-identical files.

Usage: python benchmarks/make_synthetic.py [--queries 7000] [--depth 1000] [--out DIR] [--gzip]
"""
from __future__ import annotations

import argparse
import gzip
import os
import sys
import time

import numpy as np

COLLECTION = 10_000_000           # doc ids D0000000 .. D9999999
DECIMALS = 4
UNIT = 10.0 ** -DECIMALS


def _scores(rng: np.random.Generator, n: int, tie_rate: float) -> np.ndarray:
    """n descending scores as integers in units of 1e-4: gaps exactly 0 with prob. tie_rate, else >= 1 unit."""
    top = int(rng.uniform(15.0, 35.0) / UNIT)
    gaps = np.maximum(1, np.rint(rng.exponential(170.0, n - 1))).astype(np.int64)   # mean gap 0.017
    gaps[rng.random(n - 1) < tie_rate] = 0
    s = top - np.concatenate(([0], np.cumsum(gaps)))
    return s


def _format_run(lines: list, qid: str, docs: np.ndarray, units: np.ndarray, tag: str) -> None:
    # units are descending integer scores in 1e-4 units; print with 4 decimals (exactly, no float rounding)
    for rank, (d, u) in enumerate(zip(docs.tolist(), units.tolist()), 1):
        sign = "-" if u < 0 else ""
        a = abs(u)
        lines.append(f"{qid} Q0 D{d:07d} {rank} {sign}{a // 10000}.{a % 10000:04d} {tag}\n")


def generate(n_queries: int, depth: int, out: str, seed: int = 20240, shared: float = 0.6,
             judged: int = 100, compress: bool = False, verbose: bool = True) -> dict:
    if depth < 10:
        raise SystemExit("--depth must be at least 10")
    rng = np.random.default_rng(seed)
    os.makedirs(out, exist_ok=True)
    ext = ".gz" if compress else ""
    paths = {"run": os.path.join(out, f"synthetic.run{ext}"),
             "ref": os.path.join(out, f"synthetic_ref.run{ext}"),
             "qrels": os.path.join(out, f"synthetic.qrels{ext}")}
    opener = (lambda p: gzip.open(p, "wt", compresslevel=1)) if compress else (lambda p: open(p, "w"))
    qids = np.sort(rng.choice(900_000, n_queries, replace=False) + 100_000)
    pool_size = 3 * depth
    n_new_max = depth          # room for reference documents taken from the pool outside the run
    t0 = time.perf_counter()
    stats = {"rows": 0, "ref_rows": 0, "judgments": 0, "ties": 0, "adjacent": 0, "shared": 0}
    with opener(paths["run"]) as frun, opener(paths["ref"]) as fref, opener(paths["qrels"]) as fq:
        run_lines, ref_lines, q_lines = [], [], []
        for qi, qnum in enumerate(qids.tolist()):
            qid = str(qnum)
            pool = rng.choice(COLLECTION, pool_size, replace=False)            # random order
            # --- the run: the first `depth` pool documents, BM25-like scores with ties
            tie_rate = rng.uniform(0.03, 0.05)
            run_docs = pool[:depth]
            run_units = _scores(rng, depth, tie_rate)
            _format_run(run_lines, qid, run_docs, run_units, "synthetic")
            stats["ties"] += int((run_units[1:] == run_units[:-1]).sum())
            stats["adjacent"] += depth - 1
            # --- the reference: ~shared of the run's documents (biased to the top), rest from the pool
            n_shared = int(round(depth * rng.uniform(shared - 0.05, shared + 0.05)))
            n_shared = min(max(n_shared, 0), depth)
            ranks = np.arange(1, depth + 1, dtype=np.float64)
            keep_key = np.log(ranks) + rng.normal(0.0, 1.5, depth)
            shared_idx = np.argsort(keep_key, kind="stable")[:n_shared]            # mostly top documents
            new_docs = pool[depth:depth + min(depth - n_shared, n_new_max)]
            key = np.concatenate((np.log(ranks[shared_idx]) + rng.normal(0.0, 0.7, n_shared),
                                  np.log(rng.uniform(1.0, 1.5 * depth, len(new_docs))) + rng.normal(0.0, 0.7, len(new_docs))))
            ref_docs = np.concatenate((run_docs[shared_idx], new_docs))[np.argsort(key, kind="stable")]
            ref_units = _scores(rng, len(ref_docs), rng.uniform(0.03, 0.05))
            _format_run(ref_lines, qid, ref_docs, ref_units, "reference")
            stats["shared"] += n_shared
            # --- qrels: depth-40 pool of both runs + random pool documents, ~`judged` per query
            n_judged = int(rng.integers(int(judged * 0.9), int(judged * 1.1) + 1))
            top = np.unique(np.concatenate((run_docs[:40], ref_docs[:40])))
            rest = np.setdiff1d(pool, top, assume_unique=True)
            extra = rng.choice(rest, max(0, n_judged - len(top)), replace=False)
            jdocs = np.concatenate((top, extra))[:n_judged]
            is_top = np.arange(len(jdocs)) < len(top)
            u = rng.random(len(jdocs))
            # grade distributions: top-pool documents (0.45, 0.25, 0.18, 0.12), others (0.80, 0.12, 0.06, 0.02)
            grade = np.where(is_top, np.searchsorted([0.45, 0.70, 0.88], u, side="right"),
                             np.searchsorted([0.80, 0.92, 0.98], u, side="right"))
            order = rng.permutation(len(jdocs))
            for d, g in zip(jdocs[order].tolist(), grade[order].tolist()):
                q_lines.append(f"{qid} 0 D{d:07d} {g}\n")
            stats["rows"] += depth
            stats["ref_rows"] += len(ref_docs)
            stats["judgments"] += len(jdocs)
            if len(run_lines) >= 500_000 or qi == n_queries - 1:
                frun.write("".join(run_lines))
                fref.write("".join(ref_lines))
                fq.write("".join(q_lines))
                run_lines, ref_lines, q_lines = [], [], []
                if verbose:
                    print(f"\r  {qi + 1}/{n_queries} queries ({time.perf_counter() - t0:.1f} s)", end="",
                          file=sys.stderr, flush=True)
    if verbose:
        print(file=sys.stderr)
    stats["tie_fraction"] = stats["ties"] / max(1, stats["adjacent"])
    stats["shared_fraction"] = stats["shared"] / max(1, stats["rows"])
    stats["seconds"] = time.perf_counter() - t0
    stats.update(paths)
    return stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=7000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--out", default="bench-data")
    ap.add_argument("--seed", type=int, default=20240)
    ap.add_argument("--shared", type=float, default=0.6, help="fraction of each query's run documents in the reference")
    ap.add_argument("--judged", type=int, default=100, help="judged documents per query (about)")
    ap.add_argument("--gzip", action="store_true", help="write .gz files")
    args = ap.parse_args(argv)
    stats = generate(args.queries, args.depth, args.out, args.seed, args.shared, args.judged, args.gzip)
    print(f"wrote {stats['run']} ({stats['rows']:,} rows), {stats['ref']} ({stats['ref_rows']:,} rows), "
          f"{stats['qrels']} ({stats['judgments']:,} judgments) in {stats['seconds']:.1f} s; "
          f"adjacent ties {stats['tie_fraction']:.2%}, shared with reference {stats['shared_fraction']:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
