"""Run-distance matrices (a pairwise MED, RBO or RBA distance matrix over a set of runs, as a DataFrame
and as a heat map): ir_rbstar.med, plots.plot_distance_matrix and ``ir-rbstar distance``."""
import doctest
import io
import os
import random
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import med
from ir_rbstar.cli import main
from ir_rbstar.errors import ParameterError, ReferenceNotFoundError
from tests.helpers import VASWANI

pytest.importorskip("matplotlib")


def make_runs(seed=0, n_runs=4, n_queries=5, depth=12, pool=20):
    rng = random.Random(seed)
    runs = {}
    for r in range(n_runs):
        runs[f"r{r}"] = {f"q{q}": {f"d{d}": float(depth - i) for i, d in enumerate(rng.sample(range(pool), depth))}
                         for q in range(n_queries)}
    return runs


def direct(runs, text, a, b, qrels=None):
    """The mean of ``text`` (with ref) for run a against run b, through ir_measures."""
    ir_rbstar.register_run("matrix_ref", runs[b])
    try:
        m = ir_rbstar.parse(text.replace("REF", "ref='matrix_ref'"))[0]
        return ir_measures.calc_aggregate([m], qrels, runs[a])[m]
    finally:
        ir_rbstar.unregister_run("matrix_ref")


@pytest.mark.parametrize("measure, text", [("MED_nDCG(max_rel=2)@10", "MED_nDCG(REF,max_rel=2)@10"),
                                           ("MED_P@5", "MED_P(REF)@5"),
                                           ("MED_RBP(p=0.8)", "MED_RBP(p=0.8,REF)"),
                                           ("MED_ERR(max_rel=2)@8", "MED_ERR(REF,max_rel=2)@8"),
                                           ("MED_AP@12", "MED_AP(REF)@12")])
def test_matrix_equals_pairwise_evaluations(measure, text):
    runs = make_runs()
    qrels = {"q0": {"d1": 1, "d2": 0, "d3": 2}, "q1": {"d4": 1}, "q3": {"d5": 0}}
    for judgments in (None, qrels):
        matrix = med.distance_matrix(runs, measure, judgments)
        assert list(matrix.index) == list(matrix.columns) == list(runs)
        for a in runs:
            for b in runs:
                if a != b:
                    assert matrix.loc[a, b] == pytest.approx(direct(runs, text, a, b, judgments), abs=1e-12)
        assert np.allclose(matrix.to_numpy(), matrix.to_numpy().T)
        # the diagonal is 0: a run is at distance 0 from itself. Evaluated against a copy of itself, a run
        # is 0 apart too, except under MED_RBP without a cutoff: the unseen tail after depth 12, p^12
        assert (np.diag(matrix.to_numpy()) == 0.0).all()
        own = [direct(runs, text, a, a, judgments) for a in runs]
        assert np.allclose(own, 0.8 ** 12 if measure == "MED_RBP(p=0.8)" else 0.0)
        pairs = med.pairwise(runs, measure, judgments)
        assert np.allclose(pairs.loc[pairs["run"] == pairs["ref"]].groupby("run")["value"].mean().to_numpy(), own)
    assert matrix.attrs["measure"] == matrix.attrs["distance"] == str(ir_rbstar.parse(measure)[0])


def test_similarities_become_distances():
    runs = make_runs(1)
    matrix = med.distance_matrix(runs, "RBO(p=0.9)@12")
    assert matrix.attrs["distance"] == "1 - RBO(p=0.9)@12"
    for a, b in (("r0", "r1"), ("r2", "r3")):
        assert matrix.loc[a, b] == pytest.approx(1 - direct(runs, "RBO(p=0.9,REF)@12", a, b), abs=1e-12)
    rba = med.distance_matrix(runs, ir_rbstar.RBA(p=0.8))
    assert rba.loc["r1", "r2"] == pytest.approx(1 - direct(runs, "RBA(p=0.8,REF)", "r1", "r2"), abs=1e-12)


