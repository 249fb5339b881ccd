"""Comparing many runs at once with MED (Tan & Clarke, IEEE TKDE 2015), RBO or RBA: per-query values of
every pair and distance matrices; and, for MED_AP and MED_ERR, which values are exact.

The measures themselves (``MED_nDCG``, ``MED_RBP``, ...) compare the evaluated run with ``ref``; this
module evaluates every pair of a set of runs::

    >>> import ir_rbstar
    >>> runs = {"a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    ...         "b": {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}},
    ...         "c": {"q1": {"d4": 3.0, "d5": 2.0, "d6": 1.0}}}
    >>> ir_rbstar.med.distance_matrix(runs, "MED_P@3").round(4)  # doctest: +NORMALIZE_WHITESPACE
    ref    a    b    c
    run
    a    0.0  0.0  1.0
    b    0.0  0.0  1.0
    c    1.0  1.0  0.0

The measures are symmetric, so each unordered pair is evaluated once. With ``qrels`` the judgments are
known values and the qrels' queries are the query set; without, MED is judgment-free and the query
set is each run's own. RBO, RBO_ext and RBA are similarities: their matrix holds 1 - value.

MED_AP and MED_ERR search for their maximum within a node budget per query (``budget=``); a query whose
search reaches it gets a certified upper bound instead of the exact value (and the evaluation warns).
:func:`exactness` tells, per query, which it is::

    >>> ir_rbstar.register_run("b", runs["b"])
    >>> ir_rbstar.med.exactness(runs["a"], "MED_AP(ref='b')@3")
      query_id     value  exact  nodes
    0       q1  0.166667   True      2
    >>> ir_rbstar.unregister_run("b")
"""
from __future__ import annotations

import contextlib
import glob as _glob
import os
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

import numpy as np
import pandas as pd

from .errors import GradeScaleError, ParameterError, RbstarError, ReferenceNotFoundError
from .io import Qrels, Ranking, to_ranking
from .measures import ALL as MEASURES

__all__ = ["pairwise", "distance_matrix", "default_distance", "matrix_of", "exactness", "SYMMETRIC", "SIMILARITIES"]

SIMILARITIES = ("RBO", "RBO_ext", "RBA")
SYMMETRIC = tuple(str(m.NAME) for m in MEASURES if m.FAMILY == "med") + SIMILARITIES


def _measure(measure: Any):
    if isinstance(measure, str):
        from .parsing import parse
        parsed = parse(measure)
        if len(parsed) != 1:
            raise ParameterError(f"measure={measure!r} must name one measure")
        measure = parsed[0]
    if getattr(measure, "NAME", None) not in SYMMETRIC:
        raise ParameterError(f"{measure}: a distance matrix takes one of {', '.join(SYMMETRIC)}")
    return measure


def _runs(runs: Any) -> Dict[str, Ranking]:
    """Run name -> Ranking, from a mapping, a list of paths, or a glob."""
    if isinstance(runs, (str, os.PathLike)):
        paths = sorted(p for p in _glob.glob(os.path.expanduser(os.fspath(runs))) if os.path.isfile(p))
        if not paths:
            raise ReferenceNotFoundError(f"runs={os.fspath(runs)!r} matches no file")
        runs = paths
    if not isinstance(runs, Mapping):
        from .plots import run_names
        runs = run_names([os.fspath(p) for p in runs])
    if len(runs) < 1:
        raise ParameterError("no runs given")
    return {str(name): to_ranking(run, source=f"run {name!r}") for name, run in runs.items()}


