"""The candidate pool of a judging session: every (query, document) the runs rank within a depth, with each
run's rank weight for it, in columnar (numpy) form.

A measure string decides the weights (:class:`Weights`): ``RBP(p)@k`` weighs rank i by (1-p) p^(i-1),
``nDCG@k`` by 1/log2(i+1) and ``P@k`` by 1/k (both rescaled to sum to 1 over the first k ranks); gains are
grade / ``max_rel`` (graded) or grade >= ``rel`` (binary). The candidates are the documents ranked within
``depth`` by some run (default: the cutoff; without one, the first rank whose RBP weight falls below 0.1%
of the first rank's, e.g. 31 for p = 0.8). Nothing else is ever proposed for judging. For ``nDCG@k`` the depth
may exceed the cutoff: a document ranked only past rank k weighs 0 in every run's DCG but, judged relevant,
can raise its query's ideal DCG (:mod:`~ir_rbstar.judging.strategies` says how the goals order such documents);
for ``RBP@k`` and ``P@k`` the depth stops at the cutoff, past which a document changes no value.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..errors import EmptyInputError, GradeScaleError, ParameterError
from ..datasets import top_of_scale
from ..io import QUERY_IDS, Qrels, Ranking, to_ranking, verify_pairs
from ..io.ids import _to_str
from ..io.tables import KeepsDerived

__all__ = ["Weights", "Pool", "weights_of", "build_pool", "MAX_CELLS"]

#: the dense run x candidate weight matrix may hold at most this many cells (about 400 MB; with the ranks and the
#: copies the goals keep, candidates x runs, about 1.3 GB at the budget); above it a
#: :class:`~ir_rbstar.errors.ParameterError` asks for a smaller ``depth`` or fewer runs
MAX_CELLS = 50_000_000
_TAIL_SHARE = 1e-3


@dataclass(frozen=True)
class Weights:
    """Rank weights and gains of the measure that drives a selection."""
    name: str                       # 'RBP', 'nDCG' or 'P'
    cutoff: Optional[int]
    p: float = 0.8
    rel: Optional[int] = None
    max_rel: int = 1

    #: what each weighting is, for the strategies: (its values bounded by an interval [low, low + residual]
    #: of the measure's own values, so a pair's flip share applies; the value divided by the query's ideal,
    #: so a judgment moves a query with few relevant documents more). A new weighting must say both.
    KINDS: ClassVar[Dict[str, Tuple[bool, bool]]] = {"RBP": (True, False), "P": (True, False), "nDCG": (False, True)}

    def __post_init__(self) -> None:
        if self.name not in self.KINDS:
            raise ParameterError(f"weights: unknown weighting {self.name!r}; one of {', '.join(self.KINDS)}")

    @property
    def value_interval(self) -> bool:
        """Whether [low, low + residual] (unjudged documents non-relevant, then all of top gain) is an interval
        of the measure's own values: for RBP and P@k, whose value is the weighted sum of the gains; not for
        nDCG@k, whose sum is divided by an ideal DCG that the unjudged documents also change."""
        return self.KINDS[self.name][0]

    @property
    def ideal_normalised(self) -> bool:
        """Whether the measure divides by the query's ideal value (nDCG@k), so that one judgment moves a query
        with few relevant documents more than one with many."""
        return self.KINDS[self.name][1]

    @property
    def pooling_p(self) -> float:
        """The persistence RBP-weighted pooling uses: the measure's own p for RBP, else 0.8."""
        return float(self.p) if self.name == "RBP" else 0.8

    def default_depth(self) -> int:
        if self.cutoff is not None:
            return int(self.cutoff)
        return max(1, int(math.ceil(math.log(_TAIL_SHARE) / math.log(self.p))))

    def of_ranks(self, ranks: np.ndarray, depth: int) -> np.ndarray:
        """The weight of each 1-based rank (0 beyond the cutoff or ``depth``)."""
        ranks = np.asarray(ranks, dtype=np.float64)
        limit = min(depth, self.cutoff) if self.cutoff is not None else depth
        if self.name == "RBP":
            w = (1.0 - self.p) * self.p ** (ranks - 1.0)
        elif self.name == "nDCG":
            w = 1.0 / np.log2(ranks + 1.0)
            w /= float(np.sum(1.0 / np.log2(np.arange(2, limit + 2))))
        else:
            w = np.full(ranks.shape, 1.0 / limit)
        return np.where(ranks <= limit, w, 0.0)

    def gain(self, grades: np.ndarray) -> np.ndarray:
        """Gain of each grade: for RBP grade / max_rel, in [0, 1] (0 or 1 with ``rel``, as for P@k); for nDCG@k
        the grade itself, its gain in trec_eval (so up to the top grade); negative grades gain 0."""
        g = np.asarray(grades, dtype=np.float64)
        if self.rel is not None:
            return (g >= self.rel).astype(np.float64)
        return np.clip(g, 0.0, None) / float(self.max_rel)


