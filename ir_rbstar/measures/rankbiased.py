"""Declarations of the rank-biased family (Moffat, Mackenzie, Mallia, Petri, SIGIR-AP 2024).

B is the run (ordered by score descending; ``@k`` keeps its top k), R the reference ranking given by
``ref`` (a run file or a registered run) or, with ``ref=None``, derived from the qrels: documents with
grade >= ``rel``, by grade descending, equal grades tied. Weights: w(i) = (1-p) p^(i-1).

Ties (``ties``, RBR, RBA, RBO and their residuals): by default (``'expected'``) no tie is broken, in the
run or in the reference: every value is the exact mean over the uniformly random orders of every tie group
of both rankings, independently (Moffat et al. propose this for the reference; it is applied to the run
too). A tie group of the run that straddles the cutoff k (positions s+1 .. s+g with s < k < s+g) puts
each of its members into B with probability (k-s)/g. So RBO and RBA are symmetric (the value of A against
B is that of B against A) whatever the ties, and a run compared with itself gets the mean over two
independent orders of its ties: 1 - RBA and 1 - RBO are not 0 then (the package's distance matrices put 0
on their diagonal all the same). ``ties='docid'`` takes the run, and a reference run, in trec_eval's order
(ties broken by document id descending; the equal grades of a qrels-derived reference stay averaged); RBP
and RBP_res always do (see RBP_TA for RBP with ties). For the RBO family ``ties='a'|'b'|'w'`` gives the
variants of Corsi & Urbano (SIGIR 2024, doi:10.1145/3626772.3657700): ``a``, ties as uncertainty, RBO_a the
expected overlap (its min score is this package's RBO; its ext and res differ from the exact means when
the longer list has ties); ``b``, corrected for the information ties hide (RBO_b(X, X) = 1 with ext);
``w``, tied documents truly equal (the whole group enters at its first position). With a cutoff, a tie
group of the run that straddles k is kept whole for these variants. How far the ties could move a value: ``stat='min'``
and ``stat='max'`` (RBR, RBA, RBO, RBO_ext) give the value of the worst and of the best order of the ties of
both rankings, exactly, e.g. ``RBO(p=0.9,stat='min',ref='a.run')``.
"""
from __future__ import annotations

from ir_measures import measures as _ir_measures

from ..errors import ParameterError
from .base import NOT_PROVIDED, ParamInfo, RbstarMeasure, param_cutoff, param_max_rel, param_p, param_ref, param_rel

__all__ = ["RBP", "RBP_res", "RBR", "RBR_res", "RBA", "RBA_res", "RBO", "RBO_res", "RBO_ext",
           "_RBP_rbstar", "RANKBIASED"]


def param_aux() -> ParamInfo:
    """Auxiliary judgments (issue 29): a second qrels filling the documents the qrels leave unjudged."""
    return ParamInfo(dtype=str, default=None,
                     desc="auxiliary judgments (a TREC qrels file or an ir_datasets id, e.g. from an LLM or a "
                          "second assessor) for the documents the qrels leave unjudged (the qrels' grade "
                          "stands where both judge): RBP counts their gains, RBP_res only what neither "
                          "judged; ir_rbstar.judging.aux_split splits a value by provenance")


#: the class of ir_measures' own RBP (reached through its public object)
_IR_MEASURES_RBP = type(_ir_measures.RBP)


