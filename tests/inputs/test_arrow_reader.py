"""The pyarrow reader of regular TREC files (ir_rbstar.io.arrowscan) against the scanners it stands in for
(numpy and compiled): on the fuzz corpus's corrupted runs and qrels and on generated runs with odd score
spellings, every reader gives the same rows (ids, widths, scores bit for bit, grades) or the same error,
word for word; the pyarrow reader takes the regular files and leaves the others to the scanners. Where the C
extension is built its scan reads the regular files first (ir_rbstar.io.dictscan.scan_columns): every comparison
here also holds it to pyarrow's reader."""
import gzip
import importlib.util
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ir_rbstar import engine
from ir_rbstar.io import arrowscan, extension, ids as id_module, trec
from ir_rbstar.io.ids import QUERY_IDS, _to_str
from tests.conftest import examples
from tests.helpers import compiled_off
from tests.inputs.test_fuzz import corrupt

pytest.importorskip("pyarrow")

SCANNERS = ["numpy"] + (["numba"] if importlib.util.find_spec("numba") else [])


def _outcome(path, what):
    """What a reader makes of the file: its rows (run: in trec_eval order) or the error's type and text."""
    try:
        if what == "run":
            frame = trec.read_run_frame(path)
            scores = frame.score.to_numpy().view(np.int64).tolist()          # bit for bit: -0.0 is not 0.0
            return ("rows", frame.query_id.tolist(), frame.doc_id.tolist(), scores, str(frame.dtypes.to_dict()))
        qrels = trec.read_trec_qrels(path)
        return ("rows", QUERY_IDS.decode(qrels.rowq).tolist(), _to_str(qrels.rowb).tolist(), qrels.grades.tolist(),
                qrels.rowb.dtype.str)
    except Exception as e:                    # noqa: BLE001 (the error itself is compared)
        return ("error", type(e).__name__, str(e))


class Taken:
    """Counts the files the pyarrow reader took and declined."""

    def __init__(self, monkeypatch):
        self.taken = self.declined = 0
        real = trec.arrow_columns

        def counting(*args, **kwargs):
            cols = real(*args, **kwargs)
            if cols is None:
                self.declined += 1
            else:
                self.taken += 1
            return cols
        monkeypatch.setattr(trec, "arrow_columns", counting)


def _compare(path, what, monkeypatch):
    """The regular files' reader's outcome (the compiled scan, where the extension is built, else pyarrow's
    reader), after checking it is pyarrow's reader's and every scanner's."""
    monkeypatch.setattr(arrowscan, "ENABLED", True)
    ours = _outcome(path, what)
    with compiled_off():
        assert _outcome(path, what) == ours, ("pyarrow", path, open(path, "rb").read()[:300])
    monkeypatch.setattr(arrowscan, "ENABLED", False)
    for name in SCANNERS:
        with engine.using(name):
            assert _outcome(path, what) == ours, (name, path, open(path, "rb").read()[:300])
    monkeypatch.setattr(arrowscan, "ENABLED", True)
    return ours


def test_the_fuzz_corpus_reads_the_same_through_every_reader(tmp_path, monkeypatch):
    taken = Taken(monkeypatch)
    kinds = set()
    for seed in range(int(os.environ.get("IR_RBSTAR_FUZZ", "40"))):
        run, qrels, gz, _ = corrupt(seed)
        for what, data in (("run", run), ("qrels", qrels)):
            path = tmp_path / f"{seed}.{what}" if not gz else tmp_path / f"{seed}.{what}.gz"
            path.write_bytes(gzip.compress(data) if gz else data)
            kinds.add(_compare(str(path), what, monkeypatch)[0])
    assert kinds == {"rows", "error"}
    assert taken.taken and taken.declined, (taken.taken, taken.declined)


_SCORES = ["1", "-1", "+1", "-0", "+0", "0.0", "-0.0", ".5", "5.", "1e5", "1E5", "1e+5", "1e-5", "-1.5e-3",
           "1e-400", "1e400", "-1e400", "1e308", "4.9e-324", "2.2250738585072011e-308",
           "0.1000000000000000055511151231257827",
           "123456789012345678901234567890", "3.14159265358979323846", "9007199254740993", "nan", "NaN", "inf", "-inf",
           "Infinity", "1_0", "0x10", "1e", "e1", ".", "+", "-", "1.2.3", "1,5", "١", "½", "1d5", "0.30000000000000004"]


