"""The explorer page in a real browser (headless Chromium, see tests/explore/browser.py): opened from disk,
a column sorted, the table filtered, a query opened by a click, by the keyboard and by a fragment link; the
numbers in the DOM (full precision in data-* attributes) equal ir_measures.iter_calc's per-query values to
1e-9, and the console shows no error. Skipped without selenium, chromium or chromedriver."""
import time

import numpy as np
import pytest

import ir_rbstar
from ir_rbstar.explore import explore
from ir_rbstar.parsing import parse_measure
from ir_rbstar.report.catalogue import value_range
from ir_rbstar.stats import mean_intervals
from tests.explore import expected
from tests.explore.browser import chrome, console_errors
from tests.helpers import VASWANI

# bm25_round1 has many tied scores: tie ranges that are not points
RUNS = {"bm25_round1": VASWANI / "bm25_round1.run.gz", "minilm": VASWANI / "minilm_rerank.run.gz",
        "bm25": VASWANI / "bm25.run.gz"}
DEPTH = 30
TOL = 1e-9


@pytest.fixture(scope="module")
def driver():
    d = chrome()
    yield d
    d.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("explore") / "vaswani.html"
    data = explore(str(VASWANI / "qrels"), {k: str(v) for k, v in RUNS.items()}, path, depth=DEPTH,
                   docs=str(VASWANI / "doc-text.trec.gz"), queries=str(VASWANI / "queries.tsv"))
    return path, data


@pytest.fixture(scope="module")
def truth():
    """run -> measure -> query -> value, and the MED/RBO of A against B, by ir_measures.iter_calc."""
    qrels = expected.read_qrels(VASWANI / "qrels")
    runs = {k: ir_rbstar.read_run(str(v)) for k, v in RUNS.items()}
    labels = ["nDCG@10", "nDCG_TA(stat='min')@10", "nDCG_TA(stat='max')@10", "RBP(p=0.8)", "RBP_res(p=0.8)"]
    values = {name: {m: expected.per_query(m, qrels, run) for m in labels} for name, run in runs.items()}
    pairs = {m: expected.per_query(m, qrels, runs["bm25_round1"], refs={"other": runs["minilm"]})
             for m in ("MED_nDCG(ref='other')@10", "RBO(p=0.9,ref='other')")}
    return values, pairs


def open_page(driver, path, fragment=""):
    """Load the page afresh (not as a fragment change of the page already open) and wait until it is ready."""
    driver.get("about:blank")
    driver.get(path.as_uri() + fragment)
    for _ in range(100):
        if driver.execute_script("return document.body.getAttribute('data-ready')") == "true":
            return
        time.sleep(0.05)
    raise AssertionError("the page did not become ready")


def until(driver, condition, what):
    """Wait (up to 5 s) for ``condition(driver)``: a click or a key changes the fragment, and the page
    follows on the browser's hashchange event."""
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, 5, poll_frequency=0.02).until(condition, message=what)


def shows_query(driver, qid):
    until(driver, lambda d: d.find_element("id", "qtitle").get_attribute("data-q") == qid
          and d.find_element("id", "query").get_attribute("hidden") is None, f"query {qid} shown")
    return True


def cells(driver, col):
    return [(row["q"], row[col]["value"]) for row in driver.execute_script(TABLE)]


def test_opens_from_disk_without_console_errors(driver, page, capsys):
    path, data = page
    start = time.perf_counter()
    open_page(driver, path)
    seconds = time.perf_counter() - start
    assert console_errors(driver) == []
    assert driver.find_element("id", "title").text == "ir_rbstar explorer"
    assert len(driver.find_elements("css selector", "#queries tbody tr")) == 93
    with capsys.disabled():
        print(f"\nexplorer page, Vaswani 3 runs x 93 queries, depth {DEPTH}: {path.stat().st_size / 1e6:.2f} MB, "
              f"open {seconds:.2f} s")


TABLE = """return Array.from(document.querySelectorAll('#queries tbody tr')).map(function (tr) {
  var row = {q: tr.getAttribute('data-q')};
  tr.querySelectorAll('td').forEach(function (td) {
    row[td.getAttribute('data-col')] = {value: td.getAttribute('data-value'), low: td.getAttribute('data-low'),
                                        high: td.getAttribute('data-high'), text: td.textContent};
  });
  return row;
});"""


