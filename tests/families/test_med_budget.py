"""MED_AP and MED_ERR never hang, and graded MED does not depend on other queries.

* The search budget (``budget=``, nodes per query and direction): exact values within it (brute force),
  certified upper bounds beyond it (never below the brute-force maximum), one BudgetWarning per
  evaluation naming the measure, the count and the queries, ``ir_rbstar.med.exactness`` per query, and a
  query's value the same alone and with other queries (also when bounded, and whatever the chunking).
* Hard cases: an in-repo pair (84 shared documents in the same order, 16 inserted in one run) that the
  search before the chain bound took 38 s on, and one TREC DL 2020 query of two NIST runs
  (../shared/cases/med_ap_hard, skipped when absent) on which it did not finish in 10 minutes at @100;
  both checked against an independent dynamic programme (tests/oracles/med.py), with node counts.
* max_rel: the top grade G of MED_nDCG and MED_ERR is a parameter (default 1), never the highest grade
  of the qrels passed in; a grade above it is a GradeScaleError naming the query, document and grade.
"""
import gzip
import random
import warnings

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import med
from ir_rbstar.core import med as K
from ir_rbstar.errors import BudgetWarning, GradeScaleError, ParameterError
from tests.helpers import SHARED_CASES
from tests.oracles import med as O

TOL = 1e-9
HARD = SHARED_CASES / "med_ap_hard"


def ranked(docs):
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


def gain(G):
    return lambda g: (2 ** max(g, 0) - 1) / 2 ** G


def pair(seed, n=None):
    """Two rankings over 10-14 shared documents (reversed, shuffled or nearly reversed) plus a few of
    their own, and a few graded judgments (grades -1..2)."""
    rng = random.Random(seed)
    n = n or rng.randint(10, 14)
    shared = [f"d{i}" for i in range(n)]
    b = list(shared)
    if seed % 3 == 0:
        b.reverse()
    elif seed % 3 == 1:
        rng.shuffle(b)
    else:
        b.reverse()
        i = rng.randrange(n - 3)
        b[i:i + 3] = b[i:i + 3][::-1]
    a = list(shared)
    for i in range(rng.randint(0, 2)):
        a.insert(rng.randrange(len(a) + 1), f"a{i}")
    for i in range(rng.randint(0, 2)):
        b.insert(rng.randrange(len(b) + 1), f"b{i}")
    pool = sorted(set(a) | set(b))
    judged = {d: rng.randint(-1, 2) for d in rng.sample(pool, rng.randint(0, 3))}
    return a, b, judged


def brute(kind, a, b, k, judged, G=2):
    """Brute force (shared unjudged documents enumerated, the others at their optimal extreme), every
    assignment a row of a matrix (tests/oracles/med.py's med_matrix, which test_med.py checks against the
    plain loop)."""
    if kind == "MED_AP":
        return O.med_matrix(a, b, k, lambda v: O.ap_rows(v, k), [0.0, 1.0],
                            {d: float(g >= 1) for d, g in judged.items()}, unknown_limit=True)
    return O.med_matrix(a, b, k, lambda v: O.err_rows(v, k), [0.0, gain(G)(G)],
                        {d: gain(G)(g) for d, g in judged.items()}, unknown_limit=True)


def label(kind, ref, k, budget=None):
    extra = ",max_rel=2" if kind == "MED_ERR" else ""
    extra += f",budget={budget}" if budget is not None else ""
    return f"{kind}(ref='{ref}'{extra})@{k}"


@pytest.fixture
def registered():
    names = []

    def register(name, run):
        ir_rbstar.register_run(name, run)
        names.append(name)
    yield register
    for name in names:
        ir_rbstar.unregister_run(name)


def cases(seeds):
    """One query per seed: run, reference, qrels (each query with its own judgments), per-query data."""
    run, ref, qrels, data = {}, {}, {}, {}
    for seed in seeds:
        q = f"q{seed}"
        a, b, judged = pair(seed)
        run[q], ref[q] = ranked(a), ranked(b)
        qrels[q] = dict(judged, **{"~in": 0})       # "~in" keeps the query in the query set
        data[q] = (a, b, judged, max(len(a), len(b)))
    return run, ref, qrels, data


# --- exact within the budget, certified bounds beyond it ---------------------------------------------

