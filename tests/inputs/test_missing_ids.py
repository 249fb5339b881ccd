"""A DataFrame row without a query id or a document id (None, NaN, pandas' NA) is an error naming the
column and the row, in every string storage pandas offers, for runs and qrels, with and without the
evaluator's query filter, and through ir_measures; it never becomes the id "nan", "None" or "<NA>" nor a
query left out because the qrels lack it."""
import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.errors import InputFormatError
from ir_rbstar.io.convert import to_qrels, to_ranking

STORAGES = ["object", "str", "string[pyarrow]", "string[python]"]


def _frame(column, missing, dtype, last):
    ids = {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"]}
    ids[column] = pd.array([ids[column][0], missing, ids[column][2]], dtype=dtype)
    return pd.DataFrame({**ids, last[0]: last[1]}, index=[10, 11, 12])


@pytest.mark.parametrize("dtype", STORAGES)
@pytest.mark.parametrize("missing", [None, np.nan])
@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_a_missing_id_is_an_error_naming_column_and_row(dtype, missing, column):
    run = _frame(column, missing, dtype, ("score", [1.0, 2.0, 3.0]))
    if not pd.isna(run[column].iloc[1]):
        # pandas before 3 converts None and NaN to the strings 'None' and 'nan' under dtype 'str'
        pytest.skip(f"pandas {pd.__version__} makes {run[column].iloc[1]!r} of {missing!r} under dtype {dtype!r}")
    for queries in (None, {"1", "2"}):
        with pytest.raises(InputFormatError, match=rf"column '{column}' has no value at row 1 \(index 11\)"):
            to_ranking(run, queries=queries)
    qrels = _frame(column, missing, dtype, ("relevance", [1, 0, 1]))
    with pytest.raises(InputFormatError, match=rf"qrels DataFrame column '{column}' has no value at row 1"):
        to_qrels(qrels)


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
