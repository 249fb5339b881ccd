"""Run order is trec_eval's: score descending, ties broken by doc id descending (as pytrec_eval does)."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar.io import extension
from tests.conftest import examples

DOC_IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "z", "D1", "D10", "D2", "10", "9"])


@given(st.lists(st.tuples(DOC_IDS, st.integers(0, 2), st.integers(0, 1)), min_size=1, max_size=10,
                unique_by=lambda t: t[0]),
       st.integers(1, 6))
def test_prefix_matches_pytrec_eval_order_under_ties(rows, k):
    # few distinct scores -> many ties; P@k from pytrec_eval counts the relevant docs in its top k
    run = pd.DataFrame({"query_id": "q", "doc_id": [r[0] for r in rows], "score": [float(r[1]) for r in rows]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [r[0] for r in rows], "relevance": [r[2] for r in rows]})
    p_at_k = ir_measures.pytrec_eval.calc_aggregate([ir_measures.P @ k], qrels, run)[ir_measures.P @ k]
    # RBP with p -> 0 is not allowed; instead sum RBP@j - RBP@(j-1) to recover the relevance at each rank
    p = 0.5
    rel_at = []
    prev = 0.0
    for j in range(1, k + 1):
        m = ir_rbstar.RBP(p=p, rel=1, cutoff=j)
        cur = ir_measures.calc_aggregate([m], qrels, run)[m]
        rel_at.append(round((cur - prev) / ((1 - p) * p ** (j - 1))))
        prev = cur
    assert sum(rel_at) / k == pytest.approx(p_at_k, abs=1e-12)
    # and the order itself: score descending, doc id descending
    expected = sorted(rows, key=lambda r: (-r[1], [-ord(c) for c in r[0]] + [0]))
    truth = {r[0]: r[2] for r in rows}
    assert rel_at[: len(expected)] == [truth[r[0]] for r in expected][:k]


LONG_IDS = st.text(alphabet="ab-9Z", min_size=1, max_size=20)


@given(st.lists(st.tuples(st.sampled_from(["q1", "q2"]), LONG_IDS, st.integers(0, 3)), min_size=1, max_size=60,
                unique_by=lambda t: (t[0], t[1])))
def test_order_of_long_and_prefix_sharing_ids(rows):
    """Tie groups of every size, ids longer than 8 bytes and ids that are prefixes of others: the
    columnar order is (query, score descending, doc id descending by bytes)."""
    from ir_rbstar.io import QUERY_IDS, to_ranking
    run = pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                        "score": [float(r[2]) for r in rows]})
    ranking = to_ranking(run)
    got = [(q, d.decode()) for q, a, b in zip(QUERY_IDS.decode(ranking.qcodes), ranking.offsets[:-1],
                                                ranking.offsets[1:]) for d in ranking.dbytes[a:b]]
    order = {q: i for i, q in enumerate(dict.fromkeys(r[0] for r in rows))}
    expected = sorted(rows, key=lambda r: (order[r[0]], -r[2], [-b for b in r[1].encode()] + [1]))
    assert got == [(r[0], r[1]) for r in expected]


_SCORES = [0.0, -0.0, 1.0, 1.0 + 2 ** -30, 1.0 + 2 ** -20, 2.5, -3.0, 1e39, -1e39, float("inf"), float("-inf"), 7.0]


@pytest.mark.skipif(extension.step("in_order_ties") is None, reason="the C extension (with in_order_ties) is not built")
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(_SCORES)), max_size=30), st.booleans())
def test_the_c_pass_finds_the_same_ties_in_order(rows, descending):
    """The C extension's pass over rows in trec_eval's order (``dictscan.in_order_ties``) gives the numpy path's
    flags (tables._in_order_ties): the same ties (equal as float32: 1 + 2^-30 ties with 1, beyond float32's range
    with infinity, -0.0 with 0.0), and None exactly where a score rises within a block."""
    from ir_rbstar.io import dictscan, tables
    q = np.array(sorted(r[0] for r in rows), dtype=np.int64)          # queries in blocks
    s = np.array([r[1] for r in rows], dtype=np.float64)
    if descending:                                                       # in order within each block
        with np.errstate(over="ignore"):                                 # (1e39 is infinity as a float32)
            order = np.lexsort((-s.astype(np.float32), q))
        s = s[order]
    first = tables._block_firsts(q)
    heads = q[first]
    with_c = tables._in_order_ties(q, s, heads, first)
    real = dictscan.in_order_ties
    try:
        dictscan.in_order_ties = lambda *a: None
        numpy_only = tables._in_order_ties(q, s, heads, first)
    finally:
        dictscan.in_order_ties = real
    assert (with_c is None) == (numpy_only is None)
    if with_c is not None:
        assert with_c.dtype == numpy_only.dtype and with_c.tolist() == numpy_only.tolist()
    if descending and len(q):
        assert with_c is not None
