"""The package's shape: no import circle (lazy imports inside functions included), no module over about
500 lines, a note at the top of every module, only public ir_measures names, and no reference to files
a user does not have."""
import ast
import functools
import pathlib
import re

import ir_rbstar

PACKAGE = pathlib.Path(ir_rbstar.__file__).parent
MAX_LINES = 500


def _modules():
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_pkg)
    return out


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    """A module's syntax tree, parsed once for the tests of this file (they only read it; three of them
    parsed every module of the package again, 0.7-0.8 s of CPU each)."""
    return ast.parse(path.read_text())


def import_graph():
    """module -> the package modules it imports anywhere in its text (top level or inside functions)."""
    mods = _modules()
    edges = {m: set() for m in mods}
    for mod, (path, is_pkg) in mods.items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    name = f"{target}.{alias.name}"
                    hit = name if name in mods else target
                    if hit in mods and hit != mod:
                        edges[mod].add(hit)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in mods and alias.name != mod:
                        edges[mod].add(alias.name)
    return edges


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle():
    edges = import_graph()
    assert sum(len(v) for v in edges.values()) > 100          # the graph was read
    assert cycles(edges) == []


def test_no_module_over_500_lines():
    sizes = {m: len(p.read_text().splitlines()) for m, (p, _) in _modules().items()}
    assert {m: n for m, n in sizes.items() if n > MAX_LINES} == {}


def test_every_module_says_what_it_holds():
    missing = [m for m, (p, _) in _modules().items() if not ast.get_docstring(_tree(p))]
    assert missing == []


def test_only_public_ir_measures_names():
    bad = []
    for m, (path, _) in _modules().items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ir_measures"):
                private_module = any(part.startswith("_") or part in ("base", "util", "rbp")
                                     for part in node.module.split(".")[1:])
                private_name = any(a.name.startswith("_") for a in node.names)
                if private_module or private_name:
                    bad.append(f"{m}: from {node.module} import {', '.join(a.name for a in node.names)}")
    assert bad == []


def test_no_reference_to_files_users_do_not_have():
    pattern = re.compile(r"papers/00\d|\bSPEC\b|\.\./shared")
    hits = [f"{m}: {line.strip()[:80]}" for m, (p, _) in _modules().items()
            for line in p.read_text().splitlines() if pattern.search(line)]
    assert hits == []
