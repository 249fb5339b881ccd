"""The real-data studies read DL19's 37 runs in three reports (nrg_report, ties_report, twist_report): the
runs are read once for the session (``scripts._docblock.shared_runs``, about 170 MB kept; the fixture
``dl19_runs_read_once`` of tests/conftest.py, which the DL19 explorer page uses too) and every report
gets the same rankings, which no report changes. The official TREC 2004 Robust runs (10 runs of 1000
documents for 249 topics) are read by two reports, med_report and twist_report: once too (the folder
is one unit of the test workers, so both reports run in the same process)."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def _dl19_runs_read_once(dl19_runs_read_once):
    from tests.helpers import SHARED_DATA, load_script
    with load_script("_docblock").shared_runs([SHARED_DATA / "robust04" / "runs-trec2004"]):
        yield
