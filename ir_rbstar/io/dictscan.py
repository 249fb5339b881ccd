"""The optional compiled reader of dicts of dicts (``_ir_rbstar_dicts``, built from csrc/ by setup.py where a C
compiler is there; without it every function here returns None and the callers take their Python path, with
the same results).

A run given as ``{query_id: {doc_id: score}}`` (ir_measures' and pytrec_eval's native form) is otherwise read by
``np.fromiter`` over the ids and again over the scores: about 35 ns an id, most of a call of a cheap measure such
as RBP (docs/benchmarks.md). The compiled reader copies each id's bytes and each score in one pass in C, for
dicts whose ids are ``str`` of ASCII characters and whose values are ``float`` (grades: ``int``), the usual
case; anything else (another type, a non-ASCII id, an id holding a NUL character, a dict subclass) is left to
the Python path, which converts it or names what is wrong.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

try:
    import _ir_rbstar_dicts as _compiled
except ImportError:                 # not built (no C compiler at install time) or a source checkout
    _compiled = None

__all__ = ["available", "dict_columns", "same_lists"]


def available() -> bool:
    """Whether the compiled reader is installed."""
    return _compiled is not None


def dict_columns(obj: dict, n: int, grades: bool) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(document ids as bytes, values) of a dict of dicts with ``n`` documents in all, in its order: the ids an
    ``S`` array as wide as the longest (at least 1), the values float64 (``grades``: int64). None when the
    compiled reader is not installed or the dicts are not of the plain form it reads (the module's docstring)."""
    if _compiled is None or n == 0:
        return None
    got = _compiled.columns(obj, n, int(grades))
    if got is None:
        return None
    buf, width, longest, values = got
    ids = np.frombuffer(buf, dtype=f"S{width}")
    if longest < width:                         # the buffer was widened ahead of need: as numpy makes it
        ids = ids.astype(f"S{longest}")
    return ids, np.frombuffer(values, dtype=np.int64 if grades else np.float64)


def same_lists(obj: dict, queries: list, doc_lists: list, value_lists: list) -> Optional[bool]:
    """Whether the dict of dicts ``obj`` holds, in its order, the query ids ``queries`` and each query's
    document ids and values (``doc_lists[i]``, ``value_lists[i]``), each compared by identity or, for ``str``
    ids and ``int`` values, by equality; None when undecided (some id or value of another type, an inner value
    not a dict, or the compiled reader not installed): the caller then compares in Python."""
    if _compiled is None:
        return None
    result: Any = _compiled.same(obj, queries, doc_lists, value_lists)
    return result
