"""DataFrames converted are kept for a next call only while they cannot be stale (ir_rbstar/io/framecache.py):
the same arrow arrays for the ids, the same bits of the scores, the same columns, source and queries."""
import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_rbstar
from ir_rbstar.io import QUERY_IDS, framecache, to_qrels, to_ranking
from tests.conftest import examples

pytest.importorskip("pyarrow")
ARROW = "string[pyarrow]"


@pytest.fixture(autouse=True)
def _empty_cache():
    framecache.clear()
    yield
    framecache.clear()


def run_frame(rows=None, dtype=ARROW):
    rows = rows or [("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "c", 1.0), ("q2", "a", 1.0), ("q2", "d", 5.0)]
    df = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return df.astype({"query_id": dtype, "doc_id": dtype})


def key_of(df, names, kind):
    """framecache's key of ``df``'s columns ``names`` (None: not kept)."""
    return framecache.key([df[n] for n in names], names, kind, f"<{kind} DataFrame>", None)


def content(r):
    """A converted run as plain values: each query's id with its documents and scores in ranked order."""
    qids = QUERY_IDS.decode(r.qcodes).tolist()
    docs, scores = r.dbytes.tolist(), r.scores.tolist()
    return [(q, docs[a:b], scores[a:b]) for q, a, b in zip(qids, r.offsets[:-1].tolist(), r.offsets[1:].tolist(),
                                                           strict=True)]


def fresh(df, **kw):
    """The conversion of ``df`` with nothing kept (the oracle of a kept one)."""
    framecache.clear()
    try:
        return to_ranking(df, **kw)
    finally:
        framecache.clear()


def test_the_same_frame_gives_the_kept_conversion():
    df = run_frame()
    first = to_ranking(df)
    assert to_ranking(df) is first
    assert to_ranking(df[["query_id", "doc_id", "score"]]) is first     # a new frame holding the same columns
    assert to_ranking(df, source="other") is not first                  # another source name (for messages)
    assert to_ranking(df, queries={"q1"}) is not first                  # rows filtered to other queries
    assert content(to_ranking(df, queries={"q1"})) == content(fresh(df, queries={"q1"}))


@pytest.mark.parametrize("change", ["doc", "query", "score", "row_dropped", "new_column", "qid_name"])
def test_a_changed_frame_is_converted_again(change):
    df = run_frame()
    first = to_ranking(df)
    before = content(first)
    if change == "doc":
        df.loc[1, "doc_id"] = "z"
    elif change == "query":
        df.loc[4, "query_id"] = "q3"
    elif change == "score":
        df.iloc[0, 2] = 0.5                       # in place, in the frame's own numpy block
    elif change == "row_dropped":
        df = df.drop(index=2)
    elif change == "new_column":
        df["doc_id"] = df["doc_id"].str.upper()
    else:                                         # the query ids under another accepted name
        df = df.rename(columns={"query_id": "qid"})
    again = to_ranking(df)
    assert content(again) == content(fresh(df))
    if change != "qid_name":
        assert content(again) != before
    assert again is not first


def test_a_score_made_invalid_in_place_is_an_error_not_the_kept_conversion():
    df = run_frame()
    to_ranking(df)
    df.iloc[0, 2] = np.nan
    with pytest.raises(ir_rbstar.errors.InputFormatError, match="not a finite number"):
        to_ranking(df)


def test_the_values_follow_an_in_place_change_of_the_scores():
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = run_frame([("q1", "a", 1.0), ("q1", "b", 2.0)])
    measure = ir_rbstar.parse("RBP(p=0.5)")
    assert ir_measures.calc_aggregate(measure, qrels, run)[measure[0]] == pytest.approx(0.25)   # a at rank 2
    run.iloc[0, 2] = 3.0
    assert ir_measures.calc_aggregate(measure, qrels, run)[measure[0]] == pytest.approx(0.5)    # a at rank 1


def test_arrow_scores_are_held_by_identity_and_nullable_grades_are_not_kept():
    df = run_frame().astype({"score": "double[pyarrow]"})
    first = to_ranking(df)
    assert to_ranking(df) is first
    df.loc[0, "score"] = 0.5
    assert content(to_ranking(df)) == content(fresh(df)) != content(first)
    qf = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    qf = qf.astype({"query_id": ARROW, "doc_id": ARROW, "relevance": "Int64"})
    assert key_of(qf, ["query_id", "doc_id", "relevance"], "qrels") is None
    assert to_qrels(qf) is not to_qrels(qf)


def test_qrels_frames_are_kept_and_follow_a_change_of_a_grade():
    qf = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 2]})
    qf = qf.astype({"query_id": ARROW, "doc_id": ARROW})
    first = to_qrels(qf)
    assert to_qrels(qf) is first
    qf.iloc[1, 2] = 3
    again = to_qrels(qf)
    assert again is not first and again.grades.tolist() == [1, 3, 2]


