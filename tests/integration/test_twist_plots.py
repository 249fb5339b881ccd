"""Pictures of the Twist analysis (ir_rbstar.plots; Ferro et al., JASIST 2016): the CRP curve of a run on
a topic and the effort/gain plot, from Python and from the command line, on the bundled Vaswani
collection.

The share table of the effort/gain plot is checked against counts made here from ``twist_table`` and
ir_measures' own AP (its own file readers), with the same cut points; the DCG panel against
ir_measures' nDCG."""
import functools
import gzip
import math
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import ir_measures  # noqa: E402
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

import ir_rbstar  # noqa: E402,F401  (registers the measures and the provider)
from ir_rbstar import cli, plots, twist as T  # noqa: E402
from ir_rbstar.errors import EmptyInputError, ParameterError  # noqa: E402

from tests.helpers import VASWANI  # noqa: E402

QRELS = str(VASWANI / "qrels")
RUNS = {name: str(VASWANI / f"{name}.run.gz") for name in ("bm25", "bm25l")}
QUERY = "2"                 # recall base 15, first crossing at 92: a typical A run with bm25


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _pixels(path, figsize):
    """The PNG's pixels, after checking its size (figsize x DPI) and that it is not blank."""
    img = mpimg.imread(str(path))
    width, height = (round(v * plots.DPI) for v in figsize)
    assert img.shape[:2] == (height, width)
    assert float(img.std()) > 0
    rgb = np.round(img[..., :3] * 255).astype(np.int64)
    colours = np.unique(rgb[..., 0] * 65536 + rgb[..., 1] * 256 + rgb[..., 2])
    assert len(colours) > 10
    return img


def _svg(path):
    text = path.read_text()
    assert "<svg" in text
    root = ET.fromstring(text.encode())
    assert root.tag.endswith("svg")
    return text


def _line(ax, label_start):
    lines = [line for line in ax.get_lines() if str(line.get_label()).startswith(label_start)]
    assert len(lines) == 1, [line.get_label() for line in ax.get_lines()]
    return lines[0]


# --- plot_crp ---------------------------------------------------------------------------------

def test_crp_png_draws_the_curves_of_crp_curve(tmp_path, capsys):
    path = tmp_path / "crp.png"
    fig = plots.plot_crp(QRELS, RUNS["bm25"], QUERY, path=path)
    assert capsys.readouterr().out == ""                # library code never prints
    _pixels(path, plots.CRP_FIGSIZE)
    curve = T.crp_curve(QRELS, RUNS["bm25"], QUERY)
    (ax,) = fig.axes
    run = _line(ax, "run")
    assert np.array_equal(run.get_xdata(), np.arange(1, curve.length + 1))
    assert np.array_equal(run.get_ydata(), curve.crp)
    assert np.array_equal(_line(ax, "full-scale").get_ydata(), curve.full_scale_crp)
    assert not _line(ax, "ideal").get_ydata().any()
    assert list(_line(ax, "recall base").get_xdata()) == [curve.recall_base] * 2
    assert list(_line(ax, "crossings").get_xdata()) == curve.crossings.tolist()
    beta = _line(ax, "balance point")
    assert list(beta.get_xdata()) == [curve.balance_point] == [92.0]
    assert list(beta.get_ydata()) == [curve.crp[91]]
    legend = ax.get_legend()
    title = legend.get_title().get_text()
    assert f"{curve.rho:.3f}" in title and f"{curve.sigma:.3f}" in title and f"{curve.tau:.3f}" in title
    assert "typical a" in title and curve.archetype == "typical_a"
    assert "bm25" in ax.get_title() and QUERY in ax.get_title()


