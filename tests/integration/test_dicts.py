"""ir_rbstar/dicts.py: the dicts of dicts the ``ir-rbstar`` command hands to ir_measures' own providers.

A regular TREC file gives, on the fast path, the dict ir_measures' own reader gives and the dict of the
package's reader; anything irregular returns None (the command then uses the package's reader, which
names the file and line of what it rejects)."""
import gzip
import io
import math

import ir_measures
import pytest
from hypothesis import given, settings, strategies as st

from ir_rbstar import cli, dicts
from ir_rbstar.io import read_trec_qrels, read_trec_run
from tests.conftest import examples

SEP = st.sampled_from([" ", "\t", "  ", " \t "])
IDS = st.text(alphabet="abcXYZ019-.:/", min_size=1, max_size=6)
SCORES = st.one_of(st.integers(-5, 5).map(str), st.floats(-1e6, 1e6, allow_nan=False).map(repr),
                   st.sampled_from(["1e-3", "-0.0", "2.50", "7E2"]))


@st.composite
def run_files(draw):
    """(text, lines): a run with 1-3 queries in blocks, 1-5 distinct documents each, random separators,
    blank lines and a final newline or not."""
    lines = []
    for q in draw(st.lists(IDS, min_size=1, max_size=3, unique=True)):
        for rank, d in enumerate(draw(st.lists(IDS, min_size=1, max_size=5, unique=True)), 1):
            fields = [q, "Q0", d, str(rank), draw(SCORES), "tag"]
            line = draw(SEP).join(fields)
            lines.append(line + (draw(SEP) if draw(st.booleans()) else ""))
            if draw(st.integers(0, 9)) == 0:
                lines.append("")
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else ""), lines


def _irm_dict(path, kind):
    reader = ir_measures.read_trec_run if kind == "run" else ir_measures.read_trec_qrels
    out = {}
    for x in reader(str(path)):
        out.setdefault(x.query_id, {})[x.doc_id] = x.score if kind == "run" else x.relevance
    return out


@settings(max_examples=examples(200), deadline=None)
@given(data=run_files(), gz=st.booleans())
def test_a_regular_run_gives_the_dict_of_both_readers(tmp_path_factory, data, gz):
    text, _ = data
    path = tmp_path_factory.mktemp("d") / ("r.run.gz" if gz else "r.run")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    got = dicts.read_trec_dict(str(path), "run")
    assert got is not None
    assert got == _irm_dict(path, "run") == dicts.ranking_dict(read_trec_run(str(path)))
    assert all(type(v) is float for docs in got.values() for v in docs.values())


@settings(max_examples=examples(200), deadline=None)
@given(data=run_files(), picked=st.lists(st.booleans(), min_size=3, max_size=3), depth=st.one_of(st.none(),
                                                                                             st.integers(0, 6)))
def test_a_ranking_dict_of_some_queries_to_a_depth(tmp_path_factory, data, picked, depth):
    """ranking_dict(ranking, queries, depth): the queries asked that the run has (in the run's order; an absent
    one asked is no error), each with its first ``depth`` documents in trec_eval order, as the whole dict has them."""
    text, _ = data
    path = tmp_path_factory.mktemp("d") / "r.run"
    path.write_bytes(text.encode())
    ranking = read_trec_run(str(path))
    whole = dicts.ranking_dict(ranking)
    asked = [q for q, keep in zip(whole, picked, strict=False) if keep] + ["no such query"]
    got = dicts.ranking_dict(ranking, asked, depth)
    want = {q: dict(list(docs.items())[:depth]) for q, docs in whole.items() if q in asked}
    assert list(got) == list(want) and all(list(got[q].items()) == list(want[q].items()) for q in want)


def test_a_regular_qrels_gives_the_dict_of_both_readers(tmp_path):
    path = tmp_path / "q.qrels"
    path.write_text("1 0 d1 2\n1 0 d2 0\n2\t0\td1\t-1\n\n3 0 x 10\n1 0 d3 1")
    got = dicts.read_trec_dict(str(path), "qrels")
    assert got == {"1": {"d1": 2, "d2": 0, "d3": 1}, "2": {"d1": -1}, "3": {"x": 10}}
    assert got == _irm_dict(path, "qrels") == dicts.qrels_dict(read_trec_qrels(str(path)))


