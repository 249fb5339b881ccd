"""The report's one per-query table (ir_rbstar/report/table.py) against independent doors.

The table is built once, over the judged queries only, by this package's provider (ir_measures' staples
included). Checked here on a small graded collection whose runs also rank queries without judgments
(as TREC DL runs do): every per-query value and every mean equals ``ir_measures.iter_calc`` /
``calc_aggregate`` on the unrestricted runs (the staples through pytrec_eval, ir_measures' default
provider for them; this package's measures through ir_measures' pipeline), the runs' unjudged queries
change nothing, and the effort/gain picture's values taken from the table are those the plotting
module computes from the runs."""
import random

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import report
from ir_rbstar.io import to_qrels, to_ranking
from ir_rbstar.report.table import effort_gain_values, judged_only

STAPLES = ["nDCG@10", "P@10", "AP", "R@100"]
OURS = ["nDCG_TA@10", "P_TA@10", "AP_TA", "RBP(p=0.8,max_rel=3)", "RBP_res(p=0.8)", "Twist"]


def collection(seed=7, n_runs=4, judged=8, unjudged=5, depth=40):
    rng = random.Random(seed)
    qrels = {f"q{q}": {f"d{d}": rng.choice([0, 0, 0, 1, 2, 3]) for d in rng.sample(range(80), 25)}
             for q in range(judged)}
    qrels["q0"] = {d: 0 for d in qrels["q0"]}               # a judged query without a relevant document
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in range(judged + unjudged):
            if r == 1 and q == 2:
                continue                                  # a judged query the run does not answer
            docs = rng.sample(range(80), depth)
            run[f"q{q}"] = {f"d{d}": float(round(rng.uniform(0, 10), rng.choice([0, 2]))) for d in docs}
        runs[f"run{r}"] = run
    return qrels, runs


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    qrels, runs = collection()
    out = tmp_path_factory.mktemp("pipeline")
    table = report.build_report(qrels, runs, out, baseline="run0", measures=" ".join(STAPLES + OURS),
                                pictures=False)
    return qrels, runs, table, pd.read_csv(out / "means.tsv", sep="\t"), (out / "report.md").read_text()


def test_per_query_values_equal_iter_calc(made):
    qrels, runs, table, _, _ = made
    measures = [ir_measures.parse_measure(m) for m in STAPLES] + [ir_rbstar.parse(m)[0] for m in OURS]
    assert sorted(set(table.index.get_level_values("query_id"))) == sorted(qrels)      # judged queries only
    for name, run in runs.items():
        got = table.xs(name, level="run")
        seen = 0
        for metric in ir_measures.iter_calc(measures, qrels, run):
            want = metric.value
            value = got.at[str(metric.query_id), str(metric.measure)]
            assert value == pytest.approx(want, abs=1e-12), (name, metric)
            seen += 1
        assert seen == len(measures) * len(qrels)


def test_staples_are_pytrec_evals_numbers(made):
    """nDCG@10, P@10, AP, R@100 come from this package's provider: the same numbers as pytrec_eval's."""
    qrels, runs, table, _, _ = made
    import pytrec_eval
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P.10", "map", "recall.100"})
    names = {"ndcg_cut_10": "nDCG@10", "P_10": "P@10", "map": "AP", "recall_100": "R@100"}
    for name, run in runs.items():
        got = table.xs(name, level="run")
        for query, values in evaluator.evaluate(run).items():
            for key, label in names.items():
                assert got.at[query, label] == pytest.approx(values[key], abs=1e-12)


def test_means_equal_calc_aggregate(made):
    qrels, runs, _, means, _ = made
    for name, run in runs.items():
        for text in STAPLES + OURS:
            m = ir_measures.parse_measure(text) if text in STAPLES else ir_rbstar.parse(text)[0]
            want = ir_measures.calc_aggregate([m], qrels, run)[m]
            got = means[(means["run"] == name) & (means["measure"] == str(m))]["mean"].item()
            assert got == pytest.approx(want, abs=1e-12)


def test_unjudged_queries_change_nothing(tmp_path):
    qrels, runs = collection(seed=11)
    only = {name: {q: docs for q, docs in run.items() if q in qrels} for name, run in runs.items()}
    a = report.build_report(qrels, runs, tmp_path / "a", baseline="run0", measures="nDCG@10 RBP(p=0.8,max_rel=3)",
                            pictures=False)
    b = report.build_report(qrels, only, tmp_path / "b", baseline="run0", measures="nDCG@10 RBP(p=0.8,max_rel=3)",
                            pictures=False)
    pd.testing.assert_frame_equal(a, b, check_exact=True, check_like=False)
    for name in ("distance_med.tsv", "distance_rbo.tsv"):
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a" / name, sep="\t"),
                                      pd.read_csv(tmp_path / "b" / name, sep="\t"))


