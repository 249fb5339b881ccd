"""Runs reach measures without global state: a run scope (context variable) or an evaluator's ``runs=``;
every ``ref``/``prior``/``runs`` is resolved when the evaluator is built."""
import threading

import ir_measures
import pytest

import ir_rbstar
from ir_rbstar import references
from ir_rbstar.errors import ReferenceNotFoundError
from ir_rbstar.provider import PROVIDER

QRELS = {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d4": 1}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0, "d5": 0.5}}
SAME = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0, "d5": 0.5}}
OTHER = {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d5": 1.0}}
RBO = ir_rbstar.parse("RBO_ext(p=0.8,ref='scoped')")[0]


def _value(measure, run=RUN, **kw):
    return ir_measures.calc_aggregate([measure], QRELS, run, **kw)[measure]


def test_a_scope_names_runs_inside_the_block_only():
    with ir_rbstar.run_scope(runs={"scoped": SAME}):
        inside = _value(RBO)
        assert "scoped" not in ir_rbstar.registered_runs()
    assert inside == pytest.approx(1.0)
    with pytest.raises(ReferenceNotFoundError, match="scoped"):
        _value(RBO)


def test_scopes_nest_and_hide_registered_names():
    ir_rbstar.register_run("scoped", OTHER)
    try:
        outside = _value(RBO)
        with ir_rbstar.run_scope(runs={"scoped": SAME}):
            assert _value(RBO) == pytest.approx(1.0)
            with ir_rbstar.run_scope(runs={"unrelated": OTHER}):
                assert _value(RBO) == pytest.approx(1.0)          # the outer scope is still seen
            with ir_rbstar.run_scope(runs={"scoped": OTHER}):
                assert _value(RBO) == pytest.approx(outside)      # the inner one hides it
        assert _value(RBO) == pytest.approx(outside)
        assert outside < 0.9
    finally:
        ir_rbstar.unregister_run("scoped")


def test_groups_in_a_scope_serve_prior_and_runs():
    nrg = ir_rbstar.parse("NRG(prior='pset')@3")[0]
    rarp = ir_rbstar.parse("RarP(runs='pset')@3")[0]
    with ir_rbstar.run_scope(groups={"pset": {"a": SAME, "b": OTHER}}):
        scoped = ir_measures.calc_aggregate([nrg, rarp], QRELS, RUN)
    ir_rbstar.register_runs("pset", {"a": SAME, "b": OTHER})
    try:
        registered = ir_measures.calc_aggregate([nrg, rarp], QRELS, RUN)
    finally:
        ir_rbstar.unregister_runs("pset")
    assert scoped == registered


def test_the_evaluator_resolves_names_when_it_is_built():
    bad = ir_rbstar.parse("RBO(p=0.8,ref='no_such_run')")[0]
    with pytest.raises(ReferenceNotFoundError, match="no_such_run"):
        PROVIDER.evaluator([bad], QRELS)                     # before any run is evaluated
    ev = PROVIDER.evaluator([RBO], QRELS, runs={"scoped": SAME})
    ir_rbstar.register_run("scoped", OTHER)                 # later names change nothing for this evaluator
    try:
        assert ev.calc_aggregate(RUN)[RBO] == pytest.approx(1.0)
        with ir_rbstar.run_scope(runs={"scoped": OTHER}):
            assert ev.calc_aggregate(RUN)[RBO] == pytest.approx(1.0)
    finally:
        ir_rbstar.unregister_run("scoped")


def test_threads_see_their_own_scopes():
    results = {}
    barrier = threading.Barrier(2)

    def work(name, ref):
        with ir_rbstar.run_scope(runs={"scoped": ref}):
            barrier.wait()                                 # both scopes are open at the same time
            results[name] = _value(RBO)

    threads = [threading.Thread(target=work, args=("same", SAME)), threading.Thread(target=work, args=("other", OTHER))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["same"] == pytest.approx(1.0)
    assert results["other"] < 0.9


def test_pairwise_report_and_demo_leave_the_registry_as_it_was(tmp_path):
    from ir_rbstar.med import pairwise
    before = (ir_rbstar.registered_runs(), ir_rbstar.registered_groups())
    pairwise({"a": RUN, "b": OTHER}, "MED_P@2", QRELS)
    assert (ir_rbstar.registered_runs(), ir_rbstar.registered_groups()) == before
    assert references._SCOPE.get() is None
