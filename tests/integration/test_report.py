"""``ir-rbstar report`` (ir_rbstar/report.py) and docs/report.md.

Independent checks: the means are recomputed per run with ``ir_measures.calc_aggregate`` (the names the
report registers are registered again here), per-query values with ``ir_measures.iter_calc``; ranks
are recounted from the means; the randomization test is compared with a plain-Python enumeration of
all 2^n sign flips in exact fractions; Holm's correction with a hand example and a plain loop. Needs
only the bundled Vaswani collection."""
import importlib.util
import itertools
import math
import os
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar
from ir_rbstar import report
from ir_rbstar.errors import (InputFormatError, MissingQrelsError, ParameterError, ReferenceNotFoundError)
from tests.helpers import REPO, VASWANI

DOC = REPO / "docs" / "report.md"
QRELS = str(VASWANI / "qrels")
FIRST_STAGE = ["bm25", "bm25_flat", "bm25_round1", "bm25l"]
RUNS = {name: str(VASWANI / f"{name}.run.gz") for name in FIRST_STAGE}
REFERENCE = str(VASWANI / "minilm_rerank.run.gz")
TOL = 1e-9


def _registry():
    return ir_rbstar.registered_runs(), ir_rbstar.registered_groups()


@pytest.fixture(scope="module")
def demo(demo_report_run):
    """The demo report, as ``ir-rbstar report --demo --output /tmp/ir_rbstar_report --quiet``
    (docs/report.md's example) makes it: run once for the session (tests/conftest.py, with the table
    ``build_report`` returned and the progress steps it announced), test_docs.py checks its stdout."""
    run = demo_report_run
    assert run["rc"] == 0, run["stderr"]
    assert run["registry_after"] == run["registry_before"]   # the names it registered are gone again
    out = run["dir"]
    return {"dir": out, "table": run["table"], "calls": run["calls"],
            "means": pd.read_csv(out / "means.tsv", sep="\t", dtype={"run": str}),
            "sig": pd.read_csv(out / "significance.tsv", sep="\t", keep_default_na=False,
                               dtype={"run": str, "significant": str}),
            "text": (out / "report.md").read_text()}


# ---------------------------------------------------------------------------------------------
# the demo report

def test_demo_report_writes_its_files(demo):
    out = demo["dir"]
    for name in ("report.md", "per_query.tsv", "means.tsv", "significance.tsv", "robust.tsv", "distance_med.tsv",
                 "distance_rbo.tsv"):
        assert (out / name).stat().st_size > 0, name
    pictures = ["effort_gain.png", "nrg.png", "distance_med.png", "distance_rbo.png", "crp.png"]
    if _has_matplotlib():
        for name in pictures:
            assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
            assert f"![{name}]({name})" in demo["text"]
    assert sorted(demo["table"].attrs["files"]) == sorted(os.listdir(out))
    for section in ("## Measures", "## Means", "## Ranks", "## Significance against the baseline",
                    "## Robust to what is not known", "## Distances between the runs", "## Pictures"):
        assert section in demo["text"]
    assert "Holm" in demo["text"] and "randomization" in demo["text"]


def _has_matplotlib():
    return importlib.util.find_spec("matplotlib") is not None


def test_per_query_table_covers_every_run_and_query(demo):
    table = demo["table"]
    qids = ir_rbstar.read_qrels(QRELS)["query_id"].unique()
    assert list(table.index.names) == ["run", "query_id"]
    assert list(table.index.get_level_values("run").unique()) == FIRST_STAGE
    assert len(table) == len(FIRST_STAGE) * len(qids)
    written = pd.read_csv(demo["dir"] / "per_query.tsv", sep="\t", dtype={"run": str, "query_id": str})
    assert list(written.columns[2:]) == list(table.columns)
    np.testing.assert_allclose(written.iloc[:, 2:].to_numpy(), table.to_numpy(), rtol=0, atol=1e-12)


def _register_like_the_report():
    ir_rbstar.register_run("minilm_rerank", REFERENCE)
    ir_rbstar.register_run("bm25", RUNS["bm25"])
    ir_rbstar.register_runs("others", RUNS)


def _unregister():
    for name in ("minilm_rerank", "bm25"):
        ir_rbstar.unregister_run(name)
    ir_rbstar.unregister_runs("others")


def _measure(label):
    return ir_measures.parse_measure(label[2:] if label.startswith("1-") else label)


def test_means_equal_ir_measures_evaluated_per_run(demo):
    means = demo["means"]
    labels = list(dict.fromkeys(means["measure"]))
    assert labels == report.default_measures("minilm_rerank", "bm25", "others").split()
    qrels = ir_rbstar.read_qrels(QRELS)
    _register_like_the_report()
    try:
        for name, path in RUNS.items():
            measures = {label: _measure(label) for label in labels}
            result = ir_measures.calc_aggregate(list(measures.values()), qrels, ir_rbstar.read_run(path))
            for label, m in measures.items():
                expected = 1.0 - result[m] if label.startswith("1-") else result[m]
                row = means[(means["run"] == name) & (means["measure"] == label)]
                assert len(row) == 1
                assert row["mean"].item() == pytest.approx(expected, abs=TOL), (name, label)
                assert row["queries"].item() == 93
    finally:
        _unregister()


