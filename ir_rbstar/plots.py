"""Pictures of the Twist analysis (papers/002; SPEC sections 3 and 6), drawn with matplotlib.

* :func:`plot_crp`: the CRP curve of a run on one topic, with the ideal run (the zero line), the
  full-scale run, the recall base, the crossings and the balance point (papers/002, Figs. 2-3), and on
  request the run's cumulative DCG beside it (Fig. 11);
* :func:`plot_effort_gain`: Twist (effort) against a gain measure (AP, nDCG, RBP or any ir_measures
  measure) for every run x topic, on the paper's 4 x 4 grid (Figs. 7-10), with the share of points in
  each cell; :func:`effort_gain_points` gives the points themselves;
* :func:`plot_nrg`: a residual-gain measure (NRG, UniqueRel, RarP, TaSC, ...) against a base measure
  over a set of runs, one labelled point per run, coloured by group (papers/004, Figs. 2-5);
* :func:`plot_distance_matrix`: a heat map of a run-distance matrix (MED, 1 - RBO, 1 - RBA) made by
  :func:`ir_rbstar.med.distance_matrix` (papers/003, section VI).

matplotlib is an optional dependency: ``pip install "ir_rbstar[plot]"``. It is imported only when a
picture is drawn; on a machine without a display (no ``DISPLAY`` / ``WAYLAND_DISPLAY`` on Linux) and
with no backend chosen by the user, the non-interactive "Agg" backend is selected. Figures are made
with ``matplotlib.pyplot``, so ``plt.show()`` shows them; close them with ``plt.close(fig)`` when
drawing many. ``path`` writes a PNG (at :data:`DPI` dots per inch) or an SVG, chosen by its extension.

Command line: ``ir-rbstar plot crp QRELS RUN --query Q --output crp.png`` and
``ir-rbstar plot effort-gain QRELS RUN [RUN ...] --gain AP --output eg.png``; the heat map comes with
``ir-rbstar distance RUN RUN [RUN ...] --measure MED_nDCG@20 --picture matrix.png``.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional, Tuple, Union

import numpy as np
import pandas as pd

from .errors import EmptyInputError, ParameterError, RbstarError
from .datasets import resolve_qrels
from .io import QUERY_IDS, ranking_frame, to_ranking
from .core.ties import discount_cum
from .twist import CRPCurve, check_rel_cutoff, crp_curve, twist_table

if TYPE_CHECKING:                                    # matplotlib stays optional at run time
    from matplotlib.figure import Figure

__all__ = ["plot_crp", "plot_effort_gain", "effort_gain_points", "plot_nrg", "plot_distance_matrix",
           "picture_format", "run_name", "run_names",
           "TWIST_CUTS", "TWIST_LABELS", "GAIN_SHORTCUTS", "DPI", "CRP_FIGSIZE", "CRP_DCG_FIGSIZE",
           "EFFORT_GAIN_FIGSIZE", "NRG_FIGSIZE"]

#: resolution of written PNG files (dots per inch); a figure of W x H inches gives W*DPI x H*DPI pixels
DPI = 100
#: figure sizes in inches: the CRP panel alone, CRP and DCG side by side, the effort/gain plot
CRP_FIGSIZE = (7.0, 5.5)
CRP_DCG_FIGSIZE = (13.0, 5.5)
EFFORT_GAIN_FIGSIZE = (7.0, 6.0)
#: size of the NRG scatter (room on the right for the legend of the groups)
NRG_FIGSIZE = (10.0, 6.5)
#: size of a distance-matrix heat map per run (inches), and its smallest size
MATRIX_CELL = 0.55
MATRIX_MIN_SIZE = 4.5

#: the Twist bounds of the paper's columns (papers/002, "Effort/Gain Plots"): huge effort (worst and
#: full-scale-like runs), high effort (typical B), medium effort (typical A), low effort (excellent)
TWIST_CUTS = (0.25, 0.5, 0.75)
#: column labels: right-closed intervals, the first one closed on both sides
TWIST_LABELS = ("[0, 0.25]", "(0.25, 0.5]", "(0.5, 0.75]", "(0.75, 1]")
#: gain names understood without a measure string (``rel`` and ``cutoff`` are applied to them)
GAIN_SHORTCUTS = ("AP", "nDCG", "RBP")
RBP_PERSISTENCE = 0.8          # papers/002 compares Twist with RBP at p = 0.8

_INSTALL = 'matplotlib is needed for ir_rbstar pictures: pip install "ir_rbstar[plot]"'
_EXTENSIONS = {".png": "png", ".svg": "svg"}

PathLike = Union[str, os.PathLike]


# ---------------------------------------------------------------------------------------------
# matplotlib, paths, parameters
# ---------------------------------------------------------------------------------------------

def _has_display() -> bool:
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _pyplot():
    """``matplotlib.pyplot``, imported on first use ("Agg" when there is no display and no backend
    was chosen)."""
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError(_INSTALL) from e
    if "matplotlib.pyplot" not in sys.modules and not os.environ.get("MPLBACKEND") and not _has_display():
        chosen = getattr(matplotlib.rcParams, "_get_backend_or_none", lambda: None)()
        if chosen is None:                          # still "auto": nobody called matplotlib.use()
            matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def picture_format(path: Optional[PathLike]) -> Optional[str]:
    """The format a picture is written in, from the extension of ``path``: "png" or "svg" (None for no
    path); any other extension raises ParameterError."""
    if path is None:
        return None
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in _EXTENSIONS:
        raise ParameterError(f"path={os.fspath(path)!r}: unsupported file extension {ext or '(none)'!r}; "
                             f"write a picture as .png or .svg")
    return _EXTENSIONS[ext]


def _set_title(ax, title: Optional[str], default: str) -> None:
    """``title`` on the axes; None means ``default``, "" no title."""
    title = default if title is None else title
    if title:
        ax.set_title(title)


def _save(fig, path: Optional[PathLike]) -> None:
    fmt = picture_format(path)
    if fmt == "png":
        fig.savefig(path, format="png", dpi=DPI)
    elif fmt == "svg":
        fig.savefig(path, format="svg", metadata={"Date": None})


# ---------------------------------------------------------------------------------------------
# CRP curve
# ---------------------------------------------------------------------------------------------

def _judged_grades(qrels, query_id: str) -> np.ndarray:
    code = QUERY_IDS.encode([str(query_id)])[0]
    return qrels.grades[qrels.rowq == code]


def _dcg_curves(run_grades: np.ndarray, judged_grades: np.ndarray, length: int) -> Tuple[np.ndarray, np.ndarray]:
    """Cumulative DCG of the run and of the ideal ordering over positions 1..length: gain = grade
    (negative grades count 0), discount log2(j + 1)."""
    discount = discount_cum(length)[0][1:]               # 1 / log2(j + 1), j = 1..length
    gains = np.clip(np.asarray(run_grades[:length], dtype=np.float64), 0.0, None)
    ideal = np.zeros(length)
    best = np.sort(np.clip(np.asarray(judged_grades, dtype=np.float64), 0.0, None))[::-1][:length]
    ideal[:len(best)] = best
    return np.cumsum(gains * discount[:len(gains)]), np.cumsum(ideal * discount)


def _crp_axes(plt, ax, dcg: bool):
    """(figure, CRP axes, DCG axes or None), made here unless the caller gave ``ax``."""
    if ax is None:
        if dcg:
            fig, (a, b) = plt.subplots(1, 2, figsize=CRP_DCG_FIGSIZE, constrained_layout=True)
            return fig, a, b
        fig, a = plt.subplots(figsize=CRP_FIGSIZE, constrained_layout=True)
        return fig, a, None
    if dcg:
        axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
        if len(axes) != 2:
            raise ParameterError("ax: with dcg=True give two Axes (CRP panel, DCG panel), or None")
        return axes[0].figure, axes[0], axes[1]
    if isinstance(ax, (list, tuple, np.ndarray)):
        raise ParameterError("ax: give one matplotlib Axes (two only with dcg=True)")
    return ax.figure, ax, None


def _dots(length: int) -> dict:
    """Markers on the points of short curves (a curve of one position would be invisible otherwise)."""
    return dict(marker="o", markersize=3) if length <= 40 else {}


def _summary(curve: CRPCurve) -> str:
    if curve.recall_base == 0:
        return "no Twist value: recall base 0"
    return (f"\u03c1 = {curve.rho:.3f}   \u03c3 = {curve.sigma:.3f}   \u03c4 = {curve.tau:.3f}\n"
            f"archetype: {curve.archetype.replace('_', ' ')}")


def _draw_crp(ax, curve: CRPCurve) -> None:
    n, rb = curve.length, curve.recall_base
    x = np.arange(1, n + 1)
    fs = curve.full_scale_crp
    low = min(float(fs.min(initial=0)), float(curve.crp.min(initial=0)))
    high = float(curve.crp.max(initial=0))
    span = max(high - low, 1.0)
    clipped = len(fs) and fs.max() > high + 0.5 * span     # the full-scale run would squash the run
    label = "full-scale run"
    if clipped:
        label += f" (leaves the top; ends at CRP = {int(fs[-1]):,})"
    dots = _dots(max(n, len(fs)))
    ax.plot(np.arange(1, len(fs) + 1), fs, color="0.55", linestyle="--", linewidth=1.2, label=label, **dots)
    if n:
        ax.plot(x, curve.ideal_crp, color="black", linewidth=1.0, label="ideal run (CRP = 0)", **dots)
        ax.plot(x, curve.crp, color="tab:blue", linewidth=1.8, label="run", **dots)
    else:
        ax.axhline(0.0, color="black", linewidth=1.0, label="ideal run (CRP = 0)")
        ax.plot([], [], " ", label="the run retrieved nothing")
    if rb:
        ax.axvline(rb, color="tab:green", linestyle=":", linewidth=1.5, label=f"recall base RB = {rb}")
    cross = curve.crossings[curve.crossings <= n]
    if len(cross):
        ax.plot(cross, curve.crp[cross - 1], "o", markersize=4, markerfacecolor="none",
                markeredgecolor="tab:orange", label=f"crossings ({len(cross)}, first at {cross[0]})")
    beta = curve.balance_point
    if np.isfinite(beta) and 1 <= beta <= n:
        b = int(beta)
        ax.plot([b], [curve.crp[b - 1]], marker="*", markersize=14, color="tab:red", linestyle="none",
                label=f"balance point \u03b2 = {b}")
    elif rb:
        ax.plot([], [], " ", label="no crossing: \u03b2 = \u221e")
    ax.set_xlabel("rank position j")
    ax.set_ylabel("CRP[j]")
    ax.set_xlim(0, max(len(fs), n, 1) + 1)
    if clipped:
        ax.set_ylim(low - 0.05 * span, high + 0.1 * span)
    ax.grid(True, alpha=0.3)
    options = dict(title=_summary(curve), loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2,
                   fontsize="small", title_fontsize="small", frameon=False)
    try:
        ax.legend(alignment="left", **options)      # matplotlib >= 3.6
    except TypeError:
        ax.legend(**options)


def _draw_dcg(ax, curve: CRPCurve, judged: np.ndarray) -> None:
    length = curve.length if curve.length else int((judged > 0).sum())
    dcg, ideal = _dcg_curves(curve.grades, judged, length)
    x = np.arange(1, length + 1)
    dots = _dots(length)
    ax.plot(x, ideal, color="black", linewidth=1.0, label="ideal DCG", **dots)
    if len(dcg):
        ndcg = dcg[-1] / ideal[-1] if ideal[-1] > 0 else 0.0
        ax.plot(x[:len(dcg)], dcg, color="tab:blue", linewidth=1.8, label=f"run DCG (nDCG = {ndcg:.3f})", **dots)
    if curve.recall_base:
        ax.axvline(curve.recall_base, color="tab:green", linestyle=":", linewidth=1.5,
                   label=f"recall base RB = {curve.recall_base}")
    ax.set_xlabel("rank position j")
    ax.set_ylabel("DCG[j]  (gain = grade, discount log2(j+1))")
    ax.set_xlim(0, max(length, 1) + 1)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize="small", frameon=False)


def plot_crp(qrels: Any, run: Any, query_id: str, rel: int = 1, cutoff: Optional[int] = None,
             dcg: bool = False, ax: Any = None, path: Optional[PathLike] = None,
             title: Optional[str] = None) -> "Figure":
    """Draw the CRP curve of ``run`` on topic ``query_id`` (papers/002, Figs. 2, 3 and 11).

    The picture shows the run's cumulated relative position CRP[j] (:func:`ir_rbstar.twist.crp_curve`),
    the ideal run (CRP = 0 at every position), the full-scale run (the reversed ideal run, of length
    max(N, 2 RB)), a vertical line at the recall base RB, circles at the crossings and a star at the
    balance point beta; the legend gives rho, sigma, tau and the archetype. With ``dcg=True`` a second
    panel shows the run's cumulative DCG and the ideal DCG over the same positions (gain = the grade in
    the qrels, 0 for unjudged or negative grades; discount log2(j + 1)).

    ``qrels`` and ``run`` are anything ir_rbstar reads (file path, DataFrame, dict of dicts); ``rel`` is
    the lowest relevant grade and ``cutoff`` keeps the run's top ``cutoff`` documents, as for
    ``Twist(rel=rel)@cutoff``. ``ax`` draws into existing Axes (a pair of Axes with ``dcg=True``);
    ``path`` also writes the figure (``.png`` at :data:`DPI` dpi, or ``.svg``). Returns the matplotlib
    Figure. Raises ParameterError when the query has no judgments, for a bad ``rel``/``cutoff`` or an
    unsupported file extension, and ImportError when matplotlib is not installed.

    >>> import os, tempfile
    >>> from ir_rbstar import demo
    >>> from ir_rbstar.plots import plot_crp
    >>> qrels = os.path.join(demo.data_dir(), "qrels")
    >>> out = os.path.join(tempfile.mkdtemp(), "crp_q2.png")
    >>> fig = plot_crp(qrels, demo.demo_runs()["bm25"], "2", dcg=True, path=out)
    >>> len(fig.axes), os.path.getsize(out) > 0
    (2, True)
    """
    fmt = picture_format(path)                  # a bad extension fails before any work
    check_rel_cutoff(cutoff, rel)
    q = resolve_qrels(qrels)
    curve = crp_curve(q, run, query_id, rel=rel, cutoff=cutoff)
    plt = _pyplot()
    fig, ax_crp, ax_dcg = _crp_axes(plt, ax, dcg)
    _draw_crp(ax_crp, curve)
    where = f"@{cutoff}" if cutoff is not None else ""
    grade = f", rel >= {rel}" if rel != 1 else ""
    name = _run_label(run)
    default = (f"{name}: " if name else "") + f"query {curve.query_id}{grade}"
    if ax_dcg is None:
        ax_crp.set_title(title if title is not None else f"{name + ': ' if name else ''}CRP{where}, "
                                                         f"query {curve.query_id}{grade}")
    else:
        _draw_dcg(ax_dcg, curve, _judged_grades(q, curve.query_id))
        ax_crp.set_title(f"CRP{where}")
        ax_dcg.set_title(f"DCG{where}")
        if ax is None or title is not None:
            fig.suptitle(title if title is not None else default)
    if fmt:
        _save(fig, path)
    return fig


def _run_label(run: Any) -> Optional[str]:
    if isinstance(run, (str, os.PathLike)):
        return run_name(run)
    return None


def run_name(path: PathLike) -> str:
    """The name of a run file: its base name without ``.gz``, ``.run``, ``.txt`` (and ``.trec``)
    extensions, e.g. ``runs/bm25.run.gz`` -> ``bm25``."""
    name = os.path.basename(os.fspath(path))
    while True:
        stem, ext = os.path.splitext(name)
        if ext.lower() not in (".gz", ".run", ".txt", ".trec") or not stem:
            return name
        name = stem


def run_names(paths) -> dict:
    """Run name -> path for a list of run files: :func:`run_name` of each; a repeated name gets
    ' (2)', ' (3)', ..."""
    runs: dict = {}
    for path in paths:
        name, k = run_name(path), 1
        while (name if k == 1 else f"{name} ({k})") in runs:
            k += 1
        runs[name if k == 1 else f"{name} ({k})"] = path
    return runs


# ---------------------------------------------------------------------------------------------
# Effort / gain
# ---------------------------------------------------------------------------------------------

def _gain_measure(gain: Any, rel: int, cutoff: Optional[int]):
    """The ir_measures measure for ``gain``: AP(rel=rel), nDCG or RBP(p=0.8,rel=rel) (each @cutoff when
    one is given), a measure string as written, or a measure object."""
    from ir_measures.measures import Measure

    if isinstance(gain, Measure):
        measure = gain
    elif isinstance(gain, str):
        key = gain.strip().lower()
        at = f"@{int(cutoff)}" if cutoff is not None else ""
        if key == "ap":
            text = f"AP(rel={int(rel)}){at}"
        elif key == "ndcg":
            text = f"nDCG{at}"
        elif key == "rbp":
            text = f"RBP(p={RBP_PERSISTENCE},rel={int(rel)}){at}"
        else:
            text = gain.strip()
        from .parsing import parse_measure
        try:
            measure = parse_measure(text)
        except ParameterError as e:
            raise ParameterError(f"gain={gain!r}: {e}; give one of {', '.join(GAIN_SHORTCUTS)} "
                                 f"or a measure such as 'P@10'") from None
    else:
        raise ParameterError(f"gain={gain!r}: give a measure name such as 'AP', 'nDCG', 'RBP' or 'P@10'")
    c = measure.params.get("cutoff")
    if c is not None and (not isinstance(c, (int, np.integer)) or c <= 0):
        raise ParameterError(f"gain={gain!r}: the cutoff of {measure} must be a positive integer")
    return measure


def _nested(frame: pd.DataFrame, value: str) -> dict:
    """A DataFrame (query_id, doc_id, value) as the dict of dicts ir_measures reads fastest."""
    out: dict = {}
    for q, d, v in zip(frame["query_id"].tolist(), frame["doc_id"].tolist(), frame[value].tolist(), strict=True):
        out.setdefault(q, {})[d] = v
    return out


def _gain_values(measure, qrels: dict, run: dict, gain: Any) -> pd.Series:
    import ir_measures

    try:
        values = {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}
    except RbstarError:
        raise
    except (ValueError, AssertionError, RuntimeError) as e:
        raise ParameterError(f"gain={gain!r}: ir_measures cannot compute {measure}: {e}") from None
    return pd.Series(values, dtype=np.float64)


def _check_runs(runs: Any) -> None:
    if not isinstance(runs, Mapping):
        raise ParameterError(f"runs: give a dict of run name -> run (path, DataFrame or dict of dicts), "
                             f"not {type(runs).__name__}")
    if not runs:
        raise ParameterError("runs: the dict of runs is empty; give at least one run")


def effort_gain_points(qrels: Any, runs: Mapping, gain: Any = "AP", rel: int = 1,
                       cutoff: Optional[int] = None) -> pd.DataFrame:
    """The points of the effort/gain plot: one row per run x topic with a Twist value (recall base >= 1),
    columns ``run, query_id, twist, gain`` (the gain measure's value for the same run and topic).

    ``runs`` maps a name to a run (file path, DataFrame or dict of dicts). ``gain`` is "AP"
    (``AP(rel=rel)``), "nDCG" (``nDCG``), "RBP" (``RBP(p=0.8,rel=rel)``), each at ``@cutoff`` when a
    cutoff is given, or any ir_measures measure string or object (used as written). Twist is computed
    as by ``Twist(rel=rel)@cutoff``. The gain comes from ``ir_measures.iter_calc``, which gives a topic
    the run did not retrieve the measure's default (0). The measure is in ``attrs["gain"]``.

    >>> import os
    >>> from ir_rbstar import demo
    >>> from ir_rbstar.plots import effort_gain_points
    >>> runs = {"bm25": demo.demo_runs()["bm25"]}
    >>> points = effort_gain_points(os.path.join(demo.data_dir(), "qrels"), runs, gain="RBP", cutoff=100)
    >>> len(points), list(points.columns), str(points.attrs["gain"])
    (93, ['run', 'query_id', 'twist', 'gain'], 'RBP(p=0.8,rel=1)@100')
    """
    _check_runs(runs)
    check_rel_cutoff(cutoff, rel)
    measure = _gain_measure(gain, rel, cutoff)
    q = resolve_qrels(qrels)
    qrels_dict = _nested(q.frame(), "relevance")
    parts = []
    for name, run in runs.items():
        ranking = to_ranking(run, source=str(name) if not isinstance(run, (str, os.PathLike)) else None)
        table = twist_table(q, ranking, rel=rel, cutoff=cutoff)
        table = table[table["tau"].notna()]
        values = _gain_values(measure, qrels_dict, _nested(ranking_frame(ranking), "score"), gain)
        part = pd.DataFrame({"run": str(name), "query_id": table["query_id"].to_numpy(),
                             "twist": table["tau"].to_numpy(dtype=np.float64)})
        part["gain"] = part["query_id"].map(values).to_numpy(dtype=np.float64)
        parts.append(part[part["gain"].notna()])
    points = pd.concat(parts, ignore_index=True)
    points.attrs["gain"] = measure
    return points


def _cells(points: pd.DataFrame) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gain cut points q25, q50, q75; the row of each point, 0 = lowest gain; its column, 0 = lowest
    Twist). Intervals are right-closed: a value equal to a cut point lies in the cell below it."""
    cuts = np.percentile(points["gain"].to_numpy(), [25, 50, 75])
    row = np.searchsorted(cuts, points["gain"].to_numpy(), side="left")
    col = np.searchsorted(np.asarray(TWIST_CUTS), points["twist"].to_numpy(), side="left")
    return cuts, row, col


def plot_effort_gain(qrels: Any, runs: Mapping, gain: Any = "AP", rel: int = 1, cutoff: Optional[int] = None,
                     path: Optional[PathLike] = None,
                     title: Optional[str] = None) -> Tuple["Figure", pd.DataFrame]:
    """Draw Twist (effort, x) against a gain measure (y) for every run x topic (papers/002, Figs. 7-10).

    Points are those of :func:`effort_gain_points` (topics with recall base >= 1), coloured by run. The
    paper's 4 x 4 grid is drawn: vertical lines at Twist 0.25, 0.5, 0.75 (huge, high, medium and low
    effort) and horizontal lines at the 25th, 50th and 75th percentiles of the gain values (low, medium,
    high and huge gain); each cell is annotated with the share of points in it. Intervals are
    right-closed on both axes (a point on a line belongs to the cell below / to the left of it).

    Returns ``(figure, shares)``: ``shares`` is a 4 x 4 DataFrame of fractions summing to 1, rows the
    gain quartiles from the highest (``Q4``, top row of the picture) to the lowest (``Q1``), columns the
    Twist intervals :data:`TWIST_LABELS`; ``shares.attrs`` holds ``gain`` (the measure), ``gain_cuts``
    (the three percentiles) and ``points`` (how many points). ``path`` also writes the figure (``.png``
    at :data:`DPI` dpi, or ``.svg``). Raises ParameterError for an unknown ``gain``, an empty ``runs``
    dict or an unsupported file extension, EmptyInputError when no topic has a Twist value.

    >>> import os
    >>> from ir_rbstar import demo
    >>> from ir_rbstar.plots import plot_effort_gain
    >>> runs = {name: demo.demo_runs()[name] for name in ("bm25", "bm25l")}
    >>> fig, shares = plot_effort_gain(os.path.join(demo.data_dir(), "qrels"), runs, gain="nDCG")
    >>> shares.shape, round(float(shares.to_numpy().sum()), 6), list(shares.index)
    ((4, 4), 1.0, ['Q4', 'Q3', 'Q2', 'Q1'])
    """
    fmt = picture_format(path)
    points = effort_gain_points(qrels, runs, gain=gain, rel=rel, cutoff=cutoff)
    if not len(points):
        raise EmptyInputError("no topic has a Twist value (every recall base is 0 at rel="
                              f"{rel}): nothing to plot")
    measure = points.attrs["gain"]
    cuts, row, col = _cells(points)
    counts = np.zeros((4, 4))
    np.add.at(counts, (3 - row, col), 1.0)
    shares = pd.DataFrame(counts / len(points),
                          index=pd.Index(["Q4", "Q3", "Q2", "Q1"], name=f"{measure} quartile"),
                          columns=pd.Index(list(TWIST_LABELS), name="Twist"))
    shares.attrs.update(gain=measure, gain_cuts=tuple(float(c) for c in cuts), points=int(len(points)))

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=EFFORT_GAIN_FIGSIZE, constrained_layout=True)
    names = list(dict.fromkeys(points["run"]))
    colours = plt.get_cmap("tab10" if len(names) <= 10 else "viridis")
    for i, name in enumerate(names):
        mine = points["run"].to_numpy() == name
        colour = colours(i % 10) if len(names) <= 10 else colours(i / max(len(names) - 1, 1))
        ax.scatter(points["twist"].to_numpy()[mine], points["gain"].to_numpy()[mine], s=14, alpha=0.65,
                   color=colour, edgecolors="none", label=name)
    y = points["gain"].to_numpy()
    lo, hi = min(0.0, float(y.min())), float(y.max())
    if 0.0 <= y.min() and hi <= 1.0:
        hi = 1.0
    pad = 0.03 * (hi - lo if hi > lo else 1.0)
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(lo - pad, hi + pad)
    for c in TWIST_CUTS:
        ax.axvline(c, color="0.3", linewidth=1.0)
    for c in cuts:
        ax.axhline(c, color="0.3", linewidth=1.0, linestyle="--")
    xs = np.r_[0.0, TWIST_CUTS, 1.0]
    ys = np.r_[lo - pad, cuts, hi + pad]
    for r in range(4):                               # r = 0: lowest gain
        for c in range(4):
            share = counts[3 - r, c] / len(points)
            ax.text((xs[c] + xs[c + 1]) / 2, (ys[r] + ys[r + 1]) / 2, f"{100 * share:.1f}%", ha="center",
                    va="center", fontsize="small", fontweight="bold", color="0.1",
                    bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor="none", alpha=0.75))
    ax.set_xlabel("Twist \u03c4 (effort: 0 huge, 1 none)")
    ax.set_ylabel(f"{measure} (gain)")
    if len(names) <= 10:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=min(len(names), 5), fontsize="small",
                  markerscale=1.5, frameon=False)
    _set_title(ax, title, f"Effort/gain: {measure} over Twist ({len(points)} run x topic points)")
    if fmt:
        _save(fig, path)
    return fig, shares


