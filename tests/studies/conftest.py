"""The real-data studies read DL19's 37 runs in three reports (nrg_report, ties_report, twist_report): the
runs are read once for the session (``scripts._docblock.shared_runs``, about 170 MB kept) and every report
gets the same rankings, which no report changes."""
import pytest

from tests.helpers import SHARED_DATA, load_script


@pytest.fixture(scope="session", autouse=True)
def _dl19_runs_read_once():
    with load_script("_docblock").shared_runs([SHARED_DATA / "dl19-passage" / "runs"]):
        yield
