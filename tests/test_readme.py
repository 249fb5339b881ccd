"""README.md is a front door: short, with the two quick-start commands, and every example in it runs
and prints what the README shows, from any directory (the python blocks run in a temporary directory;
the console blocks too, unless they first go to the bundled collection's folder with DATA_CD)."""
import contextlib
import importlib.util
import io
import re

import pytest

from tests.helpers import REPO, expected_python_output
from tests.test_docs import github_anchors, links, run_console_block

README = (REPO / "README.md").read_text()
MAX_BYTES = 10 * 1024             # the details live in docs/; the README only points there


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_readme_has_two_quick_start_commands():
    section = README.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = re.findall(r"```\n(.*?)```", section, flags=re.S)[0].strip().splitlines()
    assert commands == ['python -m pip install . && ir-rbstar demo',
                        'python -m pip install ".[test]" && python -m pytest']


def test_readme_is_a_front_door():
    assert len(README.encode()) <= MAX_BYTES, f"README.md has {len(README.encode())} bytes: move details to docs/"
    for page in ("docs/index.md", "docs/guide.md", "docs/rankbiased.md", "docs/ties.md", "docs/twist.md",
                 "docs/nrg.md", "docs/med.md", "docs/first_stage.md", "docs/report.md", "docs/benchmarks.md"):
        assert f"]({page}" in README, page
        assert (REPO / page).exists(), page


def _uses_pyterrier(code):
    return re.search(r"^\s*(import|from) pyterrier", code, flags=re.M) is not None


def test_readme_python_examples(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)                      # not the repository: examples run from anywhere
    blocks = _blocks("python")
    assert len(blocks) >= 2 and any(_uses_pyterrier(code) for code in blocks)
    have_pyterrier = importlib.util.find_spec("pyterrier") is not None
    namespace = {}
    for code in blocks:
        assert "ir_rbstar/data/" not in code, "reach the bundled data through ir_rbstar.demo.data_dir()"
        if _uses_pyterrier(code) and not have_pyterrier:
            continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "README.md", "exec"), namespace)
        printed = [line.rstrip() for line in buf.getvalue().splitlines()]
        expected = [line.rstrip() for line in expected_python_output(code)]
        assert printed == expected, code
    if not have_pyterrier:
        pytest.skip("pyterrier is not installed: the PyTerrier example was not run")


def test_readme_cli_examples(tmp_path):
    blocks = _blocks("console")
    assert blocks
    for block in blocks:
        run_console_block(block, "README.md", tmp_path)


def test_readme_links_resolve():
    for target in links(README):
        if re.match(r"^[a-z]+:", target):                  # http:, https:
            continue
        path, _, fragment = target.partition("#")
        resolved = REPO / path if path else REPO / "README.md"
        assert resolved.exists(), f"README.md: {target} does not exist"
        if fragment and resolved.suffix == ".md":
            assert fragment in github_anchors(resolved.read_text()), f"README.md: no anchor {target}"