def test_per_query_values_equal_ir_measures_iter_calc(demo):
    table = demo["table"]
    qrels = ir_rbstar.read_qrels(QRELS)
    _register_like_the_report()
    try:
        labels = ["nDCG@10", "AP", "RBP(p=0.8)", "RBR(p=0.8,ref='minilm_rerank')@20", "NRG(prior='others')@10"]
        measures = [ir_rbstar.parse_measure(x) for x in labels]
        for name in ("bm25_flat", "bm25_round1"):
            got = table.xs(name, level="run")
            for metric in ir_measures.iter_calc(measures, qrels, ir_rbstar.read_run(RUNS[name])):
                assert got.at[metric.query_id, str(metric.measure)] == pytest.approx(metric.value, abs=TOL)
    finally:
        _unregister()


def test_demo_means_match_the_demo_command(tmp_path):
    """Another path through the package: ``ir-rbstar demo``'s table (its NRG group also holds the
    reference run, so NRG is not compared)."""
    from ir_rbstar.demo import demo_table
    table = demo_table()
    out = report.build_report(QRELS, RUNS, tmp_path, reference=REFERENCE,
                              measures="nDCG@10 P_TA@10 RBA(p=0.8,ref='minilm_rerank') Twist", pictures=False)
    means = out.groupby(level="run").mean()
    for name in FIRST_STAGE:
        for label in means.columns:
            assert means.at[name, label] == pytest.approx(table.at[name, label], abs=TOL)


def test_names_registered_before_are_hidden_while_it_runs_and_restored(tmp_path):
    """The report's names (reference, baseline, 'others') refer to its own runs while it runs; what
    the user had registered under them is back afterwards."""
    mine = {"1": {"d": 1.0}}
    ir_rbstar.register_run("bm25", mine)
    ir_rbstar.register_run("minilm_rerank", mine)
    ir_rbstar.register_runs("others", {"x": mine})
    registered = ir_rbstar.references.resolve_run("bm25")
    reference = ir_rbstar.references.resolve_run("minilm_rerank")
    group = ir_rbstar.references.resolve_runs("others")
    try:
        table = report.build_report(QRELS, {"bm25": RUNS["bm25"], "bm25l": RUNS["bm25l"]}, tmp_path,
                                    reference=REFERENCE, baseline="bm25", pictures=False,
                                    measures="RBO(p=0.9,ref='minilm_rerank') MED_nDCG(ref='bm25')@10 "
                                             "NRG(prior='others')@10")
        means = table.groupby(level="run").mean()
        assert means.at["bm25", "MED_nDCG(ref='bm25')@10"] == pytest.approx(0.0, abs=1e-12)
        assert means.at["bm25", "RBO(p=0.9,ref='minilm_rerank')"] == pytest.approx(0.3419, abs=1e-4)  # demo table
        assert ir_rbstar.references.resolve_run("bm25") is registered
        assert ir_rbstar.references.resolve_run("minilm_rerank") is reference
        restored = ir_rbstar.references.resolve_runs("others")
        assert [n for n, _ in restored.runs] == ["x"] and restored.runs[0][1] is group.runs[0][1]
    finally:
        ir_rbstar.unregister_run("bm25")
        ir_rbstar.unregister_run("minilm_rerank")
        ir_rbstar.unregister_runs("others")


def test_ranks_agree_with_the_means(demo):
    means = demo["means"]
    columns = {c.label: c for c in report.catalogue._parse_columns(report.default_measures("minilm_rerank", "bm25", "others"),
                                                          "bm25")}
    for label, rows in means.groupby("measure", sort=False):
        column = columns[label]
        if not column.better:
            assert rows["rank"].isna().all(), label
            continue
        values = rows["mean"].to_numpy()
        sign = -1.0 if column.better == "lower" else 1.0
        for value, rank in zip(values, rows["rank"].to_numpy()):
            assert rank == 1 + int((sign * values > sign * value).sum()), label
    unranked = {label for label, c in columns.items() if not c.better}
    assert unranked == {"RBP_res(p=0.8)", "MED_nDCG(ref='bm25')@10", "1-RBO(p=0.9,ref='bm25')"}


def test_lower_is_better_measures_are_ranked_ascending(tmp_path):
    measures = "nDCG@10 MED_nDCG(ref='minilm_rerank')@10 1-RBO(p=0.9,ref='minilm_rerank')"
    report.build_report(QRELS, RUNS, tmp_path, reference=REFERENCE, measures=measures, pictures=False)
    means = pd.read_csv(tmp_path / "means.tsv", sep="\t")
    for label in ("MED_nDCG(ref='minilm_rerank')@10", "1-RBO(p=0.9,ref='minilm_rerank')"):
        rows = means[means["measure"] == label]
        assert rows.sort_values("mean")["rank"].tolist() == [1, 2, 3, 4], label
    text = (tmp_path / "report.md").read_text()
    assert "`MED_nDCG(ref='minilm_rerank')@10` (lower is better)" in text
    assert "No baseline" in text


