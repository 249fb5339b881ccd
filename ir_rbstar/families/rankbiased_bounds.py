"""How far ties could move RBR, RBA, RBO and RBO_ext: ``stat='min'`` and ``stat='max'``, the value of the
worst and of the best order of the tie groups of both the run and the reference, exactly.

The best order sorts the documents of each tie group of the run by the tie group they fall in in the
reference (earlier first, documents the reference lacks last), and the documents of each tie group of the
reference by the tie group of the run they come from (earlier first, documents not in B last), documents
sharing both groups in the same order on both sides. Every prefix overlap |B_{1..d} ∩ R_{1..d}| is then as
large as any order makes it, and so are RBR and RBA (each swap of two documents that breaks this order
cannot increase them, by the rearrangement inequality). The worst order is the mirror image: later reference
groups and absent documents first in the run's groups, later run groups and documents not in B first in
the reference's groups, documents sharing both groups in opposite orders. The tests compare both with every
order by brute force. Internal: used by :mod:`ir_rbstar.families.rankbiased`.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from ..core import rankbiased as K
from ..core.segments import seg_cumcount, seg_sum

__all__ = ["extreme"]

_LAST = np.iinfo(np.int64).max // 4


def _positions(seg: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """0-based position of every row within its query once the rows of each query are sorted by ``keys``
    (the first key most significant)."""
    order = np.lexsort(tuple(reversed((seg,) + keys)))
    pos = np.empty(len(seg), dtype=np.int64)
    pos[order] = seg_cumcount(seg[order]) - 1
    return pos


def extreme(m, ctx: RunContext) -> np.ndarray:
    """The smallest (``stat='min'``) or largest (``'max'``) value of RBR, RBA, RBO or RBO_ext over every order
    of the ties of both rankings."""
    name, p, cutoff, ref, rel = m.NAME, m["p"], m.params.get("cutoff"), m["ref"], m["rel"]
    best = m["stat"] == "max"
    n = ctx.n
    tied = ctx.tied_observation(cutoff)
    rows = tied.rows
    reference, b_in_r, _ = ctx.match(cutoff, ref, rel, m, tied=True)
    r = ctx.reference_rows(ref, rel, m)
    rstart_all, _ = reference.tie_groups()
    matched = b_in_r >= 0
    _, doc_rank = np.unique(np.concatenate((rows.docs, r.docs)), return_inverse=True)
    b_doc, r_doc = doc_rank[:len(rows.docs)], doc_rank[len(rows.docs):]
    sign = 1 if best else -1
    # the run's side: within each tie group by the reference group (absent last / first), then document
    r_group = np.full(len(b_in_r), _LAST, dtype=np.int64)
    r_group[matched] = rstart_all[b_in_r[matched]]
    b_pos = _positions(rows.seg, tied.start, sign * r_group, b_doc)
    in_b = b_pos < tied.blen[rows.seg]
    # the reference's side: within each tie group by the run's group (not in B last / first), then document
    candidate = np.full(len(rstart_all), -1, dtype=np.int64)
    candidate[b_in_r[matched]] = np.flatnonzero(matched)
    c = candidate[r.src]
    b_group = np.full(len(c), _LAST, dtype=np.int64)
    b_group[c >= 0] = tied.start[c[c >= 0]]
    r_pos = _positions(r.seg, rstart_all[r.src], sign * b_group, sign * r_doc)
    rank_r_of_src = np.zeros(len(rstart_all), dtype=np.int64)
    rank_r_of_src[r.src] = r_pos + 1
    shared = np.flatnonzero(matched & in_b)
    seg = rows.seg[shared]
    rank_b = b_pos[shared] + 1
    rank_r = rank_r_of_src[b_in_r[shared]]
    if name == "RBR":
        return seg_sum(K.rank_weights(rank_r, p), seg, n)
    if name == "RBA":
        return (1.0 - p) / p * seg_sum(np.power(p, (rank_b + rank_r) / 2.0), seg, n)
    family = K.rbo_family(n, p, tied.blen, r.lens, seg, rank_b, rank_r - 1, np.ones(len(seg), dtype=np.int64))
    return family[name]
