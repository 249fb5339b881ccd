"""The last qrels converted from a list of namedtuples, kept for the next call given the same tuples.

A program usually evaluates run after run against one qrels list (``ir_measures.calc_aggregate(measures,
qrels, run)`` in a loop), and converting 9,260 ``Qrel`` tuples (TREC DL 2019) costs more than evaluating a
small run. So the :class:`~ir_rbstar.io.tables.Qrels` made from a list (or tuple) of namedtuples is kept,
with a shallow copy of the list, and given again only when the list holds **the very same tuple objects**
in the same order (checked element by element by identity, one C pass: about 0.1 ms for 9,260 tuples).
It cannot go stale: a tuple cannot change, every field this package reads of every tuple is of an
immutable type (checked when the conversion is kept: ``str``, ``bytes``, ``int``, ``float``, ``bool`` or
a numpy scalar; otherwise nothing is kept), and the copy holds the tuples, so none of them can be freed
and another object take its place. A list changed in any way (an item replaced, added, removed, moved)
or a new list of new tuples is converted again. Only one qrels is kept (the last), and only of at most
:data:`MAX_ROWS` tuples; :func:`clear` drops it.
"""
from __future__ import annotations

import threading
from collections import namedtuple
from itertools import chain
from operator import countOf, is_
from typing import Any, Optional, Tuple

import numpy as np

#: the largest list kept (its copy holds one pointer per tuple and keeps the tuples alive)
MAX_ROWS = 1_000_000

_IMMUTABLE = (str, bytes, int, float, bool)
_TUPLEGETTER = type(vars(namedtuple("_Probe", "a"))["a"])      # the accessor of a namedtuple's fields
_lock = threading.Lock()
_last: Optional[Tuple[str, list, Any]] = None
_last_dict: Optional[Tuple[str, dict, Any]] = None


def cached(items: Any, source: str) -> Any:
    """The qrels converted last from ``items`` (same source name), if ``items`` is a list or tuple of the
    very same tuple objects in the same order; else None."""
    last = _last
    if last is None or type(items) not in (list, tuple) or last[0] != source or len(last[1]) != len(items):
        return None
    return last[2] if countOf(map(is_, last[1], items), False) == 0 else None


def keep(items: Any, source: str, qrels: Any, copy: bool = True) -> None:
    """Keep ``qrels``, converted from ``items``, when ``items`` is a list or tuple of at most
    :data:`MAX_ROWS` namedtuples of one class (fields read by ``collections.namedtuple``'s own accessors)
    whose every field is of an immutable type. ``copy=False``: ``items`` is a list the caller made, which
    nothing else holds (kept as it is)."""
    global _last
    if type(items) not in (list, tuple) or not 0 < len(items) <= MAX_ROWS:
        return
    kind = type(items[0])
    fields = getattr(kind, "_fields", None)
    if not isinstance(items[0], tuple) or not fields or kind.__iter__ is not tuple.__iter__ \
            or any(type(getattr(kind, f, None)) is not _TUPLEGETTER for f in fields) \
            or countOf(map(type, items), kind) != len(items) \
            or not all(t in _IMMUTABLE or issubclass(t, np.generic)
                       for t in set(map(type, chain.from_iterable(items)))):
        return
    with _lock:
        _last = (source, list(items) if copy or type(items) is not list else items, qrels)


def cached_dict(qrels: Any, source: str) -> Any:
    """The qrels converted last from a dict of dicts equal to ``qrels`` (same source name), else None."""
    last = _last_dict
    if last is None or type(qrels) is not dict or last[0] != source or len(last[1]) != len(qrels):
        return None
    return last[2] if qrels == last[1] else None


def keep_dict(qrels: Any, source: str, converted: Any) -> None:
    """Keep ``converted``, made from the dict of dicts ``qrels``, with a copy of it, when it holds at most
    :data:`MAX_ROWS` judgments, its query and document ids are ``str`` and its grades ``int``."""
    global _last_dict
    if type(qrels) is not dict or not qrels or set(map(type, qrels.values())) != {dict} \
            or sum(map(len, qrels.values())) > MAX_ROWS or set(map(type, qrels)) != {str} \
            or not set(map(type, chain.from_iterable(qrels.values()))) <= {str} \
            or not set(map(type, chain.from_iterable(map(dict.values, qrels.values())))) <= {int}:
        return
    with _lock:
        _last_dict = (source, {q: dict(docs) for q, docs in qrels.items()}, converted)


def clear() -> None:
    """Drop the qrels kept (and the tuples or the copy of the dict they hold)."""
    global _last, _last_dict
    with _lock:
        _last = _last_dict = None
