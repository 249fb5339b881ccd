"""The (query, document) hash index that joins runs, references and qrels (ir_rbstar.io.DocIndex)."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar import io as rio
from ir_rbstar.errors import DuplicateDocumentError, RbstarError

# Hashes that share their low bits (they all want the same slots of a query's table) but differ above:
# they exercise the overflow levels of the index, which uniform hashes rarely reach on small inputs.
CLUMPED = st.integers(0, 40).map(lambda k: (k << 40) | 5)
UNIFORM = st.integers(0, 2 ** 64 - 1)


@st.composite
def pairs(draw, max_rows=60):
    n = draw(st.integers(0, max_rows))
    q = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    h = draw(st.lists(st.one_of(CLUMPED, UNIFORM), min_size=n, max_size=n))
    return np.array(q, dtype=np.int64), np.array(h, dtype=np.uint64)


@settings(max_examples=300, deadline=None)
@given(pairs(), pairs())
def test_lookup_agrees_with_a_dict(stored, probes):
    q, h = stored
    first = {}
    for i, key in enumerate(zip(q.tolist(), h.tolist())):
        first.setdefault(key, i)
    index = rio.DocIndex(q, h)
    # every stored pair is found, at a row holding that pair
    rows = index.lookup(q, h)
    assert (rows >= 0).all()
    assert np.array_equal(q[rows], q) and np.array_equal(h[rows], h)
    # pairs stored once are found at their own row; a repeated pair is reported as a clash
    repeated = {key for key in first if sum(1 for k in zip(q.tolist(), h.tolist()) if k == key) > 1}
    for i, key in enumerate(zip(q.tolist(), h.tolist())):
        if key not in repeated:
            assert rows[i] == i
    clashed = set() if index.clashes is None else {(int(q[a]), int(h[a])) for a in index.clashes[0]} | \
        {(int(q[b]), int(h[b])) for b in index.clashes[1]}
    assert clashed == repeated
    # probes: found exactly when stored (queries beyond the stored ones included)
    pq, ph = probes
    pq = pq + 3                                       # queries 7..9 are unknown to the index
    got = index.lookup(pq, ph)
    for i, key in enumerate(zip(pq.tolist(), ph.tolist())):
        if key in first:
            assert (int(q[got[i]]), int(h[got[i]])) == key
        else:
            assert got[i] == -1


def test_empty_index_and_empty_lookup():
    index = rio.DocIndex(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64))
    assert index.lookup(np.array([0, 3]), np.array([1, 2], dtype=np.uint64)).tolist() == [-1, -1]
    assert index.lookup(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64)).tolist() == []


def _colliding_hash(monkeypatch):
    """Make the document ids 'doc-aaaaaaaaaa' and 'doc-bbbbbbbbbb' (more than 8 bytes) hash alike."""
    real = rio.hash_ids

    def fake(ids):
        h = real(ids)
        h[ids == b"doc-bbbbbbbbbb"] = real(np.array([b"doc-aaaaaaaaaa"]))[0]
        return h
    monkeypatch.setattr(rio, "hash_ids", fake)


def test_hash_collision_within_a_run_is_reported_not_taken_for_a_duplicate(monkeypatch):
    _colliding_hash(monkeypatch)
    frame = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-aaaaaaaaaa", "doc-bbbbbbbbbb"], "score": [2.0, 1.0]})
    with pytest.raises(RbstarError, match="hash collision") as err:
        rio.to_ranking(frame)
    assert not isinstance(err.value, DuplicateDocumentError)


def test_hash_collision_between_run_and_reference_is_reported(monkeypatch):
    _colliding_hash(monkeypatch)
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-aaaaaaaaaa", "doc-cccccccccc"], "score": [2.0, 1.0]})
    ref = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-bbbbbbbbbb", "doc-cccccccccc"], "score": [2.0, 1.0]})
    ir_rbstar.register_run("collide_ref", ref)
    try:
        with pytest.raises(RbstarError, match="hash collision"):
            ir_measures.calc_aggregate([ir_rbstar.parse("RBO(p=0.9,ref='collide_ref')")[0]], None, run)
    finally:
        ir_rbstar.unregister_run("collide_ref")


def test_duplicate_names_the_earliest_repeated_pair():
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q1", "q2"], "doc_id": ["a", "b", "c", "b", "c"],
                          "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    with pytest.raises(DuplicateDocumentError, match="'b' appears twice for query 'q1'"):
        rio.to_ranking(frame)
