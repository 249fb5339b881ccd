"""Plain-Python MED, straight from Tan & Clarke (IEEE TKDE 2015): enumerate relevance assignments, take
the largest |S(A) - S(B)|.

Lists are padded to the depth with filler documents no other list has (the paper's "free variables
after the end of a list"); every document without a judgment is unknown and is tried with every value.
:func:`med_same_order` is exact for lists too long to enumerate when both rank their shared unjudged
documents in the same order.
"""
from __future__ import annotations

import itertools
import math


def rbp(values, p, depth=None):
    return sum((1 - p) * p ** i * v for i, v in enumerate(values[:depth]))


def precision(values, k):
    return sum(values[:k]) / k


def ndcg(values, k, top):
    norm = sum(top / math.log2(i + 2) for i in range(k))
    return sum(v / math.log2(i + 2) for i, v in enumerate(values[:k])) / norm


def ap(values, k):
    total, found = 0.0, 0.0
    for i, v in enumerate(values[:k], 1):
        found += v
        total += v * found / i
    return total / k


def err(values, k):
    total, reach = 0.0, 1.0
    for i, v in enumerate(values[:k], 1):
        total += reach * v / i
        reach *= 1 - v
    return total


def padded(docs, depth, tag):
    return list(docs[:depth]) + [f"{tag}{i}" for i in range(depth - min(depth, len(docs)))]


def med(A, B, depth, score, choices, known, unknown_limit=None):
    """max |score(A) - score(B)| over every value (from ``choices``) of every document not in ``known``.

    ``known`` maps document -> value. With ``unknown_limit`` only documents in both lists are enumerated
    and the others are set as the paper shows is optimal (for testing bigger inputs)."""
    A, B = padded(A, depth, "~a"), padded(B, depth, "~b")
    unknown = sorted({d for d in A + B if d not in known})
    if unknown_limit is not None:
        shared = [d for d in unknown if d in A and d in B]
        best = 0.0
        for up, down in ((A, B), (B, A)):
            v = dict(known)
            v.update({d: max(choices) for d in up if d not in known})
            v.update({d: min(choices) for d in down if d not in known})
            for vals in itertools.product(choices, repeat=len(shared)):
                v.update(zip(shared, vals))            # every shared document is set anew each time
                best = max(best, score([v[d] for d in up]) - score([v[d] for d in down]))
        return best
    best = 0.0
    v = dict(known)
    for vals in itertools.product(choices, repeat=len(unknown)):
        v.update(zip(unknown, vals))                   # every unknown document is set anew each time
        best = max(best, abs(score([v[d] for d in A]) - score([v[d] for d in B])))
    return best


def med_same_order(A, B, depth, kind, top, known):
    """max |S(A) - S(B)| (S: "ap", binary with top = 1, or "err", values in [0, 1]) for lists that rank
    their shared unjudged documents in the same order, without enumerating them: a dynamic programme over
    those documents in that order whose state is how many of them are relevant so far (every position's
    contribution to S depends on that count alone). Shared documents are 0 or ``top``; the other unknown
    documents ``top`` in the list pushed up and 0 in the other, as :func:`med` with ``unknown_limit``."""
    A, B = padded(A, depth, "~a"), padded(B, depth, "~b")
    best = 0.0
    for up, down in ((A, B), (B, A)):
        shared = [d for d in up if d in down and d not in known]
        if [d for d in down if d in set(shared)] != shared:
            raise ValueError("the shared unjudged documents are not in the same order in both lists")
        lists = []
        for sign, docs, free in ((1.0, up, top), (-1.0, down, 0.0)):
            value = [known.get(d, None if d in shared else free) for d in docs]
            ones, reach, stats = 0.0, 1.0, []        # per position: fixed ones up to it, fixed reach before it
            for i, v in enumerate(value, 1):
                before = reach
                if v is not None:
                    ones += v
                    reach *= 1 - v
                stats.append((ones, before))
            lists.append((sign, docs, value, stats))

        def term(kind_, v, i, stat, N, variable):
            ones, reach = stat
            if kind_ == "ap":
                return v * (ones + N + (1 if variable else 0)) / i / depth
            return v / i * reach * (1 - top) ** N

        states = {0: 0.0}
        where = [0, 0]                               # next position of each list
        for t in range(len(shared) + 1):
            doc = shared[t] if t < len(shared) else None
            for side, (sign, docs, value, stats) in enumerate(lists):
                stop = docs.index(doc) if doc is not None else len(docs)
                for i in range(where[side], stop):   # fixed positions before the next shared document
                    states = {N: x + sign * term(kind, value[i], i + 1, stats[i], N, False)
                              for N, x in states.items()}
                where[side] = stop
            if doc is None:
                break
            nxt = dict(states)                       # the document not relevant
            for N, x in states.items():              # or relevant, in both lists
                gain = sum(sign * term(kind, top, where[side] + 1, stats[where[side]], N, True)
                           for side, (sign, docs, value, stats) in enumerate(lists))
                nxt[N + 1] = max(nxt.get(N + 1, -math.inf), x + gain)
            states = nxt
            where = [where[0] + 1, where[1] + 1]
        best = max(best, max(states.values()))
    return best



