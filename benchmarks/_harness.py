"""What the benchmark scripts share (bench_rankbiased.py, bench_ties.py, bench_twist.py, bench_nrg.py,
bench_med.py).

* the worker protocol: a benchmark script runs itself in a fresh subprocess (``SCRIPT --worker NAME
  JSON``), the worker times its work and prints one result line (:func:`emit`), the driver reads it
  back (:func:`run_worker`); :func:`measure` repeats one worker, :func:`measure_interleaved` lets
  several contenders take turns;
* the package under test: a snapshot of ir_rbstar that every worker imports (:func:`snapshot_package`,
  :func:`package_under_test`), peak memory (:func:`maxrss_mb`), wall and CPU clocks;
* workers more than one script runs: the per-phase cProfile of ir_rbstar's path (:func:`w_phases`), the
  ``ir-rbstar`` command's function, ir_rbstar's provider and ir_measures' default pipeline from files;
* the input data: synthetic files from make_synthetic.py, the Robust04 stack of ../shared/data;
* the report: tables, number formats, the machine, the phase profiles, shared options and lines;
* the summary rows every script writes with ``--json`` (:func:`summary_row`, :meth:`Session.add_summary`),
  which run_all.py gathers into the one table of docs/benchmarks.md.

Only the standard library is imported here at import time (numpy, pandas, ir_measures and ir_rbstar are
imported inside the workers), so that a driver stays small. See benchmarks/README.md for the method.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
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


def log(msg: str) -> None:
    """Progress, on stderr (stdout holds the report)."""
    print(msg, file=sys.stderr, flush=True)


# =============================================================================================
# Worker side: clocks, peak memory, the result line
# =============================================================================================

def maxrss_mb() -> float:
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


def emit(result: dict) -> None:
    """Print a worker's result (with its peak memory) as the one line the driver looks for."""
    result["maxrss_mb"] = maxrss_mb()
    result["ru_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(RESULT_TAG + json.dumps(result), flush=True)


def parse_tsv(text: str) -> Dict[str, float]:
    """The ``name<TAB>value`` lines the ``ir-rbstar`` command prints."""
    out = {}
    for line in text.splitlines():
        if line.strip():
            name, value = line.rsplit("\t", 1)
            out[name] = float(value)
    return out


def clock():
    return time.perf_counter(), time.process_time()


def since(start) -> dict:
    """Wall time and CPU time (user + system, all threads of this process) since ``start`` (:func:`clock`)."""
    return {"wall": time.perf_counter() - start[0], "cpu": time.process_time() - start[1]}


def served_by(measures) -> dict:
    """Which provider of ir_measures' default pipeline serves each measure."""
    import ir_measures
    return {str(m): next((p.NAME for p in ir_measures.DefaultPipeline.providers
                          if p.supports(m) and p.is_available()), None) for m in measures}


# =============================================================================================
# Workers shared by several scripts (each runs in its own subprocess and prints one result line)
# =============================================================================================

def w_rbstar_cli(args: dict) -> None:
    """The ``ir-rbstar`` command without interpreter start-up: ``cli.run_measures`` reads both files,
    evaluates and prints the means; wall and CPU time."""
    from ir_rbstar import cli      # imports ir_rbstar (registers its measures); imports are not timed
    out = io.StringIO()
    t = clock()
    rc = cli.run_measures(list(args["argv"]) + ["--places", "-1"], out=out)
    emit({**since(t), "rc": rc, "values": parse_tsv(out.getvalue())})


def w_rbstar_api(args: dict) -> None:
    """ir_rbstar's provider through ir_measures' API, given the two file paths (it reads them itself)."""
    import ir_measures
    import ir_rbstar
    measures = ir_rbstar.parse(" ".join(args["measures"]))
    provider = ir_measures.providers.registry["ir_rbstar"]
    t = clock()
    res = provider.calc_aggregate(measures, args["qrels"], args["run"])
    emit({**since(t), "values": {str(k): float(v) for k, v in res.items()}})


def w_irm_default(args: dict) -> None:
    """ir_measures' default pipeline from the files, reading with ir_measures (ir_rbstar not imported)."""
    import ir_measures
    measures = [ir_measures.parse_measure(m) for m in args["measures"]]
    t = clock()
    res = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(args["qrels"]),
                                     ir_measures.read_trec_run(args["run"]))
    timing = since(t)
    emit({**timing, "values": {str(k): float(v) for k, v in res.items()}, "served_by": served_by(measures),
          "ir_rbstar_imported": "ir_rbstar" in sys.modules})


