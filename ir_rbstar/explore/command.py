"""``ir-rbstar explore QRELS RUN_A RUN_B [RUN ...] [--measure M ...] -o page.html``."""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from ..errors import ParameterError
from .data import DEFAULT_DEPTH, MAX_ENTRIES
from .plan import DEFAULT_P, DEFAULT_RBO


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ir-rbstar explore",
        description="Write one self-contained HTML page (data, script and style inline; opens from disk, no "
                    "network) to explore two or more runs query by query: the means with intervals; per query A, "
                    "B, A - B, MED and RBO between them, residuals and tie ranges, sortable and filterable; each "
                    "query's rankings side by side with grades, tie groups and moves. page.html#q=<id> opens a "
                    "query; j/k go to the next/previous one.")
    p.add_argument("qrels", help="TREC qrels file or an ir_datasets id ('irds:<id>' or bare)")
    p.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (.gz allowed), at least two; the first "
                                                          "two are A and B when the page opens")
    p.add_argument("--measure", "-m", action="append", default=None,
                   help="a measure (repeat, or several in one string); the first is the primary one of the "
                        "per-query table (default nDCG@10)")
    p.add_argument("--output", "-o", required=True, help="the HTML file to write")
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                   help=f"how deep the rankings are kept in the page (default {DEFAULT_DEPTH})")
    p.add_argument("--p", type=float, default=DEFAULT_P, dest="p",
                   help=f"persistence of the RBP residual shown (default {DEFAULT_P})")
    p.add_argument("--med", default=None, help="the MED measure between two runs, without ref (default: the "
                                               "primary measure's, e.g. 'MED_nDCG(max_rel=3)@10')")
    p.add_argument("--rbo", default=DEFAULT_RBO, help=f"the RBO measure between two runs (default {DEFAULT_RBO}; "
                                                      f"'none' leaves it out)")
    p.add_argument("--max-rel", type=int, default=None,
                   help="top of the grade scale for graded gains (default: the qrels' highest grade)")
    p.add_argument("--pairs", choices=("all", "first"), default="all",
                   help="MED and RBO for every pair of runs (all, default) or the first run against each other")
    p.add_argument("--provider", default=None, help="the provider of ir_measures' own measures")
    p.add_argument("--docs", default=None, help="document text: a TREC <DOC> file, a docid<TAB>text file or an "
                                                "irds:<id> with its documents available offline")
    p.add_argument("--queries", default=None, help="query text: a qid<TAB>text file or an irds:<id>")
    p.add_argument("--aux", default=None, help="auxiliary judgments (a qrels file or irds:<id>): shown next to "
                                               "the grades as 'auxiliary g', not used in the evaluation")
    p.add_argument("--max-entries", type=int, default=MAX_ENTRIES,
                   help=f"the most numbers the page may hold: ranked documents, per-query values, MED and RBO of "
                        f"the pairs (default {MAX_ENTRIES:,}, a page of about 75 MB); a larger page is refused "
                        f"before any work")
    p.add_argument("--title", default=None, help="the page's title")
    p.add_argument("--progress", action="store_true",
                   help="one line per step on stderr even when it is not a terminal (default: only on a terminal)")
    return p


def main(argv: Optional[List[str]] = None, out=None) -> int:
    from ..plots import run_names
    from ..progress import reporter
    from . import explore
    args = parser().parse_args(argv)
    out = out or sys.stdout
    for path in args.runs:
        if not os.path.isfile(os.path.expanduser(path)):
            raise FileNotFoundError(f"run file not found: {path}")
    if len(args.runs) < 2:
        raise ParameterError("give at least two runs (A and B)")
    measures = None if args.measure is None else " ".join(args.measure)
    rbo = None if str(args.rbo).lower() == "none" else args.rbo
    data = explore(args.qrels, run_names(args.runs), args.output, measures=measures, depth=args.depth, p=args.p,
                   med=args.med, rbo=rbo, max_rel=args.max_rel, pairs=args.pairs, provider=args.provider,
                   docs=args.docs, queries=args.queries, title=args.title, aux=args.aux, max_entries=args.max_entries,
                   progress=reporter(True if args.progress else None, prefix="ir-rbstar explore"))
    size = os.path.getsize(args.output)
    print(f"{args.output}\t{len(data['runs'])} runs, {len(data['queries'])} queries, depth {data['depth']}, "
          f"{size / 1e6:.2f} MB", file=out)
    return 0
