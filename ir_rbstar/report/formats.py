"""Writers of a results table (runs x measures) in the formats papers and tools want.

A :class:`ResultsTable` holds the runs (rows, in order; one may be the baseline), the measures
(columns, labels as strings such as ``nDCG@10`` or ``RBO(p=0.9,ref='bm25')``) and one :class:`Cell`
per (run, measure): the mean, optionally a confidence interval ``[low, high]``, the (adjusted) p-value
of the comparison with the baseline and the direction of the difference (``"better"``/``"worse"``).
A cell is *significant* when ``p <= alpha`` and it has a direction; it is then marked (dagger: better
than the baseline, double dagger: worse). :meth:`ResultsTable.from_frame` builds a table from a long
DataFrame (columns ``run, measure, mean`` and optionally ``low, high, p, direction``).

Writers (pure functions returning text): :func:`to_tsv`, :func:`to_json`, :func:`to_jsonl`,
:func:`to_markdown`, :func:`to_latex`, :func:`to_html`; :func:`write_table` chooses one from a file
suffix (``.tsv .json .jsonl .md .tex .html``) or ``format=`` and writes the file.

The best value per column (highest, or lowest for the measures in ``lower_is_better``) is compared
after rounding to the printed ``places``: every cell that prints as the best is bold. NaN means "no
value": empty in TSV, ``null`` in JSON, ``-`` in Markdown and ``--`` in LaTeX and HTML.
"""
from __future__ import annotations

import base64
import csv
import html
import inspect
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from ..errors import ParameterError

__all__ = ["Cell", "ResultsTable", "to_tsv", "to_json", "to_jsonl", "to_markdown", "to_latex", "to_html",
           "write_table", "latex_escape", "FORMATS", "SUFFIXES"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
Image = Union[str, Path, bytes]


def _real(value: Any, name: str) -> Optional[float]:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name}={value!r}: give a number (or None)") from None


def _missing(value: Optional[float]) -> bool:
    return value is None or math.isnan(value)


@dataclass(frozen=True)
class Cell:
    """One (run, measure) value: ``mean``, optional interval ``low``/``high``, ``p`` and ``direction``."""
    mean: float
    low: Optional[float] = None
    high: Optional[float] = None
    p: Optional[float] = None
    direction: Optional[str] = None

    def __post_init__(self) -> None:
        mean = _real(self.mean, "mean")
        object.__setattr__(self, "mean", math.nan if mean is None else mean)
        for name in ("low", "high", "p"):
            object.__setattr__(self, name, _real(getattr(self, name), name))
        if not _missing(self.p) and not 0.0 <= self.p <= 1.0:  # type: ignore[operator]
            raise ParameterError(f"p={self.p!r}: a p-value lies in [0, 1]")
        if not _missing(self.low) and not _missing(self.high) and self.low > self.high:  # type: ignore[operator]
            raise ParameterError(f"low={self.low!r}, high={self.high!r}: the interval is empty (low > high)")
        if self.direction in ("", None) or (isinstance(self.direction, float) and math.isnan(self.direction)):
            object.__setattr__(self, "direction", None)
        elif self.direction not in ("better", "worse"):
            raise ParameterError(f"direction={self.direction!r}: give 'better', 'worse' or None")

    def marker(self, alpha: float) -> Optional[str]:
        """``"better"``/``"worse"`` when the cell differs significantly from the baseline, else None."""
        return self.direction if not _missing(self.p) and self.p <= alpha else None  # type: ignore[operator]


