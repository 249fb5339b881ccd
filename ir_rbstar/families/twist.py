"""Glue between the Twist declarations and their kernels (one pass per cutoff and ``rel``)."""
from __future__ import annotations

from typing import Dict, Iterable, Optional

import numpy as np

from ..context import RunContext
from ..core import twist as K
from .qrels_kept import kept

FIELD = {"Twist": "tau", "Twist_rho": "rho", "Twist_sigma": "sigma"}


def values(ctx: RunContext, cutoff: Optional[int], rel: int, measure=None) -> K.TwistValues:
    """The Twist quantities of every universe query for the run's top ``cutoff`` (all rows for None)."""
    def make():
        ctx.require_qrels(measure or "Twist")
        rows, rp, relevant, bands = curves(ctx, cutoff, rel)
        return K.twist(bands, rows.seg, rp, relevant, ctx.n, length=rows.lens)
    return ctx.cached(("twist", cutoff, rel), make)


def curves(ctx: RunContext, cutoff: Optional[int], rel: int):
    """(rows, RP of each row, whether each row is relevant, the grade bands) for the run's top ``cutoff``."""
    def make():
        rows = ctx.observation(cutoff)
        grade, judged = ctx.judgments(cutoff)
        relevant = judged & (grade >= rel)
        bands = kept(ctx, ("twist bands", rel), lambda: K.bands(*ctx.qrels_rows(), rel, ctx.n))
        rp = K.relative_positions(bands, rows.seg, None, grade, relevant, lens=rows.lens, rank=rows.rank)
        return rows, rp, relevant, bands
    return ctx.cached(("twist_curves", cutoff, rel), make)


def compute(measures: Iterable, ctx: RunContext) -> Dict[object, np.ndarray]:
    out: Dict[object, np.ndarray] = {}
    for m in measures:
        v = values(ctx, m.params.get("cutoff"), m["rel"], m)
        # a query without a relevant document (RB = 0) has no Twist; as a measure it scores 0, as
        # trec_eval's AP, R and nDCG do there, so every query has a value at every door
        out[m] = np.where(v.base == 0, 0.0, getattr(v, FIELD[m.NAME]))
    return out
