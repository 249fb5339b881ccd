"""Declarations of the NRG family (Bigdeli, Arabzadeh, Bagheri, Clarke: *Evaluating Relative Retrieval
Effectiveness with Normalized Residual Gain*, SIGIR-AP 2024).

A searcher who has already looked at a set of *prior* runs gets nothing from seeing a document again.
NRG scores a run with its base measure's browsing model (seen(i), the probability that rank i is
looked at), but each document's gain G(d) is reduced by the chance that it was already seen in the
top k of each prior run R_j (eq. 3):

    G(d | prior) = G(d) * prod_j (1 - seen(pos(d, R_j))),   seen(infinity) = 0

    NRG@k = (1 / N) * sum_{i <= k} G(d_i | prior) * seen(i)                          (eq. 4)

``base`` picks seen and G: ``nDCG`` (seen(i) = 1 / log2(i + 1), G = grade, negative grades 0),
``P`` (seen(i) = 1 for i <= k, G = 1 if grade >= rel), ``RBP`` (seen(i) = p^(i-1), G as for P),
``RR`` (seen(i) = 1 / i, G as for P). With ``norm=True`` N is the same sum over the ideal ranking:
the judged documents sorted by residual gain (0 when nothing is left to find). With ``norm=False``
N is the base measure's own constant: k for P, 1 / (1 - p) for RBP, 1 for RR and nDCG, so that with
no prior run NRG is exactly P@k, RBP (binary, ``rel``) or DCG@k, and RR@k on queries with a single
relevant document (with several, base RR sums 1/rank over all of them). (The paper's eq. 4 leaves N
unnormalised as 1; these constants make the empty-prior values those of ir_measures' measures.
``UniqueRel`` gives the unnormalised count.) With an empty prior set and ``norm=True``, base nDCG
gives nDCG@k exactly.

Without a cutoff the whole depth of every run counts (k = infinity: ``P`` is then not defined).
A prior run is left out of a query's prior set when it ranks that query exactly as the evaluated run
does (the same documents in the same order): it is then taken to be the run itself, so "every other
system" can be given as one glob or registered group. This is decided per query, from that query's
rankings only, so a query's value never depends on the other queries; a different system that returns
the very same ranking for a query cannot be told apart from the run and is left out of that query too.
"""
from __future__ import annotations

from .base import ParamInfo, RbstarMeasure, param_cutoff, param_p, param_rel
from ..errors import ParameterError

__all__ = ["NRG", "UniqueRel", "RarP", "TaSC", "NRG_MEASURES"]

BASES = ("nDCG", "P", "RBP", "RR")


def param_prior() -> ParamInfo:
    return ParamInfo(dtype=str, required=True,
                     desc="the prior runs: a glob of TREC run files, a comma-separated list of files or "
                          "registered run names, or a group given to ir_rbstar.register_runs()")


class _NRGMeasure(RbstarMeasure):
    FAMILY = "nrg"
    ALWAYS_SHOWN = ("prior",)

    def _check_ranges(self) -> None:
        super()._check_ranges()
        self._check_text("prior", " (register an empty group with ir_rbstar.register_runs(name, {}) for an "
                                  "empty prior set)")


class _NRG(_NRGMeasure):
    """Normalized residual gain: the base measure of what a run adds to the prior runs' top k (Bigdeli et al. 2024).

    G(d | prior) = G(d) prod_j (1 - seen(pos(d, R_j))) (eq. 3), NRG@k = (1/N) sum_{i<=k} G(d_i | prior)
    seen(i) (eq. 4), with seen(i) and G from ``base`` (see the family's description). N is the same sum over
    the ideal ranking by residual gain (``norm=True``; the value is 0 when nothing is left to find) or the
    base measure's constant (``norm=False``). With no prior run it is the base measure (nDCG@k by default). A
    prior run that ranks a query exactly as the run does is left out for that query. A query the run does not
    answer scores 0. Examples: ``NRG(prior='runs/*.run')@10``, ``NRG(prior='bm25,dense',base='RR')@10``,
    ``NRG(prior='others',base='RBP',p=0.8,norm=False)@100``.
    """
    __name__ = "NRG"
    NAME = "NRG"
    PRETTY_NAME = "Normalized Residual Gain"
    SHORT_DESC = "normalized residual gain: the base measure counting only what the prior runs had not shown"

    def value_range(self):
        """[0, 1] when normalised (``norm=True``); unnormalised, the base measure's own scale, open above."""
        return (0.0, 1.0) if self["norm"] else (0.0, None)
    SUPPORTED_PARAMS = {
        "cutoff": param_cutoff(),
        "prior": param_prior(),
        "base": ParamInfo(dtype=str, default="nDCG", choices=BASES,
                          desc="base measure giving seen(i) and the gain: nDCG, P, RBP or RR"),
        "p": param_p(0.8),
        "norm": ParamInfo(dtype=bool, default=True,
                          desc="divide by the same sum over the ideal ranking by residual gain (True) or by "
                               "the base measure's constant (False: k for P, 1/(1-p) for RBP, 1 otherwise)"),
        "rel": param_rel(1),
    }

    @property
    def ALWAYS_SHOWN(self):                      # p only matters (and so is only shown) for base RBP
        return ("prior", "base", "p") if self.params.get("base") == "RBP" else ("prior",)

    def check_required(self) -> None:
        super().check_required()
        if self["base"] == "P" and self.params.get("cutoff") is None:
            raise ParameterError("NRG: base='P' needs a cutoff, e.g. NRG(prior=...,base='P')@10")


