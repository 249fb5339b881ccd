"""NRG in pt.Experiment: every system scored against the other systems of the same experiment, and
against the best run of every other group (the recipe of docs/nrg.md and README)."""
import pandas as pd
import pytest

import ir_measures
import ir_rbstar

pt = pytest.importorskip("pyterrier")

TOPICS = pd.DataFrame({"qid": ["1", "2"], "query": ["one", "two"]})
QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["a", "b", "c", "d", "e"],
                      "label": [2, 1, 0, 1, 1]})


def results(ranking):
    rows = [(q, d, float(len(docs) - i), i) for q, docs in ranking.items() for i, d in enumerate(docs)]
    return pd.DataFrame(rows, columns=["qid", "docno", "score", "rank"])


SYSTEMS = {"bm25": results({"1": ["a", "c", "b"], "2": ["d", "x"]}),
           "bm25_rm3": results({"1": ["a", "b", "c"], "2": ["x", "d"]}),
           "dense": results({"1": ["b", "a"], "2": ["e", "d"]})}
TEAMS = {"bm25": "lexical", "bm25_rm3": "lexical", "dense": "neural"}


def expected(name, prior_names, k=10):
    """NRG of one system against named others, through ir_measures with a plain registered group."""
    ir_rbstar.register_runs("expected", {n: SYSTEMS[n] for n in prior_names})
    m = ir_rbstar.parse(f"NRG(prior='expected')@{k}")[0]
    qrels = QRELS.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    run = SYSTEMS[name].rename(columns={"qid": "query_id", "docno": "doc_id"})
    return ir_measures.calc_aggregate([m], qrels, run)[m]


def test_every_system_against_the_others_in_one_experiment():
    ir_rbstar.register_runs("experiment", SYSTEMS)
    table = pt.Experiment(list(SYSTEMS.values()), TOPICS, QRELS, names=list(SYSTEMS),
                          eval_metrics=ir_rbstar.parse("nDCG@10 NRG(prior='experiment')@10 UniqueRel(prior='experiment')@10"))
    got = table.set_index("name")["NRG(prior='experiment')@10"]
    for name in SYSTEMS:
        others = [n for n in SYSTEMS if n != name]
        assert got[name] == pytest.approx(expected(name, others), abs=1e-12)
    unique = table.set_index("name")["UniqueRel(prior='experiment')@10"]
    assert unique["dense"] == 0.5          # e (query 2) is found by no other system; b is
    assert unique["bm25"] == 0.0


def test_every_system_against_the_best_run_of_every_other_group():
    best = ir_rbstar.nrg.best_per_team(SYSTEMS, TEAMS, QRELS, "nDCG@10")
    ir_rbstar.register_runs("by-team", SYSTEMS, teams=TEAMS, best=best)
    table = pt.Experiment(list(SYSTEMS.values()), TOPICS, QRELS, names=list(SYSTEMS),
                          eval_metrics=ir_rbstar.parse("nDCG@10 NRG(prior='by-team')@10"))
    got = table.set_index("name")["NRG(prior='by-team')@10"]
    assert got["bm25"] == pytest.approx(expected("bm25", ["dense"]), abs=1e-12)
    assert got["bm25_rm3"] == pytest.approx(expected("bm25_rm3", ["dense"]), abs=1e-12)
    assert got["dense"] == pytest.approx(expected("dense", [best["lexical"]]), abs=1e-12)
    ndcg = table.set_index("name")["nDCG@10"]
    assert best["lexical"] == max(["bm25", "bm25_rm3"], key=lambda n: ndcg[n])
