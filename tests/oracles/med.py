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
