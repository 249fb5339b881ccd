"""Effort against gain: Twist against a gain measure, one point per run and topic, on Ferro et al.'s
4 x 4 grid."""
from __future__ import annotations


import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np
import pandas as pd

from ..errors import EmptyInputError, ParameterError, RbstarError
from ..datasets import resolve_qrels
from ..dicts import qrels_dict, ranking_dict
from ..io import to_ranking
from ..twist import check_rel_cutoff, twist_table

if TYPE_CHECKING:                                    # matplotlib stays optional at run time
    from matplotlib.figure import Figure

from .common import PathLike, _pyplot, _save, _set_title, picture_format


EFFORT_GAIN_FIGSIZE = (7.0, 6.0)


#: the Twist bounds of the paper's columns (Ferro et al. 2016, "Effort/Gain Plots"): huge effort (worst and
#: full-scale-like runs), high effort (typical B), medium effort (typical A), low effort (excellent)
TWIST_CUTS = (0.25, 0.5, 0.75)


#: column labels: right-closed intervals, the first one closed on both sides
TWIST_LABELS = ("[0, 0.25]", "(0.25, 0.5]", "(0.5, 0.75]", "(0.75, 1]")


#: gain names understood without a measure string (``rel`` and ``cutoff`` are applied to them)
GAIN_SHORTCUTS = ("AP", "nDCG", "RBP")


RBP_PERSISTENCE = 0.8          # Ferro et al. 2016 compares Twist with RBP at p = 0.8


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
        from ..parsing import parse_measure
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
    judged = qrels_dict(q)
    parts = []
    for name, run in runs.items():
        ranking = to_ranking(run, source=str(name) if not isinstance(run, (str, os.PathLike)) else None)
        table = twist_table(q, ranking, rel=rel, cutoff=cutoff)
        table = table[table["tau"].notna()]
        values = _gain_values(measure, judged, ranking_dict(ranking), gain)
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
                     path: Optional[PathLike] = None, title: Optional[str] = None,
                     points: Optional[pd.DataFrame] = None) -> Tuple["Figure", pd.DataFrame]:
    """Draw Twist (effort, x) against a gain measure (y) for every run x topic (Ferro et al. 2016, Figs. 7-10).

    Points are those of :func:`effort_gain_points` (topics with recall base >= 1), coloured by run. The
    paper's 4 x 4 grid is drawn: vertical lines at Twist 0.25, 0.5, 0.75 (huge, high, medium and low
    effort) and horizontal lines at the 25th, 50th and 75th percentiles of the gain values (low, medium,
    high and huge gain); each cell is annotated with the share of points in it. Intervals are
    right-closed on both axes (a point on a line belongs to the cell below / to the left of it).
    ``points``: the points already computed (columns ``run, query_id, twist, gain``, the gain measure in
    ``attrs["gain"]``, as :func:`effort_gain_points` returns them; the report takes them from its per-query
    table), drawn instead of computing them from ``qrels`` and ``runs``.

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
    if points is None:
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
