"""Render the screenshots of docs/explore.md: the explorer page of the bundled Vaswani runs in headless
Chromium, its overview and one query (no data outside the package, no network).

    python -m scripts.make_explore_screenshot [--out docs/img] [--query 2]

builds the page of ``bm25_round1`` (A; scores rounded to one decimal: many ties), ``minilm_rerank`` (B) and
``bm25`` with the bundled document and query text (``ir_rbstar.explore.explore``), opens it at
``#q=<query>`` (``explore_query.png``; before that the overview, filtered to the queries whose sign of
A - B can flip within the tie bounds: ``explore_overview.png``) in Debian's chromium through Selenium (``/usr/bin/chromium`` and ``/usr/bin/chromedriver``, or
what is on the PATH; nothing is downloaded), shows the first document's text, takes a screenshot of the
browser window and writes each as a small palette PNG (Pillow, which matplotlib brings). Prints the paths
and sizes. Needs ``pip install selenium`` and the chromium packages.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "docs", "img")


def _driver(width: int, height: int):
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    os.environ.setdefault("SE_OFFLINE", "true")
    options = Options()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def _ready(driver) -> None:
    for _ in range(100):
        if driver.execute_script("return document.body.getAttribute('data-ready')") == "true":
            return
        time.sleep(0.05)
    raise RuntimeError("the page did not become ready")


def _shot(driver, folder: str, name: str) -> str:
    path = os.path.join(folder, f"{name}.png")
    driver.save_screenshot(path)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="the folder of the PNGs")
    parser.add_argument("--query", default="2", help="the query the page opens at")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--colors", type=int, default=64, help="palette size of the PNG")
    args = parser.parse_args(argv)

    from PIL import Image

    import ir_rbstar.demo
    from ir_rbstar.explore import explore
    v = ir_rbstar.demo.data_dir()
    runs = {name: os.path.join(v, f"{name}.run.gz") for name in ("bm25_round1", "minilm_rerank", "bm25")}
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "vaswani.html")
        explore(os.path.join(v, "qrels"), runs, page, depth=30, docs=os.path.join(v, "doc-text.trec.gz"),
                queries=os.path.join(v, "queries.tsv"), title="ir_rbstar explorer: Vaswani")
        driver = _driver(args.width, args.height)
        shots = {}
        try:
            from selenium.webdriver.support.ui import Select
            driver.get("file://" + os.path.abspath(page))
            _ready(driver)
            Select(driver.find_element("id", "filter")).select_by_value("flip-tie")
            shots["explore_overview.png"] = _shot(driver, tmp, "overview")
            driver.get("file://" + os.path.abspath(page) + f"#q={args.query}")
            _ready(driver)
            driver.find_element("css selector", "#side-b .doc .did").click()      # one document's text
            driver.execute_script("document.getElementById('qvalues').scrollIntoView(); window.scrollBy(0, -60);")
            shots["explore_query.png"] = _shot(driver, tmp, "query")
        finally:
            driver.quit()
        os.makedirs(args.out, exist_ok=True)
        for name, raw in shots.items():
            out = os.path.join(args.out, name)
            Image.open(raw).convert("RGB").quantize(colors=args.colors, method=Image.Quantize.MEDIANCUT).save(
                out, optimize=True)
            print(f"{os.path.relpath(out)}\t{os.path.getsize(out) / 1e3:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
