"""The documentation in docs/: every example runs and prints what the page shows, the generated measure
reference matches the declarations, and the links resolve.

(a) Every ```python block of every docs/*.md page runs in a temporary directory (so an example cannot
    lean on the repository's layout: bundled data comes from ``ir_rbstar.demo.data_dir()``), in order,
    in one namespace per page; the lines ``# ...`` under a ``print`` are its expected output. Every
    ```console block holds ``$ ir-rbstar ...`` commands, run as ``python -m ir_rbstar ...`` in a
    temporary directory, each followed by its exact expected stdout; a line ``$ cd "$(python -c ...
    data_dir())"`` (DATA_CD) moves the rest of the block into the folder of the bundled collection.
    Other blocks (```sh, ```text, unlabelled) are not run.
(b) ``scripts/make_docs.py --check`` passes, and detects a stale page.
(c) Every measure of ``ir_rbstar.MEASURES`` has exactly one entry in the generated references of the
    family pages, its signature there parses back to the measure at its defaults, the value a
    declaration gives for a query the run does not answer is what the provider computes, and every
    relative link and image of the pages (docs/index.md included) resolves, anchors included; index.md
    links every page.
(d) No page points at files outside the repository (papers/..., ../shared/..., a "SPEC" section):
    sources are cited by author, year, venue and DOI, and data that is not redistributed is named.
"""
import contextlib
import io
import os
import re
import shlex
import shutil

import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.demo import data_dir
from ir_rbstar.measures import RbstarMeasure
from tests.helpers import REPO, expected_python_output, load_script, run_command

DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
FENCE = re.compile(r"^```([\w+-]*)\s*$")

md = load_script("make_docs")

# the one shell line the console examples may use: go to the folder of the bundled collection
DATA_CD = 'cd "$(python -c \'import ir_rbstar.demo; print(ir_rbstar.demo.data_dir())\')"'


def run_console_block(block, where, tmp_path, ran=None):
    """Run the ``$ ir-rbstar ...`` commands of a console block in ``tmp_path`` (or, after a DATA_CD
    line, in the bundled collection's folder) and compare each one's stdout with the lines under it.
    ``ran``: ``{argv: (exit code, stdout, stderr)}`` of commands this session already ran exactly so (in
    a temporary folder, with the caches cleared), whose output is taken instead of running them again."""
    assert block.startswith("$ "), f"{where}: a console block starts with a command"
    cwd = tmp_path
    for chunk in block.split("\n$ "):
        command, *expected = chunk.removeprefix("$ ").rstrip("\n").split("\n")
        if command == DATA_CD:
            assert not expected, f"{where}: {command} prints nothing"
            cwd = data_dir()
            continue
        assert "shared/data" not in command, f"{where}: runs without ../shared/data"
        argv = shlex.split(command)
        assert argv[0] == "ir-rbstar", f"{where}: {command}"
        if ran and cwd == tmp_path and tuple(argv[1:]) in ran:
            rc, stdout, stderr = ran[tuple(argv[1:])]
        else:
            moved = _outside_tmp(argv, tmp_path)
            rc, stdout, stderr = run_command([moved.get(a, a) for a in argv[1:]], cwd)
            for page_path, path in moved.items():     # the output names the page's path, as the page shows
                stdout = stdout.replace(path, page_path)
        assert rc == 0, f"{where}: {command}\n{stderr}"
        assert stdout.splitlines() == expected, f"{where}: {command}"


def _outside_tmp(argv, tmp_path):
    """{a path of the page under /tmp: the same path under ``tmp_path``} for the arguments that name one (an
    example's ``--output /tmp/...``): the test writes into its own folder, never into the machine's /tmp, where
    another run (or whoever runs the example) writes the same files."""
    moved = {}
    for arg in argv[1:]:
        if arg.startswith("/tmp/"):
            moved[arg] = str(tmp_path / "tmp" / arg[len("/tmp/"):])
            os.makedirs(os.path.dirname(moved[arg]), exist_ok=True)
    return moved


def fenced_blocks(text):
    """``(language, code, first line number)`` of every fenced block (```lang ... ```) of a page;
    an unlabelled block has the language ''."""
    blocks, lang, start, lines = [], None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if lang is None:
            if match:
                lang, start, lines = match.group(1), number + 1, []
        elif line.strip() == "```":
            blocks.append((lang, "\n".join(lines) + "\n", start))
            lang = None
        else:
            lines.append(line)
    assert lang is None, f"a fenced block opened at line {start - 1} is not closed"
    return blocks


