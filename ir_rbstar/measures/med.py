"""Declarations of the MED family (Tan & Clarke, *A Family of Rank Similarity Measures based on
Maximized Effectiveness Difference*, IEEE TKDE 2015).

MED(A, B) is the largest |S(A) - S(B)| that any relevance assignment consistent with what is known can
produce, for an effectiveness measure S. A is the evaluated run, B the run named by ``ref`` (a run file, a
registered run). Both are cut at the depth k; a list shorter than k is filled up to k with unseen documents.
Documents judged in the qrels are fixed to their value; the others are free. With no qrels (``None`` in
Python, ``none`` on the command line), or with ``judgments=False`` (the qrels then only give the query set, as
inside ``pt.Experiment``), MED is a pure rank distance; with every document of both lists judged (and lists of
depth k) it is exactly |S(A) - S(B)|. MED is a metric: non-negative, symmetric, zero for identical lists at
least k deep (a shorter list is filled with unseen documents that may differ between the two copies: MED_P@10
of a 7-document list against itself is 0.3; and MED_RBP without a cutoff keeps the unseen tail p^K), and it
satisfies the triangle inequality.

Binary measures (P, RBP, AP) count a judged document as relevant (value 1) when its grade is
>= ``rel``. Graded measures (nDCG, ERR) give grade j the value r_j = (2^j - 1) / 2^G (eq. 15), with
G = ``max_rel``, the top of the collection's grade scale (default 1; e.g. ``max_rel=3`` for TREC DL), and
negative grades as 0. G is a parameter, not the highest grade of whatever qrels are passed in, so a
query's value never depends on the other queries' judgments; a judged grade above ``max_rel`` raises
:class:`~ir_rbstar.errors.GradeScaleError` naming the query, the document and the grade (never clipped).
Judgment-free values use G = 1 unless ``max_rel`` is given.

MED_AP and MED_ERR search (branch and bound) for the maximum; ``budget`` caps the search nodes per query
and direction, so that no query can take exponential time (MED_ERR's default shrinks beyond k = 30, as a
node scores k positions: about a second a query at most, also at k = 1000). A query whose search reaches the budget gets
a certified upper bound of the maximum (never below it) instead of the exact value, and the evaluation
issues one :class:`~ir_rbstar.errors.BudgetWarning` naming the measure, how many queries were bounded
and the first of them. :func:`ir_rbstar.med.exactness` gives, per query, the value and whether it is
exact. Nodes are counted per query, so a value never depends on the other queries of the call.
"""
from __future__ import annotations

from typing import Optional, Tuple

from .base import ParamInfo, RbstarMeasure, param_cutoff, param_p, param_rel
from ..errors import ParameterError

__all__ = ["MED_P", "MED_RBP", "MED_nDCG", "MED_AP", "MED_ERR", "MED_MEASURES", "AP_BUDGET", "ERR_BUDGET",
           "ERR_BUDGET_DEPTH", "default_budget"]

#: default search budgets (nodes per query and direction). A MED_AP node costs about a millisecond (a
#: dynamic programme over the shared documents), a MED_ERR node a few microseconds at k = 30 (vectorised over
#: the nodes and queries), so both defaults stop a query that cannot be solved after about a second.
AP_BUDGET = 1000
ERR_BUDGET = 200_000
#: a MED_ERR node scores whole rows of k positions, so its cost grows with the cutoff k: beyond
#: :data:`ERR_BUDGET_DEPTH` the default budget is ``ERR_BUDGET * ERR_BUDGET_DEPTH // k`` nodes (the same work
#: as 200,000 nodes at k = 30: 60,000 at k = 100, 6,000 at k = 1000), so that a deep cutoff cannot turn about
#: a second a query into minutes (Robust 2003, two runs judgment-free at k = 200: 95 s with 200,000 nodes)
ERR_BUDGET_DEPTH = 30


