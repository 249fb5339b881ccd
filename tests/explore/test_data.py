"""The explorer page's data (ir_rbstar.explore.build_data), checked without a browser: its per-query values
are ir_measures.iter_calc's, its rankings the runs' top documents in trec_eval order with the qrels' grades
and the float32 tie groups, its intervals the report's (ir_rbstar.stats.mean_intervals); the page is one file with
nothing to fetch, and the command line writes it."""
import json
import re

import numpy as np
import pytest

import ir_rbstar
from ir_rbstar import cli
from ir_rbstar.errors import ParameterError
from ir_rbstar.explore import build_data, explore, render
from ir_rbstar.explore.plan import make_plan
from ir_rbstar.explore.text import first_lines
from ir_rbstar.stats import mean_interval
from tests.explore import expected
from tests.helpers import VASWANI

RUNS = {"bm25_round1": VASWANI / "bm25_round1.run.gz", "minilm": VASWANI / "minilm_rerank.run.gz"}
QRELS = VASWANI / "qrels"
DEPTH = 15


@pytest.fixture(scope="module")
def data():
    return build_data(str(QRELS), {k: str(v) for k, v in RUNS.items()}, measures="nDCG@10 P@5", depth=DEPTH,
                      docs=str(VASWANI / "doc-text.trec.gz"), queries=str(VASWANI / "queries.tsv"))


@pytest.fixture(scope="module")
def qrels():
    return expected.read_qrels(QRELS)


def test_measures_of_the_page(data):
    assert data["measures"] == ["nDCG@10", "P@5", "nDCG_TA(stat='min')@10", "nDCG_TA(stat='max')@10",
                                "RBP(p=0.8)", "RBP_res(p=0.8)"]
    assert data["primary"] == "nDCG@10" and data["asked"] == ["nDCG@10", "P@5"]
    assert data["tie"] == ["nDCG_TA(stat='min')@10", "nDCG_TA(stat='max')@10"]
    assert data["pair_measures"] == ["MED_nDCG@10", "RBO(p=0.9)"]
    assert list(data["pairs"]) == ["0,1"]              # symmetric measures: each pair evaluated once
    assert len(data["queries"]) == 93 and data["queries"][:3] == ["1", "2", "3"]


def test_values_are_iter_calcs(data, qrels):
    for r, (name, path) in enumerate(RUNS.items()):
        run = ir_rbstar.read_run(str(path))
        for m, label in enumerate(data["measures"]):
            want = expected.per_query(label, qrels, run)
            got = dict(zip(data["queries"], data["values"][r][m], strict=True))
            assert set(got) == set(want), label
            for q, v in want.items():
                assert got[q] == pytest.approx(v, abs=1e-12), (name, label, q)


def test_pair_values_are_iter_calcs_with_the_other_run_as_ref(data, qrels):
    """Each pair is evaluated once, the run listed first as the run and the other as ``ref``."""
    a, b = (ir_rbstar.read_run(str(p)) for p in RUNS.values())
    for k, label in enumerate(data["pair_measures"]):
        with_ref = label.replace(")", ",ref='other')", 1) if "(" in label else label.replace("@", "(ref='other')@", 1)
        measure = with_ref
        want = expected.per_query(measure, qrels, a, refs={"other": b})
        got = dict(zip(data["queries"], data["pairs"]["0,1"][k], strict=True))
        for q in want:
            assert got[q] == pytest.approx(want[q], abs=1e-12), (label, q)


def test_a_cutoff_on_rbo_stores_both_orders():
    """RBO@k cuts the evaluated run only, so RBO(A, ref=B)@k and RBO(B, ref=A)@k differ: both are kept."""
    runs = {k: ir_rbstar.read_run(str(v)) for k, v in RUNS.items()}
    qrels = expected.read_qrels(QRELS)
    data = build_data(qrels, runs, depth=3, rbo="RBO(p=0.9)@50")
    assert sorted(data["pairs"]) == ["0,1", "1,0"]
    for key, (run, ref) in {"0,1": ("bm25_round1", "minilm"), "1,0": ("minilm", "bm25_round1")}.items():
        want = expected.per_query("RBO(p=0.9,ref='other')@50", qrels, runs[run], refs={"other": runs[ref]})
        got = dict(zip(data["queries"], data["pairs"][key][1], strict=True))
        assert all(abs(got[q] - want[q]) < 1e-12 for q in want), key
    assert data["pairs"]["0,1"][1] != data["pairs"]["1,0"][1]


