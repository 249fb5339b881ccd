#!/usr/bin/env python3
"""Run every benchmark of benchmarks/ and gather their summaries into one table of ratios.

    python -m benchmarks.run_all --quick                       # smoke run of all five, a few minutes
    python -m benchmarks.run_all                               # full: about an hour (see benchmarks/README.md)
    python -m benchmarks.run_all --write                       # ... and update docs/benchmarks.md
    python -m benchmarks.run_all --from-json DIR --write       # re-render the table of an earlier run

Each benchmark script (bench_rankbiased.py, bench_ties.py, bench_twist.py, bench_nrg.py, bench_med.py)
runs as a subprocess with ``--json DIR/<name>.json``; its report goes to ``DIR/<name>.out`` and its
progress to ``DIR/<name>.err``. The summary rows of every JSON file (task, ir_rbstar's result, the peer,
the peer's result, the ratio ours / peer, the target and whether it was met) become one table; the
peer's version comes from the installed distributions (importlib.metadata), looked up when the run
starts and kept in ``DIR/run_all.json`` with the machine, the date, the package commit, the mode and
the load average. A benchmark that fails is reported as failed (its exit status and last error line),
never left out; a peer that could not be run (e.g. the C program of bench_med.py without ``--med-c``)
is reported as absent, with no ratio.

``--write`` replaces the generated block of docs/benchmarks.md (between ``<!-- benchmarks-table:start -->``
and ``<!-- benchmarks-table:end -->``); ``--docs`` names another file, and ``--readme FILE`` also writes the
short table into FILE (between ``<!-- benchmarks-readme:start -->`` and ``<!-- benchmarks-readme:end -->``;
README.md keeps a hand-picked excerpt instead, so the default is ``none``). Exit status: 0 when every
benchmark ran, 1 when one failed (targets that are not met do not change it).
"""
from __future__ import annotations

import argparse
import datetime
import json
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

if __package__:      # python -m benchmarks.run_all (from the repository root)
    from . import _harness as h
else:                # python benchmarks/run_all.py: this file's folder is first on the path
    import _harness as h  # (stdlib only at import)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# name -> (script, family label used when the script produced no rows)
BENCHES: Dict[str, tuple] = {
    "rankbiased": ("bench_rankbiased.py", "rank-biased (bench_rankbiased.py)"),
    "ties": ("bench_ties.py", "tie-aware (bench_ties.py)"),
    "twist": ("bench_twist.py", "Twist (bench_twist.py)"),
    "nrg": ("bench_nrg.py", "NRG (bench_nrg.py)"),
    "med": ("bench_med.py", "MED (bench_med.py)"),
    "doors": ("bench_doors.py", "input forms (bench_doors.py)"),
    "native": ("bench_native.py", "every door on native input, one process (bench_native.py)"),
}
# the distributions whose versions are recorded (peers, and what the peers and this package run on)
DISTS = ["ir_measures", "pytrec_eval-terrier", "rbo", "cwl-eval", "scikit-learn", "numba", "numpy", "pandas", "ir_rbstar"]
# the benches that accept --no-phases (skipping their cProfile subprocesses)
NO_PHASES = {"ties", "twist", "nrg", "med"}

DOCS = REPO / "docs" / "benchmarks.md"
README = REPO / "README.md"
DOCS_START, DOCS_END = "<!-- benchmarks-table:start -->", "<!-- benchmarks-table:end -->"
README_START, README_END = "<!-- benchmarks-readme:start -->", "<!-- benchmarks-readme:end -->"
META = "run_all.json"


# =============================================================================================
# Running the benches
# =============================================================================================

