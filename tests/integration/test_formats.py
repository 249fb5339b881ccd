"""ir_rbstar.report.formats: results tables as TSV, JSON, JSONL, Markdown, LaTeX and HTML.

Independent checks: JSON/JSONL parsed back with ``json``, TSV with pandas; LaTeX read back by a small
tokenizer here (environments, rules, cells, escapes undone by hand); Markdown split on unescaped pipes;
HTML parsed with the stdlib ``html.parser``, the embedded PNG decoded and compared byte for byte."""
import base64
import io
import json
import math
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from tests.conftest import examples

from ir_rbstar.errors import ParameterError
from ir_rbstar.report.formats import (FORMATS, SUFFIXES, Cell, ResultsTable, to_html, to_json, to_jsonl, to_latex,
                                      to_markdown, to_tsv, write_table)

NAN = math.nan
MEASURES = ("nDCG@10", "RBO(p=0.9,ref='bm25')", "MED_nDCG@10")
RUNS = ("bm25", "rm3_x", "dense&co 50%")


def sample(**kw):
    cells = ((Cell(0.4123, 0.39, 0.43), Cell(1.0), Cell(0.0)),
             (Cell(0.4567, 0.44, 0.47, 0.01, "better"), Cell(0.81, 0.7, 0.9, 0.2, "worse"),
              Cell(0.05, p=0.001, direction="worse")),
             (Cell(0.39, 0.37, 0.41, 0.03, "worse"), Cell(NAN), Cell(0.02, p=0.04, direction="better")))
    kw = {"baseline": "bm25", "lower_is_better": frozenset({"MED_nDCG@10"}), **kw}
    return ResultsTable(RUNS, MEASURES, cells, **kw)


def _num(x):
    return None if x is None or math.isnan(x) else x


# ---------------------------------------------------------------- round trips

def test_json_round_trip():
    t = sample()
    text = to_json(t)
    doc = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert doc["runs"] == list(RUNS) and doc["measures"] == list(MEASURES)
    assert doc["baseline"] == "bm25" and doc["alpha"] == 0.05 and doc["lower_is_better"] == ["MED_nDCG@10"]
    assert len(doc["cells"]) == 9
    for rec in doc["cells"]:
        c = t.cells[RUNS.index(rec["run"])][MEASURES.index(rec["measure"])]
        assert [rec["mean"], rec["low"], rec["high"], rec["p"]] == [_num(c.mean), _num(c.low), _num(c.high), _num(c.p)]
        assert rec["direction"] == c.direction
        assert rec["significant"] == (c.p is not None and c.p <= 0.05 and c.direction is not None)
    assert doc["cells"][5]["mean"] == 0.05 and doc["cells"][7]["mean"] is None  # NaN -> null


#: pandas 3 parses floats exactly by default and deprecates float_precision; pandas 2 needs "round_trip"
EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def test_tsv_round_trip():
    t = sample()
    cols = ["mean", "low", "high", "p"]
    back = pd.read_csv(io.StringIO(to_tsv(t)), sep="\t", **EXACT_FLOATS, keep_default_na=False,
                       na_values={c: [""] for c in cols}, dtype={"run": str, "measure": str, "direction": str})
    assert list(back.columns) == ["run", "measure"] + cols + ["direction"]
    assert list(back["run"]) == [r for r in RUNS for _ in MEASURES]
    assert list(back["measure"]) == list(MEASURES) * 3
    for (_, row), c in zip(back.iterrows(), [c for r in t.cells for c in r], strict=True):
        for k in cols:
            want = getattr(c, k)
            assert (math.isnan(row[k]) if _num(want) is None else row[k] == want), (k, row[k], want)
        assert row["direction"] == (c.direction or "")