# ---------------------------------------------------------------------------------------------
# NRG against the base measure, one point per run
# ---------------------------------------------------------------------------------------------

#: label candidates around a point: (dx, dy) in points, horizontal and vertical alignment; tried in
#: this order, the first one with the least overlap wins
_LABEL_SPOTS = ((5, 0, "left", "center"), (4, 4, "left", "bottom"), (4, -4, "left", "top"),
                (-5, 0, "right", "center"), (-4, 4, "right", "bottom"), (-4, -4, "right", "top"),
                (0, 6, "center", "bottom"), (0, -6, "center", "top"),
                (10, 10, "left", "bottom"), (10, -10, "left", "top"),
                (-10, 10, "right", "bottom"), (-10, -10, "right", "top"))
_LABEL_FONTSIZE = 6.5
#: fill colours of highlighted groups, and the order of tab20's colours (the ten strong ones first)
_HIGHLIGHT_COLOURS = ("black", "0.45", "0.7")
_TAB20_ORDER = tuple(range(0, 20, 2)) + tuple(range(1, 20, 2))


def _nrg_columns(points: Any, x: str, y: str, label: Optional[str], group: Optional[str]) -> None:
    if not isinstance(points, pd.DataFrame):
        raise ParameterError(f"points: give a pandas DataFrame with one row per run, not {type(points).__name__}")
    if not len(points):
        raise ParameterError("points: the DataFrame is empty; give one row per run")
    wanted = [(role, col) for role, col in (("x", x), ("y", y), ("label", label), ("group", group))
              if col is not None]
    missing = [f"{role}={col!r}" for role, col in wanted if col not in points.columns]
    if missing:
        raise ParameterError(f"points has no column for {', '.join(missing)}; its columns are "
                             f"{', '.join(repr(str(c)) for c in points.columns)}")


