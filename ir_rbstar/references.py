"""Reference runs: resolving ``ref=`` strings, naming runs, and caching their conversion.

A ``ref`` string is looked up first in the current :func:`run_scope` (named runs that a piece of code
gives its measures without touching anything global: ``ir_rbstar.med.pairwise``, the report and the
demo use one, and so does an evaluator built with ``runs=``), then among the names given to
:func:`register_run` (process-wide, for users), then as a path of a TREC run file (``.gz`` allowed),
then as ``irds:<id>``, the scoreddocs of an ir_datasets dataset. ``prior=``/``runs=`` strings are
looked up the same way (:func:`resolve_runs`).
Files are converted once and cached by (absolute path, size, modification time), dataset runs by
(id and scoreddocs file, size, modification time), so evaluating many runs against one reference
reads it once.
"""
from __future__ import annotations

import contextlib
import contextvars
import glob
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from .errors import ParameterError, ReferenceNotFoundError
from .io import Ranking, read_trec_run, to_ranking

__all__ = ["register_run", "unregister_run", "registered_runs", "register_runs", "unregister_runs",
           "registered_groups", "resolve_run", "resolve_runs", "clear_cache", "run_scope", "Scope"]

_REGISTERED: Dict[str, Ranking] = {}


@dataclass
class PriorSet:
    """The runs of a ``prior=`` string; for a registered group, optionally each run's team and the
    team's representative (e.g. its best run)."""

    runs: List[Tuple[str, Ranking]]
    team: Optional[Dict[str, str]] = None          # run name -> team
    best: Optional[Dict[str, str]] = field(default=None)  # team -> the run representing it


_GROUPS: Dict[str, PriorSet] = {}
_FILE_CACHE: Dict[Tuple[str, int, int], Ranking] = {}
_FILE_CACHE_MAX = 64
_GLOB_CHARS = set("*?[")
_IRDS = "irds:"


@dataclass(frozen=True)
class Scope:
    """Named runs and groups of runs seen by the measures evaluated inside a :func:`run_scope`, over
    those of an enclosing scope (``parent``)."""

    runs: Mapping[str, Ranking]
    groups: Mapping[str, PriorSet]
    parent: Optional["Scope"] = None

    def _chain(self) -> Iterator["Scope"]:
        scope: Optional[Scope] = self
        while scope is not None:
            yield scope
            scope = scope.parent

    def run(self, name: str) -> Optional[Ranking]:
        """The run named ``name`` in this scope or the nearest enclosing one that names it."""
        return next((s.runs[name] for s in self._chain() if name in s.runs), None)

    def group(self, name: str) -> Optional[PriorSet]:
        """The group named ``name`` in this scope or the nearest enclosing one that names it."""
        return next((s.groups[name] for s in self._chain() if name in s.groups), None)

    def names(self) -> set:
        """Every run name this scope and the enclosing ones give."""
        return {n for s in self._chain() for n in s.runs}


_SCOPE: contextvars.ContextVar[Optional[Scope]] = contextvars.ContextVar("ir_rbstar_run_scope", default=None)


@contextlib.contextmanager
def run_scope(runs: Optional[Mapping[str, Any]] = None, groups: Optional[Mapping[str, Any]] = None) -> Iterator[Scope]:
    """Name runs for the measures evaluated inside the ``with`` block only, without registering anything.

    ``runs`` maps names to runs (any form :func:`register_run` accepts); ``groups`` maps group names to
    mappings of run names to runs (as :func:`register_runs` takes them) or to a :class:`PriorSet`. Names
    in the scope hide registered ones of the same name; scopes nest. The scope is a context variable, so
    threads and asyncio tasks each see their own. An evaluator keeps the runs it resolved when it was
    built (inside or outside the block).

    >>> import ir_measures, ir_rbstar
    >>> qrels = {"q1": {"d1": 1, "d2": 1}}
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> m = ir_rbstar.parse("RBO(p=0.5,ref='other')")[0]
    >>> with ir_rbstar.run_scope(runs={"other": {"q1": {"d2": 2.0, "d1": 1.0}}}):
    ...     print(round(ir_measures.calc_aggregate([m], qrels, run)[m], 4))
    0.3863
    >>> "other" in ir_rbstar.registered_runs()
    False
    """
    converted = {str(k): _prepared(_convert(v, f"run {k!r} of the scope")) for k, v in (runs or {}).items()}
    grouped = {}
    for k, v in (groups or {}).items():
        if isinstance(v, PriorSet):
            grouped[str(k)] = v
        else:
            if not isinstance(v, Mapping):
                raise ParameterError(f"run_scope: group {k!r} must be a mapping of run name -> run")
            grouped[str(k)] = PriorSet([(str(n), _convert(r, f"run {n!r} of group {k!r}")) for n, r in v.items()])
    with pinned(Scope(converted, grouped, _SCOPE.get())) as scope:
        yield scope


