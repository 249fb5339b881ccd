"""The explorer page for a whole track: the 37 TREC 2019 Deep Learning passage runs (NIST's, read from
../shared/data, never copied into the repository), 43 judged queries, depth 100, every pair of runs.
Opened in headless Chromium: its size and the time until it is ready are printed (reported, not
asserted), its values are checked against ir_measures.iter_calc and the console must stay free of errors.
The runs are read by ``scripts._docblock.read_ranking`` (ir_rbstar's reader), once per session for this
page and the real-data studies (``dl19_runs_read_once``), and given to ``explore`` by file name; the
reading of run files by ``explore`` itself is tested in test_browser.py and test_data.py.
Skipped when the data, selenium, chromium or chromedriver is absent. ``IR_RBSTAR_SHARED_DATA`` may name
the data folder when the repository is not next to ../shared (e.g. in a git worktree)."""
import os
import time
from pathlib import Path

import pytest

import ir_rbstar
from ir_rbstar.explore import explore
from ir_rbstar.plots import run_names
from tests.explore import expected
from tests.explore.browser import chrome, console_errors
from tests.explore.test_browser import TABLE, open_page
from tests.helpers import SHARED_DATA, load_script

TOL = 1e-9


def _dl19() -> Path:
    base = Path(os.environ.get("IR_RBSTAR_SHARED_DATA", SHARED_DATA)) / "dl19-passage"
    if not (base / "runs").is_dir():
        pytest.skip(f"shared data not available: {base}")
    return base


def test_dl19_page_opens_and_shows_iter_calcs_values(tmp_path, capsys, dl19_runs_read_once):
    base = _dl19()
    driver = chrome()                     # skips before the page is built when there is no browser
    try:
        runs = sorted((base / "runs").glob("*.gz"))
        assert len(runs) == 37
        path = tmp_path / "dl19.html"
        read = load_script("_docblock").read_ranking
        named = {name: read(p) for name, p in run_names([str(p) for p in runs]).items()}
        start = time.perf_counter()
        data = explore(str(base / "qrels.dl19-passage.txt"), named, path,
                       queries=str(base / "topics.dl19-passage.tsv"))
        build = time.perf_counter() - start
        assert len(data["queries"]) == 43 and data["measures"][0] == "nDCG@10"
        start = time.perf_counter()
        open_page(driver, path)
        seconds = time.perf_counter() - start
        rows = driver.execute_script(TABLE)
        assert len(rows) == 43
        qrels = expected.read_qrels(base / "qrels.dl19-passage.txt")
        for col, run in (("a", runs[0]), ("b", runs[1])):
            want = expected.per_query("nDCG@10", qrels, ir_rbstar.read_run(str(run)))
            for row in rows:
                assert abs(float(row[col]["value"]) - want[row["q"]]) < TOL
        qid = rows[0]["q"]
        open_page(driver, path, f"#q={qid}")
        assert driver.find_element("id", "qtitle").get_attribute("data-q") == qid
        assert len(driver.find_elements("css selector", "#qvalues tbody tr")) == 37
        assert console_errors(driver) == []
        with capsys.disabled():
            print(f"\nexplorer page, DL19 passage 37 runs x 43 queries, depth 100: {path.stat().st_size / 1e6:.2f} MB, "
                  f"built in {build:.1f} s (runs read beforehand), open in headless Chromium {seconds:.2f} s")
    finally:
        driver.quit()
