"""Malformed run and qrels files: every row-shape mistake is a typed error naming the file, the line and
the column count found (expected vs found), under both engines; a byte-order mark is skipped; ids that
are not UTF-8 are an error at every door. Each case failed before (misread silently, a phantom query,
a raw UnicodeDecodeError or a message without the count)."""
import gzip
import importlib.util

import numpy as np
import pandas as pd
import pytest

import ir_rbstar
from ir_rbstar import engine
from ir_rbstar.cli import main as cli_main
from ir_rbstar.errors import InputFormatError
from ir_rbstar.io import read_trec_qrels, read_trec_run, to_qrels, to_ranking

from tests.helpers import SHARED_CASES, VASWANI

ENGINES = ["numpy"] + (["numba"] if importlib.util.find_spec("numba") else [])
RUN_LAYOUT = r"expected 6 whitespace-separated columns \(query_id Q0 doc_id rank score tag\)"
QRELS_LAYOUT = r"expected 4 whitespace-separated columns \(query_id iteration doc_id relevance\)"


def write(path, text, gz=False):
    data = text.encode("utf-8") if isinstance(text, str) else text
    if gz:
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return str(path)


def run_lines(n=4, q="1"):
    return "".join(f"{q} Q0 d{i} {i + 1} {10 - i}.5 tag\n" for i in range(n))


@pytest.fixture(params=ENGINES)
def eng(request):
    with engine.using(request.param):
        yield request.param


@pytest.mark.parametrize("one_query", [True, False])
def test_seven_columns_with_a_numeric_sixth(tmp_path, eng, one_query):
    """Was read as query 'Q0', document = rank, exit 0 (one query) or a misleading duplicate error."""
    lines = "".join(f"{'1' if one_query else q} Q0 d{i} {i + 1} {10 - i}.5 {i}.25 tag\n"
                    for q in ("1", "2") for i in range(3))
    path = write(tmp_path / "seven.run", lines)
    with pytest.raises(InputFormatError, match=rf"seven\.run: line 1: {RUN_LAYOUT}, found 7$"):
        read_trec_run(path)


@pytest.mark.parametrize("cols,what", [(5, "run"), (7, "run"), (3, "qrels"), (5, "qrels")])
def test_wrong_column_count_names_line_and_count(tmp_path, eng, cols, what):
    good = run_lines(3) if what == "run" else "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n"
    bad = " ".join(["x"] * cols) + "\n"
    path = write(tmp_path / f"bad.{what}", good + bad + good.replace("d", "e"))
    layout = RUN_LAYOUT if what == "run" else QRELS_LAYOUT
    reader = read_trec_run if what == "run" else read_trec_qrels
    with pytest.raises(InputFormatError, match=rf"line 4: {layout}, found {cols}$"):
        reader(path)


def test_ragged_file_names_the_first_offending_line_counting_blank_lines(tmp_path, eng):
    path = write(tmp_path / "ragged.run", run_lines(2) + "\n\n1 Q0 x 3\n" + run_lines(2, "2"))
    with pytest.raises(InputFormatError, match=r"ragged\.run: line 5: .*found 4"):
        read_trec_run(path)


def test_swapped_run_and_qrels_say_so(tmp_path, eng):
    run = write(tmp_path / "r.run", run_lines(3))
    qrels = write(tmp_path / "q.qrels", "1 0 d1 1\n1 0 d2 0\n")
    with pytest.raises(InputFormatError, match=r"found 6; this looks like a run file.*other way round"):
        read_trec_qrels(run)
    with pytest.raises(InputFormatError, match=r"found 4; this looks like a qrels file.*other way round"):
        read_trec_run(qrels)


def test_swapped_files_on_the_command_line(tmp_path, capsys):
    run = write(tmp_path / "r.run", run_lines(3))
    qrels = write(tmp_path / "q.qrels", "1 0 d1 1\n1 0 d2 0\n")
    assert cli_main([run, qrels, "P@10"]) == 2
    err = capsys.readouterr().err
    assert "line 1: expected 4" in err and "found 6" in err and "other way round" in err


