import importlib.util
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# CI runs are reproducible (derandomized); local runs explore new examples.
settings.register_profile("ci", derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
VASWANI = REPO / "ir_rbstar" / "data" / "vaswani"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_data(*parts) -> Path:
    """A path under ../shared/data, or skip the test when that data is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


def load_script(name: str):
    """Import ``scripts/<name>.py`` (the report scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_python_output(code: str):
    """Comment lines ('# ...') that directly follow a print statement are its expected output."""
    out, in_output = [], False
    for line in code.splitlines():
        if line.startswith("# ") and in_output:
            out.append(line[2:])
            continue
        in_output = "print(" in line or (in_output and line.startswith("    "))
    return out