def test_significance_table(demo):
    sig, table = demo["sig"], demo["table"]
    assert set(sig["run"]) == {"bm25_flat", "bm25_round1", "bm25l"}
    assert len(sig) == 3 * 13                        # 16 measures, 3 of them not tested
    assert (sig["queries"] == 93).all()
    np.testing.assert_allclose(sig["difference"], sig["run_mean"] - sig["baseline_mean"], atol=1e-12)
    # Holm over a family per measure: the runs compared with the baseline under that measure
    for _, group in sig.groupby("measure"):
        np.testing.assert_allclose(group["p_holm"], _plain_holm(group["p"].tolist()), atol=1e-12)
    # P@10 of bm25_round1 and bm25 differ by +-0.1 on an odd number of queries and by 0.1 in sum: every
    # sign flip leaves an odd number of +-0.1, whose |sum| is at least 0.1, so p = 1 exactly
    diff = (table.xs("bm25_round1", level="run")["P@10"] - table.xs("bm25", level="run")["P@10"]).to_numpy()
    nonzero = diff[np.abs(diff) > 1e-12]
    assert len(nonzero) % 2 == 1 and np.allclose(np.abs(nonzero), 0.1) and abs(diff.sum()) == pytest.approx(0.1)
    row = sig[(sig["run"] == "bm25_round1") & (sig["measure"] == "P@10")]
    assert row["p"].item() == 1.0
    # the markers: significant after the correction, in the direction of the difference
    for r in sig.itertuples():
        expected = "" if r.p_holm > 0.05 else ("better" if r.difference > 0 else "worse")
        assert r.significant == expected


def test_doc_claims_about_the_demo_significance(demo):
    """docs/report.md: bm25_flat vs bm25 is not significant in P@10, AP, nDCG@10, and is in RBR, RBA,
    RBO (worse) and NRG (better), each at p (Holm) = 0.0003 (Holm over the 3 runs of the measure)."""
    sig = demo["sig"]
    flat = sig[sig["run"] == "bm25_flat"].set_index("measure")
    for label in ("P@10", "AP", "nDCG@10"):
        assert flat.at[label, "significant"] == ""
    for label, direction in (("RBR(p=0.8,ref='minilm_rerank')@20", "worse"), ("RBA(p=0.9,ref='minilm_rerank')", "worse"),
                             ("RBO(p=0.9,ref='minilm_rerank')", "worse"), ("NRG(prior='others')@10", "better")):
        assert flat.at[label, "significant"] == direction
        assert round(flat.at[label, "p_holm"], 4) == 0.0003
    assert "(p (Holm) = 0.0003)" in DOC.read_text()


def test_progress_is_reported_step_by_step(demo):
    calls = demo["calls"]
    total = calls[0][1]
    assert [c[0] for c in calls] == list(range(1, total + 1))
    assert all(c[1] == total for c in calls) and all(isinstance(c[2], str) and c[2] for c in calls)
    messages = [c[2] for c in calls]
    assert messages[0].startswith("reading the qrels")
    assert any(m.startswith("evaluating bm25_flat") for m in messages)
    assert any("significance" in m for m in messages)
    assert messages[-1] == "writing report.md"


def test_crp_topic_is_the_median_twist_query(demo):
    twist = demo["table"].xs("bm25", level="run")["Twist"].dropna()
    median = float(np.median(twist.to_numpy()))
    nearest = (twist - median).abs()
    topic = nearest[nearest == nearest.min()].index[0]
    assert f"CRP curve of bm25 on query {topic} " in demo["text"]


def test_groups_make_nrg_use_the_best_run_of_every_other_group(tmp_path):
    groups = tmp_path / "groups.tsv"
    groups.write_text("# run\tgroup\nbm25\tokapi\nbm25_round1\tokapi\n\nbm25l\tlucene\nbm25_flat\tflat\n")
    table = report.build_report(QRELS, RUNS, tmp_path / "out", groups=str(groups), measures="nDCG@10 NRG(prior='others')@10",
                                pictures=False)
    team = {"bm25": "okapi", "bm25_round1": "okapi", "bm25l": "lucene", "bm25_flat": "flat"}
    qrels = ir_rbstar.read_qrels(QRELS)
    best = ir_rbstar.nrg.best_per_team(RUNS, team, qrels, "nDCG@10")
    ir_rbstar.register_runs("others", RUNS, teams=team, best=best)
    try:
        m = ir_measures.parse_measure("NRG(prior='others')@10")
        for name, path in RUNS.items():
            expected = ir_measures.calc_aggregate([m], qrels, ir_rbstar.read_run(path))[m]
            got = table.xs(name, level="run")[str(m)].mean()
            assert got == pytest.approx(expected, abs=TOL), name
        # an independent fact: bm25_round1's only prior among the others is the best of lucene and
        # flat, so it differs from NRG against all the other runs
        ir_rbstar.register_runs("others", RUNS)
        plain = ir_measures.calc_aggregate([m], qrels, ir_rbstar.read_run(RUNS["bm25_round1"]))[m]
        assert abs(table.xs("bm25_round1", level="run")[str(m)].mean() - plain) > 1e-6
    finally:
        ir_rbstar.unregister_runs("others")
    assert "the best run by nDCG@10 of every other group" in (tmp_path / "out" / "report.md").read_text()


