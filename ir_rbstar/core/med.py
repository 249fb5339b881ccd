"""Kernels of the MED family (maximized effectiveness difference: Tan & Clarke, *A Family of Rank
Similarity Measures based on Maximized Effectiveness Difference*, IEEE TKDE 2015).

MED(A, B) = max over relevance assignments of |S(A) - S(B)|. The maximum of |.| is the larger of the
maxima of S(A) - S(B) and S(B) - S(A); each is a *direction*: the list whose score is pushed up is
``up``, the other ``down``. In a direction, a document is

* predetermined (judged): its value is fixed;
* free (in one list only, or a filler position after a list's end up to the depth k): it gets the top
  value r_G in ``up`` and 0 in ``down`` (every measure here is non-decreasing in each value);
* bound (unjudged, in both lists): one variable shared by both lists.

Dot-product measures (P, RBP, nDCG: S = C . D / N with a non-increasing discount D) are solved in
closed form per row (section III of the paper): a bound document is worth r_G max(0, d_up - d_down).

ERR and AP need a search over the bound variables. Both measures are affine in each single value
(ERR is multilinear, AP quadratic in 0/1 values), so every variable takes 0 or r_G at a maximum. Both
searches are branch and bound, best first (the open node with the highest bound is expanded next),
over the two directions of a query pair at once: they share the incumbent (the best value attained
by either direction, at least 0, since MED is the larger of the two and never below 0), so a direction
whose bounds fall below the other direction's maximum is closed without being solved. A search stops
when no open node's bound exceeds the incumbent by more than ``TOL`` = 1e-12: the value is then the
exact maximum (within TOL), where the paper approximates AP by tabu search and ERR by a search over
at most 5 relevant bound documents (eq. 24).

**Budget.** Each direction of each query may expand at most ``budget`` nodes. A search that reaches it
stops and returns a certified upper bound instead: the larger of the incumbent and the bound of every
open node, never below the maximum. Nodes are counted per query and direction and each query's search
depends on its own data only, so a value (exact or bound) never depends on the other queries of a call.

* AP (eq. 19) is a quadratic 0-1 problem  c + l.z + sum_{u<v} Q_uv z_u z_v (:func:`ap_qubo`). At each
  node, variables whose marginal value has one sign whatever the others are, are fixed (first-order
  persistency, Boros & Hammer, *Pseudo-Boolean optimization*, Discrete Applied Mathematics 2002: if
  l_v + sum_u min(0, Q_uv) >= 0, some maximum has z_v = 1; if l_v + sum_u max(0, Q_uv) <= 0, some maximum
  has z_v = 0), to a fixed point. Each node is bounded by the smaller of two upper bounds:

  - the roof bound c + sum_v max(0, l_v + 1/2 sum_u max(0, Q_uv)) (each pair's positive part split
    evenly between its two variables);
  - the *chain bound*: with the variables in the order of their positions in ``down``,
    Q_uv = (1/max(pa_u, pa_v) - 1/max(pb_u, pb_v)) / k is at most w_v = max over the u before v of Q_uv,
    so the objective is at most c + sum_v z_v (l_v + w_v N_v), N_v the number of ones before v, whose
    maximum a dynamic programme over (variable, N_v) finds exactly in O(m^2). Pairs in the same order in
    both lists have Q_uv = (1/pa_v - 1/pb_v)/k, which depends on v alone, so when both lists rank the
    shared documents in the same order (a run and the same run with documents inserted, say) the bound
    is the exact maximum: the root closes the search.

  The chain bound's maximiser, improved by 1-flip local search, is a candidate for the incumbent at
  every node. Branching is on the variable that the chain bound misjudges most (or, when the roof bound
  is the tighter one, on the variable whose roof score is largest in magnitude).
* ERR (eq. 23) is solved for all queries at once, vectorised. First, variables whose marginal value
  has one sign whatever the others are, are fixed (:func:`_fix_err`: the slope of ERR at a position is
  largest with every undecided value 0 and smallest with every one r_G). Then the branch and bound
  decides the remaining variables in order of their higher position, every node bounded by the
  decoupled relaxation (undecided values r_G in ``up`` and 0 in ``down``; ERR is increasing in every
  value, so this is an upper bound, and it is exact at the leaves), with incumbents from 1-flip local
  search. Each round expands, per query and direction, its best open nodes (a number that grows with
  the nodes it has expanded, so a hard query needs few rounds).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

__all__ = ["Side", "Dense", "Searched", "dot_direction", "dense", "err_rows", "ap_rows", "med_err", "med_ap",
           "max_err", "max_ap", "max_qubo", "ap_qubo", "TOL"]

TOL = 1e-12

@dataclass
class Side:
    """One list (A or B) of every query: flat rows, contiguous per query, in rank order."""

    seg: np.ndarray       # query of each row
    pos: np.ndarray       # 1-based rank
    value: np.ndarray     # the judged value (gain) of the row's document; NaN when unjudged
    partner: np.ndarray   # 1-based rank of the same document in the other list (0: not there)
    lens: np.ndarray      # rows per query

    @property
    def judged(self) -> np.ndarray:
        return ~np.isnan(self.value)

    @property
    def bound(self) -> np.ndarray:
        return (self.partner > 0) & np.isnan(self.value)


def dot_direction(up: Side, down: Side, disc, tail: np.ndarray, top: float, n: int) -> np.ndarray:
    """max (C_up . D - C_down . D) per query (not normalised), for a discount ``disc(rank)``.

    ``tail`` is, per query, the sum of the discounts after ``up``'s last row (free filler positions)."""
    d_up = disc(up.pos)
    judged, bound = up.judged, up.bound
    gain = np.where(judged, np.nan_to_num(up.value) * d_up, top * d_up)
    gain[bound] = top * np.maximum(0.0, d_up[bound] - disc(up.partner[bound]))
    dj = down.judged
    lost = np.bincount(down.seg[dj], weights=down.value[dj] * disc(down.pos[dj]), minlength=n)
    return np.bincount(up.seg, weights=gain, minlength=n) + top * tail - lost


