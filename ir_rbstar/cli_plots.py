"""The ``ir-rbstar plot`` and ``ir-rbstar distance`` subcommands (pictures of the Twist analysis,
:mod:`ir_rbstar.plots`; run-distance matrices, :mod:`ir_rbstar.med`); :mod:`ir_rbstar.cli` dispatches to them."""
from __future__ import annotations

import argparse
import sys
from typing import List

from . import errors
from ._cli_args import DEFAULT_PLACES, load_qrels as _load_qrels
from .parsing import parse_measure, split_measures
from .progress import reporter


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
    parser.add_argument("--measure", "-m", default=None,
                        help="the measure, without ref: e.g. MED_nDCG@20 (default; with graded --qrels "
                             "MED_nDCG(max_rel=G)@20, G their highest grade), 'MED_RBP(p=0.9)', "
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
    qrels = _load_qrels(args.qrels)
    text = (args.measure if args.measure is not None else med.default_distance(qrels, args.qrels)).strip()
    if text.startswith("1-"):            # report's spelling of a similarity's distance: the matrix is one
        text = text[2:]
        if parse_measure(" ".join(split_measures(text))).NAME not in med.SIMILARITIES:
            raise errors.ParameterError(f"--measure {args.measure!r}: '1-' makes a distance of "
                                        f"{', '.join(med.SIMILARITIES)} only")
    measure = med._measure(" ".join(split_measures(text)))
    matrix = med.distance_matrix(run_names(args.runs), measure, qrels,
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
