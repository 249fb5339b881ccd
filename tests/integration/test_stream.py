"""Out of core by query blocks (ir_rbstar.scale.stream): every query's value equals the whole evaluation's.

Every family (the conformance table's measures, ir_measures' own next to them) is evaluated with tiny
blocks (queries straddle read chunks and blocks), in both orders, from TREC text, ``.gz`` and Parquet,
with a reference run and a prior glob streamed; a judged query the run does not retrieve, a reference
missing a query; random block sizes; the unsorted-input error; temporary files removed; the command line
with ``--stream`` equal to the command line without it.
"""
import gzip
import io
import json
import math
import os
import shutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar.cli import main, run_measures
from ir_rbstar.errors import DuplicateDocumentError, InputFormatError
from ir_rbstar.io.trec import iter_trec_chunks, read_trec_qrels, read_trec_run
from ir_rbstar.scale.blocks import aggregate, metrics_frame
from ir_rbstar.scale.stream import Means, stream_aggregate, stream_calc
from tests.integration.test_conformance import OURS, THEIRS, _qrels, _run, _write_qrels, _write_run

TOL = 1e-12
JUDGED_NOT_RETRIEVED = "q6"            # _run leaves the last query out; _qrels judges it
MISSING_FROM_REF = "q2"


def _gz(path):
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    return path + ".gz"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stream")
    rng = np.random.default_rng(7)
    run = _run(rng, 12)
    qrels = _qrels(rng)
    ref = _run(rng, 14)
    ref = pd.concat([ref[ref.query_id != MISSING_FROM_REF],          # a reference missing a query,
                     pd.DataFrame({"query_id": ["q9"], "doc_id": ["d01"], "score": [1.0]})],  # with one extra
                    ignore_index=True)
    priors = {name: _run(rng, depth) for name, depth in (("p1", 9), ("p2", 15))}
    (tmp / "priors").mkdir()
    files = {"run": _write_run(run, tmp / "run.run"), "qrels": _write_qrels(qrels, tmp / "qrels.txt"),
             "ref": _write_run(ref, tmp / "ref.run")}
    for name, df in priors.items():
        _write_run(df, tmp / "priors" / f"{name}.run")
    glob = str(tmp / "priors" / "*.run")
    text = OURS.replace("REF", files["ref"]).replace("GROUP", glob)
    measures = ir_rbstar.parse(f"{text} {THEIRS}") + [ir_measures.RBP(rel=2) @ 10]
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    # the same measures naming runs instead of files, for inputs that are not TREC files
    named = ir_rbstar.parse(f"{OURS.replace('REF', 'base').replace('GROUP', 'pri')} {THEIRS}") \
        + [ir_measures.RBP(rel=2) @ 10]
    yield dict(tmp=tmp, run=run, qrels=qrels, ref=ref, priors=priors, files=files, measures=measures,
               expected=expected, named=named)


def _got(metrics):
    out = {}
    for m in metrics:
        key = (m.query_id, str(m.measure))
        assert key not in out, f"{key} given twice"
        out[key] = m.value
    return out


def _same(got, want, what=""):
    assert set(got) == set(want), (what, sorted(set(got) ^ set(want))[:5])
    bad = [k for k, v in want.items() if not got[k] == pytest.approx(v, abs=TOL)]
    assert not bad, (what, bad[:5], [(got[k], want[k]) for k in bad[:5]])


def _shuffled_copy(path, out, seed):
    """The same lines in a random order (queries interleaved): not sorted, not grouped."""
    with open(path) as f:
        lines = f.readlines()
    np.random.default_rng(seed).shuffle(lines)
    with open(out, "w") as f:
        f.writelines(lines)
    return str(out)


def test_the_data_holds_the_cases(data):
    """The measure list covers every family, a judged query is not retrieved, the reference misses one."""
    assert JUDGED_NOT_RETRIEVED not in set(data["run"].query_id)
    assert JUDGED_NOT_RETRIEVED in set(data["qrels"].query_id)
    assert MISSING_FROM_REF not in set(data["ref"].query_id) and MISSING_FROM_REF in set(data["run"].query_id)
    assert {q for q, _ in data["expected"]} == set(data["qrels"].query_id)
    families = {m.NAME for m in data["measures"]}
    assert {"RBP", "RBR", "RBA", "RBO", "NRG", "RarP", "TaSC", "UniqueRel", "Twist", "MED_P", "nDCG_TA"} <= families


