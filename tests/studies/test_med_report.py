"""docs/med.md (tests/test_docs.py runs its examples): the judged example is the actual difference, and
its generated block (MED-nDCG@20 distance matrices of the Robust04 and Robust03 official runs, MED
against the actual nDCG@20 difference with 0-100% of the judgments, the judgment-free family compared) is
what scripts/med_report.py computes now from ../shared/data. Independent checks: MED is never below the
actual difference, never grows as the (nested) judgment samples grow, the matrix is symmetric with a zero
diagonal (a shallow run against a copy of itself is not 0: that value is recomputed here), and some values are recomputed from
the run files with a plain-Python MED-nDCG (eq. 9 of Tan & Clarke, TKDE 2015) and with ir_measures
directly. The real-data tests skip when that data is absent."""
import functools
import gzip
import math
import re

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.stats import ranking_agreement
from tests.helpers import REPO, expected_python_output, load_script, names_command, run_dict, shared_data
from tests.oracles import med as O

DOC = REPO / "docs" / "med.md"
TOL = 1e-12

mr = load_script("med_report")


# ---------------------------------------------------------------------------------------------
# the document and the script's helpers (no shared data needed)

def test_doc_example_every_judged_is_the_actual_difference():
    """The first example's last row: with every document judged, MED is |S(a) - S(b)|, by the plain
    definitions of tests/oracles/med.py."""
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)[0]
    every = [line for line in expected_python_output(code) if line.startswith("every ")][0]
    values = [float(x) for x in every.split("[", 1)[1].rstrip("]").split(",")]
    a_docs, b_docs = ["d1", "d2", "d3"], ["d2", "d1", "d4"]
    grade = {"d1": 0, "d2": 1, "d3": 1, "d4": 0}
    binary = lambda docs: [1.0 if grade[d] >= 1 else 0.0 for d in docs]            # noqa: E731
    gain = lambda docs: [(2.0 ** grade[d] - 1) / 4.0 for d in docs]               # noqa: E731
    expected = [abs(O.precision(binary(a_docs), 3) - O.precision(binary(b_docs), 3)),
                abs(O.ndcg(gain(a_docs), 3, 0.75) - O.ndcg(gain(b_docs), 3, 0.75)),
                abs(O.ap(binary(a_docs), 3) - O.ap(binary(b_docs), 3)),
                abs(O.err(gain(a_docs), 3) - O.err(gain(b_docs), 3))]
    assert values == [round(x, 4) for x in expected]


def test_doc_structure():
    text = DOC.read_text()
    mr.generated_block(text)                  # exactly one pair of markers, in order
    assert names_command(text, "scripts.med_report")
    for name in ("med_robust04.png", "med_robust03.png", "med_fig2_robust04.png", "med_fig2_robust03.png"):
        assert f"](img/{name})" in text and (DOC.parent / "img" / name).stat().st_size > 10_000
    for measure in ("MED_P", "MED_RBP", "MED_nDCG", "MED_AP", "MED_ERR"):
        assert f"`{measure}" in text
    assert "register_run(\"bm25\"" in text and "judgments=False" in text
    assert "### What the numbers show" in text


def test_replace_block():
    doc = f"intro\n{mr.START}\nold\n{mr.END}\noutro\n"
    new = mr.replace_block(doc, "| a |")
    assert mr.generated_block(new) == "| a |" and new.startswith("intro\n") and new.endswith("outro\n")
    with pytest.raises(ValueError):
        mr.generated_block("no markers")


def test_sample_qrels_is_nested_and_keeps_every_topic():
    rng = np.random.default_rng(3)
    sizes = {"t1": 1, "t2": 2, "t3": 7, "t4": 40}
    qrels = pd.DataFrame([(q, f"{q}-d{i}", int(rng.integers(0, 3))) for q, n in sizes.items() for i in range(n)],
                         columns=["query_id", "doc_id", "relevance"])
    qrels = qrels.sample(frac=1.0, random_state=1).reset_index(drop=True)      # rows not grouped by topic
    samples = {level: mr.sample_qrels(qrels, level) for level in (0.25, 0.5, 0.75, 1.0)}
    keys = {level: set(zip(s["query_id"], s["doc_id"])) for level, s in samples.items()}
    assert keys[0.25] <= keys[0.5] <= keys[0.75] <= keys[1.0] == set(zip(qrels["query_id"], qrels["doc_id"]))
    for level, s in samples.items():
        counts = s.groupby("query_id").size().to_dict()
        assert counts == {q: math.ceil(level * n) for q, n in sizes.items()}
        merged = s.merge(qrels, on=["query_id", "doc_id"], suffixes=("", "_full"))
        assert len(merged) == len(s) and (merged["relevance"] == merged["relevance_full"]).all()
    # fixed seed: the same sample every time; another seed: another sample
    pd.testing.assert_frame_equal(mr.sample_qrels(qrels, 0.5), samples[0.5])
    assert set(zip(*mr.sample_qrels(qrels, 0.5, seed=1)[["query_id", "doc_id"]].T.values)) != keys[0.5]