@pytest.mark.parametrize("dtype", [object, "string[python]"])
def test_frames_of_python_objects_are_never_kept(dtype):
    df = run_frame(dtype=dtype)
    assert key_of(df, ["query_id", "doc_id", "score"], "run") is None
    first = to_ranking(df)
    assert to_ranking(df) is not first and content(to_ranking(df)) == content(first)


def test_frames_above_the_row_limit_are_not_kept(monkeypatch):
    monkeypatch.setattr(framecache, "MAX_ROWS", 4)
    df = run_frame()                              # 5 rows
    assert to_ranking(df) is not to_ranking(df)
    small = run_frame([("q1", "a", 1.0)])
    assert to_ranking(small) is to_ranking(small)


def test_the_oldest_frames_are_dropped_beyond_the_total_rows(monkeypatch):
    monkeypatch.setattr(framecache, "TOTAL_ROWS", 6)
    five, two = run_frame(), run_frame([("q1", "a", 1.0), ("q1", "b", 2.0)])
    first = to_ranking(five)
    assert to_ranking(two) is to_ranking(two)                 # 7 rows in all: the five-row frame dropped
    assert to_ranking(five) is not first


def test_only_the_last_slots_are_kept_and_clear_cache_drops_them():
    frames = [run_frame([("q1", f"d{i}", 1.0)]) for i in range(framecache.SLOTS + 1)]
    first = [to_ranking(f) for f in frames]
    assert to_ranking(frames[-1]) is first[-1]
    assert to_ranking(frames[0]) is not first[0]                # pushed out by the later ones
    ir_rbstar.references.clear_cache()
    assert to_ranking(frames[-1]) is not first[-1]


@pytest.mark.parametrize("column", ["score", "doc_id"])
def test_a_frame_changed_while_it_is_converted_keeps_the_conversion_of_what_its_key_holds(monkeypatch, column):
    """The conversion reads the columns the key was read from (and its copy of the scores), not the frame
    again: a change made meanwhile (as by another thread) cannot leave a conversion kept under a key it
    does not match."""
    df = run_frame()
    original = framecache.cached

    def changing(key):
        found = original(key)
        df.loc[0, column] = 7.0 if column == "score" else "z"      # after the key was read, before converting
        return found
    monkeypatch.setattr(framecache, "cached", changing)
    first = to_ranking(df)
    monkeypatch.setattr(framecache, "cached", original)
    # the frame as it was or as it became (pandas before copy-on-write changes the column read in place)
    assert content(first) in (content(fresh(run_frame())), content(fresh(df)))
    assert content(to_ranking(df)) == content(fresh(df))            # the change, converted again
    df.loc[0, column] = 3.0 if column == "score" else "a"          # back to the key's values
    assert content(to_ranking(df)) == content(fresh(df))


