"""Typed exceptions. Every message names the input at fault (file and line, query, parameter)."""


__all__ = ["RbstarError", "InputFormatError", "DuplicateDocumentError", "EmptyInputError", "ParameterError",
           "ReferenceNotFoundError", "MissingQrelsError", "MissingExtraError", "DatasetUnavailableError",
           "GradeScaleError", "RbstarWarning", "BudgetWarning"]


class RbstarError(Exception):
    """Base class of every error raised by ir_rbstar."""


class InputFormatError(RbstarError, ValueError):
    """A run, qrels or reference run is malformed (wrong column count, bad score, duplicate document...)."""


class DuplicateDocumentError(InputFormatError):
    """A document occurs twice for the same query in one run or qrels."""


class EmptyInputError(InputFormatError):
    """A run, qrels or reference file is empty or a glob matched nothing."""


class ParameterError(RbstarError, ValueError):
    """A measure parameter is out of range or of the wrong type (e.g. ``p`` outside (0, 1), ``k <= 0``)."""


class ReferenceNotFoundError(RbstarError, LookupError):
    """A ``ref=`` value is neither an existing file nor a registered run name."""


class MissingQrelsError(RbstarError, ValueError):
    """A measure needs relevance judgments (e.g. ``ref=None`` or ``RBP``) but no qrels were given."""


class MissingExtraError(RbstarError, ImportError):
    """An optional dependency is missing (e.g. ir_datasets for an ``irds:`` id: ``ir_rbstar[datasets]``)."""


class DatasetUnavailableError(RbstarError, OSError):
    """ir_datasets knows the id but could not provide its files (not in its cache and not downloadable)."""


class GradeScaleError(InputFormatError):
    """A judged grade lies above the top of the grade scale (``max_rel``) of a graded measure."""


class RbstarWarning(UserWarning):
    """Base class of the warnings ir_rbstar issues (never for a silent change of a value)."""


class BudgetWarning(RbstarWarning):
    """A search reached its budget for some queries: their values are certified bounds, not exact values."""
