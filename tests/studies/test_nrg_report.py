"""docs/nrg.md (tests/test_docs.py runs its examples): they print Table 1 of Bigdeli et al. (SIGIR-AP
2024), and its generated block (NRG, UniqueRel, RarP and TaSC of the 37 DL19 passage runs) is what
scripts/nrg_report.py computes now from ../shared/data. The values are checked against the definitions
(tests/oracles/nrg.py and pytrec_eval's nDCG per topic) on a few runs, with the prior set built here from
run_groups.tsv. The real-data tests skip when that data is absent."""
import gzip
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pytest

import ir_measures
from tests.helpers import REPO, expected_python_output, load_script, names_command, shared_data
from tests.oracles import nrg as O

DOC = REPO / "docs" / "nrg.md"


nr = load_script("nrg_report")


# ---------------------------------------------------------------------------------------------
# the document and the script's helpers (no shared data needed)

def test_doc_table1_values():
    """The first example prints the six values of Table 1 of Bigdeli et al. 2024, then a run given itself
    as its prior (R2 given R2, which the page added: not in the paper's table)."""
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)[0]
    values = [line.split()[-1] for line in expected_python_output(code)]
    assert values == ["0.7361", "0.8277", "0.8417", "0.7988", "0.8316", "0.8681", "0.7933"]


def test_doc_structure():
    text = DOC.read_text()
    nr.generated_block(text)                  # exactly one pair of markers, in order
    assert names_command(text, "scripts.nrg_report")
    pyterrier = text.split("\n## PyTerrier\n", 1)[1].split("\n## ", 1)[0]
    assert "register_runs(\"experiment\", results" in pyterrier and "best_per_team" in pyterrier
    for name, _, _ in nr.PICTURES:            # the committed pictures are shown
        assert f"](img/{name})" in text and (DOC.parent / "img" / name).stat().st_size > 10_000
    assert "### Does the paper's finding hold?" in text


def test_replace_block():
    doc = f"intro\n{nr.START}\nold\n{nr.END}\noutro\n"
    new = nr.replace_block(doc, "| a |")
    assert nr.generated_block(new) == "| a |" and new.startswith("intro\n") and new.endswith("outro\n")
    with pytest.raises(ValueError):
        nr.generated_block("no markers")
    with pytest.raises(ValueError):
        nr.generated_block(f"{nr.END}\n{nr.START}")


def test_best_runs_and_summary_on_a_small_table():
    ndcg = pd.Series({"a1": 0.5, "a2": 0.6, "b1": 0.7, "b2": 0.7})
    assert nr.best_runs(ndcg, {"a1": "A", "a2": "A", "b1": "B", "b2": "B"}) == {"A": "a2", "B": "b1"}
    table = pd.DataFrame({"run": ["n1", "n2", "b1", "b2"], "group": ["X", "Y", "BASELINE", "BASELINE"],
                          "kind": ["neural", "neural", "BASELINE", "BASELINE"]})
    for i, col in enumerate(nr.COLUMNS):
        table[col] = [0.8, 0.7, 0.5, 0.4] if i == 0 else [0.1, 0.3, 0.2, 0.4]
    s = nr.summary(table).set_index("measure")
    assert s.loc["nDCG@10", "pairs_won"] == 0 and s.loc["nDCG@10", "best_baseline_rank"] == 3
    assert s.loc["NRG@10", "neural_median"] == pytest.approx(0.2)
    assert s.loc["NRG@10", "above_median"] == 1 and s.loc["NRG@10", "above_all_neural"] == 1
    assert s.loc["NRG@10", "pairs_won"] == pytest.approx(0.75) and s.loc["NRG@10", "best_baseline_rank"] == 1


# ---------------------------------------------------------------------------------------------
# real data (skips without ../shared/data)

@pytest.fixture(scope="module")
def table():
    for part in (nr.QRELS, nr.RUNS, nr.GROUPS):
        shared_data(part)
    return nr.compute(shared_data())


def test_doc_block_is_current(table):
    assert nr.generated_block(DOC.read_text()) == nr.report(table), \
        "docs/nrg.md is stale: run  python -m scripts.nrg_report --write"


