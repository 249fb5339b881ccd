"""Command line: ``ir-rbstar QRELS RUN MEASURES [options]`` (as ``ir_measures``), ``ir-rbstar demo``,
``ir-rbstar plot crp|effort-gain ...`` (pictures of the Twist analysis, see :mod:`ir_rbstar.plots`),
``ir-rbstar distance RUN RUN ... --measure MED_nDCG@20`` (a run-distance matrix, :mod:`ir_rbstar.med`) and
``ir-rbstar report QRELS RUN ... --output DIR`` (every family, ranks, significance and pictures in one
folder, :mod:`ir_rbstar.report`), ``ir-rbstar explore QRELS RUN_A RUN_B ... -o page.html`` (one HTML page
to compare runs query by query, :mod:`ir_rbstar.explore`), ``ir-rbstar judge QRELS RUN ... --budget N`` and
``ir-rbstar simulate-judging QRELS RUN ...`` (what to judge next, :mod:`ir_rbstar.judging`).

The first form accepts exactly what the ``ir_measures`` command accepts (the same options and output),
with ir_rbstar's measures available, and with two conveniences: a measure may contain spaces inside
its parentheses (``"RBR(p=0.8, ref='a run.txt')@20"``), and QRELS may be ``none`` when every measure
compares the run with a reference run (the query set is then the run's queries).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Dict, List, Optional

import ir_measures
from ir_measures import Metric

from . import errors
from ._cli_args import DEFAULT_PLACES, NO_QRELS, load_qrels as _load_qrels
from ._signals import interrupt_of, interrupts, signal_name
from .measures.base import RbstarMeasure
from .parsing import check_measure, parse_measure, split_measures
from .progress import reporter
from .provider import PROVIDER, is_ours, iter_calc_columnar, serving_provider

# pandas, matplotlib, json and the package's readers are imported where they are used: a command on
# ir_measures' own measures only (``ir-rbstar QRELS RUN "nDCG@10 AP"``) needs none of them (see dicts.py)

SUMMARY_QID = "all"


def _measure_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ir-rbstar",
        usage="%(prog)s QRELS RUN [RUN ...] MEASURE [MEASURE ...] [options]\n"
              "       %(prog)s demo | plot | distance | report | explore | judge | simulate-judging ... (each with -h)",
        description="Evaluate TREC runs with ir_measures' measures and ir_rbstar's (RBP, RBR, RBA, RBO, ...). "
                    "Accepts what the 'ir_measures' command accepts (the same options and output for one run), "
                    "and more: several runs in one call (every argument after QRELS that names an existing file "
                    "is a run; the rest are measures; qrels and reference runs are read once; with several runs "
                    "each output line starts with the run), measures with spaces inside their parentheses, QRELS "
                    "'none' for run-vs-reference measures only. Other commands: 'ir-rbstar demo' (a table on the "
                    "bundled Vaswani collection), 'ir-rbstar plot crp|effort-gain ...' (pictures of the Twist "
                    "analysis; needs matplotlib), 'ir-rbstar distance RUN RUN ... --measure MED_nDCG@20' (a "
                    "run-distance matrix and its heat map), 'ir-rbstar report QRELS RUN ... --output DIR' (a "
                    "report folder: every family, ranks, significance against a baseline, pictures), "
                    "'ir-rbstar explore QRELS RUN_A RUN_B ... -o page.html' (one HTML page to compare runs "
                    "query by query).")
    parser.add_argument("qrels", help="TREC qrels file, an ir_datasets id ('irds:<id>' or bare, e.g. "
                                      "msmarco-passage/trec-dl-2019), or 'none' (run-vs-reference measures only)")
    parser.add_argument("inputs", nargs="*", metavar="RUN/MEASURE",
                        help="TREC run files (.gz allowed), then measures, "
                             "e.g. nDCG@10 'RBR(p=0.8,ref=\"ref.run\")@20'")
    parser.add_argument("--places", "-p", type=int, default=DEFAULT_PLACES)
    parser.add_argument("--by_query", "-q", action="store_true")
    parser.add_argument("--no_summary", "-n", action="store_true")
    parser.add_argument("--output_format", "-o", choices=("tsv", "jsonl") + TABLE_FORMATS, default="tsv",
                        help="tsv or jsonl (as ir_measures' command, also with --by_query); json, markdown, "
                             "latex or html: one table of the means, runs x measures (ir_rbstar.report.formats)")
    parser.add_argument("--provider", choices=sorted(ir_measures.providers.registry.keys()),
                        help="the provider of ir_measures' own measures (ir_rbstar's are always served by ir_rbstar)")
    parser.add_argument("--progress", action="store_true",
                        help="one line per run on stderr even when it is not a terminal (default: only on a terminal)")
    streaming = parser.add_argument_group(
        "out of core", "evaluate inputs larger than memory by blocks of whole queries (ir_rbstar.scale.stream): "
                       "the same values, memory bounded by the block size; runs, qrels and reference runs may "
                       "then also be Parquet files or directories (the scale extra: pyarrow)")
    streaming.add_argument("--stream", action="store_true",
                           help="read every input (qrels, runs, reference files and prior files of the measures) "
                                "block by block; per-query lines come block after block")
    streaming.add_argument("--order", choices=("auto", "sorted", "numeric", "any"), default=None,
                           help="with --stream: 'sorted' (every file sorted by query id as LC_ALL=C sort -s -k1,1 "
                                "leaves it: one pass), 'numeric' (sorted by integer query id), 'any' (any order: "
                                "hash partitions in temporary files), 'auto' (default: checks the order first)")
    streaming.add_argument("--block-rows", type=int, default=None, metavar="N",
                           help="with --stream: rows of each input per block (default 1000000)")
    streaming.add_argument("--tmpdir", default=None,
                           help="with --stream --order any/auto: where the temporary parts go (default: the "
                                "system's temporary directory)")
    parser.add_argument("--version", action="version", version=_version())
    return parser


def _version() -> str:
    from . import __version__
    return f"ir-rbstar {__version__} (ir_measures {ir_measures.__version__})"


def _formatter(args, run_label: Optional[str]):
    fmt = "" if args.places == -1 else f".{args.places}f"
    lead = "" if run_label is None else f"{run_label}\t"

    def tsv(metric: Metric) -> str:
        if args.by_query:
            return f"{lead}{metric.query_id}\t{metric.measure}\t{metric.value:{fmt}}"
        return f"{lead}{metric.measure}\t{metric.value:{fmt}}"

    if args.output_format != "tsv":
        import json                     # here: the default output (tsv) needs no json module

    def jsonl(metric: Metric) -> str:
        row: Dict[str, Any] = {"run": run_label} if run_label is not None else {}
        row.update({"query_id": metric.query_id, "measure": str(metric.measure), "value": metric.value})
        if not args.by_query:
            del row["query_id"]
        return json.dumps(row)
    return tsv if args.output_format == "tsv" else jsonl


def _parse_measures(texts: List[str], choice: Optional[str] = None):
    """Every measure of the command, parsed and validated, and checked to have a provider, before any
    file is read or any provider runs; all problems are reported together."""
    measures, problems = [], []
    for text in texts:
        try:
            items = split_measures(text)
        except errors.ParameterError as e:
            problems.append(str(e))
            continue
        for item in items:
            try:
                m = check_measure(parse_measure(item), complete=True)
                _provider_of(m, choice)
            except errors.ParameterError as e:
                problems.append(str(e))
                continue
            if m not in measures:
                measures.append(m)
    if problems:
        raise errors.ParameterError("error in the measures:\n  " + "\n  ".join(problems))
    if not measures:
        raise errors.ParameterError("no measure given (e.g. nDCG@10 'RBP(p=0.8)')")
    return measures


def _provider_of(measure, choice: Optional[str]):
    """ir_rbstar's declarations are served by ir_rbstar; ``--provider`` chooses for the others."""
    if isinstance(measure, RbstarMeasure):
        return PROVIDER
    return serving_provider(measure, choice)


