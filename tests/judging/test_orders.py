"""Judging orders made elsewhere, replayed by simulate beside the strategies (ir_rbstar.judging.orders)."""
import numpy as np
import pandas as pd
import pytest

from ir_rbstar import cli
from ir_rbstar.errors import InputFormatError, ParameterError
from ir_rbstar.io import QUERY_IDS, read_trec_qrels, to_ranking
from ir_rbstar.judging import build_pool, select, simulate
from ir_rbstar.judging.simulate import pool_budgets
from tests.helpers import VASWANI

M = "RBP(p=0.8)@5"
NAMES = ("bm25", "bm25_flat", "bm25l")


@pytest.fixture(scope="module")
def data():
    qrels = read_trec_qrels(str(VASWANI / "qrels"))
    runs = {n: to_ranking(str(VASWANI / f"{n}.run.gz")) for n in NAMES}      # (read once, not at every call)
    queries = list(QUERY_IDS.decode(qrels.qcodes))
    pool = build_pool(runs, M, queries=queries)
    budgets = pool_budgets(pool.n_candidates, len(queries), (0.1, 0.3, 0.6, 1.0))
    # depth's choices in the order it makes them: static priorities, so the order of one selection of the
    # whole pool in rounds of a query's worth is the order of its replay
    order = select(runs, None, M, budget=pool.n_candidates, strategy="depth", batch=len(queries),
                   queries=queries)[["query_id", "doc_id"]]
    return qrels, runs, budgets, order


def _same_but_the_name(a, b):
    pd.testing.assert_frame_equal(a.drop(columns="strategy").reset_index(drop=True),
                                  b.drop(columns="strategy").reset_index(drop=True))


def test_an_order_equal_to_depths_choices_replays_as_depth(data):
    qrels, runs, budgets, order = data
    table = simulate(qrels, runs, measures=[M, "nDCG@10"], strategies=["depth"], budgets=budgets,
                     orders={"mine": order})
    _same_but_the_name(table[table["strategy"] == "depth"], table[table["strategy"] == "mine"])
    assert list(table["strategy"].unique()) == ["depth", "mine"]


def test_a_document_outside_the_pool_costs_a_judgment_and_reveals_nothing(data):
    qrels, runs, budgets, order = data
    pairs = list(order.itertuples(index=False, name=None))
    first = pairs[0][0]
    table = simulate(qrels, runs, measures=[M], strategies=[], budgets=[b + 1 for b in budgets],
                     orders={"outside first": [(first, "no-such-document")] + pairs})
    plain = simulate(qrels, runs, measures=[M], strategies=[], budgets=budgets, orders={"plain": pairs})
    assert list(table["judged"]) == [min(b + 1, len(pairs) + 1) for b in budgets]
    cols = ["tau_b", "tau_ap", "verdicts_agree", "mean_residual"]
    pd.testing.assert_frame_equal(table[cols].reset_index(drop=True), plain[cols].reset_index(drop=True))


def test_an_order_shorter_than_the_budget_judges_all_of_it(data):
    qrels, runs, budgets, order = data
    table = simulate(qrels, runs, measures=[M], strategies=[], budgets=[10, 10_000], orders={"short": order[:7]})
    assert list(table["judged"]) == [7, 7]


def test_the_file_forms_give_the_same_table(data, tmp_path):
    qrels, runs, budgets, order = data
    tsv = tmp_path / "next.tsv"
    order.assign(priority=1.0).to_csv(tsv, sep="\t", index=False)          # as `judge -o` writes it
    stub = tmp_path / "stub.qrels"
    stub.write_text("".join(f"{q} 0 {d} _\n" for q, d in order.itertuples(index=False, name=None)))
    plain = tmp_path / "pairs.txt"
    plain.write_text("".join(f"{q} {d}\n\n" for q, d in order.itertuples(index=False, name=None)))
    pyterrier = order.rename(columns={"query_id": "qid", "doc_id": "docno"})
    table = simulate(qrels, runs, measures=[M], strategies=[], budgets=budgets[:2],
                     orders={"frame": order, "tsv": str(tsv), "stub": str(stub), "lines": str(plain),
                             "pyterrier": pyterrier})
    by = {name: g for name, g in table.groupby("strategy", sort=False)}
    assert list(by) == ["frame", "tsv", "stub", "lines", "pyterrier"]
    for name in ("tsv", "stub", "lines", "pyterrier"):
        _same_but_the_name(by["frame"], by[name])


def test_bad_orders_are_errors_naming_the_place(data, tmp_path):
    qrels, runs, budgets, order = data
    q, d = order.iloc[3]
    twice = pd.concat([order[:5], order[3:4]], ignore_index=True)
    with pytest.raises(InputFormatError, match=rf"orders\['x'\], row 5: document '{d}' of query '{q}' is listed "
                                               rf"twice \(first at orders\['x'\], row 3\)"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"x": twice})
    path = tmp_path / "twice.txt"
    path.write_text(f"{q} {d}\n{q} 0 {d} 1\n")
    with pytest.raises(InputFormatError, match=r"twice.txt, line 2: .* listed twice \(first at .*twice.txt, line 1\)"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"x": str(path)})
    path.write_text("lonely\n")
    with pytest.raises(InputFormatError, match=r"twice.txt, line 1: one field"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"x": str(path)})
    with pytest.raises(ParameterError, match="'depth' is one of the package's strategies"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"depth": order})
    with pytest.raises(FileNotFoundError, match=r"orders\['x'\]: file not found"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"x": str(tmp_path / "missing.tsv")})
    with pytest.raises(InputFormatError, match=r"orders\['x'\]: a DataFrame of query_id and doc_id"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"x": order.rename(columns={"doc_id": "d"})})
    with pytest.raises(ParameterError, match=r"orders\['x'\]: none of its 2 documents is in the pool"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"x": [("1", "D1"), ("Q2", "5")]})
    with pytest.raises(InputFormatError, match=r"orders\['x'\], item 1: a \(query_id, doc_id\) pair"):
        simulate(qrels, runs, measures=[M], budgets=[5], orders={"x": [("1", "2"), "3"]})