def test_indented_and_odd_whitespace_lines_are_read(tmp_path, eng):
    """The vectorised scanners do not take indented lines; the line-aware path does, with the same values."""
    plain = read_trec_run(write(tmp_path / "plain.run", run_lines(4)))
    odd = read_trec_run(write(tmp_path / "odd.run", "".join("  " + line.replace(" ", "\t ", 1)
                                                             for line in run_lines(4).splitlines(True))))
    assert odd.dbytes.tolist() == plain.dbytes.tolist() and odd.scores.tolist() == plain.scores.tolist()


@pytest.mark.parametrize("gz", [False, True])
def test_byte_order_mark_is_skipped(tmp_path, eng, gz):
    bom = b"\xef\xbb\xbf"
    run = read_trec_run(write(tmp_path / "bom.run", bom + run_lines(3).encode(), gz=gz))
    plain = read_trec_run(write(tmp_path / "plain.run", run_lines(3)))
    assert ir_rbstar.io.QUERY_IDS.decode(run.qcodes).tolist() == ["1"]
    assert run.dbytes.tolist() == plain.dbytes.tolist()
    qrels = read_trec_qrels(write(tmp_path / "bom.qrels", bom + b"1 0 d1 1\n2 0 d2 1\n", gz=gz))
    assert sorted(ir_rbstar.io.QUERY_IDS.decode(qrels.qcodes).tolist()) == ["1", "2"]


def test_only_a_byte_order_mark_is_an_empty_file(tmp_path, eng):
    with pytest.raises(ir_rbstar.EmptyInputError):
        read_trec_run(write(tmp_path / "empty.run", b"\xef\xbb\xbf\n  \n"))


@pytest.mark.parametrize("where", ["run", "qrels"])
def test_ids_that_are_not_utf8_are_an_error_naming_the_line(tmp_path, eng, where):
    latin1 = "d\u00e9oc".encode("latin-1")
    if where == "run":
        data = run_lines(2).encode() + b"1 Q0 " + latin1 + b" 3 1.0 tag\n"
        path, reader = write(tmp_path / "l.run", data), read_trec_run
    else:
        data = b"1 0 d1 1\n1 0 " + latin1 + b" 0\n"
        path, reader = write(tmp_path / "l.qrels", data), read_trec_qrels
    with pytest.raises(InputFormatError, match=r"line \d+: document id b'd\\xe9oc' is not UTF-8 text.*iconv"):
        reader(path)


def test_utf8_ids_are_fine_and_a_latin1_tag_is_not_an_id(tmp_path, eng):
    data = "1 Q0 d\u00e9oc 1 2.0 t\u00e4g\n".encode() + b"1 Q0 x 2 1.0 t\xe4g\n"
    run = read_trec_run(write(tmp_path / "u.run", data))
    assert ir_rbstar.io.ranking_frame(run)["doc_id"].tolist() == ["d\u00e9oc", "x"]


def test_non_utf8_ids_from_python_objects():
    with pytest.raises(InputFormatError, match="not UTF-8"):
        to_ranking(pd.DataFrame({"query_id": ["1"], "doc_id": [b"d\xe9"], "score": [1.0]}))
    with pytest.raises(InputFormatError, match="not UTF-8"):
        to_qrels({"1": {b"d\xe9": 1}})
    with pytest.raises(InputFormatError, match="UTF-8"):
        to_ranking({"1": {"d\ud800": 1.0}})                    # a lone surrogate cannot be encoded


def test_non_utf8_run_on_the_command_line_with_an_ir_measures_measure(tmp_path, capsys):
    """Was a raw UnicodeDecodeError once an ir_measures measure was asked for."""
    path = write(tmp_path / "l.run", b"1 Q0 d\xe9oc 1 1.0 t\n")
    assert cli_main([str(VASWANI / "qrels"), path, "nDCG@10", "RBP(p=0.8,rel=1)"]) == 2
    assert "is not UTF-8 text" in capsys.readouterr().err


