"""NRG family (Bigdeli et al., SIGIR-AP 2024): the paper's Table 1, a from-the-definition oracle on
random inputs, the empty prior set against ir_measures' nDCG / P / RBP / RR, bounds, monotonicity, prior
resolution (groups, lists, globs, automatic exclusion of the evaluated run) and errors."""
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar
from ir_rbstar.errors import MissingQrelsError, ParameterError, ReferenceNotFoundError
from tests.oracles import nrg as O

TOL = 1e-9
SETTINGS = settings(max_examples=examples(150), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
POOL = [f"d{i}" for i in range(10)]


def ranked(docs, qid="t"):
    return {qid: {d: float(len(docs) - i) for i, d in enumerate(docs)}}


def value(text, qrels, run):
    m = ir_rbstar.parse(text)[0]
    return ir_measures.calc_aggregate([m], qrels, run)[m]


# --- Table 1 of Bigdeli et al. 2024 ---

TABLE1_QRELS = {"t": {d: (4 if d in "AEFJ" else 0) for d in "ABCDEFGHIJ"}}
TABLE1 = {"R1": list("ABCDEFGHIJ"), "R2": list("EDCBAFGHIJ"), "R3": list("JIHGFEDCBA")}


@pytest.fixture
def table1_runs():
    for name, docs in TABLE1.items():
        ir_rbstar.register_run(name, ranked(docs))
    yield
    for name in TABLE1:
        ir_rbstar.unregister_run(name)


@pytest.mark.parametrize("run,prior,expected", [
    ("R1", "R2", 0.7361), ("R1", "R3", 0.8277), ("R1", "R2,R3", 0.8417),
    ("R2", "R3", 0.7988), ("R2", "R1,R3", 0.8316), ("R3", "R1,R2", 0.8681)])
def test_table1(table1_runs, run, prior, expected):
    got = value(f"NRG(prior='{prior}')@10", TABLE1_QRELS, ranked(TABLE1[run]))
    assert got == pytest.approx(expected, abs=5e-5)
    assert got == pytest.approx(O.nrg(TABLE1_QRELS["t"], TABLE1[run], [TABLE1[r] for r in prior.split(",")], k=10),
                                abs=TOL)


def test_table1_same_ndcg_and_no_unique_contributions(table1_runs):
    ndcg = {r: value("nDCG@10", TABLE1_QRELS, ranked(d)) for r, d in TABLE1.items()}
    assert len({round(v, 12) for v in ndcg.values()}) == 1          # "NDCG@10 is the same for all rankings"
    for r, docs in TABLE1.items():
        others = ",".join(o for o in TABLE1 if o != r)
        assert value(f"UniqueRel(prior='{others}')@10", TABLE1_QRELS, ranked(docs)) == 0.0


# --- random inputs ---

@st.composite
def collections(draw):
    qids = draw(st.lists(st.sampled_from(["q1", "2", "q3"]), min_size=1, max_size=3, unique=True))
    qrels, run, priors = {}, {}, []
    nprior = draw(st.integers(0, 3))
    priors = [{} for _ in range(nprior)]
    for q in qids:
        judged = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=7, unique=True))
        qrels[q] = {d: draw(st.integers(-1, 3)) for d in judged}
        docs = draw(st.lists(st.sampled_from(POOL), max_size=8, unique=True))
        if docs:
            run[q] = docs
        for prior in priors:
            pdocs = draw(st.lists(st.sampled_from(POOL), max_size=8, unique=True))
            if pdocs:
                prior[q] = pdocs
    assume(run)
    return qrels, run, priors


def as_run(lists):
    return {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in lists.items()}


def others(priors, run, q):
    """The package's identity rule, decided per query: the rankings of query q of the prior runs that
    are not the run's own ranking of q."""
    return [pr.get(q, []) for pr in priors if pr.get(q, []) != run.get(q, [])]


def register(priors, group="nrg-test"):
    ir_rbstar.register_runs(group, {f"p{i}": as_run(p) for i, p in enumerate(priors) if p})
    return [p for p in priors if p]


BASES = st.sampled_from(["nDCG", "P", "RBP", "RR"])


@given(collections(), BASES, st.sampled_from([0.5, 0.8, 0.95]), st.booleans(), st.integers(1, 9),
       st.integers(1, 3))