def test_tsv_quotes_awkward_labels():
    t = ResultsTable(("a\tb", 'say "x"', "NA"), ("m",), ((Cell(1.0),), (Cell(2.0),), (Cell(0.1 + 0.2),)))
    back = pd.read_csv(io.StringIO(to_tsv(t)), sep="\t", **EXACT_FLOATS, keep_default_na=False,
                       na_values={"mean": [""]})
    assert list(back["run"]) == ["a\tb", 'say "x"', "NA"]
    assert list(back["mean"]) == [1.0, 2.0, 0.1 + 0.2]


def test_jsonl_cells():
    lines = to_jsonl(sample()).splitlines()
    assert len(lines) == 9
    for line in lines:
        rec = json.loads(line)
        assert set(rec) == {"run", "measure", "mean", "low", "high", "p", "direction", "significant"}


@pytest.mark.parametrize("shape", ["long", "wide"])
def test_jsonl_per_query(shape):
    values = dict(zip(MEASURES, (0.5, NAN, 1.0), strict=True))
    long = pd.DataFrame([(r, q, m, v) for r in RUNS for q in ("q1", "q2") for m, v in values.items()],
                        columns=["run", "query", "measure", "value"])
    wide = pd.DataFrame([{"run": r, "query_id": q, **values} for r in RUNS for q in ("q1", "q2")])
    frame = long if shape == "long" else wide
    lines = to_jsonl(sample(per_query=frame)).splitlines()
    assert len(lines) == len(RUNS) * 2 * len(MEASURES)
    recs = [json.loads(x) for x in lines]
    assert all(set(r) == {"run", "query", "measure", "value"} for r in recs)
    got = {(r["run"], r["query"], r["measure"]): r["value"] for r in recs}
    assert got == {(r, q, m): _num(v) for r, q, m, v in long.itertuples(index=False)}


# ---------------------------------------------------------------- LaTeX

def _environments_balanced(text):
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{([^}]*)\}", text):
        if kind == "begin":
            stack.append(name)
        else:
            assert stack and stack.pop() == name, name
    assert not stack


def _body_rows(text):
    lines = text.splitlines()
    top, bottom = lines.index(r"\toprule"), lines.index(r"\bottomrule")
    return [x for x in lines[top + 1:bottom] if x != r"\midrule"]


def _split_cells(row):
    assert row.endswith(r" \\")
    return re.split(r"(?<!\\)&", row[:-3])


def test_latex_structure():
    t = sample()
    text = to_latex(t, intervals=True, caption="Runs on Vaswani.", label="tab:main")
    _environments_balanced(text)
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\centering", r"\begin{table}", r"\caption{"):
        assert text.count(rule) == 1, rule
    spec = re.search(r"\\begin\{tabular\}\{([^}]*)\}", text).group(1)
    assert spec == "l r r r"
    rows = _body_rows(text)
    assert len(rows) == 4  # header + 3 runs
    for row in rows:
        assert len(spec.split()) == len(re.findall(r"(?<!\\)&", row)) + 1 == len(_split_cells(row))
    head = [c.strip() for c in _split_cells(rows[0])]
    assert head[1:] == [r"\texttt{nDCG@10}", r"\texttt{RBO(p=0.9,ref='bm25')}", r"\texttt{MED\_nDCG@10}"]
    cells = [[c.strip() for c in _split_cells(r)] for r in rows[1:]]
    assert [c[0] for c in cells] == ["bm25", r"rm3\_x", r"dense\&co 50\%"]
    # best per column: highest nDCG, highest RBO, lowest MED (lower is better)
    assert cells[1][1].startswith(r"\textbf{0.457}$^{\dagger}$")
    assert cells[0][2] == r"\textbf{1.000}" and cells[0][3] == r"\textbf{0.000}"
    assert sum(r"\textbf{" in c for row in cells for c in row) == 3
    # markers: better (dagger), worse (double dagger), not significant (p=0.2): none
    assert cells[2][1].startswith(r"0.390$^{\ddagger}$ {\scriptsize [0.370, 0.410]}")
    assert cells[1][2] == r"0.810 {\scriptsize [0.700, 0.900]}"
    assert cells[1][3] == r"0.050$^{\ddagger}$" and cells[2][3] == r"0.020$^{\dagger}$"
    assert cells[2][2] == "--" and cells[0][1] == r"0.412 {\scriptsize [0.390, 0.430]}"
    assert r"\dagger}$/$^{\ddagger}$: significantly better/worse than \textit{bm25} ($p \leq 0.05$)" in text
    assert r"\label{tab:main}" in text and "Runs on Vaswani." in text
    assert r"\scriptsize" not in to_latex(t)


UNTEX = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^", r"\textless{}": "<",
         r"\textgreater{}": ">", r"\textbar{}": "|"}