@pytest.mark.parametrize("kind", ["MED_AP", "MED_ERR"])
def test_default_budget_gives_the_brute_force_maximum_and_says_it_is_exact(kind, registered):
    run, ref, qrels, data = cases(range(12))
    registered("budget_ref", ref)
    for q, (a, b, judged, k) in data.items():
        table = med.exactness({q: run[q]}, label(kind, "budget_ref", k), {q: qrels[q]})
        assert table.exact.item(), q
        assert table.value.item() == pytest.approx(brute(kind, a, b, k, judged), abs=TOL), q


def test_tiny_budget_gives_upper_bounds_of_the_brute_force_maximum_and_one_warning(registered):
    # MED_ERR on these pairs needs tens of nodes: with 1 to 4 per direction most queries are bounded
    run, ref, qrels, data = cases(range(12))
    registered("budget_ref", ref)
    k = max(d[3] for d in data.values())
    wants = {q: brute("MED_ERR", a, b, k, judged) for q, (a, b, judged, _) in data.items()}   # once for 3 budgets
    for budget in (1, 2, 4):
        m = ir_rbstar.parse(label("MED_ERR", "budget_ref", k, budget))[0]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}
        table = med.exactness(run, m, qrels).set_index("query_id")
        bounded = sorted(table.index[~table.exact])
        assert bounded, budget
        for q in data:
            want = wants[q]
            assert values[q] == table.value[q]
            assert values[q] >= want - TOL, (budget, q)           # never below the maximum
            if table.exact[q]:
                assert values[q] == pytest.approx(want, abs=TOL)
            assert table.nodes[q] <= 2 * budget
        budget_warnings = [w for w in caught if issubclass(w.category, BudgetWarning)]
        assert len(budget_warnings) == 1
        text = str(budget_warnings[0].message)
        assert f"{m}: {len(bounded)} of {len(data)} queries reached the search budget of {budget} nodes" in text
        assert repr(table.index[~table.exact][0]) in text and "budget=" in text


def test_one_warning_for_several_bounded_measures_and_none_when_exact(registered):
    run, ref, qrels, data = cases(range(6))
    registered("budget_ref", ref)
    ms = ir_rbstar.parse(f"{label('MED_ERR', 'budget_ref', 16, 1)} {label('MED_ERR', 'budget_ref', 14, 2)}")
    with pytest.warns(BudgetWarning) as caught:
        ir_measures.calc_aggregate(ms, qrels, run)
    assert len(caught) == 1 and all(str(m) in str(caught[0].message) for m in ms)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BudgetWarning)
        ir_measures.calc_aggregate(ir_rbstar.parse(label("MED_ERR", "budget_ref", 16)), qrels, run)


def test_med_ap_bounds_beyond_the_budget(registered):
    # 50-70 shared documents, one list the other reversed, some documents of their own: the roots do not
    # close these searches (4 to 10 nodes)
    run, ref = {}, {}
    for seed in (2, 3, 36):
        rng = random.Random(seed)
        shared = [f"d{i}" for i in range(rng.randint(50, 70))]
        a, b = list(shared), shared[::-1]
        for i in range(rng.randint(0, 18)):
            a.insert(rng.randrange(len(a) + 1), f"a{i}")
        for i in range(rng.randint(0, 18)):
            b.insert(rng.randrange(len(b) + 1), f"b{i}")
        run[f"q{seed}"], ref[f"q{seed}"] = ranked(a), ranked(b)
    registered("budget_ref", ref)
    exact = med.exactness(run, "MED_AP(ref='budget_ref')@80")
    assert exact.exact.all() and (exact.nodes > 2).all()
    m = ir_rbstar.parse("MED_AP(ref='budget_ref',budget=1)@80")[0]
    with pytest.warns(BudgetWarning, match=r"3 of 3 queries .*'q2', 'q3', 'q36'"):
        ir_measures.calc_aggregate([m], None, run)
    table = med.exactness(run, m)
    assert (~table.exact).all() and (table.nodes == 2).all()
    assert (table.value.to_numpy() >= exact.value.to_numpy() - 1e-12).all()
    assert (table.value.to_numpy() > exact.value.to_numpy()).all()


