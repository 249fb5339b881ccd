"""Shared machinery of ir_rbstar's measure declarations.

ir_measures compares measures by ``repr`` and hides parameters at their default, and validates
lazily with bare ``AssertionError``. Measures declared here instead

* canonicalise their parameters when created (ints to floats for float parameters), so that
  ``RBR(p=1/2)`` written in different ways is one measure;
* validate when created, raising :class:`~ir_rbstar.errors.ParameterError` with the parameter named;
* always show the parameters listed in ``ALWAYS_SHOWN`` (``p`` for the rank-biased family), so a
  column label such as ``RBR(p=0.8)@20`` can never be confused with ``RBR(p=0.9)@20``, and
  ``ir_measures.parse_measure(str(m)) == m``.
"""
from __future__ import annotations

import math
from typing import Any, Dict, Optional, Tuple

from ir_measures.measures import Measure, ParamInfo

from ..errors import ParameterError
from .families import FAMILIES, Citation, Family

__all__ = ["RbstarMeasure", "ParamInfo", "NOT_PROVIDED", "param_p", "param_cutoff", "param_rel", "param_ref",
           "param_max_rel"]

#: ir_measures' marker of a parameter without a value (reached through its public ``ParamInfo``)
NOT_PROVIDED = ParamInfo().default


def param_cutoff() -> ParamInfo:
    return ParamInfo(dtype=int, required=False, desc="ranking cutoff k (only the top k of the run are evaluated)")


def param_p(default: float = 0.8) -> ParamInfo:
    return ParamInfo(dtype=float, default=default,
                     desc="persistence p, 0 < p < 1: the chance that a reader goes on from one rank to the "
                          "next; rank i weighs (1-p) p^(i-1)")


def param_rel(default: Any = 1) -> ParamInfo:
    """``default=NOT_PROVIDED`` means graded relevance when the user gives no ``rel``."""
    desc = "minimum relevance grade that counts as relevant (inclusive)"
    if default is NOT_PROVIDED:
        desc += "; not given: graded, gain = grade / max_rel"
    return ParamInfo(dtype=int, default=default, desc=desc)


def param_max_rel() -> ParamInfo:
    """The top of the grade scale of a measure that turns grades into gains in [0, 1]."""
    return ParamInfo(dtype=int, default=1,
                     desc="top of the grade scale (e.g. 3 for TREC DL, 2 for Robust04): graded gains are "
                          "grade / max_rel; a judged grade above it is an error, never clipped")


def param_ref() -> ParamInfo:
    return ParamInfo(dtype=str, default=None,
                     desc="reference ranking: path of a TREC run file (.gz allowed), or a name given to "
                          "ir_rbstar.register_run(); None: derived from the qrels (grade >= rel, grade "
                          "descending, equal grades tied)")