def _split_inputs(inputs: List[str], dirs: bool = False):
    """(runs, measure texts): the leading arguments that name existing files (or, with ``dirs``,
    directories: Parquet datasets when streaming) are runs."""
    runs = []
    for item in inputs:
        path = os.path.expanduser(item)
        if os.path.isdir(path) and not dirs:
            raise errors.InputFormatError(f"{item}: is a directory, expected a run file (a directory of Parquet "
                                          f"files is read as a run only with --stream)")
        if not (os.path.isfile(path) or (dirs and os.path.isdir(path))):
            break
        runs.append(item)
    texts = inputs[len(runs):]
    if not runs:
        first = inputs[0] if inputs else None
        if first is None:
            raise errors.ParameterError("give QRELS, at least one RUN and the measures")
        raise FileNotFoundError(f"run file not found: {first} (after QRELS come the run files, then the measures)")
    return runs, texts


#: --output_format values that print one table of the means (runs x measures) after every run is evaluated
TABLE_FORMATS = ("json", "markdown", "latex", "html")


def run_measures(argv: List[str], out=None) -> int:
    args = _measure_parser().parse_intermixed_args(argv)
    out = out or sys.stdout
    if args.no_summary and not args.by_query:
        raise errors.ParameterError("--no_summary (-n) is only supported with --by_query (-q)")
    table = args.output_format in TABLE_FORMATS
    if table and args.by_query:
        raise errors.ParameterError(f"--output_format {args.output_format} prints a table of the means: per-query "
                                    f"values (--by_query) come as tsv or jsonl")
    if not args.stream and (args.order is not None or args.block_rows is not None or args.tmpdir is not None):
        raise errors.ParameterError("--order, --block-rows and --tmpdir go with --stream")
    runs, texts = _split_inputs(args.inputs, dirs=args.stream)
    measures = _parse_measures(texts, args.provider)
    choice = args.provider
    if args.stream:
        return _run_streamed(args, runs, measures, out, table)
    # ir_rbstar's declarations, then ir_measures' measures ir_rbstar serves, both on the columnar tables;
    # the rest by ir_measures' providers (or --provider) on their native input, dicts of dicts
    own = [m for m in measures if isinstance(m, RbstarMeasure)]
    served = [m for m in measures if m not in own and is_ours(serving_provider(m, choice))]
    others = [m for m in measures if m not in own and m not in served]
    qrels = None
    if own or served:
        # reference run files are read on a second thread while the qrels are read here
        from concurrent.futures import ThreadPoolExecutor     # here: a command on ir_measures' measures needs none
        refs = sorted({m.params["ref"] for m in own if isinstance(m.params.get("ref"), str)})
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = [pool.submit(_prefetch_reference, ref) for ref in refs]
            qrels = _load_qrels(args.qrels)
            for job in pending:
                job.result()
    others_eval = None
    if others:
        calc = ir_measures.providers.registry[choice] if choice else ir_measures
        others_eval = calc.evaluator(others, _dict_qrels(args.qrels, qrels, bool(own or served)))
    progress = reporter(True if args.progress else None)
    several = len(runs) > 1
    rows: List[Dict[str, Any]] = []
    for i, path in enumerate(runs, 1):
        if progress is not None:
            progress(i, len(runs), f"evaluating {path}")
        fmt = _formatter(args, path if several else None)
        aggs = {m: m.aggregator() for m in measures}
        for metric in _iter_calc(own, served, others_eval, qrels, path):
            if args.by_query:
                _PRINTED[0] += 1                  # before the line: an interrupt may come right after it
                print(fmt(metric), file=out)
            aggs[metric.measure].add(metric.value)
        if table:
            rows += [{"run": path, "measure": str(m), "mean": aggs[m].result()} for m in measures]
        elif not args.no_summary:
            for m in measures:
                print(fmt(Metric(query_id=SUMMARY_QID, measure=m, value=aggs[m].result())), file=out)
    if table:
        _print_means_table(rows, args, out)
    return 0


