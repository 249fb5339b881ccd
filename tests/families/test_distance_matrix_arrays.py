"""``ir_rbstar.med.distance_matrix`` and ``ir-rbstar distance`` go through ir_rbstar.matrices (one mechanism
with the report): the matrices equal the pair-by-pair evaluation (``matrix_of(pairwise(...))``, what they gave
before) to 1e-15, with and without qrels, on runs with ties, unequal depths and missing queries."""
import io

import numpy as np
import pandas as pd
import pytest

import ir_rbstar
from ir_rbstar.cli import main as cli_main
from ir_rbstar.med import distance_matrix, matrix_of, pairwise
from ir_rbstar.parsing import parse_measure
from tests.families.test_pair_matrices import make_runs

MEASURES = ["RBO(p=0.9)", "RBO(p=0.5)", "MED_nDCG(max_rel=2)@5", "MED_P@3", "RBA(p=0.9)", "MED_RBP(p=0.8)@10"]


def pair_by_pair(runs, text, qrels):
    m = parse_measure(text)
    return matrix_of(pairwise(runs, [m], qrels), m)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("text", MEASURES)
def test_distance_matrix_equals_the_pair_by_pair_values(seed, text, monkeypatch):
    import ir_rbstar.matrices as matrices
    calls = []
    real = matrices.pair_means
    monkeypatch.setattr(matrices, "pair_means", lambda *a: calls.append(a) or real(*a))
    runs, qrels = make_runs(seed, long_ids=seed == 1)
    got = distance_matrix(runs, text, qrels)
    assert bool(calls) == (text.startswith(("RBO", "MED_nDCG", "MED_P"))), "arrays where matrices.fast says so"
    want = pair_by_pair(runs, text, qrels)
    assert got.attrs == want.attrs and list(got.index) == list(want.index)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-15)


@pytest.mark.parametrize("missing", [False, True])
def test_without_qrels(missing):
    """Without qrels each run's queries are its universe: every run answers the same queries -> arrays over the
    pairs; otherwise pair by pair (the two directions of a pair may then differ)."""
    runs, _ = make_runs(7, n_runs=4)
    queries = sorted({q for r in runs.values() for q in r})
    for name, run in runs.items():                 # every run answers every query
        for q in queries:
            run.setdefault(q, {"dx": 1.0, "dy": 0.5})
    if missing:
        del runs["r2"][queries[0]]
    import ir_rbstar.matrices as matrices
    for text in ("RBO(p=0.9)", "MED_nDCG(judgments=False)@5"):
        before = matrices.pair_means
        calls = []
        matrices.pair_means = lambda *a: calls.append(a) or before(*a)
        try:
            got = distance_matrix(runs, text)
        finally:
            matrices.pair_means = before
        assert bool(calls) == (text.startswith("RBO") and not missing)
        want = pair_by_pair(runs, text, None)
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-15)
    if missing:
        assert not np.allclose(got.to_numpy(), got.to_numpy().T)


def test_the_command_prints_the_same_matrix(tmp_path):
    runs, qrels = make_runs(3, n_runs=3)
    files = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n" for q, ds in run.items() for d, s in ds.items()))
        files.append(str(path))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items()))
    out = io.StringIO()
    import contextlib
    with contextlib.redirect_stdout(out):
        assert cli_main(["distance", *files, "--measure", "RBO(p=0.9)", "--qrels", str(tmp_path / "qrels"),
                         "--places", "15"]) == 0
    lines = [line for line in out.getvalue().splitlines() if not line.startswith("#")]
    got = pd.read_csv(io.StringIO("\n".join(lines)), sep="\t", index_col=0)
    want = pair_by_pair({n: ir_rbstar.read_run(f) for n, f in zip(runs, files, strict=True)}, "RBO(p=0.9)",
                        ir_rbstar.read_qrels(str(tmp_path / "qrels")))
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-14)
