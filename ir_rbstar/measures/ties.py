"""Declarations of the tie-aware family (McSherry & Najork, ECIR 2008).

A run orders its documents by score; documents with equal scores (a *tie group*) have no order among
themselves. trec_eval breaks such ties by document id, so renaming documents changes the score. Each
``_TA`` measure is instead the exact mean of its tie-oblivious counterpart over every ordering of the
run that respects the scores (every permutation of every tie group), computed in closed form.

Relevance: a document is relevant when it is judged with grade >= ``rel``; unjudged documents are not
relevant. ``judged_only=True`` first removes unjudged documents from the run (as ir_measures does;
like trec_eval, documents judged with a negative grade count as unjudged there), then ties are formed
among the remaining ones. With no tied scores each measure equals its
ir_measures/trec_eval counterpart: ``P``, ``R``, ``AP``, ``RR``, ``nDCG``, ``RBP``, and for ``F1_TA``
the harmonic mean of ``P@k`` and ``R@k``.

How much a tie could move a number: ``stat='min'`` and ``stat='max'`` give the value of the worst and of
the best order of the tied scores instead of the mean (``nDCG_TA(stat='max')@10``). Every measure here
gains when a more relevant document moves up past a less relevant one, so the best order puts, within
each tie group, the documents by gain descending (relevant first) and the worst by gain ascending; both
are computed exactly, as the tie-oblivious measure of that order. ``min <= mean <= max``, all three
equal when the run has no ties.

How uncertain a value is because of the ties: ``stat='var'`` gives the variance of the query's value over
the uniformly random orders of its tied scores (not the variance across queries; its square root is the
standard deviation), exactly and in closed form, for the measures that are a linear statistic of the order,
sum_j a(v_j) c(j) with a the document's relevance (0/1) or gain and c the position's weight: ``P_TA``,
``R_TA``, ``F1_TA``, ``nDCG_TA`` and ``RBP_TA`` (``P_TA(stat='var')@10``). A tie group of g documents with
values a_1..a_g at positions with weights c_1..c_g adds (1/(g-1)) sum_i (a_i - mean a)^2 sum_i (c_i - mean c)^2
(nothing when g = 1); the groups are ordered independently, so their variances add up. A query without
ties, and a query the run does not answer, gets 0; ``calc_aggregate`` prints the mean over the queries of
their variances. ``AP_TA`` and ``RR_TA`` are not linear in the order, so ``stat='var'`` raises
ParameterError there. ``var <= (max - min)^2 / 4``.
"""
from __future__ import annotations


from ..errors import ParameterError
from .base import NOT_PROVIDED, ParamInfo, RbstarMeasure, param_cutoff, param_max_rel, param_p, param_rel

__all__ = ["P_TA", "R_TA", "F1_TA", "AP_TA", "RR_TA", "nDCG_TA", "RBP_TA", "TIES"]


def _judged_only() -> ParamInfo:
    return ParamInfo(dtype=bool, default=False,
                     desc="remove unjudged documents (and, as trec_eval does, those with a negative grade) "
                          "from the run before evaluating; ties are formed after")


def _stat(linear: bool = True) -> ParamInfo:
    var = ("; 'var': the variance of the query's value over the uniformly random orders of its tied scores "
           "(not across queries; 0 without ties and for a query the run does not answer; calc_aggregate "
           "gives the mean of these variances)" if linear else
           "; 'var' raises ParameterError: this measure is not linear in the order, so its variance over "
           "the tie orders has no closed form")
    return ParamInfo(dtype=str, choices=["mean", "min", "max", "var"], default="mean",
                     desc="over the orders of the run's tied scores: 'mean' (the expectation, McSherry & "
                          "Najork), or 'min' / 'max' (the worst and best order: relevant documents last or "
                          "first within each tie group, gains ascending or descending)" + var)


def _no_variance(m: RbstarMeasure) -> None:
    """``stat='var'`` of a measure that is not a linear statistic of the order (AP_TA, RR_TA) is an error."""
    if m.params.get("stat") == "var":
        name = str(m.NAME)
        raise ParameterError(f"{name}: stat='var' is not available: {name[:-3]} is not a linear statistic of "
                             f"the order of the tied documents, so the variance of {name} over the tie orders "
                             f"has no closed form; use stat='mean', 'min' or 'max'")


def _cutoff_required() -> ParamInfo:
    return ParamInfo(dtype=int, required=True, desc="ranking cutoff k (required)")


class _TieMeasure(RbstarMeasure):
    FAMILY = "ties"
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "rel": param_rel(1), "judged_only": _judged_only(),
                        "stat": _stat()}