def default_budget(name: str, cutoff: Optional[int]) -> int:
    """The search budget of ``MED_AP`` or ``MED_ERR`` at cutoff ``cutoff`` when ``budget=`` is not given (nodes
    per query and direction): :data:`AP_BUDGET` for MED_AP; for MED_ERR :data:`ERR_BUDGET` up to
    k = :data:`ERR_BUDGET_DEPTH`, ``ERR_BUDGET * ERR_BUDGET_DEPTH // k`` beyond."""
    if name == "MED_AP":
        return AP_BUDGET
    k = int(cutoff or ERR_BUDGET_DEPTH)
    return ERR_BUDGET if k <= ERR_BUDGET_DEPTH else max(1, ERR_BUDGET * ERR_BUDGET_DEPTH // k)


def param_med_ref() -> ParamInfo:
    return ParamInfo(dtype=str, required=True,
                     desc="the other run B: path of a TREC run file (.gz allowed) or a name given to "
                          "ir_rbstar.register_run()")


def param_judgments() -> ParamInfo:
    return ParamInfo(dtype=bool, default=True,
                     desc="use the qrels' judgments as known values (False: judgment-free, the qrels only "
                          "give the query set, e.g. inside pt.Experiment)")


def param_max_rel() -> ParamInfo:
    return ParamInfo(dtype=int, default=1,
                     desc="the top of the grade scale G (e.g. 3 for TREC DL); grade j is worth (2^j - 1) / 2^G; "
                          "a judged grade above it is an error, never clipped")


def param_budget(default: int, note: str = "") -> ParamInfo:
    return ParamInfo(dtype=int, default=default,
                     desc="search nodes per query and direction" + note + "; a query whose search reaches it "
                          "gets a certified upper bound of the maximum instead of the exact value (with a "
                          "BudgetWarning)")


class _MEDMeasure(RbstarMeasure):
    FAMILY = "med"
    ALWAYS_SHOWN: Tuple[str, ...] = ("ref",)
    DEFAULT = None          # a query the run does not answer: its distance from the reference's list
    DEFAULT_CUTOFF: Optional[int] = None          # a measure with a default depth always carries (and shows) it

    def __init__(self, **params):
        if self.DEFAULT_CUTOFF is not None and params.get("cutoff") is None:
            params["cutoff"] = self.DEFAULT_CUTOFF
        super().__init__(**params)

    def __getitem__(self, key):
        # the search budget not given: the default for this cutoff (MED_ERR's shrinks beyond k = 30)
        if key == "budget" and self.params.get("budget") is None and "budget" in self.SUPPORTED_PARAMS:
            return default_budget(self.NAME, self.params.get("cutoff"))
        return super().__getitem__(key)

    def _check_ranges(self) -> None:
        super()._check_ranges()
        self._check_text("ref")
        budget = self.params.get("budget")
        if budget is not None and budget < 1:
            raise ParameterError(f"{self.NAME}: budget={budget} must be at least 1 (search nodes per query "
                                 f"and direction)")


class _MED_P(_MEDMeasure):
    """MED of P@k: the largest P@k difference between the run and ``ref`` that any relevance allows.

    Binary (grade >= ``rel`` is relevant). Without judgments it is 1 - |A_k ∩ B_k| / k (Tan & Clarke,
    TKDE 2015, eqs. 10-11); with every document of both top k judged (and both lists of depth k) it is
    |P@k(A) - P@k(B)|. The cutoff is required. Example: ``MED_P(ref='baseline.run')@10``.
    """
    __name__ = "MED_P"
    NAME = "MED_P"
    PRETTY_NAME = "MED of Precision"
    SHORT_DESC = "maximized P@k difference from the reference over every relevance of the unjudged documents"
    SUPPORTED_PARAMS = {"cutoff": ParamInfo(dtype=int, required=True,
                                            desc="depth k: both lists are cut at k, a shorter one is filled "
                                                 "with unseen documents"),
                        "ref": param_med_ref(), "rel": param_rel(1),
                        "judgments": param_judgments()}


class _MED_RBP(_MEDMeasure):
    """MED of RBP: the largest RBP difference between the run and ``ref`` that any relevance allows.

    Binary relevance (``rel``), Tan & Clarke (TKDE 2015) section III-A, eq. 13. Without a cutoff RBP is summed to
    infinity: after the end of a list of K documents the unseen tail can add up to p^K, so two
    identical depth-K lists are p^K apart. With ``@k`` the measure is RBP@k (nothing after rank k
    counts) and identical lists of depth >= k are 0 apart.
    Example: ``MED_RBP(p=0.95,ref='baseline.run')``.
    """
    __name__ = "MED_RBP"
    NAME = "MED_RBP"
    PRETTY_NAME = "MED of RBP"
    SHORT_DESC = "maximized RBP difference from the reference over every relevance of the unjudged documents"
    ALWAYS_SHOWN = ("p", "ref")
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(0.95), "ref": param_med_ref(),
                        "rel": param_rel(1), "judgments": param_judgments()}