# ------------------------------------------------------------------------------------ every family

@pytest.mark.parametrize("order", ["sorted", "any", "auto"])
@pytest.mark.parametrize("fmt", ["trec", "gz"])
def test_every_family_equals_the_whole_evaluation(data, order, fmt, tmp_path):
    files = dict(data["files"])
    if order == "any":          # any order really: every file's lines shuffled (the prior glob's too)
        files = {k: _shuffled_copy(p, tmp_path / os.path.basename(p), i) for i, (k, p) in enumerate(files.items())}
    if fmt == "gz":
        files = {k: _gz(p) for k, p in files.items()}
    measures = data["measures"]
    if files["ref"] != data["files"]["ref"]:       # the measures name the file the stream reads
        ref_text = {str(m): m for m in measures}
        measures = [m(ref=files["ref"]) if m.params.get("ref") == data["files"]["ref"] else m for m in measures]
        want = {(q, label.replace(data["files"]["ref"], files["ref"])): v for (q, label), v in data["expected"].items()}
        assert len(ref_text) == len(measures)
    else:
        want = data["expected"]
    got = _got(stream_calc(measures, files["run"], files["qrels"], order=order, block_rows=5))
    _same(got, want, (order, fmt))
    assert any(q == JUDGED_NOT_RETRIEVED for q, _ in got)


@pytest.mark.parametrize("order", ["sorted", "any"])
def test_parquet_inputs_and_named_runs(data, order, tmp_path):
    pytest.importorskip("pyarrow")
    run, qrels = data["run"], data["qrels"]
    if order == "any":
        run, qrels = run.sample(frac=1, random_state=1), qrels.sample(frac=1, random_state=2)
    # PyTerrier's column names for the qrels, a directory of two files for the reference
    qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}).to_parquet(tmp_path / "q.pq")
    run.to_parquet(tmp_path / "run.parquet")
    (tmp_path / "ref").mkdir()
    ref = data["ref"].sort_values("query_id", kind="stable")
    half = len(ref) // 2
    while ref.query_id.iloc[half] == ref.query_id.iloc[half - 1]:
        half += 1
    ref.iloc[:half].to_parquet(tmp_path / "ref" / "part-0.parquet")
    ref.iloc[half:].to_parquet(tmp_path / "ref" / "part-1.parquet")
    priors = {}
    for name, df in data["priors"].items():
        df.to_parquet(tmp_path / f"{name}.parquet")
        priors[name] = str(tmp_path / f"{name}.parquet")
    with ir_rbstar.run_scope(runs={"base": data["ref"]}, groups={"pri": data["priors"]}):
        want = _got(ir_measures.iter_calc(data["named"], data["qrels"], data["run"]))
    got = _got(stream_calc(data["named"], str(tmp_path / "run.parquet"), str(tmp_path / "q.pq"),
                           runs={"base": str(tmp_path / "ref")}, groups={"pri": priors}, order=order, block_rows=5))
    _same(got, want, order)
    # in-memory objects as inputs, and a pyarrow dataset
    import pyarrow.dataset as ds
    got = _got(stream_calc(data["named"], ds.dataset(str(tmp_path / "run.parquet")), data["qrels"],
                           runs={"base": data["ref"]}, groups={"pri": data["priors"]}, order=order, block_rows=7))
    _same(got, want, (order, "objects"))