@SETTINGS
def test_equals_the_oracle(data, base, p, norm, k, rel):
    qrels, run, priors = data
    priors = register(priors)
    shown_p = f",p={p}" if base == "RBP" else ""
    text = f"NRG(prior='nrg-test',base='{base}'{shown_p},norm={norm},rel={rel})@{k}"
    m = ir_rbstar.parse(text)[0]
    got = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, as_run(run))}
    assert set(got) == set(qrels)
    for q in qrels:
        want = O.nrg(qrels[q], run.get(q, []), others(priors, run, q), base, p, norm, k, rel)
        assert got[q] == pytest.approx(want, abs=TOL), q
        if norm:
            assert -TOL <= got[q] <= 1 + TOL
    unique = ir_rbstar.parse(f"UniqueRel(prior='nrg-test',rel={rel})@{k}")[0]
    got = {x.query_id: x.value for x in ir_measures.iter_calc([unique], qrels, as_run(run))}
    for q in qrels:
        assert got[q] == O.unique_rel(qrels[q], run.get(q, []), others(priors, run, q), k, rel)


@given(collections(), BASES, st.integers(1, 9))
@SETTINGS
def test_unnormalised_never_increases_when_a_prior_is_added(data, base, k):
    qrels, run, priors = data
    assume(priors and priors[-1] and not any(pr.get(q) == docs for pr in priors for q, docs in run.items()))
    shown = f"base='{base}',norm=False"
    before = register(priors[:-1], "fewer")
    after = register(priors, "more")
    assert len(after) == len(before) + 1
    m_before = ir_rbstar.parse(f"NRG(prior='fewer',{shown})@{k}")[0]
    m_after = ir_rbstar.parse(f"NRG(prior='more',{shown})@{k}")[0]
    b = {x.query_id: x.value for x in ir_measures.iter_calc([m_before], qrels, as_run(run))}
    a = {x.query_id: x.value for x in ir_measures.iter_calc([m_after], qrels, as_run(run))}
    for q in qrels:
        assert a[q] <= b[q] + TOL


@given(collections(), st.integers(1, 9), st.sampled_from([0.5, 0.8]))
@SETTINGS
def test_empty_prior_set_gives_the_base_measure(data, k, p):
    qrels, run, _ = data
    ir_rbstar.register_runs("empty", {})
    r = as_run(run)
    for ours, theirs in [(f"NRG(prior='empty')@{k}", f"nDCG@{k}"),
                         (f"NRG(prior='empty',base='P',norm=False)@{k}", f"P@{k}"),
                         (f"NRG(prior='empty',base='RBP',p={p},norm=False,rel=2)@{k}", f"RBP(p={p},rel=2)@{k}")]:
        a = {x.query_id: x.value for x in ir_measures.iter_calc(ir_rbstar.parse(ours), qrels, r)}
        b = {x.query_id: x.value for x in ir_measures.iter_calc([ir_measures.parse_measure(theirs)], qrels, r)}
        for q in qrels:
            assert a[q] == pytest.approx(b[q], abs=TOL), (ours, q)
    # base RR: RR@k where a query has a single relevant document (as on MS MARCO)
    single = {q: {d: (1 if i == 0 else 0) for i, d in enumerate(j)} for q, j in qrels.items()}
    a = {x.query_id: x.value for x in ir_measures.iter_calc(ir_rbstar.parse(f"NRG(prior='empty',base='RR')@{k}"), single, r)}
    b = {x.query_id: x.value for x in ir_measures.iter_calc([ir_measures.parse_measure(f"RR@{k}")], single, r)}
    for q in single:
        assert a[q] == pytest.approx(b[q], abs=TOL)


@given(collections(), st.randoms())
@SETTINGS
def test_independent_of_row_order(data, rnd):
    import pandas as pd
    qrels, run, priors = data
    register(priors)
    rows = [(q, d, s) for q, docs in as_run(run).items() for d, s in docs.items()]
    qrows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    m = ir_rbstar.parse("NRG(prior='nrg-test')@5")[0]

    def calc():
        return {x.query_id: x.value for x in ir_measures.iter_calc(
            [m], pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))}
    first = calc()
    rnd.shuffle(rows)
    rnd.shuffle(qrows)
    assert calc() == pytest.approx(first, abs=1e-12)


# --- prior resolution ---

