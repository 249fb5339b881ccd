"""The command's start-up settings (ir_rbstar/_startup.py): made only in the ``ir-rbstar`` command's own
process, in force while numpy loads, undone when ``import ir_rbstar`` ends; a program importing the
package keeps its environment and its garbage collector as they were."""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from ir_rbstar import _startup


@pytest.mark.parametrize("argv, orig, expected", [
    (["-m", "q", "r"], ["python", "-m", "ir_rbstar", "q", "r"], True),
    (["-m"], ["python", "-X", "importtime", "-m", "ir_rbstar.__main__"], True),
    (["-m"], ["python", "-mir_rbstar"], True),
    (["-m", "q"], ["python", "-Im", "ir_rbstar", "q"], True),               # a cluster of short options
    (["-m"], ["python", "-OOBmir_rbstar"], True),
    (["-m"], ["python", "-W", "error", "-Xdev", "-um", "ir_rbstar"], True),
    (["-m"], ["python", "-Wignore::DeprecationWarning:m", "-m", "ir_measures"], False),   # -W's value
    (["-m"], ["python", "-Bm"], False),
    (["-m", "q"], ["python", "-m", "ir_measures", "q"], False),       # the peer's command (if it loads us)
    (["-m"], ["python", "-m", "pytest", "-m", "ir_rbstar"], False),   # the interpreter's -m comes first
    (["-m"], ["python", "-m", "ir_rbstarx"], False),
    (["-c"], ["python", "-c", "import ir_rbstar"], False),
    (["/usr/local/bin/ir-rbstar", "q"], ["python", "/usr/local/bin/ir-rbstar", "q"], True),
    (["C:\\venv\\Scripts\\ir-rbstar.exe"], [], True),
    (["/home/u/analysis.py"], ["python", "/home/u/analysis.py"], False),
    ([], [], False),
])
def test_is_command(argv, orig, expected):
    assert _startup.is_command(argv, orig) is expected


def test_quiet_idle_blas_keeps_a_users_value_and_restores_only_its_own():
    env = {}
    name = _startup.quiet_idle_blas(env)
    assert name == "OPENBLAS_THREAD_TIMEOUT" and env == {name: _startup.IDLE_WAIT}
    _startup.restore(name, env)
    assert env == {}
    user = {"OPENBLAS_THREAD_TIMEOUT": "20"}
    assert _startup.quiet_idle_blas(user) is None
    _startup.restore(None, user)
    assert user == {"OPENBLAS_THREAD_TIMEOUT": "20"}


def test_begin_does_nothing_once_numpy_is_loaded():
    assert not _startup.begin(["-m"], ["python", "-m", "ir_rbstar"], {"numpy": object()})
    assert _startup._STATE == [None, False]


# a fresh interpreter: a finder on sys.meta_path notes the variable and the collector when numpy is
# looked up (it then leaves the import to the usual finders), and the process prints them with their
# state after ``import ir_rbstar``
_SPY = """
import gc, json, os, sys
seen = {}
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not seen:
            seen.update(env=os.environ.get("OPENBLAS_THREAD_TIMEOUT"), gc=gc.isenabled())
        return None
sys.meta_path.insert(0, Spy())
sys.argv[:] = ARGV
sys.orig_argv[:] = ORIG
import ir_rbstar
print(json.dumps([seen, os.environ.get("OPENBLAS_THREAD_TIMEOUT"), gc.isenabled()]))
"""


def _spy(argv, orig, env_value=None):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if env_value is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = env_value
    code = _SPY.replace("ARGV", repr(argv)).replace("ORIG", repr(orig))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_command_loads_numpy_with_the_settings_then_undoes_them():
    seen, after, gc_after = _spy(["-m", "q", "r"], [sys.executable, "-m", "ir_rbstar", "q", "r"])
    assert seen == {"env": _startup.IDLE_WAIT, "gc": False}
    assert after is None and gc_after is True


def test_a_program_importing_the_package_is_left_alone():
    seen, after, gc_after = _spy(["analysis.py"], [sys.executable, "analysis.py"])
    assert seen == {"env": None, "gc": True}
    assert after is None and gc_after is True


def test_the_users_variable_wins():
    seen, after, gc_after = _spy(["-m"], [sys.executable, "-m", "ir_rbstar"], env_value="20")
    assert seen == {"env": "20", "gc": False}
    assert after == "20" and gc_after is True


def test_the_settings_are_undone_when_the_import_fails(monkeypatch):
    monkeypatch.delenv(_startup.VARIABLE, raising=False)
    try:
        assert _startup.begin(["-m"], ["python", "-m", "ir_rbstar"], {})    # as before numpy loads
        assert os.environ[_startup.VARIABLE] == _startup.IDLE_WAIT and not gc.isenabled()
        with pytest.raises(ImportError, match="broken"):
            with _startup.loading():
                raise ImportError("broken")
        assert _startup.VARIABLE not in os.environ and gc.isenabled() and _startup._STATE == [None, False]
    finally:
        _startup.finish()
        gc.enable()


# the command's process, where a module ``import ir_rbstar`` loads fails: the settings are undone all the same
_FAIL = """
import gc, json, os, sys
class Broken:
    def find_spec(self, name, path=None, target=None):
        if name == "ir_rbstar.parsing":
            raise ImportError("broken")
        return None
sys.meta_path.insert(0, Broken())
sys.argv[:] = ["-m"]
sys.orig_argv[:] = [sys.executable, "-m", "ir_rbstar"]
try:
    import ir_rbstar
except ImportError as e:
    print(json.dumps([str(e), os.environ.get("OPENBLAS_THREAD_TIMEOUT"), gc.isenabled()]))
"""


def test_a_failed_import_in_the_command_leaves_no_setting_behind():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    done = subprocess.run([sys.executable, "-c", _FAIL], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["broken", None, True]


_NO_PANDAS = """
import sys, ir_measures, ir_rbstar
qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
run = {"q1": {"d1": 2.0, "d2": 1.0, "d4": 1.0}, "q2": {"d3": 0.5, "d5": 0.25}}
ir_rbstar.register_run("ref", {"q1": {"d2": 3.0, "d1": 1.0}, "q2": {"d5": 1.0}})
m = ir_rbstar.parse("RBP(p=0.8) RBP_res(p=0.8) nDCG_TA@10 AP_TA Twist RBR(p=0.8) RBO(p=0.9,ref='ref')")
means = ir_measures.calc_aggregate(m, qrels, run)
per_query = list(ir_measures.iter_calc(m, qrels, run))
print(len(means), len(per_query), "pandas" in sys.modules)
"""


def test_dicts_of_dicts_are_evaluated_without_loading_pandas():
    """The dict door (and registering a reference given as a dict) needs no pandas: a script evaluating dicts, as
    pytrec_eval's users do, pays no import of pandas (and of pyarrow with it), about 0.3 s, for nothing."""
    done = subprocess.run([sys.executable, "-c", _NO_PANDAS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["7", "14", "False"]
