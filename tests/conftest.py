"""Hypothesis profiles for the whole suite. Paths and helpers the tests share are in tests/helpers.py.

Two sizes, chosen with the environment variable ``IR_RBSTAR_HYPOTHESIS``:

* ``quick`` (the default, what ``python -m pytest`` runs): every property is checked, on fewer random
  examples (20 where a test does not say; a test that asks for ``examples(n)`` gets a tenth of n, at
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
    """Random examples for a property test: ``n`` in the thorough profile, ``max(10, n // 10)`` in the quick
    default (a fifth until 2026-11-27: the suite's 160 property tests took 36-37 s of CPU in one process
    with a fifth, 24-29 s with a tenth, derandomized; the thorough profile is unchanged)."""
    return n if THOROUGH else max(10, n // 10)


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
# the files that check the demo report (``demo_report_run``, about 6 s of CPU): one unit, one report
DEMO_REPORT_FILES = ("tests/test_docs.py", "tests/integration/test_report.py")
# the files that choose the compiled engine (numba): one unit, so that its loops are compiled in one worker only
# (each worker that loads the engine compiles the loops it calls, and two workers compiled the same ones at the
# same time: numba's cache only helps a process that starts after the other wrote it)
COMPILED_ENGINE_FILES = tuple(f"tests/{name}.py" for name in (
    "integration/test_engine", "families/test_rankbiased_join", "families/test_rbr_lower_bound",
    "families/test_run_ties", "inputs/test_arrow_reader", "inputs/test_docindex", "inputs/test_frame_rbo_join",
    "inputs/test_grades", "inputs/test_inplace_sort", "inputs/test_input_shapes", "inputs/test_long_ids",
    "inputs/test_rbo_c_join"))


def _scope_of(nodeid: str) -> str:
    """The unit of work of a test: its file, or the folder of SHARED_SCOPES it is in (or goes with), or
    the demo report's files together, or the compiled engine's."""
    path = nodeid.split("::", 1)[0]
    if path in WITH_STUDIES:
        return SHARED_SCOPES[0]
    if path in DEMO_REPORT_FILES:
        return "demo report"
    if path in COMPILED_ENGINE_FILES:
        return "compiled engine"
    return next((s for s in SHARED_SCOPES if path.startswith(s)), path)


# docs/report.md's console example; run as the page shows it (``run_command``: cli.main in this process)
DEMO_REPORT_ARGV = ("report", "--demo", "--output", "/tmp/ir_rbstar_report", "--quiet")


@pytest.fixture(scope="session")
def demo_report_run(tmp_path_factory):
    """``ir-rbstar report --demo --output /tmp/ir_rbstar_report --quiet`` (docs/report.md's example) run
    once for the session: test_docs.py compares its stdout with the page's, test_report.py checks the
    report it wrote. It writes to a new folder of this session, not to the page's /tmp folder (shared
    with other sessions and whoever runs the example, so a file another run wrote there, or is writing,
    could pass for this run's); its stdout names the page's folder where it names that one.
    ``build_report`` is watched, not changed: the table it returns and the
    progress steps it announces (``--quiet`` shows none: the command's own callable, None, still gets
    every call it would have) are kept, with the registered names before and after."""
    import ir_rbstar
    from ir_rbstar.report import command
    from tests.helpers import run_command

    where = DEMO_REPORT_ARGV.index("--output") + 1
    kept = tmp_path_factory.mktemp("demo_report")
    argv = [*DEMO_REPORT_ARGV[:where], str(kept), *DEMO_REPORT_ARGV[where + 1:]]
    seen: dict = {"calls": []}
    real = command.build_report

    def watched(*args, progress=None, **kwargs):
        def step(*a):
            seen["calls"].append(a)
            if progress is not None:
                progress(*a)
        seen["table"] = real(*args, progress=step, **kwargs)
        return seen["table"]

    registry = (ir_rbstar.registered_runs(), ir_rbstar.registered_groups())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(command, "build_report", watched)
        rc, stdout, stderr = run_command(argv, tmp_path_factory.mktemp("demo_report_cwd"))
    return {"argv": DEMO_REPORT_ARGV, "rc": rc, "stdout": stdout.replace(str(kept), DEMO_REPORT_ARGV[where]),
            "stderr": stderr, "dir": kept, "table": seen.get("table"), "calls": seen["calls"],
            "registry_before": registry,
            "registry_after": (ir_rbstar.registered_runs(), ir_rbstar.registered_groups())}


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


# ------------------------------------------------------------------------------------------------------
# The test modules' asserts rewritten once per session, not once per worker. pytest rewrites every test
# module (and conftest) it imports: parse, rewrite every assert, compile; about 5 s of CPU for this suite's
# ~100 modules (pytest 9 on Python 3.11). Both workers collect every module, so each paid it; and where
# ``PYTHONDONTWRITEBYTECODE`` is set (as on the machine measured, and for a first run anywhere) nothing is
# cached between them. The controller, before it starts the workers, rewrites them once with pytest's own
# functions and stores the code where pytest looks for it: pytest's usual ``__pycache__`` when bytecode may
# be written (pytest itself would write the same files there), else a temporary folder for this session,
# removed at its end, that the workers are told about (a user who set PYTHONDONTWRITEBYTECODE finds no
# files in the tree). pytest checks every such file against its source's hash before using it, so a stale
# or missing one is rewritten as before. Uses pytest's private rewrite functions: with another pytest
# where they differ, nothing is prepared and every worker rewrites as before.

_REWRITTEN = "ir_rbstar_rewritten_tests"       # the key of the workers' input naming the temporary folder
_prepared: dict = {}


def _rewrite_targets(config):
    """The files the workers rewrite when they collect: the test modules (``python_files``) under the paths
    this session was given (``testpaths`` by default) and every conftest of the suite."""
    import fnmatch
    from pathlib import Path
    patterns = config.getini("python_files")
    roots = [Path(config.rootpath, p) for p in config.getini("testpaths")] or [Path(config.rootpath)]
    given = [Path(config.invocation_params.dir, a.split("::")[0]) for a in config.args] or roots
    modules = {f for g in given for f in ([g] if g.is_file() else g.rglob("*.py"))
               if any(fnmatch.fnmatch(f.name, p) for p in patterns)}
    conftests = {f for root in roots for f in root.rglob("conftest.py")}
    return sorted(modules | conftests)


def _rewrite_once(config):
    """Rewrite the test modules into pytest's cache files; the temporary folder's path, or None where the
    files went to pytest's own ``__pycache__`` (or nothing was prepared)."""
    import tempfile
    from pathlib import Path
    try:
        from _pytest.assertion import rewrite as rw
        read, rewrite, write_fp = rw._read_pyc, rw._rewrite_test, rw._write_pyc_fp
        cache_dir, tail = rw.get_cache_dir, rw.PYC_TAIL
    except (ImportError, AttributeError):
        return None
    if config.getoption("assertmode") != "rewrite":
        return None
    folder = tempfile.mkdtemp(prefix="ir_rbstar-tests-") if sys.dont_write_bytecode else None
    root = Path(config.rootpath)
    for fn in _rewrite_targets(config):
        target = Path(folder, fn.parent.relative_to(root)) if folder else cache_dir(fn)
        pyc = target / (fn.name[:-3] + tail)
        if read(fn, pyc) is not None:
            continue
        try:
            source_hash, code = rewrite(fn, config)
            target.mkdir(parents=True, exist_ok=True)
            part = pyc.with_name(f"{pyc.name}.{os.getpid()}")
            with open(part, "wb") as fp:
                write_fp(fp, source_hash, code)
            os.replace(part, pyc)
        except (OSError, SyntaxError):
            continue                  # the worker rewrites it (and reports a syntax error) as before
    return folder


@pytest.hookimpl(optionalhook=True)          # a hook of pytest-xdist, in the controller, per worker started
def pytest_configure_node(node):
    """Rewrite the test modules once (before the first worker gets its input) and name the folder; if
    pytest's private functions behave otherwise than expected, nothing is prepared and each worker rewrites
    as before."""
    config = node.config
    if "done" not in _prepared:
        _prepared["done"] = True
        try:
            _prepared["folder"] = _rewrite_once(config)
        except Exception:                 # another pytest's private API: the workers' own rewriting stands
            _prepared["folder"] = None
    if _prepared["folder"]:
        node.workerinput[_REWRITTEN] = _prepared["folder"]


def pytest_configure(config):
    """In a worker told about a folder of rewritten test modules: pytest looks for them there."""
    folder = getattr(config, "workerinput", {}).get(_REWRITTEN)
    if not folder:
        return
    from pathlib import Path
    try:
        from _pytest.assertion import rewrite as rw
        default = rw.get_cache_dir
    except (ImportError, AttributeError):
        return
    root = Path(config.rootpath)

    def cache_dir(file_path: Path) -> Path:
        try:
            return Path(folder, Path(file_path).parent.relative_to(root))
        except ValueError:                  # not under the root (a plugin's module): pytest's own place
            return default(file_path)

    rw.get_cache_dir = cache_dir


def pytest_unconfigure(config):
    """The controller removes the temporary folder it made."""
    folder = _prepared.get("folder")
    if folder and not hasattr(config, "workerinput"):
        import shutil
        shutil.rmtree(folder, ignore_errors=True)
