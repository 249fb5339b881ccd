"""The compiled engine (numba) against the numpy engine and the oracles, and the engine switch.

Every compiled loop has a numpy counterpart; here both read the same random TREC files and evaluate the
same random runs, and must agree: identical arrays for reading, identical values for the measures (the
compiled sums add the same terms in the same order, and the powers of p come from numpy on both: numpy's
vectorised ``power`` and ``expm1`` can differ from the C library's in the last bit). The oracle property
tests of the rank-biased family are also run under the compiled engine.
"""
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import examples

import ir_measures
import ir_rbstar
from ir_rbstar import engine, io as rio
from ir_rbstar.errors import MissingExtraError, ParameterError, RbstarError

from tests.families import test_rankbiased_oracle as oracle_tests  # (module attribute: not collected twice)
from tests.inputs.test_docindex import _colliding_hash as colliding_hash

numba = pytest.importorskip("numba", reason="the compiled engine needs numba (the 'fast' extra)")

SETTINGS = settings(max_examples=examples(150), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

DOCS = ["d1", "d10", "d2", "D3", "clueweb09-en0000-00-00000", "clueweb09-en0000-00-00001", "x", "ünï", "a" * 17]
SCORES = st.one_of(st.integers(-5, 5).map(str), st.sampled_from(["1.5", "-0.25", "+2", "3.", "0.1", "2.50", "-0.0",
                                                                 "1e-3", "2.5E+2", "12345678901234567", "7"]))
SEPS = st.sampled_from([" ", "\t", "  ", " \t "])


@st.composite
def run_files(draw):
    """Text of a run file: queries in blocks (sometimes split), ties, odd separators and numbers."""
    lines = []
    for q in draw(st.lists(st.sampled_from(["q1", "2", "q3", "10"]), min_size=1, max_size=5)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        for d in docs:
            sep = draw(SEPS)
            lines.append(sep.join([q, "Q0", d, str(draw(st.integers(0, 9))), draw(SCORES), "tag"]))
            if draw(st.integers(0, 9)) == 0:
                lines.append(draw(st.sampled_from(["", "   ", "\t"])))     # blank lines are skipped
    text = "\n".join(lines)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text + draw(st.sampled_from(["", "\n", "\n\n"]))


def _both(fn):
    """fn() under each engine: (numpy result or exception, numba result or exception)."""
    out = []
    for name in ("numpy", "numba"):
        with engine.using(name):
            try:
                out.append(fn())
            except RbstarError as e:
                out.append(e)
    return out


def _same_error(a, b):
    return isinstance(a, Exception) and type(a) is type(b) and str(a) == str(b)


@SETTINGS
@given(text=run_files())
def test_reading_runs_is_identical(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("run") / "r.run"
    path.write_bytes(text.encode("utf-8"))
    a, b = _both(lambda: rio.read_trec_run(str(path)))
    if isinstance(a, Exception) or isinstance(b, Exception):
        assert _same_error(a, b), (a, b)
        return
    for field in ("qcodes", "offsets", "dbytes", "docs", "scores"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype == y.dtype and np.array_equal(x, y), field
    assert np.array_equal(np.signbit(a.scores), np.signbit(b.scores))    # -0.0 stays -0.0


@SETTINGS
@given(rows=st.lists(st.tuples(st.sampled_from(["q1", "2", "q3"]), st.sampled_from(DOCS), st.integers(-1, 3)),
                     min_size=1, max_size=12, unique_by=lambda r: r[:2]), sep=SEPS)
def test_reading_qrels_is_identical(tmp_path_factory, rows, sep):
    path = tmp_path_factory.mktemp("qrels") / "q.qrels"
    path.write_text("".join(sep.join([q, "0", d, str(g)]) + "\n" for q, d, g in rows))
    a, b = _both(lambda: rio.read_trec_qrels(str(path)))
    for field in ("qcodes", "rowq", "rowd", "rowb", "grades"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


@pytest.mark.parametrize("text, match", [
    ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0\n", "line 2"),                       # a column missing
    ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 abc t\n", "line 2"),                     # not a number
    ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 nan t\n", "line 2"),                     # not finite
    ("q1 Q0 d1 1 2.0 t\nq2 Q0 d1 1 1.0 t\nq1 Q0 d1 3 0.5 t\n", "lines 1 and 3"),   # duplicate
    ("q1 Q0 clueweb09-en0000-00-00000 1 2.0 t\nq1 Q0 clueweb09-en0000-00-00000 2 2.0 t\n", "lines 1 and 2"),
])
def test_bad_runs_get_the_same_error(tmp_path, text, match):
    path = tmp_path / "bad.run"
    path.write_text(text)
    a, b = _both(lambda: rio.read_trec_run(str(path)))
    assert _same_error(a, b), (a, b)
    assert match in str(b)


MEASURES = ["RBR", "RBR_res", "RBA", "RBA_res", "RBO", "RBO_res", "RBO_ext"]


def _engines_agree_bit_for_bit(data, p, k, use_ref_run, names, ref_name):
    """The measures ``names`` (with ``ref=`` a registered run, or the qrels' ideal ranking) give the very
    same doubles per query on both engines: they add the same terms in the same order."""
    qrels, run, ref_run = data
    ref = ref_name if use_ref_run else None
    if ref:
        ir_rbstar.register_run(ref, ref_run)
    try:
        ms = [ir_measures.parse_measure(f"{n}(p={p!r}{',ref=' + repr(ref) if ref else ''})" + (f"@{k}" if k else ""))
              for n in names]
        a, b = _both(lambda: {(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc(ms, qrels, run)})
    finally:
        if ref:
            ir_rbstar.unregister_run(ref)
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == b[key], (key, a[key], b[key])


@SETTINGS
@given(data=oracle_tests.collections(), p=oracle_tests.ps, k=oracle_tests.cutoffs, use_ref_run=st.booleans())
def test_measures_agree_between_engines(data, p, k, use_ref_run):
    _engines_agree_bit_for_bit(data, p, k, use_ref_run, MEASURES, "engine_ref")


@SETTINGS
@given(data=oracle_tests.collections(), p=oracle_tests.ps, k=oracle_tests.cutoffs, use_ref_run=st.booleans(),
       names=st.sampled_from([["RBO", "RBO_ext"], ["RBO_ext", "RBO_res"], ["RBO_res"], ["RBO"]]))
def test_rbo_alone_agrees_between_engines(data, p, k, use_ref_run, names):
    """The RBO family without the other measures: the compiled engine then joins and sums in one pass
    (``rbo_tied_join``, on tied runs with short ids), which must give the very doubles of the numpy path."""
    _engines_agree_bit_for_bit(data, p, k, use_ref_run, names, "engine_ref_rbo")


def test_oracle_properties_under_the_compiled_engine():
    with engine.using("numba"):
        oracle_tests.test_package_matches_oracle_qrels_reference()
        oracle_tests.test_package_matches_oracle_run_reference()
        oracle_tests.test_package_bounds()


def test_hash_collision_is_reported_by_the_compiled_join(monkeypatch):
    """Two different long ids with the same 64-bit hash must not be joined (the compiled matcher)."""
    colliding_hash(monkeypatch)
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-aaaaaaaaaa", "doc-cccccccccc"], "score": [2.0, 1.0]})
    ref = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-bbbbbbbbbb", "doc-cccccccccc"], "score": [2.0, 1.0]})
    with engine.using("numba"):
        ir_rbstar.register_run("collide_ref2", ref)
        try:
            for name in ("RBR", "RBA_res"):
                with pytest.raises(RbstarError, match="hash collision"):
                    ir_measures.calc_aggregate([ir_measures.parse_measure(f"{name}(p=0.9,ref='collide_ref2')")], None, run)
        finally:
            ir_rbstar.unregister_run("collide_ref2")


# ---------------------------------------------------------------------------------------------
# the switch

def test_choosing_an_engine():
    assert engine.get_engine() in engine.ENGINES
    with engine.using("numpy"):
        assert engine.get_engine() == "numpy" and engine.compiled(10 ** 9) is None
    with engine.using("numba"):
        assert engine.compiled(1) is not None
    with engine.using("auto"):
        assert engine.compiled(engine.MIN_ROWS - 1) is None
        assert engine.compiled(engine.MIN_ROWS) is not None
    with pytest.raises(ParameterError, match="unknown engine 'fast'"):
        ir_rbstar.set_engine("fast")


def test_bad_environment_value_names_the_variable():
    env = dict(os.environ, IR_RBSTAR_ENGINE="gpu")
    proc = subprocess.run([sys.executable, "-c", "from ir_rbstar import engine; engine.get_engine()"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode != 0 and "IR_RBSTAR_ENGINE" in proc.stderr and "'gpu'" in proc.stderr


def test_numba_missing(monkeypatch):
    """Without numba: "numba" is an error saying what to install; "auto" quietly uses numpy."""
    monkeypatch.setitem(sys.modules, "numba", None)          # import numba raises ImportError
    monkeypatch.delitem(sys.modules, "ir_rbstar._compiled", raising=False)
    monkeypatch.delattr(ir_rbstar, "_compiled", raising=False)
    with pytest.raises(MissingExtraError, match=r"ir-rbstar\[fast\]"):
        ir_rbstar.set_engine("numba")
    with engine.using("auto"):
        assert engine.compiled(10 ** 9) is None


def test_numba_unable_to_cache(monkeypatch):
    """numba raises RuntimeError when it has nowhere to write its cache: "numba" says what to do, "auto"
    uses numpy."""
    def no_cache(*args, **kwargs):
        raise RuntimeError("cannot cache function: no locator available")
    monkeypatch.setattr(numba, "njit", no_cache)
    monkeypatch.delitem(sys.modules, "ir_rbstar._compiled", raising=False)
    monkeypatch.delattr(ir_rbstar, "_compiled", raising=False)
    with pytest.raises(RbstarError, match="NUMBA_CACHE_DIR"):
        ir_rbstar.set_engine("numba")
    with engine.using("auto"):
        assert engine.compiled(10 ** 9) is None


def test_a_join_kernel_has_one_machine_version_for_writable_and_read_only_arrays():
    """match_ranges and the RBO joins only read their arguments, so they are called with read-only views: a
    read-only column (a file's buffer) and a writable one must not make numba compile a second version."""
    from ir_rbstar import _compiled as k
    b_hash = np.array([5, 7, 9, 5, 11], dtype=np.int64)
    r_hash = np.array([9, 5, 13, 5, 2], dtype=np.int64)
    args = [np.array([0, 3]), np.array([3, 2]), b_hash, np.array([0, 3]), np.array([3, 2]), r_hash]
    kernel = getattr(k.match_ranges, "__wrapped__", k.match_ranges)       # the numba dispatcher
    first = k.match_ranges(*args)
    versions = len(kernel.signatures)
    frozen = [a.copy() for a in args]
    for a in frozen[2::3]:
        a.flags.writeable = False
    again = k.match_ranges(*frozen)
    assert len(kernel.signatures) == versions
    for x, y in zip(first, again, strict=True):
        assert np.array_equal(x, y)
    # (query 0: 5 is the reference's row 1, 9 its row 0; query 1: 5 is its row 3)
    assert [x.tolist() for x in first] == [[0, 0, 1], [1, 3, 1], [1, 0, 3]]
    assert all(a.flags.writeable for a in args)          # the caller's arrays are left as they were
