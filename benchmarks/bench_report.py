#!/usr/bin/env python3
"""Time ``ir-rbstar report`` by section, and how each section grows with the number of runs.

    python -m benchmarks.bench_report                  # DL19: 10, 20 and 37 official runs, and the 59-run stand-in
    python -m benchmarks.bench_report --sizes 10,37    # some of them (59 = the stand-in)
    python -m benchmarks.bench_report --quick          # 10 runs only

Goal (issue 26): the default report (only ``--baseline`` given) on the 59 runs of a DL-sized track (TREC DL
2020: 54 judged queries, 200 queries x 1,000 documents per run) in at most 30 s of CPU and 1 GB of peak RSS.

Inputs (``../shared/data``, never copied into the repository): the 37 official TREC 2019 Deep Learning
passage runs and their qrels (43 judged queries of the 200 each run answers), the first 10 / 20 / all 37 in
file-name order, baseline ``bm25base_p``. DL20 itself is not here, so the 59-run case is a stand-in of
the same shape, written into a temporary directory: the 37 official runs, 11 of their unjudged queries
replaced by copies of 11 judged ones under new ids (qrels copied too: 54 judged queries of 200), plus 22
runs made from official depth-1,000 runs by a seeded perturbation of their order (scores rounded to 3
decimals, so that ties occur as in real runs).

Each case runs in a fresh subprocess (this file with ``--worker``) that calls
``ir_rbstar.report.build_report`` as the ``ir-rbstar report QRELS RUN... --baseline X`` command does (the
command's own function is a thin wrapper around it), with a progress callback that reads the process's
CPU clock at every step: the CPU seconds between two steps are charged to the section the first step
belongs to (reading, evaluation, baseline tests, all pairs, distances, pictures, writing). ``total CPU``
is the whole process (``resource.getrusage``: user + system, interpreter start-up and imports
included), as ``/usr/bin/time`` would count the command; peak memory is the process's VmHWM. CPU time,
not wall time, because the machine is shared. No test asserts on these times.
"""
from __future__ import annotations

import argparse
import glob
import os
import resource
import sys
import time
from typing import Dict, List

if __package__:      # python -m benchmarks.bench_report (from the repository root)
    from . import _harness as h
else:                # python benchmarks/bench_report.py, as the workers run
    import _harness as h

SCRIPT = os.path.abspath(__file__)
DL19 = os.path.join(h.SHARED_DATA, "dl19-passage")
BASELINE = "bm25base_p"
GOAL_CPU_S, GOAL_MB = 30.0, 1024.0

#: the sections of the report, in order, and the progress messages that start them (prefixes)
SECTIONS = [("read", ("reading",)), ("evaluate", ("evaluating", "NRG prior", "per-query table")),
            ("means", ("means",)), ("baseline tests", ("significance", "baseline", "robust")),
            ("all pairs", ("all pairs",)), ("distances", ("distance",)), ("pictures", ("picture",)),
            ("write", ("writing",))]


def section_of(message: str) -> str:
    for name, prefixes in SECTIONS:
        if message.startswith(prefixes):
            return name
    return "other"


def cpu_now() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# =============================================================================================
# Workers
# =============================================================================================

def w_report(args: dict) -> None:
    """One report: CPU per section (from the progress callback), total process CPU, peak memory."""
    import tempfile
    from ir_rbstar.report import build_report
    import matplotlib
    matplotlib.use("Agg")
    runs: List[str] = args["runs"]
    spent: Dict[str, float] = {}
    state = {"section": "setup", "cpu": cpu_now()}

    def progress(step: int, total: int, message: str) -> None:
        now = cpu_now()
        spent[state["section"]] = spent.get(state["section"], 0.0) + now - state["cpu"]
        state.update(section=section_of(message), cpu=now)

    with tempfile.TemporaryDirectory(prefix="bench-report-") as out:
        start = time.perf_counter()
        build_report(args["qrels"], runs, out, baseline=args["baseline"], progress=progress,
                     max_rel=args.get("max_rel"))
        now = cpu_now()
        spent[state["section"]] = spent.get(state["section"], 0.0) + now - state["cpu"]
        wall = time.perf_counter() - start
    h.emit({"sections": spent, "total_cpu": cpu_now(), "wall": wall, "runs": len(runs)})


