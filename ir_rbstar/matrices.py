"""Distance matrices of many runs computed as arrays over the pairs (the report's MED and RBO matrices).

:func:`ir_rbstar.med.pairwise` evaluates the measure once per unordered pair through the provider, one
evaluation (join, tie groups, kernels) per pair. For the measures below, this module computes every pair of a
set of runs at once with the same kernels (:func:`ir_rbstar.med.distance_frame` chooses, for
:func:`ir_rbstar.med.distance_matrix`, ``ir-rbstar distance`` and the report alike):

* each run's rows are prepared once (gathered for the query universe, with their tie groups and
  judgments), not once per pair;
* the documents two runs share are found for all pairs together: the rows of every run of a few queries
  are sorted by (query, document), and every two rows of one document in one query are a shared document
  of that pair (no hash join per pair);
* the pairs are segments of one call of the kernel (segment = pair x query); a run is never paired with
  itself (the diagonal is 0 by definition) and each unordered pair is computed once (the measures are
  symmetric).

Served here: ``RBO(p=...)`` with ``ties='expected'`` (the default) and no cutoff, and the closed-form MED
measures ``MED_nDCG@k`` and ``MED_P@k`` against the qrels (``judgments=True``). The values equal the
provider's to rounding (tests/families/test_med_matrix.py compares them to :func:`ir_rbstar.med.pairwise`).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from .context import RunContext, gather
from .core import rankbiased as KR
from .core import rankbiased_ties as T
from .core.med import Side
from .core.segments import seg_sum
from .errors import ParameterError
from .io import Qrels, Ranking, hashes_are_ids, verify_matches

__all__ = ["fast", "pair_means", "pair_values"]

#: pair entries (two rows of one document in one query) per block of work: bounds the memory
BLOCK = 1 << 20


def fast(m, qrels: Optional[Qrels]) -> bool:
    """Whether :func:`pair_means` computes measure ``m`` (with its ``ref`` being each other run)."""
    name = getattr(m, "NAME", "")
    if name == "RBO":
        return m["ties"] == "expected" and m.params.get("cutoff") is None
    if name in ("MED_nDCG", "MED_P"):
        return qrels is not None and bool(m["judgments"]) and m.params.get("cutoff") is not None
    return False


class _Prepared:
    """The rows of every run for the universe, concatenated run after run (rows of a run grouped by
    query, in rank order), with what the measures need of each row."""

    def __init__(self, rankings: List[Ranking], universe: np.ndarray, cutoff: Optional[int], ties: bool):
        parts = [gather(r, universe, cutoff) for r in rankings]
        self.n, self.runs = len(universe), len(rankings)
        self.lens = np.stack([p.lens.astype(np.int64) for p in parts])            # runs x queries
        self.offsets = np.zeros(self.runs + 1, dtype=np.int64)
        np.cumsum([len(p.src) for p in parts], out=self.offsets[1:])
        self.seg = np.concatenate([p.seg for p in parts]).astype(np.int64)
        self.rank = np.concatenate([p.rank for p in parts]).astype(np.int64)
        self.hashes = np.concatenate([p.docs for p in parts])
        self.docs = self.hashes.view(np.int64)
        self.dbytes = [p.dbytes for p in parts]
        self.run = np.repeat(np.arange(self.runs), np.diff(self.offsets))
        self.parts = parts
        if ties:
            groups = [r.tie_groups() for r in rankings]
            self.start = np.concatenate([g[0][p.src] for g, p in zip(groups, parts, strict=True)]).astype(np.int64)
            self.size = np.concatenate([g[1][p.src] for g, p in zip(groups, parts, strict=True)]).astype(np.int64)

    def pair_table(self) -> np.ndarray:
        """runs x runs: the index of the unordered pair (x, y), x < y, in the order (0, 1), (0, 2), ...,
        (1, 2), ... (-1 on and below the diagonal)."""
        R = self.runs
        table = np.full((R, R), -1, dtype=np.int64)
        x, y = np.triu_indices(R, k=1)
        table[x, y] = np.arange(len(x))
        return table

    def sorted_rows(self) -> np.ndarray:
        """Every row, sorted by (query, document, run): one integer key per row (documents numbered once
        for all runs), one sort."""
        _, code = np.unique(self.docs, return_inverse=True)
        codes = int(code.max(initial=0)) + 1
        key = (self.seg * codes + code.reshape(-1)) * self.runs + self.run
        return np.argsort(key, kind="stable")

    def shared(self, rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """For ``rows`` sorted by (query, document, run) (whole queries), the positions in ``rows`` of
        every two rows of one document in one query (a document two runs share): (left, right), left
        from the run that comes first."""
        seg, docs = self.seg[rows], self.docs[rows]
        new = np.ones(len(rows), dtype=bool)
        new[1:] = (seg[1:] != seg[:-1]) | (docs[1:] != docs[:-1])
        first = np.flatnonzero(new)
        size = np.diff(np.append(first, len(rows)))
        within = np.arange(len(rows)) - np.repeat(first, size)
        count = np.repeat(size, size) - 1 - within                      # rows after this one in its group
        kind = np.int32 if len(rows) < 2 ** 31 - 1 else np.int64
        left = np.repeat(np.arange(len(rows), dtype=kind), count)
        right = left + 1 + (np.arange(len(left), dtype=kind)
                            - np.repeat((np.cumsum(count) - count).astype(kind), count))
        self._verify(rows[left], rows[right])
        return left, right

    def _verify(self, left: np.ndarray, right: np.ndarray) -> None:
        """Documents matched by their hashes have the same id (as every join of the package checks)."""
        if not len(left) or hashes_are_ids(*self.dbytes):
            return
        ids = np.concatenate(self.dbytes)
        verify_matches(ids[left], ids[right], "a run of the distance matrix")

    def blocks(self, order: np.ndarray):
        """(queries, their rows in ``order``) in blocks of whole queries whose pair entries stay near
        :data:`BLOCK`."""
        weight = self.lens.sum(axis=0) * max(self.runs - 1, 1) // 2 + 1
        bounds = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.lens.sum(axis=0), out=bounds[1:])            # rows of query q: bounds[q]..bounds[q+1]
        start, total = 0, 0
        for q in range(self.n):
            total += int(weight[q])
            if total >= BLOCK or q == self.n - 1:
                yield np.arange(start, q + 1), order[bounds[start]:bounds[q + 1]]
                start, total = q + 1, 0


def pair_values(rankings: List[Ranking], m, qrels: Optional[Qrels], universe: np.ndarray) -> np.ndarray:
    """The value of ``m`` for every unordered pair of runs and every query of the universe: a (pairs x
    queries) array, the pairs in the order of ``numpy.triu_indices(len(rankings), k=1)`` (run i with run j,
    i < j; the measures are symmetric)."""
    if not fast(m, qrels):
        raise ParameterError(f"{m}: pair_values and pair_means compute RBO(ties='expected') without a cutoff, "
                             "and MED_nDCG@k and MED_P@k against qrels; use ir_rbstar.med.distance_matrix for other "
                             "measures")
    R = len(rankings)
    per_query = np.zeros((R * (R - 1) // 2, len(universe)))
    if R > 1:
        if m.NAME == "RBO":
            _rbo(rankings, m, universe, per_query)
        elif qrels is not None:
            _med(rankings, m, qrels, universe, per_query)
    return per_query


def pair_means(rankings: List[Ranking], m, qrels: Optional[Qrels], universe: np.ndarray) -> np.ndarray:
    """The runs x runs matrix of the mean of ``m`` over the universe's queries for every pair of runs (the
    measure's value, not 1 - value; the diagonal is NaN: not computed). Symmetric."""
    R = len(rankings)
    per_query = pair_values(rankings, m, qrels, universe)
    out = np.full((R, R), np.nan)
    x, y = np.triu_indices(R, k=1)
    means = per_query.mean(axis=1) if len(universe) else np.zeros(len(x))
    out[x, y] = means
    out[y, x] = means
    return out


