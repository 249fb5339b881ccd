#!/usr/bin/env python3
"""Benchmark the Twist family against ir_measures computing AP on the same files.

    python benchmarks/bench_twist.py            # full: 7,000 queries x 1,000 docs (+ the Robust04 stack)
    python benchmarks/bench_twist.py --quick    # smoke run: 700 queries x 1,000 docs, synthetic only

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
Helpers (package snapshot, peak memory, machine info, phase profile) come from bench_rankbiased.py,
the round-robin method and CPU time from bench_ties.py; see benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_rankbiased as br  # noqa: E402  (stdlib-only at import)
import bench_ties as bt  # noqa: E402  (stdlib-only at import; its clock, load and table helpers are reused)

MEASURES = ["Twist", "Twist_rho", "Twist_sigma"]
OTHER = ["AP"]


# =============================================================================================
# Workers (each in its own subprocess, one JSON result line)
# =============================================================================================

def w_rbstar_cli(args: dict) -> None:
    """The ``ir-rbstar`` command without interpreter start-up: reads both files, evaluates, prints means."""
    from ir_rbstar import cli      # imports ir_rbstar (registers its measures); imports are not timed
    out = io.StringIO()
    t = bt._clock()
    rc = cli.run_measures(list(args["argv"]) + ["--places", "-1"], out=out)
    br._emit({**bt._since(t), "rc": rc, "values": br._parse_tsv(out.getvalue())})


def w_rbstar_api(args: dict) -> None:
    """ir_rbstar's provider through ir_measures' API, given the two file paths (it reads them itself)."""
    import ir_measures
    import ir_rbstar
    measures = ir_rbstar.parse(" ".join(args["measures"]))
    provider = ir_measures.providers.registry["ir_rbstar"]
    t = bt._clock()
    res = provider.calc_aggregate(measures, args["qrels"], args["run"])
    br._emit({**bt._since(t), "values": {str(k): float(v) for k, v in res.items()}})


def w_irm_default(args: dict) -> None:
    """ir_measures' default pipeline from the files, reading with ir_measures (ir_rbstar not imported)."""
    import ir_measures
    measures = [ir_measures.parse_measure(m) for m in args["measures"]]
    t = bt._clock()
    res = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(args["qrels"]),
                                     ir_measures.read_trec_run(args["run"]))
    timing = bt._since(t)
    served = {str(m): next((p.NAME for p in ir_measures.DefaultPipeline.providers
                            if p.supports(m) and p.is_available()), None) for m in measures}
    br._emit({**timing, "values": {str(k): float(v) for k, v in res.items()}, "served_by": served,
              "ir_rbstar_imported": "ir_rbstar" in sys.modules})


WORKERS = {"rbstar_cli": w_rbstar_cli, "rbstar_api": w_rbstar_api, "irm_default": w_irm_default,
           "phases": br.w_phases}


# =============================================================================================
# Driver
# =============================================================================================

WORKER_ENV: Optional[Dict[str, str]] = None


def run_worker(name: str, args: dict, timeout: float = 3600) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, json.dumps(args)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=WORKER_ENV)
    outer = time.perf_counter() - t
    for line in proc.stdout.splitlines():
        if line.startswith(br.RESULT_TAG):
            res = json.loads(line[len(br.RESULT_TAG):])
            res["outer_wall"] = outer
            return res
    raise RuntimeError(f"worker {name} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")


def measure_interleaved(specs: Dict[str, tuple], repeat: int, slow: float, log) -> Dict[str, dict]:
    """Best wall time of up to ``repeat`` fresh subprocesses per contender, the contenders taking turns
    (round i runs every contender once), so that load from other processes affects all of them alike.
    A contender whose run took longer than ``slow`` seconds is not run again."""
    results: Dict[str, List[dict]] = {key: [] for key in specs}
    for i in range(repeat):
        for key, (worker, args) in specs.items():
            if results[key] and results[key][-1].get("wall", 0) > slow:
                continue
            res = run_worker(worker, args)
            results[key].append(res)
            log(f"    round {i + 1}: {key}: {res.get('wall', 0):.2f} s (CPU {res.get('cpu', 0):.2f} s), "
                f"peak {res['maxrss_mb']:.0f} MB")
    best = {}
    for key, runs in results.items():
        b = dict(min(runs, key=lambda r: r.get("wall", 0)))
        b.update(n=len(runs), walls=[r.get("wall") for r in runs], cpus=[r.get("cpu") for r in runs],
                 best_cpu=min(r.get("cpu", 0) for r in runs), maxrss_mb=max(r["maxrss_mb"] for r in runs))
        best[key] = b
    return best


