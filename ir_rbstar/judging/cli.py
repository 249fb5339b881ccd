"""``ir-rbstar judge ...`` and ``ir-rbstar simulate-judging ...`` (registered in :mod:`ir_rbstar.cli`)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import List

from ..errors import ParameterError
from .strategies import GOALS, STRATEGIES


PRIOR_HELP = ("auxiliary judgments (TREC qrels) or probabilities of relevance ('query doc probability' per line) "
              "used as P(relevant) where no human judgment exists (the goals only)")


def _runs(paths: List[str]) -> dict:
    """Each run file read, named by its file name without .gz, .run, .txt or .trec (by its path where two
    files share a name). A file given twice is an error: it would be compared with itself."""
    from ..io import read_trec_run
    from ..plots.common import run_name
    runs = {}
    seen = set()
    for path in paths:
        if not os.path.exists(path):
            raise FileNotFoundError(f"run file not found: {path}")
        real = os.path.realpath(path)
        if real in seen:
            raise ParameterError(f"RUN: the file {path} is given twice")
        seen.add(real)
        name = run_name(path)
        if name in runs:
            name = path
        runs[name] = read_trec_run(path)
    return runs


def _ints(text: str, name: str) -> List[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise ParameterError(f"{name}: expected integers separated by commas, got {text!r}") from None


def judge_main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="ir-rbstar judge",
        description="The next (query, document) pairs to judge: a TSV file (query_id, doc_id, priority, round, "
                    "strategy, reason) and, with --stub, a qrels-like file for the assessors.")
    parser.add_argument("qrels", help="judgments so far: a TREC qrels file, an ir_datasets id, or 'none' (or an "
                                      "empty file) to start from nothing")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (.gz allowed)")
    parser.add_argument("--measure", default=None, help="the measure whose weights drive the choice: "
                        "RBP(...)[@k], nDCG@k or P@k (default RBP(p=0.8) with max_rel the highest grade of the "
                        "qrels, e.g. RBP(p=0.8,max_rel=3) on TREC DL)")
    parser.add_argument("--budget", type=int, required=True, help="how many documents to choose")
    parser.add_argument("--goal", choices=GOALS, default=None,
                        help="residual (shrink the runs' residuals), pairs (settle comparisons, default), "
                             "ranking (settle the order of the runs)")
    parser.add_argument("--strategy", choices=STRATEGIES, default=None,
                        help="a baseline instead of a goal: depth, rbp_sum, rbp_max, mtf, bandit")
    parser.add_argument("--per-query", type=int, default=None, metavar="N", help="at most N documents per query")
    parser.add_argument("--batch", type=int, default=None, metavar="K", help="K documents per round")
    parser.add_argument("--depth", type=int, default=None, help="pool depth (default: the cutoff, or where "
                        "the RBP weight falls below 0.1%% of rank 1's; for nDCG@k it may pass the cutoff: the "
                        "deeper documents can raise a query's ideal DCG)")
    parser.add_argument("--baseline", default=None, metavar="RUN", help="with pairs/ranking: only the "
                        "comparisons with this run (its name, i.e. file name without .gz/.run/.txt, or its file name)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prior", default=None, metavar="FILE", help=PRIOR_HELP)
    parser.add_argument("-o", "--output", default="-", help="TSV file (default: standard output)")
    parser.add_argument("--stub", default=None, help="also write a qrels stub 'query 0 doc _' here")
    parser.add_argument("--progress", action="store_true",
                        help="one line per round on stderr even when it is not a terminal (default: only on a "
                             "terminal)")
    args = parser.parse_args(argv)
    if args.goal is not None and args.strategy is not None and args.goal != args.strategy:
        raise ParameterError("--goal and --strategy: give one of them")
    from ..progress import reporter
    from .select import select, write_selection, write_stub
    table = select(_runs(args.runs), args.qrels, args.measure, budget=args.budget,
                   strategy=args.strategy or args.goal or "pairs", batch=args.batch, per_query=args.per_query,
                   depth=args.depth, baseline=args.baseline, seed=args.seed, prior=args.prior,
                   progress=reporter(True if args.progress else None, prefix="ir-rbstar judge"))
    if args.output == "-":
        table.to_csv(sys.stdout, sep="\t", index=False, float_format="%.6g")
    else:
        write_selection(table, args.output)
    if args.stub:
        write_stub(table, args.stub)
    return 0


def simulate_main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="ir-rbstar simulate-judging",
        description="Replay judging strategies with the qrels as the oracle (a document the qrels lack counts "
                    "as non-relevant) and print, per strategy, budget and measure: tau_b, tau_AP, the share of "
                    "pairwise verdicts agreeing with the full judgments, the robust share, the mean residual.")
    parser.add_argument("qrels", help="the real judgments (the oracle): a TREC qrels file or an ir_datasets id")
    parser.add_argument("runs", nargs="+", metavar="RUN")
    parser.add_argument("--measures", nargs="+", default=None, help="measures to evaluate (default RBP(p=0.8) with "
                        "max_rel the highest grade of the qrels, e.g. RBP(p=0.8,max_rel=3) on TREC DL)")
    parser.add_argument("--select-measure", default=None, help="the measure whose weights the strategies "
                                                               "use (default: the first of --measures)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES), help="comma-separated")
    parser.add_argument("--budgets", default=None, help="comma-separated numbers of judgments (default: 2%%, 5%%, "
                        "10%%, 20%%, 30%%, 50%%, 75%% and 100%% of the pool, in whole rounds)")
    parser.add_argument("--batch", type=int, default=None, help="documents per round (default: one per query)")
    parser.add_argument("--depth", type=int, default=None, help="pool depth (as for judge; for nDCG@k it may pass "
                        "the cutoff)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--prior", default=None, metavar="FILE", help=PRIOR_HELP)
    parser.add_argument("-o", "--output", default="-", help="TSV table (default: standard output)")
    parser.add_argument("--picture", default=None, help="a picture of the curves (png, pdf, svg)")
    parser.add_argument("--order", action="append", default=[], metavar="NAME=FILE",
                        help="a judging order made elsewhere (e.g. a pool from another tool), replayed beside the "
                             "strategies: a TSV with query_id and doc_id columns (as judge writes) or 'query doc' "
                             "/ 'query 0 doc ...' lines, in the order the documents are judged; repeatable")
    parser.add_argument("--progress", action="store_true",
                        help="one line per strategy and budget on stderr even when it is not a terminal "
                             "(default: only on a terminal)")
    args = parser.parse_args(argv)
    orders = {}
    for item in args.order:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ParameterError(f"--order: NAME=FILE, got {item!r}")
        if name in orders:
            raise ParameterError(f"--order: the name {name!r} is given twice")
        orders[name] = path
    from ..progress import reporter
    from .simulate import plot_simulation, simulate
    table = simulate(args.qrels, _runs(args.runs), measures=args.measures,
                     strategies=[s.strip() for s in args.strategies.split(",") if s.strip()],
                     budgets=None if args.budgets is None else _ints(args.budgets, "--budgets"), batch=args.batch,
                     select_measure=args.select_measure,
                     depth=args.depth, seed=args.seed, alpha=args.alpha, prior=args.prior,
                     progress=reporter(True if args.progress else None, prefix="ir-rbstar simulate-judging"),
                     orders=orders)
    table.to_csv(sys.stdout if args.output == "-" else args.output, sep="\t", index=False, float_format="%.4f")
    if args.picture:
        import matplotlib.pyplot as plt
        plt.close(plot_simulation(table, args.picture))
    return 0
