"""Input checks shared by the ``ir_rbstar.stats`` modules (private): every failure is a
:class:`~ir_rbstar.errors.ParameterError` whose message starts with the parameter at fault."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np
import pandas as pd

from ..errors import ParameterError

#: per-query values: a numpy array, a pandas Series or a plain sequence of numbers
Values = Union[np.ndarray, pd.Series, Sequence[float]]

#: relative allowance under which a resampled statistic still counts as "at least as extreme" as the
#: observed one (the rounding noise of a mean computed in another order)
REL_TOL = 1e-12

#: allowance relative to the scale of the data (e.g. mean |difference|) under which two sign-flip statistics
#: count as equal: sums of the same numbers with rounding (0.1 + 0.2 - 0.3 is 5.6e-17, not 0)
SCALE_TOL = 1e-9


def vector(values: Any, name: str, min_n: int = 2) -> np.ndarray:
    """``values`` as a finite 1-D float array of at least ``min_n`` entries."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name}: expected numbers, got {type(values).__name__} ({exc})") from exc
    if arr.ndim != 1:
        raise ParameterError(f"{name}: expected a 1-D sequence of per-query values, got shape {arr.shape}")
    if arr.size < min_n:
        raise ParameterError(f"{name}: needs at least {min_n} queries, got {arr.size}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ParameterError(f"{name}: NaN or infinite value at position(s) {bad[:5].tolist()}")
    return arr


def paired(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two per-query vectors paired by position (two Series must carry the same index, in order)."""
    x, y = vector(a, "a"), vector(b, "b")
    if x.size != y.size:
        raise ParameterError(f"b: has {y.size} values but a has {x.size}; a and b are paired by position "
                             "(one value per query each)")
    if isinstance(a, pd.Series) and isinstance(b, pd.Series) and not a.index.equals(b.index):
        raise ParameterError("b: its index differs from a's (values are paired by position); "
                             "align them first, e.g. b.reindex(a.index)")
    return x, y


def choice(value: Any, name: str, allowed: Sequence[str]) -> str:
    """``value`` lower-cased if it is one of ``allowed``."""
    key = value.lower() if isinstance(value, str) else value
    if key not in allowed:
        raise ParameterError(f"{name}: unknown value {value!r}; allowed: {', '.join(map(repr, allowed))}")
    return str(key)


def confidence(value: Any, name: str = "confidence") -> float:
    """A confidence level strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 < value < 1:
        raise ParameterError(f"{name}: must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def positive_int(value: Any, name: str, minimum: int = 1) -> int:
    """An integer of at least ``minimum`` (booleans refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ParameterError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def seed(value: Any) -> int | None:
    """A seed for :func:`numpy.random.default_rng`: a non-negative integer, or None (fresh entropy)."""
    if value is None:
        return None
    return positive_int(value, "seed", minimum=0)


def frame(value: Any, name: str = "frame") -> tuple[list[Any], np.ndarray]:
    """A ``run x query`` DataFrame: (run labels, finite float matrix) with >= 2 runs and >= 2 queries."""
    if not isinstance(value, pd.DataFrame):
        raise ParameterError(f"{name}: expected a pandas DataFrame (rows: runs, columns: queries), "
                             f"got {type(value).__name__}")
    if value.shape[0] < 2:
        raise ParameterError(f"{name}: needs at least 2 runs (rows), got {value.shape[0]}")
    if value.shape[1] < 2:
        raise ParameterError(f"{name}: needs at least 2 queries (columns), got {value.shape[1]}")
    if value.index.has_duplicates:
        dup = value.index[value.index.duplicated()].unique().tolist()
        raise ParameterError(f"{name}: duplicate run label(s) {dup[:5]}")
    try:
        mat = value.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name}: non-numeric values ({exc})") from exc
    if not np.isfinite(mat).all():
        rows, cols = np.nonzero(~np.isfinite(mat))
        raise ParameterError(f"{name}: missing or infinite value for run {value.index[rows[0]]!r}, "
                             f"query {value.columns[cols[0]]!r} (drop or fill such queries first)")
    return list(value.index), mat


def _rng_keyword(func: Callable[..., Any]) -> str:
    return "rng" if "rng" in inspect.signature(func).parameters else "random_state"


def rng_kw(func: Callable[..., Any], seed_value: int | None) -> dict[str, np.random.Generator]:
    """The keyword through which a scipy resampling function takes a seeded Generator
    (``rng`` from scipy 1.15, ``random_state`` before)."""
    return {_rng_keyword(func): np.random.default_rng(seed_value)}


def at_least(null: np.ndarray, observed: float | np.ndarray) -> np.ndarray:
    """``null >= observed`` up to a relative rounding allowance of :data:`REL_TOL`."""
    obs = np.asarray(observed, dtype=float)
    return null >= obs - REL_TOL * np.abs(obs)