def test_prior_glob_list_and_group_and_self_exclusion(tmp_path, table1_runs):
    for name, docs in TABLE1.items():
        (tmp_path / f"{name}.run").write_text("".join(f"t Q0 {d} {i + 1} {10 - i} {name}\n" for i, d in enumerate(docs)))
    glob = str(tmp_path / "*.run")
    run = str(tmp_path / "R1.run")
    # the glob holds R1 itself: it is left out, so this is NRG of R1 given R2 and R3
    assert value(f"NRG(prior='{glob}')@10", TABLE1_QRELS, run) == pytest.approx(0.8417, abs=5e-5)
    files = ",".join(str(tmp_path / f"{n}.run") for n in ("R2", "R3"))
    assert value(f"NRG(prior='{files}')@10", TABLE1_QRELS, run) == pytest.approx(0.8417, abs=5e-5)
    ir_rbstar.register_runs("all-three", {n: ranked(d) for n, d in TABLE1.items()})
    assert value("NRG(prior='all-three')@10", TABLE1_QRELS, ranked(TABLE1["R1"])) == pytest.approx(0.8417, abs=5e-5)
    assert "all-three" in ir_rbstar.registered_groups()
    ir_rbstar.unregister_runs("all-three")
    # only the run itself as prior: the base measure
    assert value("NRG(prior='R1')@10", TABLE1_QRELS, ranked(TABLE1["R1"])) == \
        pytest.approx(value("nDCG@10", TABLE1_QRELS, ranked(TABLE1["R1"])), abs=TOL)


def test_errors(tmp_path):
    qrels, run = TABLE1_QRELS, ranked(TABLE1["R1"])
    with pytest.raises(ReferenceNotFoundError, match="matches no file"):
        value(f"NRG(prior='{tmp_path}/*.nothing')@10", qrels, run)
    with pytest.raises(ReferenceNotFoundError, match="nope"):
        value("NRG(prior='nope')@10", qrels, run)
    with pytest.raises(ParameterError, match="base"):
        ir_rbstar.parse("NRG(prior='x',base='MAP')@10")
    with pytest.raises(ParameterError, match="prior"):
        ir_rbstar.parse("NRG(prior=' ')@10")
    with pytest.raises(ParameterError, match="p="):
        ir_rbstar.parse("NRG(prior='x',base='RBP',p=1.5)")
    with pytest.raises(ParameterError, match="cutoff"):
        ir_rbstar.register_runs("empty", {})
        value("NRG(prior='empty',base='P')", qrels, run)
    with pytest.raises(ParameterError, match="prior"):
        value("NRG@10", qrels, run)
    with pytest.raises(ParameterError, match="alpha"):
        ir_rbstar.RarP(runs='x', alpha=-1.0, cutoff=10)
    with pytest.raises(ParameterError, match="cutoff"):
        value("RarP(runs='empty')", qrels, run)
    with pytest.raises(MissingQrelsError):
        ir_rbstar.PROVIDER.evaluator(ir_rbstar.parse("NRG(prior='empty')@10"), None).calc_aggregate(run)


def test_labels():
    texts = ["NRG(prior='a,b')@10", "NRG(prior='runs/*.run',base='RBP',p=0.8)@100",
             "NRG(prior='g',base='RR',norm=False)@10", "UniqueRel(prior='g',rel=2)@10",
             "RarP(runs='g',alpha=0.5)@10", "TaSC(prior='g')@10"]
    for text in texts:
        m = ir_measures.parse_measure(text)
        assert str(m) == text and ir_measures.parse_measure(str(m)) == m
    assert str(ir_rbstar.parse("NRG(prior='g',base='RBP')@5")[0]) == "NRG(prior='g',base='RBP',p=0.8)@5"


# --- the comparison measures: rareness-based precision and TaSC ---

def test_rarp_hand_example():
    """One topic, k = 3, relevant a, b, c; rarity h = 1 - n/4: h(a) = 0, h(b) = 0.5, h(c) = 0.75."""
    qrels = {"t": {"a": 1, "b": 1, "c": 1}}
    runs = {"S1": "a x b", "S2": "a b y", "S3": "a z w", "S4": "c a v"}
    ir_rbstar.register_runs("S", {n: ranked(r.split()) for n, r in runs.items()})
    expected = {"S1": (1 + 1.5) / 3, "S2": (1 + 1.5) / 3, "S3": 1 / 3, "S4": (1.75 + 1) / 3}
    for name, docs in runs.items():
        assert value("RarP(runs='S')@3", qrels, ranked(docs.split())) == pytest.approx(expected[name], abs=TOL)
        assert value("RarP(runs='S',alpha=0.0)@3", qrels, ranked(docs.split())) == \
            pytest.approx(value("P@3", qrels, ranked(docs.split())), abs=TOL)
    # a run outside the set is added to it: 5 runs, c found by S4 and the new run
    assert value("RarP(runs='S')@3", qrels, ranked(["c", "q", "r"])) == pytest.approx((1 + 1 - 2 / 5) / 3, abs=TOL)


