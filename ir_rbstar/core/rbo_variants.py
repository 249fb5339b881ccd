"""Tie-aware rank-biased overlap: the variants RBO^w, RBO^a and RBO^b, each with its four scores.

Reference: M. Corsi and J. Urbano, "The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024,
doi:10.1145/3626772.3657700. Implemented here from the definitions, over whole columns.

Notation. For every query the shorter ranking is S (length s) and the longer one L (length l); with
equal lengths Y plays S (every score is then symmetric in X and Y). Lengths count items, not tie
groups. An item whose tie group fills the positions t+1 .. t+z of its ranking (``start`` = t,
``size`` = z) is present at depth d = 1, 2, ... to the degree

* ``w`` (ties are true equality): 1 once d > t, the whole group enters at its first position;
* ``a`` and ``b`` (ties are uncertainty): the chance that a random order of the group puts the item
  among the first d positions, clip((d - t) / z, 0, 1).

X_d is the sum, over the items of both rankings, of the product of their two presences (for a and
b the expected overlap of the first d items). The agreement at depth d is A_d = X_d / D_d, where
D_d is d for ``a``; the mean of the two rankings' summed presences for ``w``; and for ``b`` the
geometric mean of their summed squared presences (a cosine, so that RBO^b(X, X) = 1). Past its end S
is read as going on with untied items, so for d > s its summed presence and squared presence are d.
RBO = (1-p)/p sum_{d>=1} p^d A_d, and the scores differ in what they assume about the unseen items:

* ``min``: nothing more is shared. For s < d <= l, X_d is the overlap seen; for d > l,
  A_d = X_l / d, with X_l = |S ∩ L| (every item is fully present at depth l).
* ``max``: for s < d <= l, the d - s items S goes on with are the first d - s items of L that S
  lacks (in L order), each adding its presence in L to X_d; for d > l, with f = l + s - X_l,
  A_d = (2d - f) / d up to f and 1 after it.
* ``ext``: the agreement A_s seen at the end of S goes on: for s < d <= l each of the d - s further
  items of S adds A_s times m_d, the mean presence at d of the items of L outside S that are present
  at all (1 for ``w``); for d > l, A_d = (X_l + (l - s) A_s) / l.
* ``res`` = max - min.

Without ties all three variants coincide with Webber, Moffat & Zobel's RBO_min, RBO_max and RBO_ext.

Empty rankings (the paper's definitions need both lists non-empty): a query with an empty ranking
gets the general formulas with no overlap, so min = 0; max per the formulas above (1 when both are
empty or the other ranking is untied; below 1 for ``w``/``a``/``b`` when L has ties); ext = 0, as
there is no agreement to extrapolate (A_s is taken as 0 when s = 0); res = max - min.

Method. Every score is exact up to rounding; no sum is cut short. Past depth l the sums have closed
forms in p^k and in tail[k] = sum_{d>k} p^d / d, which is summed from the far end (-log(1-p) minus
a head would cancel badly; past the last depth tabulated the series is summed to double precision).
The depths 1 .. l of all queries are laid end to end in flat arrays (s+1 .. l in a second one). A
presence is a step (0, then 1) plus, inside its tie group, the ramp (d - t) / z, and at any depth
only the group holding that depth ramps; so X_d, the extra overlap of ``max`` and the mean of
``ext`` are integer counts of items (intervals of depths turned into +1/-1 events, counted with
``bincount`` and ``cumsum``: exact) times the ramp of the group at depth d. Matching the items of X
and Y is one sort. Queries are taken in blocks of about ``BLOCK_ROWS`` rows, which keeps the
temporaries small (a large fresh array costs page faults, on some machines more than the arithmetic).
"""
from __future__ import annotations

import math
from typing import Dict, Optional, Tuple

import numpy as np

__all__ = ["rbo_variants", "match_items", "match_counted", "VARIANTS", "SCORES", "BLOCK_ROWS",
           "MATCH_BLOCK_ROWS"]

VARIANTS = ("w", "a", "b")
SCORES = ("min", "max", "res", "ext")
BLOCK_ROWS = 1 << 17                             # rows of X and Y per block of queries (a whole query at least)