def test_without_matplotlib_the_report_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # "import matplotlib" now fails
    table = report.build_report(QRELS, {"bm25": RUNS["bm25"], "bm25l": RUNS["bm25l"]}, tmp_path,
                                measures="nDCG@10", baseline="bm25")
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".png")]
    assert not [f for f in table.attrs["files"] if f.endswith(".png")]
    assert 'pip install "ir_rbstar[plot]"' in (tmp_path / "report.md").read_text()


def test_runs_from_dataframes_and_dicts(tmp_path):
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}, "q3": {"x": 0}}
    runs = {"one": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"e": 1.0}},
            "two": pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["c", "a", "d"], "score": [2.0, 1.0, 1.0]})}
    table = report.build_report(qrels, runs, tmp_path, baseline="two", measures="P@2 RBP(p=0.5,max_rel=2) Twist",
                                pictures=False, max_rel=2)
    # by hand: P@2 of one: q1 {a, b} -> 1/2 (grade >= 1: a), q2 {e} -> 0; of two: q1 {c, a} -> 1, q2 {d} -> 1/2
    one, two = table.xs("one", level="run"), table.xs("two", level="run")
    assert one.loc[["q1", "q2"], "P@2"].tolist() == [0.5, 0.0]
    assert two.loc[["q1", "q2"], "P@2"].tolist() == [1.0, 0.5]
    # RBP(p=0.5), graded gain grade / max_rel = grade / 2: one q1 (a, b, c) = 0.5*0.5 + 0 + 0.125*1
    assert one.at["q1", "RBP(p=0.5,max_rel=2)"] == pytest.approx(0.5 * 0.5 + 0 + 0.125 * 1.0)
    assert one.at["q3", "Twist"] == 0.0              # no relevant document: 0, as at every other door
    means = pd.read_csv(tmp_path / "means.tsv", sep="\t")
    twist = means[means["measure"] == "Twist"]
    assert twist["queries"].tolist() == [3, 3]


# ---------------------------------------------------------------------------------------------
# the statistics

def _exact_p(numerators):
    """Plain Python: the share of the 2^n sign flips whose |sum| reaches the observed |sum|, for the
    differences numerators[i] / some common denominator (exact integer arithmetic)."""
    observed = abs(sum(numerators))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(numerators))
               if abs(sum(s * x for s, x in zip(signs, numerators))) >= observed)
    return Fraction(hits, 2 ** len(numerators))


eighths = st.lists(st.integers(-40, 40), min_size=1, max_size=12)


@settings(max_examples=examples(80))
@given(eighths)
def test_randomization_test_is_the_exact_enumeration_for_small_n(numerators):
    diffs = [k / 8 for k in numerators]
    assert report.randomization_test(diffs) == pytest.approx(float(_exact_p(numerators)), abs=1e-12)


@settings(max_examples=examples(150))
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=10))
def test_randomization_test_on_decimal_differences(thousandths):
    """Differences such as 0.1, 0.2, 0.3 are not exact binary fractions: the float sums of the flips
    carry rounding errors (0.1 + 0.2 != 0.3), which must not decide a tie. The reference counts with
    the exact decimal values."""
    diffs = [k / 1000 for k in thousandths]
    exact = _exact_p(thousandths)
    assert report.randomization_test(diffs) == pytest.approx(float(exact), abs=1e-12)


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=14, max_size=15))
def test_randomization_test_samples_close_to_the_exact_p_for_larger_n(numerators):
    diffs = [k / 8 for k in numerators]
    exact = float(_exact_p(numerators))
    b = report.DEFAULT_PERMUTATIONS
    p = report.randomization_test(diffs)
    assert 1.0 / (b + 1) <= p <= 1.0
    assert abs(p - exact) <= 4.5 * math.sqrt(exact * (1 - exact) / b) + 2.0 / b


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=9, max_size=11), st.integers(0, 2 ** 32 - 1))
def test_randomization_test_with_few_permutations_samples(numerators, seed):
    diffs = [k / 8 for k in numerators]
    exact = float(_exact_p(numerators))
    b = 400                                      # < 2^9: random flips
    p = report.randomization_test(diffs, permutations=b, seed=seed)
    assert p == report.randomization_test(diffs, permutations=b, seed=seed)       # reproducible
    assert abs(p - exact) <= 4.5 * math.sqrt(exact * (1 - exact) / b) + 2.0 / b


def test_randomization_pvalues_batch_equals_single_tests():
    rng = np.random.default_rng(7)
    diffs = [rng.normal(0.02, 0.1, size=n) for n in (5, 30, 30, 93, 0)]
    batch = report.randomization_pvalues(diffs)
    single = [report.randomization_test(d) for d in diffs]
    np.testing.assert_array_equal(batch[:4], single[:4])
    assert np.isnan(batch[4]) and np.isnan(single[4])
    assert report.randomization_test(np.zeros(50)) == 1.0
    assert report.randomization_test([0.3] * 40) == pytest.approx(1.0 / (report.DEFAULT_PERMUTATIONS + 1))


@pytest.mark.parametrize("bad", [[[1.0, float("nan")]], [[[1.0, 2.0]]]])
def test_randomization_pvalues_rejects_bad_input(bad):
    with pytest.raises(ParameterError):
        report.randomization_pvalues(bad)
    with pytest.raises(ParameterError):
        report.randomization_pvalues([[1.0]], permutations=0)


