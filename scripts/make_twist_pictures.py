"""Render the Twist pictures shown to readers, from the bundled Vaswani collection (no network).

    python -m scripts.make_twist_pictures [--out docs/img] [--query 2]

writes

* ``twist_crp.png``: the CRP curve of the ``bm25`` run on one query (default 2: recall base 15, the
  run first crosses the axis at rank 92, a "typical A" run), with the DCG panel beside it;
* ``twist_effort_gain.png``: Twist against AP for every run x query of all five bundled runs, the
  reference ``minilm_rerank`` included (it is a run like the others as far as the qrels are
  concerned: a MiniLM re-ranking of the BM25 top 100), on the 4 x 4 grid of Ferro, Silvello, Keskustalo,
  Pirkola & Järvelin (JASIST 2016, doi:10.1002/asi.23416).

and prints each path with its size, and the share table of the effort/gain plot.
"""
from __future__ import annotations

import argparse
import os
import sys

from ir_rbstar import demo, plots

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "docs", "img"))
    parser.add_argument("--query", default="2", help="query of the CRP picture")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    import matplotlib.pyplot as plt

    qrels = os.path.join(demo.data_dir(), "qrels")
    runs = demo.demo_runs()

    crp = os.path.join(args.out, "twist_crp.png")
    fig = plots.plot_crp(qrels, runs["bm25"], args.query, dcg=True, path=crp,
                         title=f"Vaswani, run bm25, query {args.query}: CRP and DCG curves")
    plt.close(fig)

    eg = os.path.join(args.out, "twist_effort_gain.png")
    fig, shares = plots.plot_effort_gain(qrels, runs, gain="AP", path=eg,
                                         title=f"Vaswani: AP over Twist, {len(runs)} runs x 93 queries")
    plt.close(fig)

    for path in (crp, eg):
        print(f"{path}  {os.path.getsize(path) / 1024:.0f} KB")
    print(f"\nshare of points per cell (%), rows: AP quartiles (cut at "
          f"{', '.join(f'{c:.3f}' for c in shares.attrs['gain_cuts'])}), highest first")
    print((100 * shares).round(1).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
