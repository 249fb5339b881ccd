"""RBO and RBO_ext from the sums over the shared documents (``core.rankbiased.rbo_finish``) by the C extension's
pass (``io.dictscan.rbo_finish_step``): the same doubles, bit for bit, as the numpy operations it stands in for,
at every length (no document in either list, one list shorter than the other) and every p; and depths outside the
tables are an error, not a read past them."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar.core import rankbiased as K
from ir_rbstar.io import dictscan
from tests.conftest import examples

STEP = dictscan.rbo_finish_step()
needs_step = pytest.mark.skipif(STEP is None, reason="the C extension is not built here")


def _family(p, s, l, head, x_l, x_s, step):
    tables = K.rbo_tables(p, int(l.max(initial=0)))
    return K.rbo_finish(p, s, l, head, x_l, x_s, tables, residual=True, finish_step=step)


@needs_step
@settings(max_examples=examples(200), deadline=None)
@given(st.floats(0.01, 0.99), st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60), st.floats(0, 1),
                                                 st.floats(0, 1), st.floats(0, 1)), max_size=30))
def test_the_c_pass_gives_the_same_doubles(p, rows):
    a = np.array([r[0] for r in rows], dtype=np.int64)
    b = np.array([r[1] for r in rows], dtype=np.int64)
    s, l = np.minimum(a, b), np.maximum(a, b)
    x_l = np.array([min(r[0], r[1]) * r[2] for r in rows], dtype=np.float64)     # overlaps within the lengths
    x_s = x_l * np.array([r[3] for r in rows], dtype=np.float64)
    head = np.array([r[4] for r in rows], dtype=np.float64) * 3.0
    want = _family(p, s, l, head, x_l, x_s, None)
    got = _family(p, s, l, head, x_l, x_s, STEP)
    assert set(got) == set(want) == {"RBO", "RBO_ext", "RBO_res"}
    for name in want:
        assert got[name].tobytes() == want[name].tobytes(), name


@needs_step
def test_depths_outside_the_tables_are_an_error():
    one = np.ones(1)
    tables = K.rbo_tables(0.9, 3)              # depths 0 .. 8
    for s, l in ((0, 9), (-1, 2), (2, 1_000)):
        with pytest.raises(ValueError, match="outside the tables"):
            STEP(0.1, 2.3, np.array([s]), np.array([l]), one, one, one, *tables)
    with pytest.raises(ValueError, match="disagree"):
        STEP(0.1, 2.3, np.array([1, 2]), np.array([2]), one, one, one, *tables)


@needs_step
def test_measures_are_the_same_without_the_c_pass(monkeypatch):
    """RBO and RBO_ext of a run with ties against a reference, through ir_measures: the same values with the C
    pass and without it (the numpy operations)."""
    rng = np.random.default_rng(5)
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 6)) for d in rng.choice(40, 25, replace=False)} for q in range(6)}
    ref = {f"q{q}": {f"d{d}": float(rng.random()) for d in rng.choice(40, 15 + q, replace=False)} for q in range(6)}
    ir_rbstar.register_run("finish_ref", ref)
    try:
        ms = ir_rbstar.parse("RBO(p=0.9,ref='finish_ref') RBO_ext(p=0.9,ref='finish_ref') "
                             "RBO(p=0.8,ref='finish_ref',ties='docid') RBO_ext(p=0.8,ref='finish_ref',ties='docid')")
        with_step = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(ms, None, run)}
        monkeypatch.setattr(dictscan, "rbo_finish_step", lambda: None)
        without = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(ms, None, run)}
    finally:
        ir_rbstar.unregister_run("finish_ref")
    assert len(with_step) == 24 and with_step == without


def test_the_tables_are_kept_read_only_and_equal_to_new_ones():
    """The RBO tables kept per (p, length) (core.rankbiased.kept_tables) hold what new ones hold and cannot be
    written; longer rankings get new, writable tables each call."""
    from ir_rbstar.core import rankbiased_ties as T
    for make in (K.rbo_tables, T.suffix_tables):
        first, again = make(0.9, 100), make(np.float64(0.9), np.int64(100))
        fresh = make.__wrapped__(0.9, 100)
        assert all(a is b for a, b in zip(first, again, strict=True))
        for a, b in zip(first, fresh, strict=True):
            assert a.tobytes() == b.tobytes() and not a.flags.writeable
        long = make(0.9, K.TABLES_KEPT_UP_TO + 1)
        assert all(a.flags.writeable for a in long) and make(0.9, K.TABLES_KEPT_UP_TO + 1)[0] is not long[0]
