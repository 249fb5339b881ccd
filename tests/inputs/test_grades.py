"""Qrels grades: whole numbers within int64 are read exactly; a fractional, non-finite or out-of-range grade is an
InputFormatError naming the source, line, query and document, through every door (never cast to another number)."""
import warnings
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import errors
from ir_rbstar.cli import main as cli_main

RUN = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
MEASURES = ir_rbstar.parse("RBP(p=0.5,max_rel=3)")
Qrel = namedtuple("Qrel", "query_id doc_id relevance")

BAD_TOKENS = ["--10", "+-1", "1e20", "1e300", "-1e300", "1234567890123456789012", "9223372036854775808", "1.5", "nan",
              "inf", "0x1F"]
BAD_VALUES = [1e20, 1e300, float("nan"), 1.5, float("inf"), -float("inf"), 2 ** 70, np.uint64(2 ** 63)]


def _qrels_file(tmp_path, grade, name="q.txt"):
    path = tmp_path / name
    path.write_text(f"1 0 a 1\n1 0 b {grade}\n1 0 c 0\n")
    return str(path)


def _run_file(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    return str(path)


def _cli(argv, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # a numpy RuntimeWarning (a cast) is a failure
        code = cli_main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("stream", [False, True], ids=["file", "stream"])
@pytest.mark.parametrize("token", BAD_TOKENS)
def test_a_bad_grade_in_a_file_is_an_error_naming_line_query_and_document(tmp_path, capsys, token, stream):
    argv = [_qrels_file(tmp_path, token), _run_file(tmp_path), "nDCG@10"] + (["--stream"] if stream else [])
    code, out, err = _cli(argv, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"line 2: relevance '{token}' of document 'b' for query '1'" in err


@pytest.mark.parametrize("token, grade", [("3", 3), ("-0", 0), ("+2", 2), ("2.0", 2), ("1e1", 10),
                                          ("9223372036854775807", 2 ** 63 - 1), ("-9223372036854775808", -2 ** 63)])
def test_integral_grades_within_int64_are_read_exactly(tmp_path, token, grade):
    qrels = ir_rbstar.read_qrels(_qrels_file(tmp_path, token))
    assert qrels["relevance"].tolist() == [1, grade, 0]


def test_a_big_integer_beside_a_decimal_one_is_still_exact(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 1.0\n1 0 b 9223372036854775807\n")
    assert ir_rbstar.read_qrels(str(path))["relevance"].tolist() == [1, 2 ** 63 - 1]


@pytest.mark.parametrize("value", BAD_VALUES, ids=repr)
@pytest.mark.parametrize("door", ["DataFrame", "dict", "namedtuples"])
def test_a_bad_grade_through_the_python_doors(value, door):
    qrels = {"DataFrame": lambda: pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"],
                                                "relevance": pd.Series([1, value], dtype=object)}),
             "dict": lambda: {"1": {"a": 1, "b": value}},
             "namedtuples": lambda: [Qrel("1", "a", 1), Qrel("1", "b", value)]}[door]()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(errors.InputFormatError, match=r"relevance .* of document 'b' for query '1' is") as e:
            ir_measures.calc_aggregate(MEASURES, qrels, RUN)
    assert "np." not in str(e.value)


def test_a_float_column_of_whole_grades_is_accepted():
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1.0, 3.0]})
    ints = qrels.assign(relevance=[1, 3])
    assert ir_measures.calc_aggregate(MEASURES, qrels, RUN) == ir_measures.calc_aggregate(MEASURES, ints, RUN)


@pytest.mark.parametrize("engine", ["numpy", "numba"])
@pytest.mark.parametrize("stream", [False, True], ids=["file", "stream"])
def test_an_underscore_in_a_number_is_refused(tmp_path, capsys, engine, stream):
    """Python's float() and numpy read 1_000 as 1000, trec_eval's atof as 1: neither is taken."""
    if engine == "numba":
        pytest.importorskip("numba")
    from ir_rbstar import engine as eng
    with eng.using(engine):
        extra = ["--stream"] if stream else []
        run = tmp_path / "u.run"
        run.write_text("1 Q0 a 1 1_000 t\n1 Q0 b 2 2.5 t\n")
        code, out, err = _cli([_qrels_file(tmp_path, "1"), str(run), "P@1"] + extra, capsys)
        assert code == 2 and "line 1: score '1_000' of document 'a' for query '1' is not a number" in err
        code, out, err = _cli([_qrels_file(tmp_path, "1_0"), _run_file(tmp_path), "P@1"] + extra, capsys)
        assert code == 2 and "line 2: relevance '1_0' of document 'b' for query '1' is not an integer grade" in err


@pytest.mark.parametrize("grade", [2 ** 53 + 1, 2 ** 62 + 1, 2 ** 63 - 1, -2 ** 63, np.int64(2 ** 62 + 1)], ids=repr)
@pytest.mark.parametrize("door", ["DataFrame", "dict", "dict with a bool", "namedtuples"])
def test_integral_grades_within_int64_are_exact_through_the_python_doors(grade, door):
    # beyond 2^53 a float64 would round them (the DataFrame's column goes through objects; a bool beside
    # them keeps a dict's grades from being read as a column of ints)
    qrels = {"DataFrame": lambda: pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, grade]}),
             "dict": lambda: {"1": {"a": 1, "b": grade}},
             "dict with a bool": lambda: {"1": {"a": True, "b": grade}},
             "namedtuples": lambda: [Qrel("1", "a", 1), Qrel("1", "b", grade)]}[door]()
    assert ir_rbstar.io.to_qrels(qrels).grades.tolist() == [1, int(grade)]
