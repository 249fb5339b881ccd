"""MED with a cutoff joins the run's top k with the reference's top k (ir_rbstar/families/med.py, a hash
index of the reference's top k): a document matched there by its 64-bit hash must be the same id (two long
ids that hash alike are an error, not a shared document). That the partners are right is what the
brute-force tests of tests/families/test_med.py check."""
import ir_measures
import pandas as pd
import pytest

import ir_rbstar
from ir_rbstar.errors import RbstarError
from tests.inputs.test_docindex import _colliding_hash


@pytest.mark.parametrize("measure", ["MED_nDCG", "MED_P", "MED_AP", "MED_ERR", "MED_RBP"])
def test_hash_collision_in_the_top_k_is_reported(monkeypatch, measure):
    _colliding_hash(monkeypatch)
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-aaaaaaaaaa", "doc-cccccccccc"], "score": [2.0, 1.0]})
    ref = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-bbbbbbbbbb", "doc-cccccccccc"], "score": [2.0, 1.0]})
    ir_rbstar.register_run("med_collide_ref", ref)
    try:
        with pytest.raises(RbstarError, match="hash collision"):
            ir_measures.calc_aggregate([ir_rbstar.parse(f"{measure}(ref='med_collide_ref',judgments=False)@2")[0]],
                                       None, run)
    finally:
        ir_rbstar.unregister_run("med_collide_ref")

