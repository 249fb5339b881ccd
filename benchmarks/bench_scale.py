#!/usr/bin/env python3
"""Recommender-scale benchmark: two recommenders' top-100 lists for N users, 1M to 100M rows per system.

    python -m benchmarks.bench_scale --rows 1M,10M --data /tmp/recsys            # the two smaller sizes
    python -m benchmarks.bench_scale --rows 100M --data /tmp/recsys --only stream-trec,stream-parquet
    python -m benchmarks.bench_scale --quick                                      # smoke run: 20,000 rows

Input: ``make_recsys.py`` (users ``u0000000`` ..., 100 items each, sorted by user id; ties and 80-100%
overlap between the two systems; 10 judgments per user), generated into ``--data DIR/<rows>`` once and
reused. The measures (the issue's set): ``RBO(p=0.9,ref=B)``, ``RBO_ext(p=0.9,ref=B)``, ``RBA(p=0.9,ref=B)``,
``RBR(p=0.9,ref=B)@10`` (system A against system B, ties averaged exactly), ``RBP(p=0.9)`` and
``RBP_res(p=0.9)`` (A against the judgments).

Contenders, each in a fresh subprocess (this file with ``--worker``); wall time of the work (Spark: after the
session has started; its start-up is reported apart), and **peak memory of the whole process tree** (the
Python worker plus, for Spark, its JVM), sampled every 0.2 s from /proc by the driver:

* ``stream-trec`` / ``stream-parquet``: ``ir_rbstar.scale.stream`` over the TREC files / the Parquet files
  (sorted order, blocks of ``--block-rows`` run rows): bounded memory;
* ``stream-rbo``: the same as ``stream-trec`` with ``RBO(p=0.9,ref=B)`` alone, the like-for-like peer of
  ``rbo-pypi`` (files read included here, not there);
* ``memory``: the ``ir-rbstar`` command's function on the whole TREC files (everything in memory);
  not run above ``--memory-max-rows`` rows per system (default 30M), where it would need more memory
  than the machine has;
* ``spark-rbstar``: ``ir_rbstar.scale.spark`` on Spark DataFrames read from the Parquet files, Spark in
  local mode on every core (8 GB driver), buckets of about ``--bucket-rows`` rows of all inputs;
* ``spark-ndcg``: what Spark offers for the same data: ``pyspark.mllib.evaluation.RankingMetrics``
  ``ndcgAt(10)`` of system A against the relevant items (the lists built in Spark from the same Parquet
  files: items by descending score per user, ``collect_list``); nDCG only (Spark has no RBP, RBO, RBA, RBR);
* ``rbo-pypi``: a per-user loop over PyPI ``rbo`` (``RankingSimilarity(A, B).rbo(p=0.9)``) on the first
  users until ``--rbo-budget`` seconds are spent, extrapolated to all users (reading the lists is not
  timed): what a user without this package would write for RBO alone.

Ratios are against ``stream-trec`` of the same size, measured in the same run. Results print as a
Markdown table (stdout); ``--json FILE`` keeps everything. See docs/scale.md for the figures and how the
same computation runs on a cluster.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks import _harness as h                    # noqa: E402

SCRIPT = os.path.abspath(__file__)
CONTENDERS = ("stream-trec", "stream-parquet", "stream-rbo", "memory", "spark-rbstar", "spark-ndcg", "rbo-pypi")


def measures_for(ref: str) -> List[str]:
    return [f"RBO(p=0.9,ref='{ref}')", f"RBO_ext(p=0.9,ref='{ref}')", f"RBA(p=0.9,ref='{ref}')",
            f"RBR(p=0.9,ref='{ref}')@10", "RBP(p=0.9)", "RBP_res(p=0.9)"]


def _size(text: str) -> int:
    text = text.strip().upper().replace("_", "").replace(",", "")
    mult = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KMG")) * mult)


def _label(rows: int) -> str:
    for div, unit in ((1_000_000, "M"), (1_000, "k")):
        if rows >= div and rows % div == 0:
            return f"{rows // div}{unit}"
    return str(rows)


# =============================================================================================
# Workers (run in a fresh subprocess each)
# =============================================================================================

def _means(values) -> Dict[str, float]:
    return {str(k): float(v) for k, v in values.items()}


def w_stream(args: dict) -> None:
    import ir_rbstar
    from ir_rbstar.scale import stream
    d = args["dir"]
    ext = ".run" if args["format"] == "trec" else ".parquet"
    run, ref = os.path.join(d, "a" + ext), os.path.join(d, "b" + ext)
    qrels = os.path.join(d, "qrels" + ("" if args["format"] == "trec" else ".parquet"))
    measures = ir_rbstar.parse(" ".join(measures_for("B")[:1] if args.get("rbo_only") else measures_for("B")))
    t = h.clock()
    res = stream.stream_aggregate(measures, run, qrels=qrels, runs={"B": ref}, order="sorted",
                                  block_rows=args["block_rows"])
    h.emit({**h.since(t), "values": _means(res)})


def w_memory(args: dict) -> None:
    from ir_rbstar import cli
    import io
    d = args["dir"]
    argv = [os.path.join(d, "qrels"), os.path.join(d, "a.run")] + measures_for(os.path.join(d, "b.run"))
    out = io.StringIO()
    t = h.clock()
    cli.run_measures(argv + ["--places", "-1"], out=out)
    values = h.parse_tsv(out.getvalue())
    ref = os.path.join(d, "b.run")
    h.emit({**h.since(t), "values": {k.replace(ref, "B").split("\t")[-1]: v for k, v in values.items()}})


def _spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    return (SparkSession.builder.master("local[*]").appName("ir_rbstar bench_scale")
            .config("spark.ui.enabled", "false").config("spark.driver.memory", "8g")
            .config("spark.sql.shuffle.partitions", "16").config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .getOrCreate())


def w_spark_rbstar(args: dict) -> None:
    import ir_rbstar
    from ir_rbstar.scale import spark as rspark
    t0 = time.perf_counter()
    session = _spark()
    startup = time.perf_counter() - t0
    d = args["dir"]
    a, b, q = (session.read.parquet(os.path.join(d, f"{n}.parquet")) for n in ("a", "b", "qrels"))
    measures = ir_rbstar.parse(" ".join(measures_for("B")))
    t = h.clock()
    result = rspark.evaluate(measures, a, qrels=q, runs={"B": b}, partitions=args["partitions"])
    means = result.means()
    values = {str(r["measure"]): float(r["value"]) for _, r in means.iterrows()}
    timing = h.since(t)
    session.stop()
    h.emit({**timing, "startup": startup, "values": values})


def w_spark_ndcg(args: dict) -> None:
    from pyspark.mllib.evaluation import RankingMetrics
    from pyspark.sql import functions as F
    t0 = time.perf_counter()
    session = _spark()
    startup = time.perf_counter() - t0
    d = args["dir"]
    t = h.clock()
    a = session.read.parquet(os.path.join(d, "a.parquet"))
    q = session.read.parquet(os.path.join(d, "qrels.parquet"))
    pred = (a.groupBy("query_id")
            .agg(F.sort_array(F.collect_list(F.struct((-F.col("score")).alias("s"), F.col("doc_id").alias("d"))))
                 .alias("pairs"))
            .select("query_id", F.col("pairs.d").alias("pred")))
    rel = q.where(F.col("relevance") > 0).groupBy("query_id").agg(F.collect_list("doc_id").alias("rel"))
    pairs = pred.join(rel, "query_id").select("pred", "rel").rdd.map(lambda r: (r[0], r[1]))
    value = RankingMetrics(pairs).ndcgAt(10)
    timing = h.since(t)
    session.stop()
    h.emit({**timing, "startup": startup, "values": {"nDCG@10 (Spark RankingMetrics)": float(value)}})


def w_rbo_pypi(args: dict) -> None:
    import pyarrow.parquet as pq
    import rbo
    d = args["dir"]
    users = args["users"]
    take = min(users, args["sample"])
    lists = []
    for name in ("a", "b"):           # only the first users' rows are read
        docs: list = []
        for batch in pq.ParquetFile(os.path.join(d, f"{name}.parquet")).iter_batches(columns=["doc_id"]):
            docs += batch.column(0).to_pylist()
            if len(docs) >= take * args["depth"]:
                break
        lists.append([docs[i * args["depth"]:(i + 1) * args["depth"]] for i in range(take)])
    budget = args["budget"]
    t = h.clock()
    done, total = 0, 0.0
    for la, lb in zip(*lists, strict=True):
        total += rbo.RankingSimilarity(la, lb).rbo(p=0.9)
        done += 1
        if time.perf_counter() - t[0] > budget:
            break
    timing = h.since(t)
    per_user = timing["wall"] / done
    h.emit({**timing, "users_done": done, "users": users, "per_user": per_user, "extrapolated": per_user * users,
            "values": {"RBO(p=0.9) PyPI rbo, mean of the users done": total / done}})


WORKERS = {"stream": w_stream, "memory": w_memory, "spark-rbstar": w_spark_rbstar, "spark-ndcg": w_spark_ndcg,
           "rbo-pypi": w_rbo_pypi}


# =============================================================================================
# Driver
# =============================================================================================

def _tree_rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants (from /proc), in KiB."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            continue
    return total


def run_tree(worker: str, args: dict, timeout: float) -> dict:
    """Run a worker in a fresh subprocess; its result plus the peak RSS of its process tree."""
    cmd = [sys.executable, SCRIPT, "--worker", worker, json.dumps(args)]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=h.WORKER_ENV)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss_kb(proc.pid))
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        done.set()
        sampler.join()
    for line in out.splitlines():
        if line.startswith(h.RESULT_TAG):
            res = json.loads(line[len(h.RESULT_TAG):])
            res.update(outer_wall=time.perf_counter() - t, tree_peak_mb=peak[0] / 1024.0)
            return res
    raise RuntimeError(f"worker {worker} failed (exit {proc.returncode}):\n{err[-3000:]}")


def ensure_data(root: str, rows: int, depth: int) -> str:
    d = os.path.join(root, _label(rows))
    if not os.path.exists(os.path.join(d, "README.txt")):
        from benchmarks import make_recsys
        h.log(f"generating {rows:,} rows per system into {d}")
        make_recsys.generate(d, rows // depth, depth)
    return d


def contender_specs(name: str, d: str, rows: int, args) -> Optional[tuple]:
    users = rows // args.depth
    if name in ("stream-trec", "stream-parquet"):
        return "stream", {"dir": d, "format": name.split("-")[1], "block_rows": args.block_rows}
    if name == "stream-rbo":
        return "stream", {"dir": d, "format": "trec", "block_rows": args.block_rows, "rbo_only": True}
    if name == "memory":
        return None if rows > args.memory_max_rows else ("memory", {"dir": d})
    if name == "spark-rbstar":      # buckets of about --bucket-rows rows of all inputs (a, b and the qrels)
        return name, {"dir": d, "partitions": max(8, -(-rows * 21 // 10 // args.bucket_rows))}
    if name == "spark-ndcg":
        return name, {"dir": d}
    if name == "rbo-pypi":
        return name, {"dir": d, "users": users, "depth": args.depth, "budget": args.rbo_budget,
                      "sample": args.rbo_sample}
    raise SystemExit(f"unknown contender {name!r}; expected one of {', '.join(CONTENDERS)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="1M,10M,100M", help="rows per system, comma list (default 1M,10M,100M)")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--data", default="/tmp/ir_rbstar_recsys", help="where the generated inputs are kept")
    ap.add_argument("--only", help=f"comma list of contenders ({', '.join(CONTENDERS)})")
    ap.add_argument("--block-rows", type=int, default=500_000, help="run rows per streamed block")
    ap.add_argument("--bucket-rows", type=int, default=500_000, help="rows per Spark bucket (spark-rbstar)")
    ap.add_argument("--memory-max-rows", type=_size, default=30_000_000)
    ap.add_argument("--rbo-budget", type=float, default=60.0, help="seconds of the PyPI rbo loop before extrapolating")
    ap.add_argument("--rbo-sample", type=int, default=200_000, help="users loaded for the PyPI rbo loop")
    ap.add_argument("--timeout", type=float, default=4 * 3600)
    ap.add_argument("--quick", action="store_true", help="smoke run: 20,000 rows, every contender")
    ap.add_argument("--json")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        WORKERS[args.worker[0]](json.loads(args.worker[1]))
        return 0
    sizes = [20_000] if args.quick else [_size(x) for x in args.rows.split(",")]
    names = [x.strip() for x in args.only.split(",")] if args.only else list(CONTENDERS)
    have = {"spark-rbstar": h.have_module("pyspark"), "spark-ndcg": h.have_module("pyspark"),
            "rbo-pypi": h.have_module("rbo")}
    results: Dict[str, Dict[str, dict]] = {}
    for rows in sizes:
        d = ensure_data(args.data, rows, args.depth)
        results[_label(rows)] = res = {}
        for name in names:
            if not have.get(name, True):
                res[name] = {"skipped": "not installed"}
                continue
            spec = contender_specs(name, d, rows, args)
            if spec is None:
                res[name] = {"skipped": f"above --memory-max-rows ({args.memory_max_rows:,})"}
                continue
            h.log(f"{_label(rows)}: {name} ...")
            try:
                res[name] = run_tree(spec[0], spec[1], args.timeout)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                res[name] = {"failed": str(e)[-500:]}
            r = res[name]
            h.log(f"  {name}: " + (f"{r['wall']:.1f} s, peak {r['tree_peak_mb']:.0f} MB" if "wall" in r else str(r)))
    print(report(results, args))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": h.machine_info(), "argv": sys.argv[1:], "results": results}, f, indent=1)
    return 0


def report(results: Dict[str, Dict[str, dict]], args) -> str:
    lines = [f"Machine: {h.machine_info()}", "",
             "| rows per system | contender | time | peak memory (process tree) | time / stream-trec | note |",
             "|---|---|---|---|---|---|"]
    for size, res in results.items():
        base = res.get("stream-trec", {}).get("wall")
        for name, r in res.items():
            if "wall" not in r:
                lines.append(f"| {size} | {name} | - | - | - | {r.get('skipped') or 'failed'} |")
                continue
            wall = r.get("extrapolated", r["wall"])
            note = []
            if "startup" in r:
                note.append(f"+ {r['startup']:.1f} s Spark start-up")
            if "extrapolated" in r and r["users_done"] < r.get("users", r["users_done"]):
                note.append(f"{r['users_done']:,} users in {r['wall']:.1f} s, extrapolated to all")
            elif "extrapolated" in r:
                note.append("every user; reading the lists not timed")
            ratio = h.fmt_ratio(wall, base) if base else "-"
            lines.append(f"| {size} | {name} | {wall:,.2f} s | {r['tree_peak_mb']:,.0f} MB | {ratio} | "
                         f"{'; '.join(note)} |")
        vals = {n: r["values"] for n, r in res.items()
                if "values" in r and n in ("stream-trec", "stream-parquet", "stream-rbo", "memory", "spark-rbstar")}
        if len(vals) > 1:
            first = next(iter(vals.values()))
            worst = max(abs(v[k] - first[k]) for v in vals.values() for k in first if k in v)
            lines.append(f"| {size} | agreement | | | | largest difference of a mean between ir_rbstar's doors: "
                         f"{worst:.1e} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
