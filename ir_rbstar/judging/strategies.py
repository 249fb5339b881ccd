"""Strategies that choose the next documents to judge, over a :class:`~ir_rbstar.judging.pool.Pool`.

Every strategy sees the same state: the grade of each judged candidate (``judged``, ``grades``), and
chooses ``k`` unjudged candidates. The package's own (the three goals of :func:`~ir_rbstar.judging.select`):

* ``residual`` -- Moffat, Webber & Zobel (2007): the document whose judgment removes the most residual
  weight, summed over the runs: priority sum_r W[r, d] (exactly what judging it takes off the runs'
  summed mean residuals, times the number of queries).
* ``pairs`` -- the documents that can move the most unsettled comparisons, in the direction the runs'
  estimates expect: a pair of runs (a, b) is *unsettled* while the interval of its mean difference,
  [mean(low_a - high_b), mean(high_a - low_b)] with low = the value with every unjudged document non-relevant
  and high = low + residual, contains 0 (the bounds of :mod:`ir_rbstar.stats.robust`); judging d moves the
  difference of (a, b) by at most |W[a, d] - W[b, d]| (times its gain). Priority = P(d relevant) x sum over
  unsettled pairs of s(a, b) t(a, b, d) |W[a, d] - W[b, d]|, where s(a, b), the pair's *flip share*, is the
  share of its interval on the other side of 0 from the difference reported now (unjudged documents
  non-relevant; 1/2 for a pair reported tied, where no side is reported): how much of what the unjudged
  documents could still do would flip the pair (for RBP and P@k; for nDCG@k, whose interval is not one of
  nDCG values, s = 1). t(a, b, d) is the *direction*: 1 when the run d favours (the larger weight) expects
  more unjudged gain on d's query than the other (sum over its unjudged candidates there of W x P(relevant)),
  so that judging d relevant moves the pair's difference on that query toward where the estimates expect it;
  :data:`AGAINST_SHARE` (1/4) when it expects less; :data:`UNKNOWN_SHARE` = (1 + 1/4) / 2 = 5/8 when both
  expect the same (as before any judgment of a query when every run ranks as deep as the pool): the direction
  is then unknown, toward and away equally likely, and t counts at its expectation, so that with nothing
  judged the goal orders by the undirected spread sum u |W[a, d] - W[b, d]|. The direction took DL 2019
  from 817 / 1,118 judgments (tau_b >= 0.9 / 95% of the full-judgment verdicts) to 860 / 1,118 for
  nDCG@10 and from 731 / 903 to 645 / 903 for RBP(p=0.8), Robust04 from 6,972 / never to 6,225 / never
  and from 4,233 / 6,723 to 2,739 / 5,727 (with t = 0 where both expect the same: 688 / 1,118, 645 / 903,
  4,482 / never and 4,482 / 5,976; before :data:`SAME_REST`, directions read from the last bits of equal
  sums had given Robust04's RBP 1,494 / 5,478; docs/judging.md has the held-out Robust 2003 and the other
  weights tried). P(d relevant) is the weighted
  mean, over the runs that rank d, of each run's running precision on the query: (2 m + gains) / (2 +
  judged) over its judged documents there, with the run's precision over all queries, m = (1 + gains) / (2 +
  judged), as the prior
  (on DL 2019 this prior shared across queries raised the share of reproduced verdicts after 100 nDCG@10
  judgments from 0.63 to 0.81 against the per-query Laplace estimate alone; benchmarks/bench_judging.py).
* ``ranking`` -- the same with the direction t(a, b, d) but no flip share (s = 1), over the unsettled pairs of
  runs adjacent in the current ranking (by the values with unjudged documents non-relevant; no run strictly
  between the two, so runs tied now are all adjacent): what keeps the ranking of the systems from being
  stable. The direction took DL 2019 from 989 / 1,290 judgments (tau_b >= 0.9 / 95% of the verdicts) to
  688 / 1,032 for nDCG@10 and from 645 / 1,634 to 602 / 1,591 for RBP(p=0.8) (it was chosen with t = 0
  where both expect the same: 774 / 1,247 and 645 / 1,548; with the flip share as well RBP needed 731 /
  1,591, with the flip share alone 688 / 1,634; benchmarks/bench_judging.py; docs/judging.md).

Nothing depends on the order the runs are given in: :func:`~ir_rbstar.judging.pool.build_pool` puts them in
the order of their names, and the strategies take them as they are (tests/judging/test_run_order.py).

For ``nDCG@k`` both goals also weigh each query by how far one judgment moves its values: nDCG divides by
the query's ideal DCG, so the priority is scaled by (the ideal DCG of k documents of gain 1) / (the query's
expected ideal DCG from its judged gains and the estimated gains of the unjudged candidates). On the
earlier, coarser budget grid (2% to 100% of the pool) this brought ``pairs`` to tau_b >= 0.9 on Robust04
after 5,794 judgments instead of 7,725 and on Robust 2003 after 3,054 instead of 3,664; docs/judging.md
gives the counts on the grid of whole rounds now used (benchmarks/bench_judging.py).

A pool deeper than nDCG@k's cutoff (``depth=``) also holds documents ranked only past rank k: they change no
run's DCG, but a relevant one raises its query's ideal DCG (the evaluation's comes from the judged documents,
the full-judgment one from all the relevant ones). ``pairs`` and ``ranking`` take them after every candidate
within the cutoff, those more runs rank first, then by best rank, the queries whose judged documents already
hold k relevant ones (grade >= 1) last; until one is judged they change no other priority. On Robust04 from
the runs' top 100: 95% of the nDCG@10 verdicts after 10,956 judgments, depth-k 14,691 (docs/judging.md).

Baselines: ``depth`` (depth-k pooling: every query's rank-1 documents, then rank 2, ...), ``rbp_sum`` and
``rbp_max`` (RBP-weighted pooling as trectools does it: per query, documents by the sum / the maximum of
their RBP weights (1-p) p^(rank-1) over the runs, the queries taken in turn), ``mtf`` (move-to-front pooling
of Cormack, Palmer & Clarke 1998, as Losada, Parapar & Barreiro 2017 run it: per query, the run with the
highest priority gives its next unjudged document; a run's priority is minus the number of non-relevant
documents above its next unjudged one) and ``bandit`` (Losada, Parapar & Barreiro 2017: Bayesian bandits with
Thompson sampling -- per query, each run's relevance rate has a Beta(1 + relevant, 1 + non-relevant) posterior
from the judged documents above its next unjudged one; a draw from each picks the run; seeded). ``mtf`` and
``bandit`` share the budget equally among the queries (the query with the fewest judgments goes next), as
in Losada et al.; the others rank every candidate of every query together.

References: A. Moffat, W. Webber, J. Zobel. Strategic system comparisons via targeted relevance judgments.
SIGIR 2007, doi:10.1145/1277741.1277806. G. V. Cormack, C. R. Palmer, C. L. A. Clarke. Efficient construction
of large test collections. SIGIR 1998, doi:10.1145/290941.291009. D. E. Losada, J. Parapar, A. Barreiro.
Multi-armed bandits for adjudicating documents in pooling-based evaluation of information retrieval systems.
Information Processing & Management 53(5), 2017, doi:10.1016/j.ipm.2017.04.005. B. Carterette, J. Allan,
R. Sitaraman. Minimal test collections for retrieval evaluation. SIGIR 2006, doi:10.1145/1148170.1148219.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ..errors import ParameterError
from .pool import Pool
from .sequential import sequential

__all__ = ["STRATEGIES", "GOALS", "BASELINES", "Choice", "choose", "run_values"]

GOALS: Tuple[str, ...] = ("residual", "pairs", "ranking")
BASELINES: Tuple[str, ...] = ("depth", "rbp_sum", "rbp_max", "mtf", "bandit")
STRATEGIES: Tuple[str, ...] = GOALS + BASELINES


@dataclass(frozen=True)
class Choice:
    """Candidates chosen in one round (indices into the pool), best first, with priority and reason."""
    index: np.ndarray
    priority: np.ndarray
    reason: List[str]


def _nonzeros(pool: Pool) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pool's non-zero weights, candidate by candidate (each candidate's runs in order): (candidate, cell =
    its query x runs + run, weight); kept with the pool."""
    def make() -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        cand, run = np.nonzero(pool.W.T)            # row-major over candidates x runs: candidates ascending
        cell = (pool.cand_query[cand] * len(pool.runs) + run).astype(np.intp)
        return cand, cell, pool.W[run, cand]
    return pool.kept("nonzeros", make)


