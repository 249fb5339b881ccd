"""Auxiliary judgments with provenance: the split adds up, reduces to the plain values without them, and
grades outside the scale are errors."""
import ir_measures
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples

import ir_rbstar
from ir_rbstar.errors import GradeScaleError, ParameterError
from ir_rbstar.judging.aux import AUX_COLUMNS, aux_split, aux_verdicts

RUN = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
HUMAN = {"q": {"d1": 1}}
AUX = {"q": {"d2": 1, "d1": 0, "d4": 1}}        # d1: the human grade stands


def test_worked_example_by_hand():
    # p = 0.5: weights 0.5, 0.25, 0.125, tail 0.125. Human: d1 relevant -> 0.5, residual 0.25 + 0.125 + 0.125.
    # Auxiliary: d2 relevant adds 0.25; only d3 and the tail stay unknown.
    row = aux_split({"A": RUN}, HUMAN, AUX, "RBP(p=0.5)").iloc[0]
    assert tuple(row.index) == AUX_COLUMNS
    assert (row["human"], row["auxiliary"], row["auxiliary_weight"], row["residual"], row["value"], row["upper"]) \
        == pytest.approx((0.5, 0.25, 0.25, 0.25, 0.75, 1.0))


def test_without_aux_it_is_the_plain_value():
    row = aux_split({"A": RUN}, HUMAN, None, "RBP(p=0.5)").iloc[0]
    plain = ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.5) RBP_res(p=0.5)"), HUMAN, RUN)
    assert row["auxiliary"] == 0 and row["auxiliary_weight"] == 0
    assert row["human"] == row["value"] == pytest.approx(plain[ir_rbstar.parse("RBP(p=0.5)")[0]])
    assert row["residual"] == pytest.approx(plain[ir_rbstar.parse("RBP_res(p=0.5)")[0]])


docs = st.sampled_from([f"d{i}" for i in range(8)])


@settings(max_examples=examples(30), deadline=None)
@given(run=st.dictionaries(docs, st.floats(0, 5, allow_nan=False), min_size=1, max_size=8),
       human=st.dictionaries(docs, st.integers(0, 3), max_size=6),
       aux=st.dictionaries(docs, st.integers(0, 3), max_size=6),
       cutoff=st.sampled_from(["", "@3"]))
def test_split_adds_up(run, human, aux, cutoff):
    human = dict(human, d7=human.get("d7", 0))      # the query is in the human qrels
    measure = f"RBP(p=0.7,max_rel=3){cutoff}"
    split = aux_split({"A": {"q": run}}, {"q": human}, {"q": aux}, measure).iloc[0]
    merged = {"q": {**aux, **human}}
    full = ir_measures.calc_aggregate(ir_rbstar.parse(f"{measure} RBP_res(p=0.7){cutoff}"), merged, {"q": run})
    plain = ir_measures.calc_aggregate(ir_rbstar.parse(f"{measure} RBP_res(p=0.7){cutoff}"), {"q": human},
                                       {"q": run})
    m, r = ir_rbstar.parse(f"{measure} RBP_res(p=0.7){cutoff}")
    assert split["human"] == pytest.approx(plain[m], abs=1e-12)
    assert split["human"] + split["auxiliary"] == pytest.approx(full[m], abs=1e-12)
    assert split["residual"] == pytest.approx(full[r], abs=1e-12)
    assert split["auxiliary_weight"] + split["residual"] == pytest.approx(plain[r], abs=1e-12)
    assert -1e-12 <= split["auxiliary"] <= split["auxiliary_weight"] + 1e-12
    assert split["value"] + split["residual"] == pytest.approx(split["upper"])


def test_aux_grades_outside_the_scale_are_errors():
    with pytest.raises(GradeScaleError, match=r"auxiliary grade 4 of document 'd2' for query 'q' .*0..3"):
        aux_split({"A": RUN}, HUMAN, {"q": {"d2": 4}}, "RBP(p=0.5,max_rel=3)")
    with pytest.raises(GradeScaleError, match="auxiliary grade -2"):
        aux_split({"A": RUN}, HUMAN, {"q": {"d2": -2}}, "RBP(p=0.5,max_rel=3)")


