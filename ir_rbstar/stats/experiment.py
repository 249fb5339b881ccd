"""The tests of :func:`ir_rbstar.stats.paired_test` as PyTerrier's ``pt.Experiment(..., test=...)`` takes
them: a callable of (the system's per-query values, the baseline's) whose result holds the p-value at index
1, as ``scipy.stats.ttest_rel``'s does. Nothing here imports PyTerrier."""
from __future__ import annotations

from typing import Any, Callable, Tuple

from ..errors import ParameterError
from ._checks import Values
from .paired import PAIRED_TESTS, paired_test

__all__ = ["experiment_test"]


def experiment_test(test: str = "permutation", **options: Any) -> Callable[[Values, Values], Tuple[float, float]]:
    """A significance test for ``pt.Experiment(systems, topics, qrels, eval_metrics, baseline=0,
    test=experiment_test('permutation'))``: PyTerrier calls it with the per-query values of a system and of
    the baseline (paired by query) and reads the p-value at index 1. ``test`` and ``options``
    (``alternative``, ``n_resamples``, ``seed``, ``zero_method``) are those of :func:`paired_test`, which
    computes the result; the effect-size interval is skipped (PyTerrier shows only the p-value). With
    ``correction=...`` PyTerrier corrects the p-values over the systems itself (statsmodels).

    >>> from ir_rbstar.stats import experiment_test
    >>> fn = experiment_test("t")
    >>> round(fn([0.5, 0.6, 0.9, 0.4], [0.4, 0.5, 0.5, 0.4])[1], 4)
    0.1817
    """
    if test not in PAIRED_TESTS:
        raise ParameterError(f"test: {test!r} is not one of {', '.join(PAIRED_TESTS)}")
    options = {"effect_resamples": 0, **options}

    def run(system: Values, baseline: Values) -> Tuple[float, float]:
        result = paired_test(system, baseline, test=test, **options)
        return result.statistic, result.pvalue

    run.__name__ = f"ir_rbstar_{test}"
    run.__doc__ = f"ir_rbstar.stats.paired_test(test={test!r}) for pt.Experiment: (statistic, p-value)"
    return run