def _package_dir() -> str:
    import ir_rbstar
    return os.path.dirname(os.path.abspath(ir_rbstar.__file__))


def profiled(fn, top: int = 8):
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
    from ir_rbstar import io as rio      # imports ir_rbstar (registers its measures)
    from ir_rbstar.provider import PROVIDER
    from ir_rbstar.references import resolve_run
    from ir_rbstar import parse_measure
    measures = [parse_measure(m) for m in args["measures"]]
    steps = []
    qrels = None
    if args.get("qrels"):
        qrels, wall, top = profiled(lambda: rio.read_trec_qrels(args["qrels"]))
        steps.append(["read qrels file (read_trec_qrels)", wall, top])
    run, wall, top = profiled(lambda: rio.read_trec_run(args["run"]))
    steps.append(["read run file (read_trec_run)", wall, top])
    if args.get("ref"):
        _, wall, top = profiled(lambda: resolve_run(args["ref"]))
        steps.append(["read reference file (references.resolve_run)", wall, top])

    def evaluate():
        ev = PROVIDER.evaluator(measures, qrels)
        vals = ev.values(run)
        vals.pop("query_id")
        return {str(m): float(np.mean(v)) for m, v in vals.items()}
    means, wall, top = profiled(evaluate)
    steps.append(["evaluate: joins + kernels (evaluator.values)", wall, top])
    ref = args.get("ref") or "\0"
    emit({"steps": steps, "values": {k.replace(ref, "REF"): v for k, v in means.items()}})




# =============================================================================================
# Driver side: the package under test, running and repeating workers
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
        desc = f"work tree of {src} copied at start, {git_state(src)}"
    # the copy's bytecode compiled now, as pip compiles an installed package's: a worker then imports it as a
    # user's process does, and not from source (under PYTHONDONTWRITEBYTECODE every worker would compile it
    # again, about 0.1 s of its time, which the peers, installed, never pay)
    import compileall
    compileall.compile_dir(os.path.join(root, "ir_rbstar"), quiet=1)
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    WORKER_ENV = env
    return desc


def git_state(path: str) -> str:
    try:
        head = subprocess.run(["git", "-C", path, "log", "-1", "--format=%h %s"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", path, "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, check=True).stdout.strip()
        return f"git {head[:70]}" + (" + uncommitted changes" if dirty else " (clean)")
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"


def package_under_test(tmp: str, live: bool, working_tree: bool) -> str:
    """Which ir_rbstar the workers import, described: with ``live`` the installed one, else a snapshot
    in tmp (:func:`snapshot_package`). The description is logged and returned."""
    if live or in_process():
        import importlib.util
        pkg_src = os.path.dirname(os.path.abspath(importlib.util.find_spec("ir_rbstar").origin))
        desc = f"live {pkg_src}, {git_state(pkg_src)} at start"
    else:
        desc = snapshot_package(tmp, working_tree)
    log(f"ir_rbstar measured: {desc}")
    return desc


#: set (to anything) by the structure tests: workers, benchmark scripts (run_all.py) and the synthetic data's
#: generator run in the calling process instead of fresh subprocesses. Times then mean nothing (caches
#: and imports are shared, peak memory is the whole process's); the output keeps its structure
IN_PROCESS_ENV = "IR_RBSTAR_BENCH_IN_PROCESS"


def in_process() -> bool:
    return bool(os.environ.get(IN_PROCESS_ENV))


def script_module(script: str):
    """The module of a benchmark script of this folder (``benchmarks.<name>``), imported."""
    import importlib
    return importlib.import_module(f"benchmarks.{os.path.splitext(os.path.basename(script))[0]}")


def run_in_process(fn, *args, stdout=None, stderr=None) -> int:
    """``fn(*args)`` with stdout and stderr sent to ``stdout`` / ``stderr`` (files or StringIO; None: kept);
    the exit status as a subprocess's would be (0, its return value, SystemExit's code, 1 on an exception,
    whose traceback goes to stderr)."""
    import traceback
    with contextlib.ExitStack() as stack:
        if stdout is not None:
            stack.enter_context(contextlib.redirect_stdout(stdout))
        if stderr is not None:
            stack.enter_context(contextlib.redirect_stderr(stderr))
        try:
            rc = fn(*args)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Exception:                                  # noqa: BLE001 - reported like a crashed process
            traceback.print_exc()
            rc = 1
    return rc if isinstance(rc, int) else 0


def _run_worker_here(script: str, name: str, args: dict) -> dict:
    """:func:`run_worker` in this process (:func:`in_process`): the worker function called directly, its
    result line read from its captured stdout; engine and cache options set in the environment meanwhile."""
    saved = {}
    for key, var in (("engine", "IR_RBSTAR_ENGINE"), ("numba_cache", "NUMBA_CACHE_DIR")):
        if args.get(key):
            saved[var] = os.environ.get(var)
            os.environ[var] = args[key]
    out, err = io.StringIO(), io.StringIO()
    t = time.perf_counter()
    try:
        rc = run_in_process(script_module(script).WORKERS[name], args, stdout=out, stderr=err)
    finally:
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
    for line in out.getvalue().splitlines():
        if line.startswith(RESULT_TAG):
            res = json.loads(line[len(RESULT_TAG):])
            res["outer_wall"] = time.perf_counter() - t
            return res
    raise RuntimeError(f"worker {name} failed (status {rc}, in process):\n{err.getvalue()[-3000:]}")


def run_worker(script: str, name: str, args: dict, timeout: float = 3600) -> dict:
    """Run worker ``name`` of the benchmark ``script`` in a fresh subprocess; its result (``outer_wall``:
    the subprocess's whole life, start-up included). In process under :func:`in_process` (the tests)."""
    if in_process():
        return _run_worker_here(script, name, args)
    cmd = [sys.executable, os.path.abspath(script), "--worker", name, json.dumps(args)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=WORKER_ENV)
    outer = time.perf_counter() - t
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_TAG):
            res = json.loads(line[len(RESULT_TAG):])
            res["outer_wall"] = outer
            return res
    raise RuntimeError(f"worker {name} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")