def select(only: Optional[str]) -> List[str]:
    """The benches named by ``--only`` (comma list of rankbiased, ties, twist, nrg, med; ``bench_`` and
    ``.py`` may be given), in the order of BENCHES; all when ``only`` is empty."""
    if not only:
        return list(BENCHES)
    names = []
    for part in only.split(","):
        name = part.strip().removesuffix(".py").removeprefix("bench_")
        if not name:
            continue
        if name not in BENCHES:
            raise SystemExit(f"--only: unknown benchmark {part.strip()!r} (known: {', '.join(BENCHES)})")
        names.append(name)
    return [n for n in BENCHES if n in names]


def parse_extra(items: List[str]) -> Dict[str, List[str]]:
    """``--extra NAME=OPTIONS`` (repeatable): more options for one bench, split like a shell does."""
    out: Dict[str, List[str]] = {}
    for item in items or []:
        name, sep, opts = item.partition("=")
        name = name.strip().removesuffix(".py").removeprefix("bench_")
        if not sep or name not in BENCHES:
            raise SystemExit(f"--extra {item!r}: expected NAME=OPTIONS with NAME one of {', '.join(BENCHES)}")
        out.setdefault(name, []).extend(shlex.split(opts))
    return out


def bench_command(name: str, args: argparse.Namespace, json_path: Path, extra: Dict[str, List[str]]) -> List[str]:
    """The command line of one bench."""
    cmd = [sys.executable, str(HERE / BENCHES[name][0]), "--json", str(json_path)]
    if args.quick:
        cmd.append("--quick")
    for opt in ("queries", "depth", "repeat"):
        value = getattr(args, opt)
        if value is not None:
            cmd += [f"--{opt}", str(value)]
    if args.data_root:
        size = f"q{args.queries or (700 if args.quick else 7000)}_d{args.depth or 1000}"
        cmd += ["--data", str(Path(args.data_root) / size)]
    if args.working_tree:
        cmd.append("--working-tree")
    if args.live:
        cmd.append("--live")
    if args.no_phases and name in NO_PHASES:
        cmd.append("--no-phases")
    if name == "med" and args.med_c:
        cmd += ["--med-c", args.med_c]
    return cmd + extra.get(name, [])