def test_pairwise_long_form_and_different_query_sets():
    runs = make_runs(2, n_runs=2)
    runs["r1"].pop("q0")                       # r1 has no ranking for q0
    values = med.pairwise(runs, "MED_P@5 MED_nDCG@5")
    assert set(values.columns) == {"run", "ref", "query_id", "measure", "value"}
    # without qrels each run's own queries: r0 has 5 (q0 against an empty r1 ranking), r1 has 4
    p = values[values.measure == "MED_P@5"]
    assert len(p[(p.run == "r0") & (p.ref == "r1")]) == 5
    assert len(p[(p.run == "r1") & (p.ref == "r0")]) == 4
    row = p[(p.run == "r0") & (p.ref == "r1") & (p.query_id == "q0")]
    assert row.value.item() == pytest.approx(1.0)
    matrix = med.distance_matrix(runs, "MED_P@5")
    assert matrix.loc["r0", "r1"] != pytest.approx(matrix.loc["r1", "r0"])


@pytest.mark.parametrize("with_qrels", [False, True])
def test_pairwise_without_self_pairs_is_pairwise_without_its_diagonal(with_qrels):
    runs = make_runs(3, n_runs=3)
    runs["r1"].pop("q0")
    qrels = {q: {d: 1 for d in list(docs)[:2]} for q, docs in runs["r0"].items()} if with_qrels else None
    keys = ["run", "ref", "query_id", "measure"]
    every = med.pairwise(runs, "MED_P@5 MED_RBP(p=0.8)", qrels)
    every = every[every.run != every.ref].sort_values(keys).reset_index(drop=True)
    steps = []
    distinct = med.pairwise(runs, "MED_P@5 MED_RBP(p=0.8)", qrels, self_pairs=False,
                            progress=lambda i, n, msg: steps.append((i, n)))
    assert (distinct.run != distinct.ref).all()
    pd.testing.assert_frame_equal(distinct.sort_values(keys).reset_index(drop=True), every)
    assert steps == [(1, 2), (2, 2)]          # the last run has no later run to be evaluated against


def test_pairwise_without_self_pairs_of_a_single_run_has_no_rows():
    runs = make_runs(2, n_runs=1)
    out = med.pairwise(runs, "MED_P@5", self_pairs=False)
    assert out.empty and list(out.columns) == ["run", "ref", "query_id", "measure", "value"]


def test_runs_as_paths_and_globs():
    before = ir_rbstar.registered_runs()
    paths = [str(VASWANI / f) for f in ("bm25.run.gz", "bm25l.run.gz")]
    by_list = med.distance_matrix(paths, "MED_P@10")
    assert list(by_list.index) == ["bm25", "bm25l"]
    by_glob = med.distance_matrix(str(VASWANI / "bm25*.run.gz"), "MED_P@10")
    assert list(by_glob.index) == ["bm25", "bm25_flat", "bm25_round1", "bm25l"]
    assert by_glob.loc["bm25", "bm25l"] == pytest.approx(by_list.loc["bm25", "bm25l"])
    assert ir_rbstar.registered_runs() == before         # nothing left registered


def test_errors():
    runs = make_runs()
    with pytest.raises(ParameterError, match="distance matrix takes"):
        med.distance_matrix(runs, "RBR@10")
    with pytest.raises(ParameterError, match="one measure"):
        med.distance_matrix(runs, "MED_P@5 MED_P@10")
    with pytest.raises(ReferenceNotFoundError, match="matches no file"):
        med.distance_matrix("/no/such/dir/*.run", "MED_P@5")
    with pytest.raises(ParameterError, match="no runs"):
        med.distance_matrix({}, "MED_P@5")


