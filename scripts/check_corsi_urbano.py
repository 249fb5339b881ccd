"""Development-time check of the tie-aware RBO kernel against the test file of Corsi & Urbano.

M. Corsi and J. Urbano, "The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024,
doi:10.1145/3626772.3657700. Their repository, github.com/julian-urbano/sigir2024-rbo, holds
``rbo/test.csv``: pairs of rankings in a text form (``a (b c) d``: b and c tied), a persistence p, and
the scores ``{w,a,b}.{ext,min,max,res}`` of their implementation. The file is NOT shipped with this
package (its licence is CC-BY-SA); take it from a clone of that repository, e.g.

    git clone https://github.com/julian-urbano/sigir2024-rbo /tmp/sigir2024-rbo
    python -m scripts.check_corsi_urbano /tmp/sigir2024-rbo/rbo/test.csv

For every variant and score the script prints how many rows it compared and the largest absolute
difference from ir_rbstar.core.rbo_variants; the exit status is 1 when one exceeds 1e-6 (or the file
has no rows). The tests run the same comparison when IR_RBSTAR_CORSI_URBANO_TEST names the file.
"""
from __future__ import annotations

import argparse
import csv
import sys
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from ir_rbstar.core.rbo_variants import SCORES, VARIANTS, rbo_variants

TOLERANCE = 1e-6


def parse_ranking(text: str) -> List[Set[str]]:
    """'a (b c) d' -> [{'a'}, {'b', 'c'}, {'d'}]."""
    out: List[Set[str]] = []
    group: Optional[Set[str]] = None
    for word in text.split():
        name = word.strip("()")
        if word.startswith("("):
            group = set()
        if group is None:
            out.append({name})
        else:
            group.add(name)
            if word.endswith(")"):
                out.append(group)
                group = None
    if group is not None:
        raise ValueError(f"unclosed tie group in {text!r}")
    return out


def ranking_columns(ranking: Sequence[Set[str]], codes: Dict[str, int]) -> List[np.ndarray]:
    """The kernel's four columns (query 0, item code, group start, group size) of one ranking."""
    seg: List[int] = []
    item: List[int] = []
    start: List[int] = []
    size: List[int] = []
    top = 0
    for group in ranking:
        for name in sorted(group):
            seg.append(0)
            item.append(codes.setdefault(name, len(codes)))
            start.append(top)
            size.append(len(group))
        top += len(group)
    return [np.array(col, dtype=np.int64) for col in (seg, item, start, size)]


def compare(path: str) -> Dict[Tuple[str, str], Tuple[int, float]]:
    """{(variant, score): (rows compared, largest absolute difference)}. Every row has its own p, so
    the kernel runs once per row and variant."""
    worst = {(v, s): (0, 0.0) for v in VARIANTS for s in SCORES}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            codes: Dict[str, int] = {}
            x = ranking_columns(parse_ranking(row["x"]), codes)
            y = ranking_columns(parse_ranking(row["y"]), codes)
            for variant in VARIANTS:
                got = rbo_variants(float(row["p"]), variant, 1, *x, *y)
                for score in SCORES:
                    count, most = worst[variant, score]
                    diff = abs(float(got[score][0]) - float(row[f"{variant}.{score}"]))
                    worst[variant, score] = (count + 1, max(most, diff) if diff == diff else float("inf"))
    return worst


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="rbo/test.csv of github.com/julian-urbano/sigir2024-rbo")
    args = parser.parse_args(argv)
    worst = compare(args.path)
    failed = False
    print(f"{'variant':8s}{'score':7s}{'rows':>7s}  largest |difference|")
    for (variant, score), (count, most) in worst.items():
        bad = count == 0 or most > TOLERANCE
        failed |= bad
        print(f"{variant:8s}{score:7s}{count:7d}  {most:.3g}{'  > 1e-6' if bad else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