def test_a_column_changed_in_place_while_it_is_converted_is_not_kept(monkeypatch):
    """pandas before copy-on-write changes an arrow column's array in place, under the very column the key
    read (simulated here on its array object): a conversion that may have read the new ids is not kept
    under the old arrays, which a copy of the frame made before still holds."""
    import pyarrow as pa
    df = run_frame()
    before = df.copy()                            # shares the arrow arrays (they cannot change)
    original = framecache.cached

    def changing(key):
        found = original(key)
        array = framecache.array_of(key.series[1])     # (a Series or its array)
        attr = "_pa_array" if hasattr(array, "_pa_array") else "_data"
        setattr(array, attr, pa.chunked_array([pa.array(["z", "b", "c", "a", "d"], type=getattr(array, attr).type)]))
        return found
    monkeypatch.setattr(framecache, "cached", changing)
    to_ranking(df)
    monkeypatch.setattr(framecache, "cached", original)
    assert content(to_ranking(before)) == content(fresh(before))


def test_a_registered_frame_is_converted_once_and_rbo_against_it_is_unchanged():
    ref = run_frame([("q1", "b", 3.0), ("q1", "a", 2.0), ("q2", "d", 1.0)])
    run = run_frame()
    measure = ir_rbstar.parse("RBO(p=0.9,ref='framecache_ref')")
    try:
        ir_rbstar.register_run("framecache_ref", ref)
        first = ir_measures.calc_aggregate(measure, None, run)
        kept = ir_rbstar.references._REGISTERED["framecache_ref"]
        ir_rbstar.register_run("framecache_ref", ref)
        assert ir_rbstar.references._REGISTERED["framecache_ref"] is kept
        assert ir_measures.calc_aggregate(measure, None, run) == first
        ir_rbstar.register_run("framecache_ref", ref.astype({"doc_id": object}))   # same ids, not kept
        assert ir_measures.calc_aggregate(measure, None, run) == first
    finally:
        ir_rbstar.unregister_run("framecache_ref")


_ROW = st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["a", "b", "c", "d", "e"]),
                 st.sampled_from([0.0, 1.0, 1.5, 2.0, -1.0]))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(_ROW, min_size=1, max_size=8, unique_by=lambda r: (r[0], r[1])),
       change=st.sampled_from(["none", "doc", "query", "score", "reorder", "copy", "subset"]),
       at=st.integers(0, 7), value=st.sampled_from(["a", "z", "q2", "q9"]), score=st.floats(-2, 2),
       queries=st.one_of(st.none(), st.sets(st.sampled_from(["q1", "q2", "q3", "q9"]))))
def test_a_kept_conversion_always_equals_a_fresh_one(rows, change, at, value, score, queries):
    df = run_frame(rows)
    to_ranking(df, queries=queries)
    i = at % len(df)
    if change == "doc":
        df.loc[i, "doc_id"] = value
    elif change == "query":
        df.loc[i, "query_id"] = value
    elif change == "score":
        df.iloc[i, 2] = score
    elif change == "reorder":
        df = df.iloc[::-1]
    elif change == "copy":
        df = df.copy()
    elif change == "subset":
        df = df.iloc[:i + 1]
    try:
        expected = content(fresh(df, queries=queries))
    except ir_rbstar.errors.InputFormatError:     # e.g. a document twice in a query after the change
        with pytest.raises(ir_rbstar.errors.InputFormatError):
            to_ranking(df, queries=queries)
        return
    assert content(to_ranking(df, queries=queries)) == expected
    assert content(to_ranking(df, queries=queries)) == expected    # and from what was kept


def _arrow_over(values):
    """An arrow-backed pandas column over the very memory of the numpy array ``values`` (pyarrow makes a
    numeric array from numpy without copying it; pandas 1.5 does so in ``pd.array(..., "float64[pyarrow]")``)."""
    import pyarrow as pa
    return pd.arrays.ArrowExtensionArray(pa.array(values))


