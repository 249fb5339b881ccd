"""Heat map of a matrix of distances between runs (MED, 1 - RBO)."""
from __future__ import annotations


from typing import TYPE_CHECKING, Optional

import numpy as np
import pandas as pd

from ..errors import ParameterError

if TYPE_CHECKING:                                    # matplotlib stays optional at run time
    from matplotlib.figure import Figure

from .common import PathLike, _pyplot, _save, _set_title, picture_format


#: size of a distance-matrix heat map per run (inches), and its smallest size
MATRIX_CELL = 0.55


MATRIX_MIN_SIZE = 4.5


#: the largest extent of the cells (inches): with many runs the cells shrink instead of the picture growing
#: (59 runs at 0.55 inches a cell made a 35-inch, 27-megapixel PNG that took seconds to write)
MATRIX_MAX_CELLS = 16.0


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
    cell = min(MATRIX_CELL, MATRIX_MAX_CELLS / max(len(rows), len(cols)))
    width = max(MATRIX_MIN_SIZE, cell * len(cols) + 3.0)
    height = max(MATRIX_MIN_SIZE, cell * len(rows) + 2.0)
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
