"""Plain-Python MED, straight from papers/003: enumerate relevance assignments, take the largest |S(A) - S(B)|.

Lists are padded to the depth with filler documents no other list has (the paper's "free variables
after the end of a list"); every document without a judgment is unknown and is tried with every value.
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
            for vals in itertools.product(choices, repeat=len(shared)):
                v = dict(known)
                v.update({d: max(choices) for d in up if d not in known})
                v.update({d: min(choices) for d in down if d not in known})
                v.update(zip(shared, vals))
                best = max(best, score([v[d] for d in up]) - score([v[d] for d in down]))
        return best
    best = 0.0
    for vals in itertools.product(choices, repeat=len(unknown)):
        v = dict(known)
        v.update(zip(unknown, vals))
        best = max(best, abs(score([v[d] for d in A]) - score([v[d] for d in B])))
    return best
