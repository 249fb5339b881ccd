"""The NRG scatter (ir_rbstar.plots.plot_nrg; Figs. 2-5 of Bigdeli, Arabzadeh, Bagheri & Clarke, SIGIR-AP
2024): a measure against its base over a set of runs, one labelled point per run, coloured by group, with
highlighted groups; rendered from small synthetic frames to PNG and SVG, and its errors."""
import doctest
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from ir_rbstar import plots  # noqa: E402
from ir_rbstar.errors import ParameterError  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _points():
    return pd.DataFrame({
        "run": ["bm25", "bm25_rm3", "bm25_ax", "bert_a", "bert_b", "duet"],
        "group": ["BASELINE", "BASELINE", "BASELINE", "neural", "neural", "other"],
        "nDCG@10": [0.50, 0.52, 0.55, 0.76, 0.74, 0.61],
        "NRG@10": [0.10, 0.13, 0.16, 0.12, 0.10, 0.12],
        "UniqueRel@10": [0.2, 0.3, 0.4, 0.3, 0.1, 0.7],
    })


def _png(path):
    img = mpimg.imread(str(path))
    width, height = (round(v * plots.DPI) for v in plots.NRG_FIGSIZE)
    assert img.shape[:2] == (height, width)
    assert float(img.std()) > 0
    rgb = np.round(img[..., :3] * 255).astype(np.int64)
    assert len(np.unique(rgb[..., 0] * 65536 + rgb[..., 1] * 256 + rgb[..., 2])) > 10
    return img


def _scatters(ax):
    return [c for c in ax.collections if len(c.get_offsets())]


def test_png_has_every_run_labelled_and_coloured_by_group(tmp_path, capsys):
    points = _points()
    path = tmp_path / "nrg.png"
    fig = plots.plot_nrg(points, path=path)
    assert capsys.readouterr().out == ""
    assert path.exists()
    _png(path)
    (ax,) = fig.axes
    assert sorted(t.get_text() for t in ax.texts) == sorted(points["run"])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["BASELINE", "neural", "other"]
    assert ax.get_xlabel() == "nDCG@10" and ax.get_ylabel() == "NRG@10"
    assert ax.get_title() == "NRG@10 against nDCG@10 (6 runs)"
    drawn = np.vstack([c.get_offsets() for c in _scatters(ax)])
    expected = points[["nDCG@10", "NRG@10"]].to_numpy()
    assert sorted(map(tuple, drawn.tolist())) == sorted(map(tuple, expected.tolist()))
    colours = {tuple(np.round(c.get_facecolor()[0], 6)) for c in _scatters(ax)}
    assert len(colours) == 3                              # one colour per group
    for text in ax.texts:                                 # each label sits at its own point
        row = points[points["run"] == text.get_text()].iloc[0]
        assert text.xy == pytest.approx((row["nDCG@10"], row["NRG@10"]))


def test_other_columns_title_and_svg(tmp_path):
    path = tmp_path / "unique.svg"
    fig = plots.plot_nrg(_points(), y="UniqueRel@10", path=path, title="unique contributions")
    text = path.read_text()
    assert ET.fromstring(text.encode()).tag.endswith("svg")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "UniqueRel@10" and ax.get_title() == "unique contributions"
    assert plots.plot_nrg(_points(), title="").axes[0].get_title() == ""


def test_no_path_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fig = plots.plot_nrg(_points())
    assert fig.axes and not list(tmp_path.iterdir())


