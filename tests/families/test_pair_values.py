"""``ir_rbstar.matrices.pair_values``, the per-query array behind the report's distance matrices and the MED
study's judged levels, against the measure evaluated pair by pair through ir_measures' ``iter_calc`` (the
other run registered as ``ref``): every pair, every query, to 1e-12, and its rows in the order of
``numpy.triu_indices``."""
import numpy as np
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.io import to_qrels, to_ranking
from ir_rbstar.io.ids import QUERY_IDS
from ir_rbstar.matrices import pair_values
from ir_rbstar.parsing import parse_measure

from .test_pair_matrices import make_runs


def with_ref(text):
    return text.replace(")", ",ref='pv_ref')", 1) if "(" in text else text.replace("@", "(ref='pv_ref')@")


@pytest.mark.parametrize("seed", [4])
@pytest.mark.parametrize("text", ["RBO(p=0.9)", "MED_nDCG(max_rel=2)@5", "MED_P(rel=2)@10"])
def test_pair_values_equal_iter_calc_per_query(seed, text):
    runs, qrels = make_runs(seed)
    q = to_qrels(qrels)
    names = list(runs)
    qids = sorted(qrels)
    universe = QUERY_IDS.encode(np.asarray(qids, dtype=object))
    got = pair_values([to_ranking(runs[n]) for n in names], parse_measure(text), q, universe)
    x, y = np.triu_indices(len(names), k=1)
    assert got.shape == (len(x), len(qids))
    seen = 0
    for row, (i, j) in enumerate(zip(x, y)):
        ir_rbstar.register_run("pv_ref", runs[names[j]])
        try:
            m = ir_rbstar.parse(with_ref(text))[0]
            want = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, runs[names[i]])}
        finally:
            ir_rbstar.unregister_run("pv_ref")
        for col, qid in enumerate(qids):
            if qid in want:                      # a query the run leaves out has no row through iter_calc
                seen += 1
                assert got[row, col] == pytest.approx(want[qid], abs=1e-12), (names[i], names[j], qid)
    assert seen > len(x) * len(qids) // 2        # most cells were checked, not a vacuous loop