MEANS = """return Array.from(document.querySelectorAll('#means tbody tr')).flatMap(function (tr) {
  return Array.from(tr.querySelectorAll('td[data-measure]')).map(function (td) {
    return [tr.getAttribute('data-run'), td.getAttribute('data-measure'), td.getAttribute('data-mean'),
            td.getAttribute('data-low'), td.getAttribute('data-high')];
  });
});"""


def test_overview_values_equal_iter_calc(driver, page, truth):
    path, _ = page
    values, pairs = truth
    open_page(driver, path)
    rows = driver.execute_script(TABLE)             # one call: the attributes of every cell
    assert len(rows) == 93
    A, B = values["bm25_round1"], values["minilm"]
    for got in rows:
        q = got["q"]
        a, b = A["nDCG@10"][q], B["nDCG@10"][q]
        assert abs(float(got["a"]["value"]) - a) < TOL
        assert abs(float(got["b"]["value"]) - b) < TOL
        assert abs(float(got["diff"]["value"]) - (a - b)) < TOL
        assert got["a"]["text"] == f"{a:.4f}"
        assert abs(float(got["med"]["value"]) - pairs["MED_nDCG(ref='other')@10"][q]) < TOL
        assert abs(float(got["rbo"]["value"]) - pairs["RBO(p=0.9,ref='other')"][q]) < TOL
        assert abs(float(got["resA"]["value"]) - A["RBP_res(p=0.8)"][q]) < TOL
        assert abs(float(got["resB"]["value"]) - B["RBP_res(p=0.8)"][q]) < TOL
        assert abs(float(got["tieA"]["low"]) - A["nDCG_TA(stat='min')@10"][q]) < TOL
        assert abs(float(got["tieA"]["high"]) - A["nDCG_TA(stat='max')@10"][q]) < TOL
        assert abs(float(got["tieB"]["high"]) - B["nDCG_TA(stat='max')@10"][q]) < TOL
    # the means and their intervals
    means = driver.execute_script(MEANS)
    assert len(means) == 3 * len(values["bm25"])
    for run, label, *shown in means:
        v = np.array(list(values[run][label].values()))
        # the report's interval (BCa within the measure's range)
        ci = mean_intervals(v, bounds=value_range(parse_measure(label)), level=0.95).iloc[0]
        got = [float(x) for x in shown]
        assert np.allclose(got, [ci["mean"], ci["low"], ci["high"]], rtol=0, atol=TOL)
    assert console_errors(driver) == []


def test_sort_by_a_column(driver, page):
    path, _ = page
    open_page(driver, path)
    header = driver.find_element("css selector", '#queries th[data-col="diff"]')
    header.click()                                           # numeric columns sort descending first
    diffs = [float(v) for _, v in cells(driver, "diff")]
    assert diffs == sorted(diffs, reverse=True) and diffs[0] > diffs[-1]
    driver.find_element("css selector", '#queries th[data-col="diff"]').click()
    diffs = [float(v) for _, v in cells(driver, "diff")]
    assert diffs == sorted(diffs)
    driver.find_element("css selector", '#queries th[data-col="query"]').click()
    assert [q for q, _ in cells(driver, "a")][:3] == ["1", "2", "3"]
    assert console_errors(driver) == []


def test_filter_queries_whose_sign_can_flip(driver, page, truth):
    from selenium.webdriver.support.ui import Select
    path, _ = page
    values, _ = truth
    A, B = values["bm25_round1"], values["minilm"]
    tmin, tmax = "nDCG_TA(stat='min')@10", "nDCG_TA(stat='max')@10"
    flip_tie = {q for q in A[tmin] if A[tmin][q] - B[tmax][q] < 0 < A[tmax][q] - B[tmin][q]}
    assert flip_tie                                         # the rounded scores' ties make some
    open_page(driver, path)
    Select(driver.find_element("id", "filter")).select_by_value("flip-tie")
    shown = {q for q, _ in cells(driver, "a")}
    assert shown == flip_tie
    Select(driver.find_element("id", "filter")).select_by_value("b-better")
    shown = {q for q, _ in cells(driver, "a")}
    assert shown == {q for q in A["nDCG@10"] if A["nDCG@10"][q] < B["nDCG@10"][q]}
    driver.find_element("id", "search").send_keys("MICROWAVE")
    assert all("MICROWAVE" in tr.text for tr in driver.find_elements("css selector", "#queries tbody tr"))
    assert console_errors(driver) == []


