"""Paired significance for the report: Fisher's randomization (sign-flip) test of per-query
differences (Smucker, Allan and Carterette, CIKM 2007) with as many sign flips as the family of
comparisons needs, and Holm's correction (Holm 1979).

The sign-flip test is written here rather than taken from ``scipy.stats.permutation_test`` for a measured
reason: a report tests every (run, measure) against the baseline, and one matrix product over a shared
block of sign flips serves them all. 370 comparisons of 43 queries with 10,000 flips take 0.17 s here and
5.0 s through scipy, one call per comparison (2026-11-25, Intel Xeon). Where all 2^n flips are enumerated
the p-values are scipy's exactly (tests/integration/test_stats_level.py checks it); :mod:`ir_rbstar.stats`
has the scipy-based tests for other uses.

Holm is four numpy lines here rather than ``statsmodels.stats.multitest.multipletests`` for a measured
reason: importing statsmodels' multitest module takes 1.8 s of a report's CPU, and its Holm branch calls
``gc.collect()`` on every call, 0.15 s each in a process holding scipy and pandas (2026-11-26, this
2-core machine, shared), for a correction that costs microseconds; the tests check it equals
statsmodels'."""
from __future__ import annotations

import math
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import BudgetWarning, ParameterError

#: random sign flips per comparison of the fixed-size test (``permutations=`` an integer), and the first
#: block every comparison gets in the adaptive test (``permutations=None``)
DEFAULT_PERMUTATIONS = 10_000

#: seed of the random sign flips (the same flips for every comparison with the same number of queries)
DEFAULT_SEED = 0

#: adaptive test: all 2^n sign flips are enumerated when 2^n is at most this
EXACT_LIMIT = 1 << 17

#: adaptive test: the most random sign flips one comparison may get
MAX_PERMUTATIONS = DEFAULT_PERMUTATIONS << 9          # 5,120,000

#: adaptive test: the most multiply-adds (flips x queries x comparisons) one call may spend after its first
#: block (about 10 s of one core: 3.5e9 took 1.6 s); beyond it the undecided comparisons keep the flips they
#: have (BudgetWarning)
DEFAULT_BUDGET = 2e10

#: adaptive test: the probability, per look, of stopping a comparison on the wrong side of a threshold
DECISION_ERROR = 1e-5

#: flip statistics closer than this x sum(|d|) count as equal (the same sum added in another order)
SUM_TOL = 1e-9

_CHUNK = 1 << 21                 # sign-matrix (and sums-matrix) entries per block


def max_permutations(family: int = 1, alpha: float = 0.05) -> int:
    """The most random sign flips the adaptive test gives one comparison in a family of ``family``
    comparisons at level ``alpha``: the first of 10,000 x 2^k (k = 0, 1, ...) reaching both 64 x family /
    alpha and 100,000, at most :data:`MAX_PERMUTATIONS`. At that many flips a comparison whose flips never
    reach its statistic is resolved below alpha / family (it takes about 11.5 x family / alpha) and its p,
    1 / (R + 1), is below alpha / (64 x family); and a p near a threshold t is known to about
    +-2 sqrt(t / R) (0.05: +-0.0014).

    >>> max_permutations(580, 0.05)
    1280000
    """
    family, alpha = _family(family), _alpha(alpha)
    need = max(64.0 * family / alpha, 100_000.0)
    r = DEFAULT_PERMUTATIONS
    while r < need and r < MAX_PERMUTATIONS:
        r *= 2
    return min(r, MAX_PERMUTATIONS)


def pvalue_floor(n: Any, permutations: Optional[int] = None, *, family: int = 1, alpha: float = 0.05) -> Any:
    """The smallest p-value :func:`randomization_pvalues` can give a comparison of ``n`` differences:
    2 / 2^n where all 2^n sign flips are enumerated (2^n <= ``permutations``, or 2^n <= :data:`EXACT_LIMIT`
    in the adaptive test, ``permutations=None``), otherwise 1 / (R + 1) with R = ``permutations`` or, for
    the adaptive test, :func:`max_permutations` (``family``, ``alpha``). NaN for n = 0. (With zero
    differences the exact floor is larger: 2^z x 2 / 2^n for z zeros.) Vectorised over ``n``.

    >>> pvalue_floor(5, 10_000), pvalue_floor(54, 10_000)
    (0.0625, 9.999000099990002e-05)
    """
    arr = np.asarray(n)
    if arr.size and (not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating)
                     or not np.isfinite(arr).all() or (arr < 0).any() or (arr != np.floor(arr)).any()):
        raise ParameterError(f"n={n!r}: give non-negative whole numbers of differences")
    limit = EXACT_LIMIT if permutations is None else _permutations(permutations)
    r = max_permutations(family, alpha) if permutations is None else limit
    nn = arr.astype(np.float64)
    exact = nn <= math.log2(limit)
    out = np.where(exact, np.exp2(1.0 - np.minimum(nn, 1023.0)), 1.0 / (r + 1.0))
    out = np.where(nn == 0, np.nan, np.minimum(out, 1.0))
    return float(out) if out.ndim == 0 else out


