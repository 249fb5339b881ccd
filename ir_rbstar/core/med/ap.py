"""MED of AP: per query pair, the maximum of a quadratic function of 0/1 values (a QUBO) by best-first
branch and bound with bounds from chains of the variables (see :mod:`ir_rbstar.core.med`)."""
from __future__ import annotations

import heapq
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np

from .common import TOL, Dense, Searched, ap_rows, finish_search

__all__ = ["med_ap", "max_ap", "max_qubo", "ap_qubo"]

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


_sum = np.add.reduce


class _QUBO:
    """One direction of one query: max c + l.z + sum_{u<v} Q_uv z_u z_v over z in {0,1}^m, with the node
    operations of the branch and bound (a node: the constant and linear terms after the variables fixed
    so far, and the mask of the free variables)."""

    def __init__(self, c: float, l: np.ndarray, Q: np.ndarray, order: Optional[np.ndarray] = None,
                 parts: Optional[np.ndarray] = None):
        self.c, self.l, self.Q = float(c), np.asarray(l, dtype=np.float64), Q
        self.m = len(self.l)
        self.order = np.arange(self.m) if order is None else np.asarray(order)   # the chain bound's order
        # the positive and negative parts of Q as one C-ordered (2 x m x m) array (``parts``: given,
        # computed for many queries at once), so that both row sums of a node's block are one reduction
        if parts is None:
            parts = np.stack([np.maximum(Q, 0.0), np.minimum(Q, 0.0)])
        self.parts: np.ndarray = parts

    def climb(self, c: float, l: np.ndarray, Q: np.ndarray, z: np.ndarray) -> float:
        """1-flip best-improvement local search from z (on the free variables: ``l``, ``Q`` restricted)."""
        z = z.copy()
        sign = 1.0 - 2.0 * z                          # -1 where z is 1: delta is gain with that sign (exact)
        while True:
            delta = (l + Q @ z) * sign
            v = int(delta.argmax())
            if delta[v] <= TOL:
                return float(c + l @ z + 0.5 * z @ Q @ z)
            z[v] = 1.0 - z[v]
            sign[v] = -sign[v]

    def start(self) -> float:
        """A value attained: local search from every variable with a positive linear term at 1."""
        return self.climb(self.c, self.l, self.Q, (self.l > 0).astype(np.float64))

    def expand(self, c: float, l: np.ndarray, free: np.ndarray, lower: float):
        """Process a node: persistency, bounds, a candidate. Returns (a value attained or -inf, the node's
        bound, children as (c, l, free)); no children when the node is solved or its bound is at most
        ``lower`` + TOL."""
        Q = self.Q
        idx = free.nonzero()[0]
        # the blocks of Q's positive and negative parts on the free variables, C-ordered copies (as np.ix_
        # gives them; take is the same copy, cheaper): each row's sum is the same as before. The block
        # shrinks with the free variables, from the last one (the same elements, in the same order).
        block = self.parts if len(idx) == self.m else self.parts.take(idx, 1).take(idx, 2)
        while True:                                   # first-order persistency, to a fixed point
            if not len(idx):
                return c, c, []
            # (np.add.reduce is what ndarray.sum calls, without its Python layers)
            sums = _sum(block, 2)                     # [positive, negative] part of each free row
            lf = l[idx]
            edge = lf + sums                          # [lf + pos, lf + neg]
            one = edge[1] >= 0.0
            fixed = one | (edge[0] <= 0.0)
            if not fixed.any():
                break
            ones = idx[one]
            if len(ones):                             # some maximum has every one of them at 1 together
                rows = Q.take(ones, 0)               # Q[ones]: the same C-ordered copy
                c += float(_sum(l[ones]) + 0.5 * _sum(rows.take(ones, 1), None))
                l = l + _sum(rows, 0)
            left = (~fixed).nonzero()[0]             # = np.flatnonzero, without its Python layer
            idx = idx[left]
            block = block.take(left, 1).take(left, 2)
        pos = sums[0]
        free = np.zeros(self.m, dtype=bool)
        free[idx] = True
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