def test_open_a_query_by_click_and_keyboard(driver, page):
    path, _ = page
    open_page(driver, path)
    driver.find_element("css selector", '#queries tbody tr[data-q="5"]').click()
    assert shows_query(driver, "5")
    assert driver.execute_script("return location.hash") == "#q=5"
    assert driver.find_element("id", "overview").get_attribute("hidden") is not None
    body = driver.find_element("tag name", "body")
    from selenium.webdriver.common.keys import Keys
    for key, qid in (("j", "6"), ("k", "5"), ("k", "4"), (Keys.ARROW_RIGHT, "5"), (Keys.ARROW_LEFT, "4")):
        body.send_keys(key)
        assert shows_query(driver, qid)
    body.send_keys(Keys.ESCAPE)
    until(driver, lambda d: d.find_element("id", "query").get_attribute("hidden") is not None, "overview shown")
    assert driver.find_element("id", "overview").get_attribute("hidden") is None
    assert console_errors(driver) == []


def attributes(driver, selector, names):
    """The attributes ``names`` of every element matching ``selector``, in one call to the browser."""
    return driver.execute_script(
        "var names = arguments[1]; return Array.from(document.querySelectorAll(arguments[0])).map("
        "function (e) { return names.map(function (n) { return e.getAttribute(n); }); });", selector, names)


QVALUES = """return Array.from(document.querySelectorAll('#qvalues tbody tr')).flatMap(function (tr) {
  return Array.from(tr.querySelectorAll('td[data-measure]')).map(function (td) {
    return [tr.getAttribute('data-run'), td.getAttribute('data-measure'), td.getAttribute('data-value')];
  });
});"""

MOVES = """return Array.from(document.querySelectorAll('#side-b .doc')).map(function (d) {
  return [d.getAttribute('data-doc'), d.getAttribute('data-rank'), d.querySelector('.move').getAttribute('data-move')];
});"""


def test_fragment_link_opens_the_query(driver, page, truth):
    path, data = page
    values, pairs = truth
    qid = "11"
    open_page(driver, path, f"#q={qid}")
    assert shows_query(driver, qid)
    assert "THE EFFECT OF OXIDATION" in driver.find_element("id", "qtext").text
    # every measure of every run on this query (the attributes of all cells read in one call)
    shown = driver.execute_script(QVALUES)
    assert len(shown) == 3 * len(values["bm25"])
    for run, label, value in shown:
        assert abs(float(value) - values[run][label][qid]) < TOL
    spans = attributes(driver, "#pairline span", ["data-pair", "data-value"])
    assert len(spans) == 2
    for pair, value in spans:
        want = pairs["MED_nDCG(ref='other')@10" if pair.startswith("MED") else "RBO(p=0.9,ref='other')"][qid]
        assert abs(float(value) - want) < TOL
    # the rankings side by side, in trec_eval order, with the qrels' grades and the tie groups
    qrels = expected.read_qrels(VASWANI / "qrels")
    for side, name in (("side-a", "bm25_round1"), ("side-b", "minilm")):
        frame = expected.read_run(RUNS[name])
        docs = attributes(driver, f"#{side} .doc", ["data-doc", "data-grade", "class", "data-rank"])
        assert [doc for doc, _, _, _ in docs] == expected.top(frame, qid, 20)      # default depth 20
        for doc, shown_grade, _, _ in docs:
            grade = qrels.get(qid, {}).get(doc)
            assert shown_grade == ("unjudged" if grade is None else str(grade))
        tied = {int(rank) for _, _, cls, rank in docs if "tied" in cls}
        want = {s + 1 + i for s, n in expected.tie_groups(frame, qid) for i in range(n) if s + i < 20}
        assert tied == want
    # moves: a document of B shows how far it moved from its rank in A
    frame_a = expected.top(expected.read_run(RUNS["bm25_round1"]), qid, DEPTH)
    moves = driver.execute_script(MOVES)
    assert len(moves) == 20
    for doc, rank, move in moves:
        assert move == (str(frame_a.index(doc) + 1 - int(rank)) if doc in frame_a else "absent")
    assert len(driver.find_elements("css selector", "#moves line")) == 20
    # depth, and the text of a document on demand
    depth = driver.find_element("id", "depth")
    depth.clear()
    depth.send_keys("7\n")
    until(driver, lambda d: len(d.find_elements("css selector", "#side-a .doc")) == 7, "depth 7")
    first = driver.find_element("css selector", "#side-a .doc .did")
    first.click()
    until(driver, lambda d: d.find_elements("css selector", "#side-a .doc .text"), "the document's text")
    doc = first.text
    qi = data["queries"].index(qid)
    assert driver.find_element("css selector", "#side-a .doc .text").text.replace("\n", " ") == \
        data["text"][qi][data["docs"][qi].index(doc)].replace("\n", " ")
    assert console_errors(driver) == []


