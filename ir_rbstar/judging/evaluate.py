"""Per-query values of RBP, RBP_res, nDCG@k and P@k with a *revealed subset* of judgments, for every run at
once: the simulation's evaluator (many budgets x strategies), vectorised over the runs' rows.

It computes what the package's own evaluation gives with qrels made of the revealed documents (their true
grades, 0 for a document the true qrels lack): ``RBP``/``RBP_res`` as :mod:`ir_rbstar.measures.rankbiased`
defines them (trec_eval's run order, gain grade / max_rel or grade >= rel, RBP_res with the tail p^n),
``nDCG@k`` and ``P@k`` as trec_eval does (gain = grade, log2(rank + 1) discount, ideal from the revealed
grades; relevant = grade >= 1). tests/judging/test_replay.py checks it against ``ir_measures`` with the
revealed qrels. A query a run does not answer scores 0 (RBP_res 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List

import numpy as np

from ..io import Ranking, verify_pairs
from .pool import Pool, is_residual, weights_of

__all__ = ["RevealedEvaluator"]


@dataclass
class _Rows:
    """The runs' rows within a depth, as every evaluation reads them."""
    cell: np.ndarray      # run index x queries + query index of each row (the cell its value adds to)
    rank: np.ndarray      # 1-based rank
    cand: np.ndarray      # candidate index, -1 when the document is no candidate
    src: np.ndarray       # the row's index in its run (:meth:`ids` reads its document there)
    n_queries: int
    pin: np.ndarray = field(init=False)         # the rows of pool candidates ...
    pin_cand: np.ndarray = field(init=False)    # ... and their candidates

    def __post_init__(self) -> None:
        # the rows of pool candidates and their candidates: the only rows a judgment of the pool reaches
        self.pin = np.flatnonzero(self.cand >= 0)
        self.pin_cand = self.cand[self.pin].astype(np.intp)

    @property
    def run(self) -> np.ndarray:
        return self.cell // self.n_queries

    @property
    def query(self) -> np.ndarray:
        return self.cell % self.n_queries

    def ids(self, runs: List[Ranking], at: np.ndarray):
        """(document hashes, document ids) of the rows ``at``, read from their ``runs`` (in the pool's order of
        runs): only documents judged outside the pool need them, so no copy of every row's id is kept."""
        run = self.run[at]
        dhash = np.zeros(len(at), dtype=np.uint64)
        dbytes = np.zeros(len(at), dtype=f"S{max([r.dbytes.dtype.itemsize for r in runs] + [1])}")
        for r in np.unique(run).tolist():
            mine = run == r
            dhash[mine] = runs[r].docs[self.src[at[mine]]]
            dbytes[mine] = runs[r].dbytes[self.src[at[mine]]]
        return dhash, dbytes


@dataclass
class Judged:
    """Documents judged outside the pool (an order's, :class:`~ir_rbstar.judging.orders.Outside`) with their
    true grades, matched once to the runs' rows of every measure (:meth:`RevealedEvaluator.judged`)."""
    query: np.ndarray     # pool query index of each document
    grade: np.ndarray     # its true grade (0 when the qrels lack it)
    rows: List[tuple]     # per measure: (row indices, document indices) of the rows that rank one of them


