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
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional

import ir_measures
from ir_measures import Metric

from . import errors
from ._signals import interrupt_of, interrupts, signal_name
from .measures.base import RbstarMeasure
from .parsing import check_measure, parse_measure, split_measures
from .progress import reporter
from .provider import PROVIDER, is_ours, iter_calc_columnar, serving_provider

# pandas, matplotlib and the package's readers are imported where they are used: a command on
# ir_measures' own measures only (``ir-rbstar QRELS RUN "nDCG@10 AP"``) needs none of them (see dicts.py)

DEFAULT_PLACES = 4
SUMMARY_QID = "all"
NO_QRELS = ("none", "-")


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

    def jsonl(metric: Metric) -> str:
        row: Dict[str, Any] = {"run": run_label} if run_label is not None else {}
        row.update({"query_id": metric.query_id, "measure": str(metric.measure), "value": metric.value})
        if not args.by_query:
            del row["query_id"]
        return json.dumps(row)
    return tsv if args.output_format == "tsv" else jsonl


def _load_qrels(spec: str):
    """QRELS of a command: 'none'/'-' (no qrels), a TREC qrels file, or an ir_datasets id ('irds:<id>' or
    bare; a file that exists wins)."""
    if spec.lower() in NO_QRELS:
        return None
    from .datasets import resolve_qrels
    return resolve_qrels(spec)


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


def _plot_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ir-rbstar plot",
        description="Pictures of the Twist analysis (Ferro et al. 2016), written as PNG or SVG (by the extension of "
                    "--output). Needs matplotlib: pip install \"ir_rbstar[plot]\".")
    sub = parser.add_subparsers(dest="picture", required=True, metavar="{crp,effort-gain}")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rel", type=int, default=1, help="lowest relevant grade (default 1)")
        p.add_argument("--cutoff", type=int, default=None, help="evaluate the run's top K documents only")
        p.add_argument("--output", "-O", required=True, help="picture file to write: .png or .svg")
        p.add_argument("--title", default=None, help="title of the picture (default: made from the inputs)")

    crp = sub.add_parser("crp", help="the CRP curve of a run on one topic (with the ideal and full-scale runs)",
                         description="The CRP curve of RUN on topic --query, with the ideal and full-scale runs, "
                                     "the recall base, the crossings and the balance point; rho, sigma, tau "
                                     "and the archetype in the legend.")
    crp.add_argument("qrels", help="TREC qrels file or an ir_datasets id ('irds:<id>' or bare)")
    crp.add_argument("run", help="TREC run file (.gz allowed)")
    crp.add_argument("--query", "-Q", required=True, help="query (topic) id")
    crp.add_argument("--dcg", action="store_true", help="add a panel with the run's cumulative DCG and the ideal DCG")
    common(crp)

    eg = sub.add_parser("effort-gain", help="Twist against a gain measure for every run x topic, on a 4x4 grid",
                        description="Scatter of Twist (x) against a gain measure (y) for every run x topic with "
                                    "a recall base >= 1, on the grid of Ferro et al. 2016 (Twist 0.25/0.5/0.75, gain "
                                    "quartiles); prints the share of points in each cell.")
    eg.add_argument("qrels", help="TREC qrels file or an ir_datasets id ('irds:<id>' or bare)")
    eg.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (named by file name without .gz/.run/.txt)")
    eg.add_argument("--gain", default="AP",
                    help="AP, nDCG, RBP (p=0.8) or any ir_measures measure, e.g. 'P@10' (default AP)")
    common(eg)
    return parser


