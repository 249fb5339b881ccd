"""The real-data studies read DL19's 37 runs in three reports (nrg_report, ties_report, twist_report): the
runs are read once for the session (``scripts._docblock.shared_runs``, about 170 MB kept; the fixture
``dl19_runs_read_once`` of tests/conftest.py, which the DL19 explorer page uses too) and every report
gets the same rankings, which no report changes."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def _dl19_runs_read_once(dl19_runs_read_once):
    yield