def _synthetic(data_dir: str, n_queries: int, depth: int, log) -> dict:
    qrels, run = os.path.join(data_dir, "synthetic.qrels"), os.path.join(data_dir, "synthetic.run")
    msg = f"reused from {data_dir}"
    if not (os.path.exists(qrels) and os.path.exists(run)):
        log(f"generating synthetic data ({n_queries} x {depth}) into {data_dir} ...")
        proc = subprocess.run([sys.executable, os.path.join(HERE, "make_synthetic.py"), "--queries", str(n_queries),
                               "--depth", str(depth), "--out", data_dir], check=True, stdout=subprocess.PIPE, text=True)
        log(proc.stdout.rstrip())
        msg = f"generated by make_synthetic.py --queries {n_queries} --depth {depth}"
    return {"name": f"synthetic ({msg})", "short": "synthetic", "qrels": qrels, "run": run}


def _robust04_stack(tmp: str, log) -> Optional[dict]:
    """The 18 Robust04 runs stacked by ../shared/tools/stack_runs.py (read in place) into tmp."""
    qrels = os.path.join(br.SHARED_DATA, "robust04", "qrels.robust2004.txt.gz")
    runs = sorted(glob.glob(os.path.join(br.SHARED_DATA, "robust04", "runs-*", "*.gz")))
    if not (os.path.exists(br.STACK_TOOL) and os.path.exists(qrels) and runs):
        return None
    prefix = os.path.join(tmp, "robust04")
    log(f"stacking {len(runs)} Robust04 runs with {os.path.relpath(br.STACK_TOOL, br.REPO)} ...")
    subprocess.run([sys.executable, br.STACK_TOOL, prefix, qrels, *runs], check=True)
    return {"name": f"Robust04 stack ({len(runs)} runs x 249 topics, stack_runs.py)", "short": "robust04",
            "qrels": prefix + ".qrels", "run": prefix + ".run"}


def _shape(run: str) -> str:
    """Queries and rows of a run file (counted without parsing scores)."""
    queries, rows, last = 0, 0, None
    with open(run, "rb") as f:
        for line in f:
            q = line.split(None, 1)[0] if line.strip() else None
            if q is None:
                continue
            rows += 1
            if q != last:
                queries += 1
                last = q
    return f"{queries:,} queries, {rows:,} rows ({os.path.getsize(run) / 1e6:,.0f} MB run)"