def _plain_holm(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * p[i]))
        out[i] = running
    return out


def test_holm_hand_example():
    # sorted: 0.005 x 4 = 0.02; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04 -> kept at 0.06
    assert report.holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert report.holm([0.5, float("nan"), 0.01]).tolist()[::2] == pytest.approx([0.5, 0.02])
    assert np.isnan(report.holm([0.5, float("nan"), 0.01])[1])
    assert report.holm([]).tolist() == []
    with pytest.raises(ParameterError):
        report.holm([1.5])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_equals_a_plain_loop(p):
    got = report.holm(p)
    assert got.tolist() == pytest.approx(_plain_holm(p), abs=1e-12)
    assert (got >= np.asarray(p) - 1e-15).all() and (got <= 1).all()


# ---------------------------------------------------------------------------------------------
# errors: typed, naming the input, before anything is written

@pytest.fixture
def unchanged_registry():
    before = _registry()
    yield
    assert _registry() == before


def test_unknown_baseline(tmp_path, unchanged_registry):
    with pytest.raises(ParameterError, match=r"baseline='nope'.*'bm25'"):
        report.build_report(QRELS, RUNS, tmp_path / "out", baseline="nope")
    assert not (tmp_path / "out").exists()


def test_baseline_given_as_the_path_of_a_run(tmp_path):
    report.build_report(QRELS, {"bm25": RUNS["bm25"], "bm25l": RUNS["bm25l"]}, tmp_path, baseline=RUNS["bm25"],
                        measures="nDCG@10", pictures=False)
    assert "Baseline: `bm25`" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("given", ["bm25.run.gz", "bm25.run", "elsewhere/bm25.run.gz"])
def test_baseline_given_as_a_runs_file_name(tmp_path, given):
    # the command names a run by its file name without .gz/.run/.txt; its file name is taken for it too
    report.build_report(QRELS, {"bm25": RUNS["bm25"], "bm25l": RUNS["bm25l"]}, tmp_path, baseline=given,
                        measures="nDCG@10", pictures=False)
    assert "Baseline: `bm25`" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("runs", [{}, []])
def test_no_run(tmp_path, runs, unchanged_registry):
    with pytest.raises(ParameterError, match="at least one run"):
        report.build_report(QRELS, runs, tmp_path / "out")


def test_output_is_a_file(tmp_path, unchanged_registry):
    target = tmp_path / "report.md"
    target.write_text("not a folder")
    with pytest.raises(ParameterError, match=re.escape(str(target))):
        report.build_report(QRELS, RUNS, target)


