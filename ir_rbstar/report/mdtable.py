"""Markdown table pieces shared by the report's sections: pipe tables never wider than :data:`MAX_COLUMNS`,
numbers, p-values and labels as report.md writes them."""
from __future__ import annotations

import math
from typing import List, Optional

_PLACES = 4


#: the widest Markdown table the report writes (columns); a wider one is cut into parts that repeat the first column
MAX_COLUMNS = 25


def _table(head: List[str], rows: List[List[str]], align: Optional[str] = None) -> str:
    """A pipe table; wider than :data:`MAX_COLUMNS` it becomes several tables of at most that many columns,
    each repeating the first column (the row labels)."""
    marks = (align.strip("|").split("|") if align else ["---"] + ["---:"] * (len(head) - 1))
    if len(head) <= MAX_COLUMNS:
        parts = [list(range(len(head)))]
    else:
        rest = list(range(1, len(head)))
        step = MAX_COLUMNS - 1
        parts = [[0] + rest[i:i + step] for i in range(0, len(rest), step)]
    out = []
    for cols in parts:
        lines = ["| " + " | ".join(head[j] for j in cols) + " |", "|" + "|".join(marks[j] for j in cols) + "|"]
        lines += ["| " + " | ".join(r[j] for j in cols) + " |" for r in rows]
        out.append("\n".join(lines))
    return "\n\n".join(out)


def _num(v: float, places: int = _PLACES) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{places}f}"


def _p(v: float) -> str:
    if math.isnan(v):
        return ""
    return f"{v:.1e}" if v < 0.5 * 10 ** -_PLACES else f"{v:.{_PLACES}f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _interval(low: float, high: float) -> str:
    return "" if math.isnan(low) or math.isnan(high) else f"[{_num(low)}, {_num(high)}]"


def _signed(v: float) -> str:
    return "" if math.isnan(v) else f"{v:+.{_PLACES}f}"