def _finite_values(points: pd.DataFrame, column: str, names: np.ndarray) -> np.ndarray:
    try:
        values = pd.to_numeric(points[column], errors="raise").to_numpy(dtype=np.float64)
    except (ValueError, TypeError):
        raise ParameterError(f"column {column!r} must hold numbers") from None
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        raise ParameterError(f"column {column!r} has no finite value for {names[bad[0]]!r} "
                             f"({len(bad)} row(s) in all); drop those rows first")
    return values


def _highlighted(highlight: Any, group: Optional[str], groups: list) -> set:
    if highlight is None:
        return set()
    if group is None:
        raise ParameterError("highlight= picks groups: give group= (the column of the groups) too")
    wanted = [highlight] if isinstance(highlight, str) else list(highlight)
    unknown = [str(h) for h in wanted if str(h) not in groups]
    if unknown:
        raise ParameterError(f"highlight={unknown[0]!r} is not a group of the points; the groups are "
                             f"{', '.join(repr(g) for g in groups)}")
    return {str(h) for h in wanted}


def _overlap(a: Tuple[float, float, float, float], b: np.ndarray) -> float:
    """Total overlap area of box a = (x0, y0, x1, y1) with the boxes b (n x 4)."""
    if not len(b):
        return 0.0
    w = np.clip(np.minimum(a[2], b[:, 2]) - np.maximum(a[0], b[:, 0]), 0.0, None)
    h = np.clip(np.minimum(a[3], b[:, 3]) - np.maximum(a[1], b[:, 1]), 0.0, None)
    return float((w * h).sum())


