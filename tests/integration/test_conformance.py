"""One query, one number, through every door.

A table of measures (every family, defaults and non-defaults, RBP and RBP_res with auxiliary judgments
``aux=``, and ir_measures' own measures next to them) x input forms (dict of dicts, DataFrame, namedtuple
iterable, TREC file, ir_datasets id) x doors (``calc_aggregate`` alone and mixed, ``iter_calc``, a reused
``evaluator``, the ``ir-rbstar`` command, ``pt.Experiment`` with and without ``batch_size=1``, ``ir-rbstar
report`` (also with ``--aux``), streamed by query blocks, the explorer page's data):
every door must give every query the same value, and every query of the qrels must have one. Evaluating
a random subset of the queries gives each of them the same value again (a value never depends on the
other queries).

The reference value of each (run, query, measure) is computed once, by ``iter_calc`` on DataFrames;
every other door is compared with it to 1e-12. The Spark door (``ir_rbstar.scale.spark``) is checked on
the same measure list and data builders in tests/integration/test_spark.py, which needs a Spark session.
"""
import io
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import ir_measures
import ir_rbstar
from ir_rbstar.cli import run_measures

QUERIES = [f"q{i}" for i in range(7)]
DOCS = [f"d{i:02d}" for i in range(25)]
TOL = 1e-12

# every family, defaults and non-defaults; REF is a reference run file, GROUP a registered group
OURS = ("RBP(p=0.8,max_rel=3)@10 RBP(p=0.9,rel=2) RBP_res(p=0.8)@5 "
        "RBR(p=0.8)@5 RBR_res(p=0.8,rel=2)@5 RBR(p=0.7,ref='REF')@5 RBR_res(p=0.8,ref='REF')@5 "
        "RBA(p=0.9,ref='REF') RBA_res(p=0.8) RBO(p=0.9,ref='REF')@8 RBO_res(p=0.9,ref='REF') RBO_ext(p=0.8) "
        "P_TA@5 R_TA(rel=2)@8 F1_TA@3 AP_TA AP_TA(rel=2)@5 RR_TA(judged_only=True)@3 nDCG_TA@10 "
        "nDCG_TA(dcg='exp-log2') RBP_TA(p=0.8,max_rel=3)@5 RBP_TA(p=0.5,rel=1) "
        "Twist Twist_rho(rel=2)@10 Twist_sigma@5 "
        "NRG(prior='GROUP')@10 NRG(prior='GROUP',base='RBP',p=0.8,norm=False)@10 UniqueRel(prior='GROUP')@5 "
        "RarP(runs='GROUP')@5 TaSC(prior='GROUP')@5 "
        "MED_P(ref='REF')@5 MED_RBP(ref='REF') MED_nDCG(ref='REF',max_rel=3)@10 MED_AP(ref='REF')@10 "
        "MED_ERR(ref='REF',max_rel=3)@10 MED_nDCG(ref='REF',judgments=False)@5")
THEIRS = "nDCG@10 AP P@5 RR"                   # ir_measures' own, served by its built-in providers
# auxiliary judgments (AUX: a qrels file that fills documents the qrels leave unjudged; issue 29)
WITH_AUX = "RBP(p=0.8,max_rel=3,aux='AUX')@10 RBP_res(p=0.8,aux='AUX')@5 RBP(p=0.7,rel=2,aux='AUX')"
GROUP = "conformance-group"


