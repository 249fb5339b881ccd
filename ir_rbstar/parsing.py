"""Parsing measure strings, including ones with spaces and quoted paths inside parentheses.

:func:`parse_measure` reads ir_measures' syntax (``Name``, ``Name@k``, ``Name(param=value, ...)``,
``Name(...)@k``, values being Python literals). A name this package declares (``RBP`` included) gives
this package's measure; any other name is left to ``ir_measures.parse_measure``. Every measure it returns
has been validated (types, ranges, a positive cutoff), so a bad parameter fails before any evaluation.
"""
from __future__ import annotations

import ast
import copy
import functools
from typing import Any, Dict, Iterable, List, Union

import ir_measures
from ir_measures.measures import Measure

from .errors import ParameterError
from .measures import ALL as DECLARED
from .measures.base import RbstarMeasure

__all__ = ["parse", "parse_measure", "split_measures", "check_measure"]

_BY_NAME = {m.NAME: m for m in DECLARED}


def split_measures(text: str) -> List[str]:
    """Split a string of measures on whitespace outside parentheses and quotes.

    >>> split_measures("nDCG@10 RBR(p=0.8, ref='my run.txt')@20")
    ['nDCG@10', "RBR(p=0.8, ref='my run.txt')@20"]
    """
    out: List[str] = []
    cur: List[str] = []
    depth, quote = 0, None
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
        raise ParameterError(f"unbalanced {'quote' if quote else 'parenthesis'} in measure string {text!r}")
    if cur:
        out.append("".join(cur))
    return out


def _syntax(text: str, why: str) -> ParameterError:
    return ParameterError(f"cannot parse measure {text!r}: {why} (expected e.g. 'nDCG@10', "
                          f"'RBR(p=0.8,ref=\"ref.run\")@20')")


_SCALARS = (int, float, str, bool, type(None))


@functools.lru_cache(maxsize=1024)
def _read_cached(text: str):
    name, params, cutoff = _read_text(text)
    return name, tuple(params.items()), cutoff, all(isinstance(v, _SCALARS) for v in params.values())


def _read(text: str):
    """(name, parameters, cutoff) of a measure string in ir_measures' syntax. A string read before is not
    parsed again (about 75 us by ``ast`` each time; pt.Experiment, the report and the tests give the same
    few strings many times): a new dict of the same values, which are immutable literals or, for a list or
    dict value, a copy of it (so no caller shares a container)."""
    name, items, cutoff, immutable = _read_cached(text)
    return name, dict(items) if immutable else copy.deepcopy(dict(items)), cutoff


def _read_text(text: str):
    """(name, parameters, cutoff) of a measure string, parsed."""
    try:
        body = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise _syntax(text, e.msg) from None
    params: Dict[str, Any] = {}
    cutoff = None
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.MatMult):
        cutoff = _literal(text, body.right)
        body = body.left
    if isinstance(body, ast.Call):
        if body.args:
            raise _syntax(text, "parameters must be named")
        for kw in body.keywords:
            if kw.arg is None:
                raise _syntax(text, "parameters must be named")
            params[kw.arg] = _literal(text, kw.value)
        body = body.func
    if not isinstance(body, ast.Name):
        raise _syntax(text, "not a measure name")
    return body.id, params, cutoff


def _literal(text: str, node) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        raise _syntax(text, f"{ast.unparse(node)!r} is not a literal value") from None


def check_measure(measure: Measure, complete: bool = False) -> Measure:
    """Validate a measure object (this package's or ir_measures'): parameter types and a positive
    integer cutoff; with ``complete``, also that every required parameter is there (a template such as
    ``MED_nDCG@20``, whose ``ref`` is given later, is valid otherwise). ir_measures validates lazily with
    bare AssertionErrors (and a cutoff of 0 aborts pytrec_eval's process): this turns both into a
    ParameterError naming the measure."""
    if isinstance(measure, RbstarMeasure):
        measure.validate_params()
        if complete:
            measure.check_required()
        return measure
    unknown = sorted(set(measure.params) - set(measure.SUPPORTED_PARAMS))
    if unknown:
        raise ParameterError(f"{measure.NAME}: unknown parameter {unknown[0]!r}; supported: "
                             f"{', '.join(measure.SUPPORTED_PARAMS)}")
    try:
        measure.validate_params()
    except (AssertionError, ValueError, TypeError) as e:
        raise ParameterError(f"{measure}: invalid parameters{f' ({e})' if str(e) else ''}") from None
    at = getattr(measure, "AT_PARAM", "cutoff")
    cutoff = measure.params.get(at)
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff <= 0):
        raise ParameterError(f"{measure}: cutoff @{cutoff!r} must be a positive integer")
    return measure


def parse_measure(item: Union[str, Measure]) -> Measure:
    """One measure from a string (or a measure object, returned as it is), validated.

    >>> import ir_rbstar
    >>> str(ir_rbstar.parse_measure("RBP(p=0.8)@10"))
    'RBP(p=0.8)@10'
    """
    if isinstance(item, Measure):
        return check_measure(item)
    if not isinstance(item, str):
        raise ParameterError(f"{item!r} is not a measure (give a string such as 'nDCG@10' or a measure object)")
    name, params, cutoff = _read(item)
    decl = _BY_NAME.get(name)
    if decl is None:
        try:
            m = ir_measures.parse_measure(item.strip())
        except NameError:
            raise ParameterError(f"unknown measure {name!r} in {item!r}") from None
        except (ValueError, SyntaxError, TypeError, AssertionError) as e:
            raise _syntax(item, str(e)) from None
        return check_measure(m)
    if cutoff is not None:
        params[decl.AT_PARAM] = cutoff
    return check_measure(decl(**params))


def parse(measures: Union[str, Measure, Iterable]) -> List[Measure]:
    """Measure objects from a string of measures, or from a list of strings and measure objects.

    Every measure is validated here, so a bad one fails before any evaluation. ``pt.Experiment`` parses
    strings with trec_eval names only; give it these objects instead:

    >>> import ir_rbstar
    >>> [str(m) for m in ir_rbstar.parse("nDCG@10 RBR(p=0.8)@20")]
    ['nDCG@10', 'RBR(p=0.8)@20']
    """
    if isinstance(measures, (str, Measure)):
        items: List[Any] = [measures]
    else:
        items = list(measures)
    out: List[Measure] = []
    for item in items:
        parts = split_measures(item) if isinstance(item, str) else [item]
        out.extend(parse_measure(part) for part in parts)
    if not out:
        raise ParameterError("no measure given")
    return out
