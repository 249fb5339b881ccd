"""benchmarks/make_recsys.py makes what its docstring promises, and benchmarks/bench_scale.py runs end to end
on a tiny input (structure and agreement only; nothing here looks at a time)."""
import json

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from benchmarks import bench_scale, make_recsys
from tests.helpers import REPO


@pytest.fixture(scope="module")
def recsys(tmp_path_factory):
    out = tmp_path_factory.mktemp("recsys")
    paths = make_recsys.generate(str(out), users=300, depth=100, formats=("trec", "parquet"), block_users=70,
                                 quiet=True)
    return out, paths


def test_the_lists_are_what_the_docstring_says(recsys):
    out, paths = recsys
    a, b = (ir_rbstar.read_run(paths[f"{n}.run"]) for n in ("a", "b"))
    qrels = ir_rbstar.read_qrels(paths["qrels"])
    for run in (a, b):
        raw = pd.read_csv(paths["a.run"] if run is a else paths["b.run"], sep=" ", header=None, dtype=str)
        users = raw[0].tolist()
        assert users == sorted(users)                                     # sorted by query id (bytes)
        assert run.groupby("query_id").size().eq(100).all()              # depth items per user
        assert not run.duplicated(["query_id", "doc_id"]).any()          # distinct items per user
        scores = raw[4].astype(int).to_numpy().reshape(-1, 100)
        assert (np.diff(scores, axis=1) <= 0).all()                       # by descending score
    shared = pd.merge(a, b, on=["query_id", "doc_id"]).groupby("query_id").size()
    assert shared.min() >= 80 and shared.max() <= 100 and shared.min() < 100     # 80-100% shared
    assert a.duplicated(["query_id", "score"]).any() and b.duplicated(["query_id", "score"]).any()   # ties
    per_user = qrels.groupby("query_id")["relevance"].agg(["size", "sum"])
    assert (per_user["size"] == 10).all() and (per_user["sum"] == 5).all()
    judged_in_a = pd.merge(a, qrels, on=["query_id", "doc_id"])
    assert 0 < len(judged_in_a) < len(qrels)                              # some judged items never retrieved


def test_parquet_and_trec_hold_the_same_rows(recsys):
    _, paths = recsys
    for name in ("a", "b"):
        key = ["query_id", "doc_id"]
        text = ir_rbstar.read_run(paths[f"{name}.run"])[key + ["score"]].sort_values(key, ignore_index=True)
        parquet = pd.read_parquet(paths[f"{name}.parquet"]).sort_values(key, ignore_index=True)
        assert len(text) == len(parquet) == 300 * 100
        pd.testing.assert_frame_equal(text, parquet.astype({"score": float}), check_dtype=False)


def test_same_seed_same_bytes_whatever_the_blocks(tmp_path):
    one = make_recsys.generate(str(tmp_path / "one"), 50, 20, ("trec",), block_users=50, quiet=True)
    two = make_recsys.generate(str(tmp_path / "two"), 50, 20, ("trec",), block_users=50, quiet=True)
    assert open(one["a.run"], "rb").read() == open(two["a.run"], "rb").read()


def test_bench_scale_quick_runs_and_the_doors_agree(tmp_path, monkeypatch, capsys):
    """The script's main in this process (each contender still runs in a fresh subprocess of its own, as
    the benchmark does it: no interpreter start-up for the driver)."""
    pytest.importorskip("pyarrow")
    out = tmp_path / "res.json"
    monkeypatch.chdir(REPO)
    rc = bench_scale.main(["--quick", "--data", str(tmp_path), "--only", "stream-trec,stream-parquet,memory",
                           "--json", str(out)])
    stdout, stderr = capsys.readouterr()
    assert rc == 0, stderr[-2000:]
    res = json.loads(out.read_text())["results"]["20k"]
    values = [res[n]["values"] for n in ("stream-trec", "stream-parquet", "memory")]
    assert set(values[0]) == set(values[1]) == set(values[2]) and len(values[0]) == 6
    for v in values[1:]:
        for k in values[0]:
            assert v[k] == pytest.approx(values[0][k], abs=1e-12)
    # the streamed means are those of ir_measures on the whole files
    d = tmp_path / "20k"
    ms = ir_rbstar.parse(" ".join(bench_scale.measures_for(str(d / "b.run"))))
    whole = ir_measures.calc_aggregate(ms, ir_rbstar.read_qrels(str(d / "qrels")), ir_rbstar.read_run(str(d / "a.run")))
    for m in ms:
        assert values[0][str(m).replace(str(d / "b.run"), "B")] == pytest.approx(whole[m], abs=1e-12)
    assert "| 20k | stream-trec |" in stdout
