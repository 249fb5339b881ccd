"""Messages of bad input: one line, the package's words (no numpy repr, no internal name), a hint where the
mistake is a common one; the same with --stream."""
import gzip
import warnings

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import errors
from ir_rbstar.cli import main as cli_main

RUN = "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n2 Q0 a 1 3.0 t\n2 Q0 d 2 2.0 t\n"
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 d 0\n"


def _cli(argv, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = cli_main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, err):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ir-rbstar: error: "), err
    assert "np." not in err and "Traceback" not in err and "\\x00" not in err
    return lines[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "r.txt").write_text(RUN)
    (tmp_path / "q.txt").write_text(QRELS)
    return tmp_path


@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["whole", "stream"])
@pytest.mark.parametrize("cut", [20, 45])
def test_a_truncated_gzip_run_is_one_line_with_and_without_stream(files, capsys, stream, cut):
    data = gzip.compress(RUN.encode() * 50)
    (files / "t.run.gz").write_bytes(data[:cut])
    line = _one_line_error(*_cli([files / "q.txt", files / "t.run.gz", "P@1"] + stream, capsys)[::2])
    assert "t.run.gz: cannot read the run file" in line


@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["whole", "stream"])
def test_a_directory_given_as_a_run_says_it_is_a_directory(files, capsys, stream):
    (files / "adir").mkdir()
    line = _one_line_error(*_cli([files / "q.txt", files / "adir", "P@1"] + stream, capsys)[::2])
    assert "adir: is a directory" in line
    line = _one_line_error(*_cli([files / "q.txt", files / "r.txt", files / "adir", "P@1"], capsys)[::2])
    assert "adir: is a directory" in line


@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["whole", "stream"])
@pytest.mark.parametrize("layout", ["{q} {d} {it} {g}", "{q} {it} {g} {d}"])
def test_qrels_columns_in_another_order_get_a_hint(files, capsys, stream, layout):
    rows = [line.split() for line in QRELS.splitlines()]
    (files / "swapped.txt").write_text("".join(layout.format(q=q, it=it, d=d, g=g) + "\n" for q, it, d, g in rows))
    line = _one_line_error(*_cli([files / "swapped.txt", files / "r.txt", "P@1"] + stream, capsys)[::2])
    assert ("is judged twice" in line or "is not an integer grade" in line)
    assert line.endswith("are the columns in the order query_id iteration doc_id relevance?")


def test_a_duplicate_in_well_ordered_qrels_gets_no_column_hint(files, capsys):
    (files / "dup.txt").write_text(QRELS + "1 0 a 1\n")
    line = _one_line_error(*_cli([files / "dup.txt", files / "r.txt", "P@1"], capsys)[::2])
    assert "is judged twice" in line and "columns in the order" not in line


def test_a_non_utf8_document_id_shows_its_bytes_not_a_numpy_repr(files, capsys):
    (files / "latin1.run").write_bytes(RUN.replace("c 3", "doc\xe9 3").encode("latin-1"))
    line = _one_line_error(*_cli([files / "q.txt", files / "latin1.run", "P@1"], capsys)[::2])
    assert "document id b'doc\\xe9' is not UTF-8 text" in line


@pytest.mark.parametrize("score", [np.nan, np.inf])
def test_a_non_finite_score_in_a_dataframe_is_shown_as_a_number(score):
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": np.array([1.0, score])})
    with pytest.raises(errors.InputFormatError, match=r"score (nan|inf) of document 'b' for query '1'") as e:
        ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5)"), {"1": {"a": 1}}, run)
    assert "np." not in str(e.value)


def test_distance_with_graded_qrels_names_the_run_not_an_internal_reference(files, capsys):
    (files / "r2.txt").write_text(RUN.replace("3.0", "0.5"))
    code, out, err = _cli(["distance", files / "r.txt", files / "r2.txt", "--measure", "MED_nDCG@10",
                           "--qrels", files / "q.txt"], capsys)
    line = _one_line_error(code, err)
    assert "pairwise" not in line and "ref='r'" in line and "give max_rel=2" in line


def test_ir_measures_own_rbp_on_graded_qrels_says_how_to_give_max_rel():
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = {"1": {"a": 1, "b": 2}}
    measure = ir_measures.parse_measure("RBP(p=0.5)@10")
    with pytest.raises(errors.GradeScaleError, match=r"ir_rbstar\.parse\('RBP\(p=0\.5,max_rel=2\)@10'\)"):
        ir_measures.calc_aggregate([measure], qrels, run)
    # and what it says works
    assert ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5,max_rel=2)@10"), qrels, run)


def test_the_offline_dataset_message_names_the_guide_section():
    from ir_rbstar.datasets import _unavailable
    text = str(_unavailable("irds:x", "qrels", OSError("no network")))
    assert "docs/guide.md" in text and "'Test collections from ir_datasets (offline)'" in text
    guide = open("docs/guide.md", encoding="utf-8").read()
    assert "## Test collections from ir_datasets (offline)" in guide


def test_a_query_id_beyond_64_bits_with_order_numeric(files, capsys):
    (files / "n.run").write_text("1 Q0 a 1 1.0 t\n" + "9" * 30 + " Q0 a 1 1.0 t\n")
    line = _one_line_error(*_cli([files / "q.txt", files / "n.run", "P@1", "--stream", "--order", "numeric"],
                                 capsys)[::2])
    assert "line 2: query id '" + "9" * 30 + "' is not an integer of 64 bits" in line
