"""Twist straight from the definitions (Defs. 1-6) of Ferro, Silvello, Keskustalo, Pirkola & Järvelin
(JASIST 2016, doi:10.1002/asi.23416), one query at a time, in plain Python: the ideal and full-scale runs
are built as lists of grades and walked position by position. No shortcut of the package (closed-form
full-scale space, searchsorted bands) is used here."""
from __future__ import annotations

import math
from typing import Dict, List, Optional

NONREL = None      # the label of a non-relevant position in a grade list


def labels(qrels: Dict[str, int], docs: List[str], rel: int) -> list:
    """Grade of each retrieved document, or NONREL (unjudged, or grade below rel)."""
    out = []
    for d in docs:
        g = qrels.get(d)
        out.append(g if g is not None and g >= rel else NONREL)
    return out


def ideal_grades(qrels: Dict[str, int], rel: int) -> list:
    return sorted((g for g in qrels.values() if g >= rel), reverse=True)


def band(ideal: list, label) -> tuple:
    """First and last 1-based positions of ``label`` in the (infinitely extended) ideal run."""
    if label is NONREL:
        return len(ideal) + 1, math.inf
    where = [i + 1 for i, g in enumerate(ideal) if g == label]
    return where[0], where[-1]


def rp(ideal: list, run_labels: list) -> List[int]:
    out = []
    for j, label in enumerate(run_labels, start=1):
        lo, hi = band(ideal, label)
        out.append(j - lo if j < lo else (j - hi if j > hi else 0))
    return out


def crp(values: List[int]) -> List[int]:
    total, out = 0, []
    for v in values:
        total += v
        out.append(total)
    return out


def full_scale_labels(ideal: list, length: int) -> list:
    m = max(length, 2 * len(ideal))
    ideal_run = list(ideal) + [NONREL] * (m - len(ideal))
    return ideal_run[::-1]


def twist(qrels: Dict[str, int], docs: List[str], rel: int = 1) -> Optional[dict]:
    """All Twist quantities of one query; None when the recall base is 0."""
    ideal = ideal_grades(qrels, rel)
    rb = len(ideal)
    if rb == 0:
        return None
    n = len(docs)
    if n == 0:
        return dict(rho=0.0, sigma_plus=0.0, sigma_minus=0.0, sigma=0.0, tau=0.0, crossings=[], crp=[])
    r = rp(ideal, labels(qrels, docs, rel))
    c = crp(r)
    crossings = [j for j in range(1, n) if (c[j - 1] <= 0 and c[j] >= 0) or (c[j - 1] >= 0 and c[j] <= 0)]
    if not crossings and c[-1] == 0:
        crossings = [n]                        # the package's rule for a run ending on the axis (N = 1)
    beta = max(rb, min(crossings)) if crossings else math.inf
    rho = rb / beta
    fs = rp(ideal, full_scale_labels(ideal, n))
    s_plus = sum(v for v in r if v > 0)
    s_minus = sum(-v for v in r if v < 0)
    fs_plus = sum(v for v in fs if v > 0)
    fs_minus = sum(-v for v in fs if v < 0)
    sp = 1 - s_plus / fs_plus
    sm = 1 - s_minus / fs_minus
    sigma = 0.0 if sp + sm == 0 else 2 * sp * sm / (sp + sm)
    return dict(rho=rho, sigma_plus=sp, sigma_minus=sm, sigma=sigma, tau=(rho + sigma) / 2,
                crossings=crossings, crp=c, rp=r, full_scale_crp=crp(fs))