def test_column_mapping_and_numeric_user_ids(tmp_path):
    """Integer user ids sorted numerically (not by their bytes): order='numeric' and 'auto' stream them,
    order='sorted' refuses them, naming the row."""
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    rows = [(u, f"i{int(i)}", float(s)) for u in range(1, 40) for i, s in
            zip(rng.choice(200, size=8, replace=False), np.round(rng.normal(size=8), 1), strict=True)]
    a = pd.DataFrame(rows, columns=["user", "item", "pred"])
    b = a.assign(pred=np.round(rng.normal(size=len(a)), 1))
    a.to_parquet(tmp_path / "a.parquet")
    b.to_parquet(tmp_path / "b.parquet")
    cols = {"query_id": "user", "doc_id": "item", "score": "pred"}
    measures = ir_rbstar.parse("RBO(p=0.9,ref='b')@5 RBA(p=0.8,ref='b') RBR(p=0.8,ref='b')@3")
    frame = {"query_id": a.user.astype(str), "doc_id": a.item}
    with ir_rbstar.run_scope(runs={"b": pd.DataFrame({**frame, "score": b.pred})}):
        want = _got(ir_measures.iter_calc(measures, None, pd.DataFrame({**frame, "score": a.pred})))
    for order in ("numeric", "auto", "any"):
        got = _got(stream_calc(measures, str(tmp_path / "a.parquet"), runs={"b": str(tmp_path / "b.parquet")},
                               columns=cols, order=order, block_rows=10))
        _same(got, want, order)
    with pytest.raises(InputFormatError) as err:
        list(stream_calc(measures, str(tmp_path / "a.parquet"), runs={"b": str(tmp_path / "b.parquet")},
                         columns=cols, order="sorted", block_rows=10))
    text = str(err.value)
    assert "a.parquet: row 73: query '10' comes after query '9'" in text
    assert "order='any'" in text


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(block_rows=st.integers(1, 90), order=st.sampled_from(["sorted", "any"]), chunk=st.integers(0, 3))
def test_any_block_size_gives_the_same_values(data, block_rows, order, chunk):
    """Random block sizes, and a sample of the measures of each family (all of them are in the tests above)."""
    measures = data["measures"][chunk::4]
    want = {k: v for k, v in data["expected"].items() if k[1] in {str(m) for m in measures}}
    got = _got(stream_calc(measures, data["files"]["run"], data["files"]["qrels"], order=order,
                           block_rows=block_rows))
    _same(got, want, (block_rows, order))


def test_without_qrels_the_runs_queries(data):
    """QRELS none: the run's queries, each with the value of the whole evaluation."""
    measures = [m for m in data["measures"] if m.params.get("ref") == data["files"]["ref"]
                and (m.NAME in ("RBO", "RBA") or m.params.get("judgments") is False)]
    assert measures
    want = _got(ir_measures.iter_calc(measures, None, data["run"]))
    for order in ("sorted", "any"):
        _same(_got(stream_calc(measures, data["files"]["run"], None, order=order, block_rows=3)), want, order)
    assert {q for q, _ in want} == set(data["run"].query_id)


def test_registered_names_are_used_as_they_are(data):
    """A registered reference and a registered group are in memory: the stream uses them as the whole
    evaluation does."""
    ir_rbstar.register_run("stream-test-ref", data["ref"])
    ir_rbstar.register_runs("stream-test-group", data["priors"])
    try:
        measures = ir_rbstar.parse("RBO(p=0.9,ref='stream-test-ref')@8 NRG(prior='stream-test-group')@10 "
                                   "RarP(runs='stream-test-group')@5")
        want = _got(ir_measures.iter_calc(measures, data["qrels"], data["run"]))
        got = _got(stream_calc(measures, data["files"]["run"], data["files"]["qrels"], order="any", block_rows=4))
        _same(got, want)
    finally:
        ir_rbstar.unregister_run("stream-test-ref")
        ir_rbstar.unregister_runs("stream-test-group")


# ----------------------------------------------------------------------------------------- means

def test_stream_aggregate_equals_the_exact_mean_of_the_per_query_values(data):
    """The means are the exactly rounded sums of the streamed per-query values over their count (equal,
    bit for bit, to blocks.aggregate on them), and the whole evaluation's means to 1e-12 (a few measures'
    per-query values can differ in the last bits with the set of queries evaluated together)."""
    measures = data["measures"]
    whole = aggregate(measures, metrics_frame(ir_measures.iter_calc(measures, data["qrels"], data["run"])))
    for order, rows in (("sorted", 5), ("any", 3), ("auto", 1000)):
        args = (measures, data["files"]["run"], data["files"]["qrels"])
        got = stream_aggregate(*args, order=order, block_rows=rows)
        per_query = aggregate(measures, metrics_frame(stream_calc(*args, order=order, block_rows=rows)))
        assert set(got) == set(measures)
        for m in measures:
            assert got[m] == per_query[m], (order, m)          # exactly: both are fsum / n
            assert got[m] == pytest.approx(whole[m], abs=TOL), (order, m)