def test_the_command_replays_judges_output(data, tmp_path, capsys):
    qrels, runs, budgets, order = data
    files = [str(VASWANI / f"{n}.run.gz") for n in NAMES]
    out = tmp_path / "depth.tsv"
    assert cli.main(["judge", "none", *files, "--measure", M, "--budget", "200", "--strategy", "depth",
                     "--batch", "93", "-o", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["simulate-judging", str(VASWANI / "qrels"), *files, "--measures", M, "--strategies", "depth",
                     "--budgets", "93,186", "--order", f"judged={out}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split("\t") for line in lines[1:]]
    assert [r[0] for r in rows] == ["depth", "depth", "judged", "judged"]
    assert [r[1:] for r in rows[:2]] == [r[1:] for r in rows[2:]]
    for bad, message in ((["--order", "judged"], "--order: NAME=FILE"),
                         (["--order", f"a={out}", "--order", f"a={out}"], "the name 'a' is given twice")):
        assert cli.main(["simulate-judging", str(VASWANI / "qrels"), *files, "--budgets", "93", *bad]) == 2
        assert message in capsys.readouterr().err


def test_documents_outside_the_pool_count_as_the_revealed_qrels_make_them(data):
    """An order judging documents the pool lacks (ranked below its depth by some run, or by none) replays as
    the package's evaluation with the order's first documents as qrels: RBP without a cutoff weighs every
    rank, its residual shrinks, and nDCG's ideal takes every judged document of the query."""
    import ir_measures

    import ir_rbstar
    from ir_rbstar.judging.evaluate import RevealedEvaluator
    from ir_rbstar.judging.orders import order_positions
    qrels, runs, _, _ = data
    queries = list(QUERY_IDS.decode(qrels.qcodes))[:12]
    frames = {n: ir_rbstar.io.ranking_frame(r) for n, r in runs.items()}
    frames = {n: f[f["query_id"].isin(queries)].groupby("query_id", sort=False).head(30) for n, f in frames.items()}
    small = {n: to_ranking(f) for n, f in frames.items()}
    pool = build_pool(small, M, queries=queries)                        # the top 5 of each run
    judged = pd.DataFrame({"query_id": QUERY_IDS.decode(qrels.rowq), "doc_id": ir_rbstar.io.ids._to_str(qrels.rowb),
                           "relevance": qrels.grades})
    judged = judged[judged["query_id"].isin(queries)]
    # a query at a time: its relevant documents first (most of them no run's top 5, some in no run's top 30),
    # then the runs' ranks 1-30 (pool candidates and deeper ones)
    order = []
    for q in queries:
        order += [(q, d) for d in judged[judged["query_id"] == q]["doc_id"]]
        for f in frames.values():
            order += [(q, d) for d in f[f["query_id"] == q]["doc_id"]]
    order = list(dict.fromkeys(order))
    positions, outside = order_positions(pool, order)
    assert (positions >= 0).sum() == pool.n_candidates and len(outside.place) > 2 * pool.n_candidates
    grades, known = pool.lookup(qrels)
    measures = ["RBP(p=0.8)", "RBP_res(p=0.8)", "nDCG@10", "P@10", M]
    ev = RevealedEvaluator(pool, small, measures, np.where(known, grades, 0))
    truth, _ = qrels.lookup(pool.qcodes[outside.query], outside.dhash, outside.dbytes)
    extra = ev.judged(outside.query, outside.dhash, outside.dbytes, truth)
    grade_of = {(q, d): g for q, d, g in judged.itertuples(index=False, name=None)}
    parsed = ir_rbstar.parse(" ".join(measures))
    changed = 0
    for budget in (40, 200, len(order)):
        first = order[:budget]
        mine = ev.values((positions >= 0) & (positions < budget), extra, outside.place < budget)
        without = ev.values((positions >= 0) & (positions < budget))
        revealed = pd.DataFrame([(q, d, grade_of.get((q, d), 0)) for q, d in first],
                                columns=["query_id", "doc_id", "relevance"])
        for r, name in enumerate(pool.runs):
            for metric in ir_measures.iter_calc(parsed, revealed, frames[name]):
                i = queries.index(metric.query_id)
                assert mine[str(metric.measure)][r, i] == pytest.approx(metric.value, abs=1e-12), (budget, metric)
                changed += without[str(metric.measure)][r, i] != pytest.approx(metric.value, abs=1e-12)
    assert changed > 0                     # the documents outside the pool did change values
    # and simulate counts them: its residual with the whole order judged is the evaluation's
    table = simulate(judged, small, measures=["RBP(p=0.8)"], select_measure=M, strategies=[],
                     budgets=[len(order)], orders={"deep": order})
    full = mine["RBP_res(p=0.8)"].mean()
    assert table["mean_residual"].item() == pytest.approx(full, abs=1e-12)