def _untex(text):
    """Undo the escaping of a label; fails on any unescaped special character."""
    out, i = [], 0
    while i < len(text):
        word = next((w for w in UNTEX if text.startswith(w, i)), None)
        if word:
            out.append(UNTEX[word])
            i += len(word)
        elif text[i] == "\\":
            assert text[i + 1] in "_%&#${}", text[i:i + 5]
            out.append(text[i + 1])
            i += 2
        else:
            assert text[i] not in "_%&#${}~^\\<>|", (text, i)
            out.append(text[i])
            i += 1
    return "".join(out)


NASTY = st.text(alphabet="_%&#${}~^\\<>|'\" aZ9é", min_size=1, max_size=12)
EMITTED = [r"$^{\dagger}$", r"$^{\ddagger}$", r"($p \leq 0.05$)"]


@settings(max_examples=examples(150), deadline=None)
@given(runs=st.lists(NASTY, min_size=1, max_size=3, unique=True),
       measures=st.lists(NASTY, min_size=1, max_size=3, unique=True), baseline=st.booleans())
def test_latex_escapes_every_label(runs, measures, baseline):
    cells = tuple(tuple(Cell(0.1 * (i + j), p=0.01, direction="better" if i % 2 else "worse")
                        for j in range(len(measures))) for i in range(len(runs)))
    t = ResultsTable(tuple(runs), tuple(measures), cells, baseline=runs[0] if baseline else None)
    text = to_latex(t)
    _environments_balanced(text)
    rows = _body_rows(text)
    for row in rows:
        assert len(_split_cells(row)) == len(measures) + 1
    head = [c.strip() for c in _split_cells(rows[0])]
    for got, want in zip(head[1:], measures, strict=True):
        assert got.startswith(r"\texttt{") and got.endswith("}")
        assert _untex(got[len(r"\texttt{"):-1]) == want
    for row, want in zip(rows[1:], runs, strict=True):
        assert _untex(_split_cells(row)[0].strip()) == want.strip()
    # outside what the writer emits itself, no unescaped _ % & # $ ^ ~ and balanced braces
    rest = re.sub(r" \\\\$", "", text, flags=re.M)
    for emitted in EMITTED:
        rest = rest.replace(emitted, "")
    rest = re.sub(r"\\textbackslash\{\}|\\[_%&#${}]", "", rest).replace(" & ", " ")
    assert not re.search(r"[_%&#$^~]", rest), rest
    depth = 0
    for ch in rest:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0


TEX = shutil.which("pdflatex") or shutil.which("lualatex")


