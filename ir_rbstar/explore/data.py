"""The data of an explorer page: per-query values of every run (through the package's evaluation, the same
numbers as ``ir_measures.iter_calc``), means with the report's intervals, MED and RBO of every pair of runs, and
the rankings to a depth with grades and tie groups, as one JSON-ready dict."""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ..dicts import qrels_dict, ranking_dict
from ..errors import ParameterError
from ..io import QUERY_IDS, Qrels, Ranking, to_ranking
from .plan import DEFAULT_P, DEFAULT_RBO, Plan, make_plan
from .rankings import kept_lengths, ranking_tables, with_none

__all__ = ["build_data", "page_entries", "DEFAULT_DEPTH", "FORMAT_VERSION", "INTERVAL", "MAX_ENTRIES"]

DEFAULT_DEPTH = 100
FORMAT_VERSION = 1
#: the most numbers a page may hold (ranked documents, per-query values, MED and RBO of the pairs) unless told
#: otherwise: 9.9 million made a page of 74 MB in 17 s and 2.1 GB here, which headless Chromium opened in 2.3 s
#: (docs/explore.md)
MAX_ENTRIES = 10_000_000
#: how the means' intervals are made: the report's (ir_rbstar.stats.mean_intervals, its defaults)
CONFIDENCE, RESAMPLES, SEED = 0.95, 9999, 0
INTERVAL = (f"{round(CONFIDENCE * 100)}% interval of the mean, as the report's: BCa bootstrap within the measure's "
            f"range ({RESAMPLES} resamples, seed {SEED}), Student's t for an unbounded measure "
            f"(ir_rbstar.stats.mean_intervals)")


def _natural_key(qid: str):
    return (0, int(qid), "") if qid.isdigit() else (1, 0, qid)


def _rankings(runs: Any) -> Dict[str, Ranking]:
    if isinstance(runs, Mapping):
        named = {str(k): v for k, v in runs.items()}
    else:
        from ..plots import run_names
        named = run_names([os.fspath(p) for p in runs])
    if len(named) < 2:
        raise ParameterError(f"runs: the explorer compares runs; give at least two (got {len(named)})")
    return {name: to_ranking(run, source=f"run {name!r}") for name, run in named.items()}


def evaluate(plan: Plan, qrels: Qrels, rankings: Dict[str, Ranking], qids: List[str],
             provider: Optional[str] = None, progress=None) -> Dict[str, Dict[str, np.ndarray]]:
    """run -> measure label -> per-query values (NaN where a provider gives a query no value), in ``qids``
    order. This package's measures through its provider's evaluator (``ir_rbstar.PROVIDER``), the others
    through ``ir_measures.iter_calc`` (or the provider named ``provider``) on the run as a dict of dicts
    of the qrels' queries: the numbers of ``ir_measures.iter_calc``."""
    import ir_measures

    from ..provider import PROVIDER, split_by_provider
    where = {q: i for i, q in enumerate(qids)}
    ours, others = split_by_provider(plan.measures, provider)
    evaluator = PROVIDER.evaluator(ours, qrels) if ours else None
    calc = ir_measures.providers.registry[provider] if provider else ir_measures
    judged = qrels_dict(qrels) if others else {}
    out: Dict[str, Dict[str, np.ndarray]] = {}
    for step, (name, ranking) in enumerate(rankings.items(), 1):
        if progress is not None:
            progress(step, len(rankings), f"evaluating {name}")
        values = {str(m): np.full(len(qids), np.nan) for m in plan.measures}
        if evaluator is not None:
            got = evaluator.values(ranking)
            rows = np.array([where.get(str(q), -1) for q in got["query_id"]], dtype=np.int64)
            keep = rows >= 0
            for m in ours:
                values[str(m)][rows[keep]] = np.asarray(got[m], dtype=float)[keep]
        if others:
            for metric in calc.iter_calc(others, judged, ranking_dict(ranking, qids)):
                i = where.get(str(metric.query_id))
                if i is not None:
                    values[str(metric.measure)][i] = metric.value
        out[name] = values
    return out


def intervals(values: np.ndarray, bounds: Tuple[Optional[float], Optional[float]] = (None, None)
              ) -> Tuple[Optional[float], Optional[float], Optional[float], int]:
    """(mean, low, high, n) of the values present (NaN: none), the interval the report gives the same values
    (:func:`mean_intervals`)."""
    return mean_intervals(np.asarray(values, dtype=float)[:, None], bounds)[0]


