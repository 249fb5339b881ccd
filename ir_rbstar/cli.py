"""Command line: ``ir-rbstar QRELS RUN MEASURES [options]`` (as ``ir_measures``) and ``ir-rbstar demo``.

The first form accepts exactly what the ``ir_measures`` command accepts (the same options and output),
with ir_rbstar's measures available, and with two conveniences: a measure may contain spaces inside
its parentheses (``"RBR(p=0.8, ref='a run.txt')@20"``), and QRELS may be ``none`` when every measure
compares the run with a reference run (the query set is then the run's queries).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import List, Optional

import ir_measures
from ir_measures.util import Metric

from . import errors
from .io import read_trec_qrels, read_trec_run
from .provider import iter_calc_columnar
from .references import resolve_run
from .parsing import split_measures

DEFAULT_PLACES = 4
SUMMARY_QID = "all"
NO_QRELS = ("none", "-")


def _measure_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ir-rbstar",
        description="Evaluate a TREC run with ir_measures' measures and ir_rbstar's (RBP, RBR, RBA, RBO, ...). "
                    "Other commands: 'ir-rbstar demo' (no arguments: a table on the bundled Vaswani collection).")
    parser.add_argument("qrels", help="TREC qrels file, an ir_datasets id, or 'none' (run-vs-reference measures only)")
    parser.add_argument("run", help="TREC run file (.gz allowed)")
    parser.add_argument("measures", nargs="+", help="measures, e.g. nDCG@10 'RBR(p=0.8,ref=\"ref.run\")@20'")
    parser.add_argument("--places", "-p", type=int, default=DEFAULT_PLACES)
    parser.add_argument("--by_query", "-q", action="store_true")
    parser.add_argument("--no_summary", "-n", action="store_true")
    parser.add_argument("--output_format", "-o", choices=("tsv", "jsonl"), default="tsv")
    parser.add_argument("--provider", choices=sorted(ir_measures.providers.registry.keys()))
    return parser


def _formatter(args):
    fmt = "" if args.places == -1 else f".{args.places}f"

    def tsv(metric: Metric) -> str:
        if args.by_query:
            return f"{metric.query_id}\t{metric.measure}\t{metric.value:{fmt}}"
        return f"{metric.measure}\t{metric.value:{fmt}}"

    def jsonl(metric: Metric) -> str:
        row = {"query_id": metric.query_id, "measure": str(metric.measure), "value": metric.value}
        if not args.by_query:
            del row["query_id"]
        return json.dumps(row)
    return tsv if args.output_format == "tsv" else jsonl


def _load_qrels(spec: str):
    if spec.lower() in NO_QRELS:
        return None
    if os.path.exists(spec):
        return read_trec_qrels(spec)
    try:
        import ir_datasets
    except ImportError:
        raise FileNotFoundError(f"qrels file not found: {spec} (install ir_rbstar[datasets] to use ir_datasets ids)")
    try:
        dataset = ir_datasets.load(spec)
    except KeyError:
        raise FileNotFoundError(f"{spec}: neither a qrels file nor an ir_datasets id") from None
    if not dataset.has_qrels():
        raise errors.InputFormatError(f"ir_datasets id {spec} provides no qrels")
    return dataset.qrels_iter()


def _parse_measures(texts: List[str]):
    measures, problems = [], []
    for text in texts:
        for item in split_measures(text):
            try:
                m = ir_measures.parse_measure(item)
            except NameError:
                problems.append(f"unknown measure: {item}")
                continue
            except (ValueError, SyntaxError) as e:
                problems.append(f"syntax error: {item} ({e})")
                continue
            if m not in measures:
                measures.append(m)
    if problems:
        raise errors.ParameterError("error parsing measures\n" + "\n".join(problems))
    return measures


def run_measures(argv: List[str], out=None) -> int:
    args = _measure_parser().parse_args(argv)
    out = out or sys.stdout
    if args.no_summary and not args.by_query:
        raise errors.ParameterError("--no_summary (-n) is only supported with --by_query (-q)")
    measures = _parse_measures(args.measures)
    # reference run files are read on a second thread while the run and qrels are read here
    refs = sorted({m.params["ref"] for m in measures if isinstance(m.params.get("ref"), str)})
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = [pool.submit(_prefetch_reference, ref) for ref in refs]
        qrels = _load_qrels(args.qrels)
        run = read_trec_run(args.run)
        for job in pending:
            job.result()
    fmt = _formatter(args)
    aggs = {m: m.aggregator() for m in measures}
    for metric in iter_calc_columnar(measures, qrels, run, args.provider):
        if args.by_query:
            print(fmt(metric), file=out)
        aggs[metric.measure].add(metric.value)
    if not args.no_summary:
        for m in measures:
            print(fmt(Metric(query_id=SUMMARY_QID, measure=m, value=aggs[m].result())), file=out)
    return 0


def _prefetch_reference(ref: str) -> None:
    """Convert a reference run file ahead of evaluation (names that are not files are left to the
    measure, which reports them when it is evaluated)."""
    if os.path.isfile(os.path.expanduser(ref)):
        resolve_run(ref)


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "demo":
            from .demo import main as demo_main
            return demo_main(argv[1:])
        return run_measures(argv)
    except (errors.RbstarError, FileNotFoundError, NameError) as e:
        print(f"ir-rbstar: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
