"""The report's pictures: effort against gain, NRG, the distance heat maps and the CRP curve, drawn into
the report's folder (matplotlib, on request of :func:`ir_rbstar.report.build.build_report`)."""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..errors import RbstarError
from ..io import Qrels, Ranking
from .catalogue import Column, DISTANCES


def _typical_topic(qrels: Qrels, ranking: Ranking) -> Optional[str]:
    """The query whose Twist is nearest the run's median Twist (the first such in the qrels' order)."""
    from ..twist import twist_table
    table = twist_table(qrels, ranking)
    tau = table["tau"].to_numpy(dtype=np.float64)
    ok = ~np.isnan(tau)
    if not ok.any():
        return None
    median = float(np.median(tau[ok]))
    distance = np.where(ok, np.abs(tau - median), np.inf)
    return str(table["query_id"].to_numpy()[int(np.argmin(distance))])


def _draw_pictures(out_dir: str, step: Callable[[str], None], q: Qrels, rankings: Dict[str, Ranking], names: List[str],
                   means: pd.DataFrame, matrices: Dict[str, pd.DataFrame], baseline: Optional[str],
                   group_of: Optional[Dict[str, str]], nrg_plot: Optional[Tuple[str, str]], topic: Optional[str],
                   drawn: List[Tuple[str, str]], notes: List[str], missing: List[str],
                   points: Optional[pd.DataFrame] = None) -> None:
    """Draw the pictures into ``out_dir``; append (file, caption) of each to ``drawn``, remarks to
    ``notes``, and the install hint to ``missing`` when matplotlib is not there (nothing more is tried).
    ``points``: the effort/gain picture's Twist and AP values, taken from the report's per-query table
    (:func:`ir_rbstar.report.table.effort_gain_values`); None: computed from the runs."""
    crp_run = baseline if baseline is not None else names[0]
    crp_topic = str(topic) if topic is not None else _typical_topic(q, rankings[crp_run])

    def draw(message: str, name: str, caption: str, make: Callable[[str], Any]) -> None:
        step(message)
        if missing:
            return
        try:
            fig = make(os.path.join(out_dir, name))
        except ImportError as e:
            if isinstance(e, RbstarError):
                raise
            missing.append(str(e))
            return
        if fig is not None:
            _close(fig)
            drawn.append((name, caption))

    def effort_gain(target: str):
        from ..plots import plot_effort_gain
        try:
            fig, _ = plot_effort_gain(q, rankings, gain="AP", path=target, points=points)
        except RbstarError as e:
            notes.append(f"The effort/gain picture was not drawn: {e}")
            return None
        return fig

    draw("picture: Twist effort/gain (Twist against AP)", "effort_gain.png",
         "Effort/gain: Twist (x) against AP (y), one point per run and topic, on the 4 x 4 grid of "
         "Ferro et al. (Twist 0.25/0.5/0.75; AP quartiles), with the share of points per cell.", effort_gain)
    if nrg_plot is not None:
        x, y = nrg_plot

        def nrg(target: str):
            from ..plots import plot_nrg
            table = means.pivot(index="run", columns="measure", values="mean").reindex(names)
            points = pd.DataFrame({"run": names, x: table[x].to_numpy(), y: table[y].to_numpy()})
            kind: Optional[str] = "group"
            highlight = None
            if group_of is not None:
                points["group"] = [group_of[n] for n in names]
            elif baseline is not None:
                points["group"] = ["baseline" if n == baseline else "run" for n in names]
                highlight = "baseline"
            else:
                kind = None
            return plot_nrg(points, x=x, y=y, group=kind, highlight=highlight, path=target)

        draw(f"picture: {y} against {x}", "nrg.png",
             f"`{y}` against `{x}`, one point per run: how much of a run's gain the "
             + ("best runs of the other groups" if group_of is not None else "other runs")
             + " had not already shown.", nrg)
    elif len(names) > 1:
        notes.append("No NRG picture: the measures hold no NRG@k (base nDCG or P) together with its base "
                     "measure nDCG@k or P@k.")
    if matrices:
        for key, _ in DISTANCES:
            matrix = matrices[key]
            label = matrix.attrs["distance"]

            def heat(target: str, matrix=matrix):
                from ..plots import plot_distance_matrix
                return plot_distance_matrix(matrix, path=target)

            draw(f"picture: heat map of {label}", f"distance_{key}.png",
                 f"{label} between every pair of runs (mean over the queries).", heat)
    if crp_topic is not None:
        def crp(target: str):
            from ..plots import plot_crp
            return plot_crp(q, rankings[crp_run], crp_topic, dcg=True, path=target,
                            title=f"{crp_run}, query {crp_topic}")

        draw(f"picture: CRP curve of {crp_run}, query {crp_topic}", "crp.png",
             f"CRP curve of {crp_run} on query {crp_topic}"
             + (" (its Twist is nearest the run's median Twist)" if topic is None else "")
             + ", with the ideal and full-scale runs, beside its cumulative DCG.", crp)
    else:
        step("picture: CRP curve")
        notes.append("The CRP picture was not drawn: no query has a relevant document.")


def _close(fig) -> None:
    if fig is None:
        return
    import matplotlib.pyplot as plt
    plt.close(fig)


def _nrg_axes(columns: List[Column]) -> Optional[Tuple[str, str]]:
    """(base measure label, NRG label) of the first NRG column whose base measure is also a column."""
    labels = {c.label for c in columns}
    for c in columns:
        if c.measure.NAME != "NRG" or c.complement:
            continue
        base, k = c.measure.params.get("base", "nDCG"), c.measure.params.get("cutoff")
        if base in ("nDCG", "P") and k is not None and f"{base}@{k}" in labels:
            return f"{base}@{k}", c.label
    return None