def _label_box(px: float, py: float, spot, width: float, height: float, scale: float):
    dx, dy, ha, va = spot
    x0 = px + dx * scale - {"left": 0.0, "right": width, "center": width / 2}[ha]
    y0 = py + dy * scale - {"bottom": 0.0, "top": height, "center": height / 2}[va]
    return (x0, y0, x0 + width, y0 + height)


def _place_labels(ax, xs: np.ndarray, ys: np.ndarray, texts: list, bold: np.ndarray) -> None:
    """Label every point, choosing for each (left to right) the spot of :data:`_LABEL_SPOTS` whose text
    box overlaps least with the labels already placed, the markers and the edges of the Axes."""
    fig = ax.figure
    fig.canvas.draw()                                  # the final layout, so that transData is exact
    scale = fig.dpi / 72.0                             # display pixels per point
    pix = ax.transData.transform(np.column_stack([xs, ys]))
    frame = ax.get_window_extent()
    r = 3.5 * scale
    markers = np.column_stack([pix[:, 0] - r, pix[:, 1] - r, pix[:, 0] + r, pix[:, 1] + r])
    placed = np.zeros((0, 4))
    height = 1.15 * _LABEL_FONTSIZE * scale
    for i in np.lexsort((ys, xs)):
        width = 0.58 * _LABEL_FONTSIZE * scale * len(texts[i]) * (1.08 if bold[i] else 1.0)
        best, best_cost = _LABEL_SPOTS[0], None
        step = scale * (1.6 if bold[i] else 1.0)          # clear of the larger highlighted markers
        for spot in _LABEL_SPOTS:
            box = _label_box(pix[i, 0], pix[i, 1], spot, width, height, step)
            outside = (max(frame.x0 - box[0], 0.0) + max(box[2] - frame.x1, 0.0)) * height \
                + (max(frame.y0 - box[1], 0.0) + max(box[3] - frame.y1, 0.0)) * width
            cost = _overlap(box, placed) + _overlap(box, markers) + 2.0 * outside
            if best_cost is None or cost < best_cost - 1e-9:
                best, best_cost = spot, cost
        dx, dy, ha, va = best
        text = ax.annotate(texts[i], (xs[i], ys[i]), xytext=(dx * step / scale, dy * step / scale),
                           textcoords="offset points", ha=ha, va=va, fontsize=_LABEL_FONTSIZE, color="0.1",
                           fontweight="bold" if bold[i] else "normal")
        text.set_in_layout(False)
        placed = np.vstack([placed, _label_box(pix[i, 0], pix[i, 1], best, width, height, step)])


