"""Render the pictures of docs/ties_explained.md: what ties do to a measure, from toy rankings (no data, no network).

    python -m scripts.make_tie_pictures [--out docs/img]

writes

* ``ties_toy_run.png``: the page's four-document run (three documents tied in float32, one relevant
  among them), its tie group bracketed, and RR and nDCG@3 of each of the 3! orders of the tie, with the
  tie-aware mean (``RR_TA``, ``nDCG_TA@3``), the worst and best order (``stat='min'``, ``'max'``) and the
  order trec_eval takes (document ids descending) marked;
* ``ties_rbo_variants.png``: the page's rankings A and B, both with ties, side by side with lines joining
  their shared documents, and RBO and RBO_ext of A against B under ``ties='expected'``, ``'docid'``,
  ``'a'``, ``'b'`` and ``'w'`` (with the range ``stat='min'`` .. ``'max'`` of the expectation);
* ``ties_overlap_profile.png``: the overlap X_d of the prefixes of A and B at depth d: every order of
  both rankings' ties, their mean (a ramp inside a tie group; what ``ties='expected'`` sums) and Corsi &
  Urbano's ``w`` (a tied group enters whole at its first position: a step), with the agreement X_d / D_d
  that RBO sums beside it.

Every value drawn comes from ir_rbstar or ir_measures: the measures of each order of the ties (the order
made explicit by distinct scores) and the tie-aware values. The overlap profiles are counted from the
orders and checked against the package: summed as RBO_min, they give ``RBO(ties='expected')`` and
``RBO(ties='w')`` to 1e-12, or the script stops. Prints each path written with its size.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from itertools import permutations, product
from typing import Dict, Iterator, List

import numpy as np

import ir_measures
import ir_rbstar

HERE = os.path.dirname(os.path.abspath(__file__))

# the page's examples (docs/ties_explained.md): keep them in step
TOY_QRELS = {"q1": {"a": 2, "b": 0, "c": 0, "d": 1}}
TOY_RUN = {"q1": {"a": 0.7, "b": 0.70000001, "c": 0.7, "d": 0.2}}
A = {"q1": {"a": 4.0, "b": 3.0, "c": 3.0, "d": 2.0, "e": 1.0, "g": 1.0, "h": 1.0}}
B = {"q1": {"c": 3.0, "a": 3.0, "f": 2.0, "b": 1.0, "d": 1.0}}
P = 0.8
TIES = ("expected", "docid", "a", "b", "w")
GRADE_COLOURS = {None: "#f2f2f2", 0: "#ffffff", 1: "#fdd49e", 2: "#fc8d59"}


def tie_groups(run) -> List[List[str]]:
    """The tie groups of a one-query run, highest score first: documents whose scores are equal in single
    precision (as trec_eval compares them), each group in document-id order."""
    (scores,) = run.values()
    groups: Dict[np.float32, List[str]] = {}
    for doc, score in scores.items():
        groups.setdefault(np.float32(score), []).append(doc)
    return [sorted(groups[s]) for s in sorted(groups, reverse=True)]


def orders(run) -> Iterator[dict]:
    """Every order of a one-query run's ties, as an untied run (scores n, n-1, ..., 1)."""
    (qid,) = run
    for choice in product(*(permutations(group) for group in tie_groups(run))):
        docs = [doc for group in choice for doc in group]
        yield {qid: {doc: float(len(docs) - i) for i, doc in enumerate(docs)}}


def value(measure: str, qrels, run) -> float:
    m = ir_rbstar.parse_measure(measure)
    return float(ir_measures.calc_aggregate([m], qrels, run)[m])


