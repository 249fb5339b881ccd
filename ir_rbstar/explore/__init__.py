"""A per-query explorer page for two or more runs: one self-contained HTML file.

``ir_rbstar.explore.explore(qrels, runs, output="page.html")`` (or ``ir-rbstar explore QRELS RUN_A RUN_B
[RUN ...] -o page.html``) evaluates every run with the measures asked for (through this package's provider
and ``ir_measures.iter_calc``: the per-query values of every other door), adds the tie range (the ``_TA``
measure's ``stat='min'`` and ``'max'``) and a residual (``RBP_res``, or the primary measure's own) of the
first measure, MED and RBO of every pair of runs, and the rankings to ``depth`` with grades and tie groups,
and writes one HTML file with the data, script and style inline (nothing is fetched when it opens).

The page has an overview (the means with the report's intervals, :func:`ir_rbstar.stats.mean_intervals`:
BCa bootstrap within the measure's range, t for an unbounded measure; per query, A, B, A - B, MED, RBO,
residuals, tie ranges, sortable and filterable, e.g. the queries whose sign of A - B can flip within the tie
or residual bounds) and a view per query (``page.html#q=<id>``: the two rankings side by side with grades,
"unjudged", tie groups, how far each document moved and where the residual weight sits; every measure's value
on that query; document text on demand when ``docs`` is given). ``j``/``k`` (or the arrow keys) go to the next and
previous query. docs/explore.md describes the page.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from .data import DEFAULT_DEPTH, MAX_ENTRIES, build_data
from .page import render, write_page
from .plan import DEFAULT_P, DEFAULT_RBO

__all__ = ["explore", "build_data", "render", "write_page", "DEFAULT_DEPTH", "MAX_ENTRIES"]


def explore(qrels: Any, runs: Any, output: Any = "explore.html", measures: Any = None, depth: int = DEFAULT_DEPTH,
            p: float = DEFAULT_P, med: Any = None, rbo: Any = DEFAULT_RBO, max_rel: Optional[int] = None,
            pairs: str = "all", provider: Optional[str] = None, docs: Any = None, queries: Any = None,
            title: Optional[str] = None, progress: Optional[Callable[[int, int, str], None]] = None,
            aux: Any = None, max_entries: int = MAX_ENTRIES) -> Dict[str, Any]:
    """Write the explorer page of ``runs`` to ``output`` and return its data (the dict embedded as JSON).

    ``qrels``: a qrels file, an ir_datasets id, a DataFrame or dict of dicts (the query set). ``runs``: a
    mapping of name -> run (DataFrame, dict of dicts, TREC file) or a list of TREC run files (named by
    file name); the first two are A and B when the page opens (any two can be chosen there).
    ``measures``: measure strings (one string, space-separated, or a list); the first is the primary
    measure of the per-query table (default ``nDCG@10``). ``depth``: how deep the rankings are kept
    (default 100). ``p``: persistence of the RBP residual (over the whole ranking; when the primary measure has no
    residual of its own). ``med``, ``rbo``: the measures between two runs, without ``ref`` (default: the MED measure of
    the primary's family, e.g. ``MED_nDCG(max_rel=G)@10``, and ``RBO(p=0.9)``; ``rbo=None`` leaves RBO
    out). ``max_rel``: the top of the grade scale for graded gains (default: the highest grade of the
    qrels). ``pairs``: ``'all'`` (MED and RBO of every pair of runs) or ``'first'`` (the first run against
    each other run). ``provider``: the provider of ir_measures' own measures (as ``--provider``).
    ``docs``: a TREC ``<DOC>`` file, a ``docid<TAB>text`` file or an ``irds:`` id with its documents
    available offline, for the first lines of the documents shown; ``queries``: a ``qid<TAB>text`` file or
    an ``irds:`` id. ``aux``: auxiliary judgments (qrels of a second assessor, a model's labels, ...), shown
    as "auxiliary g" next to each document's grade or "unjudged" and never used in the evaluation.
    ``progress(step, total, message)`` is called as the work goes on. ``max_entries``: the most numbers the page
    may hold (ranked documents, per-query values, MED and RBO of the pairs; default 10,000,000, a page of
    about 75 MB): a larger page is refused with a ParameterError before any work, saying what it would hold and
    how to make it smaller."""
    data = build_data(qrels, runs, measures=measures, depth=depth, p=p, med=med, rbo=rbo, max_rel=max_rel,
                      pairs=pairs, provider=provider, docs=docs, queries=queries, title=title, progress=progress,
                      aux=aux, max_entries=max_entries)
    write_page(data, output)
    return data