def _fmt_values(values: Dict[str, float]) -> str:
    return ", ".join(f"{k}={v:.4f}" for k, v in values.items())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark ir_rbstar's Twist family against ir_measures' AP "
                                             "(see benchmarks/README.md)")
    ap.add_argument("--quick", action="store_true", help="700 queries instead of 7,000, synthetic data only")
    ap.add_argument("--queries", type=int, help="synthetic queries (default 7000, --quick 700)")
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--data", help="directory with synthetic.run and synthetic.qrels (generated there with "
                                   "make_synthetic.py if missing; default: a temporary directory)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per contender, best time reported")
    ap.add_argument("--slow", type=float, default=60.0, help="a contender slower than this (s) runs only once")
    ap.add_argument("--real", dest="real", action="store_true", default=None,
                    help="also time the Robust04 stack (default: on in full mode when ../shared/data exists)")
    ap.add_argument("--no-real", dest="real", action="store_false")
    ap.add_argument("--no-api", action="store_true", help="skip the information row 1b (Python API)")
    ap.add_argument("--no-phases", action="store_true", help="skip the per-phase profile")
    br.add_common_options(ap)
    args = ap.parse_args(argv)

    if args.worker:
        WORKERS[args.worker[0]](json.loads(args.worker[1]))
        return 0

    global WORKER_ENV

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    n_queries = args.queries or (700 if args.quick else 7000)
    real = (not args.quick) if args.real is None else args.real
    tmp = tempfile.mkdtemp(prefix="rbstar-bench-twist-")
    raw: Dict[str, object] = {}
    load_start = bt._load()
    try:
        if args.live:
            import importlib.util
            pkg_src = os.path.dirname(os.path.abspath(importlib.util.find_spec("ir_rbstar").origin))
            pkg_desc = f"live {pkg_src}, {br._git_state(pkg_src)} at start"
        else:
            pkg_desc = br.snapshot_package(tmp, args.working_tree)
            WORKER_ENV = br.WORKER_ENV
        log(f"ir_rbstar measured: {pkg_desc}")

        datasets = [_synthetic(args.data or os.path.join(tmp, "synthetic"), n_queries, args.depth, log)]
        if real:
            stack = _robust04_stack(tmp, log)
            if stack is None:
                log("../shared/data (Robust04 runs and stack_runs.py) not found: synthetic data only")
            else:
                datasets.append(stack)

        reports = []
        for ds in datasets:
            files = {"qrels": ds["qrels"], "run": ds["run"]}
            ds["shape"] = _shape(ds["run"])
            log(f"{ds['short']}: {ds['shape']}; timing (contenders take turns, fresh subprocess each) ...")
            specs = {
                "1": ("rbstar_cli", {"argv": [ds["qrels"], ds["run"], *MEASURES]}),
                "2": ("irm_default", {**files, "measures": OTHER}),
            }
            if not args.no_api:
                specs["1b"] = ("rbstar_api", {**files, "measures": MEASURES})
            res = measure_interleaved(specs, args.repeat, args.slow, log)
            phases = None
            if not args.no_phases:
                log("per-phase profile (cProfile, separate subprocess) ...")
                phases = run_worker("phases", {**files, "measures": MEASURES})
            raw[ds["short"]] = {"timings": res, "phases": phases, "dataset": ds}
            reports.append((ds, specs, res, phases))
        load_end = bt._load()

        # ------------------------------------------------------------------------------- report
        print()
        print(br.machine_info())
        print(f"mode: {'quick' if args.quick else 'full'}; best of up to {args.repeat} fresh subprocesses per "
              f"contender, contenders taking turns; wall time excludes interpreter start-up and imports, includes "
              f"reading both files; CPU s = user + system time of that subprocess over the same span (best run); "
              f"peak RSS = VmHWM of the measuring subprocess (largest over its runs); 'met?' judged on wall time; "
              f"{load_start} at start, {load_end} at end")
        print(f"ir_rbstar measured: {pkg_desc}")
        labels = {
            "1": "1. ir_rbstar " + " ".join(MEASURES) + " (ir-rbstar CLI function)",
            "2": "2. ir_measures default pipeline: " + " ".join(OTHER),
            "1b": "1b. as 1, Python API: registry['ir_rbstar'].calc_aggregate(ms, QRELS, RUN)",
        }
        goals = bt.Grid(("goal: Twist family (1) no slower than ir_measures AP (2)", "ratio (wall)", "ratio (CPU)",
                         "target", "met?"))
        for ds, specs, res, phases in reports:
            t2, c2, m2 = res["2"]["wall"], res["2"]["best_cpu"], res["2"]["maxrss_mb"]
            grid = bt.Grid(("contender (end to end from the TREC files)", "seconds", "CPU s", "peak RSS", "runs",
                            "time / 2", "CPU / 2", "peak RSS / 2"))
            for key in specs:
                r = res[key]
                grid.add(labels[key], br.fmt_s(r["wall"]), br.fmt_s(r["best_cpu"]), br.fmt_mb(r["maxrss_mb"]),
                         f"best of {r['n']}", br.fmt_ratio(r["wall"], t2), br.fmt_ratio(r["best_cpu"], c2),
                         br.fmt_ratio(r["maxrss_mb"], m2))
            print()
            print(f"data: {ds['name']}: {ds['shape']}")
            print(grid.render())
            print("all runs (wall s, in turn order): " + "; ".join(
                f"{key}: " + " ".join(f"{w:.2f}" for w in res[key]["walls"]) for key in specs))
            print(f"contender 2 served by: {res['2'].get('served_by')}; ir_rbstar imported in its process: "
                  f"{res['2'].get('ir_rbstar_imported')}")
            print(f"means: 1 {_fmt_values(res['1']['values'])}; 2 {_fmt_values(res['2']['values'])}")
            goals.add(ds["short"], f"{res['1']['wall'] / t2:.2f}", f"{res['1']['best_cpu'] / c2:.2f}", "<= 1.00",
                      br.yes(res["1"]["wall"] <= t2))
            if phases:
                print()
                print(br._phase_report(f"{' '.join(MEASURES)} on {ds['short']}", phases, res["1"]))
        print()
        print(goals.render())
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"machine": br.machine_info(), "package": pkg_desc, "results": raw}, f, indent=1, default=str)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)      # --data DIR is never inside tmp, so it is kept
    return 0


if __name__ == "__main__":
    sys.exit(main())