def is_residual(measure: Any) -> bool:
    """Whether ``measure`` (a string or a parsed measure) is a residual, ``RBP_res(...)``: it reads which
    documents are judged, not their grades."""
    from ..parsing import parse_measure
    m = parse_measure(measure) if isinstance(measure, str) else measure
    return str(getattr(m, "NAME", "")).endswith("_res")


def weights_of(measure: Any) -> Weights:
    """The :class:`Weights` of a measure (a string such as ``"RBP(p=0.8,max_rel=3)"`` or a parsed measure).
    ``RBP``, ``RBP_res``, ``nDCG`` and ``P`` (with their ``_TA`` forms) are supported."""
    if isinstance(measure, Weights):
        return measure
    from ..parsing import parse_measure
    m = parse_measure(measure) if isinstance(measure, str) else measure
    name = str(getattr(m, "NAME", ""))
    params = dict(getattr(m, "params", {}) or {})
    cutoff = params.get("cutoff")
    base = name.replace("_TA", "").replace("_res", "")
    if base == "RBP":
        return Weights("RBP", cutoff, p=float(params.get("p", 0.8)), rel=params.get("rel"),
                       max_rel=int(params.get("max_rel", 1) or 1))
    if base in ("nDCG", "P"):
        if cutoff is None:
            raise ParameterError(f"measure {measure}: selecting judgments for {base} needs a cutoff, "
                                 f"e.g. {base}@10")
        return Weights(base, int(cutoff), rel=1 if base == "P" else None,
                       max_rel=int(params.get("max_rel", 1) or 1))
    raise ParameterError(f"measure {measure}: judging supports RBP, RBP_res, nDCG@k and P@k "
                         "(the measures whose rank weights say what a judgment can change)")


@dataclass
class Pool(KeepsDerived):
    """Candidates (one per query and document) and the runs' weights for them.

    ``runs`` are the run names in the order of the names (whatever order they were given in: every sum over
    the runs then goes in one order, so permuting the runs changes no priority, not even in the last bit, and
    no tie-break; tests/judging/test_run_order.py). ``W[r, c]`` is run r's weight for candidate c (0 if r
    does not rank c within the depth), ``rank[r, c]`` its 1-based rank (0 if absent). ``cand_query`` is the
    index into ``queries`` (query ids, in order), ``cand_doc`` the document ids (bytes), ``tail[r, q]`` the
    weight of run r's ranks after ``depth`` in query q (what no candidate can settle)."""
    runs: List[str]
    queries: np.ndarray              # query ids (str), in the order of the qrels (or first seen)
    qcodes: np.ndarray               # their codes
    cand_query: np.ndarray           # query index of each candidate
    cand_doc: np.ndarray             # document id bytes of each candidate
    cand_hash: np.ndarray
    W: np.ndarray
    rank: np.ndarray
    tail: np.ndarray
    weights: Weights
    depth: int
    _cache: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def n_candidates(self) -> int:
        return int(len(self.cand_query))

    def min_rank(self) -> np.ndarray:
        """The best (smallest) rank of each candidate over the runs."""
        def make() -> np.ndarray:
            r = np.where(self.rank > 0, self.rank, np.iinfo(np.int64).max)
            return r.min(axis=0) if len(self.runs) else np.zeros(0, dtype=np.int64)
        return self.kept("minrank", make)

    def doc_ids(self, index: np.ndarray) -> np.ndarray:
        return _to_str(self.cand_doc[index])

    def query_ids(self, index: np.ndarray) -> np.ndarray:
        return self.queries[self.cand_query[index]]

    def lookup(self, qrels: Optional[Qrels]) -> tuple[np.ndarray, np.ndarray]:
        """(grade, judged) of every candidate in ``qrels`` (none judged without qrels)."""
        n = self.n_candidates
        if qrels is None or len(qrels.grades) == 0:
            return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
        return qrels.lookup(self.qcodes[self.cand_query], self.cand_hash, self.cand_doc)


