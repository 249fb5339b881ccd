#!/usr/bin/env python3
"""Benchmark ir_rbstar's tie-aware measures against its own tie-oblivious path and ir_measures' default.

    python -m benchmarks.bench_ties            # full: 7,000 queries x 1,000 docs with realistic ties
    python -m benchmarks.bench_ties --quick    # smoke run: 700 queries x 1,000 docs

Three contenders, each end to end from the TREC qrels and run files (reading included), each run in a
fresh subprocess (this file with ``--worker``):

1. ir_rbstar, tie-aware: ``P_TA@10 AP_TA RR_TA nDCG_TA@10`` through the ``ir-rbstar`` command's function
   (``ir_rbstar.cli.run_measures``; interpreter start-up and imports excluded);
2. ir_rbstar, tie-oblivious: ``P@10 AP RR nDCG@10`` the same way with ``--provider ir_rbstar``
   (ir_measures' own measures computed by this package in trec_eval order);
3. ir_measures' default pipeline (pytrec_eval): ``ir_measures.calc_aggregate([P@10, AP, RR, nDCG@10],
   ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN))`` without ir_rbstar imported.

The goals (the issue): 1 no slower than 3, and 1 at most 1.25 x 2. A further pair compares tie-aware
nDCG with the other installable implementation, scikit-learn's ``ndcg_score(ignore_ties=False)``:
``nDCG_TA@10`` alone through the CLI function (1n) against pandas reading both files, dense score and
grade matrices, and ``ndcg_score(k=10, ignore_ties=False)`` (4; skipped when scikit-learn is missing,
or with ``--no-sklearn``). Information rows time the Python API
``ir_measures.providers.registry['ir_rbstar'].calc_aggregate(measures, QRELS, RUN)`` (file paths given
to the provider) for 1 and 2. Not timed: the per-query values of 2 and 3 must agree to 1e-9, the mean
absolute per-query difference between 1 and 2 shows the effect of the ties, and the tie statistics of
the run are computed from the file.

The input is ``make_synthetic.py --ties quantised`` (BM25-like scores rounded to 2 decimals, files
``tied.run`` / ``tied.qrels``), generated into a temporary directory or reused from ``--data DIR``.
Helpers (worker protocol, package snapshot, peak memory, table, machine info, the per-phase profile
worker) come from _harness.py, which bench_rankbiased.py uses too; see benchmarks/README.md for the
method. Unlike bench_rankbiased.py, contenders take turns (round-robin) and CPU time is reported next
to wall time (another process's load inflates wall time much more).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Dict

if __package__:      # python -m benchmarks.bench_ties (from the repository root)
    from . import _harness as h
else:                # python benchmarks/bench_ties.py, as the workers run: its folder is first on the path
    import _harness as h  # (stdlib-only at import: worker protocol, snapshot, tables, shared workers)

SCRIPT = os.path.abspath(__file__)      # the workers below run as this script with --worker

MEASURES_TA = ["P_TA@10", "AP_TA", "RR_TA", "nDCG_TA@10"]
MEASURES = ["P@10", "AP", "RR", "nDCG@10"]
#: the bounds over the orders of the ties: stat='min' and stat='max' of each tie-aware measure
MEASURES_BOUNDS = [f"{m.split('@')[0]}(stat='{stat}')" + (f"@{m.split('@')[1]}" if "@" in m else "")
                   for m in MEASURES_TA for stat in ("min", "max")]
#: run-vs-reference measures (the reference: tied_ref.run, with ties too), in trec_eval's order of the run
#: (ties='docid'), as the mean over both rankings' tie orders (the default), with its bounds, and in
#: Corsi & Urbano's three variants
def ref_measures(ref: str) -> Dict[str, list]:
    base = [f"RBR(p=0.9,ref='{ref}'{{x}})@100", f"RBA(p=0.9,ref='{ref}'{{x}})", f"RBO(p=0.9,ref='{ref}'{{x}})",
            f"RBO_ext(p=0.9,ref='{ref}'{{x}})"]
    return {
        "docid": [m.format(x=",ties='docid'") for m in base],
        "expected": [m.format(x="") for m in base],
        "bounds": [m.format(x=x) for m in base for x in ("", ",stat='min'", ",stat='max'")],
        "variants": [f"{n}(p=0.9,ref='{ref}',ties='{t}')" for t in ("a", "b", "w")
                     for n in ("RBO", "RBO_res", "RBO_ext")],
    }


SKLEARN_K = 10
SKLEARN_OURS = f"nDCG_TA@{SKLEARN_K}"
AGREE_TOL = 1e-9


# =============================================================================================
# Workers (each in its own subprocess, one JSON result line)
# =============================================================================================

def _tie_stats(run_path: str) -> dict:
    """Tie statistics of a run file, computed with pandas (independently of ir_rbstar's tie groups)."""
    import numpy as np
    import pandas as pd
    df = pd.read_csv(run_path, sep=r"\s+", header=None, usecols=[0, 4], names=["q", "s"],
                     dtype={"q": object, "s": np.float64}, engine="c", na_filter=False)
    df = df.sort_values(["q", "s"], ascending=[True, False], kind="stable")
    q = df["q"].to_numpy()
    s = df["s"].to_numpy()
    n = len(q)
    new_q = np.r_[True, q[1:] != q[:-1]]
    qidx = np.cumsum(new_q) - 1
    pos = np.arange(n) - np.flatnonzero(new_q)[qidx]
    new_g = new_q | np.r_[True, s[1:] != s[:-1]]
    start = pos[new_g]
    size = np.diff(np.append(np.flatnonzero(new_g), n))
    gq = qidx[new_g]
    tied = size >= 2
    n_q = int(qidx[-1]) + 1 if n else 0
    top = np.zeros(n_q, dtype=bool)
    top[gq[tied & (start < 10)]] = True
    across = np.zeros(n_q, dtype=bool)
    across[gq[tied & (start < 10) & (start + size > 10)]] = True
    return {"queries": n_q, "rows": n, "frac_queries_tie_top10": float(top.mean()) if n_q else 0.0,
            "frac_queries_tie_across10": float(across.mean()) if n_q else 0.0,
            "mean_tie_group_size": float(size[tied].mean()) if tied.any() else 0.0,
            "frac_rows_in_tie_groups": float(size[tied].sum() / n) if n else 0.0,
            "tie_groups": int(tied.sum()), "largest_group": int(size.max(initial=0))}


def w_check(args: dict) -> None:
    """Not timed: per-query values of the three contenders compared, and the run's tie statistics.

    ir_rbstar through its provider (``iter_calc`` with the file paths), ir_measures through its default
    pipeline with its own readers. 2 vs 3 must agree per query (same trec_eval order); 1 vs 2 differ by
    the effect of the ties."""
    import numpy as np
    import ir_measures
    import ir_rbstar
    q, r = args["qrels"], args["run"]
    provider = ir_measures.providers.registry["ir_rbstar"]

    def per_query(metrics) -> Dict[str, Dict[str, float]]:
        out: Dict[str, Dict[str, float]] = {}
        for m in metrics:
            out.setdefault(str(m.measure), {})[m.query_id] = float(m.value)
        return out
    aware = per_query(provider.iter_calc(ir_rbstar.parse(" ".join(MEASURES_TA)), q, r))
    ordered = per_query(provider.iter_calc(ir_rbstar.parse(" ".join(MEASURES)), q, r))
    irm_measures = [ir_measures.parse_measure(m) for m in MEASURES]
    irm = per_query(ir_measures.iter_calc(irm_measures, ir_measures.read_trec_qrels(q), ir_measures.read_trec_run(r)))
    served = h.served_by(irm_measures)
    agree, effect = {}, {}
    for m_ta, m in zip(MEASURES_TA, MEASURES):
        a, o, i = aware[m_ta], ordered[m], irm[m]
        qids = sorted(set(o) | set(i))
        missing = len(set(o) ^ set(i))
        d = np.array([abs(o.get(x, np.nan) - i.get(x, np.nan)) for x in qids])
        agree[m] = {"queries": len(qids), "only_one_side": missing,
                    "max_abs_diff": float(np.nanmax(d)) if len(d) else 0.0,
                    "ok": bool(missing == 0 and len(d) and np.nanmax(d) <= AGREE_TOL)}
        qids = sorted(set(a) & set(o))
        e = np.array([a[x] - o[x] for x in qids])
        effect[m_ta] = {"vs": m, "queries": len(qids), "mean_abs_diff": float(np.abs(e).mean()),
                        "max_abs_diff": float(np.abs(e).max()), "mean_diff": float(e.mean()),
                        "frac_queries_changed": float((np.abs(e) > 1e-12).mean()),
                        "mean_ta": float(np.mean([a[x] for x in qids])), "mean_ordered": float(np.mean([o[x] for x in qids]))}
    h.emit({"agree": agree, "effect": effect, "served_by": served, "ties": _tie_stats(r)})


def w_sklearn_ndcg(args: dict) -> None:
    """scikit-learn's tie-averaged nDCG@k from the files: pandas reads the run and the qrels, the grades are
    joined to the run's rows, both go into dense (queries x longest list) matrices (padding: grade 0 and a
    score below every real one), then ``ndcg_score(Y, S, k=k, ignore_ties=False)``. All of it is timed.

    sklearn's ideal ranking comes from the scored (retrieved) documents only, not from the qrels, so its
    value differs from nDCG_TA's wherever a judged relevant document was not retrieved (both are printed)."""
    import numpy as np
    import pandas as pd
    from sklearn.metrics import ndcg_score
    t = h.clock()
    run = pd.read_csv(args["run"], sep=r"\s+", header=None, usecols=[0, 2, 4], names=["q", "d", "s"],
                      dtype={"q": str, "d": str, "s": np.float64}, engine="c", na_filter=False)
    qrels = pd.read_csv(args["qrels"], sep=r"\s+", header=None, usecols=[0, 2, 3], names=["q", "d", "g"],
                        dtype={"q": str, "d": str, "g": np.int64}, engine="c", na_filter=False)
    df = run.merge(qrels, on=["q", "d"], how="left")
    codes, uniq = pd.factorize(df["q"], sort=True)
    order = np.argsort(codes, kind="stable")
    codes = codes[order]
    grades = df["g"].fillna(0).clip(lower=0).to_numpy(np.float64)[order]
    scores = df["s"].to_numpy(np.float64)[order]
    counts = np.bincount(codes, minlength=len(uniq))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    col = np.arange(len(codes)) - starts[codes]
    y_true = np.zeros((len(uniq), int(counts.max(initial=1))))
    y_score = np.full(y_true.shape, (scores.min() if len(scores) else 0.0) - 1.0)
    y_true[codes, col] = grades
    y_score[codes, col] = scores
    value = ndcg_score(y_true, y_score, k=args["k"], ignore_ties=False)
    h.emit({**h.since(t), "values": {f"sklearn ndcg_score@{args['k']}": float(value)}, "queries": len(uniq)})


WORKERS = {"rbstar_cli": h.w_rbstar_cli, "irm_default": h.w_irm_default, "rbstar_api": h.w_rbstar_api,
           "check": w_check, "phases": h.w_phases, "sklearn_ndcg": w_sklearn_ndcg}

FAMILY = "tie-aware (bench_ties.py)"


# =============================================================================================
# Driver
# =============================================================================================

def run_worker(name: str, args: dict) -> dict:
    return h.run_worker(SCRIPT, name, args)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark ir_rbstar's tie-aware measures (see benchmarks/README.md)")
    h.add_size_options(ap, "700 queries instead of 7,000 (smoke run)")
    ap.add_argument("--decimals", type=int, default=2, help="decimals of the generated scores (default 2)")
    h.add_data_option(ap, "tied.run and tied.qrels", how="with make_synthetic.py --ties quantised")
    h.add_repeat_options(ap, 60.0)
    ap.add_argument("--no-api", action="store_true", help="skip the information rows (Python API path)")
    ap.add_argument("--no-sklearn", action="store_true", help="skip 1n and 4 (nDCG_TA@10 vs scikit-learn's "
                                                              "ndcg_score(ignore_ties=False))")
    ap.add_argument("--no-phases", action="store_true", help="skip the per-phase profiles")
    args = h.parse_args(ap, argv, WORKERS)

    log = h.log
    n_queries = h.n_queries(args)
    with h.session("rbstar-bench-ties-", args) as bench:
        (qrels, run, ref), gen_msg = h.synthetic(
            args.data or os.path.join(bench.tmp, "synthetic"), ["tied.qrels", "tied.run", "tied_ref.run"], n_queries,
            args.depth,
            ["--ties", "quantised", "--decimals", str(args.decimals)], what="tied synthetic data",
            detail=f", {args.decimals} decimals")

        # not timed: values, agreement, tie statistics (also brings both files into the page cache)
        log("checking values (not timed) and tie statistics ...")
        check = run_worker("check", {"qrels": qrels, "run": run})
        bench.raw["check"] = check
        ties = check["ties"]

        files = {"qrels": qrels, "run": run}
        specs = {
            "1": ("rbstar_cli", {"argv": [qrels, run, *MEASURES_TA]}),
            "2": ("rbstar_cli", {"argv": [qrels, run, *MEASURES, "--provider", "ir_rbstar"]}),
            "3": ("irm_default", {**files, "measures": MEASURES}),
            "1m": ("rbstar_cli", {"argv": [qrels, run, *MEASURES_TA, *MEASURES_BOUNDS]}),
        }
        refm = ref_measures(ref)
        specs.update({"5": ("rbstar_cli", {"argv": [qrels, run, *refm["docid"]]}),
                      "5e": ("rbstar_cli", {"argv": [qrels, run, *refm["expected"]]}),
                      "5m": ("rbstar_cli", {"argv": [qrels, run, *refm["bounds"]]}),
                      "5v": ("rbstar_cli", {"argv": [qrels, run, *refm["variants"]]})})
        if not args.no_api:
            specs["1b"] = ("rbstar_api", {**files, "measures": MEASURES_TA})
            specs["2b"] = ("rbstar_api", {**files, "measures": MEASURES})
        have_sklearn = h.have_module("sklearn")
        if have_sklearn and not args.no_sklearn:
            specs["1n"] = ("rbstar_cli", {"argv": [qrels, run, SKLEARN_OURS]})
            specs["4"] = ("sklearn_ndcg", {**files, "k": SKLEARN_K})
        log("timing (contenders take turns, fresh subprocess each) ...")
        res = h.measure_interleaved(SCRIPT, specs, args.repeat, args.slow)
        bench.raw["timings"] = res
        phases = {}
        if not args.no_phases:
            log("per-phase profiles (cProfile, separate subprocesses) ...")
            phases["1"] = run_worker("phases", {**files, "measures": MEASURES_TA})
            phases["2"] = run_worker("phases", {**files, "measures": MEASURES})
            bench.raw["phases"] = phases
        load_end = h.load_average()

        # ------------------------------------------------------------------------------- report
        t1, t2, t3 = (res[k]["wall"] for k in ("1", "2", "3"))
        c1, c2, c3 = (res[k]["best_cpu"] for k in ("1", "2", "3"))
        m3 = res["3"]["maxrss_mb"]
        labels = {
            "1": "1. ir_rbstar tie-aware: " + " ".join(MEASURES_TA) + " (ir-rbstar CLI function)",
            "2": "2. ir_rbstar tie-oblivious: " + " ".join(MEASURES) + " (same, --provider ir_rbstar)",
            "3": "3. ir_measures default pipeline (pytrec_eval): " + " ".join(MEASURES),
            "1b": "1b. as 1, Python API: registry['ir_rbstar'].calc_aggregate(ms, QRELS, RUN)",
            "2b": "2b. as 2, Python API: registry['ir_rbstar'].calc_aggregate(ms, QRELS, RUN)",
            "1n": f"1n. ir_rbstar {SKLEARN_OURS} alone (ir-rbstar CLI function)",
            "1m": "1m. as 1, with the bounds: also stat='min' and stat='max' of each (ir-rbstar CLI function)",
            "4": f"4. scikit-learn ndcg_score(k={SKLEARN_K}, ignore_ties=False), pandas reading + dense matrices",
            "5": "5. ir_rbstar RBR@100 RBA RBO RBO_ext against tied_ref.run, ties='docid' (trec_eval's order)",
            "5e": "5e. as 5, ties='expected' (default): the mean over both rankings' tie orders",
            "5m": "5m. as 5e, with stat='min' and stat='max' of each",
            "5v": "5v. RBO, RBO_res, RBO_ext in Corsi & Urbano's variants a, b, w (9 measures)",
        }
        grid = h.Grid(("contender (end to end from the TREC files)", "seconds", "CPU s", "peak RSS", "runs",
                       "time / 3", "time / 2 (1n: / 4)", "peak RSS / 3"))
        for key in specs:
            r = res[key]
            same_path_base = {"1": t2, "1b": res.get("2b", {}).get("wall"), "1n": res.get("4", {}).get("wall"),
                              "1m": t1, "5e": res["5"]["wall"], "5m": res["5e"]["wall"],
                              "5v": res["5e"]["wall"]}.get(key)
            grid.add(labels[key], h.fmt_s(r["wall"]), h.fmt_s(r["best_cpu"]), h.fmt_mb(r["maxrss_mb"]),
                     f"best of {r['n']}", h.fmt_ratio(r["wall"], t3),
                     h.fmt_ratio(r["wall"], same_path_base) if same_path_base else "", h.fmt_ratio(r["maxrss_mb"], m3))
        goals = h.Grid(("goal", "ratio (wall)", "ratio (CPU)", "target", "met?"))
        goals.add("tie-aware (1) no slower than ir_measures (3): 1 / 3", f"{t1 / t3:.2f}", f"{c1 / c3:.2f}",
                  "<= 1.00", h.yes(t1 <= t3))
        goals.add("tie-aware (1) vs this package's tie-oblivious path (2): 1 / 2", f"{t1 / t2:.2f}",
                  f"{c1 / c2:.2f}", "<= 1.25", h.yes(t1 <= 1.25 * t2))
        t1m = res["1m"]["wall"]
        goals.add("tie-aware with min and max (1m) vs the mean alone (1): 1m / 1", f"{t1m / t1:.2f}",
                  f"{res['1m']['best_cpu'] / c1:.2f}", "<= 1.50", h.yes(t1m <= 1.5 * t1))
        t5, t5e, t5m = (res[k]["wall"] for k in ("5", "5e", "5m"))
        goals.add("run-vs-reference, both rankings' ties averaged (5e) vs trec_eval's order (5): 5e / 5",
                  f"{t5e / t5:.2f}", f"{res['5e']['best_cpu'] / res['5']['best_cpu']:.2f}", "info", "")
        goals.add("run-vs-reference with min and max (5m) vs the means alone (5e): 5m / 5e", f"{t5m / t5e:.2f}",
                  f"{res['5m']['best_cpu'] / res['5e']['best_cpu']:.2f}", "<= 1.50", h.yes(t5m <= 1.5 * t5e))
        if "4" in res:
            t1n, t4 = res["1n"]["wall"], res["4"]["wall"]
            goals.add(f"{SKLEARN_OURS} (1n) vs scikit-learn's ndcg_score (4): 1n / 4", f"{t1n / t4:.2f}",
                      f"{res['1n']['best_cpu'] / res['4']['best_cpu']:.2f}", "info", "")
        shape = f"synthetic, {ties['queries']:,} queries, scores with {args.decimals} decimals"
        bench.add_summary(FAMILY, "P_TA@10 AP_TA RR_TA nDCG_TA@10 from the TREC files (1)", shape, h.fmt_s(t1),
                          "ir_measures default pipeline (pytrec_eval): P@10 AP RR nDCG@10 from the same files (3)",
                          h.fmt_s(t3), t1 / t3, "<= 1.00", t1 <= t3, peer_dists=["ir_measures", "pytrec_eval-terrier"])
        bench.add_summary(FAMILY, "the same (1), against the tie-oblivious path", shape, h.fmt_s(t1),
                          "this package's own tie-oblivious P@10 AP RR nDCG@10 (--provider ir_rbstar) (2)",
                          h.fmt_s(t2), t1 / t2, "<= 1.25", t1 <= 1.25 * t2, peer_dists=["ir_rbstar"])
        bench.add_summary(FAMILY, "the same (1) with stat='min' and stat='max' of each measure too (1m)", shape,
                          h.fmt_s(t1m), "the same measures without the bounds (1)", h.fmt_s(t1), t1m / t1, "<= 1.50",
                          t1m <= 1.5 * t1, peer_dists=["ir_rbstar"])
        bench.add_summary(FAMILY, "RBR@100 RBA RBO RBO_ext of a tied run against a tied reference, both rankings' "
                          "ties averaged (5e)", shape, h.fmt_s(t5e), "the same in trec_eval's order (ties='docid') (5)",
                          h.fmt_s(t5), t5e / t5, "info", peer_dists=["ir_rbstar"])
        bench.add_summary(FAMILY, "the same (5e) with stat='min' and stat='max' of each measure too (5m)", shape,
                          h.fmt_s(t5m), "the same measures without the bounds (5e)", h.fmt_s(t5e), t5m / t5e, "<= 1.50",
                          t5m <= 1.5 * t5e, peer_dists=["ir_rbstar"])
        sk_peer = (f"scikit-learn ndcg_score(k={SKLEARN_K}, ignore_ties=False): pandas reading, dense matrices (4)")
        if "4" in res:
            bench.add_summary(FAMILY, f"{SKLEARN_OURS} alone from the TREC files (1n)", shape, h.fmt_s(t1n), sk_peer,
                              h.fmt_s(t4), t1n / t4, "info", peer_dists=["scikit-learn", "pandas"],
                              note="sklearn's ideal comes from the retrieved documents only, so its mean differs")
        elif not have_sklearn:
            bench.add_summary(FAMILY, f"{SKLEARN_OURS} alone from the TREC files (1n)", shape, "-", sk_peer,
                              peer_dists=["scikit-learn", "pandas"],
                              peer_absent="scikit-learn not installed (pip install scikit-learn)")

        print()
        print(h.machine_info())
        print(h.interleaved_method(args.quick, args.repeat, bench.load_start, load_end))
        print(f"ir_rbstar measured: {bench.package}")
        print(f"data: {ties['queries']:,} queries, {ties['rows']:,} rows ({os.path.getsize(run) / 1e6:,.0f} MB run, "
              f"{os.path.getsize(qrels) / 1e6:,.1f} MB qrels), {gen_msg}")
        print(f"ties in the run: {ties['frac_queries_tie_top10']:.1%} of queries have a tie group touching the top 10 "
              f"({ties['frac_queries_tie_across10']:.1%} one that spans ranks 10 and 11); mean tie-group size "
              f"{ties['mean_tie_group_size']:.2f} (largest {ties['largest_group']}); "
              f"{ties['frac_rows_in_tie_groups']:.1%} of rows in tie groups ({ties['tie_groups']:,} groups of >= 2 "
              f"equal scores)")
        print()
        print(grid.render())
        print()
        print(goals.render())
        print()
        print(h.all_runs_line(res, specs))
        print(h.served_line("contender 3", res["3"]))
        print(f"means: 1 {h.fmt_values(res['1']['values'])}")
        if "4" in res:
            print(f"       1n {h.fmt_values(res['1n']['values'])}; 4 {h.fmt_values(res['4']['values'])} (sklearn's "
                  f"ideal ranking is built from the retrieved documents only, nDCG_TA's from the qrels)")
        print(f"       2 {h.fmt_values(res['2']['values'])}")
        print(f"       3 {h.fmt_values({m: res['3']['values'][m] for m in MEASURES})}")
        timed_agree = max(abs(res["2"]["values"][m] - res["3"]["values"][m]) for m in MEASURES)
        print(f"means of the timed runs 2 vs 3: max |diff| {timed_agree:.1e}")
        ok = all(a["ok"] for a in check["agree"].values())
        print(f"per-query agreement 2 vs 3 (tolerance {AGREE_TOL:g}): " + ("OK" if ok else "FAILED") + "; " +
              ", ".join(f"{m}: max |diff| {a['max_abs_diff']:.1e} over {a['queries']:,} queries"
                        + (f", {a['only_one_side']} only on one side" if a["only_one_side"] else "")
                        for m, a in check["agree"].items()))
        print("effect of the ties, per query, 1 vs 2: " + "; ".join(
            f"{m} - {e['vs']}: mean |diff| {e['mean_abs_diff']:.4f} (max {e['max_abs_diff']:.4f}, "
            f"{e['frac_queries_changed']:.1%} of queries changed, means {e['mean_ta']:.4f} vs {e['mean_ordered']:.4f})"
            for m, e in check["effect"].items()))
        print()
        for key, title in (("1", "tie-aware " + " ".join(MEASURES_TA)),
                           ("2", "tie-oblivious " + " ".join(MEASURES) + " (provider ir_rbstar)")):
            if key in phases:
                print(h.phase_report(title, phases[key], res[key]))
                print()
        bench.write_json(args.json, mode=h.mode_of(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