def mean_intervals(matrix: np.ndarray, bounds: Tuple[Optional[float], Optional[float]]
                   ) -> List[Tuple[Optional[float], Optional[float], Optional[float], int]]:
    """Per column of ``matrix`` (queries x runs, NaN: no value) of a measure whose values lie in ``bounds``:
    (mean, low, high, n), the 95% interval of the mean as the report computes it
    (:func:`ir_rbstar.report.markdown.intervals_in_range`: :func:`ir_rbstar.stats.mean_intervals`, BCa within
    the measure's range, t for an unbounded one). One value: [value, value]; none: Nones."""
    from ..report.markdown import intervals_in_range
    present = np.isfinite(matrix)
    counts = present.sum(axis=0)
    wide = counts >= 2
    lows = np.full(matrix.shape[1], np.nan)
    highs = np.full(matrix.shape[1], np.nan)
    if wide.any():
        lo, hi = intervals_in_range(np.where(present, matrix, np.nan)[:, wide], bounds)
        lows[wide], highs[wide] = lo, hi
    out: List[Tuple[Optional[float], Optional[float], Optional[float], int]] = []
    for j, n in enumerate(counts.tolist()):
        if n == 0:
            out.append((None, None, None, 0))
            continue
        mean = float(matrix[present[:, j], j].mean())
        low, high = (float(lows[j]), float(highs[j])) if n >= 2 else (mean, mean)
        out.append((mean, low, high, int(n)))
    return out


def _symmetric(m) -> bool:
    """Whether m(run=a, ref=b) = m(run=b, ref=a): MED cuts both lists at k, RBO and RBA without a cutoff
    are symmetric; with ``@k`` RBO and RBA cut the evaluated run only."""
    return m is None or m.NAME.startswith("MED_") or not m.params.get("cutoff")


def pair_values(plan: Plan, qrels: Qrels, rankings: Dict[str, Ranking], qids: List[str], pairs: str,
                progress=None) -> Dict[str, List[List[Optional[float]]]]:
    """``"i,j"`` (run indices) -> [MED per query, RBO per query] with run i evaluated against ``ref`` j. Where
    both measures are symmetric only ``i < j`` is stored (each pair evaluated once); otherwise both orders.
    ``pairs``: ``'all'`` or ``'first'`` (the pairs of the first run with each other run). The measures that
    :func:`ir_rbstar.matrices.fast` serves (the default ``RBO(p=0.9)`` and ``MED_nDCG@k``, ``MED_P@k``) are
    computed for every pair of a group at once by :func:`ir_rbstar.matrices.pair_values` (the report's
    matrices: the same values as the provider's to rounding); the others pair by pair through
    :func:`ir_rbstar.med.pairwise`."""
    from ..matrices import fast
    names = list(rankings)
    index = {name: i for i, name in enumerate(names)}
    if pairs == "all":
        groups = [names]
    elif pairs == "first":
        groups = [[names[0], other] for other in names[1:]]
    else:
        raise ParameterError(f"pairs={pairs!r}: 'all' or 'first'")
    both = not (_symmetric(plan.med) and _symmetric(plan.rbo))
    slow = [m for m in (plan.med, plan.rbo) if m is not None and not fast(m, qrels)]
    quick = [m for m in (plan.med, plan.rbo) if m is not None and fast(m, qrels)]
    # the groups in each direction evaluated (pairwise evaluates the earlier run against the later one)
    directed = groups + [list(reversed(g)) for g in groups] if both else groups
    where = {q: i for i, q in enumerate(qids)}
    # (i, j) -> measure label -> per-query values in qids order
    found: Dict[Tuple[int, int], Dict[str, List[Optional[float]]]] = {}
    if quick:
        for g, group in enumerate(groups, 1):
            if progress is not None and len(groups) > 1 and not slow:
                progress(g, len(groups), f"MED and RBO of {group[0]} against {', '.join(group[1:])}")
            if not _pairs_at_once(quick, qrels, [rankings[n] for n in group], [index[n] for n in group], where,
                                  found):
                slow, quick = slow + quick, []
                found.clear()
                break
    if slow:
        for g, group in enumerate(directed, 1):
            if progress is not None and len(directed) > 1:
                progress(g, len(directed), f"MED and RBO of {group[0]} against {', '.join(group[1:])}")
            _pairs_one_by_one(slow, qrels, {n: rankings[n] for n in group}, index, where, found)
    from ..med import _label
    out: Dict[str, List[List[Optional[float]]]] = {}
    for i, j in _order_of(directed, index, both):
        if (i, j) not in found:
            continue
        row: List[List[Optional[float]]] = []
        for m in (plan.med, plan.rbo):
            label = None if m is None else _label(m)
            got = found[(i, j)].get(label) if label else None
            if got is None and label:             # a symmetric measure computed for (j, i) only
                got = found.get((j, i), {}).get(label)
            none: List[Optional[float]] = [None] * len(qids)
            row.append(got if got is not None else none)
        out[f"{i},{j}"] = row
    return out


