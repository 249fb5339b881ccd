"""The report and the robust comparison with auxiliary judgments: the verdicts that depend on them are marked
(and only those), the per-query split adds up, the sections agree, and bad auxiliary grades are clear errors."""
import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rbstar
from ir_rbstar.cli import main as cli_main
from ir_rbstar.errors import GradeScaleError
from ir_rbstar.judging.aux import aux_split, aux_verdicts
from ir_rbstar.report import build_report
from ir_rbstar.report.story import agreement


MEASURES = "RBP(p=0.5)@3 RBP_res(p=0.5)@3 P@3"


def track(aux_decides: bool):
    """12 queries, RBP(p=0.5)@3. With ``aux_decides``: A puts the one relevant document at rank 1, B at rank 2
    or 3, C at rank 3, and only the auxiliary judge saw it (without it A's and B's bounds overlap: no conclusion;
    with it A is robustly better than B). Otherwise the human qrels judge it (and x and w, not relevant), the
    auxiliary judge adds only y (not relevant), at rank 3 of A: A's residual shrinks, but A is robustly better
    than B (B: x, w, rel or x, rel, w) either way."""
    runs = {"A": {}, "B": {}, "C": {}}
    human, aux = {}, {}
    for i in range(12):
        q = f"q{i}"
        runs["A"][q] = {"rel": 3.0, "x": 2.0, "y": 1.0}
        runs["C"][q] = {"x": 3.0, "y": 2.0, "rel": 1.0}
        if aux_decides:
            runs["B"][q] = {"x": 3.0, "y": 2.0, "rel": 1.0} if i % 2 else {"x": 3.0, "rel": 2.0, "y": 1.0}
            human[q], aux[q] = {"x": 0, "y": 0}, {"rel": 1}
        else:
            runs["B"][q] = {"x": 3.0, "w": 2.0, "rel": 1.0} if i % 2 else {"x": 3.0, "rel": 2.0, "w": 1.0}
            human[q], aux[q] = {"rel": 1, "x": 0, "w": 0}, {"y": 0}
    return runs, human, aux


def frames(runs, human):
    run = pd.DataFrame([(q, d, s) for name, r in runs.items() for q, ds in r.items() for d, s in ds.items()],
                       columns=["query_id", "doc_id", "score"])
    return run, pd.DataFrame([(q, d, g) for q, ds in human.items() for d, g in ds.items()],
                             columns=["query_id", "doc_id", "relevance"])


def write(tmp_path, runs, human, aux):
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in human.items() for d, g in ds.items()))
    (tmp_path / "aux.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in aux.items() for d, g in ds.items()))
    paths = []
    for name, r in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} {k + 1} {s} {name}\n" for q, ds in r.items()
                                for k, (d, s) in enumerate(sorted(ds.items(), key=lambda x: -x[1]))))
        paths.append(str(path))
    return str(tmp_path / "qrels"), paths, str(tmp_path / "aux.txt")


