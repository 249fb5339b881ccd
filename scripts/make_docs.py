"""Generate the measure reference of every family page in docs/, the table of measures of docs/index.md and
the README's families table and sources from the measure declarations (ir_rbstar/measures/*.py) and the
table of families (ir_rbstar/measures/families.py), so that the pages cannot drift from the code.

For every measure of a family (its ``FAMILY``), the family page gets: its name, its signature with the
defaults (``RBR(p=0.8, ref=None, rel=1)@k``), a table of its parameters (from ``SUPPORTED_PARAMS``:
type, default, whether required, the ``ParamInfo`` description), its default cutoff, the value for a
query the run does not answer where the declaration sets one (``DEFAULT``), the parameters its label
always shows, and its docstring (formula, edge cases, citation). docs/index.md gets one row per measure:
its name (linked to its entry), its family page and the first line of its docstring.

    python -m scripts.make_docs            # print the blocks
    python -m scripts.make_docs --write    # rewrite the generated blocks of the pages
    python -m scripts.make_docs --check    # exit with status 1 when a page is out of date
"""
from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional

import ir_rbstar
from ir_measures.measures import Measure
from ir_rbstar.measures.base import NOT_PROVIDED as _NOT_PROVIDED
from ir_rbstar.measures.families import CITATIONS, FAMILIES as FAMILY_TABLE

# _docblock: the generated block of a document between two marker comments
if __package__:      # python -m scripts.make_docs (from the repository root), or imported as scripts.make_docs
    from . import _docblock
else:                # python -m scripts.make_docs: this file's folder is the first entry of the path
    import _docblock

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
INDEX = DOCS / "index.md"
START, END, generated_block, replace_block = _docblock.markers("measure-reference")
INDEX_START, INDEX_END, index_block, _ = _docblock.markers("measure-table")

README = REPO / "README.md"
README_FAMILIES = _docblock.markers("readme-families")[:2]
README_SOURCES = _docblock.markers("readme-sources")[:2]

#: FAMILY of the declarations -> (page in docs/, label, the module that declares the family), from the one
#: table of families (ir_rbstar.measures.families.FAMILIES)
FAMILIES: Dict[str, tuple] = {key: (f.page, f.label, key) for key, f in FAMILY_TABLE.items()}

#: the README's rows after the families: pages that are not a family of measures
README_EXTRA_ROWS = [
    ["first-stage study", "`RBR` against cost, the Pareto frontier",
     "which first stage hands a re-ranker the best set for its cost?", "[docs/first_stage.md](docs/first_stage.md)"],
    ["report", "`ir-rbstar report`", "every family, ranks and significance tests for several runs, in one folder",
     "[docs/report.md](docs/report.md)"],
]



def measures_of(family: str) -> List[Measure]:
    """The prototypes of ``ir_rbstar.MEASURES`` declared with ``FAMILY == family``, in declaration order."""
    return [m for m in ir_rbstar.MEASURES if m.FAMILY == family]


def docstring(measure: Measure) -> str:
    """The measure class's docstring, dedented; ValueError unless its first paragraph is one line (the
    summary that docs/index.md shows)."""
    doc = inspect.getdoc(type(measure))
    if not doc or not doc.strip():
        raise ValueError(f"{measure.NAME}: the declaration has no docstring")
    lines = doc.strip().splitlines()
    if len(lines) > 1 and lines[1].strip():
        raise ValueError(f"{measure.NAME}: the docstring's first paragraph must be a one-line summary "
                         f"(then a blank line): {lines[0]!r}")
    return doc.strip()


def summary(measure: Measure) -> str:
    """The first line of the measure's docstring."""
    return docstring(measure).splitlines()[0].strip()


def declared_default(measure: Measure) -> Optional[float]:
    """``DEFAULT``: the value for a query the run does not answer, which every declaration states (None
    where it depends on the reference, as for MED)."""
    return measure.DEFAULT


def _value(value) -> str:
    """A parameter value as it is written in a measure string."""
    if value is _NOT_PROVIDED or value is None:
        return "None"
    return repr(value)


