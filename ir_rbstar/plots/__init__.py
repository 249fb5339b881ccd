"""Pictures of the Twist analysis (Ferro et al. 2016), drawn with matplotlib.

* :func:`plot_crp`: the CRP curve of a run on one topic, with the ideal run (the zero line), the
  full-scale run, the recall base, the crossings and the balance point (Ferro et al. 2016, Figs. 2-3), and on
  request the run's cumulative DCG beside it (Fig. 11);
* :func:`plot_effort_gain`: Twist (effort) against a gain measure (AP, nDCG, RBP or any ir_measures
  measure) for every run x topic, on the paper's 4 x 4 grid (Figs. 7-10), with the share of points in
  each cell; :func:`effort_gain_points` gives the points themselves;
* :func:`plot_nrg`: a residual-gain measure (NRG, UniqueRel, RarP, TaSC, ...) against a base measure
  over a set of runs, one labelled point per run, coloured by group (Bigdeli et al. 2024, Figs. 2-5);
* :func:`plot_distance_matrix`: a heat map of a run-distance matrix (MED, 1 - RBO, 1 - RBA) made by
  :func:`ir_rbstar.med.distance_matrix` (Tan & Clarke 2015, section VI).

matplotlib is an optional dependency: ``pip install "ir_rbstar[plot]"``. It is imported only when a
picture is drawn; on a machine without a display (no ``DISPLAY`` / ``WAYLAND_DISPLAY`` on Linux) and
with no backend chosen by the user, the non-interactive "Agg" backend is selected. Figures are made
with ``matplotlib.pyplot``, so ``plt.show()`` shows them; close them with ``plt.close(fig)`` when
drawing many. ``path`` writes a PNG (at :data:`DPI` dots per inch) or an SVG, chosen by its extension.

Command line: ``ir-rbstar plot crp QRELS RUN --query Q --output crp.png`` and
``ir-rbstar plot effort-gain QRELS RUN [RUN ...] --gain AP --output eg.png``; the heat map comes with
``ir-rbstar distance RUN RUN [RUN ...] --measure MED_nDCG@20 --picture matrix.png``.


Modules: :mod:`.common` (matplotlib on demand, formats, saving, run names), :mod:`.crp_curves`,
:mod:`.effort_gain`, :mod:`.nrg_scatter`, :mod:`.distance_matrix` and :mod:`.first_stage`.
"""
from __future__ import annotations

from .common import DPI, picture_format, run_name, run_names
from .crp_curves import CRP_DCG_FIGSIZE, CRP_FIGSIZE, plot_crp
from .effort_gain import (EFFORT_GAIN_FIGSIZE, GAIN_SHORTCUTS, TWIST_CUTS, TWIST_LABELS, effort_gain_points,
                          plot_effort_gain)
from .nrg_scatter import NRG_FIGSIZE, plot_nrg
from .distance_matrix import plot_distance_matrix
from .first_stage import RBR_BOUNDS_FIGSIZE, RBR_COST_FIGSIZE, pareto_frontier, plot_rbr_bounds, plot_rbr_cost

__all__ = ["plot_crp", "plot_effort_gain", "effort_gain_points", "plot_nrg", "plot_distance_matrix",
           "picture_format", "run_name", "run_names",
           "TWIST_CUTS", "TWIST_LABELS", "GAIN_SHORTCUTS", "DPI", "CRP_FIGSIZE", "CRP_DCG_FIGSIZE",
           "EFFORT_GAIN_FIGSIZE", "NRG_FIGSIZE",
           "pareto_frontier", "plot_rbr_cost", "plot_rbr_bounds", "RBR_COST_FIGSIZE", "RBR_BOUNDS_FIGSIZE"]