# ---------------------------------------------------------------------------------------------
# real data (skips without ../shared/data)

@pytest.fixture(scope="module")
def results():
    for coll in mr.COLLECTIONS:
        shared_data(coll.qrels)
        shared_data(coll.runs)
    return {r.coll.key: r for r in mr.compute(shared_data())}


def test_doc_block_is_current(results):
    block = mr.report([results[c.key] for c in mr.COLLECTIONS])
    assert mr.generated_block(DOC.read_text()) == block, \
        "docs/med.md is stale: run  python -m scripts.med_report --write"


def test_shapes(results):
    r4, r3 = results["robust04"], results["robust03"]
    assert (len(r4.names), len(r4.topics), len(r4.pairs)) == (10, 249, 45)
    assert (len(r3.names), len(r3.topics), len(r3.pairs)) == (17, 100, 136)
    for r in results.values():
        assert len(r.per_topic) == len(r.pairs) * len(r.topics)
        assert not r.per_topic.isna().any().any()
    assert r4.family is not None and len(r4.family) == 45 and r3.family is None


@pytest.mark.parametrize("key", ["robust04", "robust03"])
def test_med_is_never_below_the_actual_difference(results, key):
    """MED is a maximum over every relevance assignment that agrees with the judgments given; the
    true one (unjudged = 0) is among them, at every level."""
    pt = results[key].per_topic
    for level in mr.LEVELS:
        c = mr.level_name(level)
        below = pt[pt[c] < pt["actual"] - TOL]
        assert below.empty, f"MED below the actual difference at {c}:\n{below.head()}"
    assert mr.violations(results[key]) == {mr.level_name(x): 0 for x in mr.LEVELS}


@pytest.mark.parametrize("key", ["robust04", "robust03"])
def test_med_shrinks_as_judgments_are_added(results, key):
    pt = results[key].per_topic
    cols = [mr.level_name(x) for x in mr.LEVELS]
    for more, fewer in zip(cols[1:], cols[:-1]):
        grown = pt[pt[more] > pt[fewer] + TOL]
        assert grown.empty, f"MED grew from {fewer} to {more}:\n{grown.head()}"
    # and it does shrink: judgments matter
    means = results[key].pairs[cols].mean()
    assert means.is_monotonic_decreasing and means.iloc[0] > 3 * means.iloc[-1]


@pytest.mark.parametrize("key", ["robust04", "robust03"])
def test_samples_are_nested_and_keep_the_topics(results, key):
    coll = {c.key: c for c in mr.COLLECTIONS}[key]
    qrels = _rbstar_qrels(shared_data(coll.qrels))
    s25, s75 = mr.sample_qrels(qrels, 0.25), mr.sample_qrels(qrels, 0.75)
    keys = lambda f: set(zip(f["query_id"].tolist(), f["doc_id"].tolist()))      # noqa: E731
    k25, k75 = keys(s25), keys(s75)
    assert k25 < k75 < keys(qrels)
    assert set(s25["query_id"]) == set(qrels["query_id"]) == set(results[key].topics)
    assert abs(len(s25) / len(qrels) - 0.25) < 0.01 and abs(len(s75) / len(qrels) - 0.75) < 0.01


@pytest.mark.parametrize("key", ["robust04", "robust03"])
def test_matrix_symmetric_zero_diagonal_and_the_pairs(results, key):
    r = results[key]
    m = r.matrix
    assert list(m.index) == list(m.columns) == r.names
    values = m.to_numpy()
    assert np.allclose(values, values.T, rtol=0, atol=1e-12)
    assert (np.diag(values) == 0.0).all()
    off = values[~np.eye(len(values), dtype=bool)]
    assert (off > 0).all() and (off <= 1).all()


def test_shallow_run_against_itself(results):
    """NLPR03vb10 has 10-12 documents per topic. Against a copy of itself, judgment-free, its documents
    cancel and only its unseen positions after the last document count (free in the list pushed up): per
    topic sum_{i > n} d(i) / sum_{i <= 20} d(i). The matrix's diagonal is 0 all the same."""
    r = results["robust03"]
    assert mr.shallow_runs(r) == ["NLPR03vb10"]
    assert list(r.itself) == ["NLPR03vb10"]
    j = r.judged[r.judged["run"] == "NLPR03vb10"]
    d = 1.0 / np.log2(np.arange(1, 21) + 1.0)
    expected = np.mean([d[n:].sum() / d.sum() for n in j["rows"]])
    assert r.itself["NLPR03vb10"] == pytest.approx(expected, abs=1e-12)
    assert r.matrix.loc["NLPR03vb10", "NLPR03vb10"] == 0.0