def load_judgments(qrels: Any, name: str = "qrels", empty_ok: bool = False) -> Optional[Qrels]:
    """Qrels in any form the package reads (a TREC file, an ir_datasets id, a DataFrame, a dict), or None
    for none (``None``, ``'none'`` or ``'-'``; with ``empty_ok`` also an empty file: judgments not begun).
    ``name``: the argument they came from, named by the error when the file is missing (``prior``, ``aux``:
    another qrels than the judgments)."""
    if qrels is None or (isinstance(qrels, str) and qrels.lower() in ("none", "-")):
        return None
    if isinstance(qrels, Qrels):
        return qrels
    from ..datasets import resolve_qrels
    try:
        return resolve_qrels(qrels)
    except EmptyInputError:
        if empty_ok and isinstance(qrels, (str, os.PathLike)) and os.path.isfile(qrels):
            return None
        raise
    except FileNotFoundError as e:
        if name == "qrels":
            raise
        raise FileNotFoundError(f"{name}: {e}") from None


#: the measure of ``select``, ``simulate`` and the commands when none is given: RBP(p=0.8) on the scale of
#: the judgments (:func:`measure_or_default`)
DEFAULT_P = 0.8
DEFAULT_MEASURE = f"RBP(p={DEFAULT_P})"


def measure_or_default(measure: Any, judgments: Optional[Qrels], spec: Any = None) -> Any:
    """``measure``, or when it is None :data:`DEFAULT_MEASURE` with ``max_rel`` the top of the grade scale of
    ``judgments`` (given as ``spec``: :func:`ir_rbstar.datasets.top_of_scale`, the report's rule: the highest
    grade, or an ir_datasets id's defined grades; binary judgments, or none yet, give plain ``RBP(p=0.8)``), so
    that the default fits graded qrels (TREC DL's 0-3, Robust's 0-2) as well as binary ones."""
    if measure is not None:
        return measure
    top = top_of_scale(spec, judgments)
    return DEFAULT_MEASURE if top == 1 else f"RBP(p={DEFAULT_P},max_rel={top})"


def check_measure_scale(weights: "Weights", judgments: Optional[Qrels], measure: Any) -> None:
    """A :class:`~ir_rbstar.errors.GradeScaleError` when ``judgments`` hold a grade above an RBP measure's
    ``max_rel`` (without ``rel``): its gains, grade / max_rel, would exceed 1, and evaluating the measure
    refuses such qrels too. Names the grade, the document, the query and the measure to give instead."""
    if weights.name != "RBP" or weights.rel is not None or judgments is None or not len(judgments.grades):
        return
    top = int(judgments.grades.max())
    if top > weights.max_rel:
        i = int(np.argmax(judgments.grades))
        raise GradeScaleError(f"measure {measure}: {judgments.source} holds grade {top} (document "
                              f"{_to_str(judgments.rowb[i:i + 1])[0]!r}, query "
                              f"{QUERY_IDS.decode(judgments.rowq[i:i + 1])[0]!r}), above max_rel={weights.max_rel}; "
                              f"give max_rel={top} (e.g. RBP(p={weights.p:g},max_rel={top})) or rel=N for "
                              f"binary gains")


def _as_rankings(runs: Any) -> Dict[str, Ranking]:
    if isinstance(runs, Mapping):
        items = list(runs.items())
    else:
        # run files named as the commands name them (``runs/bm25.run.gz`` -> ``bm25``; by the path where two
        # files share a name), other runs ``run1``, ``run2``, ...
        from ..plots.common import run_name
        items = []
        taken = set()
        for i, run in enumerate(runs):
            if isinstance(run, (str, os.PathLike)):
                name = run_name(run)
                name = os.fspath(run) if name in taken else name
            else:
                name = str(run) if isinstance(run, bytes) else f"run{i + 1}"
            taken.add(name)
            items.append((name, run))
    if not items:
        raise ParameterError("runs: at least one run is needed to choose documents to judge")
    out: Dict[str, Ranking] = {}
    for name, run in items:
        if str(name) in out:
            raise ParameterError(f"runs: the name {name!r} is given twice")
        out[str(name)] = run if isinstance(run, Ranking) else to_ranking(run)
    return out


