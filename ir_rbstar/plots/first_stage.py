"""Choosing a first stage: RBR against cost with the Pareto frontier, and RBR's bounds."""
from __future__ import annotations


from typing import TYPE_CHECKING, Any, Optional

import numpy as np
import pandas as pd

from ..errors import ParameterError

if TYPE_CHECKING:                                    # matplotlib stays optional at run time
    from matplotlib.figure import Figure

from .common import PathLike, _pyplot, _save, _set_title, picture_format
from .nrg_scatter import _TAB20_ORDER, _finite_values


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
    not dominated (Moffat et al. 2024, section 3, "Experimental Design": first-stage choices off the frontier
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
    """Draw RBR against cost for first-stage choices, with the Pareto frontier (Moffat et al. 2024, section 3,
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
    return _finish(fig, ax, title, f"{rbr} against {cost}: {len(systems)} first stages, Pareto frontier", fmt, path)


def plot_rbr_bounds(observations: pd.DataFrame, base: str = "base", residual: str = "residual",
                    full: str = "full", best: Optional[float] = None, ax: Any = None,
                    path: Optional[PathLike] = None, title: Optional[str] = None) -> "Figure":
    """Draw RBR scores of a set of observations with their bounds, as Moffat et al. 2024, Fig. 3 does.

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
    return _finish(fig, ax, title, f"RBR of {len(x)} observations: {base}, {base} + {residual}, {full}", fmt, path)


def _finish(fig, ax, title, default_title: str, fmt, path):
    """Grid, legend (lower right) and title of a first-stage figure, saved to ``path`` when ``fmt`` is set."""
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small", frameon=True, framealpha=0.85)
    _set_title(ax, title, default_title)
    if fmt:
        _save(fig, path)
    return fig