def git_commit() -> tuple:
    """The commit of the checkout (hash and subject; None outside a git checkout), and whether its package
    directory has uncommitted changes (the benches measure the commit unless --working-tree / --live)."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %s"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "ir_rbstar"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None, False
    return head, bool(dirty)


def versions() -> Dict[str, str]:
    return {d: h.dist_version(d) for d in DISTS}


def mode_text(args: argparse.Namespace) -> str:
    return h.mode_of(argparse.Namespace(quick=args.quick, queries=args.queries, depth=args.depth or 1000,
                                        repeat=args.repeat if args.repeat is not None else 3))


def save_meta(json_dir: Path, meta: dict) -> None:
    (json_dir / META).write_text(json.dumps(meta, indent=1))


def run_benches(args: argparse.Namespace, names: List[str], json_dir: Path, argv=None) -> dict:
    """Run the benches one after the other; the run's description (also saved as DIR/run_all.json after
    each bench, so that an interrupted run keeps what it measured)."""
    extra = parse_extra(args.extra)
    commit, dirty = git_commit()
    meta = {"started": datetime.datetime.now().isoformat(timespec="seconds"),
            "argv": sys.argv[1:] if argv is None else list(argv), "mode": mode_text(args), "commit": commit,
            "uncommitted": dirty,
            "package_state": "live" if args.live else ("working tree" if args.working_tree else "committed HEAD"),
            "machine": h.machine_detail(), "versions": versions(), "load_start": h.load_average(),
            "selected": names, "benches": {}}
    save_meta(json_dir, meta)
    for i, name in enumerate(names, 1):
        json_path = json_dir / f"{name}.json"
        if json_path.exists():
            json_path.unlink()                # a stale file must not pass for this run's result
        cmd = bench_command(name, args, json_path, extra)
        h.log(f"[{i}/{len(names)}] {' '.join(shlex.quote(c) for c in cmd[1:])}")
        entry = {"command": cmd[1:], "load_start": h.load_average()}
        t = time.perf_counter()
        with open(json_dir / f"{name}.out", "w") as out, open(json_dir / f"{name}.err", "w") as err:
            if h.in_process():           # the structure tests: the bench's main() here, no subprocess
                entry["exit"] = h.run_in_process(h.script_module(BENCHES[name][0]).main, cmd[2:], stdout=out,
                                                 stderr=err)
                entry["seconds"] = time.perf_counter() - t
                entry["load_end"] = h.load_average()
                meta["benches"][name] = entry
                save_meta(json_dir, meta)
                continue
            try:
                proc = subprocess.run(cmd, stdout=out, stderr=err, cwd=str(REPO), timeout=args.timeout)
                entry["exit"] = proc.returncode
            except subprocess.TimeoutExpired:
                entry["exit"] = None
                entry["error"] = f"timed out after {args.timeout:g} s"
        entry["seconds"] = time.perf_counter() - t
        entry["load_end"] = h.load_average()
        meta["benches"][name] = entry
        save_meta(json_dir, meta)
        h.log(f"      {name}: exit {entry['exit']}, {entry['seconds']:.0f} s, {entry['load_end']}")
    meta["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
    meta["load_end"] = h.load_average()
    save_meta(json_dir, meta)
    return meta


# =============================================================================================
# Gathering the results
# =============================================================================================

def _last_error_line(path: Path) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:200] if lines else ""


def collect(meta: dict, json_dir: Path) -> List[dict]:
    """One entry per bench of BENCHES: ``status`` ok / failed / not run, its summary rows, the bench's
    JSON document (machine, package, load) and how the run went."""
    entries = []
    ran = meta.get("benches", {})
    selected = meta.get("selected") or [n for n in BENCHES if n in ran or (json_dir / f"{n}.json").exists()]
    for name, (script, family) in BENCHES.items():
        e = {"name": name, "script": script, "family": family, "run": ran.get(name, {}), "doc": None, "rows": []}
        json_path = json_dir / f"{name}.json"
        doc = None
        if json_path.exists():
            try:
                doc = json.loads(json_path.read_text())
            except (OSError, ValueError) as exc:
                e["error"] = f"{json_path.name} unreadable: {exc}"
        run = e["run"]
        if name not in selected:
            e["status"] = "not run"          # even if an older JSON file is there: it belongs to another run
        elif run and run.get("exit") != 0:
            e["status"] = "failed"
            e["error"] = run.get("error") or (f"exit status {run.get('exit')}: "
                                              + (_last_error_line(json_dir / f"{name}.err") or "no message"))
        elif doc is None:
            e["status"] = "failed"
            e.setdefault("error", f"no {json_path.name} written")
        elif not isinstance(doc.get("summary"), list) or not doc["summary"]:
            e["status"] = "failed"
            e["error"] = f"{json_path.name} has no summary rows"
        else:
            e["status"] = "ok"
            e["doc"] = doc
            e["rows"] = doc["summary"]
        entries.append(e)
    return entries


# =============================================================================================
# The table
# =============================================================================================

def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def peer_cell(row: dict, vers: Dict[str, str]) -> str:
    """The peer, named with its version(s): from the distributions of the row, or its own text."""
    label = row.get("peer") or "?"
    if row.get("peer_version"):
        ver = row["peer_version"]
    else:
        ver = ", ".join(f"{d} {vers.get(d, 'version unknown')}" for d in row.get("peer_dists") or []) or "version unknown"
    if row.get("peer_absent"):
        return f"{label}: **absent**, {row['peer_absent']}"
    return f"{label} ({ver})"


def met_cell(row: dict) -> str:
    if row.get("peer_absent"):
        return "n/a (peer absent)"
    met = row.get("met")
    return "" if met is None else ("yes" if met else "**no**")


def ratio_cell(row: dict) -> str:
    return "-" if row.get("ratio") is None else f"{row['ratio']:.2f}"


COLUMNS = ("benchmark", "task", "data", "ir_rbstar", "peer (version)", "peer's result", "ratio", "target", "met?")


def table(entries: List[dict], vers: Dict[str, str]) -> str:
    """The Markdown table of every summary row; a failed or skipped bench is one row saying so."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * 4 + "---|" + "---:|" * 2 + "---|---|"]
    for e in entries:
        if e["status"] != "ok":
            what = ("**FAILED**: " + e.get("error", "")) if e["status"] == "failed" else "not run in this call"
            cells = [e["family"], what, "", "-", "", "-", "-", "", "FAILED" if e["status"] == "failed" else ""]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
            continue
        for i, row in enumerate(e["rows"]):
            task = row["task"] + (f" ({row['note']})" if row.get("note") else "")
            cells = [row.get("family", e["family"]) if i == 0 else "", task, row.get("data", ""), row.get("ours", ""),
                     peer_cell(row, vers), row.get("other") or "-", ratio_cell(row), row.get("target", ""),
                     met_cell(row)]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def _date(meta: dict) -> str:
    return (meta.get("started") or "?").replace("T", " ")[:16]


