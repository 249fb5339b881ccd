#!/usr/bin/env python3
"""Benchmark the MED family of Tan & Clarke (IEEE TKDE 2015, arXiv:1408.3587) against the
authors' C program ``med``.

    python -m benchmarks.bench_med --med-c /tmp/medc/med            # full: 7,000 pairs x depth 1,000 (+ Robust04)
    python -m benchmarks.bench_med --quick --med-c /tmp/medc/med    # smoke run: 700 pairs, synthetic only
    python -m benchmarks.bench_med --data /tmp/bench-med            # reuse (or create) the synthetic files there

Goals (issue 5):

* ``MED_nDCG@20 + MED_RBP + MED_ERR`` on 7,000 pairs of depth-1,000 rankings, end to end from the TREC
  files (parsing included), no slower than the authors' C program (quoted: about 14 s on a machine of
  this size);
* ``MED_AP@100`` exact: median under 20 ms per query pair, worst case reported.

Contenders, each end to end from the run files, each run in a fresh subprocess (this file with
``--worker``), taking turns (best of the rounds; CPU time next to wall time):

1. ir_rbstar: ``ir_rbstar.cli.run_measures(["none", RUN, "MED_nDCG(ref='REF')@20",
   "MED_RBP(p=0.95,ref='REF')", "MED_ERR(ref='REF',max_rel=2)@30"])`` -- the ``ir-rbstar`` command
   without interpreter start-up (qrels ``none``: judgment-free; the query set is RUN's queries);
2. the authors' C program ``med RUN REF`` (MED-nDCG@20, MED-RBP with psi 0.95 to depth 1,000 and an
   approximate MED-ERR@30 with G = 2, for every topic of both files), given with ``--med-c PATH``. It
   is GPL and not part of this repository: without ``--med-c`` its rows are skipped, and the output
   says how to build it (plg.uwaterloo.ca/~claclark/med, ``gcc -O2 -o med med.c -lm``). It needs
   numeric topic ids and uncompressed files; its process start-up is included in its time.

Inputs: ``make_synthetic.py`` (``synthetic.run`` vs ``synthetic_ref.run``: the same 7,000 queries, depth
1,000, about 60% of each query's documents shared, 6-digit numeric query ids), generated into a temporary
directory or reused from ``--data DIR``; and, in full mode when ``../shared/data`` exists, the 10 official
Robust04 runs (250 topics x 1,000): all 45 pairs, ir_rbstar evaluating pair after pair in one process
(the CLI function per pair; each reference file is read once per process and cached) against the C
program run 45 times. The runs are gunzipped into a temporary directory (not timed; both contenders
read the same uncompressed files) and never copied into the repository.

MED_AP@100 per query pair: ``ir_rbstar.core.med.max_ap`` on the dense matrices of one query pair
(``core.med.dense`` of the sides that ``families.med.lists`` builds, as the family does), timed per
query pair with both directions (best of ``--ap-repeat``), on the Robust04 pairs (judgment-free: every
shared document of the top 100 is a variable, the hardest case) and on the synthetic pairs; median,
90th/99th percentile, worst, and the search nodes of the worst case. The whole MED_AP@100 evaluation of
each pair of runs through the provider is timed too, and its values must equal the kernel's.

With ``--med-c`` and the Robust04 data, a check (not timed, ``--no-check`` skips it) compares both
programs per topic on the 45 pairs, judgment-free and with the Robust04 qrels, and attributes every
MED-nDCG@20 difference with an independent closed-form recomputation under each program's rules.
Helpers (worker protocol, package snapshot, round-robin timing, tables, machine info) come from
_harness.py; see benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import io
import itertools
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

if __package__:      # python -m benchmarks.bench_med (from the repository root)
    from . import _harness as h
else:                # python benchmarks/bench_med.py, as the workers run: its folder is first on the path
    import _harness as h  # (stdlib-only at import: worker protocol, snapshot, tables, shared workers)

SCRIPT = os.path.abspath(__file__)      # the workers run as this script with --worker

REF = "@REF@"                           # placeholder for the reference path in the measure templates
MEASURES = [f"MED_nDCG(ref='{REF}')@20", f"MED_RBP(p=0.95,ref='{REF}')", f"MED_ERR(ref='{REF}',max_rel=2)@30"]
SHORT = ["MED_nDCG@20", "MED_RBP(0.95)", "MED_ERR@30"]
C_QUOTED_S = 14.0                       # the figure for the C program (not measured)
AP_CUTOFF = 100
AP_GOAL_MS = 20.0
ROBUST04 = os.path.join(h.SHARED_DATA, "robust04")
C_HOWTO = ("the authors' C program is GPL and not shipped with this repository: download med.c from "
           "plg.uwaterloo.ca/~claclark/med, build it with `gcc -O2 -o med med.c -lm` and pass --med-c PATH/med")
G = 2                                   # the C program's top grade; r_j = (2^j - 1) / 2^G
ERR_P = 5                               # the C program's P: bound variables tried in its ERR search
ERR_BOUND = (1.0 - (2.0 ** G - 1.0) / 2.0 ** G) ** ERR_P / (ERR_P + 1)      # Tan & Clarke 2015, eq. 24


def measures_for(ref: str) -> List[str]:
    return [m.replace(REF, ref) for m in MEASURES]


# =============================================================================================
# Workers (each in its own subprocess, one JSON result line)
# =============================================================================================

def _read_c_csv(path: str):
    """(per-topic rows [topic, nDCG, RBP, ERR], the amean row) of one ``med`` output file."""
    rows, mean = [], None
    with open(path) as f:
        next(f)                                           # header
        for line in f:
            parts = line.strip().split(",")
            if len(parts) != 6:
                continue
            vals = [float(x) for x in parts[3:]]
            if parts[2] == "amean":
                mean = vals
            else:
                rows.append([int(parts[2])] + vals)
    return rows, mean


def w_med_c(args: dict) -> None:
    """The C program on each pair in turn (stdout to a file); wall time of all runs, CPU time and peak
    RSS of the children (getrusage RUSAGE_CHILDREN of this fresh worker)."""
    binary, qrels = args["binary"], args.get("qrels")
    out_dir = tempfile.mkdtemp(prefix="bench-med-c-")
    try:
        outs = []
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        for i, (a, b) in enumerate(args["pairs"]):
            path = os.path.join(out_dir, f"{i}.csv")
            with open(path, "w") as f:
                subprocess.run([binary, a, b] + ([qrels] if qrels else []), stdout=f, check=True)
            outs.append(path)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        parsed = [_read_c_csv(p) for p in outs]
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    means = [m for _, m in parsed if m is not None]
    values = {name: sum(m[j] for m in means) / max(len(means), 1) for j, name in enumerate(SHORT)}
    h.emit({"wall": wall, "cpu": cpu, "child_maxrss_mb": after.ru_maxrss / 1024.0, "values": values,
            "topics": sum(len(r) for r, _ in parsed)})


def w_rbstar_pairs(args: dict) -> None:
    """ir_rbstar on each pair in turn in one process: the CLI function per pair (the run file is read
    each time; a reference file once per process, then cached). Values: the mean over the pairs of each
    measure's mean."""
    from ir_rbstar import cli      # imports ir_rbstar (registers its measures); imports are not timed
    outs = []
    t = h.clock()
    for a, b in args["pairs"]:
        out = io.StringIO()
        cli.run_measures(["none", a, *measures_for(b), "--places", "-1"], out=out)
        outs.append(out.getvalue())
    timing = h.since(t)
    per_pair = [list(h.parse_tsv(text).values()) for text in outs]
    values = {name: sum(v[j] for v in per_pair) / len(per_pair) for j, name in enumerate(SHORT)}
    h.emit({**timing, "values": values})


