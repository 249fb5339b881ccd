"""The namedtuples' fast path (``records._arrow_records``) hands the buffers of the arrow array it made to the
ranking without copying them (the scores, and the document ids when all have the same length), and the
sort into trec_eval's order moves tied rows within them. Each conversion's arrays are its own: two
conversions of the same list share no memory, changing one leaves the other as it was, and both equal
the general path's ranking (ties broken by document id, so rows do move)."""
import numpy as np
import pytest

import ir_measures
from ir_rbstar.io import dictscan, records as recs, to_ranking
from ir_rbstar.io import extension

pytest.importorskip("pyarrow")


@pytest.fixture(autouse=True)
def _converter_taken(monkeypatch):
    """pyarrow's converter for every run here, whatever this process has imported (records._arrow_wanted), and
    not the compiled reader, which comes first where it is built (tests/inputs/test_compiled_dicts.py)."""
    monkeypatch.setattr(recs, "_arrow_wanted", lambda n: True)
    monkeypatch.setattr(extension, "compiled", None)


def _items(n_queries=20, depth=50, seed=3):
    rng = np.random.default_rng(seed)
    out = []
    for q in range(n_queries):
        scores = np.sort(rng.integers(0, 15, depth))[::-1]          # many ties, in score order
        docs = rng.permutation(10_000)[:depth]
        out += [ir_measures.ScoredDoc(f"q{q}", f"D{d:05d}", float(s)) for d, s in zip(docs, scores, strict=True)]
    return out


def _general(items):
    fast = recs._arrow_records
    recs._arrow_records = lambda *a: None
    try:
        return to_ranking(items)
    finally:
        recs._arrow_records = fast


def _same(a, b):
    return (np.array_equal(a.qcodes, b.qcodes) and np.array_equal(a.offsets, b.offsets)
            and a.dbytes.dtype == b.dbytes.dtype and np.array_equal(a.dbytes, b.dbytes)
            and a.scores.tobytes() == b.scores.tobytes() and np.array_equal(a.docs, b.docs))


def test_buffers_are_taken_and_each_conversion_owns_its_arrays():
    items = _items()
    columns = recs._arrow_records(items, [0, 1, 2])
    assert columns is not None
    _, dbytes, scores = columns
    assert dbytes.dtype == np.dtype("S6") and dbytes.flags.writeable and scores.flags.writeable
    one, two = to_ranking(items), to_ranking(items)
    expected = _general(items)
    assert _same(one, expected) and _same(two, expected)
    for a, b in ((one.scores, two.scores), (one.dbytes, two.dbytes), (one.docs, two.docs)):
        assert not np.shares_memory(a, b)
    one.scores[:] = -1.0
    one.dbytes[:] = b"x"
    assert _same(two, expected)
    assert _same(to_ranking(items), expected)       # the tuples themselves are untouched


def test_ids_of_different_lengths_are_copied_as_before():
    items = _items() + [ir_measures.ScoredDoc("q99", "D1", 1.0)]
    assert _same(to_ranking(items), _general(items))
