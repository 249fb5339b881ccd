"""What a measure family derives from the qrels alone, kept with the :class:`~ir_rbstar.io.tables.Qrels`
object for the next evaluation against the same qrels (a loop over runs; the same qrels converted once
and given again by :mod:`ir_rbstar.io.qcache`, or held by an evaluator).

A kept value depends only on the qrels (immutable by convention, as their ``DocIndex`` kept the same way),
on the query universe (its query codes, compared as bytes) and on the ``kind`` (the quantity and every
parameter it depends on). One value per kind is kept: a new universe replaces it, so what is kept stays
bounded by the kinds of measures used. Kept arrays are made read-only, so no caller can change them in place.
Internal.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Hashable

import numpy as np

from ..context import RunContext

__all__ = ["kept"]


def _freeze(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple):
        for v in value:
            _freeze(v)
    elif dataclasses.is_dataclass(value):
        for v in vars(value).values():
            _freeze(v)
    return value


def kept(ctx: RunContext, kind: Hashable, make: Callable[[], Any]) -> Any:
    """``make()`` for this context's qrels and universe, made once and kept with the qrels under ``kind``
    (and in the context, so one evaluation asks the qrels once)."""
    def find():
        qrels = ctx.qrels
        if qrels is None:
            return make()
        universe = ctx.universe.tobytes()
        slot = qrels.kept(("kept by family", kind), lambda: [None, None])     # [universe, value], one per kind
        if slot[0] == universe:
            return slot[1]
        value = _freeze(make())
        slot[:] = [universe, value]
        return value
    return ctx.cached(("kept by family", kind), find)
