"""Compiled loops (numba) for the hot paths, used through :mod:`ir_rbstar.engine`.

Every function here has a numpy counterpart elsewhere in the package that gives the same result; the
tests compare the two on the same inputs. Importing this module imports numba (an optional
dependency: the ``fast`` extra); it is imported only when the engine asks for it.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from .io.ids import _M1, _M2      # the splitmix64 constants of io.hash_ids, which hash_tokens reproduces

_JIT = dict(cache=True, nogil=True)


# ---------------------------------------------------------------------------------------------
# TREC files
# ---------------------------------------------------------------------------------------------

@nb.njit(**_JIT)
def scan_columns(buf, ncols, fields):
    """Token start and length of the ``fields`` columns of every non-blank line of ``buf``.

    Columns are separated by bytes <= 32 (space, tab, CR, ...); lines end at LF. Returns
    (rows, starts[rows, len(fields)], lengths[rows, len(fields)]), or rows = -1 - (index of the first
    bad line's first byte) when a non-blank line does not have exactly ``ncols`` columns.
    """
    n = len(buf)
    lines = 1
    for i in range(n):
        if buf[i] == 10:
            lines += 1
    nf = len(fields)
    want = np.full(ncols, -1, dtype=np.int64)
    for j in range(nf):
        want[fields[j]] = j
    starts = np.empty((lines, nf), dtype=np.int64)
    lens = np.empty((lines, nf), dtype=np.int64)
    row = 0
    i = 0
    while i < n:
        line_start = i
        col = 0
        while i < n and buf[i] != 10:
            if buf[i] <= 32:
                i += 1
                continue
            s = i
            while i < n and buf[i] > 32:
                i += 1
            if col < ncols and want[col] >= 0:
                starts[row, want[col]] = s
                lens[row, want[col]] = i - s
            col += 1
        if col != 0:
            if col != ncols:
                return -1 - line_start, starts, lens
            row += 1
        i += 1
    return row, starts, lens


@nb.njit(**_JIT)
def token_matrix(buf, starts, lens, rows, j):
    """The tokens of field ``j`` of the lines ``rows`` (an index array) as a NUL-padded byte matrix, one
    row per token, to be viewed as a numpy ``S`` array."""
    width = 1
    for r in rows:
        if lens[r, j] > width:
            width = lens[r, j]
    out = np.zeros((len(rows), width), dtype=np.uint8)
    for k in range(len(rows)):
        r = rows[k]
        s = starts[r, j]
        for c in range(lens[r, j]):
            out[k, c] = buf[s + c]
    return out


@nb.njit(**_JIT)
def plain_decimals(buf, starts, lens, nrows, j, pow10):
    """Values of the tokens ``[+-]digits[.digits]`` of field ``j`` with 1 to 15 digits, and where they
    apply: the integer of the digits over 10^(fraction digits), one correctly rounded division (the
    same double as strtod; see ``io._plain_decimals``, the numpy version)."""
    values = np.zeros(nrows, dtype=np.float64)
    ok = np.zeros(nrows, dtype=np.bool_)
    for r in range(nrows):
        s = starts[r, j]
        e = s + lens[r, j]
        neg = False
        if buf[s] == 45 or buf[s] == 43:       # '-' or '+'
            neg = buf[s] == 45
            s += 1
        mantissa = 0
        digits = 0
        frac = 0
        dot = False
        good = True
        for i in range(s, e):
            c = buf[i]
            if 48 <= c <= 57:
                if digits < 16:
                    mantissa = mantissa * 10 + (c - 48)
                digits += 1
                if dot:
                    frac += 1
            elif c == 46 and not dot:          # '.'
                dot = True
            else:
                good = False
                break
        if good and 1 <= digits <= 15:
            v = mantissa / pow10[frac]
            values[r] = -v if neg else v
            ok[r] = True
    return values, ok


# ---------------------------------------------------------------------------------------------
# Joins
# ---------------------------------------------------------------------------------------------

@nb.njit(**_JIT)
def _table_width(rows):
    """Slots of an open-addressing table for ``rows`` entries: a power of two >= 2 x rows (at least 2)."""
    width = 2
    while width < 2 * rows:
        width *= 2
    return width


@nb.njit(**_JIT)
def _slot(table, hashes, h, mask):
    """The slot holding hash ``h`` (its row in ``hashes``), or the empty slot where it would go."""
    slot = h & mask
    while table[slot] >= 0 and hashes[table[slot]] != h:
        slot = (slot + 1) & mask
    return slot


@nb.njit(**_JIT)
def _index_rows(table, hashes, first, length):
    """Fill ``table`` (cleared first) with rows ``first .. first + length - 1`` of ``hashes``, each at its
    slot; the mask of the table's slots in use."""
    mask = _table_width(length) - 1
    table[:mask + 1] = -1
    for j in range(first, first + length):
        table[_slot(table, hashes, hashes[j], mask)] = j
    return mask


@nb.njit(**_JIT)
def match_ranges(b_start, b_len, b_hash, r_start, r_len, r_hash):
    """The documents of B found in R, query by query, without gathering either side.

    Query ``i`` of the universe is rows ``b_start[i] .. b_start[i] + b_len[i]`` of the run (hashes
    ``b_hash``) and rows ``r_start[i] .. + r_len[i]`` of the reference. Returns, for every document of B
    found in R, in B order: its universe query, its 1-based rank in B, its row in the reference."""
    n = len(b_start)
    total = 0
    for i in range(n):
        total += min(b_len[i], r_len[i])
    table = np.empty(_table_width(r_len.max() if n else 0), dtype=np.int64)
    seg = np.empty(total, dtype=np.int64)
    rank = np.empty(total, dtype=np.int64)
    row = np.empty(total, dtype=np.int64)
    m = 0
    for i in range(n):
        if r_len[i] == 0 or b_len[i] == 0:
            continue
        mask = _index_rows(table, r_hash, r_start[i], r_len[i])
        for k in range(b_len[i]):
            j = table[_slot(table, r_hash, b_hash[b_start[i] + k], mask)]
            if j >= 0:
                seg[m] = i
                rank[m] = k + 1
                row[m] = j
                m += 1
    return seg[:m], rank[:m], row[:m]


# ---------------------------------------------------------------------------------------------
# Rank-biased sums over the shared documents (see ir_rbstar.core.rankbiased for the formulas)
# ---------------------------------------------------------------------------------------------

@nb.njit(**_JIT)
def rbr_sums(n, seg, row, t_start, t_size, pw, em):
    """Per query: sum over the shared documents of the mean weight of their tie group in R,
    pw[start] em[size] / size, from tables made by numpy (pw[k] = p^k, em[g] = 1 - p^g): the numpy
    engine's doubles (its vectorised power and expm1 differ from the C library's in the last bit)."""
    out = np.zeros(n)
    for k in range(len(seg)):
        size = t_size[row[k]]
        out[seg[k]] += pw[t_start[row[k]]] * em[size] / size
    return out


@nb.njit(**_JIT)
def rba_sums(n, seg, rank, row, t_start, t_size, c, q, half, pq, em):
    """Per query: sum over the shared documents of c p^(rank_B/2) E[p^(rank_R/2)], from numpy's tables
    half[r] = p^(r/2), pq[t] = q^(t+1) and em[g] = 1 - q^g (q = sqrt(p))."""
    out = np.zeros(n)
    for k in range(len(seg)):
        size = t_size[row[k]]
        mean = pq[t_start[row[k]]] * em[size] / ((1.0 - q) * size)
        out[seg[k]] += c * half[rank[k]] * mean
    return out


@nb.njit(**_JIT)
def rbo_sums(n, seg, rank, row, t_start, t_size, l, s, H, G):
    """Per query: sum over the shared documents of sum_{d<=l} p^d f_e(d) / d (``head``) and of f_e(s)
    (``x_s``), where f_e is a document's contribution to the expected overlap at depth d."""
    head = np.zeros(n)
    x_s = np.zeros(n)
    for k in range(len(seg)):
        i = seg[k]
        start = t_start[row[k]]
        size = t_size[row[k]]
        d0 = max(rank[k], start + 1)
        d1 = start + size
        if d1 > d0:
            head[i] += ((G[d1] - G[d0 - 1]) - start * (H[d1] - H[d0 - 1])) / size + (H[l[i]] - H[d1])
            if s[i] >= d1:
                x_s[i] += 1.0
            elif s[i] >= d0:
                x_s[i] += (s[i] - start) / size
        else:
            head[i] += H[l[i]] - H[d0 - 1]
            if s[i] >= d0:
                x_s[i] += 1.0
    return head, x_s


@nb.njit(**_JIT)
def rbo_tied_sums(n, seg, sa, ga, ea, sb, gb, eb, l, s, Hs, Gs, Ks):
    """``core.rankbiased_ties.stretch_sums`` summed per query (``head``) and the expected overlap at depth
    s (``x_s``), document by document, when the run has ties too: A and B ramp from sa, sb to ea, eb
    (slopes 1/ga, 1/gb), then stay."""
    head = np.zeros(n)
    x_s = np.zeros(n)
    for k in range(len(seg)):
        i = seg[k]
        total, at_s = _tied_doc(sa[k], ga[k], ea[k], sb[k], gb[k], eb[k], l[i], s[i], Hs, Gs, Ks)
        head[i] += total
        x_s[i] += at_s
    return head, x_s


@nb.njit(**_JIT)
def _tied_doc(sa, ga, ea, sb, gb, eb, last, d, Hs, Gs, Ks):
    """One document's term of ``rbo_tied_sums``: (sum_{d'<=last} p^d' A B / d', A(d) B(d))."""
    d0 = max(sa, sb) + 1
    m1 = min(ea, eb)
    m2 = max(ea, eb)
    total = 0.0
    for piece in range(3):
        if piece == 0:
            lo, hi = d0, min(m1, last)
        elif piece == 1:
            lo, hi = max(d0, m1 + 1), min(m2, last)
        else:
            lo, hi = max(d0, m2 + 1), last
        if lo > hi:
            continue
        if hi <= ea:
            a0, a1 = -sa / ga, 1.0 / ga
        else:
            a0, a1 = (ea - sa) / ga, 0.0
        if hi <= eb:
            b0, b1 = -sb / gb, 1.0 / gb
        else:
            b0, b1 = (eb - sb) / gb, 0.0
        total += (a0 * b0 * (Hs[lo] - Hs[hi + 1]) + (a0 * b1 + a1 * b0) * (Gs[lo] - Gs[hi + 1])
                  + a1 * b1 * (Ks[lo] - Ks[hi + 1]))
    fa = min(max((min(d, ea) - sa) / ga, 0.0), 1.0)
    fb = min(max((min(d, eb) - sb) / gb, 0.0), 1.0)
    return total, fa * fb


@nb.njit(**_JIT)
def _join_query(b_lo, b_n, b_hash, b_start, b_size, b_kept, b_off, r_hash, r_start, r_size, r_off, table, mask,
                l, s, Hs, Gs, Ks):
    """One query of the RBO joins: the run's rows b_lo .. b_lo + b_n - 1 looked up by document hash in
    ``table`` (the reference's rows of the query, indexed by ``_index_rows``); every document found adds
    its terms (``_tied_doc``) to the head and to x_s, and kept / size to x_l, in the run's order. The tie
    group columns of row k are at k - b_off (run) and j - r_off (reference): 0 for columns over all rows,
    the query's first row for columns made per query."""
    head = 0.0
    x_s = 0.0
    x_l = 0.0
    for k in range(b_lo, b_lo + b_n):
        j = table[_slot(table, r_hash, b_hash[k], mask)]
        if j < 0:
            continue
        sa, ga, ka = b_start[k - b_off], b_size[k - b_off], b_kept[k - b_off]
        sb, gb = r_start[j - r_off], r_size[j - r_off]
        total, at_s = _tied_doc(sa, ga, sa + ka, sb, gb, sb + gb, l, s, Hs, Gs, Ks)
        head += total
        x_s += at_s
        x_l += ka / ga
    return head, x_s, x_l


@nb.njit(**_JIT)
def rbo_tied_join(b_first, b_len, b_hash, b_start, b_size, b_kept, r_first, r_len, r_hash, r_start, r_size,
                  l, s, Hs, Gs, Ks):
    """``match_ranges`` and ``rbo_tied_sums`` in one pass, nothing gathered: per query i, the run's rows
    b_first[i] .. + b_len[i] (their tie groups b_start, b_size, b_kept) are looked up among the reference's
    rows r_first[i] .. + r_len[i] (groups r_start, r_size) by document hash, and every document found
    adds its terms to ``head`` and ``x_s`` and kept/size to ``x_l``, in the run's order (the order, hence
    the doubles, of the two-step path)."""
    n = len(b_first)
    head = np.zeros(n)
    x_s = np.zeros(n)
    x_l = np.zeros(n)
    table = np.empty(_table_width(r_len.max() if n else 0), dtype=np.int64)
    for i in range(n):
        if r_len[i] == 0 or b_len[i] == 0:
            continue
        mask = _index_rows(table, r_hash, r_first[i], r_len[i])
        head[i], x_s[i], x_l[i] = _join_query(b_first[i], b_len[i], b_hash, b_start, b_size, b_kept, 0,
                                              r_hash, r_start, r_size, 0, table, mask, l[i], s[i], Hs, Gs, Ks)
    return head, x_s, x_l


@nb.njit(**_JIT)
def reorder_within_groups(pos, size, sec, tie):
    """``families.rankbiased_bounds._within_groups``: rows laid out group after group (a group's rows
    contiguous, its first row where ``pos`` is the group's start), each group of more than one row
    reordered by (sec, tie); returns every row's new 0-based position. Small groups are sorted in place
    (insertion sort), large ones by two stable argsorts."""
    n = len(pos)
    out = np.empty(n, dtype=np.int64)
    idx = np.empty(64, dtype=np.int64)
    i = 0
    while i < n:
        g = size[i]
        if g == 1:
            out[i] = pos[i]
        elif g <= 64:
            for a in range(g):
                j = a
                while j > 0 and (sec[i + idx[j - 1]] > sec[i + a]
                                 or (sec[i + idx[j - 1]] == sec[i + a] and tie[i + idx[j - 1]] > tie[i + a])):
                    idx[j] = idx[j - 1]
                    j -= 1
                idx[j] = a
            for j in range(g):
                out[i + idx[j]] = pos[i] + j
        else:
            by_tie = np.argsort(tie[i:i + g], kind="mergesort")
            by_sec = np.argsort(sec[i:i + g][by_tie], kind="mergesort")
            for j in range(g):
                out[i + by_tie[by_sec[j]]] = pos[i] + j
        i += g
    return out


# ---------------------------------------------------------------------------------------------
# Document hashes and duplicates
# ---------------------------------------------------------------------------------------------

@nb.njit(**_JIT)
def _mix(h):
    h = h ^ (h >> np.uint64(30))
    h = h * _M1
    h = h ^ (h >> np.uint64(27))
    h = h * _M2
    return h ^ (h >> np.uint64(31))


@nb.njit(**_JIT)
def hash_tokens(mat):
    """``io.hash_ids`` of the rows of a NUL-padded byte matrix: splitmix64 over the 8-byte little-endian
    words of each id, the first word always, later words while they hold bytes of the id."""
    n, width = mat.shape
    out = np.empty(n, dtype=np.uint64)
    for r in range(n):
        h = np.uint64(0)
        for w in range(0, width, 8):
            word = np.uint64(0)
            for b in range(min(8, width - w)):
                word |= np.uint64(mat[r, w + b]) << np.uint64(8 * b)
            if w == 0:
                h = _mix(word)
            elif word != 0:
                h = _mix(h ^ word)
            else:
                break
        out[r] = h
    return out


@nb.njit(**_JIT)
def segment_clashes(offsets, hashes):
    """Pairs of rows (earlier, later) of the same segment with the same hash (rows grouped by segment)."""
    lens = offsets[1:] - offsets[:-1]
    table = np.empty(_table_width(lens.max() if len(lens) else 0), dtype=np.int64)
    first = []
    later = []
    for s in range(len(lens)):
        mask = _table_width(lens[s]) - 1
        table[:mask + 1] = -1
        for j in range(offsets[s], offsets[s + 1]):
            slot = _slot(table, hashes, hashes[j], mask)
            if table[slot] >= 0:
                first.append(table[slot])
                later.append(j)
            else:
                table[slot] = j
    return np.array(first, dtype=np.int64), np.array(later, dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Rank-biased overlap from the sort's tie flags (no tie-group columns over all rows)
# ---------------------------------------------------------------------------------------------

@nb.njit(**_JIT)
def _groups_of(same, first, length, start, size):
    """The tie groups of rows ``first .. first + length - 1`` (one query of a ranking, in rank order;
    ``same[j]``: row j + 1 ties with row j), as ``Ranking.tie_groups`` gives them: for row ``first + t``,
    ``start[t]`` the 0-based position where its group starts and ``size[t]`` the group's size."""
    g = 0
    for t in range(length):
        if t > 0 and same[first + t - 1]:
            start[t] = g
        else:
            g = t
            start[t] = t
    end = length
    for t in range(length - 1, -1, -1):
        size[t] = end - start[t]
        if start[t] == t:
            end = t


@nb.njit(**_JIT)
def rbo_tied_join_same(b_first, b_len, b_hash, b_same, r_first, r_len, r_hash, r_same, l, s, Hs, Gs, Ks):
    """``rbo_tied_join`` for a run that keeps all its rows in B (no cutoff splits a tie group: every kept
    count is its group's size, so kept / size is exactly 1), with both rankings' tie groups made query by
    query from the sort's tie flags ``b_same`` / ``r_same`` (``Ranking.tie_flags()``, indexed by the rows
    of ``b_hash`` and ``r_hash``) instead of read from columns over all rows: the same groups, hence the
    same doubles."""
    n = len(b_first)
    head = np.zeros(n)
    x_s = np.zeros(n)
    x_l = np.zeros(n)
    top_r = r_len.max() if n else 0
    top_b = b_len.max() if n else 0
    table = np.empty(_table_width(top_r), dtype=np.int64)
    r_start = np.empty(max(top_r, 1), dtype=np.int64)
    r_size = np.empty(max(top_r, 1), dtype=np.int64)
    b_start = np.empty(max(top_b, 1), dtype=np.int64)
    b_size = np.empty(max(top_b, 1), dtype=np.int64)
    for i in range(n):
        if r_len[i] == 0 or b_len[i] == 0:
            continue
        _groups_of(r_same, r_first[i], r_len[i], r_start, r_size)
        _groups_of(b_same, b_first[i], b_len[i], b_start, b_size)
        mask = _index_rows(table, r_hash, r_first[i], r_len[i])
        head[i], x_s[i], x_l[i] = _join_query(b_first[i], b_len[i], b_hash, b_start, b_size, b_size, b_first[i],
                                              r_hash, r_start, r_size, r_first[i], table, mask, l[i], s[i],
                                              Hs, Gs, Ks)
    return head, x_s, x_l


# ---------------------------------------------------------------------------------------------
# One machine version per kernel
# ---------------------------------------------------------------------------------------------

def _read_only(kernel):
    """``kernel`` called with every array argument as a read-only view. numba compiles one machine version
    per combination of argument types, and a writable array and a read-only one (a column read from a
    file's buffer, a reference's document ids) are different types: the same join was compiled up to four
    times, some seconds each on first use. These kernels only read their arguments, so one version,
    all read-only, serves every caller."""
    def call(*args):
        return kernel(*[_frozen(a) for a in args])
    call.__doc__, call.__name__, call.__wrapped__ = kernel.__doc__, kernel.__name__, kernel   # type: ignore[attr-defined]
    return call


def _frozen(a):
    if isinstance(a, np.ndarray) and a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


match_ranges = _read_only(match_ranges)
rbo_tied_join = _read_only(rbo_tied_join)
rbo_tied_join_same = _read_only(rbo_tied_join_same)