class _P_TA(_TieMeasure):
    """Tie-aware precision at k: P@k averaged exactly over every order of the run's tied scores.

    P_TA@k = (R_c + (k - t_c) r_c / n_c) / k (McSherry & Najork 2008, section 2.1): the relevant documents above the
    tie group that holds rank k, plus that group's expected share (n_c documents, r_c of them
    relevant, starting after position t_c). Always divides by k (as trec_eval's P@k does, even when
    the run is shorter). The cutoff is required. A query the run does not answer scores 0.
    Example: ``P_TA@10``, ``P_TA(rel=2)@10``.
    Variance over the tie orders (position weight 1[j <= k] / k): ``P_TA(stat='var')@10``.
    """
    __name__ = "P_TA"
    NAME = "P_TA"
    PRETTY_NAME = "Tie-Aware Precision"
    SHORT_DESC = "precision at k, tie-aware: the mean over every order of tied scores"
    SUPPORTED_PARAMS = {"cutoff": _cutoff_required(), "rel": param_rel(1), "judged_only": _judged_only(),
                        "stat": _stat()}


class _R_TA(_TieMeasure):
    """Tie-aware recall at k: R@k averaged exactly over every order of the run's tied scores.

    R_TA@k = E[relevant documents in the top k] / (relevant documents in the qrels) (McSherry & Najork 2008
    section 2.2), 0 when the qrels have none. The cutoff is required. A query the run does not answer
    scores 0. Example: ``R_TA@100``.
    Variance over the tie orders (position weight 1[j <= k] / |Rel|; 0 when |Rel| = 0): ``R_TA(stat='var')@100``.
    """
    __name__ = "R_TA"
    NAME = "R_TA"
    PRETTY_NAME = "Tie-Aware Recall"
    SHORT_DESC = "recall at k, tie-aware: the mean over every order of tied scores"
    SUPPORTED_PARAMS = {"cutoff": _cutoff_required(), "rel": param_rel(1), "judged_only": _judged_only(),
                        "stat": _stat()}


class _F1_TA(_TieMeasure):
    """Tie-aware F1 at k: the harmonic mean of P@k and R@k, averaged over every order of the tied scores.

    F1_TA@k = 2 E[relevant in top k] / (k + relevant in qrels) (McSherry & Najork 2008, section 2.3), 0 when both
    are 0. This expectation is exact because F1 at a fixed k is linear in the number of relevant
    documents retrieved. For a run with at least k documents it equals ir_measures' ``SetF`` of the run
    cut at k. The cutoff is required. A query the run does not answer scores 0.
    Example: ``F1_TA@10``.
    Variance over the tie orders (position weight 2 1[j <= k] / (k + |Rel|)): ``F1_TA(stat='var')@10``.
    """
    __name__ = "F1_TA"
    NAME = "F1_TA"
    PRETTY_NAME = "Tie-Aware F1"
    SHORT_DESC = "F1 at k, tie-aware: the mean over every order of tied scores"
    SUPPORTED_PARAMS = {"cutoff": _cutoff_required(), "rel": param_rel(1), "judged_only": _judged_only(),
                        "stat": _stat()}


class _AP_TA(_TieMeasure):
    """Tie-aware average precision: AP averaged exactly over every order of the run's tied scores.

    A position j of tie group i (positions t_i+1 .. t_i+n_i, r_i relevant, R_i relevant before the
    group) holds a relevant document in r_i/n_i of the orderings, and then has on average
    R_i + 1 + (j - t_i - 1)(r_i - 1)/(n_i - 1) relevant documents at or above it (McSherry & Najork 2008, section
    2.4). AP_TA sums these precisions over j <= k (the whole run without a cutoff) and divides by the
    number of relevant documents in the qrels, as trec_eval's ``map`` and ``map_cut_k`` do; 0 when the
    qrels have none or the run does not answer the query. Example: ``AP_TA``, ``AP_TA(rel=2)@100``.
    AP is not linear in the order: ``AP_TA(stat='var')`` raises ParameterError (no closed form).
    """
    __name__ = "AP_TA"
    NAME = "AP_TA"
    PRETTY_NAME = "Tie-Aware Average Precision"
    SHORT_DESC = "average precision, tie-aware: the mean over every order of tied scores"
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "rel": param_rel(1), "judged_only": _judged_only(),
                        "stat": _stat(linear=False)}

    def _check_ranges(self) -> None:
        super()._check_ranges()
        _no_variance(self)


class _RR_TA(_TieMeasure):
    """Tie-aware reciprocal rank: RR averaged exactly over every order of the run's tied scores.

    In the first tie group that holds a relevant document (n documents, r relevant, starting after
    position t), the first relevant document is at position t + x with probability
    C(n - x, r - 1) / C(n, r); RR_TA = sum over x with t + x <= k of that probability / (t + x)
    (McSherry & Najork 2008, section 2.5; the paper prints the fraction of orderings whose first x are irrelevant
    where the probability of the first relevant being at x is meant; the difference of consecutive
    fractions is used here). 0 when no relevant document is retrieved (within k).
    Example: ``RR_TA``, ``RR_TA(rel=2)@10``.
    RR is not linear in the order: ``RR_TA(stat='var')`` raises ParameterError (no closed form).
    """
    __name__ = "RR_TA"
    NAME = "RR_TA"
    PRETTY_NAME = "Tie-Aware Reciprocal Rank"
    SHORT_DESC = "reciprocal rank, tie-aware: the mean over every order of tied scores"
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "rel": param_rel(1), "judged_only": _judged_only(),
                        "stat": _stat(linear=False)}

    def _check_ranges(self) -> None:
        super()._check_ranges()
        _no_variance(self)