@pytest.mark.parametrize("aux_decides", [True, False])
def test_report_marks_exactly_the_verdicts_that_depend_on_aux(tmp_path, aux_decides):
    runs, human, aux = track(aux_decides)
    qrels, paths, aux_path = write(tmp_path, runs, human, aux)
    out = tmp_path / "report"
    table = build_report(qrels, paths, out, baseline="B", measures=MEASURES, pictures=False, aux=aux_path,
                         permutations=2000)
    label = f"RBP(p=0.5,aux='{aux_path}')@3"
    assert label in table.columns                          # the column names the auxiliary judgments it uses
    robust = pd.read_csv(out / "robust.tsv", sep="\t")
    row = robust[(robust["run"] == "A") & (robust["measure"] == label)].iloc[0]
    assert row["verdict"] == "A better, robust"
    # the marking is the robust comparison of the judging API, run for run (human only vs merged)
    expected = aux_verdicts(dict(zip("ABC", paths, strict=True)), qrels, aux_path, baseline="B",
                            measure="RBP(p=0.5)@3").set_index("run")
    for r in robust.itertuples(index=False):
        assert r.verdict == expected.at[r.run, "verdict_with_aux"]
        assert r.verdict_human == expected.at[r.run, "verdict_human"]
        assert bool(r.depends_on_aux) == bool(expected.at[r.run, "depends_on_aux"])
    assert bool(row["depends_on_aux"]) is aux_decides
    assert row["verdict_human"] == ("no conclusion" if aux_decides else "A better, robust")
    text = (out / "report.md").read_text()
    n = int(robust["depends_on_aux"].sum())
    verb = "depends" if n == 1 else "depend"
    assert f"**{n} of the {len(robust)} robust verdicts {verb} on the auxiliary judgments**" in text
    assert ("A better, robust \u2020 (human only: no conclusion)" in text) is aux_decides
    # the per-query split adds up to the value and equals aux_split's
    tsv = pd.read_csv(out / "per_query.tsv", sep="\t", dtype={"query_id": str})
    np.testing.assert_allclose(tsv[f"{label} human"] + tsv[f"{label} auxiliary"], tsv[label], atol=1e-12)
    split = aux_split(dict(zip("ABC", paths, strict=True)), qrels, aux_path, "RBP(p=0.5)@3")
    got = tsv.set_index(["run", "query_id"])
    for part in ("human", "auxiliary", "residual"):
        want = split.set_index(["run", "query_id"])[part]
        np.testing.assert_allclose(got.loc[want.index, f"{label} {part}"], want, atol=1e-12)
    # one query, one number: the report's column is ir_measures' with the same string
    run_a, qrels_frame = frames({"A": runs["A"]}, human)
    plain = {m.query_id: m.value for m in ir_measures.iter_calc([ir_rbstar.parse(label)[0]], qrels_frame, run_a)}
    np.testing.assert_allclose([plain[q] for q in got.loc["A"].index], got.loc["A", label], atol=1e-12)


def test_the_sections_agree_and_say_which_depend_on_aux(tmp_path):
    runs, human, aux = track(True)
    qrels, paths, aux_path = write(tmp_path, runs, human, aux)
    out = tmp_path / "report"
    build_report(qrels, paths, out, baseline="B", measures=MEASURES, pictures=False, aux=aux_path,
                 permutations=2000)
    sig = pd.read_csv(out / "significance.tsv", sep="\t")
    robust = pd.read_csv(out / "robust.tsv", sep="\t")
    pairs = pd.read_csv(out / "all_pairs.tsv", sep="\t")
    story = agreement(sig.fillna({"significant": ""}), pairs, robust, "B", 3)
    assert not story["contradiction"].any()
    assert story["depends_on_aux"].sum() == robust["depends_on_aux"].sum() >= 1
    text = (out / "report.md").read_text()
    section = text[text.index("## Do the sections agree?"):]
    assert "robust verdicts depends on them**" in section and "| A |" in section


def test_without_aux_the_report_has_no_aux_columns(tmp_path):
    runs, human, _ = track(True)
    qrels, paths, _ = write(tmp_path, runs, human, {})
    build_report(qrels, paths, tmp_path / "r", baseline="B", measures=MEASURES, pictures=False, permutations=2000)
    robust = pd.read_csv(tmp_path / "r" / "robust.tsv", sep="\t")
    assert "depends_on_aux" not in robust.columns and "verdict_human" not in robust.columns
    assert "auxiliary" not in (tmp_path / "r" / "report.md").read_text()
    assert not any(c.endswith(" human") for c in pd.read_csv(tmp_path / "r" / "per_query.tsv", sep="\t").columns)


