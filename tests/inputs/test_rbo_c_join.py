"""The C extension's ``rbo_tied_join_same``: the RBO family's join of a run with its reference and its sums over
the shared documents, for runs too small for the compiled engine (numba). It must give the doubles of the numpy
path (the extension switched off) through an evaluation, and of the numba kernel it stands in for on the same
arguments; it refuses arguments that would make it read outside its buffers."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar.core import rankbiased_ties as T
from ir_rbstar.io import dictscan, extension, framecache, to_ranking

from tests.conftest import examples
from tests.helpers import compiled_off
from tests.inputs.test_frame_rbo_join import _kernel_inputs, frames

pytestmark = pytest.mark.skipif(extension.compiled is None, reason="the C extension is not built")

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _values(measures, run):
    return {(str(m.measure), m.query_id): np.float64(m.value).tobytes()
            for m in ir_measures.iter_calc(measures, None, run)}


@SETTINGS
@given(frames(), frames(), st.sampled_from([["RBO", "RBO_ext"], ["RBO_ext"], ["RBO", "RBO_res"]]),
       st.sampled_from([0.5, 0.9, 0.99]), st.sampled_from(["", "@3"]))
def test_an_evaluation_through_the_c_join_gives_the_numpy_paths_doubles(a, b, names, p, cutoff):
    measures = [ir_measures.parse_measure(f"{n}(p={p},ref='c_join_ref'){cutoff}") for n in names]
    calls = []
    original = dictscan.rbo_tied_join_same

    def counted(*args):
        calls.append(1)
        return original(*args)

    ir_rbstar.register_run("c_join_ref", b)
    try:
        dictscan.rbo_tied_join_same = counted
        try:
            with_c = _values(measures, a)
        finally:
            dictscan.rbo_tied_join_same = original
        taken = bool(calls)
        framecache.clear()
        with compiled_off():
            without = _values(measures, a)
    finally:
        ir_rbstar.unregister_run("c_join_ref")
    assert with_c == without
    if to_ranking(a).has_ties() and not cutoff:        # (a cutoff that splits a tie group: the numpy path)
        assert taken, "the evaluation did not take the C join"


@SETTINGS
@given(frames(), frames(), st.sampled_from([0.5, 0.9, 0.99]))
def test_the_c_join_is_the_compiled_engines_join(a, b, p):
    _compiled = pytest.importorskip("ir_rbstar._compiled", reason="the compiled engine needs numba")
    run, ref = to_ranking(a), to_ranking(b)
    r_first, r_len, b_len, l, s, _ = _kernel_inputs(run, ref)
    tables = T.suffix_tables(p, int(l.max(initial=0)))
    args = (run.offsets[:-1], b_len, run.docs.view(np.int64), run._cache["same"], r_first, r_len,
            ref.docs.view(np.int64), ref._cache["same"], l, s, *tables)
    want = _compiled.rbo_tied_join_same(*args)
    got = dictscan.rbo_tied_join_same(*args)
    for w, g in zip(want, got, strict=True):
        assert w.tobytes() == g.tobytes()


def _small():
    """Arguments of one query: run rows d1 d2 d3 (d2 and d3 tied), reference rows d3 d1."""
    i8 = lambda *x: np.array(x, dtype=np.int64)              # noqa: E731
    tables = T.suffix_tables(0.9, 3)
    return [i8(0), i8(3), i8(1, 2, 3), np.array([False, True]), i8(0), i8(2), i8(3, 1), np.array([False]),
            i8(3), i8(2), *tables]


def test_one_query_by_hand():
    """RBO's sums for the small case, from the definition of the tie-aware overlap (Moffat et al. 2024): at
    depth d the expected overlap is sum over shared documents of A(d) B(d), A the share of the document's tie
    group in B within depth d; the head sums p^d X_d / d over d = 1 .. l."""
    args = _small()
    head, x_s, x_l = dictscan.rbo_tied_join_same(*args)
    p = 0.9
    # d1: rank 1 in B, rank 2 in R: A = 1 from d = 1, B = 1 from d = 2. d3: tied with d2 at ranks 2-3 in B
    # (A = 1/2 at d = 2, 1 from d = 3), rank 1 in R.
    overlap = {1: 0.0, 2: 1.0 + 0.5, 3: 2.0}
    want_head = sum(p ** d * overlap[d] / d for d in (1, 2, 3))
    assert head[0] == pytest.approx(want_head, rel=1e-12)
    assert x_s[0] == pytest.approx(overlap[2]) and x_l[0] == 2.0


@pytest.mark.parametrize("change, message", [
    (lambda a: a.__setitem__(1, np.array([4], dtype=np.int64)), "outside its ranking"),      # B rows past the end
    (lambda a: a.__setitem__(5, np.array([3], dtype=np.int64)), "outside its ranking"),      # R rows past the end
    (lambda a: a.__setitem__(3, np.array([False])), "outside its ranking"),                  # too few tie flags
    (lambda a: a.__setitem__(0, np.array([-1], dtype=np.int64)), "outside its ranking"),
    (lambda a: a.__setitem__(8, np.array([99], dtype=np.int64)), "outside the suffix tables"),
    (lambda a: a.__setitem__(9, np.array([2, 2], dtype=np.int64)), "one length"),
    (lambda a: a.__setitem__(11, a[11][:-1]), "one length"),
])
def test_arguments_that_would_read_outside_their_buffers_are_refused(change, message):
    args = _small()
    change(args)
    with pytest.raises(ValueError, match=message):
        extension.compiled.rbo_tied_join_same(*[np.ascontiguousarray(x) if x.dtype != bool else x.view(np.uint8)
                                                for x in args])


def test_wrong_types_are_refused_and_an_item_twice_in_the_reference_declines():
    args = _small()
    as_buffers = [np.ascontiguousarray(x) if x.dtype != bool else x.view(np.uint8) for x in args]
    with pytest.raises(ValueError, match="8-byte integers"):
        extension.compiled.rbo_tied_join_same(*([as_buffers[0].astype(np.float64)] + as_buffers[1:]))
    with pytest.raises(ValueError, match="float64"):
        extension.compiled.rbo_tied_join_same(*(as_buffers[:10] + [as_buffers[10].astype(np.float32)]
                                                + as_buffers[11:]))
    args[6] = np.array([3, 3], dtype=np.int64)
    assert dictscan.rbo_tied_join_same(*args) is None
