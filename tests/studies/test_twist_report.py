"""docs/twist.md (tests/test_docs.py runs its example): its generated block (archetypes, Kendall's tau,
effort against gain on DL19 and Robust04) is what scripts/twist_report.py computes now from
../shared/data, with sanity checks of the values. The real-data tests skip when that data is absent.
"""
import itertools
import math

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.stats import ranking_agreement
from tests.helpers import REPO, load_script, names_command, run_dict, shared_data

DOC = REPO / "docs" / "twist.md"


tr = load_script("twist_report")


# ---------------------------------------------------------------------------------------------
# the document and the script's helpers (no shared data needed)

def test_doc_structure():
    text = DOC.read_text()
    tr.generated_block(text)                  # exactly one pair of markers, in order
    assert names_command(text, "scripts.twist_report")
    assert "## Pictures" in text
    for image in ("img/twist_crp.png", "img/twist_effort_gain.png"):   # the committed pictures are shown
        assert f"]({image})" in text and (DOC.parent / image).stat().st_size > 10_000


def _tau_b_pairs(x, y):
    """Kendall's tau-b by counting pairs one by one."""
    c = d = tx = ty = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if sx and sy:
            c += sx == sy
            d += sx != sy
        elif sx and not sy:
            ty += 1
        elif sy and not sx:
            tx += 1
    return (c - d) / math.sqrt((c + d + tx) * (c + d + ty))


def test_kendall_tau_b():
    rng = np.random.default_rng(7)
    for n in (2, 3, 10, 57):
        x = rng.integers(0, 5, n).astype(float)      # many ties
        y = x + rng.integers(-2, 3, n)
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            continue
        got = ranking_agreement(x, y).tau_b
        assert got == pytest.approx(_tau_b_pairs(x, y), abs=1e-12)
        assert -1 <= got <= 1
    assert ranking_agreement([1, 2, 3], [3, 2, 1]).tau_b == pytest.approx(-1.0)
    assert math.isnan(ranking_agreement([1, 1, 1], [1, 2, 3]).tau_b)
    try:
        from scipy.stats import kendalltau
    except ImportError:
        return
    x, y = rng.normal(size=200).round(1), rng.normal(size=200).round(1)
    assert ranking_agreement(x, y).tau_b == pytest.approx(kendalltau(x, y).statistic, abs=1e-12)
    # the reports' tau-b alone is ranking_agreement's, to the bit
    for a, b in ((x, y), (x, x.round(0)), ([1.0, 2.0, 2.0], [3.0, 1.0, 3.0])):
        assert tr._docblock.tau_b(a, b) == ranking_agreement(a, b).tau_b
    assert math.isnan(tr._docblock.tau_b([1, 2, 3], [2, 2, 2]))


def test_gain_measures_and_grades_on_a_small_collection(tmp_path):
    """The script's own grade lookup, AP(rel=...) and nDCG per query equal pytrec_eval's (through
    ir_measures) on random runs with unjudged documents, a query the run misses, a query without
    relevant judgments at rel=2 and grades 0-3."""
    rng = np.random.default_rng(3)
    qrels_lines, run_lines, qrels_dict, run = [], [], {}, {}
    for q in range(6):
        judged = {f"d{q}_{i}": int(rng.integers(0, 4 if q != 4 else 2)) for i in range(int(rng.integers(3, 12)))}
        qrels_dict[f"q{q}"] = judged
        qrels_lines += [f"q{q} 0 {d} {g}" for d, g in judged.items()]
        if q == 5:                                   # judged, not retrieved
            continue
        docs = list(judged)[: int(rng.integers(1, len(judged) + 1))] + [f"x{q}_{i}" for i in range(4)]
        scores = rng.integers(0, 20, len(docs)).astype(float) + rng.random(len(docs))
        run[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        run_lines += [f"q{q} Q0 {d} 0 {s!r} r" for d, s in zip(docs, scores.tolist(), strict=True)]
    (tmp_path / "qrels").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "run").write_text("\n".join(run_lines) + "\n")
    qrels = ir_rbstar.io.read_trec_qrels(str(tmp_path / "qrels"))
    ranking = ir_rbstar.io.read_trec_run(str(tmp_path / "run"))
    judged = tr.judgments(qrels)
    lengths = np.diff(ranking.offsets)
    grades = tr.row_grades(judged, np.repeat(ranking.qcodes, lengths), ranking.docs, ranking.dbytes)
    qids = ir_rbstar.io.QUERY_IDS.decode(ranking.qcodes)
    expected_grades = [qrels_dict[q].get(d, 0)
                       for q, d in zip(np.repeat(qids, lengths), ranking.dbytes.astype(str), strict=True)]
    assert grades.tolist() == expected_grades
    gain = tr.gain_measures(ranking.offsets, grades, ranking.qcodes, judged, (1, 2))
    measures = {("AP", 1): ir_measures.AP(rel=1), ("AP", 2): ir_measures.AP(rel=2), ("nDCG", None): ir_measures.nDCG}
    theirs = {(m.measure, m.query_id): m.value
              for m in ir_measures.pytrec_eval.iter_calc(list(measures.values()), qrels_dict, run)}
    for key, measure in measures.items():
        assert [theirs[measure, q] for q in qids] == pytest.approx(gain[key].tolist(), abs=1e-15), key
    assert theirs[measures["AP", 2], "q4"] == 0.0            # q4 has no grade >= 2: 0 as trec_eval


