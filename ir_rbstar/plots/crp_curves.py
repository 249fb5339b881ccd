"""Twist's cumulated relevance profile (CRP) of a run on one topic, with the DCG curves."""
from __future__ import annotations


from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np

from ..errors import ParameterError
from ..datasets import resolve_qrels
from ..io import QUERY_IDS
from ..core.ties import discount_cum
from ..twist import CRPCurve, check_rel_cutoff, crp_curve

if TYPE_CHECKING:                                    # matplotlib stays optional at run time
    from matplotlib.figure import Figure

from .common import PathLike, _pyplot, _run_label, _save, picture_format


#: figure sizes in inches: the CRP panel alone, CRP and DCG side by side, the effort/gain plot
CRP_FIGSIZE = (7.0, 5.5)


CRP_DCG_FIGSIZE = (13.0, 5.5)


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


#: runs longer than this get a logarithmic rank axis (a TREC run of 1,000 documents whose curves move in its
#: first ranks would otherwise squeeze them against the left edge)
LOG_RANKS = 50


def crp_view(curve: CRPCurve) -> dict:
    """How the CRP panel shows ``curve`` (the picture's axes as data, for tests and callers):

    * ``xscale``: "log" when the longest curve has more than :data:`LOG_RANKS` positions, else "linear";
      ``xlim``: the rank positions shown (every position of every curve);
    * ``ylim``: the CRP values shown: the run's and the ideal run's curves whole, and the full-scale run as far
      as it stays within half the run's span above the run (None: everything fits);
    * ``full_scale_end``: (rank, CRP) of the full-scale run's last point, and ``end_off_scale``: whether it lies
      above ``ylim`` (the picture then marks it at the top edge with its value).
    """
    n = curve.length
    fs = curve.full_scale_crp
    longest = max(len(fs), n, 1)
    low = min(float(fs.min(initial=0)), float(curve.crp.min(initial=0)))
    high = float(curve.crp.max(initial=0))
    span = max(high - low, 1.0)
    clipped = bool(len(fs) and fs.max() > high + 0.5 * span)     # the full-scale run would squash the run
    log = longest > LOG_RANKS
    return {"xscale": "log" if log else "linear",
            "xlim": (0.8, longest * 1.25) if log else (0.0, longest + 1.0),
            "ylim": (low - 0.05 * span, high + 0.1 * span) if clipped else None,
            "full_scale_end": (len(fs), float(fs[-1])) if len(fs) else None,
            "end_off_scale": clipped}


def _draw_crp(ax, curve: CRPCurve) -> None:
    n, rb = curve.length, curve.recall_base
    x = np.arange(1, n + 1)
    fs = curve.full_scale_crp
    view = crp_view(curve)
    clipped = view["end_off_scale"]
    label = "full-scale run"
    if clipped:
        label += " (leaves the top)"
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
    ax.set_xscale(view["xscale"])
    ax.set_xlabel("rank position j" + (" (log scale)" if view["xscale"] == "log" else ""))
    ax.set_ylabel("CRP[j]")
    ax.set_xlim(*view["xlim"])
    if clipped:
        ax.set_ylim(*view["ylim"])
        end_x, end_y = view["full_scale_end"]
        top = view["ylim"][1]
        ax.plot([end_x], [top], marker="^", markersize=9, color="0.35", linestyle="none", clip_on=False,
                label=f"end of the full-scale run, off the scale: CRP = {int(end_y):,} at j = {end_x:,}")
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
    log = length > LOG_RANKS
    if log:
        ax.set_xscale("log")
    ax.set_xlabel("rank position j" + (" (log scale)" if log else ""))
    ax.set_ylabel("DCG[j]  (gain = grade, discount log2(j+1))")
    ax.set_xlim(*((0.8, length * 1.25) if log else (0, max(length, 1) + 1)))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize="small", frameon=False)


def plot_crp(qrels: Any, run: Any, query_id: str, rel: int = 1, cutoff: Optional[int] = None,
             dcg: bool = False, ax: Any = None, path: Optional[PathLike] = None,
             title: Optional[str] = None) -> "Figure":
    """Draw the CRP curve of ``run`` on topic ``query_id`` (Ferro et al. 2016, Figs. 2, 3 and 11).

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
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = os.path.join(folder, "crp_q2.png")
    ...     fig = plot_crp(qrels, demo.demo_runs()["bm25"], "2", dcg=True, path=out)
    ...     len(fig.axes), os.path.getsize(out) > 0
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
