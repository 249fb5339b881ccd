"""The baselines that choose one document at a time, the queries taking turns: move-to-front pooling (Cormack,
Palmer & Clarke 1998) and the Thompson-sampling bandit of Losada, Parapar & Barreiro (2017), as
:mod:`ir_rbstar.judging.strategies` describes them. Internal.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from .pool import Pool

__all__ = ["sequential"]


def _lists(pool: Pool, qi: int) -> np.ndarray:
    """Runs x depth: the candidates of query qi in each run's rank order (-1 padding)."""
    def make() -> np.ndarray:
        cols = np.flatnonzero(pool.cand_query == qi)
        out = np.full((len(pool.runs), pool.depth), -1, dtype=np.int64)
        r, c = np.nonzero(pool.rank[:, cols] > 0)
        out[r, pool.rank[r, cols[c]] - 1] = cols[c]
        return out
    return pool.kept(f"lists:{qi}", make)


def sequential(pool: Pool, strategy: str, judged: np.ndarray, relevant: np.ndarray, eligible: np.ndarray,
               k: int, per_query: Optional[np.ndarray], rng: np.random.Generator) -> Tuple[np.ndarray, List[str]]:
    """MTF or Thompson-sampling bandit: one document at a time, the queries taking turns."""
    nq = len(pool.queries)
    done = np.bincount(pool.cand_query[judged], minlength=nq)
    taken = np.zeros(nq, dtype=np.int64)
    left = np.bincount(pool.cand_query[eligible], minlength=nq)
    limit = per_query if per_query is not None else np.full(nq, np.iinfo(np.int64).max)
    pending = np.zeros(pool.n_candidates, dtype=bool)
    picks: List[int] = []
    reasons: List[str] = []
    while len(picks) < k:
        open_q = np.flatnonzero((left > 0) & (taken < limit))
        if len(open_q) == 0:
            break
        qi = int(open_q[np.argmin(done[open_q] + taken[open_q])])
        L = _lists(pool, qi)
        valid = L >= 0
        Lc = np.where(valid, L, 0)
        open_doc = valid & eligible[Lc] & ~pending[Lc]
        has = open_doc.any(axis=1)
        ptr = np.argmax(open_doc, axis=1)
        above = np.arange(L.shape[1])[None, :] < ptr[:, None]
        seen = valid & judged[Lc] & above
        rel = (seen & relevant[Lc]).sum(axis=1)
        non = (seen & ~relevant[Lc]).sum(axis=1)
        if strategy == "mtf":
            score = np.where(has, -non.astype(np.float64), -np.inf)
            why = "mtf: next unjudged document of run {run} (priority {v:.0f})"
        else:
            score = np.where(has, rng.beta(1.0 + rel, 1.0 + non), -np.inf)
            why = "bandit: Thompson draw {v:.3f} for run {run}"
        r = int(np.argmax(score))
        c = int(L[r, ptr[r]])
        picks.append(c)
        reasons.append(why.format(run=pool.runs[r], v=float(score[r])))
        pending[c] = True
        taken[qi] += 1
        left[qi] -= 1
    return np.array(picks, dtype=np.int64), reasons
