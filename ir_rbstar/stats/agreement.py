"""Agreement of two measures' rankings of the same systems: Kendall's tau-b (scipy.stats.kendalltau) and
the AP rank correlation tau_AP of Yilmaz, Aslam and Robertson (2008), which weighs swaps near the top of
the ranking more. The citations are in the docstring of :mod:`ir_rbstar.stats`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from ..errors import ParameterError
from . import _checks

__all__ = ["RankingAgreement", "ranking_agreement", "tau_ap"]


@dataclass(frozen=True)
class RankingAgreement:
    """Agreement of the system rankings by ``scores_a`` (the reference) and ``scores_b``: Kendall's tau-b
    and its p-value (scipy), tau_AP of the ranking by b against the reference a, and the symmetric
    tau_AP (the mean of both directions), over ``n`` systems."""
    tau_b: float
    tau_b_pvalue: float
    tau_ap: float
    tau_ap_symmetric: float
    n: int


def _no_ties(x: np.ndarray, name: str, labels: list[Any]) -> None:
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    if (counts > 1).any():
        tied = [labels[k] for k in np.flatnonzero(counts[inverse] > 1)]
        raise ParameterError(f"{name}: tied scores for systems {tied[:6]}; tau_AP is defined for rankings "
                             "without ties (Yilmaz et al. 2008), so tied scores are refused")


def _align(scores_a: Any, scores_b: Any) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Two per-system score vectors: Series aligned on their index (same systems required), otherwise
    paired by position."""
    if isinstance(scores_a, pd.Series) and isinstance(scores_b, pd.Series):
        if scores_a.index.has_duplicates:
            raise ParameterError("scores_a: duplicate system labels")
        if set(scores_a.index) != set(scores_b.index) or scores_b.index.has_duplicates:
            only_a = sorted(map(str, set(scores_a.index) - set(scores_b.index)))
            only_b = sorted(map(str, set(scores_b.index) - set(scores_a.index)))
            raise ParameterError(f"scores_b: must score the same systems as scores_a, once each "
                                 f"(only in scores_a: {only_a[:5]}, only in scores_b: {only_b[:5]})")
        scores_b = scores_b.reindex(scores_a.index)
        labels = list(scores_a.index)
    a = _checks.vector(scores_a, "scores_a")
    b = _checks.vector(scores_b, "scores_b")
    if a.size != b.size:
        raise ParameterError(f"scores_b: has {b.size} systems but scores_a has {a.size}")
    if not (isinstance(scores_a, pd.Series) and isinstance(scores_b, pd.Series)):
        labels = list(range(a.size))
    return a, b, labels


def _tau_ap(reference: np.ndarray, compared: np.ndarray) -> float:
    # systems in the order of ``compared`` (best, i.e. highest score, first); C(i) = the number of
    # systems above rank i there that the reference also places above the system at rank i
    ref = reference[np.argsort(-compared, kind="stable")]
    n = ref.size
    above = np.tril(ref[None, :] > ref[:, None], k=-1)           # [i, j]: j < i and ref[j] > ref[i]
    correct = above.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(correct / np.arange(1, n)) - 1.0)


def tau_ap(reference: Any, compared: Any) -> float:
    """tau_AP (Yilmaz, Aslam & Robertson 2008) of the ranking of systems by ``compared`` against the
    ranking by ``reference`` (higher score = better = ranked higher):

        tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1,

    C(i) the number of systems ranked above rank i by ``compared`` that ``reference`` also ranks above the
    system at rank i. It is 1 for identical orders, -1 for reversed ones, and asymmetric. Series are
    aligned on their index, arrays paired by position; at least 2 systems; tied scores in either input
    are refused (:class:`~ir_rbstar.errors.ParameterError`), the paper's definition assuming strict orders."""
    a, b, labels = _align(reference, compared)
    _no_ties(a, "scores_a (reference)", labels)
    _no_ties(b, "scores_b (compared)", labels)
    return _tau_ap(a, b)


def ranking_agreement(scores_a: Any, scores_b: Any) -> RankingAgreement:
    """Agreement of two measures' per-system means (Series indexed by system, aligned on the index; arrays
    are paired by position): Kendall's tau-b and its p-value by ``scipy.stats.kendalltau(a, b)``,
    ``tau_ap`` = :func:`tau_ap` (``scores_a`` the reference, ``scores_b`` compared) and the symmetric
    tau_AP, (tau_AP(a, b) + tau_AP(b, a)) / 2. Tied scores are refused (see :func:`tau_ap`)."""
    a, b, labels = _align(scores_a, scores_b)
    _no_ties(a, "scores_a", labels)
    _no_ties(b, "scores_b", labels)
    res = scipy.stats.kendalltau(a, b)
    forward, backward = _tau_ap(a, b), _tau_ap(b, a)
    return RankingAgreement(tau_b=float(res.statistic), tau_b_pvalue=float(res.pvalue), tau_ap=forward,
                            tau_ap_symmetric=(forward + backward) / 2.0, n=int(a.size))