class _MED_nDCG(_MEDMeasure):
    """MED of nDCG@k: the largest rescaled nDCG@k difference from ``ref`` that any relevance allows.

    Tan & Clarke (TKDE 2015) section III-B: DCG with gains r_j = (2^j - 1) / 2^G and discount
    1 / log2(i + 1), divided by the DCG of k documents of the top grade (eq. 17), so that the value lies in
    [0, 1] without knowing the collection (this normaliser is not the ideal DCG of trec_eval's nDCG).
    G = ``max_rel``, the top of the grade scale (default 1: binary qrels; give ``max_rel=3`` for TREC DL
    qrels): a judged grade above it raises GradeScaleError. Default k = 20.
    Example: ``MED_nDCG(ref='baseline.run')@20``, ``MED_nDCG(ref='b.run',max_rel=3)@10``.
    """
    __name__ = "MED_nDCG"
    NAME = "MED_nDCG"
    PRETTY_NAME = "MED of nDCG"
    SHORT_DESC = "maximized nDCG@k difference from the reference over every relevance of the unjudged documents"
    DEFAULT_CUTOFF = 20
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "ref": param_med_ref(), "max_rel": param_max_rel(),
                        "judgments": param_judgments()}


class _MED_AP(_MEDMeasure):
    """MED of AP@k: the largest AP@k difference (R replaced by k) from ``ref`` that any relevance allows.

    Tan & Clarke (TKDE 2015) eq. 19, binary (``rel``). Maximising the difference is a quadratic 0-1
    problem; the value is its exact maximum, found by branch and bound (persistency, a roof bound and a
    dynamic-programming chain bound that is exact when both lists rank their shared documents in the same
    order; see :mod:`ir_rbstar.core.med`), not the paper's tabu-search approximation. ``budget`` (default
    1000) caps the search nodes per query and direction (about a millisecond each at k = 100): a query
    that reaches it gets a certified upper bound of the maximum instead, and the evaluation warns
    (BudgetWarning). Default k = 100.
    Example: ``MED_AP(ref='baseline.run')@100``, ``MED_AP(ref='baseline.run',budget=100000)@100``.
    """
    __name__ = "MED_AP"
    NAME = "MED_AP"
    PRETTY_NAME = "MED of AP"
    SHORT_DESC = "maximized AP@k difference from the reference over every relevance of the unjudged documents"
    DEFAULT_CUTOFF = 100
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "ref": param_med_ref(), "rel": param_rel(1),
                        "judgments": param_judgments(), "budget": param_budget(AP_BUDGET)}


class _MED_ERR(_MEDMeasure):
    """MED of ERR@k: the largest expected-reciprocal-rank difference from ``ref`` that any relevance allows.

    Tan & Clarke (TKDE 2015) eq. 23, gains as for MED_nDCG (G = ``max_rel``, default 1; a judged grade
    above it raises GradeScaleError). The value is the exact maximum (branch and bound over the shared
    unjudged documents with a provable bound at every node, see :mod:`ir_rbstar.core.med`), not the
    paper's approximation with error bound eq. 24. ``budget`` caps the search nodes per query and direction
    (default 200000 up to k = 30, a few microseconds each; beyond, 6000000 // k, since a node's cost grows
    with k: 60000 at k = 100): a query that reaches it gets a certified upper bound of the maximum instead,
    and the evaluation warns (BudgetWarning). Deep cutoffs over many shared documents in different orders
    (k = 100) can need more. Default k = 30.
    Example: ``MED_ERR(ref='baseline.run',max_rel=3)@30``.
    """
    __name__ = "MED_ERR"
    NAME = "MED_ERR"
    PRETTY_NAME = "MED of ERR"
    SHORT_DESC = "maximized ERR@k difference from the reference over every relevance of the unjudged documents"
    DEFAULT_CUTOFF = 30
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "ref": param_med_ref(), "max_rel": param_max_rel(),
                        "judgments": param_judgments(),
                        "budget": param_budget(ERR_BUDGET, " (the default for k <= 30; beyond, 6000000 // k)")}


MED_P = _MED_P()
MED_RBP = _MED_RBP()
MED_nDCG = _MED_nDCG()
MED_AP = _MED_AP()
MED_ERR = _MED_ERR()
MED_MEASURES = (MED_P, MED_RBP, MED_nDCG, MED_AP, MED_ERR)