@st.composite
def _files(draw):
    """A run file: a few queries, documents with scores from ``_SCORES`` or random decimals, one layout."""
    sep = draw(st.sampled_from([" ", "\t", " ", "\t", "  ", " \t"]))
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    ids = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF, exclude_categories=("Cc", "Zs")),
                  min_size=1, max_size=10)
    score = st.one_of(st.sampled_from(_SCORES),
                      st.floats(allow_nan=False, allow_infinity=False).map(repr),
                      st.from_regex(r"[+-]?[0-9]{0,20}(\.[0-9]{0,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True))
    lines = []
    for q in draw(st.lists(ids, min_size=1, max_size=3, unique=True)):
        for rank, d in enumerate(draw(st.lists(ids, min_size=1, max_size=5)), 1):
            lines.append(sep.join([q, "Q0", d, str(rank), draw(score), "tag"]))
    return eol.join(lines) + draw(st.sampled_from([eol, ""]))


@settings(max_examples=int(os.environ.get("IR_RBSTAR_FUZZ_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_files())
def test_generated_runs_read_the_same_through_every_reader(tmp_path, monkeypatch, text):
    path = tmp_path / "g.run"
    path.write_bytes(text.encode("utf-8"))
    _compare(str(path), "run", monkeypatch)


def test_regular_files_are_taken_and_the_others_left_to_the_scanners(tmp_path, monkeypatch):
    rows = [f"q{q} Q0 d{d} {d + 1} {10 - d / 4} run" for q in range(3) for d in range(6)]
    cases = {"space": ("\n".join(rows) + "\n", True), "tab": ("\n".join(r.replace(" ", "\t") for r in rows), True),
             "blank lines": ("\n\n".join(rows) + "\n\n", True),
             # runs of blanks, and blanks ending a line: the compiled scan's (pyarrow's reader declines them)
             "two spaces": ("\n".join(r.replace(" Q0", "  Q0") for r in rows), extension.compiled is not None),
             "tab and space": ("\n".join(r.replace(" Q0", "\tQ0") for r in rows), extension.compiled is not None),
             "CR LF": ("\r\n".join(rows), True), "CR LF, a last CR": ("\r\n".join(rows) + "\r", True),
             "CR LF and LF": ("\r\n".join(rows[:5]) + "\n" + "\n".join(rows[5:]), True),
             "a CR inside a line": ("\n".join(rows).replace(" Q0", "\rQ0", 1), False),
             "a CR before a separator": ("\n".join(rows).replace(" run", "\r run", 1), False),
             "CR CR LF": ("\r\r\n".join(rows), False),
             "indented": ("\n".join(" " + r for r in rows), False),
             "trailing space": ("\n".join(r + " " for r in rows), extension.compiled is not None),
             "trailing blanks, CR LF": ("\r\n".join(r + " \t" for r in rows), extension.compiled is not None),
             "an empty last field": ("\n".join(rows).replace(" run", " ", 1), False),
             "an empty first field": ("\n".join(rows).replace("q0 ", " ", 1), False),
             "an empty field inside": ("\n".join(rows).replace(" Q0 ", "  ", 1), False),
             "a line of separators only": ("\n".join(rows[:3] + [" " * 5] + rows[3:]), False),
             "vertical tab": ("\n".join(rows).replace("Q0", "Q\x0b0", 1), False),
             "second mark": ("\ufeff\ufeff" + "\n".join(rows), False),
             "seven columns": ("\n".join(r + " x" for r in rows), False),
             "nan score": ("\n".join(rows).replace(" 10.0 ", " nan ", 1), False)}
    for name, (text, regular) in cases.items():
        taken = Taken(monkeypatch)
        path = tmp_path / "c.run"
        path.write_bytes(text.encode("utf-8"))
        _compare(str(path), "run", monkeypatch)
        assert (taken.taken > 0) == regular, name


@pytest.mark.parametrize("column", ["doc_id", "query_id"])
def test_a_long_id_over_the_budget_is_left_to_the_scanners(tmp_path, monkeypatch, column):
    """The long-id budget (docs/guide.md): the pyarrow reader declines, the scanners name the line."""
    monkeypatch.setattr(id_module, "WIDTH_FLOOR", 1 << 12)
    rows = [f"q1 Q0 d{d} {d + 1} {100 - d} run" for d in range(200)]
    rows[150] = ("q1 Q0 " + "x" * 300 + " 151 1.5 run") if column == "doc_id" else ("x" * 300 + " Q0 d 151 1.5 run")
    path = tmp_path / "long.run"
    path.write_text("\n".join(rows) + "\n")
    taken = Taken(monkeypatch)
    outcome = _compare(str(path), "run", monkeypatch)
    assert outcome[0] == "error" and "line 151" in outcome[2], outcome
    assert taken.declined and not taken.taken


def test_str_array_is_what_pandas_makes_of_the_strings():
    pd = pytest.importorskip("pandas")
    ids = np.array(["d1", "é", "D0000001", "x" * 40, "ab"], dtype=object)
    raw = np.array([s.encode() for s in ids], dtype="S")
    made = arrowscan.str_array(raw)
    want = pd.Series(ids).array
    if made is None:                           # pandas' strings are not arrow-backed here
        assert np.dtype(getattr(want.dtype, "numpy_dtype", want.dtype)) == object     # pandas < 3: a wrapper
        return
    assert made.dtype == want.dtype and list(made) == list(want)
    full = np.array([b"ab", b"cd"])            # every id as wide as the column: no padding to drop
    assert list(arrowscan.str_array(full)) == ["ab", "cd"]
    assert arrowscan.str_array(np.array([b"a\x00b", b"c"])) is None      # a NUL inside an id: pandas converts


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.sampled_from(b" \n\t\r\x00AB\xef"), min_size=1, max_size=40).map(bytes),
       block=st.integers(1, 9))
def test_the_layout_counts_block_by_block_as_over_the_whole_file(monkeypatch, data, block):
    monkeypatch.setattr(arrowscan, "_BLOCK", block)
    blank = np.frombuffer(data, dtype=np.uint8) <= 32
    got = arrowscan._layout(data)
    if data.startswith(b"\xef\xbb\xbf"):
        assert got is None
        return
    assert got is not None
    starts = int(np.count_nonzero(~blank[1:] & blank[:-1])) + int(not blank[0])
    # CRs count with the newlines when each one ends a line (before a newline, or last)
    line_end_crs = all(data[i + 1:i + 2] in (b"\n", b"") for i in range(len(data)) if data[i:i + 1] == b"\r")
    others = int(blank.sum()) - data.count(b"\n") - (data.count(b"\r") if line_end_crs else 0)
    assert got[1:] == (others, starts)
