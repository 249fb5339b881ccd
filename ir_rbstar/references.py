"""Reference runs: resolving ``ref=`` strings, registering runs by name, and caching their conversion.

A ``ref`` string is looked up first among the names given to :func:`register_run`, then as a path of
a TREC run file (``.gz`` allowed). Files are converted once and cached by (absolute path, size,
modification time), so evaluating many runs against one reference reads it once.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Tuple

from .errors import ReferenceNotFoundError
from .io import Ranking, read_trec_run, to_ranking

__all__ = ["register_run", "unregister_run", "registered_runs", "resolve_run", "clear_cache"]

_REGISTERED: Dict[str, Ranking] = {}
_FILE_CACHE: Dict[Tuple[str, int, int], Ranking] = {}
_FILE_CACHE_MAX = 32


def register_run(name: str, run: Any) -> None:
    """Make ``run`` available as ``ref=name`` (and later ``prior=name``) in every measure string.

    ``run`` is a pandas DataFrame (``query_id, doc_id, score``), a dict of dicts
    (``{query_id: {doc_id: score}}``), an iterable of ``ir_measures.ScoredDoc`` or the path of a TREC
    run file. It is converted (and validated) now; registering a name again replaces it.

    >>> import ir_rbstar
    >>> ir_rbstar.register_run("mono", {"q1": {"d1": 2.0, "d2": 1.0}})
    >>> ir_rbstar.registered_runs()
    ['mono']
    >>> ir_rbstar.unregister_run("mono")
    """
    if not isinstance(name, str) or not name:
        raise TypeError("register_run: the name must be a non-empty string")
    _REGISTERED[name] = _prepared(to_ranking(run, source=f"registered run {name!r}"))


def unregister_run(name: str) -> None:
    """Forget a run registered with :func:`register_run` (no error if it is unknown)."""
    _REGISTERED.pop(name, None)


def registered_runs() -> list:
    """Names of the runs registered with :func:`register_run`, sorted."""
    return sorted(_REGISTERED)


def clear_cache() -> None:
    """Drop the cached conversions of reference run files."""
    _FILE_CACHE.clear()


def _prepared(ranking: Ranking) -> Ranking:
    """A reference is converted once: its tie groups and its key index are built with it."""
    ranking.tie_groups()
    ranking.build_index()
    return ranking


def resolve_run(ref: str, what: str = "ref") -> Ranking:
    """The :class:`~ir_rbstar.io.Ranking` named by a ``ref=`` string."""
    if ref in _REGISTERED:
        return _REGISTERED[ref]
    path = os.path.expanduser(ref)
    if os.path.isfile(path):
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
        ranking = _FILE_CACHE.get(key)
        if ranking is None:
            ranking = _prepared(read_trec_run(path))
            if len(_FILE_CACHE) >= _FILE_CACHE_MAX:
                _FILE_CACHE.pop(next(iter(_FILE_CACHE)))
            _FILE_CACHE[key] = ranking
        return ranking
    known = ", ".join(repr(n) for n in registered_runs()) or "none"
    raise ReferenceNotFoundError(f"{what}={ref!r} is neither a registered run (registered: {known}) nor an "
                                 f"existing run file (looked for {os.path.abspath(path)})")