def test_module_example():
    result = doctest.testmod(med, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 2 and result.failed == 0


# --- heat map ---

def test_heat_map_png_and_svg(tmp_path):
    from ir_rbstar.plots import plot_distance_matrix
    import matplotlib.pyplot as plt
    matrix = med.distance_matrix(make_runs(), "MED_nDCG@10")
    png = tmp_path / "m.png"
    fig = plot_distance_matrix(matrix, path=png)
    image = fig.axes[0].images[0].get_array()
    assert np.allclose(np.asarray(image), matrix.to_numpy())
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == [f"{v:.2f}" for v in matrix.to_numpy().ravel()]
    assert fig.axes[0].get_title() == "MED_nDCG@10 between 4 runs"
    plt.close(fig)
    pixels = plt.imread(png)
    assert pixels.shape[0] > 300 and pixels[..., :3].std() > 0.05
    svg = tmp_path / "m.svg"
    plt.close(plot_distance_matrix(matrix, path=svg, annotate=False, title=""))
    ET.parse(svg)


def test_heat_map_errors(tmp_path):
    from ir_rbstar.plots import plot_distance_matrix
    bad = pd.DataFrame([[0.0, np.nan], [0.1, 0.0]], index=["a", "b"], columns=["a", "b"])
    with pytest.raises(ParameterError, match=r"\('a', 'b'\)"):
        plot_distance_matrix(bad)
    with pytest.raises(ParameterError, match="non-empty"):
        plot_distance_matrix(pd.DataFrame())
    with pytest.raises(ParameterError, match="extension"):
        plot_distance_matrix(bad.fillna(0.0), path=tmp_path / "m.jpg")


# --- command line ---

def test_cli_distance(tmp_path, capsys):
    paths = [str(VASWANI / f) for f in ("bm25.run.gz", "bm25l.run.gz", "minilm_rerank.run.gz")]
    out_tsv, picture = tmp_path / "m.tsv", tmp_path / "m.png"
    assert main(["distance", *paths, "--measure", "MED_RBP(p=0.9)", "--output", str(out_tsv),
                 "--picture", str(picture)]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "# MED_RBP(p=0.9), mean over the queries; rows: run, columns: ref"
    written = pd.read_csv(out_tsv, sep="\t", index_col=0)
    expected = med.distance_matrix(paths, "MED_RBP(p=0.9)")
    assert np.allclose(written.to_numpy(), expected.to_numpy(), atol=1e-12)
    shown = pd.read_csv(io.StringIO("\n".join(printed.splitlines()[1:4 + 1])), sep="\t", index_col=0)
    assert np.allclose(shown.to_numpy(), expected.round(4).to_numpy())
    assert picture.stat().st_size > 1000
    # with qrels: judged documents are known values
    qrels = str(VASWANI / "qrels")
    assert main(["distance", *paths[:2], "--measure", "MED_nDCG@10", "--qrels", qrels]) == 0
    judged = pd.read_csv(io.StringIO(capsys.readouterr().out.split("\n", 1)[1]), sep="\t", index_col=0)
    free = med.distance_matrix(paths[:2], "MED_nDCG@10")
    assert judged.loc["bm25", "bm25l"] <= free.loc["bm25", "bm25l"] + 1e-4
    assert judged.loc["bm25", "bm25l"] == pytest.approx(
        med.distance_matrix(paths[:2], "MED_nDCG@10", qrels).loc["bm25", "bm25l"], abs=1e-4)


def test_cli_distance_errors(tmp_path, capsys):
    path = str(VASWANI / "bm25.run.gz")
    assert main(["distance", path, path, "--measure", "RBR@10"]) == 2
    assert "distance matrix takes" in capsys.readouterr().err
    assert main(["distance", path, "--picture", str(tmp_path / "x.gif")]) == 2
    assert "extension" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "x.gif")


def test_matrix_of_pairwise_values_of_several_measures():
    runs = make_runs(3)
    values = med.pairwise(runs, "MED_P@5 RBO(p=0.9)@12")
    assert set(values["measure"]) == {"MED_P@5", "RBO(p=0.9)@12"}
    for measure in ("MED_P@5", "RBO(p=0.9)@12"):
        assert med.matrix_of(values, measure).equals(med.distance_matrix(runs, measure))
    with pytest.raises(ParameterError, match="no values"):
        med.matrix_of(values, "MED_nDCG@5")