def _dict_qrels(spec: str, qrels, have_columnar: bool):
    """The qrels as a dict of dicts for ir_measures' providers: from the columnar qrels when they were
    read already, else straight from a regular file (:func:`ir_rbstar.dicts.read_trec_dict`), else
    through the package's reader (which names what it rejects)."""
    from . import dicts
    if spec.lower() in NO_QRELS:
        return None
    out = None
    if not have_columnar and os.path.isfile(os.path.expanduser(spec)):
        out = dicts.read_trec_dict(spec, "qrels")
    if out is None:
        out = dicts.qrels_dict(qrels if have_columnar else _load_qrels(spec))
    _check_c_int_grades(spec, out)
    return out


def _check_c_int_grades(spec: str, qrels: dict) -> None:
    """pytrec_eval keeps a grade in a C int: a larger one would be wrapped silently (2**40 reads as 0), so
    it is an error here, naming the query and document."""
    low, high = -(1 << 31), (1 << 31) - 1
    for query, judged in qrels.items():
        if judged and not (low <= min(judged.values()) and max(judged.values()) <= high):
            doc, grade = next((d, g) for d, g in judged.items() if not low <= g <= high)
            raise errors.InputFormatError(
                f"{spec}: query {query}, document {doc}: grade {grade} is outside -2^31..2^31-1, the grades "
                f"ir_measures' own measures (pytrec_eval) can take; this package's measures accept it")