def _by_query(pool: Pool, matrix: str, x: np.ndarray) -> np.ndarray:
    """Runs x queries: the sum over each query's candidates c of M[r, c] x[c], M the runs' weights (``"W"``) or
    whether each run ranks each candidate within the cutoff (``"present"``, 0 or 1: W > 0, so that a run's
    precision on a query comes from the ranks its measure weighs, in nDCG@k's deeper pool too), summed
    candidate by candidate in their order. Only the non-zero weights are read (:func:`_nonzeros`; a zero adds
    exactly 0.0): on 1,000 queries of 10 runs, 310,000 of the 2.3M cells, 0.8 ms a call against the 6.1 ms of
    the dense product Q^T (M x)^T it replaces, whose sums, taken in the same order, are the same doubles."""
    cand, cell, weight = _nonzeros(pool)
    values = x[cand] * weight if matrix == "W" else x[cand]
    out = np.bincount(cell, weights=values, minlength=len(pool.runs) * len(pool.queries))
    # queries x runs, seen as runs x queries: the layout of that product, so that the sums and means over an
    # axis that follow (numpy's order of addition depends on it) give the same doubles too
    return out.reshape(len(pool.queries), len(pool.runs)).T


def _total_weight(pool: Pool) -> np.ndarray:
    """Each candidate's weight summed over the runs (kept with the pool)."""
    return pool.kept("W-total", lambda: pool.W.sum(axis=0))


