"""``ir-rbstar report`` as a reviewer reads it: the grade scale taken from the collection and written into
every graded measure it prints, one story across its sections, and tables readable at any number of runs.

Independent checks: the printed measure strings are parsed again and evaluated with
``ir_measures.calc_aggregate``; the grade scale is the highest grade written into the toy qrels."""
import re

import numpy as np
import pandas as pd
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar import report
from ir_rbstar.report.command import main as report_main


# ---------------------------------------------------------------------------------------------
# toy collections

def _graded(n_queries=14, n_docs=12, top=3, seed=5):
    """A fully judged collection with grades 0..top and three runs: good (grades descending), mid
    (shuffled) and bad (grades ascending)."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"bad": {}, "mid": {}, "good": {}}
    for q in range(n_queries):
        docs = [f"d{k}" for k in range(n_docs)]
        grades = rng.integers(0, top + 1, size=n_docs)
        grades[0] = top                                       # every query reaches the top grade somewhere
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs, grades, strict=True)}
        order = sorted(docs, key=lambda d: (-qrels[f"q{q}"][d], d))
        runs["good"][f"q{q}"] = {d: float(n_docs - k) for k, d in enumerate(order)}
        runs["bad"][f"q{q}"] = {d: float(k) for k, d in enumerate(order)}
        shuffled = rng.permutation(order).tolist()
        runs["mid"][f"q{q}"] = {d: float(n_docs - k) for k, d in enumerate(shuffled)}
    return qrels, runs


def _write_trec(tmp_path, qrels, runs):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{qid} 0 {d} {g}\n" for qid, docs in qrels.items() for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{qid} Q0 {d} {k} {s} {name}\n" for qid, docs in run.items()
                             for k, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)))
        paths.append(str(p))
    return str(q), paths


def _means(out):
    return pd.read_csv(out / "means.tsv", sep="\t", dtype={"run": str})


def _reproduce(label, qrels, run):
    """The mean of a printed measure string, evaluated afresh through ir_measures."""
    complement = label.startswith("1-")
    measure = ir_rbstar.parse(label[2:] if complement else label)[0]
    value = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    return 1.0 - value if complement else value


# ---------------------------------------------------------------------------------------------
# 1. the grade scale from the collection

def test_graded_collection_without_max_rel_prints_measures_that_reproduce_their_numbers(tmp_path):
    """No --max-rel on grades 0..3: the report works (it used to stop with GradeScaleError), every graded
    measure it prints carries max_rel=3, and each printed string gives the report's mean when evaluated
    again through ir_measures (the baseline registered under its name for the measures against it)."""
    qrels, runs = _graded()
    qpath, paths = _write_trec(tmp_path, qrels, runs)
    out = tmp_path / "out"
    assert report_main([qpath, *paths, "--baseline", "bad", "-O", str(out), "--no-pictures", "-q"]) == 0
    means = _means(out)
    labels = list(dict.fromkeys(means["measure"]))
    assert "RBP(p=0.8,max_rel=3)" in labels and "MED_nDCG(ref='bad',max_rel=3)@10" in labels
    text = (out / "report.md").read_text()
    assert "Grade scale of the graded measures: 0 to 3 (the highest grade in the qrels)" in text
    ir_rbstar.register_run("bad", runs["bad"])
    try:
        checked = 0
        for label in labels:
            if "prior=" in label:
                continue                          # NRG's prior set exists only while the report runs
            for name in runs:
                want = _reproduce(label, qrels, runs[name])
                got = means[(means["run"] == name) & (means["measure"] == label)]["mean"].item()
                assert got == pytest.approx(want, abs=1e-12), (label, name)
                checked += 1
        assert checked >= 3 * 10
    finally:
        ir_rbstar.unregister_run("bad")


def test_max_rel_overrides_the_collection_also_for_given_measures(tmp_path):
    """--max-rel 5 on grades 0..3 is written into the measures of --measures too, even into one that names
    its own scale; a measure with a binary rel= is not graded and stays as written."""
    qrels, runs = _graded()
    qpath, paths = _write_trec(tmp_path, qrels, runs)
    out = tmp_path / "out"
    free = "MED_ERR(ref='bad',judgments=False)@10"       # reads no grade: keeps the scale it states (1)
    measures = f"nDCG@10 RBP(p=0.8) RBP(p=0.5,max_rel=4) RBP(p=0.8,rel=2) {free}"
    assert report_main([qpath, *paths, "--measures", measures, "--max-rel", "5", "-O", str(out),
                        "--no-pictures", "-q"]) == 0
    labels = list(dict.fromkeys(_means(out)["measure"]))
    assert labels == ["nDCG@10", "RBP(p=0.8,max_rel=5)", "RBP(p=0.5,max_rel=5)", "RBP(p=0.8,rel=2)", free]
    got = _means(out).set_index(["run", "measure"])["mean"]
    assert got[("good", "RBP(p=0.8,max_rel=5)")] == pytest.approx(
        _reproduce("RBP(p=0.8,max_rel=5)", qrels, runs["good"]), abs=1e-12)
    # without --max-rel, the measures of --measures get the collection's scale, unless they name their own
    out2 = tmp_path / "out2"
    assert report_main([qpath, *paths, "--measures", measures, "-O", str(out2), "--no-pictures", "-q"]) == 0
    labels = list(dict.fromkeys(_means(out2)["measure"]))
    assert labels == ["nDCG@10", "RBP(p=0.8,max_rel=3)", "RBP(p=0.5,max_rel=4)", "RBP(p=0.8,rel=2)", free]


def test_binary_qrels_keep_their_measures_unchanged(tmp_path):
    """Grades 0/1: the scale is 1, the default, and no label changes (no max_rel written, no scale line)."""
    qrels, runs = _graded(top=1)
    out = tmp_path / "out"
    report.build_report(qrels, runs, out, baseline="bad", pictures=False)
    labels = list(dict.fromkeys(_means(out)["measure"]))
    assert "RBP(p=0.8)" in labels and "MED_nDCG(ref='bad')@10" in labels
    assert not any("max_rel" in label for label in labels)


def test_grade_scale_reads_the_highest_grade_and_dataset_definitions(monkeypatch):
    from ir_rbstar.datasets import grade_scale
    assert grade_scale("no/such/file.txt", 2) == (2, "the highest grade in the qrels")
    monkeypatch.setattr(ir_rbstar.datasets, "_defined_grades", lambda did: [0, 1, 2, 3])
    scale, source = grade_scale("irds:msmarco-passage/trec-dl-2019/judged", 2)
    assert scale == 3 and "msmarco-passage/trec-dl-2019/judged" in source and "qrels_defs" in source
    # the judgments never lie above the scale: a grade above the definitions wins
    assert grade_scale("irds:x/y", 4)[0] == 4


# ---------------------------------------------------------------------------------------------
# 3. notes only where they apply

def test_html_and_markdown_explain_intervals_only_when_the_table_has_them(tmp_path, capsys):
    """`-o html` of the main command shows means without intervals: no "[low, high]" note under it; a table
    with intervals keeps the note."""
    from ir_rbstar.cli import main as cli_main
    from ir_rbstar.report.formats import ResultsTable, to_html, to_latex, to_markdown
    qrels, runs = _graded(top=1)
    qpath, paths = _write_trec(tmp_path, qrels, runs)
    assert cli_main([qpath, paths[0], "nDCG@10 AP", "-o", "html"]) == 0
    page = capsys.readouterr().out
    assert "<table>" in page and "confidence interval" not in page
    plain = ResultsTable.from_frame(pd.DataFrame({"run": ["a", "b"], "measure": ["AP", "AP"], "mean": [0.2, 0.3]}))
    assert "confidence interval" not in to_html(plain) + to_markdown(plain, intervals=True)
    assert "confidence interval" not in to_latex(plain, intervals=True)
    framed = pd.DataFrame({"run": ["a", "b"], "measure": ["AP", "AP"], "mean": [0.2, 0.3], "low": [0.1, 0.2],
                           "high": [0.3, 0.4]})
    both = ResultsTable.from_frame(framed)
    assert "[low, high]: confidence interval." in to_html(both)
    assert "[low, high]: confidence interval." in to_markdown(both, intervals=True)
    assert "confidence interval" not in to_markdown(both)             # intervals not shown: no note


def test_crp_picture_of_a_long_run_uses_a_log_rank_axis_and_marks_the_full_scale_end():
    """A TREC-like query: 1,000 retrieved documents, the 5 relevant ones among the first 12. On a linear axis
    the curves would fill 12 of 1,000 ranks; the picture uses a log rank axis showing every rank, keeps the
    run's and the ideal curves whole in its y range, and marks the full-scale run's end (far above) with its
    value instead of letting a legend name a point the axis does not reach."""
    pytest.importorskip("matplotlib")
    from ir_rbstar.plots import plot_crp
    from ir_rbstar.plots.crp_curves import crp_view
    from ir_rbstar.twist import crp_curve
    relevant = ["d0", "d3", "d5", "d8", "d11"]
    qrels = {"q": {**{d: 2 for d in relevant}, **{f"d{k}": 0 for k in (1, 2, 4)}}}
    run = {"q": {f"d{k}": 1000.0 - k for k in range(1000)}}
    curve = crp_curve(qrels, run, "q")
    view = crp_view(curve)
    assert view["xscale"] == "log" and view["xlim"][0] <= 1 and view["xlim"][1] >= 1000
    low, high = view["ylim"]
    assert low <= curve.crp.min() and high >= curve.crp.max() and low <= 0 <= high
    end_rank, end_crp = view["full_scale_end"]
    assert end_rank == len(curve.full_scale_crp) and end_crp == curve.full_scale_crp[-1] > high
    assert view["end_off_scale"]
    fig = plot_crp(qrels, run, "q", dcg=True)
    ax_crp, ax_dcg = fig.axes[:2]
    assert ax_crp.get_xscale() == "log" and ax_dcg.get_xscale() == "log"
    assert ax_crp.get_ylim() == pytest.approx(view["ylim"])
    labels = ax_crp.get_legend_handles_labels()[1]
    assert any(f"CRP = {int(end_crp):,} at j = {end_rank:,}" in t for t in labels)
    # a short run keeps a linear axis and shows everything
    short = {"q": {f"d{k}": 20.0 - k for k in range(12)}}
    view = crp_view(crp_curve(qrels, short, "q"))
    assert view["xscale"] == "linear" and view["xlim"][1] >= len(crp_curve(qrels, short, "q").full_scale_crp)


# ---------------------------------------------------------------------------------------------
# 2. one story; 3. readable at any number of runs

def _track(n_runs=22, n_queries=45, n_docs=30, seed=11):
    """A TREC-like track in miniature: graded qrels (0..3) and many runs of one baseline kind: 'base' (a weak
    ordering), 'strong*' (near the ideal order: large effects over the baseline), 'weak*' (near the reverse:
    large negative effects) and 'mid*' (the baseline's order lightly shuffled)."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {}
    names = ["base"] + [f"strong{k}" for k in range(4)] + [f"weak{k}" for k in range(3)]
    names += [f"mid{k}" for k in range(n_runs - len(names))]
    for name in names:
        runs[name] = {}
    for q in range(n_queries):
        qid = f"q{q}"
        grades = rng.choice(4, size=n_docs, p=[0.55, 0.2, 0.15, 0.1])
        grades[rng.integers(n_docs)] = 3
        docs = [f"d{q}_{k}" for k in range(n_docs)]
        qrels[qid] = {d: int(g) for d, g in zip(docs, grades, strict=True)}
        base_score = grades + rng.normal(0, 2.0, n_docs)
        for name in names:
            if name == "base":
                score = base_score
            elif name.startswith("strong"):
                score = grades + rng.normal(0, 0.4, n_docs)
            elif name.startswith("weak"):
                score = -grades + rng.normal(0, 0.4, n_docs)
            else:
                score = base_score + rng.normal(0, 0.6, n_docs)
            runs[name][qid] = {d: float(s) for d, s in zip(docs, score, strict=True)}
    return qrels, runs


@pytest.fixture(scope="module")
def track(tmp_path_factory):
    out = tmp_path_factory.mktemp("track")
    qrels, runs = _track()
    table = report.build_report(qrels, runs, out, baseline="base", pictures=False)
    read = dict(sep="\t", keep_default_na=False, na_values=[""])
    return {"dir": out, "table": table, "runs": runs, "text": (out / "report.md").read_text(),
            "sig": pd.read_csv(out / "significance.tsv", dtype={"run": str, "significant": str}, **read).fillna(
                {"significant": ""}),
            "pairs": pd.read_csv(out / "all_pairs.tsv", dtype={"run_a": str, "run_b": str}, **read),
            "robust": pd.read_csv(out / "robust.tsv", dtype={"run": str}, **read)}


def _section(text, title):
    return text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_large_effects_are_significant_in_their_direction_in_every_section(track):
    """Runs near the ideal order beat the baseline, runs near the reverse lose to it, under the ranked
    measures of the first page and the whole ranking, in the baseline table and in all pairs alike."""
    sig, pairs = track["sig"], track["pairs"]
    for measure in ("nDCG@10", "AP", "RBP(p=0.8,max_rel=3)", "nDCG_TA@10"):
        for run in [r for r in track["runs"] if r.startswith(("strong", "weak"))]:
            want = "better" if run.startswith("strong") else "worse"
            row = sig[(sig["run"] == run) & (sig["measure"] == measure)]
            assert row["significant"].item() == want, (run, measure, row["p_holm"].item())
            pair = pairs[(pairs["measure"] == measure) & (((pairs["run_a"] == run) & (pairs["run_b"] == "base"))
                                                          | ((pairs["run_b"] == run) & (pairs["run_a"] == "base")))]
            assert bool(pair["reject"].item())
            diff = pair["difference"].item() * (1 if pair["run_a"].item() == run else -1)
            assert (diff > 0) == (want == "better")


def _verdicts(track):
    """(run, measure) -> {section: 'better' / 'worse' / ''} read straight from the three TSV files."""
    out = {}
    for r in track["sig"].itertuples(index=False):
        out.setdefault((r.run, r.measure), {})["table"] = r.significant
    for r in track["pairs"].itertuples(index=False):
        if "base" not in (r.run_a, r.run_b):
            continue
        run = r.run_b if r.run_a == "base" else r.run_a
        diff = r.difference if r.run_a == run else -r.difference
        up = diff > 0 if r.better == "higher" else diff < 0
        out.setdefault((run, r.measure), {})["pairs"] = ("better" if up else "worse") if bool(r.reject) else ""
    robust = {"A better, robust": "better", "B better, robust": "worse"}
    for r in track["robust"].itertuples(index=False):
        out.setdefault((r.run, r.measure), {})["robust"] = robust.get(r.verdict, "")
    return out


def test_sections_never_contradict_and_every_difference_is_explained(track):
    """No (run, measure) is called better by one section and worse by another; where two sections differ in
    significance, the report's "Do the sections agree?" section names the run, the measure and a reason."""
    verdicts = _verdicts(track)
    agree = _section(track["text"], "Do the sections agree?")
    assert "none contradicts another in direction" in agree
    differing = 0
    for (run, measure), said in verdicts.items():
        directions = {v for v in said.values() if v}
        assert len(directions) <= 1, (run, measure, said)
        if len(set(said.values())) > 1:
            differing += 1
            lines = [line for line in agree.splitlines() if f"`{measure}`" in line and f"{run}" in line]
            assert lines and ("another test" in lines[0] or "bounds" in lines[0]), (run, measure)
    assert differing > 0                    # the case has some, so the check above is not vacuous
    assert "differ in significance only" in agree


def test_families_are_stated_and_every_test_can_reach_alpha(track):
    """The baseline table corrects per measure over the runs compared with the baseline (the family does not
    grow with the number of measures) and says so; the all-pairs section names its family; no warning,
    since every comparison can reach alpha."""
    n = len(track["runs"])
    sig = track["sig"]
    from ir_rbstar.report.stats import holm
    for _, group in sig.groupby("measure"):
        np.testing.assert_allclose(group["p_holm"], holm(group["p"].to_numpy()), rtol=1e-12)
    text = _section(track["text"], "Significance against the baseline")
    assert f"over the {n - 1} runs compared with the baseline, per measure" in text
    assert "Warning" not in text
    assert f"pairs of the {n} runs, per measure" in _section(track["text"], "All pairs of runs")


def test_no_markdown_table_is_wider_than_25_columns_and_runs_are_rows(track):
    text = track["text"]
    widths = [line.count("|") - 1 for line in text.splitlines() if line.startswith("|")]
    assert widths and max(widths) <= 25
    means = _section(text, "Means")
    head = next(line for line in means.splitlines() if line.startswith("|"))
    assert head.startswith("| run | queries with a ranking | `nDCG@10`")          # runs as rows
    assert sum(line.startswith("| mid") for line in means.splitlines()) == len(track["runs"]) - 8


def test_intervals_of_unit_range_measures_stay_in_it(track):
    """report.md's intervals (and results.json's) of [0, 1] measures lie in [0, 1] and hold the mean."""
    import json
    cells = re.findall(r"(-?\d\.\d{4}) \[(-?\d\.\d{4}), (-?\d\.\d{4})\]", _section(track["text"], "Means"))
    assert len(cells) > 100
    for mean, low, high in cells:
        assert 0.0 <= float(low) <= float(mean) <= float(high) <= 1.0
    doc = json.loads((track["dir"] / "results.json").read_text())
    for cell in doc["cells"]:
        if cell["low"] is not None:
            assert 0.0 <= cell["low"] <= cell["mean"] + 1e-12 and cell["mean"] <= cell["high"] + 1e-12 <= 1.0 + 1e-12


def test_every_value_lies_in_its_measures_declared_range(track):
    """catalogue.value_range is the one place the report takes a measure's range from: every default measure
    has one, and every per-query value of the track lies in it (a range too narrow would be caught here)."""
    from ir_rbstar.report.catalogue import _parse_columns, default_measures, value_range
    columns = _parse_columns(default_measures("ref", "base", "others", 3), "base", 3)
    for c in columns:
        low, high = value_range(c.measure, c.complement)
        assert (low, high) == (0.0, 1.0), c.label
    for label in track["table"].columns:
        (column,) = _parse_columns(label, "base")
        low, high = value_range(column.measure, column.complement)
        values = track["table"][label].dropna().to_numpy()
        assert low - 1e-12 <= values.min() and values.max() <= high + 1e-12, label      # up to rounding


def test_a_table_wider_than_25_columns_is_cut_into_parts_repeating_its_first_column():
    from ir_rbstar.report.mdtable import MAX_COLUMNS, _table
    head = ["run"] + [f"m{k}" for k in range(60)]
    rows = [[f"r{i}"] + [str(i * 100 + k) for k in range(60)] for i in range(3)]
    text = _table(head, rows)
    parts = text.split("\n\n")
    assert MAX_COLUMNS == 25 and len(parts) == 3                     # 60 columns: 24 + 24 + 12
    seen = []
    for part in parts:
        lines = part.splitlines()
        cells = [line.strip("|").split(" | ") for line in lines if not line.startswith("|-")]
        assert all(len(c) <= MAX_COLUMNS for c in cells)
        assert cells[0][0].strip() == "run" and [c[0].strip() for c in cells[1:]] == ["r0", "r1", "r2"]
        seen += [c.strip() for c in cells[0][1:]]
    assert seen == head[1:]


def test_a_test_that_cannot_reach_alpha_is_announced(tmp_path):
    """20 random sign flips: the smallest p is 1/21, and x the family of 2 runs it exceeds 0.05, so no run can
    be significant against the baseline whatever its data; report.md says so in a plain warning."""
    qrels, runs = _graded(top=1)
    report.build_report(qrels, runs, tmp_path, baseline="bad", measures="nDCG@10 AP", permutations=20,
                        pictures=False)
    text = _section((tmp_path / "report.md").read_text(), "Significance against the baseline")
    assert "**Warning:** 4 of the 4 comparisons cannot be significant at \u03b1 = 0.05" in text
    assert "smallest p the test can give is 0.048" in text


def test_many_runs_show_each_runs_nearest_run_instead_of_the_matrix(track):
    """22 runs: report.md lists each run's nearest run by the distance matrix of the TSV file (the smallest
    distance to another run) instead of a 23-column matrix."""
    text = _section(track["text"], "Distances between the runs")
    matrix = pd.read_csv(track["dir"] / "distance_rbo.tsv", sep="\t", index_col=0)
    matrix.index = matrix.index.astype(str)
    rows = [line.strip("|").split(" | ") for line in text.split("1 - RBO", 1)[1].splitlines()
            if line.startswith("| ") and not line.startswith("| run |")]
    assert len(rows) == len(track["runs"])
    for run, nearest, distance, mean in (tuple(c.strip() for c in r) for r in rows):
        others = matrix.loc[run].drop(run)
        assert float(distance) == pytest.approx(others.min(), abs=5e-5)
        assert others[nearest] == pytest.approx(others.min(), abs=1e-12)
        assert float(mean) == pytest.approx(others.mean(), abs=5e-5)


def test_value_ranges_come_from_the_declarations():
    """This package's measures declare their range (RbstarMeasure.RANGE / value_range()); the report's
    value_range reads it, and ir_measures' ratios are [0, 1]."""
    from ir_rbstar.parsing import parse_measure
    from ir_rbstar.report.catalogue import value_range
    assert value_range(parse_measure("UniqueRel(prior='g')@5")) == (0.0, None)
    assert value_range(parse_measure("RarP(runs='g',alpha=0.5)@5")) == (0.0, 1.5)
    assert value_range(parse_measure("NRG(prior='g')@10")) == (0.0, 1.0)
    assert value_range(parse_measure("NRG(prior='g',base='RBP',p=0.8,norm=False)@10")) == (0.0, None)
    assert value_range(parse_measure("AP@10")) == (0.0, 1.0) and value_range(parse_measure("NumRet")) == (0.0, None)
    assert value_range(parse_measure("1-RBO(p=0.9)".split("-", 1)[1]), complement=True) == (0.0, 1.0)
    for m in ir_rbstar.MEASURES:
        low, high = m.value_range()
        assert low == 0.0 and (high is None or high >= 1.0), m.NAME