def _candidate_rows(pool: Pool, runs: Dict[str, Ranking], depth: int) -> _Rows:
    """Every row of every run with rank <= depth in the pool's queries, mapped to its candidate."""
    qindex = {int(q): i for i, q in enumerate(pool.qcodes)}
    hashes = np.unique(pool.cand_hash)
    cand_key = pool.cand_query.astype(np.int64) * (len(hashes) + 1) + np.searchsorted(hashes, pool.cand_hash)
    parts: List[tuple] = []
    for r, name in enumerate(pool.runs):
        run = runs[name]
        qi = np.array([qindex.get(int(q), -1) for q in run.qcodes], dtype=np.int64)
        seg_qi = np.repeat(qi, np.diff(run.offsets))
        ranks = run.row_ranks()
        keep = (seg_qi >= 0) & (ranks <= depth)
        h = run.docs[keep]
        hi = np.minimum(np.searchsorted(hashes, h), max(len(hashes) - 1, 0))
        known = hashes[hi] == h if len(hashes) else np.zeros(len(h), dtype=bool)
        key = seg_qi[keep] * (len(hashes) + 1) + hi
        pos = np.minimum(np.searchsorted(cand_key, key), max(len(cand_key) - 1, 0))
        hit = known & (cand_key[pos] == key) if len(cand_key) else known
        cand = np.where(hit, pos, -1)
        src = np.flatnonzero(keep)
        verify_pairs(run.dbytes, src[hit], pool.cand_doc, cand[hit], run.source)
        parts.append((r * len(pool.queries) + seg_qi[keep], ranks[keep], cand, src))
    cell, rank, cand, src = (np.concatenate([p[i] for p in parts]) for i in range(4))
    return _Rows(cell.astype(np.intp), rank, cand, src, len(pool.queries))


