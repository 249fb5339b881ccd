"""The engine (numpy or compiled loops) is chosen once per evaluation of a run, whatever the measures."""
import ir_measures

import ir_rbstar
from ir_rbstar import context

QRELS = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
RUN = {"q1": {"d1": 2.0, "d2": 1.0, "d9": 0.5}, "q2": {"d3": 1.0, "d4": 0.0}}


def test_one_choice_per_run(monkeypatch):
    calls = []
    real = context.compiled

    def counting(rows, **kw):
        calls.append(rows)
        return real(rows, **kw)

    monkeypatch.setattr(context, "compiled", counting)
    measures = ir_rbstar.parse("RBR(p=0.8)@2 RBA(p=0.8) RBO(p=0.8) RBO_ext(p=0.8) RBO_res(p=0.8) "
                               "RBR(p=0.8,ref='eng_ref')@2 RBA(p=0.9,ref='eng_ref') nDCG_TA@2 MED_RBP(ref='eng_ref')")
    with ir_rbstar.run_scope(runs={"eng_ref": RUN}):
        ev = ir_rbstar.PROVIDER.evaluator(measures, QRELS)
        first = ev.calc_aggregate(RUN)
        assert len(calls) == 1
        ev.calc_aggregate(RUN)
        assert len(calls) == 2                       # a second evaluation chooses again, once
        assert first == ir_measures.calc_aggregate(measures, QRELS, RUN)