@dataclass
class Dense:
    """One direction of every query pair as dense (query x depth) matrices (position i at column i-1)."""

    fa: np.ndarray   # values of ``up``: judged value, r_G for free and filler positions, 0 at bound ones
    fb: np.ndarray   # values of ``down``: judged value, 0 otherwise
    va: np.ndarray   # variable of each ``up`` position (-1: none)
    vb: np.ndarray   # variable of each ``down`` position (-1: none)
    m: np.ndarray    # number of variables per query
    top: float

    @property
    def M(self) -> int:
        """The largest number of variables of a query."""
        return int(self.m.max(initial=0))

    def gather_index(self, v: np.ndarray) -> np.ndarray:
        """``va`` / ``vb`` with -1 replaced by M: column M of an assignment matrix holds 0."""
        return np.where(v >= 0, v, self.M)


def dense(up: Side, down: Side, n: int, k: int, top: float) -> Dense:
    """Dense matrices of a direction; variables are numbered per query by their higher position."""
    fa = np.full((n, k), top)
    fb = np.zeros((n, k))
    judged, bound = up.judged, up.bound
    fa[up.seg, up.pos - 1] = np.where(judged, np.nan_to_num(up.value), np.where(bound, 0.0, top))
    dj = down.judged
    fb[down.seg[dj], down.pos[dj] - 1] = down.value[dj]
    va = np.full((n, k), -1, dtype=np.int64)
    vb = np.full((n, k), -1, dtype=np.int64)
    rows = np.flatnonzero(bound)
    seg, pa, pb = up.seg[rows], up.pos[rows], up.partner[rows]
    order = np.lexsort((np.maximum(pa, pb), np.minimum(pa, pb), seg))
    seg, pa, pb = seg[order], pa[order], pb[order]
    m = np.bincount(seg, minlength=n)
    var = np.arange(len(seg)) - np.repeat(np.cumsum(m) - m, m)
    va[seg, pa - 1] = var
    vb[seg, pb - 1] = var
    return Dense(fa, fb, va, vb, m, top)