def can_reach_alpha(n: Any, permutations: Optional[int] = None, *, family: int = 1, alpha: float = 0.05) -> Any:
    """Whether a comparison of ``n`` differences can be significant at ``alpha`` after Holm's (or
    Bonferroni's) correction over ``family`` comparisons: its :func:`pvalue_floor` x ``family`` <= ``alpha``
    (the smallest adjusted p of the family is ``family`` x its smallest p). False where n = 0.
    Vectorised over ``n``. A report warns for the comparisons where this is False.

    >>> bool(can_reach_alpha(54, 10_000, family=580)), bool(can_reach_alpha(54, None, family=580))
    (False, True)
    """
    floor = np.asarray(pvalue_floor(n, permutations, family=family, alpha=alpha))
    with np.errstate(invalid="ignore"):
        out = np.where(np.isnan(floor), False, floor * _family(family) <= _alpha(alpha))
    return bool(out) if out.ndim == 0 else out


def randomization_pvalues(diffs: Sequence[Any], permutations: Optional[int] = None, seed: Optional[int] = DEFAULT_SEED,
                          *, family: Optional[int] = None, alpha: float = 0.05, budget: float = DEFAULT_BUDGET,
                          groups: Optional[Sequence[Any]] = None) -> np.ndarray:
    """Two-sided p-values of paired randomization (sign-flip) tests, one per array of per-query
    differences (see :func:`randomization_details` for the flips each one got).

    Under the null hypothesis each difference is as likely to have the opposite sign, so every
    assignment of signs is equally likely. The statistic is |sum of the differences| (the same test
    as |mean|); p is the share of sign assignments whose statistic is at least the observed one
    (Fisher's randomization test, recommended for IR by Smucker, Allan and Carterette, CIKM 2007).
    Statistics closer than :data:`SUM_TOL` (1e-9) x the sum of |differences| count as equal (the same
    sum added in another order differs in the last bits; 0.1 + 0.2 - 0.3 is not 0), so an observed sum of
    exactly 0 gives p = 1. An empty array gives NaN; differences that are all 0 give p = 1.

    * ``permutations`` an integer (the fixed-size test): with n differences and 2^n <= ``permutations``
      all 2^n assignments are enumerated (exact p: the count / 2^n); otherwise ``permutations`` random
      assignments and p = (b + 1) / (permutations + 1), b the draws at least as extreme (never 0).
    * ``permutations=None`` (the default; the adaptive test): exact enumeration where 2^n <=
      :data:`EXACT_LIMIT`; otherwise every comparison gets 10,000 random assignments, then the comparisons whose
      Holm verdict is not settled yet get more, in doubling blocks (20,000, 40,000, ... in total), up to
      :func:`max_permutations` (``family``, ``alpha``). After each block every p gets a Clopper-Pearson interval
      [lo, up] (each end wrong with probability :data:`DECISION_ERROR`; an exact p is its own interval), and a
      comparison stops when Holm's step-down procedure (thresholds alpha / family, alpha / (family - 1), ...,
      alpha) settles it whatever the true p's inside those intervals: rejected when up < alpha / (family - s), s
      the number of comparisons so settled (found by repeating the rule from s = 0); not rejected when lo >
      alpha / (family - J + 1), J = the number of comparisons with lo at most its up (plus those of the family
      not in this call) bounding its rank. Its p is then (b + 1) / (R + 1), b the draws at least as extreme,
      with its own R; Holm applied to these p's gives the settled verdicts, and stopping adds at most
      :data:`DECISION_ERROR` per look (at most 10 looks) to the chance that a verdict differs from the one of
      the exact p's. So a comparison with a large effect gets a p far below alpha / family (it is stopped only
      once up < alpha / (family - s)), comparisons far above their threshold stop after 10,000, and only those
      near the threshold at their rank cost many flips: 580 comparisons of 54 queries take about 2 s of CPU
      (benchmarks/bench_stats.py). ``family`` (at least the number of non-empty arrays, its default: the Holm
      family of one call) counts comparisons corrected together with these; ``groups`` (one label per array)
      makes every label its own Holm family instead (e.g. one per measure, as the report corrects), each of
      its non-empty arrays (``family`` must then be None): the same p-values as one call per label with the
      same seed (tested), the flips still shared by arrays of one length. The work after the first block is
      capped at ``budget`` multiply-adds (flips x queries x comparisons; the default is about 10 s of one core):
      where the next block would exceed it, the undecided comparisons keep the flips they have and a
      :class:`~ir_rbstar.errors.BudgetWarning` says so.

    Random flips come from ``numpy.random.default_rng(seed)`` (its raw 64-bit words, one bit per query),
    one stream for each length: arrays of the same length share the same flips (different measures of
    the same pair use the same permutations), and a comparison's flips are the first R of its length's
    stream whatever else is in the call (a longer run with the same seed extends them). How many it gets
    depends on the family (adaptive test) or on ``permutations`` (fixed). The same seed gives the same
    result. Work is done in blocks of a matrix product (sign matrix x differences), never per flip in
    Python.

    >>> randomization_pvalues([[1.0, 2.0, 3.0], [1.0, -1.0]]).tolist()
    [0.25, 1.0]
    """
    return randomization_details(diffs, permutations, seed, family=family, alpha=alpha, budget=budget,
                                 groups=groups)[0]