class _RBP_rbstar(RbstarMeasure, _IR_MEASURES_RBP):  # type: ignore[misc,valid-type]
    """Rank-biased precision of the run against the qrels (Moffat & Zobel, TOIS 2008).

    Eq. 4 of Moffat, Mackenzie, Mallia, Petri (SIGIR-AP 2024): RBP = sum_{i<=k} gain(B_i) (1-p) p^(i-1): the
    reader looks at the first document and goes on to the next one with probability p. With ``rel``: gain 1
    for grade >= rel, else 0. Without ``rel``: graded, gain = max(grade, 0) / ``max_rel``, where ``max_rel``
    is the top of the collection's grade scale (default 1; e.g. ``max_rel=3`` for TREC DL), so values stay in
    [0, 1] and a query's value never depends on the other queries' judgments. A judged grade above ``max_rel``
    raises :class:`~ir_rbstar.errors.GradeScaleError` naming the query (never clipped). Unjudged documents
    gain 0; RBP_res says how much they and the unseen tail could add. A query the run does not answer scores
    0.

    The same measure as ir_measures' ``RBP``, with one more parameter. :func:`ir_rbstar.parse` gives this
    declaration for every ``RBP`` string and ir_rbstar serves it, whatever the input form;
    ``ir_measures.RBP`` and ``ir_measures.parse_measure('RBP...')`` stay ir_measures' own (served by a
    built-in provider where one can, e.g. cwl_eval for binary RBP without cutoff).
    Example: ``RBP(p=0.8)@10``, ``RBP(p=0.95,rel=2)``, ``RBP(p=0.8,max_rel=3)@10``.
    """
    __name__ = "RBP"
    NAME = "RBP"
    PRETTY_NAME = "Rank-Biased Precision"
    SHORT_DESC = "rank-biased precision against the qrels (binary with rel, else graded on max_rel)"
    FAMILY = "rankbiased"
    ALWAYS_SHOWN = ("p",)
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "rel": param_rel(NOT_PROVIDED),
                        "max_rel": param_max_rel(), "aux": param_aux()}

    def _check_ranges(self) -> None:
        super()._check_ranges()
        if "rel" in self.params and "max_rel" in self.params:
            raise ParameterError("RBP: max_rel sets the grade scale of graded RBP; with rel=... RBP is "
                                 "binary: give one of them")


class _RBP_res(RbstarMeasure):
    """Residual of RBP: how much RBP could still grow through unjudged documents and the unseen tail.

    RBP_res = sum over unjudged B_i (i <= k) of (1-p) p^(i-1), plus the tail p^n, n = min(k, |run|)
    (n = run length without cutoff; a run shorter than k leaves everything after its end unknown).
    RBP <= true RBP <= RBP + RBP_res (Moffat et al. 2024, section 3, after Moffat & Zobel 2008). A judged
    document, relevant or not, adds nothing; a query the run does not answer gets 1.
    Example: ``RBP_res(p=0.8)@10``.
    """
    __name__ = "RBP_res"
    NAME = "RBP_res"
    PRETTY_NAME = "RBP Residual"
    SHORT_DESC = "RBP residual: the weight of unjudged positions and of the unseen tail"
    FAMILY = "rankbiased"
    ALWAYS_SHOWN = ("p",)
    DEFAULT = 1.0
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "rel": param_rel(NOT_PROVIDED), "aux": param_aux()}


def param_ties(variants: bool = False) -> ParamInfo:
    """How ties are treated in both rankings; ``variants``: also Corsi & Urbano's RBO variants."""
    choices = ("expected", "docid") + (("a", "b", "w") if variants else ())
    desc = ("ties in the run and the reference: 'expected' (default), the exact mean over every order of "
            "every tie group of both; 'docid', the run (and a reference run) in trec_eval's order, ties "
            "broken by document id, only the equal grades of a qrels-derived reference averaged")
    if variants:
        desc += ("; 'a', 'b', 'w': the variants of Corsi & Urbano (SIGIR 2024): a, random tie breaking "
                 "(RBO_a = the expected RBO); b, corrected for what ties hide (RBO_b(X,X) = 1); w, tied "
                 "items truly equal")
    return ParamInfo(dtype=str, default="expected", choices=choices, desc=desc)


def param_stat(variance: bool = False) -> ParamInfo:
    """Which value over the tie orders a measure gives: their mean, the worst or best of them, or (RBR,
    linear in the orders) their variance."""
    desc = ("'mean' (default): the mean over the orders of the ties of both rankings; 'min' / 'max': the value "
            "of the worst / best of those orders (exact; needs ties='expected')")
    if variance:
        desc += "; 'var': the variance of the value over those orders (closed form)"
    return ParamInfo(dtype=str, default="mean", choices=("mean", "min", "max") + (("var",) if variance else ()),
                     desc=desc)


