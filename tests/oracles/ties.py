"""Brute-force oracles for the tie-aware family of McSherry & Najork (ECIR 2008,
doi:10.1007/978-3-540-78646-7_38): every ordering of the run that respects its scores is enumerated, the
tie-oblivious measure is computed on each straight from its definition, and the values are averaged.
Deliberately slow and independent of the package; keep inputs small.

A run for one query is ``{doc: score}``, qrels for one query ``{doc: grade}``.
"""
import itertools
import math

__all__ = ["orderings", "trec_order", "measure_on_ranking", "tie_average", "tie_extremes", "tie_variance",
           "MEASURES", "LINEAR_MEASURES"]

MEASURES = ("P", "R", "F1", "AP", "RR", "nDCG", "RBP")
LINEAR_MEASURES = ("P", "R", "F1", "nDCG", "RBP")      # a weighted sum over positions: stat='var' exists


def trec_order(run_q):
    """Score descending, ties broken by doc id descending (trec_eval)."""
    return [d for d, _ in sorted(run_q.items(), key=lambda x: (x[1], x[0]), reverse=True)]


def orderings(run_q):
    """Every ranking of the run's documents that respects the scores."""
    scores = sorted(set(run_q.values()), reverse=True)
    groups = [[d for d in run_q if run_q[d] == s] for s in scores]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [d for part in parts for d in part]


def _gain(grade, dcg, gains):
    g = gains.get(grade, grade) if gains else grade
    if dcg == "exp-log2":
        g = 2.0 ** g - 1.0
    return max(g, 0.0)


def measure_on_ranking(name, ranking, qrels_q, k=None, rel=1, p=0.8, dcg="log2", gains=None,
                       judged_only=False, top_grade=None):
    """The tie-oblivious measure ``name`` of one ranked list, from its definition."""
    if judged_only:                      # trec_eval: a negative grade counts as unjudged here
        ranking = [d for d in ranking if d in qrels_q and qrels_q[d] >= 0]
    top = ranking if k is None else ranking[:k]
    is_rel = [d in qrels_q and qrels_q[d] >= rel for d in top]
    num_rel = sum(1 for g in qrels_q.values() if g >= rel)
    if name == "P":
        return sum(is_rel) / k
    if name == "R":
        return sum(is_rel) / num_rel if num_rel else 0.0
    if name == "F1":
        prec = sum(is_rel) / k
        recall = sum(is_rel) / num_rel if num_rel else 0.0
        return 2 * prec * recall / (prec + recall) if prec + recall > 0 else 0.0
    if name == "AP":
        total, hits = 0.0, 0
        for i, r in enumerate(is_rel, start=1):
            if r:
                hits += 1
                total += hits / i
        return total / num_rel if num_rel else 0.0
    if name == "RR":
        for i, r in enumerate(is_rel, start=1):
            if r:
                return 1.0 / i
        return 0.0
    if name == "nDCG":
        dcg_value = sum(_gain(qrels_q[d], dcg, gains) / math.log2(i + 1)
                        for i, d in enumerate(top, start=1) if d in qrels_q)
        ideal = sorted((_gain(g, dcg, gains) for g in qrels_q.values()), reverse=True)
        ideal = [g for g in ideal if g > 0]
        if k is not None:
            ideal = ideal[:k]
        idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
        return dcg_value / idcg if idcg > 0 else 0.0
    if name == "RBP":
        if top_grade is not None:        # graded RBP: grade / max_rel (the top of the grade scale)
            gain = [max(qrels_q.get(d, 0), 0) / top_grade for d in top]
        else:
            gain = [float(r) for r in is_rel]
        return sum(g * (1 - p) * p ** (i - 1) for i, g in enumerate(gain, start=1))
    raise ValueError(name)


def tie_average(name, run_q, qrels_q, **params):
    """Mean of the measure over every score-respecting ordering of the run (judged_only filters first,
    which does not change the set of orderings of what remains)."""
    values = [measure_on_ranking(name, r, qrels_q, **params) for r in orderings(run_q)]
    return sum(values) / len(values) if values else measure_on_ranking(name, [], qrels_q, **params)


def tie_extremes(name, run_q, qrels_q, **params):
    """(smallest, largest) value of the measure over every score-respecting ordering of the run."""
    values = [measure_on_ranking(name, r, qrels_q, **params) for r in orderings(run_q)]
    if not values:
        values = [measure_on_ranking(name, [], qrels_q, **params)]
    return min(values), max(values)


def tie_variance(name, run_q, qrels_q, **params):
    """Population variance of the measure over every score-respecting ordering of the run (each ordering
    equally likely); 0 for a run with one ordering (no ties, or no documents)."""
    values = [measure_on_ranking(name, r, qrels_q, **params) for r in orderings(run_q)]
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)