def randomization_details(diffs: Sequence[Any], permutations: Optional[int] = None,
                          seed: Optional[int] = DEFAULT_SEED, *, family: Optional[int] = None, alpha: float = 0.05,
                          budget: float = DEFAULT_BUDGET,
                          groups: Optional[Sequence[Any]] = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, flips, exact) of :func:`randomization_pvalues` with the same arguments: ``flips[i]`` the sign
    assignments comparison i was tested with (2^n when ``exact[i]``, 0 for an empty array)."""
    arrays = _arrays(diffs)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ParameterError(f"seed={seed!r}: give a non-negative integer (or None: fresh entropy)")
    fixed = None if permutations is None else _permutations(permutations)
    alpha = _alpha(alpha)
    families = _families(arrays, family, groups)
    if not isinstance(budget, (int, float)) or isinstance(budget, bool) or not budget >= 0:
        raise ParameterError(f"budget={budget!r}: give a non-negative number of multiply-adds")
    k = len(arrays)
    hits, flips = np.zeros(k), np.zeros(k, dtype=np.int64)
    exact = np.zeros(k, dtype=bool)
    by_length: Dict[int, List[int]] = {}
    for i, a in enumerate(arrays):
        by_length.setdefault(len(a), []).append(i)
    limit = EXACT_LIMIT if fixed is None else fixed
    streams = []
    for n, idx in sorted(by_length.items()):
        if n == 0:
            continue
        d = np.column_stack([arrays[i] for i in idx])                  # n x k
        threshold = np.abs(d.sum(axis=0)) - SUM_TOL * np.abs(d).sum(axis=0)
        if n < 63 and 2 ** n <= limit:
            hits[idx], flips[idx], exact[idx] = _exact_counts(d, threshold), 2 ** n, True
        else:
            streams.append(_Flips(n, np.asarray(idx), d, threshold, seed))
    caps = np.zeros(k, dtype=np.int64)
    for members, size, _ in families:
        caps[members] = fixed if fixed is not None else max_permutations(size, alpha)
    if fixed is not None:
        stages = [fixed]
    else:
        stages = [DEFAULT_PERMUTATIONS << j for j in range(10) if DEFAULT_PERMUTATIONS << j <= caps.max(initial=0)]
    active = np.zeros(k, dtype=bool)
    for g in streams:
        active[g.idx] = True
    spent = 0.0
    for stage, total in enumerate(stages):
        if stage:
            undecided = np.zeros(k, dtype=bool)
            for members, size, present in families:
                undecided[members] = _undecided(hits[members], flips[members], exact[members], alpha, size, present)
            active &= undecided & (caps >= total)
            cost = sum((total - g.done) * g.n * int(active[g.idx].sum()) for g in streams)
            if not active.any():
                break
            if spent + cost > budget:
                warnings.warn(f"randomization test: {int(active.sum())} comparison(s) still undecided at "
                              f"{stages[stage - 1]:,} sign flips; the work budget ({budget:.3g} multiply-adds) "
                              "allows no more", BudgetWarning, stacklevel=3)
                break
            spent += cost
        for g in streams:
            mine = active[g.idx]
            if mine.any():
                hits[g.idx[mine]] += g.draw(total, mine)
                flips[g.idx[mine]] = total
    with np.errstate(invalid="ignore"):
        p = np.where(exact, hits / np.maximum(flips, 1), (hits + 1.0) / (flips + 1.0))
    p[[len(a) == 0 for a in arrays]] = np.nan
    return p, flips, exact


def _families(arrays: List[np.ndarray], family: Optional[int],
              groups: Optional[Sequence[Any]]) -> List[Tuple[np.ndarray, int, int]]:
    """(members, family size, non-empty members in the call) of each Holm family."""
    if groups is None:
        present = sum(1 for a in arrays if len(a))
        size = _family(family if family is not None else max(1, present))
        if size < present:
            raise ParameterError(f"family={family!r}: smaller than the {present} comparisons given (the family "
                                 "counts every comparison Holm corrects together)")
        return [(np.arange(len(arrays)), size, present)]
    labels = list(groups)
    if len(labels) != len(arrays):
        raise ParameterError(f"groups: give one label per array of differences ({len(arrays)}), got {len(labels)}")
    if family is not None:
        raise ParameterError("family: leave it None with groups (each label is a family of its arrays)")
    where: Dict[Any, List[int]] = {}
    for i, label in enumerate(labels):
        where.setdefault(label, []).append(i)
    out = []
    for members in where.values():
        present = sum(1 for i in members if len(arrays[i]))
        out.append((np.asarray(members), max(1, present), present))
    return out


class _Flips:
    """The random sign flips of the comparisons of one length n: one stream from ``default_rng(seed)``,
    drawn in blocks; each call of :meth:`draw` goes on where the last one stopped."""

    def __init__(self, n: int, idx: np.ndarray, d: np.ndarray, threshold: np.ndarray, seed: Optional[int]):
        self.n, self.idx, self.d, self.threshold = n, idx, d, threshold
        self.rng = np.random.default_rng(seed)
        self.done = 0

    def draw(self, total: int, columns: np.ndarray) -> np.ndarray:
        """The flips from the current position up to ``total`` that reach each selected column's threshold."""
        sub, thr = self.d[:, columns], self.threshold[columns]
        rows = max(1, _CHUNK // max(self.n, sub.shape[1]))
        count = np.zeros(sub.shape[1])
        while self.done < total:
            size = min(rows, total - self.done)
            count += (np.abs(_random_signs(self.rng, size, self.n) @ sub) >= thr).sum(axis=0)
            self.done += size
        return count


def _undecided(hits: np.ndarray, flips: np.ndarray, exact: np.ndarray, alpha: float, family: int,
               present: int) -> np.ndarray:
    """Which comparisons Holm's verdict is not settled for yet, from Clopper-Pearson bounds [lo, up] of
    each true p (each side wrong with probability :data:`DECISION_ERROR`; exact p: lo = up = p; an empty
    comparison: lo = up = NaN, outside the family).

    Settled as rejected: with s the fixed point of s = #{up < alpha / (family - s)} (from s = 0), every
    comparison with up < alpha / (family - s) -- whatever the true p's, Holm's first s steps all pass.
    Settled as not rejected: lo > alpha / (family - J + 1), J = 1 + #{other comparisons with lo <= this
    one's up} + (family - present) bounding its rank from above (its Holm threshold is at most that)."""
    from scipy.special import betaincinv
    with np.errstate(invalid="ignore", divide="ignore"):
        b, r = hits, flips.astype(np.float64)
        lo = np.where(b > 0, betaincinv(np.maximum(b, 1), np.maximum(r - b + 1, 1), DECISION_ERROR), 0.0)
        up = np.where(b < r, betaincinv(b + 1, np.maximum(r - b, 1), 1 - DECISION_ERROR), 1.0)
        p_exact = hits / np.maximum(flips, 1)
    lo, up = np.where(exact, p_exact, lo), np.where(exact, p_exact, up)
    empty = flips == 0
    lo[empty], up[empty] = np.nan, np.nan
    s = 0
    ups = np.sort(up[~empty])
    while True:
        more = int(np.searchsorted(ups, alpha / (family - s), side="left")) if s < family else len(ups)
        if more <= s:
            break
        s = more
    rejected = up < (alpha / (family - s) if s < family else np.inf)
    los = np.sort(lo[~empty])
    rank = np.searchsorted(los, up, side="right") - (lo <= up) + 1 + (family - present)
    accepted = lo > alpha / np.maximum(family - rank + 1, 1)
    return ~(rejected | accepted | empty)


def _arrays(diffs: Sequence[Any]) -> List[np.ndarray]:
    arrays = []
    for i, d in enumerate(diffs):
        a = np.asarray(d, dtype=np.float64)
        if a.ndim != 1:
            raise ParameterError(f"diffs[{i}]: give a one-dimensional array of differences")
        if not np.isfinite(a).all():
            raise ParameterError(f"diffs[{i}]: every difference must be a finite number")
        arrays.append(a)
    return arrays


def _permutations(value: Any) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"permutations={value!r}: give a positive integer (or None: as many as the family needs)")
    return int(value)