def err_rows(v: np.ndarray) -> np.ndarray:
    """ERR (eq. 23) of each row of a (rows x depth) matrix of values in [0, 1]."""
    if v.shape[1] == 0:
        return np.zeros(v.shape[0])
    reach = np.ones_like(v)
    np.cumprod(1.0 - v[:, :-1], axis=1, out=reach[:, 1:])
    # a sum along each row, not a matrix product: BLAS blocks rows, so a row's rounding would depend
    # on how many rows (queries, search nodes) are evaluated with it
    reach *= v
    reach /= np.arange(1, v.shape[1] + 1)
    return reach.sum(axis=1)


def ap_rows(v: np.ndarray) -> np.ndarray:
    """AP with R = k (eq. 19) of each row of a (rows x k) matrix of 0/1 values."""
    k = v.shape[1]
    if k == 0:
        return np.zeros(v.shape[0])
    terms = np.cumsum(v, axis=1)
    terms *= v
    terms /= np.arange(1, k + 1)                # summed row by row (see err_rows), not by BLAS
    return terms.sum(axis=1) / k


# ----------------------------------------------------------------------------------------------- ERR

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
        a = d.fa[pid] + np.take_along_axis(values, self.ia[pid], axis=1)
        up[undecided] = 0.0
        b = d.fb[pid] + np.take_along_axis(values, self.ib[pid], axis=1)
        both = self.score(np.concatenate([a, b]))
        return both[:len(pid)] - both[len(pid):]


def _local_search(d: Dense, pid: np.ndarray, evaluate: _Nodes, rounds: int) -> Tuple[np.ndarray, np.ndarray]:
    """At most ``rounds`` rounds of 1-flip best-improvement local search from the dot-product assignment
    (a variable is r_G when its document is higher in ``up`` than in ``down``); returns (assignments,
    values)."""
    Z = np.zeros((len(pid), d.M), dtype=np.float64)
    for side, sign in ((d.va, 1), (d.vb, -1)):
        var = side[pid]
        r, c = np.nonzero(var >= 0)
        np.add.at(Z, (r, var[r, c]), sign * c)
    Z = (Z < 0).astype(np.float64)            # position in up < position in down
    full = d.m[pid]
    value = evaluate(pid, full, Z)
    active = np.arange(len(pid))
    for _ in range(rounds):
        if not len(active):
            break
        m = full[active]
        node = np.repeat(active, m)
        var = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
        Zc = Z[node]
        Zc[np.arange(len(node)), var] = 1.0 - Zc[np.arange(len(node)), var]
        cand = evaluate(pid[node], full[node], Zc)
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



@dataclass
class Searched:
    """The result of searching both directions of every query pair (one row per query)."""

    value: np.ndarray    # the maximum (at least 0), or a certified upper bound of it where not ``exact``
    lower: np.ndarray    # a value attained by some assignment (at least 0): value - lower is the uncertainty
    exact: np.ndarray    # True where the search finished within its budget (value == lower)
    nodes: np.ndarray    # (queries x 2) nodes expanded in the directions (up = A, up = B)


def _stack(ab: Dense, ba: Dense) -> Dense:
    """Both directions of every query as one Dense: rows 0..n-1 are ``ab``, rows n..2n-1 ``ba``."""
    return Dense(np.vstack([ab.fa, ba.fa]), np.vstack([ab.fb, ba.fb]), np.vstack([ab.va, ba.va]),
                 np.vstack([ab.vb, ba.vb]), np.concatenate([ab.m, ba.m]), ab.top)