_Cols = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def rbo_variants(p: float, variant: str, n: int,
                 x_seg, x_item, x_start, x_size,
                 y_seg, y_item, y_start, y_size) -> Dict[str, np.ndarray]:
    """The tie-aware RBO of every query: ``{"min", "max", "res", "ext"}``, float64 arrays of length n.

    X and Y are flat arrays, one row per item: ``*_seg`` the query (0..n-1; the rows of a query
    contiguous and in rank order), ``*_item`` an int64 code of the item (equal codes in X and Y of a
    query are the same item; codes unique within one ranking of a query), ``*_start`` the 0-based
    position where the item's tie group starts within its query, ``*_size`` the size of that group
    (1 when untied). ``variant`` is the paper's treatment of ties, "w", "a" or "b"; p in (0, 1).
    See the module docstring for the scores and for empty rankings.
    """
    if variant not in VARIANTS:
        raise ValueError(f"ties must be one of 'w', 'a' or 'b' (RBO^w, RBO^a, RBO^b), got {variant!r}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie strictly between 0 and 1, got {p!r}")
    x = _columns("X", n, x_seg, x_item, x_start, x_size)
    y = _columns("Y", n, y_seg, y_item, y_start, y_size)
    len_x = np.bincount(x[0], minlength=n)
    len_y = np.bincount(y[0], minlength=n)
    pw, tail = _tables(p, 2 * int(np.maximum(len_x, len_y).max(initial=0)) + 1)
    out = {score: np.empty(n) for score in SCORES}
    # blocks of whole queries, about BLOCK_ROWS rows each
    rows = np.cumsum(len_x + len_y)
    cuts = np.searchsorted(rows, np.arange(BLOCK_ROWS, int(rows[-1]) if n else 0, BLOCK_ROWS)) + 1
    bounds = np.unique(np.concatenate(([0], cuts, [n]))).tolist()
    first_x = np.concatenate(([0], np.cumsum(len_x)))
    first_y = np.concatenate(([0], np.cumsum(len_y)))
    for q0, q1 in zip(bounds[:-1], bounds[1:], strict=True):
        xs, ys = slice(first_x[q0], first_x[q1]), slice(first_y[q0], first_y[q1])
        part = _block(p, variant, pw, tail, len_x[q0:q1], len_y[q0:q1],
                      (x[0][xs] - q0, x[1][xs], x[2][xs], x[3][xs]),
                      (y[0][ys] - q0, y[1][ys], y[2][ys], y[3][ys]))
        for score in SCORES:
            out[score][q0:q1] = part[score]
    return out


def _columns(name: str, n: int, seg, item, start, size) -> _Cols:
    """The four columns of one ranking as int64, rows ordered by query (kept in order within it)."""
    cols = tuple(np.asarray(a, dtype=np.int64).reshape(-1) for a in (seg, item, start, size))
    if len({len(a) for a in cols}) > 1:
        raise ValueError(f"the columns of {name} must have the same length")
    q = cols[0]
    if len(q) and (int(q.min()) < 0 or int(q.max()) >= n):
        raise ValueError(f"the query indices of {name} must lie in 0..{n - 1}")
    if len(q) and not bool(np.all(q[1:] >= q[:-1])):
        order = np.argsort(q, kind="stable")
        cols = tuple(a[order] for a in cols)
    return cols[0], cols[1], cols[2], cols[3]


def _tables(p: float, top: int) -> Tuple[np.ndarray, np.ndarray]:
    """p^k and tail[k] = sum_{d>k} p^d / d for k = 0 .. top.

    The tails are summed from the far end (no cancellation against -log(1-p)); past ``top`` the
    series is summed until what is left is below 2^-60 of it, i.e. exactly in double precision, or
    (p so close to 1 that this takes millions of terms) taken as -log(1-p) minus the rest."""
    pw = np.power(p, np.arange(top + 1, dtype=np.float64))
    terms = pw[1:] / np.arange(1, top + 1, dtype=np.float64)
    more = math.ceil((60 * math.log(2) - math.log1p(-p)) / -math.log(p))
    if more <= 4_000_000:
        d = np.arange(top + 1, top + more + 1, dtype=np.float64)
        far = float(np.sum(np.power(p, d) / d))
    else:
        far = max(-math.log1p(-p) - math.fsum(terms.tolist()), 0.0)
    tail = np.concatenate((np.cumsum(terms[::-1])[::-1], [0.0])) + far
    return pw, tail


_GOLD = np.uint64(0x9E3779B97F4A7C15)           # odd: multiplying by it permutes the 64-bit codes