def w_standin(args: dict) -> None:
    """Write the 59-run stand-in (see the module's docstring) into ``args['out']``."""
    import numpy as np
    import pandas as pd
    out, dl19 = args["out"], args["dl19"]
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    qrels = pd.read_csv(os.path.join(dl19, "qrels.dl19-passage.txt"), sep=r"\s+", header=None,
                        names=["q", "it", "d", "g"], dtype={"q": str, "d": str})
    judged = sorted(qrels["q"].unique())
    copies = judged[:11]
    new_id = {q: f"9{q}" for q in copies}
    extra = qrels[qrels["q"].isin(copies)].copy()
    extra["q"] = extra["q"].map(new_id)
    pd.concat([qrels, extra]).to_csv(os.path.join(out, "qrels.txt"), sep=" ", header=False, index=False)
    files = sorted(glob.glob(os.path.join(dl19, "runs", "*.gz")))
    frames = {}
    for path in files:
        run = pd.read_csv(path, sep=r"\s+", header=None, names=["q", "z", "d", "r", "s", "t"],
                          dtype={"q": str, "d": str}, usecols=[0, 1, 2, 3, 4, 5])
        unjudged = [q for q in pd.unique(run["q"]) if q not in set(judged)][:11]
        keep = run[~run["q"].isin(unjudged)]
        add = run[run["q"].isin(copies)].copy()
        add["q"] = add["q"].map(new_id)
        frames[os.path.basename(path)[:-3]] = pd.concat([keep, add], ignore_index=True)
    rng = np.random.default_rng(26)
    deep = [n for n, f in frames.items() if len(f) >= 150_000]
    for i in range(22):
        base = frames[deep[i % len(deep)]]
        noise = rng.normal(0.0, 3.0 + i, len(base))
        key = base.groupby("q", sort=False).cumcount().to_numpy() + noise
        made = base[["q", "z", "d"]].copy()
        made["s"] = np.round(1000.0 - key, 3)
        made = made.sort_values(["q", "s"], ascending=[True, False], kind="stable")
        made["r"] = made.groupby("q", sort=False).cumcount() + 1
        made["t"] = f"perturbed{i + 1}"
        frames[f"perturbed{i + 1}"] = made[["q", "z", "d", "r", "s", "t"]]
    for name, frame in frames.items():
        frame.to_csv(os.path.join(out, "runs", name), sep=" ", header=False, index=False)
    h.emit({"runs": len(frames)})


WORKERS = {"report": w_report, "standin": w_standin}


# =============================================================================================
# Driver
# =============================================================================================

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,20,37,59", help="numbers of runs (59: the stand-in), default 10,20,37,59")
    ap.add_argument("--quick", action="store_true", help="10 runs only")
    ap.add_argument("--dl19", default=DL19, help=f"the DL19 passage folder (qrels, runs/; default {DL19})")
    ap.add_argument("--max-rel", dest="max_rel", type=int, default=None,
                    help="the grade scale to pass (default: the report's own, from the qrels)")
    args = h.parse_args(ap, argv, WORKERS)
    dl19 = args.dl19
    if not os.path.isdir(os.path.join(dl19, "runs")):
        h.log(f"skipped: the DL19 runs are not in {dl19} (give --dl19 DIR)")
        return 0
    sizes = [10] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    files = sorted(glob.glob(os.path.join(dl19, "runs", "*.gz")))
    qrels = os.path.join(dl19, "qrels.dl19-passage.txt")
    results: Dict[int, dict] = {}
    with h.session("bench-report-", args) as s:
        for n in sizes:
            if n <= len(files):
                chosen = files[:n]
                if not any(os.path.basename(f).startswith(BASELINE + ".") for f in chosen):
                    chosen = chosen[:-1] + [os.path.join(dl19, "runs", BASELINE + ".gz")]
                case = {"qrels": qrels, "runs": chosen}
            else:
                folder = os.path.join(s.tmp, "standin")
                if not os.path.isdir(folder):
                    h.log("writing the 59-run stand-in ...")
                    h.run_worker(SCRIPT, "standin", {"out": folder, "dl19": dl19})
                case = {"qrels": os.path.join(folder, "qrels.txt"),
                        "runs": sorted(glob.glob(os.path.join(folder, "runs", "*")))[:n]}
            h.log(f"report on {len(case['runs'])} runs ...")
            res = h.run_worker(SCRIPT, "report", {**case, "baseline": BASELINE, "max_rel": args.max_rel})
            results[n] = res
            h.log(f"  {res['total_cpu']:.1f} s CPU, {res['maxrss_mb']:.0f} MB")
        s.raw = {str(k): v for k, v in results.items()}
        print(table(results))
        print(f"\nmachine: {h.machine_info()}; load {s.load_start} -> {h.load_average()}; package: {s.package}")
        for n, res in results.items():
            data = "59-run DL20-shaped stand-in" if n > len(files) else f"DL19, {n} official runs"
            s.add_summary("report (bench_report.py)", f"ir-rbstar report, default sections, {n} runs", data,
                          f"{res['total_cpu']:.1f} s CPU, {res['maxrss_mb']:.0f} MB", "goal", "",
                          None, f"<= {GOAL_CPU_S:.0f} s, <= {GOAL_MB:.0f} MB" if n == 59 else "info",
                          (res["total_cpu"] <= GOAL_CPU_S and res["maxrss_mb"] <= GOAL_MB) if n == 59 else None,
                          peer_version="issue 26's goal")
        s.write_json(args.json, mode="quick" if args.quick else "full")
    return 0


def table(results: Dict[int, dict]) -> str:
    """CPU seconds per section (rows) for each number of runs (columns), then total CPU and peak memory."""
    sizes = list(results)
    head = "| section | " + " | ".join(f"{n} runs" for n in sizes) + " |"
    lines = [head, "|---|" + "---:|" * len(sizes)]
    names = ["setup"] + [name for name, _ in SECTIONS] + ["other"]
    for name in names:
        if not any(name in results[n]["sections"] for n in sizes):
            continue
        lines.append(f"| {name} | " + " | ".join(f"{results[n]['sections'].get(name, 0.0):.1f}" for n in sizes) + " |")
    total = " | ".join(f"**{results[n]['total_cpu']:.1f}**" for n in sizes)
    lines.append(f"| **total CPU (process)** | {total} |")
    lines.append("| peak RSS (MB) | " + " | ".join(f"{results[n]['maxrss_mb']:.0f}" for n in sizes) + " |")
    lines.append("| wall (s) | " + " | ".join(f"{results[n]['wall']:.1f}" for n in sizes) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
