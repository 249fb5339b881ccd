"""The C extension's counterparts of the compiled engine's RBO steps (``dictscan.RBO_KERNELS``:
``rbo_tied_join_same`` for tied runs, ``match_ranges`` and ``rbo_sums`` for the others): the RBO family's join of a
run with its reference and its sums over the shared documents, for runs too small for the compiled engine (numba).
They must give the doubles of the numpy path (the extension switched off) through an evaluation, and of the numba
kernels they stand in for on the same arguments; they refuse arguments that would make them read outside their
buffers."""
from __future__ import annotations

from unittest import mock

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


def _both_ways(measures, run, reference, owner, step, qrels=None):
    """The measures' per-query doubles (against ``reference`` registered as 'c_join_ref', or the ``qrels``) with
    the extension, its ``owner.step`` counted, and with the extension switched off; and whether the step was
    called."""
    calls = []
    original = getattr(owner, step)

    def counted(*args):
        calls.append(1)
        return original(*args)

    def values():
        return {(str(m.measure), m.query_id): np.float64(m.value).tobytes()
                for m in ir_measures.iter_calc(measures, qrels, run)}
    if reference is not None:
        ir_rbstar.register_run("c_join_ref", reference)
    try:
        with mock.patch.object(owner, step, counted):
            with_c = values()
        framecache.clear()
        with compiled_off():
            without = values()
    finally:
        ir_rbstar.unregister_run("c_join_ref")
    return with_c, without, bool(calls)


@SETTINGS
@given(frames(), frames(), st.sampled_from([["RBO", "RBO_ext"], ["RBO_ext"], ["RBO", "RBO_res"]]),
       st.sampled_from([0.5, 0.9, 0.99]), st.sampled_from(["", "@3"]))
def test_an_evaluation_through_the_c_join_gives_the_numpy_paths_doubles(a, b, names, p, cutoff):
    measures = [ir_measures.parse_measure(f"{n}(p={p},ref='c_join_ref'){cutoff}") for n in names]
    with_c, without, taken = _both_ways(measures, a, b, dictscan.RBO_KERNELS, "rbo_tied_join_same")
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
    got = dictscan.RBO_KERNELS.rbo_tied_join_same(*args)
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
    head, x_s, x_l = dictscan.RBO_KERNELS.rbo_tied_join_same(*args)
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
    with pytest.raises(dictscan.Declined):
        dictscan.RBO_KERNELS.rbo_tied_join_same(*args)


# ---------------------------------------------------------------------------------------------
# runs without ties: match_ranges and rbo_sums in C (dictscan.RBO_KERNELS)