@dataclass(frozen=True)
class ResultsTable:
    """Runs (rows) x measures (columns) of :class:`Cell`; ``cells[i][j]`` is run ``i``, measure ``j``.

    ``per_query`` (optional, for :func:`to_jsonl`): a long DataFrame with columns ``run, query, measure,
    value`` or a wide one with ``run, query`` and one column per measure (``query_id`` is read as
    ``query``). ``lower_is_better``: the measures whose best value is the lowest; ``descriptive``: the
    measures that have no best value (none is bold), such as a distance to the baseline."""
    runs: Tuple[str, ...]
    measures: Tuple[str, ...]
    cells: Tuple[Tuple[Cell, ...], ...]
    baseline: Optional[str] = None
    alpha: float = 0.05
    lower_is_better: FrozenSet[str] = frozenset()
    per_query: Optional[pd.DataFrame] = field(default=None, compare=False, repr=False)
    descriptive: FrozenSet[str] = frozenset()

    def __post_init__(self) -> None:
        for name in ("runs", "measures"):
            labels = tuple(getattr(self, name))
            if not labels or not all(isinstance(x, str) for x in labels):
                raise ParameterError(f"{name}={labels!r}: give one label (a string) or more")
            if len(set(labels)) != len(labels):
                raise ParameterError(f"{name}={labels!r}: the labels must be distinct")
            object.__setattr__(self, name, labels)
        cells = tuple(tuple(c if isinstance(c, Cell) else Cell(c) for c in row) for row in self.cells)
        if len(cells) != len(self.runs) or any(len(row) != len(self.measures) for row in cells):
            raise ParameterError(f"cells: give {len(self.runs)} rows (runs) of {len(self.measures)} cells (measures)")
        object.__setattr__(self, "cells", cells)
        if self.baseline is not None and self.baseline not in self.runs:
            raise ParameterError(f"baseline={self.baseline!r}: not one of the runs {list(self.runs)}")
        if not isinstance(self.alpha, (int, float)) or not 0.0 < self.alpha < 1.0:
            raise ParameterError(f"alpha={self.alpha!r}: give a significance level in (0, 1)")
        lower = frozenset(self.lower_is_better)
        if not lower <= set(self.measures):
            raise ParameterError(f"lower_is_better={sorted(lower - set(self.measures))!r}: not among the measures")
        object.__setattr__(self, "lower_is_better", lower)
        plain = frozenset(self.descriptive)
        if not plain <= set(self.measures):
            raise ParameterError(f"descriptive={sorted(plain - set(self.measures))!r}: not among the measures")
        object.__setattr__(self, "descriptive", plain)
        if self.per_query is not None:
            object.__setattr__(self, "per_query", self._long(self.per_query))

    def _long(self, frame: Any) -> pd.DataFrame:
        if not isinstance(frame, pd.DataFrame):
            raise ParameterError(f"per_query: give a pandas DataFrame, not {type(frame).__name__}")
        frame = frame.reset_index() if "run" not in frame.columns else frame
        frame = frame.rename(columns={"query_id": "query"})
        if not {"run", "query"} <= set(frame.columns):
            raise ParameterError(f"per_query: needs the columns 'run' and 'query', has {list(frame.columns)}")
        if not {"measure", "value"} <= set(frame.columns):
            wide = [m for m in self.measures if m in frame.columns]
            frame = frame.melt(id_vars=["run", "query"], value_vars=wide, var_name="measure", value_name="value")
        return frame[["run", "query", "measure", "value"]].reset_index(drop=True)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, baseline: Optional[str] = None, alpha: float = 0.05,
                   lower_is_better: Iterable[str] = (), per_query: Optional[pd.DataFrame] = None,
                   descriptive: Iterable[str] = ()) -> "ResultsTable":
        """A table from a long DataFrame: one row per (run, measure), columns ``run, measure, mean`` and
        optionally ``low, high, p, direction``; runs and measures in the order of first appearance."""
        missing = {"run", "measure", "mean"} - set(frame.columns)
        if missing:
            raise ParameterError(f"frame: missing the columns {sorted(missing)}")
        runs = tuple(str(x) for x in dict.fromkeys(frame["run"]))
        measures = tuple(str(x) for x in dict.fromkeys(frame["measure"]))
        found: Dict[Tuple[str, str], Cell] = {}
        for row in frame.to_dict("records"):
            key = (str(row["run"]), str(row["measure"]))
            if key in found:
                raise ParameterError(f"frame: the cell (run={key[0]!r}, measure={key[1]!r}) occurs twice")
            found[key] = Cell(row["mean"], row.get("low"), row.get("high"), row.get("p"), row.get("direction"))
        cells = tuple(tuple(found.get((r, m), Cell(math.nan)) for m in measures) for r in runs)
        return cls(runs, measures, cells, baseline, alpha, frozenset(lower_is_better), per_query,
                   frozenset(descriptive))

    def has_intervals(self) -> bool:
        """Whether some cell has an interval (both ends): only then do the writers explain the brackets."""
        return any(not _missing(c.low) and not _missing(c.high) for row in self.cells for c in row)

    def marked(self) -> bool:
        """Whether some cell differs significantly from the baseline."""
        return any(c.marker(self.alpha) for row in self.cells for c in row)

    def best(self, places: int) -> List[Optional[float]]:
        """Per measure, the best mean rounded to ``places`` (None: no value in the column)."""
        out: List[Optional[float]] = []
        for j, m in enumerate(self.measures):
            values = [round(row[j].mean, places) for row in self.cells if not math.isnan(row[j].mean)]
            if not values or m in self.descriptive:
                out.append(None)
            else:
                out.append(min(values) if m in self.lower_is_better else max(values))
        return out