def test_crp_with_dcg_panel_matches_ir_measures_ndcg(tmp_path):
    path = tmp_path / "crp_dcg.svg"
    fig = plots.plot_crp(QRELS, RUNS["bm25"], QUERY, dcg=True, path=path)
    _svg(path)
    crp_ax, dcg_ax = fig.axes
    run, ideal = _line(dcg_ax, "run DCG"), _line(dcg_ax, "ideal DCG")
    # DCG from scratch: gain = grade, discount log2(j + 1); binary grades on Vaswani
    curve = T.crp_curve(QRELS, RUNS["bm25"], QUERY)
    gains = curve.grades.astype(float)
    expected = np.cumsum(gains / np.log2(np.arange(2, len(gains) + 2)))
    np.testing.assert_allclose(run.get_ydata(), expected, rtol=1e-12)
    n_ideal = np.minimum(np.arange(1, curve.length + 1), curve.recall_base)
    ideal_expected = np.array([sum(1 / math.log2(j + 1) for j in range(1, k + 1)) for k in n_ideal])
    np.testing.assert_allclose(ideal.get_ydata(), ideal_expected, rtol=1e-12)
    ndcg = ir_measures.parse_measure("nDCG")
    run_q = {QUERY: _read(RUNS["bm25"])[QUERY]}
    (value,) = [m.value for m in ir_measures.iter_calc([ndcg], {QUERY: _read(QRELS)[QUERY]}, run_q)]
    assert run.get_ydata()[-1] / ideal.get_ydata()[-1] == pytest.approx(value, abs=1e-6)
    assert f"{value:.3f}" in run.get_label()


def test_crp_into_given_axes_and_cutoff():
    fig, ax = plt.subplots()
    assert plots.plot_crp(QRELS, RUNS["bm25l"], QUERY, cutoff=50, ax=ax) is fig
    assert len(_line(ax, "run").get_ydata()) == 50
    assert "CRP@50" in ax.get_title()
    fig, axes = plt.subplots(1, 2)
    assert plots.plot_crp(QRELS, RUNS["bm25l"], QUERY, dcg=True, ax=axes, title="two panels") is fig
    assert fig._suptitle.get_text() == "two panels"
    with pytest.raises(ParameterError, match="ax"):
        plots.plot_crp(QRELS, RUNS["bm25l"], QUERY, dcg=True, ax=axes[0])


def test_crp_small_cases_worst_run_and_recall_base_zero():
    qrels = {"q1": {"a": 2, "b": 1, "c": 1}, "q2": {"z": 0}, "q3": {"a": 1}}
    run = {"q1": {"x": 5.0, "y": 4.0, "b": 3.0, "a": 2.0, "c": 1.0}, "q2": {"z": 1.0}}
    fig = plots.plot_crp(qrels, run, "q1", dcg=True)
    assert _line(fig.axes[0], "run").get_ydata().tolist() == [-3, -5, -5, -2, 0]     # ir_rbstar.twist doc
    nothing = plots.plot_crp(qrels, run, "q3")                   # not retrieved: worst, no crossing
    labels = [str(t.get_text()) for t in nothing.axes[0].get_legend().get_texts()]
    assert "the run retrieved nothing" in labels and "no crossing: \u03b2 = \u221e" in labels
    assert "worst" in nothing.axes[0].get_legend().get_title().get_text()
    none = plots.plot_crp(qrels, run, "q2")                      # recall base 0: no Twist value
    assert "recall base 0" in none.axes[0].get_legend().get_title().get_text()


# --- plot_effort_gain -------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _read(path):
    """A TREC run or qrels file as a dict of dicts, read here (not with ir_rbstar's reader)."""
    out = {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 6:
                out.setdefault(fields[0], {})[fields[2]] = float(fields[4])
            elif len(fields) == 4:
                out.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    return out


@functools.lru_cache(maxsize=None)
def _expected_shares(run_names, measure_text, rel=1):
    """Counts per cell from twist_table and ir_measures, right-closed intervals, top row first."""
    measure = ir_measures.parse_measure(measure_text)
    xs, ys = [], []
    for name in run_names:
        path = RUNS[name]
        table = T.twist_table(QRELS, path, rel=rel).dropna(subset=["tau"])
        gain = {m.query_id: m.value for m in ir_measures.iter_calc([measure], _read(QRELS), _read(path))}
        for qid, tau in zip(table["query_id"], table["tau"]):
            xs.append(tau)
            ys.append(gain[qid])
    xs, ys = np.array(xs), np.array(ys)
    q1, q2, q3 = np.percentile(ys, [25, 50, 75])
    rows = [ys > q3, (ys > q2) & (ys <= q3), (ys > q1) & (ys <= q2), ys <= q1]          # top row first
    cols = [xs <= 0.25, (xs > 0.25) & (xs <= 0.5), (xs > 0.5) & (xs <= 0.75), xs > 0.75]
    counts = np.array([[np.sum(r & c) for c in cols] for r in rows])
    return counts, len(xs), (q1, q2, q3)


def test_effort_gain_shares_match_an_independent_count(tmp_path, capsys):
    path = tmp_path / "eg.png"
    fig, shares = plots.plot_effort_gain(QRELS, RUNS, gain="AP", path=path)
    assert capsys.readouterr().out == ""
    _pixels(path, plots.EFFORT_GAIN_FIGSIZE)
    counts, n, cuts = _expected_shares(tuple(RUNS), "AP(rel=1)")
    assert n == 2 * 93 and counts.sum() == n
    assert shares.shape == (4, 4)
    assert list(shares.index) == ["Q4", "Q3", "Q2", "Q1"]
    assert list(shares.columns) == list(plots.TWIST_LABELS)
    assert shares.to_numpy().sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(shares.to_numpy(), counts / n, atol=1e-12)
    np.testing.assert_allclose(shares.attrs["gain_cuts"], cuts, rtol=1e-12)
    assert shares.attrs["points"] == n
    (ax,) = fig.axes
    texts = {t.get_text() for t in ax.texts}
    assert {f"{100 * v:.1f}%" for v in (counts / n).ravel()} <= texts and len(ax.texts) == 16
    assert sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "-") == [0.25, 0.5, 0.75]
    assert sorted(line.get_ydata()[0] for line in ax.get_lines()
                  if line.get_linestyle() == "--") == pytest.approx(sorted(cuts))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["bm25", "bm25l"]