def machine_line(meta: dict) -> str:
    m = meta.get("machine") or {}
    return (f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores, {m.get('ram', '?')} RAM, {m.get('os', '?')}, "
            f"Python {m.get('python', '?')}")


def _load(text: Optional[str]) -> str:
    return (text or "load average ?").replace("load average ", "")


# options of run_all that say where results go, not what was measured (left out of the command shown)
_WHERE = {"--write": 0, "--json-dir": 1, "--docs": 1, "--readme": 1, "--from-json": 1}


def shown_command(argv: List[str]) -> str:
    """The run_all command of a run as shown in the header, without the options that only say where the
    results went."""
    out, skip = [], 0
    for a in argv:
        if skip:
            skip -= 1
            continue
        name = a.split("=", 1)[0]
        if name in _WHERE:
            skip = 0 if "=" in a else _WHERE[name]
            continue
        out.append(shlex.quote(a))
    return " ".join(["python -m benchmarks.run_all"] + out)


def short_commit(text: Optional[str], width: int = 60) -> str:
    """A commit as ``hash subject`` cut to ``width`` characters."""
    text = text or "? (not a git checkout)"
    return text if len(text) <= width else text[:width - 3].rstrip() + "..."


def package_text(meta: dict) -> str:
    """Which ir_rbstar was measured: the state (commit, work tree, installed) and the commit."""
    commit, dirty, state = short_commit(meta.get("commit")), meta.get("uncommitted"), meta.get("package_state")
    if state == "working tree":
        return f"the work tree at commit {commit}" + (", with uncommitted changes" if dirty else "")
    if state == "live":
        return f"the installed package as it was (live), at commit {commit}"
    return f"commit {commit}" + (" (uncommitted changes in the work tree not measured)" if dirty else "")


def measured_package(doc: dict) -> str:
    """What a bench's JSON says it measured (_harness.package_under_test), shortened to the state and
    the commit."""
    desc = doc.get("package") or ""
    m = re.search(r"git ([0-9a-f]{7,40})", desc)
    commit = m.group(1) if m else "?"
    if desc.startswith("committed HEAD"):
        return f"commit {commit}" + (" (uncommitted changes not measured)" if "uncommitted" in desc else "")
    if desc.startswith("work tree"):
        return f"work tree at commit {commit}" + (" + uncommitted changes" if "uncommitted" in desc else "")
    if desc.startswith("live"):
        return f"installed package, live, at commit {commit}"
    return desc[:80]


