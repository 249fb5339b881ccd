"""The units of work conftest.py gives pytest-xdist (``--dist loadfile`` with some files together) name files and
folders that exist, and every test file that chooses the compiled engine by name is in that engine's unit (so numba
compiles its loops in one worker, not in both at once)."""
import re
from pathlib import Path

from tests import conftest

ROOT = Path(__file__).resolve().parent.parent


def test_the_named_files_and_folders_exist():
    for path in (*conftest.SHARED_SCOPES, *conftest.WITH_STUDIES, *conftest.DEMO_REPORT_FILES,
                 *conftest.COMPILED_ENGINE_FILES):
        assert (ROOT / path).exists(), f"tests/conftest.py names {path}, which does not exist"


def test_files_naming_the_compiled_engine_share_its_unit():
    naming = re.compile(r"""["']numba["']""")
    found = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")
             if naming.search(p.read_text(encoding="utf-8"))}
    found.discard("tests/test_units_of_work.py")
    assert found, "no test file names the compiled engine: the pattern no longer finds them"
    missing = sorted(found - set(conftest.COMPILED_ENGINE_FILES))
    assert not missing, f"add to conftest.COMPILED_ENGINE_FILES: {missing}"
    assert {conftest._scope_of(f"{f}::t") for f in conftest.COMPILED_ENGINE_FILES} == {"compiled engine"}