def plot_nrg(points: pd.DataFrame, x: str = "nDCG@10", y: str = "NRG@10", label: Optional[str] = "run",
             group: Optional[str] = "group", path: Optional[PathLike] = None, title: Optional[str] = None,
             highlight: Any = None) -> "Figure":
    """Draw a residual-gain measure (``y``, e.g. NRG@10) against its base measure (``x``, e.g. nDCG@10)
    over a set of runs, one point per row of ``points`` (papers/004, Figs. 2-5).

    ``points`` is a DataFrame with one row per run; ``x`` and ``y`` name numeric columns, ``label`` the
    column whose text labels each point (the run name; None for no labels) and ``group`` the column
    that colours the points, with a legend (e.g. the TREC group; None for one colour). Labels are set
    in a small font beside their points, each on the side where it overlaps least with the labels
    already placed. ``highlight`` is a group name (or a list of them) drawn as larger diamonds with a
    black edge and bold labels, e.g. ``highlight="BASELINE"``. ``path`` also writes the figure
    (``.png`` at :data:`DPI` dpi, or ``.svg``). Returns the matplotlib Figure.

    Raises ParameterError when ``points`` is not a DataFrame or is empty, when a named column is
    missing, ``x``/``y`` hold non-numbers or non-finite values, a highlighted group does not occur, or
    for an unsupported file extension; ImportError when matplotlib is not installed.

    >>> import pandas as pd
    >>> from ir_rbstar.plots import plot_nrg
    >>> points = pd.DataFrame({"run": ["bm25", "bm25_rm3", "bert"], "group": ["base", "base", "neural"],
    ...                        "nDCG@10": [0.50, 0.52, 0.70], "NRG@10": [0.14, 0.16, 0.11]})
    >>> fig = plot_nrg(points, highlight="base")
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['base', 'neural']
    """
    fmt = picture_format(path)
    _nrg_columns(points, x, y, label, group)
    names = (points[label].astype(str).to_numpy() if label is not None
             else np.array([f"row {i}" for i in range(len(points))]))
    xs = _finite_values(points, x, names)
    ys = _finite_values(points, y, names)
    keys = points[group].astype(str).to_numpy() if group is not None else np.full(len(points), "")
    groups = list(dict.fromkeys(keys.tolist()))
    marked = _highlighted(highlight, group, groups)

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=NRG_FIGSIZE, constrained_layout=True)
    n = len(groups) - len(marked)
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20" if n <= 20 else "viridis")
    plain = [name for name in groups if name not in marked]
    for name in groups:
        mine = keys == name
        if name in marked:                           # dark diamonds with a black edge
            colour = _HIGHLIGHT_COLOURS[sorted(marked).index(name) % len(_HIGHLIGHT_COLOURS)]
            style = dict(marker="D", s=72, edgecolors="black", linewidths=1.3, zorder=4)
        else:
            i = plain.index(name)
            colour = cmap(i if n <= 10 else _TAB20_ORDER[i]) if n <= 20 else cmap(i / max(n - 1, 1))
            style = dict(marker="o", s=42, edgecolors="white", linewidths=0.6, zorder=3)
        ax.scatter(xs[mine], ys[mine], color=colour, label=name if group is not None else None, **style)
    for values, setter in ((xs, ax.set_xlim), (ys, ax.set_ylim)):
        lo, hi = float(values.min()), float(values.max())
        span = hi - lo if hi > lo else max(abs(hi), 1.0)
        setter(lo - 0.07 * span, hi + 0.07 * span)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)
    if group is not None:
        ax.legend(title=group, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                  title_fontsize="small", frameon=False)
    _set_title(ax, title, f"{y} against {x} ({len(points)} runs)")
    if label is not None:
        _place_labels(ax, xs, ys, names.tolist(), np.isin(keys, list(marked)))
    if fmt:
        _save(fig, path)
    return fig