def header(meta: dict, entries: Optional[List[dict]] = None) -> List[str]:
    """The lines above the table: when, what, on which machine, under what load. With ``entries``, a
    note when the benches measured different commits (a commit made during the run)."""
    measured = {measured_package(e["doc"]) for e in entries or [] if e.get("doc")}
    mixed = (f" The benches measured {len(measured)} different states (a commit was made during the run): "
             f"see the last table.") if len(measured) > 1 else ""
    return [
        f"Measured {_date(meta)} by `{shown_command(meta.get('argv', []))}`; mode: {meta.get('mode', '?')}; "
        f"ir_rbstar: {package_text(meta)}.{mixed}",
        f"Machine: {machine_line(meta)}; load average (1, 5, 15 min) {_load(meta.get('load_start'))} at start, "
        f"{_load(meta.get('load_end'))} at end.",
        "Versions: " + ", ".join(f"{d} {v}" for d, v in (meta.get("versions") or {}).items()) + ".",
        "Ratio = ir_rbstar's result / the peer's (time, or memory for peak RSS): below 1 means ir_rbstar is faster. "
        "Times are wall seconds, best of the rounds, each in a fresh subprocess; 'met?' is empty for "
        "information rows.",
    ]


def runs_table(entries: List[dict]) -> str:
    """How each bench ran: exit status, duration, load, the package it measured."""
    lines = ["| benchmark | status | took | load average at start / end | ir_rbstar measured |", "|---|---|---:|---|---|"]
    for e in entries:
        run, doc = e["run"], e["doc"] or {}
        took = f"{run['seconds']:.0f} s" if run.get("seconds") is not None else "-"
        status = e["status"] + (f" ({e['error']})" if e["status"] == "failed" else "")
        load = (f"{_load(run.get('load_start') or doc.get('load_start'))} / "
                f"{_load(run.get('load_end') or doc.get('load_end'))}") if e["status"] != "not run" else ""
        lines.append("| " + " | ".join(_cell(c) for c in (e["script"], status, took, load,
                                                           measured_package(doc) if doc else "")) + " |")
    return "\n".join(lines)


def docs_block(meta: dict, entries: List[dict]) -> str:
    vers = meta.get("versions") or {}
    return "\n\n".join(["\n".join(header(meta, entries)), table(entries, vers), runs_table(entries)])


def readme_block(meta: dict, entries: List[dict]) -> str:
    vers = meta.get("versions") or {}
    m = meta.get("machine") or {}
    line = (f"Measured {_date(meta)} by `python -m benchmarks.run_all` (mode: {meta.get('mode', '?')}, commit "
            f"{(meta.get('commit') or '?').split(' ')[0]}) on {m.get('cpu', '?')}, {m.get('cores', '?')} cores, "
            f"{m.get('ram', '?')} RAM, {m.get('os', '?')}, Python {m.get('python', '?')}; load average "
            f"{_load(meta.get('load_start'))} at start. Ratio = ir_rbstar / peer (below 1: ir_rbstar faster); "
            f"details and method in [docs/benchmarks.md](docs/benchmarks.md).")
    return line + "\n\n" + table(entries, vers)


def console_report(meta: dict, entries: List[dict]) -> str:
    return docs_block(meta, entries)


# =============================================================================================
# Writing the blocks
# =============================================================================================

def _docblock():
    """scripts/_docblock.py (what the report scripts share: the marker blocks of the docs)."""
    try:
        from scripts import _docblock
    except ModuleNotFoundError as error:
        if error.name != "scripts":
            raise
        raise SystemExit("writing the blocks needs scripts/_docblock.py: run from the repository root as "
                         "python -m benchmarks.run_all ...") from None
    return _docblock


def write_blocks(meta: dict, entries: List[dict], docs: Optional[Path], readme: Optional[Path]) -> List[Path]:
    """Replace the generated blocks of ``docs`` and ``readme`` (either may be None). Both documents are
    checked (each marker exactly once) before either is written. Returns the files written."""
    db = _docblock()
    todo = []
    for path, block, start, end in ((docs, docs_block(meta, entries), DOCS_START, DOCS_END),
                                    (readme, readme_block(meta, entries), README_START, README_END)):
        if path is None:
            continue
        text = Path(path).read_text()
        try:
            new = db.replace_block(text, block, start, end)
        except ValueError:
            raise SystemExit(f"{path}: needs exactly one line {start} followed by one line {end} "
                             f"(the generated block goes between them)")
        todo.append((Path(path), new))
    for path, new in todo:
        path.write_text(new)
        h.log(f"wrote {path}")
    return [p for p, _ in todo]


