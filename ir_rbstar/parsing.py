"""Parsing measure strings, including ones with spaces and quoted paths inside parentheses."""
from __future__ import annotations

from typing import Iterable, List, Union

import ir_measures

__all__ = ["parse", "split_measures"]


def split_measures(text: str) -> List[str]:
    """Split a string of measures on whitespace outside parentheses and quotes.

    >>> split_measures("nDCG@10 RBR(p=0.8, ref='my run.txt')@20")
    ['nDCG@10', "RBR(p=0.8, ref='my run.txt')@20"]
    """
    out, cur, depth, quote = [], [], 0, None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch.isspace() and depth <= 0:
            if cur:
                out.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if quote or depth > 0:
        raise ValueError(f"unbalanced {'quote' if quote else 'parenthesis'} in measure string {text!r}")
    if cur:
        out.append("".join(cur))
    return out


def parse(measures: Union[str, Iterable]) -> List["ir_measures.Measure"]:
    """Measure objects from a string of measures, or from a list of strings and measure objects.

    ``pt.Experiment`` parses strings with trec_eval names only; give it these objects instead:

    >>> import ir_rbstar
    >>> [str(m) for m in ir_rbstar.parse("nDCG@10 RBR(p=0.8)@20")]
    ['nDCG@10', 'RBR(p=0.8)@20']
    """
    items = split_measures(measures) if isinstance(measures, str) else list(measures)
    out: List[ir_measures.Measure] = []
    for item in items:
        if isinstance(item, str):
            for part in split_measures(item):
                out.append(ir_measures.parse_measure(part))
        else:
            out.append(ir_measures.parse_measure(item))
    return out
