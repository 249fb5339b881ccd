"""Plain-Python oracle for the tie-aware rank-biased overlap of Corsi & Urbano (SIGIR 2024,
doi:10.1145/3626772.3657700): RBO^w, RBO^a and RBO^b, each with the scores min, max, ext and res.

One query at a time, straight from the definitions, depth by depth and item by item; it shares no
code with ir_rbstar.core.rbo_variants (which counts events over whole columns instead). A ranking is
a list of sets, best first: ``[{'a'}, {'b', 'c'}, {'d'}]`` ties b and c at positions 2-3. The sums
over the unbounded depths are added term by term until what is left (at most p^(d-1)) is below
1e-17, with no closed form, so they check the kernel's closed forms too.

Also here: ordinary untied RBO (Webber, Moffat & Zobel, TOIS 2010) with min, ext and a max computed by
building the best extension of both lists explicitly; RBO^a's brute-force counterpart, the mean of
untied RBO over every way of breaking the ties; and a parser for the text form ``a (b c) d``.
"""
from __future__ import annotations

import itertools
import math

__all__ = ['parse_ranking', 'positions', 'presence', 'rbo_tied', 'rbo_untied', 'tie_breakings',
           'rbo_a_bruteforce', 'VARIANTS']

VARIANTS = ('w', 'a', 'b')
NEGLIGIBLE = 1e-17


def parse_ranking(text):
    """'a (b c) d' -> [{'a'}, {'b', 'c'}, {'d'}]: blank-separated items, a tie group in parentheses."""
    ranking, group = [], None
    for word in text.split():
        opens, closes = word.startswith('('), word.endswith(')')
        name = word.strip('()')
        if opens:
            group = set()
        if group is None:
            ranking.append({name})
            continue
        group.add(name)
        if closes:
            ranking.append(group)
            group = None
    if group is not None:
        raise ValueError(f'unclosed tie group in {text!r}')
    return ranking


def positions(ranking):
    """{item: (top, size)}: the item's tie group fills positions top+1 .. top+size (1-based)."""
    out, top = {}, 0
    for group in ranking:
        for item in group:
            out[item] = (top, len(group))
        top += len(group)
    return out


def presence(variant, top, size, d):
    """How much of an item (its group at positions top+1 .. top+size) lies within the first d positions:
    for w the whole group once d reaches its first position; for a and b the probability that a random
    order of the group puts the item there."""
    if variant == 'w':
        return 1.0 if d >= top + 1 else 0.0
    return min(1.0, max(0.0, (d - top) / size))


def rbo_tied(x, y, p, variant):
    """{'min', 'max', 'ext', 'res'} of RBO^variant between the rankings x and y (lists of sets)."""
    if variant not in VARIANTS:
        raise ValueError(variant)
    px, py = positions(x), positions(y)
    # the longer ranking is L; with equal lengths x is (the scores are symmetric then)
    long_, short = (px, py) if len(px) >= len(py) else (py, px)
    l, s = len(long_), len(short)
    shared = [e for e in short if e in long_]
    lacking = sorted((e for e in long_ if e not in short), key=lambda e: (long_[e][0], e))   # L order

    def pres(where, e, d):
        return presence(variant, where[e][0], where[e][1], d)

    def agreement(overlap, d):
        if variant == 'a':
            return overlap / d
        power = 1 if variant == 'w' else 2
        # past its end, S goes on with untied items: one more full presence per depth
        in_s = sum(pres(short, e, d) ** power for e in short) + max(d - s, 0)
        in_l = sum(pres(long_, e, d) ** power for e in long_)
        if variant == 'w':
            return 2.0 * overlap / (in_s + in_l)
        return overlap / math.sqrt(in_s * in_l)

    agree = {'min': [], 'max': [], 'ext': []}
    at_s = 0.0
    for d in range(1, l + 1):
        seen = sum(pres(short, e, d) * pres(long_, e, d) for e in shared)
        if d <= s:
            a = agreement(seen, d)
            for score in agree:
                agree[score].append(a)
            at_s = a
            continue
        grown = d - s
        agree['min'].append(agreement(seen, d))
        best = seen + sum(pres(long_, e, d) for e in lacking[:grown])
        agree['max'].append(agreement(best, d))
        visible = [pres(long_, e, d) for e in lacking if pres(long_, e, d) > 0]
        mean = sum(visible) / len(visible) if visible else 0.0
        agree['ext'].append(agreement(seen + grown * at_s * mean, d))
    total = {score: sum((1 - p) * p ** (d - 1) * a for d, a in enumerate(agree[score], 1)) for score in agree}
    x_l = len(shared)
    goes_on = (x_l + (l - s) * at_s) / l if l else 0.0
    d = l + 1
    while p ** (d - 1) > NEGLIGIBLE:
        weight = (1 - p) * p ** (d - 1)
        total['min'] += weight * x_l / d
        total['max'] += weight * min(1.0, (2 * d - l - s + x_l) / d)
        total['ext'] += weight * goes_on
        d += 1
    total['res'] = total['max'] - total['min']
    return total


