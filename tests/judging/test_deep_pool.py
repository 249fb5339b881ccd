"""nDCG@k from a pool deeper than its cutoff (ir_rbstar/judging/pool.py, strategies.py): the documents ranked only
past rank k are in the pool with no weight; the goals take them after every candidate within the cutoff, those
more runs rank first, then by best rank, the queries whose judged documents already fill the ideal's k places
last; and until one of them is judged they change no priority of the candidates within the cutoff."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_rbstar.judging import build_pool
from ir_rbstar.judging.strategies import choose
from tests.conftest import examples


def _run(ranked):
    return {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in ranked.items()}


RUNS = {
    "A": _run({"q1": ["d1", "d2", "d3", "d4"], "q2": ["e1", "e2", "e3"]}),
    "B": _run({"q1": ["d2", "d1", "d5", "d6"], "q2": ["e1", "e2", "e4"]}),
}


def test_only_ndcg_pools_reach_past_the_cutoff():
    deep = build_pool(RUNS, "nDCG@2", depth=4)
    assert deep.depth == 4
    assert sorted(map(bytes, deep.cand_doc)) == [b"d1", b"d2", b"d3", b"d4", b"d5", b"d6", b"e1", b"e2", b"e3", b"e4"]
    past = np.isin(deep.cand_doc, [b"d3", b"d4", b"d5", b"d6", b"e3", b"e4"])
    assert (deep.W[:, past] == 0).all() and (deep.W[:, ~past] > 0).any(axis=0).all()
    assert (deep.rank[:, past] > 2).any(axis=0).all()
    for measure in ("RBP(p=0.8)@2", "P@2"):
        pool = build_pool(RUNS, measure, depth=4)
        assert pool.depth == 2 and pool.n_candidates == 4


def _names(pool, index):
    return [bytes(pool.cand_doc[i]).decode() for i in index]


def test_the_deeper_documents_come_after_by_best_rank_and_filled_queries_last():
    pool = build_pool(RUNS, "nDCG@2", depth=4)
    judged = np.isin(pool.cand_doc, [b"e1", b"e2"])      # q2's two top documents, both relevant: its ideal is full
    grades = np.where(judged, 1, 0)
    for strategy in ("pairs", "ranking"):
        got = _names(pool, choose(pool, judged, grades, strategy, 8, explain=False).index)
        assert sorted(got[:2]) == ["d1", "d2"], (strategy, got)           # the two that can move A vs B
        assert sorted(got[2:4]) == ["d3", "d5"] and sorted(got[4:6]) == ["d4", "d6"], (strategy, got)
        assert sorted(got[6:]) == ["e3", "e4"], (strategy, got)           # q2: its ideal cannot grow with grade 1
    # with q2's ideal not full (one of its two judged documents not relevant), its rank-3 documents come with q1's
    grades = np.where(pool.cand_doc == b"e2", 0, grades)
    got = _names(pool, choose(pool, judged, grades, "pairs", 8, explain=False).index)
    assert sorted(got[2:6]) == ["d3", "d5", "e3", "e4"], got


def test_a_deeper_document_more_runs_rank_comes_first_then_the_best_rank():
    runs = {"A": _run({"q": ["a", "b", "x", "y"]}), "B": _run({"q": ["b", "a", "z", "y"]}),
            "C": _run({"q": ["a", "b", "w", "v"]})}
    pool = build_pool(runs, "nDCG@2", depth=4)
    judged = np.isin(pool.cand_doc, [b"a", b"b"])
    grades = np.zeros(pool.n_candidates, dtype=np.int64)      # nothing relevant: no ideal is filled
    got = _names(pool, choose(pool, judged, grades, "pairs", 5, explain=False).index)
    assert got[0] == "y" and sorted(got[1:4]) == ["w", "x", "z"] and got[4] == "v", got   # y: two runs, rank 4


@st.composite
def _case(draw):
    docs = [f"d{i}" for i in range(draw(st.integers(3, 9)))]
    runs = {}
    for r in range(draw(st.integers(2, 5))):
        runs[f"r{r}"] = _run({q: draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=len(docs)))
                              for q in ("q1", "q2", "q3")})
    k = draw(st.integers(1, 3))
    return runs, k, draw(st.integers(k + 1, 9)), draw(st.integers(0, 2 ** 16))


@settings(max_examples=examples(60), deadline=None)
@given(_case())
def test_a_deeper_pool_changes_no_priority_within_the_cutoff_until_a_deeper_document_is_judged(case):
    runs, k, depth, seed = case
    top, deep = build_pool(runs, f"nDCG@{k}"), build_pool(runs, f"nDCG@{k}", depth=depth)
    key = lambda pool: [(int(q), bytes(d)) for q, d in zip(pool.cand_query, pool.cand_doc, strict=True)]      # noqa: E731
    where = {c: i for i, c in enumerate(key(deep))}
    at = np.array([where[c] for c in key(top)])            # each top-k candidate's place in the deeper pool
    rng = np.random.default_rng(seed)
    judged = rng.random(top.n_candidates) < 0.5
    grades = np.where(judged, rng.integers(0, 4, top.n_candidates), 0)
    deep_judged = np.zeros(deep.n_candidates, dtype=bool)
    deep_grades = np.zeros(deep.n_candidates, dtype=np.int64)
    deep_judged[at], deep_grades[at] = judged, grades
    for strategy in ("pairs", "ranking"):
        a = choose(top, judged, grades, strategy, top.n_candidates, explain=False)
        b = choose(deep, deep_judged, deep_grades, strategy, deep.n_candidates, explain=False)
        prio_a = dict(zip(a.index.tolist(), a.priority, strict=True))
        prio_b = dict(zip(b.index.tolist(), b.priority, strict=True))
        for i, j in enumerate(at):
            if not judged[i]:
                assert prio_a[i] == prio_b[int(j)], (strategy, i)
        # and the candidates within the cutoff that can move a pair are chosen first, in the same order
        moving = [int(at[i]) for i in a.index if prio_a[int(i)] > 0]
        assert b.index[:len(moving)].tolist() == moving


def test_the_benchmark_simulates_ndcg_from_the_deeper_pool(tmp_path, capsys):
    import importlib

    import pandas as pd

    bench = importlib.import_module("benchmarks.bench_judging")
    assert bench.main(["--quick", "--depth", "20", "--strategies", "pairs,depth", "--out", str(tmp_path)]) == 0
    table = pd.read_csv(tmp_path / "judging_vaswani_depth20.tsv", sep="\t")
    assert set(table["measure"]) == {"nDCG@10"} and set(table["strategy"]) == {"pairs", "depth"}
    _, qrels, paths, _ = next(bench.collections(quick=True))
    runs = {p: p for p in paths}
    from ir_rbstar.io import QUERY_IDS, read_trec_qrels
    queries = list(QUERY_IDS.decode(read_trec_qrels(qrels).qcodes))
    # every round until the pool of the runs' top 20 is judged: its last budget reveals the whole of it
    last = table[table["budget"] == table["budget"].max()]
    assert (last["judged"] == build_pool(runs, "nDCG@10", queries=queries, depth=20).n_candidates).all()
    assert "pool of" in capsys.readouterr().err


def test_the_reason_of_a_deeper_document_says_what_it_can_change():
    pool = build_pool(RUNS, "nDCG@2", depth=4)
    judged = np.isin(pool.cand_doc, [b"d1", b"d2", b"e1", b"e2"])
    grades = np.where(judged, 1, 0)
    choice = choose(pool, judged, grades, "pairs", 1)
    assert _names(pool, choice.index) in (["d3"], ["d5"])
    assert "ranked only past the cutoff (best rank 3)" in choice.reason[0] and "ideal DCG" in choice.reason[0]