def test_means_are_exact_whatever_the_pieces():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random(5000), rng.random(50) * 1e-300, [1e16, -1e16, 0.1, 5e-324]])
    m = ir_rbstar.parse("RBP(p=0.8)")[0]
    want = math.fsum(values.tolist()) / len(values)
    for pieces in (1, 3, 97):
        means = Means([m])
        for part in np.array_split(rng.permutation(values), pieces):
            means.add(m, part)
        assert means.result()[m] == want
    means = Means([m])
    for v in values.tolist():
        means.add_metric(ir_measures.Metric("q", m, v))
    assert means.result()[m] == want


# ---------------------------------------------------------------------------------------- errors

def test_an_unsorted_file_is_named_with_its_line_and_query(data, tmp_path):
    lines = open(data["files"]["run"]).read().splitlines(keepends=True)
    first_q1 = next(i for i, line in enumerate(lines) if line.startswith("q1 "))
    # q0's rows, then q1's, then q0's again: grouped wrongly, the first q0 after q1 is the offending line
    moved = lines[:3] + lines[first_q1:first_q1 + 2] + lines[3:first_q1] + lines[first_q1 + 2:]
    path = tmp_path / "unsorted.run"
    path.write_text("".join(moved))
    with pytest.raises(InputFormatError) as err:
        list(stream_calc("RBP(p=0.8,rel=1)@5", str(path), data["files"]["qrels"], order="sorted", block_rows=4))
    text = str(err.value)
    assert f"{path}: line 6: query 'q0' comes after query 'q1'" in text
    assert "LC_ALL=C sort -s -k1,1" in text and "order='any'" in text
    # the same file in order "any" (and "auto") gives the sorted file's values
    want = _got(stream_calc("RBP(p=0.8,rel=1)@5", data["files"]["run"], data["files"]["qrels"], order="sorted"))
    for order in ("any", "auto"):
        _same(_got(stream_calc("RBP(p=0.8,rel=1)@5", str(path), data["files"]["qrels"], order=order, block_rows=4)), want)


def test_a_bad_value_is_named_by_its_line_in_the_file(data, tmp_path):
    lines = open(data["files"]["run"]).read().splitlines(keepends=True)
    q, _, d, r, _, t = lines[40].split()
    lines[40] = f"{q} Q0 {d} {r} high {t}\n"
    path = tmp_path / "bad.run"
    path.write_text("".join(lines))
    for order in ("sorted", "any"):
        with pytest.raises(InputFormatError, match=rf"bad.run: line 41: score 'high' of document '{d}' for query '{q}'"):
            list(stream_calc("RBP(p=0.8,rel=1)@5", str(path), data["files"]["qrels"], order=order, block_rows=5))
    lines = open(data["files"]["run"]).read().splitlines(keepends=True)
    lines.insert(30, lines[27])                                 # a duplicate, far from its first copy's chunk
    path.write_text("".join(lines))
    q, _, d = lines[27].split()[:3]
    for order in ("sorted", "any"):
        with pytest.raises(DuplicateDocumentError, match=rf"document '{d}' appears twice for query '{q}' \(lines 28 and 31\)"):
            list(stream_calc("RBP(p=0.8,rel=1)@5", str(path), data["files"]["qrels"], order=order, block_rows=2))


def _leftovers(root):
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files] + \
        [d for d, dirs, _ in os.walk(root) for _ in dirs]