def test_pairs_of_the_first_run_mixing_both_ways_of_computing_them():
    """RBO(p=0.9) is computed for every pair at once (ir_rbstar.matrices), MED_RBP pair by pair (med.pairwise):
    with ``pairs='first'`` both give the first run against each other run, iter_calc's values with ``ref``
    (small runs with ties, a query one run does not answer, an unjudged document)."""
    qrels = {"1": {"a": 1, "b": 0, "c": 1}, "2": {"d": 1, "e": 1}, "3": {"f": 1}}
    runs = {"x": {"1": {"a": 3.0, "b": 2.0, "c": 2.0, "z": 1.0}, "2": {"d": 1.0, "e": 1.0}},
            "y": {"1": {"c": 2.0, "a": 2.0, "b": 1.0}, "3": {"f": 1.0, "d": 0.5}},
            "w": {"1": {"z": 5.0, "b": 4.0}, "2": {"e": 2.0, "y": 2.0, "d": 1.0}, "3": {"g": 1.0}}}
    data = build_data(qrels, runs, measures="P@2", depth=2, pairs="first", med="MED_RBP(p=0.8)")
    assert list(data["pairs"]) == ["0,1", "0,2"]
    names = list(runs)
    for key in data["pairs"]:
        ref = names[int(key[-1])]
        for k, measure in enumerate(["MED_RBP(p=0.8,ref='other')", "RBO(p=0.9,ref='other')"]):
            want = expected.per_query(measure, qrels, runs["x"], refs={"other": runs[ref]})
            got = dict(zip(data["queries"], data["pairs"][key][k], strict=True))
            assert set(want) == set(got) and all(abs(got[q] - want[q]) < 1e-12 for q in want), (key, measure)


def test_a_grade_above_the_pair_measures_scale_is_an_error_naming_the_measure():
    from ir_rbstar.errors import GradeScaleError
    qrels = {"1": {"a": 2, "b": 1}, "2": {"c": 0}}
    runs = {"x": {"1": {"a": 3.0, "b": 2.0}, "2": {"c": 1.0}}, "y": {"1": {"b": 3.0, "a": 2.0}, "2": {"c": 1.0}}}
    with pytest.raises(GradeScaleError, match=r"MED_nDCG\(ref='x'\)@10: query '1' judges document 'a' with grade 2"):
        build_data(qrels, runs, med="MED_nDCG(max_rel=1)@10", depth=3)


def test_means_and_intervals(data):
    """The page's intervals are the report's for the same values (ir_rbstar.report.markdown.mean_intervals:
    stats.mean_intervals, BCa within the measure's range), inside the range of the values."""
    import pandas as pd
    from ir_rbstar.report.catalogue import _parse_columns
    from ir_rbstar.report.markdown import mean_intervals
    columns = _parse_columns(data["measures"], None)
    frames = [pd.DataFrame({label: data["values"][r][m] for m, label in enumerate(data["measures"])},
                           index=pd.Index(data["queries"], name="query_id")) for r in range(len(data["runs"]))]
    per_query = pd.concat(frames, keys=data["runs"], names=["run", "query_id"])
    report = mean_intervals(per_query, data["runs"], columns)
    for r, run in enumerate(data["runs"]):
        for m, label in enumerate(data["measures"]):
            values = np.array(data["values"][r][m], dtype=float)
            mean, low, high, n = data["means"][r][m]
            assert n == 93 and mean == pytest.approx(values.mean(), abs=1e-12)
            assert (low, high) == pytest.approx(report[(label, run)], abs=1e-12), (run, label)
            assert values.min() <= low <= mean <= high <= values.max()       # within the measure's range
    # BCa, not the percentile interval the page showed before (they differ on skewed values)
    values = np.array(data["values"][0][data["measures"].index("RBP_res(p=0.8)")], dtype=float)
    pct = mean_interval(values, method="percentile", seed=0)
    assert (pct.low, pct.high) != pytest.approx(tuple(data["means"][0][data["measures"].index("RBP_res(p=0.8)")][1:3]),
                                                abs=1e-6)


def test_rankings_grades_and_ties(data, qrels):
    for r, path in enumerate(RUNS.values()):
        by_query = dict(tuple(expected.read_run(path).groupby("query_id", sort=False)))
        for qi, q in enumerate(data["queries"]):
            frame = by_query[q]
            docs = [data["docs"][qi][d] for d in data["rank"][r][qi]]
            assert docs == expected.top(frame, q, DEPTH)
            assert data["length"][r][qi] == int((frame["query_id"] == q).sum())
            grades = [data["grades"][qi][d] for d in data["rank"][r][qi]]
            assert grades == [qrels.get(q, {}).get(d) for d in docs]           # None: unjudged
            want = [g for g in expected.tie_groups(frame, q) if g[0] < DEPTH]
            assert data["ties"][r][qi] == want
    assert any(data["ties"][0][qi] for qi in range(93))                       # bm25_round1 has ties