def run_values(pool: Pool, judged: np.ndarray, grades: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(low, residual), runs x queries: the weighted gain of the judged candidates and the weight of the
    unjudged ones plus each run's tail after the pool's depth."""
    gain = np.where(judged, pool.weights.gain(grades), 0.0)
    low = _by_query(pool, "W", gain)
    res = _by_query(pool, "W", ~judged) + pool.tail
    return low, res


#: the weight (in judged documents) of a run's precision over all queries as the prior of its precision on one
PRIOR_WEIGHT = 2.0


#: the share of an auxiliary judgment (a prior) in P(relevant), the runs' evidence taking the rest: a second
#: judge disagrees with the first often enough that a document it calls non-relevant must stay reachable
#: (on DL 2019 with the re-annotations as the prior, the prior alone (share 1) left ~8% of the RBP verdicts
#: unreached even after 80% of the pool; share 0.5 reached them and needed fewer judgments for tau_b >= 0.9
#: than share 0.75; benchmarks/bench_judging.py)
PRIOR_SHARE = 0.5


def _relevance(pool: Pool, judged: np.ndarray, grades: np.ndarray, prior: Optional[np.ndarray] = None) -> np.ndarray:
    """P(relevant) of every candidate (for nDCG@k, whose gains are the grades, the expected gain): the
    W-weighted mean, over the runs ranking it, of their running
    precision on its query, (2 m_r + sum of gains) / (2 + judged documents), where the prior m_r is the run's
    Laplace precision over all queries, (1 + gains) / (2 + judged). Where ``prior`` (expected gains, NaN
    where unknown; :mod:`ir_rbstar.judging.prior`) says something, the mean of the prior and that estimate
    (:data:`PRIOR_SHARE`)."""
    gain = np.where(judged, pool.weights.gain(grades), 0.0)
    got = _by_query(pool, "present", gain)
    seen = _by_query(pool, "present", judged)
    overall = (1.0 + got.sum(axis=1)) / (2.0 + seen.sum(axis=1))
    theta = (PRIOR_WEIGHT * overall[:, None] + got) / (PRIOR_WEIGHT + seen)      # runs x queries
    # sum over the runs of W x theta, candidate by candidate over the non-zero weights, each candidate's runs in
    # order (the order of the column sums of the runs x candidates product: the same doubles, a seventh of the
    # cells on 1,000 queries of 10 runs)
    cand, cell, weight = _nonzeros(pool)
    spread = np.bincount(cand, weights=weight * np.ravel(theta.T)[cell], minlength=pool.n_candidates)
    total = _total_weight(pool)
    est = np.divide(spread, total, out=np.full(pool.n_candidates, 0.5), where=total > 0)
    if prior is None:
        return est
    return np.where(np.isnan(prior), est, PRIOR_SHARE * np.nan_to_num(prior) + (1.0 - PRIOR_SHARE) * est)


def _pair_intervals(low: np.ndarray, res: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each run's mean value now (unjudged documents non-relevant), and runs x runs the ends of each pair's
    mean-difference interval: [lo_a - hi_b, hi_a - lo_b]."""
    lo, hi = low.mean(axis=1), (low + res).mean(axis=1)
    return lo, lo[:, None] - hi[None, :], hi[:, None] - lo[None, :]


def _unsettled(low: np.ndarray, res: np.ndarray, adjacent: bool, baseline: Optional[int] = None) -> np.ndarray:
    """Runs x runs 0/1: the pairs whose mean-difference interval contains 0 (upper triangle only); with
    ``baseline`` (a run index) only the pairs with that run."""
    lo, d_low, d_high = _pair_intervals(low, res)
    u = np.triu((d_low < 0) & (d_high > 0), 1)
    if adjacent:
        # adjacent: no run strictly between the two (runs tied now are all adjacent to each other and to
        # the runs of the next value up and down), so the order of the runs never matters
        level = np.unique(lo, return_inverse=True)[1].reshape(-1)
        u &= np.abs(level[:, None] - level[None, :]) <= 1
    if baseline is not None:
        mask = np.zeros_like(u)
        mask[baseline, :] = True
        mask[:, baseline] = True
        u &= mask
    return u.astype(np.float64)


def _flip_share(low: np.ndarray, res: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Runs x runs: ``u`` with each pair weighed by how close it is to flipping -- the share of its
    mean-difference interval [lo_a - hi_b, hi_a - lo_b] on the other side of 0 from the difference now
    reported, lo_a - lo_b (unjudged documents non-relevant): 0 for a pair no completion can flip, 1/2 for a
    pair the interval straddles evenly, and 1/2 for a pair reported tied (lo_a = lo_b: no side is reported,
    and either side of 0 would depend on which run comes first). Symmetric: the share of (a, b) is that of
    (b, a)."""
    lo, d_low, d_high = _pair_intervals(low, res)
    other = np.where(lo[:, None] > lo[None, :], -d_low, d_high)
    width = d_high - d_low
    share = np.divide(np.clip(other, 0.0, None), width, out=np.zeros_like(width), where=width > 0)
    share[(lo[:, None] == lo[None, :]) & (width > 0)] = 0.5
    return u * share


def _ideal_scale(pool: Pool, judged: np.ndarray, grades: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """nDCG@k divides a query's DCG by its ideal DCG, so a judgment moves a query with few relevant
    documents more: per candidate, (the ideal DCG of k documents of gain 1) / (the query's expected
    ideal DCG: its candidates' judged gains and, unjudged, ``expected`` gains, the best k in order), the
    expected ideal at least half the first rank's gain of 1."""
    k = int(pool.weights.cutoff or 1)
    # (a candidate ranked only past the cutoff, in a deeper pool, counts once judged: the runs' estimate is
    # of their top k ranks)
    g = np.where(judged, pool.weights.gain(grades), np.where(_past_cutoff(pool), 0.0, expected))
    order = np.lexsort((-g, pool.cand_query))
    q = pool.cand_query[order]
    start = np.r_[0, np.flatnonzero(q[1:] != q[:-1]) + 1]
    place = np.arange(len(q)) - np.repeat(start, np.diff(np.r_[start, len(q)]))
    top = place < k
    ideal = np.bincount(q[top], weights=g[order][top] / np.log2(place[top] + 2.0), minlength=len(pool.queries))
    full = float(np.sum(1.0 / np.log2(np.arange(2, k + 2))))
    return (full / np.maximum(ideal, 0.5))[pool.cand_query]


#: the share of a pair's |W_a - W_b| that counts when judging the document relevant would move the pair's
#: difference on its query *away* from where the runs' estimates expect it (the run it favours expects less
#: unjudged gain there than the other); toward it counts in full; 1 is the undirected sum. Of 0, 0.1, 0.25 and
#: 0.5, 0.25 needed the fewest judgments on DL 2019 summed over its four targets (nDCG@10 and RBP, tau_b and
#: verdicts: 3,311 against 3,440, 3,440 and 3,483), and fewer than 0 for every Robust04 target either reaches
#: (docs/judging.md, the table of tried changes; measured before :data:`SAME_REST`)
AGAINST_SHARE = 0.25

#: the share of a pair's |W_a - W_b| that counts when both runs expect the same unjudged gain on the document's
#: query (always so before anything on it is judged, when every run ranks as deep as the pool): the direction
#: is unknown, toward and away equally likely, so t counts at its expectation (1 + AGAINST_SHARE) / 2. Fixed by
#: that argument, not fitted; it is what the pseudo-random directions read from rounding noise gave on average
#: before :data:`SAME_REST`, without the noise
UNKNOWN_SHARE = (1.0 + AGAINST_SHARE) / 2.0


def _expected_rest(pool: Pool, judged: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """Runs x queries: the gain each run can still expect from its unjudged candidates, sum of W x the
    estimated gain ``prob``."""
    return _by_query(pool, "W", np.where(judged, 0.0, prob))


#: expected unjudged gains of two runs on a query closer than this share of the query's largest count as equal:
#: sums of the same weights taken in another order differ in their last bits, and a sign read from that noise
#: would give a pair a direction the estimates do not give it
SAME_REST = 1e-9


def _rest_order(rest_a: np.ndarray, rest_b: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """sign(rest_a - rest_b), 0 where the two differ by at most :data:`SAME_REST` x ``scale`` (per query)."""
    d = rest_a - rest_b
    return np.where(np.abs(d) <= SAME_REST * scale, 0.0, np.sign(d))


def _pair_spread_toward(pool: Pool, u: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """sum_{a<b} u[a, b] |W[a] - W[b]| t for every column, t = 1 when the run the document favours (the larger
    weight) expects more unjudged gain on the document's query than the other (``rest``: judging it relevant
    moves the pair's difference there toward its expected value), :data:`AGAINST_SHARE` when it expects less,
    :data:`UNKNOWN_SHARE` = (1 + AGAINST_SHARE) / 2 when both expect the same.

    A pair adds nothing where neither run ranks the document (W = 0 for both), so each run's pass covers only
    the candidates it ranks (:func:`_ranked_columns`), against every run it is paired with, a pair both of whose
    runs rank the document counted in the pass of the run listed first: (runs x the pool's non-zero weights)
    work instead of runs^2 x candidates (on DL 2019, 37 runs whose candidates are ranked by 6.5 runs on
    average, a fifth of it; with 130 runs of little overlap, a fortieth), memory a run's candidates x runs."""
    out = np.zeros(pool.n_candidates)
    cq = pool.cand_query
    scale = np.abs(rest).max(axis=0)
    pairs = u + u.T                          # each pair's weight, seen from either of its runs
    columns = _ranked_columns(pool)
    for a in np.flatnonzero(pairs.any(axis=1)):
        cols = columns[a]
        if not len(cols):
            continue
        bs = np.flatnonzero(pairs[a])
        other = pool.W[np.ix_(bs, cols)]
        diff = pool.W[a, cols] - other
        order = _rest_order(rest[a], rest[bs], scale)[:, cq[cols]]
        toward = diff * order
        t = np.maximum(toward, -AGAINST_SHARE * toward)                     # 1, or the share of |t| below 0
        t += np.where(order == 0.0, UNKNOWN_SHARE * np.abs(diff), 0.0)      # no direction: the expected share
        t *= (other == 0.0) | (bs > a)[:, None]     # both rank it: the pair is counted in the first run's pass
        out[cols] += pairs[a, bs] @ t
    return out


def _ranked_columns(pool: Pool) -> list:
    """For each run, the candidates it gives a non-zero weight (kept with the pool)."""
    return pool.kept("ranked-columns", lambda: [np.flatnonzero(w > 0.0) for w in pool.W])


def _rbp_pool_scores(pool: Pool, how: str) -> np.ndarray:
    p = pool.weights.pooling_p
    w = np.where(pool.rank > 0, (1.0 - p) * p ** (pool.rank - 1.0), 0.0)
    return w.sum(axis=0) if how == "sum" else w.max(axis=0)


def _position_in_query(pool: Pool, score: np.ndarray) -> np.ndarray:
    """0-based place of each candidate within its query when sorted by score descending."""
    order = np.lexsort((np.arange(pool.n_candidates), -steady(score), pool.cand_query))
    place = np.empty(pool.n_candidates, dtype=np.int64)
    q = pool.cand_query[order]
    start = np.r_[0, np.flatnonzero(q[1:] != q[:-1]) + 1]
    first = np.repeat(start, np.diff(np.r_[start, len(q)]))
    place[order] = np.arange(len(q)) - first
    return place


def _static_priority(pool: Pool, strategy: str) -> np.ndarray:
    def make() -> np.ndarray:
        if strategy == "depth":
            return -pool.min_rank().astype(np.float64)
        if strategy == "residual":
            return pool.W.sum(axis=0) / len(pool.queries)
        return -_position_in_query(pool, _rbp_pool_scores(pool, strategy[4:])).astype(np.float64)
    return pool.kept(f"prio:{strategy}", make)


def _ideal_filled(pool: Pool, judged: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """Per candidate, whether its query has k judged relevant documents (gain >= 1) for nDCG@k's k places."""
    relevant = judged & (pool.weights.gain(grades) >= 1.0)
    k = int(pool.weights.cutoff or 1)
    return (np.bincount(pool.cand_query[relevant], minlength=len(pool.queries)) >= k)[pool.cand_query]


def _past_cutoff(pool: Pool) -> np.ndarray:
    """Whether each candidate is ranked only past the cutoff (no run weighs it: nDCG@k's deeper pool)."""
    return pool.kept("past-cutoff", lambda: _total_weight(pool) == 0.0)


def _runs_ranking(pool: Pool) -> np.ndarray:
    """How many runs rank each candidate within the pool's depth (kept with the pool)."""
    return pool.kept("runs-ranking", lambda: (pool.rank > 0).sum(axis=0))


def steady(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to a multiple of 2**-32 of the power of two at or below its largest finite magnitude (other
    values as they are): values equal but for the last bits of their floating-point sums and powers, whose
    order numpy's vector code takes by the processor (SIMD width), compare equal, so that the ties between them
    fall to the next keys alike on every machine, and a seeded selection is the same everywhere. Priorities
    closer than that (about 2e-10 of the largest) count as tied."""
    finite = np.isfinite(x)
    if not finite.any():
        return x
    top = float(np.max(np.abs(x[finite])))
    if top == 0.0:
        return x
    step = 2.0 ** (math.floor(math.log2(top)) - 32)        # a power of two: the scaling is exact
    return np.where(finite, np.round(x / step) * step, x)


def _top(pool: Pool, prio: np.ndarray, eligible: np.ndarray, k: int, per_query: Optional[np.ndarray],
         later: Optional[np.ndarray] = None) -> np.ndarray:
    """The k eligible candidates of highest priority (ties: more total weight; then, given ``later`` (the goals
    on nDCG@k), among the candidates no run ranks within the cutoff, those not ``later`` before those
    ``later``, each by the number of runs ranking them, more first, then by best rank; then query order, then
    candidate order), at most ``per_query[q]`` from query q."""
    idx = np.flatnonzero(eligible)
    prio = steady(prio)
    if per_query is None and 0 < k < len(idx) and not np.isnan(prio[idx]).any():
        # only the k best are wanted: every candidate whose priority reaches the k-th largest (ties with it
        # included) is sorted, the others all come after them
        kth = np.partition(prio[idx], len(idx) - k)[len(idx) - k]
        idx = idx[prio[idx] >= kth]
    total = steady(_total_weight(pool))
    keys = [idx, pool.cand_query[idx]]
    if later is not None:
        # the goals' order of the candidates no run ranks within the cutoff (nDCG@k's deeper pool): those not
        # ``later`` first, then by the number of runs ranking them (within the pool's depth), then by best rank
        deep = _past_cutoff(pool)[idx]
        runs_ranking, best = (np.where(deep, v[idx], 0) for v in (_runs_ranking(pool), pool.min_rank()))
        keys += [best, -runs_ranking, deep & later[idx]]
    order = idx[np.lexsort((*keys, -total[idx], -prio[idx]))]
    if per_query is not None:
        q = pool.cand_query[order]
        by_q = np.argsort(q, kind="stable")
        qs = q[by_q]
        start = np.r_[0, np.flatnonzero(qs[1:] != qs[:-1]) + 1]
        first = np.repeat(start, np.diff(np.r_[start, len(qs)]))
        place = np.empty(len(order), dtype=np.int64)
        place[by_q] = np.arange(len(qs)) - first
        order = order[place < per_query[q]]
    return order[:k]


def choose(pool: Pool, judged: np.ndarray, grades: np.ndarray, strategy: str, k: int,
           per_query: Optional[np.ndarray] = None, exclude: Optional[np.ndarray] = None,
           rng: Optional[np.random.Generator] = None, explain: bool = True,
           baseline: Optional[int] = None, prior: Optional[np.ndarray] = None) -> Choice:
    """One round: ``k`` unjudged (and not ``exclude``\\ d) candidates by ``strategy``. ``prior`` (expected
    gains per candidate, NaN where unknown) is averaged into the goals' estimate of P(relevant) where known."""
    if strategy not in STRATEGIES:
        raise ParameterError(f"strategy: unknown strategy {strategy!r}; one of {', '.join(STRATEGIES)}")
    eligible = ~judged if exclude is None else ~judged & ~exclude
    if strategy in ("mtf", "bandit"):
        relevant = judged & (pool.weights.gain(grades) > 0)
        index, reasons = sequential(pool, strategy, judged, relevant, eligible, k, per_query,
                                     rng if rng is not None else np.random.default_rng(0))
        return Choice(index, np.arange(len(index), 0, -1, dtype=np.float64), reasons)
    if strategy in GOALS[1:]:
        low, res = run_values(pool, judged, grades)
        u = _unsettled(low, res, adjacent=strategy == "ranking", baseline=baseline)
        prob = _relevance(pool, judged, grades, prior)
        near = _flip_share(low, res, u) if strategy == "pairs" and pool.weights.value_interval else u
        rest = _expected_rest(pool, judged, prob)
        spread = _pair_spread_toward(pool, near, rest)
        prio = prob * spread / len(pool.queries)
        if pool.weights.ideal_normalised:
            prio = prio * _ideal_scale(pool, judged, grades, prob)
    else:
        prio = _static_priority(pool, strategy)
        u, prob, rest = None, None, None
    later = _ideal_filled(pool, judged, grades) if pool.weights.ideal_normalised and strategy in GOALS[1:] else None
    index = _top(pool, prio, eligible, k, per_query, later)
    reasons = _reasons(pool, strategy, index, prio, u, prob, prior, rest) if explain else [""] * len(index)
    return Choice(index, prio[index], reasons)


def _direction_note(w: np.ndarray, moved: np.ndarray, rest_q: np.ndarray) -> str:
    """For the reasons of ``pairs`` and ``ranking``: of the unsettled pairs a document moves (``moved``, runs x
    runs), how many it moves toward the order the runs' expected unjudged gains on its query (``rest_q``) give."""
    expects = _rest_order(rest_q[:, None], rest_q[None, :], np.abs(rest_q).max())
    if not expects[moved].any():
        return ("; no direction yet (the runs expect the same unjudged gain on its query): each pair counted at "
                f"(1 + {AGAINST_SHARE:g}) / 2 of its spread")
    toward = (w[:, None] - w[None, :]) * expects > 0
    return f"; toward the expected order in {int((toward & moved).sum())} of them"


def _reasons(pool: Pool, strategy: str, index: np.ndarray, prio: np.ndarray, u, prob,
             prior: Optional[np.ndarray] = None, rest: Optional[np.ndarray] = None) -> List[str]:
    out = []
    nq = len(pool.queries)
    # the estimate is a mean gain: a probability where the gains are 0 or 1 (binary RBP, P's 0/1), else an
    # expected gain: of grade / max_rel for a graded RBP, of the grade itself for nDCG@k (3 on a 0..3 scale)
    w8 = pool.weights
    binary = w8.name == "P" or (w8.name == "RBP" and (w8.rel is not None or w8.max_rel == 1))
    estimate = "P(relevant)" if binary else "expected gain"
    for c in index:
        w = pool.W[:, c]
        in_runs = np.flatnonzero(w > 0)
        if strategy == "residual":
            out.append(f"residual: lowers the mean residual of {len(in_runs)} run(s) by up to "
                       f"{w.max() / nq:.4g} each, {w.sum() / nq:.4g} in all")
        elif strategy in ("pairs", "ranking") and _past_cutoff(pool)[c]:
            # (nDCG@k's deeper pool: taken after every candidate within the cutoff, by _top's order)
            out.append(f"{strategy}: ranked only past the cutoff (best rank {int(pool.min_rank()[c])}): judged "
                       f"relevant, it raises its query's ideal DCG")
        elif strategy in ("pairs", "ranking"):
            spread = np.abs(w[:, None] - w[None, :]) * u
            a, b = np.unravel_index(int(np.argmax(spread)), spread.shape)
            n_pairs = int(((spread > 0)).sum())
            which = "unsettled pair(s)" if strategy == "pairs" else "unsettled pair(s) adjacent in the ranking now"
            if n_pairs == 0:
                out.append(f"{strategy}: can move no {which}; {estimate} ~ {prob[c]:.2f}")
                continue
            out.append(f"{strategy}: can move {n_pairs} {which}, most {pool.runs[a]} vs "
                       f"{pool.runs[b]} by up to {spread[a, b] / nq:.4g} in the mean"
                       + ("" if rest is None else _direction_note(w, spread > 0, rest[:, pool.cand_query[c]]))
                       + f"; {estimate} ~ {prob[c]:.2f}"
                       + (" (prior)" if prior is not None and not np.isnan(prior[c]) else ""))
        elif strategy == "depth":
            out.append(f"depth: best rank {int(pool.min_rank()[c])} over {len(in_runs)} run(s)")
        else:
            out.append(f"{strategy}: place {int(-prio[c]) + 1} of its query by RBP-weighted {strategy[4:]} "
                       f"over {len(in_runs)} run(s)")
    return out