def test_judged_only_keeps_the_rows_of_the_judged_queries():
    qrels, runs = collection(seed=3)
    q = to_qrels(qrels)
    ranking = to_ranking(runs["run2"])
    kept = judged_only(ranking, q.qcodes)
    frame = lambda r: ir_rbstar.io.ranking_frame(r).reset_index(drop=True)      # noqa: E731
    want = frame(ranking)
    want = want[want["query_id"].isin(list(qrels))].reset_index(drop=True)
    pd.testing.assert_frame_equal(frame(kept), want)
    assert judged_only(kept, q.qcodes) is kept


def test_effort_gain_values_are_the_plotted_points(made):
    pytest.importorskip("matplotlib")
    from ir_rbstar.plots import effort_gain_points
    qrels, runs, table, _, _ = made
    got = effort_gain_values(table, to_qrels(qrels))
    want = effort_gain_points(qrels, runs, gain="AP")
    assert str(got.attrs["gain"]) == str(want.attrs["gain"])
    key = ["run", "query_id"]
    got = got.sort_values(key).reset_index(drop=True)
    want = want.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(got[key], want[key].astype(got[key].dtypes.to_dict()))
    np.testing.assert_allclose(got[["twist", "gain"]].to_numpy(), want[["twist", "gain"]].to_numpy(), atol=1e-12)
    assert "q0" not in set(got["query_id"])                 # no relevant document: no Twist point


def test_the_report_says_which_queries_it_evaluates(made):
    qrels, runs, _, _, text = made
    rows = sum(len(docs) for run in runs.values() for docs in run.values())
    left_out = sum(len(docs) for run in runs.values() for q, docs in run.items() if q not in qrels)
    assert f"over the {len(qrels)} queries of the qrels" in text
    share = f"{left_out / rows:.0%}"
    assert f"rank 5 queries without judgments: their {left_out:,} rows ({share} of the {rows:,} rows" in text


def test_same_ranking_test_of_nrg_priors_equals_a_plain_comparison():
    """NRG's per-query "is this prior the run itself" test (signatures first, then row by row; cached per
    pair) against a plain-Python comparison of the lists, both orders of the pair."""
    from ir_rbstar.families.nrg import same_per_query
    rng = random.Random(5)
    base = {f"q{q}": {f"d{d}": float(20 - i) for i, d in enumerate(rng.sample(range(40), 12))} for q in range(9)}
    other = {q: dict(docs) for q, docs in base.items()}
    other["q1"] = {d: -s for d, s in base["q1"].items()}                   # same documents, reversed
    other["q2"] = dict(list(base["q2"].items())[:11])                       # one document fewer
    del other["q3"]                                                         # not answered
    other["q4"] = {("x" + d if i == 5 else d): s for i, (d, s) in enumerate(base["q4"].items())}
    a, b = to_ranking(base), to_ranking(other)
    universe = to_qrels({q: {"d0": 1} for q in list(base) + ["q99"]}).qcodes
    names = ir_rbstar.io.QUERY_IDS.decode(universe)

    def plain(x, y, q):
        order = lambda run: [d for d, _ in sorted(run.get(q, {}).items(), key=lambda t: (-t[1], t[0]))]  # noqa
        return order(x) == order(y)

    want = np.array([plain(base, other, str(q)) for q in names])
    assert want.sum() == 6                              # q0, q5..q8 are the same, and q99 is in neither run
    np.testing.assert_array_equal(same_per_query(a, b, universe), want)
    np.testing.assert_array_equal(same_per_query(b, a, universe), same_per_query(a, b, universe))


def test_report_explore_writes_the_explorer_page_with_the_reports_values(tmp_path):
    """``--explore``: explore.html sits beside the report, results.html links to it, the baseline comes first
    and the page's per-query nDCG@10 of every run equals the report's per_query.tsv."""
    import json

    from ir_rbstar.cli import main as cli_main
    out = tmp_path / "r"
    assert cli_main(["report", "--demo", "-O", str(out), "--explore", "--no-pictures", "-q"]) == 0
    assert '<a href="explore.html">' in (out / "results.html").read_text(encoding="utf-8")
    page = (out / "explore.html").read_text(encoding="utf-8")
    data = json.loads(page.split('<script type="application/json" id="explore-data">', 1)[1].split("</script>", 1)[0])
    assert data["runs"][0] == "bm25"                                   # the demo's baseline
    table = pd.read_csv(out / "per_query.tsv", sep="\t", dtype={"query_id": str})
    m = data["measures"].index("nDCG@10")
    for r, run in enumerate(data["runs"]):
        mine = table[table["run"] == run].set_index("query_id")["nDCG@10"]
        got = dict(zip(data["queries"], data["values"][r][m], strict=True))
        assert set(got) == set(mine.index)
        for q, v in got.items():
            assert v == pytest.approx(mine[q], abs=1e-12), (run, q)
