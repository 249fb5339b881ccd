"""Auxiliary judgments for RBP and RBP_res (``aux=``): a second qrels fills the documents the qrels leave
unjudged (the qrels' grade stands where both judge). See :mod:`ir_rbstar.judging.aux` for the split of a
value into its human part, its auxiliary part and the residual that remains."""
from __future__ import annotations

import os
from typing import Dict, Tuple

import numpy as np

from ..context import RunContext, join_judgments
from ..errors import GradeScaleError
from ..io import QUERY_IDS, Qrels

_LOADED: Dict[tuple, Qrels] = {}


def load_aux(spec: str) -> Qrels:
    """The auxiliary qrels of ``aux=``: a TREC qrels file (read once per path, size and modification time)
    or an ir_datasets id; a missing file is a FileNotFoundError that names ``aux``."""
    from ..datasets import resolve_qrels
    path = os.path.abspath(os.path.expanduser(spec))
    key: tuple = (path, os.stat(path).st_mtime_ns, os.stat(path).st_size) if os.path.exists(path) else (spec,)
    found = _LOADED.get(key)
    if found is None:
        try:
            found = resolve_qrels(spec)
        except FileNotFoundError as e:       # (named as the auxiliary judgments, not as the qrels)
            raise FileNotFoundError(f"aux: {e}") from None
        _LOADED.clear()                      # one auxiliary qrels at a time is kept
        _LOADED[key] = found
    return found


def with_aux(m, ctx: RunContext, cutoff, grade: np.ndarray, judged: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(grade, judged) of B's rows with the auxiliary judgments filling the unjudged ones. For graded RBP an
    auxiliary grade above ``max_rel`` that would be used is a GradeScaleError naming the file, query and
    document (never clipped)."""
    spec = m.params["aux"]
    try:
        aux = load_aux(spec)
    except FileNotFoundError as e:
        raise FileNotFoundError(f"{m}: {e}") from None
    b = ctx.observation(cutoff)
    agrade, ajudged = ctx.cached(("aux judg", cutoff, spec),
                                 lambda: join_judgments(ctx.run, aux, b, lambda: ctx.queries(b)))
    fill = ajudged & ~judged
    if m.NAME == "RBP" and m.params.get("rel") is None:
        top = m.params.get("max_rel", 1)
        bad = np.flatnonzero(fill & (agrade > top))
        if len(bad):
            i = int(bad[0])
            qid = QUERY_IDS.decode(ctx.queries(b)[i:i + 1])[0]
            doc = ctx.run.dbytes[b.src[i] if not b.identity else i].decode("utf-8", "replace")
            raise GradeScaleError(f"{m}: auxiliary judgments {aux.source}: grade {int(agrade[i])} of document "
                                  f"{doc!r} for query {qid!r} is above max_rel={top}")
    return np.where(judged, grade, agrade), judged | ajudged
