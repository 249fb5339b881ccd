"""Recommender-scale benchmark input: two systems' top-k lists for N users, and held-out judgments.

    python -m benchmarks.make_recsys --users 1000000 --out /tmp/recsys_100M [--depth 100] [--formats trec,parquet]

writes into ``--out``:

* ``a.run`` and ``b.run`` (TREC run files) and/or ``a.parquet`` and ``b.parquet`` (columns ``query_id``,
  ``doc_id``, ``score``): for every user (query ``u0000000``, ``u0000001``, ...) the top ``--depth`` items of
  two recommenders, users in ascending order of their ids (so every file is sorted by query id, as
  ``LC_ALL=C sort -s -k1,1`` would leave it), each user's items by descending score;
* ``qrels`` and ``qrels.parquet``: 10 judged items per user (5 relevant, grade 1; 5 not), drawn from the
  first 200 candidates of the user, so some are retrieved by one system, some by both and some by
  neither (residuals are real);
* ``README.txt``: the arguments and the shape.

How the lists are made (vectorised over blocks of users, so memory stays bounded at any N): user u has a
candidate sequence ``c_j = (a_u + j * s_u) mod M`` over a catalogue of M = 1,000,003 items (a prime, so
the first M candidates are distinct). System A lists c_0 .. c_{depth-1}; system B lists
c_{d_u} .. c_{d_u+depth-1} for a shift d_u drawn from 0..20, so the two share ``depth - d_u`` items
(80% to 100% at depth 100), in a shifted order. Scores are integers ``300 - 2j - noise`` (noise 0..3 for A, 0..6 for
B): adjacent items tie now and then (A: about 1 pair in 8; B: more), and the noise reorders neighbours.
Every line has the same width, so the files are written as one byte matrix per block (no Python per row).
The same arguments (``--seed``) give identical bytes.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

CATALOGUE = 1_000_003
JUDGED_POOL = 200        # judged items come from the first 200 candidates of a user
RELEVANT, NONRELEVANT = 5, 5
MAX_SHIFT = 20


def _digits(x: np.ndarray, width: int) -> np.ndarray:
    """ASCII digits of non-negative integers, zero-padded to ``width``: an (n, width) uint8 matrix."""
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return ((x.astype(np.int64)[:, None] // powers) % 10 + 48).astype(np.uint8)


def _fields(*parts) -> np.ndarray:
    """Concatenate byte-matrix fields and constant strings (bytes) into one (n, width) matrix."""
    n = next(p.shape[0] for p in parts if isinstance(p, np.ndarray))
    cols = [p if isinstance(p, np.ndarray) else np.broadcast_to(np.frombuffer(p, np.uint8), (n, len(p)))
            for p in parts]
    return np.concatenate(cols, axis=1)


def _ids(prefix: bytes, x: np.ndarray) -> np.ndarray:
    return _fields(prefix, _digits(x, 7))


def block(users: np.ndarray, depth: int, seed: int):
    """Both systems' rows and the judgments of the users ``users`` (consecutive user numbers), as
    byte matrices (user id, item id) and integer columns. Each block draws from its own seeded stream
    (seed, first user), so blocks can be made in any order with the same result."""
    rng = np.random.default_rng([seed, int(users[0])])
    n = len(users)
    a = rng.integers(0, CATALOGUE, n)
    s = rng.integers(1, CATALOGUE, n)
    shift = rng.integers(0, MAX_SHIFT + 1, n)

    def candidates(j: np.ndarray) -> np.ndarray:             # j: (n, k) positions in each user's sequence
        return (a[:, None] + j * s[:, None]) % CATALOGUE

    j = np.broadcast_to(np.arange(depth), (n, depth))
    out = {}
    for name, offset, noise in (("a", np.zeros(n, np.int64), 4), ("b", shift, 7)):
        items = candidates(j + offset[:, None])
        scores = 300 - 2 * j - rng.integers(0, noise, (n, depth))
        order = np.argsort(-scores, axis=1, kind="stable")      # each user's items by descending score
        out[name] = (np.take_along_axis(items, order, 1).ravel(), np.take_along_axis(scores, order, 1).ravel())
    # judgments: 10 distinct positions among the first JUDGED_POOL candidates; the first 5 relevant
    keys = rng.random((n, JUDGED_POOL)).argsort(axis=1)[:, :RELEVANT + NONRELEVANT]
    judged = candidates(keys).ravel()
    grades = np.tile(np.r_[np.ones(RELEVANT, np.int64), np.zeros(NONRELEVANT, np.int64)], n)
    return out, (judged, grades)


def run_lines(users: np.ndarray, items: np.ndarray, scores: np.ndarray, depth: int) -> np.ndarray:
    """``u0000001 Q0 i0123456 001 298 r`` lines (rank 1-based, score 3 digits) as a byte matrix."""
    n = len(users)
    uid = np.repeat(_ids(b"u", users), depth, axis=0)
    rank = _digits(np.tile(np.arange(1, depth + 1), n), 3)
    return _fields(uid, b" Q0 ", _ids(b"i", items), b" ", rank, b" ", _digits(scores, 3), b" r\n")


def qrels_lines(users: np.ndarray, items: np.ndarray, grades: np.ndarray) -> np.ndarray:
    per = RELEVANT + NONRELEVANT
    uid = np.repeat(_ids(b"u", users), per, axis=0)
    return _fields(uid, b" 0 ", _ids(b"i", items), b" ", _digits(grades, 1), b"\n")


def _arrow_ids(matrix: np.ndarray):
    """A pyarrow string array over the rows of a fixed-width byte matrix (no Python strings made)."""
    import pyarrow as pa
    n, width = matrix.shape
    offsets = pa.py_buffer((np.arange(n + 1, dtype=np.int32) * width).tobytes())
    data = pa.py_buffer(np.ascontiguousarray(matrix).tobytes())
    return pa.Array.from_buffers(pa.string(), n, [None, offsets, data])


def _table(user_ids: np.ndarray, item_ids: np.ndarray, value_name: str, values: np.ndarray):
    import pyarrow as pa
    return pa.table({"query_id": _arrow_ids(user_ids), "doc_id": _arrow_ids(item_ids), value_name: values})


def generate(out: str, users: int, depth: int = 100, formats=("trec", "parquet"), seed: int = 2026,
             block_users: int = 50_000, quiet: bool = False) -> dict:
    """Write the files (see the module docstring); returns their paths by name."""
    if users < 1 or depth < 1 or depth + MAX_SHIFT > CATALOGUE:
        raise SystemExit("make_recsys: --users and --depth must be positive")
    os.makedirs(out, exist_ok=True)
    paths = {}
    text = "trec" in formats
    parquet = "parquet" in formats
    files, writers = {}, {}
    if text:
        for name in ("a", "b"):
            paths[f"{name}.run"] = os.path.join(out, f"{name}.run")
            files[name] = open(paths[f"{name}.run"], "wb")
        paths["qrels"] = os.path.join(out, "qrels")
        files["qrels"] = open(paths["qrels"], "wb")
    if parquet:
        import pyarrow.parquet as pq
        for name in ("a", "b", "qrels"):
            paths[f"{name}.parquet"] = os.path.join(out, f"{name}.parquet")
    t = time.perf_counter()
    try:
        for start in range(0, users, block_users):
            us = np.arange(start, min(users, start + block_users))
            systems, (judged, grades) = block(us, depth, seed)
            for name, (items, scores) in systems.items():
                if text:
                    files[name].write(run_lines(us, items, scores, depth).tobytes())
                if parquet:
                    tab = _table(np.repeat(_ids(b"u", us), depth, axis=0), _ids(b"i", items), "score",
                                 scores.astype(np.float64))
                    if name not in writers:
                        writers[name] = pq.ParquetWriter(paths[f"{name}.parquet"], tab.schema)
                    writers[name].write_table(tab)
            if text:
                files["qrels"].write(qrels_lines(us, judged, grades).tobytes())
            if parquet:
                tab = _table(np.repeat(_ids(b"u", us), RELEVANT + NONRELEVANT, axis=0), _ids(b"i", judged),
                             "relevance", grades)
                if "qrels" not in writers:
                    writers["qrels"] = pq.ParquetWriter(paths["qrels.parquet"], tab.schema)
                writers["qrels"].write_table(tab)
            if not quiet:
                print(f"  {us[-1] + 1:,} / {users:,} users ({time.perf_counter() - t:.0f} s)", file=sys.stderr)
    finally:
        for f in files.values():
            f.close()
        for w in writers.values():
            w.close()
    with open(os.path.join(out, "README.txt"), "w") as f:
        f.write(f"benchmarks/make_recsys.py --users {users} --depth {depth} --seed {seed}\n"
                f"{users * depth:,} rows per system; {users * (RELEVANT + NONRELEVANT):,} judgments\n")
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, required=True, help="number of users (queries)")
    ap.add_argument("--depth", type=int, default=100, help="items per user and system (default 100)")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--formats", default="trec,parquet", help="trec, parquet or both (default)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    formats = tuple(x.strip() for x in args.formats.split(","))
    generate(args.out, args.users, args.depth, formats, args.seed, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
