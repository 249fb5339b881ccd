"""benchmarks/run_all.py: the table of ratios built from the benchmarks' JSON summaries, and the blocks it
writes into docs/benchmarks.md and README.md. The results here are fabricated (no timing is run), except
in the end-to-end test, which runs every benchmark on a tiny input and checks only the structure of what
comes out, never a time."""
import importlib
import json
import math
import re
import subprocess
import sys

import pytest

from tests.helpers import REPO, names_command

BENCH = REPO / "benchmarks"
ra = importlib.import_module("benchmarks.run_all")
h = ra.h                                  # the _harness module run_all imported

# versions no real install has, so that a match can only come from the recorded metadata
VERSIONS = {"ir_measures": "9.1.1", "pytrec_eval-terrier": "8.2.2", "rbo": "7.3.3", "cwl-eval": "6.4.4",
            "scikit-learn": "5.5.5", "numpy": "4.6.6", "pandas": "3.7.7", "ir_rbstar": "2.8.8"}


def _rows_of(table: str):
    """The body rows of a Markdown table as lists of cells (a '|' escaped as '\\|' stays in its cell)."""
    lines = [ln for ln in table.splitlines() if ln.startswith("|")]
    return [[c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in lines[2:]]


def _fabricate(tmp_path):
    """A results directory as run_all leaves it: rankbiased, ties and med ran, twist failed, nrg was not
    selected (an old nrg.json from another run lies there too)."""
    d = tmp_path / "results"
    d.mkdir()
    rank = [h.summary_row("rank-biased (bench_rankbiased.py)", "a. RBP + RBP_res from the TREC files", "synthetic",
                          "4.64 s", "ir_measures.pytrec_eval, nDCG@10", "10.41 s", 4.64 / 10.41, "<= 1.00", True,
                          peer_dists=["pytrec_eval-terrier", "ir_measures"]),
            h.summary_row("rank-biased (bench_rankbiased.py)", "a2. RBP alone", "synthetic", "4.1 s",
                          "ir_measures.cwl_eval, RBP", "3.0 s", 4.1 / 3.0, "info", peer_dists=["cwl-eval", "ir_measures"]),
            h.summary_row("rank-biased (bench_rankbiased.py)", "b. RBO family", "synthetic", "4.29 s", "PyPI rbo",
                          "3.37 s", 4.29 / 3.37, "<= 0.30", False, peer_dists=["rbo"]),
            h.summary_row("rank-biased (bench_rankbiased.py)", "c. RBR", "synthetic", "8.34 s", "rbstar (quoted)",
                          "104 s", None, "< 5 s", False, peer_version="quoted figure, not measured")]
    ties = [h.summary_row("tie-aware (bench_ties.py)", "nDCG_TA@10 alone", "synthetic", "5.0 s",
                          "scikit-learn ndcg_score", "12.5 s", 0.4, "info", peer_dists=["scikit-learn", "pandas"])]
    med = [h.summary_row("MED (bench_med.py)", "MED_nDCG@20 + MED_RBP + MED_ERR@30", "synthetic", "13.06 s",
                         "the authors' C program med", target="<= 1.00", ratio=0.9, met=True,
                         peer_absent="not given (--med-c PATH)")]
    for name, rows in (("rankbiased", rank), ("ties", ties), ("med", med), ("nrg", rank[:1])):
        (d / f"{name}.json").write_text(json.dumps({"package": "committed HEAD of X: git abc1234 subject",
                                                    "load_start": "load average 0.10 0.20 0.30",
                                                    "load_end": "load average 1.10 1.20 1.30",
                                                    "summary": rows, "results": {}}))
    (d / "twist.err").write_text("generating ...\nTraceback (most recent call last):\nRuntimeError: worker boom\n")
    run = {"exit": 0, "seconds": 12.0, "load_start": "load average 0.5 0.5 0.5", "load_end": "load average 1 1 1"}
    meta = {"started": "2026-11-22T10:11:12", "argv": ["--quick", "--json-dir", str(d), "--write"],
            "mode": "quick", "commit": "abc1234 a subject", "uncommitted": False, "package_state": "committed HEAD",
            "machine": {"cpu": "Test CPU 3000", "cores": 2, "ram": "23.5 GiB", "os": "Linux 6.1", "python": "3.11.7"},
            "versions": VERSIONS, "load_start": "load average 0.42 0.40 0.38", "load_end": "load average 1.5 1.2 1.0",
            "selected": ["rankbiased", "ties", "twist", "med"],
            "benches": {"rankbiased": run, "ties": run, "med": run, "twist": {**run, "exit": 1, "seconds": 3.0}}}
    (d / ra.META).write_text(json.dumps(meta))
    return d, meta, {"rankbiased": rank, "ties": ties, "med": med}


def test_table_names_every_peer_with_its_version(tmp_path):
    d, meta, rows = _fabricate(tmp_path)
    entries = ra.collect(meta, d)
    assert [e["status"] for e in entries] == ["ok", "ok", "failed", "not run", "ok", "not run", "not run"]
    body = _rows_of(ra.table(entries, meta["versions"]))
    # one line per summary row, one per bench that failed or did not run, in the order of BENCHES
    assert len(body) == len(rows["rankbiased"]) + len(rows["ties"]) + 1 + 1 + len(rows["med"]) + 1 + 1
    got = {r[1]: r for r in body}
    for summary in rows["rankbiased"] + rows["ties"]:
        cells = got[summary["task"] + (f" ({summary['note']})" if summary["note"] else "")]
        peer = cells[4]
        assert peer.startswith(summary["peer"])
        for dist in summary["peer_dists"]:
            assert f"{dist} {VERSIONS[dist]}" in peer          # the version recorded when the run started
        if summary["peer_version"]:
            assert summary["peer_version"] in peer
        # every ratio printed, with 2 decimals, next to a named, versioned peer
        want = "-" if summary["ratio"] is None else f"{summary['ratio']:.2f}"
        assert cells[6] == want
        assert cells[3] == summary["ours"] and cells[5] == summary["other"] and cells[7] == summary["target"]
    assert got["a. RBP + RBP_res from the TREC files"][6] == "0.45"        # 4.64 / 10.41
    assert got["a. RBP + RBP_res from the TREC files"][8] == "yes"
    assert got["b. RBO family"][8] == "**no**"
    assert got["a2. RBP alone"][8] == ""                                   # information row: no verdict
    # the family is named on its first row only
    assert [r[0] for r in body[:4]] == ["rank-biased (bench_rankbiased.py)", "", "", ""]


def test_absent_peer_is_shown_as_absent(tmp_path):
    d, meta, rows = _fabricate(tmp_path)
    med = rows["med"][0]
    assert med["ratio"] is None and med["met"] is None        # summary_row drops what was passed with it
    cells = {r[1]: r for r in _rows_of(ra.table(ra.collect(meta, d), meta["versions"]))}[med["task"]]
    assert "**absent**" in cells[4] and "not given (--med-c PATH)" in cells[4]
    assert cells[5] == "-" and cells[6] == "-" and cells[8] == "n/a (peer absent)"
    assert cells[3] == "13.06 s"                              # ours is still reported


def test_failed_and_skipped_benches_are_reported_not_dropped(tmp_path):
    d, meta, _ = _fabricate(tmp_path)
    body = _rows_of(ra.table(ra.collect(meta, d), meta["versions"]))
    twist = [r for r in body if r[0] == "Twist (bench_twist.py)"]
    assert len(twist) == 1 and twist[0][8] == "FAILED"
    assert "**FAILED**" in twist[0][1] and "exit status 1" in twist[0][1] and "RuntimeError: worker boom" in twist[0][1]
    nrg = [r for r in body if r[0] == "NRG (bench_nrg.py)"]       # the stale nrg.json is not taken for this run
    assert len(nrg) == 1 and nrg[0][1] == "not run in this call"
    runs = _rows_of(ra.runs_table(ra.collect(meta, d)))
    assert [r[1].split(" (")[0] for r in runs] == ["ok", "ok", "failed", "not run", "ok", "not run", "not run"]


@pytest.mark.parametrize("damage", ["no json", "no summary", "bad json", "timeout"])
def test_a_bench_without_usable_results_counts_as_failed(tmp_path, damage):
    d, meta, _ = _fabricate(tmp_path)
    path = d / "ties.json"
    if damage == "no json":
        path.unlink()
    elif damage == "no summary":
        path.write_text(json.dumps({"summary": [], "results": {}}))
    elif damage == "bad json":
        path.write_text("{not json")
    else:
        meta["benches"]["ties"] = {"exit": None, "error": "timed out after 5 s", "seconds": 5.0}
    entry = [e for e in ra.collect(meta, d) if e["name"] == "ties"][0]
    assert entry["status"] == "failed" and entry["error"]
    cells = [r for r in _rows_of(ra.table([entry], VERSIONS))][0]
    assert cells[8] == "FAILED"


def test_header_states_machine_date_commit_mode_and_load(tmp_path):
    d, meta, _ = _fabricate(tmp_path)
    block = ra.docs_block(meta, ra.collect(meta, d))
    head = block.split("\n\n")[0]
    for part in ("2026-11-22 10:11", "Test CPU 3000", "2 cores", "23.5 GiB", "Linux 6.1", "Python 3.11.7",
                 "commit abc1234 a subject", "mode: quick", "0.42 0.40 0.38", "1.5 1.2 1.0",
                 "`python -m benchmarks.run_all --quick`"):
        assert part in head, part
    assert str(d) not in head                                 # where the results went is not part of the command
    assert "different states" not in head
    doc = json.loads((d / "ties.json").read_text())
    doc["package"] = "committed HEAD of X: git def5678 later"          # a commit made during the run
    (d / "ties.json").write_text(json.dumps(doc))
    assert "measured 2 different states" in ra.docs_block(meta, ra.collect(meta, d)).split("\n\n")[0]
    short = ra.readme_block(meta, ra.collect(meta, d))
    first, rest = short.split("\n\n", 1)
    assert "2026-11-22 10:11" in first and "Test CPU 3000" in first and "abc1234" in first
    assert rest == ra.table(ra.collect(meta, d), VERSIONS)


def _docs(path, start, end, inside="old block"):
    path.write_text(f"# Title\n\nintro\n\n{start}\n{inside}\n{end}\n\ntail text\n")
    return path


def test_write_blocks_replaces_each_block_exactly_once(tmp_path):
    d, meta, _ = _fabricate(tmp_path)
    entries = ra.collect(meta, d)
    docs = _docs(tmp_path / "benchmarks.md", ra.DOCS_START, ra.DOCS_END)
    readme = _docs(tmp_path / "README.md", ra.README_START, ra.README_END)
    written = ra.write_blocks(meta, entries, docs, readme)
    assert written == [docs, readme]
    for path, start, end, block in ((docs, ra.DOCS_START, ra.DOCS_END, ra.docs_block(meta, entries)),
                                    (readme, ra.README_START, ra.README_END, ra.readme_block(meta, entries))):
        text = path.read_text()
        assert text.count(start) == 1 and text.count(end) == 1
        assert "old block" not in text
        assert text.startswith("# Title\n\nintro\n\n" + start + "\n") and text.endswith(end + "\n\ntail text\n")
        assert text.split(start)[1].split(end)[0].strip() == block
        assert text.count("| benchmark | task |") == 1
    first = docs.read_text(), readme.read_text()
    ra.write_blocks(meta, entries, docs, readme)                # again: the same files, nothing duplicated
    assert (docs.read_text(), readme.read_text()) == first


def test_write_blocks_checks_both_files_before_writing(tmp_path):
    d, meta, _ = _fabricate(tmp_path)
    docs = _docs(tmp_path / "benchmarks.md", ra.DOCS_START, ra.DOCS_END)
    readme = tmp_path / "README.md"
    readme.write_text("# README without markers\n")
    before = docs.read_text()
    with pytest.raises(SystemExit, match="benchmarks-readme:start"):
        ra.write_blocks(meta, ra.collect(meta, d), docs, readme)
    assert docs.read_text() == before                        # nothing written
    doubled = _docs(tmp_path / "twice.md", ra.DOCS_START, ra.DOCS_END, inside=ra.DOCS_START)
    with pytest.raises(SystemExit):
        ra.write_blocks(meta, ra.collect(meta, d), doubled, None)


def test_main_from_json_writes_and_reports_failure(tmp_path, capsys):
    d, meta, _ = _fabricate(tmp_path)
    docs = _docs(tmp_path / "benchmarks.md", ra.DOCS_START, ra.DOCS_END)
    readme = _docs(tmp_path / "README.md", ra.README_START, ra.README_END)
    rc = ra.main(["--from-json", str(d), "--write", "--docs", str(docs), "--readme", str(readme)])
    assert rc == 1                                           # twist failed
    out = capsys.readouterr().out
    assert "Test CPU 3000" in out and "**FAILED**" in out
    assert "RuntimeError: worker boom" in docs.read_text() and "RuntimeError: worker boom" in readme.read_text()
    readme.write_text("untouched\n")
    assert ra.main(["--from-json", str(d), "--write", "--docs", str(docs), "--readme", "none"]) == 1
    assert readme.read_text() == "untouched\n"


def test_command_line_helpers():
    assert ra.select(None) == list(ra.BENCHES)
    assert ra.select("med, bench_ties.py") == ["ties", "med"]            # the order of BENCHES
    with pytest.raises(SystemExit, match="unknown benchmark"):
        ra.select("ties,bogus")
    assert ra.parse_extra(["rankbiased=--rbo-budget 30", "ties=--no-api"]) == {
        "rankbiased": ["--rbo-budget", "30"], "ties": ["--no-api"]}
    with pytest.raises(SystemExit):
        ra.parse_extra(["--rbo-budget 30"])
    assert ra.shown_command(["--quick", "--json-dir", "/x", "--docs=/y", "--write", "--only", "ties"]) == \
        "python -m benchmarks.run_all --quick --only ties"
    args = ra.parser().parse_args(["--quick", "--queries", "50", "--med-c", "/c/med", "--no-phases",
                                   "--data-root", "/data", "--extra", "med=--no-ap"])
    cmd = ra.bench_command("med", args, ra.Path("/r/med.json"), ra.parse_extra(args.extra))
    assert cmd[1:] == [str(BENCH / "bench_med.py"), "--json", "/r/med.json", "--quick", "--queries", "50",
                       "--data", "/data/q50_d1000", "--no-phases", "--med-c", "/c/med", "--no-ap"]
    cmd = ra.bench_command("rankbiased", args, ra.Path("/r/x.json"), {})
    assert "--no-phases" not in cmd and "--med-c" not in cmd              # options it does not have


def test_summary_row_without_peer_has_no_verdict():
    row = h.summary_row("f", "t", "d", "1 s", "p", "2 s", 0.5, "<= 1", True, peer_absent="not installed")
    assert row["ratio"] is None and row["met"] is None and row["other"] == "2 s"
    row = h.summary_row("f", "t", "d", "1 s", "p", "2 s", 0.5, "<= 1", True, peer_dists=["rbo"])
    assert row["ratio"] == 0.5 and row["met"] is True and row["peer_dists"] == ["rbo"]


def test_docs_page_structure():
    text = (REPO / "docs" / "benchmarks.md").read_text()
    assert text.count(ra.DOCS_START) == 1 and text.count(ra.DOCS_END) == 1
    assert text.index(ra.DOCS_START) < text.index(ra.DOCS_END)
    assert names_command(text, "benchmarks.run_all")
    assert "](../benchmarks/README.md)" in text
    assert "```python" not in text and "```console" not in text   # nothing here is run by the doc tests


def test_end_to_end_tiny_run_structure_only(tmp_path, monkeypatch, capsys):
    """Every benchmark on 10 synthetic queries of 100 documents, one round each, in this process (the
    harness's in-process mode: no subprocess per script or per measurement; about 8 s of CPU). Checks the
    structure of the JSON files and the written blocks (which no size changes); no time is asserted."""
    out = tmp_path / "out"
    docs = _docs(tmp_path / "benchmarks.md", ra.DOCS_START, ra.DOCS_END)
    readme = _docs(tmp_path / "README.md", ra.README_START, ra.README_END)
    monkeypatch.setenv(h.IN_PROCESS_ENV, "1")
    monkeypatch.chdir(REPO)
    rc = ra.main(["--quick", "--queries", "10", "--depth", "100", "--repeat", "1", "--no-phases",
                  "--json-dir", str(out), "--write", "--docs", str(docs), "--readme", str(readme)])
    assert rc == 0, capsys.readouterr().err[-3000:] + "".join(
        f"\n{p.name}: {p.read_text()[-1500:]}" for p in out.glob("*.err"))
    meta = json.loads((out / ra.META).read_text())
    assert set(meta["benches"]) == set(ra.BENCHES)
    assert meta["mode"].startswith("quick") and meta["machine"]["cores"] >= 1
    assert all(meta["versions"][d] for d in ra.DISTS)
    keys = {"family", "task", "data", "ours", "peer", "other", "ratio", "target", "met", "peer_dists",
            "peer_version", "peer_absent", "note"}
    for name in ra.BENCHES:
        doc = json.loads((out / f"{name}.json").read_text())
        assert doc["summary"], name
        for row in doc["summary"]:
            assert set(row) == keys
            assert row["peer"] and (row["peer_dists"] or row["peer_version"] or row["peer_absent"]), row
            if name == "native" and row["task"] == "pt":
                # the package's share of pt.Experiment, (ours - peer) / ours: below 0 when timing noise (one
                # round, a loaded machine) makes the four-measure experiment faster than nDCG@10 alone
                assert row["ratio"] is None or math.isfinite(row["ratio"]) and row["ratio"] < 1, row
            else:
                assert row["ratio"] is None or row["ratio"] > 0, row
        assert (out / f"{name}.out").stat().st_size > 0          # the bench's own report is kept
    med = json.loads((out / "med.json").read_text())["summary"][0]
    assert med["peer_absent"] and med["ratio"] is None           # no --med-c: the C program is absent
    body = _rows_of(docs.read_text().split(ra.DOCS_START)[1].split(ra.DOCS_END)[0].split("\n\n")[1])
    families = [r[0] for r in body if r[0]]
    assert families == [ra.BENCHES[n][1] for n in ra.BENCHES]
    assert all(r[8] != "FAILED" for r in body)
    assert readme.read_text().count("| benchmark | task |") == 1
