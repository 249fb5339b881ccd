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

``--ties quantised`` (for benchmarks/bench_ties.py) makes the scores of both runs tied the way BM25 on
short texts printed with few decimals is: the gap between consecutive scores shrinks with the rank
(exponential gaps with mean proportional to 1/rank, a query's scores spanning 8-16 points below a
top score of 15-35), then every score is rounded to ``--decimals`` (default 2) decimals, and per query a
fraction of the gaps is exactly 0 (duplicate or equally scored documents; the fraction is drawn from
Beta(0.5, 12), mean 4%, so some queries have many such ties and most have few). The files are then
called ``tied.run``, ``tied_ref.run`` and ``tied.qrels`` (so they never mix with the default files in
one directory); the judgments are drawn exactly as in the default mode. With the defaults this gives
about 39% of the queries with a tie group touching the top 10, tie groups of 3.9 documents on average
and 85% of the rows in tie groups, close to real BM25 runs on short texts (see benchmarks/README.md).
The tie statistics of the run are printed (also in the default mode, where 3-5% of adjacent pairs tie).

``--priors N`` (for benchmarks/bench_nrg.py) also writes N "prior" runs, ``synthetic_prior01.run`` ..
(``tied_prior01.run`` .. with ``--ties quantised``): other systems' runs over the same queries, each a
perturbation of the query's candidate pool. Prior j keeps a share of the run's documents (biased to
the run's top, as the reference does) -- a level per prior drawn from U(0.3, 0.8), +-0.1 per query, so
about 55% in expectation, 53% with the default seed (DL19's official passage runs share 50% of their
documents with each of the 11 best runs of the other groups on average, 7-84% per run) -- and fills
the rest of its ``--depth`` documents from the candidate pool outside the run, so that the priors also
share documents among themselves; the order is perturbed and the scores are drawn as for the run. With
11 priors, 99.8% of the run's rows are in at least one of them. The priors come from
their own random stream (seeded by ``--seed``), so the run, reference and qrels are byte-identical
with and without ``--priors`` (the default, 0, writes no prior file).

Everything follows from ``--seed`` (numpy ``default_rng``): the same arguments give byte-identical files.

Usage: python -m benchmarks.make_synthetic [--queries 7000] [--depth 1000] [--out DIR] [--gzip]
                                           [--ties sparse|quantised] [--decimals 2] [--priors N]
"""
from __future__ import annotations

import argparse
import contextlib
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


def _scores_quantised(rng: np.random.Generator, n: int, decimals: int) -> np.ndarray:
    """n descending scores as integers in units of 10^-decimals, BM25-like and rounded (``--ties quantised``).

    Consecutive scores differ by exponential gaps whose mean falls as 1/rank (dense scores deep in the
    ranking, as BM25's are), spanning 8-16 points below a top score of 15-35; per query a fraction
    drawn from Beta(0.5, 12) of the gaps is exactly 0 (duplicates, equal statistics); rounding to
    ``decimals`` then ties every pair whose gap is below the last printed digit."""
    top = rng.uniform(15.0, 35.0)
    spread = rng.uniform(8.0, 16.0)
    mean_gap = 1.0 / np.arange(1, n, dtype=np.float64)
    mean_gap *= spread / mean_gap.sum()
    gaps = rng.exponential(mean_gap)
    gaps[rng.random(n - 1) < rng.beta(0.5, 12.0)] = 0.0
    s = top - np.concatenate(([0.0], np.cumsum(gaps)))
    return np.rint(s * 10.0 ** decimals).astype(np.int64)


def _format_run(lines: list, qid: str, docs: np.ndarray, units: np.ndarray, tag: str, decimals: int = DECIMALS) -> None:
    # units are descending integer scores in 10^-decimals units; printed exactly (no float rounding)
    if decimals == 0:
        for rank, (d, u) in enumerate(zip(docs.tolist(), units.tolist()), 1):
            lines.append(f"{qid} Q0 D{d:07d} {rank} {u} {tag}\n")
        return
    scale = 10 ** decimals
    for rank, (d, u) in enumerate(zip(docs.tolist(), units.tolist()), 1):
        sign = "-" if u < 0 else ""
        a = abs(u)
        lines.append(f"{qid} Q0 D{d:07d} {rank} {sign}{a // scale}.{a % scale:0{decimals}d} {tag}\n")


def _tie_stats(stats: dict, units: np.ndarray, top: int = 10) -> None:
    """Accumulate the tie statistics of one query's descending scores."""
    n = len(units)
    start = np.flatnonzero(np.r_[True, units[1:] != units[:-1]])
    size = np.diff(np.append(start, n))
    tied = size >= 2
    stats["q_tie_top"] += bool((tied & (start < top)).any())
    stats["q_tie_cut"] += bool((tied & (start < top) & (start + size > top)).any())
    stats["tie_groups"] += int(tied.sum())
    stats["tied_rows"] += int(size[tied].sum())


TIE_MODES = ("sparse", "quantised")


def file_names(ties: str = "sparse", compress: bool = False) -> dict:
    """File names (run, ref, qrels) written for a tie mode."""
    stem = "synthetic" if ties == "sparse" else "tied"
    ext = ".gz" if compress else ""
    return {"run": f"{stem}.run{ext}", "ref": f"{stem}_ref.run{ext}", "qrels": f"{stem}.qrels{ext}"}


def prior_file_names(n: int, ties: str = "sparse", compress: bool = False) -> list:
    """File names of the ``--priors`` runs for a tie mode (``synthetic_prior01.run``, ...)."""
    stem = "synthetic" if ties == "sparse" else "tied"
    ext = ".gz" if compress else ""
    return [f"{stem}_prior{j:02d}.run{ext}" for j in range(1, n + 1)]


PRIOR_LEVELS = (0.3, 0.8)        # share of the run's documents kept by a prior run: a level per prior
PRIOR_JITTER = 0.1               # ... +- this per query


def _prior_docs(prng: np.random.Generator, pool: np.ndarray, depth: int, level: float) -> tuple:
    """One prior run's documents for a query, in rank order, and how many of them are in the run.

    The run is ``pool[:depth]``; the prior keeps about ``level`` of it (mostly the run's top documents),
    fills up to ``depth`` from ``pool[depth:]`` (shared with the other priors), and perturbs the order."""
    frac = min(max(level + prng.uniform(-PRIOR_JITTER, PRIOR_JITTER), 0.0), 1.0)
    n_shared = int(round(depth * frac))
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    shared_idx = np.argsort(np.log(ranks) + prng.normal(0.0, 1.5, depth), kind="stable")[:n_shared]
    rest = pool[depth:]
    new_docs = prng.choice(rest, min(depth - n_shared, len(rest)), replace=False)
    key = np.concatenate((np.log(ranks[shared_idx]) + prng.normal(0.0, 0.7, n_shared),
                          np.log(prng.uniform(1.0, 1.5 * depth, len(new_docs))) + prng.normal(0.0, 0.7, len(new_docs))))
    docs = np.concatenate((pool[:depth][shared_idx], new_docs))[np.argsort(key, kind="stable")]
    return docs, n_shared


def generate(n_queries: int, depth: int, out: str, seed: int = 20240, shared: float = 0.6,
             judged: int = 100, compress: bool = False, verbose: bool = True, ties: str = "sparse",
             decimals: int = 2, priors: int = 0) -> dict:
    if depth < 10:
        raise SystemExit("--depth must be at least 10")
    if ties not in TIE_MODES:
        raise SystemExit(f"--ties must be one of {', '.join(TIE_MODES)}")
    if not 0 <= decimals <= 6:
        raise SystemExit("--decimals must be in 0..6")
    if priors < 0:
        raise SystemExit("--priors must be >= 0")
    quantised = ties == "quantised"
    run_decimals = decimals if quantised else DECIMALS
    rng = np.random.default_rng(seed)
    os.makedirs(out, exist_ok=True)
    paths = {k: os.path.join(out, f) for k, f in file_names(ties, compress).items()}
    opener = (lambda p: gzip.open(p, "wt", compresslevel=1)) if compress else (lambda p: open(p, "w"))
    prior_paths = [os.path.join(out, f) for f in prior_file_names(priors, ties, compress)]
    prng = np.random.default_rng([seed, 1])            # the priors' own stream: the main files never change
    prior_levels = prng.uniform(*PRIOR_LEVELS, priors).tolist()
    qids = np.sort(rng.choice(900_000, n_queries, replace=False) + 100_000)
    pool_size = 3 * depth
    n_new_max = depth          # room for reference documents taken from the pool outside the run
    t0 = time.perf_counter()
    stats = {"rows": 0, "ref_rows": 0, "judgments": 0, "ties": 0, "adjacent": 0, "shared": 0,
             "q_tie_top": 0, "q_tie_cut": 0, "tie_groups": 0, "tied_rows": 0, "prior_rows": 0, "prior_shared": 0,
             "in_any_prior": 0}
    with contextlib.ExitStack() as stack:
        frun, fref, fq = (stack.enter_context(opener(paths[k])) for k in ("run", "ref", "qrels"))
        fpriors = [stack.enter_context(opener(p)) for p in prior_paths]
        run_lines, ref_lines, q_lines = [], [], []
        prior_lines = [[] for _ in fpriors]
        for qi, qnum in enumerate(qids.tolist()):
            qid = str(qnum)
            pool = rng.choice(COLLECTION, pool_size, replace=False)            # random order
            # --- the run: the first `depth` pool documents, BM25-like scores with ties
            run_docs = pool[:depth]
            if quantised:
                run_units = _scores_quantised(rng, depth, decimals)
            else:
                tie_rate = rng.uniform(0.03, 0.05)
                run_units = _scores(rng, depth, tie_rate)
            _format_run(run_lines, qid, run_docs, run_units, "synthetic", run_decimals)
            _tie_stats(stats, run_units)
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
            if quantised:
                ref_units = _scores_quantised(rng, len(ref_docs), decimals)
            else:
                ref_units = _scores(rng, len(ref_docs), rng.uniform(0.03, 0.05))
            _format_run(ref_lines, qid, ref_docs, ref_units, "reference", run_decimals)
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
            # --- prior runs (own random stream), after everything of the main stream for this query
            if fpriors:
                in_any = np.zeros(depth, dtype=bool)
                for j, level in enumerate(prior_levels):
                    pdocs, n_kept = _prior_docs(prng, pool, depth, level)
                    if quantised:
                        punits = _scores_quantised(prng, len(pdocs), decimals)
                    else:
                        punits = _scores(prng, len(pdocs), prng.uniform(0.03, 0.05))
                    _format_run(prior_lines[j], qid, pdocs, punits, f"prior{j + 1:02d}", run_decimals)
                    in_any |= np.isin(run_docs, pdocs)
                    stats["prior_rows"] += len(pdocs)
                    stats["prior_shared"] += n_kept
                stats["in_any_prior"] += int(in_any.sum())
            stats["rows"] += depth
            stats["ref_rows"] += len(ref_docs)
            stats["judgments"] += len(jdocs)
            if len(run_lines) >= 500_000 or qi == n_queries - 1:
                frun.write("".join(run_lines))
                fref.write("".join(ref_lines))
                fq.write("".join(q_lines))
                run_lines, ref_lines, q_lines = [], [], []
                for f, lines in zip(fpriors, prior_lines):
                    f.write("".join(lines))
                    lines.clear()
                if verbose:
                    print(f"\r  {qi + 1}/{n_queries} queries ({time.perf_counter() - t0:.1f} s)", end="",
                          file=sys.stderr, flush=True)
    if verbose:
        print(file=sys.stderr)
    stats["tie_fraction"] = stats["ties"] / max(1, stats["adjacent"])
    stats["shared_fraction"] = stats["shared"] / max(1, stats["rows"])
    # tie statistics of the run (a tie group = a maximal set of >= 2 documents of one query with equal score)
    stats["queries"] = n_queries
    stats["frac_queries_tie_top10"] = stats["q_tie_top"] / max(1, n_queries)
    stats["frac_queries_tie_across10"] = stats["q_tie_cut"] / max(1, n_queries)
    stats["mean_tie_group_size"] = stats["tied_rows"] / max(1, stats["tie_groups"])
    stats["frac_rows_in_tie_groups"] = stats["tied_rows"] / max(1, stats["rows"])
    stats["ties_mode"] = ties
    stats["decimals"] = run_decimals
    stats["seconds"] = time.perf_counter() - t0
    stats.update(paths)
    stats["priors"] = prior_paths
    stats["prior_levels"] = prior_levels
    stats["prior_shared_fraction"] = stats["prior_shared"] / max(1, stats["rows"] * priors)
    stats["in_any_prior_fraction"] = stats["in_any_prior"] / max(1, stats["rows"])
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
    ap.add_argument("--ties", choices=TIE_MODES, default="sparse",
                    help="sparse (default): 4 decimals, 3-5%% of adjacent scores tied, files synthetic.*; "
                         "quantised: BM25-like scores rounded to --decimals, many ties, files tied.*")
    ap.add_argument("--decimals", type=int, default=2, help="decimals of the scores with --ties quantised "
                                                            "(0 = integer scores; default 2)")
    ap.add_argument("--priors", type=int, default=0, help="also write this many prior runs (other systems' runs "
                                                          "sharing documents with the run, for NRG; default 0)")
    args = ap.parse_args(argv)
    stats = generate(args.queries, args.depth, args.out, args.seed, args.shared, args.judged, args.gzip,
                     ties=args.ties, decimals=args.decimals, priors=args.priors)
    print(f"wrote {stats['run']} ({stats['rows']:,} rows), {stats['ref']} ({stats['ref_rows']:,} rows), "
          f"{stats['qrels']} ({stats['judgments']:,} judgments) in {stats['seconds']:.1f} s; "
          f"adjacent ties {stats['tie_fraction']:.2%}, shared with reference {stats['shared_fraction']:.1%}")
    print(f"ties in the run ({stats['ties_mode']}, {stats['decimals']} decimals): "
          f"{stats['frac_queries_tie_top10']:.1%} of queries have a tie group touching the top 10 "
          f"({stats['frac_queries_tie_across10']:.1%} one that spans rank 10 and 11), "
          f"mean tie-group size {stats['mean_tie_group_size']:.2f}, "
          f"{stats['frac_rows_in_tie_groups']:.1%} of rows in tie groups "
          f"({stats['tie_groups']:,} groups of >= 2 equal scores)")
    if stats["priors"]:
        print(f"wrote {len(stats['priors'])} prior runs {os.path.basename(stats['priors'][0])} .. "
              f"{os.path.basename(stats['priors'][-1])} ({stats['prior_rows']:,} rows); each prior holds "
              f"{stats['prior_shared_fraction']:.1%} of the run's documents on average (levels "
              f"{', '.join(f'{v:.2f}' for v in stats['prior_levels'])}), "
              f"{stats['in_any_prior_fraction']:.1%} of the run's rows are in at least one prior")
    return 0


if __name__ == "__main__":
    sys.exit(main())
