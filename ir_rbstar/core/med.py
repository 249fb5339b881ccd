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
* ERR (eq. 23) is solved for all query pairs at once by :func:`max_err`: depth-first branch and bound
  over the bound variables in order of their higher position, every node bounded by the decoupled
  relaxation (undecided variables at r_G in ``up`` and 0 in ``down``; ERR is increasing in every value,
  so this is an upper bound, and it is exact at the leaves), incumbents from 1-flip local search.
  This is exact, where the paper's search over at most 5 relevant bound documents is approximate
  with the error bound of its eq. 24.
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

def _fill(d: Dense, pid: np.ndarray, depth: np.ndarray, Z: np.ndarray, free_up: float, free_down: float):
    """Values of ``up`` and ``down`` for nodes: variables below ``depth`` as in Z (0/1 times r_G), the
    undecided ones ``free_up`` / ``free_down``."""
    out = []
    for f, v, fill in ((d.fa, d.va, free_up), (d.fb, d.vb, free_down)):
        var = v[pid]
        has = var >= 0
        idx = np.where(has, var, 0)
        z = np.take_along_axis(Z, idx, axis=1) * d.top if Z.shape[1] else np.zeros(var.shape)
        out.append(np.where(has, np.where(idx < depth[:, None], z, fill), f[pid]))
    return out


def _evaluate(d: Dense, pid, depth, Z, score) -> np.ndarray:
    a, b = _fill(d, pid, depth, Z, d.top, 0.0)
    return score(a) - score(b)


def _local_search(d: Dense, pid: np.ndarray, score) -> Tuple[np.ndarray, np.ndarray]:
    """1-flip best-improvement local search from the dot-product assignment (a variable is r_G when
    its document is higher in ``up`` than in ``down``); returns (assignments, values)."""
    M = d.va.shape[1]
    Z = np.zeros((len(pid), M), dtype=np.float64)
    for side, sign in ((d.va, 1), (d.vb, -1)):
        var = side[pid]
        r, c = np.nonzero(var >= 0)
        np.add.at(Z, (r, var[r, c]), sign * c)
    Z = (Z < 0).astype(np.float64)            # position in up < position in down
    full = d.m[pid]
    value = _evaluate(d, pid, full, Z, score)
    active = np.arange(len(pid))
    while len(active):
        m = full[active]
        node = np.repeat(active, m)
        var = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
        Zc = Z[node]
        Zc[np.arange(len(node)), var] = 1.0 - Zc[np.arange(len(node)), var]
        cand = _evaluate(d, pid[node], full[node], Zc, score)
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


def max_err(d: Dense, chunk: int = 20000) -> np.ndarray:
    """Exact max of ERR(up) - ERR(down) for every query of a direction (see module docstring)."""
    n = d.fa.shape[0]
    out = np.empty(n)
    none = d.m == 0
    out[none] = err_rows(d.fa[none]) - err_rows(d.fb[none])
    pid = np.flatnonzero(~none)
    if not len(pid):
        return out
    M = int(d.m.max())
    _, inc_values = _local_search(d, pid, err_rows)
    inc = np.full(n, -np.inf)
    inc[pid] = inc_values
    stack: List[tuple] = [(pid, np.zeros(len(pid), dtype=np.int64), np.zeros((len(pid), M)))]
    while stack:
        p, depth, Z = stack.pop()
        if len(p) > chunk:
            stack.append((p[chunk:], depth[chunk:], Z[chunk:]))
            p, depth, Z = p[:chunk], depth[:chunk], Z[:chunk]
        ub = _evaluate(d, p, depth, Z, err_rows)
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
