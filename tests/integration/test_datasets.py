"""ir_datasets ids as qrels and reference runs (ir_rbstar.datasets), offline.

The offline tests build an ``IR_DATASETS_HOME`` in a temporary folder with files placed at the cache
paths of real dataset ids (the official TREC DL 2019 passage qrels, shipped in tests/fixtures/irds, and
small generated scoreddocs), then run ir_rbstar in a new process with that home and with every socket
call replaced by one that records the attempt and fails: a test passes only if ir_datasets used the
placed files and never tried to download (each in a fork of one interpreter started for the module,
sockets blocked and the common imports made: the start-up is paid once). Expected values come from the
plain files (read here with plain Python or ir_measures) or from closed forms, never from the id path.
"""
import contextlib
import doctest
import gzip
import hashlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import datasets as ds
from ir_rbstar import errors
from ir_rbstar.cli import main as cli_main

from tests.helpers import FIXTURES, REPO

DL19 = "msmarco-passage/trec-dl-2019"          # qrels + queries + scoreddocs (ms.run: "qid<TAB>pid", no score)
DOC19 = "msmarco-document/trec-dl-2019"        # scoreddocs ms.run.gz: a TREC run with scores
QRELS_MD5 = "2f4be390198da108f6845c822e5ada14"  # ir_datasets' expected md5 of NIST's 2019qrels-pass.txt
P = 0.8
HAS_IRDS = importlib.util.find_spec("ir_datasets") is not None
needs_irds = pytest.mark.skipif(not HAS_IRDS, reason="ir_datasets is not installed (ir_rbstar[datasets])")

# Run first in every subprocess: no socket can connect or resolve a name; attempts are recorded.
PRELUDE = '''
import json, socket
NET = []
def _blocked(*args, **kwargs):
    NET.append(repr(args[1:2]))
    raise OSError("network access is blocked in this test")
socket.socket.connect = _blocked
socket.socket.connect_ex = _blocked
socket.create_connection = _blocked
socket.getaddrinfo = _blocked
OUT = {}
'''

# The module's interpreter: the prelude, the imports every test's code makes (not matplotlib or pyterrier:
# whether they are loaded changes what other code does), then a fork per test that runs its code in a copy
# of this namespace, in its folder, output to a file, and writes OUT and NET to another; the parent answers
# with the child's exit status.
SERVER = PRELUDE + '''
import os, sys, traceback
import pandas, ir_measures, ir_rbstar, ir_datasets
from ir_rbstar import cli
BASE = dict(globals())
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(log, 1), os.dup2(log, 2)
            os.chdir(job["cwd"])
            scope = dict(BASE, CONST=job["const"])
            exec(compile(job["code"], "<test code>", "exec"), scope)
            with open(job["out"], "w") as f:
                json.dump(dict(scope["OUT"], net=scope["NET"]), f)
            status = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush(), sys.stderr.flush()
            os._exit(status)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
'''


def _read_gz(name: str) -> bytes:
    return gzip.decompress((FIXTURES / "irds" / name).read_bytes())


