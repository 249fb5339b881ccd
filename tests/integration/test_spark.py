"""Spark DataFrames through ``ir_rbstar.scale.spark``: per-query values equal to the single-machine engine.

One local Spark session (``local[2]``, JVM options for a short run) for the module; skipped when pyspark is not importable or no Java
is found. The data are the conformance test's (ties, a query judged but never retrieved, q_empty), plus a
query retrieved but never judged, and a reference run and a group member that miss a query. The
expected values come from ``ir_measures.iter_calc`` / ``calc_aggregate`` on pandas frames inside an
``ir_rbstar.run_scope`` naming the same runs.
"""
import copy
import os
import shutil
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.errors import InputFormatError, MissingQrelsError, ReferenceNotFoundError

from .test_conformance import OURS, THEIRS, _qrels, _run

pytest.importorskip("pyspark", reason="pyspark is not installed (the ir-rbstar[spark] extra)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java: no java on PATH and no JAVA_HOME", allow_module_level=True)

from ir_rbstar.scale import spark as rbspark  # noqa: E402

TOL = 1e-12
REF, GROUP = "base", "grp"
TEXT = f"{OURS.replace('REF', REF).replace('GROUP', GROUP)} {THEIRS}"
MEASURES = ir_rbstar.parse(TEXT) + [ir_measures.RBP(rel=2) @ 10]      # the conformance test's list


def _quiet_pyspark():
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    warnings.filterwarnings("ignore", message="The copy keyword is deprecated")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession
    saved = {k: os.environ.get(k) for k in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    os.environ.update(dict.fromkeys(saved, sys.executable))       # the workers run this interpreter
    with warnings.catch_warnings():         # pyspark's own notice under pandas 3, at its first conversion
        _quiet_pyspark()
        session = (SparkSession.builder.master("local[2]").appName("ir_rbstar-tests")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.shuffle.partitions", "4")
                   .config("spark.default.parallelism", "2")
                   .config("spark.driver.memory", "2g")      # local mode: see docs/scale.md, 'Memory on Spark'
                   # a short-lived JVM: the client compiler only and one GC thread halve the CPU time of this
                   # module (about 47 s -> 25 s of CPU, JVM and workers included, measured 2026-11-26)
                   .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
                   .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def world(spark):
    rng = np.random.default_rng(4242)
    run = pd.concat([_run(rng, 12),             # the last query of the qrels is never retrieved
                     pd.DataFrame({"query_id": "q_unjudged", "doc_id": ["d01", "d02", "d03"],
                                   "score": [1.0, 1.0, 0.5]})], ignore_index=True)
    qrels = _qrels(rng)
    ref = _run(rng, 14)
    ref = ref[ref.query_id != "q1"].reset_index(drop=True)          # the reference misses q1
    members = {"a": _run(rng, 12), "b": _run(rng, 9), "c": _run(rng, 15)}
    members["b"] = members["b"][members["b"].query_id != "q2"]       # a prior run misses q2
    with ir_rbstar.run_scope(runs={REF: ref}, groups={GROUP: members}):
        expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)}
        means = ir_measures.calc_aggregate(MEASURES, qrels, run)
    def sdf(frame):
        return _sdf(spark, frame)

    inputs = dict(run=sdf(run), qrels=sdf(qrels), runs={REF: sdf(ref)},
                  groups={GROUP: {n: sdf(df) for n, df in members.items()}})
    evaluation = rbspark.evaluate(MEASURES, partitions=7, **inputs).persist()
    yield dict(pandas=dict(run=run, qrels=qrels, ref=ref, members=members), spark=inputs, expected=expected,
               means=means, evaluation=evaluation, per_query=evaluation.to_pandas())
    evaluation.per_query.unpersist()


def _sdf(spark, frame):
    """A Spark DataFrame of a pandas one (pyspark's own pandas-3 warnings at conversion silenced)."""
    with warnings.catch_warnings():
        _quiet_pyspark()
        return spark.createDataFrame(frame)


def _as_dict(frame):
    got = {}
    for q, label, v in frame[["query_id", "measure", "value"]].itertuples(index=False):
        assert (q, label) not in got, ("twice", q, label)
        got[(q, label)] = v
    return got


def _compare(got, want):
    assert set(got) == set(want), sorted(set(got) ^ set(want))[:10]
    bad = [(k, got[k], v) for k, v in want.items() if not abs(got[k] - v) <= TOL]
    assert not bad, bad[:10]


def test_every_family_per_query_equals_single_machine(world):
    got = _as_dict(world["per_query"])
    _compare(got, world["expected"])
    qids = {q for q, _ in got}
    assert qids == set(world["pandas"]["qrels"].query_id)             # judged-not-retrieved in, unjudged out
    assert "q_unjudged" not in qids and "q6" in qids
    assert {label for _, label in got} == {str(m) for m in MEASURES}
    schema = {f.name: f.dataType.simpleString() for f in world["evaluation"].per_query.schema.fields}
    assert schema == {"query_id": "string", "measure": "string", "value": "double"}