def _family(value: Any) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"family={value!r}: give the number of comparisons in the correction (>= 1)")
    return int(value)


def _alpha(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 < value < 1:
        raise ParameterError(f"alpha={value!r}: give a level strictly between 0 and 1")
    return float(value)


def _exact_counts(d: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """How many of the 2^n sign assignments reach ``threshold`` in |sum|, per column of ``d`` (n x k)."""
    n, k = d.shape
    total = 2 ** n
    rows = max(1, _CHUNK // max(n, k))
    count = np.zeros(k)
    for start in range(0, total, rows):
        stop = min(total, start + rows)
        bits = (np.arange(start, stop, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1
        count += (np.abs((1.0 - 2.0 * bits) @ d) >= threshold).sum(axis=0)
    return count


#: byte value -> its 8 bits (least significant first) as signs: bit 0 -> +1, bit 1 -> -1
_SIGNS = 1.0 - 2.0 * ((np.arange(256)[:, None] >> np.arange(8)) & 1)


def _random_signs(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """``rows`` x ``n`` random signs (+1, -1), one bit of the generator's raw 64-bit output each (bit j of
    word w of row i, least significant first, is the sign of query 64 w + j): a stream that does not depend
    on how it is cut into blocks. A byte -> 8 signs lookup (3 times faster than unpacking the bits)."""
    words = (n + 63) // 64
    raw = np.asarray(rng.bit_generator.random_raw(rows * words), dtype="<u8")
    return _SIGNS[raw.view(np.uint8)].reshape(rows, words * 64)[:, :n]


def randomization_test(diffs: Any, permutations: Optional[int] = DEFAULT_PERMUTATIONS,
                       seed: Optional[int] = DEFAULT_SEED) -> float:
    """The two-sided p-value of a paired randomization test of one array of per-query differences
    (see :func:`randomization_pvalues`; ``permutations=None`` for the adaptive test of a family of one).

    >>> randomization_test([0.5, 0.25, 0.125])
    0.25
    """
    return float(randomization_pvalues([diffs], permutations, seed)[0])


def holm(pvalues: Any) -> np.ndarray:
    """Holm's step-down (Holm-Bonferroni) adjusted p-values, in the order given: with the m p-values
    sorted, p_(1) <= ... <= p_(m), the i-th adjusted value is max over j <= i of min(1, (m - j + 1)
    p_(j)) (Holm 1979). Rejecting where the adjusted p <= alpha controls the family-wise error rate
    at alpha. NaN entries are left out of the family and stay NaN. Equal to
    ``statsmodels.stats.multitest.multipletests(p, method='holm')[1]`` (tested), without its import.

    >>> holm([0.01, 0.04, 0.03, 0.005]).round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ParameterError("holm: give a one-dimensional array of p-values")
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise ParameterError("holm: p-values must lie in [0, 1]")
    out = np.full(len(p), np.nan)
    q = p[ok]
    m = q.size
    order = np.argsort(q, kind="stable")
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * q[order]))
    values = np.empty(m)
    values[order] = adjusted
    out[ok] = values
    return out