def _binary_side(side, rel: int = 1):
    """A side of families.med.lists with grades replaced by binary values (NaN stays NaN: unjudged), as
    the family values the sides of MED_AP."""
    import numpy as np
    from ir_rbstar.core import med as K
    value = np.where(np.isnan(side.value), np.nan, (np.nan_to_num(side.value) >= rel).astype(np.float64))
    return K.Side(side.seg, side.pos, value, side.partner, side.lens)


def w_ap_pairs(args: dict) -> None:
    """MED_AP@k per query pair: max_ap of both directions of each query, timed per query pair (best of
    ``repeat``); plus the whole evaluation of each pair of runs through the provider (refs registered)."""
    import numpy as np
    import ir_rbstar
    from ir_rbstar import io as rio
    from ir_rbstar.context import RunContext
    from ir_rbstar.core import med as K
    from ir_rbstar.families import med as fam
    from ir_rbstar.provider import PROVIDER
    k, repeat = args["cutoff"], max(1, args["repeat"])
    paths = sorted({p for pair in args["pairs"] for p in pair})
    names = {p: f"bench_med_ap_{i}" for i, p in enumerate(paths)}
    t = time.perf_counter()
    runs = {p: rio.read_trec_run(p) for p in paths}
    t_read = time.perf_counter() - t
    for p in paths:
        ir_rbstar.register_run(names[p], runs[p])

    def one(d, q):
        return K.Dense(d.fa[q:q + 1], d.fb[q:q + 1], d.va[q:q + 1], d.vb[q:q + 1], d.m[q:q + 1], d.top)

    ms, nodes_ab, nodes_ba, nvars, where = [], [], [], [], []
    t_e2e = t_prep = 0.0
    max_diff = 0.0
    for a, b in args["pairs"]:
        run = runs[a]
        measure = ir_rbstar.parse(f"MED_AP(ref='{names[b]}')@{k}")[0]
        t = time.perf_counter()
        vals = PROVIDER.evaluator([measure], None).values(run)
        t_e2e += time.perf_counter() - t
        qids = vals["query_id"]
        t = time.perf_counter()
        ctx = RunContext(run, None, run.qcodes)
        side_a, side_b = fam.lists(ctx, k, names[b], measure, False)
        side_a, side_b = _binary_side(side_a), _binary_side(side_b)
        up, down = K.dense(side_a, side_b, ctx.n, k, 1.0), K.dense(side_b, side_a, ctx.n, k, 1.0)
        t_prep += time.perf_counter() - t
        for q in range(ctx.n):
            d1, d2 = one(up, q), one(down, q)
            best = math.inf
            for _ in range(repeat):
                t = time.perf_counter()
                v1, n1 = K.max_ap(d1)
                v2, n2 = K.max_ap(d2)
                best = min(best, time.perf_counter() - t)
            ms.append(1000.0 * best)
            nodes_ab.append(int(n1[0]))
            nodes_ba.append(int(n2[0]))
            nvars.append(int(up.m[q]))
            where.append([os.path.basename(a), os.path.basename(b), str(qids[q])])
            max_diff = max(max_diff, abs(max(float(v1[0]), float(v2[0]), 0.0) - float(vals[measure][q])))
    for p in paths:
        ir_rbstar.unregister_run(names[p])
    ms_arr = np.asarray(ms)
    order = np.argsort(-ms_arr)[:5]
    nodes = np.asarray(nodes_ab) + np.asarray(nodes_ba)
    worst = [{"ms": ms[i], "pair": where[i][:2], "query": where[i][2], "variables": nvars[i],
              "nodes": [nodes_ab[i], nodes_ba[i]]} for i in order.tolist()]
    h.emit({"n": len(ms), "median_ms": float(np.median(ms_arr)), "p90_ms": float(np.percentile(ms_arr, 90)),
            "p99_ms": float(np.percentile(ms_arr, 99)), "max_ms": float(ms_arr.max()),
            "mean_ms": float(ms_arr.mean()), "search_s": float(ms_arr.sum() / 1000.0), "worst": worst,
            "nodes_median": float(np.median(nodes)), "nodes_max": int(nodes.max()),
            "variables_median": float(np.median(nvars)), "variables_max": int(max(nvars)),
            "over_goal": int((ms_arr >= AP_GOAL_MS).sum()), "prep_s": t_prep, "e2e_s": t_e2e,
            "read_s": t_read, "max_abs_diff": max_diff, "run_pairs": len(args["pairs"])})


