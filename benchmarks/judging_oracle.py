"""An oracle bound for judging strategies: how few judgments ANY strategy could need (a diagnostic, not a
strategy a user can run -- it reads the answers).

Under the simulation's protocol (:func:`ir_rbstar.judging.simulate`: a document the qrels lack counts as
non-relevant once revealed, and an unjudged document counts as non-relevant too), judging a non-relevant
document changes no value. Only revealing relevant documents moves the evaluation, so the question is in
which *order* the relevant documents of the pool must be revealed. The oracle knows the qrels and reveals
only relevant pool documents, one at a time (finer than a strategy's rounds of one document per query, so
the bound favours the oracle), in a greedy order:

* ``tau`` -- each step reveals the (query, document) whose revelation gives the highest Kendall's tau_b of
  the runs' means against the full-judgment means; ties broken by the smallest sum over the runs of the
  squared differences between the partial and the full means (then by the candidate's position).
* ``verdicts`` -- each step reveals the document after which the most pairs of runs get the full-judgment
  verdict (paired t test on the per-query values, Holm over the pairs, as the simulation counts them);
  ties (most steps change no verdict) broken by the ``error`` objective. The t statistics of every pair
  for every candidate come from the pairs' running sums (one query changes), Holm from the sorted |t|
  against the critical value of each step.
* ``both`` -- each step reveals the document that most raises the smaller of the two margins,
  tau_b - 0.9 and (share of the verdicts) - 0.95 (the target missed most), ties broken as above.
* ``error`` -- each step reveals the document that most decreases the sum over runs and queries of the
  squared differences between the partial and the full per-query values: a cheap surrogate for both.

Both are vectorised: per measure a run's per-query value is (sum of the contributions of the revealed
documents) / Z, the contribution of candidate d to run r a dense runs x candidates matrix (RBP: weight x
gain over every rank at which the run holds d, as :class:`ir_rbstar.judging.evaluate.RevealedEvaluator`
reads it; nDCG@k: grade / log2(rank + 1) within the cutoff), Z = 1 for RBP and, for nDCG@k, the ideal DCG
of the *revealed* grades -- which changes as relevant documents are revealed, so each query keeps the
ideal it would have after revealing one more document of each grade. A step is matrix arithmetic over all
candidates at once. The values the oracle records are cross-checked against the package's evaluator.

:func:`bound` also replays depth-k pooling's order with a perfect relevance filter
(:func:`relevant_in_order`): a strategy that knows which documents are relevant but not what the full
evaluation is. A greedy order is not proven optimal (on Robust04's RBP verdicts the filtered depth order
needs fewer): the counts are an upper bound on the fewest judgments an oracle
needs and, since any real strategy also pays for the non-relevant documents it judges, a yardstick for
every strategy. The trivial bound is the number of relevant pool documents: revealing them all gives
every value the package computes with the pool judged (for RBP without a cutoff the ranks below the
pool's depth stay unjudged; for nDCG@k the full-judgment ideal DCG also counts relevant documents outside
the runs' top k, which no strategy inside the pool can reveal -- the simulation's values use the ideal of
the revealed grades, as an evaluation with the revealed qrels does).
"""
from __future__ import annotations

import itertools
from typing import Dict

import numpy as np
import pandas as pd
import scipy.stats

from ir_rbstar.errors import ParameterError
from ir_rbstar.judging.evaluate import RevealedEvaluator, _candidate_rows
from ir_rbstar.judging.pool import Pool, weights_of
from ir_rbstar.judging.simulate import _verdicts

__all__ = ["OBJECTIVES", "contributions", "oracle_order", "oracle_curve", "oracle_needed", "relevant_in_order", "bound"]

OBJECTIVES = ("tau", "verdicts", "both", "error")


