"""A DataFrame row without a query id or a document id (None, NaN, pandas' NA) is an error naming the
column and the row, in every string storage pandas offers, for runs and qrels, with and without the
evaluator's query filter, and through ir_measures; it never becomes the id "nan", "None" or "<NA>" nor a
query left out because the qrels lack it."""
import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar.errors import InputFormatError
from ir_rbstar.io.convert import to_qrels, to_ranking
from tests.conftest import examples

#: the string storages pandas offers that keep a missing id missing (pandas before 3 turns None and NaN into the
#: strings 'None' and 'nan' under dtype 'str': nothing is missing there to be named)
STORAGES = [s for s in ("object", "str", "string[pyarrow]", "string[python]")
            if pd.isna(pd.array(["a", None], dtype=s)[1])]


def _frame(column, missing, dtype, last):
    ids = {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"]}
    ids[column] = pd.array([ids[column][0], missing, ids[column][2]], dtype=dtype)
    return pd.DataFrame({**ids, last[0]: last[1]}, index=[10, 11, 12])


@pytest.mark.parametrize("dtype", STORAGES)
@pytest.mark.parametrize("missing", [None, np.nan])
@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_a_missing_id_is_an_error_naming_column_and_row(dtype, missing, column):
    run = _frame(column, missing, dtype, ("score", [1.0, 2.0, 3.0]))
    for queries in (None, {"1", "2"}):
        with pytest.raises(InputFormatError, match=rf"column '{column}' has no value at row 1 \(index 11\)"):
            to_ranking(run, queries=queries)
    qrels = _frame(column, missing, dtype, ("relevance", [1, 0, 1]))
    with pytest.raises(InputFormatError, match=rf"qrels DataFrame column '{column}' has no value at row 1"):
        to_qrels(qrels)


@pytest.mark.parametrize("dtype", STORAGES)
@pytest.mark.parametrize("missing", [None, np.nan])
@pytest.mark.parametrize("queries", [{"2"}, {"1", "2"}, {"2", "None", "nan", "<NA>", "NaN"}],
                         ids=["row-0-left-out", "all-kept", "missing-text-a-query"])
def test_a_missing_query_id_is_named_whether_the_filter_keeps_its_text_or_not(dtype, missing, queries):
    # the evaluator's filter: a row left out before it, one kept, and a missing id whose text ("None",
    # "nan", "<NA>") is a query id: the same error, naming the row of the frame given
    run = _frame("query_id", missing, dtype, ("score", [1.0, 2.0, 3.0]))
    with pytest.raises(InputFormatError, match=r"column 'query_id' has no value at row 1 \(index 11\)"):
        to_ranking(run, queries=queries)


@pytest.mark.parametrize("dtype", STORAGES)
def test_the_row_named_is_the_users_row_when_the_filter_left_rows_out(dtype):
    """Rows of other queries left out before the conversion do not shift the row number in the message."""
    frame = pd.DataFrame({"query_id": pd.array(["9", "9", "1", "1"], dtype=dtype),
                          "doc_id": pd.array(["a", "b", "c", None], dtype=dtype),
                          "score": [4.0, 3.0, 2.0, 1.0]}, index=[10, 11, 12, 13])
    for queries in ({"1"}, None):
        with pytest.raises(InputFormatError, match=re.escape("column 'doc_id' has no value at row 3 (index 13)")):
            to_ranking(frame, queries=queries)


def test_a_missing_number_query_id_is_named_though_its_text_is_a_query():
    run = pd.DataFrame({"query_id": [1.0, np.nan, 2.0], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
    for queries in ({"2.0"}, {"nan", "2.0"}):
        with pytest.raises(InputFormatError, match=r"column 'query_id' has no value at row 1 \(index 1\)"):
            to_ranking(run, queries=queries)


def test_a_missing_query_id_is_not_left_out_as_an_unjudged_query():
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["1", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InputFormatError, match="column 'query_id' has no value at row 1"):
        ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.8)"), qrels, run)


def test_ids_present_in_every_storage_evaluate_alike():
    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["b", "c"], "relevance": [1, 1]})
    for dtype in STORAGES:
        run = pd.DataFrame({"query_id": pd.array(["1", "1", "2"], dtype=dtype),
                            "doc_id": pd.array(["a", "b", "c"], dtype=dtype), "score": [1.0, 2.0, 3.0]})
        # b (score 2) tops query 1 and c query 2, each relevant: RBP(p=0.5) = 1 - 0.5 on both
        assert ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5)"), qrels, run) == \
            {ir_rbstar.parse("RBP(p=0.5)")[0]: 0.5}, dtype


