"""The tie-aware family and the package's trec_eval-order path on trec_eval's own test files.

Fixtures (tests/fixtures/trec_eval, copied from NIST's trec_eval repository): qrels.test, results.test
(3 queries x 500 documents, 9 tied score pairs/triples) and trec_eval's expected outputs out.test.a
(summary) and out.test.aq (per query), printed to 4 decimals.
"""
import pytest

import ir_measures
import ir_rbstar  # noqa: F401
from tests.helpers import FIXTURES
from tests.oracles import ties as O

HERE = FIXTURES / "trec_eval"
QRELS = str(HERE / "qrels.test")
RUN = str(HERE / "results.test")
OURS = ir_measures.providers.registry["ir_rbstar"]
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def expected(name="out.test.aq"):
    """{(measure, qid): value} from a trec_eval output file."""
    out = {}
    for line in (HERE / name).read_text().splitlines():
        measure, qid, value = line.split()
        try:
            out[(measure, qid)] = float(value)
        except ValueError:
            pass
    return out


def trec_names():
    """trec_eval measure name -> ir_measures measure (tie-oblivious)."""
    names = {"map": ir_measures.AP, "recip_rank": ir_measures.RR, "ndcg": ir_measures.nDCG}
    for k in CUTS:
        names[f"P_{k}"] = ir_measures.P @ k
        names[f"recall_{k}"] = ir_measures.R @ k
        names[f"map_cut_{k}"] = ir_measures.AP @ k
        names[f"ndcg_cut_{k}"] = ir_measures.nDCG @ k
    return names


def tie_aware(m):
    """The _TA twin of an ir_measures measure."""
    return ir_measures.measures.registry[m.NAME + "_TA"](**m.params)


def values(measures, qrels, run, provider=None):
    calc = provider if provider is not None else ir_measures
    return {(str(x.measure), x.query_id): x.value for x in calc.iter_calc(measures, qrels, run)}


def untied_run():
    """results.test with its scores replaced by -(trec_eval rank): the same order, no ties."""
    run = ir_measures.read_trec_run(RUN)
    frame = __import__("pandas").DataFrame(run)
    frame = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    frame["score"] = -frame.groupby("query_id").cumcount().astype(float)
    return frame


def test_fixture_has_ties():
    frame = ir_rbstar.read_run(RUN)
    assert frame.duplicated(["query_id", "score"]).sum() == 10     # 8 pairs and one triple


def test_ordered_path_reproduces_trec_eval_outputs():
    """ir_measures' own measures computed by this package's trec_eval-order path, ties included."""
    exp = expected()
    names = trec_names()
    got = values(list(names.values()), QRELS, RUN, OURS)
    checked = 0
    for trec_name, m in names.items():
        for qid in ("301", "302", "303"):
            assert got[(str(m), qid)] == pytest.approx(exp[(trec_name, qid)], abs=5e-5), (trec_name, qid)
            checked += 1
        mean = sum(got[(str(m), q)] for q in ("301", "302", "303")) / 3
        assert mean == pytest.approx(exp[(trec_name, "all")], abs=5e-5), trec_name
    assert checked == 3 * (3 + 4 * len(CUTS))


def test_summary_values_of_the_issue():
    agg = OURS.calc_aggregate([ir_measures.AP, ir_measures.P @ 10, ir_measures.RR, ir_measures.nDCG], QRELS, RUN)
    assert round(agg[ir_measures.AP], 4) == 0.1785
    assert round(agg[ir_measures.P @ 10], 4) == 0.3000
    assert round(agg[ir_measures.RR], 4) == 0.4064
    assert round(agg[ir_measures.nDCG], 4) == 0.4021


def test_tie_aware_without_ties_equals_trec_eval():
    """With the ties broken by the scores themselves, every _TA measure reproduces trec_eval's outputs
    (4 decimals) and pytrec_eval (1e-9)."""
    run = untied_run()
    exp = expected()
    names = trec_names()
    qrels = ir_rbstar.read_qrels(QRELS)
    got = values([tie_aware(m) for m in names.values()], qrels, run)
    ref = values(list(names.values()), qrels, run)           # pytrec_eval
    for trec_name, m in names.items():
        ta = str(tie_aware(m))
        for qid in ("301", "302", "303"):
            assert got[(ta, qid)] == pytest.approx(exp[(trec_name, qid)], abs=5e-5), (trec_name, qid)
            assert got[(ta, qid)] == pytest.approx(ref[(str(m), qid)], abs=1e-9), (trec_name, qid)
    agg = ir_measures.calc_aggregate([ir_rbstar.AP_TA, ir_rbstar.P_TA @ 10, ir_rbstar.RR_TA, ir_rbstar.nDCG_TA],
                                     qrels, run)
    assert [round(agg[m], 4) for m in (ir_rbstar.AP_TA, ir_rbstar.P_TA @ 10, ir_rbstar.RR_TA, ir_rbstar.nDCG_TA)] \
        == [0.1785, 0.3000, 0.4064, 0.4021]


def test_tie_aware_with_ties_equals_brute_force():
    """On the tied file itself: the mean over all 64 x 4 x 6 orderings of the tie groups."""
    frame = ir_rbstar.read_run(RUN)
    qrels_frame = ir_rbstar.read_qrels(QRELS)
    run = {q: dict(zip(g.doc_id, g.score)) for q, g in frame.groupby("query_id")}
    qrels = {q: dict(zip(g.doc_id, g.relevance)) for q, g in qrels_frame.groupby("query_id")}
    specs = [("P", 10, {}), ("R", 100, {}), ("F1", 20, {}), ("AP", None, {}), ("AP", 100, {}),
             ("RR", None, {}), ("nDCG", None, {}), ("nDCG", 10, {}), ("RBP", None, {"p": 0.9, "rel": 1})]
    ms = []
    for name, k, params in specs:
        m = ir_measures.measures.registry[name + "_TA"](**params)
        ms.append((name, k, params, m @ k if k else m))
    got = values([m for *_, m in ms], qrels_frame, frame)
    for name, k, params, m in ms:
        for qid in ("301", "302", "303"):
            want = O.tie_average(name, run[qid], qrels[qid], k=k, **params)
            assert got[(str(m), qid)] == pytest.approx(want, abs=1e-9), (str(m), qid)