class _nDCG_TA(RbstarMeasure):
    """Tie-aware nDCG: nDCG averaged exactly over every order of the run's tied scores.

    trec_eval's conventions unless told otherwise. Every position of a tie group gets the group's mean
    gain, so DCG_TA@k = sum over groups of (mean gain x sum of the discounts 1/log2(j+1) of the group's
    positions j <= k); the ideal DCG (from every judged document of the query, best first, cut at k) is
    unaffected (McSherry & Najork 2008, section 2.6). Gains: ``dcg='log2'`` (default) uses the grade itself,
    ``dcg='exp-log2'`` uses 2^grade - 1; ``gains`` first maps grades to other values (grades not in the
    map keep their value). Negative gains count as 0, in the run and in the ideal ranking, as in
    trec_eval. nDCG is 0 when the ideal DCG is 0 or the run does not answer the query. ``judged_only``
    looks at the grades, not at the mapped gains (ir_measures maps the qrels first, so there a grade
    mapped to a negative gain also counts as unjudged).
    Example: ``nDCG_TA@10``, ``nDCG_TA(dcg='exp-log2')@10``, ``nDCG_TA(gains={0:0,1:0,2:1,3:3})@10``.
    Variance over the tie orders (position weight 1[j <= k] / (log2(j+1) IDCG)): ``nDCG_TA(stat='var')@10``.
    """
    __name__ = "nDCG_TA"
    NAME = "nDCG_TA"
    PRETTY_NAME = "Tie-Aware nDCG"
    SHORT_DESC = "nDCG, tie-aware: the mean over every order of tied scores"
    FAMILY = "ties"
    SUPPORTED_PARAMS = {
        "cutoff": param_cutoff(),
        "dcg": ParamInfo(dtype=str, choices=["log2", "exp-log2"], default="log2",
                         desc="gain formulation: 'log2' (gain = grade) or 'exp-log2' (gain = 2^grade - 1); "
                              "the discount is 1/log2(rank + 1) in both"),
        "gains": ParamInfo(dtype=dict,
                           desc="custom mapping from grade to gain (int to number), e.g. {0:0,1:0,2:1,3:3}; "
                                "grades not in the map keep their value"),
        "judged_only": _judged_only(), "stat": _stat(),
    }

    def _check_ranges(self) -> None:
        super()._check_ranges()
        gains = self.params.get("gains")
        if gains is not None and gains is not NOT_PROVIDED:
            for grade, gain in gains.items():
                if isinstance(grade, bool) or not isinstance(grade, int):
                    raise ParameterError(f"nDCG_TA: gains maps grades (integers) to gains; got key {grade!r}")
                if isinstance(gain, bool) or not isinstance(gain, (int, float)) or gain != gain:
                    raise ParameterError(f"nDCG_TA: gains[{grade}]={gain!r} must be a number")


class _RBP_TA(RbstarMeasure):
    """Tie-aware rank-biased precision: RBP averaged exactly over every order of the run's tied scores.

    Tied documents share the weights (1-p) p^(j-1) of their group's positions equally, so each position
    gets the group's mean gain (this package's extension of McSherry & Najork's method to RBP). Gains as
    in ``RBP``: binary with ``rel``, else grade / ``max_rel`` (the top of the grade scale, default 1; a
    judged grade above it is an error). A query the run does not answer scores 0.
    Example: ``RBP_TA(p=0.8)@10``, ``RBP_TA(p=0.95,rel=2)``, ``RBP_TA(p=0.8,max_rel=3)@10``.
    Variance over the tie orders (position weight 1[j <= k] (1-p) p^(j-1)): ``RBP_TA(p=0.8,stat='var')@10``.
    """
    __name__ = "RBP_TA"
    NAME = "RBP_TA"
    PRETTY_NAME = "Tie-Aware Rank-Biased Precision"
    SHORT_DESC = "RBP, tie-aware: the mean over every order of tied scores"
    FAMILY = "ties"
    ALWAYS_SHOWN = ("p",)
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "rel": param_rel(NOT_PROVIDED),
                        "max_rel": param_max_rel(), "judged_only": _judged_only(), "stat": _stat()}

    def _check_ranges(self) -> None:
        super()._check_ranges()
        if "rel" in self.params and "max_rel" in self.params:
            raise ParameterError("RBP_TA: max_rel sets the grade scale of graded RBP_TA; with rel=... it is "
                                 "binary: give one of them")


P_TA = _P_TA()
R_TA = _R_TA()
F1_TA = _F1_TA()
AP_TA = _AP_TA()
RR_TA = _RR_TA()
nDCG_TA = _nDCG_TA()
RBP_TA = _RBP_TA()

TIES = [P_TA, R_TA, F1_TA, AP_TA, RR_TA, nDCG_TA, RBP_TA]