def test_own_crp_on_the_example():
    """The script's independent CRP: the example of docs/twist.md, and a curve that touches zero at
    position 1 (a crossing by ir_rbstar's rule, zero counting as both sides; none by the sign-change
    rule)."""
    qrels = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": ["a", "b", "c", "d", "a", "b"],
                          "relevance": [2, 1, 1, 0, 1, 1]})
    frame = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 3, "doc_id": ["x", "y", "b", "a", "c", "a", "z", "b"]})
    out = tr.crp_crossings(qrels, frame, 1).set_index("query_id")
    # q1: CRP -3 -5 -5 -2 0; q2 (RB = 2): RP 0 -1 1, CRP 0 -1 0; columns first_touch, first_sign_change,
    # crp_at_rb
    assert out.loc["q1"].tolist() == [4, 0, -5]
    assert out.loc["q2"].tolist() == [1, 0, -1]
    run = {"q1": {"x": 5.0, "y": 4.0, "b": 3.0, "a": 2.0, "c": 1.0}, "q2": {"a": 3.0, "z": 2.0, "b": 1.0}}
    table = ir_rbstar.twist.twist_table(qrels, run).set_index("query_id")
    assert table["first_crossing"].tolist() == out["first_touch"].tolist()
    assert table.loc["q2", "archetype"] == "up_and_down"
    pairs = table.reset_index().rename(columns={"first_crossing": "fc"}).join(out, on="query_id")
    assert tr.archetype_by_sign_change(pairs).tolist() == ["typical_b", "typical_b"]


def test_grid_cells():
    """Gain rows at the quartiles, Twist columns at 0.25 / 0.5 / 0.75, right-closed (a value on a cut
    point lies in the lower cell)."""
    gain = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    twist = np.array([0.0, 0.25, 0.2501, 0.5, 0.5001, 0.75, 0.7501, 1.0, 0.3])
    cuts, row, col = tr.grid_cells(twist, gain)
    assert cuts.tolist() == pytest.approx([0.2, 0.4, 0.6])
    assert row.tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 3]
    assert col.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 1]


# ---------------------------------------------------------------------------------------------
# real data (skips without ../shared/data)

@pytest.fixture(scope="module")
def pairs():
    for coll in tr.COLLECTIONS:
        shared_data(coll.qrels)
        for _, folder in coll.groups:
            shared_data(folder)
    return tr.per_pair(shared_data())


def test_doc_block_is_current(pairs):
    fresh = tr.report(pairs)
    in_doc = tr.generated_block(DOC.read_text())
    assert in_doc == fresh, "docs/twist.md is stale: run  python -m scripts.twist_report --write"


def test_shape(pairs):
    dl19 = pairs[pairs["collection"] == "dl19"]
    assert sorted(dl19["rel"].unique()) == [1, 2]
    for rel in (1, 2):
        sub = dl19[dl19["rel"] == rel]
        assert sub["run"].nunique() == 37 and sub["query_id"].nunique() == 43 and len(sub) == 37 * 43
    rob = pairs[pairs["collection"] == "robust04"]
    assert rob.groupby("group")["run"].nunique().to_dict() == {"TREC 2004 runs": 10, "new runs": 8}
    assert rob["query_id"].nunique() == 249 and len(rob) == 18 * 249
    assert not pairs.duplicated(["collection", "rel", "run", "query_id"]).any()
    assert (pairs["recall_base"] >= 1).all()


def test_values_in_range(pairs):
    for col in tr.EFFORT + tr.GAIN + tr.SIGN_CHANGE:
        v = pairs[col]
        assert not v.isna().any(), col
        assert ((v >= 0) & (v <= 1 + 1e-12)).all(), col
    assert pairs["archetype"].isin(tr.ARCHETYPES).all()
    assert pairs["archetype_sign_change"].isin(tr.ARCHETYPES).all()


def test_own_curves_agree_with_twist_table(pairs):
    """The script's own CRP curves find the same first crossing as ir_rbstar on every pair, and the
    archetypes follow from it (rho = 1 exactly for excellent / up and down / ideal)."""
    assert (pairs["first_touch"] == pairs["first_crossing"]).all()
    early = pairs["archetype"].isin(["excellent", "up_and_down"])
    assert ((pairs.loc[early, "crp_at_rb"] >= 0) == (pairs.loc[early, "archetype"] == "excellent")).all()
    assert (pairs.loc[early | (pairs["archetype"] == "ideal"), "Twist_rho"] == 1).all()
    assert (pairs.loc[pairs["archetype"] == "typical_b", "Twist_rho"] == 0).all()
    # the sign-change rule never crosses earlier than the zero-counts rule
    sc, fc = pairs["first_sign_change"], pairs["first_crossing"]
    assert ((sc == 0) | ((fc > 0) & (sc >= fc))).all()


