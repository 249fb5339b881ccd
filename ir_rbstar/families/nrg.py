"""Glue between the NRG declarations and their kernels: resolves the prior runs, computes the residual
factor of every run row (and, for the normalisation, of every judged document) with one key lookup
per prior run, and calls the kernels."""
from __future__ import annotations

import weakref
from typing import Dict, Iterable, List, Optional, Tuple

import numpy as np

from ..context import RunContext
from ..core import nrg as K
from ..core.ties import safe_divide
from ..errors import ParameterError
from ..io import DocIndex, Ranking, verify_ids
from ..references import resolve_runs



def same_per_query(a: Ranking, b: Ranking, universe: np.ndarray) -> np.ndarray:
    """For each universe query, whether ``b`` ranks the same documents in the same order as ``a`` (both
    rankings of the query empty counts as the same). Symmetric: computed once per unordered pair and
    universe (kept with the pair's rankings), so that evaluating every run of a set against the others
    tests each pair once."""
    if a is b:
        return np.ones(len(universe), dtype=bool)
    for x, y in ((a, b), (b, a)):
        entry = (x.remembered("same rankings") or {}).get(id(y))
        if entry is not None and entry[0]() is y and np.array_equal(entry[1], universe):
            return entry[2]
    same = _same_per_query(a, b, universe)
    # by id, to a weak reference: a ranking outlives the others it is compared with (a registered one, a
    # run kept by io/framecache.py for the next call while new priors are registered), which must not be
    # kept alive by it; the entries of rankings gone are dropped here
    kept = a.remembered("same rankings")
    if kept is None:
        kept = a.remember("same rankings", {})
    for gone in [k for k, entry in list(kept.items()) if entry[0]() is None]:
        kept.pop(gone, None)
    kept[id(b)] = (weakref.ref(b), universe.copy(), same)
    return same