def test_temporary_files_are_removed(data, tmp_path):
    tmp = tmp_path / "parts"
    tmp.mkdir()
    args = dict(order="any", block_rows=3, tmpdir=str(tmp))
    assert _got(stream_calc("RBP(p=0.8,rel=1)@5", data["files"]["run"], data["files"]["qrels"], **args))
    assert _leftovers(tmp) == []
    gen = stream_calc("RBP(p=0.8,rel=1)@5", data["files"]["run"], data["files"]["qrels"], **args)
    next(gen)
    assert _leftovers(tmp) != []                  # the parts exist while the iteration runs
    gen.close()                                   # abandoned
    assert _leftovers(tmp) == []
    lines = open(data["files"]["run"]).read().splitlines(keepends=True)
    lines.append(lines[-1])                       # a duplicate in the last query
    bad = tmp_path / "dup.run"
    bad.write_text("".join(lines))
    with pytest.raises(DuplicateDocumentError):
        list(stream_calc("RBP(p=0.8,rel=1)@5", str(bad), data["files"]["qrels"], **args))
    assert _leftovers(tmp) == []
    # a part larger than its share is split again (an estimate far too low): still every query, once
    from ir_rbstar.scale import stream
    orig = stream._TrecSource.estimate_rows
    stream._TrecSource.estimate_rows = lambda self: 1
    try:
        got = _got(stream_calc("RBP(p=0.8,rel=1)@5", data["files"]["run"], data["files"]["qrels"], **args))
    finally:
        stream._TrecSource.estimate_rows = orig
    want = _got(ir_measures.iter_calc(ir_rbstar.parse("RBP(p=0.8,rel=1)@5"), data["qrels"], data["run"]))
    _same(got, want)
    assert _leftovers(tmp) == []


def test_chunked_reader_equals_the_whole_file_reader(tmp_path):
    text = "\n".join(f"q{i // 7} Q0 d{i} {i} {1.0 / (i + 1)!r} t" + ("\n" if i % 11 == 0 else "") for i in range(200))
    path = tmp_path / "r.run"
    path.write_text("\ufeff" + text)                 # a byte-order mark, blank lines, no final newline
    whole = read_trec_run(str(path))
    for size in (1, 17, 64, 1 << 20):
        chunks = list(iter_trec_chunks(str(path), "run", chunk_bytes=size))
        q = np.concatenate([c[0] for c in chunks])
        lines = np.concatenate([c["line"] for c in chunks])
        assert len(q) == len(whole) == 200
        raw = path.read_text(encoding="utf-8-sig").split("\n")
        assert all(raw[n - 1].split()[0] == q[i].decode() for i, n in enumerate(lines.tolist())), size
    qpath = tmp_path / "q.txt"
    qpath.write_text("q1 0 d1 1\nq1 0 d2 0\n   \nq2 0 d1 2\n")
    chunks = list(iter_trec_chunks(str(qpath), "qrels", chunk_bytes=5))
    assert np.concatenate([c["line"] for c in chunks]).tolist() == [1, 2, 4]
    assert len(read_trec_qrels(str(qpath)).rowq) == 3
    bad = tmp_path / "short.run"
    bad.write_text("q1 Q0 d1 1 1.0 t\n" * 30 + "q2 Q0 d1 1 1.0\n")
    with pytest.raises(InputFormatError, match=r"short.run: line 31: expected 6"):
        list(iter_trec_chunks(str(bad), "run", chunk_bytes=64))


# ---------------------------------------------------------------------------------------- command line

def _cli(argv):
    out = io.StringIO()
    assert run_measures(argv, out=out) == 0
    return out.getvalue()


_CLI_FORMATS = {"per-query": ["-q"], "means": [], "jsonl": ["-q", "-n", "-o", "jsonl"], "markdown": ["-o", "markdown"]}


@pytest.fixture(scope="module")
def plain_cli(data):
    """The command line's output without --stream, in each format of the test below: computed once for
    the three orders (the plain command does not depend on them)."""
    base = [data["files"]["qrels"], data["files"]["run"], *(str(m) for m in data["measures"])]
    return base, {name: _cli(base + extra) for name, extra in _CLI_FORMATS.items()}


