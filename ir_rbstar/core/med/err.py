"""MED of ERR: the branch and bound over the bound variables of every query at once (vectorised), after
fixing the variables whose slope has one sign (see :mod:`ir_rbstar.core.med`)."""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from .common import TOL, Dense, Searched, err_rows, finish_search, stack_directions

__all__ = ["med_err", "max_err"]

class _Nodes:
    """Evaluates search nodes of a direction: (query, depth, 0/1 assignment of the first ``depth``
    variables) -> the decoupled upper bound (undecided values r_G in ``up``, 0 in ``down``), which is
    the exact value when no variable is undecided."""

    def __init__(self, d: Dense, score):
        self.d, self.score, self.M = d, score, d.M
        self.ia, self.ib = d.gather_index(d.va), d.gather_index(d.vb)
        self.columns = np.arange(self.M + 1)

    def __call__(self, pid: np.ndarray, depth: np.ndarray, Z: np.ndarray) -> np.ndarray:
        d = self.d
        values = np.zeros((len(pid), self.M + 1))   # column M stays 0: positions without a variable
        up = values[:, :-1]
        np.multiply(Z, d.top, out=up)
        undecided = self.columns[:-1] >= depth[:, None]
        up[undecided] = d.top
        # the values at each position, gathered by flat index from the rows of ``values`` (what
        # np.take_along_axis gives, without its index grids), added to the fixed values into the two
        # halves of one array (up, then down) for the score
        n = len(pid)
        flat = values.reshape(-1)                   # a view: sees the change of the undecided ones below
        base = (np.arange(n) * (self.M + 1))[:, None]
        both = np.empty((2 * n, d.fa.shape[1]))
        np.add(d.fa[pid], flat.take(self.ia[pid] + base), out=both[:n])
        up[undecided] = 0.0
        np.add(d.fb[pid], flat.take(self.ib[pid] + base), out=both[n:])
        both = self.score(both)
        return both[:n] - both[n:]


#: the most cells (nodes x positions) of one batch of node evaluations: 20,000 nodes of a row of 31 positions
#: (k = 30, as before this cap), fewer on wider rows, so that memory stays about 0.1-0.3 GB whatever k
#: (Robust 2003, two runs judgment-free at k = 1000: 4.2 GB at the peak with a batch of every neighbour)
BATCH_CELLS = 20_000 * 31