# ---------------------------------------------------------------------------------------------
# Run-distance matrix
# ---------------------------------------------------------------------------------------------

def plot_distance_matrix(matrix: pd.DataFrame, path: Optional[PathLike] = None, title: Optional[str] = None,
                         annotate: Optional[bool] = None, places: int = 2, cmap: str = "viridis_r") -> "Figure":
    """Draw a run-distance matrix (as :func:`ir_rbstar.med.distance_matrix` returns it) as a heat map:
    rows are the evaluated runs, columns the references, the colour the distance (light: close, dark: far apart). With
    ``annotate`` (default: 20 runs or fewer) each cell shows its value with ``places`` decimals. The
    colour scale of a square matrix starts at its smallest value off the diagonal.
    ``path`` also writes the figure (.png or .svg). Returns the matplotlib Figure.

    Raises ParameterError when ``matrix`` is not a non-empty DataFrame of finite numbers, or for an
    unsupported file extension; ImportError when matplotlib is not installed.

    >>> import pandas as pd
    >>> from ir_rbstar.plots import plot_distance_matrix
    >>> m = pd.DataFrame([[0.0, 0.3], [0.3, 0.0]], index=["a", "b"], columns=["a", "b"])
    >>> fig = plot_distance_matrix(m, title="MED")
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['0.00', '0.30', '0.30', '0.00']
    """
    fmt = picture_format(path)
    if not isinstance(matrix, pd.DataFrame) or matrix.empty:
        raise ParameterError("plot_distance_matrix: matrix must be a non-empty DataFrame")
    try:
        values = matrix.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError("plot_distance_matrix: the matrix holds values that are not numbers") from None
    if not np.isfinite(values).all():
        r, c = np.argwhere(~np.isfinite(values))[0]
        raise ParameterError(f"plot_distance_matrix: cell ({matrix.index[r]!r}, {matrix.columns[c]!r}) is "
                             f"{values[r, c]!r}, not a finite number")
    rows, cols = [str(x) for x in matrix.index], [str(x) for x in matrix.columns]
    if annotate is None:
        annotate = max(len(rows), len(cols)) <= 20
    plt = _pyplot()
    width = max(MATRIX_MIN_SIZE, MATRIX_CELL * len(cols) + 3.0)
    height = max(MATRIX_MIN_SIZE, MATRIX_CELL * len(rows) + 2.0)
    fig, ax = plt.subplots(figsize=(width, height), constrained_layout=True)
    vmin = None
    if rows == cols and len(rows) > 1:           # a run with itself (0) would leave little contrast
        vmin = float(values[~np.eye(len(rows), dtype=bool)].min())
    image = ax.imshow(values, cmap=cmap, aspect="auto", interpolation="nearest", vmin=vmin)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=60, ha="right", fontsize="small")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows, fontsize="small")
    ax.set_xlabel(matrix.columns.name or "ref")
    ax.set_ylabel(matrix.index.name or "run")
    label = matrix.attrs.get("distance", "distance")
    fig.colorbar(image, ax=ax, label=label)
    if annotate:
        lo, hi = image.get_clim()
        middle = (lo + hi) / 2.0
        for (r, c), v in np.ndenumerate(values):
            ax.text(c, r, f"{v:.{places}f}", ha="center", va="center", fontsize="x-small",
                    color="white" if v > middle else "black")
    _set_title(ax, title, f"{label} between {len(rows)} runs")
    if fmt:
        _save(fig, path)
    return fig