def contributions(pool: Pool, runs: Dict, measure: str, grades: np.ndarray) -> np.ndarray:
    """runs x candidates: what revealing candidate d adds to run r's per-query numerator (RBP: the value
    itself; nDCG@k: the DCG), with every candidate's true grade."""
    w = weights_of(measure)
    if w.name not in ("RBP", "nDCG"):
        raise ParameterError(f"measure {measure}: the oracle bound supports RBP and nDCG@k")
    longest = max(int(np.diff(runs[n].offsets).max(initial=0)) for n in pool.runs)
    rows = _candidate_rows(pool, runs, w.cutoff if w.cutoff is not None else longest)
    has = rows.cand >= 0
    g = np.asarray(grades, dtype=np.int64)[rows.cand[has]]
    rank = rows.rank[has].astype(np.float64)
    if w.name == "RBP":
        value = (1.0 - w.p) * w.p ** (rank - 1.0) * w.gain(g)
    else:
        value = np.clip(g, 0, None) / np.log2(rank + 1.0)
    out = np.zeros((len(pool.runs), pool.n_candidates))
    np.add.at(out, (rows.run[has], rows.cand[has]), value)
    return out


class _State:
    """The per-query values of every run with a set of relevant candidates revealed, kept incrementally."""

    def __init__(self, pool: Pool, G: np.ndarray, grades: np.ndarray, measure: str):
        w = weights_of(measure)
        self.ndcg, self.k = w.name == "nDCG", int(w.cutoff or 0)
        self.G, self.grades, self.cq = G, np.asarray(grades, dtype=np.int64), pool.cand_query
        self.R, self.Q = G.shape[0], len(pool.queries)
        self.top = int(max(self.grades.max(initial=0), 1))
        self.num = np.zeros((self.R, self.Q))
        self.V = np.zeros((self.R, self.Q))
        self.lists: list = [[] for _ in range(self.Q)]          # revealed positive grades per query (nDCG)
        self.Znext = np.ones((self.Q, self.top + 1))            # Z of q after revealing one more grade g
        if self.ndcg:
            for q in range(self.Q):
                self._refresh(q)

    def _ideal(self, grades: list) -> float:
        g = np.sort(np.asarray(grades, dtype=np.float64))[::-1][:self.k]
        return float(np.sum(g / np.log2(np.arange(len(g)) + 2.0)))

    def _refresh(self, q: int) -> None:
        for g in range(1, self.top + 1):
            self.Znext[q, g] = self._ideal(self.lists[q] + [g])

    def candidate_columns(self, cands: np.ndarray) -> np.ndarray:
        """runs x len(cands): the new per-query value of each run in each candidate's query if revealed."""
        q = self.cq[cands]
        z = self.Znext[q, self.grades[cands]] if self.ndcg else np.ones(len(cands))
        return (self.num[:, q] + self.G[:, cands]) / z[None, :]

    def reveal(self, c: int) -> None:
        q = int(self.cq[c])
        self.num[:, q] += self.G[:, c]
        if self.ndcg:
            self.lists[q].append(int(self.grades[c]))
            z = self._ideal(self.lists[q])
            self.V[:, q] = self.num[:, q] / z if z > 0 else 0.0
            self._refresh(q)
        else:
            self.V[:, q] = self.num[:, q]