def build_pool(runs: Any, measure: Any, queries: Optional[Sequence[str]] = None,
               depth: Optional[int] = None) -> Pool:
    """The candidate pool of ``runs`` (a mapping name -> run in any form the package reads, or a list of
    run files) for ``measure``, its runs in name order. ``queries`` (ids) restricts and orders the queries
    (default: every query of some run, in order of first appearance, the runs taken in name order)."""
    weights = weights_of(measure)
    depth = weights.default_depth() if depth is None else depth
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth <= 0:
        raise ParameterError(f"depth: must be a positive integer, got {depth!r}")
    # past the cutoff a document adds nothing to RBP@k or P@k; for nDCG@k it can still raise the query's ideal
    depth = int(depth) if weights.cutoff is None or weights.ideal_normalised else min(int(depth), int(weights.cutoff))
    rankings = _as_rankings(runs)
    names = sorted(rankings)                     # name order, once: the strategies take the runs as they are
    if queries is None:
        seen: List[int] = []
        for name in names:                       # the runs in name order here too: the queries' order breaks ties
            seen.extend(int(q) for q in rankings[name].qcodes)
        qcodes = np.array(list(dict.fromkeys(seen)), dtype=np.int64)
    else:
        qcodes = QUERY_IDS.encode(np.asarray([str(q) for q in queries], dtype=object))
    qindex = {int(q): i for i, q in enumerate(qcodes)}
    parts = []
    tail = np.zeros((len(names), len(qcodes)))
    for r, name in enumerate(names):
        run = rankings[name]
        rowq = run.row_queries()
        ranks = run.row_ranks()
        qi = np.array([qindex.get(int(q), -1) for q in run.qcodes], dtype=np.int64)
        lengths = np.diff(run.offsets)
        present = qi >= 0
        if weights.name == "RBP":
            n = np.minimum(lengths[present], weights.cutoff if weights.cutoff is not None else lengths[present])
            tail[r, qi[present]] = weights.p ** np.minimum(n, depth)
        seg_qi = np.repeat(qi, lengths)
        keep = (seg_qi >= 0) & (ranks <= depth)
        parts.append((np.full(int(keep.sum()), r), seg_qi[keep], rowq[keep], run.docs[keep], run.dbytes[keep],
                      ranks[keep]))
    if queries is not None and len(qcodes) and not any(len(p[1]) for p in parts):    # no run answers one of them
        theirs = [str(q) for name in names for q in QUERY_IDS.decode(rankings[name].qcodes[:1])]
        raise ParameterError(f"queries: none of the {len(qcodes):,} queries to judge (the qrels' or those given, e.g. "
                             f"{str(QUERY_IDS.decode(qcodes[:1])[0])!r}) is a query of the runs"
                             + (f" (e.g. {theirs[0]!r})" if theirs else "")
                             + ": are the qrels and the runs of the same collection?")
    if weights.name == "RBP":
        absent = np.ones_like(tail, dtype=bool)
        for r, name in enumerate(names):
            q = [qindex[int(c)] for c in rankings[name].qcodes if int(c) in qindex]
            absent[r, q] = False
        tail[absent] = 1.0                       # a query the run does not answer: everything unknown
    e_run = np.concatenate([p[0] for p in parts]).astype(np.int64)
    e_qi = np.concatenate([p[1] for p in parts])
    e_hash = np.concatenate([p[3] for p in parts])
    e_bytes = np.concatenate([p[4] for p in parts]) if parts else np.zeros(0, dtype="S1")
    e_rank = np.concatenate([p[5] for p in parts])
    order = np.lexsort((e_hash, e_qi))
    new = np.ones(len(order), dtype=bool)
    if len(order):
        new[1:] = (e_qi[order][1:] != e_qi[order][:-1]) | (e_hash[order][1:] != e_hash[order][:-1])
    cand_of_sorted = np.cumsum(new) - 1
    cand = np.empty(len(order), dtype=np.int64)
    cand[order] = cand_of_sorted
    firsts = order[new]
    verify_pairs(e_bytes, order, e_bytes, firsts[cand_of_sorted], "runs")
    n_cand = int(new.sum())
    if len(names) * n_cand > MAX_CELLS:
        raise ParameterError(f"depth: {len(names)} runs x {n_cand} candidates exceed the budget of {MAX_CELLS} "
                             "weight cells; give a smaller depth (or fewer runs)")
    W = np.zeros((len(names), n_cand))
    rank = np.zeros((len(names), n_cand), dtype=np.int64)
    W[e_run, cand] = weights.of_ranks(e_rank, depth)
    rank[e_run, cand] = e_rank
    return Pool(runs=names, queries=QUERY_IDS.decode(qcodes).astype(object), qcodes=qcodes,
                cand_query=e_qi[firsts], cand_doc=e_bytes[firsts], cand_hash=e_hash[firsts], W=W, rank=rank,
                tail=tail, weights=weights, depth=depth)


def check_grade_scale(judgments: Qrels, low: int, high: int, what: str) -> None:
    """Every grade of ``judgments`` within ``low..high``, else a :class:`~ir_rbstar.errors.GradeScaleError`
    naming the source, the query and the document of the first grade outside it (``what``: the judgments'
    role in the message, e.g. "auxiliary" or "prior"). Never clipped."""
    bad = (judgments.grades < low) | (judgments.grades > high)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise GradeScaleError(f"{judgments.source}: {what} grade {int(judgments.grades[i])} of document "
                              f"{_to_str(judgments.rowb[i:i + 1])[0]!r} for query "
                              f"{QUERY_IDS.decode(judgments.rowq[i:i + 1])[0]!r} is outside the grade scale "
                              f"{low}..{high}")