@contextlib.contextmanager
def pinned(scope: Scope) -> Iterator[Scope]:
    """Make ``scope`` (already resolved, e.g. an evaluator's) the current one inside the block; it hides
    every other scope."""
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def register_run(name: str, run: Any) -> None:
    """Make ``run`` available as ``ref=name`` (and later ``prior=name``) in every measure string.

    ``run`` is a pandas DataFrame (``query_id, doc_id, score``), a dict of dicts
    (``{query_id: {doc_id: score}}``), an iterable of ``ir_measures.ScoredDoc``, the path of a TREC
    run file or ``'irds:<id>'`` (the scoreddocs of an ir_datasets dataset, see :mod:`ir_rbstar.datasets`).
    It is converted (and validated) now; registering a name again replaces it.

    >>> import ir_rbstar
    >>> ir_rbstar.register_run("mono", {"q1": {"d1": 2.0, "d2": 1.0}})
    >>> ir_rbstar.registered_runs()
    ['mono']
    >>> ir_rbstar.unregister_run("mono")
    """
    if not isinstance(name, str) or not name:
        raise TypeError("register_run: the name must be a non-empty string")
    _REGISTERED[name] = _prepared(_convert(run, f"registered run {name!r}"))


def _convert(run: Any, source: str) -> Ranking:
    """A run in any accepted form; ``'irds:<id>'`` (when no such file exists) is a dataset's scoreddocs."""
    if isinstance(run, str) and run.startswith(_IRDS) and not os.path.isfile(os.path.expanduser(run)):
        return _dataset_run(run)
    return to_ranking(run, source=source)


def unregister_run(name: str) -> None:
    """Forget a run registered with :func:`register_run` (no error if it is unknown)."""
    _REGISTERED.pop(name, None)


def registered_runs() -> list:
    """Names of the runs registered with :func:`register_run`, sorted."""
    return sorted(_REGISTERED)


def register_runs(group: str, runs: Mapping[str, Any], teams: Optional[Mapping[str, str]] = None,
                  best: Optional[Mapping[str, str]] = None) -> None:
    """Make a set of runs available as ``prior=group`` (NRG, UniqueRel, TaSC) or ``runs=group`` (RarP).

    ``runs`` maps run names to runs in any form :func:`register_run` accepts; an empty mapping gives an
    empty prior set. Registering a group again replaces it. A run that is itself one of the runs is
    never its own prior (a member that ranks a query exactly as the evaluated run does is left out for
    that query). With ``teams`` (run name -> team, e.g. the TREC group that submitted it), the
    prior set of a member excludes every run of its team; with ``best`` (team -> run name) only each
    other team's representative is a prior (Bigdeli et al. 2024, section 4: "the best run of every other
    group"); :func:`ir_rbstar.nrg.best_per_team` picks them by a measure.

    >>> import ir_rbstar
    >>> ir_rbstar.register_runs("others", {"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d2": 1.0}}})
    >>> "others" in ir_rbstar.registered_groups()
    True
    >>> ir_rbstar.unregister_runs("others")
    """
    if not isinstance(group, str) or not group:
        raise TypeError("register_runs: the group name must be a non-empty string")
    if not isinstance(runs, Mapping):
        raise TypeError("register_runs: runs must be a mapping of run name -> run")
    names = [str(n) for n in runs]
    if teams is not None:
        missing = [n for n in names if n not in teams]
        if missing:
            raise ReferenceNotFoundError(f"register_runs({group!r}): no team given for run {missing[0]!r}")
        teams = {str(n): str(t) for n, t in teams.items()}
    if best is not None:
        if teams is None:
            raise TypeError("register_runs: best= needs teams=")
        for team, name in best.items():
            if str(name) not in names or teams[str(name)] != str(team):
                raise ReferenceNotFoundError(f"register_runs({group!r}): best[{team!r}] = {name!r} is not a run "
                                             f"of team {team!r}")
        best = {str(t): str(n) for t, n in best.items()}
    _GROUPS[group] = PriorSet([(str(name), _convert(run, f"run {name!r} of group {group!r}"))
                               for name, run in runs.items()], teams, best)


def unregister_runs(group: str) -> None:
    """Forget a group registered with :func:`register_runs` (no error if it is unknown)."""
    _GROUPS.pop(group, None)


def registered_groups() -> list:
    """Names of the groups registered with :func:`register_runs`, sorted."""
    return sorted(_GROUPS)


def resolve_runs(spec: str, what: str = "prior") -> PriorSet:
    """The runs named by a ``prior=`` string: a registered group, one existing run file (whatever its name
    holds), or a comma-separated list whose items are registered groups or run names, run files or globs
    of run files (sorted); write ``\\,`` for a comma inside an item."""
    found = _named_group(spec)
    if found is not None:
        return found
    if os.path.isfile(os.path.expanduser(spec)):        # one file, even if its name holds a comma
        return PriorSet([(spec, resolve_run(spec, what))])
    out: List[Tuple[str, Ranking]] = []
    for item in split_list(spec):
        if not item:
            raise ReferenceNotFoundError(f"{what}={spec!r}: an empty name in the list")
        group, run = _named(item)
        if group is not None:
            out.extend(group.runs)
        elif run is not None:
            out.append((item, run))
        elif _GLOB_CHARS & set(item):
            paths = sorted(p for p in glob.glob(os.path.expanduser(item)) if os.path.isfile(p))
            if not paths:
                raise ReferenceNotFoundError(f"{what}={spec!r}: the glob {item!r} matches no file "
                                             f"(looked in {os.path.abspath(os.path.dirname(item) or '.')})")
            out.extend((path, resolve_run(path, what)) for path in paths)
        else:
            out.append((item, resolve_run(item, what)))
    return PriorSet(out)