def test_missing_run_file(tmp_path, unchanged_registry):
    missing = str(tmp_path / "absent.run")
    with pytest.raises(FileNotFoundError, match=re.escape(missing)):
        report.build_report(QRELS, [RUNS["bm25"], missing], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_groups_file_naming_an_unknown_run(tmp_path, unchanged_registry):
    groups = tmp_path / "groups.tsv"
    groups.write_text("bm25\ta\nbm25_flat\ta\nbm25_round1\tb\nbm25l\tb\nbm99\tc\n")
    with pytest.raises(ParameterError, match=rf"{re.escape(str(groups))} line 5: run 'bm99' is not one of the runs"):
        report.build_report(QRELS, RUNS, tmp_path / "out", groups=str(groups))
    assert not (tmp_path / "out").exists()


def test_groups_file_errors(tmp_path, unchanged_registry):
    groups = tmp_path / "groups.tsv"
    groups.write_text("bm25\ta\nbm25_flat\n")
    with pytest.raises(InputFormatError, match=rf"{re.escape(str(groups))} line 2"):
        report.read_groups(str(groups), FIRST_STAGE)
    groups.write_text("bm25\ta\nbm25\tb\n")
    with pytest.raises(InputFormatError, match="line 2: run 'bm25' is already in group 'a'"):
        report.read_groups(str(groups), FIRST_STAGE)
    groups.write_text("bm25\ta\n")
    with pytest.raises(ParameterError, match="no group for run 'bm25_flat'"):
        report.read_groups(str(groups), FIRST_STAGE)
    with pytest.raises(ParameterError, match=r"groups\['x'\]: run 'x' is not one of the runs"):
        report.read_groups({"x": "a"}, FIRST_STAGE)
    with pytest.raises(FileNotFoundError, match="absent.tsv"):
        report.read_groups(str(tmp_path / "absent.tsv"), FIRST_STAGE)


def test_other_bad_input(tmp_path, unchanged_registry):
    with pytest.raises(MissingQrelsError):
        report.build_report(None, RUNS, tmp_path / "a")
    with pytest.raises(ReferenceNotFoundError, match="reference='nowhere.run'"):
        report.build_report(QRELS, RUNS, tmp_path / "b", reference="nowhere.run")
    with pytest.raises(ParameterError, match="unknown measure 'NoSuchMeasure'"):
        report.build_report(QRELS, RUNS, tmp_path / "c", measures="nDCG@10 NoSuchMeasure@10")
    with pytest.raises(ParameterError, match="'1-' makes a distance"):
        report.build_report(QRELS, RUNS, tmp_path / "d", measures="1-nDCG@10")
    with pytest.raises(ParameterError, match="alpha=1.5"):
        report.build_report(QRELS, RUNS, tmp_path / "e", alpha=1.5)
    with pytest.raises(ParameterError, match="topic='nope'"):
        report.build_report(QRELS, RUNS, tmp_path / "f", topic="nope", measures="nDCG@10")


def _cli(*argv):
    """``ir-rbstar report ARGV`` in this process (cli.main, what the console script calls; the entry point
    itself is tested in test_contract.py): its exit code, stdout and stderr."""
    from tests.helpers import run_command
    rc, out, err = run_command(["report", *argv], REPO)
    return subprocess.CompletedProcess(["ir-rbstar", "report", *argv], rc, out, err)


def test_cli_errors(tmp_path):
    done = _cli(QRELS, "--output", str(tmp_path / "x"))
    assert done.returncode == 2 and "at least one RUN" in done.stderr
    done = _cli("--demo", QRELS, "--output", str(tmp_path / "x"))
    assert done.returncode == 2 and "--demo" in done.stderr
    done = _cli(QRELS, RUNS["bm25"], "--baseline", "bm99", "--output", str(tmp_path / "x"))
    assert done.returncode == 2 and "baseline='bm99'" in done.stderr
    assert not (tmp_path / "x").exists()


def test_cli_prints_progress_on_stderr(tmp_path):
    done = _cli(QRELS, RUNS["bm25"], RUNS["bm25l"], "--measures", "nDCG@10", "--no-pictures",
                "--output", str(tmp_path), "--progress")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    total = len(lines)
    assert lines[0] == f"ir-rbstar report: [1/{total}] reading the qrels {QRELS}"
    assert lines[-1] == f"ir-rbstar report: [{total}/{total}] writing report.md"
    # not a terminal and not asked: quiet
    quiet = _cli(QRELS, RUNS["bm25"], "--measures", "nDCG@10", "--no-pictures", "--output", str(tmp_path / "q"))
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert done.stdout.splitlines()[0] == f"10 files written to {tmp_path}:"


# ---------------------------------------------------------------------------------------------
# docs/report.md

def test_doc_means_excerpt_is_the_demo_report(demo):
    doc = DOC.read_text()
    excerpt = doc.split("<!-- report-demo-means:start -->", 1)[1].split("<!-- report-demo-means:end -->", 1)[0]
    table = demo["text"].split("## Means", 1)[1].split("## Ranks", 1)[0]
    table = "\n".join(line for line in table.splitlines() if line.startswith("|"))
    assert excerpt.strip() == table.strip()


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=2, max_size=12))
def test_randomization_test_equals_scipys_exact_permutation_test(numerators):
    """With all 2^n sign flips enumerated, the report's randomization test is scipy.stats.permutation_test
    (permutation_type='samples', statistic: the mean difference, two-sided), which enumerates them too."""
    import scipy.stats
    diffs = np.array(numerators, dtype=np.float64) / 8
    ours = report.randomization_test(diffs)
    if not diffs.any():
        assert ours == 1.0
        return
    theirs = scipy.stats.permutation_test((diffs,), lambda x, axis: np.mean(x, axis=axis), vectorized=True,
                                          permutation_type="samples", n_resamples=10_000).pvalue
    assert ours == pytest.approx(min(theirs, 1.0), abs=1e-12)