def test_qubo_search_with_a_budget_bounds_the_enumerated_maximum():
    import itertools
    rng = np.random.default_rng(11)
    bounded = 0
    for _ in range(40):
        m = int(rng.integers(6, 12))
        c, l = float(rng.normal()), rng.normal(size=m)
        Q = rng.normal(size=(m, m))
        Q = np.triu(Q, 1) + np.triu(Q, 1).T
        best = max(c + l @ z + 0.5 * z @ Q @ z for z in map(np.array, itertools.product([0.0, 1.0], repeat=m)))
        for budget in (1, 3, None):
            value, nodes, exact = K.max_qubo(c, l, Q, rng.permutation(m), budget)
            assert value >= best - 1e-12
            assert exact == (value <= best + 1e-12) or not exact
            if exact:
                assert value == pytest.approx(best, abs=1e-12)
            if budget is not None:
                assert nodes <= budget
                bounded += not exact
    assert bounded > 10


# --- a query's value does not depend on the other queries ----------------------------------------------

@pytest.mark.parametrize("text", ["MED_ERR(ref='budget_ref',max_rel=2,budget=3)@16",
                                  "MED_ERR(ref='budget_ref',max_rel=2)@16",
                                  "MED_AP(ref='budget_ref',budget=1)@16", "MED_AP(ref='budget_ref')@16",
                                  # the closed forms, through the join of the two top-k lists of every query
                                  "MED_nDCG(ref='budget_ref',max_rel=2)@16", "MED_RBP(ref='budget_ref',p=0.8)@16",
                                  "MED_P(ref='budget_ref')@16", "MED_RBP(ref='budget_ref',p=0.8)"])
def test_a_query_has_the_same_value_alone_and_with_others(text, registered):
    run, ref, qrels, _ = cases(range(10))
    registered("budget_ref", ref)
    m = ir_rbstar.parse(text)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BudgetWarning)
        together = med.exactness(run, m, qrels).set_index("query_id")
        for q in run:
            alone = med.exactness({q: run[q]}, m, {q: qrels[q]}).set_index("query_id")
            assert alone.value[q] == together.value[q], q            # bit for bit
            assert alone.exact[q] == together.exact[q] and alone.nodes[q] == together.nodes[q]
            subset = [q, "q0", "q9"]
            some = med.exactness({p: run[p] for p in subset}, m, {p: qrels[p] for p in subset})
            assert some.set_index("query_id").value[q] == together.value[q]


def test_err_search_does_not_depend_on_the_chunking():
    rng = np.random.default_rng(0)
    n, k = 6, 12
    fa, fb = np.zeros((n, k)), np.zeros((n, k))
    va, vb = np.full((n, k), -1), np.full((n, k), -1)
    for q in range(n):
        va[q] = rng.permutation(k)
        vb[q] = rng.permutation(k)
    d = K.Dense(fa, fb, va, vb, np.full(n, k), 0.5)
    results = []
    for chunk in (1, 7, 20000):
        lower = np.zeros(n)
        cut, nodes = K._err_search(d, np.arange(n), lower, 50, chunk=chunk)
        results.append((lower, cut, nodes))
    for lower, cut, nodes in results[1:]:
        assert np.array_equal(lower, results[0][0]) and np.array_equal(cut, results[0][1])
        assert np.array_equal(nodes, results[0][2])
    assert (results[0][2] <= 50).all() and np.isfinite(results[0][1]).any()