def test_python_objects_convert_like_files(tmp_path):
    """dicts of dicts and namedtuples (generators too) give the same columns as the file."""
    import ir_measures
    path = str(VASWANI / "bm25.run.gz")
    ref = read_trec_run(path)
    frame = ir_rbstar.read_run(path)
    as_dict = {}
    for row in frame.itertuples(index=False):
        as_dict.setdefault(row.query_id, {})[row.doc_id] = row.score
    for run in (as_dict, list(ir_measures.read_trec_run(path)), ir_measures.read_trec_run(path)):
        got = to_ranking(run)
        order = np.argsort(got.dbytes.astype(object) + b"|" + ir_rbstar.io.QUERY_IDS.decode(
            got.row_queries()).astype(str).astype("S").astype(object))
        want = np.argsort(ref.dbytes.astype(object) + b"|" + ir_rbstar.io.QUERY_IDS.decode(
            ref.row_queries()).astype(str).astype("S").astype(object))
        assert got.dbytes[order].tolist() == ref.dbytes[want].tolist()
        assert got.scores[order].tolist() == ref.scores[want].tolist()


def test_namedtuples_of_mixed_types_and_bad_items():
    import ir_measures
    Other = __import__("collections").namedtuple("Other", ["score", "doc_id", "query_id"])
    mixed = [ir_measures.ScoredDoc("1", "a", 2.0), Other(1.0, "b", "1")]
    got = to_ranking(mixed)
    assert got.dbytes.tolist() == [b"a", b"b"] and got.scores.tolist() == [2.0, 1.0]
    with pytest.raises(InputFormatError, match="iterable of strings"):
        to_ranking(["1 Q0 a 1 1.0 t"])
    with pytest.raises(InputFormatError, match="no field 'score'"):
        to_ranking([ir_measures.Qrel("1", "a", 1)])
    with pytest.raises(InputFormatError, match="not a number"):
        to_ranking([ir_measures.ScoredDoc("1", "a", "high")])
    with pytest.raises(InputFormatError, match="not an integer grade"):
        to_qrels({"1": {"a": 1.5}})


def test_the_cases_found_by_users():
    """../shared/cases/bad_input (skipped when absent): each gives its typed error or reads cleanly."""
    root = SHARED_CASES / "bad_input"
    if not root.exists():
        pytest.skip(f"shared cases not available: {root}")
    for name, pattern in (("cols7num.run", "found 7"), ("cols7num_1q.run", "found 7"), ("cols5.run", "found 5"),
                          ("latin1.run", "not UTF-8")):
        with pytest.raises(InputFormatError, match=pattern):
            read_trec_run(str(root / name))
    with pytest.raises(InputFormatError, match="found 5"):
        read_trec_qrels(str(root / "cols5num.qrels"))
    run = read_trec_run(str(root / "bom.run"))
    qrels = read_trec_qrels(str(root / "bom.qrels"))
    for ids in (ir_rbstar.io.QUERY_IDS.decode(run.qcodes), ir_rbstar.io.QUERY_IDS.decode(qrels.qcodes)):
        assert not any(q.startswith("\ufeff") for q in ids)


def test_a_fresh_ir_measures_reader_is_read_from_its_file_and_a_started_one_item_by_item():
    import ir_measures
    path = str(VASWANI / "bm25.run.gz")
    whole = to_ranking(ir_measures.read_trec_run(path))
    assert len(whole) == len(read_trec_run(path))
    started = ir_measures.read_trec_run(path)
    first = next(started)
    rest = to_ranking(started)                                   # the remaining rows, not the file
    assert len(rest) == len(whole) - 1 and first.doc_id.encode() not in set(
        rest.dbytes[rest.row_queries() == rest.qcodes[0]].tolist())
    qrels = to_qrels(ir_measures.read_trec_qrels(str(VASWANI / "qrels")))
    assert len(qrels.grades) == len(read_trec_qrels(str(VASWANI / "qrels")).grades)