@pytest.mark.parametrize("text", [
    "q Q0 d 1 1.5\nq Q0 e 2 1.0 r r\n",            # 5 + 7 fields: the totals alone would pass
    "q Q0 d 1 1.5 r q Q0 e 2 1.0 r\n",             # two rows on one line
    "q Q0 d 1 1.5 r\nq Q0 d 2 1.0 r\n",            # a document twice for a query
    "q Q0 d 1 nan r\n", "q Q0 d 1 inf r\n",        # not finite
    "q Q0 d 1 1_0 r\n",                            # a digit separator float() would take
    "q Q0 d 1 x r\n",                              # not a number
    "q Q0 d\u00e9 1 1.0 r\n",                      # non-ASCII
    "\ufeffq Q0 d 1 1.0 r\n",                      # a byte-order mark
    "q Q0 d 1 1.0 r\x0c\n",                        # another control character
    "", "\n\n",                                    # empty
])
def test_anything_irregular_goes_to_the_package_reader(tmp_path, text):
    path = tmp_path / "r.run"
    path.write_bytes(text.encode())
    assert dicts.read_trec_dict(str(path), "run") is None


def test_the_command_still_names_the_line_of_a_bad_run(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text("q 0 d 1\n")
    run = tmp_path / "r.run"
    run.write_text("q Q0 d 1 1.5 r\nq Q0 e 2 oops r\n")
    assert cli.main([str(qrels), str(run), "nDCG@10"]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "oops" in err


def test_the_command_on_irregular_files_gives_the_same_values(tmp_path):
    """A non-ASCII document id and blank lines: the package's reader, then its dict, same numbers as
    ir_measures' own command path."""
    qrels = tmp_path / "q"
    qrels.write_text("q 0 d\u00e9 2\nq 0 e 1\nr 0 a 1\n", encoding="utf-8")
    run = tmp_path / "r.run"
    run.write_text("q Q0 e 1 2.0 t\n\nq Q0 d\u00e9 2 1.0 t\nr Q0 b 1 3 t\nr Q0 a 2 1 t\n", encoding="utf-8")
    assert dicts.read_trec_dict(str(run), "run") is None
    out = io.StringIO()
    cli.run_measures([str(qrels), str(run), "nDCG@10 AP P@1", "--places", "-1"], out=out)
    got = {line.split("\t")[0]: float(line.split("\t")[1]) for line in out.getvalue().splitlines()}
    want = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in ("nDCG@10", "AP", "P@1")],
                                      _irm_dict(qrels, "qrels"), _irm_dict(run, "run"))
    assert {k: got[k] for k in got} == {str(k): v for k, v in want.items()}
    assert not any(math.isnan(v) for v in got.values())


# ---------------------------------------------------------------------------------------------------
# the compiled reader (``trec_dict`` of the C extension) against the Python path it stands in for

def _same_dicts(a, b):
    """Equal, in the same order of queries and documents, values of the same type and sign (-0.0)."""
    if a is None or b is None:
        return a is b
    return (list(a) == list(b) and all(list(a[q]) == list(b[q]) for q in a)
            and all(type(a[q][d]) is type(b[q][d]) and repr(a[q][d]) == repr(b[q][d]) for q in a for d in a[q]))


def _both_paths(path, kind):
    from ir_rbstar.io import extension
    from tests.helpers import compiled_off
    if extension.compiled is None:
        pytest.skip("the C extension is not built")
    got = dicts.read_trec_dict(str(path), kind)
    with compiled_off():
        want = dicts.read_trec_dict(str(path), kind)
    return got, want


# pieces that make a file irregular, or regular in an unusual way, inserted at random places
PIECES = st.sampled_from(["_", "\r", "\r\n", "\x0c", "\x7f", "\u00e9", "+", "e", "E5", "inf", "nan", ".", "-",
                          " x", "\t", "\n", "\n\n", " ", "0x1", "1e400", "1e-400", "Infinity", "00", "\x00"])


@settings(max_examples=examples(300), deadline=None)
@given(data=run_files(), edits=st.lists(st.tuples(st.integers(0, 10_000), PIECES), max_size=3),
       duplicate=st.booleans())