def test_cli_aux_and_bad_grades(tmp_path, capsys):
    runs, human, aux = track(True)
    qrels, paths, aux_path = write(tmp_path, runs, human, aux)
    assert cli_main(["report", qrels, *paths, "-O", str(tmp_path / "r"), "-b", "B", "--measures", MEASURES,
                     "--no-pictures", "-q", "--aux", aux_path, "--permutations", "2000"]) == 0
    assert "depends_on_aux" in (tmp_path / "r" / "robust.tsv").read_text()
    (tmp_path / "bad.txt").write_text("q0 0 rel 1\nq3 0 zz 4\n")          # the scale of the qrels is 0..1
    with pytest.raises(GradeScaleError, match=r"bad.txt: auxiliary grade 4 of document 'zz' for query 'q3'"):
        build_report(qrels, paths, tmp_path / "r2", baseline="B", measures=MEASURES, pictures=False,
                     aux=str(tmp_path / "bad.txt"))
    assert not (tmp_path / "r2").exists()                                  # checked before any work
    capsys.readouterr()
    code = cli_main(["report", qrels, *paths, "-O", str(tmp_path / "r3"), "-b", "B", "--measures", MEASURES,
                     "--no-pictures", "-q", "--aux", str(tmp_path / "bad.txt")])
    err = capsys.readouterr().err
    assert code == 2 and "auxiliary grade 4" in err and len(err.strip().splitlines()) == 1
    code = cli_main(["report", qrels, *paths, "-O", str(tmp_path / "r4"), "-b", "B", "--measures", MEASURES,
                     "--no-pictures", "-q", "--aux", str(tmp_path / "missing.qrels")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("ir-rbstar: error: aux: qrels file not found: ") and "missing.qrels" in err
    assert not (tmp_path / "r4").exists()


def test_aux_as_a_dataframe_is_written_next_to_the_report(tmp_path):
    runs, human, aux = track(True)
    qrels, paths, _ = write(tmp_path, runs, human, aux)
    _, aux_frame = frames({}, aux)
    table = build_report(qrels, paths, tmp_path / "r", baseline="B", measures=MEASURES, pictures=False,
                         aux=aux_frame, permutations=2000)
    written = tmp_path / "r" / "aux.qrels"
    assert written.exists() and f"RBP(p=0.5,aux='{written}')@3" in table.columns


def test_aux_verdicts_over_all_pairs():
    runs, human, aux = track(True)
    table = aux_verdicts(runs, human, aux, measure="RBP(p=0.5)@3")
    assert list(table[["run_a", "run_b"]].itertuples(index=False, name=None)) == [("A", "B"), ("A", "C"), ("B", "C")]
    got = table.set_index(["run_a", "run_b"])
    assert got.loc[("A", "C"), "verdict_with_aux"] == "A better, robust"
    assert got.loc[("A", "C"), "verdict_human"] == "no conclusion" and got.loc[("A", "C"), "depends_on_aux"]
    assert (table["depends_on_aux"] == (table["verdict_human"] != table["verdict_with_aux"])).all()
    runs, human, aux = track(False)
    table = aux_verdicts(runs, human, aux, measure="RBP(p=0.5)@3").set_index(["run_a", "run_b"])
    assert table.loc[("A", "B"), "verdict_human"] == table.loc[("A", "B"), "verdict_with_aux"] == "A better, robust"
    assert not table.loc[("A", "B"), "depends_on_aux"]


def test_robust_pairs_is_robust_table_pair_by_pair():
    from ir_rbstar.stats import robust_pairs, robust_table
    rng = np.random.default_rng(3)
    low = pd.DataFrame(rng.uniform(0, 0.6, (4, 9)), index=list("WXYZ"))
    high = low + rng.uniform(0, 0.3, (4, 9))
    pairs = robust_pairs(low, high, correction=None).set_index(["run_a", "run_b"])
    assert len(pairs) == 6
    for base in "XYZ":
        table = robust_table(low, high, base, correction=None).set_index("run")
        for a in [r for r in "WXYZ" if r < base]:
            for col in ("difference_low", "difference_high", "pvalue_worst", "pvalue_best", "verdict"):
                assert pairs.loc[(a, base), col] == table.loc[a, col]
    holm = robust_pairs(low, high)
    from statsmodels.stats.multitest import multipletests
    np.testing.assert_allclose(holm["pvalue_worst_adjusted"], multipletests(pairs["pvalue_worst"], method="holm")[1])


def test_bad_aux_frame_is_checked_before_anything_is_written(tmp_path):
    runs, human, _ = track(True)
    qrels, paths, _ = write(tmp_path, runs, human, {})
    bad = pd.DataFrame({"query_id": ["q1"], "doc_id": ["rel"], "relevance": [-3]})
    with pytest.raises(GradeScaleError, match=r"auxiliary grade -3 of document 'rel' for query 'q1' .*0..1"):
        build_report(qrels, paths, tmp_path / "r", baseline="B", measures=MEASURES, pictures=False, aux=bad)
    assert not (tmp_path / "r").exists()