# ---------------------------------------------------------------------------------------------
# First-stage choices: RBR against cost with the Pareto frontier, and RBR bounds (papers/000 section 3)
# ---------------------------------------------------------------------------------------------

__all__ += ["pareto_frontier", "plot_rbr_cost", "plot_rbr_bounds", "RBR_COST_FIGSIZE", "RBR_BOUNDS_FIGSIZE"]

#: size of the RBR-against-cost picture and of one pane of the RBR-bounds picture (inches)
RBR_COST_FIGSIZE = (8.0, 5.5)
RBR_BOUNDS_FIGSIZE = (11.0, 4.5)


def _number_column(values: Any, what: str) -> np.ndarray:
    """``values`` as a 1-d float array of finite numbers; ParameterError naming ``what`` otherwise."""
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"{what}: give numbers") from None
    if out.ndim != 1:
        raise ParameterError(f"{what}: give a one-dimensional sequence of numbers, not shape {out.shape}")
    bad = np.flatnonzero(~np.isfinite(out))
    if len(bad):
        raise ParameterError(f"{what}: item {int(bad[0])} is {out[bad[0]]!r}, not a finite number "
                             f"({len(bad)} such item(s))")
    return out


def pareto_frontier(cost: Any, value: Any) -> np.ndarray:
    """Which of the points (cost[i], value[i]) lie on the Pareto frontier, as a boolean array.

    Lower cost and higher value are better. Point i is *dominated* when another point j costs no more
    and is worth no less, and is strictly better in one of the two; the frontier is every point that is
    not dominated (papers/000 section 3, "Experimental Design": first-stage choices off the frontier
    can be discarded). Equal points are both on the frontier or both off it. Every point off the
    frontier is dominated by a point on it. O(n log n), numpy only.

    Raises ParameterError when ``cost`` and ``value`` differ in length or hold anything but finite
    numbers.

    >>> from ir_rbstar.plots import pareto_frontier
    >>> pareto_frontier([10, 20, 20, 50, 50], [0.50, 0.70, 0.60, 0.70, 0.90]).tolist()
    [True, True, False, False, True]
    """
    c = _number_column(cost, "cost")
    v = _number_column(value, "value")
    if len(c) != len(v):
        raise ParameterError(f"pareto_frontier: {len(c)} costs but {len(v)} values")
    if not len(c):
        return np.zeros(0, dtype=bool)
    order = np.lexsort((-v, c))                       # by cost, then by value descending
    cs, vs = c[order], v[order]
    first = np.r_[True, cs[1:] != cs[:-1]]            # the first (best) point of each cost
    group = np.cumsum(first) - 1
    best = vs[first]                                  # the best value at each cost
    cheaper = np.r_[-np.inf, np.maximum.accumulate(best)[:-1]]   # the best value at any lower cost
    on = (vs == best[group]) & (vs > cheaper[group])
    out = np.zeros(len(c), dtype=bool)
    out[order] = on
    return out


def _frame_columns(table: Any, what: str, columns: dict) -> None:
    if not isinstance(table, pd.DataFrame):
        raise ParameterError(f"{what}: give a pandas DataFrame, not {type(table).__name__}")
    if not len(table):
        raise ParameterError(f"{what}: the DataFrame is empty")
    missing = [f"{role}={col!r}" for role, col in columns.items() if col is not None and col not in table.columns]
    if missing:
        raise ParameterError(f"{what}: no column for {', '.join(missing)}; the columns are "
                             f"{', '.join(repr(str(c)) for c in table.columns)}")