def split_list(spec: str) -> List[str]:
    """The items of a comma-separated list; ``\\,`` is a comma inside an item (for a path that holds one).

    >>> split_list(r"a.run, b\\,c.run")
    ['a.run', 'b,c.run']
    """
    items, cur, i = [], [], 0
    while i < len(spec):
        if spec[i] == "\\" and spec[i + 1:i + 2] == ",":
            cur.append(",")
            i += 2
            continue
        if spec[i] == ",":
            items.append("".join(cur).strip())
            cur = []
        else:
            cur.append(spec[i])
        i += 1
    items.append("".join(cur).strip())
    return items


def _named(name: str) -> Tuple[Optional[PriorSet], Optional[Ranking]]:
    """(group, run) that ``name`` names, at most one of them not None: the current scope (or an enclosing
    one) first, a group before a run; else the registered ones, likewise."""
    scope = _SCOPE.get()
    if scope is not None:
        group, run = scope.group(name), scope.run(name)
        if group is not None or run is not None:
            return group, (run if group is None else None)
    group = _GROUPS.get(name)
    return group, (_REGISTERED.get(name) if group is None else None)


def _named_run(name: str) -> Optional[Ranking]:
    """The run a name gives: in the current scope (or an enclosing one), else registered; None if neither."""
    scope = _SCOPE.get()
    found = None if scope is None else scope.run(name)
    return found if found is not None else _REGISTERED.get(name)


def _named_group(name: str) -> Optional[PriorSet]:
    """The group a name gives (scope first, then registered), ignoring runs of the same name."""
    scope = _SCOPE.get()
    found = None if scope is None else scope.group(name)
    return found if found is not None else _GROUPS.get(name)


def _scoped_names() -> set:
    scope = _SCOPE.get()
    return set() if scope is None else scope.names()


def clear_cache() -> None:
    """Drop the cached conversions of reference run files, the last qrels kept converted from
    namedtuples and from a dict of dicts (:mod:`ir_rbstar.io.qcache`) and the last DataFrames kept
    converted (:mod:`ir_rbstar.io.framecache`)."""
    from .io import framecache, qcache
    _FILE_CACHE.clear()
    qcache.clear()
    framecache.clear()


def _prepared(ranking: Ranking) -> Ranking:
    """A reference is converted once. Its tie groups are made on first use and kept with it (RBR and RBA
    read the groups of every row; the RBO family reads those of the shared documents only); runs are
    joined with it by one sort of both sides' keys (numpy engine) or by the compiled engine's kernels,
    without a hash index (one it has already, e.g. built for another join, is used)."""
    return ranking


def _dataset_run(ref: str) -> Ranking:
    """The scoreddocs of ``irds:<id>``, converted once and cached like a run file (keyed by the id and
    the stat of the dataset's scoreddocs file)."""
    from .datasets import scoreddocs_cache_key, scoreddocs_of
    return _cached(scoreddocs_cache_key(ref), lambda: scoreddocs_of(ref))


def _cached(key, load) -> Ranking:
    """The prepared ranking cached under ``key``, loading and preparing it on a miss (oldest evicted)."""
    ranking = _FILE_CACHE.get(key)
    if ranking is None:
        ranking = _prepared(load())
        if len(_FILE_CACHE) >= _FILE_CACHE_MAX:
            _FILE_CACHE.pop(next(iter(_FILE_CACHE)))
        _FILE_CACHE[key] = ranking
    return ranking


def resolve_run(ref: str, what: str = "ref") -> Ranking:
    """The :class:`~ir_rbstar.io.Ranking` named by a ``ref=`` string: a registered name, a run file or
    ``irds:<id>`` (the scoreddocs of an ir_datasets dataset), in that order."""
    found = _named_run(ref)
    if found is not None:
        return found
    path = os.path.expanduser(ref)
    if os.path.isfile(path):
        st = os.stat(path)
        return _cached((os.path.abspath(path), st.st_size, st.st_mtime_ns), lambda: read_trec_run(path))
    if ref.startswith(_IRDS):
        return _dataset_run(ref)
    known = ", ".join(repr(n) for n in sorted(set(registered_runs()) | _scoped_names())) or "none"
    raise ReferenceNotFoundError(f"{what}={ref!r} is neither a registered run (registered: {known}) nor an "
                                 f"existing run file (looked for {os.path.abspath(path)})")
