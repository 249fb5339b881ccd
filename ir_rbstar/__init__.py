"""ir_rbstar: rank-biased, tie-aware, effort, MED and residual-gain measures inside ir_measures and PyTerrier.

Importing the package registers its measures with ir_measures and appends its provider to
``ir_measures.DefaultPipeline`` (idempotently), so measure strings such as ``RBR(p=0.8)@20`` work in
``ir_measures.calc_aggregate``, ``iter_calc``, ``evaluator`` and (as objects, see :func:`parse`) in
``pt.Experiment``.
"""
from __future__ import annotations

import importlib
from typing import Any

from . import _startup  # first: the ir-rbstar command's start-up, before numpy loads (undone at the end)


def _register() -> None:
    _register_measures()
    _register_provider()


with _startup.loading():           # the start-up undone when this import ends, also when it fails
    from . import errors
    from .errors import (DatasetUnavailableError, DuplicateDocumentError, EmptyInputError, InputFormatError,
                         MissingExtraError, MissingQrelsError, ParameterError, RbstarError, ReferenceNotFoundError)
    from .measures import (ALL as MEASURES, RBA, RBA_res, RBO, RBO_ext, RBO_res, RBP, RBP_res, RBR, RBR_res,
                           P_TA, R_TA, F1_TA, AP_TA, RR_TA, nDCG_TA, RBP_TA, Twist, Twist_rho, Twist_sigma,
                           NRG, UniqueRel, RarP, TaSC, MED_P, MED_RBP, MED_nDCG, MED_AP, MED_ERR,
                           register as _register_measures)
    from .provider import PROVIDER, register as _register_provider
    from .parsing import parse, parse_measure, split_measures
    from .engine import get_engine, set_engine
    _register()


#: names imported on first use (PEP 562), so that ``import ir_rbstar`` (and the ``ir-rbstar`` command on
#: ir_measures' own measures) does not import pandas and the readers: name -> (module, attribute or None)
_LAZY = {"med": (".med", None), "nrg": (".nrg", None), "twist": (".twist", None),
         "read_qrels": (".datasets", "load_qrels"), "read_run": (".io", "read_run_frame"),
         **{name: (".references", name) for name in (
             "clear_cache", "register_run", "register_runs", "registered_groups", "registered_runs", "run_scope",
             "unregister_run", "unregister_runs")}}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = importlib.import_module(module, __name__)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    # measure strings, evaluation inputs and named runs
    "parse", "parse_measure", "split_measures", "read_run", "read_qrels",
    "register_run", "unregister_run", "registered_runs", "register_runs", "unregister_runs", "registered_groups",
    "run_scope",
    "clear_cache", "MEASURES", "PROVIDER",
    # the measures
    "RBP", "RBP_res", "RBR", "RBR_res", "RBA", "RBA_res", "RBO", "RBO_res", "RBO_ext",
    "P_TA", "R_TA", "F1_TA", "AP_TA", "RR_TA", "nDCG_TA", "RBP_TA",
    "Twist", "Twist_rho", "Twist_sigma", "NRG", "UniqueRel", "RarP", "TaSC",
    "MED_P", "MED_RBP", "MED_nDCG", "MED_AP", "MED_ERR",
    # analysis modules, errors, engine
    "twist", "nrg", "med", "errors", "RbstarError", "InputFormatError", "DuplicateDocumentError", "EmptyInputError",
    "ParameterError", "ReferenceNotFoundError", "MissingQrelsError", "MissingExtraError", "DatasetUnavailableError",
    "set_engine", "get_engine", "__version__",
]
