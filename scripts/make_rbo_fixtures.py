#!/usr/bin/env python3
"""Regenerate tests/fixtures/rbo/pypi_rbo.json: PyPI ``rbo``'s values on random pairs of rankings.

The test suite checks RBO_ext and RBO (RBO_min) against PyPI ``rbo`` (Webber et al. 2010, as implemented
by the ``rbo`` package, https://pypi.org/project/rbo/), but ``rbo`` pins numpy < 2, so the test extra
does not install it (the suite runs on the current numpy 2 / pandas 3 stack). Its values are generated
once here and stored as a small fixture; tests/families/test_rankbiased_oracle.py compares the package
with them (and with ``rbo`` itself wherever it is installed).

Run it where ``rbo`` installs, in a venv of its own, from the repository root::

    python3 -m venv /tmp/venv-rbo && /tmp/venv-rbo/bin/pip install rbo==0.1.3
    /tmp/venv-rbo/bin/python scripts/make_rbo_fixtures.py

It needs only ``rbo`` (not this package). The cases follow from ``--seed``: the same arguments and the
same ``rbo`` version give the same file.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from importlib import metadata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "rbo", "pypi_rbo.json")
#: the document pool of the property tests (string-vs-number and case ordering traps)
POOL = ["d1", "d10", "d2", "d9", "D3", "a", "b7", "z0"]


def cases(n: int, seed: int):
    """``n`` (B, R, p) triples: duplicate-free non-empty rankings of 1..8 ids of POOL (a third of them
    of equal length, where RBO has a closed form against rbo.rbo), p in [0.05, 0.95]."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        b = rng.sample(POOL, rng.randint(1, len(POOL)))
        r = rng.sample(POOL, len(b) if i % 3 == 0 else rng.randint(1, len(POOL)))
        p = round(rng.uniform(0.05, 0.95), 6)
        out.append((b, r, p))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20241)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    import rbo
    rows = []
    for b, r, p in cases(args.cases, args.seed):
        sim = rbo.RankingSimilarity(list(b), list(r))
        rows.append({"B": b, "R": r, "p": p, "rbo_ext": sim.rbo_ext(p), "rbo_prefix": sim.rbo(p=p)})
    doc = {"generator": "scripts/make_rbo_fixtures.py", "seed": args.seed, "rbo_version": metadata.version("rbo"),
           "fields": {"rbo_ext": "rbo.RankingSimilarity(B, R).rbo_ext(p)",
                      "rbo_prefix": "rbo.RankingSimilarity(B, R).rbo(p=p)"},
           "cases": rows}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    head = json.dumps({k: v for k, v in doc.items() if k != "cases"}, indent=1)[:-2]
    with open(args.out, "w") as f:              # one case per line: small, and diffs read well
        f.write(head + ',\n "cases": [\n' + ",\n".join(json.dumps(c) for c in rows) + "\n ]\n}\n")
    print(f"{len(rows)} cases written to {args.out} (rbo {doc['rbo_version']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