# ---- the dict-of-dicts and namedtuple doors: the same rule, the same wording ------------------------------
# (a missing value is what pandas.isna calls one, as for a DataFrame column; the text "None" is an id)

MISSING = [None, float("nan"), np.float32("nan"), pd.NA, pd.NaT]
SHOWN = {None: "None", pd.NA: "<NA>", pd.NaT: "NaT"}
#: more values pandas calls missing (``pd.isna``), each with the text numpy writes for it into a bytes column
#: ("NaT", "(nan+0j)", "nanj", "(1+nanj)", "NaN", "-NaN", "NaN5") and how a message shows it: the dict and
#: namedtuple doors read every id as such text past their first 1,000 ids (the DataFrame door asks pandas)
#: (a list of pairs, not a dict: numpy 1.x warns when a dict compares NaT keys of equal hash)
MORE_MISSING = [(np.datetime64("NaT"), "NaT"), (np.timedelta64("NaT"), "NaT"), (complex("nan"), "(nan+0j)"),
                (complex(0, float("nan")), "nanj"), (np.complex64(complex(1, float("nan"))), "(1+nanj)"),
                (Decimal("NaN"), "Decimal('NaN')"), (Decimal("-NaN"), "Decimal('-NaN')"),
                (Decimal("NaN5"), "Decimal('NaN5')")]
MORE_VALUES = [value for value, _ in MORE_MISSING]
NEEDS = "every row needs a query id and a document id"
MEASURES = ir_rbstar.parse("RBP(p=0.8,max_rel=3) nDCG_TA@10")
# ids spelled as missing values are written to a bytes column as: they are ids like any other
BODY = [("1", "a"), ("1", "None"), ("1", "nan"), ("2", "<NA>"), ("2", "NaT"), ("NaN", "b"), ("None", "N")]


def _value(kind, i):
    return float(10 - i % 7) if kind == "run" else i % 4


def _rows(kind, late):
    """(query, doc, value) rows, a query's rows together; ``late``: 1,100 rows of query "0" first, so
    that the rows of BODY come after the first 1,000 (the ids a bytes column's width is guessed from)."""
    pad = [("0", f"p{i}") for i in range(1100)] if late else []
    return [(q, d, _value(kind, i)) for i, (q, d) in enumerate(pad + BODY)]


def _as_dict(rows):
    out: dict = {}
    for q, d, v in rows:
        out.setdefault(q, {})[d] = v
    return out


def _as_tuples(kind, rows):
    make = ir_measures.ScoredDoc if kind == "run" else ir_measures.Qrel
    return [make(q, d, v) for q, d, v in rows]


def _door(door, kind, rows):
    return _as_dict(rows) if door == "dict" else _as_tuples(kind, rows)


def _convert(kind, obj, queries=None):
    return to_ranking(obj, queries=queries) if kind == "run" else to_qrels(obj)


def _shown(missing):
    for value, shown in MORE_MISSING:
        if value is missing:
            return shown
    return SHOWN.get(missing, "nan")


def _replaced(rows, row, column, missing):
    """``rows`` with the query id (of every row of that query, for a dict: its key) or the document id of
    row ``row`` replaced by ``missing``; and where the error must point: (query's key index, query,
    document's key index within its query)."""
    q = rows[row][0]
    queries = list(dict.fromkeys(r[0] for r in rows))
    at_doc = [r[1] for r in rows if r[0] == q].index(rows[row][1])
    out = list(rows)
    if column == "query_id":
        out = [(missing, d, v) if r == q else (r, d, v) for r, d, v in rows]
    else:
        out[row] = (q, missing, rows[row][2])
    return out, queries.index(q), q, at_doc


def _expected(door, kind, column, row, key, q, at_doc, missing):
    shown = re.escape(_shown(missing))
    if door == "dict":
        if column == "query_id":
            return rf"<{kind} dict>: the {kind} dict has no query id at key {key} \({shown}\): {NEEDS}"
        return rf"<{kind} dict>: query '{re.escape(q)}' of the {kind} dict has no document id at key {at_doc} " \
               rf"\({shown}\): {NEEDS}"
    where = "" if column == "query_id" else rf" \(query '{re.escape(q)}'\)"
    return rf"<{kind} iterable>: item {row} of the {kind}{where} has no {column} \({shown}\): {NEEDS}"


