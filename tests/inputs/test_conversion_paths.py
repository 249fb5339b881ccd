"""Every in-memory form of a run becomes the same :class:`Ranking`, in trec_eval's order: the fast paths
(namedtuples copied in one pass, dict keys cast in one pass, rows already in order left unsorted, tie
pairs swapped without a sort) against an order computed from the definition, one row at a time."""
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ir_measures
from ir_rbstar.errors import DuplicateDocumentError
from ir_rbstar.io import QUERY_IDS, to_ranking
from ir_rbstar.io.tables import Qrels, _build_ranking, tie_layout

from tests.conftest import examples

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
# ids of 1 to 12 bytes (more than one 64-bit word), sharing prefixes
IDS = ["a", "b", "ab", "ba", "d7", "D12345678", "D12345679", "D1234567", "doc-0000001", "doc-0000010", "x" * 12, "zz"]
# scores equal in float32 but not in float64 among them: ties as trec_eval sees them
SCORES = [3.0, 2.0, 2.0 + 1e-9, 1.5, 1.0, 1.0 + 1e-8, 0.0, -0.0, -1.0]


@st.composite
def runs(draw):
    """Rows (query, doc, score): queries in blocks or interleaved, rows in or out of score order."""
    rows = []
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "10", "q3"]), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=len(IDS), unique=True))
        rows += [(q, d, draw(st.sampled_from(SCORES))) for d in docs]
    how = draw(st.sampled_from(["as drawn", "in order", "shuffled"]))
    if how == "in order":
        rows.sort(key=lambda r: -np.float32(r[2]))                   # stable: query blocks stay whole
        first = {q: i for i, (q, _, _) in reversed(list(enumerate(rows)))}
        rows.sort(key=lambda r: first[r[0]])
    elif how == "shuffled":
        rows = [rows[i] for i in draw(st.permutations(range(len(rows))))]
    return rows


def oracle(rows):
    """trec_eval's order, from the definition: queries by first appearance; in each, float32 score
    descending, then the document id (its UTF-8 bytes) descending."""
    queries = list(dict.fromkeys(q for q, _, _ in rows))
    out = []
    for q in queries:
        mine = [r for r in rows if r[0] == q]
        mine.sort(key=lambda r: (float(np.float32(r[2])), r[1].encode()), reverse=True)
        out += mine
    return out


def as_rows(ranking):
    qids = QUERY_IDS.decode(ranking.row_queries()).tolist()
    return list(zip(qids, [b.decode() for b in ranking.dbytes.tolist()], ranking.scores.tolist(), strict=True))


class Plain(NamedTuple):
    score: float
    doc_id: str
    query_id: str


@SETTINGS
@given(runs())
def test_every_form_gives_the_order_of_the_definition(rows):
    expected = oracle(rows)
    as_dict: dict = {}
    for q, d, s in rows:
        as_dict.setdefault(q, {})[d] = s
    dict_rows = [(q, d, s) for q, docs in as_dict.items() for d, s in docs.items()]
    forms = {
        "tuples": [ir_measures.ScoredDoc(*r) for r in rows],
        "fields in another order": [Plain(s, d, q) for q, d, s in rows],
        "frame": pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]),
    }
    for name, form in forms.items():
        ranking = to_ranking(form)
        assert as_rows(ranking) == expected, name
        assert ranking.dbytes.dtype.itemsize == max(len(d) for _, d, _ in rows), name
    assert as_rows(to_ranking(as_dict)) == oracle(dict_rows)


@SETTINGS
@given(runs())
def test_ties_are_grouped_as_the_order_says(rows):
    ranking = to_ranking([ir_measures.ScoredDoc(*r) for r in rows])
    assert "same" in ranking._cache                     # the groups come from what the sort found
    start, size = ranking.tie_groups()
    again = tie_layout(ranking.row_segments(), ranking.scores, ranking.row_positions())
    assert start.tolist() == again[0].tolist() and size.tolist() == again[1].tolist()
    assert ranking.has_ties() == bool((size > 1).any())
    key = ranking.scores.astype(np.float32)
    seg = ranking.row_segments()
    for i in range(len(ranking)):
        group = [j for j in range(len(ranking)) if seg[j] == seg[i] and key[j] == key[i]]
        assert size[i] == len(group)
        assert start[i] == group[0] - ranking.offsets[seg[i]]


