"""Memory follows the bytes of the input: ids are held in fixed-width columns (rows x the longest id), so an id
so long that this would exceed max(64 MiB, 8 x the input's size) is an InputFormatError naming the file and line,
found before anything that large is allocated (it was a 17 GB allocation for one 5,000,000-character id in a
5 MB run); ids within the limit are read exactly, by every scanner."""
import tracemalloc

import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import errors, engine
from ir_rbstar.cli import main as cli_main
from ir_rbstar.io.trec import read_trec_qrels, read_trec_run

ROWS = 3000


def _run_text(long_id, rows=ROWS, at=5):
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i % 100}.5 t" for i in range(rows)]
    q = lines[at].split()[0]
    lines[at] = f"{q} Q0 {long_id} 6 0.1 t"
    return "\n".join(lines) + "\n"


@pytest.fixture(params=["numpy", "numba"])
def scanner(request):
    if request.param == "numba":
        pytest.importorskip("numba")
    before = engine.get_engine()
    engine.set_engine(request.param)
    yield request.param
    engine.set_engine(before)


@pytest.mark.parametrize("indent", [False, True], ids=["regular", "line-by-line"])
def test_a_five_million_byte_id_is_a_clear_error_without_a_big_allocation(tmp_path, scanner, indent):
    text = _run_text("x" * 5_000_000)
    if indent:                                  # an indented line: the line-by-line reader takes the file
        text = " " + text
    path = tmp_path / "long.run"
    path.write_text(text)
    tracemalloc.start()
    try:
        with pytest.raises(errors.InputFormatError, match=r"long\.run: line 6: a column of 5,000,000 bytes") as e:
            read_trec_run(str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * len(text), peak                 # was rows x 5 MB (15 GB)
    assert "longest id may have 22,369 bytes" in str(e.value)


def test_the_same_through_stream_and_qrels(tmp_path, capsys):
    run = tmp_path / "long.run"
    run.write_text(_run_text("x" * 5_000_000))
    qrels = tmp_path / "long.qrels"
    qrels.write_text("".join(f"q0 0 d{i} 1\n" for i in range(ROWS)) + f"q0 0 {'y' * 5_000_000} 1\n")
    good_qrels = tmp_path / "q"
    good_qrels.write_text("q0 0 d1 1\n")
    for argv, where in [([str(good_qrels), str(run), "P@1", "--stream"], "long.run: line 6"),
                        ([str(qrels), str(run), "RBP(p=0.5)"], f"long.qrels: line {ROWS + 1}")]:
        assert cli_main(argv) == 2
        err = capsys.readouterr().err
        assert where in err and "a column of 5,000,000 bytes" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(errors.InputFormatError, match=r"line 3001: a column of 5,000,000 bytes"):
        read_trec_qrels(str(qrels))
    # ir_measures' own measures read regular files as dicts of str (memory follows the bytes): no limit there
    assert cli_main([str(qrels), str(run), "P@1"]) == 0
    expected = ir_measures.calc_aggregate([ir_measures.P @ 1], ir_measures.read_trec_qrels(str(qrels)),
                                          ir_measures.read_trec_run(str(run)))[ir_measures.P @ 1]
    assert capsys.readouterr().out.strip() == f"P@1\t{expected:.4f}"


def test_a_long_id_in_a_dataframe_is_refused_before_the_copy():
    run = pd.DataFrame({"query_id": ["1"] * ROWS, "doc_id": [f"d{i}" for i in range(ROWS - 1)] + ["x" * 5_000_000],
                        "score": range(ROWS)})
    with pytest.raises(errors.InputFormatError, match=r"an id of 5,000,000 characters"):
        ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5)"), {"1": {"d1": 1}}, run)


def test_long_ids_within_the_limit_are_read_exactly(tmp_path, scanner):
    long_id = "z" * 20_000                                 # 3,000 rows x 20,000 bytes < 64 MiB
    path = tmp_path / "ok.run"
    path.write_text(_run_text(long_id))
    frame = ir_rbstar.read_run(str(path))
    assert len(frame) == ROWS and long_id in set(frame["doc_id"])
    qrels = pd.DataFrame({"query_id": ["q0", "q0"], "doc_id": [long_id, "d1"], "relevance": [1, 1]})
    value = ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5)"), qrels, str(path))
    plain = tmp_path / "plain.run"
    plain.write_text(_run_text("d5"))
    short = ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5)"), qrels.assign(doc_id=["d5", "d1"]), str(plain))
    assert value == short                                   # the long id counts as the document it replaces


@pytest.mark.parametrize("reader", ["compiled", "arrow", "python"])
@pytest.mark.parametrize("at", [5, 2990], ids=["among the first ids", "late"])
@pytest.mark.parametrize("door", ["dict", "namedtuples"])
def test_a_long_id_in_a_dict_or_namedtuples_is_named_before_the_column_is_made(door, at, reader, monkeypatch):
    # a dict of dicts and a list of namedtuples were read into a column rows x the longest id with no budget:
    # one 5,000,000-character id among 3,000 rows asked for 15 GB (the process was killed); every reader of
    # those doors (the compiled one declines, pyarrow's for namedtuples, the general one) names the same place
    from ir_rbstar.io import dictscan, extension, records
    if reader == "compiled" and not dictscan.available():
        pytest.skip("the compiled reader (_ir_rbstar_dicts) is not built")
    if reader == "arrow":
        pytest.importorskip("pyarrow")
    if reader != "compiled":
        monkeypatch.setattr(extension, "compiled", None)
    monkeypatch.setattr(records, "_arrow_wanted", lambda n: reader == "arrow")
    docs = [f"d{i}" for i in range(ROWS)]
    docs[at] = "x" * 5_000_000
    run = {"1": {d: float(i) for i, d in enumerate(docs[:1500])}, "2": {d: float(i) for i, d in enumerate(docs[1500:])}}
    if door == "dict":
        given, named = run, ("query '1' of the run dict, key 5" if at == 5 else "query '2' of the run dict, key 1490")
    else:
        given = [ir_measures.ScoredDoc(q, d, s) for q, ds in run.items() for d, s in ds.items()]
        named = f"item {at} of the run"
    tracemalloc.start()
    try:
        with pytest.raises(errors.InputFormatError, match=rf"{named}: an id of 5,000,000 characters"):
            ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5)"), {"1": {"d1": 1}, "2": {"d2": 1}}, given)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000_000, peak