def measure(script: str, name: str, args: dict, repeat: int, slow: float) -> dict:
    """Best wall time of up to `repeat` fresh subprocesses (1 if the first is slower than `slow` s)."""
    results = []
    for i in range(repeat):
        res = run_worker(script, name, args)
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


def measure_interleaved(script: str, specs: Dict[str, tuple], repeat: int, slow: float,
                        keep_runs: bool = False) -> Dict[str, dict]:
    """Best wall time of up to ``repeat`` fresh subprocesses per contender (``specs``: key -> (worker,
    args)), the contenders taking turns (round i runs every contender once), so that load from other
    processes on the machine affects all of them alike. A contender whose run took longer than ``slow``
    seconds is not run again.

    Results with ``phases`` (name -> wall and CPU time) also get ``best_phases``: each phase the best of
    the rounds on its own (wall and CPU separately). With ``keep_runs`` every run is kept (``runs``)."""
    results: Dict[str, List[dict]] = {key: [] for key in specs}
    for i in range(repeat):
        for key, (worker, args) in specs.items():
            if results[key] and results[key][-1].get("wall", 0) > slow:
                continue
            res = run_worker(script, worker, args)
            results[key].append(res)
            ph = res.get("phases")
            extra = (" [" + ", ".join(f"{k} {v['wall']:.2f}" for k, v in ph.items()) + "]") if ph else ""
            log(f"    round {i + 1}: {key}: {res.get('wall', 0):.2f} s (CPU {res.get('cpu', 0):.2f} s), "
                f"peak {res['maxrss_mb']:.0f} MB{extra}")
    best = {}
    for key, runs in results.items():
        b = dict(min(runs, key=lambda r: r.get("wall", 0)))
        b["n"] = len(runs)
        if keep_runs:
            b["runs"] = runs
        b.update(walls=[r.get("wall") for r in runs], cpus=[r.get("cpu") for r in runs],
                 best_cpu=min(r.get("cpu", 0) for r in runs), maxrss_mb=max(r["maxrss_mb"] for r in runs))
        if runs[0].get("phases"):
            b["best_phases"] = {ph: {k: min(r["phases"][ph][k] for r in runs) for k in ("wall", "cpu")}
                                for ph in runs[0]["phases"]}
        best[key] = b
    return best


# =============================================================================================
# Input data
# =============================================================================================