def outside_code(text):
    """The lines of a page that are not inside a fenced block."""
    out, inside = [], False
    for line in text.splitlines():
        if FENCE.match(line) or (inside and line.strip() == "```"):
            inside = not inside
            continue
        if not inside:
            out.append(line)
    return out


def test_console_examples_write_into_the_tests_folder_not_into_tmp(tmp_path):
    """An example's ``--output /tmp/...`` is written under the test's folder; its printed path reads as the page's."""
    import uuid
    name = f"/tmp/ir_rbstar_test_{uuid.uuid4().hex}.png"
    run_console_block(f"$ {DATA_CD}\n$ ir-rbstar plot crp qrels bm25.run.gz --query 2 --output {name}\n{name}\n",
                      "here", tmp_path)
    assert not os.path.exists(name)
    assert (tmp_path / "tmp" / name[len("/tmp/"):]).stat().st_size > 0


def test_fenced_blocks_parser():
    text = "a\n```python\nprint(1)\n# 1\n```\n```\nplain\n```\n```console\n$ ir-rbstar x\n```\n"
    assert fenced_blocks(text) == [("python", "print(1)\n# 1\n", 3), ("", "plain\n", 7),
                                   ("console", "$ ir-rbstar x\n", 10)]
    assert outside_code(text) == ["a"]


@pytest.fixture
def clean_registry():
    """What a page registers (runs, groups) is dropped afterwards; what was there before stays."""
    registry = ir_rbstar.references
    runs, groups = dict(registry._REGISTERED), dict(registry._GROUPS)
    yield
    registry._REGISTERED.clear()
    registry._REGISTERED.update(runs)
    registry._GROUPS.clear()
    registry._GROUPS.update(groups)


# ---------------------------------------------------------------------------------------------
# (a) every example runs and prints what the page shows

@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_python_examples_print_what_the_page_shows(page, monkeypatch, clean_registry, tmp_path):
    blocks = [(code, line) for lang, code, line in fenced_blocks(page.read_text()) if lang == "python"]
    if not blocks:
        pytest.skip(f"{page.name} has no python example")
    if any(re.search(r"^\s*(import|from) pyterrier", code, flags=re.M) for code, _ in blocks):
        pytest.importorskip("pyterrier")
    monkeypatch.chdir(tmp_path)                      # not the repository: examples run from anywhere
    namespace = {"__name__": f"docs_{page.stem}"}
    for code, line in blocks:
        assert "shared/data" not in code and "../shared" not in code, \
            f"{page.name}:{line}: examples must run without ../shared/data (use a ```sh block)"
        assert "ir_rbstar/data/" not in code, \
            f"{page.name}:{line}: reach the bundled data through ir_rbstar.demo.data_dir()"
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, f"docs/{page.name}:{line}", "exec"), namespace)
        printed = [text.rstrip() for text in buf.getvalue().splitlines()]
        expected = [text.rstrip() for text in expected_python_output(code)]
        assert printed == expected, f"docs/{page.name}, block at line {line}:\n{code}"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_console_examples_print_what_the_page_shows(page, tmp_path, request):
    blocks = [(code, line) for lang, code, line in fenced_blocks(page.read_text()) if lang == "console"]
    if not blocks:
        pytest.skip(f"{page.name} has no console example")
    ran = None
    if page.name == "report.md":            # its demo report, run once for this test and test_report.py
        demo = request.getfixturevalue("demo_report_run")
        ran = {demo["argv"]: (demo["rc"], demo["stdout"], demo["stderr"])}
    for block, line in blocks:
        run_console_block(block, f"docs/{page.name}:{line}", tmp_path, ran)


def test_console_block_runner(tmp_path):
    """A block runs where it says: without DATA_CD the bundled files are not found (proof that the
    runner does not sit in the repository), after it they are."""
    command = "$ ir-rbstar none bm25.run.gz \"RBO(p=0.9,ref='minilm_rerank.run.gz')@10\"\n"
    with pytest.raises(AssertionError):
        run_console_block(command + "whatever\n", "here", tmp_path)
    rc, stdout, _ = run_command(shlex.split(command[2:])[1:], data_dir())
    assert rc == 0
    run_console_block(f"$ {DATA_CD}\n{command}{stdout}", "here", tmp_path)


def test_the_family_pages_and_the_index_have_examples():
    """The pages this test was written for keep at least one example that runs."""
    for name in ("index.md", "guide.md", "rankbiased.md", "ties.md", "twist.md", "nrg.md", "med.md"):
        langs = [lang for lang, _, _ in fenced_blocks((DOCS / name).read_text())]
        assert "python" in langs, name
    text = (DOCS / "rankbiased.md").read_text()
    for value in ("0.7105", "0.5828", "0.54 0.62 0.70 0.96 0.96 0.89"):
        assert value in text                   # Moffat et al., SIGIR-AP 2024, Tables 1 and 3