def draw_ranking(ax, x: float, groups: List[List[str]], label: str, grades=None, notes=None,
                 width: float = 1.0, bracket: str = "left") -> Dict[str, float]:
    """Boxes for a ranking at column x, rank 1 at the top, tie groups bracketed; the y of each document."""
    ys: Dict[str, float] = {}
    rank = 0
    for group in groups:
        top = rank
        for doc in group:
            rank += 1
            y = -rank
            grade = None if grades is None else grades.get(doc)
            ax.add_patch(_box(x, y, width, GRADE_COLOURS.get(grade, "#ffffff")))
            text = doc if notes is None else f"{doc}   {notes[doc]}"
            ax.text(x + width / 2, y, text, ha="center", va="center", fontsize=10, family="monospace")
            ys[doc] = y
        if len(group) > 1:
            side = x - 0.12 if bracket == "left" else x + width + 0.12
            tick = 0.08 if bracket == "left" else -0.08
            y0, y1 = -(top + 1) + 0.4, -rank - 0.4
            ax.plot([side + tick, side, side, side + tick], [y0, y0, y1, y1], color="#3060a0", lw=1.6)
            ax.text(side - 0.05 if bracket == "left" else side + 0.05, (y0 + y1) / 2, "tied",
                    ha="right" if bracket == "left" else "left", va="center", color="#3060a0", fontsize=9,
                    rotation=90)
    ax.text(x + width / 2, -0.25, label, ha="center", va="bottom", fontsize=11, weight="bold")
    return ys


def _box(x, y, width, colour):
    from matplotlib.patches import Rectangle
    return Rectangle((x, y - 0.4), width, 0.8, facecolor=colour, edgecolor="#404040", lw=1)


