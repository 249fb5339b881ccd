#!/usr/bin/env python3
"""Benchmark ir_rbstar's rank-biased family against the tools a user would otherwise reach for.

    python benchmarks/bench_rankbiased.py            # full: 7,000 queries x 1,000 docs (+ Robust04 stack)
    python benchmarks/bench_rankbiased.py --quick    # smoke run: 700 queries x 1,000 docs

Every measurement runs in a fresh Python subprocess (this file with ``--worker``), so that

* wall times never profit from a warm process (ir_rbstar interns ids in process-wide vocabularies and
  caches reference runs: a second evaluation in the same process would be faster than a user's first);
* peak memory (``ru_maxrss`` of that subprocess) belongs to that measurement alone.

A subprocess times only the work (imports are done before the clock starts; import time is its own
row). Cheap measurements are repeated (``--repeat``, best wall time is reported, and the largest peak
memory); a measurement whose first run takes more than ``--slow`` seconds runs once.

See benchmarks/README.md for what each row measures and the targets.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import io
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))
SHARED_DATA = os.path.join(SHARED, "data")
STACK_TOOL = os.path.join(SHARED, "tools", "stack_runs.py")
RESULT_TAG = "@@RESULT "

P_RBP = 0.8      # RBP / RBP_res
P_REF = 0.8      # RBR / RBA
P_RBO = 0.9      # RBO family and rbo.rbo_ext


def _maxrss_mb() -> float:
    """Peak resident memory of this process: VmHWM of /proc/self/status (ru_maxrss where that is missing).

    Not ru_maxrss first: on Linux, execve() carries the high-water mark of the pre-exec image (a copy of
    the parent's address space) into the child's ru_maxrss, so a worker started by a big parent would
    report the parent's peak. VmHWM belongs to the worker's own address space.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0    # KiB on Linux


# =============================================================================================
# Workers: each runs in its own subprocess and prints one JSON result line
# =============================================================================================

def _emit(result: dict) -> None:
    result["maxrss_mb"] = _maxrss_mb()
    result["ru_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(RESULT_TAG + json.dumps(result), flush=True)


def _parse_tsv(text: str) -> Dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line.strip():
            name, value = line.rsplit("\t", 1)
            out[name] = float(value)
    return out


def w_import(args: dict) -> None:
    t = time.perf_counter()
    mod = __import__(args["module"])
    _emit({"wall": time.perf_counter() - t, "file": getattr(mod, "__file__", None)})


def w_rbstar_cli(args: dict) -> None:
    """The user's path: the ir-rbstar command's function (reads the files, evaluates, prints means)."""
    import ir_rbstar  # noqa: F401  (import time is measured separately)
    from ir_rbstar import cli
    out = io.StringIO()
    t = time.perf_counter()
    rc = cli.run_measures(list(args["argv"]) + ["--places", "-1"], out=out)
    wall = time.perf_counter() - t
    _emit({"wall": wall, "rc": rc, "values": _parse_tsv(out.getvalue())})


def w_pytrec(args: dict) -> None:
    """ir_measures + pytrec_eval computing nDCG@10 from the same files (reading included)."""
    import ir_measures
    t = time.perf_counter()
    res = ir_measures.pytrec_eval.calc_aggregate([ir_measures.nDCG @ 10], ir_measures.read_trec_qrels(args["qrels"]),
                                                 ir_measures.read_trec_run(args["run"]))
    wall = time.perf_counter() - t
    _emit({"wall": wall, "values": {str(k): float(v) for k, v in res.items()}})


def _ordered_lists(path: str):
    """{qid: [doc ids]} in trec_eval order (score descending, ties by doc id descending), via pandas."""
    import pandas as pd
    df = pd.read_csv(path, sep=r"\s+", header=None, usecols=[0, 2, 4], names=["q", "d", "s"],
                     dtype={"q": object, "d": object, "s": float}, engine="c", na_filter=False, quoting=3)
    df = df.sort_values(["q", "s", "d"], ascending=[True, False, False], kind="stable")
    return {q: g.tolist() for q, g in df.groupby("q", sort=False)["d"]}


def w_rbo_pkg(args: dict) -> None:
    """PyPI ``rbo``: RankingSimilarity(S=run, T=reference).rbo_ext(p) per query. Only rbo_ext is timed.

    Pairs are taken in a seeded random order, in chunks of 50; when the summed time of rbo_ext exceeds
    ``budget`` seconds the worker stops, and the driver extrapolates linearly to all pairs.
    """
    import numpy as np
    import rbo
    run, ref = _ordered_lists(args["run"]), _ordered_lists(args["ref"])
    qids = sorted(q for q in run if q in ref)
    n_all = len(qids)
    order = np.random.default_rng(args.get("seed", 0)).permutation(n_all)
    qids = [qids[i] for i in order]
    sims = [rbo.RankingSimilarity(run[q], ref[q]) for q in qids]     # constructor (set() checks) not timed
    del run, ref
    p, budget = args["p"], args.get("budget") or float("inf")
    vals, wall = [], 0.0
    for start in range(0, n_all, 50):
        chunk = sims[start:start + 50]
        t = time.perf_counter()
        vals.extend(s.rbo_ext(p=p) for s in chunk)
        wall += time.perf_counter() - t
        if wall > budget:
            break
    _emit({"wall": wall, "pairs": len(vals), "pairs_all": n_all, "values": dict(zip(qids, vals)),
           "mean": float(np.mean(vals)) if vals else 0.0})


def _ref_measures(names: List[str], ref: str, p: float) -> List[str]:
    return [f"{n}(p={p},ref='{ref}')" for n in names]


def w_rbstar_inmemory(args: dict) -> None:
    """ir_rbstar from runs already parsed into Rankings (``read_trec_run``, the analogue of rbo's ready-made
    lists); timed: registering the reference (its preparation), the join and all kernels.

    With ``from_frames``: starting from pandas DataFrames (query_id, doc_id, score) instead, so the
    conversion (validation, hashing, sorting) is timed too, but not the file parsing.
    """
    import numpy as np
    import ir_measures
    import ir_rbstar
    from ir_rbstar import io as rio
    from ir_rbstar.provider import PROVIDER
    measures = [ir_measures.parse_measure(m) for m in _ref_measures(args["names"], "bench_ref", args["p"])]
    if args.get("from_frames"):
        run_in = rio.read_run_frame(args["run"])
        ref_in = rio.read_run_frame(args["ref"])
    else:
        run_in = rio.read_trec_run(args["run"])
        ref_in = rio.read_trec_run(args["ref"])
    t = time.perf_counter()
    ir_rbstar.register_run("bench_ref", ref_in)
    ev = PROVIDER.evaluator(measures, None)
    vals = ev.values(run_in)
    wall = time.perf_counter() - t
    qids = vals.pop("query_id")
    per_query = {}
    if args.get("return_values"):
        m_ext = [m for m in measures if m.NAME == "RBO_ext"]
        if m_ext:
            per_query = dict(zip(qids.tolist(), vals[m_ext[0]].tolist()))
    _emit({"wall": wall, "values": {str(m).replace("bench_ref", "REF"): float(np.mean(v)) for m, v in vals.items()},
           "per_query": per_query})


def _package_dir() -> str:
    import ir_rbstar
    return os.path.dirname(os.path.abspath(ir_rbstar.__file__))


def _profiled(fn, top: int = 8):
    """Run fn under cProfile; wall time and the ir_rbstar functions that took it.

    A function's "own" time here is its exclusive time plus the time of the numpy/pandas/stdlib functions
    it calls directly (not that of other ir_rbstar functions), so the rows never overlap. This names the
    bottlenecks without depending on the package's private function names.
    """
    import cProfile
    import pstats
    pkg = _package_dir()
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    try:
        result = fn()
    finally:
        prof.disable()
    wall = time.perf_counter() - t
    stats = pstats.Stats(prof).stats
    ours = {f for f in stats if os.path.abspath(f[0]).startswith(pkg + os.sep)}
    # own = exclusive time + time of the non-ir_rbstar functions it calls directly (numpy, pandas, ...)
    own = {f: stats[f][2] for f in ours}
    for g, st in stats.items():
        if g in ours:
            continue
        for caller, cstat in st[4].items():
            if caller in ours:
                own[caller] += cstat[3]
    rows = sorted(((f"{os.path.relpath(f[0], pkg)}:{f[1]}({f[2]})", v) for f, v in own.items()), key=lambda r: -r[1])
    inside = sum(v for _, v in rows)
    listed = [[name, v] for name, v in rows[:top] if v >= 0.005]
    rest = inside - sum(v for _, v in listed)
    if rest >= 0.005:
        listed.append(["other ir_rbstar functions", rest])
    if wall - inside >= 0.005:
        listed.append(["outside ir_rbstar (callers, ir_measures)", wall - inside])
    return result, wall, listed


def w_phases(args: dict) -> None:
    """ir_rbstar's path split into public steps (read qrels, read run, read reference, evaluate), each
    profiled. The steps are those of ``cli.run_measures``: read_trec_qrels, read_trec_run, then the
    provider's evaluator; a ``ref=`` file is read by references.resolve_run (cached for the evaluation)."""
    import numpy as np
    import ir_measures
    import ir_rbstar  # noqa: F401
    from ir_rbstar import io as rio
    from ir_rbstar.provider import PROVIDER
    from ir_rbstar.references import resolve_run
    measures = [ir_measures.parse_measure(m) for m in args["measures"]]
    steps = []
    qrels = None
    if args.get("qrels"):
        qrels, wall, top = _profiled(lambda: rio.read_trec_qrels(args["qrels"]))
        steps.append(["read qrels file (read_trec_qrels)", wall, top])
    run, wall, top = _profiled(lambda: rio.read_trec_run(args["run"]))
    steps.append(["read run file (read_trec_run)", wall, top])
    if args.get("ref"):
        _, wall, top = _profiled(lambda: resolve_run(args["ref"]))
        steps.append(["read reference file (references.resolve_run)", wall, top])

    def evaluate():
        ev = PROVIDER.evaluator(measures, qrels)
        vals = ev.values(run)
        vals.pop("query_id")
        return {str(m): float(np.mean(v)) for m, v in vals.items()}
    means, wall, top = _profiled(evaluate)
    steps.append(["evaluate: joins + kernels (evaluator.values)", wall, top])
    ref = args.get("ref") or "\0"
    _emit({"steps": steps, "values": {k.replace(ref, "REF"): v for k, v in means.items()}})


def w_paired_ref(args: dict) -> None:
    """Reference for the stacked runs: query '<run i>:<topic>' gets run i-1's ranking of the topic (cyclically)."""
    import pandas as pd
    df = pd.read_csv(args["run"], sep=r"\s+", header=None, dtype=object, names=list(range(6)), na_filter=False)
    name_topic = df[0].str.split(":", n=1, expand=True)
    names = list(dict.fromkeys(name_topic[0].tolist()))
    nxt = {names[i]: names[(i + 1) % len(names)] for i in range(len(names))}   # run i's rows -> query of run i+1
    df[0] = name_topic[0].map(nxt) + ":" + name_topic[1]
    df[5] = "pairedref"
    df.to_csv(args["out"], sep=" ", header=False, index=False)
    _emit({"queries": int(df[0].nunique()), "rows": len(df)})


WORKERS = {"paired_ref": w_paired_ref, "import": w_import, "rbstar_cli": w_rbstar_cli, "pytrec": w_pytrec, "rbo_pkg": w_rbo_pkg,
           "rbstar_inmemory": w_rbstar_inmemory, "phases": w_phases}


# =============================================================================================
# Driver
# =============================================================================================

WORKER_ENV: Optional[Dict[str, str]] = None      # set by snapshot_package()


def snapshot_package(tmp: str, working_tree: bool = False) -> str:
    """Copy the ir_rbstar package into tmp and make every worker import that copy, so that edits made to
    the package while the benchmark runs cannot mix versions. By default the copy is the last commit
    (``git archive HEAD``: a consistent, named state even while someone edits the work tree); with
    ``working_tree`` (or outside a git checkout) it is the work tree as it is now. Returns a description."""
    global WORKER_ENV
    import importlib.util
    spec = importlib.util.find_spec("ir_rbstar")
    src = os.path.dirname(os.path.abspath(spec.origin))
    root = os.path.join(tmp, "pkg")
    os.makedirs(root, exist_ok=True)
    desc = None
    if not working_tree:
        try:
            top = subprocess.run(["git", "-C", src, "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                                 check=True).stdout.strip()
            rel = os.path.relpath(src, top)
            archive = subprocess.run(["git", "-C", top, "archive", "--format=tar", "HEAD", rel], capture_output=True,
                                     check=True).stdout
            import tarfile
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(os.path.join(tmp, "pkg-tree"))
            shutil.move(os.path.join(tmp, "pkg-tree", rel), os.path.join(root, "ir_rbstar"))
            head = subprocess.run(["git", "-C", top, "log", "-1", "--format=%h %s"], capture_output=True, text=True,
                                  check=True).stdout.strip()
            dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--", "."], capture_output=True,
                                   text=True, check=True).stdout.strip()
            desc = (f"committed HEAD of {src}: git {head[:70]}"
                    + (" (the work tree had uncommitted changes, not measured)" if dirty else ""))
        except (OSError, subprocess.CalledProcessError):
            desc = None
    if desc is None:
        shutil.copytree(src, os.path.join(root, "ir_rbstar"), ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        desc = f"work tree of {src} copied at start, {_git_state(src)}"
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    WORKER_ENV = env
    return desc


def _git_state(path: str) -> str:
    try:
        head = subprocess.run(["git", "-C", path, "log", "-1", "--format=%h %s"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", path, "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, check=True).stdout.strip()
        return f"git {head[:70]}" + (" + uncommitted changes" if dirty else " (clean)")
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"


def run_worker(name: str, args: dict, timeout: float = 3600) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, json.dumps(args)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=WORKER_ENV)
    outer = time.perf_counter() - t
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_TAG):
            res = json.loads(line[len(RESULT_TAG):])
            res["outer_wall"] = outer
            return res
    raise RuntimeError(f"worker {name} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")


def measure(name: str, args: dict, repeat: int, slow: float, log) -> dict:
    """Best wall time of up to `repeat` fresh subprocesses (1 if the first is slower than `slow` s)."""
    results = []
    for i in range(repeat):
        res = run_worker(name, args)
        results.append(res)
        log(f"    {name} run {i + 1}: {res.get('wall', 0):.2f} s, peak {res['maxrss_mb']:.0f} MB")
        if res.get("wall", 0) > slow:
            break
    best = min(results, key=lambda r: r.get("wall", 0))
    best = dict(best)
    best["n"] = len(results)
    best["walls"] = [r.get("wall") for r in results]
    best["maxrss_mb"] = max(r["maxrss_mb"] for r in results)
    return best


class Table:
    COLS = ("task", "ir_rbstar", "other tool", "ratio", "target", "met?")

    def __init__(self):
        self.rows: List[tuple] = []
        self.notes: List[str] = []

    def add(self, task, ours, other, ratio, target, met):
        self.rows.append((task, ours, other, ratio, target, met))

    def render(self) -> str:
        rows = [self.COLS] + [tuple("" if v is None else str(v) for v in r) for r in self.rows]
        widths = [max(len(r[i]) for r in rows) for i in range(len(self.COLS))]
        lines = []
        for j, r in enumerate(rows):
            lines.append(" | ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
            if j == 0:
                lines.append("-+-".join("-" * w for w in widths))
        return "\n".join(lines)


def machine_info() -> str:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ram = "?"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    ram = f"{int(line.split()[1]) / 1024 ** 2:.1f} GiB"
                    break
    except OSError:
        pass
    from importlib import metadata

    def ver(dist):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"machine: {cpu}; {cores} cores; RAM {ram}; Python {platform.python_version()}; "
            f"numpy {ver('numpy')}; pandas {ver('pandas')}; ir_measures {ver('ir_measures')}; "
            f"pytrec_eval {ver('pytrec_eval-terrier')}; rbo {ver('rbo')}; ir_rbstar {ver('ir_rbstar')}; "
            f"{platform.system()} {platform.release()}; date {datetime.datetime.now().isoformat(timespec='seconds')}")


def fmt_s(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f} s"


def fmt_mb(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:,.0f} MB"


def fmt_ratio(a: Optional[float], b: Optional[float]) -> str:
    return "-" if a is None or not b else f"{a / b:.2f}"


def yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def build_real(tmp: str, log) -> Optional[dict]:
    """Stack the Robust04 runs (read in place from ../shared/data) into tmp, plus a paired reference run."""
    qrels = os.path.join(SHARED_DATA, "robust04", "qrels.robust2004.txt.gz")
    runs = sorted(glob.glob(os.path.join(SHARED_DATA, "robust04", "runs-*", "*.gz")))
    if not (os.path.exists(STACK_TOOL) and os.path.exists(qrels) and runs):
        return None
    prefix = os.path.join(tmp, "robust04")
    log(f"  stacking {len(runs)} Robust04 runs with {os.path.relpath(STACK_TOOL, REPO)} ...")
    subprocess.run([sys.executable, STACK_TOOL, prefix, qrels, *runs], check=True)
    # a paired reference (built in a subprocess, so this driver stays small: see _maxrss_mb)
    paired = run_worker("paired_ref", {"run": prefix + ".run", "out": prefix + "_ref.run"})
    nq, nrows = paired["queries"], paired["rows"]
    return {"name": f"Robust04 stack ({len(runs)} runs x 249 topics = {nq:,} queries, {nrows:,} rows)",
            "short": "robust04", "run": prefix + ".run", "qrels": prefix + ".qrels", "ref": prefix + "_ref.run",
            "queries": nq}


def add_common_options(ap: argparse.ArgumentParser) -> None:
    """Options every benchmark script shares: raw JSON, which ir_rbstar is measured, the worker hook."""
    ap.add_argument("--json", help="also write all raw results to this JSON file")
    ap.add_argument("--live", action="store_true", help="import the installed ir_rbstar in every worker instead of "
                                                        "a snapshot taken at start (see snapshot_package)")
    ap.add_argument("--working-tree", action="store_true", help="snapshot the package's work tree (uncommitted "
                                                                "edits included) instead of its last commit")
    ap.add_argument("--worker", nargs=2, metavar=("NAME", "ARGS"), help=argparse.SUPPRESS)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark ir_rbstar's rank-biased measures (see benchmarks/README.md)")
    ap.add_argument("--quick", action="store_true", help="700 queries instead of 7,000 (smoke run)")
    ap.add_argument("--queries", type=int, help="synthetic queries (default 7000, --quick 700)")
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--data", help="directory with synthetic.run, synthetic_ref.run, synthetic.qrels "
                                   "(generated there if missing; default: a temporary directory)")
    ap.add_argument("--no-real", action="store_true", help="skip the Robust04 stack even if ../shared/data exists")
    ap.add_argument("--real", action="store_true", help="with --quick: include the Robust04 stack (full mode does "
                                                        "when ../shared/data exists)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement, best time reported")
    ap.add_argument("--slow", type=float, default=30.0, help="a measurement slower than this (s) runs only once")
    ap.add_argument("--rbo-budget", type=float, default=120.0,
                    help="seconds of rbo.rbo_ext per measurement; past that, the pairs timed so far (a random "
                         "sample) are extrapolated linearly to all pairs, and the output says so")
    add_common_options(ap)
    args = ap.parse_args(argv)

    if args.worker:
        WORKERS[args.worker[0]](json.loads(args.worker[1]))
        return 0

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    n_queries = args.queries or (700 if args.quick else 7000)
    tmp = tempfile.mkdtemp(prefix="rbstar-bench-")
    raw: Dict[str, dict] = {}
    table = Table()
    phase_reports: List[str] = []
    try:
        if args.live:
            import importlib.util
            pkg_src = os.path.dirname(os.path.abspath(importlib.util.find_spec("ir_rbstar").origin))
            pkg_desc = f"live {pkg_src}, {_git_state(pkg_src)} at start"
        else:
            pkg_desc = snapshot_package(tmp, args.working_tree)
        log(f"ir_rbstar measured: {pkg_desc}")
        data_dir = args.data or os.path.join(tmp, "synthetic")
        syn = {k: os.path.join(data_dir, f) for k, f in
               (("run", "synthetic.run"), ("ref", "synthetic_ref.run"), ("qrels", "synthetic.qrels"))}
        if not all(os.path.exists(p) for p in syn.values()):
            log(f"generating synthetic data ({n_queries} x {args.depth}) into {data_dir} ...")
            # in a subprocess, so that this driver stays small (see _maxrss_mb)
            subprocess.run([sys.executable, os.path.join(HERE, "make_synthetic.py"), "--queries", str(n_queries),
                            "--depth", str(args.depth), "--out", data_dir], check=True, stdout=sys.stderr)
        rows_syn = sum(1 for _ in open(syn["run"]))
        qids_syn = len({line.split(None, 1)[0] for line in open(syn["qrels"])})
        datasets = [dict(name=f"synthetic ({qids_syn:,} queries, {rows_syn:,} rows, depth {args.depth})",
                         short="synthetic", queries=qids_syn, **syn)]
        if not args.no_real and (args.real or not args.quick) and os.path.isdir(SHARED_DATA):
            real = build_real(tmp, log)
            if real:
                datasets.append(real)

        rep, slow = args.repeat, args.slow

        # d. import time ------------------------------------------------------------------------------
        log("d. import time")
        imp = measure("import", {"module": "ir_rbstar"}, max(rep, 5), 1e9, log)
        imp_irm = measure("import", {"module": "ir_measures"}, max(rep, 5), 1e9, log)
        raw["import"] = {"ir_rbstar": imp, "ir_measures": imp_irm}
        pkg_desc += f"; workers import {os.path.dirname(imp['file'])}"

        for ds in datasets:
            tag = f"[{ds['short']}]"
            log(f"== {ds['name']}")
            # a. RBP + RBP_res end to end vs pytrec_eval nDCG@10 ---------------------------------------
            log("a. RBP + RBP_res end to end (CLI function) vs ir_measures/pytrec_eval nDCG@10")
            ours = measure("rbstar_cli", {"argv": [ds["qrels"], ds["run"], f"RBP(p={P_RBP})", f"RBP_res(p={P_RBP})"]},
                           rep, slow, log)
            theirs = measure("pytrec", {"qrels": ds["qrels"], "run": ds["run"]}, rep, slow, log)
            phases = run_worker("phases", {"qrels": ds["qrels"], "run": ds["run"],
                                           "measures": [f"RBP(p={P_RBP})", f"RBP_res(p={P_RBP})"]})
            raw[f"a {ds['short']}"] = {"ir_rbstar": ours, "pytrec_eval": theirs, "phases": phases}
            table.add(f"a. RBP+RBP_res from files vs pytrec_eval nDCG@10 {tag}", fmt_s(ours["wall"]),
                      fmt_s(theirs["wall"]), fmt_ratio(ours["wall"], theirs["wall"]), "ratio <= 1.0",
                      yes(ours["wall"] <= theirs["wall"]))
            table.add(f"e. peak RSS, RBP+RBP_res from file (vs pytrec_eval nDCG@10) {tag}", fmt_mb(ours["maxrss_mb"]),
                      fmt_mb(theirs["maxrss_mb"]), fmt_ratio(ours["maxrss_mb"], theirs["maxrss_mb"]), "< 1,536 MB",
                      yes(ours["maxrss_mb"] < 1536))
            phase_reports.append(_phase_report(f"RBP + RBP_res, CLI path {tag}", phases, ours))

            # b. RBO family vs rbo ------------------------------------------------------------------------
            log("b. RBO + RBO_res + RBO_ext vs rbo.rbo_ext")
            names = ["RBO", "RBO_res", "RBO_ext"]
            inmem = measure("rbstar_inmemory", {"run": ds["run"], "ref": ds["ref"], "names": names, "p": P_RBO,
                                                "return_values": True}, rep, slow, log)
            frames = measure("rbstar_inmemory", {"run": ds["run"], "ref": ds["ref"], "names": names, "p": P_RBO,
                                                 "from_frames": True}, rep, slow, log)
            files = measure("rbstar_cli", {"argv": ["none", ds["run"], *_ref_measures(names, ds["ref"], P_RBO)]},
                            rep, slow, log)
            rb = measure("rbo_pkg", {"run": ds["run"], "ref": ds["ref"], "p": P_RBO, "budget": args.rbo_budget},
                         rep, slow, log)
            rb_wall = rb["wall"] * rb["pairs_all"] / rb["pairs"]
            extrap = rb["pairs"] < rb["pairs_all"]
            agree = _rbo_agreement(inmem.get("per_query", {}), rb["values"])
            inmem.pop("per_query", None)
            rb.pop("values", None)
            raw[f"b {ds['short']}"] = {"ir_rbstar_inmemory": inmem, "ir_rbstar_frames": frames,
                                       "ir_rbstar_files": files, "rbo": rb, "agreement": agree}
            other = fmt_s(rb_wall) + (f" (extrapolated from {rb['pairs']:,} of {rb['pairs_all']:,} pairs)" if extrap
                                      else f" ({rb['pairs']:,} pairs)")
            table.add(f"b. RBO+RBO_res+RBO_ext from parsed Rankings vs rbo.rbo_ext on lists {tag}", fmt_s(inmem["wall"]),
                      other, fmt_ratio(inmem["wall"], rb_wall), "ratio <= 0.3", yes(inmem["wall"] <= 0.3 * rb_wall))
            table.add(f"b'. same from pandas DataFrames (conversion timed) {tag}", fmt_s(frames["wall"]),
                      fmt_s(rb_wall), fmt_ratio(frames["wall"], rb_wall), "info", "")
            table.add(f"b''. same from TREC files (CLI function, reading timed) {tag}", fmt_s(files["wall"]),
                      fmt_s(rb_wall), fmt_ratio(files["wall"], rb_wall), "info", "")
            table.notes.append(f"{tag} rbo: {'EXTRAPOLATED linearly from a random sample of ' + format(rb['pairs'], ',') + ' pairs' if extrap else 'all pairs timed'}; "
                               f"p={P_RBO}, depth {args.depth if ds['short'] == 'synthetic' else '<= 1000'}, no cutoff. "
                               f"RBO_ext agreement ir_rbstar vs rbo on {agree['n']:,} queries: "
                               f"max |diff| {agree['max_diff']:.2e}, mean |diff| {agree['mean_diff']:.2e}, "
                               f"identical (< 1e-9) on {agree['same']:,} (ir_rbstar takes the expectation over tied "
                               f"reference scores; rbo uses the list order)")
            pb = run_worker("phases", {"run": ds["run"], "ref": ds["ref"],
                                       "measures": _ref_measures(names, ds["ref"], P_RBO)})
            raw[f"b {ds['short']}"]["phases"] = pb
            phase_reports.append(_phase_report(f"RBO + RBO_res + RBO_ext, CLI path {tag}", pb, files))

            # c. RBR and RBA end to end ---------------------------------------------------------------------
            for name in ("RBR", "RBA"):
                log(f"c. {name} end to end (CLI function, qrels 'none')")
                res = measure("rbstar_cli", {"argv": ["none", ds["run"], *_ref_measures([name], ds["ref"], P_REF)]},
                              rep, slow, log)
                ph = run_worker("phases", {"run": ds["run"], "ref": ds["ref"],
                                           "measures": _ref_measures([name], ds["ref"], P_REF)})
                raw[f"c {name} {ds['short']}"] = {"ir_rbstar": res, "phases": ph}
                table.add(f"c. {name}(p={P_REF}) vs reference run, from files, {ds['queries']:,} queries {tag}",
                          fmt_s(res["wall"]), "rbstar (paper): " + ("104 s" if name == "RBR" else "205 s"),
                          "-", "< 5 s", yes(res["wall"] < 5.0))
                phase_reports.append(_phase_report(f"{name}, CLI path {tag}", ph, res))

        table.add("d. import ir_rbstar (fresh process) vs import ir_measures", fmt_s(imp["wall"]),
                  fmt_s(imp_irm["wall"]), fmt_ratio(imp["wall"], imp_irm["wall"]), "< 0.5 s", yes(imp["wall"] < 0.5))

        print()
        print(machine_info())
        print(f"mode: {'quick' if args.quick else 'full'}; best of up to {rep} fresh subprocesses per measurement "
              f"(1 when slower than {slow:.0f} s); wall time excludes interpreter start-up and imports; peak memory "
              f"= VmHWM (peak RSS) of the measuring subprocess, largest over its repeats)")
        print(f"ir_rbstar measured: {pkg_desc}")
        for ds in datasets:
            print(f"data: {ds['name']}")
        print()
        print(table.render())
        print()
        for note in table.notes:
            print("note: " + note)
        print()
        for rep_text in phase_reports:
            print(rep_text)
            print()
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"machine": machine_info(), "results": raw}, f, indent=1, default=str)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)      # --data DIR is never inside tmp, so it is kept
    return 0