@pytest.mark.parametrize("late", [False, True], ids=["early", "late"])
@pytest.mark.parametrize("missing", MISSING + MORE_VALUES, ids=repr)
@pytest.mark.parametrize("column", ["query_id", "doc_id"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("door", ["dict", "tuples"])
def test_a_missing_id_at_the_dict_and_namedtuple_doors_is_an_error_naming_it(door, kind, column, missing, late):
    rows = _rows(kind, late)
    row = len(rows) - 4                      # ("2", "NaT"): query "2" is the second (or third) key
    bad, key, q, at_doc = _replaced(rows, row, column, missing)
    if column == "query_id" and door == "tuples":
        bad[row - 1] = rows[row - 1]         # one tuple only: the row's own query id
    expected = _expected(door, kind, column, row, key, q, at_doc, missing)
    with pytest.raises(InputFormatError, match=expected):
        _convert(kind, _door(door, kind, bad))
    if kind == "run":                        # the evaluator's query filter: not a query left out
        with pytest.raises(InputFormatError, match=expected):
            _convert(kind, _door(door, kind, bad), queries={"0", "1", "2", "NaN", "None"})


@pytest.mark.parametrize("door", ["dict", "tuples"])
def test_a_missing_id_among_ids_that_are_not_text_is_named(door):
    # an int id sends the document ids through the general (object) path, a bytes query id the query ids
    run = [("1", 7, 1.0), (b"1", "a", 2.0), ("1", None, 3.0)]
    where = r"query '1' of the run dict has no document id at key 1" if door == "dict" else \
        r"item 2 of the run \(query '1'\) has no doc_id"
    obj = _as_dict(run) if door == "dict" else _as_tuples("run", run)
    with pytest.raises(InputFormatError, match=where):
        to_ranking(obj)


def _by_query(qrels, run):
    return {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)}


@pytest.mark.parametrize("door", ["dict", "tuples"])
def test_the_kept_qrels_are_never_given_for_qrels_with_a_missing_id(door):
    from ir_rbstar.io import qcache
    qcache.clear()
    rows, run = _rows("qrels", False), _as_dict(_rows("run", False))
    good = _door(door, "qrels", rows)
    first = _by_query(good, run)
    assert _by_query(good, run) == first                     # the kept conversion, given again
    bad, *_ = _replaced(rows, 2, "doc_id", None)
    bad_qrels = _door(door, "qrels", bad) if door == "dict" else good[:2] + [good[2]._replace(doc_id=None)] + good[3:]
    with pytest.raises(InputFormatError, match=NEEDS):
        _by_query(bad_qrels, run)
    assert _by_query(good, run) == first
    qcache.clear()


_IDS = ["1", "2", "q", "None", "nan", "NaN", "<NA>", "NaT", "N", "n", "<N", "Nonesuch", "nan7", "d1234",
        "(nan+0j)", "nanj", "-NaN", "NaN5", "(1+2j)"]


@st.composite
def _inputs(draw):
    """Random valid run and qrels rows (ids among texts spelled like missing values), and one id to replace."""
    queries = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=4, unique=True))
    run, qrels = [], []
    for q in queries:
        docs = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=6, unique=True))
        run += [(q, d, draw(st.floats(-5, 5, allow_nan=False))) for d in docs]
        judged = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=6, unique=True))
        qrels += [(q, d, draw(st.integers(0, 3))) for d in judged]
    kind = draw(st.sampled_from(["run", "qrels"]))
    rows = run if kind == "run" else qrels
    row = draw(st.integers(0, len(rows) - 1))
    return run, qrels, kind, row, draw(st.sampled_from(["query_id", "doc_id"])), draw(st.sampled_from(MISSING))