def toy_picture(path: str) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), gridspec_kw={"width_ratios": [1.0, 1.5, 1.5]})
    ax = axes[0]
    scores = TOY_RUN["q1"]
    notes = {d: f"{scores[d]:<10} grade {TOY_QRELS['q1'][d]}" for d in scores}
    draw_ranking(ax, 0.3, tie_groups(TOY_RUN), "the run (score, grade)", TOY_QRELS["q1"], notes, width=2.6)
    ax.set_xlim(-0.4, 3.1)
    ax.set_ylim(-4.7, 0.4)
    ax.axis("off")
    ax.text(1.6, -4.65, "0.7 and 0.70000001 are equal in float32", ha="center", fontsize=9, color="#3060a0")

    trec_order = sorted(tie_groups(TOY_RUN)[0], reverse=True)       # trec_eval: doc ids descending
    for ax, name, ta in ((axes[1], "RR", "RR_TA"), (axes[2], "nDCG@3", "nDCG_TA@3")):
        labels, values = [], []
        for run in orders(TOY_RUN):
            docs = list(run["q1"])
            labels.append(" ".join(docs[:3]))
            values.append(value(name, TOY_QRELS, run))
        mean = value(ta, TOY_QRELS, TOY_RUN)
        low = value(ta.replace("_TA", "_TA(stat='min')"), TOY_QRELS, TOY_RUN)
        high = value(ta.replace("_TA", "_TA(stat='max')"), TOY_QRELS, TOY_RUN)
        assert math.isclose(mean, sum(values) / len(values), abs_tol=1e-12), (name, mean, values)
        assert math.isclose(low, min(values), abs_tol=1e-12) and math.isclose(high, max(values), abs_tol=1e-12)
        colours = ["#fc8d59" if lab == " ".join(trec_order) else "#9ecae1" for lab in labels]
        ax.bar(range(len(values)), values, color=colours, edgecolor="#404040")
        ax.axhline(mean, color="black", lw=1.6, label=f"{ta} (mean) = {mean:.4f}")
        ax.axhline(low, color="#b2182b", lw=1.2, ls="--", label=f"stat='min' = {low:.4f}")
        ax.axhline(high, color="#1a9850", lw=1.2, ls="--", label=f"stat='max' = {high:.4f}")
        ax.set_xticks(range(len(values)), labels, fontsize=9, family="monospace")
        ax.set_xlabel("order of the tie group (ranks 1-3)")
        ax.set_ylim(0, 1.3)
        ax.set_title(f"{name} of each order; orange: trec_eval's order")
        ax.legend(loc="upper right", fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def variants_picture(path: str) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [1.0, 1.6]})
    ax = axes[0]
    ya = draw_ranking(ax, 0.4, tie_groups(A), "A", notes={d: f"{v:g}" for d, v in A["q1"].items()}, bracket="left")
    yb = draw_ranking(ax, 2.6, tie_groups(B), "B", notes={d: f"{v:g}" for d, v in B["q1"].items()}, bracket="right")
    for doc in set(ya) & set(yb):
        ax.plot([1.4, 2.6], [ya[doc], yb[doc]], color="#808080", lw=1)
    ax.set_xlim(-0.3, 4.3)
    ax.set_ylim(-7.6, 0.4)
    ax.axis("off")
    ax.set_title("A and B (document, score); lines join shared documents", fontsize=10)

    ax = axes[1]
    names = ("RBO", "RBO_ext")
    with ir_rbstar.run_scope(runs={"B": B}):
        table = {(name, ties): value(f"{name}(p={P},ties='{ties}',ref='B')", None, A)
                 for name in names for ties in TIES}
        ranges = {name: (value(f"{name}(p={P},stat='min',ref='B')", None, A),
                         value(f"{name}(p={P},stat='max',ref='B')", None, A)) for name in names}
    width = 0.38
    for j, (name, colour) in enumerate(zip(names, ("#6baed6", "#fdae6b"), strict=True)):
        xs = np.arange(len(TIES)) + (j - 0.5) * width
        heights = [table[name, ties] for ties in TIES]
        ax.bar(xs, heights, width, color=colour, edgecolor="#404040", label=name)
        for x, h in zip(xs, heights, strict=True):
            ax.text(x, 0.03, f"{h:.4f}", ha="center", va="bottom", fontsize=8, rotation=90)
        low, high = ranges[name]
        ax.errorbar(xs[0], table[name, "expected"], yerr=[[table[name, "expected"] - low],
                                                          [high - table[name, "expected"]]],
                    color="black", capsize=4, lw=1.2)
    ax.set_xticks(range(len(TIES)), [f"ties='{t}'" for t in TIES])
    ax.set_ylim(0, 1.0)
    ax.set_ylabel(f"value of A against B, p = {P}")
    ax.set_title("RBO and RBO_ext; black bar: stat='min' .. 'max' of the expectation", fontsize=10)
    ax.legend(loc="upper right", frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _presence_w(run, depth: int) -> Dict[str, float]:
    """Corsi & Urbano's w: a document is present at depth d once its tie group has started (1 or 0)."""
    out, start = {}, 0
    for group in tie_groups(run):
        for doc in group:
            out[doc] = 1.0 if depth > start else 0.0
        start += len(group)
    return out


def rbo_min(agreement: List[float], x_l: float, p: float) -> float:
    """RBO_min from the agreements A_1 .. A_l and the final overlap X_l: (1-p)/p sum_d p^d A_d, with
    A_d = X_l / d past the end of both lists (the tail summed in double precision)."""
    l = len(agreement)
    head = sum(p ** d * a for d, a in enumerate(agreement, 1))
    tail = sum(p ** d / d for d in range(l + 1, l + 4000))
    return (1 - p) / p * (head + x_l * tail)


def profile_picture(path: str) -> None:
    import matplotlib.pyplot as plt

    la, lb = len(A["q1"]), len(B["q1"])
    l = max(la, lb)
    depths = np.arange(1, l + 1)
    per_order = np.array([[len(set(list(ra["q1"])[:d]) & set(list(rb["q1"])[:d])) for d in depths]
                          for ra in orders(A) for rb in orders(B)], dtype=float)
    mean = per_order.mean(axis=0)
    x_w, d_w = [], []
    for d in depths:
        pa, pb = _presence_w(A, d), _presence_w(B, d)
        x_w.append(sum(v * pb.get(doc, 0.0) for doc, v in pa.items()))
        # D_d: the mean of the two rankings' summed presences (a list past its end goes on untied: d)
        d_w.append((sum(pa.values()) if d <= la else d) / 2 + (sum(pb.values()) if d <= lb else d) / 2)
    agree_e = mean / depths
    agree_w = np.array(x_w) / np.array(d_w)
    with ir_rbstar.run_scope(runs={"B": B}):
        expected = value(f"RBO(p={P},ref='B')", None, A)
        w = value(f"RBO(p={P},ties='w',ref='B')", None, A)
    for mine, theirs, what in ((rbo_min(list(agree_e), mean[-1], P), expected, "expected"),
                               (rbo_min(list(agree_w), x_w[-1], P), w, "w")):
        if not math.isclose(mine, theirs, abs_tol=1e-12):
            raise SystemExit(f"the overlap profile of ties='{what}' gives RBO {mine!r}, the package {theirs!r}")

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    ax = axes[0]
    for i, row in enumerate(per_order):
        ax.plot(depths, row, color="#a0a0a0", lw=0.8, alpha=0.7, label="one order of the ties" if i == 0 else None)
    ax.plot(depths, mean, "o-", color="black", lw=2, label=f"mean over the {len(per_order)} orders (ties='expected')")
    ax.step(depths, x_w, where="post", color="#d6604d", lw=2,
            label="ties='w': a tied group enters whole at its first position")
    ax.plot(depths, x_w, "s", color="#d6604d", ms=5)
    ax.set_ylim(-0.95, max(x_w) + 1.3)
    for group_start, size, who in _group_spans():
        y = -0.35 if who == "A" else -0.7
        colour = "#3060a0" if who == "A" else "#1a9850"
        ax.plot([group_start + 0.75, group_start + size + 0.25], [y, y], color=colour, lw=4, solid_capstyle="butt")
        ax.text(group_start + size + 0.35, y, f"tie in {who}", va="center", fontsize=8, color=colour)
    ax.set_xlabel("depth d")
    ax.set_ylabel("X_d = overlap of the top d of A and of B")
    ax.set_xticks(depths)
    ax.set_title("overlap at depth d", fontsize=10)
    ax.legend(loc="upper left", fontsize=8, frameon=False)

    ax = axes[1]
    ax.plot(depths, agree_e, "o-", color="black", lw=2, label=f"X_d / d (expected): RBO = {expected:.4f}")
    ax.plot(depths, agree_w, "s-", color="#d6604d", lw=2, label=f"X_d / D_d (w): RBO = {w:.4f}")
    ax.set_xlabel("depth d")
    ax.set_ylabel("agreement at depth d")
    ax.set_xticks(depths)
    ax.set_ylim(0, 1.25)
    ax.set_title(f"agreement at depth d, what RBO sums with weights p^d (p = {P})", fontsize=10)
    ax.text(1, 0.05, "D_d (w): the documents each ranking shows by depth d (a tie group\n"
                     "counts whole once it has started), mean of the two rankings", fontsize=8)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _group_spans():
    """(start, size, ranking) of every tie group of A and B with two documents or more."""
    out = []
    for who, run in (("A", A), ("B", B)):
        start = 0
        for group in tie_groups(run):
            if len(group) > 1:
                out.append((start, len(group), who))
            start += len(group)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "docs", "img"))
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    import matplotlib
    matplotlib.use("Agg")                              # files only, no window

    paths = []
    for name, draw in (("ties_toy_run.png", toy_picture), ("ties_rbo_variants.png", variants_picture),
                       ("ties_overlap_profile.png", profile_picture)):
        path = os.path.join(args.out, name)
        draw(path)
        paths.append(path)
    for path in paths:
        print(f"{path}  {os.path.getsize(path) / 1024:.0f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
