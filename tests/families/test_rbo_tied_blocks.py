"""The numpy engine's RBO family with ties sums its documents' terms a block at a time: the per-query values
are the same doubles whatever the block size (one row per block up to all rows in one)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.conftest import examples

import ir_rbstar
from ir_rbstar import engine
from ir_rbstar.core import rankbiased_ties as T
from ir_rbstar.provider import PROVIDER


@st.composite
def run_pairs(draw):
    """A run and a reference (dicts of dicts) over a few queries, scores with ties, some queries missing
    on either side."""
    def run(queries):
        out = {}
        for q in queries:
            docs = draw(st.lists(st.integers(0, 25), min_size=1, max_size=18, unique=True))
            out[q] = {f"d{d}": float(draw(st.integers(0, 3))) for d in docs}
        return out
    queries = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    return (run(queries), run(draw(st.lists(st.sampled_from(queries + ["other"]), min_size=1, unique=True))))


@given(run_pairs(), st.integers(1, 7), st.sampled_from(["", "@5"]))
@settings(max_examples=examples(60), deadline=None)
def test_blocked_sums_give_the_same_doubles(pair, block, cutoff):
    run, ref = pair
    ms = ir_rbstar.parse(f"RBO(p=0.8,ref='blocks'){cutoff} RBO_ext(p=0.8,ref='blocks'){cutoff} "
                         f"RBO_res(p=0.8,ref='blocks'){cutoff}")
    values = {}
    before = T.SUM_BLOCK_ROWS
    with engine.using("numpy"):
        for size in (block, 1 << 20):
            T.SUM_BLOCK_ROWS = size
            try:
                got = PROVIDER.evaluator(ms, None, runs={"blocks": ref}).values(run)
            finally:
                T.SUM_BLOCK_ROWS = before
            values[size] = {str(m): np.asarray(got[m]) for m in ms}
    for m in ms:
        a, b = values[block][str(m)], values[1 << 20][str(m)]
        assert a.tobytes() == b.tobytes(), (m, a, b)


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 4), st.integers(1, 4), st.integers(0, 30),
                          st.integers(1, 4), st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=40),
       st.sampled_from([0.5, 0.9, 0.99]))
@settings(max_examples=examples(80), deadline=None)
def test_block_terms_are_the_doubles_of_stretch_sums_and_the_overlap(rows, p):
    """``_block_terms`` (what the numpy sums do per block: the shared larger start and tie mask computed
    once), its tied documents' terms filled in by ``_fill_tied``, gives each document's head term and
    overlap as ``stretch_sums`` and ``_overlap_at`` do, bit for bit, for untied and tied documents,
    straddling groups (kept < size) and documents past ``last``."""
    sa, ga, kept, sb, gb, last, d = (np.array(c, dtype=np.int64) for c in zip(*rows, strict=True))
    kept = np.minimum(kept, ga)
    tables = T.suffix_tables(p, int(max(last.max(), sa.max() + ga.max(), sb.max() + gb.max())) + 1)
    head, x, general, tied = T._block_terms(sa, ga, kept, sb, gb, last, d, tables, T._lead_tables(tables))
    T._fill_tied(head, x, general, tied, sa, ga, kept, sb, gb, lambda rows: last[rows], lambda rows: d[rows], tables)
    want_head = T.stretch_sums(sa, ga, sa + kept, sb, gb, sb + gb, last, tables)
    want_x = T._overlap_at(d, sa, ga, sa + kept, sb, gb, sb + gb)
    assert head.tobytes() == want_head.tobytes()
    assert x.tobytes() == want_x.tobytes()
