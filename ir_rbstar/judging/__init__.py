"""Which documents to judge next, how fast a strategy settles an evaluation, and evaluation with auxiliary
judgments (issue 29).

* :func:`select` -- the next (query, document) pairs to judge, with a priority and a reason, by one of the
  package's goals (``residual``, ``pairs``, ``ranking``) or a baseline (``depth``, ``rbp_sum``,
  ``rbp_max``, ``mtf``, ``bandit``); see :mod:`ir_rbstar.judging.strategies`.
* :func:`simulate` -- replay strategies with the real qrels as the oracle and record, per budget, how
  close the evaluation is to the one with every judgment (see :mod:`ir_rbstar.judging.simulate`); judging
  orders made elsewhere are replayed beside them (:mod:`ir_rbstar.judging.orders`).
* :func:`aux_split` -- values with auxiliary judgments, split into the human part, the auxiliary part and
  the residual that remains (see :mod:`ir_rbstar.judging.aux`).
"""
from .aux import AUX_COLUMNS, aux_split, aux_verdicts, merge_judgments
from .pool import Pool, Weights, build_pool, weights_of
from .select import SELECTION_COLUMNS, select, write_selection, write_stub
from .simulate import SIMULATION_COLUMNS, needed, plot_simulation, replay, simulate
from .strategies import BASELINES, GOALS, STRATEGIES, choose

__all__ = ["select", "write_selection", "write_stub", "SELECTION_COLUMNS", "STRATEGIES", "GOALS", "BASELINES",
           "build_pool", "weights_of", "Pool", "Weights", "choose", "simulate", "replay", "needed",
           "plot_simulation", "SIMULATION_COLUMNS", "aux_split", "aux_verdicts", "merge_judgments", "AUX_COLUMNS"]