def plot_rbr_cost(table: pd.DataFrame, system: str = "system", cost: str = "cost", rbr: str = "rbr",
                  ax: Any = None, path: Optional[PathLike] = None, title: Optional[str] = None,
                  logx: Optional[bool] = None, xlabel: Optional[str] = None,
                  ylabel: Optional[str] = None) -> "Figure":
    """Draw RBR against cost for first-stage choices, with the Pareto frontier (papers/000 section 3,
    "Experimental Design").

    ``table`` has one row per (first stage, setting): the column ``system`` names the first stage,
    ``cost`` is what the setting costs (e.g. k', the number of documents the second stage re-scores,
    or a measured time) and ``rbr`` its effectiveness (e.g. the mean ``RBR(p=0.8,ref=...)@k'``). Each
    system is one line through its points in order of cost (the sweep of its settings). The frontier of
    :func:`pareto_frontier` over all points is drawn as a black staircase (the best RBR any choice
    attains within a cost budget) with its points circled. ``logx`` puts cost on a log scale (default:
    when every cost is positive and the largest is more than ten times the smallest). ``ax`` draws into
    existing Axes; ``path`` also writes the figure (``.png`` at :data:`DPI` dpi, or ``.svg``). Returns the
    matplotlib Figure: its Axes hold one line per system and then the frontier's line, and one
    scatter of the frontier points.

    Raises ParameterError when ``table`` is not a non-empty DataFrame with those columns, ``cost`` or
    ``rbr`` holds anything but finite numbers, or for an unsupported file extension; ImportError when
    matplotlib is not installed.

    >>> import pandas as pd
    >>> from ir_rbstar.plots import plot_rbr_cost
    >>> table = pd.DataFrame({"system": ["bm25"] * 3 + ["splade"] * 3, "cost": [10, 100, 1000] * 2,
    ...                       "rbr": [0.60, 0.80, 0.90, 0.70, 0.85, 0.88]})
    >>> fig = plot_rbr_cost(table)
    >>> len(fig.axes[0].lines), len(fig.axes[0].collections[0].get_offsets())     # splade@10, @100, bm25@1000
    (3, 3)
    """
    fmt = picture_format(path)
    _frame_columns(table, "plot_rbr_cost", {"system": system, "cost": cost, "rbr": rbr})
    names = table[system].astype(str).to_numpy()
    costs = _finite_values(table, cost, names)
    values = _finite_values(table, rbr, names)
    on = pareto_frontier(costs, values)
    if logx is None:
        logx = bool(costs.min() > 0 and costs.max() > 10 * costs.min())
    elif logx and costs.min() <= 0:
        raise ParameterError(f"logx=True needs positive costs; column {cost!r} has {costs.min()!r}")

    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=RBR_COST_FIGSIZE, constrained_layout=True)
    else:
        fig = ax.figure
    systems = list(dict.fromkeys(names.tolist()))
    cmap = plt.get_cmap("tab10" if len(systems) <= 10 else "tab20")
    for i, name in enumerate(systems):
        mine = np.flatnonzero(names == name)
        mine = mine[np.argsort(costs[mine], kind="stable")]
        colour = cmap(i % 10) if len(systems) <= 10 else cmap(_TAB20_ORDER[i % 20])
        ax.plot(costs[mine], values[mine], marker="o", markersize=4, linewidth=1.3, color=colour, label=name)
    front = np.flatnonzero(on)
    front = front[np.lexsort((values[front], costs[front]))]
    ax.plot(costs[front], values[front], drawstyle="steps-post", color="black", linestyle="--", linewidth=1.0,
            label=f"Pareto frontier ({len(front)} of {len(costs)} points)", zorder=4)
    ax.scatter(costs[front], values[front], s=90, facecolors="none", edgecolors="black", linewidths=1.3,
               zorder=5)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel if xlabel is not None else cost)
    ax.set_ylabel(ylabel if ylabel is not None else rbr)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small", frameon=True, framealpha=0.85)
    _set_title(ax, title, f"{rbr} against {cost}: {len(systems)} first stages, Pareto frontier")
    if fmt:
        _save(fig, path)
    return fig


def plot_rbr_bounds(observations: pd.DataFrame, base: str = "base", residual: str = "residual",
                    full: str = "full", best: Optional[float] = None, ax: Any = None,
                    path: Optional[PathLike] = None, title: Optional[str] = None) -> "Figure":
    """Draw RBR scores of a set of observations with their bounds, as papers/000 Fig. 3 does.

    ``observations`` has one row per observation (a first stage's top-k' set for one query): ``base``
    is its RBR against the reference cut to its top k (e.g. ``RBR(p=0.8,ref='R10')@20``), ``residual``
    the RBR_res against that cut reference and ``full`` its RBR against the whole reference. The
    observations are put in order of base score, then of full score (x = 1..n), and three lines are
    drawn: base, base + residual (the most the unseen part of the reference could add) and full, which
    must lie between them. ``best`` (optional) is drawn as a dashed horizontal line, e.g. the best score
    any observation with the same Recall could attain. ``ax`` draws into existing Axes; ``path`` also
    writes the figure (``.png`` at :data:`DPI` dpi, or ``.svg``). Returns the matplotlib Figure.

    Raises ParameterError when ``observations`` is not a non-empty DataFrame with those columns of
    finite numbers, when ``best`` is not a finite number, or for an unsupported file extension;
    ImportError when matplotlib is not installed.

    >>> import pandas as pd
    >>> from ir_rbstar.plots import plot_rbr_bounds
    >>> obs = pd.DataFrame({"base": [0.5, 0.4, 0.5], "residual": [0.1] * 3, "full": [0.55, 0.42, 0.52]})
    >>> fig = plot_rbr_bounds(obs, best=0.6)
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['base + residual', 'full', 'base', 'best attainable']
    """
    fmt = picture_format(path)
    _frame_columns(observations, "plot_rbr_bounds", {"base": base, "residual": residual, "full": full})
    names = np.array([f"row {i}" for i in range(len(observations))])
    b = _finite_values(observations, base, names)
    r = _finite_values(observations, residual, names)
    f = _finite_values(observations, full, names)
    if best is not None:
        best = float(_number_column([best], "best")[0])
    order = np.lexsort((f, b))
    b, r, f = b[order], r[order], f[order]
    x = np.arange(1, len(b) + 1)

    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=RBR_BOUNDS_FIGSIZE, constrained_layout=True)
    else:
        fig = ax.figure
    dots = dict(marker="o", markersize=2.5) if len(x) <= 300 else {}
    ax.plot(x, b + r, color="tab:orange", linewidth=1.2, label="base + residual")
    ax.plot(x, f, color="tab:green", linewidth=0.9, label="full", **dots)
    ax.plot(x, b, color="tab:blue", linewidth=1.6, label="base")
    if best is not None:
        ax.axhline(best, color="black", linestyle="--", linewidth=1.0, label="best attainable")
    ax.set_xlim(0, len(x) + 1)
    ax.set_xlabel(f"observation, by {base} score, then by {full} score")
    ax.set_ylabel("RBR")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small", frameon=True, framealpha=0.85)
    _set_title(ax, title, f"RBR of {len(x)} observations: {base}, {base} + {residual}, {full}")
    if fmt:
        _save(fig, path)
    return fig