def match_items(x_seg: np.ndarray, x_item: np.ndarray, y_seg: np.ndarray, y_item: np.ndarray,
                code_bits: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """Rows (ix, iy) of X and Y holding the same item of the same query: one sort of both lists.

    ``*_seg`` are query numbers (>= 0), ``*_item`` int64 item codes (any: document hashes, say); a code
    may occur once per ranking of a query (twice is a ValueError). The pairs come in no particular order.

    Each row becomes one 64-bit number, (query, code, row) from the high bits down, and the numbers are
    sorted (numpy's vectorised sort of int64 is several times faster than an argsort): equal (query, code)
    end up next to each other, X's row first. When the codes do not fit whole, the high ``code_bits`` of
    the code times an odd constant stand for it (all the bits left by the query and the row numbers, or
    the number given, for tests); rows whose shortened codes coincide without their codes being equal
    (rare: a few per million pairs) are matched again exactly, by a lexsort of just those rows."""
    nx, ny = len(x_item), len(y_item)
    if nx == 0 or ny == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    x_item, y_item = np.asarray(x_item, np.int64), np.asarray(y_item, np.int64)
    x_seg, y_seg = np.asarray(x_seg, np.int64), np.asarray(y_seg, np.int64)
    rows = nx + ny
    bits = rows.bit_length()
    seg_bits = max(int(x_seg.max()), int(y_seg.max())).bit_length()
    lo = min(int(x_item.min()), int(y_item.min()))
    span_bits = (max(int(x_item.max()), int(y_item.max())) - lo + 1).bit_length()
    whole = code_bits is None and span_bits + seg_bits + bits <= 63
    width = span_bits if whole else (63 - seg_bits - bits if code_bits is None else code_bits)
    if width < 16:                               # too little room for a code: sort by (query, code)
        item, seg = np.concatenate((x_item, y_item)), np.concatenate((x_seg, y_seg))
        return _pairs(np.lexsort((item, seg)), seg, item, nx)
    # one pass per operation over one buffer (fresh temporaries cost page faults on large inputs)
    packed = np.empty(rows, dtype=np.int64)
    for part, it, sg in ((packed[:nx], x_item, x_seg), (packed[nx:], y_item, y_seg)):
        if whole:                                # the codes fit: (query, code - lo, row)
            np.subtract(it, lo, out=part)
        else:                                    # the high bits of the code times an odd constant
            np.multiply(it.view(np.uint64), _GOLD, out=part.view(np.uint64))
            part.view(np.uint64)[:] >>= np.uint64(64 - width)
        part |= sg << width
    packed <<= bits
    packed |= np.arange(rows, dtype=np.int64)
    packed.sort()
    key = packed >> bits
    packed &= (1 << bits) - 1                    # the rows, in (query, code) order
    row = packed
    eq = np.flatnonzero(key[1:] == key[:-1])
    a, b = row[eq], row[eq + 1]
    if whole:
        return _checked(a, b, nx)
    # a pair of equal shortened codes is a match when the codes are equal and no third row shares them
    codes_of = _Stacked(x_item, y_item)
    in_order = bool(len(a)) and int(a.max()) < nx and int(b.min()) >= nx
    if in_order:
        b_y = b - nx
        clean = x_item[a] == y_item[b_y]         # the usual case: each pair a row of X, then one of Y
    else:
        clean = codes_of[a] == codes_of[b]
    if len(eq) > 1:
        crowded = eq[1:] == eq[:-1] + 1          # three or more rows with one shortened code
        if crowded.any():
            clean[1:] &= ~crowded
            clean[:-1] &= ~crowded
    if clean.all():
        # (every pair a row of X then one of Y, checked above: what _checked would find again)
        return (a, b_y) if in_order else _checked(a, b, nx)
    # every row of a shortened code that is not one clean pair: matched exactly, by a lexsort of those rows
    shared = np.unique(key[eq[~clean]])
    first = np.searchsorted(key, shared)
    count = np.searchsorted(key, shared, side="right") - first
    again = row[np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()))]
    ia, ib = _checked(a[clean], b[clean], nx)
    codes, queries = codes_of[again], _Stacked(x_seg, y_seg)[again]
    order = np.lexsort((codes, queries))
    same = (queries[order[1:]] == queries[order[:-1]]) & (codes[order[1:]] == codes[order[:-1]])
    ja, jb = _checked(again[order[:-1][same]], again[order[1:][same]], nx)
    return np.concatenate((ia, ja)), np.concatenate((ib, jb))