def test_arrow_scores_over_numpy_memory_changed_in_place_are_converted_again():
    """The arrow array is the same object, its numbers are not: a numpy array it was made from without a
    copy (the scores of a model, a buffer reused from call to call) was written to."""
    scores = np.array([3.0, 2.0, 1.0, 1.0, 5.0])
    df = run_frame()
    df["score"] = _arrow_over(scores)
    to_ranking(df)
    scores[0] = -7.0
    assert content(to_ranking(df)) == content(fresh(df))
    assert content(to_ranking(df))[0] == ("q1", [b"b", b"c", b"a"], [2.0, 1.0, -7.0])


def test_arrow_grades_over_numpy_memory_changed_in_place_are_converted_again():
    grades = np.array([1, 0, 2])
    qf = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"]}).astype(ARROW)
    qf["relevance"] = _arrow_over(grades)
    to_qrels(qf)
    grades[1] = 3
    assert to_qrels(qf).grades.tolist() == [1, 3, 2]


def test_numeric_arrow_ids_over_numpy_memory_are_not_held_by_identity():
    """Query ids held in arrow as numbers may be numpy's memory, written to in place."""
    qids = np.array([1, 1, 1, 2, 2])
    df = run_frame()
    df["query_id"] = _arrow_over(qids)
    to_ranking(df)
    qids[4] = 3
    assert content(to_ranking(df)) == content(fresh(df))
    assert [q for q, _, _ in content(to_ranking(df))] == ["1", "2", "3"]


def test_a_kept_run_does_not_keep_alive_the_prior_runs_it_was_compared_with():
    """NRG compares the run with each prior run once and keeps the answer with the run: a run kept here
    for the next call (a loop registering new priors each time) must not hold every prior of every earlier
    call alive (a run converted at each call never lived long enough for that to matter)."""
    import gc
    import weakref
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "d"], "relevance": [1, 0, 2]})
    run = run_frame()
    measure = ir_rbstar.parse("NRG(prior='framecache_group')@10")
    gone = []
    try:
        for i in range(3):
            prior = run_frame([("q1", "b", 2.0), ("q1", f"x{i}", 1.0), ("q2", "d", 1.0)], dtype=object)
            ir_rbstar.register_runs("framecache_group", {"p": prior})
            gone.append(weakref.ref(ir_rbstar.references.resolve_runs("framecache_group").runs[0][1]))
            value = ir_measures.calc_aggregate(measure, qrels, run)[measure[0]]      # the run kept
            assert value == ir_measures.calc_aggregate(measure, qrels, run.astype(object))[measure[0]]
    finally:
        ir_rbstar.unregister_runs("framecache_group")
    gc.collect()
    assert any(k.kind == "run" for k, _ in framecache._kept)                # (the run is still kept)
    assert [ref() is None for ref in gone] == [True, True, True]


@pytest.mark.parametrize("part", ["head", "group"])
def test_a_few_rows_of_a_large_frame_are_not_kept_holding_the_large_frames_memory(part):
    """pandas slices an arrow column without a copy (``head``, ``iloc[a:b]``, each group of a ``groupby``):
    the slice's array holds the whole frame's buffers. Kept, four such slices would hold four large frames
    (or one, deleted since) alive under the limit of rows: a slice of far more memory than its rows is not
    kept (its few rows are quickly converted again)."""
    n = 100_000
    big = run_frame([(f"q{i // 1000}", f"document{i}", float(i)) for i in range(n)])
    few = big.head(50) if part == "head" else next(iter(big.groupby("query_id")))[1]
    expected = content(fresh(few))
    assert content(to_ranking(few)) == expected
    held = sum(a.get_total_buffer_size() for k, _ in framecache._kept for a in k.arrays)
    assert held < 1_000_000 < big["doc_id"].array.__arrow_array__().get_total_buffer_size()
    compact = run_frame([(f"q{i // 1000}", f"document{i}", float(i)) for i in range(50)])
    assert to_ranking(compact) is to_ranking(compact)