@pytest.mark.parametrize("order", ["auto", "sorted", "any"])
def test_command_line_stream_equals_the_command_line(plain_cli, order, tmp_path):
    base, plain_out = plain_cli
    stream = ["--stream", "--order", order, "--block-rows", "4", "--tmpdir", str(tmp_path)]
    for name in ("per-query", "means"):
        plain = plain_out[name].splitlines()
        streamed = _cli(base + _CLI_FORMATS[name] + stream).splitlines()
        assert sorted(streamed) == sorted(plain), name           # the same lines (per-query ones in block order)
    # full precision: the same values to 1e-12 (a few measures' last bits depend on the queries evaluated together)
    plain = {(r["query_id"], r["measure"]): r["value"] for r in map(json.loads, plain_out["jsonl"].splitlines())}
    streamed = [json.loads(line) for line in _cli(base + _CLI_FORMATS["jsonl"] + stream).splitlines()]
    assert len(streamed) == len(plain)
    _same({(r["query_id"], r["measure"]): r["value"] for r in streamed}, plain, "jsonl")
    assert _cli(base + _CLI_FORMATS["markdown"] + stream) == plain_out["markdown"]
    assert os.listdir(tmp_path) == []


def test_command_line_stream_reads_parquet_and_reports_errors(data, tmp_path, capsys):
    pytest.importorskip("pyarrow")
    data["run"].to_parquet(tmp_path / "run.parquet")
    measures = ["RBP(p=0.8,rel=1)@5", "nDCG@10", f"RBO(p=0.9,ref='{data['files']['ref']}')@8"]
    plain = _cli([data["files"]["qrels"], data["files"]["run"], *measures])
    streamed = _cli([data["files"]["qrels"], str(tmp_path / "run.parquet"), *measures, "--stream"])
    assert streamed == plain
    assert main([data["files"]["qrels"], data["files"]["run"], "RBP(p=0.8)", "--order", "any"]) == 2
    assert "--order, --block-rows and --tmpdir go with --stream" in capsys.readouterr().err


def _big_inputs(folder, queries=120, depth=150):
    """A synthetic run and qrels big enough that a --stream --order any evaluation with small blocks is still
    running when its first per-query lines appear."""
    rng = np.random.default_rng(7)
    q = np.repeat(np.arange(queries), depth)
    d = rng.integers(0, 10 * depth, size=queries * depth)
    d = (q * 100_000 + d).astype(str)
    frame = pd.DataFrame({"q": q, "d": d}).drop_duplicates(["q", "d"])
    frame = frame.sample(frac=1.0, random_state=1)                      # any order: hash parts on disk
    run = os.path.join(folder, "big.run")
    with open(run, "w") as f:
        f.write("".join(f"{a} Q0 {b} 1 {s:.3f} t\n" for a, b, s in
                        zip(frame.q, frame.d, rng.random(len(frame)))))
    qrels = os.path.join(folder, "big.qrels")
    judged = frame.groupby("q").head(20)
    with open(qrels, "w") as f:
        f.write("".join(f"{a} 0 {b} {g}\n" for a, b, g in zip(judged.q, judged.d, rng.integers(0, 3, len(judged)))))
    return qrels, run