@pytest.mark.parametrize("gain, text", [("nDCG", "nDCG"), ("rbp", "RBP(p=0.8,rel=1)"), ("P@10", "P@10")])
def test_effort_gain_other_gains(gain, text, tmp_path):
    path = tmp_path / "eg.svg" if gain == "nDCG" else None
    fig, shares = plots.plot_effort_gain(QRELS, {"bm25": RUNS["bm25"]}, gain=gain, path=path)
    if path:
        _svg(path)
    assert str(shares.attrs["gain"]) == text
    counts, n, _ = _expected_shares(("bm25",), text)
    np.testing.assert_allclose(shares.to_numpy(), counts / n, atol=1e-12)


def test_effort_gain_accepts_dataframes_and_dicts_and_applies_the_cutoff():
    frame = ir_rbstar.read_run(RUNS["bm25"])
    as_dict = {q: dict(zip(g["doc_id"], g["score"])) for q, g in frame.groupby("query_id")}
    points = plots.effort_gain_points(QRELS, {"file": RUNS["bm25"], "frame": frame, "dict": as_dict})
    by_run = {name: g.set_index("query_id")[["twist", "gain"]] for name, g in points.groupby("run")}
    assert by_run["file"].equals(by_run["frame"]) and by_run["file"].equals(by_run["dict"])
    cut = plots.effort_gain_points(QRELS, {"bm25": RUNS["bm25"]}, gain="AP", cutoff=10)
    assert str(cut.attrs["gain"]) == "AP@10"
    twist10 = {m.query_id: m.value for m in ir_measures.iter_calc([ir_rbstar.Twist @ 10], _read(QRELS), as_dict)}
    assert cut.set_index("query_id")["twist"].to_dict() == pytest.approx(twist10)


def test_effort_gain_without_any_recall_base():
    with pytest.raises(EmptyInputError, match="recall base"):
        plots.plot_effort_gain(QRELS, RUNS, rel=2)          # Vaswani is binary: no grade 2


# --- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    (dict(gain="NoSuchMeasure"), "gain"),
    (dict(gain="AP("), "gain"),
    (dict(gain="AP@0"), "gain"),
    (dict(gain=3), "gain"),
    (dict(runs={}), "runs"),
    (dict(runs=["a.run"]), "runs"),
    (dict(path="eg.pdf"), "path"),
    (dict(path="eg"), "path"),
    (dict(cutoff=0), "cutoff"),
    (dict(rel=1.5), "rel"),
])
def test_effort_gain_bad_parameters(kwargs, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = {"runs": RUNS, **kwargs}
    with pytest.raises(ParameterError, match=match):
        plots.plot_effort_gain(QRELS, args.pop("runs"), **args)
    assert not list(tmp_path.iterdir())


def test_crp_bad_parameters(tmp_path):
    with pytest.raises(ParameterError, match="path"):
        plots.plot_crp(QRELS, RUNS["bm25"], QUERY, path=tmp_path / "crp.jpg")
    with pytest.raises(ParameterError, match="no judgments"):
        plots.plot_crp(QRELS, RUNS["bm25"], "no-such-query")
    with pytest.raises(ParameterError, match="cutoff"):
        plots.plot_crp(QRELS, RUNS["bm25"], QUERY, cutoff=-3)
    assert not list(tmp_path.iterdir())


def test_missing_matplotlib_says_how_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r'pip install "ir_rbstar\[plot\]"'):
        plots.plot_crp(QRELS, RUNS["bm25"], QUERY)
    out = tmp_path / "crp.png"
    assert cli.main(["plot", "crp", QRELS, RUNS["bm25"], "--query", QUERY, "--output", str(out)]) == 2
    assert 'pip install "ir_rbstar[plot]"' in capsys.readouterr().err and not out.exists()