class _RefMeasure(RbstarMeasure):
    FAMILY = "rankbiased"
    ALWAYS_SHOWN = ("p",)
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "ref": param_ref(), "rel": param_rel(1),
                        "ties": param_ties()}

    def _check_ranges(self) -> None:
        super()._check_ranges()
        stat = self.params.get("stat", "mean")
        if stat != "mean" and self.params.get("ties", "expected") != "expected":
            raise ParameterError(f"{self.NAME}: stat={stat!r} is the extreme over the orders of the ties; with "
                                 f"ties={self.params['ties']!r} they are broken: use ties='expected' or "
                                 f"stat='mean'")


class _BoundedMeasure(_RefMeasure):
    """A run-vs-reference measure with ``stat`` (RBR, RBA): how far the ties could move it."""
    SUPPORTED_PARAMS = {**_RefMeasure.SUPPORTED_PARAMS, "stat": param_stat()}


class _RBOMeasure(_RefMeasure):
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "p": param_p(), "ref": param_ref(), "rel": param_rel(1),
                        "ties": param_ties(variants=True)}


class _BoundedRBOMeasure(_RBOMeasure):
    SUPPORTED_PARAMS = {**_RBOMeasure.SUPPORTED_PARAMS, "stat": param_stat()}


class _RBR(_BoundedMeasure):
    """Rank-biased recall: the run's top k as a set, each document credited with its weight in the reference.

    RBR(B | R) = sum_{e in B} w(rank_R(e)), w(i) = (1-p) p^(i-1) (Moffat et al. 2024, eqs. 6 and 8). This is the
    paper's "set | ranking" case: B is what a first stage hands to a re-ranker (its top k, order
    ignored), R the ranking the re-ranker makes (the reference). Tied items of R share their group's
    weight equally (the paper's proposal: the expectation over the orders of the tie); a document not
    in R adds 0. A tie group of the run that straddles k puts each member into B with probability
    (k - s)/g (s documents above the group, g in it), so RBR never depends on document ids
    (``ties='docid'``: trec_eval's order decides who is in B; ``stat='var'``: the variance over the tie
    orders, in closed form). RBR is at most 1 - p^|B|, reached when B
    is R's top |B|, and RBR(B | R) = RBP(R | B)
    (eq. 7). A query the run does not answer, or the reference lacks, scores 0.
    Example: ``RBR(p=0.8,ref='reranked.run')@20`` (a first stage's top 20 against a re-ranked
    reference), ``RBR(p=0.8)@20`` (reference derived from the qrels).
    """
    __name__ = "RBR"
    NAME = "RBR"
    PRETTY_NAME = "Rank-Biased Recall"
    SHORT_DESC = "rank-biased recall: the run's top k as a set, credited by the reference ranking"
    SUPPORTED_PARAMS = {**_RefMeasure.SUPPORTED_PARAMS, "stat": param_stat(variance=True)}


