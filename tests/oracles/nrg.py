"""NRG straight from eqs. 3-4 of Bigdeli, Arabzadeh, Bagheri & Clarke (SIGIR-AP 2024), one query at a
time in plain Python (lists and dicts)."""
from __future__ import annotations

import math
from typing import Dict, List, Optional


def seen(base: str, i: int, p: float, k: Optional[int]) -> float:
    if k is not None and i > k:
        return 0.0
    return {"nDCG": lambda: 1 / math.log2(i + 1), "P": lambda: 1.0, "RBP": lambda: p ** (i - 1),
            "RR": lambda: 1 / i}[base]()


def gain(base: str, grade: Optional[int], rel: int) -> float:
    if grade is None:
        return 0.0
    if base == "nDCG":
        return float(max(grade, 0))
    return 1.0 if grade >= rel else 0.0


def residual(d: str, g: float, priors: List[List[str]], base: str, p: float, k: Optional[int]) -> float:
    for ranking in priors:
        top = ranking if k is None else ranking[:k]
        if d in top:
            g *= 1 - seen(base, top.index(d) + 1, p, k)
    return g


def nrg(qrels: Dict[str, int], run: List[str], priors: List[List[str]], base: str = "nDCG", p: float = 0.8,
        norm: bool = True, k: Optional[int] = None, rel: int = 1) -> float:
    top = run if k is None else run[:k]
    total = sum(residual(d, gain(base, qrels.get(d), rel), priors, base, p, k) * seen(base, i, p, k)
                for i, d in enumerate(top, start=1))
    if not norm:
        return total / {"P": k, "RBP": 1 / (1 - p)}.get(base, 1.0)
    ideal_gains = sorted((residual(d, gain(base, g, rel), priors, base, p, k) for d, g in qrels.items()),
                         reverse=True)
    ideal = sum(g * seen(base, i, p, k) for i, g in enumerate(ideal_gains, start=1))
    return total / ideal if ideal > 0 else 0.0


def unique_rel(qrels: Dict[str, int], run: List[str], priors: List[List[str]], k: int, rel: int = 1) -> int:
    seen_before = {d for ranking in priors for d in ranking[:k]}
    return sum(1 for d in run[:k] if qrels.get(d, -1) >= rel and d not in seen_before)


def rarp(qrels: Dict[str, int], run: List[str], runs: List[List[str]], member: bool, k: int,
         alpha: float = 1.0, rel: int = 1) -> float:
    """Rareness-based P@k (Türkmen et al. 2023), rarity per topic over the set ``runs``, to which the
    evaluated run is added unless it is a member (``member``)."""
    rankings = list(runs) if member else [run] + list(runs)
    total = 0.0
    for d in run[:k]:
        if qrels.get(d, -1) >= rel:
            found = sum(1 for r in rankings if d in r[:k])
            total += 1 + alpha * (1 - found / len(rankings))
    return total / k