def test_document_and_query_text(data):
    qi = data["queries"].index("2")
    assert data["qtext"][qi].startswith("MATHEMATICAL ANALYSIS AND DESIGN")
    doc = data["docs"][qi].index(data["docs"][qi][0])
    assert data["text"][qi][doc] and len(data["text"][qi][doc]) <= 200
    assert "all" in data["text_note"]
    assert first_lines("<p>one  two</p>\n\n three\nfour\n", lines=2) == "one two\nthree"
    assert first_lines("x" * 500, chars=10) == "x" * 9 + "\u2026"


def test_without_text_a_note(tmp_path):
    qrels = {"q1": {"d1": 1, "d2": 0}}
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d3": 1.0}}}
    data = build_data(qrels, runs, depth=5)
    assert data["text"] is None and "ids only" in data["text_note"]
    assert data["grades"][0] == [1, 0, None] and data["rank"] == [[[0, 1]], [[1, 2]]]
    tsv = tmp_path / "docs.tsv"
    tsv.write_text("d1\tfirst doc\nd3\tthird\tdoc\n")
    data = build_data(qrels, runs, depth=5, docs=str(tsv))
    assert data["text"] == [["first doc", None, "third\ndoc"]] and "1 of the 3" in data["text_note"]


def test_page_is_one_file_with_nothing_to_fetch():
    qrels = {"q1": {"</script><b>x": 1}}
    runs = {"a": {"q1": {"</script><b>x": 2.0, "<!--d": 1.0}}, "b": {"q1": {"<!--d": 2.0}}}
    page = render(build_data(qrels, runs, title="t </title> & <b>"))
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page)
    fetchable = page.replace("'http://www.w3.org/2000/svg'", "")             # the SVG namespace, not a resource
    assert "http://" not in fetchable and "https://" not in fetchable
    assert page.count("</script>") == 2 and "<title>t &lt;/title&gt; &amp; &lt;b&gt;</title>" in page
    body = page.split('<script type="application/json" id="explore-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(body)["docs"] == [["</script><b>x", "<!--d"]]


def test_plan():
    plan = make_plan("RBP(p=0.9,max_rel=3)@20 nDCG@10", max_rel=3)       # RBP's own residual
    assert (plan.tie_min, plan.res, plan.res_p) == ("RBP_TA(p=0.9,max_rel=3,stat='min')@20", "RBP_res(p=0.9)@20", 0.9)
    assert str(plan.med) == "MED_RBP(p=0.9)@20"
    assert str(make_plan("AP(rel=2)@100", max_rel=3).med) == "MED_AP(rel=2)@100"
    plan = make_plan("nDCG@10", max_rel=3)                                      # else RBP's, whole ranking
    assert (plan.res_value, plan.res, plan.res_p) == ("RBP(p=0.8,max_rel=3)", "RBP_res(p=0.8)", 0.8)
    assert str(make_plan("P(rel=2)@10", max_rel=3).med) == "MED_P(rel=2)@10"
    assert make_plan("ERR@20", max_rel=3).tie_min is None
    with pytest.raises(ParameterError, match="ref"):
        make_plan("RBO(ref='x')", max_rel=1)
    with pytest.raises(ParameterError, match="rbo"):
        make_plan("nDCG@10", max_rel=1, rbo="nDCG@10")


def test_bad_input():
    with pytest.raises(ParameterError, match="at least two"):
        build_data({"q1": {"d1": 1}}, {"a": {"q1": {"d1": 1.0}}})
    with pytest.raises(ParameterError, match="depth"):
        build_data({"q1": {"d1": 1}}, {"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d1": 1.0}}}, depth=0)


def test_command_line(tmp_path, capsys):
    out = tmp_path / "page.html"
    argv = ["explore", str(QRELS), str(RUNS["bm25_round1"]), str(RUNS["minilm"]), "-m", "P@10", "--depth", "5",
            "--rbo", "none", "-o", str(out)]
    assert cli.main(argv) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert "2 runs, 93 queries, depth 5" in capsys.readouterr().out
    assert cli.main(["explore", str(QRELS), str(RUNS["minilm"]), "-o", str(out)]) == 2
    assert cli.main(["explore", str(QRELS), str(RUNS["minilm"]), str(tmp_path / "no.run"), "-o", str(out)]) == 2
    assert "run file not found" in capsys.readouterr().err


