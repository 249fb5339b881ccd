"""Agreement of two measures' rankings of the same systems: Kendall's tau-b (scipy.stats.kendalltau), the
AP rank correlation tau_AP of Yilmaz, Aslam and Robertson (2008), which weighs swaps near the top of the
ranking more, and the rank-biased overlap (RBO) of Webber, Moffat and Zobel (2010) of the two system
rankings. The citations are in the docstring of :mod:`ir_rbstar.stats`.

Ties. Two systems with equal scores (exactly equal floats) are tied. Kendall's tau-b is defined with ties
(scipy's variant b). tau_AP and RBO are defined for strict orders; with ties both are taken as their
*expected value over uniformly random orders of the tied systems*, drawn independently in the two
rankings (ties read as uncertainty, not as equality). For RBO this is RBO^a of Corsi & Urbano (SIGIR
2024) with Webber et al.'s extrapolation, computed by the package's tie-aware kernel
(:mod:`ir_rbstar.core.rbo_variants`); for tau_AP it is exact in closed form (a system whose tie group of
z systems fills the ranks t+1 .. t+z sits at each of them with chance 1/z, and each other member of the
group is above it with chance (m-1)/(z-1) when it sits at rank t+m; a tie in the reference counts as
half a concordance). Without ties both reduce to the published definitions; no system is dropped.
Why this convention rather than refusing ties or reporting NaN: measures with coarse values (counts of
documents, shallow runs, per-(run, topic) values) tie systems routinely, and NaN would take tau_AP and
RBO away exactly where tau-b is reported; the expectation is what the ranking broken at random gives on
average, lies in the same range as the untied values, and for RBO is a published variant.

Constant input: a measure that gives every system the same score induces no ranking; then tau-b and its
p-value are NaN (as scipy gives them) and so are tau_AP and RBO.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from ..core.rbo_variants import rbo_variants
from ..errors import ParameterError
from . import _checks

__all__ = ["RankingAgreement", "ranking_agreement", "ranking_rbo", "tau_ap"]

#: the default persistence of :func:`ranking_rbo` and :func:`ranking_agreement`
RBO_P = 0.9
_BLOCK = 1 << 22                                     # matrix cells per block of tau_AP's pairwise counts
_NAN = float("nan")


@dataclass(frozen=True)
class RankingAgreement:
    """Agreement of the system rankings by ``scores_a`` (the reference) and ``scores_b`` over ``n``
    systems: Kendall's tau-b and its p-value (scipy), tau_AP of the ranking by b against the reference a,
    the symmetric tau_AP (the mean of both directions), the RBO of the two rankings with persistence
    ``rbo_p``, and how many systems share their score with another system in a (``tied_a``) and in b
    (``tied_b``). With ties tau_AP and RBO are expectations over random orders of the tied systems; when
    either measure scores every system alike, the four correlations are NaN (see the module docstring)."""
    tau_b: float
    tau_b_pvalue: float
    tau_ap: float
    tau_ap_symmetric: float
    n: int
    rbo: float
    rbo_p: float
    tied_a: int
    tied_b: int


def _align(scores_a: Any, scores_b: Any, name_a: str = "scores_a",
           name_b: str = "scores_b") -> tuple[np.ndarray, np.ndarray]:
    """Two per-system score vectors: Series aligned on their index (same systems required), otherwise
    paired by position."""
    if isinstance(scores_a, pd.Series) and isinstance(scores_b, pd.Series):
        if scores_a.index.has_duplicates:
            raise ParameterError(f"{name_a}: duplicate system labels")
        if set(scores_a.index) != set(scores_b.index) or scores_b.index.has_duplicates:
            only_a = sorted(map(str, set(scores_a.index) - set(scores_b.index)))
            only_b = sorted(map(str, set(scores_b.index) - set(scores_a.index)))
            raise ParameterError(f"{name_b}: must score the same systems as {name_a}, once each "
                                 f"(only in {name_a}: {only_a[:5]}, only in {name_b}: {only_b[:5]})")
        scores_b = scores_b.reindex(scores_a.index)
    a = _checks.vector(scores_a, name_a)
    b = _checks.vector(scores_b, name_b)
    if a.size != b.size:
        raise ParameterError(f"{name_b}: has {b.size} systems but {name_a} has {a.size}")
    return a, b


def _persistence(p: Any) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating)) or not 0.0 < float(p) < 1.0:
        raise ParameterError(f"p: the persistence of RBO must be a number strictly between 0 and 1, got {p!r}")
    return float(p)


def _groups(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ranking by ``x`` (highest first; ties kept in input order): the systems in rank order; for
    each of them the 0-based rank where its tie group starts, the group's size and the group's number;
    and the first rank of every group."""
    order = np.argsort(-x, kind="stable")
    ranked = x[order]
    new = np.concatenate(([True], ranked[1:] != ranked[:-1]))
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, x.size))
    group = np.cumsum(new) - 1
    return order, starts[group], sizes[group], group, starts


def _n_tied(x: np.ndarray) -> int:
    _, counts = np.unique(x, return_counts=True)
    return int(counts[counts > 1].sum())


