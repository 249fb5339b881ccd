"""The ``ir-rbstar report`` command: its arguments and its entry point."""
from __future__ import annotations

import argparse
import os
from typing import Dict, List, Optional, Tuple


from ..errors import ParameterError
from .stats import DEFAULT_PERMUTATIONS, DEFAULT_SEED
from .build import build_report


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``ir-rbstar report``."""
    parser.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                        help="TREC qrels file (or ir_datasets id), then one or more TREC run files (named by "
                             "file name without .gz/.run/.txt)")
    parser.add_argument("--output", "-O", required=True, metavar="DIR",
                        help="folder to write report.md, the tables and the pictures into (created if needed)")
    parser.add_argument("--reference", "-r", metavar="REF",
                        help="reference ranking (run file) for RBR, RBA and RBO")
    parser.add_argument("--baseline", "-b", metavar="NAME",
                        help="the run the others are tested against (its name, i.e. file name without "
                             ".gz/.run/.txt, its file name or its path)")
    parser.add_argument("--groups", "-g", metavar="FILE",
                        help="TSV file of run<TAB>group lines: NRG's prior set is then the best run of "
                             "every other group")
    parser.add_argument("--measures", "-m", metavar="MEASURES",
                        help="measures instead of the default set, e.g. \"nDCG@10 RBP(p=0.8) 1-RBO(p=0.9,ref='bm25')\"")
    parser.add_argument("--max-rel", dest="max_rel", type=int, default=None, metavar="G",
                        help="top of the grade scale of the graded measures, also those of --measures (default: "
                             "the collection's: the ir_datasets qrels_defs, else the highest grade in the qrels)")
    parser.add_argument("--aux", metavar="QRELS",
                        help="auxiliary judgments (a qrels file or ir_datasets id, e.g. from an LLM) filling the "
                             "documents the qrels leave unjudged in RBP and RBP_res; per_query.tsv splits each RBP "
                             "value by provenance and the robust verdicts that depend on them are marked")
    parser.add_argument("--topic", metavar="QUERY", help="query of the CRP picture (default: a typical one)")
    parser.add_argument("--no-pictures", dest="pictures", action="store_false", help="draw no pictures")
    parser.add_argument("--explore", action="store_true",
                        help="also write explore.html, the per-query explorer page (the baseline, else the first "
                             "run, against each other run; see 'ir-rbstar explore'), linked from results.html")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--permutations", type=int, default=None,
                        help="random sign flips per test against the baseline (default: adaptive, exact where "
                             "2^n is small, else as many as Holm's correction over the runs of each measure needs "
                             "to reach --alpha); also the resamples of the all-pairs Tukey HSD test (default "
                             f"{DEFAULT_PERMUTATIONS:,})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the sign flips")
    parser.add_argument("--demo", action="store_true",
                        help="the bundled Vaswani collection: its qrels, the four first-stage runs, "
                             "minilm_rerank as reference, bm25 as baseline")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--progress", action="store_true",
                        help="progress lines on stderr even when it is not a terminal (default: only on a terminal)")
    return parser


def _demo_inputs() -> Tuple[str, Dict[str, str], str, str]:
    from ..demo import REFERENCE, data_dir, demo_runs
    runs = demo_runs()
    reference = runs.pop(REFERENCE)
    return os.path.join(data_dir(), "qrels"), runs, reference, "bm25"


def main(argv: Optional[List[str]] = None) -> int:
    """``ir-rbstar report ...``: write the report, print the files written (stdout) and the progress
    (stderr: on a terminal or with --progress, never with --quiet)."""
    parser = argparse.ArgumentParser(
        prog="ir-rbstar report",
        usage="%(prog)s QRELS RUN [RUN ...] --output DIR [options]\n       %(prog)s --demo --output DIR [options]",
        description="Evaluate runs with every measure family (ir_measures' and ir_rbstar's) and write a "
                    "Markdown report (means, ranks, significance against a baseline, distances) with "
                    "pictures into one folder.")
    args = add_arguments(parser).parse_args(argv)
    if args.demo:
        if args.inputs:
            raise ParameterError("--demo uses the bundled collection: give no QRELS or RUN")
        qrels, runs, reference, baseline = _demo_inputs()
        reference = args.reference or reference
        baseline = args.baseline or baseline
    else:
        if len(args.inputs) < 2:
            raise ParameterError("give QRELS and at least one RUN (or --demo)")
        qrels, runs = args.inputs[0], args.inputs[1:]
        reference, baseline = args.reference, args.baseline

    from ..progress import reporter
    progress = reporter(False if args.quiet else (True if args.progress else None), prefix="ir-rbstar report")

    table = build_report(qrels, runs, args.output, reference=reference, baseline=baseline, groups=args.groups,
                         measures=args.measures, progress=progress, alpha=args.alpha,
                         permutations=args.permutations, seed=args.seed, topic=args.topic, pictures=args.pictures,
                         max_rel=args.max_rel, explore=args.explore, aux=args.aux)
    files = table.attrs["files"]
    print(f"{len(files)} files written to {args.output}:")
    for name in files:
        print(f"  {name}")
    return 0
