"""RBO from DataFrames without columns over all rows it does not need.

* ``_compiled.rbo_tied_join_same`` makes both rankings' tie groups query by query from the sort's tie
  flags; it must give the very doubles of ``rbo_tied_join`` fed the groups of ``Ranking.tie_groups()``
  (its numpy counterpart, itself checked against the numpy engine in tests/integration/test_engine.py),
  and the evaluation that takes it the values of the numpy engine.
* A run DataFrame's document ids read from arrow's buffers are a new array, which the sort reorders in
  place; the frame itself is never changed, and the Ranking is the one a dict of the same run gives.
* ``Moves.apply`` leaves a column alone (no copy) when every moved row carries the same bytes as the
  row it replaces, and moves it otherwise.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar import engine
from ir_rbstar.core import rankbiased_ties as T
from ir_rbstar.io import docindex, to_ranking

from tests.conftest import examples

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])

DOCS = [f"d{i}" for i in range(12)]


@st.composite
def frames(draw, queries=("q1", "q2", "q3")):
    """A run as a DataFrame: some queries, documents once each, scores from a few values (ties), rows in
    score order or shuffled."""
    rows = []
    for q in draw(st.lists(st.sampled_from(queries), min_size=1, max_size=3, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        scores = draw(st.lists(st.sampled_from([3.0, 2.0, 2.0, 1.0, 0.5]), min_size=len(docs), max_size=len(docs)))
        block = sorted(zip(docs, scores, strict=True), key=lambda x: -x[1]) if draw(st.booleans()) \
            else list(zip(docs, scores, strict=True))
        rows += [(q, d, s) for d, s in block]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _kernel_inputs(run, ref):
    """The arguments both kernels share, for the run's queries (the universe of an evaluation without qrels)."""
    from ir_rbstar.context import ranges
    r_first, r_len = ranges(ref, run.qcodes)
    b_len = run.segment_lengths().astype(np.int64)
    l, s = np.maximum(b_len, r_len), np.minimum(b_len, r_len)
    return r_first, r_len, b_len, l, s, T.suffix_tables(0.9, int(l.max(initial=0)))


@SETTINGS
@given(frames(), frames())
def test_join_from_tie_flags_gives_the_doubles_of_the_join_from_tie_groups(a, b):
    _compiled = pytest.importorskip("ir_rbstar._compiled", reason="the compiled engine needs numba")
    run, ref = to_ranking(a), to_ranking(b)
    assert "same" in run._cache and "same" in ref._cache           # the sort keeps its tie flags
    r_first, r_len, b_len, l, s, tables = _kernel_inputs(run, ref)
    start, size = (x.astype(np.int64) for x in run.tie_groups())
    rstart, rsize = (x.astype(np.int64) for x in ref.tie_groups())
    expected = _compiled.rbo_tied_join(run.offsets[:-1], b_len, run.docs.view(np.int64), start, size, size,
                                       r_first, r_len, ref.docs.view(np.int64), rstart, rsize, l, s, *tables)
    got = _compiled.rbo_tied_join_same(run.offsets[:-1], b_len, run.docs.view(np.int64), run._cache["same"],
                                       r_first, r_len, ref.docs.view(np.int64), ref._cache["same"], l, s, *tables)
    for e, g in zip(expected, got, strict=True):
        assert e.tobytes() == g.tobytes()


@SETTINGS
@given(frames())
def test_groups_from_tie_flags_are_the_rankings_tie_groups(a):
    _compiled = pytest.importorskip("ir_rbstar._compiled", reason="the compiled engine needs numba")
    run = to_ranking(a)
    want_start, want_size = run.tie_groups()
    top = int(run.segment_lengths().max())
    start, size = np.empty(top, dtype=np.int64), np.empty(top, dtype=np.int64)
    for i in range(len(run.qcodes)):
        first, n = int(run.offsets[i]), int(run.offsets[i + 1] - run.offsets[i])
        _compiled._groups_of(run._cache["same"], first, n, start, size)
        assert start[:n].tolist() == want_start[first:first + n].tolist()
        assert size[:n].tolist() == want_size[first:first + n].tolist()


