#!/usr/bin/env python3
"""Benchmark ir_rbstar's rank-biased family against the tools a user would otherwise reach for.

    python -m benchmarks.bench_rankbiased            # full: 7,000 queries x 1,000 docs (+ Robust04 stack)
    python -m benchmarks.bench_rankbiased --quick    # smoke run: 700 queries x 1,000 docs

Every measurement runs in a fresh Python subprocess (this file with ``--worker``), so that

* wall times never profit from a warm process (ir_rbstar interns ids in process-wide vocabularies and
  caches reference runs: a second evaluation in the same process would be faster than a user's first);
* peak memory (``ru_maxrss`` of that subprocess) belongs to that measurement alone.

A subprocess times only the work (imports are done before the clock starts; import time is its own
row). Cheap measurements are repeated (``--repeat``, best wall time is reported, and the largest peak
memory); a measurement whose first run takes more than ``--slow`` seconds runs once.

Row a2 times binary RBP alone (``RBP(p=0.8,rel=1)``, which the ``ir-rbstar`` command parses as ir_rbstar's
RBP, served by ir_rbstar) against the other RBP implementation ir_measures
can call, cwl_eval (its ``cwl_eval`` provider, from the same files); it is skipped when cwl-eval is not
installed (the summary says so).

The worker protocol, package snapshot, tables and the per-phase profile live in _harness.py, shared with
bench_ties.py, bench_twist.py, bench_nrg.py and bench_med.py. With ``--json FILE`` the file also holds the
summary rows that run_all.py gathers. See benchmarks/README.md for what each row measures and the targets.
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import time
from typing import List, Optional

if __package__:      # python -m benchmarks.bench_rankbiased (from the repository root)
    from . import _harness as h
else:                # python benchmarks/bench_rankbiased.py, as the workers run: its folder is first on the path
    import _harness as h  # (stdlib-only at import: worker protocol, snapshot, tables, shared workers)

SCRIPT = os.path.abspath(__file__)      # the workers below run as this script with --worker

P_RBP = 0.8      # RBP / RBP_res
RBP_GRADED = f"RBP(p={P_RBP},max_rel=3)"      # graded RBP: grades 0-3 (synthetic), 0-2 (Robust04)
P_REF = 0.8      # RBR / RBA
P_RBO = 0.9      # RBO family and rbo.rbo_ext


# =============================================================================================
# Workers: each runs in its own subprocess and prints one JSON result line
# =============================================================================================

def w_import(args: dict) -> None:
    t = time.perf_counter()
    mod = __import__(args["module"])
    h.emit({"wall": time.perf_counter() - t, "file": getattr(mod, "__file__", None)})


def w_rbstar_cli(args: dict) -> None:
    """The user's path: the ir-rbstar command's function (reads the files, evaluates, prints means)."""
    from ir_rbstar import cli      # imports ir_rbstar (registers its measures); import time is measured separately
    out = io.StringIO()
    t = time.perf_counter()
    rc = cli.run_measures(list(args["argv"]) + ["--places", "-1"], out=out)
    wall = time.perf_counter() - t
    h.emit({"wall": wall, "rc": rc, "values": h.parse_tsv(out.getvalue())})


def w_pytrec(args: dict) -> None:
    """ir_measures + pytrec_eval computing nDCG@10 from the same files (reading included)."""
    import ir_measures
    t = time.perf_counter()
    res = ir_measures.pytrec_eval.calc_aggregate([ir_measures.nDCG @ 10], ir_measures.read_trec_qrels(args["qrels"]),
                                                 ir_measures.read_trec_run(args["run"]))
    wall = time.perf_counter() - t
    h.emit({"wall": wall, "values": {str(k): float(v) for k, v in res.items()}})


def w_cwl(args: dict) -> None:
    """ir_measures' cwl_eval provider computing RBP(p, rel) from the same files (reading included). cwl_eval
    is the one installable RBP implementation besides this package (pytrec_eval has none)."""
    import ir_measures
    m = ir_measures.RBP(p=args["p"], rel=args["rel"])
    t = time.perf_counter()
    res = ir_measures.cwl_eval.calc_aggregate([m], ir_measures.read_trec_qrels(args["qrels"]),
                                              ir_measures.read_trec_run(args["run"]))
    wall = time.perf_counter() - t
    h.emit({"wall": wall, "values": {str(k): float(v) for k, v in res.items()}})


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
    h.emit({"wall": wall, "pairs": len(vals), "pairs_all": n_all, "values": dict(zip(qids, vals)),
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
    h.emit({"wall": wall, "values": {str(m).replace("bench_ref", "REF"): float(np.mean(v)) for m, v in vals.items()},
            "per_query": per_query})


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
    h.emit({"queries": int(df[0].nunique()), "rows": len(df)})


WORKERS = {"paired_ref": w_paired_ref, "import": w_import, "rbstar_cli": w_rbstar_cli, "pytrec": w_pytrec, "rbo_pkg": w_rbo_pkg,
           "rbstar_inmemory": w_rbstar_inmemory, "phases": h.w_phases, "cwl": w_cwl}

FAMILY = "rank-biased (bench_rankbiased.py)"
# rows a to d run with the default engine ("auto": the compiled loops when numba, the fast extra, is installed)
HAVE_NUMBA = h.have_module("numba")
ENGINE_TAG = " [numba engine]" if HAVE_NUMBA else " [numpy engine]"
PYTREC = dict(peer_dists=["pytrec_eval-terrier", "ir_measures"])


# =============================================================================================
# Driver
# =============================================================================================

def run_worker(name: str, args: dict) -> dict:
    return h.run_worker(SCRIPT, name, args)


def measure(name: str, args: dict, repeat: int, slow: float) -> dict:
    return h.measure(SCRIPT, name, args, repeat, slow)


def build_real(tmp: str) -> Optional[dict]:
    """Stack the Robust04 runs (read in place from ../shared/data) into tmp, plus a paired reference run."""
    stack = h.robust04_stack(tmp, indent="  ")
    if stack is None:
        return None
    prefix, n_runs = stack
    # a paired reference (built in a subprocess, so this driver stays small: see _harness.maxrss_mb)
    paired = run_worker("paired_ref", {"run": prefix + ".run", "out": prefix + "_ref.run"})
    nq, nrows = paired["queries"], paired["rows"]
    return {"name": f"Robust04 stack ({n_runs} runs x 249 topics = {nq:,} queries, {nrows:,} rows)",
            "short": "robust04", "run": prefix + ".run", "qrels": prefix + ".qrels", "ref": prefix + "_ref.run",
            "queries": nq}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark ir_rbstar's rank-biased measures (see benchmarks/README.md)")
    h.add_size_options(ap, "700 queries instead of 7,000 (smoke run)")
    h.add_data_option(ap, "synthetic.run, synthetic_ref.run, synthetic.qrels", how="")
    ap.add_argument("--no-real", action="store_true", help="skip the Robust04 stack even if ../shared/data exists")
    ap.add_argument("--real", action="store_true", help="with --quick: include the Robust04 stack (full mode does "
                                                        "when ../shared/data exists)")
    h.add_repeat_options(ap, 30.0, unit="measurement")
    ap.add_argument("--no-cwl", action="store_true", help="skip row a2 (RBP by cwl_eval through ir_measures)")
    ap.add_argument("--rbo-budget", type=float, default=120.0,
                    help="seconds of rbo.rbo_ext per measurement; past that, the pairs timed so far (a random "
                         "sample) are extrapolated linearly to all pairs, and the output says so")
    args = h.parse_args(ap, argv, WORKERS)

    log = h.log
    n_queries = h.n_queries(args)
    table = h.Table()
    phase_reports: List[str] = []
    with h.session("rbstar-bench-", args) as bench:
        files, _ = h.synthetic(args.data or os.path.join(bench.tmp, "synthetic"),
                               ["synthetic.run", "synthetic_ref.run", "synthetic.qrels"], n_queries, args.depth)
        syn = dict(zip(("run", "ref", "qrels"), files))
        rows_syn = sum(1 for _ in open(syn["run"]))
        qids_syn = len({line.split(None, 1)[0] for line in open(syn["qrels"])})
        datasets = [dict(name=f"synthetic ({qids_syn:,} queries, {rows_syn:,} rows, depth {args.depth})",
                         short="synthetic", queries=qids_syn, **syn)]
        if not args.no_real and (args.real or not args.quick) and os.path.isdir(h.SHARED_DATA):
            real = build_real(bench.tmp)
            if real:
                datasets.append(real)

        rep, slow = args.repeat, args.slow

        # d. import time ------------------------------------------------------------------------------
        log("d. import time")
        imp = measure("import", {"module": "ir_rbstar"}, max(rep, 5), 1e9)
        imp_irm = measure("import", {"module": "ir_measures"}, max(rep, 5), 1e9)
        bench.raw["import"] = {"ir_rbstar": imp, "ir_measures": imp_irm}
        bench.package += f"; workers import {os.path.dirname(imp['file'])}"

        for ds in datasets:
            tag = f"[{ds['short']}]"
            data = f"{ds['short']}, {ds['queries']:,} queries"
            log(f"== {ds['name']}")
            # a. RBP + RBP_res end to end vs pytrec_eval nDCG@10 ---------------------------------------
            log("a. RBP + RBP_res end to end (CLI function) vs ir_measures/pytrec_eval nDCG@10")
            ours = measure("rbstar_cli", {"argv": [ds["qrels"], ds["run"], RBP_GRADED, f"RBP_res(p={P_RBP})"]},
                           rep, slow)
            theirs = measure("pytrec", {"qrels": ds["qrels"], "run": ds["run"]}, rep, slow)
            phases = run_worker("phases", {"qrels": ds["qrels"], "run": ds["run"],
                                           "measures": [RBP_GRADED, f"RBP_res(p={P_RBP})"]})
            bench.raw[f"a {ds['short']}"] = {"ir_rbstar": ours, "pytrec_eval": theirs, "phases": phases}
            table.add(f"a. RBP+RBP_res from files vs pytrec_eval nDCG@10 {tag}", h.fmt_s(ours["wall"]),
                      h.fmt_s(theirs["wall"]), h.fmt_ratio(ours["wall"], theirs["wall"]), "ratio <= 1.0",
                      h.yes(ours["wall"] <= theirs["wall"]))
            table.add(f"e. peak RSS, RBP+RBP_res from file (vs pytrec_eval nDCG@10) {tag}", h.fmt_mb(ours["maxrss_mb"]),
                      h.fmt_mb(theirs["maxrss_mb"]), h.fmt_ratio(ours["maxrss_mb"], theirs["maxrss_mb"]), "< 1,536 MB",
                      h.yes(ours["maxrss_mb"] < 1536))
            phase_reports.append(h.phase_report(f"RBP + RBP_res, CLI path {tag}", phases, ours))
            bench.add_summary(FAMILY, f"a. RBP + RBP_res(p={P_RBP}) from the TREC files", data,
                              h.fmt_s(ours["wall"]), "ir_measures.pytrec_eval, nDCG@10 from the same files",
                              h.fmt_s(theirs["wall"]), h.ratio_of(ours["wall"], theirs["wall"]), "<= 1.00",
                              ours["wall"] <= theirs["wall"], **PYTREC)
            bench.add_summary(FAMILY, "e. peak RSS of a (the ir_rbstar subprocess)", data,
                              h.fmt_mb(ours["maxrss_mb"]), "ir_measures.pytrec_eval, nDCG@10 (its subprocess)",
                              h.fmt_mb(theirs["maxrss_mb"]), h.ratio_of(ours["maxrss_mb"], theirs["maxrss_mb"]),
                              "< 1,536 MB", ours["maxrss_mb"] < 1536, **PYTREC)

            # a2. RBP alone vs cwl_eval's RBP (the other RBP implementation ir_measures can call) ---------
            cwl_task = f"a2. RBP(p={P_RBP},rel=1) from the TREC files"
            cwl_peer = f"ir_measures.cwl_eval, RBP(p={P_RBP},rel=1) from the same files"
            if args.no_cwl:
                pass
            elif not h.have_module("cwl"):
                table.add(f"{cwl_task} vs cwl_eval {tag}", "-", "cwl-eval not installed", "-", "info", "")
                bench.add_summary(FAMILY, cwl_task, data, "-", cwl_peer, peer_dists=["cwl-eval", "ir_measures"],
                                  peer_absent="cwl-eval not installed (pip install cwl-eval)")
            else:
                log("a2. RBP alone (CLI function) vs ir_measures' cwl_eval provider")
                ours_rbp = measure("rbstar_cli", {"argv": [ds["qrels"], ds["run"], f"RBP(p={P_RBP},rel=1)"]},
                                   rep, slow)
                cwl = measure("cwl", {"qrels": ds["qrels"], "run": ds["run"], "p": P_RBP, "rel": 1}, rep, slow)
                bench.raw[f"a2 {ds['short']}"] = {"ir_rbstar": ours_rbp, "cwl_eval": cwl}
                table.add(f"{cwl_task} vs cwl_eval {tag}", h.fmt_s(ours_rbp["wall"]), h.fmt_s(cwl["wall"]),
                          h.fmt_ratio(ours_rbp["wall"], cwl["wall"]), "info", "")
                m_ours, m_cwl = next(iter(ours_rbp["values"].values())), next(iter(cwl["values"].values()))
                table.notes.append(f"{tag} a2: mean RBP ir_rbstar {m_ours:.6f}, cwl_eval {m_cwl:.6f} (cwl_eval keeps "
                                   f"tied scores in input order and normalises its weights over depth 1,000; "
                                   f"ir_rbstar breaks ties by doc id descending, as trec_eval)")
                bench.add_summary(FAMILY, cwl_task, data, h.fmt_s(ours_rbp["wall"]), cwl_peer,
                                  h.fmt_s(cwl["wall"]), h.ratio_of(ours_rbp["wall"], cwl["wall"]), "info",
                                  peer_dists=["cwl-eval", "ir_measures"],
                                  note=f"means {m_ours:.4f} vs {m_cwl:.4f}")

            # b. RBO family vs rbo ------------------------------------------------------------------------
            log("b. RBO + RBO_res + RBO_ext vs rbo.rbo_ext")
            names = ["RBO", "RBO_res", "RBO_ext"]
            inmem = measure("rbstar_inmemory", {"run": ds["run"], "ref": ds["ref"], "names": names, "p": P_RBO,
                                                "return_values": True}, rep, slow)
            frames = measure("rbstar_inmemory", {"run": ds["run"], "ref": ds["ref"], "names": names, "p": P_RBO,
                                                 "from_frames": True}, rep, slow)
            files = measure("rbstar_cli", {"argv": ["none", ds["run"], *_ref_measures(names, ds["ref"], P_RBO)]},
                            rep, slow)
            rbo_peer = f"PyPI rbo: RankingSimilarity(run, ref).rbo_ext(p={P_RBO}) per query on id lists"
            b_tasks = [(f"b. RBO + RBO_res + RBO_ext from parsed Rankings{ENGINE_TAG}", inmem, "<= 0.30"),
                       ("b'. the same from pandas DataFrames (conversion timed)", frames, "info"),
                       ("b''. the same from the TREC files (CLI function, reading timed)", files, "info")]
            if HAVE_NUMBA:
                inmem_np = measure("rbstar_inmemory", {"run": ds["run"], "ref": ds["ref"], "names": names,
                                                       "p": P_RBO, "engine": "numpy"}, rep, slow)
                b_tasks.append(("b-np. the same as b, numpy engine (an install without the fast extra)", inmem_np,
                                "info"))
            if h.have_module("rbo"):
                rb = measure("rbo_pkg", {"run": ds["run"], "ref": ds["ref"], "p": P_RBO, "budget": args.rbo_budget},
                             rep, slow)
                rb_wall = rb["wall"] * rb["pairs_all"] / rb["pairs"]
                extrap = rb["pairs"] < rb["pairs_all"]
                agree = _rbo_agreement(inmem.get("per_query", {}), rb["values"])
                rb.pop("values", None)
            else:
                rb, rb_wall, extrap, agree = None, None, False, None
            inmem.pop("per_query", None)
            bench.raw[f"b {ds['short']}"] = {"ir_rbstar_inmemory": inmem, "ir_rbstar_frames": frames,
                                       "ir_rbstar_files": files, "rbo": rb, "agreement": agree}
            if rb is None:
                for task, res, _ in b_tasks:
                    table.add(f"{task} vs rbo.rbo_ext {tag}", h.fmt_s(res["wall"]), "rbo not installed", "-", "info", "")
                    bench.add_summary(FAMILY, task, data, h.fmt_s(res["wall"]), rbo_peer, peer_dists=["rbo"],
                                      peer_absent="rbo not installed (pip install rbo)")
            else:
                other = h.fmt_s(rb_wall) + (f" (extrapolated from {rb['pairs']:,} of {rb['pairs_all']:,} pairs)"
                                            if extrap else f" ({rb['pairs']:,} pairs)")
                table.add(f"b. RBO+RBO_res+RBO_ext from parsed Rankings vs rbo.rbo_ext on lists{ENGINE_TAG} {tag}",
                          h.fmt_s(inmem["wall"]), other, h.fmt_ratio(inmem["wall"], rb_wall), "ratio <= 0.3", h.yes(inmem["wall"] <= 0.3 * rb_wall))
                for task, res, _ in b_tasks[1:]:
                    table.add(f"{task} {tag}", h.fmt_s(res["wall"]), h.fmt_s(rb_wall),
                              h.fmt_ratio(res["wall"], rb_wall), "info", "")
                table.notes.append(f"{tag} rbo: {'EXTRAPOLATED linearly from a random sample of ' + format(rb['pairs'], ',') + ' pairs' if extrap else 'all pairs timed'}; "
                                   f"p={P_RBO}, depth {args.depth if ds['short'] == 'synthetic' else '<= 1000'}, no cutoff. "
                                   f"RBO_ext agreement ir_rbstar vs rbo on {agree['n']:,} queries: "
                                   f"max |diff| {agree['max_diff']:.2e}, mean |diff| {agree['mean_diff']:.2e}, "
                                   f"identical (< 1e-9) on {agree['same']:,} (ir_rbstar takes the expectation over tied "
                                   f"reference scores; rbo uses the list order)")
                for task, res, target in b_tasks:
                    bench.add_summary(FAMILY, task, data, h.fmt_s(res["wall"]), rbo_peer, other,
                                      h.ratio_of(res["wall"], rb_wall), target,
                                      res["wall"] <= 0.3 * rb_wall if target != "info" else None, peer_dists=["rbo"],
                                      note=f"rbo extrapolated from {rb['pairs']:,} of {rb['pairs_all']:,} pairs"
                                      if extrap else "")
            pb = run_worker("phases", {"run": ds["run"], "ref": ds["ref"],
                                       "measures": _ref_measures(names, ds["ref"], P_RBO)})
            bench.raw[f"b {ds['short']}"]["phases"] = pb
            phase_reports.append(h.phase_report(f"RBO + RBO_res + RBO_ext, CLI path {tag}", pb, files))

            # c. RBR and RBA end to end ---------------------------------------------------------------------
            for name in ("RBR", "RBA"):
                log(f"c. {name} end to end (CLI function, qrels 'none'){ENGINE_TAG}")
                res = measure("rbstar_cli", {"argv": ["none", ds["run"], *_ref_measures([name], ds["ref"], P_REF)]},
                              rep, slow)
                ph = run_worker("phases", {"run": ds["run"], "ref": ds["ref"],
                                           "measures": _ref_measures([name], ds["ref"], P_REF)})
                bench.raw[f"c {name} {ds['short']}"] = {"ir_rbstar": res, "phases": ph}
                table.add(f"c. {name}(p={P_REF}) vs reference run, from files, {ds['queries']:,} queries{ENGINE_TAG} {tag}",
                          h.fmt_s(res["wall"]), "rbstar (paper): " + ("104 s" if name == "RBR" else "205 s"),
                          "-", "< 5 s", h.yes(res["wall"] < 5.0))
                bench.add_summary(FAMILY, f"c. {name}(p={P_REF}) against a reference run, from the TREC files{ENGINE_TAG}",
                                  data, h.fmt_s(res["wall"]),
                                  "rbstar, the authors' tool: its time for 7,000 x 1,000",
                                  "104 s" if name == "RBR" else "205 s", None, "< 5 s", res["wall"] < 5.0,
                                  peer_version="quoted figure, not measured")
                phase_reports.append(h.phase_report(f"{name}, CLI path {tag}", ph, res))
                if HAVE_NUMBA:
                    res_np = measure("rbstar_cli", {"argv": ["none", ds["run"], *_ref_measures([name], ds["ref"], P_REF)],
                                                    "engine": "numpy"}, rep, slow)
                    bench.raw[f"c {name} {ds['short']}"]["ir_rbstar_numpy"] = res_np
                    table.add(f"c-np. {name} as c, numpy engine (an install without the fast extra) {tag}",
                              h.fmt_s(res_np["wall"]), "-", "-", "info", "")
                    bench.add_summary(FAMILY, f"c-np. {name} as c, numpy engine (without the fast extra)", data,
                                      h.fmt_s(res_np["wall"]), "rbstar, the authors' tool: its time for 7,000 x 1,000",
                                      "104 s" if name == "RBR" else "205 s", None, "info", None,
                                      peer_version="quoted figure, not measured")

        table.add("d. import ir_rbstar (fresh process) vs import ir_measures", h.fmt_s(imp["wall"]),
                  h.fmt_s(imp_irm["wall"]), h.fmt_ratio(imp["wall"], imp_irm["wall"]), "< 0.5 s",
                  h.yes(imp["wall"] < 0.5))
        bench.add_summary(FAMILY, "d. import ir_rbstar in a fresh process", "", h.fmt_s(imp["wall"]),
                          "import ir_measures, for context", h.fmt_s(imp_irm["wall"]),
                          h.ratio_of(imp["wall"], imp_irm["wall"]), "< 0.5 s", imp["wall"] < 0.5,
                          peer_dists=["ir_measures"])

        if HAVE_NUMBA:
            log("f. compiled engine start-up: first use on a machine (compiling) and later processes (cache)")
            start = engine_start(bench.tmp)
            bench.raw["engine_start"] = start
            table.add("f. compiled engine start-up: first use (compiles, cache empty) vs later (cache)",
                      h.fmt_s(start["cold"]), h.fmt_s(start["warm"]), h.fmt_ratio(start["cold"], start["warm"]),
                      "info", "")
            bench.add_summary(FAMILY, "f. compiled engine: first use on a machine (numba compiles the loops; "
                              "read + RBR, RBA, RBO family on a tiny run)", "", h.fmt_s(start["cold"]),
                              "the same in a later process (loops loaded from numba's cache)", h.fmt_s(start["warm"]),
                              h.ratio_of(start["cold"], start["warm"]), "info", None, peer_dists=["numba"])
        print()
        print(h.machine_info())
        print(f"mode: {'quick' if args.quick else 'full'}; best of up to {rep} fresh subprocesses per measurement "
              f"(1 when slower than {slow:.0f} s); wall time excludes interpreter start-up and imports; peak memory "
              f"= VmHWM (peak RSS) of the measuring subprocess, largest over its repeats)")
        print(f"ir_rbstar measured: {bench.package}")
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
        bench.write_json(args.json, mode=h.mode_of(args))
    return 0


def w_engine_start(args: dict) -> None:
    """Wall time, in a fresh process, of importing ir_rbstar with the numba engine, reading a tiny run
    and reference and evaluating RBR, RBA and the RBO family; with an empty numba cache (``numba_cache``,
    set by the harness) it includes compiling every loop used."""
    t = time.perf_counter()
    import ir_measures
    import ir_rbstar
    from ir_rbstar import io as rio
    run = rio.read_trec_run(args["run"])
    ir_rbstar.register_run("start_ref", rio.read_trec_run(args["ref"]))
    ms = [ir_measures.parse_measure(f"{n}(p=0.9,ref='start_ref')") for n in ("RBR", "RBA", "RBO", "RBO_res", "RBO_ext")]
    vals = ir_measures.calc_aggregate(ms, None, run)
    h.emit({"wall": time.perf_counter() - t, "values": {str(k): float(v) for k, v in vals.items()}})


def engine_start(tmp: str) -> dict:
    """Cold (empty numba cache) and warm (the same cache, next process) start of the compiled engine."""
    import tempfile
    run, ref = os.path.join(tmp, "start.run"), os.path.join(tmp, "start_ref.run")
    for path, shift in ((run, 0), (ref, 1)):
        with open(path, "w") as f:
            for q in range(3):
                for i in range(5):
                    f.write(f"q{q} Q0 d{(i + shift) % 6} {i + 1} {5 - i} t\n")
    cache = tempfile.mkdtemp(prefix="numba-cache-", dir=tmp)
    args = {"run": run, "ref": ref, "engine": "numba", "numba_cache": cache}
    cold = run_worker("engine_start", args)
    warm = run_worker("engine_start", args)
    return {"cold": cold["wall"], "warm": warm["wall"], "cache": cache}


WORKERS["engine_start"] = w_engine_start


def _rbo_agreement(ours: dict, theirs: dict) -> dict:
    diffs = [abs(ours[q] - v) for q, v in theirs.items() if q in ours]
    if not diffs:
        return {"n": 0, "max_diff": float("nan"), "mean_diff": float("nan"), "same": 0}
    return {"n": len(diffs), "max_diff": max(diffs), "mean_diff": sum(diffs) / len(diffs),
            "same": sum(d < 1e-9 for d in diffs)}


if __name__ == "__main__":
    sys.exit(main())