def _fixed_pairs(f: np.ndarray):
    """Per row of ``f`` (rows x k), what :func:`ap_qubo`'s pairs of a variable with the fixed ones need:
    the running count of ones, and the sums of f_j / j from each position on (a column of 0 at the end).
    The same operations as for one row, so the same values."""
    n, k = f.shape
    ranks = np.arange(1, k + 1, dtype=np.float64)
    after = np.zeros((n, k + 1))
    after[:, :k] = np.cumsum((f / ranks)[:, ::-1], axis=1)[:, ::-1]
    return np.cumsum(f, axis=1), after


class _Terms:
    """The constant and linear terms (:func:`ap_qubo`) of every query of a direction, and the positions
    of its variables, computed for all queries at once with whole-matrix operations (element by element
    and along each row the same as :func:`ap_qubo`'s, so the same values)."""

    def __init__(self, d: Dense):
        self.k = d.fa.shape[1]
        self.c = ap_rows(d.fa) - ap_rows(d.fb)
        self.m = d.m
        self.start = np.cumsum(d.m) - d.m
        M = int(d.m.sum())
        pa = np.empty(M, dtype=np.int64)
        pb = np.empty(M, dtype=np.int64)
        for v, p in ((d.va, pa), (d.vb, pb)):
            rows, cols = np.nonzero(v >= 0)
            p[self.start[rows] + v[rows, cols]] = cols + 1
        row = np.repeat(np.arange(len(d.m)), d.m)
        above_a, after_a = _fixed_pairs(d.fa)
        above_b, after_b = _fixed_pairs(d.fb)
        self.pa, self.pb = pa.astype(np.float64), pb.astype(np.float64)
        self.order_key = pb
        self.l = (1.0 / self.pa + (above_a[row, pa - 1] / pa + after_a[row, pa])
                  - 1.0 / self.pb - (above_b[row, pb - 1] / pb + after_b[row, pb])) / self.k

    def problems(self, group: np.ndarray) -> List[_QUBO]:
        """The QUBOs of ``group``, queries with the same number m of variables, with the chain bound's
        order (the variables by their position in ``down``): their Q as one (queries x m x m) array
        (:func:`_q_of`, each element as ap_qubo computes it)."""
        m = int(self.m[group[0]])
        cols = self.start[group][:, None] + np.arange(m)
        Q = _q_of(1.0 / self.pa[cols], 1.0 / self.pb[cols], self.k)
        parts = np.empty((len(group), 2, m, m))
        np.maximum(Q, 0.0, out=parts[:, 0])
        np.minimum(Q, 0.0, out=parts[:, 1])
        order = np.argsort(self.order_key[cols], axis=1, kind="stable")
        return [_QUBO(self.c[q], self.l[cols[i]], Q[i], order=order[i], parts=parts[i])
                for i, q in enumerate(group.tolist())]