def test_run_names():
    assert plots.run_name("runs/bm25.run.gz") == "bm25"
    assert plots.run_name("a.txt") == "a" and plots.run_name("b.res") == "b.res"
    assert plots.run_names(["x/bm25.run", "y/bm25.run.gz", "z.txt"]) == {
        "bm25": "x/bm25.run", "bm25 (2)": "y/bm25.run.gz", "z": "z.txt"}


# --- command line -------------------------------------------------------------------------------

def test_cli_crp(tmp_path, capsys):
    png, svg = tmp_path / "crp.png", tmp_path / "crp.svg"
    assert cli.main(["plot", "crp", QRELS, RUNS["bm25"], "--query", QUERY, "--dcg", "--output", str(png)]) == 0
    assert capsys.readouterr().out.strip() == str(png)
    _pixels(png, plots.CRP_DCG_FIGSIZE)
    assert cli.main(["plot", "crp", QRELS, RUNS["bm25l"], "--query", QUERY, "--cutoff", "100", "--rel", "1",
                     "--output", str(svg)]) == 0
    _svg(svg)
    assert not plt.get_fignums()                         # the command closes its figures


def test_cli_effort_gain(tmp_path, capsys):
    png = tmp_path / "eg.png"
    assert cli.main(["plot", "effort-gain", QRELS, *RUNS.values(), "--gain", "AP", "--output", str(png)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == str(png)
    _pixels(png, plots.EFFORT_GAIN_FIGSIZE)
    counts, n, _ = _expected_shares(tuple(RUNS), "AP(rel=1)")
    table = [line.split() for line in out if line.startswith("Q")]
    assert [row[0] for row in table] == ["Q4", "Q3", "Q2", "Q1"]
    np.testing.assert_allclose(np.array([[float(v) for v in row[1:]] for row in table]),
                               np.round(100 * counts / n, 1))
    assert "186 run x topic points" in out[1]
    svg = tmp_path / "eg.svg"
    assert cli.main(["plot", "effort-gain", QRELS, RUNS["bm25"], "--gain", "nDCG", "--cutoff", "20",
                     "--output", str(svg)]) == 0
    _svg(svg)
    assert "nDCG@20" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["plot", "effort-gain", QRELS, RUNS["bm25"], "--gain", "NoSuchMeasure", "--output", "{tmp}/eg.png"], "gain"),
    (["plot", "effort-gain", QRELS, RUNS["bm25"], "--output", "{tmp}/eg.pdf"], "extension"),
    (["plot", "crp", QRELS, RUNS["bm25"], "--query", "nope", "--output", "{tmp}/c.png"], "no judgments"),
    (["plot", "crp", QRELS, RUNS["bm25"], "--query", QUERY, "--cutoff", "0", "--output", "{tmp}/c.png"], "cutoff"),
    (["plot", "crp", "none", RUNS["bm25"], "--query", QUERY, "--output", "{tmp}/c.png"], "judgments"),
    (["plot", "crp", QRELS, "{tmp}/missing.run", "--query", QUERY, "--output", "{tmp}/c.png"], "not found"),
    (["plot", "effort-gain", "{tmp}/missing.qrels", RUNS["bm25"], "--output", "{tmp}/eg.png"], "missing.qrels"),
])
def test_cli_bad_input_exits_2(argv, message, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and captured.err.startswith("ir-rbstar: error:")
    assert not list(tmp_path.iterdir())


def test_cli_usage_errors_and_help(capsys):
    for argv in (["plot"], ["plot", "crp", QRELS, RUNS["bm25"], "--output", "x.png"], ["plot", "histogram"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 2
    capsys.readouterr()
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "ir-rbstar plot" in capsys.readouterr().out


def test_measure_command_unchanged(capsys):
    assert cli.main([QRELS, RUNS["bm25"], "Twist", "AP"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["Twist", "AP"]
