"""benchmarks/bench_judging_scale.py runs on tiny data of both shapes and prints what it measured."""
import pytest

from benchmarks import bench_judging_scale as bench


@pytest.mark.parametrize("shape", ["spread", "marco"])
def test_the_scale_benchmark_runs_and_reports(shape, capsys):
    assert bench.main(["--shape", shape, "--runs", "3", "--queries", "4", "--depth", "5", "--docs", "20",
                       "--rounds", "1", "--strategies", "pairs,depth"]) == 0
    out = capsys.readouterr().out
    assert f"data: {shape}, 3 runs x 4 queries at depth 5, 20 documents a query" in out
    for line in ("one selection round of pairs (4 documents):", "simulate pairs, 1 rounds:",
                 "simulate depth, 1 rounds:", "peak memory:"):
        assert line in out


def test_the_data_is_seeded_and_has_its_shape():
    qrels, runs = bench.marco_data(2, 3, 4, 10, seed=0)
    again, runs_again = bench.marco_data(2, 3, 4, 10, seed=0)
    assert qrels == again and runs == runs_again
    assert all(len(judged) == 1 and list(judged.values()) == [1] for judged in qrels.values())
    assert all(len(ranked) == 4 for run in runs.values() for ranked in run.values())
    qrels, runs = bench.spread_data(2, 3, 4, 10, seed=0)
    assert all(len(judged) == 10 for judged in qrels.values())        # min(200, documents) judged
    assert all(sorted(ranked.values()) == [1.0, 2.0, 3.0, 4.0] for run in runs.values() for ranked in run.values())
