"""Quantities that depend on the qrels alone (nDCG's ideal DCG, the relevant counts of AP/R/F1, Twist's grade
bands) are kept with the Qrels object for the next evaluation against it (ir_rbstar/families/qrels_kept.py):
a kept value is never stale (a run of other queries gets the values of a fresh conversion), it cannot be
changed in place, and one value per kind is kept."""
from __future__ import annotations

import numpy as np
import pytest
import ir_measures
from hypothesis import given, settings, strategies as st

from tests.conftest import examples

import ir_rbstar
from ir_rbstar.io import qcache
from ir_rbstar.provider import PROVIDER

MEASURES = "nDCG_TA@3 nDCG_TA AP_TA R_TA@2 F1_TA@2 Twist Twist(rel=2) nDCG_TA(stat='var')@3"


@st.composite
def qrels_and_runs(draw):
    """Graded qrels of a few queries and two runs (with ties) over overlapping sets of those queries."""
    queries = [f"q{i}" for i in range(draw(st.integers(2, 5)))]
    qrels = {q: {f"d{d}": draw(st.integers(0, 3))
                 for d in draw(st.lists(st.integers(0, 9), min_size=1, max_size=7, unique=True))} for q in queries}

    def run():
        mine = draw(st.lists(st.sampled_from(queries), min_size=1, unique=True))
        return {q: {f"d{d}": float(draw(st.integers(0, 3)))
                    for d in draw(st.lists(st.integers(0, 11), min_size=1, max_size=8, unique=True))} for q in mine}
    return qrels, run(), run()


def _values(ms, qrels, run):
    return {str(m): v for m, v in PROVIDER.evaluator(ms, qrels).values(run).items()}


@given(qrels_and_runs())
@settings(max_examples=examples(60), deadline=None)
def test_kept_values_are_those_of_a_fresh_conversion(case):
    qrels, run_a, run_b = case
    ms = ir_rbstar.parse(MEASURES)
    fresh = {}
    for name, run in (("a", run_a), ("b", run_b)):
        qcache.clear()                                   # a fresh Qrels: nothing kept
        fresh[name] = _values(ms, qrels, run)
    qcache.clear()
    used = []
    for name in ("a", "b", "a", "b"):                    # one Qrels (kept by qcache), runs in turn
        got = _values(ms, qrels, {"a": run_a, "b": run_b}[name])
        used.append(qcache._last_dict.converted)
        for m, v in fresh[name].items():
            assert np.asarray(got[m]).tobytes() == np.asarray(v).tobytes(), (name, m, got[m], v)
    assert all(u is used[0] for u in used)               # else nothing kept was read: fresh against fresh


def test_kept_once_per_kind_and_read_only():
    qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 1, "d4": 3}}
    runs = [{"q1": {"d1": 1.0, "d3": 1.0}}, {"q1": {"d2": 2.0}, "q2": {"d4": 1.0}}]
    ms = ir_rbstar.parse("nDCG_TA@3 AP_TA Twist")
    qcache.clear()
    for run in runs + runs:
        ir_measures.calc_aggregate(ms, qrels, run)
    converted = qcache._last_dict.converted              # the one Qrels every call used
    kept = {k: v for k, v in converted._cache.items() if isinstance(k, tuple) and k[0] == "kept by family"}
    # one entry per kind (ideal DCG at 3, relevant counts at rel=1, Twist's bands at rel=1), whatever the
    # number of universes seen
    assert len(kept) == 3, sorted(map(str, kept))
    for _universe, value in kept.values():
        arrays = [value] if isinstance(value, np.ndarray) else [v for v in vars(value).values()
                                                                 if isinstance(v, np.ndarray)]
        for a in arrays:
            with pytest.raises(ValueError):
                a[...] = 0
    qcache.clear()


def _curve_values(curve):
    # repr: the same doubles (and NaN for a query without relevant documents)
    return repr([curve.recall_base, curve.rp.tolist(), curve.full_scale_rp.tolist(), curve.crossings.tolist(),
            curve.rho, curve.sigma_plus, curve.sigma_minus, curve.sigma, curve.tau, curve.archetype])


@given(qrels_and_runs(), st.sampled_from([1, 2]))
@settings(max_examples=examples(40), deadline=None)
def test_kept_bands_follow_the_universe(case, rel):
    """The evaluators' universe is always the qrels' queries; Twist's curve of one query is evaluated over a
    universe of that query alone. Alternating the two on one Qrels, each gets the values of a fresh one (the
    bands kept for the other universe, of another number of queries and other query indices, are not used)."""
    from ir_rbstar import twist
    from ir_rbstar.io import to_qrels
    qrels, run, _ = case
    shared = to_qrels(qrels)
    for q in list(qrels) + list(qrels)[::-1]:
        got = twist.crp_curve(shared, run, q, rel=rel)
        want = twist.crp_curve(to_qrels(qrels), run, q, rel=rel)
        assert _curve_values(got) == _curve_values(want), q
        table = twist.twist_table(shared, run, rel=rel)
        fresh = twist.twist_table(to_qrels(qrels), run, rel=rel)
        assert table.equals(fresh)


def test_kept_makes_once_and_is_the_one_store_of_qrels_rankings_and_pools():
    """``kept(key, make)``: ``make`` runs on the first use of a key only, and the same object comes back
    after; Qrels, Ranking and the judging Pool keep derived values through it (the modules that fill
    their stores call it rather than writing into the store)."""
    from ir_rbstar.io import to_qrels, to_ranking
    from ir_rbstar.io.tables import KeepsDerived
    from ir_rbstar.judging.pool import Pool
    qrels = to_qrels({"q1": {"d1": 1, "d2": 0}})
    calls = []

    def make():
        calls.append(1)
        return np.arange(3)
    first = qrels.kept(("test", 1), make)
    assert qrels.kept(("test", 1), make) is first and len(calls) == 1
    assert qrels.kept(("test", 2), make) is not first and len(calls) == 2
    # the judgments' index made by the conversion is the one the look-ups use (no second index)
    index = qrels.kept("index", lambda: pytest.fail("the conversion keeps its index"))
    assert qrels.find_rows(qrels.rowq, qrels.rowd).tolist() == [0, 1] and qrels.kept("index", make) is index
    assert qrels.as_ranking(1) is qrels.as_ranking(1)
    ranking = to_ranking({"q1": {"d1": 1.0}})
    assert ranking.kept("x", make) is ranking.kept("x", make) and len(calls) == 3
    assert issubclass(Pool, KeepsDerived)
