"""The report's distance matrices as arrays over the pairs (ir_rbstar.matrices) against the measures
evaluated pair by pair through ir_measures (an independent door: one calc_aggregate per pair, the other
run registered as ``ref``): the same means to 1e-12, on runs with tied scores, unequal depths, missing
queries, long document ids and graded judgments."""
import random

import numpy as np
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.io import to_qrels, to_ranking
from ir_rbstar.matrices import fast, pair_means
from ir_rbstar.med import distance_frame
from ir_rbstar.parsing import parse_measure


def make_runs(seed, n_runs=5, n_queries=6, long_ids=False):
    rng = random.Random(seed)
    prefix = "document-with-a-long-id-" if long_ids else "d"
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in range(n_queries):
            if rng.random() < 0.15:
                continue                                   # this run does not answer the query
            depth = rng.choice([3, 8, 15, 20])
            docs = rng.sample(range(30), depth)
            # scores with ties (rounded), in places
            run[f"q{q}"] = {f"{prefix}{d}": float(round(rng.uniform(0, 4), rng.choice([0, 1, 3]))) for d in docs}
        runs[f"r{r}"] = run
    qrels = {f"q{q}": {f"{prefix}{d}": rng.choice([0, 0, 1, 2]) for d in rng.sample(range(30), 18)}
             for q in range(n_queries)}
    return runs, qrels


def by_pairs(runs, qrels, text):
    """runs x runs: the mean of ``text`` for run a with ``ref`` = run b, through ir_measures.calc_aggregate."""
    names = list(runs)
    out = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            ir_rbstar.register_run("pair_ref", runs[b])
            try:
                m = ir_rbstar.parse(text.replace(")", ",ref='pair_ref')", 1) if "(" in text
                                    else text.replace("@", "(ref='pair_ref')@"))[0]
                out[i, j] = ir_measures.calc_aggregate([m], qrels, runs[a])[m]
            finally:
                ir_rbstar.unregister_run("pair_ref")
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("text", ["RBO(p=0.9)", "RBO(p=0.5)", "MED_nDCG(max_rel=2)@5", "MED_P@3", "MED_P(rel=2)@10"])
def test_pair_means_equal_the_measure_pair_by_pair(seed, text):
    runs, qrels = make_runs(seed, long_ids=seed == 2)
    q = to_qrels(qrels)
    rankings = [to_ranking(r) for r in runs.values()]
    m = parse_measure(text)
    assert fast(m, q)
    got = pair_means(rankings, m, q, q.qcodes)
    want = by_pairs(runs, qrels, text)
    off = ~np.eye(len(runs), dtype=bool)
    np.testing.assert_allclose(got[off], want[off], rtol=0, atol=1e-12)
    assert np.isnan(np.diag(got)).all()


def test_distance_frame_is_the_distance_matrix():
    runs, qrels = make_runs(5)
    q = to_qrels(qrels)
    rankings = {k: to_ranking(v) for k, v in runs.items()}
    for text in ("RBO(p=0.9)", "MED_nDCG(max_rel=2)@10"):
        got = distance_frame(rankings, text, q)
        m = parse_measure(text)                       # distance_matrix is distance_frame: the pair-by-pair door
        want = ir_rbstar.med.matrix_of(ir_rbstar.med.pairwise(runs, [m], qrels), m)
        assert list(got.index) == list(want.index) and list(got.columns) == list(want.columns)
        assert got.attrs == want.attrs
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
        assert (np.diag(got.to_numpy()) == 0).all()


def test_other_measures_go_pair_by_pair():
    runs, qrels = make_runs(3, n_runs=3)
    q = to_qrels(qrels)
    for text in ("RBO(p=0.9)@10", "RBA(p=0.9)", "MED_RBP(p=0.8)", "MED_nDCG(judgments=False)@5"):
        assert not fast(parse_measure(text), q)
        got = distance_frame({k: to_ranking(v) for k, v in runs.items()}, text, q)
        m = parse_measure(text)
        want = ir_rbstar.med.matrix_of(ir_rbstar.med.pairwise(runs, [m], qrels), m)
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)


def test_a_grade_above_the_scale_raises_as_the_measure_does():
    runs, qrels = make_runs(4, n_runs=2)
    qrels["q0"]["d1"] = 3
    q = to_qrels(qrels)
    with pytest.raises(ir_rbstar.errors.GradeScaleError):
        pair_means([to_ranking(r) for r in runs.values()], parse_measure("MED_nDCG(max_rel=2)@5"), q, q.qcodes)


def test_pair_means_refuses_a_measure_it_does_not_compute():
    runs, qrels = make_runs(6, n_runs=2)
    q = to_qrels(qrels)
    with pytest.raises(ir_rbstar.errors.ParameterError, match="distance_matrix"):
        pair_means([to_ranking(r) for r in runs.values()], parse_measure("RBA(p=0.9)"), q, q.qcodes)
