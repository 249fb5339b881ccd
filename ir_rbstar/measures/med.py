"""Declarations of the MED family (papers/003: Tan & Clarke, *A Family of Rank Similarity Measures
based on Maximized Effectiveness Difference*, TKDE 2015).

MED(A, B) is the largest |S(A) - S(B)| that any relevance assignment consistent with what is known
can produce, for an effectiveness measure S. A is the evaluated run, B the run named by ``ref`` (a run
file, a registered run). Both are cut at the depth k; a list shorter than k is filled up to k with
unseen documents. Documents judged in the qrels are fixed to their value; the others are free. With no
qrels (``None`` in Python, ``none`` on the command line), or with ``judgments=False`` (the qrels then only
give the query set, as inside ``pt.Experiment``), MED is a pure rank distance; with every document of both lists judged (and lists of depth k) it is exactly
|S(A) - S(B)|. MED is a metric: non-negative, symmetric, zero for identical lists (except MED_RBP
without a cutoff, where the unseen tail keeps p^K), and it satisfies the triangle inequality.

Binary measures (P, RBP, AP) count a judged document as relevant (value 1) when its grade is
>= ``rel``. Graded measures (nDCG, ERR) give grade j the value r_j = (2^j - 1) / 2^G (eq. 15), with
G = ``max_rel`` (default: the highest grade in the qrels, at least 1) and negative grades as 0.
"""
from __future__ import annotations

from .base import ParamInfo, RbstarMeasure, param_cutoff, param_p, param_rel
from ..errors import ParameterError

__all__ = ["MED_P", "MED_RBP", "MED_nDCG", "MED_AP", "MED_ERR", "MED_MEASURES"]


def param_med_ref() -> ParamInfo:
    return ParamInfo(dtype=str, required=True,
                     desc="the other run B: path of a TREC run file (.gz allowed) or a name given to "
                          "ir_rbstar.register_run()")


def param_judgments() -> ParamInfo:
    return ParamInfo(dtype=bool, default=True,
                     desc="use the qrels' judgments as known values (False: judgment-free, the qrels only "
                          "give the query set, e.g. inside pt.Experiment)")


def param_max_rel() -> ParamInfo:
    return ParamInfo(dtype=int, default=None,
                     desc="the highest grade G; grade j is worth (2^j - 1) / 2^G (default: the highest "
                          "grade in the qrels, at least 1)")


class _MEDMeasure(RbstarMeasure):
    FAMILY = "med"
    ALWAYS_SHOWN = ("ref",)
    DEFAULT_CUTOFF = None          # a measure with a default depth always carries (and shows) it

    def __init__(self, **params):
        if self.DEFAULT_CUTOFF is not None and params.get("cutoff") is None:
            params["cutoff"] = self.DEFAULT_CUTOFF
        super().__init__(**params)

    def _check_ranges(self) -> None:
        super()._check_ranges()
        self._check_text("ref")
        max_rel = self.params.get("max_rel")
        if max_rel is not None and max_rel < 1:
            raise ParameterError(f"{self.NAME}: max_rel={max_rel} must be at least 1")


class _MED_P(_MEDMeasure):
    """MED of P@k: the largest P@k difference between the run and ``ref`` that any relevance allows.

    Binary (grade >= ``rel`` is relevant). Without judgments it is 1 - |A_k ∩ B_k| / k (papers/003
    eqs. 10-11); with every document of both top k judged (and both lists of depth k) it is
    |P@k(A) - P@k(B)|. The cutoff is required. Example: ``MED_P(ref='baseline.run')@10``.
    """
    __name__ = "MED_P"
    NAME = "MED_P"
    SUPPORTED_PARAMS = {"cutoff": ParamInfo(dtype=int, required=True,
                                            desc="depth k: both lists are cut at k, a shorter one is filled "
                                                 "with unseen documents"),
                        "ref": param_med_ref(), "rel": param_rel(1),
                        "judgments": param_judgments()}


class _MED_RBP(_MEDMeasure):
    """MED of RBP: the largest RBP difference between the run and ``ref`` that any relevance allows.

    Binary relevance (``rel``), papers/003 section III-A, eq. 13. Without a cutoff RBP is summed to
    infinity: after the end of a list of K documents the unseen tail can add up to p^K, so two
    identical depth-K lists are p^K apart. With ``@k`` the measure is RBP@k (nothing after rank k
    counts) and identical lists of depth >= k are 0 apart.
    Example: ``MED_RBP(p=0.95,ref='baseline.run')``.
    """
    __name__ = "MED_RBP"
    NAME = "MED_RBP"
    ALWAYS_SHOWN = ("p", "ref")
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(0.95), "ref": param_med_ref(),
                        "rel": param_rel(1), "judgments": param_judgments()}


class _MED_nDCG(_MEDMeasure):
    """MED of nDCG@k: the largest rescaled nDCG@k difference from ``ref`` that any relevance allows.

    papers/003 section III-B: DCG with gains r_j = (2^j - 1) / 2^G and discount 1 / log2(i + 1),
    divided by the DCG of k documents of the top grade (eq. 17), so that the value lies in [0, 1]
    without knowing the collection (this normaliser is not the ideal DCG of trec_eval's nDCG). Default
    k = 20. Example: ``MED_nDCG(ref='baseline.run')@20``, ``MED_nDCG(ref='b.run',max_rel=2)@10``.
    """
    __name__ = "MED_nDCG"
    NAME = "MED_nDCG"
    DEFAULT_CUTOFF = 20
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "ref": param_med_ref(), "max_rel": param_max_rel(),
                        "judgments": param_judgments()}


class _MED_AP(_MEDMeasure):
    """MED of AP@k: the largest AP@k difference (R replaced by k) from ``ref`` that any relevance allows.

    papers/003 eq. 19, binary (``rel``). Maximising the difference is a quadratic 0-1 problem; the value
    is its exact maximum, found by branch and bound with first-order persistency (see
    :mod:`ir_rbstar.core.med`), not the paper's tabu-search approximation. Default k = 100.
    Example: ``MED_AP(ref='baseline.run')@100``.
    """
    __name__ = "MED_AP"
    NAME = "MED_AP"
    DEFAULT_CUTOFF = 100
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "ref": param_med_ref(), "rel": param_rel(1),
                        "judgments": param_judgments()}


class _MED_ERR(_MEDMeasure):
    """MED of ERR@k: the largest expected-reciprocal-rank difference from ``ref`` that any relevance allows.

    papers/003 eq. 23, gains as for MED_nDCG. The value is the exact maximum (branch and bound over the
    shared unjudged documents with a provable bound at every node, see :mod:`ir_rbstar.core.med`), not
    the paper's approximation with error bound eq. 24. Default k = 30.
    Example: ``MED_ERR(ref='baseline.run',max_rel=2)@30``.
    """
    __name__ = "MED_ERR"
    NAME = "MED_ERR"
    DEFAULT_CUTOFF = 30
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "ref": param_med_ref(), "max_rel": param_max_rel(),
                        "judgments": param_judgments()}


MED_P = _MED_P()
MED_RBP = _MED_RBP()
MED_nDCG = _MED_nDCG()
MED_AP = _MED_AP()
MED_ERR = _MED_ERR()
MED_MEASURES = (MED_P, MED_RBP, MED_nDCG, MED_AP, MED_ERR)
