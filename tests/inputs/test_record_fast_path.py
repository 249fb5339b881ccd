"""A run given as a list of namedtuples is read by pyarrow's converter (``records._arrow_records``) when
it can be; otherwise by the general copy-and-cast path. On random small inputs (duplicates, ties,
numbers and bytes as ids, ids that are not ASCII or hold NUL bytes, scores that are not numbers, None,
queries in several blocks, queries left out) both give the same Ranking bit for bit, or the same error."""
import sys
from collections import namedtuple
from operator import itemgetter
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ir_measures
from ir_rbstar.errors import RbstarError
from ir_rbstar.io import QUERY_IDS, dictscan, records as recs, to_ranking
from ir_rbstar.io import extension

from tests.conftest import examples

pytest.importorskip("pyarrow")


@pytest.fixture(autouse=True)
def _converter_taken(monkeypatch):
    """pyarrow's converter for every run here, whatever this process has imported (records._arrow_wanted), and
    not the compiled reader, which comes first where it is built (tests/inputs/test_compiled_dicts.py)."""
    monkeypatch.setattr(recs, "_arrow_wanted", lambda n: True)
    monkeypatch.setattr(extension, "compiled", None)

QIDS = ["q1", "q2", "10", "é", b"q1", b"q3", 7, None]
DOCS = ["a", "b", "ab", "D12345678", "doc-0000010", "", "é", "a\x00", b"b", b"zz", 5, None]
SCORES = [3.0, 2.0, 2.0 + 1e-9, 1.0, -0.0, 0.0, float("nan"), 2, True, np.float32(0.1), 2 ** 60, "1.5", None]


class Reordered(NamedTuple):
    score: float
    query_id: str
    doc_id: str


Wide = namedtuple("Wide", "query_id doc_id score tag")


@st.composite
def records(draw):
    """Rows mostly of plain values (so that the fast path is taken), sometimes with an odd one."""
    odd = draw(st.booleans())
    qpool = QIDS if odd else QIDS[:4]
    dpool = DOCS if odd else DOCS[:6]
    spool = SCORES if odd else SCORES[:6]
    rows = draw(st.lists(st.tuples(st.sampled_from(qpool), st.sampled_from(dpool), st.sampled_from(spool)),
                         min_size=1, max_size=30))
    if draw(st.booleans()):                            # queries in blocks, as in files
        rows.sort(key=lambda r: str(r[0]))
    return rows


def general(items, queries=None):
    """The same conversion with the fast paths switched off (the struct converter and the filter by
    blocks of equal query ids)."""
    fast, blocks = recs._arrow_records, recs._judged_blocks
    recs._arrow_records = recs._judged_blocks = lambda *a: None
    try:
        return to_ranking(items, queries=queries)
    finally:
        recs._arrow_records, recs._judged_blocks = fast, blocks


def outcome(convert_it):
    try:
        return convert_it(), None
    except RbstarError as e:
        return None, (type(e), str(e))


def assert_same(a, b):
    for name in ("qcodes", "offsets", "dbytes", "docs", "scores"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), name
    assert a._cache.get("same", np.zeros(0)).tolist() == b._cache.get("same", np.zeros(0)).tolist()


@settings(max_examples=examples(400))
@given(records(), st.sampled_from(["ScoredDoc", "Reordered", "Wide"]), st.booleans())
def test_fast_path_gives_the_general_paths_ranking_or_error(rows, shape, filtered):
    if shape == "ScoredDoc":
        items = [ir_measures.ScoredDoc(*r) for r in rows]
    elif shape == "Reordered":
        items = [Reordered(s, q, d) for q, d, s in rows]
    else:
        items = [Wide(q, d, s, "t") for q, d, s in rows]
    queries = {"q1", "10", "7"} if filtered else None
    fast, fast_error = outcome(lambda: to_ranking(items, queries=queries))
    slow, slow_error = outcome(lambda: general(items, queries))
    assert fast_error == slow_error
    if fast is not None:
        assert_same(fast, slow)