def rbo_untied(x, y, p):
    """{'min', 'max', 'ext', 'res'} of ordinary RBO between two lists of distinct items (no ties).

    min and ext are Webber et al.'s: the overlap X_d of the first d items, no more beyond the lists
    for min, and for ext the agreement at the end of the shorter list carried on (their eq. 32). max
    builds the best extension: the shorter list goes on with the longer list's missing items (in its
    order), then both go on with each other's missing items, then with the same new items."""
    S, L = (list(y), list(x)) if len(x) >= len(y) else (list(x), list(y))
    s, l = len(S), len(L)
    overlap = [len(set(S[:d]) & set(L[:d])) for d in range(l + 1)]
    at_s = overlap[s] / s if s else 0.0
    # best extension, built explicitly
    S_best = S + [e for e in L if e not in S][:l - s]
    S_more = [e for e in L if e not in S_best]
    L_more = [e for e in S_best if e not in L]
    total = {'min': 0.0, 'max': 0.0, 'ext': 0.0}
    in_s, in_l, both = set(), set(), 0
    d, fresh = 1, 0
    while p ** (d - 1) > NEGLIGIBLE:
        weight = (1 - p) * p ** (d - 1)
        known = min(d, l)
        total['min'] += weight * overlap[known] / d
        if d <= s:
            total['ext'] += weight * overlap[d] / d
        elif d <= l:
            total['ext'] += weight * (overlap[d] + (d - s) * at_s) / d
        elif l:
            total['ext'] += weight * ((overlap[l] - overlap[s]) / l + at_s)
        # the best extension, one more item on each side
        if d <= l:
            a, b = S_best[d - 1], L[d - 1]
        else:
            k = d - l - 1
            a = S_more[k] if k < len(S_more) else None
            b = L_more[k] if k < len(L_more) else None
            if a is None and b is None:
                a = b = ('new', fresh)
                fresh += 1
            elif a is None or b is None:
                raise AssertionError('the two lists run out of missing items at different depths')
        for item, mine, other in ((a, in_s, in_l), (b, in_l, in_s)):
            mine.add(item)
            both += item in other
        total['max'] += weight * both / d
        d += 1
    total['res'] = total['max'] - total['min']
    return total


def tie_breakings(ranking):
    """Every flat order of a ranking with ties (the product of the orders of its groups)."""
    for orders in itertools.product(*(itertools.permutations(sorted(group)) for group in ranking)):
        yield [item for order in orders for item in order]


def rbo_a_bruteforce(x, y, p):
    """The mean of ordinary untied RBO over every way of breaking the ties of x and of y."""
    sums, count = {'min': 0.0, 'max': 0.0, 'ext': 0.0, 'res': 0.0}, 0
    for flat_x in tie_breakings(x):
        for flat_y in tie_breakings(y):
            one = rbo_untied(flat_x, flat_y, p)
            for score in sums:
                sums[score] += one[score]
            count += 1
    return {score: value / count for score, value in sums.items()}