# --- the same enumeration with every assignment a row of a matrix (numpy), for inputs where a Python loop
# over the assignments is slow; :func:`med_matrix` gives :func:`med`'s values (tests/families/test_med.py
# checks the two against each other)

def _rows(rows, k):
    import numpy as np
    return np.asarray(rows, dtype=float)[:, :k]


def _discounted(rows, k, discount):
    import numpy as np
    v = _rows(rows, k)
    return (v * np.array([discount(i) for i in range(1, v.shape[1] + 1)])).sum(axis=1)


def precision_rows(rows, k):
    """:func:`precision` of every row of a matrix of values."""
    return _rows(rows, k).sum(axis=1) / k


def rbp_rows(rows, p, depth):
    """:func:`rbp` of every row: sum over i <= depth of (1 - p) p^(i-1) v_i."""
    return _discounted(rows, depth, lambda i: (1 - p) * p ** (i - 1))


def ndcg_rows(rows, k, top):
    """:func:`ndcg` of every row: sum over i <= k of v_i / log2(i + 1), over k documents of value ``top``."""
    norm = sum(top / math.log2(i + 1) for i in range(1, k + 1))
    return _discounted(rows, k, lambda i: 1 / math.log2(i + 1)) / norm


def ap_rows(rows, k):
    """:func:`ap` of every row: sum over i <= k of v_i (v_1 + ... + v_i) / i, divided by k."""
    import numpy as np
    v = _rows(rows, k)
    return (v * np.cumsum(v, axis=1) / np.arange(1, v.shape[1] + 1)).sum(axis=1) / k


def err_rows(rows, k):
    """:func:`err` of every row: sum over i <= k of v_i / i times the product of (1 - v_j), j < i."""
    import numpy as np
    v = _rows(rows, k)
    reach = np.concatenate([np.ones((len(v), 1)), np.cumprod(1 - v, axis=1)[:, :-1]], axis=1)
    return (reach * v / np.arange(1, v.shape[1] + 1)).sum(axis=1)


def med_matrix(A, B, depth, score_rows, choices, known, unknown_limit=None):
    """:func:`med` (the same arguments, ``score_rows`` scoring every row of a matrix of values: the
    ``*_rows`` functions above) with every assignment one row of a matrix."""
    import numpy as np
    A, B = padded(A, depth, "~a"), padded(B, depth, "~b")
    unknown = sorted({d for d in A + B if d not in known})
    enumerated = [d for d in unknown if d in A and d in B] if unknown_limit is not None else unknown
    assignments = np.array(list(itertools.product(choices, repeat=len(enumerated))), dtype=float)
    assignments = assignments.reshape(len(assignments), len(enumerated))
    column = {d: i for i, d in enumerate(enumerated)}

    def rows(docs, v):
        return np.stack([assignments[:, column[d]] if d in column else np.full(len(assignments), v[d])
                         for d in docs], axis=1)

    if unknown_limit is None:
        return max(0.0, float(np.abs(score_rows(rows(A, known)) - score_rows(rows(B, known))).max()))
    best = 0.0
    for up, down in ((A, B), (B, A)):
        v = dict(known)
        v.update({d: max(choices) for d in up if d not in known})
        v.update({d: min(choices) for d in down if d not in known})
        best = max(best, float((score_rows(rows(up, v)) - score_rows(rows(down, v))).max()))
    return best