@pytest.mark.parametrize("signame, status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_an_interrupt_ends_with_one_line_its_status_and_no_temporary_file(tmp_path, signame, status):
    import signal
    import subprocess
    import sys
    qrels, run = _big_inputs(str(tmp_path))
    parts = tmp_path / "parts"
    parts.mkdir()
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "ir_rbstar", qrels, run, "nDCG@10", "RBP(p=0.8,max_rel=2)", "--stream",
           "--order", "any", "--block-rows", "150", "--tmpdir", str(parts), "--by_query"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        first = proc.stdout.readline()                 # the first block is printed: parts are on disk
        assert first, proc.stderr.read().decode()
        assert any(parts.rglob("*")), "the hash parts should be on disk while the blocks are evaluated"
        proc.send_signal(getattr(signal, signame))
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err.decode()
    assert proc.returncode == status, err
    assert err.strip().splitlines() == [err.strip()], err
    assert err.startswith(f"ir-rbstar: interrupted by {signame}") and "the output above is partial" in err
    assert "Traceback" not in err and "Error" not in err
    assert not any(parts.rglob("*")), list(parts.rglob("*"))
    assert rest.count(b"\n") + 1 < 2 * 120, "the command should have been interrupted mid-run"


def test_an_error_after_per_query_lines_says_the_output_is_partial(tmp_path, capsys):
    run = tmp_path / "r.txt"
    rows = [f"q{i} Q0 d{j} {j} {10 - j} t\n" for i in range(5) for j in range(3)]
    run.write_text("".join(rows) + "q9 Q0 d1 1 nan t\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"q{i} 0 d1 1\n" for i in range(10)))
    code = main([str(qrels), str(run), "P@1", "--stream", "--order", "sorted", "--block-rows", "3", "--by_query"])
    out, err = capsys.readouterr()
    n = out.count("\n")
    assert code == 2 and n >= 5 and "all\t" not in out
    assert err.strip().endswith("the output above is partial (per-query lines of the queries done so far, no means)")


def test_blocks_agree_with_the_whole_within_the_documented_magnitude(tmp_path):
    """docs/scale.md states the measured magnitude of the block-vs-whole differences: the bundled run where
    it was measured (bm25_flat, against the qrels and a reference), in small blocks, stays within it."""
    import re
    from ir_rbstar.demo import data_dir
    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "scale.md"), encoding="utf-8").read()
    bound = float(re.search(r"evaluation: differences up to ([0-9.e-]+) ", text).group(1))
    assert "about 1e-16" not in text and bound < 1e-12          # and the tests' tolerance (TOL) covers it
    d = data_dir()
    run, ref, qrels = (os.path.join(d, n) for n in ("bm25_flat.run.gz", "minilm_rerank.run.gz", "qrels"))
    ms = ir_rbstar.parse(f"RBO(p=0.9)@100 RBO_res(p=0.9)@100 RBA(p=0.9)@100 RBO_ext(p=0.9,ref='{ref}')@100 "
                         f"RBA_res(p=0.9,ref='{ref}')@100")
    whole = {(m.query_id, str(m.measure)): m.value
             for m in ir_measures.iter_calc(ms, ir_rbstar.read_qrels(qrels), ir_rbstar.read_run(run))}
    blocks = {(m.query_id, str(m.measure)): m.value for m in stream_calc(ms, run, qrels, block_rows=1500)}
    assert set(blocks) == set(whole)
    worst = max(abs(blocks[k] - v) for k, v in whole.items())
    assert worst <= bound, worst


@pytest.mark.parametrize("rows", [0, 1, 37])
def test_a_hash_part_gives_back_the_pieces_written_to_it(tmp_path, rows):
    """The pieces of a part file (ir_rbstar/scale/_order.py) come back as written: values, dtypes (byte and
    text ids of any width, floats, integer grades), piece by piece and in order; a file cut inside a piece is
    an error, not a shorter piece."""
    from ir_rbstar.scale._order import _pack, _unpack
    rng = np.random.default_rng(rows)
    pieces = [[np.array([b"q%d" % i for i in rng.integers(0, 10**k, rows)], dtype=f"S{k + 2}"),
               np.array([f"d{i}é" for i in rng.integers(0, 10**k, rows)], dtype=f"U{k + 3}"),
               rng.random(rows) if k % 2 else rng.integers(-2, 5, rows),
               np.arange(rows, dtype=np.int64)[::-1]] for k in (1, 5, 2)]
    path = tmp_path / "part"
    with open(path, "ab") as f:
        for arrays in pieces:
            f.write(_pack(arrays))
    with open(path, "rb") as f:
        for arrays in pieces:
            got = _unpack(f)
            assert [a.dtype for a in got] == [a.dtype for a in arrays]
            for a, b in zip(got, arrays):
                np.testing.assert_array_equal(a, b)
        assert f.read() == b""
    data = path.read_bytes()
    path.write_bytes(data[:-1])
    with open(path, "rb") as f:
        with pytest.raises(OSError, match="ends inside a piece"):
            for _ in pieces:
                _unpack(f)
    with pytest.raises(TypeError, match="objects"):
        _pack([np.array(["a"], dtype=object)] * 4)