def _verdicts_after(st: "_State", cols: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray,
                    full_verdict: np.ndarray, tcrit: np.ndarray) -> np.ndarray:
    """Per candidate, the number of pairs of runs whose verdict (paired t test, Holm) would equal the
    full-judgment one after revealing it: the pairs' sums of the per-query differences and of their squares
    updated in the candidate's query only, so all candidates are one pairs x candidates computation."""
    n = st.Q
    d = st.V[a] - st.V[b]                                       # pairs x queries
    s1, s2 = d.sum(axis=1)[:, None], (d * d).sum(axis=1)[:, None]
    old, new = d[:, q], cols[a] - cols[b]                      # pairs x candidates
    s1 = s1 - old + new
    s2 = s2 - old * old + new * new
    mean = s1 / n
    var = np.maximum(s2 - n * mean * mean, 0.0) / (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(mean) / np.sqrt(var / n)
    t = np.where(var > 1e-24, t, 0.0)                          # no variance: scipy's p is NaN, never rejected
    ordered = -np.sort(-t, axis=0)                             # |t| descending = p ascending
    passes = np.cumprod(ordered >= tcrit[:, None], axis=0).sum(axis=0)
    thresh = np.where(passes > 0, ordered[np.maximum(passes - 1, 0), np.arange(t.shape[1])], np.inf)
    verdict = np.where(t >= thresh[None, :], np.sign(mean), 0.0)
    return (verdict == full_verdict[:, None]).sum(axis=0)


def oracle_order(pool: Pool, runs: Dict, measure: str, grades: np.ndarray, full: np.ndarray,
                 objective: str = "tau", alpha: float = 0.05, tau_target: float = 0.9,
                 verdicts_target: float = 0.95) -> np.ndarray:
    """The order (candidate indices) in which the greedy oracle reveals every relevant candidate (grade >= 1),
    against the full-judgment per-query values ``full`` (runs x queries)."""
    if objective not in OBJECTIVES:
        raise ParameterError(f"objective: one of {', '.join(OBJECTIVES)}, got {objective!r}")
    grades = np.asarray(grades, dtype=np.int64)
    G = contributions(pool, runs, measure, grades)
    st = _State(pool, G, grades, measure)
    f = full.mean(axis=1)
    a, b = (np.array(x, dtype=np.int64) for x in zip(*itertools.combinations(range(st.R), 2), strict=True))
    sf = np.sign(f[a] - f[b])
    n_f = float(np.count_nonzero(sf))
    left = np.flatnonzero(grades >= 1)
    full_verdict = _verdicts(full, pool.runs, alpha)
    # Holm on P pairs at level alpha: the j-th smallest p-value (0-based) rejects while p <= alpha / (P - j),
    # i.e. while |t| >= the two-sided critical value of that level (n - 1 degrees of freedom)
    tcrit = scipy.stats.t.isf(alpha / (2.0 * (len(a) - np.arange(len(a)))), st.Q - 1)
    order = []
    while len(left):
        cols = st.candidate_columns(left)                     # runs x candidates
        q = st.cq[left]
        if objective in ("tau", "both"):
            means = st.V.mean(axis=1)[:, None] + (cols - st.V[:, q]) / st.Q
            s = np.sign(means[a] - means[b])                    # pairs x candidates
            n_m = np.count_nonzero(s, axis=0).astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                tau = (sf @ s) / np.sqrt(n_f * n_m)
            tau = np.where(np.isfinite(tau), np.round(tau, 12), -np.inf)
        if objective == "tau":
            err = ((means - f[:, None]) ** 2).sum(axis=0)
            key = (err, -tau)
        else:
            old = ((st.V[:, q] - full[:, q]) ** 2).sum(axis=0)
            new = ((cols - full[:, q]) ** 2).sum(axis=0)
            gain = np.round(new - old, 15)
            if objective == "error":
                key = (gain,)
            else:
                agree = _verdicts_after(st, cols, q, a, b, full_verdict, tcrit) / float(len(a))
                if objective == "verdicts":
                    key = (gain, -agree)
                else:                                           # both: the margin of the target missed most
                    key = (gain, -np.round(np.minimum(tau - tau_target, agree - verdicts_target), 12))
        best = int(np.lexsort((np.arange(len(left)),) + key)[0])
        c = int(left[best])
        st.reveal(c)
        order.append(c)
        left = np.delete(left, best)
    return np.asarray(order, dtype=np.int64)


def oracle_curve(pool: Pool, runs: Dict, measure: str, grades: np.ndarray, full: np.ndarray, order: np.ndarray,
                 alpha: float = 0.05, check_every: int = 25) -> pd.DataFrame:
    """tau_b and the share of the full-judgment pairwise verdicts (:func:`ir_rbstar.judging.simulate`'s
    definitions) after each of the first 0..len(order) revelations of ``order``. Every ``check_every`` steps
    and at the end the incremental values are checked against the package's evaluator (a mismatch raises)."""
    grades = np.asarray(grades, dtype=np.int64)
    G = contributions(pool, runs, measure, grades)
    st = _State(pool, G, grades, measure)
    ev = RevealedEvaluator(pool, runs, [measure], grades)
    f = full.mean(axis=1)
    full_verdict = _verdicts(full, pool.runs, alpha)
    revealed = np.zeros(pool.n_candidates, dtype=bool)
    rows = []
    for step in range(len(order) + 1):
        if step:
            st.reveal(int(order[step - 1]))
            revealed[order[step - 1]] = True
        if step % check_every == 0 or step == len(order):
            exact = ev.values(revealed)[measure]
            if not np.allclose(exact, st.V, rtol=0, atol=1e-9):
                raise AssertionError(f"oracle: incremental values differ from the evaluator at step {step}")
        m = st.V.mean(axis=1)
        tau = float("nan") if np.ptp(m) == 0 else float(scipy.stats.kendalltau(f, m).statistic)
        agree = float((_verdicts(st.V, pool.runs, alpha) == full_verdict).mean())
        rows.append((step, tau, agree))
    return pd.DataFrame(rows, columns=["judged", "tau_b", "verdicts_agree"])


def oracle_needed(curve: pd.DataFrame, tau: float = 0.9, verdicts: float = 0.95) -> Dict[str, float]:
    """The fewest revelations from which on the curve stays at tau_b >= ``tau`` (and at verdicts_agree >=
    ``verdicts``); NaN when even the last point misses the target: :func:`ir_rbstar.judging.needed` on the
    curve as one strategy's table."""
    from ir_rbstar.judging import needed
    row = needed(curve.assign(measure="", strategy="", budget=curve["judged"]), tau, verdicts).iloc[0]
    return {"tau_b": float(row[f"tau_b>={tau:g}"]), "verdicts_agree": float(row[f"verdicts_agree>={verdicts:g}"])}


def relevant_in_order(pool: Pool, grades: np.ndarray, strategy: str = "depth") -> np.ndarray:
    """The relevant candidates in the order a static strategy (``depth``, ``rbp_sum``, ``rbp_max``) ranks
    the whole pool: that strategy with a perfect relevance filter, skipping every non-relevant document
    (it knows which documents are relevant, not what the full evaluation is)."""
    from ir_rbstar.judging import choose
    if strategy not in ("depth", "rbp_sum", "rbp_max"):
        raise ParameterError(f"strategy: a static strategy (depth, rbp_sum, rbp_max), got {strategy!r}")
    grades = np.asarray(grades, dtype=np.int64)
    pick = choose(pool, np.zeros(pool.n_candidates, dtype=bool), grades, strategy, pool.n_candidates, explain=False)
    return pick.index[grades[pick.index] >= 1]


def bound(qrels, runs: Dict, measure: str, tau: float = 0.9, verdicts: float = 0.95,
          alpha: float = 0.05) -> Dict[str, Dict[str, float]]:
    """For ``measure`` on ``runs`` with ``qrels`` as the oracle (the simulation's pool, queries and
    full-judgment values): {"oracle": the greedy ``both`` order's counts, "depth, relevant only": depth-k
    pooling's order with a perfect relevance filter, "relevant": the number of relevant pool documents and
    tau_b / verdicts_agree with all of them revealed}; counts as :func:`oracle_needed` gives them."""
    from ir_rbstar.io import QUERY_IDS
    from ir_rbstar.judging import build_pool
    from ir_rbstar.judging.simulate import full_values
    pool = build_pool(runs, measure, queries=list(QUERY_IDS.decode(qrels.qcodes)))
    grades, known = pool.lookup(qrels)
    grades = np.where(known, grades, 0)
    full = full_values(qrels, runs, [measure], pool)[measure]
    out: Dict[str, Dict[str, float]] = {}
    for label, order in (("oracle", oracle_order(pool, runs, measure, grades, full, "both", alpha, tau, verdicts)),
                         ("depth, relevant only", relevant_in_order(pool, grades, "depth"))):
        curve = oracle_curve(pool, runs, measure, grades, full, order, alpha)
        out[label] = oracle_needed(curve, tau, verdicts)
        out["relevant"] = {"count": float(len(order)), "tau_b": float(curve["tau_b"].iloc[-1]),
                           "verdicts_agree": float(curve["verdicts_agree"].iloc[-1])}
    return out