def _iter_calc(own, served, others_eval, qrels, path: str):
    """One run's metrics: ir_rbstar's declarations, then ir_measures' measures ir_rbstar serves (both on
    the columnar run), then the other measures by ``others_eval`` (ir_measures' evaluator built once for
    every run) on the run as a dict of dicts."""
    from . import dicts
    run: Any = None
    if own or served:
        from .io import read_trec_run
        run = read_trec_run(path)
    if own:
        yield from iter_calc_columnar(own, qrels, run)
    if served:
        yield from iter_calc_columnar(served, qrels, run)
    if others_eval is not None:
        native: Any = dicts.read_trec_dict(path, "run") if run is None else None
        if native is None:
            from .io import read_trec_run
            native = dicts.ranking_dict(run if run is not None else read_trec_run(path))
        yield from others_eval.iter_calc(native)


def _print_means_table(rows: List[Dict[str, Any]], args, out) -> None:
    """``-o json|markdown|latex|html``: one table of the means, runs x measures."""
    import pandas as pd
    from .report.formats import ResultsTable, write_table
    options = {} if args.output_format == "json" or args.places == -1 else {"places": args.places}
    # no value is set in bold: which direction is better is the reader's to say for these measures
    frame = pd.DataFrame(rows)
    means = ResultsTable.from_frame(frame, descriptive=frame["measure"].unique().tolist())
    print(write_table(means, args.output_format, **options), file=out)


def _run_streamed(args, runs: List[str], measures, out, table: bool) -> int:
    """``--stream``: every run evaluated by blocks (:mod:`ir_rbstar.scale.stream`); the same lines as without
    it (per-query lines in block order), means summed exactly."""
    from .scale import stream
    qrels: Any = None
    if args.qrels.lower() not in NO_QRELS:
        qrels = args.qrels if os.path.exists(os.path.expanduser(args.qrels)) else _load_qrels(args.qrels)
    options = dict(order=args.order or "auto", block_rows=args.block_rows, tmpdir=args.tmpdir,
                   provider=args.provider, progress=reporter(True if args.progress else None))
    progress = reporter(True if args.progress else None)
    several = len(runs) > 1
    rows: List[Dict[str, Any]] = []
    for i, path in enumerate(runs, 1):
        if progress is not None:
            progress(i, len(runs), f"evaluating {path} (streamed)")
        fmt = _formatter(args, path if several else None)
        if args.by_query:
            means = stream.Means(measures)
            for metric in stream.stream_calc(measures, path, qrels, **options):
                _PRINTED[0] += 1                  # before the line: an interrupt may come right after it
                print(fmt(metric), file=out)
                means.add_metric(metric)
            result = means.result()
        else:
            result = stream.stream_aggregate(measures, path, qrels, **options)
        if table:
            rows += [{"run": path, "measure": str(m), "mean": result[m]} for m in measures]
        elif not args.no_summary:
            for m in measures:
                print(fmt(Metric(query_id=SUMMARY_QID, measure=m, value=result[m])), file=out)
    if table:
        _print_means_table(rows, args, out)
    return 0


def _prefetch_reference(ref: str) -> None:
    """Convert a reference run file ahead of evaluation (names that are not files are left to the
    measure, which reports them when it is evaluated)."""
    if os.path.isfile(os.path.expanduser(ref)):
        from .references import resolve_run
        resolve_run(ref)


#: per-query lines printed by the command (so far): a failure or an interrupt then says the output is partial
_PRINTED = [0]


def _partial() -> str:
    return ("; the output above is partial (per-query lines of the queries done so far, no means)"
            if _PRINTED[0] else "")


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _PRINTED[0] = 0
    with interrupts():
        try:
            return _main(argv)
        except (KeyboardInterrupt, Exception) as e:
            signum = interrupt_of(e)
            if signum is None:
                raise
            print(f"ir-rbstar: interrupted by {signal_name(signum)}; temporary files removed{_partial()}",
                  file=sys.stderr)
            return 128 + signum


def _main(argv: List[str]) -> int:
    try:
        if argv and argv[0] == "demo":
            from .demo import main as demo_main
            return demo_main(argv[1:])
        if argv and argv[0] == "plot":
            from .cli_plots import run_plot
            return run_plot(argv[1:])
        if argv and argv[0] == "distance":
            from .cli_plots import run_distance
            return run_distance(argv[1:])
        if argv and argv[0] == "report":
            from .report import main as report_main
            return report_main(argv[1:])
        if argv and argv[0] == "explore":
            from .explore.command import main as explore_main
            return explore_main(argv[1:])
        if argv and argv[0] in ("judge", "simulate-judging"):
            from .judging import cli as judging_cli
            return (judging_cli.judge_main if argv[0] == "judge" else judging_cli.simulate_main)(argv[1:])
        return run_measures(argv)
    except (errors.RbstarError, FileNotFoundError, NameError) as e:
        if interrupt_of(e) is not None:          # an interrupt that some code turned into an error
            raise
        print(f"ir-rbstar: error: {e}{_partial()}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
