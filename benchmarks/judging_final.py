"""Goals on trial that aim at the FINAL evaluation (issue 29, item 4): measured, not kept in the package.

``pairs`` (:mod:`ir_rbstar.judging.strategies`) chases pairs of runs whose interval [low, low + residual]
straddles 0. The simulation ranks the runs by ``low`` (an unjudged document counts as non-relevant), so what
moves tau_b and the verdicts toward the full-judgment ones is a pair's *current* difference moving toward
the difference it will finally have. These goals estimate that final difference and aim at it:

* each run's expected final value per query, E[v_a] = low_a + rest_a, where rest_a is the gain it can still
  expect from its unjudged candidates (sum of W x P(relevant), ``strategies._expected_rest`` over
  ``strategies._relevance``); for nDCG@k both times the query's expected ideal scale
  (``strategies._ideal_scale``), as ``pairs`` weighs nDCG@k;
* for a pair (a, b) the gap = E[v_a] - E[v_b] - (low_a - low_b) = rest_a - rest_b, and for a candidate d the
  move of the pair's difference if d is judged relevant (top gain), m = (W_a(d) - W_b(d)) x scale;
* priority of d = P(d relevant) x sum over pairs a < b of min(|m|, |gap|) when m has the gap's sign (toward),
  -AWAY x |m| when not (away), 0 when the pair has no expected gap (both runs expect the same, within
  ``strategies.SAME_REST``).

Variants (all measured; docs/judging.md has none of them in the package):

* ``final``: on the mean over queries (m and the gap divided by the number of queries), AWAY = 1;
* ``final_q``: on the difference on d's own query (the paired t test of the verdicts reads the per-query
  differences, not only the mean that tau_b reads), the sum over pairs divided by the number of queries;
* ``final_a0``, ``final_q_a0``: the same with AWAY = 0 (a move away counts nothing rather than against:
  with AWAY = 1 on DL 2019's RBP, after 2,279 ``final_q`` judgments 337 relevant documents still unjudged
  had a negative priority and came after every positive one, and the share of reproduced verdicts stayed at
  0.98 until the whole pool was judged).

Measured 27 Nov 2026, DL 2019 only, judgments to stay at tau_b >= 0.9 / at 95% of the full-judgment
verdicts, exact to one round of 43 (``nice -n 10 python -m benchmarks.bench_judging --collections dl19
--strategies pairs,final --prior-strategies pairs,final --no-oracle``, the other variants likewise; AWAY = 0
then set through this module):

| goal | nDCG@10 | + the qrels as prior | + re-annotations | RBP(p=0.8) | + the qrels as prior | + re-annotations |
|---|---|---|---|---|---|---|
| ``pairs`` (the package's) | 860 / 1,118 | 602 / 860 | 516 / 1,032 | 645 / 903 | 602 / 774 | 430 / 989 |
| ``final`` | 989 / 1,677 | 430 / 1,161 | 645 / 1,247 | 387 / 1,763 | 258 / 1,118 | 860 / 1,419 |
| ``final_q`` | 903 / 1,075 | 473 / 688 | 559 / 1,462 | 516 / 1,548 | 172 / 946 | 387 / 2,064 |
| ``final_a0`` | 559 / 989 | 473 / 860 | 559 / 1,118 | 473 / 1,247 | 387 / 1,075 | 473 / 989 |
| ``final_q_a0`` | 817 / 1,204 | 602 / 989 | 387 / 1,204 | 559 / 1,247 | 172 / 731 | 559 / 1,290 |
| half of depth-k | 580.5 / 817 | | | 494.5 / 752.5 | | |

Aiming at the final order wins tau_b (``final_a0`` halves depth-k's tau_b for both measures without a prior)
and loses the verdicts: no variant reaches half of depth-k's verdicts for both measures even with the qrels
as the prior, and without a prior every variant needs more judgments for the verdicts than ``pairs``. With
nothing judged no pair has a direction, every priority is 0 and the first round goes by total weight (tau_b
-0.17 after 43 nDCG@10 judgments against ``pairs``' 0.57). So they stay out of the
package. Run once afterwards on Robust04 (``--collections robust04 --strategies pairs,final_a0 --no-oracle``),
``final_a0`` needs one round (249) fewer than ``pairs`` for each target reached: nDCG@10 tau_b 5,976 against
6,225, RBP tau_b 2,490 against 2,739 and verdicts 5,478 against 5,727 -- far from half of depth-k (3,859.5,
2,116.5, 3,735). Robust 2003 was not run. One round on DL 2019 (every fifth candidate judged,
43 documents): ``final`` 0.061 s of CPU for RBP, 0.021 s for nDCG@10, ``pairs`` 0.069 s and 0.025 s
(medians of 3 means of 5, one process, load average 4.5).

:func:`install` lets :func:`ir_rbstar.judging.simulate` (and so benchmarks/bench_judging.py) take these
names in this process; :func:`choose` takes them and hands every other strategy to the package's own.
"""
from __future__ import annotations