def signature(measure: Measure) -> str:
    """``NAME(param=default, ...)@k``: required parameters without a default are shown bare; the cutoff
    (``@k``) is shown when the measure takes one."""
    parts = []
    for name, info in measure.SUPPORTED_PARAMS.items():
        if name == measure.AT_PARAM:
            continue
        if info.required and info.default is _NOT_PROVIDED:
            parts.append(name)
        else:
            parts.append(f"{name}={_value(info.default)}")
    text = measure.NAME + (f"({', '.join(parts)})" if parts else "")
    if measure.AT_PARAM in measure.SUPPORTED_PARAMS:
        text += "@k"
    return text


def _cell(text: str) -> str:
    """Text for a Markdown table cell: RST literals as Markdown code, no raw pipes or newlines."""
    text = re.sub(r"``(.+?)``", r"`\1`", " ".join(str(text).split()))
    return text.replace("|", "\\|")


def default_cutoff(measure: Measure) -> Optional[int]:
    return getattr(measure, "DEFAULT_CUTOFF", None)


def param_table(measure: Measure) -> str:
    rows = []
    for name, info in measure.SUPPORTED_PARAMS.items():
        is_cutoff = name == measure.AT_PARAM
        label = f"`@k` (`{name}`)" if is_cutoff else f"`{name}`"
        dtype = info.dtype.__name__ if info.dtype is not None else "any"
        if is_cutoff:
            cut = default_cutoff(measure)
            default = "—" if info.required else (f"`{cut}`" if cut is not None else "none: the whole run")
        elif info.required and info.default is _NOT_PROVIDED:
            default = "—"
        else:
            default = f"`{_value(info.default)}`"
        desc = info.desc or ""
        if info.choices is not _NOT_PROVIDED:
            desc += "; one of " + ", ".join(f"`{c!r}`" for c in info.choices)
        rows.append([label, dtype, default, "yes" if info.required else "no", _cell(desc)])
    return _docblock.md_table(["parameter", "type", "default", "required", "description"],
                              "|---|---|---|---|---|", rows)


def measure_entry(measure: Measure) -> str:
    facts = []
    if measure.AT_PARAM in measure.SUPPORTED_PARAMS:
        info = measure.SUPPORTED_PARAMS[measure.AT_PARAM]
        cut = default_cutoff(measure)
        facts.append("Cutoff: required." if info.required else
                     f"Default cutoff: {cut}." if cut is not None else "Default cutoff: none (the whole run).")
    default = declared_default(measure)
    if default is not None:
        facts.append(f"Value for a query the run does not answer: {default!r}.")
    shown = tuple(measure.ALWAYS_SHOWN)
    if shown:
        facts.append("Its label always shows " + ", ".join(f"`{s}`" for s in shown) + ".")
    doc = docstring(measure)
    if "```" in doc:
        raise ValueError(f"{measure.NAME}: the docstring must not contain ``` (it is shown in a code block)")
    lines = [f"### `{measure.NAME}`", "", f"`{signature(measure)}`", "", param_table(measure), ""]
    if facts:
        lines += [" ".join(facts), ""]
    return "\n".join(lines + ["```text", doc, "```"])


def family_block(family: str) -> str:
    """The generated reference of one family page."""
    page, title, module = FAMILIES[family]
    measures = measures_of(family)
    if not measures:
        raise ValueError(f"no measure declares FAMILY = {family!r}")
    mod = sys.modules[f"ir_rbstar.measures.{module}"]
    lines = [
        f"Generated from the declarations in `ir_rbstar/measures/{module}.py` by "
        "`python -m scripts.make_docs --write`; `tests/test_docs.py` fails when this block is out of date. "
        "Measures: " + ", ".join(f"[`{m.NAME}`](#{anchor(m.NAME)})" for m in measures) + ".",
        "",
        f"What the whole family shares (the module's docstring, `help(ir_rbstar.measures.{module})`):",
        "",
        "```text",
        inspect.getdoc(mod).strip(),
        "```",
    ]
    for m in measures:
        lines += ["", measure_entry(m)]
    return "\n".join(lines)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation other than ``-`` and ``_`` dropped, spaces
    as ``-``."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def index_table() -> str:
    """The table of every measure for docs/index.md."""
    rows = []
    known = set()
    for family, (page, title, _) in FAMILIES.items():
        for m in measures_of(family):
            known.add(m.NAME)
            rows.append([f"[`{m.NAME}`]({page}#{anchor(m.NAME)})", f"[{title}]({page})", _cell(summary(m))])
    missing = [m.NAME for m in ir_rbstar.MEASURES if m.NAME not in known]
    if missing:
        raise ValueError(f"measures of no documented family: {missing} (add their FAMILY to FAMILIES)")
    return _docblock.md_table(["measure", "family", "what it measures"], "|---|---|---|", rows)


