"""Two document ids sharing a 64-bit hash are reported (an RbstarError naming both), never taken for one document:
in the pool the strategies choose from, and where a simulation's evaluation matches the runs' rows beyond the
pool's depth to its candidates."""
import pandas as pd
import pytest

from ir_rbstar.errors import RbstarError
from ir_rbstar.judging import select, simulate
from tests.inputs.test_docindex import _colliding_hash

QRELS = pd.DataFrame({"query_id": ["q1"], "doc_id": ["doc-cccccccccc"], "relevance": [1]})


def _run(docs):
    return pd.DataFrame({"query_id": ["q1"] * len(docs), "doc_id": docs,
                         "score": [float(len(docs) - i) for i in range(len(docs))]})


def test_a_collision_within_the_pool_is_reported(monkeypatch):
    _colliding_hash(monkeypatch)
    runs = {"A": _run(["doc-aaaaaaaaaa", "doc-cccccccccc"]), "B": _run(["doc-bbbbbbbbbb", "doc-cccccccccc"])}
    with pytest.raises(RbstarError, match="hash collision between document ids b'doc-bbbbbbbbbb' and "
                                          "b'doc-aaaaaaaaaa'"):
        select(runs, QRELS, "RBP(p=0.8)", budget=1)
    with pytest.raises(RbstarError, match="hash collision"):
        simulate(QRELS, runs, measures=["RBP(p=0.8)"], strategies=["depth"], budgets=[1])


def test_a_collision_below_the_pool_is_reported_by_the_evaluation(monkeypatch):
    # B ranks doc-bbbbbbbbbb at 40, below RBP's pool of the top 31; RBP without a cutoff counts every rank, so
    # the evaluation matches that row by its hash to the pool's doc-aaaaaaaaaa (A's first)
    _colliding_hash(monkeypatch)
    fill = [f"doc-{i:010d}" for i in range(39)]
    runs = {"A": _run(["doc-aaaaaaaaaa", "doc-cccccccccc"]), "B": _run(fill + ["doc-bbbbbbbbbb"])}
    with pytest.raises(RbstarError, match="hash collision between document ids"):
        simulate(QRELS, runs, measures=["RBP(p=0.8)"], strategies=["depth"], budgets=[1])