def synthetic(data_dir: str, names: List[str], n_queries: int, depth: int, extra: List[str] = (),
              what: str = "synthetic data", detail: str = "") -> tuple:
    """The files ``names`` in data_dir, generated there by make_synthetic.py (``--queries --depth``, then
    ``extra``) if any is missing, in a subprocess so that the driver stays small (see maxrss_mb).
    Returns (their paths, how they came about)."""
    paths = [os.path.join(data_dir, n) for n in names]
    if all(os.path.exists(p) for p in paths):
        return paths, f"reused from {data_dir}"
    log(f"generating {what} ({n_queries} x {depth}{detail}) into {data_dir} ...")
    options = ["--queries", str(n_queries), "--depth", str(depth), *extra]
    if in_process():
        text = io.StringIO()
        if run_in_process(script_module("make_synthetic.py").main, [*options, "--out", data_dir], stdout=text):
            raise RuntimeError(f"make_synthetic.py {' '.join(options)} failed")
        log(text.getvalue().rstrip())
        return paths, "generated by make_synthetic.py " + " ".join(options)
    proc = subprocess.run([sys.executable, os.path.join(HERE, "make_synthetic.py"), *options, "--out", data_dir],
                          check=True, stdout=subprocess.PIPE, text=True)
    log(proc.stdout.rstrip())
    return paths, "generated by make_synthetic.py " + " ".join(options)


def robust04_stack(tmp: str, indent: str = "") -> Optional[tuple]:
    """The Robust04 runs of ../shared/data stacked by ../shared/tools/stack_runs.py (read in place) into
    tmp: (the prefix of the stacked ``.run`` and ``.qrels`` files, the number of runs), or None when the
    data or the tool is missing."""
    qrels = os.path.join(SHARED_DATA, "robust04", "qrels.robust2004.txt.gz")
    runs = sorted(glob.glob(os.path.join(SHARED_DATA, "robust04", "runs-*", "*.gz")))
    if not (os.path.exists(STACK_TOOL) and os.path.exists(qrels) and runs):
        return None
    prefix = os.path.join(tmp, "robust04")
    log(f"{indent}stacking {len(runs)} Robust04 runs with {os.path.relpath(STACK_TOOL, REPO)} ...")
    subprocess.run([sys.executable, STACK_TOOL, prefix, qrels, *runs], check=True)
    return prefix, len(runs)


def run_shape(run: str) -> str:
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


# =============================================================================================
# Options
# =============================================================================================

def add_size_options(ap: argparse.ArgumentParser, quick_help: str, depth_help: Optional[str] = None) -> None:
    """--quick (help: ``quick_help``), --queries and --depth."""
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--queries", type=int, help="synthetic queries (default 7000, --quick 700)")
    ap.add_argument("--depth", type=int, default=1000, help=depth_help)


def add_data_option(ap: argparse.ArgumentParser, files: str, how: str = "with make_synthetic.py") -> None:
    """--data DIR: where the synthetic ``files`` are reused from, or generated (``how``) if missing (see
    :func:`synthetic`)."""
    ap.add_argument("--data", help=f"directory with {files} (generated there {how + ' ' if how else ''}if missing; "
                                   f"default: a temporary directory)")


def add_repeat_options(ap: argparse.ArgumentParser, slow: float, unit: str = "contender") -> None:
    """--repeat (default 3) and --slow (default ``slow``), in the words of ``unit`` (contender, measurement)."""
    ap.add_argument("--repeat", type=int, default=3, help=f"runs per {unit}, best time reported")
    ap.add_argument("--slow", type=float, default=slow, help=f"a {unit} slower than this (s) runs only once")


def add_real_options(ap: argparse.ArgumentParser, what: str) -> None:
    """--real / --no-real (default: None, i.e. on in full mode): also time ``what``."""
    ap.add_argument("--real", dest="real", action="store_true", default=None,
                    help=f"also time {what} (default: on in full mode when ../shared/data exists)")
    ap.add_argument("--no-real", dest="real", action="store_false")


def parse_args(ap: argparse.ArgumentParser, argv, workers: Dict[str, object]) -> argparse.Namespace:
    """Add the common options to ``ap`` and parse ``argv``. Called as a worker (``--worker NAME ARGS``):
    run ``workers[NAME]`` on the JSON ``ARGS``, then exit (status 0, as argparse does after --help)."""
    add_common_options(ap)
    args = ap.parse_args(argv)
    if args.worker:
        name, worker_args = args.worker
        worker_args = json.loads(worker_args)
        for key, var in (("engine", "IR_RBSTAR_ENGINE"), ("numba_cache", "NUMBA_CACHE_DIR")):
            if worker_args.get(key):
                os.environ[var] = worker_args[key]      # before the worker imports ir_rbstar
        workers[name](worker_args)
        raise SystemExit(0)
    return args