# ------------------------------------------------------------------- the check against the C program

def _read_topk(path: str, k: int) -> Dict[int, List[str]]:
    """Topic -> the top k document ids in trec_eval order (score descending, ties by doc id descending),
    read with plain Python (independently of ir_rbstar)."""
    by_topic: Dict[int, list] = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 6:
                by_topic.setdefault(int(parts[0]), []).append((float(parts[4]), parts[2]))
    return {q: [d for _, d in sorted(rows, reverse=True)[:k]] for q, rows in by_topic.items()}


def _read_grades(path: Optional[str]) -> Dict[tuple, int]:
    if not path:
        return {}
    grades = {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4:
                grades[(int(parts[0]), parts[2])] = min(int(parts[3]), G)       # the C program clips to G
    return grades


def _ndcg_direction(q, up, down, grades, k, last_free, fill) -> float:
    """max (DCG(up) - DCG(down)) of one topic, closed form (Tan & Clarke 2015, section III), gains (2^j-1)/2^G.

    ``last_free``: a document bound to the *last* position of ``down`` counts as free (the C program's
    ``rankx < sizex``); ``fill``: a list shorter than k is filled with free documents (ir_rbstar)."""
    gain = [(2.0 ** j - 1.0) / 2.0 ** G for j in range(G + 1)]
    top = gain[G]
    disc = [0.0] + [1.0 / math.log2(i + 1.0) for i in range(1, k + 1)]
    pos_down = {d: j for j, d in enumerate(down, 1)}
    s = 0.0
    for i, d in enumerate(up, 1):
        g = grades.get((q, d))
        if g is not None:
            s += gain[max(g, 0)] * disc[i]
            continue
        j = pos_down.get(d)
        if j is None or (j > i and last_free and j == len(down)):
            s += top * disc[i]
        elif j > i:
            s += top * (disc[i] - disc[j])
    if fill:
        s += top * sum(disc[len(up) + 1:k + 1])
    for j, d in enumerate(down, 1):
        g = grades.get((q, d))
        if g is not None:
            s -= gain[max(g, 0)] * disc[j]
    return s


def _bound_at_last_rank(q, up, down, grades) -> bool:
    """Whether the document at the last position of ``down`` is unjudged and higher in ``up``: the case the
    C program counts as free (``rankx < sizex``) where it is bound."""
    if not down:
        return False
    d = down[-1]
    return (q, d) not in grades and d in up and up.index(d) + 1 < len(down)


def _ndcg_med(q, a, b, grades, k, c_rules: bool) -> float:
    norm = (2.0 ** G - 1.0) / 2.0 ** G * sum(1.0 / math.log2(i + 1.0) for i in range(1, k + 1))
    kw = {"last_free": c_rules, "fill": not c_rules}
    return max(0.0, _ndcg_direction(q, a, b, grades, k, **kw), _ndcg_direction(q, b, a, grades, k, **kw)) / norm


def w_check_c(args: dict) -> None:
    """Per-topic comparison of ir_rbstar and the C program on each pair (judgment-free or with qrels),
    and an independent closed-form recomputation of MED-nDCG@20 under each program's rules."""
    import ir_rbstar
    from ir_rbstar import io as rio
    from ir_rbstar.provider import PROVIDER
    binary, qrels_path, pairs = args["binary"], args.get("qrels"), args["pairs"]
    qrels = rio.read_trec_qrels(qrels_path) if qrels_path else None
    grades = _read_grades(qrels_path)
    paths = sorted({p for pair in pairs for p in pair})
    top20 = {p: _read_topk(p, 20) for p in paths}
    tol = 1e-5
    stats = {"pairs": len(pairs), "topics_both": 0, "only_c": 0, "only_ours": 0,
             "ndcg": {"agree": 0, "ours_lower": 0, "ours_higher": 0, "max_diff": 0.0, "with_last_rank_doc": 0,
                      "diff_with_last_rank_doc": 0, "emu_ours_match": 0, "emu_c_match": 0, "explained": 0,
                      "short_lists": 0},
             "rbp": {"agree": 0, "max_diff": 0.0},
             "err": {"agree": 0, "ours_higher": 0, "ours_lower": 0, "max_ours_minus_c": 0.0,
                     "min_ours_minus_c": 0.0, "over_bound": 0, "bound": ERR_BOUND, "examples": []}}
    for a, b in pairs:
        with tempfile.TemporaryFile("w+") as f:
            subprocess.run([binary, a, b] + ([qrels_path] if qrels_path else []), stdout=f, check=True)
            f.seek(0)
            text = f.read()
        c_rows = {}
        for line in text.splitlines()[1:]:
            parts = line.split(",")
            if len(parts) == 6 and parts[2] != "amean":
                c_rows[int(parts[2])] = [float(x) for x in parts[3:]]
        ms = [ir_rbstar.parse(m)[0] for m in (f"MED_nDCG(ref='{b}',max_rel={G})@20", f"MED_RBP(p=0.95,ref='{b}')",
                                              f"MED_ERR(ref='{b}',max_rel={G})@30")]
        vals = PROVIDER.evaluator(ms, qrels).values(rio.read_trec_run(a))
        ours = {int(q): [float(vals[m][i]) for m in ms] for i, q in enumerate(vals["query_id"])}
        stats["only_c"] += len(set(c_rows) - set(ours))
        stats["only_ours"] += len(set(ours) - set(c_rows))
        for q in sorted(set(c_rows) & set(ours)):
            stats["topics_both"] += 1
            (on, orbp, oerr), (cn, crbp, cerr) = ours[q], c_rows[q]
            A, B = top20[a].get(q, []), top20[b].get(q, [])
            nd = stats["ndcg"]
            d = on - cn
            nd["max_diff"] = max(nd["max_diff"], abs(d))
            nd["agree"] += abs(d) <= tol
            nd["ours_lower"] += d < -tol
            nd["ours_higher"] += d > tol
            last = _bound_at_last_rank(q, A, B, grades) or _bound_at_last_rank(q, B, A, grades)
            nd["with_last_rank_doc"] += bool(last)
            nd["diff_with_last_rank_doc"] += bool(last) and abs(d) > tol
            nd["short_lists"] += len(A) < 20 or len(B) < 20
            emu_o = _ndcg_med(q, A, B, grades, 20, c_rules=False)
            emu_c = _ndcg_med(q, A, B, grades, 20, c_rules=True)
            ok_o, ok_c = abs(emu_o - on) <= 1e-9, abs(emu_c - cn) <= tol
            nd["emu_ours_match"] += ok_o
            nd["emu_c_match"] += ok_c
            nd["explained"] += abs(d) > tol and ok_o and ok_c
            rb = stats["rbp"]
            rb["agree"] += abs(orbp - crbp) <= tol
            rb["max_diff"] = max(rb["max_diff"], abs(orbp - crbp))
            er = stats["err"]
            e = oerr - cerr
            er["agree"] += abs(e) <= tol
            er["ours_higher"] += e > tol
            er["ours_lower"] += e < -tol
            er["max_ours_minus_c"] = max(er["max_ours_minus_c"], e)
            er["min_ours_minus_c"] = min(er["min_ours_minus_c"], e)
            er["over_bound"] += e > ERR_BOUND
            if e > tol and len(er["examples"]) < 10:
                er["examples"].append([os.path.basename(a), os.path.basename(b), q, oerr, cerr])
    h.emit(stats)


WORKERS = {"rbstar_cli": h.w_rbstar_cli, "med_c": w_med_c, "rbstar_pairs": w_rbstar_pairs, "ap_pairs": w_ap_pairs,
           "check_c": w_check_c, "phases": h.w_phases}


# =============================================================================================
# Driver
# =============================================================================================

def _synthetic(data_dir: str, n_queries: int, depth: int) -> dict:
    (run, ref), msg = h.synthetic(data_dir, ["synthetic.run", "synthetic_ref.run"], n_queries, depth)
    return {"name": f"synthetic ({msg})", "short": "synthetic", "run": run, "ref": ref}


def _robust04(tmp: str, log) -> Optional[dict]:
    """The 10 official Robust04 runs gunzipped into tmp (the C program reads uncompressed files), the
    qrels too; all 45 pairs."""
    runs = sorted(glob.glob(os.path.join(ROBUST04, "runs-trec2004", "*.gz")))
    qrels = os.path.join(ROBUST04, "qrels.robust2004.txt.gz")
    if len(runs) < 2 or not os.path.exists(qrels):
        return None
    out = os.path.join(tmp, "robust04")
    os.makedirs(out, exist_ok=True)
    log(f"gunzipping {len(runs)} Robust04 runs and the qrels into {out} (not timed) ...")
    paths = []
    for src in runs + [qrels]:
        dst = os.path.join(out, os.path.basename(src)[:-3])
        with gzip.open(src, "rb") as fi, open(dst, "wb") as fo:
            shutil.copyfileobj(fi, fo, 1 << 20)
        paths.append(dst)
    run_paths, qrels_path = paths[:-1], paths[-1]
    return {"runs": run_paths, "qrels": qrels_path, "pairs": [list(p) for p in itertools.combinations(run_paths, 2)]}


def _med_c_binary(path: Optional[str], log) -> Optional[str]:
    if not path:
        log("C contender skipped (no --med-c): " + C_HOWTO)
        return None
    path = os.path.abspath(os.path.expanduser(path))
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SystemExit(f"--med-c {path}: not an executable file. " + C_HOWTO)
    return path


def c_version(binary: Optional[str]) -> Optional[str]:
    """How the C program is identified in the summary: its path and the start of its SHA-256 (it has no
    version number)."""
    if not binary:
        return None
    import hashlib
    with open(binary, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    return f"user-built {binary} (sha256 {digest})"


C_PEER = "the authors' C program med (Tan & Clarke), same three measures on the same files"
C_ABSENT = "not given (--med-c PATH; GPL, not shipped)"
FAMILY = "MED (bench_med.py)"


def _c_row(res: Optional[dict]) -> tuple:
    """seconds, CPU s, peak RSS (of the C processes), runs of a C contender."""
    if res is None:
        return "skipped", "", "", ""
    return h.fmt_s(res["wall"]), h.fmt_s(res["best_cpu"]), h.fmt_mb(res.get("child_maxrss_mb")), f"best of {res['n']}"


def _fmt_ms(x: float) -> str:
    return f"{x:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark ir_rbstar's MED family against the authors' C program "
                                             "(see benchmarks/README.md)")
    h.add_size_options(ap, "700 query pairs instead of 7,000, synthetic data only", "synthetic run depth (default 1000)")
    h.add_data_option(ap, "synthetic.run and synthetic_ref.run")
    h.add_repeat_options(ap, 90.0)
    h.add_real_options(ap, "the 45 pairs of the 10 Robust04 runs")
    ap.add_argument("--med-c", metavar="PATH", help="the authors' C program med (built from med.c; GPL, not shipped)")
    ap.add_argument("--ap-repeat", type=int, default=3, help="timings per query pair for MED_AP, best kept (default 3)")
    ap.add_argument("--no-ap", action="store_true", help="skip the MED_AP per-pair timing")
    ap.add_argument("--no-check", action="store_true", help="skip the per-topic comparison with the C program")
    ap.add_argument("--no-phases", action="store_true", help="skip the per-phase profile")
    args = h.parse_args(ap, argv, WORKERS)

    log = h.log
    n_queries = h.n_queries(args)
    real = (not args.quick) if args.real is None else args.real
    binary = _med_c_binary(args.med_c, log)
    with h.session("rbstar-bench-med-", args) as bench:
        syn = _synthetic(args.data or os.path.join(bench.tmp, "synthetic"), n_queries, args.depth)
        syn["shape"] = h.run_shape(syn["run"])
        r04 = None
        if real:
            r04 = _robust04(bench.tmp, log)
            if r04 is None:
                log(f"{ROBUST04} (runs-trec2004/*.gz and the qrels) not found: synthetic data only")

        # ---- 1. synthetic: three measures, end to end
        log(f"synthetic: {syn['shape']}; timing (contenders take turns, fresh subprocess each) ...")
        specs = {"1": ("rbstar_cli", {"argv": ["none", syn["run"], *measures_for(syn["ref"])]})}
        if binary:
            specs["2"] = ("med_c", {"binary": binary, "pairs": [[syn["run"], syn["ref"]]]})
        res_syn = h.measure_interleaved(SCRIPT, specs, args.repeat, args.slow)
        res_syn["1"]["values"] = dict(zip(SHORT, res_syn["1"].get("values", {}).values()))
        phases = None
        if not args.no_phases:
            log("per-phase profile of 1 (cProfile, separate subprocess) ...")
            phases = h.run_worker(SCRIPT, "phases", {"run": syn["run"], "ref": syn["ref"],
                                                     "measures": measures_for(syn["ref"])})
        bench.raw["synthetic"] = {"timings": res_syn, "phases": phases, "dataset": syn}

        # ---- 2. Robust04: 45 pairs
        res_r04 = None
        if r04:
            log(f"Robust04: {len(r04['runs'])} runs, {len(r04['pairs'])} pairs; timing ...")
            specs_r = {"R1": ("rbstar_pairs", {"pairs": r04["pairs"]})}
            if binary:
                specs_r["R2"] = ("med_c", {"binary": binary, "pairs": r04["pairs"]})
            res_r04 = h.measure_interleaved(SCRIPT, specs_r, args.repeat, args.slow)
            bench.raw["robust04"] = {"timings": res_r04, "runs": r04["runs"]}

        # ---- 3. MED_AP@100 per query pair
        ap_res = {}
        if not args.no_ap:
            if r04:
                log(f"MED_AP@{AP_CUTOFF} per query pair: Robust04, {len(r04['pairs'])} pairs of runs ...")
                ap_res["robust04"] = h.run_worker(SCRIPT, "ap_pairs", {"pairs": r04["pairs"], "cutoff": AP_CUTOFF,
                                                                        "repeat": args.ap_repeat})
            log(f"MED_AP@{AP_CUTOFF} per query pair: synthetic ...")
            ap_res["synthetic"] = h.run_worker(SCRIPT, "ap_pairs", {"pairs": [[syn["run"], syn["ref"]]],
                                                                     "cutoff": AP_CUTOFF, "repeat": args.ap_repeat})
            bench.raw["med_ap"] = ap_res

        # ---- 4. per-topic check against the C program (not timed)
        checks = {}
        if binary and r04 and not args.no_check:
            for mode, qrels in (("judgment-free", None), ("Robust04 qrels", r04["qrels"])):
                log(f"check against the C program, {mode}: {len(r04['pairs'])} pairs ...")
                checks[mode] = h.run_worker(SCRIPT, "check_c", {"binary": binary, "pairs": r04["pairs"],
                                                                 "qrels": qrels})
            bench.raw["check"] = checks
        load_end = h.load_average()

        # ------------------------------------------------------------------------------- report
        print()
        print(h.machine_info())
        print(h.interleaved_method(args.quick, args.repeat, bench.load_start, load_end)
              .replace("reading both files", "reading the files; C: its process start-up too"))
        print(f"ir_rbstar measured: {bench.package}")
        print(f"C program: {binary or 'skipped -- ' + C_HOWTO}")
        goals = h.Grid(("goal", "measured", "target", "met?"))

        cols = ("contender (end to end from the TREC run files)", "seconds", "CPU s", "peak RSS", "runs",
                "time / C", "CPU / C")
        label1 = "1. ir_rbstar " + " + ".join(SHORT) + " (ir-rbstar CLI function, qrels none)"
        label2 = "2. the authors' C program med (same three; its ERR is approximate)"
        r1, r2 = res_syn["1"], res_syn.get("2")
        grid = h.Grid(cols)
        grid.add(label1, h.fmt_s(r1["wall"]), h.fmt_s(r1["best_cpu"]), h.fmt_mb(r1["maxrss_mb"]), f"best of {r1['n']}",
                 h.fmt_ratio(r1["wall"], r2 and r2["wall"]), h.fmt_ratio(r1["best_cpu"], r2 and r2["best_cpu"]))
        grid.add(label2, *_c_row(r2), "1.00" if r2 else "", "1.00" if r2 else "")
        print()
        print(f"data: {syn['name']}: {syn['shape']}; the same queries in synthetic_ref.run")
        print(grid.render())
        print(h.all_runs_line(res_syn, specs))
        print("means: 1 " + h.fmt_values(r1["values"]) + ("; 2 " + h.fmt_values(r2["values"]) if r2 else ""))
        if r2:
            goals.add(f"synthetic {n_queries:,} pairs: ir_rbstar / C (wall; CPU "
                      f"{r1['best_cpu'] / r2['best_cpu']:.2f})", f"{r1['wall'] / r2['wall']:.2f}", "<= 1.00",
                      h.yes(r1["wall"] <= r2["wall"]))
        else:
            goals.add(f"synthetic {n_queries:,} pairs: ir_rbstar / C", "C skipped", "<= 1.00", "?")
        med_task = " + ".join(SHORT) + " from the TREC run files, judgment-free"
        syn_data = f"synthetic, {n_queries:,} pairs x {args.depth:,}"
        if r2:
            bench.add_summary(FAMILY, med_task, syn_data, h.fmt_s(r1["wall"]), C_PEER, h.fmt_s(r2["wall"]),
                              r1["wall"] / r2["wall"], "<= 1.00", r1["wall"] <= r2["wall"],
                              peer_version=c_version(binary))
        else:
            bench.add_summary(FAMILY, med_task, syn_data, h.fmt_s(r1["wall"]), C_PEER, target="<= 1.00",
                              peer_absent=C_ABSENT)
        full_size = n_queries == 7000 and args.depth == 1000
        goals.add(f"  ir_rbstar against the issue's figure for the C program (about {C_QUOTED_S:.0f} s)",
                  h.fmt_s(r1["wall"]), f"<= {C_QUOTED_S:.0f} s" if full_size else "info",
                  h.yes(r1["wall"] <= C_QUOTED_S) if full_size else "")
        if r2:
            goals.add(f"  the C program measured here (the issue: about {C_QUOTED_S:.0f} s)", h.fmt_s(r2["wall"]),
                      "info", "")
        if phases:
            print()
            print(h.phase_report(" + ".join(SHORT) + " on synthetic", phases, r1))

        if res_r04:
            s1, s2 = res_r04["R1"], res_r04.get("R2")
            n_pairs = len(r04["pairs"])
            grid = h.Grid(cols + ("ms / pair of runs",))
            grid.add(f"R1. ir_rbstar, {n_pairs} x the CLI function in one process", h.fmt_s(s1["wall"]),
                     h.fmt_s(s1["best_cpu"]), h.fmt_mb(s1["maxrss_mb"]), f"best of {s1['n']}",
                     h.fmt_ratio(s1["wall"], s2 and s2["wall"]), h.fmt_ratio(s1["best_cpu"], s2 and s2["best_cpu"]),
                     f"{1000 * s1['wall'] / n_pairs:.0f}")
            grid.add(f"R2. the C program, {n_pairs} runs", *_c_row(s2), "1.00" if s2 else "", "1.00" if s2 else "",
                     f"{1000 * s2['wall'] / n_pairs:.0f}" if s2 else "")
            print()
            print(f"data: Robust04, {len(r04['runs'])} official runs (250 topics x 1,000, uncompressed copies), "
                  f"all {n_pairs} pairs")
            print(grid.render())
            print(h.all_runs_line(res_r04, list(res_r04)))
            print("means over the pairs: R1 " + h.fmt_values(s1["values"])
                  + ("; R2 " + h.fmt_values(s2["values"]) if s2 else ""))
            if s2:
                goals.add(f"Robust04 {n_pairs} pairs: ir_rbstar / C (wall; CPU {s1['best_cpu'] / s2['best_cpu']:.2f})",
                          f"{s1['wall'] / s2['wall']:.2f}", "info", "")
            r04_task = f"the same, {n_pairs} pairs of runs one after the other (R1 vs R2)"
            r04_data = f"Robust04, {len(r04['runs'])} runs, {n_pairs} pairs"
            if s2:
                bench.add_summary(FAMILY, r04_task, r04_data, h.fmt_s(s1["wall"]), C_PEER + f", run {n_pairs} times",
                                  h.fmt_s(s2["wall"]), s1["wall"] / s2["wall"], "info",
                                  peer_version=c_version(binary))
            else:
                bench.add_summary(FAMILY, r04_task, r04_data, h.fmt_s(s1["wall"]), C_PEER + f", run {n_pairs} times",
                                  peer_absent=C_ABSENT)

        if ap_res:
            grid = h.Grid(("MED_AP@100 per query pair (both directions)", "query pairs", "median ms", "p90 ms",
                           "p99 ms", "worst ms", "worst case", ">= 20 ms", "search s", "provider s"))
            for key, a in ap_res.items():
                w = a["worst"][0]
                grid.add(key, f"{a['n']:,}", _fmt_ms(a["median_ms"]), _fmt_ms(a["p90_ms"]), _fmt_ms(a["p99_ms"]),
                         _fmt_ms(a["max_ms"]),
                         f"{w['pair'][0]} vs {w['pair'][1]} q {w['query']}: {w['variables']} variables, "
                         f"{w['nodes'][0]} + {w['nodes'][1]} nodes",
                         f"{a['over_goal']}", f"{a['search_s']:.2f}", f"{a['e2e_s']:.2f}")
                goals.add(f"MED_AP@100 median per query pair, {key}", f"{a['median_ms']:.2f} ms", f"< {AP_GOAL_MS:.0f} ms",
                          h.yes(a["median_ms"] < AP_GOAL_MS))
                goals.add(f"  worst case ({w['variables']} variables, {sum(w['nodes'])} nodes)", f"{a['max_ms']:.2f} ms",
                          "reported", "")
                bench.add_summary(FAMILY, f"MED_AP@{AP_CUTOFF} exact, per query pair (both directions): median "
                                  f"(worst {a['max_ms']:.1f} ms)", f"{key}, {a['n']:,} query pairs",
                                  f"{a['median_ms']:.2f} ms", "the paper's approximate tabu search for MED-MAP",
                                  "a second or so", None, f"median < {AP_GOAL_MS:.0f} ms", a["median_ms"] < AP_GOAL_MS,
                                  peer_version="Tan & Clarke 2015's figure, not measured")
            print()
            print(grid.render())
            print(f"(best of {args.ap_repeat} per query pair; 'search s' = sum of the per-pair times; 'provider s' = "
                  f"the whole MED_AP@100 evaluation of every pair of runs through PROVIDER.evaluator(...).values(run), "
                  f"references registered, parsing excluded)")
            for key, a in ap_res.items():
                print(f"{key}: variables per query pair median {a['variables_median']:.0f}, max {a['variables_max']}; "
                      f"search nodes (both directions) median {a['nodes_median']:.0f}, max {a['nodes_max']}; "
                      f"building the dense matrices {a['prep_s']:.2f} s for {a['run_pairs']} pairs of runs; "
                      f"kernel vs provider values max |diff| {a['max_abs_diff']:.1e}")
                print("  slowest: " + "; ".join(f"{w['ms']:.1f} ms ({w['pair'][0]}/{w['pair'][1]} q {w['query']}, "
                                                 f"{w['variables']} vars, {sum(w['nodes'])} nodes)"
                                                 for w in a["worst"]))

        for mode, c in checks.items():
            nd, rb, er = c["ndcg"], c["rbp"], c["err"]
            n = c["topics_both"]
            print()
            print(f"check against the C program, {mode}: {c['pairs']} pairs, {n:,} topics evaluated by both "
                  f"({c['only_c']} by C only, {c['only_ours']} by ir_rbstar only); agreement = |diff| <= 1e-5 "
                  f"(C prints 5 decimals)")
            print(f"  MED-nDCG@20: {nd['agree']:,}/{n:,} agree ({100 * nd['agree'] / max(n, 1):.1f}%); "
                  f"ir_rbstar lower {nd['ours_lower']:,}, higher {nd['ours_higher']:,}, max |diff| {nd['max_diff']:.5f}; "
                  f"topics with an unjudged document at the other list's last rank (20) and higher in this one: "
                  f"{nd['with_last_rank_doc']:,} ({nd['diff_with_last_rank_doc']:,} of them differ); "
                  f"topics with a list shorter than 20: {nd['short_lists']}")
            print(f"    independent closed form: with ir_rbstar's rules = ir_rbstar on {nd['emu_ours_match']:,}/{n:,}, "
                  f"with C's rules (last rank free, no filling) = C on {nd['emu_c_match']:,}/{n:,}; "
                  f"differences explained by the rules: {nd['explained']:,}/{nd['ours_lower'] + nd['ours_higher']:,}")
            print(f"  MED-RBP(0.95): {rb['agree']:,}/{n:,} agree, max |diff| {rb['max_diff']:.1e}")
            print(f"  MED-ERR@30: {er['agree']:,}/{n:,} agree; ir_rbstar higher {er['ours_higher']}, lower "
                  f"{er['ours_lower']}; ir_rbstar - C in [{er['min_ours_minus_c']:.1e}, {er['max_ours_minus_c']:.1e}]; "
                  f"eq. 24 bound (1 - r_G)^5 / 6 = {er['bound']:.2e}, exceeded {er['over_bound']} times")
            if er["examples"]:
                print("    ir_rbstar higher: " + "; ".join(f"{a}/{b} q {q}: {o:.6f} vs {cv:.5f}"
                                                          for a, b, q, o, cv in er["examples"]))
        print()
        print(goals.render())
        bench.write_json(args.json, mode=h.mode_of(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