def test_a_query_in_two_blocks_and_stable_grade_rankings():
    # q1's rows come back after q2's: they join q1's segment (first appearance), not a new one
    rows = [("q1", "a", 1.0), ("q2", "b", 2.0), ("q1", "c", 3.0)]
    assert as_rows(to_ranking([ir_measures.ScoredDoc(*r) for r in rows])) == oracle(rows)
    # qrels' reference ranking: equal grades keep their input order (no document-id tie break)
    codes = QUERY_IDS.encode(["g1", "g2"])
    qc = np.array([codes[1], codes[0], codes[0], codes[0]])
    ranking = _build_ranking(qc, np.array([b"a", b"b", b"c", b"d"]), np.arange(4, dtype=np.uint64),
                             np.array([1.0, 1.0, 2.0, 1.0]), "s", qorder=codes, break_ties=False)
    assert ranking.dbytes.tolist() == [b"c", b"b", b"d", b"a"]
    assert isinstance(Qrels, type)


def test_duplicates_and_odd_ids_from_python_objects():
    Row = namedtuple("Row", "query_id doc_id score")
    with pytest.raises(DuplicateDocumentError, match=r"document 'a' appears twice for query 'q'"):
        to_ranking([Row("q", "a", 1.0), Row("q", "b", 2.0), Row("q", "a", 3.0)])
    # an id ending in a NUL byte is the same id once stored as bytes: a duplicate, never a silent merge
    with pytest.raises(DuplicateDocumentError):
        to_ranking({"q": {"a": 1.0, "a\x00": 2.0}})
    with pytest.raises(DuplicateDocumentError):
        to_ranking([Row("q", "a", 1.0), Row("q", "a\x00", 2.0)])
    # ids that are not ASCII (UTF-8 encoded) and ids longer than the first thousand
    rows = [Row("q", f"d{i}", 2.0 + i) for i in range(1000)] + [Row("q", "é" * 3, 1.0), Row("q", "L" * 40, 0.5)]
    ranking = to_ranking(rows)
    assert ranking.dbytes.tolist()[-2:] == ["é".encode() * 3, b"L" * 40]
    assert ranking.dbytes.tolist()[:2] == [b"d999", b"d998"]
    # query ids that are numbers, and a tuple type that is not a namedtuple class
    ranking = to_ranking([Row(7, "a", 1.0), Row(7, "b", 2.0), Row(8, "a", 1.0)])
    assert QUERY_IDS.decode(ranking.qcodes).tolist() == ["7", "8"]

    class Loose(tuple):
        _fields = ("query_id", "doc_id", "score")
        query_id = property(lambda self: self[0])
        doc_id = property(lambda self: self[1])
        score = property(lambda self: self[2])
    mixed = [Loose(("q", "a", 1.0)), Loose(("q", "b", 2.0, "extra"))]
    assert as_rows(to_ranking(mixed)) == [("q", "b", 2.0), ("q", "a", 1.0)]


@pytest.mark.parametrize("left_out", [0, 1, 150, 199, 200])
def test_rows_of_queries_outside_the_evaluation_are_left_out_before_or_after_the_copy(left_out):
    # few queries left out (after the copy, by block) or many (before it); none or all
    rows = [ir_measures.ScoredDoc(f"q{i}", f"d{j}", float(j)) for i in range(200) for j in range(5)]
    rows.append(ir_measures.ScoredDoc("q3", "late", 0.5))          # q3 again, after the other queries
    queries = {f"q{i}" for i in range(left_out, 200)}
    ranking = to_ranking(rows, queries=queries)
    assert as_rows(ranking) == oracle([r for r in rows if r.query_id in queries])
    assert as_rows(to_ranking({q: {"a": 1.0} for q in ("q0", "q1")}, queries=queries)) == \
        [(q, "a", 1.0) for q in ("q0", "q1") if q in queries]