def mode_of(args: argparse.Namespace) -> str:
    """The mode of a run as text: ``quick`` or ``full``, plus the sizes that differ from the mode's."""
    mode = "quick" if args.quick else "full"
    extra = []
    if getattr(args, "queries", None):
        extra.append(f"{args.queries:,} queries")
    if getattr(args, "depth", 1000) != 1000:
        extra.append(f"depth {args.depth:,}")
    if getattr(args, "repeat", 3) != 3:
        extra.append(f"best of {args.repeat}")
    return mode + (f" ({', '.join(extra)})" if extra else "")


def have_module(name: str) -> bool:
    """Whether ``name`` can be imported here (looked up, not imported: the driver stays small)."""
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def n_queries(args: argparse.Namespace) -> int:
    """How many synthetic queries: --queries, else 700 with --quick and 7,000 without."""
    return args.queries or (700 if args.quick else 7000)


def summary_row(family: str, task: str, data: str, ours: str, peer: str, other: str = "",
                ratio: Optional[float] = None, target: str = "info", met: Optional[bool] = None,
                peer_dists=(), peer_version: Optional[str] = None, peer_absent: Optional[str] = None,
                note: str = "") -> dict:
    """One row of the machine-readable summary a benchmark writes with ``--json`` (``"summary"``), which
    benchmarks/run_all.py gathers into one table.

    ``ours`` and ``other`` are the two results as printed (e.g. ``"5.42 s"``); ``ratio`` is ours / the
    peer's (None when there is none to compute); ``met`` is None for information rows. The peer is named
    by ``peer``; its version comes from the installed distributions ``peer_dists`` (run_all looks them up
    with importlib.metadata), or is given as text (``peer_version``) for a peer that is no Python package
    (a C program, a figure quoted from a paper). ``peer_absent`` (a reason) says the peer could not be
    run: then no ratio and no verdict are given."""
    if peer_absent:
        ratio, met, other = None, None, other or "-"
    return {"family": family, "task": task, "data": data, "ours": ours, "peer": peer, "other": other,
            "ratio": None if ratio is None else float(ratio), "target": target,
            "met": None if met is None else bool(met), "peer_dists": list(peer_dists),
            "peer_version": peer_version, "peer_absent": peer_absent, "note": note}


def ratio_of(a: Optional[float], b: Optional[float]) -> Optional[float]:
    """a / b, or None when either is missing or b is 0."""
    return None if a is None or not b else a / b


@dataclasses.dataclass
class Session:
    """One run of a benchmark driver (see :func:`session`)."""
    tmp: str                # a temporary directory, removed at the end
    package: str            # which ir_rbstar the workers import, described
    load_start: str         # the load average at start
    raw: dict = dataclasses.field(default_factory=dict)     # all raw results, for --json
    summary: List[dict] = dataclasses.field(default_factory=list)   # rows of :func:`summary_row`, for --json

    def add_summary(self, *args, **kwargs) -> None:
        """Append a :func:`summary_row` (same arguments)."""
        self.summary.append(summary_row(*args, **kwargs))

    def write_json(self, path: Optional[str], with_package: bool = True, mode: Optional[str] = None) -> None:
        """With ``--json PATH``: the machine, the package measured (``with_package``), the load average at
        start and now, the mode, the summary rows (:meth:`add_summary`) and the raw results."""
        if not path:
            return
        doc = {"machine": machine_info(), "machine_detail": machine_detail()}
        if with_package:
            doc["package"] = self.package
        doc.update(mode=mode, argv=sys.argv[1:], load_start=self.load_start, load_end=load_average(),
                   summary=self.summary)
        doc["results"] = self.raw
        with open(path, "w") as f:
            json.dump(doc, f, indent=1, default=str)


