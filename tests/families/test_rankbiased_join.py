"""The join of a run with a reference run (``RunContext.match``): on the numpy engine by one sort of both
sides' keys when the reference has no hash index, by the index when it has one; by the compiled engine's
kernel when numba is installed. Each must give what a dict of (query, document) -> row gives, for any
cutoff and query universe, with short ids (their hashes are the ids) and long ones (matches checked byte
for byte)."""
from __future__ import annotations

import importlib.util

import numpy as np
from hypothesis import given, settings, strategies as st

from ir_rbstar import engine, register_run, unregister_run
from ir_rbstar.context import RunContext
from ir_rbstar.io import QUERY_IDS, to_ranking
from tests.conftest import examples

_ENGINES = ["numpy"] + (["numba"] if importlib.util.find_spec("numba") else [])
_DOCS = [f"d{i}" for i in range(12)] + [f"a-rather-long-document-id-{i}" for i in range(6)]


@st.composite
def _runs(draw):
    def one():
        run = {}
        for q in draw(st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), unique=True, max_size=4)):
            docs = draw(st.lists(st.sampled_from(_DOCS), unique=True, min_size=1, max_size=10))
            run[q] = {d: float(draw(st.integers(0, 4))) for d in docs}
        return run
    return one(), one()


def _oracle(ranking, reference, universe, cutoff):
    """(b_in_r, r_in_b) from dicts, the rows of B and R gathered as the context gathers them."""
    where = {}
    for s, q in enumerate(reference.qcodes.tolist()):
        for row in range(int(reference.offsets[s]), int(reference.offsets[s + 1])):
            where[(q, bytes(reference.dbytes[row]))] = row
    b_rows, r_rows = [], []
    for q in universe.tolist():
        for rk, (src, rows) in enumerate(((ranking, b_rows), (reference, r_rows))):
            hit = np.flatnonzero(src.qcodes == q)
            if len(hit):
                lo, hi = int(src.offsets[hit[0]]), int(src.offsets[hit[0] + 1])
                if rk == 0 and cutoff is not None:
                    hi = min(hi, lo + cutoff)
                rows.extend((q, r) for r in range(lo, hi))
    b_in_r = [where.get((q, bytes(ranking.dbytes[r])), -1) for q, r in b_rows]
    in_b = {(q, bytes(ranking.dbytes[r])) for q, r in b_rows}
    r_in_b = [(q, bytes(reference.dbytes[r])) in in_b for q, r in r_rows]
    return np.array(b_in_r, dtype=np.int64), np.array(r_in_b, dtype=bool)


@settings(max_examples=examples(150))
@given(_runs(), st.sampled_from([None, 1, 3]), st.booleans(), st.booleans(),
       st.permutations(["q1", "q2", "q3", "q4"]))
def test_join_by_sort_and_by_index_equal_a_dict(runs, cutoff, with_index, own_queries, order):
    run, ref = runs
    ranking = to_ranking(run)
    register_run("join-test-ref", ref)
    try:
        from ir_rbstar.references import resolve_run
        reference = resolve_run("join-test-ref")
        if with_index:
            reference.build_index()
        universe = ranking.qcodes if own_queries else QUERY_IDS.encode(order)
        want_b, want_r = _oracle(ranking, reference, universe, cutoff)
        for name in _ENGINES:           # the compiled engine's join too (its long ids checked at the matches)
            with engine.using(name):
                ctx = RunContext(ranking, None, universe)
                got_ref, b_in_r, r_in_b = ctx.match(cutoff, "join-test-ref", 1, None)
            assert got_ref is reference
            np.testing.assert_array_equal(b_in_r, want_b)
            np.testing.assert_array_equal(r_in_b, want_r)
    finally:
        unregister_run("join-test-ref")


@settings(max_examples=examples(60))
@given(_runs(), st.sampled_from([None, 1, 3]), st.booleans(), st.permutations(["q1", "q2", "q3", "q4"]))
def test_lean_rows_are_the_gathered_rows(runs, cutoff, own_queries, order):
    """Rows gathered lean (documents and source rows now) read the same queries, ranks and ids, when first
    read, as rows gathered whole, and the same through seg_at, seg_rank_at and seg_at_ascending."""
    from ir_rbstar.context import gather
    ranking = to_ranking(runs[0])
    universe = ranking.qcodes if own_queries else QUERY_IDS.encode(order)
    whole = gather(ranking, universe, cutoff)
    lean = gather(ranking, universe, cutoff, lean=True)
    rows = np.arange(len(whole.docs), dtype=np.int64)[::2]
    assert lean.seg_at(rows).tolist() == whole.seg[rows].tolist()
    assert lean.seg_at_ascending(rows).tolist() == whole.seg[rows].tolist()
    assert [a.tolist() for a in lean.seg_rank_at(rows)] == [whole.seg[rows].tolist(), whole.rank[rows].tolist()]
    for name in ("lens", "docs", "src", "seg", "rank", "dbytes"):
        assert getattr(lean, name).tolist() == getattr(whole, name).tolist(), name
