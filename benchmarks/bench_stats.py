#!/usr/bin/env python3
"""Benchmark the all-pairs inference of ir_rbstar.stats against the same analysis written as a user would.

    python -m benchmarks.bench_stats            # full: the 37 TREC DL 2019 passage runs when ../shared/data has them
    python -m benchmarks.bench_stats --quick    # smoke run: synthetic values, the same shape

The analysis: every pair of 37 runs (666 pairs) on 43 queries under 10 measures (6,660 comparisons). The
per-query values are computed once before any timing (reading and evaluating the runs is not timed): on the
TREC DL 2019 passage runs of ``../shared/data/dl19-passage`` (its 43 judged queries; a query a run does not
answer counts 0) with ``nDCG@10 nDCG_TA@10 AP(rel=2) RR(rel=2) P(rel=2)@10 R(rel=2)@1000 RBP(p=0.8,rel=2)
RBP_res(p=0.8,rel=2) RBP(p=0.8,max_rel=3) Twist`` (ir_measures with ir_rbstar's provider), or synthetic
values of the same shape (run effect + query effect + noise, clipped to [0, 1]; numpy seed 0).

Contenders, each in a fresh subprocess (this file with ``--worker``), taking turns; each loads the values
(not timed) and times the analysis of all 10 measures:

1. ir_rbstar: ``ir_rbstar.stats.all_pairs(frame, test='t', correction='holm')`` per measure: paired t,
   Holm over the 666 pairs, d_z and its 95% noncentral-t interval (the default ``effect_ci='t'``);
   1b. the same without the interval (``effect_ci=None``);
2. the same analysis as a user would write it: a loop over the pairs calling ``scipy.stats.ttest_rel`` and
   computing d_z, then ``statsmodels.stats.multitest.multipletests(p, method='holm')`` per measure over
   the finite p-values (NaN where two runs' differences are all equal; no interval: no library call gives
   one); the Holm-adjusted p-values must equal 1's;
3. ir_rbstar: ``tukey_hsd_randomized(frame, n_resamples=10000)`` per measure (Carterette 2012);
4. the same test as a user would write it: 10,000 times ``Generator.permuted`` of the runs' values within
   every query, the range of the runs' means recorded; p = (b + 1) / (R + 1);
5. (one measure, nDCG@10) 1 with the d_z interval by ``scipy.stats.bootstrap`` instead (10,000 percentile
   resamples per pair, a loop over the pairs, as paired_test's ``effect_ci='bootstrap'`` does), against 1 on
   that measure: what the noncentral-t default saves.

6. ir_rbstar: ``tukey_hsd_randomized({measure: frame, ...})``: the 10 measures in one call, the permutations
   drawn once (the same p-values as 3, checked);
7. the report's significance tests: every run against the first (the baseline) under every measure
   (36 x 10 comparisons on DL19) by ``ir_rbstar.report.randomization_pvalues`` -- 7a adaptive
   (``permutations=None``: as many flips as Holm over the family needs), 7b the fixed 10,000 flips; the
   Holm verdicts of both, and the smallest p each can give, are printed;
8. ``ir_rbstar.stats.mean_intervals(values, (0, 1))``: the BCa interval (9,999 resamples) of every run's mean
   under every measure (370 columns), against 8b ``scipy.stats.bootstrap(..., method='BCa')`` in one batched
   call on the same columns (the bounds must agree to 1e-9: the same resample indices).

Goals: 1 and 3 each under 3 s ("a few seconds"). ranx's ``compare`` is timed too when ranx is installed
(it evaluates the runs itself, so its time includes evaluation: printed, not in the summary). The helpers (worker
protocol, package snapshot, machine, tables, summary rows) come from _harness.py; see benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys

if __package__:      # python -m benchmarks.bench_stats (from the repository root)
    from . import _harness as h
else:                # python benchmarks/bench_stats.py, as the workers run: its folder is first on the path
    import _harness as h  # (stdlib-only at import)

SCRIPT = os.path.abspath(__file__)
FAMILY = "all-pairs inference (bench_stats.py)"
DL19 = os.path.join(h.SHARED_DATA, "dl19-passage")
MEASURES = ["nDCG@10", "nDCG_TA@10", "AP(rel=2)", "RR(rel=2)", "P(rel=2)@10", "R(rel=2)@1000", "RBP(p=0.8,rel=2)",
            "RBP_res(p=0.8,rel=2)", "RBP(p=0.8,max_rel=3)", "Twist"]
RUNS, QUERIES = 37, 43              # the synthetic shape (DL19's)
RESAMPLES = 10_000
TARGET = 3.0                        # seconds, goals 1 and 3


# =============================================================================================
# Workers (each in its own subprocess)
# =============================================================================================

def w_prepare(args: dict) -> None:
    """The per-query values, measures x runs x queries, into ``args['out']`` (.npz); not timed."""
    import numpy as np
    if args["source"] == "synthetic":
        g = np.random.default_rng(0)
        run = g.normal(0.0, 0.08, size=(1, RUNS, 1))
        query = g.normal(0.0, 0.2, size=(len(MEASURES), 1, QUERIES))
        values = np.clip(0.45 + run + query + g.normal(0.0, 0.15, size=(len(MEASURES), RUNS, QUERIES)), 0.0, 1.0)
        names = [f"run{i:02d}" for i in range(RUNS)]
        np.savez(args["out"], values=values, runs=np.array(names), measures=np.array(MEASURES))
        h.emit({"shape": list(values.shape), "dropped": []})
        return
    import ir_measures
    import ir_rbstar
    measures = ir_rbstar.parse(" ".join(MEASURES))
    qrels = list(ir_measures.read_trec_qrels(args["qrels"]))
    queries = sorted({q.query_id for q in qrels})
    where = {q: k for k, q in enumerate(queries)}
    label = {str(m): k for k, m in enumerate(measures)}
    names = [os.path.basename(p).split(".")[0] for p in args["runs"]]
    values = np.zeros((len(measures), len(names), len(queries)))      # a query not answered counts 0
    for r, path in enumerate(args["runs"]):
        for m in ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(path)):
            if m.query_id in where:
                values[label[str(m.measure)], r, where[m.query_id]] = m.value
    keep = np.isfinite(values).all(axis=(0, 1))                        # Twist: NaN without a relevant document
    np.savez(args["out"], values=values[:, :, keep], runs=np.array(names),
             measures=np.array([str(m) for m in measures]))
    h.emit({"shape": list(values[:, :, keep].shape),
            "dropped": [q for q, k in zip(queries, keep, strict=True) if not k]})


def _frames(path: str, first: int = 0):
    import numpy as np
    import pandas as pd
    data = np.load(path)
    runs = data["runs"].tolist()
    measures = data["measures"].tolist()[:first or None]
    return [(m, pd.DataFrame(data["values"][k], index=runs)) for k, m in enumerate(measures)]


def w_ours_pairs(args: dict) -> None:
    """ir_rbstar.stats.all_pairs (t, Holm) per measure, the d_z interval by ``args['effect_ci']``."""
    from ir_rbstar.stats import all_pairs
    frames = _frames(args["values"], args.get("first", 0))
    t = h.clock()
    tables = [all_pairs(frame, test="t", correction="holm", effect_ci=args["effect_ci"]) for _, frame in frames]
    timing = h.since(t)
    h.emit({**timing, "p_holm": [float(p) for tab in tables for p in tab["pvalue_adjusted"]],
            "rejected": int(sum(int(tab["reject"].sum()) for tab in tables)),
            "intervals": int(sum(int(tab["low"].notna().sum()) for tab in tables))})


def w_user_pairs(args: dict) -> None:
    """A loop over the pairs: scipy.stats.ttest_rel and d_z (with ``args['bootstrap']`` resamples: the d_z
    interval by scipy.stats.bootstrap), then multipletests(method='holm') per measure."""
    from itertools import combinations

    import numpy as np
    import scipy.stats
    from statsmodels.stats.multitest import multipletests
    frames = _frames(args["values"], args.get("first", 0))
    resamples = args.get("bootstrap", 0)

    def dz(d, axis=-1):
        return np.mean(d, axis=axis) / np.std(d, axis=axis, ddof=1)

    t = h.clock()
    adjusted, rejected, intervals = [], 0, 0
    for _, frame in frames:
        x = frame.to_numpy()
        pvalues = []
        for i, j in combinations(range(len(x)), 2):
            pvalues.append(scipy.stats.ttest_rel(x[i], x[j]).pvalue)
            d = x[i] - x[j]
            dz(d)
            if resamples:
                scipy.stats.bootstrap((d,), dz, n_resamples=resamples, method="percentile",
                                      rng=np.random.default_rng(0))
                intervals += 1
        pvalues = np.array(pvalues)
        ok = np.isfinite(pvalues)            # NaN: every difference equal (e.g. two runs with the same values)
        p_holm = np.full(pvalues.shape, np.nan)
        reject, p_holm[ok], _, _ = multipletests(pvalues[ok], alpha=0.05, method="holm")
        adjusted.extend(float(p) for p in p_holm)
        rejected += int(reject.sum())
    timing = h.since(t)
    h.emit({**timing, "p_holm": adjusted, "rejected": rejected, "intervals": intervals})


def w_ours_tukey(args: dict) -> None:
    from ir_rbstar.stats import tukey_hsd_randomized
    frames = _frames(args["values"])
    t = h.clock()
    tables = [tukey_hsd_randomized(frame, n_resamples=RESAMPLES, seed=0) for _, frame in frames]
    timing = h.since(t)
    h.emit({**timing, "rejected": int(sum(int(tab["reject"].sum()) for tab in tables)),
            "p": [float(p) for tab in tables for p in tab["pvalue"]]})


def w_user_tukey(args: dict) -> None:
    """Carterette's randomised Tukey HSD as a loop over the resamples."""
    from itertools import combinations

    import numpy as np
    frames = _frames(args["values"])
    t = h.clock()
    rejected, pvalues = 0, []
    for _, frame in frames:
        x = frame.to_numpy()                                 # runs x queries
        g = np.random.default_rng(0)
        ranges = np.empty(RESAMPLES)
        for r in range(RESAMPLES):
            means = g.permuted(x, axis=0).mean(axis=1)       # each query's values shuffled over the runs
            ranges[r] = means.max() - means.min()
        means = x.mean(axis=1)
        for i, j in combinations(range(len(x)), 2):
            p = (np.sum(ranges >= abs(means[i] - means[j])) + 1) / (RESAMPLES + 1)
            pvalues.append(float(p))
            rejected += p <= 0.05
    timing = h.since(t)
    h.emit({**timing, "rejected": int(rejected), "p": pvalues})