def test_results_tables_hold_the_report_means(demo):
    """results.json's cells are the means of means.tsv, with the 95% interval of report.md (the BCa interval of
    the per-query values in [0, 1], ir_rbstar.stats.mean_intervals) and the Holm p of significance.tsv;
    results.tex and results.html hold the same table."""
    import json

    from ir_rbstar.stats import mean_intervals
    doc = json.loads((demo["dir"] / "results.json").read_text())
    means = demo["means"].set_index(["run", "measure"])
    sig = demo["sig"].set_index(["run", "measure"])
    intervals = {}                                     # as the report computes them: per measure, queries x runs
    for label in demo["table"].columns:
        got = mean_intervals(demo["table"][label].unstack("run")[FIRST_STAGE].clip(0.0, 1.0).to_numpy(),
                             bounds=(0.0, 1.0), level=0.95)
        intervals.update({(run, label): (got["low"].iloc[j], got["high"].iloc[j]) for j, run in enumerate(FIRST_STAGE)})
    assert doc["baseline"] == "bm25" and doc["runs"] == list(dict.fromkeys(demo["means"]["run"]))
    for cell in doc["cells"]:
        key = (cell["run"], cell["measure"])
        assert cell["mean"] == pytest.approx(means.at[key, "mean"], abs=1e-12)
        values = demo["table"].loc[cell["run"], cell["measure"]].dropna().to_numpy()
        assert (cell["low"], cell["high"]) == pytest.approx(intervals[key], abs=1e-12)
        assert 0.0 <= cell["low"] <= cell["mean"] + 1e-12 and cell["mean"] <= cell["high"] + 1e-12 <= 1.0 + 1e-12
        if np.ptp(values) == 0:                         # every query the same value: the interval is that value
            assert cell["low"] == cell["high"] == pytest.approx(cell["mean"], abs=1e-12)
        if key in sig.index:
            assert cell["p"] == pytest.approx(sig.at[key, "p_holm"], abs=1e-12)
            assert (cell["direction"] or "") == sig.at[key, "significant"]
    tex = (demo["dir"] / "results.tex").read_text()
    assert tex.count("\\toprule") == tex.count("\\bottomrule") == 1 and "bm25\\_flat" in tex
    lines = (demo["dir"] / "results.jsonl").read_text().splitlines()
    assert len(lines) == demo["table"].size
    row = json.loads(lines[0])
    assert row["value"] == pytest.approx(demo["table"].loc[(row["run"], row["query"]), row["measure"]], abs=1e-12)
    html = (demo["dir"] / "results.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("data:image/png;base64,") == 5


def test_all_pairs_are_the_randomised_tukey_hsd(demo):
    """all_pairs.tsv: for each ranked measure, ir_rbstar.stats.tukey_hsd_randomized on the run x query
    frame of the queries every run answers, with the report's resamples and seed; report.md lists the
    significant pairs."""
    from ir_rbstar.stats import tukey_hsd_randomized
    pairs = pd.read_csv(demo["dir"] / "all_pairs.tsv", sep="\t", dtype={"run_a": str, "run_b": str})
    table = demo["table"]
    for label in ("nDCG@10", "RBR(p=0.8,ref='minilm_rerank')@20"):
        frame = table[label].unstack("query_id").reindex(FIRST_STAGE).dropna(axis=1)
        want = tukey_hsd_randomized(frame, n_resamples=report.DEFAULT_PERMUTATIONS, seed=report.DEFAULT_SEED)
        got = pairs[pairs["measure"] == label].reset_index(drop=True)
        assert list(got["run_a"]) == list(want["run_a"]) and list(got["run_b"]) == list(want["run_b"])
        np.testing.assert_allclose(got["pvalue"], want["pvalue"], rtol=0, atol=1e-12)
        assert (got["queries"] == frame.shape[1]).all()
    significant = pairs[pairs["reject"]]
    section = demo["text"].split("## All pairs of runs", 1)[1].split("\n## ", 1)[0]
    assert section.count("` over `") == len(significant) > 0


# ---------------------------------------------------------------------------------------------
# intervals, effect sizes and robust verdicts in report.md, against ir_rbstar.stats on the same values

def _md_rows(text, section):
    """The body rows of the first Markdown table of ``## section`` (cells stripped, '\\|' unescaped)."""
    part = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in part.splitlines() if ln.startswith("|")][2:]
    return [[c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in lines]


def _f4(x):
    return f"{x:.4f}"


def _s4(x):
    return f"{x:+.4f}"


def test_report_means_show_intervals_within_each_measures_range(demo):
    """Every cell of report.md's means table is 'mean [low, high]': ir_rbstar.stats.mean_intervals (95%) of
    the run's per-query values (the report's returned frame) with the measure's range ([0, 1] for every
    default measure: BCa bootstrap), to 4 places, and the interval lies in [0, 1] and holds the mean."""
    from ir_rbstar.stats import mean_intervals
    rows = _md_rows(demo["text"], "Means")
    assert rows[0][0] == "queries with a ranking"
    checked = 0
    for row in rows[1:]:
        label = row[0].strip("`")
        values = demo["table"][label].unstack("run")[FIRST_STAGE]
        want = mean_intervals(values.to_numpy(), bounds=(0.0, 1.0), level=0.95)
        for j, (run, cell) in enumerate(zip(FIRST_STAGE, row[1:], strict=True)):
            mean, low, high = want["mean"].iloc[j], want["low"].iloc[j], want["high"].iloc[j]
            assert want["method"].iloc[j] == "bca"
            assert cell == f"{_f4(mean)} [{_f4(low)}, {_f4(high)}]", (label, run)
            assert 0.0 <= low <= mean <= high <= 1.0
            checked += 1
    assert checked == 16 * 4


def test_report_effect_sizes_are_stats_dz_with_its_noncentral_t_interval(demo):
    """significance.tsv's d_z and its interval, and the d_z columns of report.md, equal
    ir_rbstar.stats.paired_test(run, baseline, effect_ci='t') on the queries both have a value for."""
    from ir_rbstar.stats import paired_test
    sig, table = demo["sig"], demo["table"]
    base = table.xs("bm25", level="run")
    md = {(r[0], r[1].split("`")[1]): r for r in _md_rows(demo["text"], "Significance against the baseline")}
    assert len(md) == len(sig)
    for r in sig.itertuples(index=False):
        a, b = table.xs(r.run, level="run")[r.measure], base[r.measure]
        both = a.notna() & b.notna()
        res = paired_test(a[both], b[both], test="t", effect_ci="t")
        np.testing.assert_allclose((r.d_z, r.d_z_low, r.d_z_high), (res.effect_size, *res.effect_interval),
                                   rtol=1e-12, atol=1e-14)
        cells = md[(r.run, r.measure)]
        assert cells[-2] == _s4(res.effect_size)
        assert cells[-1] == f"[{_s4(res.effect_interval[0])}, {_s4(res.effect_interval[1])}]"
        # the interval excludes 0 exactly when the t test (not the report's randomization test) has p < 0.05
        assert (res.effect_interval[0] > 0 or res.effect_interval[1] < 0) == (res.pvalue < 0.05)


def _robust_want(table, low_label, high_label, residual, baseline="bm25", runs=FIRST_STAGE):
    from ir_rbstar.stats import robust_table
    low = table[low_label].unstack("query_id").reindex(runs)
    high = table[high_label].unstack("query_id").reindex(runs)
    if residual:
        high = low + high
    ok = low.notna().all(axis=0) & high.notna().all(axis=0)
    return robust_table(low.loc[:, ok], high.loc[:, ok], baseline, test="t", alpha=0.05, correction="holm")


def _check_robust(out_dir, table, pairs, runs=FIRST_STAGE, baseline="bm25"):
    """robust.tsv and report.md's robust table are robust_table on the report's per-query values."""
    got = pd.read_csv(out_dir / "robust.tsv", sep="\t", dtype={"run": str})
    md = _md_rows((out_dir / "report.md").read_text(), "Robust to what is not known")
    assert len(got) == len(md) == len(pairs) * (len(runs) - 1)
    for (low_label, high_label, kind), start in zip(pairs, range(0, len(got), len(runs) - 1), strict=True):
        want = _robust_want(table, low_label, high_label, kind == "residual", baseline, runs)
        part = got.iloc[start:start + len(want)].reset_index(drop=True)
        assert (part["measure"] == low_label).all() and (part["bounds"] == kind).all()
        assert list(part["run"]) == list(want["run"]) and list(part["verdict"]) == list(want["verdict"])
        numbers = ["mean_low", "mean_high", "difference_low", "difference_high", "pvalue_worst_adjusted",
                   "pvalue_best_adjusted"]
        np.testing.assert_allclose(part[numbers].to_numpy(float), want[numbers].to_numpy(float), rtol=1e-12,
                                   atol=1e-14)
        for w, cells in zip(want.itertuples(index=False), md[start:start + len(want)], strict=True):
            assert cells[0] == f"`{low_label}`" and cells[2] == w.run and cells[-1] == w.verdict
            assert cells[4] == f"[{_f4(w.mean_low)}, {_f4(w.mean_high)}]"
            assert cells[5] == f"[{_s4(w.difference_low)}, {_s4(w.difference_high)}]"
    return got


def test_demo_robust_verdicts_are_robust_tables(demo):
    """The default measures hold RBP(p=0.8) with its residual: the demo's verdicts are robust_table's on
    [RBP, RBP + RBP_res]. The Vaswani qrels list relevant documents only, so every other document is
    unjudged, RBP + RBP_res is 1 on every query, and nothing can be concluded."""
    got = _check_robust(demo["dir"], demo["table"], [("RBP(p=0.8)", "RBP_res(p=0.8)", "residual")])
    assert np.allclose(got["mean_high"], 1.0, atol=1e-9) and set(got["verdict"]) == {"no conclusion"}
    assert "the mean difference run - baseline lies in the interval shown" in demo["text"]


def test_robust_verdicts_with_tie_bounds_and_a_robust_winner(tmp_path):
    """Fully judged toy collection: run good ranks every relevant document first, bad last, mid in
    between with tied scores; RBP(p=0.5) with its residual and nDCG_TA@5 with stat='min'/'max' give
    bounds, and the verdicts (one of them robust) are robust_table's."""
    rng = np.random.default_rng(3)
    qrels, runs = {}, {"bad": {}, "mid": {}, "good": {}}
    for q in range(12):
        docs = [f"d{k}" for k in range(12)]
        relevant = set(rng.choice(docs, size=3, replace=False).tolist())
        qrels[f"q{q}"] = {d: int(d in relevant) for d in docs}
        order = sorted(docs, key=lambda d: (d not in relevant, d))
        runs["good"][f"q{q}"] = {d: float(12 - k) for k, d in enumerate(order)}
        runs["bad"][f"q{q}"] = {d: float(k) for k, d in enumerate(order)}
        runs["mid"][f"q{q}"] = {d: float((12 - k) // 4) for k, d in enumerate(order)}     # ties of 4
    measures = "RBP(p=0.5) RBP_res(p=0.5) nDCG_TA@5 nDCG_TA(stat='min')@5 nDCG_TA(stat='max')@5"
    table = report.build_report(qrels, runs, tmp_path, baseline="bad", measures=measures, pictures=False)
    pairs = [("RBP(p=0.5)", "RBP_res(p=0.5)", "residual"),
             ("nDCG_TA(stat='min')@5", "nDCG_TA(stat='max')@5", "ties")]
    got = _check_robust(tmp_path, table, pairs, runs=["bad", "mid", "good"], baseline="bad")
    verdicts = got.set_index(["measure", "run"])["verdict"]
    assert verdicts[("RBP(p=0.5)", "good")] == "A better, robust"
    assert verdicts[("nDCG_TA(stat='min')@5", "good")] == "A better, robust"


def test_no_bounds_no_robust_file(tmp_path):
    report.build_report(QRELS, {"bm25": RUNS["bm25"], "bm25l": RUNS["bm25l"]}, tmp_path, measures="nDCG@10 AP",
                        baseline="bm25", pictures=False)
    assert not (tmp_path / "robust.tsv").exists()
    assert "no robust verdicts" in (tmp_path / "report.md").read_text()