def test_shape_and_groups(table):
    groups = pd.read_csv(shared_data(nr.GROUPS), sep="\t")
    assert len(table) == 37 and set(table["run"]) == set(groups["run"])
    assert table.attrs["topics"] == 43
    assert dict(zip(table["run"], table["group"])) == dict(zip(groups["run"], groups["group"]))
    assert table.attrs["best"] == {g: r for r, g, b in zip(groups["run"], groups["group"], groups["best_in_group"]) if b}
    assert (table["kind"] == "BASELINE").sum() == 8 and (table["kind"] == "neural").sum() == 23
    assert table["nDCG@10"].is_monotonic_decreasing
    neural = table.loc[table["kind"] == "neural", "nDCG@10"]
    assert neural.min() > table.loc[table["kind"] == "BASELINE", "nDCG@10"].max()


def test_values_in_range(table):
    assert not table[list(nr.COLUMNS)].isna().any().any()
    assert ((table["NRG@10"] >= 0) & (table["NRG@10"] <= 1)).all()
    for col in ("UniqueRel@10", "UniqueRel@10 rel=1"):
        totals = table[col] * 43                      # a whole number of passages per topic
        assert np.allclose(totals, np.round(totals), atol=1e-9) and (totals >= 0).all() and (totals <= 430).all()
    assert (table["UniqueRel@10"] <= table["UniqueRel@10 rel=1"] + 1e-12).all()
    assert ((table["RarP@10"] >= 0) & (table["RarP@10"] <= table["RarP@10 rel=1"] + 1e-12)).all()
    assert (table["RarP@10 rel=1"] <= 2).all()
    assert ((table["TaSC@10"] >= 0) & (table["TaSC@10"] <= table["nDCG@10"] + 1e-12)).all()
    # two runs from different groups that are nearly the same: each is in the other's prior set
    t = table.set_index("run")
    assert t.loc["TUA1-1", "UniqueRel@10 rel=1"] == 0 and t.loc["TUA1-1", "NRG@10"] < t["NRG@10"].median()


def _rankings(path, judged):
    """query -> doc ids in trec_eval order (score as a C float descending, ties by doc id descending),
    read here with pyarrow's CSV reader (columns separated by the first line's separator, a tab or a
    space; a line with another number of columns is an error), the judged queries only."""
    with gzip.open(path, "rb") as f:
        sep = "\t" if b"\t" in f.readline() else " "
    table = pa_csv.read_csv(path, read_options=pa_csv.ReadOptions(column_names=["q", "q0", "d", "rank", "s", "tag"]),
                            parse_options=pa_csv.ParseOptions(delimiter=sep),
                            convert_options=pa_csv.ConvertOptions(
                                include_columns=["q", "d", "s"],
                                column_types={"q": pa.string(), "d": pa.string(), "s": pa.float64()}))
    table = table.filter(pc.is_in(table["q"], value_set=pa.array(sorted(judged))))
    table = table.set_column(2, "s", pc.cast(table["s"], pa.float32()))
    table = table.sort_by([("q", "ascending"), ("s", "descending"), ("d", "descending")])
    out: dict = {}
    for q, d in zip(table["q"].to_pylist(), table["d"].to_pylist(), strict=True):
        out.setdefault(q, []).append(d)
    return out


@pytest.fixture(scope="module")
def oracle_inputs(table):
    data = shared_data("dl19-passage")
    qrels_df = pd.read_csv(data / "qrels.dl19-passage.txt", sep=r"\s+", header=None,
                           names=["q", "it", "d", "g"], dtype={"q": str, "d": str, "g": int})
    qrels = {q: dict(zip(p["d"], p["g"])) for q, p in qrels_df.groupby("q")}
    runs = {path.name[:-3]: _rankings(path, set(qrels)) for path in sorted((data / "runs").glob("*.gz"))}
    groups = pd.read_csv(data / "run_groups.tsv", sep="\t")
    teams = dict(zip(groups["run"], groups["group"]))
    best = {g: r for r, g, b in zip(groups["run"], groups["group"], groups["best_in_group"]) if b}
    return qrels, runs, teams, best


