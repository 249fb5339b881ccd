"""The floors pyproject.toml declares are the versions .ci/oldest.txt pins, the stack the suite is run on
as the oldest one supported (tests/README.md; .ci/run's second stage)."""
import pathlib
import re

import pytest

tomllib = pytest.importorskip("tomllib")          # Python >= 3.11
Requirement = pytest.importorskip("packaging.requirements").Requirement

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOT_THE_PACKAGES = {"test", "bench", "demo-build", "all"}     # tools of the repository, and a union of extras


def _name(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins():
    pins = {}
    for number, line in enumerate((ROOT / ".ci" / "oldest.txt").read_text().splitlines(), 1):
        line = line.split("#")[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and version.strip(), f".ci/oldest.txt line {number}: {line!r} is not NAME==VERSION"
            assert _name(name) not in pins, f".ci/oldest.txt line {number}: {name} pinned twice"
            pins[_name(name)] = version.strip()
    return pins


def _declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = {"dependencies": project["dependencies"]}
    groups.update({k: v for k, v in project["optional-dependencies"].items() if k not in NOT_THE_PACKAGES})
    return groups, project["optional-dependencies"]["test"]


def _floor(req):
    floors = [s.version for s in req.specifier if s.operator == ">="]
    return floors[0] if len(floors) == 1 else None


def test_every_floor_of_the_package_is_the_version_pinned_in_oldest_txt():
    pins = _pins()
    groups, _ = _declared()
    seen = set()
    for group, reqs in groups.items():
        for text in reqs:
            req = Requirement(text)
            name = _name(req.name)
            assert _floor(req) is not None, f"{group}: {text!r} declares no single floor (>=)"
            assert pins.get(name) == _floor(req), f"{group}: {text!r}, .ci/oldest.txt pins {pins.get(name)}"
            assert req.specifier.contains(pins[name]), text
            seen.add(name)
    assert set(pins) == seen, f".ci/oldest.txt pins what the package does not declare: {set(pins) - seen}"


def test_the_test_extra_installs_on_the_oldest_stack():
    # the test extra repeats some of the package's dependencies: none may ask for more than the floor
    pins = _pins()
    _, test_extra = _declared()
    for text in test_extra:
        req = Requirement(text)
        if _name(req.name) in pins:
            assert req.specifier.contains(pins[_name(req.name)]), f"test extra {text!r} refuses .ci/oldest.txt"


def test_ci_runs_a_stage_on_the_oldest_stack():
    script = (ROOT / ".ci" / "run").read_text()
    assert "-c .ci/oldest.txt" in script