def test_gain_measures_and_twist_match_ir_measures(pairs):
    """The table's AP (the script's own, at every rel) and nDCG equal pytrec_eval's per topic (through
    ir_measures: AP(rel=...), nDCG), and a run's mean Twist equals ir_measures' aggregate of Twist(rel=...)
    (ir_rbstar's provider), on the same files: a deep and a shallow DL19 run, and a Robust04 run."""
    cases = (("dl19", "dl19-passage/qrels.dl19-passage.txt", "dl19-passage/runs", ("bm25base_p", "ICT-CKNRM_B50")),
             ("robust04", "robust04/qrels.robust2004.txt.gz", "robust04/runs-new", ("indri-fdm.run",)))
    for coll, qrels_file, folder, runs in cases:
        qrels = ir_rbstar.read_qrels(shared_data(qrels_file))
        qrels_dict = {q: dict(zip(part["doc_id"], part["relevance"].tolist(), strict=True))
                      for q, part in qrels.groupby("query_id")}
        rels = sorted(set(pairs.loc[pairs["collection"] == coll, "rel"]))
        for run in runs:
            frame = ir_rbstar.read_run(shared_data(folder) / f"{run}.gz")
            run_docs = run_dict(frame[frame["query_id"].isin(set(qrels_dict))])
            for rel in rels:
                mine = pairs[(pairs["collection"] == coll) & (pairs["rel"] == rel) & (pairs["run"] == run)]
                assert len(mine) > 40
                twist, ap, ndcg = ir_rbstar.parse(f"Twist(rel={rel})")[0], ir_measures.AP(rel=rel), ir_measures.nDCG
                aggregate = ir_measures.calc_aggregate([twist], qrels_dict, run_docs)[twist]
                assert mine["Twist"].mean() == pytest.approx(aggregate, abs=1e-12)
                theirs = {(m.measure, m.query_id): m.value
                          for m in ir_measures.pytrec_eval.iter_calc([ap, ndcg], qrels_dict, run_docs)}
                for measure, column in ((ap, "AP"), (ndcg, "nDCG")):
                    expected = [theirs.get((measure, q), 0.0) for q in mine["query_id"]]
                    np.testing.assert_allclose(mine[column].to_numpy(), expected, rtol=0, atol=1e-12,
                                               err_msg=f"{coll} {run} rel={rel} {column}")


def test_tables_sanity(pairs):
    arch = tr.archetype_table(pairs)
    shares = arch[list(tr.ARCHETYPES)].sum(axis=1)
    assert np.allclose(shares, 100.0), arch
    assert ((arch["crossing_at_1"] >= 0) & (arch["crossing_at_1"] <= 100)).all()
    assert (arch.loc[arch["rule"].str.startswith("sign"), "crossing_at_1"] == 0).all()
    both = arch[arch["rule"].str.startswith("zero")]
    # a first crossing at position 1 means rho = 1: excellent, up and down, ideal or full-scale
    assert (both["crossing_at_1"] <= both["excellent_or_up_and_down"] + both["ideal"] + both["full_scale"] + 1e-9).all()
    corr = tr.correlation_table(pairs)
    values = corr[[f"{x} vs {y}" for x, y in tr.CORRELATIONS]].to_numpy()
    assert np.isfinite(values).all() and (np.abs(values) <= 1 + 1e-12).all()
    eg = tr.effort_gain_table(pairs)
    assert np.allclose(eg[["same", "twist_higher", "twist_lower"]].sum(axis=1), 100.0)
    assert (eg["high_gain_high_effort"] <= 25.0 + 1e-9).all() and (eg["low_gain_low_effort"] <= 25.0 + 1e-9).all()
    assert ((eg["tau_b"] >= -1) & (eg["tau_b"] <= 1)).all()


def test_correlations_match_scipy(pairs):
    stats = pytest.importorskip("scipy.stats")
    sub = pairs[(pairs["collection"] == "dl19") & (pairs["rel"] == 2)]
    means = tr.system_means(sub)
    for x, y in tr.CORRELATIONS:
        ref = stats.kendalltau(means[x], means[y]).statistic
        assert ranking_agreement(means[x].to_numpy(), means[y].to_numpy()).tau_b == pytest.approx(ref, abs=1e-12)


def test_shallow_runs(pairs):
    """The shallow runs (N < RB on >= 10% of the topics) are DL19's depth-20/50 runs; Robust04 has none,
    so its correlation table has no such row."""
    short = (pairs["length"] < pairs["recall_base"]).groupby([pairs["collection"], pairs["rel"], pairs["run"]]).mean()
    shallow = sorted({run for (coll, rel, run), share in short.items() if share >= tr.SHALLOW})
    assert shallow == ["ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50"]
    corr = tr.correlation_table(pairs)
    rows = corr.loc[corr["runs"].str.contains("without shallow"), ["collection", "rel", "n_runs"]]
    assert rows.values.tolist() == [["DL19 passage", 2, 34], ["DL19 passage", 1, 34]]
