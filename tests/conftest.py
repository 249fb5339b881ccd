"""Hypothesis profiles for the whole suite. Paths and helpers the tests share are in tests/helpers.py.

Two sizes, chosen with the environment variable ``IR_RBSTAR_HYPOTHESIS``:

* ``quick`` (the default, what ``python -m pytest`` runs): every property is checked, on fewer random
  examples (20 where a test does not say; a test that asks for ``examples(n)`` gets a fifth of n, at
  least 10);
* ``thorough`` (``IR_RBSTAR_HYPOTHESIS=thorough python -m pytest``): 100 examples where a test does not
  say, n where it asks for ``examples(n)``; several times longer.

With ``CI`` set, runs are derandomized (reproducible); otherwise each run explores new examples.
"""
import os
import sys


def _hypothesis_not_rewritten() -> None:
    """pytest rewrites the asserts of every module of a distribution that registers a pytest plugin, so
    hypothesis' 70-odd modules are parsed, rewritten and compiled from source in every process (about 1.3 s
    of CPU each, and where ``PYTHONDONTWRITEBYTECODE`` is set, at every run): its asserts are not ours to
    explain. Taken off the rewrite list before hypothesis is first imported (below). pytest keeps that list
    in a private attribute of its import hook; where it has none, nothing changes."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(marked, set) and "hypothesis" in marked:
            marked.discard("hypothesis")
            cache = getattr(finder, "_marked_for_rewrite_cache", None)
            if isinstance(cache, dict):
                cache.clear()


_hypothesis_not_rewritten()

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

PROFILE = os.environ.get("IR_RBSTAR_HYPOTHESIS", "quick")
if PROFILE not in ("quick", "thorough"):
    raise ValueError(f"IR_RBSTAR_HYPOTHESIS={PROFILE!r}: 'quick' (default) or 'thorough'")
THOROUGH = PROFILE == "thorough"


def examples(n: int) -> int:
    """Random examples for a property test: ``n`` in the thorough profile, ``max(10, n // 5)`` in the quick
    default."""
    return n if THOROUGH else max(10, n // 5)


_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=bool(os.environ.get("CI")))
settings.register_profile("quick", max_examples=20, **_common)
settings.register_profile("thorough", max_examples=100, **_common)
settings.load_profile(PROFILE)


# ------------------------------------------------------------------------------------------------------
# Two workers (pyproject's addopts ``-n 2 --dist loadfile``): a file's tests stay in one worker, so its
# module fixtures are built once. The real-data studies (tests/studies/) also share what their conftest
# reads once per session (DL19's 37 runs, ``scripts._docblock.shared_runs``: about 3 s of CPU): their files
# go to one worker together, or each worker that gets one of them reads the runs again.

SHARED_SCOPES = ("tests/studies/",)
# other files that read DL19's runs through the same session fixture (``dl19_runs_read_once``), put in
# the studies' unit so that the runs are read once for them too
WITH_STUDIES = ("tests/explore/test_dl19.py",)


def _scope_of(nodeid: str) -> str:
    """The unit of work of a test: its file, or the folder of SHARED_SCOPES it is in (or goes with)."""
    path = nodeid.split("::", 1)[0]
    if path in WITH_STUDIES:
        return SHARED_SCOPES[0]
    return next((s for s in SHARED_SCOPES if path.startswith(s)), path)


@pytest.fixture(scope="session")
def dl19_runs_read_once():
    """While the session lasts, ``scripts._docblock.read_ranking`` reads each of DL19's runs once and gives
    every later caller the same Ranking (no reader changes it): the studies and the DL19 explorer page."""
    from tests.helpers import SHARED_DATA, load_script
    with load_script("_docblock").shared_runs([SHARED_DATA / "dl19-passage" / "runs"]):
        yield


@pytest.hookimpl(optionalhook=True)          # a hook of pytest-xdist: none without it
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with the files of a SHARED_SCOPES folder as one unit; other modes unchanged."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFolders(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope_of(nodeid)

    return SharedFolders(config, log)


def pytest_collection_finish(session):
    """Move every object alive after collection (the imported modules of numpy, pandas, scipy, numba,
    matplotlib, ... and the collected tests) out of the garbage collector's sight (``gc.freeze``): they
    live until the end anyway, and every full collection would scan them again. Full collections are
    frequent here: statsmodels' ``multipletests`` calls ``gc.collect()`` on every call (the Holm oracle
    of tests/integration/test_stats_level.py, the report's corrections), and so do hypothesis and the
    interpreter's own heuristics. Measured on test_stats_level + test_stats_robust +
    test_rankbiased_oracle in one process: 1.46 s -> 0.39 s spent in full collections. No value changes:
    objects made by the tests are collected as before."""
    import gc
    gc.freeze()