class RbstarMeasure(Measure):
    """Base class of every measure declared by ir_rbstar.

    A declaration carries everything about its measure: ``NAME``, ``PRETTY_NAME`` and ``SHORT_DESC`` (as
    ir_measures' own measures have them), ``FAMILY`` (a key of
    :data:`ir_rbstar.measures.families.FAMILIES`, which gives the family's label, documentation page and
    citation), ``SUPPORTED_PARAMS``, ``DEFAULT``: the value of a query the run does not answer (``None``
    where it depends on the reference, as for MED), and ``RANGE``: the range (low, high) every per-query
    value lies in (None: an open end; :meth:`value_range` where it depends on the parameters). The docstring
    holds the definition.
    """

    ALWAYS_SHOWN: Tuple[str, ...] = ()
    FAMILY = ""
    PRETTY_NAME = ""
    SHORT_DESC = ""
    DEFAULT: Optional[float] = 0.0      # type: ignore[assignment]  # None: depends on the reference
    RANGE: Tuple[Optional[float], Optional[float]] = (0.0, 1.0)

    def value_range(self) -> Tuple[Optional[float], Optional[float]]:
        """The range (low, high) of this measure's per-query values, None for an open end (intervals of a mean
        stay inside it): ``RANGE`` unless the parameters decide."""
        return self.RANGE

    @property
    def family(self) -> Family:
        """The measure's family (label, documentation page, citation)."""
        return FAMILIES[self.FAMILY]

    @property
    def citation(self) -> Citation:
        """The paper that defines the measure's family (author, year, venue, DOI)."""
        return FAMILIES[self.FAMILY].citation

    def __init__(self, **params):
        super().__init__(**self._canonical(params))
        self.validate_params()

    def _canonical(self, params: Dict[str, Any]) -> Dict[str, Any]:
        out = {}
        for name in self.SUPPORTED_PARAMS:           # declared order, so repr does not depend on call order
            if name in params:
                out[name] = params[name]
        for name in params:
            if name not in self.SUPPORTED_PARAMS:
                raise ParameterError(f"{self.NAME}: unknown parameter {name!r}; supported: "
                                     f"{', '.join(self.SUPPORTED_PARAMS)}")
        for name, value in list(out.items()):
            info = self.SUPPORTED_PARAMS[name]
            if value is None and info.default is NOT_PROVIDED:
                del out[name]                        # e.g. RBP(rel=None): the same as not giving rel
                continue
            if info.dtype is float and isinstance(value, int) and not isinstance(value, bool):
                out[name] = float(value)
        return out

    def validate_params(self):
        if self.validated:
            return
        for name, info in self.SUPPORTED_PARAMS.items():
            value = self.params.get(name, NOT_PROVIDED)
            if value is NOT_PROVIDED or (value is None and info.default is None):
                continue
            wrong_bool = isinstance(value, bool) != (info.dtype is bool)
            if wrong_bool or (info.dtype is not None and not isinstance(value, info.dtype)):
                raise ParameterError(f"{self.NAME}: parameter {name}={value!r} must be of type "
                                     f"{info.dtype.__name__}")
            if info.choices is not NOT_PROVIDED and value not in info.choices:
                raise ParameterError(f"{self.NAME}: parameter {name}={value!r} must be one of {info.choices}")
        self._check_ranges()
        self.validated = True

    def check_required(self) -> None:
        """Raise if a required parameter (such as the cutoff of ``P_TA``) is missing; prototypes such as
        ``P_TA`` may exist without it, but cannot be evaluated."""
        for name, info in self.SUPPORTED_PARAMS.items():
            if info.required and self.params.get(name) is None:
                hint = f", e.g. {self.NAME}@10" if name == self.AT_PARAM else ""
                raise ParameterError(f"{self.NAME}: parameter {name} is required{hint}")

    def _check_text(self, name: str, hint: str = "") -> None:
        """A string parameter (a run name, path or glob) that is given must not be blank."""
        value = self.params.get(name)
        if value is not None and not value.strip():
            raise ParameterError(f"{self.NAME}: {name}={value!r} names no run{hint}")

    def _check_ranges(self) -> None:
        cutoff = self.params.get("cutoff")
        if cutoff is not None and cutoff <= 0:
            raise ParameterError(f"{self.NAME}: cutoff @{cutoff} must be a positive integer")
        max_rel = self.params.get("max_rel")
        if max_rel is not None and not (isinstance(max_rel, int) and max_rel >= 1):
            raise ParameterError(f"{self.NAME}: max_rel={max_rel!r} must be an integer >= 1")
        if "p" in self.SUPPORTED_PARAMS:
            p = self["p"]
            if not (isinstance(p, float) and math.isfinite(p) and 0.0 < p < 1.0):
                raise ParameterError(f"{self.NAME}: persistence p={p!r} must lie strictly between 0 and 1")

    def __repr__(self) -> str:
        # measures are compared and hashed by repr, millions of times in a large evaluation: made once
        cached = self.__dict__.get("_repr")
        if cached is not None:
            return cached
        self.__dict__["_repr"] = text = self._make_repr()
        return text

    def _make_repr(self) -> str:
        shown = []
        for name, info in self.SUPPORTED_PARAMS.items():
            if name == self.AT_PARAM:
                continue
            if name in self.ALWAYS_SHOWN:
                if self[name] is not NOT_PROVIDED:      # a prototype such as NRG has no prior yet
                    shown.append(f"{name}={self._param_repr(self[name])}")
            elif name in self.params and self.params[name] != info.default:
                shown.append(f"{name}={self._param_repr(self.params[name])}")
        result = str(self.NAME)
        if shown:
            result += "(" + ",".join(shown) + ")"
        if self.params.get(self.AT_PARAM) is not None:
            result += f"@{self.params[self.AT_PARAM]}"
        return result

    def __str__(self) -> str:
        return repr(self)

    __hash__ = Measure.__hash__
    __eq__ = Measure.__eq__