def test_a_kept_ranking_cannot_be_changed_in_place_by_a_caller():
    """``to_ranking(df)`` gives every later call the conversion it keeps: a caller writing into it (e.g.
    negating its scores) would change what the next evaluation of the frame reads. Its arrays are made
    read-only, as a :class:`~ir_rbstar.io.Qrels`' are."""
    df = run_frame()
    kept = to_ranking(df)
    for name in ("qcodes", "offsets", "dbytes", "docs", "scores"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(kept, name)[:1] = getattr(kept, name)[1:2]
    assert content(to_ranking(df)) == content(fresh(df))


def test_the_qrels_used_at_every_call_stay_kept_through_a_loop_over_more_runs_than_slots():
    """The entry given again is the most recently used: a loop evaluating many run frames against one qrels
    frame converts the qrels once (not again each time :data:`SLOTS` new runs have pushed it out)."""
    qf = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "d"], "relevance": [1, 2]}).astype(ARROW)
    first = to_qrels(qf)
    for i in range(2 * framecache.SLOTS):
        to_ranking(run_frame([("q1", f"d{i}", 1.0), ("q2", "d", 2.0)]))
        assert to_qrels(qf) is first


def test_a_kept_ranking_does_not_share_the_memory_of_arrow_scores_made_from_numpy():
    """The conversion kept reads the copy of the numbers its key is checked against, not the frame's
    arrow array over numpy's memory: written to later, that memory does not change what was kept."""
    scores = np.array([3.0, 2.0, 1.0, 5.0, 1.0])             # each query's rows already ranked
    df = run_frame([("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "c", 1.0), ("q2", "d", 5.0), ("q2", "a", 1.0)])
    df["score"] = _arrow_over(scores)
    kept = to_ranking(df)
    before = content(kept)
    scores[:] = [0.0, 0.0, 0.0, 0.0, 0.0]
    assert content(kept) == before


def test_a_frame_converted_by_two_calls_at_once_takes_one_slot(monkeypatch):
    """Two threads given the same frame may both miss and both convert it: the second conversion replaces
    the first instead of taking another of the :data:`SLOTS` (pushing out a frame still in use)."""
    df = run_frame()
    monkeypatch.setattr(framecache, "cached", lambda key: None)      # both calls miss, as at once
    to_ranking(df)
    to_ranking(df)
    monkeypatch.undo()
    assert len(framecache._kept) == 1
    assert content(to_ranking(df)) == content(fresh(df))


@pytest.mark.parametrize("dtype", [object, ARROW])
def test_a_converted_frame_shares_no_memory_with_its_scores(dtype):
    """A conversion outlives the call (a registered reference, a kept conversion): changing the frame's
    scores in place afterwards must not change it, whether or not the frame is kept."""
    df = run_frame([("q1", "a", 3.0), ("q1", "b", 2.0), ("q2", "c", 1.0)], dtype=dtype)   # already ranked
    try:
        ir_rbstar.register_run("framecache_scores", df)
        ranking = ir_rbstar.references.resolve_run("framecache_scores")
        before = ranking.scores.tolist()
        assert not np.shares_memory(ranking.scores, df["score"].to_numpy())
        df.iloc[0, 2] = 99.0
        assert ranking.scores.tolist() == before == [3.0, 2.0, 1.0]
    finally:
        ir_rbstar.unregister_run("framecache_scores")


def _counting_getitem(monkeypatch):
    """Count the Series a conversion reads from any DataFrame (``frame[name]``)."""
    calls = []
    original = pd.DataFrame.__getitem__

    def counted(self, name):
        calls.append(name)
        return original(self, name)
    monkeypatch.setattr(pd.DataFrame, "__getitem__", counted)
    return calls


def test_a_frame_of_arrow_ids_is_converted_and_found_again_without_a_series_per_column(monkeypatch):
    """The columns are read as the arrays pandas holds them in (framecache.frame_columns): no Series is
    made, neither to convert the frame nor to find its conversion again (the key made from the arrays is the one
    made from the Series)."""
    df = run_frame()
    calls = _counting_getitem(monkeypatch)
    first = to_ranking(df)
    again = to_ranking(df)
    assert calls == []
    assert again is first
    assert content(first) == [("q1", [b"a", b"b", b"c"], [3.0, 2.0, 1.0]), ("q2", [b"d", b"a"], [5.0, 1.0])]
    by_series = key_of(df, ["query_id", "doc_id", "score"], "run")
    by_arrays = framecache.key(framecache.frame_columns(df, ["query_id", "doc_id", "score"]),
                               ["query_id", "doc_id", "score"], "run", "<run DataFrame>", None)
    assert by_series.same(by_arrays) and by_arrays.same(by_series)


@pytest.mark.parametrize("change", ["missing", "filtered", "two columns", "levels"])
def test_a_frame_whose_conversion_needs_its_series_reads_them(monkeypatch, change):
    """A missing id (named by its index label) needs the frame's Series, which are then read (and give the error
    they gave); rows left out by the queries do not. A name given to two columns (or to a level of columns) is an
    error naming it (it was an AttributeError of pandas before)."""
    df = run_frame().set_axis([10, 11, 12, 13, 14])
    if change == "missing":
        df.loc[12, "doc_id"] = None
        with pytest.raises(ir_rbstar.errors.InputFormatError, match=r"row 2 \(index 12\)"):
            to_ranking(df)
        return
    if change == "filtered":
        # (the rows left out: found from the arrays, each block of a query once; no Series needed)
        calls = _counting_getitem(monkeypatch)
        assert content(to_ranking(df, queries={"q2"})) == [("q2", [b"d", b"a"], [5.0, 1.0])]
        assert calls == []
        return
    if change == "levels":                          # columns in two levels: "doc_id" names two of them
        df.columns = pd.MultiIndex.from_tuples([("query_id", ""), ("doc_id", "a"), ("score", "")])
        assert framecache.frame_columns(df, ["query_id", "doc_id", "score"]) is None     # (not one place each)
        with pytest.raises(ir_rbstar.errors.InputFormatError, match=r"column 'doc_id' is a level of columns"):
            to_ranking(df)                          # a level over one column, ("doc_id", "a")
        flat = df.copy()
        flat.columns = pd.MultiIndex.from_tuples([("query_id", ""), ("doc_id", ""), ("score", "")])
        assert content(to_ranking(flat)) == content(to_ranking(run_frame()))     # (frame["doc_id"]: one column)
        df[("doc_id", "b")] = df[("doc_id", "a")]
    else:
        df["label"] = df["doc_id"]
        df.columns = ["query_id", "doc_id", "score", "doc_id"]
    with pytest.raises(ir_rbstar.errors.InputFormatError, match="run DataFrame has 2 columns named 'doc_id'"):
        to_ranking(df)


def test_a_column_replaced_before_its_series_are_read_is_not_kept_under_the_old_arrays(monkeypatch):
    """A missing id makes the conversion read the frame's Series after the key read its arrays: a column replaced
    in between (another thread) is converted as it now is, and that conversion is not kept under the old
    arrays, which a copy of the frame made before still holds (with its missing id: an error)."""
    df = run_frame()
    df.loc[2, "doc_id"] = None
    before = df.copy()                            # shares the arrow arrays (they cannot change)
    original = framecache.cached

    def replacing(key):
        found = original(key)
        df["doc_id"] = pd.array(["z", "b", "c", "a", "d"], dtype=ARROW)
        return found
    monkeypatch.setattr(framecache, "cached", replacing)
    converted = to_ranking(df)
    monkeypatch.setattr(framecache, "cached", original)
    assert content(converted)[0][1] == [b"z", b"b", b"c"]                   # the column as replaced
    with pytest.raises(ir_rbstar.errors.InputFormatError, match=r"no value at row 2"):
        to_ranking(before)                                                  # (not the kept conversion)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3", "q10", "é"]), st.integers(0, 30),
                          st.floats(-5, 5, allow_nan=False)), min_size=1, max_size=80, unique_by=lambda r: r[:2]),
       st.sets(st.sampled_from(["q1", "q2", "q3", "q10", "é", "q4"])), st.booleans())
