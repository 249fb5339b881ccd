#!/usr/bin/env python3
"""Benchmark the Twist family against ir_measures computing AP on the same files.

    python -m benchmarks.bench_twist            # full: 7,000 queries x 1,000 docs (+ the Robust04 stack)
    python -m benchmarks.bench_twist --quick    # smoke run: 700 queries x 1,000 docs, synthetic only

Contenders, each end to end from the TREC qrels and run files (reading included), each run in a fresh
subprocess (this file with ``--worker``), taking turns:

1. ir_rbstar: ``Twist Twist_rho Twist_sigma`` through the ``ir-rbstar`` command's function
   (``ir_rbstar.cli.run_measures``; interpreter start-up and imports excluded);
2. ir_measures: ``ir_measures.calc_aggregate([AP], ir_measures.read_trec_qrels(QRELS),
   ir_measures.read_trec_run(RUN))`` in a process without ir_rbstar (the default pipeline serves AP
   with pytrec_eval; the output says which provider served it).

The goal: 1 no slower than 2 (ratio <= 1.0). An information row (1b) times the Python API,
``ir_measures.providers.registry['ir_rbstar'].calc_aggregate(measures, QRELS, RUN)`` with the file paths.
A per-phase profile of 1 (read qrels, read run, evaluate) follows the table.

Inputs: ``make_synthetic.py`` (default mode: ``synthetic.run`` / ``synthetic.qrels``, grades 0-3, about
100 judgments per query), generated into a temporary directory or reused from ``--data DIR``; and, in
full mode when ``../shared/data`` exists, the 18 Robust04 runs stacked with ``../shared/tools/stack_runs.py``
(every (run, topic) a query: 4,482 queries, grades 0-2), read in place and never copied into the repository.
Helpers (worker protocol, package snapshot, peak memory, machine info, phase profile, the round-robin
method and CPU time of bench_ties.py, its contenders' workers) come from _harness.py; see
benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

if __package__:      # python -m benchmarks.bench_twist (from the repository root)
    from . import _harness as h
else:                # python benchmarks/bench_twist.py, as the workers run: its folder is first on the path
    import _harness as h  # (stdlib-only at import: worker protocol, snapshot, tables, shared workers)

SCRIPT = os.path.abspath(__file__)      # the workers run as this script with --worker

MEASURES = ["Twist", "Twist_rho", "Twist_sigma"]
OTHER = ["AP"]


# the contenders' workers are _harness's (the same as bench_ties.py's); each runs in its own subprocess
WORKERS = {"rbstar_cli": h.w_rbstar_cli, "rbstar_api": h.w_rbstar_api, "irm_default": h.w_irm_default,
           "phases": h.w_phases}


# =============================================================================================
# Driver
# =============================================================================================

def _synthetic(data_dir: str, n_queries: int, depth: int) -> dict:
    (qrels, run), msg = h.synthetic(data_dir, ["synthetic.qrels", "synthetic.run"], n_queries, depth)
    return {"name": f"synthetic ({msg})", "short": "synthetic", "qrels": qrels, "run": run}


def _robust04_stack(tmp: str) -> Optional[dict]:
    """The 18 Robust04 runs stacked by ../shared/tools/stack_runs.py (read in place) into tmp."""
    stack = h.robust04_stack(tmp)
    if stack is None:
        return None
    prefix, n_runs = stack
    return {"name": f"Robust04 stack ({n_runs} runs x 249 topics, stack_runs.py)", "short": "robust04",
            "qrels": prefix + ".qrels", "run": prefix + ".run"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark ir_rbstar's Twist family against ir_measures' AP "
                                             "(see benchmarks/README.md)")
    h.add_size_options(ap, "700 queries instead of 7,000, synthetic data only")
    h.add_data_option(ap, "synthetic.run and synthetic.qrels")
    h.add_repeat_options(ap, 60.0)
    h.add_real_options(ap, "the Robust04 stack")
    ap.add_argument("--no-api", action="store_true", help="skip the information row 1b (Python API)")
    ap.add_argument("--no-phases", action="store_true", help="skip the per-phase profile")
    args = h.parse_args(ap, argv, WORKERS)

    log = h.log
    n_queries = h.n_queries(args)
    real = (not args.quick) if args.real is None else args.real
    with h.session("rbstar-bench-twist-", args) as bench:
        datasets = [_synthetic(args.data or os.path.join(bench.tmp, "synthetic"), n_queries, args.depth)]
        if real:
            stack = _robust04_stack(bench.tmp)
            if stack is None:
                log("../shared/data (Robust04 runs and stack_runs.py) not found: synthetic data only")
            else:
                datasets.append(stack)

        reports = []
        for ds in datasets:
            files = {"qrels": ds["qrels"], "run": ds["run"]}
            ds["shape"] = h.run_shape(ds["run"])
            log(f"{ds['short']}: {ds['shape']}; timing (contenders take turns, fresh subprocess each) ...")
            specs = {
                "1": ("rbstar_cli", {"argv": [ds["qrels"], ds["run"], *MEASURES]}),
                "2": ("irm_default", {**files, "measures": OTHER}),
            }
            if not args.no_api:
                specs["1b"] = ("rbstar_api", {**files, "measures": MEASURES})
            res = h.measure_interleaved(SCRIPT, specs, args.repeat, args.slow)
            phases = None
            if not args.no_phases:
                log("per-phase profile (cProfile, separate subprocess) ...")
                phases = h.run_worker(SCRIPT, "phases", {**files, "measures": MEASURES})
            bench.raw[ds["short"]] = {"timings": res, "phases": phases, "dataset": ds}
            reports.append((ds, specs, res, phases))
        load_end = h.load_average()

        # ------------------------------------------------------------------------------- report
        print()
        print(h.machine_info())
        print(h.interleaved_method(args.quick, args.repeat, bench.load_start, load_end))
        print(f"ir_rbstar measured: {bench.package}")
        labels = {
            "1": "1. ir_rbstar " + " ".join(MEASURES) + " (ir-rbstar CLI function)",
            "2": "2. ir_measures default pipeline: " + " ".join(OTHER),
            "1b": "1b. as 1, Python API: registry['ir_rbstar'].calc_aggregate(ms, QRELS, RUN)",
        }
        goals = h.Grid(("goal: Twist family (1) no slower than ir_measures AP (2)", "ratio (wall)", "ratio (CPU)",
                        "target", "met?"))
        for ds, specs, res, phases in reports:
            t2, c2, m2 = res["2"]["wall"], res["2"]["best_cpu"], res["2"]["maxrss_mb"]
            grid = h.Grid(("contender (end to end from the TREC files)", "seconds", "CPU s", "peak RSS", "runs",
                           "time / 2", "CPU / 2", "peak RSS / 2"))
            for key in specs:
                r = res[key]
                grid.add(labels[key], h.fmt_s(r["wall"]), h.fmt_s(r["best_cpu"]), h.fmt_mb(r["maxrss_mb"]),
                         f"best of {r['n']}", h.fmt_ratio(r["wall"], t2), h.fmt_ratio(r["best_cpu"], c2),
                         h.fmt_ratio(r["maxrss_mb"], m2))
            print()
            print(f"data: {ds['name']}: {ds['shape']}")
            print(grid.render())
            print(h.all_runs_line(res, specs))
            print(h.served_line("contender 2", res["2"]))
            print(f"means: 1 {h.fmt_values(res['1']['values'])}; 2 {h.fmt_values(res['2']['values'])}")
            goals.add(ds["short"], f"{res['1']['wall'] / t2:.2f}", f"{res['1']['best_cpu'] / c2:.2f}", "<= 1.00",
                      h.yes(res["1"]["wall"] <= t2))
            bench.add_summary("Twist (bench_twist.py)", " + ".join(MEASURES) + " from the TREC files (1)",
                              f"{ds['short']}, {ds['shape'].split(' rows')[0]} rows", h.fmt_s(res["1"]["wall"]),
                              "ir_measures default pipeline (pytrec_eval): " + " ".join(OTHER) + " from the same files (2)",
                              h.fmt_s(t2), res["1"]["wall"] / t2, "<= 1.00", res["1"]["wall"] <= t2,
                              peer_dists=["ir_measures", "pytrec_eval-terrier"])
            if phases:
                print()
                print(h.phase_report(f"{' '.join(MEASURES)} on {ds['short']}", phases, res["1"]))
        print()
        print(goals.render())
        bench.write_json(args.json, mode=h.mode_of(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
