"""Which engine runs the hot loops: numpy (always) or compiled loops (numba, the optional ``fast`` extra).

Both engines give the same results (the tests run both on the same inputs); the compiled one reads
TREC files and joins runs with references several times faster on large inputs. It is chosen by
``ir_rbstar.set_engine(name)`` or the environment variable ``IR_RBSTAR_ENGINE``:

* ``"auto"`` (default): compiled loops for inputs of at least :data:`MIN_ROWS` rows when numba is
  installed (``pip install "ir-rbstar[fast]"``), numpy otherwise;
* ``"numpy"``: numpy only;
* ``"numba"``: compiled loops for every input (an error if numba is not installed).

The compiled loops are cached on disk by numba (next to the package, or in numba's cache directory):
the first use on a machine compiles them (a few seconds, measured in ``benchmarks/``); later
processes load them from the cache.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, Optional

from .errors import MissingExtraError, ParameterError, RbstarError

__all__ = ["set_engine", "get_engine", "using", "compiled", "MIN_ROWS", "ENGINES"]

ENGINES = ("auto", "numpy", "numba")
ENV = "IR_RBSTAR_ENGINE"
MIN_ROWS = 2_000_000

_chosen: Optional[str] = None


def _check(name: str, where: str) -> str:
    if name not in ENGINES:
        raise ParameterError(f"{where}: unknown engine {name!r}; expected one of {', '.join(ENGINES)}")
    return name


def get_engine() -> str:
    """The engine in force: set by :func:`set_engine`, else ``$IR_RBSTAR_ENGINE``, else ``"auto"``."""
    if _chosen is not None:
        return _chosen
    return _check(os.environ.get(ENV, "auto").strip().lower() or "auto", f"environment variable {ENV}")


def set_engine(name: Optional[str]) -> None:
    """Choose the engine (``"auto"``, ``"numpy"`` or ``"numba"``); None goes back to ``$IR_RBSTAR_ENGINE``."""
    global _chosen
    if name is not None:
        _check(name, "ir_rbstar.set_engine")
        if name == "numba":
            _load()
    _chosen = name


@contextlib.contextmanager
def using(name: str) -> Iterator[None]:
    """``with using("numpy"): ...`` runs the block with that engine."""
    global _chosen
    before = _chosen
    set_engine(name)
    try:
        yield
    finally:
        _chosen = before


def _load():
    try:
        from . import _compiled
    except ImportError as e:
        raise MissingExtraError(f"the numba engine needs numba ({e}); install it with: "
                                f"pip install \"ir-rbstar[fast]\"") from None
    except RuntimeError as e:        # numba found no writable place for its cache
        raise RbstarError(f"the numba engine cannot start: {e}; set NUMBA_CACHE_DIR to a writable "
                          f"directory, or use the numpy engine (IR_RBSTAR_ENGINE=numpy)") from None
    return _compiled


def compiled(rows: int, loaded_only: bool = False):
    """The compiled kernels (module :mod:`ir_rbstar._compiled`) if they are to be used for an input of
    ``rows`` rows, else None. With ``loaded_only``, "auto" uses them only when they are loaded already
    (work they would speed up by less than numba's start-up, e.g. converting Python objects)."""
    name = get_engine()
    if loaded_only and name == "auto" and __package__ + "._compiled" not in sys.modules:
        return None
    if name == "numpy" or (name == "auto" and rows < MIN_ROWS):
        return None
    if name == "numba":
        return _load()
    try:
        return _load()
    except RbstarError:              # numba missing or unable to cache: numpy does the work
        return None
