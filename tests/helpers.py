"""Paths and small helpers the tests share (import them: ``from tests.helpers import REPO``).

The study data lives outside the repository, in ``../shared`` next to it; :func:`shared_data` finds it
or skips the test that needs it, with the path it looked for as the reason.
"""
import contextlib
import importlib
import io
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"                       # data and cases that may not be copied in here
SHARED_DATA = SHARED / "data"
SHARED_CASES = SHARED / "cases"
VASWANI = REPO / "ir_rbstar" / "data" / "vaswani"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_data(*parts) -> Path:
    """A path under ../shared/data, or skip the test when that data is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


def load_script(name: str):
    """The module ``scripts.<name>`` (scripts/<name>.py); the repository root is on the path (pyproject.toml,
    ``[tool.pytest.ini_options] pythonpath``)."""
    return importlib.import_module(f"scripts.{name}")


def expected_python_output(code: str):
    """Comment lines ('# ...') that directly follow a print statement are its expected output."""
    out, in_output = [], False
    for line in code.splitlines():
        if line.startswith("# ") and in_output:
            out.append(line[2:])
            continue
        in_output = "print(" in line or (in_output and line.startswith("    "))
    return out


def names_command(text: str, module: str, args: str = "--write") -> bool:
    """Whether a page shows how to run ``module`` (``scripts.med_report``): ``python -m scripts.med_report
    --write``, or the form the pages used before scripts/, benchmarks/ and examples/ were run as modules,
    ``python scripts/med_report.py --write`` (both work)."""
    return (f"python -m {module} {args}" in text
            or f"python {module.replace('.', '/')}.py {args}" in text)


def run_dict(frame) -> dict:
    """A run DataFrame (query_id, doc_id, score) as pytrec_eval's dict of dicts, the form ir_measures builds
    from a DataFrame itself, but column by column: ir_measures makes a namedtuple of every row first, which
    was two thirds of the time of the real-data tests that evaluate whole runs."""
    out: dict = {}
    for q, d, s in zip(frame["query_id"].tolist(), frame["doc_id"].tolist(), frame["score"].tolist(), strict=True):
        out.setdefault(q, {})[d] = s
    return out


def run_command(args, cwd):
    """``ir-rbstar ARGS`` run in ``cwd`` in this process (the command's ``main``, as the console script
    calls it; no interpreter start-up per command): (exit code, stdout, stderr). The package's caches
    are cleared first, so that each command starts as a new process would."""
    import ir_rbstar
    from ir_rbstar import cli
    ir_rbstar.clear_cache()
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(list(args))
            except SystemExit as e:
                rc = e.code
    finally:
        os.chdir(here)
    return rc, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def keeping_every_table():
    """Conversions keep a table of sorted keys whatever their queries' lengths (not only from
    ``ir_rbstar.io.querytable.KEEP_WIDTH`` rows on), so that small examples take the joins that merge them.
    The DataFrames kept converted (:mod:`ir_rbstar.io.framecache`) are dropped on entry and exit: they were
    made, or are made inside, under the other setting."""
    from ir_rbstar.io import framecache, querytable
    kept = querytable.KEEP_WIDTH
    querytable.KEEP_WIDTH = 1
    framecache.clear()
    try:
        yield
    finally:
        querytable.KEEP_WIDTH = kept
        framecache.clear()


@contextlib.contextmanager
def compiled_off():
    """Every step of the optional C extension switched off (``ir_rbstar.io.extension.compiled = None``): the
    numpy and Python code it stands in for runs, for the tests that hold the two to the same answers."""
    from ir_rbstar.io import extension
    kept, extension.compiled = extension.compiled, None
    try:
        yield
    finally:
        extension.compiled = kept