def _q_of(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Q of many queries (queries x m x m) from the reciprocals of their variables' positions in ``up`` (``a``)
    and ``down`` (``b``), queries x m: (1 / max(pa_u, pa_v) - 1 / max(pb_u, pb_v)) / k, zero diagonal. 1 / max(x,
    y) is min(1 / x, 1 / y) exactly (a reciprocal rounds monotonically): one division per variable instead of
    one per pair. A variable of reciprocals 0 (padding) has a row and column of 0."""
    Q = np.minimum(a[:, :, None], a[:, None, :])
    Q -= np.minimum(b[:, :, None], b[:, None, :])
    Q /= k
    m = Q.shape[1]
    Q[:, np.arange(m), np.arange(m)] = 0.0
    return Q


def _persistent(c: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, l: np.ndarray):
    """The root of the search of many QUBOs at once (queries x m, padded with variables whose terms are
    all 0): the first-order persistency of :meth:`_QUBO.expand` to a fixed point, on every query
    together. Q is made from ``a`` and ``b``, the reciprocals of the variables' positions in ``up`` and
    ``down`` (0 for padding), by :func:`_q_of`.

    The first pass, on every variable, fixes most of them (a padding variable at 1, adding 0); the free ones
    left are gathered into small blocks (as the search's blocks shrink), and the passes go on for the
    queries still moving (some variable fixed in the last pass, some left free). Returns the constant
    terms, the free variables (a mask over ``index``), the linear terms and Q over ``index`` (queries x
    width), and ``index``: the variables of each query's block. A query with none free is solved: its
    maximum is its constant term. The sums are over masks instead of the blocks of free variables, so a
    value may differ from :meth:`_QUBO.expand`'s in the last bits."""
    c = np.array(c, dtype=np.float64)

    def fix(c, l, Q, free, pos, neg):
        """One pass: the variables fixed, and c and l after the ones among them."""
        one = free & (l + neg >= 0.0)
        fixed = one | (free & (l + pos <= 0.0))
        if one.any():          # some maximum has every one of them at 1 together (see _QUBO.expand)
            z = one.astype(np.float64)
            rows = np.matmul(z[:, None, :], Q)[:, 0, :]          # the sum of the rows of the ones
            c = c + (l * z).sum(axis=1) + 0.5 * (rows * z).sum(axis=1)
            l = l + rows
        return fixed, c, l

    Q = _q_of(a, b, k)
    fixed, c, l = fix(c, l, Q, np.ones(l.shape, dtype=bool), np.maximum(Q, 0.0).sum(axis=2),
                      np.minimum(Q, 0.0).sum(axis=2))
    left = (~fixed).sum(axis=1)
    width = int(left.max(initial=0))
    index = np.argsort(fixed, axis=1, kind="stable")[:, :width]      # each query's free variables first
    free = np.arange(width) < left[:, None]
    Q = _q_of(np.take_along_axis(a, index, 1), np.take_along_axis(b, index, 1), k)
    l = np.take_along_axis(l, index, 1)
    parts = np.stack([np.maximum(Q, 0.0), np.minimum(Q, 0.0)], axis=1)
    live = np.flatnonzero(fixed.any(axis=1) & free.any(axis=1))
    while len(live):
        f = free[live]
        mask = f.astype(np.float64)[:, :, None]
        P = parts[live]
        got, c[live], l[live] = fix(c[live], l[live], Q[live], f,
                                    np.matmul(P[:, 0], mask)[:, :, 0], np.matmul(P[:, 1], mask)[:, :, 0])
        free[live] = f & ~got
        live = live[got.any(axis=1) & free[live].any(axis=1)]
    return c, free, l, Q, index


def _roots(t: _Terms, queries: np.ndarray, cap: int = 1 << 20):
    """:func:`_persistent` for ``queries`` (each with at least one variable) of one direction, in chunks of
    queries of similar numbers of variables (padded to the chunk's largest), at most ``cap`` elements of Q
    a chunk. Returns (solved, maximum) per query of ``queries`` and, for each query not solved, the QUBO
    of its free variables (the fixed ones' terms moved into its constant and linear terms; the chain
    bound's order that of the whole problem, restricted to them)."""
    solved = np.zeros(len(queries), dtype=bool)
    value = np.zeros(len(queries))
    rest: Dict[int, _QUBO] = {}
    order = np.argsort(t.m[queries], kind="stable")
    step = max(1, cap // max(1, int(t.m[queries].max(initial=1)) ** 2))
    for i in range(0, len(order), step):
        at = order[i:i + step]
        q = queries[at]
        m = t.m[q]
        real = np.arange(int(m.max())) < m[:, None]
        cols = np.where(real, t.start[q][:, None] + np.arange(real.shape[1]), 0)
        # padding: reciprocals of positions 0 in both lists, so its Q entries are min(0, .) - min(0, .) = 0; l = 0
        a = np.where(real, 1.0 / t.pa[cols], 0.0)
        b = np.where(real, 1.0 / t.pb[cols], 0.0)
        c, free, l, Q, index = _persistent(t.c[q], a, b, t.k, np.where(real, t.l[cols], 0.0))
        done = ~free.any(axis=1)
        solved[at], value[at] = done, c
        for g in np.flatnonzero(~done).tolist():
            sub = np.flatnonzero(free[g])
            variables = t.start[q[g]] + index[g, sub]
            rest[int(q[g])] = _QUBO(c[g], l[g, sub], Q[g][np.ix_(sub, sub)],
                                    order=np.argsort(t.order_key[variables], kind="stable"))
    return solved, value, rest


def _groups(queries: np.ndarray, *sizes: np.ndarray, cap: int = 1 << 20) -> Iterator[np.ndarray]:
    """``queries`` in groups with the same number of variables in each direction (``sizes``), each of at
    most ``cap`` elements of Q per direction (whatever the group, at least one query), so that only a
    group's QUBOs are in memory at once. A query's search depends on its own data only, so the order
    does not change any value."""
    if not len(queries):
        return
    key = np.stack([s[queries] for s in sizes])
    order = np.lexsort(key[::-1])
    queries, key = queries[order], key[:, order]
    edges = np.flatnonzero((np.diff(key, axis=1) != 0).any(axis=0)) + 1
    for part in np.split(queries, edges):
        m = max(int(s[part[0]]) for s in sizes)
        step = max(1, cap // max(1, m * m))
        for i in range(0, len(part), step):
            yield part[i:i + step]


def med_ap(ab: Dense, ba: Dense, budget: Optional[int]) -> Searched:
    """max(0, max AP(A) - AP(B), max AP(B) - AP(A)) per query (R = k, eq. 19): ``ab`` and ``ba`` are the
    two directions (A up, B up) of every query; at most ``budget`` (>= 1, the measure's check) nodes per query
    and direction."""
    n = ab.fa.shape[0]
    lower = np.maximum(np.maximum(ap_rows(ab.fa) - ap_rows(ab.fb), ap_rows(ba.fa) - ap_rows(ba.fb)), 0.0)
    cut = np.full((n, 2), -np.inf)
    nodes = np.zeros((n, 2), dtype=np.int64)
    terms = (_Terms(ab), _Terms(ba))
    # The roots of all queries at once: persistency solves most directions there (on Robust04's runs at
    # depth 100, nine in ten; each is one node). The others are searched from the free variables their root
    # leaves (a direction without variables is its constant, already in ``lower``).
    searched: Dict[int, List[Tuple[int, _QUBO]]] = {}
    for side, t in enumerate(terms):
        queries = np.flatnonzero(t.m > 0)
        solved, value, rest = _roots(t, queries)
        done = queries[solved]
        lower[done] = np.maximum(lower[done], value[solved])
        nodes[queries, side] = 1
        for q, problem in rest.items():
            searched.setdefault(q, []).append((side, problem))
    for q in sorted(searched):
        sides = [side for side, _ in searched[q]]
        lower[q], found_cut, found_nodes = _best_first([p for _, p in searched[q]], lower[q], budget)
        cut[q, sides] = found_cut
        nodes[q, sides] = found_nodes
    return finish_search(lower, cut, nodes)


def max_ap(d: Dense, budget: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """max AP(up) - AP(down) per query of one direction (an upper bound where ``budget`` ran out), and
    the nodes expanded per query."""
    out = ap_rows(d.fa) - ap_rows(d.fb)
    nodes = np.zeros(d.fa.shape[0], dtype=np.int64)
    terms = _Terms(d)
    for group in _groups(np.flatnonzero(d.m > 0), d.m):
        for q, problem in zip(group.tolist(), terms.problems(group), strict=True):
            lower, cut, count = _best_first([problem], -np.inf, budget)
            out[q], nodes[q] = max(lower, cut[0]), count[0]
    return out, nodes
