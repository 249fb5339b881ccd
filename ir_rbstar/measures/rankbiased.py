"""Declarations of the rank-biased family (papers/000: Moffat, Mackenzie, Mallia, Petri, SIGIR-AP 2024).

B is the run (ordered by score descending, ties by doc id descending; ``@k`` keeps its top k), R the
reference ranking given by ``ref`` (a run file or a registered run) or, with ``ref=None``, derived
from the qrels: documents with grade >= ``rel``, by grade descending, equal grades tied. Ties in R are
never broken: every value is the expectation over a uniformly random order of each tie group.
Weights: w(i) = (1-p) p^(i-1).
"""
from __future__ import annotations

from ir_measures.measures.base import _NOT_PROVIDED
from ir_measures.measures.rbp import _RBP

from .base import RbstarMeasure, param_cutoff, param_p, param_ref, param_rel

__all__ = ["RBP", "RBP_res", "RBR", "RBR_res", "RBA", "RBA_res", "RBO", "RBO_res", "RBO_ext",
           "_RBP_rbstar", "RANKBIASED"]


class _RBP_rbstar(RbstarMeasure, _RBP):
    """Rank-biased precision (Moffat & Zobel 2008; eq. 4 of papers/000).

    RBP = sum_{i<=k} gain(B_i) (1-p) p^(i-1). With ``rel``: gain 1 for grade >= rel, else 0. Without
    ``rel``: graded, gain = max(grade, 0) / (highest grade in the qrels), so values stay in [0, 1]
    (trec_eval 10's ``rbp`` also normalises gains); when no grade in the qrels is positive every gain
    is 0. Unjudged documents gain 0; see RBP_res.

    The same measure as ir_measures' ``RBP``: built-in providers (cwl_eval, when installed, for binary
    RBP without cutoff) keep serving what they can; ir_rbstar serves the rest (graded, ``@k``).
    Example: ``RBP(p=0.8)@10``, ``RBP(p=0.95,rel=2)``.
    """
    __name__ = "RBP"
    NAME = "RBP"
    FAMILY = "rankbiased"
    ALWAYS_SHOWN = ("p",)
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "rel": param_rel(_NOT_PROVIDED)}


class _RBP_res(RbstarMeasure):
    """Residual of RBP: how much RBP could still grow.

    RBP_res = sum over unjudged B_i (i <= k) of (1-p) p^(i-1), plus the tail p^n, n = min(k, |run|)
    (n = run length without cutoff; a run shorter than k leaves everything after its end unknown).
    RBP <= true RBP <= RBP + RBP_res. Example: ``RBP_res(p=0.8)@10``.
    """
    __name__ = "RBP_res"
    NAME = "RBP_res"
    FAMILY = "rankbiased"
    ALWAYS_SHOWN = ("p",)
    DEFAULT = 1.0
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "rel": param_rel(_NOT_PROVIDED)}


class _RefMeasure(RbstarMeasure):
    FAMILY = "rankbiased"
    ALWAYS_SHOWN = ("p",)
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "ref": param_ref(), "rel": param_rel(1)}


class _RBR(_RefMeasure):
    """Rank-biased recall of the run's top k, as a set, against the reference ranking (eqs. 6/8).

    RBR = sum_{e in B} w(rank_R(e)), with tied items of R sharing their group's weight equally
    (0 for e not in R). At most 1 - p^|B| when B is R's top |B|.
    Example: ``RBR(p=0.8,ref='reranked.run')@20`` (first stage top 20 vs a re-ranked reference).
    """
    __name__ = "RBR"
    NAME = "RBR"


class _RBR_res(_RefMeasure):
    """Residual of RBR (eq. 9): (1-p)/p sum_{i=1..b} p^(|R|+i) = p^|R| (1 - p^b).

    b counts the items of B whose rank in R is unknown: not in R and, for a qrels-derived R, not
    judged (a judged document below ``rel`` is known not to be in R and adds nothing).
    """
    __name__ = "RBR_res"
    NAME = "RBR_res"


class _RBA(_RefMeasure):
    """Rank-biased alignment (eq. 11): sum_{e in B∩R} (1-p) p^((rank_B(e)+rank_R(e))/2 - 1).

    With ties in R, p^(rank_R/2) is replaced by its mean over the tie group's positions. Symmetric in
    B and R; RBA(reverse(R), R) = (1-p)/p |R| p^((|R|+1)/2) (eq. 12). Example: ``RBA(p=0.9,ref='a.run')``.
    """
    __name__ = "RBA"
    NAME = "RBA"


class _RBA_res(_RefMeasure):
    """Residual of RBA: Algorithm 1's ``extra + p^|B ∪ R|`` (the paper's algorithm as printed).

    Unknown items of B take R positions |R|+1, |R|+2, ... in B order; items of R missing from B take B
    positions |B|+1, ... in R order; the tail p^|B ∪ R| covers perfect alignment afterwards. With ties
    in R, the expectation over the tie orders is exact. (rbstar's implementation of this bound is wrong.)
    """
    __name__ = "RBA_res"
    NAME = "RBA_res"
    DEFAULT = 1.0


class _RBO(_RefMeasure):
    """Rank-biased overlap, RBO_min of Webber et al. (2010): eq. 5 summed to infinity assuming no overlap
    beyond what is seen (prefix overlaps stay frozen after both lists end). This is what Table 3 of
    papers/000 prints. Lists of unequal length allowed. Example: ``RBO(p=0.9,ref='baseline.run')@100``.
    """
    __name__ = "RBO"
    NAME = "RBO"


class _RBO_res(_RefMeasure):
    """RBO_max - RBO_min (Webber et al. 2010): the largest increase of RBO over every extension of both
    lists; RBO <= RBO_ext <= RBO + RBO_res."""
    __name__ = "RBO_res"
    NAME = "RBO_res"
    DEFAULT = 1.0


class _RBO_ext(_RefMeasure):
    """Extrapolated RBO, Webber et al. (2010) eq. 32 (unequal lengths allowed): the overlap rate of the
    seen prefix is assumed to continue. A point estimate between RBO and RBO + RBO_res."""
    __name__ = "RBO_ext"
    NAME = "RBO_ext"


RBP = _RBP_rbstar()
RBP_res = _RBP_res()
RBR = _RBR()
RBR_res = _RBR_res()
RBA = _RBA()
RBA_res = _RBA_res()
RBO = _RBO()
RBO_res = _RBO_res()
RBO_ext = _RBO_ext()

RANKBIASED = [RBP, RBP_res, RBR, RBR_res, RBA, RBA_res, RBO, RBO_res, RBO_ext]