def _tau_ap(reference: np.ndarray, compared: np.ndarray) -> float:
    # The systems ranked by ``compared`` (rank r = t + m inside a tie group of size z starting after
    # rank t); the system at rank r contributes C / (r - 1), C the reference's concordances with the
    # systems above it (a reference tie counts 1/2). In expectation over random orders of the tied
    # systems: (S_above * h + S_tied * g / (z - 1)) / z, with S_above the concordances with the systems
    # of higher groups, S_tied those with its group's other members, h = sum_m 1 / (t + m - 1) and
    # g = sum_m (m - 1) / (t + m - 1), both over m = 1..z leaving out rank 1 (nothing above it).
    n = reference.size
    order, start, size, group, first = _groups(compared)
    ref, cmp_ = reference[order], compared[order]
    above = np.empty(n)
    tied = np.empty(n)
    rows = max(1, _BLOCK // n)
    for lo in range(0, n, rows):
        hi = min(n, lo + rows)
        ref_above = ref[None, :] > ref[lo:hi, None]
        ref_tied = ref[None, :] == ref[lo:hi, None]
        higher = cmp_[None, :] > cmp_[lo:hi, None]
        same = cmp_[None, :] == cmp_[lo:hi, None]
        above[lo:hi] = (np.count_nonzero(ref_above & higher, axis=1)
                        + 0.5 * np.count_nonzero(ref_tied & higher, axis=1))
        tied[lo:hi] = (np.count_nonzero(ref_above & same, axis=1)                 # the system itself left out
                       + 0.5 * (np.count_nonzero(ref_tied & same, axis=1) - 1))
    k = np.arange(n)                                              # r - 1 for the ranks r = 1..n
    inv = np.zeros(n)
    inv[1:] = 1.0 / k[1:]
    h = np.add.reduceat(inv, first)[group]
    g = np.add.reduceat((k - start) * inv, first)[group]
    part = above * h
    multi = size > 1
    part[multi] += tied[multi] * g[multi] / (size[multi] - 1)
    return float(2.0 / (n - 1) * np.sum(part / size) - 1.0)


def _rbo(a: np.ndarray, b: np.ndarray, p: float) -> float:
    xa, sa, za, _, _ = _groups(a)
    xb, sb, zb, _, _ = _groups(b)
    zeros = np.zeros(a.size, dtype=np.int64)
    out = rbo_variants(p, "a", 1, zeros, xa, sa, za, zeros, xb, sb, zb)
    return float(out["ext"][0])


def _constant(x: np.ndarray) -> bool:
    return bool(x.min() == x.max())


def tau_ap(reference: Any, compared: Any) -> float:
    """tau_AP (Yilmaz, Aslam & Robertson 2008) of the ranking of systems by ``compared`` against the
    ranking by ``reference`` (higher score = better = ranked higher):

        tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1,

    C(i) the number of systems ranked above rank i by ``compared`` that ``reference`` also ranks above the
    system at rank i. It is 1 for identical orders, -1 for reversed ones, and asymmetric. Series are
    aligned on their index, arrays paired by position; at least 2 systems. With tied scores it is the
    expected tau_AP over uniformly random orders of the tied systems in both rankings (see the module
    docstring of :mod:`ir_rbstar.stats.agreement`); NaN when either input is constant."""
    a, b = _align(reference, compared, "reference", "compared")
    if _constant(a) or _constant(b):
        return _NAN
    return _tau_ap(a, b)


def ranking_rbo(scores_a: Any, scores_b: Any, p: float = RBO_P) -> float:
    """Rank-biased overlap (Webber, Moffat & Zobel 2010) of the rankings of the same systems by
    ``scores_a`` and by ``scores_b`` (higher score = ranked higher), persistence ``p`` in (0, 1):

        RBO = (1 - p) / p * sum_{d=1..N} p^d * |A_{:d} ∩ B_{:d}| / d + p^N,

    Webber et al.'s extrapolated RBO_EXT for two rankings of the same N systems (the overlap is N at
    depth N and stays complete past it), 1 for identical orders; symmetric. Series are aligned on their
    index, arrays paired by position; at least 2 systems. With tied scores it is the expected RBO over
    uniformly random orders of the tied systems, RBO^a of Corsi & Urbano (2024), by the package's
    tie-aware kernel; NaN when either input is constant."""
    q = _persistence(p)
    a, b = _align(scores_a, scores_b)
    if _constant(a) or _constant(b):
        return _NAN
    return _rbo(a, b, q)


def ranking_agreement(scores_a: Any, scores_b: Any, p: float = RBO_P) -> RankingAgreement:
    """Agreement of two measures' per-system means (Series indexed by system, aligned on the index; arrays
    are paired by position; at least 2 systems): Kendall's tau-b and its p-value by
    ``scipy.stats.kendalltau(a, b)`` (tau-b handles tied scores), ``tau_ap`` = :func:`tau_ap` (``scores_a``
    the reference, ``scores_b`` compared), the symmetric tau_AP, (tau_AP(a, b) + tau_AP(b, a)) / 2, and
    ``rbo`` = :func:`ranking_rbo` with persistence ``p``. With tied scores tau_AP and RBO are expectations
    over random orders of the tied systems (``tied_a`` and ``tied_b`` count the systems in ties); when
    either measure gives every system the same score, tau-b, its p-value, tau_AP and RBO are NaN. The
    items need not be systems: the family pages' studies also compare pairs of runs and (run, topic)
    values this way (tau_AP is counted in blocks, so thousands of items stay cheap)."""
    q = _persistence(p)
    a, b = _align(scores_a, scores_b)
    n, tied_a, tied_b = int(a.size), _n_tied(a), _n_tied(b)
    if _constant(a) or _constant(b):
        return RankingAgreement(tau_b=_NAN, tau_b_pvalue=_NAN, tau_ap=_NAN, tau_ap_symmetric=_NAN, n=n,
                                rbo=_NAN, rbo_p=q, tied_a=tied_a, tied_b=tied_b)
    res = scipy.stats.kendalltau(a, b)
    forward, backward = _tau_ap(a, b), _tau_ap(b, a)
    return RankingAgreement(tau_b=float(res.statistic), tau_b_pvalue=float(res.pvalue), tau_ap=forward,
                            tau_ap_symmetric=(forward + backward) / 2.0, n=n, rbo=_rbo(a, b, q), rbo_p=q,
                            tied_a=tied_a, tied_b=tied_b)

