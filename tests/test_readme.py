"""Every example of README.md runs and prints what the README shows."""
import contextlib
import io
import re
import shlex
import subprocess
import sys

import pytest

from conftest import REPO, expected_python_output

README = (REPO / "README.md").read_text()


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_readme_has_two_quick_start_commands():
    section = README.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = re.findall(r"```\n(.*?)```", section, flags=re.S)[0].strip().splitlines()
    assert commands == ['python -m pip install . && ir-rbstar demo',
                        'python -m pip install ".[test]" && python -m pytest']


def test_readme_python_examples(monkeypatch):
    pytest.importorskip("pyterrier")
    monkeypatch.chdir(REPO)
    namespace = {}
    blocks = _blocks("python")
    assert len(blocks) >= 3
    for code in blocks:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "README.md", "exec"), namespace)
        printed = [line.rstrip() for line in buf.getvalue().splitlines()]
        expected = [line.rstrip() for line in expected_python_output(code)]
        assert printed == expected, code


def test_readme_cli_examples():
    blocks = _blocks("console")
    assert blocks
    for block in blocks:
        for chunk in block.split("$ ")[1:]:
            command, *expected = chunk.rstrip("\n").split("\n")
            argv = shlex.split(command)
            assert argv[0] == "ir-rbstar"
            done = subprocess.run([sys.executable, "-m", "ir_rbstar", *argv[1:]], cwd=REPO,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr
            assert done.stdout.splitlines() == expected, command