@given(collections(), st.integers(1, 9), st.sampled_from([0.0, 0.5, 1.0]), st.integers(1, 2))
@SETTINGS
def test_rarp_equals_the_oracle(data, k, alpha, rel):
    qrels, run, priors = data
    priors = register(priors)
    got = {x.query_id: x.value for x in ir_measures.iter_calc(
        ir_rbstar.parse(f"RarP(runs='nrg-test',alpha={alpha},rel={rel})@{k}"), qrels, as_run(run))}
    for q in qrels:
        member = any(pr.get(q, []) == run.get(q, []) for pr in priors)     # decided per query
        want = O.rarp(qrels[q], run.get(q, []), [pr.get(q, []) for pr in priors], member, k, alpha, rel)
        assert got[q] == pytest.approx(want, abs=TOL)
        assert -TOL <= got[q] <= 1 + alpha + TOL


@given(collections(), st.integers(1, 8))
@SETTINGS
def test_rarp_at_two_cutoffs_and_again_equals_the_oracle(data, k):
    """The registered runs' top rows are kept per cutoff in each run's cache: RarP@k, @k+1 and @k again
    on the same registered runs each equal the oracle."""
    qrels, run, priors = data
    priors = register(priors)
    for cut in (k, k + 1, k):
        got = {x.query_id: x.value for x in ir_measures.iter_calc(
            ir_rbstar.parse(f"RarP(runs='nrg-test',alpha=0.5,rel=1)@{cut}"), qrels, as_run(run))}
        for q in qrels:
            member = any(pr.get(q, []) == run.get(q, []) for pr in priors)
            want = O.rarp(qrels[q], run.get(q, []), [pr.get(q, []) for pr in priors], member, cut, 0.5, 1)
            assert got[q] == pytest.approx(want, abs=TOL), (cut, q)


@given(collections(), st.integers(1, 9))
@SETTINGS
def test_tasc_from_pytrec_eval_ndcg(data, k):
    qrels, run, priors = data
    priors = register(priors)
    ndcg = ir_measures.parse_measure(f"nDCG@{k}")

    def per_query(r):
        return {x.query_id: x.value for x in ir_measures.iter_calc([ndcg], qrels, as_run(r))} if r else {}
    mine = per_query(run)
    prior_values = [{q: v for q, v in per_query(pr).items() if pr.get(q, []) != run.get(q, [])} for pr in priors]
    got = {x.query_id: x.value for x in ir_measures.iter_calc(ir_rbstar.parse(f"TaSC(prior='nrg-test')@{k}"),
                                                               qrels, as_run(run))}
    for q in qrels:
        best = max([pv.get(q, 0.0) for pv in prior_values], default=0.0)
        assert got[q] == pytest.approx((1 - best) * mine.get(q, 0.0), abs=TOL)


def test_teams_and_best_runs(table1_runs):
    """With teams, a member's prior set leaves out its whole team; with best, only the other teams'
    representatives count."""
    runs = {n: ranked(d) for n, d in TABLE1.items()}
    ir_rbstar.register_runs("teams", runs, teams={"R1": "x", "R2": "x", "R3": "y"})
    # R1's team x also holds R2: only R3 is its prior
    assert value("NRG(prior='teams')@10", TABLE1_QRELS, runs["R1"]) == pytest.approx(0.8277, abs=5e-5)
    ir_rbstar.register_runs("best", runs, teams={"R1": "x", "R2": "x", "R3": "y"}, best={"x": "R2", "y": "R3"})
    assert value("NRG(prior='best')@10", TABLE1_QRELS, runs["R3"]) == \
        pytest.approx(O.nrg(TABLE1_QRELS["t"], TABLE1["R3"], [TABLE1["R2"]], k=10), abs=TOL)
    # a run outside the group: every team's representative
    outside = ranked(list("BACDEFGHIJ"))
    assert value("NRG(prior='best')@10", TABLE1_QRELS, outside) == \
        pytest.approx(O.nrg(TABLE1_QRELS["t"], list("BACDEFGHIJ"), [TABLE1["R2"], TABLE1["R3"]], k=10), abs=TOL)
    with pytest.raises(ReferenceNotFoundError, match="team"):
        ir_rbstar.register_runs("bad", runs, teams={"R1": "x"})
    with pytest.raises(ReferenceNotFoundError, match="best"):
        ir_rbstar.register_runs("bad", runs, teams={"R1": "x", "R2": "x", "R3": "y"}, best={"x": "R3"})


def test_run_cut_to_fewer_queries_is_still_recognised_as_itself():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    ir_rbstar.register_runs("whole", {"me": run})
    assert value("NRG(prior='whole')@10", qrels, run) == 1.0
    assert value("NRG(prior='whole')@10", {"q1": qrels["q1"]}, {"q1": run["q1"]}) == 1.0
    # but a run that differs on one of its queries is a prior
    assert value("NRG(prior='whole')@10", qrels, {"q1": {"b": 2.0, "a": 1.0}, "q2": {"c": 1.0}}) < 1.0
