"""Each bad input that applies to the rank-biased family gets a clear, typed error."""
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import errors
from ir_rbstar.cli import main as cli_main

QRELS = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
RBP = ir_measures.parse_measure("RBP(p=0.8)@5")


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def evaluate_file(path):
    return ir_measures.calc_aggregate([RBP], QRELS, path)


def test_wrong_column_count_names_file_and_line(tmp_path):
    path = write(tmp_path, "short.run", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0\n")
    with pytest.raises(errors.InputFormatError, match=r"short\.run: line 2: expected 6"):
        evaluate_file(path)


def test_too_many_columns(tmp_path):
    path = write(tmp_path, "long.run", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t extra\n")
    with pytest.raises(errors.InputFormatError, match=r"long\.run: line 2: expected 6"):
        evaluate_file(path)


def test_non_numeric_score(tmp_path):
    path = write(tmp_path, "bad.run", "q1 Q0 d1 1 2.0 t\n\nq1 Q0 d2 2 abc t\n")
    with pytest.raises(errors.InputFormatError, match=r"bad\.run: line 3: score 'abc' of document 'd2' for query 'q1'"):
        evaluate_file(path)


def test_nan_score_in_file(tmp_path):
    path = write(tmp_path, "nan.run", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 NaN t\n")
    with pytest.raises(errors.InputFormatError, match=r"nan\.run: line 2: .*not a finite number"):
        evaluate_file(path)


def test_nan_score_in_dataframe():
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [float("nan")]})
    with pytest.raises(errors.InputFormatError, match="document 'd1' for query 'q1'"):
        ir_measures.calc_aggregate([RBP], QRELS, run)


def test_duplicate_document(tmp_path):
    path = write(tmp_path, "dup.run", "q1 Q0 d1 1 2.0 t\nq2 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    with pytest.raises(errors.DuplicateDocumentError, match=r"'d1' appears twice for query 'q1' \(lines 1 and 3\)"):
        evaluate_file(path)


def test_duplicate_judgment(tmp_path):
    path = write(tmp_path, "dup.qrels", "q1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(errors.DuplicateDocumentError, match=r"dup\.qrels: .*'d1' is judged twice"):
        ir_rbstar.read_qrels(path)


def test_non_integer_grade(tmp_path):
    path = write(tmp_path, "frac.qrels", "q1 0 d1 1\nq1 0 d2 0.5\n")
    with pytest.raises(errors.InputFormatError, match=r"frac\.qrels: line 2: relevance '0.5'"):
        ir_rbstar.read_qrels(path)


def test_qrels_path_given_to_ir_measures_explains_itself(tmp_path):
    path = write(tmp_path, "ok.qrels", "q1 0 d1 1\n")
    with pytest.raises(errors.InputFormatError, match=r"read files with ir_rbstar.read_qrels\(path\)"):
        ir_measures.calc_aggregate([RBP], path, {"q1": {"d1": 1.0}})


def test_empty_file(tmp_path):
    path = write(tmp_path, "empty.run", "")
    with pytest.raises(errors.EmptyInputError, match=r"empty\.run: the run file is empty"):
        evaluate_file(path)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.run"):
        evaluate_file(str(tmp_path / "nope.run"))


@pytest.mark.parametrize("text", ["RBR(p=1.5)", "RBR(p=0)", "RBA(p=1)", "RBP(p=0.0)", "RBO(p=2.0)"])
def test_p_outside_open_unit_interval(text):
    with pytest.raises(errors.ParameterError, match="persistence p="):
        ir_rbstar.parse_measure(text)


@pytest.mark.parametrize("text", ["RBR@0", "RBP_res@0", "RBO(p=0.5)@0", "P_TA@0", "nDCG_TA@0", "RBP_TA(p=0.5)@0"])
def test_cutoff_not_positive(text):
    with pytest.raises(errors.ParameterError, match="cutoff @0 must be a positive integer"):
        ir_measures.parse_measure(text)


def test_negative_cutoff_by_call():
    with pytest.raises(errors.ParameterError, match="cutoff @-3"):
        ir_rbstar.RBR(cutoff=-3)


def test_unknown_parameter_and_wrong_type():
    with pytest.raises(errors.ParameterError, match="unknown parameter 'q'"):
        ir_measures.parse_measure("RBO(q=1)")
    with pytest.raises(errors.ParameterError, match="p='x' must be of type float"):
        ir_measures.parse_measure("RBR(p='x')")
    with pytest.raises(errors.ParameterError, match="rel=1.5 must be of type int"):
        ir_rbstar.parse_measure("RBP(rel=1.5)")


def test_tie_aware_parameters():
    with pytest.raises(errors.ParameterError, match="persistence p="):
        ir_measures.parse_measure("RBP_TA(p=1.0)")
    with pytest.raises(errors.ParameterError, match=r"dcg='exp' must be one of"):
        ir_measures.parse_measure("nDCG_TA(dcg='exp')")
    with pytest.raises(errors.ParameterError, match="judged_only=1 must be of type bool"):
        ir_measures.parse_measure("AP_TA(judged_only=1)")
    with pytest.raises(errors.ParameterError, match="gains maps grades"):
        ir_rbstar.nDCG_TA(gains={"a": 1})
    with pytest.raises(errors.ParameterError, match="must be a number"):
        ir_rbstar.nDCG_TA(gains={1: "x"})
    for text in ("P_TA", "R_TA", "F1_TA"):               # no cutoff: fine as a prototype, not evaluable
        with pytest.raises(errors.ParameterError, match=f"{text}: parameter cutoff is required, e.g. {text}@10"):
            ir_measures.calc_aggregate([ir_measures.parse_measure(text)], QRELS, {"q1": {"d1": 1.0}})
    with pytest.raises(errors.ParameterError, match="P: parameter cutoff is required"):
        ir_measures.providers.registry["ir_rbstar"].calc_aggregate([ir_measures.P], QRELS, {"q1": {"d1": 1.0}})
    with pytest.raises(errors.MissingQrelsError, match="needs relevance judgments"):
        ir_measures.calc_aggregate([ir_rbstar.AP_TA], None, {"q1": {"d1": 1.0}})


def test_unknown_reference():
    m = ir_measures.parse_measure("RBR(ref='no_such_run')")
    with pytest.raises(errors.ReferenceNotFoundError, match="ref='no_such_run' is neither a registered run"):
        ir_measures.calc_aggregate([m], QRELS, {"q1": {"d1": 1.0}})


def test_qrels_needed_but_missing():
    with pytest.raises(errors.MissingQrelsError, match=r"RBR\(p=0.8\) needs relevance judgments"):
        ir_measures.calc_aggregate([ir_rbstar.RBR], None, {"q1": {"d1": 1.0}})
    with pytest.raises(errors.MissingQrelsError):
        ir_measures.calc_aggregate([ir_rbstar.RBP_res], None, {"q1": {"d1": 1.0}})


def test_bad_dataframe_columns():
    with pytest.raises(errors.InputFormatError, match="no column 'score'"):
        ir_rbstar.register_run("x", pd.DataFrame({"query_id": ["q"], "doc_id": ["d"]}))


def test_cli_reports_errors_without_traceback(tmp_path, capsys):
    path = write(tmp_path, "bad.run", "q1 Q0 d1 1 oops t\n")
    qrels = write(tmp_path, "q.qrels", "q1 0 d1 1\n")
    assert cli_main([qrels, path, "RBP(p=0.5)"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ir-rbstar: error:") and "bad.run: line 1" in err
    assert cli_main([qrels, path, "RBP(p=7)"]) == 2
    assert "persistence p=7.0" in capsys.readouterr().err
    assert cli_main([qrels, path, "NoSuchMeasure"]) == 2
    assert "unknown measure 'NoSuchMeasure'" in capsys.readouterr().err