def _check_means(means, world, why):
    assert list(means.measure) == [str(m) for m in MEASURES]
    for m, v in zip(MEASURES, means.value, strict=True):
        assert v == pytest.approx(world["means"][m], abs=TOL), (why, m)


def test_means_equal_calc_aggregate(world):
    # the module's evaluation was collected by to_pandas() (the fixture): these means come from the
    # driver's frame whatever ``exact`` says; test_means_keep_the_values_for_to_pandas_then_release_them
    # checks Spark's own means, both ways
    _check_means(world["evaluation"].means(), world, "collected")


def test_result_does_not_depend_on_the_number_of_buckets(world):
    one = rbspark.evaluate(MEASURES, partitions=1, **world["spark"]).to_pandas()
    seven = world["per_query"]
    # same rows; values to 1e-12 (a few rank-biased kernels sum across the queries of a call: last bits)
    pd.testing.assert_frame_equal(one, seven, check_exact=False, rtol=0, atol=TOL)


def test_column_mapping_recommender_style(spark):
    rng = np.random.default_rng(11)
    users, items = np.arange(1, 6), np.arange(100, 130)
    rec = pd.DataFrame([(int(u), int(i), float(np.round(rng.normal(), 1)))
                        for u in users[:-1] for i in rng.choice(items, 10, replace=False)],
                       columns=["user_id", "item_id", "prediction"])
    ratings = pd.DataFrame([(int(u), int(i), int(rng.integers(0, 5)))
                            for u in users for i in rng.choice(items, 8, replace=False)],
                           columns=["user_id", "item_id", "rating"])
    base = rec.assign(prediction=rng.permutation(rec.prediction.to_numpy()))
    text = "RBP(p=0.8,max_rel=4)@5 nDCG_TA@10 RBO(p=0.9,ref='pop')@8 MED_RBP(ref='pop') P@5 nDCG@10"
    columns = {"query_id": "user_id", "doc_id": "item_id", "score": "prediction", "relevance": "rating"}
    evaluation = rbspark.evaluate(text, _sdf(spark, rec), _sdf(spark, ratings), runs={"pop": _sdf(spark, base)},
                                  columns=columns, partitions=3)
    got = _as_dict(evaluation.to_pandas())
    to_ir = {v: k for k, v in columns.items()}

    def ir_frame(df):
        df = df.rename(columns=to_ir)
        return df.astype({"query_id": str, "doc_id": str})

    with ir_rbstar.run_scope(runs={"pop": ir_frame(base)}):
        want = {(m.query_id, str(m.measure)): m.value
                for m in ir_measures.iter_calc(ir_rbstar.parse(text), ir_frame(ratings), ir_frame(rec))}
    _compare(got, want)
    assert {q for q, _ in got} == {str(u) for u in users}


def test_without_qrels_run_against_reference(world, spark):
    text = "RBO(p=0.9,ref='base')@8 RBA(p=0.9,ref='base') RBR(p=0.7,ref='base')@5 RBO_res(p=0.8,ref='base')"
    evaluation = rbspark.evaluate(text, world["spark"]["run"], runs=world["spark"]["runs"])   # default P
    got = _as_dict(evaluation.to_pandas())
    with ir_rbstar.run_scope(runs={REF: world["pandas"]["ref"]}):
        want = {(m.query_id, str(m.measure)): m.value
                for m in ir_measures.iter_calc(ir_rbstar.parse(text), None, world["pandas"]["run"])}
    _compare(got, want)
    assert {q for q, _ in got} == set(world["pandas"]["run"].query_id)   # the run's queries, q_unjudged too


def test_clear_errors(world, spark):
    s = world["spark"]
    with pytest.raises(InputFormatError, match=r"qrels: no column 'rating' \(ir_measures' 'relevance'"):
        rbspark.evaluate("P_TA@5", s["run"], s["qrels"], columns={"relevance": "rating"})
    with pytest.raises(InputFormatError, match=r"run 'base': no column 'score'"):
        rbspark.evaluate("RBO(p=0.9,ref='base')", s["run"], runs={"base": s["qrels"]})
    with pytest.raises(ReferenceNotFoundError, match=r"ref='other'.*no run named 'other'"):
        rbspark.evaluate("RBO(p=0.9,ref='other')", s["run"], runs=s["runs"])
    with pytest.raises(ReferenceNotFoundError, match=r"prior='nope'"):
        rbspark.evaluate("NRG(prior='nope')@10", s["run"], s["qrels"], groups=s["groups"])
    with pytest.raises(MissingQrelsError, match="needs relevance judgments"):
        rbspark.evaluate("RBP(p=0.8)", s["run"])
    with pytest.raises(ir_rbstar.errors.ParameterError, match="Spark DataFrame"):
        rbspark.evaluate("RBP(p=0.8)", world["pandas"]["run"], s["qrels"])
    with pytest.raises(ir_rbstar.errors.ParameterError, match="partitions"):
        rbspark.evaluate("RBP(p=0.8)", s["run"], s["qrels"], partitions=0)
    # an error in the data surfaces when an action runs, as the package's own one-line error
    graded = _sdf(spark, world["pandas"]["qrels"].assign(relevance=lambda d: d.relevance + 0.5))
    for action in ("to_pandas", "means"):
        with pytest.raises(InputFormatError, match=r"^the qrels \(Spark DataFrame\): relevance \d\.5 of document "
                                                   r"'\w+' for query '\w+' is not an integer grade$") as e:
            getattr(rbspark.evaluate("P_TA@5", s["run"], graded, partitions=2), action)()
        assert "\n" not in str(e.value) and "Traceback" not in str(e.value)
    huge = _sdf(spark, world["pandas"]["qrels"].assign(relevance=lambda d: d.relevance * 1e20 + 1e20))
    with pytest.raises(InputFormatError, match=r"relevance [0-9.]+e\+20 of document .* is out of range"):
        rbspark.evaluate("P_TA@5", s["run"], huge, partitions=2).to_pandas()
    nulls = _sdf(spark, world["pandas"]["run"].assign(doc_id=lambda d: d.doc_id.where(d.index != 3, None)))
    with pytest.raises(InputFormatError, match=r"^the run \(Spark DataFrame\): a null doc_id \(row query_id="):
        rbspark.evaluate("P_TA@5", nulls, s["qrels"], partitions=2).to_pandas()