def w_ours_tukey_all(args: dict) -> None:
    from ir_rbstar.stats import tukey_hsd_randomized
    frames = dict(_frames(args["values"]))
    t = h.clock()
    table = tukey_hsd_randomized(frames, n_resamples=RESAMPLES, seed=0)
    timing = h.since(t)
    h.emit({**timing, "rejected": int(table["reject"].sum()), "p": [float(p) for p in table["pvalue"]]})


def w_signflip(args: dict) -> None:
    """Every run against the first under every measure: randomization_details (adaptive or fixed) + Holm."""
    import numpy as np
    import scipy.special  # noqa: F401  (imported by the report before its tests; imports are not timed)

    from ir_rbstar.report import stats as rs
    data = np.load(args["values"])["values"]                          # measures x runs x queries
    diffs = [data[m, r] - data[m, 0] for m in range(data.shape[0]) for r in range(1, data.shape[1])]
    t = h.clock()
    p, flips, _ = rs.randomization_details(diffs, args["permutations"])
    rejected = int((rs.holm(p) <= 0.05).sum())
    timing = h.since(t)
    h.emit({**timing, "rejected": rejected, "intervals": "", "min_p": float(p.min()), "flips": int(flips.sum()),
            "floor": float(rs.pvalue_floor(data.shape[2], args["permutations"], family=len(diffs))),
            "family": len(diffs)})


