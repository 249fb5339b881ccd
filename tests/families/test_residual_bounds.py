"""Residuals are bounds: the true value lies in [v, v + res] for the completions the docs state.

With a reference derived from the qrels, judging an unjudged document of the run inserts it into R by
its grade (possibly at the top, possibly into a tie group), and the run may go on after its end (for
RBA and RBO). Here every such completion of small random cases is enumerated: each unjudged document
of B gets every grade (including one above every grade seen), B gets every continuation of up to two
documents (documents of R it misses, or new documents with a grade), R is re-derived by grade with
ties, and the value is computed from the definition (tests/oracles/rankbiased.py, expectation over tie
orders).
The package's bound must hold for all of them: the upper end always; the lower end (v) always for
RBR, and for RBA and RBO when the newly judged documents rank below the judged relevant documents of
the run (the condition the docs state). Run references keep the paper's bounds (test_rankbiased_oracle).
"""
import itertools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar

from tests.oracles import rankbiased as O

TOL = 1e-9
SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
POOL = list("abcdef")
NEW = ["n1", "n2"]


def package(qrels_q, B, p, rel, k):
    """(v, res) of RBR, RBA, RBO from the package, for one query whose run ranks B."""
    run = {"q": {d: float(len(B) - i) for i, d in enumerate(B)}}
    at = "" if k is None else f"@{k}"
    out = {}
    for name in ("RBR", "RBA", "RBO"):
        ms = ir_rbstar.parse(f"{name}(p={p},rel={rel}){at} {name}_res(p={p},rel={rel}){at} RBO_ext(p={p},rel={rel}){at}")
        got = {str(m.measure): m.value for m in ir_measures.iter_calc(ms, {"q": qrels_q}, run)}
        out[name] = (got[str(ms[0])], got[str(ms[1])])
        out["RBO_ext"] = got[str(ms[2])]
    return out


def true_value(name, B, qrels_q, p, rel, tail=()):
    """The value of a completed pair: B (continued) against R derived from the completed qrels; ``tail``
    is a run of fresh documents appended to both (perfect agreement afterwards)."""
    ref = O.ref_from_qrels(qrels_q, rel)
    if tail:
        ref = O.Reference(list(ref.groups) + [[t] for t in tail], ref.known | set(tail))
        B = list(B) + list(tail)
    return {"RBR": O.rbr, "RBA": O.rba, "RBO": O.rbo}[name](B, ref, p)


@st.composite
def cases(draw):
    judged = draw(st.lists(st.sampled_from(POOL), max_size=4, unique=True))
    qrels_q = {d: draw(st.integers(0, 3)) for d in judged}
    qrels_q["z"] = 0                                # the query is in the qrels (z is never retrieved)
    run_docs = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=5, unique=True))
    unjudged = [d for d in run_docs if d not in qrels_q]
    if len(unjudged) > 2:                           # keep the enumeration small
        for d in unjudged[2:]:
            qrels_q[d] = draw(st.integers(0, 3))
    p = draw(st.sampled_from([0.3, 0.5, 0.8]))
    rel = draw(st.integers(1, 2))
    k = draw(st.one_of(st.none(), st.integers(1, 5)))
    return qrels_q, run_docs, p, rel, k


def completions(qrels_q, B, rel, continue_run):
    """(completed qrels, continued B, the grades newly given) for every grading of B's unjudged documents
    and, with ``continue_run``, every continuation of up to two documents."""
    unjudged = [d for d in B if d not in qrels_q]
    top = max(list(qrels_q.values()) + [rel]) + 1
    grades = sorted({0, rel, top})
    missing = [d for d, g in qrels_q.items() if g >= rel and d not in B]
    for assigned in itertools.product(grades, repeat=len(unjudged)):
        graded = dict(qrels_q, **dict(zip(unjudged, assigned)))
        yield graded, list(B), list(assigned)
        if not continue_run:
            continue
        candidates = [(d, None) for d in missing] + [(n, g) for n in NEW for g in (rel, top)]
        for length in (1, 2):
            for seq in itertools.permutations(candidates, length):
                docs = [d for d, _ in seq]
                if len(set(docs)) < len(docs):
                    continue
                extended = dict(graded, **{d: g for d, g in seq if g is not None})
                yield extended, list(B) + docs, list(assigned) + [g for _, g in seq if g is not None]