# ---------------------------------------------------------------------------------------------
# (b) the generated blocks are current

def test_make_docs_check_passes(capsys):
    """``python -m scripts.make_docs --check`` (docs/develop.md), its ``main`` called in this process."""
    rc = md.main(["--check"])
    assert rc == 0, capsys.readouterr().err
    assert capsys.readouterr().err == "docs are current\n"


def test_make_docs_check_finds_a_stale_page(tmp_path, monkeypatch):
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy)
    monkeypatch.setattr(md, "DOCS", copy)
    monkeypatch.setattr(md, "INDEX", copy / "index.md")
    assert md.stale() == []
    page = copy / "twist.md"
    page.write_text(page.read_text().replace("`Twist_rho(rel=1)@k`", "`Twist_rho(rel=2)@k`", 1))
    assert md.stale() == [page]
    assert md.main(["--check"]) == 1
    md.main(["--write"])
    assert md.stale() == []
    index = copy / "index.md"
    index.write_text(index.read_text().replace(md.INDEX_END, "", 1))     # a marker missing
    assert md.stale() == [index]


def test_docstring_summary_must_be_one_line():
    class Bad(RbstarMeasure):
        """A summary that goes on
        to a second line."""
        NAME = "Bad"

    class Good(RbstarMeasure):
        """A summary.

        More."""
        NAME = "Good"
    with pytest.raises(ValueError, match="one-line summary"):
        md.docstring(Bad())
    assert md.summary(Good()) == "A summary."


# ---------------------------------------------------------------------------------------------
# (c) the reference covers every measure once; the links resolve

def reference_entries():
    """{measure name: [(page, signature)]} from the generated blocks of every page that has one."""
    entries = {}
    for page in PAGES:
        text = page.read_text()
        if md.START not in text:
            continue
        block = md.generated_block(text)
        for name, sig in re.findall(r"^### `(\w+)`\n\n`([^`\n]+)`$", block, flags=re.M):
            entries.setdefault(name, []).append((page.name, sig))
    return entries


def test_every_measure_is_in_exactly_one_family_reference():
    entries = reference_entries()
    names = [m.NAME for m in ir_rbstar.MEASURES]
    assert len(names) == len(set(names))
    for name in names:
        assert len(entries.get(name, [])) == 1, f"{name}: {entries.get(name)}"
    assert sorted(entries) == sorted(names), set(entries) ^ set(names)
    for m in ir_rbstar.MEASURES:                       # each on its own family's page
        assert entries[m.NAME][0][0] == md.FAMILIES[m.FAMILY][0]


def test_index_lists_every_measure():
    table = md.index_block((DOCS / "index.md").read_text())
    listed = re.findall(r"^\| \[`(\w+)`\]", table, flags=re.M)
    assert listed == [m.NAME for f in md.FAMILIES for m in md.measures_of(f)]
    assert sorted(listed) == sorted(m.NAME for m in ir_rbstar.MEASURES)


def _placeholder(info):
    return {str: "'x'", int: "3", float: "0.5", bool: "True"}[info.dtype]


@pytest.mark.parametrize("measure", ir_rbstar.MEASURES, ids=[m.NAME for m in ir_rbstar.MEASURES])
def test_reference_signature_parses_to_the_measure_at_its_defaults(measure):
    """The signature shown, with the required parameters filled in and @k as @7, is the same measure as
    the one with only those parameters given: the defaults shown are the declared ones."""
    (_, sig), = reference_entries()[measure.NAME]
    required = {name: _placeholder(info) for name, info in measure.SUPPORTED_PARAMS.items()
                if info.required and name != measure.AT_PARAM}
    text = sig
    for name, value in required.items():
        text = re.sub(rf"(?<=[(\s]){name}(?=[,)])", f"{name}={value}", text, count=1)
    text = text.replace("@k", "@7")
    shown = ir_rbstar.parse(text)
    assert len(shown) == 1, text
    given = ", ".join(f"{name}={value}" for name, value in required.items())
    plain = measure.NAME + (f"({given})" if given else "") + ("@7" if "@k" in sig else "")
    assert shown[0] == ir_rbstar.parse(plain)[0], (text, plain)
    # a default that differs from the declared one would show in the label
    for name, _info in measure.SUPPORTED_PARAMS.items():
        if name in required or name == measure.AT_PARAM:
            continue
        assert f"{name}=" in sig, (name, sig)