#: rows of X and Y per sort of :func:`match_counted` (1 << 14: the sort's int64 key and its temporaries stay near
#: the 128 KiB from which glibc's malloc maps each new array afresh, with its page faults; measured on two runs of
#: 20,000 rows: 1.0-1.1 ms, against 1.3 ms with 1 << 15 and 1.5-1.7 ms with 1 << 13)
MATCH_BLOCK_ROWS = 1 << 14


def match_counted(x_lens: np.ndarray, x_item: np.ndarray, y_lens: np.ndarray, y_item: np.ndarray,
                  block: int = MATCH_BLOCK_ROWS) -> Tuple[np.ndarray, np.ndarray]:
    """:func:`match_items` for rows laid out query after query, given by each query's number of rows
    (``x_lens[i]`` rows of X, then those of query i + 1; the same queries on both sides): the same pairs,
    without a query column. One block of whole queries (about ``block`` rows of X and Y) is sorted at a
    time: a block's sort stays in the processor's cache and its temporaries are small and reused (one
    sort over all rows costs more per row, and its fresh arrays the page faults of new memory)."""
    x_at, y_at = (np.concatenate(([0], np.cumsum(lens, dtype=np.int64))) for lens in (x_lens, y_lens))
    if len(x_at) != len(y_at) or int(x_at[-1]) != len(x_item) or int(y_at[-1]) != len(y_item):
        raise ValueError("match_counted: the row counts must cover the items, for the same queries on both sides")
    if x_at[-1] == 0 or y_at[-1] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return _match_blocks(x_at, x_item, y_at, y_item, block)


def _match_blocks(x_at: np.ndarray, x_item: np.ndarray, y_at: np.ndarray, y_item: np.ndarray,
                  block: int) -> Tuple[np.ndarray, np.ndarray]:
    """The pairs of :func:`match_items` (X and Y both non-empty), rows ordered by query: query q's rows are
    x_at[q] .. x_at[q + 1] - 1 of X (likewise Y), the queries cut into blocks of about ``block`` rows."""
    last = len(x_at) - 1
    nx, ny = int(x_at[-1]), int(y_at[-1])
    cuts = np.unique(np.r_[0, np.searchsorted(x_at + y_at, np.arange(block, nx + ny, block), side="right") - 1])
    cuts = np.append(cuts[cuts < last], last)
    out_x, out_y = [], []
    for qa, qb in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        xa, xb, ya, yb = int(x_at[qa]), int(x_at[qb]), int(y_at[qa]), int(y_at[qb])
        if xa == xb and ya == yb:
            continue
        here = np.arange(qb - qa, dtype=np.int64)        # the block's queries, numbered from 0
        xs, xi = np.repeat(here, np.diff(x_at[qa:qb + 1])), x_item[xa:xb]
        ys, yi = np.repeat(here, np.diff(y_at[qa:qb + 1])), y_item[ya:yb]
        if xa == xb or ya == yb:
            # one side has no rows here: a stand-in row of a query outside the block, which matches
            # nothing, keeps the check that no item occurs twice in a query of the other side
            alone = np.array([qb - qa], dtype=np.int64), np.zeros(1, dtype=np.int64)
            xs, xi = alone if xa == xb else (xs, xi)
            ys, yi = alone if ya == yb else (ys, yi)
        ix, iy = match_items(xs, xi, ys, yi)
        out_x.append(ix + xa)
        out_y.append(iy + ya)
    return np.concatenate(out_x), np.concatenate(out_y)


class _Stacked:
    """X's column followed by Y's, read by row number without stacking them."""

    def __init__(self, x: np.ndarray, y: np.ndarray):
        self.x, self.y = x, y

    def __getitem__(self, rows: np.ndarray) -> np.ndarray:
        nx = len(self.x)
        return np.where(rows < nx, self.x[np.minimum(rows, nx - 1)], self.y[np.maximum(rows - nx, 0)])


def _pairs(order: np.ndarray, seg: np.ndarray, item: np.ndarray, nx: int) -> Tuple[np.ndarray, np.ndarray]:
    """The matched rows of ``order`` (rows sorted by query and code, X's before Y's on equal keys)."""
    same = (seg[order[1:]] == seg[order[:-1]]) & (item[order[1:]] == item[order[:-1]])
    return _checked(order[:-1][same], order[1:][same], nx)