class _RBR_res(_RefMeasure):
    """Residual of RBR: how much RBR could still grow once what is unknown becomes known.

    The true RBR lies in [RBR, RBR + RBR_res] for these completions:

    * **run reference** (``ref=`` a run): b items of B are unknown to R (not in it); they can only come
      after R's end, the best place being right after it: residual = (1-p)/p sum_{i=1..b} p^(|R|+i)
      = p^|R| (1 - p^b) (eq. 9 of Moffat et al., SIGIR-AP 2024);
    * **qrels-derived reference** (``ref`` absent): the b unjudged documents of B may be judged with any
      grade, and one that reaches ``rel`` enters R *by its grade*, possibly above every judged document
      or into a tie group. Such an insertion never lowers RBR (the document gains w(j), those below lose
      at most w(j)), and the highest value puts all b above every judged document:
      residual = (1 - p^b)(1 - RBR). A judged document below ``rel`` is known not to be in R.

    Exactly when the lower end holds: RBR <= true RBR when the newly judged documents are unjudged
    documents that are in B under every order of the run's ties (ranked above k, or in a tie group that
    ends at k; with ``ties='docid'``, trec_eval's top k). Judging any other document can lower RBR: it
    may enter R above documents of B while it is not (always) in B itself. That is a document of the
    run below k (run {a:3, y:2, x:1}, qrels {a:1}: RBR(p=0.5)@2 = 0.5 drops to 0.25 when x is judged
    2), a member of a tie group that straddles k, which is in B only in some orders (run {a:2, x:1,
    y:1, z:1}, same qrels: 0.5 drops to 0.41667), or a document in neither the run nor the qrels. The
    upper end RBR + RBR_res holds for every judging of the unjudged documents.

    With ties in the run (``ties='expected'``) the residual is the exact mean of this over the run's tie
    orders (a straddling group's members of each kind enter B in hypergeometric numbers).

    Example: the paper's Table 1 (p = 0.6, D23 unknown) has residual 0.0024 against a run reference
    and 0.1158 against the qrels (D23 could be judged above D07). A query the run does not answer gets
    0; one the reference lacks (|R| = 0) gets 1 - p^|B|.
    """
    __name__ = "RBR_res"
    NAME = "RBR_res"
    PRETTY_NAME = "RBR Residual"
    SHORT_DESC = "RBR residual: how much RBR could still grow once the unknown is known"


class _RBA(_BoundedMeasure):
    """Rank-biased alignment of two rankings, the run and the reference (Moffat et al. 2024, eq. 11).

    RBA(B | R) = sum_{e in B∩R} (1-p) p^((rank_B(e)+rank_R(e))/2 - 1): every shared document is
    weighted at its mean rank in the two rankings, so a document counts more the higher both put it
    (RBO instead counts the overlap of prefixes). Symmetric, RBA(B | R) = RBA(R | B) (eq. 13); two
    aligned rankings approach 1; RBA(reverse(R), R) = (1-p)/p |R| p^((|R|+1)/2) (eq. 12), the smallest
    value of a permutation. With ties in R or in the run, p^(rank/2) is replaced by its mean over the
    tie group's positions (within k for the run): the expectation over both rankings' tie orders. RBA is
    a tight lower bound (more shared documents can only add; see RBA_res). A query the run does not
    answer, or the reference lacks, scores 0. Example: ``RBA(p=0.9,ref='a.run')``.
    """
    __name__ = "RBA"
    NAME = "RBA"
    PRETTY_NAME = "Rank-Biased Alignment"
    SHORT_DESC = "rank-biased alignment of the run with the reference ranking"


class _RBA_res(_RefMeasure):
    """Residual of RBA: how much RBA could grow if what is unknown became known and both rankings went on.

    The true RBA lies in [RBA, RBA + RBA_res] for these completions:

    * **run reference**: Algorithm 1 of Moffat et al. (SIGIR-AP 2024) as printed, ``extra + p^|B ∪ R|``:
      the items of B not in R take R positions |R|+1, |R|+2, ... in B order; the items of R missing from B
      take B positions |B|+1, ... in R order; each adds (1-p) p^(mean rank - 1); the tail p^|B ∪ R|
      covers perfect alignment afterwards. With ties in R the expectation over the tie orders is exact.
    * **qrels-derived reference**: the u unjudged documents of B (B-ranks a_1 < ... < a_u) may be judged
      with any grade and enter R by it, anywhere, and B may go on after its end with any documents. The
      documents of B ∩ R can only be pushed down in R; the others take distinct R positions, so by the
      rearrangement inequality RBA_res = (1-p)/p sum_i p^((a_i + i)/2) + p^((|B| + u)/2), at most
      1 - RBA. The lower end RBA holds when every newly judged relevant document gets a grade below
      those of B's judged relevant documents; a document judged higher pushes them down and RBA may drop.
      Documents in neither the run nor the qrels stay not relevant.

    With ties in the run (``ties='expected'``) the residual bounds the mean over the tie orders: against a
    run reference it is the exact mean of the above unless a tie group of the run straddles the cutoff;
    then, and for a qrels-derived reference, it is an upper bound of that mean (the members of R that a
    straddling group may leave out of B are taken at their best places; min(., 1 - RBA) is taken of the
    means), never below it. A query the run does not answer gets 1.
    """
    __name__ = "RBA_res"
    NAME = "RBA_res"
    PRETTY_NAME = "RBA Residual"
    SHORT_DESC = "RBA residual: how much RBA could still grow once the unknown is known"
    DEFAULT = 1.0


