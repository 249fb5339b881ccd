"""NRG against its base measure, one labelled point per run."""
from __future__ import annotations


from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np
import pandas as pd

from ..errors import ParameterError

if TYPE_CHECKING:                                    # matplotlib stays optional at run time
    from matplotlib.figure import Figure

from .common import PathLike, _pyplot, _save, _set_title, picture_format


#: size of the NRG scatter (room on the right for the legend of the groups)
NRG_FIGSIZE = (10.0, 6.5)


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
    over a set of runs, one point per row of ``points`` (Bigdeli et al. 2024, Figs. 2-5).

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