def pairwise(runs: Any, measures: Union[str, Any, List[Any]], qrels: Any = None,
             progress: Optional[Callable[[int, int, str], None]] = None, self_pairs: bool = True) -> pd.DataFrame:
    """Per-query values of every measure for every ordered pair of runs (each pair evaluated once).

    ``runs``: a mapping of run name -> run (DataFrame, dict of dicts, path), a list of TREC run files
    (named by file name) or a glob. ``measures``: measure strings or objects among :data:`SYMMETRIC`
    (their ``ref`` is replaced by each other run). Returns a DataFrame with columns
    ``run, ref, query_id, measure, value``; both (a, b) and (b, a) rows are present, and the diagonal
    (a, a) too (0 for MED, except MED_RBP without a cutoff: p^K). ``progress(step, total, message)``
    is called before each run's evaluation (:func:`ir_rbstar.progress.reporter` makes one).
    ``self_pairs=False`` leaves out the diagonal (one evaluation fewer per run; the other rows are the same).
    """
    from .datasets import resolve_qrels
    if isinstance(measures, str):
        from .parsing import parse
        measures = parse(measures)
    elif not isinstance(measures, (list, tuple)):
        measures = [measures]
    measures = [_measure(m) for m in measures]
    rankings = _runs(runs)
    qrels = None if qrels is None else resolve_qrels(qrels)      # converted once for every evaluator below
    names = list(rankings)
    tags = {name: f"\x00pairwise:{i}" for i, name in enumerate(names)}
    try:
        out = _pairwise_frames(measures, rankings, qrels, tags, progress, self_pairs)
    except RbstarError as e:
        # the internal reference names never reach a message: the run's own name does
        raise type(e)(_untagged(str(e), tags)) from None
    out["query_id"] = out["query_id"].astype(str)
    return out


def _untagged(text: str, tags: Dict[str, str]) -> str:
    """``text`` with the internal reference names of :func:`pairwise` replaced by the runs' own names (the
    longest first: the name of run 1 is the start of run 10's)."""
    for name, tag in sorted(tags.items(), key=lambda item: -len(item[1])):
        text = text.replace(repr(tag), repr(name)).replace(tag, name)
    return text


