"""Exact running means in constant memory per measure, for :mod:`ir_rbstar.scale.stream`: the sum of
every value is kept exactly (integers over the doubles' mantissas), whatever the blocks."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Dict, List, Sequence

import numpy as np
from ir_measures import Metric
from ir_measures import MeanAgg



# ------------------------------------------------------------------------------------------ means

_SHIFT = 1126          # 2**-1074 is the smallest double: mantissa * 2**(e - 53 + _SHIFT) is an integer


class _ExactSum:
    """The exact sum of many doubles in an integer scaled by 2**_SHIFT (vectorised: the mantissas of a
    block are summed per exponent in int64 halves, a few Python integers per block)."""

    def __init__(self) -> None:
        self.total = 0
        self.special = 0.0                    # inf / nan, summed as floats (as fsum would raise or return)
        self.has_special = False

    def add(self, values: np.ndarray) -> None:
        v = np.asarray(values, dtype=np.float64)
        finite = np.isfinite(v)
        if not finite.all():
            self.has_special = True
            self.special += float(np.sum(v[~finite]))
            v = v[finite]
        v = v[v != 0]
        if not len(v):
            return
        mant, exp = np.frexp(v)                                  # v = mant * 2**exp, 0.5 <= |mant| < 1
        m = (mant * 2.0 ** 53).astype(np.int64)                  # exact
        order = np.argsort(exp, kind="stable")
        exp, m = exp[order], m[order]
        starts = np.flatnonzero(np.r_[True, exp[1:] != exp[:-1]])
        hi = np.add.reduceat(m >> 26, starts)                     # |m >> 26| < 2**27: no overflow below 2**36 rows
        lo = np.add.reduceat(m & ((1 << 26) - 1), starts)
        for e, a, b in zip(exp[starts].tolist(), hi.tolist(), lo.tolist(), strict=True):
            self.total += ((a << 26) + b) << (e - 53 + _SHIFT)

    def value(self) -> float:
        if self.has_special:
            return self.special + float(Fraction(self.total, 1 << _SHIFT))
        return float(Fraction(self.total, 1 << _SHIFT))        # correctly rounded, as math.fsum


class Means:
    """Each measure's aggregate over per-query values given in any number of pieces, in memory that does
    not grow with the number of queries: a mean (every measure of this package and most of ir_measures')
    from an exact sum (equal to ``math.fsum`` of all the values, divided by their count, whatever the
    pieces and their order); any other aggregator is fed the values as they come."""

    def __init__(self, measures: Sequence):
        self.measures = list(measures)
        self._sums: Dict[Any, _ExactSum] = {}
        self._counts: Dict[Any, int] = {}
        self._aggs: Dict[Any, Any] = {}
        self._pending: Dict[Any, List[float]] = {}
        for m in self.measures:
            agg = m.aggregator()
            if type(agg) is MeanAgg:
                self._sums[m], self._counts[m] = _ExactSum(), 0
            else:
                self._aggs[m] = agg

    def add(self, measure: Any, values: Any) -> None:
        """Per-query values (an array) of ``measure``."""
        if measure in self._sums:
            arr = np.asarray(values, dtype=np.float64)
            self._sums[measure].add(arr)
            self._counts[measure] += len(arr)
        else:
            agg = self._aggs[measure]
            for v in np.asarray(values, dtype=np.float64).tolist():
                agg.add(v)

    def add_metric(self, metric: Metric) -> None:
        """One per-query value (buffered, summed by pieces)."""
        pending = self._pending.setdefault(metric.measure, [])
        pending.append(metric.value)
        if len(pending) >= 1 << 16:
            self._flush(metric.measure)

    def _flush(self, measure: Any) -> None:
        pending = self._pending.pop(measure, None)
        if pending:
            self.add(measure, pending)

    def result(self) -> Dict[Any, float]:
        for m in list(self._pending):
            self._flush(m)
        out: Dict[Any, float] = {}
        for m in self.measures:
            if m in self._sums:
                n = self._counts[m]
                out[m] = self._sums[m].value() / n if n else m.aggregator().result()
            else:
                out[m] = self._aggs[m].result()
        return out