def _plain_qrels(data: bytes) -> dict:
    """{qid: {docno: grade}} parsed with plain Python (independent of every reader under test)."""
    out: dict = {}
    for line in data.decode().splitlines():
        if line.strip():
            q, _, d, g = line.split()
            out.setdefault(q, {})[d] = int(g)
    return out


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.fixture(scope="module")
def offline(tmp_path_factory):
    """An IR_DATASETS_HOME with the DL19 passage qrels, queries and (generated) scoreddocs, the DL19
    document scoreddocs (generated), and the same data as plain files."""
    root = tmp_path_factory.mktemp("irds")
    home, files = root / "home", root / "files"
    qrels_bytes = _read_gz("2019qrels-pass.txt.gz")
    qrels = _plain_qrels(qrels_bytes)
    queries = [line.split("\t")[0] for line in _read_gz("msmarco-test2019-queries.tsv.gz").decode().splitlines()]
    rng = np.random.default_rng(2019)

    # msmarco-passage/trec-dl-2019 scoreddocs as ir_datasets caches them (ms.run: "qid<TAB>pid", unordered,
    # no score: ir_datasets gives every document score 0, so each query's reference is one tie group)
    ref_docs, sd_lines, trec_lines = {}, [], []
    unjudged = [q for q in queries if q not in qrels][:3]
    for i, q in enumerate(sorted(qrels) + unjudged):
        judged = sorted(qrels.get(q, {}))
        take = list(rng.choice(judged, size=min(len(judged), int(rng.integers(3, 25))), replace=False)) if judged else []
        fake = [f"99{i:03d}{j:03d}" for j in range(int(rng.integers(2, 30)))]
        docs = [str(d) for d in rng.permutation(take + fake)]
        ref_docs[q] = docs
        sd_lines += [f"{q}\t{d}\n" for d in docs]
        trec_lines += [f"{q} Q0 {d} {r} 0 ms\n" for r, d in enumerate(docs, 1)]
    ms_run = "".join(sd_lines)

    # a run over every judged query: judged documents (some in the reference, some not) and others, distinct scores
    run_lines, run_docs = [], {}
    for i, q in enumerate(sorted(qrels)):
        pool = sorted(set(qrels[q]) | set(ref_docs[q])) + [f"88{i:03d}{j:03d}" for j in range(10)]
        docs = [str(d) for d in rng.choice(pool, size=min(len(pool), 40), replace=False)]
        run_docs[q] = docs
        run_lines += [f"{q} Q0 {d} {r} {100.0 - r + 0.25 * rng.random():.6f} test\n" for r, d in enumerate(docs, 1)]

    # msmarco-document/trec-dl-2019 scoreddocs (ms.run.gz, a TREC run): a tie at the top, by hand
    doc_run = "19335 Q0 D1 1 -5.5 r\n19335 Q0 D2 2 -5.5 r\n19335 Q0 D3 3 -6 r\n47923 Q0 D9 1 3 r\n"

    placed = {
        home / "msmarco-passage" / "trec-dl-2019" / "qrels": qrels_bytes,
        home / "msmarco-passage" / "trec-dl-2019" / "queries.tsv": _read_gz("msmarco-test2019-queries.tsv.gz"),
        home / "msmarco-passage" / "trec-dl-2019" / "ms.run": ms_run,
        home / "msmarco-document" / "trec-dl-2019" / "ms.run.gz": gzip.compress(doc_run.encode(), mtime=0),
    }
    for path, data in placed.items():
        _write(path, data)
    env = dict(os.environ, IR_DATASETS_HOME=str(home), IR_DATASETS_TMP=str(root / "tmp"), IR_DATASETS_DL_TRIES="1",
               PYTHONPATH=os.pathsep.join([str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    server = subprocess.Popen([sys.executable, "-c", SERVER], cwd=root, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    yield {
        "server": server,
        "root": root, "home": home, "env": env, "placed": set(placed), "qrels": qrels, "ref_docs": ref_docs,
        "run_docs": run_docs,
        "qrels_file": str(_write(files / "dl19.qrels", qrels_bytes)),
        "ref_file": str(_write(files / "dl19-scoreddocs.run", "".join(trec_lines))),
        "doc_ref_file": str(_write(files / "doc19-scoreddocs.run", doc_run)),
        "run_file": str(_write(files / "test.run", "".join(run_lines))),
    }
    server.stdin.close()
    server.wait(timeout=60)


def offline_python(offline, code: str, cwd=None, network_attempts: bool = False) -> dict:
    """Run ``code`` (which fills the dict OUT) in a new process (a fork of the module's interpreter) with
    the test's IR_DATASETS_HOME and no network; returns OUT. Fails on any network access (unless
    ``network_attempts``) or a file that appeared in the home (a download or conversion)."""
    import select
    server, n = offline["server"], len(list(offline["root"].glob("job*.log")))
    out_file, log_file = offline["root"] / f"job{n}.out", offline["root"] / f"job{n}.log"
    job = {"code": textwrap.dedent(code), "cwd": str(cwd or offline["root"]), "out": str(out_file),
           "log": str(log_file), "const": {k: v for k, v in offline.items() if isinstance(v, str)}}
    server.stdin.write(json.dumps(job) + "\n")
    server.stdin.flush()
    assert select.select([server.stdout], [], [], 600)[0], "no answer in 10 minutes"
    status = server.stdout.readline().strip()
    assert status == "0", f"exit status {status or server.wait()}: " + log_file.read_text()[-4000:]
    out = json.loads(out_file.read_text())
    if not network_attempts:
        assert out["net"] == [], f"network access attempted: {out['net']}"
    present = {p for p in offline["home"].rglob("*") if p.is_file()}
    assert present == offline["placed"], f"files changed in IR_DATASETS_HOME: {present ^ offline['placed']}"
    return out


def expected_rbr(offline, k: int) -> dict:
    """RBR@k against the DL19 scoreddocs in closed form: every query's reference is one tie group of n
    documents, so each shares the weight of positions 1..n equally: (1 - p^n) / n."""
    out = {}
    for q, docs in offline["run_docs"].items():
        ref = offline["ref_docs"].get(q, [])
        n = len(ref)
        hit = len(set(docs[:k]) & set(ref))            # the run's scores are distinct and fall with rank
        out[q] = hit * (1 - P ** n) / n if n else 0.0
    return out


# ---------------------------------------------------------------------------------------------------
# The fixture and the recipe
# ---------------------------------------------------------------------------------------------------

def test_fixture_is_the_official_dl19_qrels():
    data = _read_gz("2019qrels-pass.txt.gz")
    assert hashlib.md5(data).hexdigest() == QRELS_MD5
    qrels = _plain_qrels(data)
    assert (len(qrels), sum(map(len, qrels.values()))) == (43, 9260)
    if HAS_IRDS:                     # the md5 ir_datasets checks when it downloads this file itself
        spec = importlib.util.find_spec("ir_datasets")
        table = json.loads((Path(spec.origin).parent / "etc" / "downloads.json").read_text())
        entry = table["msmarco-passage"]["trec-dl-2019/qrels"]
        assert (entry["expected_md5"], entry["cache_path"]) == (QRELS_MD5, "trec-dl-2019/qrels")


# ---------------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------------

@needs_irds
def test_python_api_offline(offline):
    out = offline_python(offline, f'''
        import ir_measures, ir_rbstar, pandas as pd
        from ir_rbstar import datasets as ds, med, nrg, plots, twist
        from ir_rbstar.references import resolve_run
        DL19, DOC19 = {DL19!r}, {DOC19!r}
        qf, run, ref_file = CONST["qrels_file"], CONST["run_file"], CONST["ref_file"]

        def same(a, b):
            try:
                pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
                return "ok"
            except AssertionError as e:
                return str(e)

        by_id = ir_rbstar.read_qrels("irds:" + DL19)
        OUT["read_qrels"] = same(by_id, ir_rbstar.read_qrels(qf))
        OUT["bare_id"] = same(ir_rbstar.read_qrels(DL19), by_id)
        OUT["load_qrels"] = same(ds.load_qrels("irds:" + DL19), by_id)
        OUT["judged"] = same(ir_rbstar.read_qrels("irds:" + DL19 + "/judged"), by_id)
        OUT["grades"] = {{f"{{q}} {{d}}": int(g) for q, d, g in by_id.itertuples(index=False)}}
        OUT["qrels_columns"] = [list(by_id.columns), str(by_id.relevance.dtype)]

        ms = ir_rbstar.parse("RBR(p=0.8,ref='irds:" + DL19 + "')@20 RBR(p=0.8,ref='" + ref_file + "')@20 "
                             "RBR(p=0.8,ref='top1000')@20 NRG(prior='irds:" + DL19 + "')@10 "
                             "NRG(prior='" + ref_file + "')@10 RarP(runs='irds:" + DL19 + "')@10 "
                             "RarP(runs='" + ref_file + "')@10")
        ir_rbstar.register_run("top1000", "irds:" + DL19)
        OUT["labels"] = [str(m) for m in ms]
        values = {{}}
        for m in ir_measures.iter_calc(ms, ir_rbstar.read_qrels(qf), ir_rbstar.read_run(run)):
            values.setdefault(str(m.measure), {{}})[m.query_id] = m.value
        OUT["values"] = values
        first = resolve_run("irds:" + DL19)
        OUT["cached"] = first is resolve_run("irds:" + DL19) and first is resolve_run("top1000")
        ir_rbstar.clear_cache()
        OUT["recached"] = resolve_run("irds:" + DL19) is not first
        OUT["scoreddocs"] = same(ds.load_scoreddocs("irds:" + DL19), ir_rbstar.read_run(ref_file))

        doc = ir_rbstar.parse("RBR(p=0.8,ref='irds:" + DOC19 + "')@2 RBA(p=0.8,ref='irds:" + DOC19 + "') "
                              "RBA(p=0.8,ref='" + CONST["doc_ref_file"] + "')")
        doc_run = {{"19335": {{"D1": 3.0, "D3": 2.0, "D7": 1.0}}, "47923": {{"D9": 1.0}}}}
        OUT["doc"] = {{str(m): v for m, v in ir_measures.calc_aggregate(doc, None, doc_run).items()}}
        OUT["doc_sd"] = same(ds.load_scoreddocs(DOC19), ir_rbstar.read_run(CONST["doc_ref_file"]))

        # every helper that takes qrels as a path takes the id
        runs = {{"test": run, "ref": ref_file}}
        OUT["twist"] = same(twist.twist_table("irds:" + DL19, run), twist.twist_table(qf, run))
        OUT["full_scale"] = twist.full_scale_rp(DL19, "19335").tolist() == twist.full_scale_rp(qf, "19335").tolist()
        OUT["med"] = same(med.distance_matrix(runs, "MED_nDCG(max_rel=3)@10", "irds:" + DL19),
                          med.distance_matrix(runs, "MED_nDCG(max_rel=3)@10", qf))
        OUT["best"] = [nrg.best_per_team(runs, {{"test": "a", "ref": "a"}}, q, "nDCG@10") for q in ("irds:" + DL19, qf)]
        OUT["effort_gain"] = same(plots.effort_gain_points("irds:" + DL19, {{"test": run}}, gain="nDCG"),
                                  plots.effort_gain_points(qf, {{"test": run}}, gain="nDCG"))
    ''')
    assert {key: out[key] for key in ("read_qrels", "bare_id", "load_qrels", "judged", "scoreddocs", "doc_sd",
                                      "twist", "med", "effort_gain")} == dict.fromkeys(
        ("read_qrels", "bare_id", "load_qrels", "judged", "scoreddocs", "doc_sd", "twist", "med", "effort_gain"), "ok")
    # the qrels of the id are the qrels of the file, read here without ir_rbstar
    plain = {f"{q} {d}": g for q, docs in offline["qrels"].items() for d, g in docs.items()}
    assert out["grades"] == plain
    assert out["qrels_columns"] == [["query_id", "doc_id", "relevance"], "int64"]
    assert out["full_scale"] is True and out["best"][0] == out["best"][1]
    assert out["cached"] is True and out["recached"] is True

    # the label keeps the string as written
    assert out["labels"][0] == f"RBR(p=0.8,ref='irds:{DL19}')@20"
    values = out["values"]
    by_id, by_file, by_name = (values[label] for label in out["labels"][:3])
    expected = expected_rbr(offline, 20)
    assert set(by_id) == set(expected)
    for q, v in expected.items():
        assert by_id[q] == pytest.approx(v, abs=1e-12)
        assert by_file[q] == pytest.approx(v, abs=1e-12) and by_name[q] == pytest.approx(v, abs=1e-12)
    assert any(v > 0 for v in expected.values())
    for a, b in [(out["labels"][3], out["labels"][4]), (out["labels"][5], out["labels"][6])]:
        assert values[a].keys() == values[b].keys()
        assert all(values[a][q] == pytest.approx(values[b][q], abs=1e-12) for q in values[a])

    # DL19 documents: D1 and D2 tie at the top and share the weights of positions 1 and 2; run top 2 = {D1, D3}
    doc = out["doc"]
    w1, w2, w3 = (1 - P), (1 - P) * P, (1 - P) * P ** 2
    assert doc[f"RBR(p=0.8,ref='irds:{DOC19}')@2"] == pytest.approx(((w1 + w2) / 2 + w3 + (1 - P)) / 2, abs=1e-12)
    assert doc[f"RBA(p=0.8,ref='irds:{DOC19}')"] == pytest.approx(doc[f"RBA(p=0.8,ref='{offline['doc_ref_file']}')"],
                                                                 abs=1e-12)


# ---------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------

@needs_irds
def test_command_line_offline(offline):
    measures = ["nDCG@10", "P_TA(rel=2)@10", "RBP(p=0.8,max_rel=3)", f"RBR(p=0.8,ref='irds:{DL19}')@20"]
    out = offline_python(offline, f'''
        import contextlib, io
        from ir_rbstar.cli import main
        def cli(*argv):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                code = main(list(argv))
            return [code, buf.getvalue()]
        MS = {measures!r}
        for name, q in [("file", CONST["qrels_file"]), ("bare", {DL19!r}), ("irds", "irds:" + {DL19!r})]:
            OUT[name] = cli(q, CONST["run_file"], *MS)
            OUT[name + "_q"] = cli(q, CONST["run_file"], *MS, "-q")
            OUT[name + "_distance"] = cli("distance", CONST["run_file"], CONST["ref_file"], "--qrels", q,
                                              "--measure", "MED_nDCG(max_rel=3)@20")
    ''')
    for suffix in ("", "_q", "_distance"):
        assert out["file" + suffix][0] == 0 and out["file" + suffix][1].strip()
        assert out["bare" + suffix] == out["file" + suffix] == out["irds" + suffix]
    summary = dict(line.split("\t")[:2] for line in out["irds"][1].splitlines())
    assert list(summary) == measures
    # nDCG@10 as ir_measures computes it from the plain files
    ndcg = ir_measures.parse_measure("nDCG@10")
    expected = ir_measures.calc_aggregate([ndcg], ir_measures.read_trec_qrels(offline["qrels_file"]),
                                          ir_measures.read_trec_run(offline["run_file"]))[ndcg]
    assert float(summary["nDCG@10"]) == pytest.approx(expected, abs=5e-5)
    rbr = expected_rbr(offline, 20)
    assert float(summary[measures[-1]]) == pytest.approx(np.mean([rbr[q] for q in offline["qrels"]]), abs=5e-5)


# ---------------------------------------------------------------------------------------------------
# PyTerrier
# ---------------------------------------------------------------------------------------------------

@needs_irds
@pytest.mark.skipif(importlib.util.find_spec("pyterrier") is None, reason="pyterrier is not installed")
def test_pyterrier_offline(offline):
    out = offline_python(offline, f'''
        import pandas as pd, pyterrier as pt
        DL19 = {DL19!r}
        qrels = pt.rbstar.qrels("irds:" + DL19)
        OUT["columns"] = [list(qrels.columns), str(qrels.label.dtype), len(qrels)]
        file_qrels = pt.rbstar.qrels(CONST["qrels_file"])
        OUT["same"] = qrels.equals(file_qrels) and qrels.equals(pt.rbstar.qrels(pt.get_dataset("irds:" + DL19)))
        run = pd.read_csv(CONST["run_file"], sep=" ", header=None, names=["qid", "Q0", "docno", "rank", "score", "tag"],
                          dtype={{"qid": str, "docno": str}})[["qid", "docno", "score"]]
        topics = pt.get_dataset("irds:" + DL19 + "/judged").get_topics()
        pt.rbstar.register_run("dl19_top1000", "irds:" + DL19)
        ms = pt.rbstar.parse("nDCG@10 RBR(p=0.8,ref='irds:" + DL19 + "')@20 RBR(p=0.8,ref='dl19_top1000')@20")
        table = pt.Experiment([run], topics, qrels, eval_metrics=ms, names=["test"])
        OUT["table"] = {{c: float(table[c].iloc[0]) for c in table.columns if c != "name"}}
        OUT["topics"] = len(topics)
    ''')
    assert out["columns"] == [["qid", "docno", "label"], "int64", 9260]
    assert out["same"] is True and out["topics"] == 43
    table = out["table"]
    ndcg = ir_measures.parse_measure("nDCG@10")
    expected = ir_measures.calc_aggregate([ndcg], ir_measures.read_trec_qrels(offline["qrels_file"]),
                                          ir_measures.read_trec_run(offline["run_file"]))[ndcg]
    assert table["nDCG@10"] == pytest.approx(expected, abs=1e-9)
    rbr = np.mean(list(expected_rbr(offline, 20).values()))
    assert table[f"RBR(p=0.8,ref='irds:{DL19}')@20"] == pytest.approx(rbr, abs=1e-9)
    assert table["RBR(p=0.8,ref='dl19_top1000')@20"] == pytest.approx(rbr, abs=1e-9)


# ---------------------------------------------------------------------------------------------------
# Errors and precedence
# ---------------------------------------------------------------------------------------------------

@needs_irds
def test_errors_offline(offline):
    out = offline_python(offline, '''
        import contextlib, io, ir_measures, ir_rbstar
        from ir_rbstar.cli import main
        run = {"19335": {"a": 1.0}}
        def err(f):
            try:
                f()
            except Exception as e:
                return [type(e).__name__, str(e)]
            return None
        OUT["unknown"] = err(lambda: ir_rbstar.read_qrels("irds:no-such/dataset"))
        OUT["empty"] = err(lambda: ir_rbstar.read_qrels("irds:"))
        OUT["no_qrels"] = err(lambda: ir_rbstar.read_qrels("irds:msmarco-passage"))
        OUT["bare_unknown"] = err(lambda: ir_rbstar.read_qrels("no-such/qrels.txt"))
        OUT["bare_unknown_id"] = err(lambda: ir_rbstar.read_qrels("no-such/dataset"))
        OUT["ref_unknown"] = err(lambda: ir_measures.calc_aggregate(
            ir_rbstar.parse("RBR(ref='irds:no-such/dataset')@5"), None, run))
        OUT["ref_empty"] = err(lambda: ir_measures.calc_aggregate(ir_rbstar.parse("RBR(ref='irds:')@5"), None, run))
        OUT["no_scoreddocs"] = err(lambda: ir_measures.calc_aggregate(
            ir_rbstar.parse("RBR(ref='irds:vaswani')@5"), None, run))
        OUT["register_no_scoreddocs"] = err(lambda: ir_rbstar.register_run("x", "irds:vaswani"))
        OUT["prior_unknown"] = err(lambda: ir_measures.calc_aggregate(
            ir_rbstar.parse("NRG(prior='irds:no-such/dataset')@5"), {"19335": {"a": 1}}, run))
        buf = io.StringIO()
        with contextlib.redirect_stderr(buf):
            OUT["cli"] = [main(["irds:no-such/dataset", CONST["run_file"], "nDCG@10"]), buf.getvalue()]
    ''')
    rnf = "ReferenceNotFoundError"
    assert out["unknown"][0] == rnf and "no-such/dataset" in out["unknown"][1]
    assert out["empty"][0] == rnf and "no ir_datasets id after 'irds:'" in out["empty"][1]
    assert out["no_qrels"] == ["MissingQrelsError", "irds:msmarco-passage: this ir_datasets dataset provides no qrels"]
    assert out["bare_unknown"] == ["FileNotFoundError", "qrels file not found: no-such/qrels.txt"]
    assert out["bare_unknown_id"] == ["FileNotFoundError",
                                      "qrels file not found: no-such/dataset (nor is it an ir_datasets id)"]
    assert out["ref_unknown"][0] == rnf and "no-such/dataset" in out["ref_unknown"][1]
    assert out["ref_empty"][0] == rnf
    assert out["prior_unknown"][0] == rnf and "no-such/dataset" in out["prior_unknown"][1]
    for key in ("no_scoreddocs", "register_no_scoreddocs"):
        assert out[key][0] == rnf and "irds:vaswani" in out[key][1] and "no scoreddocs" in out[key][1]
    assert out["cli"][0] == 2 and "no-such/dataset" in out["cli"][1]


@needs_irds
def test_files_missing_offline_is_a_typed_error(offline):
    """msmarco-document/trec-dl-2019's qrels were not placed: ir_datasets tries to download them (the
    blocked sockets refuse), and the error names the id and says where the files go."""
    out = offline_python(offline, f'''
        import ir_rbstar
        from ir_rbstar.datasets import DatasetUnavailableError
        try:
            ir_rbstar.read_qrels("irds:{DOC19}")
        except DatasetUnavailableError as e:
            OUT["error"] = [isinstance(e, ir_rbstar.RbstarError), isinstance(e, OSError), str(e)]
    ''', network_attempts=True)
    assert out["net"], "the download should have been attempted (and refused)"
    is_rbstar, is_os, message = out["error"]
    assert is_rbstar and is_os
    assert message.startswith(f"irds:{DOC19}: ir_datasets could not provide the qrels")
    assert str(offline["home"]) in message


@needs_irds
def test_an_existing_path_wins_over_an_id(offline, tmp_path):
    _write(tmp_path / DL19, "19335 0 only-doc 3\n")          # a qrels file whose relative path is the id
    out = offline_python(offline, f'''
        import ir_rbstar
        OUT["rows"] = ir_rbstar.read_qrels({DL19!r}).values.tolist()
        OUT["id_rows"] = len(ir_rbstar.read_qrels("irds:{DL19}"))
    ''', cwd=tmp_path)
    assert out["rows"] == [["19335", "only-doc", 3]]
    assert out["id_rows"] == 9260


# ---------------------------------------------------------------------------------------------------
# Without ir_datasets (in this process: the import is made to fail)
# ---------------------------------------------------------------------------------------------------

def test_missing_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(ds.MissingExtraError, match=r"irds:some/id: .*pip install \"ir_rbstar\[datasets\]\""):
        ir_rbstar.read_qrels("irds:some/id")
    with pytest.raises(ImportError):                      # also an ImportError, as for the other extras
        ir_rbstar.register_run("x", "irds:some/id")
    with pytest.raises(errors.RbstarError, match=r"irds:some/id"):
        ir_measures.calc_aggregate(ir_rbstar.parse("RBR(ref='irds:some/id')@5"), None, {"q": {"d": 1.0}})
    # a bare name that is no file: the file is missing, and ids would need the extra
    with pytest.raises(FileNotFoundError, match=r"qrels file not found: some/id; .*ir_rbstar\[datasets\]"):
        ir_rbstar.read_qrels("some/id")
    err = io.StringIO()
    run = _write(tmp_path / "r.run", "q Q0 d 1 1.0 t\n")
    with contextlib.redirect_stderr(err):
        assert cli_main(["irds:some/id", str(run), "nDCG@10"]) == 2
    assert "ir_rbstar[datasets]" in err.getvalue()
    # files and other forms never need ir_datasets
    qrels = _write(tmp_path / "q.qrels", "q 0 d 1\n")
    assert ir_rbstar.read_qrels(str(qrels)).values.tolist() == [["q", "d", 1]]
    assert ir_rbstar.twist.twist_table(str(qrels), str(run))["recall_base"].tolist() == [1]


def test_ids_are_recognised_only_with_the_prefix_for_runs():
    assert ds.dataset_id("irds:a/b") == "a/b" and ds.dataset_id(" irds:a") is None
    assert ds.dataset_id("a/b") is None and ds.dataset_id(None) is None
    with pytest.raises(errors.ReferenceNotFoundError, match="neither a registered run"):
        ir_measures.calc_aggregate(ir_rbstar.parse("RBR(ref='msmarco-passage/trec-dl-2019')@5"), None,
                                   {"q": {"d": 1.0}})


def test_docstrings(monkeypatch):
    monkeypatch.chdir(REPO)
    import ir_rbstar.pyterrier as rb_pt
    for module in (ds, rb_pt):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0