def w_intervals(args: dict) -> None:
    """BCa intervals of every run's mean under every measure: ours or scipy's batched bootstrap."""
    import numpy as np
    import scipy.stats

    from ir_rbstar.stats import mean_intervals
    data = np.load(args["values"])["values"]                          # measures x runs x queries
    x = data.reshape(-1, data.shape[2]).T                              # queries x (measures x runs)
    t = h.clock()
    if args["who"] == "ours":
        out = mean_intervals(x, (0.0, 1.0), n_resamples=9999, seed=0)
        low, high = out["low"].to_numpy(), out["high"].to_numpy()
    else:
        ci = scipy.stats.bootstrap((x,), np.mean, axis=0, method="BCa", n_resamples=9999,
                                   rng=np.random.default_rng(0)).confidence_interval
        low, high = np.asarray(ci.low), np.asarray(ci.high)
    timing = h.since(t)
    h.emit({**timing, "intervals": int(np.isfinite(low).sum()), "low": low.tolist(), "high": high.tolist()})


def w_ranx(args: dict) -> None:
    """ranx.compare on the same runs and measures it knows (evaluation included), Tukey's HSD."""
    from ranx import Qrels, Run, compare
    qrels = Qrels.from_file(args["qrels"], kind="trec")
    runs = [Run.from_file(p, kind="trec") for p in args["runs"]]
    t = h.clock()
    compare(qrels, runs, metrics=["ndcg@10", "map", "mrr", "precision@10", "recall@1000"], stat_test="tukey",
            max_p=0.05)
    h.emit(h.since(t))


