"""Selection, simulation and auxiliary judgments from PyTerrier: result frames (qid, docno, score, rank, query)
as runs and PyTerrier / ir_datasets qrels frames (qid, docno, label, iteration) as judgments give what the
package's own frames give."""
import pandas as pd
import pytest

import ir_rbstar
from ir_rbstar.demo import data_dir
from ir_rbstar.judging import aux_split, aux_verdicts, select, simulate

NAMES = ("bm25", "bm25_flat", "bm25l")


@pytest.fixture(scope="module")
def vaswani():
    V = data_dir()
    qrels = ir_rbstar.read_qrels(f"{V}/qrels")
    runs = {n: ir_rbstar.read_run(f"{V}/{n}.run.gz") for n in NAMES}
    keep = sorted(qrels["query_id"].unique(), key=str)[:25]          # small and fast
    qrels = qrels[qrels["query_id"].isin(keep)].reset_index(drop=True)
    runs = {n: r[r["query_id"].isin(keep)].reset_index(drop=True) for n, r in runs.items()}
    return qrels, runs


def as_pyterrier(run: pd.DataFrame) -> pd.DataFrame:
    """A PyTerrier result frame: qid, query, docno, score, rank (0-based), rows in PyTerrier's order."""
    out = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    out = out.sort_values(["qid", "score"], ascending=[True, False], kind="stable")
    out["rank"] = out.groupby("qid").cumcount()
    out["query"] = "text of " + out["qid"].astype(str)
    return out[["qid", "query", "docno", "score", "rank"]].reset_index(drop=True)


def as_pyterrier_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """A qrels frame as PyTerrier and ir_datasets give it: qid, docno, label (and iteration)."""
    out = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    out["iteration"] = "0"
    return out


@pytest.mark.parametrize("strategy", ["pairs", "depth", "bandit"])
def test_select_takes_pyterrier_frames(vaswani, strategy):
    qrels, runs = vaswani
    half = qrels.iloc[::2]
    want = select(runs, half, "RBP(p=0.8)@10", budget=15, strategy=strategy, seed=1)
    got = select({n: as_pyterrier(r) for n, r in runs.items()}, as_pyterrier_qrels(half), "RBP(p=0.8)@10",
                 budget=15, strategy=strategy, seed=1)
    assert len(want) == 15
    pd.testing.assert_frame_equal(got, want)


def test_simulate_takes_pyterrier_frames(vaswani):
    qrels, runs = vaswani
    kw = dict(measures=["RBP(p=0.8)@10", "nDCG@10"], strategies=["pairs", "depth"], budgets=[30, 60], seed=0)
    want = simulate(qrels, runs, **kw)
    got = simulate(as_pyterrier_qrels(qrels), {n: as_pyterrier(r) for n, r in runs.items()}, **kw)
    pd.testing.assert_frame_equal(got, want)


def test_aux_split_takes_pyterrier_frames(vaswani):
    qrels, runs = vaswani
    human, aux = qrels.iloc[::2], qrels.iloc[1::2]
    pt_runs = {n: as_pyterrier(r) for n, r in runs.items()}
    want = aux_split(runs, human, aux, "RBP(p=0.8)@10")
    got = aux_split(pt_runs, as_pyterrier_qrels(human), as_pyterrier_qrels(aux), "RBP(p=0.8)@10")
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(aux_verdicts(pt_runs, as_pyterrier_qrels(human), as_pyterrier_qrels(aux),
                                               measure="RBP(p=0.8)@10"),
                                  aux_verdicts(runs, human, aux, measure="RBP(p=0.8)@10"))


def test_frames_from_pyterrier_itself(vaswani):
    """The frames a PyTerrier pipeline returns (``pt.Transformer.from_df(...)(topics)``) and the qrels of
    ``pt.rbstar.qrels``."""
    pt = pytest.importorskip("pyterrier")
    qrels, runs = vaswani
    topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique(), key=str), "query": "x"})
    results = {n: pt.Transformer.from_df(as_pyterrier(r)[["qid", "docno", "score"]])(topics) for n, r in runs.items()}
    from ir_rbstar.pyterrier import qrels as pt_qrels
    judged = pt_qrels(f"{data_dir()}/qrels")
    judged = judged[judged["qid"].isin(topics["qid"])].iloc[::2]
    want = select(runs, qrels.iloc[::2], "RBP(p=0.8)@10", budget=10)
    got = select(results, judged, "RBP(p=0.8)@10", budget=10)
    pd.testing.assert_frame_equal(got, want)