@SETTINGS
@given(frames(), frames(), st.sampled_from([["RBO", "RBO_ext"], ["RBO_ext"], ["RBO", "RBO_res"]]))
def test_rbo_from_frames_takes_the_flag_join_and_agrees_with_the_numpy_engine(a, b, names):
    _compiled = pytest.importorskip("ir_rbstar._compiled", reason="the compiled engine needs numba")
    measures = [ir_measures.parse_measure(f"{n}(p=0.9,ref='frame_join_ref')") for n in names]
    calls = []
    original = _compiled.rbo_tied_join_same

    def counted(*args):
        calls.append(1)
        return original(*args)

    values = {}
    ir_rbstar.register_run("frame_join_ref", b)
    try:
        for name in ("numpy", "numba"):
            with engine.using(name):
                _compiled.rbo_tied_join_same = counted
                try:
                    values[name] = {(str(m.measure), m.query_id): m.value
                                    for m in ir_measures.iter_calc(measures, None, a)}
                finally:
                    _compiled.rbo_tied_join_same = original
    finally:
        ir_rbstar.unregister_run("frame_join_ref")
    assert values["numpy"].keys() == values["numba"].keys()
    for key, v in values["numpy"].items():
        assert np.float64(v).tobytes() == np.float64(values["numba"][key]).tobytes(), key
    if to_ranking(a).has_ties():        # (a run without ties takes the untied family's own path)
        assert calls, "the compiled engine did not take the join from the tie flags"


def test_frame_ids_are_moved_in_place_and_the_frame_is_unchanged():
    """Tied rows in ascending id order (trec_eval wants descending): the sort moves them within the ids it
    read from arrow, not in the frame; the Ranking is the one the same run as a dict gives."""
    frame = pd.DataFrame({"query_id": ["q"] * 5 + ["r"] * 3,
                          "doc_id": ["a", "b", "c", "d", "e", "x", "y", "z"],
                          "score": [2.0, 2.0, 1.5, 1.0, 1.0, 0.5, 0.5, 0.5]})
    pytest.importorskip("pyarrow")
    if not (isinstance(frame["doc_id"].dtype, pd.StringDtype) and frame["doc_id"].dtype.storage == "pyarrow"):
        frame = frame.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"})
    copy = frame.copy(deep=True)
    as_dict = {}
    for q, d, s in frame.itertuples(index=False):
        as_dict.setdefault(q, {})[d] = s
    got, want = to_ranking(frame), to_ranking(as_dict)
    pd.testing.assert_frame_equal(frame, copy)
    assert got.dbytes.tolist() == [b"b", b"a", b"c", b"e", b"d", b"z", b"y", b"x"]
    for name in ("qcodes", "offsets", "dbytes", "docs", "scores"):
        assert getattr(got, name).tobytes() == getattr(want, name).tobytes(), name
    assert not np.shares_memory(got.dbytes, frame["doc_id"].array.__arrow_array__().chunks[0].buffers()[2])


def test_moves_leave_a_column_of_equal_moved_values_alone():
    m = docindex.Moves(np.array([0, 1]), np.array([1, 0]))
    tied = np.array([2.0, 2.0, 1.0])
    assert m.apply(tied) is tied                               # equal scores swap: nothing to move
    signed = np.array([0.0, -0.0, 1.0])                        # equal, but not the same bytes
    out = m.apply(signed)
    assert out is not signed and out.tobytes() == np.array([-0.0, 0.0, 1.0]).tobytes()
    assert signed.tobytes() == np.array([0.0, -0.0, 1.0]).tobytes()
    ids = np.array([b"a", b"b", b"c"])
    assert m.apply(ids).tolist() == [b"b", b"a", b"c"] and ids.tolist() == [b"a", b"b", b"c"]



@SETTINGS
@given(frames(), st.data())
def test_groups_at_from_positions_are_the_rankings_tie_groups(a, data):
    """The RBO join's tie groups at the shared rows (``Ranking.tie_groups_at`` given the rows' positions,
    from the sort's tie flags) and their queries (``Rows.seg_at_ascending``) are those of
    ``Ranking.tie_groups()`` and of a search per row among the queries' ends, at any ascending rows."""
    from ir_rbstar.context import gather
    run = to_ranking(a)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, len(run) - 1)))), dtype=np.int64)
    lens = run.segment_lengths()
    seg = gather(run, run.qcodes).seg_at_ascending(rows)
    assert np.array_equal(seg, np.searchsorted(np.cumsum(lens), rows, side="right"))
    start, size = run.tie_groups_at(rows, pos=rows - run.offsets[seg])
    want_start, want_size = to_ranking(a).tie_groups()
    assert np.array_equal(start, want_start[rows]) and np.array_equal(size, want_size[rows])
    assert start.dtype == want_start.dtype and size.dtype == want_size.dtype
