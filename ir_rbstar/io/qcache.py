"""The last qrels converted from namedtuples and from a dict of dicts, kept for a next call given the same.

A program usually evaluates run after run against one qrels (``ir_measures.calc_aggregate(measures,
qrels, run)`` in a loop), and converting the 9,260 judgments of TREC DL 2019 costs more than evaluating a
small run. So the last :class:`~ir_rbstar.io.tables.Qrels` made from a list (or tuple) of namedtuples,
and the last made from a dict of dicts, are kept and given again only while they cannot be stale:

* namedtuples: the list given holds **the very same tuple objects** in the same order as the one
  converted (compared element by element by identity, one C pass: about 0.1 ms for 9,260 tuples; the
  kept copy of the list holds the tuples, so none can be freed and another object take its place). A
  tuple cannot change, and before the conversion is first given again every field of every tuple is
  checked to be of an immutable type (``str``, ``bytes``, ``int``, ``float``, ``bool``, a numpy scalar
  but a structured one, ``np.void``, which is a view of its array's row)
  and the tuples to be ``collections.namedtuple`` instances of one class (else the entry is dropped);
* a dict of dicts: the dict given is **equal** to a copy of the one converted, its queries and each
  query's documents in the same order (its outer and inner dicts copied, so a change made in place
  afterwards is seen), whose ids were checked to be ``str`` and grades ``int`` of at most
  :data:`EXACT_GRADE` in magnitude before the conversion is first given again (values equal to those, such
  as ``1.0`` or ``np.float16(1)`` for ``1``, convert to the same grades; beyond, numpy finds a float equal
  to an integer it rounds to: ``np.float16(2048) == 2049``). The
  copy is kept as lists (:class:`FlatDict`: the query ids, and each query's document ids and grades, in the
  dict's order), which is also what is converted; the dict given is turned into lists the same way, a query
  at a time, and compared list by list in C (equal lists of the same order are exactly an equal dict in the
  same order; the ids and grades of an unchanged dict are the very objects kept, compared by identity first:
  about half the time of a dict comparison followed by the order's).

Anything else (an item replaced, added, removed or moved, a grade changed, new tuples) is converted
again. The checks of types are made once, at the first reuse, so a single call pays only for the copy.
Only the last qrels of each form is kept, of at most :data:`MAX_ROWS` judgments; :func:`clear` (and
:func:`ir_rbstar.references.clear_cache`) drops them.
"""
from __future__ import annotations

import threading
from collections import namedtuple
from itertools import chain
from operator import countOf, eq, is_
from typing import Any, Callable, Optional

import numpy as np

from . import dictscan

#: the most judgments kept (the copy of a list keeps its tuples alive after the caller has dropped them,
#: that of a dict its strings: up to about 100-250 MB at this size, until the next qrels of the same form
#: or :func:`clear`; a larger qrels is converted at every call). 1M covers the benchmarks' synthetic
#: 700,000 judgments and every TREC qrels file the package was measured on.
MAX_ROWS = 1_000_000

_IMMUTABLE = (str, bytes, int, float, bool)
_TUPLEGETTER = type(vars(namedtuple("_Probe", "a"))["a"])      # the accessor of a namedtuple's fields
_lock = threading.Lock()


class _Kept:
    """A kept conversion: the source name, the copy it is checked against, the conversion, and whether
    the copy's types were checked (done once, at the first reuse: a first call pays nothing for it)."""

    __slots__ = ("source", "copy", "converted", "checked")

    def __init__(self, source: str, copy: Any, converted: Any):
        self.source, self.copy, self.converted, self.checked = source, copy, converted, False


_last: Optional[_Kept] = None
_last_dict: Optional[_Kept] = None


def _immutable_tuples(items: list) -> bool:
    """Whether ``items`` are namedtuples of one class (fields read by ``collections.namedtuple``'s own
    accessors) whose every field is of an immutable type (not ``np.void``: a row of a structured array
    that changes with it)."""
    kind = type(items[0])
    fields = getattr(kind, "_fields", None) or ()
    return isinstance(items[0], tuple) and len(fields) > 0 and kind.__iter__ is tuple.__iter__ \
        and all(type(getattr(kind, f, None)) is _TUPLEGETTER for f in fields) \
        and countOf(map(type, items), kind) == len(items) \
        and all(t in _IMMUTABLE or (issubclass(t, np.generic) and not issubclass(t, np.void))
                for t in set(map(type, chain.from_iterable(items))))


def _joined(parts) -> list:
    """The items of ``parts`` (dicts or their views) in one list: ``list.extend`` part by part, which
    iterates each part in C without :func:`itertools.chain`'s step per item (about 20% less time on a
    TREC qrels, 9,260 judgments in 43 queries: 0.10 against 0.12 ms per list, medians of 200 calls)."""
    out: list = []
    extend = out.extend
    for part in parts:
        extend(part)
    return out