def test_screenshot(driver, page, tmp_path):
    path, _ = page
    open_page(driver, path, "#q=2")
    shot = tmp_path / "explore.png"
    assert driver.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_choose_a_and_b(driver, page, truth):
    """Swapping A and B in the menus negates A - B and keeps the symmetric MED and RBO; ``&a=..&b=..`` in the
    fragment chooses them too."""
    from selenium.webdriver.support.ui import Select
    path, _ = page
    values, pairs = truth
    open_page(driver, path)
    Select(driver.find_element("id", "run-a")).select_by_visible_text("minilm")
    Select(driver.find_element("id", "run-b")).select_by_visible_text("bm25_round1")
    A, B = values["minilm"]["nDCG@10"], values["bm25_round1"]["nDCG@10"]
    for row in driver.execute_script(TABLE):
        q = row["q"]
        assert abs(float(row["diff"]["value"]) - (A[q] - B[q])) < TOL
        assert abs(float(row["rbo"]["value"]) - pairs["RBO(p=0.9,ref='other')"][q]) < TOL
    open_page(driver, path, "#q=3&a=bm25&b=minilm")
    assert shows_query(driver, "3")
    assert driver.find_element("css selector", "#side-a h4").text.startswith("A: bm25 ")
    assert console_errors(driver) == []


def test_auxiliary_judgments_and_a_query_without_documents(driver, tmp_path):
    qrels = {"q1": {"d1": 1, "d2": 0}, "q 2&x": {"d9": 1}}
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0, "d3": 0.5}}, "b": {"q1": {"d3": 2.0}, "q 2&x": {"d9": 1.0}}}
    path = tmp_path / "aux.html"
    explore(qrels, runs, path, measures="P@3", aux={"q1": {"d3": 2}})
    open_page(driver, path, "#q=q1")
    assert shows_query(driver, "q1")
    docs = {d.get_attribute("data-doc"): d for d in driver.find_elements("css selector", "#side-a .doc")}
    assert docs["d3"].get_attribute("data-grade") == "unjudged" and docs["d3"].get_attribute("data-aux") == "2"
    assert "auxiliary 2" in docs["d3"].text and docs["d1"].get_attribute("data-aux") is None
    driver.find_element("tag name", "body").send_keys("j")        # the next query: an id that needs escaping
    assert shows_query(driver, "q 2&x")
    assert "does not answer" in driver.find_element("id", "side-a").text
    assert console_errors(driver) == []


def test_the_browser_tests_skip_with_a_reason_without_a_browser(monkeypatch):
    from tests.explore import browser
    monkeypatch.setattr(browser, "CANDIDATES", {"browser": ("no-such-chromium",), "driver": ("no-such-driver",)})
    with pytest.raises(pytest.skip.Exception, match="chromium and chromedriver are not installed|selenium"):
        browser.chrome()


def test_a_browser_session_leaves_nothing_in_the_temporary_directory():
    """Chromium writes a profile and an ``org.chromium.Chromium.*`` folder into the temporary directory and keeps
    the latter after ``quit()``: a run of the suite used to leave one per session in /tmp."""
    import glob
    import os
    import tempfile
    pattern = os.path.join(tempfile.gettempdir(), "org.chromium.Chromium.*")
    before = set(glob.glob(pattern)) | set(glob.glob(os.path.join(tempfile.gettempdir(), "ir_rbstar_chromium_*")))
    d = chrome()
    d.get("about:blank")
    d.quit()
    after = set(glob.glob(pattern)) | set(glob.glob(os.path.join(tempfile.gettempdir(), "ir_rbstar_chromium_*")))
    assert after <= before
