"""The explorer page's ranking tables, made on whole columns (ir_rbstar.explore.rankings), against a
from-the-definition oracle that walks every run's top documents one by one; and the page's budget of numbers
(``max_entries``): what it counts is what the page holds, and a page over it is refused before any work."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_rbstar import cli
from ir_rbstar.errors import ParameterError
from ir_rbstar.explore import build_data, data as page_data, rankings as tables
from ir_rbstar.io import to_qrels, to_ranking
from tests.conftest import examples
from tests.helpers import VASWANI


def oracle(qrels_rows, runs, qids, depth):
    """Per query, the documents in order of first appearance (run by run, rank by rank); per run and query the
    table indices of its top ``depth``, its tie groups of two or more reaching into them and its length. The
    runs in trec_eval's order (score descending, then document id descending), tie groups by equal float32
    scores."""
    grade = {(q, d): g for q, d, g in qrels_rows}
    docs = {q: [] for q in qids}
    positions, ties, lengths = [], [], []
    for rows in runs.values():
        run_pos, run_ties, run_len = [], [], []
        for q in qids:
            mine = sorted(((d, s) for qq, d, s in rows if qq == q), reverse=True)
            mine = sorted(mine, key=lambda x: -x[1])                  # score descending, then id descending
            idx = []
            for d, _ in mine[:depth]:
                if d not in docs[q]:
                    docs[q].append(d)
                idx.append(docs[q].index(d))
            groups, k = [], 0
            while k < len(mine):
                end = k
                while end + 1 < len(mine) and np.float32(mine[end + 1][1]) == np.float32(mine[k][1]):
                    end += 1
                if end > k and k < depth:
                    groups.append([k, end - k + 1])
                k = end + 1
            run_pos.append(idx)
            run_ties.append(groups)
            run_len.append(len(mine))
        positions.append(run_pos)
        ties.append(run_ties)
        lengths.append(run_len)
    grades = [[grade.get((q, d)) for d in docs[q]] for q in qids]
    return [docs[q] for q in qids], grades, positions, ties, lengths


ids = st.sampled_from(["d1", "d2", "d10", "d2x", "é", "doc-long-beyond-eight", "doc-long-beyond-eighT", "a b"])


@st.composite
def inputs(draw):
    qids = ["q1", "q2", "3"]
    runs = {}
    for r in range(draw(st.integers(1, 4))):
        rows = []
        for q in qids:
            docs = draw(st.lists(ids, unique=True, max_size=7))
            rows += [(q, d, float(draw(st.integers(0, 3)))) for d in docs]
        if not rows:
            rows = [("q1", "d1", 1.0)]
        runs[f"r{r}"] = rows
    judged = draw(st.lists(st.tuples(st.sampled_from(qids), ids), unique=True, max_size=10))
    qrels_rows = [(q, d, i % 3) for i, (q, d) in enumerate(judged)] or [("q1", "d1", 1)]
    return qids, runs, qrels_rows, draw(st.integers(1, 8))


@settings(max_examples=examples(400), deadline=None)
@given(inputs())
def test_tables_match_the_oracle(case):
    qids, runs, qrels_rows, depth = case
    qrels = to_qrels(pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]))
    rankings = {name: to_ranking(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
                for name, rows in runs.items()}
    want = oracle(qrels_rows, runs, qids, depth)
    got = tables.ranking_tables(qrels, rankings, qids, depth)
    assert list(got[:5]) == list(want) and got.aux is None
    # other judgments of the same documents, looked up by the same keys
    second = [(q, d, (g + 1) % 3) for q, d, g in qrels_rows[::2]]
    aux = to_qrels(pd.DataFrame(second, columns=["query_id", "doc_id", "relevance"]))
    grade = {(q, d): g for q, d, g in second}
    assert tables.ranking_tables(qrels, rankings, qids, depth, aux=aux).aux == \
        [[grade.get((q, d)) for d in docs] for q, docs in zip(qids, want[0], strict=True)]


def test_ids_sharing_a_key_are_told_apart_by_their_bytes():
    # the same entries with the true hashes and with every hash equal (as if all collided): the same groups
    ids = np.array([b"b", b"a", b"b", b"c", b"a", b"a", b"long-id-over-8-bytes", b"long-id-over-8-bytez"])
    slots = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    from ir_rbstar.io.ids import hash_ids
    true = tables._first_seen(slots, hash_ids(ids).view(np.int64), ids)
    clash = tables._first_seen(slots, np.zeros(len(ids), dtype=np.int64), ids)
    assert true[0].tolist() == clash[0].tolist() == [0, 1, 0, 2, 3, 3, 4, 5]
    assert true[1].tolist() == clash[1].tolist() == [0, 1, 3, 4, 6, 7]


def test_the_collector_is_left_as_it_was():
    import gc
    gc.disable()
    try:
        with tables.no_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with tables.no_collection():
        assert not gc.isenabled()
    assert gc.isenabled()


RUNS = {"a": {"q1": {"d1": 2.0, "d2": 1.0, "d3": 1.0}, "q2": {"d1": 1.0}},
        "b": {"q1": {"d2": 2.0, "d1": 1.0}, "q3": {"d9": 1.0}},
        "c": {"q1": {"d3": 1.0}, "q2": {"d4": 3.0, "d5": 2.0}}}
QRELS = {"q1": {"d1": 1}, "q2": {"d4": 0}}


@pytest.mark.parametrize("pairs,rbo,depth", [("all", "RBO(p=0.9)", 2), ("first", None, 5),
                                             ("all", "RBO(p=0.9)@2", 1)])
def test_the_count_is_what_the_page_holds(pairs, rbo, depth):
    data = build_data(QRELS, RUNS, measures="P@1", depth=depth, pairs=pairs, rbo=rbo)
    plan = page_data.make_plan("P@1", 1, rbo=rbo)
    rankings = page_data._rankings(RUNS)
    count = page_data.page_entries(plan, rankings, to_qrels(QRELS).qcodes, depth, pairs)
    assert count["rankings"] == sum(len(idx) for run in data["rank"] for idx in run)
    assert count["values"] == sum(len(per_query) for run in data["values"] for per_query in run)
    present = [m is not None for m in data["pair_measures"]]
    assert count["pairs"] == sum(len(vals) for row in data["pairs"].values()
                                 for vals, here in zip(row, present, strict=True) if here)
    assert count["pairs"] > 0 and count["rankings"] > 0


def test_a_page_over_its_budget_is_refused_before_any_work(monkeypatch, tmp_path, capsys):
    def no_work(*args, **kwargs):
        raise AssertionError("evaluated a page over its budget")
    monkeypatch.setattr(page_data, "evaluate", no_work)
    # 3 runs: 3 + 2 + 3 ranked documents at depth 2 (q1 of a and b, q2 of a and c), 2 queries x 5 values x 3
    # runs, 3 pairs x 2 measures x 2 queries
    with pytest.raises(ParameterError, match=r"would hold 50 numbers, more than max_entries=49: 8 ranked "
                                             r"documents \(depth 2\), 30 per-query values, 12 MED and RBO"):
        build_data(QRELS, RUNS, measures="P@1", depth=2, max_entries=49)
    with pytest.raises(ParameterError, match="max_entries"):
        build_data(QRELS, RUNS, max_entries=0)
    qrels, runs = VASWANI / "qrels", [str(VASWANI / "bm25_round1.run.gz"), str(VASWANI / "minilm_rerank.run.gz")]
    out = tmp_path / "page.html"
    assert cli.main(["explore", str(qrels), *runs, "--max-entries", "1000", "-o", str(out)]) == 2
    assert "more than max_entries=1,000" in capsys.readouterr().err and not out.exists()
