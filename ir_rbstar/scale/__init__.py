"""Evaluation beyond one in-memory run: query blocks (:mod:`.blocks`), out-of-core streaming of files
larger than memory (:mod:`.stream`) and Spark DataFrames (:mod:`.spark`, the ``spark`` extra).

Every measure of the package (and of ir_measures) is a function of one query's rows plus a mean, so a
run can be cut into blocks of whole queries, each block evaluated by the same engine, and the per-query
values are the very numbers the whole run gives (tested for every family). See docs/scale.md.
"""
from __future__ import annotations

from .blocks import aggregate, evaluate_block, measure_names
from .stream import stream_aggregate, stream_calc

__all__ = ["evaluate_block", "aggregate", "measure_names", "stream_calc", "stream_aggregate"]
