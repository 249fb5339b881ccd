"""The examples in the package's docstrings run and print what they show (``pytest --doctest-modules``
over ir_rbstar, in a child process so that names they register do not reach the other tests)."""
import subprocess
import sys

from tests.helpers import REPO


def test_docstring_examples_print_what_they_show():
    # -o addopts=: one process (not the suite's pytest-xdist workers) for these few examples
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                           "--doctest-modules", "ir_rbstar"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