@contextlib.contextmanager
def _named_warnings(run: str, tags: Dict[str, str]):
    """Warnings raised inside (a BudgetWarning of MED_AP or MED_ERR) issued again, as the same category, naming
    the evaluated run and the reference by their names, not by the internal reference names."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        warnings.warn(f"run {run!r}: " + _untagged(str(w.message), tags), w.category, stacklevel=4)


def _pairwise_frames(measures, rankings, qrels, tags, progress, self_pairs: bool = True) -> pd.DataFrame:
    from .provider import PROVIDER
    from .references import run_scope
    names = list(rankings)
    # the rows as columns of blocks (one block per pair and measure), made into one DataFrame at the end:
    # a DataFrame per block and their concatenation cost more than the evaluations of the cheap measures
    blocks: Dict[str, list] = {"run": [], "ref": [], "query_id": [], "measure": [], "value": []}

    def add(run: str, ref: str, qids, label: str, values) -> None:
        n = len(values)
        for key, column in (("run", np.full(n, run, dtype=object)), ("ref", np.full(n, ref, dtype=object)),
                            ("query_id", np.asarray(qids, dtype=object)),
                            ("measure", np.full(n, label, dtype=object)),
                            ("value", np.asarray(values))):
            blocks[key].append(column)

    with run_scope(runs={tags[name]: rankings[name] for name in names}):     # seen by these evaluators only
        for i, a in enumerate(names):
            later = names[i:] if self_pairs else names[i + 1:]
            if not later:
                continue
            if progress is not None:
                progress(i + 1, len(names) - (not self_pairs),
                         f"run {a} against {len(later)} run{'s' * (len(later) != 1)}")
            ms = {(b, m): m(ref=tags[b]) for b in later for m in measures}
            ev = PROVIDER.evaluator(list(dict.fromkeys(ms.values())), qrels)
            with _named_warnings(a, tags):
                vals = ev.values(rankings[a])
            qids = vals.pop("query_id")
            for (b, m), mm in ms.items():
                v = vals[mm]
                add(a, b, qids, _label(m), v)
                if b != a:
                    if qrels is None and not np.array_equal(np.sort(rankings[a].qcodes), np.sort(rankings[b].qcodes)):
                        # no qrels: the query set is the evaluated run's, so (b, a) needs its own evaluation
                        with _named_warnings(b, tags):
                            back = PROVIDER.evaluator([m(ref=tags[a])], None).values(rankings[b])
                        add(b, a, back["query_id"], _label(m), back[m(ref=tags[a])])
                    else:
                        add(b, a, qids, _label(m), v)
    if not blocks["value"]:     # a single run without its self pair: no rows, the same columns
        return pd.DataFrame({"run": [], "ref": [], "query_id": [], "measure": [], "value": np.zeros(0)})
    return pd.DataFrame({key: np.concatenate(parts) for key, parts in blocks.items()})


def default_distance(qrels: Optional[Qrels], spec: Any = None) -> str:
    """The distance of :func:`distance_matrix` and ``ir-rbstar distance`` when none is given: ``MED_nDCG@20``,
    with ``max_rel`` the top of the grade scale of ``qrels`` (given as ``spec``) when they are graded
    (``MED_nDCG(max_rel=2)@20`` on Robust04's 0-2), as the report takes it
    (:func:`ir_rbstar.datasets.top_of_scale`); a given MED_nDCG keeps its own ``max_rel``."""
    from .datasets import top_of_scale
    top = top_of_scale(spec, qrels)
    return "MED_nDCG@20" if top <= 1 else f"MED_nDCG(max_rel={top})@20"


def distance_matrix(runs: Any, measure: Any = None, qrels: Any = None,
                    progress: Optional[Callable[[int, int, str], None]] = None) -> pd.DataFrame:
    """The mean of ``measure`` over the queries for every pair of runs, as a square DataFrame (rows: the
    evaluated run, columns: the reference, both in the order given). MED values are distances; for
    RBO, RBO_ext and RBA the matrix holds 1 - value. The diagonal is 0: a run is at distance 0 from itself,
    whatever its ties or its length (:func:`pairwise` keeps what the measure gives a run against a copy of
    itself: with ties in the run, RBO and RBA average two independent orders of them and stay below 1).
    ``attrs['measure']`` names the measure and ``attrs['distance']`` what the cells hold. See
    :func:`pairwise` for ``runs``, ``qrels`` and ``progress``. Computed by
    :func:`distance_frame`, as the report's matrices: every pair at once as arrays for RBO
    (``ties='expected'``, no cutoff) and MED_nDCG@k / MED_P@k against qrels, pair by pair otherwise (the same
    values to rounding). ``measure=None``: :func:`default_distance` of the qrels (``MED_nDCG@20``, graded on
    the qrels' scale)."""
    from .datasets import resolve_qrels
    loaded = None if qrels is None else resolve_qrels(qrels)
    m = _measure(default_distance(loaded, qrels) if measure is None else measure)
    return distance_frame(_runs(runs), m, loaded, progress)


def distance_frame(rankings: Dict[str, Ranking], measure, qrels: Optional[Qrels],
                   progress: Optional[Callable[[int, int, str], None]] = None) -> pd.DataFrame:
    """The distance matrix of ``measure`` (a measure string or object) between the runs, as
    :func:`distance_matrix` returns it (rows: the run, columns: the reference, 1 - value
    for a similarity, 0 on the diagonal, ``attrs`` ``measure`` and ``distance``); the one mechanism behind
    ``distance_matrix``, ``ir-rbstar distance`` and the report. By :func:`ir_rbstar.matrices.pair_means` where
    :func:`ir_rbstar.matrices.fast` says so and the query universe is one for every pair (with ``qrels``: the
    qrels' queries; without: every run answers the same queries), else pair by pair through :func:`pairwise`
    (without qrels each run's own queries are its universe, so a pair's two directions may differ).
    ``progress(step, total, message)`` as :func:`pairwise` calls it."""
    from .matrices import fast, pair_means
    m = _measure(measure)
    names = list(rankings)
    universe = _universe([rankings[k] for k in names], qrels)
    if universe is None or not fast(m, qrels):
        return matrix_of(pairwise(rankings, [m], qrels, progress), m)
    m.validate_params()
    if progress is not None:
        progress(1, 1, f"every pair of the {len(names)} runs at once")
    try:
        values = pair_means([rankings[k] for k in names], m, qrels, universe)
    except GradeScaleError as e:
        # as the pair-by-pair evaluation says it: the measure as evaluated for the first run (ref= a run's name)
        raise GradeScaleError(str(e).replace(f"{m}:", f"{m(ref=names[0])}:", 1)) from None
    if m.NAME in SIMILARITIES:
        values = 1.0 - values
    np.fill_diagonal(values, 0.0)                        # a run is at distance 0 from itself
    label = _label(m)
    frame = pd.DataFrame(values, index=pd.Index(names, name="run"), columns=pd.Index(names, name="ref"))
    frame.attrs["measure"] = label
    frame.attrs["distance"] = f"1 - {label}" if m.NAME in SIMILARITIES else label
    return frame


def _universe(rankings: List[Ranking], qrels: Optional[Qrels]) -> Optional[np.ndarray]:
    """The queries every pair is averaged over: the qrels'; without qrels, the runs' when every run answers
    the same queries (else None: each run's own, pair by pair)."""
    if qrels is not None:
        return qrels.qcodes
    if not rankings:
        return None
    first = np.sort(rankings[0].qcodes)
    if all(np.array_equal(np.sort(r.qcodes), first) for r in rankings[1:]):
        return rankings[0].qcodes
    return None


def matrix_of(values: pd.DataFrame, measure: Any) -> pd.DataFrame:
    """The distance matrix of ``measure`` from :func:`pairwise`'s per-query values (which may hold
    other measures too), as :func:`distance_matrix` returns it."""
    m = _measure(measure)
    label = _label(m)
    values = values[values["measure"] == label]
    if values.empty:
        raise ParameterError(f"matrix_of: no values of {label} in the pairwise values")
    names = list(dict.fromkeys(values["run"]))
    means = values.groupby(["run", "ref"], sort=False)["value"].mean()
    matrix = means.unstack("ref").reindex(index=names, columns=names)
    if m.NAME in SIMILARITIES:
        matrix = 1.0 - matrix
    values = matrix.to_numpy(copy=True)
    np.fill_diagonal(values, 0.0)                        # a run is at distance 0 from itself
    matrix = pd.DataFrame(values, index=matrix.index, columns=matrix.columns)
    matrix.index.name, matrix.columns.name = "run", "ref"
    matrix.attrs["measure"] = label
    matrix.attrs["distance"] = f"1 - {label}" if m.NAME in SIMILARITIES else label
    return matrix


def exactness(run: Any, measure: Any, qrels: Any = None) -> pd.DataFrame:
    """Per-query values of one MED measure (with its ``ref``) and whether each is exact.

    Returns a DataFrame with columns ``query_id, value, exact, nodes``: ``value`` is what the evaluation
    gives (the same numbers as ``ir_measures.iter_calc``); ``exact`` is False where the search of MED_AP or
    MED_ERR reached ``budget`` and the value is a certified upper bound of the maximum; ``nodes`` is the
    number of search nodes of the query (both directions; 0 for the closed-form MED_P, MED_RBP and
    MED_nDCG, always exact). ``qrels`` gives the judgments and the query set, as for the evaluation. No
    BudgetWarning is issued: the table says which values are bounds."""
    from .context import RunContext
    from .datasets import resolve_qrels
    from .families import med as family
    from .io import QUERY_IDS, to_ranking
    from .parsing import parse
    if isinstance(measure, str):
        parsed = parse(measure)
        if len(parsed) != 1:
            raise ParameterError(f"measure={measure!r} must name one measure")
        measure = parsed[0]
    if getattr(measure, "FAMILY", None) != "med":
        names = ", ".join(str(m.NAME) for m in MEASURES if m.FAMILY == "med")
        raise ParameterError(f"{measure}: exactness takes one of {names}")
    measure.validate_params()
    measure.check_required()
    ranking = to_ranking(run)
    qrels = None if qrels is None else resolve_qrels(qrels)
    universe = qrels.qcodes if qrels is not None else ranking.qcodes
    result = family.searched(measure, RunContext(ranking, qrels, universe))
    return pd.DataFrame({"query_id": QUERY_IDS.decode(universe).astype(str), "value": result.value,
                         "exact": result.exact, "nodes": result.nodes.sum(axis=1)})


def _label(m) -> str:
    """The measure's name without its ``ref`` (which varies over the pairs)."""
    return str(type(m)(**{k: v for k, v in m.params.items() if k != "ref"}))
