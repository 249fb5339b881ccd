"""What the explorer page must show, computed independently of ir_rbstar.explore: per-query values through
``ir_measures.iter_calc`` (MED and RBO with the other run as ``ref``), rankings in trec_eval order from the
run files read by pandas, tie groups from float32 scores."""
import gzip

import numpy as np
import pandas as pd

import ir_measures
import ir_rbstar


def per_query(measure: str, qrels, run, refs=None) -> dict:
    """query -> value of ``measure`` by ir_measures.iter_calc (``refs`` names runs for ``ref=``)."""
    m = ir_rbstar.parse_measure(measure)
    with ir_rbstar.run_scope(runs=refs or {}):
        return {str(v.query_id): v.value for v in ir_measures.iter_calc([m], qrels, run)}


def read_run(path) -> pd.DataFrame:
    """A TREC run file in trec_eval's order: score (as float32) descending, then document id descending."""
    frame = pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                        dtype={"query_id": str, "doc_id": str})
    frame["key"] = frame["score"].astype(np.float32)
    return frame.sort_values(["query_id", "key", "doc_id"], ascending=[True, False, False], kind="stable")


def top(frame: pd.DataFrame, qid: str, depth: int) -> list:
    return frame[frame["query_id"] == qid]["doc_id"].tolist()[:depth]


def tie_groups(frame: pd.DataFrame, qid: str) -> list:
    """[start, size] of each group of two or more equal float32 scores of one query, 0-based."""
    keys = frame[frame["query_id"] == qid]["key"].tolist()
    groups, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[start]:
            if i - start > 1:
                groups.append([start, i - start])
            start = i
    return groups


def read_qrels(path) -> dict:
    out: dict = {}
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            q, _, d, g = line.split()
            out.setdefault(q, {})[d] = int(g)
    return out