class _RBO(_BoundedRBOMeasure):
    """Rank-biased overlap, RBO_min (Webber et al. 2010), of the run and the reference ranking.

    RBO = (1-p)/p sum_{d>=1} p^d |B_{1..d} ∩ R_{1..d}| / d (Moffat et al. 2024, eq. 5), summed to infinity
    assuming no overlap beyond what is seen (the prefix overlaps stay frozen after both lists end), so
    two identical lists of 10 score 0.9690 at p = 0.8, not 1; this is what Moffat et al. 2024, Table 3 prints.
    Lists of unequal length are allowed. Ties in either ranking: the expectation over a uniformly random
    order of each tie group (``ties='expected'``; equal to Corsi & Urbano's RBO_a min score). A query the
    run does not answer, or the reference lacks, scores 0.
    Example: ``RBO(p=0.9,ref='baseline.run')@100``.
    (W. Webber, A. Moffat, J. Zobel. A Similarity Measure for Indefinite Rankings. TOIS 2010.)
    """
    __name__ = "RBO"
    NAME = "RBO"
    PRETTY_NAME = "Rank-Biased Overlap"
    SHORT_DESC = "rank-biased overlap (RBO_min) with the reference ranking"


class _RBO_res(_RBOMeasure):
    """Residual of RBO: how much RBO could still grow as what is unknown becomes known.

    The true RBO lies in [RBO, RBO + RBO_res] for these completions:

    * **run reference**: RBO_max - RBO_min of Webber, Moffat, Zobel (TOIS 2010): the largest increase
      over every extension of both lists (lists of unequal length allowed).
    * **qrels-derived reference**: unjudged documents of B may be judged with any grade and enter R by
      it, anywhere, and B may go on after its end. With X_d the expected overlap at depth d (which such
      insertions can only lower) and U_d the unjudged documents among B's first d, the overlap is at most
      min(d, X_d + U_d + max(0, d - |B|)); RBO_res = (1-p)/p sum_d p^d that / d - RBO (raised to RBO_ext
      - RBO where that is larger). The lower end RBO holds when newly judged relevant documents get
      grades below those of B's judged relevant documents. Documents in neither the run nor the qrels
      stay not relevant.

    With ties in the run (``ties='expected'``): against a run reference the exact mean over the tie orders
    (it depends only on |B ∩ R|, hypergeometric when a tie group straddles the cutoff); against the qrels
    the bound above computed from the mean profiles X_d and U_d (min(d, .) is concave, so it is at least the
    mean of every order's bound).

    RBO <= RBO_ext <= RBO + RBO_res. A query the run does not answer gets 1.
    Example: ``RBO_res(p=0.9,ref='baseline.run')@100``.
    """
    __name__ = "RBO_res"
    NAME = "RBO_res"
    PRETTY_NAME = "RBO Residual"
    SHORT_DESC = "RBO residual: how much RBO could still grow once the unknown is known"
    DEFAULT = 1.0


class _RBO_ext(_BoundedRBOMeasure):
    """Extrapolated RBO (Webber et al. 2010, eq. 32): a point estimate between RBO and RBO + RBO_res.

    The agreement seen at the end of the lists is assumed to continue for ever (unequal lengths
    allowed), so two identical lists score 1. A query the run does not answer scores 0.
    Example: ``RBO_ext(p=0.9,ref='baseline.run')@100``.
    """
    __name__ = "RBO_ext"
    NAME = "RBO_ext"
    PRETTY_NAME = "Extrapolated Rank-Biased Overlap"
    SHORT_DESC = "extrapolated rank-biased overlap with the reference ranking"


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
