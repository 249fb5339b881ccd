"""The contract "one query, one number, through every door": each problem found by trying the package
as a user would, as a test (each failed before the fix). Residual bounds, trec_eval's order, MED's
budget and malformed files have their own test files (test_residual_bounds.py,
test_trec_eval_order.py, test_med_budget.py, test_input_shapes.py)."""
import io
import subprocess
import sys
from importlib.metadata import entry_points

import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.cli import main as cli_main
from ir_rbstar.errors import GradeScaleError, ParameterError

from tests.helpers import VASWANI

VASWANI_QRELS = str(VASWANI / "qrels")
BM25 = str(VASWANI / "bm25.run.gz")


def values(measures, qrels, run):
    return {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


# 1. Twist's mean depended on what else was in the call -------------------------------------------

def test_twist_mean_is_the_same_alone_mixed_and_in_pt_experiment():
    qrels = pd.DataFrame({"query_id": ["1", "1", "2", "3"], "doc_id": ["a", "b", "c", "d"], "relevance": [3, 1, 1, 3]})
    run = pd.DataFrame({"query_id": ["1", "1", "2", "3"], "doc_id": ["b", "a", "c", "x"], "score": [2.0, 1.0, 1.0, 1.0]})
    twist = ir_rbstar.parse_measure("Twist(rel=3)")              # query 2 has no grade-3 document
    alone = ir_measures.calc_aggregate([twist], qrels, run)[twist]
    for others in (["nDCG@10"], ["AP"], ["RBP(p=0.8,max_rel=3)", "nDCG_TA@10"]):
        mixed = ir_measures.calc_aggregate([twist, *ir_rbstar.parse(others)], qrels, run)
        assert mixed[twist] == pytest.approx(alone, abs=1e-12), others
    pt = pytest.importorskip("pyterrier")
    table = pt.Experiment([run.rename(columns={"query_id": "qid", "doc_id": "docno"})],
                          pd.DataFrame({"qid": ["1", "2", "3"], "query": "x"}),
                          qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}),
                          eval_metrics=ir_rbstar.parse("Twist(rel=3) RBP(p=0.8,max_rel=3) nDCG_TA@10"), names=["r"])
    assert table.loc[0, "Twist(rel=3)"] == pytest.approx(alone, abs=1e-12)


# 2. Graded gains depended on the other queries -----------------------------------------------------

@pytest.mark.parametrize("text", ["RBP(p=0.8,max_rel=3)", "RBP_TA(p=0.8,max_rel=3)@10",
                                  "MED_nDCG(ref='REF',max_rel=3)@10", "MED_ERR(ref='REF',max_rel=3)@10"])
def test_graded_value_of_a_query_does_not_depend_on_the_others(text):
    """Query 1's judgments top at grade 1, query 2's at 3: query 1's value must not change when query 2
    is left out (pt.Experiment(batch_size=1) hands ir_measures one query's qrels at a time)."""
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 3]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"], "score": [2.0, 1.0, 1.0]})
    ir_rbstar.register_run("contract-ref", {"1": {"a": 1.0, "z": 0.5}, "2": {"c": 1.0}})
    try:
        m = ir_rbstar.parse_measure(text.replace("'REF'", "'contract-ref'"))
        full = values([m], qrels, run)
        alone = values([m], qrels[qrels.query_id == "1"], run)
        assert alone[("1", str(m))] == pytest.approx(full[("1", str(m))], abs=1e-12)
    finally:
        ir_rbstar.unregister_run("contract-ref")


def test_grade_above_the_scale_is_an_error_naming_the_query():
    qrels = {"1": {"a": 1}, "2": {"c": 3}}
    run = {"1": {"a": 1.0}, "2": {"c": 1.0}}
    with pytest.raises(GradeScaleError, match=r"query '2' judges document 'c' with grade 3, above max_rel=1"):
        ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.8)"), qrels, run)
    assert ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.8)"), {"1": {"a": 1}}, run)   # grades 0/1: fine
    with pytest.raises(ParameterError, match="give one of them"):
        ir_rbstar.parse("RBP(p=0.8,rel=1,max_rel=3)")


# 7. A documented string gave two numbers (cwl_eval read namedtuples in file order) ---------------

def test_rbp_string_gives_one_number_from_every_input_form():
    run = ir_rbstar.read_run(BM25).sample(frac=1, random_state=1)            # rows out of score order
    qrels = ir_rbstar.read_qrels(VASWANI_QRELS)
    tuples = [ir_measures.ScoredDoc(*row) for row in run.itertuples(index=False)]
    for text in ("RBP(p=0.8,rel=1)", "RBP(p=0.8,rel=1)@1000"):
        m = ir_rbstar.parse_measure(text)
        frame = ir_measures.calc_aggregate([m], qrels, run)[m]
        named = ir_measures.calc_aggregate([m], qrels, tuples)[m]
        assert named == pytest.approx(frame, abs=1e-12) and frame == pytest.approx(0.3859, abs=1e-4)


# 8. NRG counted a run as its own prior ------------------------------------------------------------