# ------------------------------------------------------------------ independent recomputation

# The files are read once per module (several tests use the same run or qrels); the readers only
# return what they read, and no test changes it.

@functools.cache
def _rbstar_qrels(path):
    """The qrels as ir_rbstar.read_qrels gives them (the form the script samples)."""
    return ir_rbstar.read_qrels(str(path))


@functools.cache
def _read_run(path):
    """query -> doc ids in trec_eval order (score as a C float descending, ties by doc id descending),
    read here."""
    with gzip.open(path, "rt") as f:
        frame = pd.read_csv(f, sep=r"\s+", header=None, usecols=[0, 2, 4], names=["q", "d", "s"],
                            dtype={"q": str, "d": str, "s": float})
    frame["s"] = frame["s"].astype(np.float32)
    frame = frame.sort_values(["q", "s", "d"], ascending=[True, False, False])
    return {q: part["d"].tolist() for q, part in frame.groupby("q", sort=False)}


@functools.cache
def _read_qrels(path):
    with gzip.open(path, "rt") as f:
        frame = pd.read_csv(f, sep=r"\s+", header=None, names=["q", "it", "d", "g"],
                            dtype={"q": str, "d": str, "g": int})
    return {q: dict(zip(p["d"], p["g"])) for q, p in frame.groupby("q")}


def _value(g):
    return (2.0 ** max(g, 0) - 1.0) / 4.0


def _med_ndcg(A, B, grades, k=20):
    """MED-nDCG@k by the paper's recipe for dot-product measures (eq. 9), plain Python: in the list pushed
    up, judged documents keep their value, unjudged ones in that list only (and unseen positions after
    its end) are r_G, a document in both lists is r_G where it helps (higher in the list pushed up);
    in the other list only judged documents count."""
    top = 0.75
    d = lambda i: 1.0 / math.log2(i + 1.0)                 # noqa: E731
    A, B = A[:k], B[:k]

    def direction(up, down):
        where = {doc: j for j, doc in enumerate(down, 1)}
        total = sum(top * d(i) for i in range(len(up) + 1, k + 1))
        for i, doc in enumerate(up, 1):
            if doc in grades:
                total += _value(grades[doc]) * d(i)
            elif doc in where:
                total += top * max(0.0, d(i) - d(where[doc]))
            else:
                total += top * d(i)
        return total - sum(_value(grades[doc]) * d(j) for j, doc in enumerate(down, 1) if doc in grades)

    return max(direction(A, B), direction(B, A), 0.0) / (top * sum(d(i) for i in range(1, k + 1)))


SPOT = {"robust04": [("fub04TDNge", "uogRobLWR10"), ("NLPR04clus10", "uic0401")],
        "robust03": [("InexpC2", "Sel50"), ("NLPR03vb10", "rutcor03100")]}


@pytest.mark.parametrize("key", ["robust04", "robust03"])
def test_spot_pairs_from_the_run_files(results, key):
    """MED at 0%, 25% and 100% and the actual difference of a few pairs, per topic, from the run and
    qrels files read here and the plain-Python MED-nDCG@20; the actual difference also by
    tests/oracles/med.py's nDCG with MED's normaliser."""
    coll = {c.key: c for c in mr.COLLECTIONS}[key]
    r = results[key]
    qrels = _read_qrels(shared_data(coll.qrels))
    s25 = mr.sample_qrels(_rbstar_qrels(shared_data(coll.qrels)), 0.25)
    qrels25 = {q: dict(zip(p["doc_id"], p["relevance"])) for q, p in s25.groupby("query_id")}
    pt = r.per_topic.set_index(["run", "ref", "query_id"])
    for a, b in SPOT[key]:
        A = _read_run(shared_data(coll.runs, f"{a}.gz"))
        B = _read_run(shared_data(coll.runs, f"{b}.gz"))
        for q in r.topics:
            row = pt.loc[(a, b, q)]
            la, lb = A.get(q, []), B.get(q, [])
            assert row["0%"] == pytest.approx(_med_ndcg(la, lb, {}), abs=1e-12)
            assert row["25%"] == pytest.approx(_med_ndcg(la, lb, qrels25[q]), abs=1e-12)
            assert row["100%"] == pytest.approx(_med_ndcg(la, lb, qrels[q]), abs=1e-12)
            gains = lambda docs: [_value(qrels[q].get(x, 0)) for x in docs[:20]]     # noqa: E731
            actual = abs(O.ndcg(gains(la), 20, 0.75) - O.ndcg(gains(lb), 20, 0.75))
            assert row["actual"] == pytest.approx(actual, abs=1e-12)
            if all(x in qrels[q] for x in la[:20] + lb[:20]) and min(len(la), len(lb)) >= 20:
                assert row["100%"] == pytest.approx(row["actual"], abs=1e-12)    # judged: MED is the difference


