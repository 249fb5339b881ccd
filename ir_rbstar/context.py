"""The evaluation context of one run: the query universe, the run's rows per query, references, joins.

Everything a measure family needs is derived here once and cached for the other measures of the same
call: the run's top-k rows as flat arrays (``Rows``), the reference ranking restricted to the query
universe, and the joins between them and with the qrels. Families turn these arrays into values with
the kernels of :mod:`ir_rbstar.core`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

from .errors import MissingQrelsError
from .io import KeyIndex, Qrels, Ranking, verify_matches
from .references import resolve_run

__all__ = ["Rows", "RunContext"]


@dataclass
class Rows:
    """Rows of a ranking gathered for the query universe (query i of the universe is segment i)."""

    seg: np.ndarray       # universe index of each row
    rank: np.ndarray      # 1-based rank of each row within its query
    docs: np.ndarray      # document id hashes
    dbytes: np.ndarray    # document ids (bytes)
    src: np.ndarray       # row index in the source ranking
    lens: np.ndarray      # number of rows per universe query
    identity: bool = False  # the rows are all the source's rows, in place (src == arange)


def gather(ranking: Ranking, universe: np.ndarray, cutoff: Optional[int] = None) -> Rows:
    if (len(universe) == len(ranking.qcodes) and np.array_equal(universe, ranking.qcodes)
            and (cutoff is None or ranking.segment_lengths().max(initial=0) <= cutoff)):
        # every row, in place (the common case: no cutoff, the run's own queries)
        return Rows(seg=ranking.row_segments(), rank=ranking.row_positions() + 1, docs=ranking.docs,
                    dbytes=ranking.dbytes, src=np.arange(len(ranking), dtype=np.int64),
                    lens=ranking.segment_lengths(), identity=True)
    segs = ranking.segment_of(universe)
    found = segs >= 0
    n = len(universe)
    lens = np.zeros(n, dtype=np.int64)
    lens[found] = ranking.segment_lengths()[segs[found]]
    if cutoff is not None:
        lens = np.minimum(lens, cutoff)
    starts = np.zeros(n, dtype=np.int64)
    starts[found] = ranking.offsets[segs[found]]
    seg = np.repeat(np.arange(n, dtype=np.int64), lens)
    pos = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    src = starts[seg] + pos
    return Rows(seg=seg, rank=pos + 1, docs=ranking.docs[src], dbytes=ranking.dbytes[src], src=src, lens=lens)


class RunContext:
    """One run evaluated over a query universe, with cached derived arrays."""

    def __init__(self, run: Ranking, qrels: Optional[Qrels], universe: np.ndarray):
        self.run = run
        self.qrels = qrels
        self.universe = universe
        self.n = len(universe)
        self._cache: Dict[Tuple, object] = {}

    def _cached(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def require_qrels(self, measure) -> Qrels:
        if self.qrels is None:
            raise MissingQrelsError(f"{measure} needs relevance judgments, but no qrels were given")
        return self.qrels

    def observation(self, cutoff: Optional[int]) -> Rows:
        """The run's top-k rows (B) per universe query."""
        return self._cached(("obs", cutoff), lambda: gather(self.run, self.universe, cutoff))

    def _keys(self, rows: Rows, source: Ranking) -> np.ndarray:
        keys = source.row_keys()
        return keys if rows.identity else keys[rows.src]

    def judgments(self, cutoff: Optional[int]) -> Tuple[np.ndarray, np.ndarray]:
        """(grade, judged) of every row of B."""
        def make():
            b = self.observation(cutoff)
            return self.qrels.lookup(self._keys(b, self.run), b.docs, b.dbytes)
        return self._cached(("judg", cutoff), make)

    def reference(self, ref: Optional[str], rel: int, measure) -> Ranking:
        if ref is None:
            return self.require_qrels(measure).as_ranking(rel)
        return resolve_run(ref)

    def reference_rows(self, ref: Optional[str], rel: int, measure) -> Rows:
        return self._cached(("ref", ref, rel), lambda: gather(self.reference(ref, rel, measure), self.universe))

    def match(self, cutoff: Optional[int], ref: Optional[str], rel: int, measure):
        """Join B and R once: for each B row its row in the reference (-1 if absent), and for each
        gathered R row whether it is in B. The hash table is built on the reference when it already has
        one (references are cached across runs), else on the smaller side."""
        def make():
            b = self.observation(cutoff)
            reference = self.reference(ref, rel, measure)
            r = self.reference_rows(ref, rel, measure)
            b_keys, r_keys = self._keys(b, self.run), self._keys(r, reference)
            if reference.has_index() or len(r.src) <= len(b.src):
                b_in_r = reference.find(b_keys, b.docs, b.dbytes)
                pos_in_r = np.full(len(reference), -1, dtype=np.int64)
                pos_in_r[r.src] = np.arange(len(r.src))
                r_in_b = np.zeros(len(r.src), dtype=bool)
                r_in_b[pos_in_r[b_in_r[b_in_r >= 0]]] = True
            else:
                found = KeyIndex(b_keys).lookup(r_keys)
                r_in_b = found >= 0
                verify_matches(b.docs[found[r_in_b]], r.docs[r_in_b], b.dbytes[found[r_in_b]], r.dbytes[r_in_b],
                               reference.source)
                b_in_r = np.full(len(b.src), -1, dtype=np.int64)
                b_in_r[found[r_in_b]] = r.src[r_in_b]
            return reference, b_in_r, r_in_b
        return self._cached(("match", cutoff, ref, rel), make)