def test_err_search_stays_within_its_budget_of_node_evaluations(monkeypatch):
    """Every scored node counts: the B&B's at most ``budget`` per row, the local search's neighbours (m per
    row and round) at most half of it, plus the start (before, the local search scored 8 rounds x m
    neighbours whatever the budget: at k = 1000 that was 4 GB and most of an hour for one pair of runs)."""
    from ir_rbstar.core.med import err
    scored = []

    class Counting(err._Nodes):
        def __call__(self, pid, depth, Z):
            scored.append(np.bincount(pid, minlength=n))
            return super().__call__(pid, depth, Z)
    monkeypatch.setattr(err, "_Nodes", Counting)
    rng = np.random.default_rng(1)
    n, k = 6, 40
    va = np.array([rng.permutation(k) for _ in range(n)])
    vb = np.array([rng.permutation(k) for _ in range(n)])
    d = K.Dense(np.zeros((n, k)), np.zeros((n, k)), va, vb, np.full(n, k), 0.5)
    for budget in (10, 100):
        scored.clear()
        cut, nodes = K._err_search(d, np.arange(n), np.zeros(n), budget)
        per_row = np.sum(scored, axis=0)
        assert (nodes <= budget).all() and (per_row <= 1 + budget // 2 + budget).all(), (budget, per_row)
        assert np.isfinite(cut).any()                      # bounded rows: the budget was what stopped them


def test_med_err_default_budget_shrinks_with_the_cutoff():
    from ir_rbstar.measures.med import ERR_BUDGET, default_budget
    assert [default_budget("MED_ERR", k) for k in (10, 30, 100, 1000)] == [ERR_BUDGET, ERR_BUDGET, 60_000, 6_000]
    assert default_budget("MED_AP", 1000) == ir_rbstar.MED_AP(ref="b.run")["budget"]
    # the measure itself says the budget it searches with (what ir_measures' m[param] gives)
    assert ir_rbstar.parse("MED_ERR(ref='b.run')@100")[0]["budget"] == 60_000
    assert ir_rbstar.parse("MED_ERR(ref='b.run',budget=7)@100")[0]["budget"] == 7
    assert ir_rbstar.parse("MED_ERR(ref='b.run')")[0]["budget"] == ERR_BUDGET          # default k = 30
    assert ir_rbstar.parse("MED_ERR(ref='b.run')@1000")[0]["budget"] == 6_000
    assert str(ir_rbstar.parse("MED_ERR(ref='b.run')@1000")[0]) == "MED_ERR(ref='b.run')@1000"     # not shown


def test_distance_warnings_name_the_runs_not_internal_references():
    run_a, run_b = ({"q": ranked([f"d{i}" for i in order])} for order in (range(12), reversed(range(12))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        med.distance_matrix({"first": run_a, "second": run_b}, "MED_ERR(budget=1)@12")
    texts = [str(w.message) for w in caught if issubclass(w.category, BudgetWarning)]
    assert texts and all("\x00" not in t and "pairwise" not in t for t in texts)
    assert texts[0].startswith("run 'first': MED_ERR(ref='second',budget=1)@12: 1 of 1 queries reached")


# --- hard cases ---------------------------------------------------------------------------------------

def same_order_pair(seed=0, n=84, inserted=16):
    """84 shared documents in the same order in both runs, 16 more inserted into one of them: one
    direction of MED_AP is then a chain whose maximum the roof bound alone could not reach (the search
    before the chain bound spent 38 s on this pair)."""
    rng = random.Random(seed)
    shared = [f"s{i}" for i in range(n)]
    a = list(shared)
    for i in range(inserted):
        a.insert(rng.randrange(len(a) + 1), f"a{i}")
    return a, shared


def directions(a, b, k, top=1.0):
    """The two directions of one query pair as Dense matrices (judgment-free), built from the lists."""
    pos_a = {d: i + 1 for i, d in enumerate(a[:k])}
    pos_b = {d: i + 1 for i, d in enumerate(b[:k])}

    def side(pos, other):
        docs = sorted(pos, key=pos.get)
        return K.Side(np.zeros(len(docs), dtype=np.int64), np.array([pos[d] for d in docs]),
                      np.full(len(docs), np.nan), np.array([other.get(d, 0) for d in docs]),
                      np.array([len(docs)]))
    sa, sb = side(pos_a, pos_b), side(pos_b, pos_a)
    return K.dense(sa, sb, 1, k, top), K.dense(sb, sa, 1, k, top)


def test_same_order_pair_is_solved_at_the_roots(registered):
    a, b = same_order_pair()
    registered("budget_ref", {"q": ranked(b)})
    run = {"q": ranked(a)}
    for kind, top in (("MED_AP", 1.0), ("MED_ERR", 0.5)):
        table = med.exactness(run, f"{kind}(ref='budget_ref')@100")
        assert table.exact.item()
        assert table.value.item() == pytest.approx(O.med_same_order(a, b, 100, kind[4:].lower(), top, {}), abs=1e-12)
    assert med.exactness(run, "MED_AP(ref='budget_ref')@100").nodes.item() <= 2
    # each direction alone (no shared incumbent): the chain bound closes the root
    for d in directions(a, b, 100):
        value, nodes = K.max_ap(d)
        assert nodes.tolist() == [1]


def read_top(path, k):
    """The first k documents of a TREC run file in trec_eval's order (score descending, ties by doc id
    descending), read without ir_rbstar."""
    with gzip.open(path, "rt") as f:
        rows = [line.split() for line in f if line.strip()]
    rows.sort(key=lambda r: r[2], reverse=True)
    rows.sort(key=lambda r: -float(r[4]))
    return [r[2] for r in rows[:k]]


@pytest.mark.skipif(not HARD.is_dir(), reason="needs ../shared/cases/med_ap_hard (two NIST TREC DL 2020 runs, "
                                              "not redistributable)")
@pytest.mark.parametrize("kind, k", [("MED_AP", 80), ("MED_AP", 90), ("MED_AP", 100), ("MED_ERR", 30),
                                     ("MED_ERR", 100)])
def test_trec_dl_2020_pair_is_exact_in_a_few_nodes(kind, k):
    run1, run2 = HARD / "dl20_run1_q197312.run.gz", HARD / "dl20_run2_q197312.run.gz"
    table = med.exactness(str(run1), f"{kind}(ref='{run2}')@{k}")
    assert table.query_id.tolist() == ["197312"]
    assert table.exact.item()
    a, b = read_top(run1, k), read_top(run2, k)
    top = 1.0 if kind == "MED_AP" else 0.5
    assert table.value.item() == pytest.approx(O.med_same_order(a, b, k, kind[4:].lower(), top, {}), abs=1e-12)
    assert table.nodes.item() <= (2 if kind == "MED_AP" else 1000)    # before: 1.9 million for ERR@100
    m = ir_rbstar.parse(f"{kind}(ref='{run2}')@{k}")[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", BudgetWarning)
        (metric,) = ir_rbstar.PROVIDER.iter_calc([m], None, str(run1))
    assert metric.value == table.value.item()
    if (kind, k) == ("MED_AP", 100):
        assert metric.value == pytest.approx(0.3115755456936384, abs=1e-12)


# --- parameters -------------------------------------------------------------------------------------------

def test_budget_parameter():
    assert str(ir_rbstar.MED_AP(ref="b.run")) == "MED_AP(ref='b.run')@100"          # the default is not shown
    m = ir_rbstar.parse("MED_AP(ref='b.run',budget=50)@100")[0]
    assert m["budget"] == 50 and str(m) == "MED_AP(ref='b.run',budget=50)@100"
    assert ir_rbstar.MED_ERR(ref="b.run")["budget"] >= 100_000 and ir_rbstar.MED_AP(ref="b.run")["budget"] >= 100
    for bad in (0, -3):
        with pytest.raises(ParameterError, match="budget"):
            ir_rbstar.MED_ERR(ref="b.run", budget=bad)
    with pytest.raises(ParameterError):
        ir_rbstar.MED_nDCG(ref="b.run", budget=5)          # closed form: no search, no budget
    with pytest.raises(ParameterError, match="exactness takes"):
        med.exactness({"q": {"a": 1.0}}, "nDCG@10")


def test_exactness_of_closed_form_measures(registered):
    registered("budget_ref", {"q": {"b": 2.0, "a": 1.0}})
    table = med.exactness({"q": {"a": 2.0, "b": 1.0}}, "MED_nDCG(ref='budget_ref')@2")
    assert table.columns.tolist() == ["query_id", "value", "exact", "nodes"]
    assert table.exact.item() and table.nodes.item() == 0


# --- max_rel: the grade scale of MED_nDCG and MED_ERR ----------------------------------------------------

GRADED = ["MED_nDCG(ref='scale_ref')@5", "MED_ERR(ref='scale_ref')@5"]


@pytest.fixture
def scale_ref(registered):
    registered("scale_ref", {"1": ranked(["b", "x", "a"]), "2": ranked(["c", "y"])})


@pytest.mark.parametrize("text", GRADED)
def test_top_grade_is_max_rel_not_the_qrels_highest_grade(text, scale_ref):
    run = {"1": ranked(["a", "b", "z"]), "2": ranked(["c", "d"])}
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 3, "d": 2}}
    # query 2 judges grade 3: above the default scale (max_rel=1), an error naming query, document, grade
    with pytest.raises(GradeScaleError, match=r"query '2' judges document 'c' with grade 3, above max_rel=1.*"
                                              r"give max_rel=3 or more"):
        ir_measures.calc_aggregate(ir_rbstar.parse(text), qrels, run)
    # with max_rel=3, query 1's value is the same with every query's judgments and with its own only
    m = ir_rbstar.parse(text.replace(")@", ",max_rel=3)@"))[0]
    full = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}
    alone = {r.query_id: r.value for r in ir_measures.iter_calc([m], {"1": qrels["1"]}, run)}
    assert alone["1"] == full["1"]
    # and it is the brute force with G = 3 (query 1 alone used G = 1 before: its own highest grade)
    a, b, k = ["a", "b", "z"], ["b", "x", "a"], 5
    score = (lambda v: O.ndcg(v, k, gain(3)(3))) if "nDCG" in text else (lambda v: O.err(v, k))
    want = O.med(a, b, k, score, [gain(3)(j) for j in range(4)], {"a": gain(3)(1), "b": 0.0})
    assert full["1"] == pytest.approx(want, abs=TOL)
    # the default scale (G = 1) on binary judgments: query 1 alone
    m1 = ir_rbstar.parse(text)[0]
    want1 = O.med(a, b, k, (lambda v: O.ndcg(v, k, 0.5)) if "nDCG" in text else (lambda v: O.err(v, k)),
                  [0.0, 0.5], {"a": 0.5, "b": 0.0})
    assert ir_measures.calc_aggregate([m1], {"1": qrels["1"]}, run)[m1] == pytest.approx(want1, abs=TOL)


@pytest.mark.parametrize("text", GRADED)
def test_judgment_free_values_ignore_the_grade_scale(text, scale_ref):
    run = {"1": ranked(["a", "b", "z"]), "2": ranked(["c", "d"])}
    qrels = {"1": {"a": 1}, "2": {"c": 3, "d": -1}}
    m = ir_rbstar.parse(text)[0]
    free = {r.query_id: r.value for r in ir_measures.iter_calc([m(judgments=False)], qrels, run)}
    none = {r.query_id: r.value for r in ir_measures.iter_calc([m], None, run)}
    assert free == none                                   # no GradeScaleError: the judgments are not used


def test_distance_matrix_with_graded_qrels_needs_max_rel():
    runs = {"a": {"1": ranked(["d1", "d2", "d3"])}, "b": {"1": ranked(["d2", "d1", "d4"])}}
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"], "relevance": [2, 0]})
    with pytest.raises(GradeScaleError, match="max_rel=2"):
        med.distance_matrix(runs, "MED_nDCG@3", qrels)
    assert med.distance_matrix(runs, "MED_nDCG(max_rel=2)@3", qrels).loc["a", "b"] >= 0.0
    # no measure given: MED_nDCG@20 on the qrels' own scale (max_rel=2 here), judgment-free without qrels
    default = med.distance_matrix(runs, qrels=qrels)
    assert default.attrs["measure"] == "MED_nDCG(max_rel=2)@20"
    pd.testing.assert_frame_equal(default, med.distance_matrix(runs, "MED_nDCG(max_rel=2)@20", qrels))
    assert med.distance_matrix(runs).attrs["measure"] == "MED_nDCG@20"


def test_distance_command_default_takes_the_qrels_grade_scale(tmp_path, capsys):
    from ir_rbstar.cli import main
    run_a, run_b, qrels = tmp_path / "a.run", tmp_path / "b.run", tmp_path / "graded.qrels"
    run_a.write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n")
    run_b.write_text("1 Q0 d2 1 3 b\n1 Q0 d1 2 2 b\n1 Q0 d4 3 1 b\n")
    qrels.write_text("1 0 d1 2\n1 0 d2 0\n")
    assert main(["distance", str(run_a), str(run_b), "--qrels", str(qrels)]) == 0
    assert capsys.readouterr().out.startswith("# MED_nDCG(max_rel=2)@20, mean over the queries")
    assert main(["distance", str(run_a), str(run_b), "--qrels", str(qrels), "--measure", "MED_nDCG@20"]) == 2
    assert "above max_rel=1" in capsys.readouterr().err


def test_internal_reference_names_are_replaced_longest_first():
    tags = {"abcdefghijkl"[i]: f"\x00pairwise:{i}" for i in range(12)}        # run 1 is 'b', run 10 is 'k'
    assert med._untagged("x \x00pairwise:1 y \x00pairwise:10 z '\x00pairwise:11'", tags) == "x b y k z 'l'"