def test_the_fast_path_is_taken_for_plain_records_and_declines_the_rest():
    plain = [ir_measures.ScoredDoc("q", f"d{i}", float(i % 3)) for i in range(50)]
    codes, dbytes, scores = recs._arrow_records(plain, [0, 1, 2])
    assert QUERY_IDS.decode(codes.codes).tolist() == ["q"] * 50
    assert dbytes.dtype == np.dtype("S3") and dbytes[10] == b"d10" and scores[4] == 1.0
    for odd in ([ir_measures.ScoredDoc("q", 5, 1.0)], [ir_measures.ScoredDoc("q", "é", 1.0)],
                [ir_measures.ScoredDoc(None, "a", 1.0)], [ir_measures.ScoredDoc("q", "a", "1.5")],
                [ir_measures.ScoredDoc("q", "a\x00", 1.0)], [ir_measures.ScoredDoc("q", "a", None)]):
        assert recs._arrow_records(odd, [0, 1, 2]) is None


def test_unjudged_query_blocks_are_left_out_by_block_with_the_general_paths_columns():
    # as a TREC DL run: many queries in blocks, few of them judged; the blocks of judged queries are kept
    # whole (also a query whose rows come in two blocks) and read as the general path reads them
    S = ir_measures.ScoredDoc
    items = [S(f"q{q}", f"d{(7 * i) % 31}" + "x" * (q % 3), float(i % 5)) for q in range(40) for i in range(30)]
    items += [S("q4", "late", 9.0), S("q5", "late", 1.0)]
    queries = {"q4", "q17", "q30", "q99"}
    kept, heads, lengths = recs._judged_blocks(items, itemgetter(0), queries)
    assert heads == ["q4", "q17", "q30", "q4"] and lengths == [30, 30, 30, 1]
    assert kept == [x for x in items if x.query_id in queries]
    assert recs._arrow_kept(kept, heads, lengths, [0, 1, 2]) is not None
    assert_same(to_ranking(items, queries=queries), general(items, queries))
    # a query id that is not text, or ids in many short blocks: the per-row filter decides
    assert recs._judged_blocks(items + [S(b"q4", "b", 1.0)], itemgetter(0), queries) is None
    mixed = [S(f"q{i % 2}", f"d{i}", 1.0) for i in range(600)]
    assert recs._judged_blocks(mixed, itemgetter(0), {"q1"}) is None
    assert_same(to_ranking(mixed, queries={"q1"}), general(mixed, {"q1"}))


def test_unjudged_query_blocks_are_left_out_without_pyarrow(monkeypatch):
    # pyarrow is an optional extra: without it the filter by blocks still reads the run (no ImportError)
    S = ir_measures.ScoredDoc
    items = [S(f"q{q}", f"d{i}", float(i % 4)) for q in range(40) for i in range(30)]
    expected = general(items, {"q4", "q17"})
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    assert_same(to_ranking(items, queries={"q4", "q17"}), expected)


def test_bytes_query_ids_are_text_at_every_door():
    # a bytes query id is its UTF-8 text, in a dict as in a list of tuples (not "b'q1'")
    ranking = to_ranking([ir_measures.ScoredDoc(b"q1", "a", 1.0), ir_measures.ScoredDoc("q1", "b", 2.0)])
    assert QUERY_IDS.decode(ranking.qcodes).tolist() == ["q1"]
    assert QUERY_IDS.decode(to_ranking({b"q1": {"a": 1.0}}).qcodes).tolist() == ["q1"]
    assert general([ir_measures.ScoredDoc(b"q1", "a", 1.0)]).qcodes.tolist() == ranking.qcodes.tolist()