import importlib
from typing import Optional, Tuple

import numpy as np

from ir_rbstar.judging import strategies as S
from ir_rbstar.judging.pool import Pool

#: name: (per query, AWAY)
VARIANTS = {"final": (False, 1.0), "final_q": (True, 1.0), "final_a0": (False, 0.0), "final_q_a0": (True, 0.0)}
EXPERIMENTAL: Tuple[str, ...] = tuple(VARIANTS)


def toward(pool: Pool, judged: np.ndarray, grades: np.ndarray, prob: np.ndarray, rest: np.ndarray,
           per_query: bool, away: float) -> np.ndarray:
    """Per candidate: sum over pairs a < b of min(|m|, |gap|) toward the pair's expected final difference,
    -``away`` x |m| away from it, 0 without an expected gap (the module's docstring); one pass per run."""
    nq = len(pool.queries)
    scale = np.ones(pool.n_candidates)
    if pool.weights.ideal_normalised:
        scale = S._ideal_scale(pool, judged, grades, prob)
    per_q = np.ones(nq)
    per_q[pool.cand_query] = scale
    if per_query:
        gain = (rest * per_q)[:, pool.cand_query]        # each run's expected rise on each candidate's query
        same = np.abs(gain).max(axis=0)
    else:
        gain = (rest * per_q).mean(axis=1)[:, None]      # each run's mean expected rise
        same = np.full(1, np.abs(gain).max())
    out = np.zeros(pool.n_candidates)
    for a in range(len(pool.runs) - 1):
        m = (pool.W[a] - pool.W[a + 1:]) * (scale if per_query else scale / nq)
        gap = gain[a] - gain[a + 1:]
        way = S._rest_order(gain[a], gain[a + 1:], same)
        out += np.where(way == 0.0, 0.0, np.where(np.sign(m) == way, np.minimum(np.abs(m), np.abs(gap)),
                                                  -away * np.abs(m))).sum(axis=0)
    return out / nq if per_query else out


def choose(pool: Pool, judged: np.ndarray, grades: np.ndarray, strategy: str, k: int,
           per_query: Optional[np.ndarray] = None, exclude: Optional[np.ndarray] = None,
           rng: Optional[np.random.Generator] = None, explain: bool = True,
           baseline: Optional[int] = None, prior: Optional[np.ndarray] = None) -> S.Choice:
    """:func:`ir_rbstar.judging.strategies.choose` with the variants of :data:`VARIANTS` as well."""
    if strategy not in VARIANTS:
        return S.choose(pool, judged, grades, strategy, k, per_query=per_query, exclude=exclude, rng=rng,
                        explain=explain, baseline=baseline, prior=prior)
    eligible = ~judged if exclude is None else ~judged & ~exclude
    prob = S._relevance(pool, judged, grades, prior)
    rest = S._expected_rest(pool, judged, prob)
    on_query, away = VARIANTS[strategy]
    prio = prob * toward(pool, judged, grades, prob, rest, on_query, away)
    index = S._top(pool, prio, eligible, k, per_query)
    reasons = [f"{strategy}: {prio[c]:.4g} net toward the expected final differences, P(relevant) ~ {prob[c]:.2f}"
               for c in index] if explain else [""] * len(index)
    return S.Choice(index, prio[index], reasons)


def install() -> None:
    """Let :func:`ir_rbstar.judging.simulate` take the variants in this process (it checks the names against
    its module's STRATEGIES and replays through its module's ``choose``)."""
    module = importlib.import_module("ir_rbstar.judging.simulate")
    module.STRATEGIES = tuple(S.STRATEGIES) + EXPERIMENTAL  # type: ignore[attr-defined]
    module.choose = choose  # type: ignore[attr-defined]