@st.composite
def untied_frames(draw, queries=("q1", "q2", "q3")):
    """A run without tied scores (each query's scores distinct), rows in any order."""
    import pandas as pd
    rows = []
    for q in draw(st.lists(st.sampled_from(queries), min_size=1, max_size=3, unique=True)):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=10, unique=True))
        scores = draw(st.permutations(list(range(len(docs)))))
        rows += [(q, d, float(s) / 4) for d, s in zip(docs, scores, strict=True)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@SETTINGS
@given(st.one_of(untied_frames(), frames()), st.one_of(frames(), untied_frames()),
       st.sampled_from([["RBO", "RBO_ext"], ["RBO_ext", "RBO_res"], ["RBO"]]), st.sampled_from([0.5, 0.9]),
       st.sampled_from(["", "@3"]), st.sampled_from(["", ",ties='docid'"]))
def test_an_untied_run_through_the_c_steps_gives_the_numpy_paths_doubles(a, b, names, p, cutoff, ties):
    """A run without ties, or any run with ``ties='docid'`` (its ties broken as trec_eval orders them)."""
    measures = [ir_measures.parse_measure(f"{n}(p={p},ref='c_join_ref'{ties}){cutoff}") for n in names]
    with_c, without, taken = _both_ways(measures, a, b, dictscan.RBO_KERNELS, "rbo_sums")
    assert with_c == without
    if ties or not to_ranking(a).has_ties():
        assert taken, "the evaluation did not take the C steps"


@SETTINGS
@given(untied_frames(), st.one_of(frames(), untied_frames()), st.sampled_from([0.5, 0.9, 0.99]),
       st.sampled_from([None, 2]))
def test_the_c_steps_are_the_compiled_engines(a, b, p, cutoff):
    _compiled = pytest.importorskip("ir_rbstar._compiled", reason="the compiled engine needs numba")
    from ir_rbstar.context import ranges
    from ir_rbstar.core import rankbiased as K
    run, ref = to_ranking(a), to_ranking(b)
    b_start, b_len = ranges(run, run.qcodes, cutoff)
    r_start, r_len = ranges(ref, run.qcodes)
    args = (b_start, b_len, run.docs.view(np.int64), r_start, r_len, ref.docs.view(np.int64))
    want = _compiled.match_ranges(*args)
    got = dictscan.RBO_KERNELS.match_ranges(*args)
    assert [x.tolist() for x in got] == [x.tolist() for x in want]
    seg, rank, row = got
    start, size = (x.astype(np.int64) for x in ref.tie_groups())
    l, s = np.maximum(b_len, r_len), np.minimum(b_len, r_len)
    _, H, G = K.rbo_tables(p, int(l.max(initial=0)))
    sums = (len(b_len), seg, rank, row, start, size, l, s, H, G)
    for w, g in zip(_compiled.rbo_sums(*sums), dictscan.RBO_KERNELS.rbo_sums(*sums), strict=True):
        assert w.tobytes() == g.tobytes()


def test_the_c_steps_refuse_what_would_read_outside_their_buffers_and_decline_a_repeated_item():
    i8 = lambda *x: np.array(x, dtype=np.int64)              # noqa: E731
    match = extension.compiled.match_ranges
    assert [np.frombuffer(x, dtype=np.int64).tolist() for x in match(i8(0), i8(3), i8(1, 2, 3), i8(0), i8(2),
                                                                     i8(3, 1))] == [[0, 0], [1, 3], [1, 0]]
    with pytest.raises(ValueError, match="outside"):
        match(i8(0), i8(4), i8(1, 2, 3), i8(0), i8(2), i8(3, 1))
    with pytest.raises(ValueError, match="one length"):
        match(i8(0, 0), i8(3), i8(1, 2, 3), i8(0), i8(2), i8(3, 1))
    with pytest.raises(dictscan.Declined):
        dictscan.RBO_KERNELS.match_ranges(i8(0), i8(3), i8(1, 2, 3), i8(0), i8(2), i8(3, 3))
    _, H, G = __import__("ir_rbstar.core.rankbiased", fromlist=["rbo_tables"]).rbo_tables(0.9, 3)
    sums = extension.compiled.rbo_sums
    good = [1, i8(0), i8(1), i8(0), i8(0), i8(1), i8(3), i8(2), H, G]
    head, x_s = (np.frombuffer(x) for x in sums(*good))
    # one shared document, rank 1 in both: sum over d = 1 .. 3 of p^d / d, and 1 at depth 2
    assert head[0] == pytest.approx(sum(0.9 ** d / d for d in (1, 2, 3)), rel=1e-12) and x_s[0] == 1.0
    for at, bad in ((3, i8(5)), (6, i8(99)), (4, i8(-1)), (1, i8(1))):     # row, depth l, group start, query
        with pytest.raises(ValueError, match="outside the tables"):
            sums(*(good[:at] + [bad] + good[at + 1:]))


@SETTINGS
@given(untied_frames(), st.dictionaries(st.sampled_from(["q1", "q2", "q3"]),
                                        st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]),
                                                        st.integers(0, 3), min_size=1, max_size=8),
                                        min_size=1, max_size=3),
       st.sampled_from([0.5, 0.9]), st.sampled_from(["", "@3"]))
def test_against_the_qrels_ideal_ranking_the_c_steps_give_the_numpy_paths_doubles(a, qrels, p, cutoff):
    """Without ``ref=`` the reference is the qrels' ideal ranking (grades tie there)."""
    measures = [ir_measures.parse_measure(f"{n}(p={p}){cutoff}") for n in ("RBO", "RBO_ext")]
    with_c, without, taken = _both_ways(measures, a, None, dictscan.RBO_KERNELS, "rbo_sums", qrels)
    assert with_c == without
    assert taken, "the evaluation did not take the C steps"