def _finish(lower: np.ndarray, cut: np.ndarray, nodes: np.ndarray) -> Searched:
    """``cut``: per query and direction (queries x 2), the highest bound of the open nodes left when the
    budget stopped the direction (-inf: finished)."""
    cut = cut.max(axis=1)
    exact = ~(cut > lower + TOL)
    return Searched(np.where(exact, lower, np.maximum(lower, cut)), lower, exact, nodes)


# ----------------------------------------------------------------------------------------------- ERR

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
    _, inc = _local_search(d, rows, evaluate, rounds)
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
        ub = np.concatenate([evaluate(Ps[i:i + chunk], Ds[i:i + chunk], Zs[i:i + chunk].astype(np.float64))
                             for i in range(0, len(Ps), chunk)]) if len(Ps) else np.zeros(0)
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
    cut, nodes = _err_search(_stack(ab, ba), np.tile(np.arange(n), 2), lower, budget)
    return _finish(lower, cut.reshape(2, n).T, nodes.reshape(2, n).T)


def max_err(d: Dense, budget: Optional[int] = None) -> np.ndarray:
    """max ERR(up) - ERR(down) per query of one direction (an upper bound where ``budget`` ran out)."""
    n = d.fa.shape[0]
    lower = np.full(n, -np.inf)
    cut, _ = _err_search(d, np.arange(n), lower, budget)
    return np.maximum(lower, cut)


# ------------------------------------------------------------------------------------------------ AP

def ap_qubo(fa: np.ndarray, fb: np.ndarray, pa: np.ndarray, pb: np.ndarray):
    """S(up) - S(down) of AP with R = k (eq. 20) as c + l.z + sum_{u<v} Q_uv z_u z_v.

    ``fa``, ``fb``: the fixed 0/1 values of one query's two lists (length k, 0 at bound positions);
    ``pa``, ``pb``: 1-based positions of the variables in ``up`` and ``down``."""
    k = len(fa)
    ranks = np.arange(1, k + 1, dtype=np.float64)
    c = (ap_rows(fa[None]) - ap_rows(fb[None]))[0]

    def pairs_with_fixed(f, pos):
        # sum over fixed ones j != pos of 1 / max(pos, j): ones at or above pos count 1/pos each
        above = np.cumsum(f)[pos - 1]
        after = np.concatenate([np.cumsum((f / ranks)[::-1])[::-1], [0.0]])[pos]
        return above / pos + after

    pa_f, pb_f = pa.astype(np.float64), pb.astype(np.float64)
    l = (1.0 / pa_f + pairs_with_fixed(fa, pa) - 1.0 / pb_f - pairs_with_fixed(fb, pb)) / k
    Q = (1.0 / np.maximum.outer(pa_f, pa_f) - 1.0 / np.maximum.outer(pb_f, pb_f)) / k
    np.fill_diagonal(Q, 0.0)
    return c, l, Q


def _chain(l: np.ndarray, w: np.ndarray) -> Tuple[float, np.ndarray]:
    """max over z in {0,1}^F of sum_t z_t (l_t + w_t N_t), N_t = sum_{s<t} z_s, and a maximiser (dynamic
    programme over the number of ones so far)."""
    F = len(l)
    best = np.full(F + 1, -np.inf)
    best[0] = 0.0
    taken = np.zeros((F, F), dtype=bool)         # taken[t, j]: the best way to j + 1 ones after t takes t
    count = np.arange(F, dtype=np.float64)
    for t in range(F):
        cand = best[:t + 1] + (l[t] + w[t] * count[:t + 1])
        better = cand > best[1:t + 2]
        taken[t, :t + 1] = better
        best[1:t + 2] = np.where(better, cand, best[1:t + 2])
    j = int(np.argmax(best))
    value = float(best[j])
    z = np.zeros(F)
    for t in range(F - 1, -1, -1):
        if j and taken[t, j - 1]:
            z[t] = 1.0
            j -= 1
    return value, z