@SETTINGS
@given(cases())
def test_every_completion_lies_within_the_bounds(case):
    qrels_q, run_docs, p, rel, k = case
    B = run_docs if k is None else run_docs[:k]
    got = package(qrels_q, run_docs, p, rel, k)
    judged_relevant = [qrels_q[d] for d in B if qrels_q.get(d, -1) >= rel]
    for name in ("RBR", "RBA", "RBO"):
        v, res = got[name]
        assert res >= -TOL
        assert v + res <= 1 + TOL
        for graded, B2, new_grades in completions(qrels_q, B, rel, continue_run=name != "RBR"):
            truth = true_value(name, B2, graded, p, rel)
            assert truth <= v + res + TOL, (name, qrels_q, B, "->", graded, B2, truth, v, res)
            below = all(g < rel or g < min(judged_relevant, default=float("inf")) for g in new_grades)
            if name == "RBR" or below:
                assert truth >= v - TOL, (name, qrels_q, B, "->", graded, B2, truth, v)
            if name != "RBR":       # and then agreeing for ever after
                endless = true_value(name, B2, graded, p, rel, tail=[f"t{i}" for i in range(40)])
                assert endless <= v + res + TOL, (name, "endless", qrels_q, B, graded, B2, endless, v, res)
    v, res = got["RBO"]
    assert v - TOL <= got["RBO_ext"] <= v + res + TOL


# the cases the audit reported (p = 0.5), each a completion outside the old bound --------------------

def _values(text, qrels, run):
    ms = ir_rbstar.parse(text)
    got = ir_measures.calc_aggregate(ms, qrels, run)
    return [got[m] for m in ms]


def test_unjudged_document_judged_above_the_reference():
    """qrels {c:2}, run {d}: RBR(rel=2)@2 = 0 and the old residual 0.25; judging d as 3 gives 0.5."""
    v, res = _values("RBR(p=0.5,rel=2)@2 RBR_res(p=0.5,rel=2)@2", {"q": {"c": 2}}, {"q": {"d": 6.0}})
    truth = O.rbr(["d"], O.ref_from_qrels({"c": 2, "d": 3}, 2), 0.5)
    assert v == 0.0 and truth == pytest.approx(0.5) and v + res >= truth - TOL


def test_rbo_with_the_run_continuing():
    """qrels {e:2, f:0}, run {c}: RBO = 0 and the old residual 0.5; judging c as 3, the run going on c, e: 0.886."""
    v, res = _values("RBO(p=0.5) RBO_res(p=0.5)", {"q": {"e": 2, "f": 0}}, {"q": {"c": 3.0}})
    truth = O.rbo(["c", "e"], O.ref_from_qrels({"e": 2, "f": 0, "c": 3}, 1), 0.5)
    assert truth == pytest.approx(0.886, abs=1e-3) and v + res >= truth - TOL


def test_rba_with_a_judged_document_below_rel():
    """qrels {f:1}, run {f}, rel=2: RBA = 0 and the old residual 0.5; n1 (3), n2 (2) after f give 0.5303."""
    v, res = _values("RBA(p=0.5,rel=2) RBA_res(p=0.5,rel=2)", {"q": {"f": 1}}, {"q": {"f": 1.0}})
    truth = O.rba(["f", "n1", "n2"], O.ref_from_qrels({"f": 1, "n1": 3, "n2": 2}, 2), 0.5)
    assert truth == pytest.approx(0.5303, abs=1e-4) and v + res >= truth - TOL


def test_documents_outside_the_run_and_the_qrels_are_not_covered_as_documented():
    """qrels {d:3, e:0}, run {d}: RBR@3 = 0.5; a document in neither, judged 3, would lower it to 0.375.
    The docs state that judging such a document can lower RBR (outside the lower end's claim)."""
    v, res = _values("RBR(p=0.5)@3 RBR_res(p=0.5)@3", {"q": {"d": 3, "e": 0}}, {"q": {"d": 3.0}})
    assert (v, res) == (0.5, 0.0)
    assert O.rbr(["d"], O.ref_from_qrels({"d": 3, "e": 0, "n0": 3}, 1), 0.5) == pytest.approx(0.375)
    doc = " ".join(ir_rbstar.RBR_res.__doc__.split())
    assert "or a document in neither the run nor the qrels" in doc and "Judging any other document can lower RBR" in doc