def readme_families() -> str:
    """The README's table of the families: label, measures, the question they answer, the page."""
    rows = []
    for key, f in FAMILY_TABLE.items():
        names = ", ".join(f"`{m.NAME}`" for m in measures_of(key))
        rows.append([f.label, names, f.question, f"[docs/{f.page}](docs/{f.page})"])
    return _docblock.md_table(["family", "measures", "what they answer", "page"], "|---|---|---|---|",
                              rows + README_EXTRA_ROWS)


def readme_sources() -> str:
    """The README's list of the papers, from the citations of the families."""
    def cite(c) -> str:
        note = f" ({c.note})" if c.note else ""
        return f"{c.authors}. *{c.title}.* {c.venue}, {c.year}. {c.url}{note}"

    lines = [f"- **{f.label}** ({', '.join(m.NAME for m in measures_of(key))}): {cite(f.citation)}"
             for key, f in FAMILY_TABLE.items()]
    earlier = [c for f in FAMILY_TABLE.values() for c in f.also]
    lines += [f"- earlier, {c.short}: {cite(c)}" for c in CITATIONS.values() if c in earlier]
    return "\n".join(lines)


def blocks() -> Dict[Path, tuple]:
    """Every generated block: document -> (block, start marker, end marker)."""
    out = {DOCS / page: (family_block(family), START, END) for family, (page, _, _) in FAMILIES.items()}
    out[INDEX] = (index_table(), INDEX_START, INDEX_END)
    return out


def readme_blocks() -> List[tuple]:
    """The README's generated blocks: (block, start marker, end marker)."""
    return [(readme_families(), *README_FAMILIES), (readme_sources(), *README_SOURCES)]


def stale() -> List[Path]:
    """The documents whose generated block differs from what the declarations give now (or that lack
    the markers)."""
    out = []
    for doc, (block, start, end) in blocks().items():
        try:
            current = _docblock.generated_block(doc.read_text(), start, end)
        except (OSError, ValueError):
            out.append(doc)
            continue
        if current != block:
            out.append(doc)
    return out + stale_readme()


def stale_readme() -> List[Path]:
    """[README] when one of its generated blocks differs from what the declarations give now."""
    text = README.read_text()
    for block, start, end in readme_blocks():
        try:
            if _docblock.generated_block(text, start, end) != block:
                return [README]
        except ValueError:
            return [README]
    return []


def _shown(path: Path) -> str:
    """A path relative to the repository when it lies inside it."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="rewrite the generated blocks of the pages")
    group.add_argument("--check", action="store_true",
                       help="exit with status 1 when a page's generated block is out of date")
    args = parser.parse_args(argv)
    if args.check:
        bad = stale()
        for doc in bad:
            print(f"{_shown(doc)} is stale: run  python -m scripts.make_docs --write", file=sys.stderr)
        if not bad:
            print("docs are current", file=sys.stderr)
        return 1 if bad else 0
    for doc, (block, start, end) in blocks().items():
        if args.write:
            _docblock.write_block(doc, block, start, end)
        else:
            print(f"{_shown(doc)}:\n{block}\n")
    for block, start, end in readme_blocks():
        if args.write:
            _docblock.write_block(README, block, start, end)
        else:
            print(f"README.md:\n{block}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