def test_means_after_to_pandas_run_no_spark_job(world):
    # the module's evaluation, collected by to_pandas() in the fixture (a copy: the fixture's object keeps
    # its Spark DataFrame for the other tests)
    evaluation = copy.copy(world["evaluation"])
    evaluation.per_query = None                  # any Spark action would now fail
    _check_means(evaluation.means(), world, "after to_pandas")
    assert len(evaluation.to_pandas()) == len(world["per_query"])


def test_means_keep_the_values_for_to_pandas_then_release_them(world):
    evaluation = rbspark.evaluate(MEASURES, partitions=3, **world["spark"])
    first = evaluation.means()                       # Spark's exact means (fsum per measure)
    assert evaluation.per_query.is_cached            # kept: to_pandas() will not run the pipeline again
    assert evaluation.means().equals(first)
    _check_means(first, world, "spark, exact")
    _check_means(evaluation.means(exact=False), world, "spark, streamed sum/count")
    assert evaluation.per_query.is_cached
    evaluation.to_pandas()
    assert not evaluation.per_query.is_cached        # released once the driver holds the values


def test_a_small_local_driver_is_warned_about_before_any_job():
    from ir_rbstar.scale import _spark_support as support

    class Conf(dict):
        def get(self, key, default=None):
            return super().get(key, default)

    class Session:
        def __init__(self, **conf):
            self.sparkContext = type("SC", (), {"getConf": lambda _self: Conf(conf)})()

    with pytest.warns(ir_rbstar.errors.RbstarWarning, match="spark.driver.memory=1g.*4g or more"):
        support.check_driver(Session(**{"spark.master": "local[2]"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert support.check_driver(Session(**{"spark.master": "local[*]", "spark.driver.memory": "4g"})) is None
        assert support.check_driver(Session(**{"spark.master": "yarn"})) is None


def test_spark_wrapped_errors_become_the_package_s_own():
    from ir_rbstar.scale._spark_support import own_error
    wrapped = ("An exception was thrown from the Python worker.\nTraceback (most recent call last):\n"
               "  File \"/x/spark.py\", line 140, in _rows\n"
               "ir_rbstar.errors.DuplicateDocumentError: the run (Spark DataFrame): document 'd1' appears twice\n"
               "\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator.handlePythonException")
    error = own_error(RuntimeError(wrapped))
    assert type(error) is ir_rbstar.errors.DuplicateDocumentError
    assert str(error) == "the run (Spark DataFrame): document 'd1' appears twice"
    heap = own_error(RuntimeError("Py4JJavaError: ... java.lang.OutOfMemoryError: Java heap space"))
    assert "spark.driver.memory" in str(heap)
    assert own_error(RuntimeError("something else")) is None


def test_missing_pyspark_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ir_rbstar.errors.MissingExtraError, match=r'pip install "ir-rbstar\[spark\]"'):
        rbspark.evaluate("RBP(p=0.8)", None)


def test_the_spark_example_of_docs_scale_md_prints_what_the_page_shows(spark, tmp_path, monkeypatch):
    """docs/scale.md's Spark example (a ```py block, which tests/test_docs.py does not run: it needs a
    Spark session) runs here with this module's session and prints what the page shows."""
    import contextlib
    import io
    from tests.helpers import REPO, expected_python_output
    from tests.test_docs import fenced_blocks
    blocks = [code for lang, code, _ in fenced_blocks((REPO / "docs" / "scale.md").read_text()) if lang == "py"]
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    buf = io.StringIO()
    _quiet_pyspark()
    with contextlib.redirect_stdout(buf):
        exec(compile(blocks[0], "docs/scale.md", "exec"), {"spark": spark})
    printed = [line.rstrip() for line in buf.getvalue().splitlines()]
    assert printed == [line.rstrip() for line in expected_python_output(blocks[0])]
    assert len(printed) == 5