@contextlib.contextmanager
def session(prefix: str, args: argparse.Namespace):
    """A driver's run (a :class:`Session`): a temporary directory (removed at the end; ``--data DIR`` is
    never inside it, so it is kept), the load average at start and the package under test
    (:func:`package_under_test`, per --live / --working-tree)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        load_start = load_average()
        yield Session(tmp, package_under_test(tmp, args.live, args.working_tree), load_start)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def add_common_options(ap: argparse.ArgumentParser) -> None:
    """Options every benchmark script shares: raw JSON, which ir_rbstar is measured, the worker hook."""
    ap.add_argument("--json", help="also write all raw results to this JSON file")
    ap.add_argument("--live", action="store_true", help="import the installed ir_rbstar in every worker instead of "
                                                        "a snapshot taken at start (see snapshot_package)")
    ap.add_argument("--working-tree", action="store_true", help="snapshot the package's work tree (uncommitted "
                                                                "edits included) instead of its last commit")
    ap.add_argument("--worker", nargs=2, metavar=("NAME", "ARGS"), help=argparse.SUPPRESS)


# =============================================================================================
# Report
# =============================================================================================

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


class Grid(Table):
    """A :class:`Table` with columns of one's choice."""

    def __init__(self, cols):
        super().__init__()
        self.COLS = tuple(cols)

    def add(self, *cells):
        self.rows.append(tuple(cells))


def machine_detail() -> dict:
    """The machine as fields: CPU model, cores this process may use, RAM, OS, Python."""
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
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu, "cores": cores, "ram": ram, "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version()}


def dist_version(dist: str) -> str:
    """The installed version of the distribution ``dist`` (importlib.metadata), or ``"not installed"``."""
    from importlib import metadata
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def compiled_reader() -> str:
    """Whether ir_rbstar's optional C extension is there (ir_rbstar/io/dictscan.py): it reads dicts and
    namedtuples, so the tuples and dict rows of bench_native depend on it."""
    from ir_rbstar.io import dictscan
    return "yes" if dictscan.available() else "no"


def machine_info() -> str:
    m = machine_detail()
    ver = dist_version
    return (f"machine: {m['cpu']}; {m['cores']} cores; RAM {m['ram']}; Python {m['python']}; "
            f"numpy {ver('numpy')}; pandas {ver('pandas')}; ir_measures {ver('ir_measures')}; "
            f"pytrec_eval {ver('pytrec_eval-terrier')}; rbo {ver('rbo')}; cwl-eval {ver('cwl-eval')}; "
            f"scikit-learn {ver('scikit-learn')}; ir_rbstar {ver('ir_rbstar')} "
            f"(compiled dict reader: {compiled_reader()}); {m['os']}; "
            f"date {datetime.datetime.now().isoformat(timespec='seconds')}")


def load_average() -> str:
    try:
        return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        return "load average ?"


def fmt_s(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f} s"


def fmt_mb(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:,.0f} MB"


def fmt_ratio(a: Optional[float], b: Optional[float]) -> str:
    return "-" if a is None or not b else f"{a / b:.2f}"


def yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def fmt_values(values: Dict[str, float]) -> str:
    return ", ".join(f"{k}={v:.4f}" for k, v in values.items())


def interleaved_method(quick: bool, repeat: int, load_start: str, load_end: str) -> str:
    """The 'mode:' line of a report whose contenders took turns (:func:`measure_interleaved`)."""
    return (f"mode: {'quick' if quick else 'full'}; best of up to {repeat} fresh subprocesses per "
            f"contender, contenders taking turns; wall time excludes interpreter start-up and imports, includes "
            f"reading both files; CPU s = user + system time of that subprocess over the same span (best run); "
            f"peak RSS = VmHWM of the measuring subprocess (largest over its runs); 'met?' judged on wall time; "
            f"{load_start} at start, {load_end} at end")


def all_runs_line(res: Dict[str, dict], keys) -> str:
    """Every run's wall time of the contenders ``keys``, in turn order."""
    return "all runs (wall s, in turn order): " + "; ".join(
        f"{key}: " + " ".join(f"{w:.2f}" for w in res[key]["walls"]) for key in keys)


def served_line(label: str, res: dict) -> str:
    """Which providers served an ir_measures contender (:func:`w_irm_default`), and whether ir_rbstar was
    imported in its process."""
    return (f"{label} served by: {res.get('served_by')}; ir_rbstar imported in its process: "
            f"{res.get('ir_rbstar_imported')}")


def phase_report(title: str, ph: dict, total: dict) -> str:
    """The per-phase profile of :func:`w_phases` (or any result with ``steps``) as text."""
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
