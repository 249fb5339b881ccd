#!/usr/bin/env python3
"""Every door against its peer on the peer's native input, in ONE process, as CPU-time ratios.

    python -m benchmarks.bench_native                       # TREC DL 2019 passage (../shared/data)
    python -m benchmarks.bench_native --synthetic /tmp/bench-data      # make_synthetic.py's files
    python -m benchmarks.bench_native --qrels Q --runs R1 R2 ... [--ref REF]

Unlike the other scripts (a fresh subprocess per measurement, wall time), this one times both contenders
in the same process, turn about, with ``time.process_time`` (user + system CPU of the process, all
threads), and reports the median of ``--repeat`` rounds (default 3) after one untimed warm-up round
(imports, first compilation). The command-line rows run the two commands as subprocesses and take
their CPU time from ``getrusage(RUSAGE_CHILDREN)``; interpreter start-up and imports are included there,
as a user waits for them. Both commands run from bytecode, as installed packages do (pip compiles them):
``PYTHONDONTWRITEBYTECODE`` is dropped for them and ``PYTHONPYCACHEPREFIX`` points to a temporary folder,
so the untimed warm-up round compiles what is not compiled yet (a source checkout's modules) and the timed
rounds do not. Inputs are built before the clock starts, in each tool's own form:

* ``cli1`` / ``cli10``: ``ir-rbstar QRELS RUN... "nDCG@10 AP"`` (one call for all runs) against
  ``python -m ir_measures QRELS RUN "nDCG@10 AP"`` (one call per run);
* ``tuples`` / ``dict`` / ``frame``: ``ir_measures.calc_aggregate`` with ``RBP(p=0.8,max_rel=3)`` (served
  by ir_rbstar) against ``nDCG@10`` (pytrec_eval through ir_measures, which converts the input itself),
  on lists of ``ir_measures`` namedtuples, dicts of dicts and DataFrames; called again and again on the
  same qrels, as a loop over runs does, so ours meets the qrels it converted the call before (kept while
  unchanged: ir_rbstar/io/qcache.py and framecache.py; ``frame`` and the ``*-irm`` rows give ours a run
  frame of new columns each call, as a new run's is: :func:`renewed_frames`); ``tuples-cold`` /
  ``dict-cold`` (information): the same with that kept conversion dropped before each call of ours, i.e.
  a first call;
* ``ties``: ``P_TA@10 AP_TA nDCG_TA@10`` against ``pytrec_eval.RelevanceEvaluator(qrels, {P_10, map,
  ndcg_cut_10}).evaluate(run)`` on dicts (the peer's native input; its evaluator is built in the timed
  part, as ir_rbstar's is); ``ties-irm``: the same peer measures through ``ir_measures`` from DataFrames
  (the peer paying its conversion);
* ``twist``: ``Twist`` against pytrec_eval's ``map`` on dicts; ``twist-irm`` as ``ties-irm``;
* ``rbo``: ``RBO(p=0.9) + RBO_ext(p=0.9)`` of the run against a reference, both DataFrames (registering
  the reference is timed), against PyPI ``rbo``'s ``RankingSimilarity(S, T).rbo_ext(p=0.9)`` per query on
  id lists in trec_eval order (built beforehand; the constructor is not timed); absent when ``rbo`` is not
  installed (it pins numpy < 2: see benchmarks/README.md for its venv). Ours keeps the reference's conversion
  while its columns are unchanged (ir_rbstar/io/framecache.py), as the peer's id lists of the reference
  are built once, while each call is given a run frame of new columns (as each
  run of an experiment is: converted every call, :func:`renewed_frames`); ``rbo-docid`` (information): the same with
  ``ties='docid'``, both rankings in trec_eval's order with ties broken by document id: the quantity the peer
  computes from those id lists (equal to it within 2e-14; ``rbo``'s default, ``ties='expected'``, is the exact
  mean over the orders of every tie group, which the peer does not compute, and differs from it on runs with
  ties); ``rbo-cold`` (information): the reference's conversion dropped too before each call of ours, i.e. a
  first call;
* ``pt``: ``pt.Experiment`` of 5 runs (DataFrames) with ``[nDCG@10]`` against the same with ``nDCG@10
  RBP(p=0.8,max_rel=3) nDCG_TA@10 RBO(p=0.9,ref=...)``; the ratio is the package's part, (ours - base) /
  ours; needs PyTerrier;
* ``read``: ``ir_rbstar.read_run`` (validated, in trec_eval order) against ``pandas.read_csv(path, sep=SEP,
  header=None, usecols=[0, 2, 4], dtype str/str/float)`` of the same file, SEP its one separator (a tab if
  the first line holds one, else a space; runs of whitespace when pandas cannot read the file so).

``--rows`` picks rows; ``--json FILE`` writes the summary rows for run_all.py's table.
"""
from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional

