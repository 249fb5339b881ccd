"""Kernels of the MED family (papers/003, Tan & Clarke, TKDE 2015).

MED(A, B) = max over relevance assignments of |S(A) - S(B)|. The maximum of |.| is the larger of the
maxima of S(A) - S(B) and S(B) - S(A); each is a *direction*: the list whose score is pushed up is
``up``, the other ``down``. In a direction, a document is

* predetermined (judged): its value is fixed;
* free (in one list only, or a filler position after a list's end up to the depth k): it gets the top
  value r_G in ``up`` and 0 in ``down`` (every measure here is non-decreasing in each value);
* bound (unjudged, in both lists): one variable shared by both lists.

Dot-product measures (P, RBP, nDCG: S = C . D / N with a non-increasing discount D) are solved in
closed form per row (section III): a bound document is worth r_G max(0, d_up - d_down).

ERR and AP need a search over the bound variables. Both measures are affine in each single value
(ERR is multilinear, AP quadratic in 0/1 values), so every variable takes 0 or r_G at a maximum, and
both searches below return the exact maximum (up to a tolerance of 1e-12 in the pruning test):

* AP (eq. 19) is a quadratic 0-1 problem  c + l.z + sum_{u<v} Q_uv z_u z_v. :func:`max_ap` fixes
  variables whose marginal value has one sign whatever the others are (first-order persistency: if
  l_v + sum_u min(0, Q_uv) >= 0, some maximum has z_v = 1; if l_v + sum_u max(0, Q_uv) <= 0, some
  maximum has z_v = 0), repeats until nothing changes, then branches, bounding each node by
  c + sum_v max(0, l_v + 1/2 sum_u max(0, Q_uv)) (each pair's positive part split evenly between its
  two variables), with an incumbent from 1-flip local search.
* ERR (eq. 23) is solved for all query pairs at once by :func:`max_err`. First, variables whose
  marginal value has one sign whatever the others are are fixed (:func:`_fix_err`: the slope of ERR at
  a position is largest with every undecided value 0 and smallest with every one r_G). Then a
  depth-first branch and bound runs over the remaining variables in order of their higher position,
  every node bounded by the decoupled relaxation (undecided variables at r_G in ``up`` and 0 in
  ``down``; ERR is increasing in every value, so this is an upper bound, and it is exact at the
  leaves), with incumbents from 1-flip local search. This is exact, where the paper's search over at
  most 5 relevant bound documents is approximate with the error bound of its eq. 24.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

__all__ = ["Side", "Dense", "dot_direction", "dense", "err_rows", "ap_rows", "max_err", "max_ap", "ap_qubo",
           "TOL"]

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
    return (v * reach) @ (1.0 / np.arange(1, v.shape[1] + 1))


def ap_rows(v: np.ndarray) -> np.ndarray:
    """AP with R = k (eq. 19) of each row of a (rows x k) matrix of 0/1 values."""
    k = v.shape[1]
    if k == 0:
        return np.zeros(v.shape[0])
    return (v * np.cumsum(v, axis=1)) @ (1.0 / np.arange(1, k + 1)) / k


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


def _fix_err(d: Dense, passes: int = 4) -> Dense:
    """First-order persistency for ERR: a variable whose marginal value d_up - d_down has one sign for
    every value of the other variables is fixed (r_G when never negative, 0 when never positive).

    The slope of ERR at a position is largest when every undecided value is 0 and smallest when every
    one is r_G (the reach before it and the ERR after it move in opposite directions), so
    slope_up(lo) - slope_down(hi) and slope_up(hi) - slope_down(lo) bound the marginal value."""
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
    return Dense(fa, fb, va, vb, m, d.top)


def max_err(d: Dense, chunk: int = 20000, rounds: int = 8) -> np.ndarray:
    """Exact max of ERR(up) - ERR(down) for every query of a direction (see module docstring)."""
    d = _fix_err(d)
    n = d.fa.shape[0]
    out = np.empty(n)
    none = d.m == 0
    out[none] = err_rows(d.fa[none]) - err_rows(d.fb[none])
    pid = np.flatnonzero(~none)
    if not len(pid):
        return out
    M = d.M
    evaluate = _Nodes(d, err_rows)
    _, inc_values = _local_search(d, pid, evaluate, rounds)
    inc = np.full(n, -np.inf)
    inc[pid] = inc_values
    stack: List[tuple] = [(pid, np.zeros(len(pid), dtype=np.int64), np.zeros((len(pid), M)))]
    while stack:
        p, depth, Z = stack.pop()
        if len(p) > chunk:
            stack.append((p[chunk:], depth[chunk:], Z[chunk:]))
            p, depth, Z = p[:chunk], depth[:chunk], Z[:chunk]
        ub = evaluate(p, depth, Z)
        leaf = depth >= d.m[p]
        np.maximum.at(inc, p[leaf], ub[leaf])
        go = ~leaf & (ub > inc[p] + TOL)
        if not go.any():
            continue
        p, depth, Z = p[go], depth[go], Z[go]
        Z1 = Z.copy()
        Z1[np.arange(len(p)), depth] = 1.0
        stack.append((np.concatenate([p, p]), np.concatenate([depth, depth]) + 1, np.concatenate([Z, Z1])))
    out[pid] = inc[pid]
    return out


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


class _APSearch:
    def __init__(self, c: float, l: np.ndarray, Q: np.ndarray):
        self.c, self.l, self.Q = c, l, Q
        self.nodes = 0
        self.best = -np.inf

    def value(self, z: np.ndarray) -> float:
        return float(self.c + self.l @ z + 0.5 * z @ self.Q @ z)

    def local(self, z: np.ndarray) -> float:
        z = z.copy()
        while True:
            gain = self.l + self.Q @ z
            delta = np.where(z > 0, -gain, gain)
            v = int(np.argmax(delta))
            if delta[v] <= TOL:
                return self.value(z)
            z[v] = 1.0 - z[v]

    def run(self) -> float:
        if len(self.l) == 0:
            return float(self.c)
        self.best = self.local((self.l > 0).astype(np.float64))
        self.search(float(self.c), self.l.copy(), np.ones(len(self.l), dtype=bool))
        return self.best

    def search(self, c: float, l: np.ndarray, free: np.ndarray) -> None:
        self.nodes += 1
        Q = self.Q
        while True:                                   # first-order persistency, to a fixed point
            idx = np.flatnonzero(free)
            if not len(idx):
                self.best = max(self.best, c)
                return
            Qf = Q[np.ix_(idx, idx)]
            pos = np.maximum(Qf, 0.0).sum(axis=1)
            neg = np.minimum(Qf, 0.0).sum(axis=1)
            lf = l[idx]
            one = lf + neg >= 0.0
            zero = ~one & (lf + pos <= 0.0)
            if not (one.any() or zero.any()):
                break
            for v in idx[one]:
                c += l[v]
                l = l + Q[v]
            free[idx[one | zero]] = False
        score = lf + 0.5 * pos
        if c + np.maximum(score, 0.0).sum() <= self.best + TOL:
            return
        j = int(np.argmax(np.abs(score)))
        v = idx[j]
        rest = free.copy()
        rest[v] = False
        for take in ((True, False) if score[j] > 0 else (False, True)):
            if take:
                self.search(c + l[v], l + Q[v], rest.copy())
            else:
                self.search(c, l, rest.copy())


def max_ap(d: Dense) -> Tuple[np.ndarray, np.ndarray]:
    """Exact max of AP(up) - AP(down) per query of a direction, and the search nodes per query."""
    n = d.fa.shape[0]
    out = ap_rows(d.fa) - ap_rows(d.fb)
    nodes = np.zeros(n, dtype=np.int64)
    for q in np.flatnonzero(d.m > 0):
        va, vb = d.va[q], d.vb[q]
        m = int(d.m[q])
        pa = np.empty(m, dtype=np.int64)
        pb = np.empty(m, dtype=np.int64)
        ia, ib = np.flatnonzero(va >= 0), np.flatnonzero(vb >= 0)
        pa[va[ia]] = ia + 1
        pb[vb[ib]] = ib + 1
        search = _APSearch(*ap_qubo(d.fa[q], d.fb[q], pa, pb))
        out[q] = search.run()
        nodes[q] = search.nodes
    return out, nodes