def test_pair_mean_by_calc_aggregate_and_standard_ndcg(results):
    """One pair at 75% and 0% (and its matrix cell) by ir_measures.calc_aggregate with the other run registered as ref; and the
    standard nDCG@20 column from ir_measures on the whole runs (pytrec_eval gets dicts built here column
    by column, as the script gives them too: ir_measures' own conversion of a DataFrame goes through a
    namedtuple per row)."""
    coll, (a, b) = mr.ROBUST04, SPOT["robust04"][0]
    r = results["robust04"]
    qrels = _rbstar_qrels(shared_data(coll.qrels))
    run_a = ir_rbstar.read_run(str(shared_data(coll.runs, f"{a}.gz")))
    run_b = ir_rbstar.read_run(str(shared_data(coll.runs, f"{b}.gz")))
    ir_rbstar.register_run("test-med-report-ref", run_b)
    try:
        m = ir_rbstar.parse("MED_nDCG(ref='test-med-report-ref',max_rel=2)@20")[0]
        value = ir_measures.calc_aggregate([m], mr.sample_qrels(qrels, 0.75), run_a)[m]
        free = ir_rbstar.parse("MED_nDCG(ref='test-med-report-ref',max_rel=2,judgments=False)@20")[0]
        value_free = ir_measures.calc_aggregate([free], qrels, run_a)[free]
    finally:
        ir_rbstar.unregister_run("test-med-report-ref")
    row = r.pairs.set_index(["run", "ref"]).loc[(a, b)]
    assert row["75%"] == pytest.approx(value, abs=1e-12)
    # the 0% level and the matrix, through ir_measures with the other run as ref
    assert row["0%"] == pytest.approx(value_free, abs=1e-12)
    assert r.matrix.loc[a, b] == pytest.approx(value_free, abs=1e-12)
    ndcg = ir_measures.parse_measure("nDCG@20")
    judged: dict = {}
    for q, d, g in zip(qrels["query_id"].tolist(), qrels["doc_id"].tolist(), qrels["relevance"].tolist()):
        judged.setdefault(q, {})[d] = int(g)
    evaluator = ir_measures.evaluator([ndcg], judged)
    per = {}
    for name, run in ((a, run_a), (b, run_b)):
        per[name] = {x.query_id: x.value for x in evaluator.iter_calc(run_dict(run))}
    diffs = [abs(per[a].get(q, 0.0) - per[b].get(q, 0.0)) for q in r.topics]
    assert row["standard"] == pytest.approx(np.mean(diffs), abs=1e-12)
    means = abs(np.mean([per[a].get(q, 0.0) for q in r.topics]) - np.mean([per[b].get(q, 0.0) for q in r.topics]))
    assert row["standard_means"] == pytest.approx(means, abs=1e-12)


def test_family_values(results):
    """The family table: every distance lies in [0, 1]; MED-RBP(0.95)
    of one pair recomputed by eq. 9 and 13 over the whole runs (depth 1000), judgment-free."""
    r = results["robust04"]
    fam = r.family.set_index(["run", "ref"])
    assert ((fam >= 0) & (fam <= 1)).all().all()
    a, b = SPOT["robust04"][0]
    A = _read_run(shared_data(mr.ROBUST04.runs, f"{a}.gz"))
    B = _read_run(shared_data(mr.ROBUST04.runs, f"{b}.gz"))
    p = 0.95
    d = lambda i: (1 - p) * p ** (i - 1)              # noqa: E731

    def direction(up, down):
        where = {doc: j for j, doc in enumerate(down, 1)}
        total = p ** len(up)                          # the unseen tail after the list's end
        for i, doc in enumerate(up, 1):
            total += max(0.0, d(i) - d(where[doc])) if doc in where else d(i)
        return total

    values = [max(direction(A.get(q, []), B.get(q, [])), direction(B.get(q, []), A.get(q, [])))
              for q in r.topics]
    assert fam.loc[(a, b), "MED-RBP 0.95"] == pytest.approx(np.mean(values), abs=1e-9)


def test_correlations_rise_with_judgments_on_robust04(results):
    """What the docs say about Robust04: MED tracks the actual difference better with more judgments
    (tau-b grows from 0% to 100%)."""
    p = results["robust04"].pairs
    taus = [ranking_agreement(p[mr.level_name(x)], p["actual"]).tau_b for x in mr.LEVELS]
    assert taus == sorted(taus) and taus[-1] > taus[0]