@pytest.mark.skipif(TEX is None, reason="no TeX engine (pdflatex or lualatex) on the PATH")
def test_latex_compiles(tmp_path):
    t = ResultsTable(("bm25", "a_b & c%#$~^{}\\"), MEASURES,
                     ((Cell(0.4, 0.3, 0.5), Cell(1.0), Cell(0.0)),
                      (Cell(0.5, 0.4, 0.6, 0.01, "better"), Cell(0.8, p=0.01, direction="worse"), Cell(NAN))),
                     baseline="bm25")
    doc = ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\begin{document}\n"
           + to_latex(t, intervals=True) + "\\end{document}\n")
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    done = subprocess.run([TEX, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "t.pdf").stat().st_size > 0


# ---------------------------------------------------------------- Markdown

def _md_cells(line):
    assert line.startswith("| ") or line.startswith("|-")
    cells, cur, i = [], [], 1
    while i < len(line):
        if line[i] == "\\":
            cur.append(line[i:i + 2])
            i += 2
            continue
        if line[i] == "|":
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(line[i])
        i += 1
    assert not "".join(cur).strip()
    return cells


def test_markdown_table():
    text = to_markdown(sample())
    lines = text.splitlines()
    table = lines[:lines.index("")]
    assert len(table) == 5
    rows = [_md_cells(x) for x in table]
    assert all(len(r) == 4 for r in rows)
    assert rows[1] == ["---", "---:", "---:", "---:"]
    assert rows[0] == ["run", "nDCG@10", "RBO(p=0.9,ref='bm25')", r"MED\_nDCG@10"]
    assert rows[2] == ["bm25 (baseline)", "0.4123", "**1.0000**", "**0.0000**"]
    assert rows[3] == [r"rm3\_x", "**0.4567**†", "0.8100", "0.0500‡"]
    assert rows[4] == [r"dense\&co 50%", "0.3900‡", "-", "0.0200†"]
    note = lines[-1]
    assert "† / ‡: significantly better / worse than the baseline bm25 (p ≤ 0.05)" in note
    assert r"lowest for MED\_nDCG@10" in note
    assert "[0.3700, 0.4100]" in to_markdown(sample(), intervals=True)


@settings(max_examples=examples(100), deadline=None)
@given(runs=st.lists(NASTY, min_size=1, max_size=3, unique=True),
       measures=st.lists(NASTY, min_size=1, max_size=3, unique=True))
def test_markdown_cells_stay_in_place(runs, measures):
    cells = tuple(tuple(Cell(float(i + j)) for j in range(len(measures))) for i in range(len(runs)))
    text = to_markdown(ResultsTable(tuple(runs), tuple(measures), cells))
    lines = text.splitlines()[:len(runs) + 2]
    assert all(len(_md_cells(x)) == len(measures) + 1 for x in lines)


# ---------------------------------------------------------------- HTML

VOID = {"meta", "img", "br", "hr", "link", "input"}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.cells, self.urls, self.data, self.cell = [], [], [], [], None

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href")]
        if tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        assert self.stack and self.stack.pop() == tag, tag
        if tag in ("td", "th"):
            self.cells.append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        self.data.append(data)
        if self.cell is not None:
            self.cell.append(data)


@pytest.fixture(scope="module")
def png():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(1, 1), dpi=20)
    ax.plot([0, 1], [1, 0])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def test_html_page(png, tmp_path):
    path = tmp_path / "fig.png"
    path.write_bytes(png)
    t = ResultsTable(("bm25", "<script>x</script> & 'y'"), ("nDCG@10", 'a"b<c>'),
                     ((Cell(0.5), Cell(0.25)), (Cell(0.6, 0.5, 0.7, 0.001, "better"), Cell(0.2))), baseline="bm25")
    text = to_html(t, images=[png, ("A <caption>", str(path))])
    assert text.startswith("<!DOCTYPE html>") and "<style>" in text and "<script>" not in text
    page = _Page()
    page.feed(text)
    page.close()
    assert not page.stack
    assert page.cells == ["run", "nDCG@10", 'a"b<c>', "bm25 (baseline)", "0.5000", "0.2500",
                          "<script>x</script> & 'y'", "0.6000† [0.5000, 0.7000]", "0.2000"]
    assert "<strong>0.6000</strong><sup>†</sup>" in text and "<td><strong>0.2500</strong></td>" in text
    assert len(page.urls) == 2 and all(u.startswith("data:image/png;base64,") for u in page.urls)
    assert [base64.b64decode(u.split(",", 1)[1], validate=True) for u in page.urls] == [png, png]
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)", text) and "url(" not in text
    assert "A <caption>" in "".join(page.data)


def test_html_rejects_bad_images(tmp_path):
    with pytest.raises(ParameterError, match="images"):
        to_html(sample(), images=[b"GIF89a..."])
    with pytest.raises(ParameterError, match="images"):
        to_html(sample(), images=[tmp_path / "missing.png"])


# ---------------------------------------------------------------- dispatcher, input model

@pytest.mark.parametrize("suffix", sorted(SUFFIXES))
def test_write_table_by_suffix(tmp_path, suffix):
    t = sample()
    path = tmp_path / f"results{suffix}"
    text = write_table(t, path)
    assert path.read_text(encoding="utf-8") == text == FORMATS[SUFFIXES[suffix]](t)


def test_write_table_explicit_format(tmp_path, monkeypatch):
    t = sample()
    path = tmp_path / "results.txt"
    assert write_table(t, path, format="latex", places=2) == to_latex(t, places=2) == path.read_text("utf-8")
    assert write_table(t, str(tmp_path / "x.md"), format="JSON") == to_json(t)
    monkeypatch.chdir(tmp_path)
    before = set(tmp_path.iterdir())
    for name in ("markdown", "md", "tex", "latex", "html", "tsv", "json", "jsonl"):
        assert write_table(t, name) == FORMATS[{"md": "markdown", "tex": "latex"}.get(name, name)](t)
    assert set(tmp_path.iterdir()) == before  # a bare format name writes nothing


@pytest.mark.parametrize("call", [lambda t, p: write_table(t, p / "r.xlsx"), lambda t, p: write_table(t, "docx"),
                                  lambda t, p: write_table(t, p / "r.tex", format="docx")])
def test_write_table_unknown_format(tmp_path, call):
    with pytest.raises(ParameterError) as err:
        call(sample(), tmp_path)
    assert all(name in str(err.value) for name in FORMATS)


def test_write_table_unknown_option(tmp_path):
    with pytest.raises(ParameterError, match="images"):
        write_table(sample(), tmp_path / "r.tex", images=[])


@pytest.mark.parametrize("build, name", [
    (lambda: sample(baseline="nope"), "baseline"),
    (lambda: ResultsTable(("a",), ("m",), ((Cell(1.0), Cell(2.0)),)), "cells"),
    (lambda: ResultsTable(("a", "a"), ("m",), ((Cell(1.0),), (Cell(2.0),))), "runs"),
    (lambda: Cell(0.5, p=1.5), "p"),
    (lambda: Cell(0.5, 0.6, 0.4), "low"),
    (lambda: Cell(0.5, direction="up"), "direction"),
    (lambda: Cell("x"), "mean"),
    (lambda: sample(alpha=0), "alpha"),
    (lambda: ResultsTable(("a",), ("m",), ((Cell(1.0),),), lower_is_better=frozenset({"z"})), "lower_is_better"),
    (lambda: to_latex(sample(), places=-1), "places"),
])
def test_parameter_errors(build, name):
    with pytest.raises(ParameterError, match=name):
        build()


def test_from_frame():
    frame = pd.DataFrame({"run": ["b", "b", "a"], "measure": ["m1", "m2", "m1"], "mean": [0.1, 0.2, 0.3],
                          "p": [NAN, NAN, 0.01], "direction": ["", "", "better"], "low": [NAN, NAN, 0.2],
                          "high": [NAN, NAN, 0.4]})
    t = ResultsTable.from_frame(frame, baseline="b", lower_is_better=["m2"])
    assert t.runs == ("b", "a") and t.measures == ("m1", "m2") and t.lower_is_better == {"m2"}
    assert t.cells[1][0] == Cell(0.3, 0.2, 0.4, 0.01, "better") and math.isnan(t.cells[1][1].mean)
    assert t.cells[0][0].direction is None
    with pytest.raises(ParameterError, match="twice"):
        ResultsTable.from_frame(pd.concat([frame, frame]))