@settings(max_examples=examples(100), deadline=None)
@given(case=_inputs(), door=st.sampled_from(["dict", "tuples"]))
def test_property_one_missing_id_is_named_and_the_valid_input_evaluates_as_a_dataframe(case, door):
    run, qrels, kind, row, column, missing = case
    frames = (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
              pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))
    assert _by_query(_door(door, "qrels", qrels), _door(door, "run", run)) == _by_query(*frames)
    rows = run if kind == "run" else qrels
    bad, key, q, at_doc = _replaced(rows, row, column, missing)
    if column == "query_id" and door == "tuples":
        bad = [b if i == row else r for i, (b, r) in enumerate(zip(bad, rows, strict=True))]
    expected = _expected(door, kind, column, row, key, q, at_doc, missing)
    with pytest.raises(InputFormatError, match=expected):
        _convert(kind, _door(door, kind, bad))


def _is_missing(v):
    """Missing by definition (the values MISSING and MORE_MISSING hold), written out without pandas."""
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, (float, np.floating)) and v != v) \
        or (isinstance(v, (complex, np.complexfloating)) and v != v) or (isinstance(v, Decimal) and v.is_nan()) \
        or (isinstance(v, (np.datetime64, np.timedelta64)) and np.isnat(v))


@settings(max_examples=examples(150), deadline=None)
@given(ids=st.lists(st.one_of(st.text("Nno<NAaTe(-j5", min_size=0, max_size=6), st.sampled_from(_IDS),
                              st.sampled_from(MISSING + MORE_VALUES)), max_size=30),
       pad=st.sampled_from([0, 1000]), as_array=st.booleans())
@example(ids=["Nonesuch", "None", None], pad=0, as_array=False)       # 3- and 4-byte texts in wider columns
@example(ids=["Nonesuch", "nan", pd.NA, "<NA>", "NaT", float("nan")], pad=1000, as_array=False)
@example(ids=["NaN", "NaT", "None", pd.NaT], pad=0, as_array=True)
@example(ids=["nanj", "(nan", "-NaN", "NaN5", complex("nan")], pad=1000, as_array=False)
@example(ids=["x", Decimal("-NaN")], pad=1000, as_array=False)
def test_property_first_missing_id_agrees_with_the_definition(ids, pad, as_array):
    # the bytes column read in one pass (the width guessed from the first 1,000 ids) or from an object
    # array; the ids' texts include "None", "nan", "<NA>" and their prefixes, which are ids
    from ir_rbstar.io.idcolumns import _id_column, first_missing_id
    items = [f"pad-{i}" for i in range(pad)] + ids
    make = np.array(items, dtype=object) if as_array else (lambda: iter(items))
    column = _id_column(make, len(items))
    expected = next((i for i, v in enumerate(items) if _is_missing(v)), None)
    assert first_missing_id(column, make) == expected


@pytest.mark.parametrize("door", ["dict", "tuples"])
@pytest.mark.parametrize("call", ["calc_aggregate", "iter_calc", "evaluator"])
def test_every_ir_measures_call_gives_the_same_error(door, call):
    qrels = _as_dict(_rows("qrels", False))
    bad, *_ = _replaced(_rows("run", False), 1, "doc_id", float("nan"))
    run = _door(door, "run", bad)
    expected = _expected(door, "run", "doc_id", 1, 0, "1", 1, float("nan"))
    with pytest.raises(InputFormatError, match=expected):
        if call == "calc_aggregate":
            ir_measures.calc_aggregate(MEASURES, qrels, run)
        elif call == "iter_calc":
            list(ir_measures.iter_calc(MEASURES, qrels, run))
        else:
            ir_measures.evaluator(MEASURES, qrels).calc_aggregate(run)


@pytest.mark.parametrize("dtype", ["Int64", "UInt8", "boolean"])
@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_a_missing_id_in_a_nullable_integer_column_is_named(dtype, column):
    # pandas' nullable integers (and booleans) share numpy's dtype kind but hold NA: not "cannot hold one"
    values = [True, None, False] if dtype == "boolean" else [1, None, 2]
    ids = {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"]}
    ids[column] = pd.array(values, dtype=dtype)
    run = pd.DataFrame({**ids, "score": [1.0, 2.0, 3.0]}, index=[10, 11, 12])
    texts = {str(v) for v in ids["query_id"]}
    for queries in (None, texts, texts | {"<NA>"}):
        with pytest.raises(InputFormatError, match=rf"column '{column}' has no value at row 1 \(index 11\)"):
            to_ranking(run, queries=queries)
    qrels = pd.DataFrame({**ids, "relevance": [1, 0, 1]})
    with pytest.raises(InputFormatError, match=rf"qrels DataFrame column '{column}' has no value at row 1"):
        to_qrels(qrels)
