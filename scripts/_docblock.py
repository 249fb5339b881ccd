"""What the report scripts (ties_report.py, twist_report.py, nrg_report.py) share: the generated block of
a document between two marker comments, the command line around it (the data folder, ``--write`` /
``--doc``), writing the block, where the shared data lies (:data:`SHARED_DATA`) and the check that it
is there, Markdown tables, Pearson's r and Kendall's tau-b (:func:`tau_b`: the ``tau_b`` of
``ir_rbstar.stats.ranking_agreement(x, y)`` without its other statistics).

Each report names its own markers and gets them bound, e.g.::

    START, END, generated_block, replace_block = _docblock.markers("nrg-report")
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set

import numpy as np
import scipy.stats

from ir_rbstar.dicts import decoded
from ir_rbstar.io import QUERY_IDS, Ranking, read_trec_run

#: the study data (NIST and third-party runs that may not be copied here), next to the repository
SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def generated_block(doc_text: str, start: str, end: str) -> str:
    """The text between the marker comments ``start`` and ``end`` of a document (stripped); ValueError
    unless each marker occurs exactly once, ``start`` first."""
    if doc_text.count(start) != 1 or doc_text.count(end) != 1 or doc_text.index(start) > doc_text.index(end):
        raise ValueError(f"expected one {start} ... {end} block")
    return doc_text.split(start, 1)[1].split(end, 1)[0].strip()


def replace_block(doc_text: str, block: str, start: str, end: str) -> str:
    """``doc_text`` with ``block`` between the markers instead of what was there (checked as by
    :func:`generated_block`)."""
    generated_block(doc_text, start, end)
    before, rest = doc_text.split(start, 1)
    after = rest.split(end, 1)[1]
    return f"{before}{start}\n{block}\n{end}{after}"


def markers(name: str):
    """``(start, end, generated_block, replace_block)`` of the block named ``name``: the marker comments
    ``<!-- name:start -->`` / ``<!-- name:end -->`` and the two functions above bound to them."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    return (start, end, functools.partial(generated_block, start=start, end=end),
            functools.partial(replace_block, start=start, end=end))


def report_parser(script_doc: str, data_option: str, data_default: Path, data_help: str, doc: Path, repo: Path,
                  also: str = "(between the marker comments)") -> argparse.ArgumentParser:
    """The command line of a report script: described by the first paragraph of ``script_doc``; the
    folder of the shared data (``data_option``, e.g. ``--data``; its help ``data_help`` may show
    ``%(default)s``), ``--write`` (replace the generated block of ``doc``, shown relative to ``repo``;
    ``also`` ends its help) and ``--doc`` (default: ``doc``)."""
    parser = argparse.ArgumentParser(description=script_doc.split("\n\n")[0])
    parser.add_argument(data_option, default=str(data_default), help=data_help)
    parser.add_argument("--write", action="store_true",
                        help=f"also replace the generated block of {doc.relative_to(repo)} {also}")
    parser.add_argument("--doc", default=str(doc), help="document to update with --write (default: %(default)s)")
    return parser


def write_block(doc, block: str, start: str, end: str) -> None:
    """Replace the generated block of the document ``doc`` (a path) and say so on stderr."""
    doc = Path(doc)
    doc.write_text(replace_block(doc.read_text(), block, start, end))
    print(f"\nwrote {doc}", file=sys.stderr)


def md_table(head: List[str], align: str, rows: List[List[str]]) -> str:
    """A Markdown table: the header cells, the alignment row as written (``|---|---:|``), the rows."""
    lines = ["| " + " | ".join(head) + " |", align]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def print_report(args: argparse.Namespace, block: str, start: str, end: str) -> int:
    """Print a report's generated block; with ``--write`` also put it into the document ``--doc``.
    Returns 0 (the exit status)."""
    print(block)
    if args.write:
        write_block(args.doc, block, start, end)
    return 0


def data_missing(paths: Iterable[Path]) -> bool:
    """True, after naming it on stderr, when one of ``paths`` does not exist (the first one missing)."""
    for path in paths:
        if not Path(path).exists():
            print(f"data not found: {path}", file=sys.stderr)
            return True
    return False


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (scipy.stats.pearsonr); NaN when either side is constant."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(scipy.stats.pearsonr(x, y).statistic)


def tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of ``x`` and ``y`` paired by position (scipy.stats.kendalltau), NaN when either side
    is constant: ``ir_rbstar.stats.ranking_agreement(x, y).tau_b``, without the tau_AP and RBO that
    function computes too (tau_AP counts all pairs: most of the time on thousands of (run, topic) values)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(scipy.stats.kendalltau(x, y).statistic)


def judged_frame(ranking: Ranking, queries: Iterable[str]):
    """The rows of ``ranking`` (``query_id, doc_id, score`` in trec_eval order, as ``ir_rbstar.read_run``
    gives them) of the queries in ``queries`` only: no DataFrame of the other queries is made. Document ids
    are decoded as UTF-8."""
    import pandas as pd
    qids = QUERY_IDS.decode(ranking.qcodes)
    seg = ranking.row_segments()
    keep = np.isin(qids, list(queries))[seg]
    return pd.DataFrame({"query_id": qids[seg[keep]], "doc_id": decoded(ranking.dbytes[keep]),
                         "score": ranking.scores[keep]})


# the runs read once and kept while shared_runs() is on: {folder: {path: Ranking}}
_SHARED: Optional[Dict[str, Dict[str, Ranking]]] = None


def read_ranking(path) -> Ranking:
    """``ir_rbstar.io.read_trec_run(path)``; while :func:`shared_runs` is on for the file's folder, read
    once and the same :class:`Ranking` given to every later caller (rankings are not changed by their
    readers)."""
    key = os.path.realpath(path)
    kept = None if _SHARED is None else _SHARED.get(os.path.dirname(key))
    if kept is None:
        return read_trec_run(str(path))
    if key not in kept:
        kept[key] = read_trec_run(str(path))
    return kept[key]


@contextlib.contextmanager
def shared_runs(folders: Iterable) -> Iterator[None]:
    """Keep the runs of ``folders`` that :func:`read_ranking` reads, until the block ends: several reports
    then read each run once (the test suite does this for DL19's 37 runs, about 170 MB)."""
    global _SHARED
    before = _SHARED
    wanted: Set[str] = {os.path.realpath(f) for f in folders}
    _SHARED = {**(before or {}), **{f: (before or {}).get(f, {}) for f in wanted}}
    try:
        yield
    finally:
        _SHARED = before

