"""The sort into trec_eval's order moves tied rows within the columns a conversion made itself
(``ranking_from_columns(..., fresh=True)``: dicts and namedtuples) instead of copying them: the same
Ranking and the same duplicate error as from columns it must not touch, on every path of
ranking_from_columns (small, large with the index built beside the sort, compiled), and the caller's
arrays and DataFrames are never changed."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from ir_rbstar.errors import DuplicateDocumentError
from ir_rbstar.io import columns, docindex, ranking_from_columns, to_ranking
from ir_rbstar.io.tables import first_seen

from tests.conftest import examples

ROWS = st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]),
                          st.sampled_from(["a", "b", "c", "d", "e", "D123456789"]),
                          st.sampled_from([2.0, 1.0, 1.0, 0.5])), min_size=1, max_size=25)


def _build(rows, fresh: bool, path: str):
    """(Ranking, error text) from ``rows`` through ranking_from_columns on one of its paths, plus the
    columns as given (to see whether they were changed)."""
    q = np.array([r[0] for r in rows], dtype=object)
    d = np.array([r[1].encode() for r in rows], dtype="S10")
    s = np.array([r[2] for r in rows], dtype=np.float64)
    given_cols = (d.copy(), s.copy())
    saved = columns._PARALLEL_ROWS
    columns._PARALLEL_ROWS = 0 if path == "large" else 10 ** 9
    try:
        if path == "compiled":
            pytest.importorskip("numba")
            from ir_rbstar import _compiled
            kernels = _compiled
            original = columns.compiled
            columns.compiled = lambda n, loaded_only=True: kernels
            try:
                return ranking_from_columns(q, d, s, "<t>", fresh=fresh), None, (d, s), given_cols
            finally:
                columns.compiled = original
        return ranking_from_columns(q, d, s, "<t>", fresh=fresh), None, (d, s), given_cols
    except DuplicateDocumentError as e:
        return None, str(e), (d, s), given_cols
    finally:
        columns._PARALLEL_ROWS = saved


@settings(max_examples=examples(150), deadline=None)
@given(ROWS, st.sampled_from(["small", "large", "compiled"]))
def test_moving_tied_rows_in_place_gives_the_same_ranking_and_error(rows, path):
    kept, kept_error, (d, s), before = _build(rows, False, path)
    moved, moved_error, _, _ = _build(rows, True, path)
    assert kept_error == moved_error
    # columns not marked fresh are never changed, whatever happened
    assert d.tobytes() == before[0].tobytes() and s.tobytes() == before[1].tobytes()
    if kept is None:
        return
    for name in ("qcodes", "offsets", "dbytes", "docs", "scores"):
        assert getattr(kept, name).tobytes() == getattr(moved, name).tobytes(), name


def test_the_in_place_path_is_taken_and_the_error_names_the_input_rows():
    """Rows already in score order with ties to break (Moves): the fresh columns hold the ranked order
    afterwards (no copy), and a duplicate found after the sort still names the documents as given."""
    rows = [("q", "a", 2.0), ("q", "b", 2.0), ("q", "c", 1.0), ("q", "d", 1.0)]
    _, _, (d, s), _ = _build(rows, True, "small")
    assert d.tolist() == [b"b", b"a", b"d", b"c"]            # moved within the array given
    dup = rows + [("q", "a", 0.5)]
    for path in ("small", "large", "compiled"):
        if path == "compiled":
            pytest.importorskip("numba")
        _, error, _, _ = _build(dup, True, path)
        assert error == "<t>: document 'a' appears twice for query 'q'; a run may hold each document once per query"


def test_moves_undo_is_the_inverse_of_apply():
    m = docindex.Moves(np.array([0, 1, 3, 4]), np.array([1, 0, 4, 3]))
    values = np.arange(6) * 10
    ranked = m.apply(values)
    assert ranked.tolist() == [10, 0, 20, 40, 30, 50]
    assert m.undo(ranked).tolist() == values.tolist()
    same = values.copy()
    assert m.apply(same, inplace=True) is same and same.tolist() == ranked.tolist()


def test_dataframes_and_dicts_given_are_not_changed():
    frame = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [2.0, 2.0, 1.0, 1.0]})
    copy = frame.copy(deep=True)
    run = {"q": {"a": 2.0, "b": 2.0, "c": 1.0, "d": 1.0}}
    r1, r2 = to_ranking(frame), to_ranking(run)
    pd.testing.assert_frame_equal(frame, copy)
    assert run == {"q": {"a": 2.0, "b": 2.0, "c": 1.0, "d": 1.0}}
    assert r1.dbytes.tolist() == r2.dbytes.tolist() == [b"b", b"a", b"d", b"c"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(-3, 40), max_size=60))
def test_first_seen_is_pandas_unique(values):
    """The queries' order of a conversion (first appearance), made without pandas: pandas.unique's order."""
    a = np.array(values, dtype=np.int64)
    got = first_seen(a)
    assert got.dtype == np.int64 and got.tolist() == pd.unique(a).tolist()