def _places(places: int) -> int:
    if isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= 15:
        raise ParameterError(f"places={places!r}: give a whole number of decimals in [0, 15]")
    return places


def _json_number(value: Optional[float]) -> Optional[float]:
    return None if _missing(value) else float(value)  # type: ignore[arg-type]


def _records(table: ResultsTable) -> Iterable[Dict[str, Any]]:
    for run, row in zip(table.runs, table.cells, strict=True):
        for measure, c in zip(table.measures, row, strict=True):
            yield {"run": run, "measure": measure, "mean": _json_number(c.mean), "low": _json_number(c.low),
                   "high": _json_number(c.high), "p": _json_number(c.p), "direction": c.direction,
                   "significant": c.marker(table.alpha) is not None}


def to_tsv(table: ResultsTable) -> str:
    """One row per (run, measure): ``run measure mean low high p direction``, floats at full precision
    (``repr``), no value: empty. Fields holding tabs, quotes or newlines are quoted as CSV does; read back
    with ``pandas.read_csv(..., sep="\\t", float_precision="round_trip", keep_default_na=False)``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(["run", "measure", "mean", "low", "high", "p", "direction"])
    for r in _records(table):
        numbers = ["" if r[k] is None else repr(r[k]) for k in ("mean", "low", "high", "p")]
        writer.writerow([r["run"], r["measure"], *numbers, r["direction"] or ""])
    return buffer.getvalue()


def to_json(table: ResultsTable, *, indent: Optional[int] = 2) -> str:
    """One JSON document: ``runs``, ``measures``, ``baseline``, ``alpha``, ``lower_is_better`` and
    ``cells`` (one object per (run, measure): mean, low, high, p, direction, significant); NaN: null."""
    doc = {"runs": list(table.runs), "measures": list(table.measures), "baseline": table.baseline,
           "alpha": table.alpha, "lower_is_better": [m for m in table.measures if m in table.lower_is_better],
           "cells": list(_records(table))}
    return json.dumps(doc, indent=indent, allow_nan=False, ensure_ascii=False) + "\n"


def to_jsonl(table: ResultsTable) -> str:
    """One JSON object a line: per (run, measure) cell as in :func:`to_json`, or, when the table has
    ``per_query`` values, per (run, query, measure): ``{"run", "query", "measure", "value"}``."""
    if table.per_query is None:
        rows: Iterable[Dict[str, Any]] = _records(table)
    else:
        rows = ({"run": str(r.run), "query": str(r.query), "measure": str(r.measure),
                 "value": _json_number(_real(r.value, "per_query value"))}
                for r in table.per_query.itertuples(index=False))
    return "".join(json.dumps(r, allow_nan=False, ensure_ascii=False) + "\n" for r in rows)


def _cells(table: ResultsTable, places: int, mean: Callable[[str, bool], str], marks: Mapping[str, str],
           interval: Optional[Callable[[str, str], str]], missing: str) -> List[List[str]]:
    """The body cells as text: ``mean(text, bold)`` + marker + ``interval(low, high)``."""
    best = table.best(places)
    out = []
    for row in table.cells:
        texts = []
        for j, c in enumerate(row):
            if math.isnan(c.mean):
                texts.append(missing)
                continue
            text = mean(f"{c.mean:.{places}f}", best[j] is not None and round(c.mean, places) == best[j])
            kind = c.marker(table.alpha)
            text += marks[kind] if kind else ""
            if interval is not None and not _missing(c.low) and not _missing(c.high):
                text += interval(f"{c.low:.{places}f}", f"{c.high:.{places}f}")
            texts.append(text)
        out.append(texts)
    return out


def _best_note(table: ResultsTable, label: Callable[[str], str]) -> List[str]:
    """The note on the bold values (none when every measure is descriptive: nothing is bold)."""
    if set(table.measures) <= table.descriptive:
        return []
    lower = [label(m) for m in table.measures if m in table.lower_is_better]
    plain = [label(m) for m in table.measures if m in table.descriptive]
    return ["Best value per column in bold" + (f" (lowest for {', '.join(lower)})" if lower else "")
            + (f"; none for {', '.join(plain)}, which only describe" if plain else "") + "."]


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~&])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.splitlines()))


def to_markdown(table: ResultsTable, *, places: int = 4, intervals: bool = False, run_header: str = "run") -> str:
    """A GitHub pipe table: one row per run (the baseline's label followed by ``(baseline)``), best per
    column in ``**bold**``, significant cells marked ``†`` (better) / ``‡`` (worse) explained in a
    footnote line, optional intervals ``[low, high]``; labels' Markdown characters backslash-escaped."""
    places = _places(places)
    body = _cells(table, places, lambda t, b: f"**{t}**" if b else t, {"better": "†", "worse": "‡"},
                  (lambda lo, hi: f" [{lo}, {hi}]") if intervals else None, "-")
    head = [_md(run_header)] + [_md(m) for m in table.measures]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * len(table.measures)) + "|"]
    for run, row in zip(table.runs, body, strict=True):
        label = _md(run) + (" (baseline)" if run == table.baseline else "")
        lines.append("| " + " | ".join([label] + row) + " |")
    notes = _best_note(table, _md)
    if intervals and table.has_intervals():
        notes.append("[low, high]: confidence interval.")
    if table.baseline is not None or table.marked():
        notes.append(f"† / ‡: significantly better / worse than the baseline {_md(table.baseline or '')} "
                     f"(p ≤ {table.alpha:g}).")
    return "\n".join(lines) + "\n" + ("\n" + " ".join(notes) + "\n" if notes else "")


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&",
                "#": r"\#", "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}