WORKERS = {"prepare": w_prepare, "ours_pairs": w_ours_pairs, "user_pairs": w_user_pairs, "ours_tukey": w_ours_tukey,
           "user_tukey": w_user_tukey, "ranx": w_ranx, "ours_tukey_all": w_ours_tukey_all, "signflip": w_signflip,
           "intervals": w_intervals}


# =============================================================================================
# Driver
# =============================================================================================

def _dl19() -> "dict | None":
    qrels = os.path.join(DL19, "qrels.dl19-passage.txt")
    runs = sorted(glob.glob(os.path.join(DL19, "runs", "*.gz")))
    if not (os.path.exists(qrels) and runs):
        return None
    return {"source": "dl19", "qrels": qrels, "runs": runs, "short": "DL19",
            "name": f"TREC DL 2019 passage: {len(runs)} runs, the judged queries (../shared/data/dl19-passage)"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark ir_rbstar.stats' all-pairs analysis (t + Holm with d_z "
                                             "intervals; randomised Tukey HSD) against the same analysis as a "
                                             "per-pair loop (see benchmarks/README.md)")
    h.add_size_options(ap, "synthetic values only (37 runs x 43 queries x 10 measures)",
                       "accepted for run_all.py; unused (the analysis has a fixed shape)")
    ap.add_argument("--data", help="unused, accepted for run_all.py (the synthetic values are drawn in memory)")
    h.add_repeat_options(ap, 20.0)
    h.add_real_options(ap, "the 37 TREC DL 2019 passage runs")
    ap.add_argument("--no-bootstrap", action="store_true", help="skip contender 5 (d_z intervals by the bootstrap, "
                                                                "about 6 s per run)")
    args = h.parse_args(ap, argv, WORKERS)
    real = (not args.quick) if args.real is None else args.real
    log = h.log
    with h.session("rbstar-bench-stats-", args) as bench:
        data = _dl19() if real else None
        if real and data is None:
            log(f"{DL19} not found: synthetic values")
        if data is None:
            data = {"source": "synthetic", "short": "synthetic",
                    "name": "synthetic values (run effect + query effect + noise, numpy seed 0)"}
        values = os.path.join(bench.tmp, "values.npz")
        log(f"{data['short']}: computing the per-query values (not timed) ...")
        prepared = h.run_worker(SCRIPT, "prepare", {**data, "out": values})
        m, s, q = prepared["shape"]
        shape = f"{s} runs x {q} queries x {m} measures"
        if prepared["dropped"]:
            shape += f" ({len(prepared['dropped'])} queries without a value for every measure dropped)"
        log(f"{data['short']}: {shape}; timing (contenders take turns, fresh subprocess each) ...")
        base = {"values": values}
        specs = {
            "1": ("ours_pairs", {**base, "effect_ci": "t"}),
            "1b": ("ours_pairs", {**base, "effect_ci": None}),
            "2": ("user_pairs", base),
            "3": ("ours_tukey", base),
            "4": ("user_tukey", base),
            "6t": ("ours_tukey_all", base),
            "7a": ("signflip", {**base, "permutations": None}),
            "7b": ("signflip", {**base, "permutations": RESAMPLES}),
            "8": ("intervals", {**base, "who": "ours"}),
            "8b": ("intervals", {**base, "who": "scipy"}),
        }
        if not args.no_bootstrap:
            specs["5"] = ("user_pairs", {**base, "first": 1, "bootstrap": RESAMPLES})
            specs["1c"] = ("ours_pairs", {**base, "first": 1, "effect_ci": "t"})
        ranx = data["source"] == "dl19" and h.have_module("ranx")
        if ranx:
            specs["6"] = ("ranx", {"qrels": data["qrels"], "runs": data["runs"]})
        res = h.measure_interleaved(SCRIPT, specs, args.repeat, args.slow)
        load_end = h.load_average()
        bench.raw[data["short"]] = {"timings": {k: {x: v for x, v in r.items()
                                                    if x not in ("p_holm", "p", "low", "high")}
                                                for k, r in res.items()}, "shape": shape, "dataset": data}

        # ------------------------------------------------------------------------------- checks
        import math
        same = max(abs(a - b) for a, b in zip(res["1"]["p_holm"], res["2"]["p_holm"], strict=True)
                   if not (math.isnan(a) and math.isnan(b)))
        tukey_gap = max(abs(a - b) for a, b in zip(res["3"]["p"], res["4"]["p"], strict=True))
        shared_gap = max(abs(a - b) for a, b in zip(res["3"]["p"], res["6t"]["p"], strict=True))
        bca_gap = max(abs(a - b) for k in ("low", "high") for a, b in zip(res["8"][k], res["8b"][k], strict=True))

        # ------------------------------------------------------------------------------- report
        print()
        print(h.machine_info())
        print(f"mode: {'quick' if args.quick else 'full'}; best of up to {args.repeat} fresh subprocesses per "
              "contender, contenders taking turns; wall time excludes interpreter start-up, imports and loading the "
              "per-query values (computed once, before any timing); CPU s = user + system time of that subprocess "
              "over the same span (best run); peak RSS = VmHWM of the measuring subprocess; 'met?' judged on wall "
              f"time; {bench.load_start} at start, {load_end} at end")
        print(f"ir_rbstar measured: {bench.package}")
        print(f"data: {data['name']}; {shape}; {m * s * (s - 1) // 2:,} comparisons")
        labels = {
            "1": "1. ir_rbstar all_pairs: t + Holm + d_z with its noncentral-t 95% interval",
            "1b": "1b. as 1, without the interval (effect_ci=None)",
            "2": "2. loop over the pairs: scipy ttest_rel + d_z; statsmodels multipletests (Holm)",
            "3": f"3. ir_rbstar tukey_hsd_randomized ({RESAMPLES:,} resamples)",
            "4": f"4. loop over {RESAMPLES:,} resamples: Generator.permuted within queries, range of the means",
            "1c": "1c. as 1, nDCG@10 only",
            "5": f"5. as 2, nDCG@10 only, plus the d_z interval by scipy.stats.bootstrap ({RESAMPLES:,})",
            "6": "6. ranx compare (Tukey HSD; evaluation included, 5 measures)",
            "6t": f"6t. as 3, the {m} measures in one call (permutations drawn once)",
            "7a": "7a. report sign-flip tests vs the first run, adaptive (Holm's family)",
            "7b": f"7b. report sign-flip tests vs the first run, fixed {RESAMPLES:,} flips",
            "8": f"8. mean_intervals BCa (9,999 resamples), {m * s} columns",
            "8b": "8b. scipy.stats.bootstrap BCa (9,999), one batched call",
        }
        grid = h.Grid(("contender", "seconds", "CPU s", "peak RSS", "runs", "rejected", "intervals"))
        for key in specs:
            r = res[key]
            grid.add(labels[key], h.fmt_s(r["wall"]), h.fmt_s(r["best_cpu"]), h.fmt_mb(r["maxrss_mb"]),
                     f"best of {r['n']}", str(r.get("rejected", "")), str(r.get("intervals", "")))
        print(grid.render())
        print(f"Holm-adjusted p, 1 against 2: largest difference {same:.1e}; Tukey p, 3 against 4 (other random "
              f"streams): largest difference {tukey_gap:.4f}; 3 against 6t: {shared_gap:.1e}; BCa bounds, 8 "
              f"against 8b: {bca_gap:.1e}")
        for key in ("7a", "7b"):
            r = res[key]
            print(f"{labels[key]}: {r['family']} comparisons, {r['rejected']} significant after Holm, smallest p "
                  f"{r['min_p']:.2e}, smallest attainable {r['floor']:.2e} (x family = "
                  f"{r['floor'] * r['family']:.3f}), {r['flips']:,} flips in all")
        goals = h.Grid(("goal", "ir_rbstar", "other", "ratio", "target", "met?"))
        data_cell = f"{data['short']}, {s} x {q} x {m}"
        rows = [("a. t + Holm + d_z 95% intervals, all pairs", "1", "2", "per-pair loop: scipy.stats.ttest_rel + "
                 "statsmodels multipletests (no intervals)", ["scipy", "statsmodels"]),
                ("a2. t + Holm, all pairs, no intervals", "1b", "2", "the same loop", ["scipy", "statsmodels"]),
                (f"b. randomised Tukey HSD ({RESAMPLES:,} resamples), all pairs", "3", "4",
                 "per-resample loop: numpy Generator.permuted", ["numpy"])]
        rows += [("d. Tukey HSD of all measures, one call", "6t", "3", "one call per measure (3)", ["numpy"]),
                 ("e. report sign-flip tests, adaptive", "7a", "7b", "fixed 10,000 flips (cannot reach alpha)",
                  ["numpy"]),
                 ("f. BCa intervals of every mean", "8", "8b", "scipy.stats.bootstrap, batched", ["scipy"])]
        if "5" in specs:
            rows.append(("c. d_z intervals, nDCG@10 only: noncentral t (1c)", "1c", "5",
                         f"per-pair loop with scipy.stats.bootstrap ({RESAMPLES:,}) for the interval",
                         ["scipy", "statsmodels"]))
        for task, ours, other, peer, dists in rows:
            t1, t2 = res[ours]["wall"], res[other]["wall"]
            target = f"< {TARGET:.0f} s" if ours in ("1", "3") else "info"
            met = t1 < TARGET if ours in ("1", "3") else None
            goals.add(task, h.fmt_s(t1), h.fmt_s(t2), f"{t1 / t2:.2f}", target, "" if met is None else h.yes(met))
            bench.add_summary(FAMILY, task, data_cell, h.fmt_s(t1), peer, h.fmt_s(t2), t1 / t2, target, met,
                              peer_dists=dists)
        print()
        print(goals.render())
        bench.write_json(args.json, mode=h.mode_of(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