class FlatDict:
    """A dict of dicts ``{query_id: {doc_id: grade}}`` as lists in its order: the query ids, and each query's
    document ids and grades (the ids and grades themselves are not copied). Made from a copy of the dict
    (:func:`snapshot_dict`), so they agree."""

    __slots__ = ("queries", "doc_lists", "value_lists")

    def __init__(self, qrels: dict):
        inner = qrels.values()
        self.queries = list(qrels)
        self.doc_lists = list(map(list, inner))
        self.value_lists = list(map(list, map(dict.values, inner)))

    @property
    def lengths(self) -> list:
        """Each query's number of documents."""
        return list(map(len, self.doc_lists))

    def docs(self):
        """An iterator over every document id, query after query."""
        return chain.from_iterable(self.doc_lists)

    def values(self) -> list:
        """Every grade, query after query, in a new list."""
        return _joined(self.value_lists)

    def same(self, qrels: dict) -> bool:
        """Whether the dict of dicts ``qrels`` (inner dicts of type ``dict``) holds the same queries,
        documents and grades (``==``) in the same order: each query's lists compared with these, in C, one
        query at a time (per-query lists cost no large list; on Robust04's 311,000 judgments 8.5 against
        11 ms for lists of them all, and the same on DL 2019's 9,260). A value whose ``==`` gives no truth
        value (a numpy array, ``pd.NA``) is not the same: the dict is then converted, whose error names it,
        rather than the comparison's ``ValueError`` or ``TypeError``."""
        decided = dictscan.same_lists(qrels, self.queries, self.doc_lists, self.value_lists)
        if decided is not None:                     # the compiled comparison (ir_rbstar/io/dictscan.py)
            return decided
        inner = qrels.values()
        try:
            return list(qrels) == self.queries and all(map(eq, map(list, inner), self.doc_lists)) \
                and all(map(eq, map(list, map(dict.values, inner)), self.value_lists))
        except (TypeError, ValueError):
            return False


#: the largest grade magnitude of a dict whose conversion is reused: a number equal to such a grade (``==``)
#: is that very grade in every numeric type of Python and numpy (float16 holds each integer up to 2^11
#: exactly; numpy compares a float with a Python int in the float's own type, so beyond it a changed grade
#: could compare equal to the kept one, ``np.float16(2048) == 2049``, and be given the kept conversion)
EXACT_GRADE = 2048


def _plain_dict(flat: FlatDict) -> bool:
    """Whether a flattened dict of dicts has ``str`` query and document ids and ``int`` grades of at most
    :data:`EXACT_GRADE` in magnitude."""
    values = flat.values()
    return set(map(type, flat.queries)) == {str} and set(map(type, flat.docs())) <= {str} \
        and set(map(type, values)) <= {int} \
        and (not values or -EXACT_GRADE <= min(values) and max(values) <= EXACT_GRADE)


def _reuse(kept: _Kept, check: Callable[[Any], bool], which: str) -> Any:
    """``kept``'s conversion, its copy's types checked first if they were not yet (dropped when they fail)."""
    global _last, _last_dict
    if not kept.checked:
        if not check(kept.copy):
            with _lock:
                if which == "tuples" and _last is kept:
                    _last = None
                elif which == "dict" and _last_dict is kept:
                    _last_dict = None
            return None
        kept.checked = True
    return kept.converted


def cached(items: Any, source: str) -> Any:
    """The qrels converted last from ``items`` (same source name), if ``items`` is a list or tuple of the
    very same tuple objects in the same order (and they are namedtuples with fields of immutable types);
    else None."""
    last = _last
    if last is None or type(items) not in (list, tuple) or last.source != source or len(last.copy) != len(items):
        return None
    if countOf(map(is_, last.copy, items), False):
        return None
    return _reuse(last, _immutable_tuples, "tuples")


def snapshot(items: Any, copy: bool = True) -> Optional[list]:
    """The list to convert and keep: a copy of ``items`` (a list or tuple of at most :data:`MAX_ROWS`
    tuples), made BEFORE the conversion, so that another thread changing ``items`` meanwhile cannot make
    the kept conversion disagree with what it is checked against; None when ``items`` is not kept.
    ``copy=False``: ``items`` is a list the caller made, which nothing else holds (taken as it is)."""
    if type(items) not in (list, tuple) or not 0 < len(items) <= MAX_ROWS or not isinstance(items[0], tuple):
        return None
    return list(items) if copy or type(items) is not list else items


def keep(items: list, source: str, qrels: Any) -> None:
    """Keep ``qrels``, converted from ``items`` (a :func:`snapshot`; whether they are namedtuples with
    fields of immutable types is checked when the conversion is first reused)."""
    global _last
    with _lock:
        _last = _Kept(source, items, qrels)


def cached_dict(qrels: Any, source: str) -> Any:
    """The qrels converted last from a dict of dicts equal to ``qrels``, its keys in the same order (same
    source name; ``str`` ids, ``int`` grades within :data:`EXACT_GRADE`), else None."""
    last = _last_dict
    if last is None or type(qrels) is not dict or last.source != source or len(last.copy.queries) != len(qrels):
        return None
    # dict equality ignores order, but the conversion keeps the order of the queries and of each query's
    # documents (Qrels.qcodes, iter_calc's order): the flat lists compare both at once (FlatDict.same)
    if countOf(map(type, qrels.values()), dict) != len(qrels) or not last.copy.same(qrels):
        return None
    return _reuse(last, _plain_dict, "dict")


def snapshot_dict(qrels: Any) -> Optional[FlatDict]:
    """A copy of the dict of dicts ``qrels`` (its outer and inner dicts; the ids and grades themselves are
    not copied), flattened (:class:`FlatDict`), to convert and keep (made BEFORE the conversion, as
    :func:`snapshot`), when it holds at most :data:`MAX_ROWS` judgments; else None."""
    if type(qrels) is not dict or not qrels or countOf(map(type, qrels.values()), dict) != len(qrels) \
            or sum(map(len, qrels.values())) > MAX_ROWS:
        return None
    return FlatDict({q: dict(docs) for q, docs in qrels.items()})


def keep_dict(copy: FlatDict, source: str, converted: Any) -> None:
    """Keep ``converted``, made from ``copy`` (a :func:`snapshot_dict`; whether its ids are ``str`` and
    grades ``int`` is checked when the conversion is first reused)."""
    global _last_dict
    with _lock:
        _last_dict = _Kept(source, copy, converted)


def clear() -> None:
    """Drop the qrels kept (and the tuples or the copy of the dict they hold)."""
    global _last, _last_dict
    with _lock:
        _last = _last_dict = None
