"""NRG kernels (Bigdeli et al., SIGIR-AP 2024, eqs. 3-4), on whole columns.

``seen(i)`` is the base measure's probability that rank i (1-based) is looked at; a document's
residual gain is its gain times the product, over the prior runs, of 1 - seen(its rank there) (1 when
a prior run does not have it in its top k).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..errors import ParameterError
from .segments import seg_cumcount, seg_sum

__all__ = ["seen", "normaliser", "weighted_sum", "ideal_sum"]


def seen(base: str, ranks: np.ndarray, p: float, cutoff: Optional[int]) -> np.ndarray:
    """seen(i) of the base measure for 1-based ranks (0 beyond the cutoff)."""
    i = ranks.astype(np.float64)
    if base == "nDCG":
        w = 1.0 / np.log2(i + 1.0)
    elif base == "P":
        w = np.ones(len(i))
    elif base == "RBP":
        w = np.power(p, i - 1.0)
    elif base == "RR":
        w = 1.0 / i
    else:
        raise ValueError(f"unknown base {base!r}")
    if cutoff is not None:
        w[ranks > cutoff] = 0.0
    return w


def normaliser(base: str, p: float, cutoff: Optional[int]) -> float:
    """The base measure's own constant N (``norm=False``): k for P, 1/(1-p) for RBP, 1 otherwise."""
    if base == "P":
        if cutoff is None:
            raise ParameterError("NRG with base='P' needs a cutoff (e.g. NRG(prior=...,base='P')@10)")
        return float(cutoff)
    if base == "RBP":
        return 1.0 / (1.0 - p)
    return 1.0


def weighted_sum(seg: np.ndarray, ranks: np.ndarray, gain: np.ndarray, base: str, p: float,
                 cutoff: Optional[int], n: int) -> np.ndarray:
    """sum over a query's rows of gain * seen(rank)."""
    return seg_sum(gain * seen(base, ranks, p, cutoff), seg, n)


def ideal_sum(q: np.ndarray, gain: np.ndarray, base: str, p: float, cutoff: Optional[int], n: int) -> np.ndarray:
    """The same sum over the ideal ranking of each query: its judged documents by gain descending
    (``q`` the query index of each judged document, contiguous or not)."""
    keep = gain > 0
    q, gain = q[keep], gain[keep]
    order = np.lexsort((-gain, q))
    q, gain = q[order], gain[order]
    ranks = seg_cumcount(q)
    return weighted_sum(q, ranks, gain, base, p, cutoff, n)