def run_plot(argv: List[str], out=None) -> int:
    """``ir-rbstar plot crp|effort-gain ...``: write the picture, print its path (and the share table)."""
    import pandas as pd
    from .plots import run_names
    args = _plot_parser().parse_args(argv)
    out = out or sys.stdout
    try:
        from . import plots
        plots.picture_format(args.output)            # a bad extension fails before the inputs are read
        qrels = _load_qrels(args.qrels)
        if qrels is None:
            raise errors.MissingQrelsError(f"QRELS={args.qrels!r}: pictures need relevance judgments")
        if args.picture == "crp":
            fig = plots.plot_crp(qrels, args.run, args.query, rel=args.rel, cutoff=args.cutoff, dcg=args.dcg,
                                 path=args.output, title=args.title)
            _close(fig)
            print(args.output, file=out)
            return 0
        fig, shares = plots.plot_effort_gain(qrels, run_names(args.runs), gain=args.gain, rel=args.rel,
                                             cutoff=args.cutoff, path=args.output, title=args.title)
        _close(fig)
    except ImportError as e:
        print(f"ir-rbstar: error: {e}", file=sys.stderr)
        return 2
    print(args.output, file=out)
    cuts = ", ".join(f"{c:.4f}" for c in shares.attrs["gain_cuts"])
    print(f"share of the {shares.attrs['points']} run x topic points per cell (%); rows: {shares.attrs['gain']} "
          f"quartiles (cut at {cuts}), highest first; columns: Twist", file=out)
    with pd.option_context("display.width", 200):
        print((100 * shares).round(1).to_string(), file=out)
    return 0


def _close(fig) -> None:
    import matplotlib.pyplot as plt
    plt.close(fig)


def _distance_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ir-rbstar distance",
        description="The distance between every pair of runs, averaged over the queries, as a matrix: MED "
                    "(Tan & Clarke 2015; MED_P, MED_RBP, MED_nDCG, MED_AP, MED_ERR) or 1 - RBO / 1 - RBA. Prints the "
                    "matrix; --output writes it as TSV, --picture as a heat map (.png or .svg, needs matplotlib).")
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="TREC run files (.gz allowed), named by file name without .gz/.run/.txt")
    parser.add_argument("--measure", "-m", default="MED_nDCG@20",
                        help="the measure, without ref: e.g. MED_nDCG@20 (default), 'MED_RBP(p=0.9)', "
                             "'MED_ERR(max_rel=2)@30', 'RBO(p=0.9)@100' (a similarity: the matrix holds "
                             "1 - RBO; '1-RBO(p=0.9)@100' says the same)")
    parser.add_argument("--qrels", default="none",
                        help="TREC qrels file or ir_datasets id: judged documents are known values and the "
                             "qrels' queries the query set (default none: judgment-free)")
    parser.add_argument("--output", "-O", default=None, help="write the matrix as a TSV file")
    parser.add_argument("--picture", default=None, help="write a heat map of the matrix (.png or .svg)")
    parser.add_argument("--places", "-p", type=int, default=DEFAULT_PLACES)
    parser.add_argument("--progress", action="store_true",
                        help="one line per run on stderr even when it is not a terminal (default: only on a terminal)")
    return parser


def run_distance(argv: List[str], out=None) -> int:
    """``ir-rbstar distance RUN RUN ... [--measure M] [--qrels Q] [--output m.tsv] [--picture m.png]``."""
    from .plots import run_names
    args = _distance_parser().parse_args(argv)
    out = out or sys.stdout
    from . import med
    if args.picture is not None:
        from .plots import picture_format
        picture_format(args.picture)                 # a bad extension fails before the work is done
    text = args.measure.strip()
    if text.startswith("1-"):            # report's spelling of a similarity's distance: the matrix is one
        text = text[2:]
        if parse_measure(" ".join(split_measures(text))).NAME not in med.SIMILARITIES:
            raise errors.ParameterError(f"--measure {args.measure!r}: '1-' makes a distance of "
                                        f"{', '.join(med.SIMILARITIES)} only")
    measure = med._measure(" ".join(split_measures(text)))
    matrix = med.distance_matrix(run_names(args.runs), measure, _load_qrels(args.qrels),
                                 progress=reporter(True if args.progress else None, prefix="ir-rbstar distance"))
    print(f"# {matrix.attrs['distance']}, mean over the queries; rows: run, columns: ref", file=out)
    print(matrix.round(args.places).to_csv(sep="\t"), end="", file=out)
    if args.output:
        matrix.to_csv(args.output, sep="\t")
        print(f"# matrix written to {args.output}", file=out)
    if args.picture:
        try:
            from . import plots
            _close(plots.plot_distance_matrix(matrix, path=args.picture))
        except ImportError as e:
            print(f"ir-rbstar: error: {e}", file=sys.stderr)
            return 2
        print(f"# heat map written to {args.picture}", file=out)
    return 0


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
        except (KeyboardInterrupt, SystemError) as e:
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
            return run_plot(argv[1:])
        if argv and argv[0] == "distance":
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
        print(f"ir-rbstar: error: {e}{_partial()}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