if __package__:      # python -m benchmarks.bench_native (from the repository root)
    from . import _harness as h
else:
    import _harness as h  # type: ignore[no-redef]

ROWS = ("cli1", "cli10", "tuples", "dict", "tuples-cold", "dict-cold", "frame",
        "ties", "ties-irm", "twist", "twist-irm", "rbo", "rbo-docid", "rbo-cold", "pt", "read")
GOALS = {"cli1": 1.0, "cli10": 1.0, "tuples": 0.5, "dict": 0.5, "ties": 0.7, "twist": 0.7, "rbo": 0.3, "pt": 0.25}
GOALS["read"] = 1.0              # issue 28: reading a run no slower than pandas reads its three columns
DL = os.path.join(h.SHARED_DATA, "dl19-passage")
FAMILY = "every door on native input, one process (bench_native.py)"


def cpu_median(ours: Callable, peer: Callable, repeat: int) -> Dict[str, object]:
    """Both callables, turn about: one untimed warm-up round, then ``repeat`` timed rounds; CPU seconds."""
    ours(), peer()
    a: List[float] = []
    b: List[float] = []
    for _ in range(repeat):
        for fn, into in ((ours, a), (peer, b)):
            t = time.process_time()
            fn()
            into.append(time.process_time() - t)
    return {"ours": statistics.median(a), "peer": statistics.median(b), "ours_all": a, "peer_all": b}


def children_cpu(cmds: List[List[str]], env: dict) -> Callable[[], None]:
    """A callable running ``cmds`` one after the other (output discarded); its CPU time is read from
    RUSAGE_CHILDREN by :func:`children_median`."""
    def run() -> None:
        for cmd in cmds:
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return run


def _children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def children_median(ours: Callable, peer: Callable, repeat: int) -> Dict[str, object]:
    """:func:`cpu_median` for subprocesses: CPU time of the children each callable starts."""
    def timed(fn):
        def inner():
            t = _children()
            fn()
            return _children() - t
        return inner
    ours_t, peer_t = timed(ours), timed(peer)
    ours_t(), peer_t()
    a = []
    b = []
    for _ in range(repeat):
        a.append(ours_t())
        b.append(peer_t())
    return {"ours": statistics.median(a), "peer": statistics.median(b), "ours_all": a, "peer_all": b}


def _mains(cmds: List[List[str]]) -> None:
    """The commands ``python -m ir_rbstar|ir_measures ARGS`` as calls of their main functions here."""
    import io
    from unittest import mock
    import ir_measures.__main__ as irm_main
    from ir_rbstar import cli
    for cmd in cmds:
        module, args = cmd[2], cmd[3:]
        if module == "ir_rbstar":
            h.run_in_process(cli.main, args, stdout=io.StringIO())
        else:
            with mock.patch.object(sys, "argv", ["ir_measures", *args]):
                h.run_in_process(irm_main.main_cli, stdout=io.StringIO())


def load_inputs(qrels_path: str, run_paths: List[str], ref_path: Optional[str]):
    """Every form of the qrels and the first run (and the reference), built before any clock starts."""
    import ir_measures
    import pandas as pd
    q = list(ir_measures.read_trec_qrels(qrels_path))
    r = list(ir_measures.read_trec_run(run_paths[0]))
    qd: Dict[str, Dict[str, int]] = {}
    rd: Dict[str, Dict[str, float]] = {}
    for x in q:
        qd.setdefault(x.query_id, {})[x.doc_id] = x.relevance
    for y in r:
        rd.setdefault(y.query_id, {})[y.doc_id] = y.score
    qf = pd.DataFrame(q, columns=["query_id", "doc_id", "relevance", "iteration"])
    rf = pd.DataFrame(r, columns=["query_id", "doc_id", "score"])
    ref = list(ir_measures.read_trec_run(ref_path)) if ref_path else None
    return {"q": q, "r": r, "qd": qd, "rd": rd, "qf": qf, "rf": rf, "ref": ref}