def test_python_function_writes_the_page(tmp_path):
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    data = explore({"q1": {"d1": 1}}, runs, tmp_path / "p.html", measures=["P@1"], rbo=None)
    assert data["measures"] == ["P@1", "P_TA(stat='min')@1", "P_TA(stat='max')@1", "RBP(p=0.8)", "RBP_res(p=0.8)"]
    # a: d1 relevant, d2 unjudged (RBP 0.2; residual 0.16 + the tail 0.8^2); b: d2 unjudged, d1 relevant
    assert np.allclose(data["values"], [[[1.0], [1.0], [1.0], [0.2], [0.8]], [[0.0], [0.0], [0.0], [0.16], [0.84]]])
    assert data["pair_measures"] == ["MED_P@1", None]
    assert (tmp_path / "p.html").stat().st_size > 1000


def test_pairs_of_the_first_run_only():
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}, "c": {"q1": {"d3": 1.0}}}
    data = build_data({"q1": {"d1": 1}}, runs, pairs="first")
    assert sorted(data["pairs"]) == ["0,1", "0,2"]
    with pytest.raises(ParameterError, match="pairs"):
        build_data({"q1": {"d1": 1}}, runs, pairs="some")


def test_auxiliary_judgments_are_shown_not_evaluated():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d9": 1}}
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0, "d3": 0.5}}, "b": {"q1": {"d3": 2.0}, "q2": {"d9": 1.0}}}
    aux = {"q1": {"d3": 2, "d1": 0}}
    plain = build_data(qrels, runs, measures="P@3")
    data = build_data(qrels, runs, measures="P@3", aux=aux)
    assert data["docs"][0] == ["d1", "d2", "d3"]
    assert data["grades"][0] == [1, 0, None] and data["aux"][0] == [0, None, 2] and data["aux"][1] == [None]
    assert plain["aux"] is None and data["values"] == plain["values"]          # never evaluated
    # a query the run does not answer: an empty ranking, the value of an empty run
    assert data["rank"][0][1] == [] and data["length"][0][1] == 0
    assert data["values"][0][0] == [pytest.approx(1 / 3), 0.0]


def test_document_text_from_an_ir_datasets_id(monkeypatch):
    """``docs='irds:<id>'``: the documents shown are asked of the dataset's docs_store (here a stand-in:
    no network, no ir_datasets home); a store that cannot serve them is a DatasetUnavailableError."""
    from collections import namedtuple

    import ir_rbstar.datasets
    from ir_rbstar.errors import DatasetUnavailableError
    Doc = namedtuple("Doc", ["doc_id", "title", "text"])
    asked = []

    class Store:
        def get_many(self, ids):
            asked.append(sorted(ids))
            return {d: Doc(d, f"title {d}", f"body of {d}\nsecond line") for d in ids if d != "d3"}

    class Dataset:
        def docs_store(self):
            return Store()

    monkeypatch.setattr(ir_rbstar.datasets, "load_dataset", lambda spec: Dataset())
    qrels = {"q1": {"d1": 1}}
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d3": 2.0}}}
    data = build_data(qrels, runs, docs="irds:some/collection")
    assert asked == [["d1", "d2", "d3"]]                                   # only the documents shown
    assert data["text"] == [["title d1\nbody of d1", "title d2\nbody of d2", None]]
    assert "irds:some/collection" in data["text_note"] and "1 of the 3" in data["text_note"]

    class Broken:
        def docs_store(self):
            raise FileNotFoundError("collection.tsv")

    monkeypatch.setattr(ir_rbstar.datasets, "load_dataset", lambda spec: Broken())
    with pytest.raises(DatasetUnavailableError, match="not available offline"):
        build_data(qrels, runs, docs="irds:some/collection")


def test_missing_text_files_are_errors(tmp_path, capsys):
    out = str(tmp_path / "page.html")
    argv = ["explore", str(QRELS), str(RUNS["bm25_round1"]), str(RUNS["minilm"]), "--depth", "2", "-o", out]
    assert cli.main(argv + ["--docs", str(tmp_path / "no-docs.trec")]) == 2
    assert "docs file not found" in capsys.readouterr().err
    bad = tmp_path / "queries.tsv"
    bad.write_text("1 no tab here\n")
    assert cli.main(argv + ["--queries", str(bad)]) == 2
    assert "line 1" in capsys.readouterr().err