class RevealedEvaluator:
    """Values of ``measures`` (strings) for the pool's runs, given the revealed candidates. The grades are taken
    as given: :func:`~ir_rbstar.judging.simulate` checks them against each measure's scale first
    (:func:`~ir_rbstar.judging.pool.check_measure_scale`)."""

    def __init__(self, pool: Pool, runs: Dict[str, Ranking], measures: List[str], oracle_grades: np.ndarray):
        self.pool = pool
        self.measures = list(measures)
        self.oracle = np.asarray(oracle_grades, dtype=np.int64)
        self.R, self.Q = len(pool.runs), len(pool.queries)
        self._specs = []
        self._runs = [runs[name] for name in pool.runs]
        longest = max(int(np.diff(runs[n].offsets).max(initial=0)) for n in pool.runs)
        # the rows (and their cells) of each depth, read by every measure of that depth (RBP and RBP_res, say);
        # each measure's rank weight (RBP) or discount (nDCG@k, log2(rank + 1), divided by), made once here
        self._rows: Dict[int, _Rows] = {}
        for text in self.measures:
            w = weights_of(text)
            depth = w.cutoff if w.cutoff is not None else longest
            if depth not in self._rows:
                self._rows[depth] = _candidate_rows(pool, runs, depth)
            rank = self._rows[depth].rank.astype(np.float64)
            per_rank = ((1.0 - w.p) * w.p ** (rank - 1.0) if w.name == "RBP"
                        else np.log2(rank + 1.0) if w.name == "nDCG" else np.zeros(0))    # (P@k: no rank)
            self._specs.append((w, is_residual(text), depth, per_rank))
        self._lengths = np.zeros((self.R, self.Q), dtype=np.int64)
        self._answered = np.zeros((self.R, self.Q), dtype=bool)
        qindex = {int(q): i for i, q in enumerate(pool.qcodes)}
        for r, name in enumerate(pool.runs):
            run = runs[name]
            for q, n in zip(run.qcodes, np.diff(run.offsets), strict=True):
                i = qindex.get(int(q))
                if i is not None:
                    self._lengths[r, i], self._answered[r, i] = n, True

    def _sum(self, flat: np.ndarray, values: np.ndarray) -> np.ndarray:
        out = np.bincount(flat, weights=values, minlength=self.R * self.Q)
        return out.reshape(self.R, self.Q)

    def judged(self, query: np.ndarray, dhash: np.ndarray, dbytes: np.ndarray, grade: np.ndarray) -> Judged:
        """Documents to be judged outside the pool (``query``: pool query index; their hashes, ids and true
        grades), matched to the rows of every measure that rank them (:meth:`values` takes the result)."""
        import pandas as pd
        docs = pd.DataFrame({"query": np.asarray(query, dtype=np.int64), "dhash": dhash, "doc": np.arange(len(query))})
        matched = {}
        for depth, r in self._rows.items():       # (once for the measures that read the same rows)
            cand = np.flatnonzero(r.cand < 0)
            cand_hash, cand_bytes = r.ids(self._runs, cand)
            found = pd.DataFrame({"query": r.query[cand], "dhash": cand_hash, "row": np.arange(len(cand))}).merge(
                docs, on=["query", "dhash"])
            at, doc = found["row"].to_numpy(np.int64), found["doc"].to_numpy(np.int64)
            verify_pairs(cand_bytes, at, dbytes, doc, "orders")
            matched[depth] = (cand[at], doc)
        rows = [matched[depth] for _, _, depth, _ in self._specs]
        return Judged(query, np.asarray(grade, dtype=np.int64), rows)

    def values(self, revealed: np.ndarray, outside: "Judged | None" = None,
               shown: "np.ndarray | None" = None) -> Dict[str, np.ndarray]:
        """{measure: runs x queries values} with the candidates ``revealed`` (a boolean mask) judged, and of the
        documents ``outside`` the pool (:meth:`judged`) those ``shown`` (a mask over them).

        Only the rows that can hold a judged document are summed: the rows of pool candidates and those of the
        documents shown from outside, in their order (every other row adds exactly 0.0 to a value, so the sums are
        the same doubles as over every row); a residual sums the weights of every row not judged."""
        grade = np.where(revealed, self.oracle, 0)
        out = {}
        for i, (text, (w, residual, depth, per_rank)) in enumerate(zip(self.measures, self._specs, strict=True)):
            depth_rows = self._rows[depth]
            at, g, known = depth_rows.pin, grade[depth_rows.pin_cand], revealed[depth_rows.pin_cand]
            if outside is not None and shown is not None:
                rows, doc = outside.rows[i]
                seen = shown[doc]
                if seen.any():                   # (rows of documents outside the pool: never a candidate's row)
                    at = np.concatenate([at, rows[seen]])
                    order = np.argsort(at, kind="stable")
                    at = at[order]
                    g = np.concatenate([g, outside.grade[doc[seen]]])[order]
                    known = np.concatenate([known, np.ones(int(seen.sum()), dtype=bool)])[order]
            if w.name == "RBP" and residual:
                n = self._lengths if w.cutoff is None else np.minimum(self._lengths, w.cutoff)
                unjudged = per_rank.copy()
                unjudged[at[known]] = 0.0
                v = self._sum(depth_rows.cell, unjudged) + w.p ** n
                v[~self._answered] = 1.0
            elif w.name == "RBP":
                # (a document not judged gains nothing, also where rel=0 gives grade 0 a gain)
                v = self._sum(depth_rows.cell[at], per_rank[at] * np.where(known, w.gain(g), 0.0))
            elif w.name == "nDCG":
                k = int(w.cutoff or 0)
                dcg = self._sum(depth_rows.cell[at], np.clip(g, 0, None) / per_rank[at])
                extra = None if outside is None or shown is None else (outside.query[shown], outside.grade[shown])
                ideal = np.broadcast_to(self._ideal(grade, revealed, k, extra)[None, :], dcg.shape)
                v = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
            else:
                v = self._sum(depth_rows.cell[at], (g >= 1).astype(np.float64)) / float(w.cutoff or 1)
            out[text] = v
        return out

    def _ideal(self, grade: np.ndarray, revealed: np.ndarray, k: int, extra=None) -> np.ndarray:
        """Each query's ideal DCG@k from the revealed candidates' grades and ``extra`` (query indices, grades
        of documents judged outside the pool)."""
        g = np.where(revealed, np.clip(grade, 0, None), 0).astype(np.float64)
        cq = self.pool.cand_query
        if extra is not None and len(extra[0]):
            g = np.concatenate([g, np.clip(extra[1], 0, None).astype(np.float64)])
            cq = np.concatenate([cq, extra[0]])
        order = np.lexsort((-g, cq))
        q = cq[order]
        start = np.r_[0, np.flatnonzero(q[1:] != q[:-1]) + 1]
        place = np.arange(len(q)) - np.repeat(start, np.diff(np.r_[start, len(q)]))
        top = place < k
        ideal = np.bincount(q[top], weights=g[order][top] / np.log2(place[top] + 2.0), minlength=self.Q)
        return ideal