@pytest.mark.parametrize("run", ["bm25base_ax_p", "idst_bert_pr1", "ICT-CKNRM_B50", "test1"])
def test_nrg_and_uniquerel_from_the_definition(table, oracle_inputs, run):
    """NRG@10 and UniqueRel@10 of a run = the plain-Python definition (eqs. 3-4) averaged over the 43
    topics, with the prior set built here, per topic: the best run of every group except the groups of
    the runs that rank the topic exactly as the run does (the run itself, and any copy of it)."""
    qrels, runs, teams, best = oracle_inputs
    nrg, unique2, unique1 = [], [], []
    for q, judged in qrels.items():
        ranking = runs[run].get(q, [])
        own = {teams[r] for r, rankings in runs.items() if rankings.get(q, []) == ranking}
        others = [runs[r].get(q, []) for g, r in sorted(best.items()) if g not in own]
        nrg.append(O.nrg(judged, ranking, others, k=10))
        unique2.append(O.unique_rel(judged, ranking, others, k=10, rel=2))
        unique1.append(O.unique_rel(judged, ranking, others, k=10, rel=1))
    row = table.set_index("run").loc[run]
    assert row["NRG@10"] == pytest.approx(np.mean(nrg), abs=1e-12)
    assert row["UniqueRel@10"] == pytest.approx(np.mean(unique2), abs=1e-12)
    assert row["UniqueRel@10 rel=1"] == pytest.approx(np.mean(unique1), abs=1e-12)


def test_rarp_and_tasc_from_the_definition(table, oracle_inputs):
    """RarP: rarity per topic over all 37 runs, the run itself one of them (Fig. 4); TaSC: per topic
    (1 - the best prior run's nDCG@10) x the run's nDCG@10, nDCG@10 from pytrec_eval (Fig. 5)."""
    qrels, runs, teams, best = oracle_inputs
    run = "bm25tuned_ax_p"
    all_runs = list(runs.values())
    for rel, col in ((2, "RarP@10"), (1, "RarP@10 rel=1")):
        values = [O.rarp(judged, runs[run].get(q, []), [r.get(q, []) for r in all_runs], member=True, k=10, rel=rel)
                  for q, judged in qrels.items()]
        assert table.set_index("run").loc[run, col] == pytest.approx(np.mean(values), abs=1e-12)
    qrels_flat = [ir_measures.Qrel(q, d, g) for q, judged in qrels.items() for d, g in judged.items()]
    m = ir_measures.parse_measure("nDCG@10")

    def per_topic(name):
        scored = [ir_measures.ScoredDoc(q, d, float(-i)) for q, docs in runs[name].items() for i, d in enumerate(docs)]
        return {x.query_id: x.value for x in ir_measures.pytrec_eval.iter_calc([m], qrels_flat, scored)}

    own = per_topic(run)
    prior = [per_topic(r) for g, r in best.items() if g != teams[run]]
    tasc = [(1 - max(p.get(q, 0.0) for p in prior)) * own.get(q, 0.0) for q in qrels]
    assert table.set_index("run").loc[run, "TaSC@10"] == pytest.approx(np.mean(tasc), abs=1e-9)


def test_summary_is_consistent(table):
    s = nr.summary(table).set_index("measure")
    assert s.loc["nDCG@10", "tau_all"] == pytest.approx(1.0) and s.loc["nDCG@10", "pairs_won"] == 0
    assert ((s["pairs_won"] >= 0) & (s["pairs_won"] <= 1)).all()
    assert ((s["above_median"] >= s["above_all_neural"]) & (s["above_median"] <= 8)).all()
    base = table[table["kind"] == "BASELINE"]
    neural = table[table["kind"] == "neural"]
    won = np.mean([b > n for b in base["NRG@10"] for n in neural["NRG@10"]])
    assert s.loc["NRG@10", "pairs_won"] == pytest.approx(won)
    stats = pytest.importorskip("scipy.stats")
    for col in nr.COLUMNS:
        assert s.loc[col, "tau_all"] == pytest.approx(stats.kendalltau(table["nDCG@10"], table[col]).statistic,
                                                      abs=1e-12)