@pytest.mark.parametrize("fast", [True, False])
def test_a_bytes_or_number_query_id_is_kept_by_its_text_wherever_it_stands(fast):
    # queries={"q1", "7"}: the rows of b"q1" and 7 are kept whether the list starts with a text id (whose
    # rows are filtered before the copy) or with them
    S = ir_measures.ScoredDoc
    read = to_ranking if fast else general
    for items in ([S("q2", "a", 1.0), S(b"q1", "b", 1.0), S(7, "c", 1.0)],
                  [S(b"q1", "b", 1.0), S(7, "c", 1.0), S("q2", "a", 1.0)]):
        r = read(items, queries={"q1", "7"})
        assert sorted(QUERY_IDS.decode(r.qcodes).tolist()) == ["7", "q1"], items
        assert len(r.scores) == 2


def test_a_bytes_or_number_query_id_in_a_dataframe_is_kept_by_its_text():
    # as to_ranking(frame) without queries reads b"q1" as "q1" and 7 as "7", a filter on queries keeps them
    import pandas as pd
    frame = pd.DataFrame({"query_id": ["q2", b"q1", 7], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
    assert sorted(QUERY_IDS.decode(to_ranking(frame).qcodes).tolist()) == ["7", "q1", "q2"]
    kept = to_ranking(frame, queries={"q1", "7"})
    assert sorted(QUERY_IDS.decode(kept.qcodes).tolist()) == ["7", "q1"] and len(kept.scores) == 2


def test_the_converter_waits_until_the_rows_read_without_it_would_have_paid_for_its_import(monkeypatch):
    # a process without pandas: the general path, until ARROW_IMPORT_ROWS rows have been read without the
    # converter; then (and once pyarrow and pandas are imported anyway) the converter
    monkeypatch.undo()                                  # (the real _arrow_wanted, not this module's fixture)
    monkeypatch.setattr(recs, "ARROW_IMPORT_ROWS", 100)
    monkeypatch.setattr(recs, "_rows_without_arrow", 0)
    monkeypatch.delitem(sys.modules, "pandas")
    assert [recs._arrow_wanted(n) for n in (40, 40, 19)] == [False, False, False]
    assert recs._rows_without_arrow == 99
    assert recs._arrow_wanted(1) and recs._arrow_wanted(1) and recs._rows_without_arrow == 99
    monkeypatch.undo()                                  # pandas back in sys.modules, the count as it was
    monkeypatch.setattr(recs, "_rows_without_arrow", 0)
    assert recs._arrow_wanted(10 ** 9) and recs._rows_without_arrow == 0    # imported: taken, nothing counted


def test_a_fresh_process_reads_namedtuples_without_importing_pyarrow_or_pandas(tmp_path):
    # the first calc_aggregate of a script that never imported pandas pays no import of pyarrow and pandas
    # (about 0.55 s of CPU), and its values are those of a process that has them
    import subprocess
    code = (
        "import sys, ir_measures, ir_rbstar\n"
        "S, Q = ir_measures.ScoredDoc, ir_measures.Qrel\n"
        "run = [S(f'q{q}', f'd{d}', float((7 * d) % 13)) for q in range(5) for d in range(40)]\n"
        "qrels = [Q(f'q{q}', f'd{d}', d % 3) for q in range(5) for d in range(0, 40, 3)]\n"
        "ms = ir_rbstar.parse('RBP(p=0.8,max_rel=2) RBP_res(p=0.8) nDCG_TA@10')\n"
        "if len(sys.argv) > 1: import pandas, pyarrow\n"
        "v = ir_measures.calc_aggregate(ms, qrels, run)\n"
        "print(sorted((str(k), float(x).hex()) for k, x in v.items()),\n"
        "      'pandas' in sys.modules, 'pyarrow' in sys.modules)\n")
    script = tmp_path / "s.py"
    script.write_text(code)
    bare = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout.split()
    warm = subprocess.run([sys.executable, str(script), "x"], capture_output=True, text=True, check=True).stdout.split()
    assert bare[-2:] == ["False", "False"] and warm[-2:] == ["True", "True"]
    assert bare[:-2] == warm[:-2]
