"""Helpers for NRG's prior sets: picking each team's best run, and scoring a set of runs against
each other.

NRG (``ir_rbstar.NRG``) scores a run against prior runs. Bigdeli et al. 2024 takes as the prior set of each
run "the best run of every other group". With the runs of an experiment registered as a group, one
measure string does that for every run::

    >>> import ir_rbstar, ir_measures
    >>> qrels = {"q": {"a": 1, "b": 1, "c": 0}}
    >>> runs = {"x1": {"q": {"a": 2.0, "c": 1.0}}, "x2": {"q": {"c": 2.0, "a": 1.0}},
    ...         "y1": {"q": {"b": 2.0, "a": 1.0}}}
    >>> teams = {"x1": "x", "x2": "x", "y1": "y"}
    >>> best = ir_rbstar.nrg.best_per_team(runs, teams, qrels, "nDCG@10")
    >>> best
    {'x': 'x1', 'y': 'y1'}
    >>> ir_rbstar.register_runs("exp", runs, teams=teams, best=best)
    >>> m = ir_rbstar.parse("NRG(prior='exp')@10")[0]
    >>> {name: round(ir_measures.calc_aggregate([m], qrels, run)[m], 4) for name, run in runs.items()}
    {'x1': 1.0, 'x2': 0.6309, 'y1': 1.0}
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Union

import ir_measures
import numpy as np

from .errors import ParameterError

__all__ = ["best_per_team"]


def best_per_team(runs: Mapping[str, Any], teams: Mapping[str, str], qrels: Any,
                  measure: Union[str, Any] = "nDCG@10") -> Dict[str, str]:
    """The best run of each team by the mean of ``measure`` (ties: the first run given), for
    :func:`ir_rbstar.register_runs`' ``best=``. ``runs`` maps names to runs in any form ir_measures or
    ir_rbstar reads (DataFrames, dicts of dicts, TREC file paths)."""
    if isinstance(measure, str):
        from .parsing import parse
        parsed = parse(measure)
        if len(parsed) != 1:
            raise ParameterError(f"best_per_team: measure={measure!r} must name one measure")
        measure = parsed[0]
    missing = [name for name in runs if name not in teams]
    if missing:
        raise ParameterError(f"best_per_team: no team given for run {missing[0]!r}")
    from .datasets import resolve_qrels
    from .io import to_ranking
    from .provider import PROVIDER
    resolved = resolve_qrels(qrels)
    if PROVIDER.supports(measure):      # whole columns, no conversion to ir_measures' forms
        ours = PROVIDER.evaluator([measure], resolved)
        mean = lambda ranking: float(np.mean(ours.values(ranking)[measure]))   # noqa: E731
    else:
        from .dicts import qrels_dict, ranking_dict
        evaluator = ir_measures.evaluator([measure], qrels_dict(resolved))
        mean = lambda ranking: evaluator.calc_aggregate(ranking_dict(ranking))[measure]   # noqa: E731
    best: Dict[str, tuple] = {}
    for name, run in runs.items():
        value = mean(to_ranking(run))
        team = teams[name]
        if team not in best or value > best[team][0]:
            best[team] = (value, name)
    return {team: name for team, (_, name) in best.items()}
