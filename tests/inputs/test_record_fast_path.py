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
from ir_rbstar.io import QUERY_IDS, records as recs, to_ranking

from tests.conftest import examples

pytest.importorskip("pyarrow")

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
