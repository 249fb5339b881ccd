"""A seeded selection is the same on every machine: numpy's vector code sums and raises to powers in an order
that depends on the processor (its SIMD width), so priorities that are equal in exact arithmetic can differ in
their last bits from one machine to another. The ties between them must fall to the next keys alike everywhere
(ir_rbstar.judging.strategies.steady). Here the priorities and the static pools' scores are perturbed by a few
units in the last place, as another machine may compute them, and every choice must stay as it was."""
import numpy as np
import pytest

from ir_rbstar.demo import data_dir
from ir_rbstar.judging import simulate, strategies

STRATEGIES = ["pairs", "ranking", "residual", "depth", "rbp_sum", "rbp_max"]


def _noise(seed):
    """A function moving each finite value by up to four units in the last place (seeded)."""
    rng = np.random.default_rng(seed)

    def perturbed(x):
        x = np.asarray(x, dtype=np.float64)
        ulps = rng.integers(-4, 5, size=x.shape)
        return np.where(np.isfinite(x), x * (1.0 + ulps * np.finfo(np.float64).eps), x)
    return perturbed


def _curves(measure):
    v = data_dir()
    runs = {name: f"{v}/{name}.run.gz" for name in ("bm25", "bm25_flat", "bm25l")}
    return simulate(f"{v}/qrels", runs, measures=[measure], strategies=STRATEGIES, budgets=[100, 300], seed=0)


@pytest.mark.parametrize("measure", ["RBP(p=0.8)@10", "nDCG@10"])
def test_choices_do_not_depend_on_the_last_bits(measure, monkeypatch):
    exact = _curves(measure)
    # the priorities as _top receives them, and the scores the static pools order within a query
    top, place = strategies._top, strategies._position_in_query
    for seed in range(2):
        monkeypatch.setattr(strategies, "_top", lambda pool, prio, *a, _n=_noise(seed), **kw: top(pool, _n(prio), *a, **kw))
        monkeypatch.setattr(strategies, "_position_in_query",
                            lambda pool, score, _n=_noise(seed + 10): place(pool, _n(score)))
        noisy = _curves(measure)
        assert noisy.equals(exact), f"seed {seed}:\n{noisy.compare(exact)}"


def test_steady_rounds_to_a_power_of_two_step():
    x = np.array([1.0, 1.0 + 2.0 ** -40, 0.75, -0.5 + 2.0 ** -45, np.nan, np.inf, 0.0])
    got = strategies.steady(x)
    assert got[0] == got[1] == 1.0 and got[2] == 0.75 and got[3] == -0.5
    assert np.isnan(got[4]) and got[5] == np.inf and got[6] == 0.0
    assert strategies.steady(np.array([1.0, 1.0 + 2.0 ** -20]))[1] == 1.0 + 2.0 ** -20     # apart: kept apart
    assert strategies.steady(np.zeros(3)).tolist() == [0.0, 0.0, 0.0]