def _run(rng, depth):
    rows = []
    for q in QUERIES[:-1]:                      # the last query: judged, never retrieved
        docs = rng.choice(DOCS, size=depth, replace=False)
        scores = np.round(rng.normal(size=depth), 1)          # rounded: ties happen
        rows += [(q, str(d), float(s)) for d, s in zip(docs, scores)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _qrels(rng):
    rows = []
    for q in QUERIES:
        top = 2 if q == QUERIES[0] else 4          # q0's grades stop at 1: its graded values must not
        for d in rng.choice(DOCS, size=12, replace=False):     # depend on the other queries' top grade
            rows.append((q, str(d), int(rng.integers(0, top))))
    rows.append(("q_empty", "d00", 0))         # judged, nothing relevant (Twist: 0, AP: 0)
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def _aux(rng, qrels):
    """Auxiliary judgments: grades 0-3 for documents of every query, some of them judged by the qrels too (with
    another grade: the qrels' stands), and a query the qrels lack."""
    rows = [(q, str(d), int(rng.integers(0, 4))) for q in QUERIES + ["q_aux_only"]
            for d in rng.choice(DOCS, size=10, replace=False)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def _write_run(df, path):
    with open(path, "w") as f:
        f.writelines(f"{r.query_id} Q0 {r.doc_id} 0 {r.score!r} t\n" for r in df.itertuples())
    return str(path)


def _write_qrels(df, path):
    with open(path, "w") as f:
        f.writelines(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in df.itertuples())
    return str(path)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("conformance")
    rng = np.random.default_rng(2026)
    runs = {"a": _run(rng, 12), "b": _run(rng, 9), "c": _run(rng, 15)}
    qrels = _qrels(rng)
    ref = _write_run(_run(rng, 14), tmp / "ref.run")
    ir_rbstar.register_runs(GROUP, runs)
    text = OURS.replace("REF", ref).replace("GROUP", GROUP)
    aux = _aux(rng, qrels)
    aux_path = _write_qrels(aux, tmp / "aux.qrels")
    text += " " + WITH_AUX.replace("AUX", aux_path)
    # plus ir_measures' own RBP object with a cutoff: no built-in serves it, ir_rbstar's last place does
    measures = ir_rbstar.parse(f"{text} {THEIRS}") + [ir_measures.RBP(rel=2) @ 10]
    files = {name: _write_run(df, tmp / f"{name}.run") for name, df in runs.items()}
    qrels_path = _write_qrels(qrels, tmp / "qrels.txt")
    expected = {}
    for name, df in runs.items():
        for m in ir_measures.iter_calc(measures, qrels, df):
            expected[(name, m.query_id, str(m.measure))] = m.value
    arrow = {"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}
    yield dict(tmp=tmp, runs=runs, qrels=qrels, ref=ref, measures=measures, files=files, qrels_path=qrels_path,
               expected=expected, aux=aux, aux_path=aux_path,
               arrow_runs={name: df.astype(arrow) for name, df in runs.items()}, arrow_qrels=qrels.astype(arrow))
    ir_rbstar.unregister_runs(GROUP)


def _check(world, name, got, door):
    """``got``: (query, label) -> value for run ``name``; equal to the reference for every query and measure."""
    want = {(q, label): v for (n, q, label), v in world["expected"].items() if n == name}
    assert set(got) == set(want), (door, set(want) ^ set(got))
    for key, v in want.items():
        assert got[key] == pytest.approx(v, abs=TOL), (door, name, key)


def test_every_query_of_the_qrels_has_a_value_for_every_measure(world):
    qids = set(world["qrels"].query_id)
    labels = {str(m) for m in world["measures"]}
    for name in world["runs"]:
        keys = {(q, label) for (n, q, label) in world["expected"] if n == name}
        assert keys == set(itertools.product(qids, labels))
        assert all(np.isfinite(v) for (n, _, _), v in world["expected"].items() if n == name)


# ----------------------------------------------------------------------------------------------- forms

def _namedtuples(df):
    return [ir_measures.ScoredDoc(*row) for row in df.itertuples(index=False)]


def _qrels_tuples(df):
    return [ir_measures.Qrel(*row) for row in df.itertuples(index=False)]


def _dicts(df, value):
    out = {}
    for row in df.itertuples(index=False):
        out.setdefault(row.query_id, {})[row.doc_id] = getattr(row, value)
    return out


FORMS = {
    "DataFrame (shuffled rows)": (lambda w, n: w["runs"][n].sample(frac=1, random_state=3), lambda w: w["qrels"]),
    # the same frames at every call: converted at the first, then their kept conversions (io/framecache.py)
    "DataFrame of arrow strings, given again": (lambda w, n: w["arrow_runs"][n], lambda w: w["arrow_qrels"]),
    "dict of dicts": (lambda w, n: _dicts(w["runs"][n], "score"), lambda w: _dicts(w["qrels"], "relevance")),
    "namedtuples": (lambda w, n: _namedtuples(w["runs"][n]), lambda w: _qrels_tuples(w["qrels"])),
    "TREC files (ir_rbstar.read_run/read_qrels)": (lambda w, n: ir_rbstar.read_run(w["files"][n]),
                                                   lambda w: ir_rbstar.read_qrels(w["qrels_path"])),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_input_forms_through_calc_iter_and_evaluator(world, form):
    make_run, make_qrels = FORMS[form]
    measures = world["measures"]
    evaluator = ir_measures.evaluator(measures, make_qrels(world))
    for name in world["runs"]:
        got = {(m.query_id, str(m.measure)): m.value
               for m in ir_measures.iter_calc(measures, make_qrels(world), make_run(world, name))}
        _check(world, name, got, f"iter_calc, {form}")
        got = {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(make_run(world, name))}
        _check(world, name, got, f"reused evaluator, {form}")
        agg = ir_measures.calc_aggregate(measures, make_qrels(world), make_run(world, name))
        for m in measures:
            mean = np.mean([v for (n, _, label), v in world["expected"].items() if n == name and label == str(m)])
            assert agg[m] == pytest.approx(mean, abs=TOL), (form, name, m)


def test_calc_aggregate_alone_equals_mixed(world):
    """A measure's mean is the same alone and next to every other measure (Twist's was not)."""
    qrels, run = world["qrels"], world["runs"]["a"]
    mixed = ir_measures.calc_aggregate(world["measures"], qrels, run)
    for m in world["measures"]:
        alone = ir_measures.calc_aggregate([m], qrels, run)
        assert alone[m] == pytest.approx(mixed[m], abs=TOL), m
        with_one = ir_measures.calc_aggregate([m, ir_measures.nDCG @ 10], qrels, run)
        assert with_one[m] == pytest.approx(mixed[m], abs=TOL), m


def test_ir_datasets_ids_as_qrels_and_reference(world, tmp_path):
    pytest.importorskip("ir_datasets")
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecScoredDocs
    from ir_datasets.util import LocalDownload
    dataset_id = "rbstar-conformance/local"
    if dataset_id not in ir_datasets.registry:
        ir_datasets.registry.register(dataset_id, Dataset(
            TrecQrels(LocalDownload(world["qrels_path"]), {g: str(g) for g in range(4)}),
            TrecScoredDocs(LocalDownload(world["ref"]))))
    measures = [m for m in world["measures"] if m.params.get("ref") == world["ref"]]
    by_id = [m(ref=f"irds:{dataset_id}") for m in measures]
    qrels = ir_rbstar.read_qrels(f"irds:{dataset_id}")
    for name in world["runs"]:
        got = {(x.query_id, str(x.measure).replace(f"irds:{dataset_id}", world["ref"])): x.value
               for x in ir_measures.iter_calc(by_id, qrels, world["runs"][name])}
        want = {(q, label): v for (n, q, label), v in world["expected"].items()
                if n == name and label in {str(m) for m in measures}}
        assert got.keys() == want.keys()
        for key, v in want.items():
            assert got[key] == pytest.approx(v, abs=TOL), key


# ----------------------------------------------------------------------------------------------- doors

def test_command_line(world):
    """``ir-rbstar QRELS RUN RUN RUN MEASURES -q``: the three runs in one call, every per-query line."""
    out = io.StringIO()
    texts = [str(m) for m in world["measures"]]
    files = [world["files"][n] for n in world["runs"]]
    assert run_measures([world["qrels_path"], *files, *texts, "-q", "-n", "--places", "-1"], out=out) == 0
    # the command line parses every RBP string as ir_rbstar's RBP (same value, p shown in the label)
    label_of = {str(ir_rbstar.parse_measure(t)): t for t in texts}
    got = {}
    for line in out.getvalue().splitlines():
        path, q, label, value = line.split("\t")
        got.setdefault(path, {})[(q, label_of[label])] = float(value)
    for name in world["runs"]:
        _check(world, name, got[world["files"][name]], "command line")


@pytest.mark.parametrize("batch_size", [None, 1])
def test_pt_experiment(world, batch_size):
    pt = pytest.importorskip("pyterrier")
    to_pt = {"query_id": "qid", "doc_id": "docno"}
    qrels = world["qrels"].rename(columns={**to_pt, "relevance": "label"})
    topics = pd.DataFrame({"qid": sorted(qrels.qid.unique()), "query": "x"})
    names = list(world["runs"])
    systems = [world["runs"][n].rename(columns=to_pt) for n in names]
    kwargs = {} if batch_size is None else {"batch_size": batch_size}
    per_query = pt.Experiment(systems, topics, qrels, eval_metrics=world["measures"], names=names,
                              perquery=True, **kwargs)
    for name in names:
        rows = per_query[per_query["name"] == name]
        got = {(r.qid, r.measure): r.value for r in rows.itertuples()}
        _check(world, name, got, f"pt.Experiment(batch_size={batch_size}, perquery=True)")
    means = pt.Experiment(systems, topics, qrels, eval_metrics=world["measures"], names=names, **kwargs)
    for name in names:
        row = means.set_index("name").loc[name]
        for m in world["measures"]:
            mean = np.mean([v for (n, _, label), v in world["expected"].items() if n == name and label == str(m)])
            assert row[str(m)] == pytest.approx(mean, abs=TOL), (batch_size, name, m)


def test_report(world, tmp_path):
    from ir_rbstar import report
    table = report.build_report(world["qrels"], world["runs"], tmp_path, measures=list(world["measures"]),
                                pictures=False, max_rel=3)
    for name in world["runs"]:
        part = table.xs(name, level="run")
        got = {(q, label): part.at[q, label] for q in part.index for label in part.columns}
        _check(world, name, got, "report")


def test_report_with_aux(world, tmp_path):
    """``ir-rbstar report --aux`` (``build_report(aux=...)``): the RBP and RBP_res columns, labelled with their
    ``aux=``, hold the values every other door gives those labels."""
    from ir_rbstar import report
    plain = WITH_AUX.replace(",aux='AUX'", "")
    table = report.build_report(world["qrels"], world["runs"], tmp_path, measures=plain, pictures=False, max_rel=3,
                                aux=world["aux_path"])
    labels = {str(m) for m in world["measures"] if "aux" in m.params}
    assert set(table.columns) == labels
    for name in world["runs"]:
        part = table.xs(name, level="run")
        got = {(q, label): part.at[q, label] for q in part.index for label in part.columns}
        want = {(q, label): v for (n, q, label), v in world["expected"].items() if n == name and label in labels}
        assert set(got) == set(want)
        for key, v in want.items():
            assert got[key] == pytest.approx(v, abs=TOL), ("report --aux", name, key)


def test_explore_page(world):
    """``ir_rbstar.explore`` (the explorer page's data): every measure it takes (those without ref, prior or
    runs: it shows MED and RBO between the runs itself), each query's value as the other doors give it."""
    from ir_rbstar.explore import build_data
    own = [m for m in world["measures"] if not {"ref", "prior", "runs"} & set(m.params)]
    data = build_data(world["qrels"], world["runs"], measures=own, depth=3, max_rel=3, rbo=None)
    labels = {str(m) for m in own}
    for r, name in enumerate(data["runs"]):
        got = {(q, label): v for m, label in enumerate(data["measures"]) if label in labels
               for q, v in zip(data["queries"], data["values"][r][m], strict=True)}
        want = {(q, label): v for (n, q, label), v in world["expected"].items() if n == name and label in labels}
        assert set(got) == set(want), set(got) ^ set(want)
        for key, v in want.items():
            assert got[key] == pytest.approx(v, abs=TOL), ("explore", name, key)


# ------------------------------------------------------------------------------ the other queries

@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sets(st.sampled_from(QUERIES + ["q_empty"]), min_size=1), st.sampled_from(["a", "b", "c"]),
       st.booleans())
def test_a_query_subset_gives_each_query_the_same_value(world, subset, name, cut_run):
    """With the qrels (and, or not, the run) cut to some queries, as pt.Experiment's batches are, every
    query keeps its value."""
    qrels = world["qrels"][world["qrels"].query_id.isin(subset)]
    run = world["runs"][name]
    if cut_run:
        run = run[run.query_id.isin(subset)]
    got = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(world["measures"], qrels, run)}
    assert {q for q, _ in got} == set(subset)
    for (q, label), v in got.items():
        assert v == pytest.approx(world["expected"][(name, q, label)], abs=TOL), (q, label)


@pytest.mark.parametrize("order", ["sorted", "any"])
def test_streamed(world, order, tmp_path):
    """Out of core by query blocks (ir_rbstar.scale.stream), tiny blocks: the TREC files read block by block,
    the reference file too. GROUP is a registered group of in-memory runs: the streamed door uses it as
    the whole evaluation does (registered runs are in memory already; file priors are streamed, tested
    in test_stream.py)."""
    from ir_rbstar.scale.stream import stream_calc
    for name in world["runs"]:
        got = {(m.query_id, str(m.measure)): m.value
               for m in stream_calc(world["measures"], world["files"][name], world["qrels_path"], order=order,
                                    block_rows=5, tmpdir=str(tmp_path))}
        _check(world, name, got, f"streamed, order={order}")
    assert list(tmp_path.iterdir()) == []


def test_judging_simulation_evaluator(world):
    """ir_rbstar.judging's simulation evaluator (every run at once, the revealed judgments as a mask), with
    every judged document of the runs revealed, gives the reference values of the measures it computes."""
    from ir_rbstar.io import to_qrels, to_ranking
    from ir_rbstar.judging import build_pool
    from ir_rbstar.judging.evaluate import RevealedEvaluator
    labels = ["RBP(p=0.8,max_rel=3)@10", "RBP(p=0.9,rel=2)", "RBP_res(p=0.8)@5", "P@5"]
    qrels = to_qrels(world["qrels"])
    runs = {name: to_ranking(df) for name, df in world["runs"].items()}
    pool = build_pool(runs, "RBP(p=0.8)", queries=sorted(set(world["qrels"].query_id)), depth=1000)
    grades, judged = pool.lookup(qrels)
    values = RevealedEvaluator(pool, runs, labels, grades).values(judged)
    qpos = {q: i for i, q in enumerate(pool.queries)}
    for r, name in enumerate(pool.runs):
        for (n, q, label), v in world["expected"].items():
            if n == name and label in labels:
                assert values[label][r, qpos[q]] == pytest.approx(v, abs=TOL), ("judging evaluator", name, q, label)


def test_auxiliary_judgments_are_the_merged_qrels(world):
    """``aux=``: every door above gives the reference value; here the reference itself is checked against its
    definition: the same measure without ``aux`` on the qrels merged with the auxiliary judgments of the
    documents they leave unjudged (the qrels' grade stands), in the qrels' queries only."""
    qrels, aux = world["qrels"], world["aux"]
    judged = set(zip(qrels.query_id, qrels.doc_id, strict=True))
    fill = aux[[(q, d) not in judged and q in set(qrels.query_id) for q, d in
                zip(aux.query_id, aux.doc_id, strict=True)]]
    merged = pd.concat([qrels, fill], ignore_index=True)
    with_aux = [m for m in world["measures"] if "aux" in m.params]
    assert len(with_aux) == 3
    plain = [ir_rbstar.parse_measure(str(m).replace(f",aux='{world['aux_path']}'", ""))
             for m in with_aux]
    for name, run in world["runs"].items():
        got = {(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc(plain, merged, run)}
        for m, p in zip(with_aux, plain, strict=True):
            for q in set(qrels.query_id):
                assert world["expected"][(name, q, str(m))] == pytest.approx(got[(q, str(p))], abs=TOL), (name, q, m)