def test_declared_value_for_an_unanswered_query_is_what_the_provider_gives(clean_registry):
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 2}}
    run = {"q1": {"a": 2.0, "x": 1.0}}                                     # q2 is not answered
    ir_rbstar.register_run("docs_ref", {"q1": {"a": 2.0, "b": 1.0}, "q2": {"d": 2.0, "c": 1.0}})
    ir_rbstar.register_runs("docs_group", {"r": {"q1": {"b": 1.0}, "q2": {"c": 1.0}}})
    declared = [m for m in ir_rbstar.MEASURES if md.declared_default(m) is not None]
    assert {m.NAME for m in declared} >= {"RBP_res", "RBA_res", "RBO_res"}
    for proto in declared:
        given = {"ref": "docs_ref", "prior": "docs_group", "runs": "docs_group", "max_rel": 2}
        m = type(proto)(**{k: v for k, v in given.items() if k in proto.SUPPORTED_PARAMS})
        required = proto.SUPPORTED_PARAMS.get("cutoff") is not None and proto.SUPPORTED_PARAMS["cutoff"].required
        for cutoff in ((3,) if required else (None, 3)):
            measure = m if cutoff is None else m @ cutoff
            values = {v.query_id: v.value for v in ir_measures.iter_calc([measure], qrels, run)}
            assert values["q2"] == pytest.approx(md.declared_default(proto), abs=1e-12), str(measure)


def github_anchors(text):
    """The anchors GitHub gives the headings of a page (duplicates numbered -1, -2, ...)."""
    seen, out = {}, set()
    for line in outside_code(text):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))     # a link: its text
        slug = md.anchor(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_anchor_function():
    assert md.anchor("`RBR_res`") == "rbr_res"
    assert md.anchor("Test collections from ir_datasets") == "test-collections-from-ir_datasets"
    assert md.anchor("Example: the paper's Table 1") == "example-the-papers-table-1"
    assert github_anchors("# A\n## A\n```python\n# A\n```\n### `B_c`\n") == {"a", "a-1", "b_c"}


def links(text):
    """Targets of the Markdown links and images of a page, outside code blocks and code spans."""
    body = "\n".join(re.sub(r"`[^`]*`", "", line) for line in outside_code(text))
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", body)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_relative_links_and_images_resolve(page):
    for target in links(page.read_text()):
        if re.match(r"^[a-z]+:", target):                  # http:, https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"docs/{page.name}: {target} does not exist"
        if fragment and resolved.suffix == ".md":
            assert fragment in github_anchors(resolved.read_text()), f"docs/{page.name}: no anchor {target}"


def test_index_links_every_page_and_the_recipes():
    targets = set(links((DOCS / "index.md").read_text()))
    pages = {target.partition("#")[0] for target in targets}
    for page in PAGES:
        assert page.name == "index.md" or page.name in pages, f"docs/index.md does not link {page.name}"
    for target in ("guide.md#pyterrier", "guide.md#test-collections-from-ir_datasets-offline",
                   "guide.md#command-line", "guide.md#bad-input", "guide.md#one-query-one-number"):
        assert target in targets, target


# ---------------------------------------------------------------------------------------------
# (d) nothing points outside the repository

OUTSIDE = re.compile(r"papers/00\d|\bSPEC\b|\.\./shared")


def without_generated_blocks(text):
    """A page without its generated blocks (<!-- name:start --> ... <!-- name:end -->): those are written
    from docstrings and scripts, and are checked where they are generated."""
    return re.sub(r"<!-- ([\w-]+):start -->.*?<!-- \1:end -->", "", text, flags=re.S)


@pytest.mark.parametrize("path", [*PAGES, REPO / "README.md", REPO / "benchmarks" / "README.md"],
                         ids=[*(p.name for p in PAGES), "README.md", "benchmarks/README.md"])
def test_no_reference_to_files_outside_the_repository(path):
    text = without_generated_blocks(path.read_text())
    found = [f"{path.relative_to(REPO)}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not found, "cite papers by author, year, venue and DOI; name the data:\n" + "\n".join(found)


def test_generated_blocks_point_nowhere_outside_the_repository():
    found = []
    for path in [*PAGES, REPO / "README.md", REPO / "benchmarks" / "README.md"]:
        text = path.read_text()
        generated = "\n".join(m.group(0) for m in re.finditer(r"<!-- ([\w-]+):start -->.*?<!-- \1:end -->",
                                                              text, flags=re.S))
        found += [f"{path.relative_to(REPO)}: {line.strip()[:100]}" for line in generated.splitlines()
                  if OUTSIDE.search(line)]
    assert not found, "\n".join(found)