def _checked(a: np.ndarray, b: np.ndarray, nx: int) -> Tuple[np.ndarray, np.ndarray]:
    """(rows of X, rows of Y) of the pairs (a, b) of rows (of the stacked X and Y) holding the same item."""
    if np.any(a >= nx) or np.any(b < nx):
        raise ValueError("an item code occurs twice in one ranking of a query")
    return a, b - nx


def _per_query(values: np.ndarray, first: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each query's slots first .. first+length-1 (the queries' slots in order)."""
    out = np.zeros(len(first))
    some = length > 0
    if some.any():
        out[some] = np.add.reduceat(values, first[some])
    return out


def _open(size: int, first: np.ndarray, top: np.ndarray, lo: np.ndarray,
          q_first: np.ndarray, q_top: np.ndarray, q_count: np.ndarray) -> np.ndarray:
    """How many of the intervals [lo, end of segment) hold each slot of a flat array of ``size`` slots.

    Interval i lives in the segment of slots first[i] .. first[i]+top[i]-1 (lo: a 0-based offset
    in it, cut to it). The segments are the queries' (q_first, q_top), holding q_count intervals
    each: every interval of a query ends on the slot after the query. Integer counts: exact."""
    steps = np.bincount(first + np.minimum(np.maximum(lo, 0), top), minlength=size + 1)
    np.subtract.at(steps, q_first + q_top, q_count)
    return np.cumsum(steps[:size])


def _closed(size: int, first: np.ndarray, top: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """As :func:`_open` for the intervals [lo, hi] (0-based inclusive offsets): an empty or wholly
    cut-off interval puts its +1 and its -1 on the same slot."""
    lo = np.minimum(np.maximum(lo, 0), top)
    hi = np.minimum(np.maximum(hi + 1, lo), top)
    lo += first
    hi += first
    steps = np.bincount(lo, minlength=size + 1)
    steps -= np.bincount(hi, minlength=size + 1)
    return np.cumsum(steps[:size])


def _block(p: float, variant: str, pw: np.ndarray, tail: np.ndarray, len_x: np.ndarray, len_y: np.ndarray,
           x: _Cols, y: _Cols) -> Dict[str, np.ndarray]:
    """:func:`rbo_variants` for the queries 0 .. len(len_x)-1, their rows ordered by query."""
    n = len(len_x)
    x_long = len_x >= len_y                          # X plays L (Y plays S on equal lengths)
    s = np.minimum(len_x, len_y)
    l = np.maximum(len_x, len_y)
    base = np.cumsum(l) - l                          # the slot of depth 1 of each query
    T = int(l.sum())

    # one slot per depth 1 .. l of every query: the tie group of L, and of S, holding that depth
    # (slots T .. 2T-1 of `start`/`size` hold S's; those past the end of S are never read)
    start = np.zeros(2 * T, np.int64)
    size = np.ones(2 * T, np.int64)
    slots = []
    for name, (q, _, t, z), counts, to_S in (("X", x, len_x, ~x_long), ("Y", y, len_y, x_long)):
        pos = np.arange(len(q), dtype=np.int64) - (np.cumsum(counts) - counts)[q]
        if np.any((t > pos) | (pos >= t + z) | (t + z > counts[q])):
            raise ValueError(f"the start and size of {name} must give the tie group that holds each row")
        slot = base[q] + pos
        at = slot + T * to_S[q]
        start[at] = t
        size[at] = z
        slots.append(slot)
    tL, zL, tS, zS = start[:T], size[:T], start[T:], size[T:]
    d = np.repeat(1 - base, l)
    d += np.arange(T)                                # the depth of each slot

    # the items of both rankings: their tie groups in S and in L (positions t+1 .. b, 1-based)
    ix, iy = match_items(x[0], x[1], y[0], y[1])
    qc = x[0][ix]
    long_c = x_long[qc]
    c_slot_L = np.where(long_c, slots[0][ix], slots[1][iy])
    c_slot_S = np.where(long_c, slots[1][iy], slots[0][ix])
    ctL, ctS = tL[c_slot_L], tS[c_slot_S]
    cbL, cbS = ctL + zL[c_slot_L], ctS + zS[c_slot_S]
    cf, cl = base[qc], l[qc]
    x_l = np.bincount(qc, minlength=n)               # |S ∩ L| = X_l

    # depths s+1 .. l (past the end of S) on slots of their own
    g = l - s
    base2 = np.cumsum(g) - g
    T2 = int(g.sum())
    past = np.repeat(-base2, g)
    past += np.arange(1, T2 + 1)                     # d - s
    slot2 = np.repeat(base + s - 1, g) + past
    # the items of L that S lacks, where there is such a depth; j: how many of them come before in L
    lonely = np.ones(T, bool)
    lonely[c_slot_L] = False
    run = np.cumsum(lonely)
    u = np.flatnonzero(lonely)
    uq = np.repeat(np.arange(n), l - x_l)
    j = run[u] - 1 - np.concatenate(([0], run))[base[uq]]
    keep = g[uq] > 0
    u, uq, j = u[keep], uq[keep], j[keep]
    us, uf, ug = s[uq], base2[uq], g[uq]
    u_count = np.where(g > 0, l - x_l, 0)
    utL = tL[u] - us                                 # the group's start and end, as offsets past the end of S
    ubL = utL + zL[u]

    if variant == "w":
        X = _open(T, cf, cl, np.maximum(ctS, ctL), base, l, x_l).astype(np.float64)
        extra = _open(T2, uf, ug, np.maximum(j, utL), base2, g, u_count).astype(np.float64)
        grown = past.astype(np.float64)              # (d - s) times a mean presence of 1
        in_s = d <= np.repeat(s, l)
        den = 0.5 * (np.where(in_s, tS + zS, d) + tL + zL)
    else:
        rL = (d - tL) / zL                           # the ramp of L's group at depth d
        rS = (d - tS) / zS
        # X_d = #(both complete) + rS #(S ramps, L complete) + rL (#(L ramps, S complete) + rS #(both ramp))
        X = rS * _closed(T, cf, cl, np.maximum(ctS, ctL), np.minimum(cbS, cbL) - 2)
        X += _closed(T, cf, cl, np.maximum(cbS, ctL + 1) - 1, cbL - 2)
        X *= rL
        X += rS * _closed(T, cf, cl, np.maximum(cbL, ctS + 1) - 1, cbS - 2)
        X += _open(T, cf, cl, np.maximum(cbS, cbL) - 1, base, l, x_l)
        rL2 = rL[slot2]
        # S's (j+1)-th further item counts from offset j: complete in L, or ramping in L
        extra = rL2 * _closed(T2, uf, ug, np.maximum(j, utL), ubL - 2)
        extra += _open(T2, uf, ug, np.maximum(j, ubL - 1), base2, g, u_count)
        full = _open(T2, uf, ug, ubL - 1, base2, g, u_count)
        ramp = _closed(T2, uf, ug, utL, ubL - 2)
        present = full + ramp                        # > 0 at every depth past the end of S
        mean = rL2 * ramp
        mean += full
        grown = past * np.divide(mean, present, out=np.zeros(T2), where=present > 0)
        if variant == "a":
            den = d.astype(np.float64)
        else:
            in_s = d <= np.repeat(s, l)
            den = np.where(in_s, tS + (d - tS) ** 2 / zS, d)
            den *= tL + (d - tL) ** 2 / zL
            np.sqrt(den, out=den)

    weight = pw[d]
    weight /= den
    head_min = _per_query(X * weight, base, l)
    weight2 = weight[slot2]
    head_extra = _per_query(extra * weight2, base2, g)
    a_s = np.zeros(n)                                # A_s, the agreement at the end of S
    has = s > 0
    k = base[has] + s[has] - 1
    a_s[has] = X[k] / den[k]
    grown *= weight2
    head_ext = head_min + a_s * _per_query(grown, base2, g)

    c = (1.0 - p) / p
    f = l + s - x_l                                  # max: A_d = (2d - f) / d on l < d <= f, then 1
    rise = 2.0 * pw[l] - pw[f] - c * f * (tail[l] - tail[f])     # (1-p)/p sum_{d>l} p^d A_d of max
    out_min = c * (head_min + x_l * tail[l])
    res = c * head_extra + rise - c * x_l * tail[l]        # max - min, from its non-negative parts
    frac = np.divide(x_l + (l - s) * a_s, l, out=np.zeros(n), where=l > 0)
    out_ext = c * head_ext + frac * pw[l]
    return {"min": out_min, "max": out_min + res, "res": res, "ext": out_ext}