class _UniqueRel(_NRGMeasure):
    """Unique relevant contributions: relevant documents in the run's top k that no prior run has there.

    Per query, the number of documents with grade >= ``rel`` in the run's top k that are in no prior
    run's top k (Bigdeli et al. 2024, Appendix B; NRG with base P, unnormalised, times k); the mean over the
    queries is a multiple of 1/(number of queries). With the other pooled runs as the prior set and k
    the pool depth, this is TREC's "unique contributions to the relevant set". A query the run does not
    answer scores 0. Example: ``UniqueRel(prior='runs/*.gz')@10``.
    """
    __name__ = "UniqueRel"
    NAME = "UniqueRel"
    PRETTY_NAME = "Unique Relevant"
    SHORT_DESC = "relevant documents in the run's top k that no prior run has in its top k"
    RANGE = (0.0, None)                 # a count of documents
    SUPPORTED_PARAMS = {"cutoff": ParamInfo(dtype=int, required=True, desc="ranking cutoff k (the pool depth)"),
                        "prior": param_prior(), "rel": param_rel(1)}


class _RarP(RbstarMeasure):
    """Rareness-based precision at k: relevant documents that few of the runs found count more.

    From Türkmen, Lease, Kutlu, *New Metrics to Encourage Innovation and Diversity in Information
    Retrieval Approaches*, ECIR 2023, one of the comparisons of Bigdeli et al. 2024:

        RarP@k = (1 / k) * sum over relevant documents d in the run's top k of (1 + alpha * h(d)),
        h(d) = 1 - n(d) / M,

    where, **per topic**, M is the number of runs in the set ``runs`` together with the evaluated run
    (which is added when it is not one of them) and n(d) the number of those runs that have d in their
    top k. A relevant document no other run found earns 1 + alpha (1 - 1/M); one every run found earns
    1. The value lies in [0, 1 + alpha]; alpha = 0 gives P@k. (The NRG authors' code counts rarity over
    all topics at once; the original paper and this package count it per topic.) A query the run does
    not answer scores 0. Example: ``RarP(runs='runs/*.run')@10``.
    """
    __name__ = "RarP"
    NAME = "RarP"
    PRETTY_NAME = "Rareness-Based Precision"
    SHORT_DESC = "rareness-based precision: relevant documents few runs found count more"

    def value_range(self):
        """[0, 1 + alpha]: a relevant document no other run found earns up to 1 + alpha."""
        return (0.0, 1.0 + float(self["alpha"]))
    FAMILY = "nrg"
    ALWAYS_SHOWN = ("runs", "alpha")
    SUPPORTED_PARAMS = {
        "cutoff": ParamInfo(dtype=int, required=True, desc="ranking cutoff k"),
        "runs": ParamInfo(dtype=str, required=True,
                          desc="the runs rarity is counted over (the evaluated run is added): a glob, a "
                               "comma-separated list or a group given to ir_rbstar.register_runs()"),
        "alpha": ParamInfo(dtype=float, default=1.0, desc="weight of rareness, >= 0"),
        "rel": param_rel(1),
    }

    def _check_ranges(self) -> None:
        super()._check_ranges()
        alpha = self.params.get("alpha")
        if alpha is not None and not alpha >= 0:
            raise ParameterError(f"RarP: alpha={alpha!r} must be >= 0")


class _TaSC(_NRGMeasure):
    """TaSC: the run's nDCG@k on the queries the prior runs serve badly, (1 - best prior nDCG@k) x nDCG@k.

    As the NRG authors' code computes it ("MAX TaSC"; Arabzadeh, Bigdeli, Hamidi Rad, Bagheri,
    *Quantifying Ranker Coverage of Different Query Subspaces*, SIGIR 2023), one of the
    comparisons of Bigdeli et al. 2024: per query, (1 - max over the prior runs of their nDCG@k) * nDCG@k of
    the run. It looks at scores, not at which documents the runs share. With no prior run it is nDCG@k.
    (The TaSC paper's own equation was not available to us; this follows the NRG authors'
    implementation, with the prior set the user gives, where their code took the best run of the run's
    own group by mistake.)
    Example: ``TaSC(prior='runs/*.run')@10``.
    """
    __name__ = "TaSC"
    NAME = "TaSC"
    PRETTY_NAME = "TaSC"
    SHORT_DESC = "(1 - best prior nDCG@k) x the run's nDCG@k"
    SUPPORTED_PARAMS = {"cutoff": ParamInfo(dtype=int, required=True, desc="ranking cutoff k of nDCG@k"),
                        "prior": param_prior()}


NRG = _NRG()
UniqueRel = _UniqueRel()
RarP = _RarP()
TaSC = _TaSC()
NRG_MEASURES = (NRG, UniqueRel, RarP, TaSC)