def _order_of(directed: List[List[str]], index: Dict[str, int], both: bool) -> List[Tuple[int, int]]:
    """The (i, j) keys of the page's pairs in the order the pairs were always listed: every group's pairs
    (earlier run first, in the group's order), then, where a measure is not symmetric, the reversed ones
    (``directed``: the groups, then the reversed groups when ``both``)."""
    keys: List[Tuple[int, int]] = []
    for group in directed:
        for x, a in enumerate(group):
            for b in group[x + 1:]:
                i, j = index[a], index[b]
                if both or i < j:
                    keys.append((i, j))
    return list(dict.fromkeys(keys))


def _pairs_at_once(measures, qrels: Qrels, group: List[Ranking], ids: List[int], where: Dict[str, int],
                   found) -> bool:
    """Every pair of ``group`` at once for ``measures`` (all served by :func:`ir_rbstar.matrices.fast`), into
    ``found[(i, j)][label]`` for i < j in the group's order; False where a measure's grade scale does not fit
    the qrels (the pair-by-pair evaluation then raises the error as the measure names it)."""
    from ..errors import GradeScaleError
    from ..matrices import pair_values as at_once
    from ..med import _label
    universe = qrels.qcodes
    slots = np.array([where.get(str(q), -1) for q in QUERY_IDS.decode(universe)], dtype=np.int64)
    keep = slots >= 0
    x, y = np.triu_indices(len(group), k=1)
    for m in measures:
        m.validate_params()
        try:
            values = at_once(group, m, qrels, universe)
        except GradeScaleError:
            return False
        label = _label(m)
        rows = _as_lists(np.asarray(values, dtype=np.float64).reshape(len(x), -1), slots, keep, len(where))
        for k, (a, b) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
            found.setdefault((ids[a], ids[b]), {})[label] = rows[k]
    return True


def _as_lists(values: np.ndarray, slots: np.ndarray, keep: np.ndarray, n: int) -> List[List[Optional[float]]]:
    """Per row of ``values`` (rows x columns), the page's list of ``n`` values: column ``c`` at ``slots[c]`` where
    ``keep[c]``, None where a value is missing or not finite (:func:`_finite_lists`)."""
    out = np.full((len(values), n), np.nan)
    out[:, slots[keep]] = values[:, keep]
    return _finite_lists(out)


def _finite_lists(values: np.ndarray) -> list:
    """``values.tolist()`` with None for every value that is not finite (NaN: no value; :func:`.rankings.with_none`)."""
    return with_none(values, ~np.isfinite(values))


def _pairs_one_by_one(measures, qrels: Qrels, group: Dict[str, Ranking], index: Dict[str, int],
                      where: Dict[str, int], found) -> None:
    """The pairs of ``group`` evaluated by :func:`ir_rbstar.med.pairwise`, the earlier run against the later
    one, into ``found[(i, j)][label]``."""
    from ..med import _label, pairwise
    frame = pairwise(group, measures, qrels)
    order = {name: k for k, name in enumerate(group)}
    frame = frame[frame["run"].map(order) < frame["ref"].map(order)]       # the evaluated direction
    for (a, b), part in frame.groupby(["run", "ref"], sort=False):
        cell = found.setdefault((index[a], index[b]), {})
        for m in measures:
            sel = part[part["measure"] == _label(m)]
            slots = sel["query_id"].map(where).to_numpy(dtype=np.float64)       # NaN: a query not on the page
            keep = ~np.isnan(slots)
            cell[_label(m)] = _as_lists(sel["value"].to_numpy(dtype=np.float64)[None, :],
                                        np.nan_to_num(slots).astype(np.int64), keep, len(where))[0]