def test_the_compiled_reader_gives_the_python_paths_dict_or_none(tmp_path_factory, data, edits, duplicate):
    """Whatever the file, the compiled reader and the Python path agree: the same dict (order, types, -0.0)
    or both None."""
    text, lines = data
    if duplicate:
        text += lines[0] + "\n"                     # a document twice for a query (or a repeated line)
    for at, piece in edits:
        at = at % (len(text) + 1)
        text = text[:at] + piece + text[at:]
    path = tmp_path_factory.mktemp("c") / "r.run"
    path.write_bytes(text.encode("utf-8"))
    got, want = _both_paths(path, "run")
    assert _same_dicts(got, want), (text, got, want)


@pytest.mark.parametrize("score", ["1.5", "+1.5", ".5", "5.", "-0", "-0.0", "0.1", "1E+05", "7e-3", "1e22",
                                   "1e23", "123456789012345678", "0." + "0" * 80 + "1", "9" * 70,
                                   "2.2250738585072014e-308", "4.9e-324", "1e-400", "1e400", "inf", "-Infinity",
                                   "nan", "0x10", "1_0", "1e", "e1", "--1", "1.2.3", "", "1,5"])
def test_numbers_are_read_as_float_reads_them(tmp_path, score):
    path = tmp_path / "r.run"
    path.write_text(f"q Q0 d 1 {score} t\nq Q0 e 2 0.25 t\n")
    got, want = _both_paths(path, "run")
    assert _same_dicts(got, want), (score, got, want)
    if got is not None:
        assert repr(got["q"]["d"]) == repr(float(score))


@pytest.mark.parametrize("grade", ["0", "2", "-1", "+3", "007", "-0", str(2 ** 63 - 1), str(-2 ** 63), str(2 ** 63),
                                   str(-2 ** 63 - 1), "1.0", "1e2", "1_0", "+", "-", "x", "٣"])
def test_grades_are_read_as_int_reads_them_within_int64(tmp_path, grade):
    path = tmp_path / "q.qrels"
    path.write_text(f"1 0 d1 {grade}\n1 0 d2 0\n2 0 d1 1\n", encoding="utf-8")
    got, want = _both_paths(path, "qrels")
    assert _same_dicts(got, want), (grade, got, want)
    if got is not None:
        assert got["1"]["d1"] == int(grade)


def test_a_query_in_two_blocks_is_one_dict_in_the_files_order(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("a Q0 x 1 3 t\nb Q0 y 1 2 t\na Q0 z 2 1 t\n")
    got, want = _both_paths(path, "run")
    assert _same_dicts(got, want)
    assert list(got) == ["a", "b"] and list(got["a"]) == ["x", "z"]
    path.write_text("a Q0 x 1 3 t\nb Q0 y 1 2 t\na Q0 x 2 1 t\n")        # x twice for a, in two blocks
    assert _both_paths(path, "run") == (None, None)


def test_without_the_compiled_reader_a_large_file_goes_to_the_package_reader(tmp_path, monkeypatch):
    """Above SPLIT_LIMIT bytes the Python path declines (the package's reader is faster there); the command
    then gives the same values through the package's reader and its conversion."""
    from tests.helpers import compiled_off
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 c 2\n2 0 b 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 3.0 t\n1 Q0 b 2 2.5 t\n1 Q0 c 3 2.0 t\n2 Q0 b 1 1.0 t\n2 Q0 a 2 0.5 t\n")
    with compiled_off():
        small = dicts.read_trec_dict(str(run), "run")
        out_small = io.StringIO()
        cli.run_measures([str(qrels), str(run), "nDCG@10 AP", "--places", "-1"], out=out_small)
        monkeypatch.setattr(dicts, "SPLIT_LIMIT", 10)
        read = []                                   # the file is not read to be declined: its size says so
        monkeypatch.setattr(dicts, "_read_bytes", lambda p: read.append(p))
        gz = tmp_path / "r.run.gz"
        gz.write_bytes(gzip.compress(run.read_bytes()))
        assert small is not None and dicts.read_trec_dict(str(run), "run") is None
        assert dicts.read_trec_dict(str(gz), "run") is None and dicts.read_trec_dict(str(qrels), "qrels") is None
        assert read == []
        assert dicts._text_size(str(gz)) == len(run.read_bytes()) == dicts._text_size(str(run))
        monkeypatch.undo()
        monkeypatch.setattr(dicts, "SPLIT_LIMIT", 10)
        out_large = io.StringIO()
        cli.run_measures([str(qrels), str(run), "nDCG@10 AP", "--places", "-1"], out=out_large)
    assert out_large.getvalue() == out_small.getvalue() and "nDCG@10" in out_small.getvalue()