# =============================================================================================
# Command line
# =============================================================================================

def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Options --quick, --queries, --depth, --repeat, --working-tree, --live and "
                                        "--no-phases are passed to every bench (--no-phases only to those that "
                                        "have it), --med-c to bench_med.py.")
    ap.add_argument("--quick", action="store_true", help="smoke run of every bench (700 queries, synthetic data only)")
    ap.add_argument("--only", metavar="NAMES", help="comma list of benches to run: " + ", ".join(BENCHES))
    ap.add_argument("--queries", type=int, help="synthetic queries of every bench (default: 7000, --quick 700)")
    ap.add_argument("--depth", type=int, help="synthetic run depth (default 1000)")
    ap.add_argument("--repeat", type=int, help="rounds per contender (the benches' default: 3)")
    ap.add_argument("--data-root", metavar="DIR", help="keep the synthetic files in DIR/q<queries>_d<depth>, shared "
                                                       "by the benches and reused by later runs (default: each bench "
                                                       "generates into its own temporary directory)")
    ap.add_argument("--med-c", metavar="PATH", help="the authors' C program med for bench_med.py (GPL, not shipped; "
                                                    "without it the MED rows say the peer is absent)")
    ap.add_argument("--working-tree", action="store_true", help="measure the work tree instead of the last commit")
    ap.add_argument("--live", action="store_true", help="measure the installed package as it is")
    ap.add_argument("--no-phases", action="store_true", help="skip the per-phase profiles where a bench allows it")
    ap.add_argument("--extra", action="append", metavar="NAME=OPTIONS",
                    help="more options for one bench, e.g. --extra 'rankbiased=--rbo-budget 30' (repeatable)")
    ap.add_argument("--timeout", type=float, help="seconds after which a bench is stopped and reported as failed")
    ap.add_argument("--json-dir", metavar="DIR", help="where the JSON results, reports and run_all.json go "
                                                      "(default: a new temporary directory, kept)")
    ap.add_argument("--from-json", metavar="DIR", help="run nothing: render the results already in DIR "
                                                       "(a --json-dir of an earlier run)")
    ap.add_argument("--write", action="store_true", help="replace the generated blocks of --docs and --readme")
    ap.add_argument("--docs", default=str(DOCS), help="page with the full table (default: %(default)s)")
    ap.add_argument("--readme", default="none", help="a file with the short table between its markers "
                                                     "(default: none; README.md holds a hand-picked excerpt)")
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.from_json:
        json_dir = Path(args.from_json)
        meta_path = json_dir / META
        if meta_path.exists():
            meta = json.loads(meta_path.read_text())
        else:
            meta = {"versions": versions(), "mode": "?", "commit": "?",
                    "note": "no run_all.json: versions are those installed now"}
    else:
        names = select(args.only)
        json_dir = Path(args.json_dir) if args.json_dir else Path(tempfile.mkdtemp(prefix="rbstar-bench-all-"))
        json_dir.mkdir(parents=True, exist_ok=True)
        h.log(f"results, reports and logs go to {json_dir}")
        meta = run_benches(args, names, json_dir, argv)
    entries = collect(meta, json_dir)
    print(console_report(meta, entries))
    print(f"\n(raw results: {json_dir})")
    if args.write:
        readme = None if args.readme.lower() == "none" else Path(args.readme)
        write_blocks(meta, entries, Path(args.docs), readme)
    return 1 if any(e["status"] == "failed" for e in entries) else 0


if __name__ == "__main__":
    sys.exit(main())
