"""docs/ties.md (tests/test_docs.py runs its examples): the toy table's values, and its DL19 table is what
scripts/ties_report.py computes now from ../shared/data (the table tests skip when that data is absent),
with sanity checks of the values.
"""
import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from tests.helpers import REPO, load_script, names_command, run_dict, shared_data

DOC = REPO / "docs" / "ties.md"
TOL = 1e-9


tr = load_script("ties_report")


# ---------------------------------------------------------------------------------------------
# the document itself (no shared data needed)

def test_doc_toy_table_values():
    """The numbers of the toy table: tied a, b, c with only a relevant, then a renamed z."""
    names = ["P_TA@1", "RR_TA", "AP_TA", "nDCG_TA@3", "P@1", "RR", "AP", "nDCG@3"]
    measures = [ir_measures.parse_measure(m) for m in names]
    got = {}
    for doc in ("a", "z"):
        qrels = {"q1": {doc: 1, "b": 0, "c": 0}}
        run = {"q1": {doc: 1.0, "b": 1.0, "c": 1.0}}
        result = ir_measures.calc_aggregate(measures, qrels, run)
        got[doc] = [round(result[m], 4) for m in measures]
    aware = [0.3333, 0.6111, 0.6111, 0.7103]
    assert got["a"] == aware + [0.0, 0.3333, 0.3333, 0.5]
    assert got["z"] == aware + [1.0, 1.0, 1.0, 1.0]
    text = DOC.read_text()
    for value in ("0.6111", "0.7103", "1/3"):
        assert value in text


def test_doc_names_the_regenerating_command():
    text = DOC.read_text()
    assert names_command(text, "scripts.ties_report")
    tr.generated_block(text)            # exactly one pair of markers, in order


# ---------------------------------------------------------------------------------------------
# the DL19 table (skips without ../shared/data)

@pytest.fixture(scope="module")
def dl19():
    data_dir = shared_data("dl19-passage")
    shared_data("dl19-passage", "runs")
    shared_data("dl19-passage", tr.QRELS_FILE)
    judged = pd.unique(ir_rbstar.read_qrels(data_dir / tr.QRELS_FILE)["query_id"])
    runs = list(tr.judged_runs(data_dir, judged))         # read once: the script's table and the tests below
    pq = tr.per_query(data_dir, runs=runs)
    frames = {name: frame for name, _, _, frame in runs}   # the judged queries' rows, in trec_eval order
    return data_dir, pq, tr.table_from(pq), frames


def test_doc_table_is_current(dl19):
    _, pq, table, _ = dl19
    fresh = tr.report(pq, table)
    in_doc = tr.generated_block(DOC.read_text())
    assert in_doc == fresh, "docs/ties.md is stale: run  python -m scripts.ties_report --write"


def test_table_shape(dl19):
    data_dir, pq, table, _ = dl19
    runs = sorted(p.name[:-3] for p in (data_dir / "runs").glob("*.gz"))
    assert len(runs) == 37
    assert sorted(table["run"]) == runs
    judged = ir_rbstar.read_qrels(data_dir / tr.QRELS_FILE)["query_id"].nunique()
    assert judged == 43
    assert (table["queries"] == judged).all()
    assert len(pq) == 37 * 43 and not pq.duplicated(["run", "query_id"]).any()
    assert ((0 <= table["ties@10"]) & (table["ties@10"] <= table["ties@1000"]) & (table["ties@1000"] <= judged)).all()
    assert (pq["tie@1000"] | ~pq["tie@10"]).all()
    worst = table[[f"{name} max diff" for name, *_ in tr.MEASURES]].abs().max(axis=1)
    assert worst.is_monotonic_decreasing


def test_values_are_in_unit_interval(dl19):
    _, pq, _, _ = dl19
    for name, *_ in tr.MEASURES:
        for kind in ("TA", "TE"):
            col = pq[f"{name} {kind}"]
            bad = pq.loc[col.isna() | (col < 0) | (col > 1 + 1e-12), ["run", "query_id", f"{name} {kind}"]]
            assert bad.empty, f"{name} {kind} outside [0, 1]:\n{bad}"


def test_no_tie_means_no_difference(dl19):
    """Without a tie group reaching into the depth a measure looks at, tie-aware = trec_eval order."""
    _, pq, _, _ = dl19
    for name, _, _, depth in tr.MEASURES:
        untied = ~pq[f"tie@{depth}"]
        raw = (pq[f"{name} TA"] - pq[f"{name} TE"]).abs()
        bad = pq.loc[untied & (raw > 1e-12), ["run", "query_id", f"{name} TA", f"{name} TE"]]
        assert bad.empty, f"{name} differs on queries without ties in the top {depth}:\n{bad}"
        assert untied.sum() > 0