def _step(evaluate: "_Nodes", chunk: int) -> int:
    """The most nodes scored at once: ``chunk``, fewer where a node's row is wide (:data:`BATCH_CELLS`)."""
    return max(1, min(chunk, BATCH_CELLS // (evaluate.M + 1)))


def _batched(evaluate: "_Nodes", pid: np.ndarray, depth: np.ndarray, Z: np.ndarray, chunk: int) -> np.ndarray:
    """``evaluate`` of the nodes (``pid``, ``depth``, ``Z``) in batches of at most ``chunk`` nodes and
    :data:`BATCH_CELLS` cells (the same values: each node is scored on its own)."""
    step = _step(evaluate, chunk)
    if len(pid) <= step:
        return evaluate(pid, depth, Z.astype(np.float64, copy=False)) if len(pid) else np.zeros(0)
    return np.concatenate([evaluate(pid[i:i + step], depth[i:i + step], Z[i:i + step].astype(np.float64))
                           for i in range(0, len(pid), step)])


def _local_search(d: Dense, pid: np.ndarray, evaluate: _Nodes, rounds: int, budget: Optional[int] = None,
                  chunk: int = 20000) -> Tuple[np.ndarray, np.ndarray]:
    """At most ``rounds`` rounds of 1-flip best-improvement local search from the dot-product assignment
    (a variable is r_G when its document is higher in ``up`` than in ``down``); returns (assignments,
    values). A round scores all m neighbours of a row (m: its variables), so a row takes part in a round
    only while its evaluations stay within half of ``budget`` (the search keeps the rest; at k = 30, m <= 30,
    every row gets every round under the default budget); ``chunk``: the most nodes scored at once
    (:func:`_batched`)."""
    Z = np.zeros((len(pid), d.M), dtype=np.float64)
    for side, sign in ((d.va, 1), (d.vb, -1)):
        var = side[pid]
        r, c = np.nonzero(var >= 0)
        np.add.at(Z, (r, var[r, c]), sign * c)
    Z = (Z < 0).astype(np.float64)            # position in up < position in down
    full = d.m[pid]
    value = _batched(evaluate, pid, full, Z, chunk)
    active = np.arange(len(pid))
    spent = np.zeros(len(pid), dtype=np.int64)
    allowed = np.iinfo(np.int64).max if budget is None else int(budget) // 2
    for _ in range(rounds):
        active = active[spent[active] + full[active] <= allowed]
        if not len(active):
            break
        m = full[active]
        spent[active] += m
        node = np.repeat(active, m)
        var = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
        cand = np.empty(len(node))
        # the neighbours made and scored a batch at a time (a copy of Z per neighbour: nodes x M at once
        # would be the whole neighbourhood of every row)
        step = _step(evaluate, chunk)
        for i in range(0, len(node), step):
            nb, vb = node[i:i + step], var[i:i + step]
            Zc = Z[nb]
            Zc[np.arange(len(nb)), vb] = 1.0 - Zc[np.arange(len(nb)), vb]
            cand[i:i + step] = evaluate(pid[nb], full[nb], Zc)
        best = np.full(len(pid), -np.inf)
        np.maximum.at(best, node, cand)
        better = active[best[active] > value[active] + TOL]
        if not len(better):
            break
        pick = np.zeros(len(pid), dtype=np.int64)
        hit = cand > value[node] + TOL
        winner = cand >= best[node]
        sel = np.flatnonzero(hit & winner)
        sel = sel[np.unique(node[sel], return_index=True)[1]]
        pick[node[sel]] = var[sel]
        Z[better, pick[better]] = 1.0 - Z[better, pick[better]]
        value[better] = best[better]
        active = better
    return Z, value


def _err_slopes(v: np.ndarray) -> np.ndarray:
    """d ERR / d v_i for every position of every row: reach(i) (1/i - ERR of the rest after i)."""
    n, k = v.shape
    reach = np.ones_like(v)
    if k > 1:
        np.cumprod(1.0 - v[:, :-1], axis=1, out=reach[:, 1:])
    rest = np.zeros_like(v)                     # rest[:, i]: ERR from position i+2 on, reached with 1
    after = np.zeros(n)
    for i in range(k - 1, -1, -1):
        rest[:, i] = after
        after = v[:, i] / (i + 1.0) + (1.0 - v[:, i]) * after
    return reach * (1.0 / np.arange(1, k + 1) - rest)


def _fix_err(d: Dense, passes: int = 4) -> Tuple[Dense, Dense]:
    """First-order persistency for ERR: a variable whose marginal value d_up - d_down has one sign for
    every value of the other variables is fixed (r_G when never negative, 0 when never positive).

    The slope of ERR at a position is largest when every undecided value is 0 and smallest when every
    one is r_G (the reach before it and the ERR after it move in opposite directions), so
    slope_up(lo) - slope_down(hi) and slope_up(hi) - slope_down(lo) bound the marginal value.

    Returns the problem to search (variables renumbered, a common suffix merged into one variable) and
    the same problem before the suffix merge (each variable at one position per list, as
    :func:`_err_chain` needs; variable ids are the original ones, some unused)."""
    fa, fb, va, vb = d.fa.copy(), d.fb.copy(), d.va.copy(), d.vb.copy()
    # A common prefix (the same variable, or equal fixed values, at each of the first t positions of
    # both lists) multiplies what follows by the same reach in both lists: ERR(up) - ERR(down) =
    # reach(t) (rest(up) - rest(down)), with no variable of the prefix in the rest. In the direction
    # whose maximum is >= 0 the largest reach, every prefix variable at 0, is optimal (in the other
    # direction the value found is below 0 and MED takes the first). Without this, identical lists
    # would leave nothing to prune.
    same = ((va >= 0) & (va == vb)) | ((va < 0) & (vb < 0) & (fa == fb))
    prefix = np.cumprod(same, axis=1).astype(bool)
    va[prefix], vb[prefix] = -1, -1
    for _ in range(passes):
        q, pa = np.nonzero(va >= 0)
        if not len(q):
            break
        var = va[q, pa]
        qb, cb = np.nonzero(vb >= 0)
        order = np.lexsort((vb[qb, cb], qb))
        key_b = qb[order] * (va.shape[1] + 1) + vb[qb, cb][order]
        pb = cb[order][np.searchsorted(key_b, q * (va.shape[1] + 1) + var)]
        hi_a, hi_b = fa.copy(), fb.copy()
        hi_a[q, pa] = d.top
        hi_b[q, pb] = d.top
        slope_a_lo, slope_a_hi = _err_slopes(fa)[q, pa], _err_slopes(hi_a)[q, pa]
        slope_b_lo, slope_b_hi = _err_slopes(fb)[q, pb], _err_slopes(hi_b)[q, pb]
        one = slope_a_hi - slope_b_lo >= 0.0
        zero = ~one & (slope_a_lo - slope_b_hi <= 0.0)
        if not (one.any() or zero.any()):
            break
        fa[q[one], pa[one]] = d.top
        fb[q[one], pb[one]] = d.top
        done = one | zero
        va[q[done], pa[done]] = -1
        vb[q[done], pb[done]] = -1
    unmerged = Dense(fa.copy(), fb.copy(), va.copy(), vb.copy(), d.m, d.top)
    # A common suffix (the same variable or equal fixed values at each of the last positions of both
    # lists) enters both ERRs as reach x (the ERR of the suffix), with the same suffix ERR: the
    # difference is linear in it, so its maximum takes the suffix's smallest or largest ERR, i.e. all
    # its variables 0 or all r_G. They become one variable (the same id at every suffix position).
    same = ((va >= 0) & (va == vb)) | ((va < 0) & (vb < 0) & (fa == fb))
    suffix = np.cumprod(same[:, ::-1], axis=1)[:, ::-1].astype(bool) & (va >= 0)
    first = np.where(suffix, va, np.iinfo(np.int64).max).min(axis=1)
    va = np.where(suffix, first[:, None], va)
    vb = np.where(suffix, first[:, None], vb)
    # renumber the variables left, per query, keeping their order
    q, pa = np.nonzero(va >= 0)
    pairs = np.unique(q * (d.M + 1) + va[q, pa])
    q_s, old_s = pairs // (d.M + 1), pairs % (d.M + 1)
    m = np.bincount(q_s, minlength=va.shape[0])
    new = np.arange(len(q_s)) - np.repeat(np.cumsum(m) - m, m)
    lookup = np.full((va.shape[0], d.M + 1), -1, dtype=np.int64)
    lookup[q_s, old_s] = new
    va = np.where(va >= 0, lookup[np.arange(va.shape[0])[:, None], np.maximum(va, 0)], -1)
    vb = np.where(vb >= 0, lookup[np.arange(vb.shape[0])[:, None], np.maximum(vb, 0)], -1)
    return Dense(fa, fb, va, vb, m, d.top), unmerged


def _err_chain(d: Dense, row: int) -> Tuple[float, float]:
    """The chain bound of one row of an ERR problem whose variables each hold one position per list, and
    the value ERR(up) - ERR(down) of the bound's maximiser (a value attained).

    Take the variables in the order of their positions in ``down``; N_t is the number of ones among the
    first t. A position of ``down`` below exactly t variables is reached with (1 - r)^N_t times the reach
    of the fixed values above it, so ERR(down) is exact in N_t. A position i of ``up`` is charged at step
    t_i, the number of variables above it in ``up``: at least N_t - c of them are ones (c: the first t_i
    variables in down order that lie below i in up), and the term decreases with the ones above it, so it
    is at most its value with max(0, N_t - c) ones. A dynamic programme over (t, N_t) maximises this
    bound exactly; when both lists rank the variables in the same order, c = 0 everywhere and the bound
    is the maximum."""
    r = d.top
    fa, fb, va, vb = d.fa[row], d.fb[row], d.va[row], d.vb[row]
    k = len(fa)
    pa = np.flatnonzero(va >= 0)                     # 0-based up positions of the variables, in up order
    ids = va[pa]
    where_b = np.zeros(int(ids.max()) + 1, dtype=np.int64)
    ib = np.flatnonzero(vb >= 0)
    where_b[vb[ib]] = ib
    pb = where_b[ids]                                # their down positions
    m = len(pa)
    step = np.empty(m, dtype=np.int64)               # the position of each variable in down order
    step[np.argsort(pb, kind="stable")] = np.arange(m)
    disc = 1.0 / np.arange(1, k + 1)
    reach_a = np.concatenate([[1.0], np.cumprod(1.0 - fa)[:-1]])    # fixed values only: 0 at variables
    reach_b = np.concatenate([[1.0], np.cumprod(1.0 - fb)[:-1]])
    power = (1.0 - r) ** np.arange(m + 1)
    N = np.arange(m + 1)
    charge = np.zeros((m + 1, m + 1))
    up = np.flatnonzero(fa > 0)
    t_up = np.searchsorted(pa, up)
    c_up = ((pa[None, :] > up[:, None]) & (step[None, :] < t_up[:, None])).sum(axis=1)
    np.add.at(charge, t_up, (fa[up] * disc[up] * reach_a[up])[:, None]
              * power[np.maximum(N[None, :] - c_up[:, None], 0)])
    down = np.flatnonzero(fb > 0)
    np.add.at(charge, np.searchsorted(np.sort(pb), down), -(fb[down] * disc[down] * reach_b[down])[:, None]
              * power[None, :])
    by_step = np.argsort(step)                       # the variable (index into pa) at each step
    c_var = ((pa[None, :] > pa[:, None]) & (step[None, :] < step[:, None])).sum(axis=1)
    gain = ((r * disc[pa] * reach_a[pa])[:, None] * power[np.maximum(N[None, :] - c_var[:, None], 0)]
            - (r * disc[pb] * reach_b[pb])[:, None] * power[None, :])[by_step]
    best = np.full(m + 1, -np.inf)
    best[0] = 0.0
    taken = np.zeros((m, m), dtype=bool)
    for t in range(m):
        best += charge[t]
        cand = best[:t + 1] + gain[t, :t + 1]
        better = cand > best[1:t + 2]
        taken[t, :t + 1] = better
        best[1:t + 2] = np.where(better, cand, best[1:t + 2])
    best += charge[m]
    j = int(np.argmax(best))
    bound = float(best[j])
    a, b = fa.copy(), fb.copy()
    for t in range(m - 1, -1, -1):
        if j and taken[t, j - 1]:
            v = by_step[t]
            a[pa[v]] = b[pb[v]] = r
            j -= 1
    return bound, float(err_rows(a[None])[0] - err_rows(b[None])[0])


def _err_search(d: Dense, group: np.ndarray, lower: np.ndarray, budget: Optional[int], chunk: int = 20000,
                rounds: int = 8, batch: int = 16, rescue: int = 256) -> Tuple[np.ndarray, np.ndarray]:
    """Best-first branch and bound of ERR(up) - ERR(down) on every row of ``d`` (see module docstring).

    Rows of the same ``group`` (the two directions of a query) share the incumbent ``lower[group]``,
    which is raised in place to the best value attained (it starts at the floor: values below it need
    not be found). A row that has expanded ``rescue`` nodes gets, once, the chain bound of its root
    (:func:`_err_chain`), which caps the bounds of its open nodes, and its maximiser as a candidate.
    Returns per row the highest bound of the open nodes left when the row's budget ran out (-inf: the
    row finished) and the nodes expanded."""
    d, unmerged = _fix_err(d)
    R = d.fa.shape[0]
    cut = np.full(R, -np.inf)
    nodes = np.zeros(R, dtype=np.int64)
    none = d.m == 0
    np.maximum.at(lower, group[none], err_rows(d.fa[none]) - err_rows(d.fb[none]))
    rows = np.flatnonzero(~none)
    if not len(rows):
        return cut, nodes
    evaluate = _Nodes(d, err_rows)
    _, inc = _local_search(d, rows, evaluate, rounds, budget, chunk)
    np.maximum.at(lower, group[rows], inc)
    limit = np.iinfo(np.int64).max if budget is None else int(budget)
    # the open nodes: row, depth (variables decided), 0/1 values of the decided ones, the parent's bound
    P, D = rows, np.zeros(len(rows), dtype=np.int64)
    Z = np.zeros((len(rows), d.M), dtype=np.uint8)
    B = np.full(len(rows), np.inf)
    cap = np.full(R, np.inf)
    rescued = np.zeros(R, dtype=bool)
    while len(P):
        late = np.unique(P[(nodes[P] >= rescue) & ~rescued[P]])
        for row in late:
            cap[row], found = _err_chain(unmerged, row)
            lower[group[row]] = max(lower[group[row]], found)
        rescued[late] = True
        B = np.minimum(B, cap[P])
        keep = B > lower[group[P]] + TOL
        P, D, Z, B = P[keep], D[keep], Z[keep], B[keep]
        if not len(P):
            break
        order = np.lexsort((-B, P))              # per row, highest bound first (stable: per-row order kept)
        P, D, Z, B = P[order], D[order], Z[order], B[order]
        first = np.flatnonzero(np.r_[True, P[1:] != P[:-1]])
        size = np.diff(np.r_[first, len(P)])
        rank = np.arange(len(P)) - np.repeat(first, size)
        done = nodes[P]
        left = limit - done
        over = left <= 0                         # budget spent: the row stops, its open bounds are kept
        np.maximum.at(cut, P[over], B[over])
        take = rank < np.minimum(left, np.maximum(batch, done // 2))
        sel = take & ~over
        rest = ~take & ~over
        Ps, Ds, Zs = P[sel], D[sel], Z[sel]
        ub = _batched(evaluate, Ps, Ds, Zs, chunk)
        nodes += np.bincount(Ps, minlength=R)
        leaf = Ds >= d.m[Ps]
        np.maximum.at(lower, group[Ps[leaf]], ub[leaf])
        go = np.flatnonzero(~leaf & (ub > lower[group[Ps]] + TOL))
        Z1 = Zs[go].copy()
        Z1[np.arange(len(go)), Ds[go]] = 1
        P = np.concatenate([P[rest], Ps[go], Ps[go]])
        D = np.concatenate([D[rest], Ds[go] + 1, Ds[go] + 1])
        Z = np.concatenate([Z[rest], Zs[go], Z1])
        B = np.concatenate([B[rest], ub[go], ub[go]])
    return cut, nodes


def med_err(ab: Dense, ba: Dense, budget: Optional[int]) -> Searched:
    """max(0, max ERR(A) - ERR(B), max ERR(B) - ERR(A)) per query: ``ab`` and ``ba`` are the two
    directions (A up, B up) of every query; at most ``budget`` nodes per query and direction."""
    n = ab.fa.shape[0]
    lower = np.zeros(n)
    cut, nodes = _err_search(stack_directions(ab, ba), np.tile(np.arange(n), 2), lower, budget)
    return finish_search(lower, cut.reshape(2, n).T, nodes.reshape(2, n).T)


def max_err(d: Dense, budget: Optional[int] = None) -> np.ndarray:
    """max ERR(up) - ERR(down) per query of one direction (an upper bound where ``budget`` ran out)."""
    n = d.fa.shape[0]
    lower = np.full(n, -np.inf)
    cut, _ = _err_search(d, np.arange(n), lower, budget)
    return np.maximum(lower, cut)