def build_data(qrels: Any, runs: Any, measures: Any = None, depth: int = DEFAULT_DEPTH, p: float = DEFAULT_P,
               med: Any = None, rbo: Any = DEFAULT_RBO, max_rel: Optional[int] = None, pairs: str = "all",
               provider: Optional[str] = None, docs: Any = None, queries: Any = None, title: Optional[str] = None,
               progress: Optional[Callable[[int, int, str], None]] = None, aux: Any = None,
               max_entries: int = MAX_ENTRIES) -> Dict[str, Any]:
    """The page's data (see :func:`ir_rbstar.explore.explore` for the parameters)."""
    if isinstance(max_entries, bool) or not isinstance(max_entries, (int, np.integer)) or max_entries < 1:
        raise ParameterError(f"max_entries={max_entries!r}: a positive integer (the most numbers the page may hold)")
    from ..datasets import resolve_qrels
    from . import text
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ParameterError(f"depth={depth!r}: a positive integer")
    qrels_spec = qrels
    qrels = resolve_qrels(qrels)
    if qrels is None:
        raise ParameterError("qrels: the explorer needs relevance judgments")
    top = int(max_rel) if max_rel is not None else max(1, qrels.max_grade)
    plan = make_plan(measures, top, p=p, med=med, rbo=rbo)
    rankings = _rankings(runs)
    aux_judgments = None if aux is None else resolve_qrels(aux)
    qids = sorted((str(q) for q in QUERY_IDS.decode(qrels.qcodes)), key=_natural_key)
    _within_budget(page_entries(plan, rankings, qrels.qcodes, depth, pairs), max_entries, depth)
    values = evaluate(plan, qrels, rankings, qids, provider, progress)
    labels = [str(m) for m in plan.measures]
    from ..report.catalogue import value_range
    by_label = {}
    for m, label in zip(plan.measures, labels, strict=True):     # one call per measure: its runs share resamples
        matrix = np.column_stack([np.asarray(values[name][label], dtype=float) for name in rankings])
        by_label[label] = mean_intervals(matrix, value_range(m))
    means = [[list(by_label[label][r]) for label in labels] for r in range(len(rankings))]
    pair = pair_values(plan, qrels, rankings, qids, pairs, progress)
    tables = ranking_tables(qrels, rankings, qids, depth, aux=aux_judgments)
    texts, text_note = text.document_texts(docs, qrels_spec, tables.docs)
    qtext = text.query_texts(queries, qrels_spec, qids)
    return {
        "version": FORMAT_VERSION,
        "title": title or "ir_rbstar explorer",
        "runs": list(rankings),
        "queries": qids,
        "qtext": qtext,
        "measures": labels,
        "asked": plan.asked,
        "primary": plan.primary,
        "tie": [plan.tie_min, plan.tie_max] if plan.tie_min else None,
        "residual": {"value": plan.res_value, "res": plan.res, "p": plan.res_p,
                     "rbp": str(plan.res).startswith("RBP_res"), "cutoff": plan.res_cutoff},
        "pair_measures": [None if m is None else _pair_label(m) for m in (plan.med, plan.rbo)],
        "max_rel": top,
        "values": [_finite_lists(np.array([values[name][label] for label in labels], dtype=np.float64))
                   for name in rankings],
        "means": means,
        "interval": INTERVAL,
        "pairs": pair,
        "depth": int(depth),
        "docs": tables.docs,
        "grades": tables.grades,
        "aux": tables.aux,
        "rank": tables.positions,
        "ties": tables.ties,
        "length": tables.lengths,
        "text": texts,
        "text_note": text_note,
    }


def page_entries(plan: Plan, rankings: Dict[str, Ranking], qcodes: np.ndarray, depth: int, pairs: str
                 ) -> Dict[str, int]:
    """How many numbers a page will hold, before any is computed: ``"rankings"`` (the ranked documents kept to
    ``depth`` of the queries ``qcodes``, over all runs), ``"values"`` (per query, run and measure) and
    ``"pairs"`` (per query, pair of runs and MED or RBO measure, both orders where a measure is not
    symmetric)."""
    if pairs not in ("all", "first"):
        raise ParameterError(f"pairs={pairs!r}: 'all' or 'first'")
    kept = sum(int(kept_lengths(ranking, qcodes, depth)[1].sum()) for ranking in rankings.values())
    r, nq = len(rankings), len(qcodes)
    n_pairs = r * (r - 1) // 2 if pairs == "all" else r - 1
    both = 1 if _symmetric(plan.med) and _symmetric(plan.rbo) else 2
    pair_measures = sum(m is not None for m in (plan.med, plan.rbo))
    return {"rankings": kept, "values": r * len(plan.measures) * nq, "pairs": n_pairs * both * pair_measures * nq}


def _within_budget(entries: Dict[str, int], max_entries: int, depth: int) -> None:
    """A ParameterError, before the work, when the page would hold more than ``max_entries`` numbers."""
    total = sum(entries.values())
    if total <= max_entries:
        return
    raise ParameterError(
        f"the page would hold {total:,} numbers, more than max_entries={max_entries:,}: {entries['rankings']:,} "
        f"ranked documents (depth {depth}), {entries['values']:,} per-query values, {entries['pairs']:,} MED and "
        f"RBO values of pairs of runs (roughly {total * 8 / 1e6:,.0f} MB of page). Give a smaller depth "
        f"(depth=, --depth), the pairs of the first run only (pairs='first', --pairs first), fewer runs, qrels of "
        f"fewer queries, or a larger max_entries (--max-entries) if the machine and the browser can take it")


def _pair_label(m) -> str:
    from ..med import _label
    return _label(m)


def query_values(data: Dict[str, Any], run: str, measure: str) -> Dict[str, Optional[float]]:
    """query -> value of ``measure`` for ``run`` in a page's data (for checks and tests)."""
    r, m = data["runs"].index(run), data["measures"].index(measure)
    return dict(zip(data["queries"], data["values"][r][m], strict=True))