class _QUBO:
    """One direction of one query: max c + l.z + sum_{u<v} Q_uv z_u z_v over z in {0,1}^m, with the node
    operations of the branch and bound (a node: the constant and linear terms after the variables fixed
    so far, and the mask of the free variables)."""

    def __init__(self, c: float, l: np.ndarray, Q: np.ndarray, order: Optional[np.ndarray] = None):
        self.c, self.l, self.Q = float(c), np.asarray(l, dtype=np.float64), Q
        self.m = len(self.l)
        self.order = np.arange(self.m) if order is None else np.asarray(order)   # the chain bound's order
        self.Qpos, self.Qneg = np.maximum(Q, 0.0), np.minimum(Q, 0.0)

    def climb(self, c: float, l: np.ndarray, Q: np.ndarray, z: np.ndarray) -> float:
        """1-flip best-improvement local search from z (on the free variables: ``l``, ``Q`` restricted)."""
        z = z.copy()
        while True:
            gain = l + Q @ z
            delta = np.where(z > 0, -gain, gain)
            v = int(np.argmax(delta))
            if delta[v] <= TOL:
                return float(c + l @ z + 0.5 * z @ Q @ z)
            z[v] = 1.0 - z[v]

    def start(self) -> float:
        """A value attained: local search from every variable with a positive linear term at 1."""
        return self.climb(self.c, self.l, self.Q, (self.l > 0).astype(np.float64))

    def expand(self, c: float, l: np.ndarray, free: np.ndarray, lower: float):
        """Process a node: persistency, bounds, a candidate. Returns (a value attained or -inf, the node's
        bound, children as (c, l, free)); no children when the node is solved or its bound is at most
        ``lower`` + TOL."""
        Q = self.Q
        free = free.copy()
        while True:                                   # first-order persistency, to a fixed point
            idx = np.flatnonzero(free)
            if not len(idx):
                return c, c, []
            block = np.ix_(idx, idx)
            pos = self.Qpos[block].sum(axis=1)
            neg = self.Qneg[block].sum(axis=1)
            lf = l[idx]
            one = lf + neg >= 0.0
            zero = ~one & (lf + pos <= 0.0)
            if not (one.any() or zero.any()):
                break
            ones = idx[one]
            if len(ones):                             # some maximum has every one of them at 1 together
                c += float(l[ones].sum() + 0.5 * Q[np.ix_(ones, ones)].sum())
                l = l + Q[ones].sum(axis=0)
            free[idx[one | zero]] = False
        score = lf + 0.5 * pos
        roof = c + float(np.maximum(score, 0.0).sum())
        if roof <= lower + TOL:
            return -np.inf, roof, []
        chain = self.order[free[self.order]]          # the free variables in the chain order
        Qc = Q[np.ix_(chain, chain)]
        F = len(chain)
        before = np.tri(F, k=-1, dtype=bool)
        w = np.where(before, Qc, -np.inf).max(axis=1) if F > 1 else np.zeros(F)
        w[0] = 0.0
        dp, z = _chain(l[chain], w)
        bound = min(roof, c + dp)
        found = self.climb(c, l[chain], Qc, z)
        if bound <= max(lower, found) + TOL:
            return found, bound, []
        if c + dp < roof:
            # the variable whose pairs with the other ones of z the chain bound overrates most
            gap = np.where(before, w[:, None], w[None, :]) - Qc
            np.fill_diagonal(gap, 0.0)
            over = (gap @ z) * z
            j = int(np.argmax(over))
            v = int(chain[j]) if over[j] > 0.0 else int(idx[np.argmax(np.abs(score))])
        else:
            v = int(idx[np.argmax(np.abs(score))])
        rest = free.copy()
        rest[v] = False
        return found, bound, [(c + float(l[v]), l + Q[v], rest), (c, l, rest)]