def test_tie_counts_match_pandas(dl19):
    """The tie flags, recomputed with pandas for a few runs (the ones with the largest tie groups, and runs
    without ties) from their judged queries' rows as the fixture read them (ir_rbstar's reader, as
    ir_rbstar.read_run)."""
    _, pq, _, frames = dl19
    for run in ("UNH_bm25", "ms_duet_passage", "test1", "bm25base_ax_p", "ICT-CKNRM_B50", "bm25base_rm3_p"):
        df = frames[run]
        df = df.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
        df["pos"] = df.groupby("query_id").cumcount()
        groups = df.groupby(["query_id", "score"]).agg(size=("pos", "size"), top=("pos", "min")).reset_index()
        tied = groups[groups["size"] >= 2]
        mine = pq[pq["run"] == run].set_index("query_id")
        assert set(mine.index[mine["tie@1000"]]) == set(tied["query_id"]), run
        assert set(mine.index[mine["tie@10"]]) == set(tied.loc[tied["top"] < 10, "query_id"]), run


def _graded(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """The run's rows with their grade (0 where unjudged) and their score as a float32: tied means equal
    in float32, as trec_eval and this package read scores (runid2 has a pair of scores that differ in
    float64 only)."""
    grades = qrels.rename(columns={"relevance": "grade"})
    df = run.merge(grades, on=["query_id", "doc_id"], how="left").fillna({"grade": 0})
    df["score32"] = df["score"].astype(np.float32)
    return df


def _ordered_within_ties(graded: pd.DataFrame, best: bool) -> dict:
    """The run (as :func:`_graded` gives it) with its ties broken by grade (best first, or worst first),
    as strictly decreasing scores, in pytrec_eval's dict of dicts."""
    df = graded.sort_values(["query_id", "score32", "grade"], ascending=[True, False, not best], kind="stable")
    return run_dict(df.assign(score=-df.groupby("query_id").cumcount().astype(float)))


def test_tie_aware_lies_between_best_and_worst_tie_breaking(dl19):
    """Within every tie group, the best ordering puts higher grades first and the worst puts them last
    (for nDCG@10 as for binary AP and RR). The mean over all orderings must lie between the two, strictly
    when they differ, and equal both when they agree; trec_eval's order is one of the orderings. Only the
    queries with a tie group (two scores equal in float32, found here) are reordered and evaluated again:
    on the others every ordering is trec_eval's, so both bounds are the script's trec_eval-order column
    (pytrec_eval on the run as read)."""
    data_dir, pq, table, frames = dl19
    qrels = ir_rbstar.read_qrels(data_dir / tr.QRELS_FILE)
    ordered = {ir_measures.parse_measure(te): name for name, _, te, _ in tr.MEASURES}
    evaluator = ir_measures.pytrec_eval.evaluator(list(ordered), qrels)
    with_ties = set(table.loc[table["ties@1000"] > 0, "run"])
    checked = 0
    for run_name, run in frames.items():
        if run_name not in with_ties:
            continue
        mine = pq[pq["run"] == run_name].set_index("query_id")
        tied = run.assign(score32=run["score"].astype(np.float32)).duplicated(["query_id", "score32"], keep=False)
        tied_queries = set(run.loc[tied.to_numpy(), "query_id"].tolist())
        assert tied_queries
        graded = _graded(run[run["query_id"].isin(tied_queries).to_numpy()], qrels)
        bounds = {}
        for best in (True, False):
            values = {(m.query_id, ordered[m.measure]): m.value
                      for m in evaluator.iter_calc(_ordered_within_ties(graded, best))}
            for name, *_ in tr.MEASURES:
                bounds[name, best] = np.array([values.get((q, name), 0.0) if q in tied_queries else te
                                               for q, te in zip(mine.index, mine[f"{name} TE"])])
        for name, *_ in tr.MEASURES:
            hi, lo = bounds[name, True], bounds[name, False]
            ta, te = mine[f"{name} TA"].to_numpy(), mine[f"{name} TE"].to_numpy()
            where = f"{run_name} {name}"
            assert (lo <= hi + TOL).all(), where
            for label, v in (("tie-aware", ta), ("trec_eval order", te)):
                bad = mine.index[(v < lo - TOL) | (v > hi + TOL)]
                assert bad.empty, f"{where}: {label} outside [worst, best] on queries {list(bad)}"
            # stat='min' / 'max' of the tie-aware measure are exactly these two orders' values (computed here
            # by pytrec_eval on the reordered run, there by this package)
            np.testing.assert_allclose(mine[f"{name} min"].to_numpy(), lo, atol=TOL, err_msg=where)
            np.testing.assert_allclose(mine[f"{name} max"].to_numpy(), hi, atol=TOL, err_msg=where)
            spread = hi - lo > 1e-12       # the grade sequences of the two orderings differ where it matters
            strict = (ta > lo) & (ta < hi)
            assert strict[spread].all(), f"{where}: not strictly inside on {list(mine.index[spread & ~strict])}"
            same = np.abs(ta - te)[~spread].max(initial=0.0)
            assert same <= 1e-12, f"{where}: ties that cannot matter changed the value by {same}"
            checked += int(spread.sum())
    assert checked > 0