def _signature(r: Ranking, universe: np.ndarray):
    """Per universe query: the ranking's length there and a 64-bit sum of its (document, position) hashes
    (the same list gives the same sum; kept with the ranking, one per universe)."""
    key = ("query signature", universe.tobytes())
    entry = r.remembered(key)
    if entry is None:
        seg = r.segment_of(universe)
        ok = seg >= 0
        lens = np.zeros(len(universe), dtype=np.int64)
        sig = np.zeros(len(universe), dtype=np.uint64)
        if len(r):
            lens[ok] = r.segment_lengths()[seg[ok]]
            h = r.docs.view(np.uint64) ^ (r.row_positions().astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
            h = (h ^ (h >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
            sig[ok] = np.add.reduceat(h, r.offsets[:-1])[seg[ok]]
        entry = r.remember(key, (lens, sig))
    return entry


def _same_per_query(a: Ranking, b: Ranking, universe: np.ndarray) -> np.ndarray:
    seg_a, seg_b = a.segment_of(universe), b.segment_of(universe)
    len_a, sig_a = _signature(a, universe)
    len_b, sig_b = _signature(b, universe)
    same = len_a == len_b
    # only the queries whose lists have equal signatures can be the same: those are checked row by row
    check = np.flatnonzero(same & (len_a > 0) & (sig_a == sig_b))
    same[np.flatnonzero(same & (len_a > 0) & (sig_a != sig_b))] = False
    if len(check):
        lens = len_a[check]
        q = np.repeat(np.arange(len(check)), lens)
        within = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        rows_a = a.offsets[seg_a[check]][q] + within
        rows_b = b.offsets[seg_b[check]][q] + within
        differ = (a.docs[rows_a] != b.docs[rows_b]) | (a.dbytes[rows_a] != b.dbytes[rows_b])
        same[check] = np.bincount(q, weights=differ, minlength=len(check)) == 0
    return same


def priors(ctx: RunContext, spec: str) -> List[Tuple[str, Ranking, np.ndarray]]:
    """The prior runs named by ``spec`` for the evaluated run, each with the universe queries for which
    it counts as a prior. Whether a prior run is "the run itself" is decided per query, from that
    query's rankings only: a prior run with the same documents in the same order as the run for a query
    is not a prior for that query. For a group registered with teams, the runs of the team of such a
    run are not priors for that query either, and with ``best`` only each other team's representative is."""
    def make():
        prior_set = resolve_runs(spec)
        same = {name: same_per_query(ctx.run, r, ctx.universe) for name, r in prior_set.runs}
        if prior_set.team is None:
            return [(name, r, ~same[name]) for name, r in prior_set.runs]
        own_team = {}
        for name, _ in prior_set.runs:
            team = prior_set.team[name]
            own_team[team] = own_team.get(team, np.zeros(ctx.n, dtype=bool)) | same[name]
        keep = []
        for name, r in prior_set.runs:
            team = prior_set.team[name]
            if prior_set.best is not None and prior_set.best.get(team) != name:
                continue
            keep.append((name, r, ~own_team[team]))
        return keep
    return ctx.cached(("nrg_priors", spec), make)


def _gain(base: str, grade: np.ndarray, judged: np.ndarray, rel: int) -> np.ndarray:
    if base == "nDCG":
        return np.where(judged, np.maximum(grade, 0), 0).astype(np.float64)
    return (judged & (grade >= rel)).astype(np.float64)


def _top_rows(run: Ranking, cutoff: Optional[int]):
    """(rows or None for all, their query codes, document hashes, document ids) of ``run``'s top ``cutoff``,
    kept in the run's cache: a run of a prior or rarity set is streamed once per evaluated run and
    measure, and its top rows are the same each time."""
    key = ("top rows", cutoff)
    entry = run.remembered(key)
    if entry is None:
        queries, docs, ids = run.row_queries(), run.docs, run.dbytes
        rows = None
        if cutoff is not None and run.segment_lengths().max(initial=0) > cutoff:
            rows = np.flatnonzero(run.row_positions() < cutoff)
            queries, docs, ids = queries[rows], docs[rows], ids[rows]
        entry = run.remember(key, (rows, queries, docs, ids))
    return entry


def top_hits(run: Ranking, small: DocIndex, cutoff: Optional[int], dbytes: np.ndarray):
    """The rows of ``run``'s top ``cutoff`` whose (query, document) pair is in ``small``: (position of
    each hit in ``small``, its row in ``run``). The run's rows are streamed once through the small
    index (no index of the run is built); every hit is verified against ``dbytes``, the document ids
    ``small`` was built from."""
    rows, queries, docs, ids = _top_rows(run, cutoff)
    at = small.lookup(queries, docs)
    verify_ids(dbytes, at, ids, run.source)
    hit = np.flatnonzero(at >= 0)
    src = hit if rows is None else rows[hit]
    return at[hit], src


def judged_residuals(ctx: RunContext, spec: str, base: str, p: float, cutoff: Optional[int], rel: int):
    """The judgments with a gain of the universe queries: (their qrels rows, universe index, residual
    gain = gain x prod over the prior runs of 1 - seen(rank there)).

    Only documents with a gain matter, and those are judged: so instead of looking every row of the run
    up in every prior run, each prior run's top-k rows are streamed once through a small hash index of
    these judgments (no index of the prior runs is needed)."""
    def make():
        qrels = ctx.qrels
        mine, q = ctx.qrels_universe()
        gain = _gain(base, qrels.grades[mine], np.ones(len(mine), dtype=bool), rel)
        useful = gain > 0
        mine, q, gain = mine[useful], q[useful], gain[useful]
        small = None
        for _, prior, counts in priors(ctx, spec):
            key = ("nrg hits", base, p, cutoff, rel)
            entry = prior.remembered(key)      # a prior's hits serve every run it is a prior of
            if entry is None or entry[0] is not qrels or not np.array_equal(entry[1], mine):
                if small is None:
                    small = DocIndex(qrels.rowq[mine], qrels.rowd[mine])
                at, src = top_hits(prior, small, cutoff, qrels.rowb[mine])
                entry = prior.remember(key, (qrels, mine, at,
                                             1.0 - K.seen(base, prior.row_positions()[src] + 1, p, cutoff)))
            at, factor = entry[2], entry[3]
            ok = counts[q[at]]
            gain[at[ok]] *= factor[ok]
        return mine, q, gain
    return ctx.cached(("nrg_judged", spec, base, p, cutoff, rel), make)


def _run_side(ctx: RunContext, spec: str, base: str, p: float, cutoff: Optional[int], rel: int):
    """The run's top-k rows with a gain, and their residual gains."""
    def make():
        b = ctx.observation(cutoff)
        grade, judged = ctx.judgments(cutoff)
        rows = np.flatnonzero(_gain(base, grade, judged, rel) > 0)
        qrows, _, residual = judged_residuals(ctx, spec, base, p, cutoff, rel)
        where = np.full(len(ctx.qrels.rowq), -1, dtype=np.int64)
        where[qrows] = np.arange(len(qrows))
        at = ctx.qrels.find_rows(ctx.queries(b)[rows], b.docs[rows])
        return b.seg[rows], b.rank[rows], residual[where[at]]
    return ctx.cached(("nrg_run", spec, base, p, cutoff, rel), make)


def _ideal(ctx: RunContext, spec: str, base: str, p: float, cutoff: Optional[int], rel: int) -> np.ndarray:
    def make():
        _, q, residual = judged_residuals(ctx, spec, base, p, cutoff, rel)
        return K.ideal_sum(q, residual, base, p, cutoff, ctx.n)
    return ctx.cached(("nrg_ideal", spec, base, p, cutoff, rel), make)


def _ndcg(ctx: RunContext, run: Ranking, k: int) -> np.ndarray:
    """nDCG@k (trec_eval's, as ir_measures' nDCG@k) of ``run`` on the evaluated run's queries."""
    import ir_measures
    from . import ties
    m = ir_measures.nDCG @ k
    other = ctx if run is ctx.run else RunContext(run, ctx.qrels, ctx.universe)
    return ties.compute([m], other)[m]


def _tasc(ctx: RunContext, m) -> np.ndarray:
    k = m["cutoff"]
    best = np.zeros(ctx.n)
    for _, prior, counts in priors(ctx, m["prior"]):
        best = np.maximum(best, np.where(counts, _ndcg(ctx, prior, k), 0.0))
    return (1.0 - best) * _ndcg(ctx, ctx.run, k)


def _rarp(ctx: RunContext, m) -> np.ndarray:
    k, alpha, rel = m["cutoff"], m["alpha"], m["rel"]
    b = ctx.observation(k)
    grade, judged = ctx.judgments(k)
    relevant = np.flatnonzero(judged & (grade >= rel))
    small = DocIndex(ctx.queries(b)[relevant], b.docs[relevant])
    runs = resolve_runs(m["runs"], "runs").runs
    # per query: is the run one of the set (a run of the set ranks that query as the run does)?
    member = np.zeros(ctx.n, dtype=bool)
    for _, r in runs:
        member |= same_per_query(ctx.run, r, ctx.universe)
    qrow = b.seg[relevant]
    found = np.where(member[qrow], 0.0, 1.0)          # a run outside the set is added to it
    for _, r in runs:
        at, _ = top_hits(r, small, k, b.dbytes[relevant])
        found[at] += 1
    total = len(runs) + np.where(member[qrow], 0, 1)
    credit = 1.0 + alpha * (1.0 - found / total)
    return np.bincount(b.seg[relevant], weights=credit, minlength=ctx.n) / k


def compute(measures: Iterable, ctx: RunContext) -> Dict[object, np.ndarray]:
    out: Dict[object, np.ndarray] = {}
    for m in measures:
        ctx.require_qrels(m)
        if m.NAME == "TaSC":
            out[m] = _tasc(ctx, m)
            continue
        if m.NAME == "RarP":
            out[m] = _rarp(ctx, m)
            continue
        spec, cutoff, rel = m["prior"], m.params.get("cutoff"), m["rel"]
        if m.NAME == "UniqueRel":
            seg, rank, residual = _run_side(ctx, spec, "P", 0.8, cutoff, rel)
            out[m] = K.weighted_sum(seg, rank, residual, "P", 0.8, cutoff, ctx.n)
            continue
        base, p = m["base"], m["p"]
        if base == "P" and cutoff is None:
            raise ParameterError(f"{m}: base='P' needs a cutoff")
        seg, rank, residual = _run_side(ctx, spec, base, p, cutoff, rel)
        total = K.weighted_sum(seg, rank, residual, base, p, cutoff, ctx.n)
        if m["norm"]:
            out[m] = safe_divide(total, _ideal(ctx, spec, base, p, cutoff, rel))
        else:
            out[m] = total / K.normaliser(base, p, cutoff)
    return out