def latex_escape(text: str) -> str:
    """``text`` with every LaTeX special character escaped (``\\ { } _ % & # $ ~ ^`` and ``< > |``)."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in " ".join(text.splitlines()))


def to_latex(table: ResultsTable, *, places: int = 3, intervals: bool = False, caption: Optional[str] = None,
             label: Optional[str] = None, run_header: str = "Run", texttt: bool = True) -> str:
    """A booktabs table (needs ``\\usepackage{booktabs}``): ``table`` / ``\\centering`` / ``tabular{l r ...}``,
    means with ``places`` decimals, best per column in ``\\textbf{}``, significant cells marked
    ``$^{\\dagger}$`` (better than the baseline) / ``$^{\\ddagger}$`` (worse), optional intervals as
    ``{\\scriptsize [low, high]}``; the caption (``caption`` is LaTeX as given) explains the marks. Run and
    measure labels are escaped; measure labels are set in ``\\texttt{}`` (``texttt=False``: not)."""
    places = _places(places)
    body = _cells(table, places, lambda t, b: rf"\textbf{{{t}}}" if b else t,
                  {"better": r"$^{\dagger}$", "worse": r"$^{\ddagger}$"},
                  (lambda lo, hi: rf" {{\scriptsize [{lo}, {hi}]}}") if intervals else None, "--")
    head = [latex_escape(run_header)] + [rf"\texttt{{{latex_escape(m)}}}" if texttt else latex_escape(m)
                                         for m in table.measures]
    notes = ([caption] if caption else []) + _best_note(table, lambda m: rf"\texttt{{{latex_escape(m)}}}")
    if table.baseline is not None or table.marked():
        base = rf"\textit{{{latex_escape(table.baseline)}}}" if table.baseline else "the baseline"
        notes.append(rf"$^{{\dagger}}$/$^{{\ddagger}}$: significantly better/worse than {base} "
                     rf"($p \leq {table.alpha:g}$).")
    if intervals and table.has_intervals():
        notes.append("In brackets: confidence intervals.")
    lines = [r"\begin{table}", r"\centering"] + ([r"\caption{" + " ".join(notes) + "}"] if notes else [])
    if label:
        lines.append(r"\label{" + re.sub(r"[\\{}%#&$~^_ ]", "-", label) + "}")
    lines += [r"\begin{tabular}{" + " ".join(["l"] + ["r"] * len(table.measures)) + "}", r"\toprule",
              " & ".join(head) + r" \\", r"\midrule"]
    lines += [" & ".join([latex_escape(run)] + row) + r" \\" for run, row in zip(table.runs, body, strict=True)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


_CSS = ("body { font-family: system-ui, sans-serif; margin: 2em; color: #222; } table { border-collapse: collapse; }\n"
        "th, td { padding: 0.3em 0.8em; } thead th { border-top: 2px solid #222; border-bottom: 1px solid #222; }\n"
        "tbody tr:last-child > * { border-bottom: 2px solid #222; } td { text-align: right; }\n"
        "th[scope=row] { text-align: left; font-weight: normal; } tr.baseline th { font-style: italic; }\n"
        ".ci { color: #666; font-size: 0.8em; } figure img { max-width: 100%; } .note { color: #444; }")


def _png(item: Image) -> bytes:
    if not isinstance(item, (bytes, bytearray, str, Path)):
        raise ParameterError(f"images: give PNG file paths or bytes, not {type(item).__name__}")
    try:
        data = bytes(item) if isinstance(item, (bytes, bytearray)) else Path(item).read_bytes()
    except OSError as err:
        raise ParameterError(f"images: cannot read {str(item)!r} ({err.strerror})") from None
    if not data.startswith(PNG_SIGNATURE):
        raise ParameterError(f"images: {'bytes' if isinstance(item, (bytes, bytearray)) else repr(str(item))} "
                             "are not a PNG image")
    return data


def to_html(table: ResultsTable, *, places: int = 4, intervals: bool = True, title: str = "Results",
            images: Sequence[Union[Image, Tuple[str, Image]]] = (), links: Sequence[Tuple[str, str]] = ()) -> str:
    """A self-contained HTML page: ``<!DOCTYPE html>``, inline CSS, the table (best per column in
    ``<strong>``, marks ``<sup>†</sup>``/``<sup>‡</sup>``, intervals) and the ``images`` (PNG paths or
    bytes, or ``(caption, image)`` pairs) embedded as ``data:image/png;base64,...``; no external URL.
    ``links``: ``(text, relative path)`` pairs listed under the table (e.g. the report's explorer page)."""
    places = _places(places)
    esc = html.escape
    body = _cells(table, places, lambda t, b: f"<strong>{t}</strong>" if b else t,
                  {"better": "<sup>†</sup>", "worse": "<sup>‡</sup>"},
                  (lambda lo, hi: f' <span class="ci">[{lo}, {hi}]</span>') if intervals else None, "--")
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{esc(title)}</title>", f"<style>\n{_CSS}\n</style>", "</head>", "<body>",
           f"<h1>{esc(title)}</h1>", "<table>", "<thead>", "<tr><th scope=\"col\">run</th>"
           + "".join(f'<th scope="col"><code>{esc(m)}</code></th>' for m in table.measures) + "</tr>",
           "</thead>", "<tbody>"]
    for run, row in zip(table.runs, body, strict=True):
        cls, tag = (' class="baseline"', " (baseline)") if run == table.baseline else ("", "")
        out.append(f'<tr{cls}><th scope="row">{esc(run)}{tag}</th>' + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out += ["</tbody>", "</table>"]
    notes = _best_note(table, html.escape)
    if table.baseline is not None or table.marked():
        notes.append(f"†/‡: significantly better/worse than the baseline {esc(table.baseline or '')} "
                     f"(p ≤ {table.alpha:g}).")
    if intervals and table.has_intervals():
        notes.append("[low, high]: confidence interval.")
    if notes:
        out.append(f'<p class="note">{" ".join(notes)}</p>')
    for text, target in links:
        out.append(f'<p><a href="{esc(target)}">{esc(text)}</a></p>')
    for item in images:
        text, image = item if isinstance(item, tuple) else ("", item)
        data = base64.b64encode(_png(image)).decode("ascii")
        cap = f"<figcaption>{esc(text)}</figcaption>" if text else ""
        out.append(f'<figure><img alt="{esc(text or "figure")}" src="data:image/png;base64,{data}">{cap}</figure>')
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


FORMATS: Dict[str, Callable[..., str]] = {"tsv": to_tsv, "json": to_json, "jsonl": to_jsonl,
                                          "markdown": to_markdown, "latex": to_latex, "html": to_html}
SUFFIXES: Dict[str, str] = {".tsv": "tsv", ".json": "json", ".jsonl": "jsonl", ".md": "markdown",
                            ".tex": "latex", ".html": "html", ".htm": "html"}
_ALIASES = {"md": "markdown", "tex": "latex", "htm": "html"}


def _format_name(name: str, parameter: str) -> str:
    key = _ALIASES.get(name.lower().lstrip("."), name.lower().lstrip("."))
    if key not in FORMATS:
        raise ParameterError(f"{parameter}={name!r}: unknown format; allowed: {', '.join(FORMATS)} "
                             f"(file suffixes {' '.join(SUFFIXES)})")
    return key


def write_table(table: ResultsTable, path_or_format: Union[str, Path], *, format: Optional[str] = None,
                **options: Any) -> str:
    """Render ``table`` and return the text. ``path_or_format``: a file path (written as UTF-8; the
    writer chosen from its suffix unless ``format=`` is given) or a bare format name (``"latex"``,
    ``"md"``...: nothing is written). ``options`` go to the writer (e.g. ``places=``, ``images=``)."""
    target = Path(path_or_format)
    bare = isinstance(path_or_format, str) and not target.suffix and len(target.parts) == 1
    if format is not None:
        key = _format_name(format, "format")
    elif bare:  # a bare format name: render only
        key = _format_name(str(path_or_format), "path_or_format")
    elif target.suffix.lower() in SUFFIXES:
        key = SUFFIXES[target.suffix.lower()]
    else:
        raise ParameterError(f"path_or_format={str(path_or_format)!r}: unknown suffix {target.suffix!r}; allowed: "
                             f"{' '.join(SUFFIXES)} (or format= one of {', '.join(FORMATS)})")
    writer = FORMATS[key]
    accepted = set(inspect.signature(writer).parameters) - {"table"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ParameterError(f"{unknown[0]}: not an option of the {key} writer (options: {sorted(accepted) or 'none'})")
    text = writer(table, **options)
    if format is not None or not bare:
        target.write_text(text, encoding="utf-8")
    return text
