"""The report's inputs: run files and groups of runs, and the names under which they are registered."""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Dict, Sequence


from ..errors import InputFormatError, ParameterError



def read_groups(groups: Any, runs: Sequence[str]) -> Dict[str, str]:
    """Run name -> group, from a mapping or a TSV file of ``run<TAB>group`` lines (blank lines and
    lines starting with ``#`` are skipped). Every run must have exactly one group, and every run named
    must be one of ``runs``.

    Raises InputFormatError for a line without exactly two tab-separated fields or a run given two
    groups, ParameterError for a run that is not one of ``runs`` or a run without a group,
    FileNotFoundError for a missing file.
    """
    known = list(runs)
    where: Dict[str, str] = {}
    if isinstance(groups, Mapping):
        source = "groups"
        out = {}
        for run, group in groups.items():
            out[str(run)] = str(group)
            where[str(run)] = f"{source}[{str(run)!r}]"
    elif isinstance(groups, (str, os.PathLike)):
        source = os.fspath(groups)
        if not os.path.isfile(source):
            raise FileNotFoundError(f"groups file not found: {source}")
        out = {}
        with open(source, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                text = line.rstrip("\r\n")
                if not text.strip() or text.lstrip().startswith("#"):
                    continue
                fields = [x.strip() for x in text.split("\t")]
                if len(fields) != 2 or not all(fields):
                    raise InputFormatError(f"{source} line {number}: expected 'run<TAB>group', got {text!r}")
                run, group = fields
                if run in out and out[run] != group:
                    raise InputFormatError(f"{source} line {number}: run {run!r} is already in group {out[run]!r}")
                out[run] = group
                where.setdefault(run, f"{source} line {number}")
    else:
        raise ParameterError(f"groups: give a dict of run -> group or a TSV file, not {type(groups).__name__}")
    unknown = [r for r in out if r not in known]
    if unknown:
        raise ParameterError(f"{where[unknown[0]]}: run {unknown[0]!r} is not one of the runs "
                             f"({', '.join(repr(r) for r in known)})")
    missing = [r for r in known if r not in out]
    if missing:
        raise ParameterError(f"{source}: no group for run {missing[0]!r}"
                             + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    return {r: out[r] for r in known}


def _run_inputs(runs: Any) -> Dict[str, Any]:
    from ..plots import run_names
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    if isinstance(runs, Mapping):
        named = {str(k): v for k, v in runs.items()}
    elif isinstance(runs, (list, tuple)):
        named = run_names([os.fspath(p) for p in runs])
    else:
        raise ParameterError(f"runs: give a dict of name -> run (path, DataFrame) or a list of run files, "
                             f"not {type(runs).__name__}")
    if not named:
        raise ParameterError("runs: no run given; give at least one run")
    for name, run in named.items():
        if isinstance(run, (str, os.PathLike)) and not os.path.isfile(os.path.expanduser(os.fspath(run))):
            raise FileNotFoundError(f"run file not found: {os.fspath(run)} (run {name!r})")
    return named


def _describe(obj: Any) -> str:
    if isinstance(obj, (str, os.PathLike)):
        return f"`{os.fspath(obj)}`"
    return f"a {type(obj).__name__}"


def _free(name: str, taken: set) -> str:
    out, k = name, 2
    while out in taken:
        out, k = f"{name}_{k}", k + 1
    taken.add(out)
    return out