def test_a_run_is_never_its_own_prior_whatever_the_other_queries():
    qrels = {"q1": {"a": 1, "b": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    ir_rbstar.register_runs("contract-self", {"copy": {"q1": {"a": 2.0, "b": 1.0}}})   # the run cut to q1
    try:
        got = values(ir_rbstar.parse("NRG(prior='contract-self')@10 UniqueRel(prior='contract-self')@10 "
                                     "TaSC(prior='contract-self')@10"), qrels, run)
        assert got[("q1", "NRG(prior='contract-self')@10")] == pytest.approx(1.0)
        assert got[("q1", "UniqueRel(prior='contract-self')@10")] == 2
        assert got[("q1", "TaSC(prior='contract-self')@10")] == pytest.approx(1.0)
    finally:
        ir_rbstar.unregister_runs("contract-self")


# 6. Command-line input that crashed or was silently accepted ---------------------------------------

def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli_main(list(argv))
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def test_every_cutoff_is_checked_before_any_provider_runs():
    code, out, err = _cli(VASWANI_QRELS, BM25, "nDCG@0", "P@0", "RBP(p=1.5)")
    assert code == 2 and out == ""
    assert "nDCG@0: cutoff @0 must be a positive integer" in err and "P@0" in err and "p=1.5" in err


def test_an_empty_measure_list_is_an_error():
    assert _cli(VASWANI_QRELS, BM25, "")[0] == 2
    assert "no measure given" in _cli(VASWANI_QRELS, BM25, "")[2]
    assert "no measure given" in _cli(VASWANI_QRELS, BM25)[2]


def test_a_provider_that_cannot_serve_a_measure_is_named():
    code, _, err = _cli(VASWANI_QRELS, BM25, "--provider", "cwl_eval", "nDCG@10")
    assert code == 2 and "provider 'cwl_eval' does not compute nDCG@10" in err
    # ir_rbstar's own RBP is ir_rbstar's, whatever --provider says for the others
    code, out, _ = _cli(VASWANI_QRELS, BM25, "--provider", "pytrec_eval", "RBP(p=0.8,rel=1)", "P@10")
    assert code == 0 and out.splitlines()[0] == "RBP(p=0.8,rel=1)\t0.3859"


def test_distance_takes_the_reports_spelling(tmp_path):
    runs = [BM25, str(VASWANI / "bm25l.run.gz")]
    plain = _cli("distance", *runs, "--measure", "RBO(p=0.9)@20")
    complement = _cli("distance", *runs, "--measure", "1-RBO(p=0.9)@20")
    assert plain[0] == complement[0] == 0 and plain[1] == complement[1]
    assert "'1-' makes a distance of" in _cli("distance", *runs, "--measure", "1-MED_P@5")[2]


def test_a_prior_path_holding_a_comma(tmp_path):
    odd = tmp_path / "a,b.run"
    odd.write_text("q1 Q0 a 1 2.0 t\n")
    other = tmp_path / "c.run"
    other.write_text("q1 Q0 b 1 2.0 t\n")
    qrels = {"q1": {"a": 1, "b": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}}
    one = ir_rbstar.parse_measure(f"UniqueRel(prior='{odd}')@2")                 # the whole value is a file
    assert values([one], qrels, run)[("q1", str(one))] == 1
    escaped = str(odd).replace(",", "\\\\,")
    two = ir_rbstar.parse_measure(f"UniqueRel(prior='{escaped},{other}')@2")    # '\\,' inside a list item
    assert values([two], qrels, run)[("q1", str(two))] == 0


# 9. Doors that were missing -----------------------------------------------------------------------

def test_several_runs_in_one_call_and_version():
    runs = [BM25, str(VASWANI / "bm25l.run.gz")]
    code, out, _ = _cli(VASWANI_QRELS, *runs, "P@10", "RBP(p=0.8,rel=1)")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == [runs[0]] * 2 + [runs[1]] * 2
    for path in runs:                       # each block equals that run alone
        alone = _cli(VASWANI_QRELS, path, "P@10", "RBP(p=0.8,rel=1)")[1].splitlines()
        assert ["\t".join(r[1:]) for r in rows if r[0] == path] == alone
    done = subprocess.run([sys.executable, "-m", "ir_rbstar", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith(f"ir-rbstar {ir_rbstar.__version__}")


def test_progress_only_on_a_terminal_or_when_asked():
    runs = [BM25, str(VASWANI / "bm25l.run.gz")]
    assert _cli(VASWANI_QRELS, *runs, "P@10")[2] == ""            # stderr is not a terminal here
    err = _cli(VASWANI_QRELS, *runs, "P@10", "--progress")[2]
    assert err.splitlines() == [f"ir-rbstar: [1/2] evaluating {runs[0]}", f"ir-rbstar: [2/2] evaluating {runs[1]}"]


def test_ir_measures_entry_points_are_declared_and_load():
    """ir_measures' development line reads the group 'ir_measures.provider'; released 0.4.x ignores it."""
    found = {ep.name: ep for ep in entry_points(group="ir_measures.provider")}
    if "ir_rbstar" not in found:
        pytest.skip("the package is not installed with its metadata (entry points)")
    first, last = found["ir_rbstar"].load()(), found["ir_rbstar_fallback"].load()()
    assert first.PRIORITY < 0 < last.PRIORITY
    rbr = ir_rbstar.parse_measure("RBR(p=0.8)@20")
    assert first.supports(rbr) and not first.supports(ir_measures.nDCG @ 10)
    assert last.supports(ir_measures.RBP @ 10) and not last.supports(rbr)
    assert list(first.evaluator([rbr], {"q": {"a": 1}}).iter_calc({"q": {"a": 1.0}}))[0].value == pytest.approx(0.2)


def test_distance_shows_progress_when_asked():
    runs = [BM25, str(VASWANI / "bm25l.run.gz"), str(VASWANI / "minilm_rerank.run.gz")]
    code, _, err = _cli("distance", *runs, "--measure", "MED_P@10")
    assert code == 0 and err == ""                                  # not a terminal: quiet
    code, _, err = _cli("distance", *runs, "--measure", "MED_P@10", "--progress")
    assert code == 0 and err.splitlines() == ["ir-rbstar distance: [1/3] run bm25 against 3 runs",
                                              "ir-rbstar distance: [2/3] run bm25l against 2 runs",
                                              "ir-rbstar distance: [3/3] run minilm_rerank against 1 run"]