def test_rows_left_out_by_the_queries_are_those_of_the_general_path(rows, queries, grouped):
    """The rows of other queries left out of a frame of pyarrow ids (each block of a query looked up once, from the
    arrays) are those the general path leaves out of the same frame with ids of Python objects (pandas' isin),
    whether a query's rows come together or in many blocks (then isin on the arrays)."""
    rows = sorted(rows, key=lambda r: r[0]) if grouped else rows
    frame = pd.DataFrame([(q, f"d{d}", s) for q, d, s in rows], columns=["query_id", "doc_id", "score"])
    arrow, objects = frame.astype({"query_id": ARROW, "doc_id": ARROW}), frame.astype(object).astype({"score": float})
    assert content(fresh(arrow, queries=queries)) == content(fresh(objects, queries=queries))
    assert content(to_ranking(arrow, queries=queries)) == content(fresh(objects, queries=queries))    # kept, again


def test_many_short_blocks_of_queries_are_looked_up_by_isin(monkeypatch):
    """Query ids in more blocks than the lookup per block is worth (each row another query than the one
    before): pandas' isin on the array decides, the same rows."""
    from ir_rbstar.io import convert
    rows = [(f"q{i % 2}", f"d{i}", float(i)) for i in range(200)]
    df = run_frame(rows)
    blocks = []
    original = convert._arrow_blocks
    monkeypatch.setattr(convert, "_arrow_blocks", lambda col: blocks.append(original(col)) or blocks[-1])
    got = content(to_ranking(df, queries={"q1"}))
    assert blocks == [None]                                   # (200 blocks: over the limit of 64)
    assert [q for q, _, _ in got] == ["q1"] and len(got[0][1]) == 100