def test_bad_measure_and_missing_human_qrels():
    with pytest.raises(ParameterError, match="auxiliary judgments split RBP"):
        aux_split({"A": RUN}, HUMAN, AUX, "nDCG@10")
    with pytest.raises(ParameterError, match="human judgments are needed"):
        aux_split({"A": RUN}, None, AUX, "RBP(p=0.5)")
    with pytest.raises(FileNotFoundError, match="^aux: qrels file not found: no-such-aux.qrels"):
        aux_split({"A": RUN}, HUMAN, "no-such-aux.qrels", "RBP(p=0.5)")


def test_verdicts_that_depend_on_aux():
    # 12 queries; run A finds the one relevant document at rank 1, B at rank 2 or 3 -- but only the
    # auxiliary judge saw it: without it the bounds overlap, with it A is better on every query
    runs = {"A": {}, "B": {}}
    human, aux = {}, {}
    for i in range(12):
        q = f"q{i}"
        runs["A"][q] = {"rel": 3.0, "x": 2.0, "y": 1.0}
        runs["B"][q] = {"x": 3.0, "y": 2.0, "rel": 1.0} if i % 2 else {"x": 3.0, "rel": 2.0, "y": 1.0}
        human[q] = {"x": 0, "y": 0}
        aux[q] = {"rel": 1}
    table = aux_verdicts(runs, human, aux, baseline="B", measure="RBP(p=0.5)@3")
    row = table.iloc[0]
    assert row["run"] == "A" and row["verdict_with_aux"] == "A better, robust"
    assert not row["verdict_human"].endswith("robust") and bool(row["depends_on_aux"])
    with pytest.raises(ParameterError, match="baseline"):
        aux_verdicts(runs, human, aux, baseline="C")
    assert isinstance(table, pd.DataFrame)


def test_the_aux_parameter_of_rbp_agrees_with_the_split(tmp_path):
    path = tmp_path / "aux.qrels"
    path.write_text("".join(f"q 0 {d} {g}\n" for d, g in AUX["q"].items()))
    ms = ir_rbstar.parse(f"RBP(p=0.5,aux='{path}') RBP_res(p=0.5,aux='{path}') RBP(p=0.5)@2 RBP(p=0.5,aux='{path}')@2")
    got = {str(v.measure): v.value for v in ir_measures.iter_calc(ms, HUMAN, RUN)}
    row = aux_split({"A": RUN}, HUMAN, AUX, "RBP(p=0.5)").iloc[0]
    assert got[str(ms[0])] == pytest.approx(row["value"]) and got[str(ms[1])] == pytest.approx(row["residual"])
    assert got[str(ms[3])] == pytest.approx(0.75) and got[str(ms[2])] == pytest.approx(0.5)
    path.write_text("q 0 d2 4\n")
    with pytest.raises(GradeScaleError, match=r"auxiliary judgments .*grade 4 of document 'd2' for query 'q'"):
        ir_measures.calc_aggregate(ir_rbstar.parse(f"RBP(p=0.5,max_rel=3,aux='{path}')"), HUMAN, RUN)
    # the human grade stands, and a document only the auxiliary judge saw is no longer in the residual
    plain = ir_measures.calc_aggregate(ir_rbstar.parse("RBP_res(p=0.5)"), HUMAN, RUN)
    assert plain[ir_rbstar.parse("RBP_res(p=0.5)")[0]] == pytest.approx(0.5)


def test_a_missing_aux_file_is_named_as_the_measures_parameter(tmp_path):
    missing = tmp_path / "no-such-aux.qrels"
    m = ir_rbstar.parse(f"RBP(p=0.5,aux='{missing}')")
    with pytest.raises(FileNotFoundError, match=r"^RBP\(p=0.5,aux='.*no-such-aux.qrels'\): aux: qrels file not found"):
        ir_measures.calc_aggregate(m, HUMAN, RUN)