def _best_first(problems: List[_QUBO], lower: float, budget: Optional[int]):
    """Branch and bound over the directions of one query at once, sharing the incumbent ``lower`` (a
    value attained, or the floor). Returns (incumbent, per direction: highest open bound left when its
    budget ran out or -inf, nodes expanded)."""
    cut = [-np.inf] * len(problems)
    nodes = [0] * len(problems)
    heap: list = []
    seq = 0
    for i, p in enumerate(problems):
        if p.m == 0:
            lower = max(lower, p.c)
            continue
        lower = max(lower, p.start())
        heap.append((-np.inf, seq, i, p.c, p.l, np.ones(p.m, dtype=bool)))
        seq += 1
    while heap:
        neg, _, i, c, l, free = heapq.heappop(heap)
        if -neg <= lower + TOL:                       # every open node's bound is at most this one's
            break
        if budget is not None and nodes[i] >= budget:
            cut[i] = max(cut[i], -neg)
            continue
        nodes[i] += 1
        found, bound, children = problems[i].expand(c, l, free, lower)
        lower = max(lower, found)
        for child in children:
            heapq.heappush(heap, (-bound, seq, i) + child)
            seq += 1
    return lower, cut, nodes


def max_qubo(c: float, l: np.ndarray, Q: np.ndarray, order: Optional[np.ndarray] = None,
             budget: Optional[int] = None) -> Tuple[float, int, bool]:
    """max c + l.z + sum_{u<v} Q_uv z_u z_v over z in {0,1}^m for a symmetric Q with a zero diagonal, by
    the AP search (``order``: the chain bound's variable order). Returns (value, nodes, exact); the value
    is an upper bound of the maximum where not exact."""
    lower, cut, nodes = _best_first([_QUBO(c, l, Q, order)], -np.inf, budget)
    return max(lower, cut[0]), nodes[0], not cut[0] > lower + TOL


def _ap_problem(d: Dense, q: int) -> _QUBO:
    va, vb = d.va[q], d.vb[q]
    m = int(d.m[q])
    pa = np.empty(m, dtype=np.int64)
    pb = np.empty(m, dtype=np.int64)
    ia, ib = np.flatnonzero(va >= 0), np.flatnonzero(vb >= 0)
    pa[va[ia]] = ia + 1
    pb[vb[ib]] = ib + 1
    c, l, Q = ap_qubo(d.fa[q], d.fb[q], pa, pb)
    return _QUBO(c, l, Q, order=np.argsort(pb, kind="stable"))


def med_ap(ab: Dense, ba: Dense, budget: Optional[int]) -> Searched:
    """max(0, max AP(A) - AP(B), max AP(B) - AP(A)) per query (R = k, eq. 19): ``ab`` and ``ba`` are the
    two directions (A up, B up) of every query; at most ``budget`` nodes per query and direction."""
    n = ab.fa.shape[0]
    lower = np.maximum(np.maximum(ap_rows(ab.fa) - ap_rows(ab.fb), ap_rows(ba.fa) - ap_rows(ba.fb)), 0.0)
    cut = np.full((n, 2), -np.inf)
    nodes = np.zeros((n, 2), dtype=np.int64)
    for q in np.flatnonzero((ab.m > 0) | (ba.m > 0)):
        lower[q], cut[q], nodes[q] = _best_first([_ap_problem(ab, q), _ap_problem(ba, q)], lower[q], budget)
    return _finish(lower, cut, nodes)


def max_ap(d: Dense, budget: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """max AP(up) - AP(down) per query of one direction (an upper bound where ``budget`` ran out), and
    the nodes expanded per query."""
    out = ap_rows(d.fa) - ap_rows(d.fb)
    nodes = np.zeros(d.fa.shape[0], dtype=np.int64)
    for q in np.flatnonzero(d.m > 0):
        lower, cut, count = _best_first([_ap_problem(d, q)], -np.inf, budget)
        out[q], nodes[q] = max(lower, cut[0]), count[0]
    return out, nodes
