"""The same numbers through every door: calc_aggregate, iter_calc, a reused evaluator, the CLI,
pt.Experiment; registration, labels, input forms, the query set."""
import gzip
import importlib
import importlib.util
import io
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.cli import run_measures
from ir_rbstar.provider import PROVIDER

from tests.helpers import REPO, VASWANI

RNG = np.random.default_rng(7)
QUERIES = [f"q{i}" for i in range(6)]
DOCS = [f"d{i:02d}" for i in range(30)]


def random_run(seed, depth=12):
    rng = np.random.default_rng(seed)
    rows = []
    for q in QUERIES:
        docs = rng.choice(DOCS, size=depth, replace=False)
        scores = np.round(rng.normal(size=depth), 1)  # rounded: ties happen
        rows += [(q, d, float(s)) for d, s in zip(docs, scores)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def random_qrels(seed):
    rng = np.random.default_rng(seed)
    rows = []
    for q in QUERIES[:-1]:       # the last query has no judgments: not in the query set
        for d in rng.choice(DOCS, size=15, replace=False):
            rows.append((q, d, int(rng.integers(0, 4))))
    rows.append(("q_unretrieved", "d00", 2))   # a judged query that no run retrieves
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def write_run(df, path, gz=False):
    lines = [f"{r.query_id} Q0 {r.doc_id} 0 {r.score!r} tag\n" for r in df.itertuples()]
    opener = gzip.open if gz else open
    with opener(path, "wt") as f:
        f.writelines(lines)
    return str(path)


def write_qrels(df, path):
    with open(path, "w") as f:
        f.writelines(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in df.itertuples())
    return str(path)


MEASURE_TEXT = ("RBP(p=0.7,max_rel=3) RBP_res(p=0.7)@5 RBP(p=0.9,rel=2)@10 RBR(p=0.8)@5 RBR_res(p=0.8)@5 "
                "RBA(p=0.8,ref='REF') RBA_res(p=0.8,ref='REF')@6 RBO(p=0.9,ref='REF') "
                "RBO_res(p=0.9,ref='REF') RBO_ext(p=0.9,ref='REF')@8 "
                "P_TA@5 R_TA(rel=2)@8 F1_TA@3 AP_TA(rel=2) AP_TA@5 RR_TA RR_TA(judged_only=True)@3 nDCG_TA@10 "
                "nDCG_TA(dcg='exp-log2',judged_only=True) RBP_TA(p=0.8,max_rel=3)@5 Twist Twist_rho(rel=2)@10 Twist_sigma@5")


@pytest.fixture
def setup(tmp_path):
    run_a, run_b, ref = random_run(1), random_run(2), random_run(3, depth=20)
    qrels = random_qrels(4)
    ref_path = write_run(ref, tmp_path / "ref.run.gz", gz=True)
    measures = ir_rbstar.parse(MEASURE_TEXT.replace("REF", ref_path))
    return dict(a=run_a, b=run_b, qrels=qrels, ref=ref_path, measures=measures, tmp=tmp_path)


def per_query(measures, qrels, run):
    return {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


def test_aggregate_iter_calc_and_reused_evaluator_agree(setup):
    ms, qrels = setup["measures"], setup["qrels"]
    evaluator = ir_measures.evaluator(ms, qrels)
    for run in (setup["a"], setup["b"]):
        agg = ir_measures.calc_aggregate(ms, qrels, run)
        pq = per_query(ms, qrels, run)
        again = evaluator.calc_aggregate(run)
        assert set(q for q, _ in pq) == set(qrels.query_id)       # the qrels define the query set
        for m in ms:
            vals = [v for (q, name), v in pq.items() if name == str(m)]
            assert agg[m] == pytest.approx(np.mean(vals), abs=1e-12)
            assert again[m] == pytest.approx(agg[m], abs=1e-12)


def test_input_forms_agree(setup):
    ms, qrels, run = setup["measures"], setup["qrels"], setup["a"]
    expected = per_query(ms, qrels, run)
    path = write_run(run, setup["tmp"] / "a.run")
    Scored = namedtuple("Scored", "query_id doc_id score")
    Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    as_dict = {q: dict(zip(g.doc_id, g.score)) for q, g in run.groupby("query_id")}
    qrels_dict = {q: dict(zip(g.doc_id, g.relevance.astype(int))) for q, g in qrels.groupby("query_id")}
    forms = [
        (qrels, path),
        (qrels, as_dict),
        (qrels, [Scored(*r) for r in run.itertuples(index=False)]),
        (qrels, ir_rbstar.read_run(path)),
        (qrels_dict, run),
        ([Qrel(*r) for r in qrels.itertuples(index=False)], run),
        (ir_rbstar.read_qrels(write_qrels(qrels, setup["tmp"] / "q.qrels")), run),
        (qrels, run.rename(columns={"query_id": "qid", "doc_id": "docno"})),
        (qrels, run.sample(frac=1.0, random_state=3)),             # row order does not matter
    ]
    for q, r in forms:
        got = per_query(ms, q, r)
        assert got.keys() == expected.keys()
        for key in expected:
            assert got[key] == pytest.approx(expected[key], abs=1e-12), key


def test_cli_agrees_with_python(setup):
    ms, qrels = setup["measures"], setup["qrels"]
    run_path = write_run(setup["a"], setup["tmp"] / "a.run")
    qrels_path = write_qrels(qrels, setup["tmp"] / "a.qrels")
    agg = ir_measures.calc_aggregate(ms, qrels, setup["a"])
    out = io.StringIO()
    assert run_measures([qrels_path, run_path, *[str(m) for m in ms], "--places", "-1"], out=out) == 0
    printed = dict(line.split("\t") for line in out.getvalue().splitlines())
    for m in ms:
        assert float(printed[str(m)]) == pytest.approx(agg[m], abs=1e-12)
    # by query, jsonl, and the real command in a subprocess
    out = io.StringIO()
    run_measures([qrels_path, run_path, str(ms[0]), "-q", "-o", "jsonl"], out=out)
    assert len(out.getvalue().splitlines()) == qrels.query_id.nunique() + 1
    done = subprocess.run([sys.executable, "-m", "ir_rbstar", qrels_path, run_path, str(ms[3]), "-p", "6"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.split("\t")[1]) == pytest.approx(agg[ms[3]], abs=1e-6)


def test_pt_experiment_agrees(setup):
    pt = pytest.importorskip("pyterrier")
    ms, qrels = setup["measures"], setup["qrels"]
    to_pt = {"query_id": "qid", "doc_id": "docno"}
    topics = pd.DataFrame({"qid": sorted(qrels.query_id.unique()), "query": "x"})
    table = pt.Experiment([setup["a"].rename(columns=to_pt), setup["b"].rename(columns=to_pt)], topics,
                          qrels.rename(columns={**to_pt, "relevance": "label"}),
                          eval_metrics=[ir_measures.nDCG @ 10, *ms], names=["a", "b"])
    for name in ("a", "b"):
        agg = ir_measures.calc_aggregate(ms, qrels, setup[name])
        row = table.set_index("name").loc[name]
        for m in ms:
            assert row[str(m)] == pytest.approx(agg[m], abs=1e-12), m


def test_no_qrels_means_the_run_defines_the_queries(setup):
    ms = [m for m in setup["measures"] if m.params.get("ref") is not None]
    assert len(ms) == 5
    pq = per_query(ms, None, setup["a"])
    assert {q for q, _ in pq} == set(QUERIES)


def test_import_is_idempotent_and_registers_once():
    before = list(ir_measures.DefaultPipeline.providers)
    importlib.reload(ir_rbstar)
    ir_rbstar._register()
    after = ir_measures.DefaultPipeline.providers
    assert after == before
    ours = [i for i, p in enumerate(after) if p.NAME == "ir_rbstar"]
    assert ours == [0, len(after) - 1]            # first (own declarations) and last (what no built-in serves)
    assert ir_measures.providers.registry["ir_rbstar"] is PROVIDER


def test_fresh_interpreter_registers_on_import():
    code = ("import ir_measures, ir_rbstar; m = ir_measures.parse_measure('RBR(p=0.8)@20');"
            "print(m, ir_measures.DefaultPipeline.providers[-1].NAME)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["RBR(p=0.8)@20", "ir_rbstar"]


def test_pyterrier_entry_point_loads_the_package():
    pytest.importorskip("pyterrier")
    code = "import pyterrier as pt; print([str(m) for m in pt.rbstar.parse('RBA(p=0.9)@5')])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['RBA(p=0.9)@5']"


@pytest.mark.parametrize("text", ["RBR", "RBR(p=0.8)", "RBR(p=4/5)", "RBR(rel=1)"])
def test_labels_show_p_and_round_trip(text):
    if "/" in text:
        m = ir_rbstar.RBR(p=4 / 5)
    else:
        m = ir_measures.parse_measure(text)
    assert str(m) == "RBR(p=0.8)"
    assert ir_measures.parse_measure(str(m)) == m


@pytest.mark.parametrize("text", ["P_TA@10", "AP_TA(rel=2)@100", "RR_TA(judged_only=True)", "nDCG_TA(dcg='exp-log2')@10",
                                  "nDCG_TA(gains={0:0,1:1,2:3})@10", "RBP_TA(p=0.8)@10", "F1_TA(rel=2)@5"])
def test_tie_aware_labels_round_trip(text):
    m = ir_measures.parse_measure(text)
    assert ir_measures.parse_measure(str(m)) == m
    assert str(ir_measures.parse_measure("RBP_TA@10")) == "RBP_TA(p=0.8)@10"


def test_tie_oblivious_path_only_when_no_builtin_provider_serves():
    """ir_measures' own AP goes to pytrec_eval; R(rel=2)@k, which no built-in provider computes, to us."""
    qrels = {"q": {"a": 2, "b": 1}}
    run = {"q": {"a": 1.0, "b": 2.0, "c": 0.5}}
    assert ir_measures.DefaultPipeline.providers[1].NAME != "ir_rbstar"
    assert not ir_measures.DefaultPipeline.providers[0].supports(ir_measures.AP)   # our first place: ours only
    r2 = ir_measures.parse_measure("R(rel=2)@1")
    assert ir_measures.calc_aggregate([r2], qrels, run)[r2] == 0.0
    assert ir_measures.calc_aggregate([r2 @ 2], qrels, run)[r2 @ 2] == 1.0
    assert PROVIDER.supports(ir_measures.AP) and PROVIDER.supports(ir_measures.nDCG @ 10)
    assert not PROVIDER.supports(ir_measures.ERR @ 10)


def test_labels_distinguish_parameters():
    a, b = ir_rbstar.parse("RBR(p=0.8)@20 RBR(p=0.9)@20")
    assert str(a) != str(b) and a != b
    m = ir_measures.parse_measure("RBO(rel=2,ref='x.run',p=1)@5".replace("p=1", "p=0.5"))
    assert str(m) == "RBO(p=0.5,ref='x.run',rel=2)@5"
    assert ir_measures.parse_measure(str(m)) == m
    assert str(ir_rbstar.RBP @ 10) == "RBP(p=0.8)@10"
    assert str(ir_rbstar.parse_measure("RBP(p=0.8,rel=1)")) == "RBP(p=0.8,rel=1)"


def test_parse_splits_on_spaces_outside_parentheses():
    ms = ir_rbstar.parse("nDCG@10  RBR(p=0.8, ref='my run.txt')@20\tRBP")
    assert [str(m) for m in ms] == ["nDCG@10", "RBR(p=0.8,ref='my run.txt')@20", "RBP(p=0.8)"]
    assert ir_rbstar.parse(["P@5 RBA", ir_measures.AP]) == [ir_measures.P @ 5, ir_rbstar.RBA, ir_measures.AP]
    with pytest.raises(ValueError, match="unbalanced"):
        ir_rbstar.parse("RBR(p=0.8")


def test_a_string_parsed_again_gives_an_equal_measure_of_its_own():
    """parse_measure keeps what it read of a string (name, parameters, cutoff); a second parse builds an
    equal measure with parameters of its own, a container value is read afresh each time (no caller
    shares a list), and a bad string fails every time."""
    from ir_rbstar import parsing
    text = "RBR(p=0.7, ref='some run.txt')@15"
    first, again = ir_rbstar.parse_measure(text), ir_rbstar.parse_measure(text)
    assert first == again and first is not again and first.params is not again.params
    assert str(again) == "RBR(p=0.7,ref='some run.txt')@15" and again.params["cutoff"] == 15
    name, params, cutoff = parsing._read(text)
    params["p"] = 0.1                                   # a caller changing what it got changes nothing else
    assert parsing._read(text) == ("RBR", {"p": 0.7, "ref": "some run.txt"}, 15)
    one, two = parsing._read("X(a=[1, 2])")[1]["a"], parsing._read("X(a=[1, 2])")[1]["a"]
    assert one == two == [1, 2] and one is not two
    for _ in range(2):
        with pytest.raises(ir_rbstar.errors.ParameterError, match="not a literal"):
            ir_rbstar.parse_measure("RBP(p=x)")


def test_the_host_is_left_as_it_was_and_each_rbp_has_one_provider(setup):
    """ir_measures' RBP object, registry entry and labels are unchanged by ``import ir_rbstar``; its RBP goes
    to a built-in provider where one serves it; ir_rbstar's RBP is always served by ir_rbstar."""
    import ir_measures.measures.rbp as irm_rbp
    assert ir_measures.RBP is irm_rbp.RBP and ir_measures.measures.registry["RBP"] is irm_rbp.RBP
    assert str(ir_measures.RBP @ 10) == "RBP@10" and str(ir_measures.parse_measure("RBP(p=0.8)@10")) == "RBP@10"
    qrels = setup["qrels"]
    ours = ir_rbstar.parse_measure("RBP(p=0.8,rel=1)")
    assert isinstance(ir_measures.DefaultPipeline.evaluator([ours], qrels), ir_rbstar.provider.RbstarEvaluator)
    graded = ir_measures.parse_measure("RBP(p=0.8)@5")           # no built-in provider serves it
    assert isinstance(ir_measures.DefaultPipeline.evaluator([graded], qrels), ir_rbstar.provider.RbstarEvaluator)
    if importlib.util.find_spec("cwl") is not None:
        binary = ir_measures.parse_measure("RBP(p=0.8,rel=1)")
        evaluator = ir_measures.DefaultPipeline.evaluator([binary], qrels)
        assert type(evaluator).__module__.startswith("ir_measures.providers.cwl_eval")


def test_registered_reference_and_file_reference_agree(setup):
    ref_df = pd.read_csv(setup["ref"], sep=" ", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                         dtype={"query_id": str, "doc_id": str})
    ir_rbstar.register_run("ref_by_name", ref_df)
    try:
        by_file = [m for m in setup["measures"] if m.params.get("ref") == setup["ref"]]
        by_name = [m(ref="ref_by_name") for m in by_file]
        a = per_query(by_file, setup["qrels"], setup["a"])
        b = per_query(by_name, setup["qrels"], setup["a"])
        for (q, name), v in a.items():
            assert b[(q, name.replace(repr(setup["ref"]), "'ref_by_name'"))] == pytest.approx(v, abs=1e-12)
    finally:
        ir_rbstar.unregister_run("ref_by_name")


def test_demo_prints_table(capsys):
    """``ir-rbstar demo`` in process (cli.main: what the command runs; the entry point itself is tested by
    the subprocess calls above and in test_contract.py)."""
    from ir_rbstar.cli import main
    assert main(["demo"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.strip().startswith("nDCG@10"))
    for col in ("RBP(p=0.8)", "RBP_res(p=0.8)", "RBR(p=0.8,ref='minilm_rerank')@20", "RBA(p=0.8,ref='minilm_rerank')",
                "RBO(p=0.8,ref='minilm_rerank')"):
        assert col in header
    names = ("bm25", "bm25_flat", "bm25l", "bm25_round1", "minilm_rerank")
    rows = {line.split()[0]: dict(zip(header.split(), map(float, line.split()[1:]))) for line in lines
            if line.split() and line.split()[0] in names}
    assert set(rows) == set(names)
    assert rows["bm25"]["nDCG@10"] == pytest.approx(0.4279, abs=1e-4)   # nDCG@10 of BM25 (pytrec_eval)
    rbr = "RBR(p=0.8,ref='minilm_rerank')@20"
    assert rows["minilm_rerank"][rbr] == pytest.approx(1 - 0.8 ** 20, abs=1e-4)   # RBR of the reference itself
    # untied runs: _TA equals trec_eval order; the quantised run's ties change the value
    for name in ("bm25", "bm25_flat", "bm25l", "minilm_rerank"):
        assert rows[name]["nDCG_TA@10"] == rows[name]["nDCG@10"]
        assert rows[name]["P_TA@10"] == rows[name]["P@10"]
    assert rows["bm25_round1"]["nDCG_TA@10"] != rows["bm25_round1"]["nDCG@10"]
    # Twist over the whole run: the mean of the per-query values of ir_rbstar.twist (recall base >= 1)
    table = ir_rbstar.twist.twist_table(str(VASWANI / "qrels"), str(VASWANI / "bm25.run.gz"))
    assert rows["bm25"]["Twist"] == pytest.approx(table["tau"].mean(), abs=1e-4)
    # NRG against the other bundled runs: new gain only, so at most what nDCG gives when normalised alike
    nrg = "NRG(prior='vaswani_demo')@10"
    assert all(0 <= rows[name][nrg] <= 1 for name in names)
    others = [str(VASWANI / f"{n}.run.gz") for n in names if n != "bm25"]
    direct = ir_measures.calc_aggregate(ir_rbstar.parse(f"NRG(prior='{','.join(others)}')@10"),
                                        ir_rbstar.read_qrels(str(VASWANI / "qrels")),
                                        ir_rbstar.read_run(str(VASWANI / "bm25.run.gz")))
    assert rows["bm25"][nrg] == pytest.approx(list(direct.values())[0], abs=1e-4)


def test_qrels_converted_once_per_evaluator_and_reference_file_once(setup, monkeypatch):
    from ir_rbstar import provider, references
    calls = {"qrels": 0, "ref": 0}
    real_to_qrels, real_read = provider.to_qrels, references.read_trec_run

    def counting_to_qrels(*a, **k):
        calls["qrels"] += 1
        return real_to_qrels(*a, **k)

    def counting_read(*a, **k):
        calls["ref"] += 1
        return real_read(*a, **k)
    monkeypatch.setattr(provider, "to_qrels", counting_to_qrels)
    monkeypatch.setattr(references, "read_trec_run", counting_read)
    ir_rbstar.clear_cache()
    ms = [m for m in setup["measures"] if m.params.get("ref") == setup["ref"]]
    evaluator = provider.PROVIDER.evaluator(ms, setup["qrels"])
    first = evaluator.calc_aggregate(setup["a"])
    second = evaluator.calc_aggregate(setup["b"])
    again = provider.PROVIDER.evaluator(ms, setup["qrels"]).calc_aggregate(setup["a"])
    assert calls == {"qrels": 2, "ref": 1}        # one conversion per evaluator; the file read once
    assert first == again and first != second


def test_cli_table_formats_print_the_means(setup):
    from ir_rbstar.errors import ParameterError
    """-o json / markdown / latex / html: one table of the means (runs x measures), the same numbers as
    calc_aggregate (json in full precision; the others rounded to --places); --by_query is refused."""
    import json
    ms, qrels = setup["measures"], setup["qrels"]
    paths = [write_run(setup[n], setup["tmp"] / f"{n}.run") for n in ("a", "b")]
    qrels_path = write_qrels(qrels, setup["tmp"] / "t.qrels")
    texts = [str(m) for m in ms]
    out = io.StringIO()
    assert run_measures([qrels_path, *paths, *texts, "-o", "json"], out=out) == 0
    doc = json.loads(out.getvalue())
    assert doc["runs"] == paths and doc["measures"] == texts
    for name, path in zip(("a", "b"), paths):
        agg = ir_measures.calc_aggregate(ms, qrels, setup[name])
        got = {c["measure"]: c["mean"] for c in doc["cells"] if c["run"] == path}
        for m in ms:
            assert got[str(m)] == pytest.approx(agg[m], abs=1e-12)
    agg = ir_measures.calc_aggregate(ms, qrels, setup["a"])
    for fmt, sep in (("markdown", "|"), ("latex", "&"), ("html", "<td>")):
        out = io.StringIO()
        assert run_measures([qrels_path, *paths, *texts, "-o", fmt, "-p", "3"], out=out) == 0
        text = out.getvalue()
        assert sep in text and f"{agg[ms[0]]:.3f}" in text, fmt
        assert "textbf" not in text and "**" not in text and "<strong>" not in text      # nothing set as best
    with pytest.raises(ParameterError, match="by_query"):
        run_measures([qrels_path, paths[0], texts[0], "-o", "latex", "-q"], out=io.StringIO())