def test_the_query_blocks_found_to_leave_rows_out_make_the_query_codes(monkeypatch):
    """When no row is left out, the blocks of query ids found to decide it make the query column: they are not
    found a second time."""
    from ir_rbstar.io import idcolumns
    df = run_frame()
    calls = []
    original = idcolumns.id_blocks

    def counted(*args, **kw):
        calls.append(1)
        return original(*args, **kw)
    monkeypatch.setattr(idcolumns, "id_blocks", counted)
    from ir_rbstar.io import convert
    monkeypatch.setattr(convert, "id_blocks", counted)
    assert content(to_ranking(df, queries={"q1", "q2", "q9"})) == \
        [("q1", [b"a", b"b", b"c"], [3.0, 2.0, 1.0]), ("q2", [b"d", b"a"], [5.0, 1.0])]
    assert len(calls) == 1
    framecache.clear()
    calls.clear()
    assert content(to_ranking(df, queries={"q2"})) == [("q2", [b"d", b"a"], [5.0, 1.0])]
    assert len(calls) == 2                        # (rows left out: the kept rows' blocks found again)


def test_arrow_types_are_told_as_pyarrow_tells_them():
    """framecache tells text and number columns by a set of arrow type ids: the same answer as pyarrow's own
    predicates for every type a column may have (strings and binaries of each layout, numbers, and others)."""
    import pyarrow as pa
    from ir_rbstar.io.framecache import _is_number, _is_text
    types = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.int8(), pa.int64(), pa.uint8(),
             pa.uint64(), pa.float16(), pa.float32(), pa.float64(), pa.bool_(), pa.date32(), pa.timestamp("s"),
             pa.decimal128(5, 2), pa.dictionary(pa.int32(), pa.string()), pa.list_(pa.int8()), pa.null(),
             pa.binary(4)]
    types += [getattr(pa, name)() for name in ("string_view", "binary_view") if hasattr(pa, name)]
    for t in types:
        text = any(getattr(pa.types, f"is_{kind}", lambda _: False)(t) for kind in
                   ("string", "large_string", "string_view", "binary", "large_binary", "binary_view"))
        number = pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
        assert (_is_text(t), _is_number(t)) == (text, number), t