def _rbo(rankings: List[Ranking], m, universe: np.ndarray, per_query: np.ndarray) -> None:
    """RBO(p) of every pair and query: the tie-aware sums of :mod:`ir_rbstar.core.rankbiased_ties` (exact
    means over both runs' tie orders) for a document tied on either side, the closed form of
    :func:`ir_rbstar.core.rankbiased.rbo_family` (a step at the deeper of its two ranks) otherwise."""
    p = m["p"]
    prep = _Prepared(rankings, universe, None, ties=True)
    lmax = int(prep.lens.max(initial=0))
    tables = KR.rbo_tables(p, lmax)
    suffix = T.suffix_tables(p, lmax)
    P = per_query.shape[0]
    px, py = np.triu_indices(prep.runs, k=1)
    Hs = suffix[0]
    R = prep.runs
    for queries, rows in prep.blocks(prep.sorted_rows()):
        nq = len(queries)
        run = prep.run[rows]
        start = prep.start[rows].astype(np.int32)
        size = prep.size[rows]
        local = prep.seg[rows] - queries[0]
        # the cell (pair x query) of an entry, as the sum of a part of its left row and one of its right row:
        # pair (x, y) = x (2R - x - 3) / 2 + y - 1, cell = pair * nq + query
        as_left = (((run * (2 * R - run - 3)) // 2 - 1) * nq + local).astype(np.int32)
        as_right = (run * nq).astype(np.int32)
        lone = size == 1
        left, right = prep.shared(rows)
        seg = as_left[left] + as_right[right]
        sa, sb = start[left], start[right]
        tied = ~(lone[left] & lone[right])
        len_x = prep.lens[:, queries]
        len_b, len_r = len_x[px].reshape(-1), len_x[py].reshape(-1)          # pair-major, then query
        s, l = np.minimum(len_b, len_r), np.maximum(len_b, len_r)
        cells = P * nq
        # no tie on either side: sum_{d<=l} p^d / d from d0 = max(rank in B, rank in R) + 1, as the
        # difference Hs[d0] - Hs[l + 1] of suffix sums (small terms: no cancellation over many documents)
        deeper = np.maximum(sa, sb)
        count = np.bincount(seg, minlength=cells).astype(np.float64)          # X_l = |B ∩ R|
        weight = Hs[deeper + 1]
        reach = (deeper < s[seg]).astype(np.float64)
        t = np.flatnonzero(tied)
        weight[t] = 0.0
        reach[t] = 0.0
        plain = count - np.bincount(seg[t], minlength=cells)
        head = np.bincount(seg, weights=weight, minlength=cells) - plain * Hs[l + 1]
        x_s = np.bincount(seg, weights=reach, minlength=cells)
        if len(t):
            st = seg[t]
            sa_t, ga_t = sa[t].astype(np.int64), size[left[t]]
            sb_t, gb_t = sb[t].astype(np.int64), size[right[t]]
            ea, eb = sa_t + ga_t, sb_t + gb_t
            head += seg_sum(T.stretch_sums(sa_t, ga_t, ea, sb_t, gb_t, eb, l[st], suffix), st, cells)
            s_t = s[st]
            x_s += seg_sum(T._ramp(s_t, sa_t, ga_t, ea) * T._ramp(s_t, sb_t, gb_t, eb), st, cells)
        family = KR.rbo_finish(p, s, l, head, count, x_s, tables, residual=False)
        per_query[:, queries] = family["RBO"].reshape(P, nq)


def _med(rankings: List[Ranking], m, qrels: Qrels, universe: np.ndarray, per_query: np.ndarray) -> None:
    """MED_nDCG@k or MED_P@k of every pair and query: the sides of :func:`ir_rbstar.families.med.lists`
    built for all pairs at once, then the family's own closed form."""
    from .families import med as family
    cutoff = int(m["cutoff"])
    ctx = RunContext(rankings[0], qrels, universe)
    if m.NAME == "MED_nDCG":
        G = family.top_grade(ctx, m)                 # raises GradeScaleError as the measure does
        top = (2.0 ** G - 1.0) / 2.0 ** G
        gain = lambda g: (2.0 ** np.maximum(g, 0) - 1.0) / 2.0 ** G   # noqa: E731
    else:
        top, rel = 1.0, m["rel"]
        gain = lambda g: (g >= rel).astype(np.float64)   # noqa: E731
    prep = _Prepared(rankings, universe, cutoff, ties=False)
    grade, judged = qrels.lookup(universe[prep.seg], prep.hashes, np.concatenate(prep.dbytes))
    value = np.full(len(prep.seg), np.nan)
    value[judged] = gain(grade[judged].astype(np.float64))
    R, n = prep.runs, prep.n
    px, py = np.triu_indices(R, k=1)
    P = len(px)
    order = prep.sorted_rows()
    left, right = prep.shared(order)
    left, right = order[left], order[right]

    def side(runs: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair's rows of one of its runs (``runs``: that run of each pair): their prepared row, their
        pair, and where each pair's rows begin."""
        counts = prep.offsets[runs + 1] - prep.offsets[runs]
        first = np.cumsum(counts) - counts
        pair = np.repeat(np.arange(P), counts)
        rows = np.repeat(prep.offsets[runs], counts) + np.arange(int(counts.sum())) - np.repeat(first, counts)
        return rows, pair, first

    rows_a, pair_a, start_a = side(px)
    rows_b, pair_b, start_b = side(py)
    pid = prep.pair_table()[prep.run[left], prep.run[right]]
    partner_a = np.zeros(len(rows_a), dtype=np.int64)
    partner_b = np.zeros(len(rows_b), dtype=np.int64)
    at_a = start_a[pid] + (left - prep.offsets[prep.run[left]])
    at_b = start_b[pid] + (right - prep.offsets[prep.run[right]])
    partner_a[at_a] = prep.rank[right]
    partner_b[at_b] = prep.rank[left]
    lens_a = prep.lens[px].reshape(-1)
    lens_b = prep.lens[py].reshape(-1)
    a = Side(pair_a * n + prep.seg[rows_a], prep.rank[rows_a], value[rows_a], partner_a, lens_a)
    b = Side(pair_b * n + prep.seg[rows_b], prep.rank[rows_b], value[rows_b], partner_b, lens_b)
    per_query[:, :] = family._dot(m.NAME, m, a, b, P * n, cutoff, top).reshape(P, n)
