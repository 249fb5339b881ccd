#!/usr/bin/env python3
"""Benchmark every input form: ir_rbstar's RBP with its residual against ir_measures' nDCG@10, on the same input.

    python -m benchmarks.bench_doors            # full: 7,000 queries x 1,000 docs
    python -m benchmarks.bench_doors --quick    # smoke run: 700 queries x 1,000 docs

For each input form a user may hand to ``ir_measures.calc_aggregate`` (and for the TREC files, to the
commands), two contenders run, each in a fresh subprocess, taking turns:

1. ir_rbstar: ``RBP(p=0.8,rel=1) RBP_res(p=0.8)`` (the measures of ``ir_rbstar.parse``, served by
   ir_rbstar) on the input;
2. ir_measures' default pipeline: ``nDCG@10`` (pytrec_eval) on the same input, in a process without
   ir_rbstar.

Forms: the TREC files (1: the ``ir-rbstar`` command's function, reading included; 2: ``ir_measures``'
own reading with ``read_trec_qrels``/``read_trec_run``, as its command does), pandas DataFrames, dicts of
dicts, lists of namedtuples (``ir_measures.Qrel``/``ScoredDoc``) and the lazy namedtuple iterators of
``ir_measures.read_trec_qrels``/``read_trec_run`` (reading included on both sides). Building the
in-memory inputs is not timed; converting them is. The goal for each form: ratio 1 / 2 <= 1.0.
Inputs: ``make_synthetic.py`` (``synthetic.run`` and ``synthetic.qrels``), generated into a temporary
directory or reused from ``--data DIR``. Helpers come from _harness.py; see benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import os
import sys

if __package__:      # python -m benchmarks.bench_doors (from the repository root)
    from . import _harness as h
else:                # python benchmarks/bench_doors.py, as the workers run: its folder is first on the path
    import _harness as h  # (stdlib-only at import)

SCRIPT = os.path.abspath(__file__)
OURS = ["RBP(p=0.8,rel=1)", "RBP_res(p=0.8)"]
OTHER = ["nDCG@10"]
FORMS = {
    "files": "TREC files",
    "frame": "pandas DataFrames",
    "dict": "dicts of dicts",
    "tuples": "lists of namedtuples",
    "iterator": "namedtuple iterators (read_trec_run)",
}


def _inputs(form: str, qrels: str, run: str):
    """The qrels and run in ``form`` (built before the clock starts, except the lazy iterators)."""
    import ir_measures
    if form == "iterator":
        return ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run)
    q, r = list(ir_measures.read_trec_qrels(qrels)), list(ir_measures.read_trec_run(run))
    if form == "tuples":
        return q, r
    import pandas as pd
    qf = pd.DataFrame(q, columns=["query_id", "doc_id", "relevance", "iteration"])
    rf = pd.DataFrame(r, columns=["query_id", "doc_id", "score"])
    if form == "frame":
        return qf, rf
    qd, rd = {}, {}
    for x in q:
        qd.setdefault(x.query_id, {})[x.doc_id] = x.relevance
    for x in r:
        rd.setdefault(x.query_id, {})[x.doc_id] = x.score
    return qd, rd


def w_form(args: dict) -> None:
    """One contender on one form: ``side`` is 'ours' (ir_rbstar's measures) or 'irm' (nDCG@10, ir_measures
    alone)."""
    import io
    import ir_measures
    form, side = args["form"], args["side"]
    if side == "ours":
        import ir_rbstar
        measures = ir_rbstar.parse(" ".join(OURS))
    else:
        measures = [ir_measures.parse_measure(m) for m in OTHER]
    if form == "files" and side == "ours":
        from ir_rbstar import cli
        out = io.StringIO()
        t = h.clock()
        cli.run_measures([args["qrels"], args["run"], *OURS, "--places", "-1"], out=out)
        h.emit({**h.since(t), "values": h.parse_tsv(out.getvalue())})
        return
    if form == "files":
        form = "iterator"            # ir_measures' command reads with these iterators
    if form == "iterator":
        t = h.clock()
        qrels, run = _inputs(form, args["qrels"], args["run"])
    else:
        qrels, run = _inputs(form, args["qrels"], args["run"])
        t = h.clock()
    res = ir_measures.calc_aggregate(measures, qrels, run)
    timing = h.since(t)
    h.emit({**timing, "values": {str(k): float(v) for k, v in res.items()}, "served_by": h.served_by(measures),
            "ir_rbstar_imported": "ir_rbstar" in sys.modules})


WORKERS = {"form": w_form}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark every input form: ir_rbstar's RBP + RBP_res against "
                                             "ir_measures' nDCG@10 on the same input (see benchmarks/README.md)")
    h.add_size_options(ap, "700 queries instead of 7,000")
    h.add_data_option(ap, "synthetic.run and synthetic.qrels")
    h.add_repeat_options(ap, 120.0)
    ap.add_argument("--forms", default=",".join(FORMS), help=f"comma list of {', '.join(FORMS)} (default: all)")
    args = h.parse_args(ap, argv, WORKERS)
    forms = [f.strip() for f in args.forms.split(",") if f.strip()]
    bad = [f for f in forms if f not in FORMS]
    if bad:
        ap.error(f"unknown form(s) {bad}; known: {', '.join(FORMS)}")
    with h.session("rbstar-bench-doors-", args) as bench:
        (qrels, run), msg = h.synthetic(args.data or os.path.join(bench.tmp, "synthetic"),
                                        ["synthetic.qrels", "synthetic.run"], h.n_queries(args), args.depth)
        shape = h.run_shape(run)
        h.log(f"synthetic ({msg}): {shape}")
        results = {}
        for form in forms:
            h.log(f"{FORMS[form]}: timing (contenders take turns, fresh subprocess each) ...")
            base = {"form": form, "qrels": qrels, "run": run}
            results[form] = h.measure_interleaved(SCRIPT, {"1": ("form", {**base, "side": "ours"}),
                                                           "2": ("form", {**base, "side": "irm"})},
                                                  args.repeat, args.slow)
        bench.raw["synthetic"] = {"timings": results, "shape": shape}
        load_end = h.load_average()

        print()
        print(h.machine_info())
        print(h.interleaved_method(args.quick, args.repeat, bench.load_start, load_end))
        print(f"ir_rbstar measured: {bench.package}")
        print(f"data: synthetic: {shape}")
        grid = h.Grid(("input form", "1: ir_rbstar " + " ".join(OURS), "2: ir_measures " + " ".join(OTHER),
                       "ratio 1/2 (wall)", "ratio (CPU)", "peak RSS 1 / 2", "target", "met?"))
        for form in forms:
            r1, r2 = results[form]["1"], results[form]["2"]
            ratio = r1["wall"] / r2["wall"]
            grid.add(FORMS[form], h.fmt_s(r1["wall"]), h.fmt_s(r2["wall"]), f"{ratio:.2f}",
                     h.fmt_ratio(r1["best_cpu"], r2["best_cpu"]), h.fmt_ratio(r1["maxrss_mb"], r2["maxrss_mb"]),
                     "<= 1.00", h.yes(ratio <= 1.0))
            bench.add_summary("input forms (bench_doors.py)", f"RBP + RBP_res, input as {FORMS[form]}",
                              f"synthetic, {shape.split(' rows')[0]} rows", h.fmt_s(r1["wall"]),
                              "ir_measures default pipeline (pytrec_eval): nDCG@10, same input",
                              h.fmt_s(r2["wall"]), ratio, "<= 1.00", ratio <= 1.0,
                              peer_dists=["ir_measures", "pytrec_eval-terrier"])
        print(grid.render())
        for form in forms:
            r = results[form]
            print(f"{FORMS[form]}: means 1 {h.fmt_values(r['1']['values'])}; 2 {h.fmt_values(r['2']['values'])}; "
                  + h.served_line("2", r["2"]))
        bench.write_json(args.json, mode=h.mode_of(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