def test_highlight_is_distinct():
    fig = plots.plot_nrg(_points(), highlight="BASELINE")
    ax = fig.axes[0]
    by_label = {c.get_label(): c for c in _scatters(ax)}
    base, other = by_label["BASELINE"], by_label["neural"]
    assert base.get_sizes()[0] > other.get_sizes()[0]
    assert tuple(base.get_edgecolor()[0][:3]) == (0.0, 0.0, 0.0)
    assert tuple(base.get_facecolor()[0][:3]) != tuple(other.get_facecolor()[0][:3])
    bold = {t.get_text() for t in ax.texts if t.get_fontweight() in ("bold", 700)}
    assert bold == {"bm25", "bm25_rm3", "bm25_ax"}
    # a list of groups works too
    fig = plots.plot_nrg(_points(), highlight=["BASELINE", "other"])
    bold = {t.get_text() for t in fig.axes[0].texts if t.get_fontweight() in ("bold", 700)}
    assert bold == {"bm25", "bm25_rm3", "bm25_ax", "duet"}


def test_labels_of_coincident_points_do_not_overlap():
    """Four runs on one spot (e.g. identical runs): each label gets its own side of the point."""
    points = pd.DataFrame({"run": ["alpha", "beta", "gamma", "delta", "far"], "group": ["g"] * 5,
                           "nDCG@10": [0.5, 0.5, 0.5, 0.5, 0.9], "NRG@10": [0.1, 0.1, 0.1, 0.1, 0.3]})
    fig = plots.plot_nrg(points)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in fig.axes[0].texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (fig.axes[0].texts[i].get_text(), fig.axes[0].texts[j].get_text())


def test_without_labels_or_groups():
    points = _points()
    fig = plots.plot_nrg(points, label=None, group=None)
    ax = fig.axes[0]
    assert not ax.texts and ax.get_legend() is None
    assert len(_scatters(ax)) == 1
    fig = plots.plot_nrg(points[["run", "nDCG@10", "NRG@10"]], group=None)
    assert len(fig.axes[0].texts) == 6


def test_a_single_point():
    fig = plots.plot_nrg(_points().iloc[:1])
    lo, hi = fig.axes[0].get_ylim()
    assert lo < 0.10 < hi


@pytest.mark.parametrize("kwargs,message", [
    (dict(x="P@10"), "x='P@10'"),
    (dict(y="NRG@20"), "y='NRG@20'"),
    (dict(label="name"), "label='name'"),
    (dict(group="team"), "group='team'"),
    (dict(highlight="BASE"), "highlight='BASE'"),
    (dict(highlight="BASELINE", group=None), "group="),
    (dict(path="nrg.jpg"), "unsupported file extension"),
])
def test_parameter_errors(kwargs, message):
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plots.plot_nrg(_points(), **kwargs)


def test_missing_columns_are_listed():
    with pytest.raises(ParameterError) as e:
        plots.plot_nrg(_points(), x="P@10", y="NRG@20")
    assert "x='P@10'" in str(e.value) and "y='NRG@20'" in str(e.value) and "'nDCG@10'" in str(e.value)


def test_bad_frames():
    with pytest.raises(ParameterError, match="empty"):
        plots.plot_nrg(_points().iloc[:0])
    with pytest.raises(ParameterError, match="DataFrame"):
        plots.plot_nrg(_points().to_dict("records"))
    bad = _points()
    bad["NRG@10"] = bad["NRG@10"].astype(object)
    bad.loc[2, "NRG@10"] = "n/a"
    with pytest.raises(ParameterError, match="must hold numbers"):
        plots.plot_nrg(bad)
    bad = _points()
    bad.loc[3, "nDCG@10"] = np.nan
    with pytest.raises(ParameterError, match="bert_a"):
        plots.plot_nrg(bad)


def test_bad_extension_fails_before_drawing(tmp_path):
    before = plt.get_fignums()
    with pytest.raises(ParameterError):
        plots.plot_nrg(_points(), path=tmp_path / "nrg.pdf")
    assert plt.get_fignums() == before and not list(tmp_path.iterdir())


def test_docstring_example():
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(plots.plot_nrg, "plot_nrg", globs={}):
        runner.run(test)
    summary = runner.summarize(verbose=False)
    assert summary.attempted > 0 and summary.failed == 0