def trec_order(items) -> Dict[str, List[str]]:
    """Each query's document ids in trec_eval's order (score descending, then id descending)."""
    by: Dict[str, list] = {}
    for x in items:
        by.setdefault(x.query_id, []).append((x.score, x.doc_id))
    return {k: [d for _, d in sorted(v, reverse=True)] for k, v in by.items()}


def measure_rows(rows: List[str], qrels_path: str, run_paths: List[str], ref_path: Optional[str],
                 repeat: int) -> Dict[str, dict]:
    import ir_measures
    import ir_rbstar
    import numpy as np
    inp = load_inputs(qrels_path, run_paths, ref_path)
    out: Dict[str, dict] = {}
    irm = ir_measures.parse_measure
    rbp = ir_rbstar.parse("RBP(p=0.8,max_rel=3)")
    ndcg = [irm("nDCG@10")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([h.REPO] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)        # both commands from bytecode, as installed (see above)
    py = sys.executable
    for row in rows:
        h.log(f"bench_native: {row} ...")
        if row in ("cli1", "cli10"):
            runs = run_paths[:1] if row == "cli1" else run_paths[:10]
            ours_cmd = [[py, "-m", "ir_rbstar", qrels_path, *runs, "nDCG@10 AP"]]
            peer_cmds = [[py, "-m", "ir_measures", qrels_path, r, "nDCG@10 AP"] for r in runs]
            if h.in_process():          # the structure tests: both commands' main() in this process
                res = cpu_median(lambda: _mains(ours_cmd), lambda: _mains(peer_cmds), repeat)
            else:
                with tempfile.TemporaryDirectory(prefix="bench_native_pyc_") as pyc:
                    env_pyc = dict(env, PYTHONPYCACHEPREFIX=pyc)
                    res = children_median(children_cpu(ours_cmd, env_pyc), children_cpu(peer_cmds, env_pyc), repeat)
            res["what"] = f"{len(runs)} run(s)"
        elif row in ("tuples", "dict"):
            qq, rr = {"tuples": ("q", "r"), "dict": ("qd", "rd")}[row]
            res = cpu_median(lambda: ir_measures.calc_aggregate(rbp, inp[qq], inp[rr]),
                             lambda: ir_measures.calc_aggregate(ndcg, inp[qq], inp[rr]), repeat)
        elif row == "frame":
            frames = itertools.cycle(renewed_frames(inp["rf"], repeat + 1))      # a new run's frame each call
            res = cpu_median(lambda: ir_measures.calc_aggregate(rbp, inp["qf"], next(frames)),
                             lambda: ir_measures.calc_aggregate(ndcg, inp["qf"], inp["rf"]), repeat)
        elif row in ("tuples-cold", "dict-cold"):
            # as tuples / dict, but every call of ours converts the qrels (the conversion kept from the
            # call before, for the same unchanged qrels, is dropped first: ir_rbstar/io/qcache.py)
            from ir_rbstar.io import qcache
            qq, rr = {"tuples-cold": ("q", "r"), "dict-cold": ("qd", "rd")}[row]

            def cold(qq=qq, rr=rr):
                qcache.clear()
                return ir_measures.calc_aggregate(rbp, inp[qq], inp[rr])
            res = cpu_median(cold, lambda: ir_measures.calc_aggregate(ndcg, inp[qq], inp[rr]), repeat)
        elif row in ("ties", "twist", "ties-irm", "twist-irm"):
            import pytrec_eval
            ours_ms = ir_rbstar.parse("P_TA@10 AP_TA nDCG_TA@10" if row.startswith("ties") else "Twist")
            names = {"P_10", "map", "ndcg_cut_10"} if row.startswith("ties") else {"map"}
            if row.endswith("-irm"):
                peer_ms = [irm(m) for m in (("P@10", "AP", "nDCG@10") if row.startswith("ties") else ("AP",))]
                frames = itertools.cycle(renewed_frames(inp["rf"], repeat + 1))  # a new run's frame each call
                res = cpu_median(lambda: ir_measures.calc_aggregate(ours_ms, inp["qf"], next(frames)),
                                 lambda: ir_measures.calc_aggregate(peer_ms, inp["qf"], inp["rf"]), repeat)
            else:
                def peer():
                    per_q = pytrec_eval.RelevanceEvaluator(inp["qd"], names).evaluate(inp["rd"])
                    return {n: np.mean([v[n] for v in per_q.values()]) for n in names}
                res = cpu_median(lambda: ir_measures.calc_aggregate(ours_ms, inp["qd"], inp["rd"]), peer, repeat)
        elif row in ("rbo", "rbo-docid", "rbo-cold"):
            if inp["ref"] is None:
                continue
            import pandas as pd
            ref_frame = pd.DataFrame(inp["ref"], columns=["query_id", "doc_id", "score"])
            how = ",ties='docid'" if row == "rbo-docid" else ""
            ms = ir_rbstar.parse(f"RBO(p=0.9,ref='bench_native_ref'{how}) RBO_ext(p=0.9,ref='bench_native_ref'{how})")

            runs = itertools.cycle(renewed_frames(inp["rf"], repeat + 1))

            def ours(cold=row == "rbo-cold"):
                if cold:
                    from ir_rbstar.io import framecache
                    framecache.clear()
                ir_rbstar.register_run("bench_native_ref", ref_frame)
                try:
                    return ir_measures.calc_aggregate(ms, None, next(runs))
                finally:
                    ir_rbstar.unregister_run("bench_native_ref")
            if not h.have_module("rbo"):
                t = time.process_time()
                ours()
                t = time.process_time()
                ours()
                out[row] = {"ours": time.process_time() - t, "peer": None,
                            "absent": "PyPI rbo not installed (it pins numpy < 2; see benchmarks/README.md)"}
                continue
            import rbo
            S, T = trec_order(inp["r"]), trec_order(inp["ref"])
            sims = [rbo.RankingSimilarity(S[k], T.get(k, [])) for k in S]
            res = cpu_median(ours, lambda: [s.rbo_ext(p=0.9) for s in sims], repeat)
        elif row == "pt":
            if not h.have_module("pyterrier"):
                out[row] = {"ours": None, "peer": None, "absent": "PyTerrier not installed"}
                continue
            res = _pt_experiment(qrels_path, run_paths, repeat)
            res["ratio"] = (res["ours"] - res["peer"]) / res["ours"]
        elif row == "read":
            path = run_paths[0]
            res = cpu_median(lambda: ir_rbstar.read_run(path), pandas_reader(path), repeat)
        else:
            raise ValueError(row)
        res.setdefault("ratio", res["ours"] / res["peer"] if res["peer"] else None)
        out[row] = res
    return out


def renewed_frames(frame, count: int) -> list:
    """``count`` copies of a run DataFrame holding the same rows in columns of their own (new arrays, as a
    new run's frame has: ours converts each, where it would keep the conversion of the same columns given
    again, ir_rbstar/io/framecache.py), built before any clock starts; the frame itself when its
    conversion is not kept anyway (more rows than framecache.MAX_ROWS)."""
    from ir_rbstar.io import framecache
    if len(frame) > framecache.MAX_ROWS:
        return [frame]
    ids = [c for c in ("query_id", "doc_id") if c in frame.columns]
    return [frame.astype({c: object for c in ids}).astype({c: frame[c].dtype for c in ids}) for _ in range(count)]


def pandas_reader(path: str) -> Callable:
    """pandas reading a run's three columns with the file's one separator (runs of whitespace if that fails)."""
    import gzip

    import pandas as pd
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        first = f.readline()

    def read(sep: str):
        return pd.read_csv(path, sep=sep, header=None, usecols=[0, 2, 4], names=["query_id", "doc_id", "score"],
                           dtype={"query_id": str, "doc_id": str, "score": float})
    sep = "\t" if b"\t" in first else " "
    try:
        read(sep)
    except (ValueError, pd.errors.ParserError):
        sep = r"\s+"
    return lambda: read(sep)


def _pt_experiment(qrels_path: str, run_paths: List[str], repeat: int) -> dict:
    import ir_measures
    import pandas as pd
    import pyterrier as pt
    import ir_rbstar
    import ir_rbstar.pyterrier as rb
    paths = run_paths[:5]
    systems = []
    for p in paths:
        frame = ir_rbstar.read_run(p).rename(columns={"query_id": "qid", "doc_id": "docno"})
        frame["rank"] = frame.groupby("qid").cumcount()
        systems.append(frame)
    qrels = rb.qrels(qrels_path)
    topics = pd.DataFrame({"qid": sorted(set(qrels["qid"])), "query": "q"})
    rb.register_run("bench_native_base", paths[0])
    base = [ir_measures.parse_measure("nDCG@10")]
    ours = rb.parse("nDCG@10 RBP(p=0.8,max_rel=3) nDCG_TA@10 RBO(p=0.9,ref='bench_native_base')")
    names = [os.path.basename(p) for p in paths]
    try:
        res = cpu_median(lambda: pt.Experiment(systems, topics, qrels, eval_metrics=ours, names=names),
                         lambda: pt.Experiment(systems, topics, qrels, eval_metrics=base, names=names), repeat)
    finally:
        rb.unregister_run("bench_native_base")
    res["what"] = f"{len(paths)} runs"
    return res


def default_data(args, tmp: str) -> tuple:
    """(qrels, runs, reference, description) from the options: --qrels/--runs, --synthetic DIR, DL19, or
    (as run_all.py calls it, or without DL19) synthetic files of --queries x --depth in --data or ``tmp``."""
    if args.qrels:
        return args.qrels, args.runs, args.ref, "given files"
    dl = args.dl or DL
    runs_dir = os.path.join(dl, "runs")
    if args.synthetic or args.quick or args.queries or args.data or not os.path.isdir(runs_dir):
        names = ["synthetic.qrels", "synthetic.run", "synthetic_ref.run"]
        if args.synthetic:
            d, how = args.synthetic, "given"
        else:
            d = args.data or os.path.join(tmp, "synthetic")
            _, how = h.synthetic(d, names, h.n_queries(args), args.depth)
        return (os.path.join(d, names[0]), [os.path.join(d, names[1])], os.path.join(d, names[2]),
                f"synthetic ({h.run_shape(os.path.join(d, names[1]))}; {how})")
    runs = sorted((os.path.join(runs_dir, f) for f in os.listdir(runs_dir)), key=os.path.getsize, reverse=True)
    return (os.path.join(dl, "qrels.dl19-passage.txt"), runs[:10], runs[10],
            "TREC DL 2019 passage: the 10 largest runs (200 queries x 1,000; 43 judged), reference the 11th")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Every door against its peer on native input, one process, CPU-time "
                                             "ratios (see benchmarks/README.md)")
    ap.add_argument("--qrels", help="TREC qrels file (with --runs)")
    ap.add_argument("--runs", nargs="+", help="TREC run files: the first is the run of the in-memory rows, up to 10 "
                                              "go to cli10, up to 5 to pt")
    ap.add_argument("--ref", help="reference run for the rbo row")
    ap.add_argument("--synthetic", metavar="DIR",
                    help="make_synthetic.py's synthetic.{qrels,run} and synthetic_ref.run")
    ap.add_argument("--dl", metavar="DIR", help=f"the TREC DL 2019 passage folder (default {DL})")
    ap.add_argument("--rows", default=",".join(ROWS), help=f"comma list of {', '.join(ROWS)} (default: all)")
    ap.add_argument("--repeat", type=int, default=3, help="timed rounds per row, median reported (default 3)")
    ap.add_argument("--json", help="write the summary rows (and raw results) to this JSON file")
    # as run_all.py calls every script: synthetic data of this size (instead of DL19) ...
    h.add_size_options(ap, "synthetic data of 700 queries instead of DL19")
    h.add_data_option(ap, "synthetic.qrels, synthetic.run and synthetic_ref.run")
    # ... and options that mean nothing here (one process: the package measured is the one imported)
    for flag in ("--live", "--working-tree", "--no-phases"):
        ap.add_argument(flag, action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    bad = [r for r in rows if r not in ROWS]
    if bad:
        ap.error(f"unknown row(s) {bad}; known: {', '.join(ROWS)}")
    import tempfile
    with tempfile.TemporaryDirectory(prefix="rbstar-bench-native-") as tmp:
        qrels, runs, ref, data = default_data(args, tmp)
        load_start = h.load_average()
        res = measure_rows(rows, qrels, runs, ref, args.repeat)
    return report(args, rows, res, data, load_start)


def _fmt(x: Optional[float]) -> str:
    """CPU seconds as the table shows them: milliseconds below 0.1 s (a small run's calls take a few)."""
    return h.fmt_s(x) if x is None or x >= 0.1 else f"{x * 1e3:.2f} ms"


def report(args, rows: List[str], res: Dict[str, dict], data: str, load_start: str) -> int:
    load_end = h.load_average()
    print(h.machine_info())
    print(f"method: one process, CPU time (user + system; the cli rows: of the child processes), median of "
          f"{args.repeat} rounds after a warm-up round, contenders taking turns; {load_start} at start, "
          f"{load_end} at end")
    print(f"data: {data}")
    grid = h.Grid(("row", "ir_rbstar CPU s", "peer CPU s", "ratio", "goal", "met?"))
    session = h.Session(tmp="", package=h.git_state(h.REPO), load_start=load_start)
    for row in rows:
        if row not in res:
            continue
        r = res[row]
        ratio, goal = r.get("ratio"), GOALS.get(row)
        met = None if ratio is None or goal is None else ratio <= goal
        grid.add(row, _fmt(r["ours"]), r.get("absent") or _fmt(r["peer"]),
                 "-" if ratio is None else f"{ratio:.2f}", "info" if goal is None else f"<= {goal}",
                 "" if met is None else h.yes(met))
        session.add_summary(FAMILY, row, data, h.fmt_s(r["ours"]), PEERS[row], h.fmt_s(r["peer"]), ratio,
                            "info" if goal is None else f"<= {goal}", met, peer_dists=DISTS.get(row, []),
                            peer_absent=r.get("absent"))
    print(grid.render())
    session.raw["results"] = res
    session.write_json(args.json, mode=f"median of {args.repeat}")
    return 0


PEERS = {"cli1": "python -m ir_measures QRELS RUN 'nDCG@10 AP'",
         "cli10": "python -m ir_measures QRELS RUN 'nDCG@10 AP', once per run",
         "tuples": "ir_measures nDCG@10 (pytrec_eval), namedtuples", "dict": "ir_measures nDCG@10, dicts",
         "tuples-cold": "ir_measures nDCG@10, namedtuples (ours converting the qrels every call)",
         "dict-cold": "ir_measures nDCG@10, dicts (ours converting the qrels every call)",
         "frame": "ir_measures nDCG@10, DataFrames", "ties": "pytrec_eval P_10 map ndcg_cut_10 on dicts",
         "ties-irm": "ir_measures P@10 AP nDCG@10 from DataFrames", "twist": "pytrec_eval map on dicts",
         "twist-irm": "ir_measures AP from DataFrames", "rbo": "PyPI rbo rbo_ext loop on id lists",
         "rbo-docid": "PyPI rbo rbo_ext loop on id lists (ours with ties='docid': the same quantity)",
         "rbo-cold": "PyPI rbo rbo_ext loop on id lists (ours converting the reference every call too)",
         "pt": "pt.Experiment [nDCG@10] (ratio: the package's part of the experiment)",
         "read": "pandas.read_csv(sep=' ' or '\\t', usecols, dtype str/str/float)"}
DISTS = {"ties": ["pytrec_eval-terrier"], "twist": ["pytrec_eval-terrier"], "rbo": ["rbo"], "rbo-docid": ["rbo"],
         "rbo-cold": ["rbo"],
         "pt": ["pyterrier"],
         "read": ["pandas"]}
for _row in ("cli1", "cli10", "tuples", "dict", "tuples-cold", "dict-cold", "frame", "ties-irm", "twist-irm"):
    DISTS[_row] = ["ir_measures", "pytrec_eval-terrier"]


if __name__ == "__main__":
    sys.exit(main())