def _rbo_agreement(ours: dict, theirs: dict) -> dict:
    diffs = [abs(ours[q] - v) for q, v in theirs.items() if q in ours]
    if not diffs:
        return {"n": 0, "max_diff": float("nan"), "mean_diff": float("nan"), "same": 0}
    return {"n": len(diffs), "max_diff": max(diffs), "mean_diff": sum(diffs) / len(diffs),
            "same": sum(d < 1e-9 for d in diffs)}


def _phase_report(title: str, ph: dict, total: dict) -> str:
    lines = [f"phases: {title}",
             f"  (one fresh subprocess under cProfile; the unprofiled measurement above took {total['wall']:.2f} s; "
             f"'own' = time in that ir_rbstar function incl. its numpy/pandas calls, excl. other ir_rbstar functions)"]
    steps = ph.get("steps", [])
    tot = sum(w for _, w, _ in steps) or 1.0
    width = max([len(n) for n, _, _ in steps] + [len(n) + 4 for _, _, top in steps for n, _ in top] + [10])
    for name, wall, top in steps:
        lines.append(f"  {name.ljust(width)}  {wall:7.2f} s  {100 * wall / tot:5.1f}%")
        for fname, v in top:
            lines.append(f"      {fname.ljust(width - 4)}  {v:7.2f} s")
    lines.append(f"  {'sum'.ljust(width)}  {tot:7.2f} s   peak {ph.get('maxrss_mb', 0):,.0f} MB")
    if ph.get("values"):
        lines.append("  means: " + ", ".join(f"{k}={v:.4f}" for k, v in ph["values"].items()))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
