"""Test collections from ``ir_datasets``: qrels and reference runs named by a dataset id.

Wherever ir_rbstar takes qrels as a path (``ir_rbstar.read_qrels``, the command line, the Twist, NRG
and MED helpers, ``pt.rbstar.qrels``) it also takes an ``ir_datasets`` id, written ``irds:<id>`` or
bare (``msmarco-passage/trec-dl-2019``); ``ref='irds:<id>'`` (and ``prior=``, ``runs=``,
``register_run(name, 'irds:<id>')``) makes the dataset's *scoreddocs* the reference run. A path that
exists always wins over an id. Dataset runs are converted once and cached like run files.

ir_datasets is an optional dependency (``pip install "ir_rbstar[datasets]"``), imported only when an
id is used. It reads its files from ``$IR_DATASETS_HOME`` (default ``~/.ir_datasets``) and downloads
only what is missing there, so a file placed at its cache path works offline.

    >>> import ir_rbstar.datasets as ds
    >>> ds.dataset_id("irds:msmarco-passage/trec-dl-2019")
    'msmarco-passage/trec-dl-2019'
    >>> ds.dataset_id("qrels.txt") is None
    True
"""
from __future__ import annotations

import importlib.util
import os
import re
from typing import Any, List, Optional, Tuple

import numpy as np
import pandas as pd

from .errors import (DatasetUnavailableError, EmptyInputError, InputFormatError, MissingExtraError,
                     MissingQrelsError, ReferenceNotFoundError)
from .io import Qrels, Ranking, qrels_from_columns, ranking_from_columns, ranking_frame, read_trec_qrels, to_qrels

__all__ = ["PREFIX", "MissingExtraError", "DatasetUnavailableError", "dataset_id", "load_dataset", "load_qrels",
           "load_scoreddocs", "qrels_of", "scoreddocs_of", "resolve_qrels", "scoreddocs_cache_key", "grade_scale",
           "top_of_scale"]

PREFIX = "irds:"
_INSTALL = 'pip install "ir_rbstar[datasets]"'


def dataset_id(spec: Any) -> Optional[str]:
    """The dataset id of an ``irds:<id>`` string (surrounding spaces removed), else None."""
    if isinstance(spec, str) and spec.startswith(PREFIX):
        return spec[len(PREFIX):].strip()
    return None


def _ir_datasets(spec: str):
    try:
        import ir_datasets
    except ImportError as e:
        raise MissingExtraError(f"{spec}: ir_datasets ids need the ir_datasets package: {_INSTALL}") from e
    return ir_datasets


def _id_of(spec: str) -> str:
    """The id of ``irds:<id>`` or of a bare id."""
    did = dataset_id(spec)
    return spec.strip() if did is None else did


def load_dataset(spec: str):
    """The ``ir_datasets`` dataset of ``irds:<id>`` or a bare id; :class:`MissingExtraError` without
    ir_datasets, :class:`~ir_rbstar.errors.ReferenceNotFoundError` for an unknown or empty id."""
    did = _id_of(spec)
    shown = f"{PREFIX}{did}"
    if not did:
        raise ReferenceNotFoundError(f"{spec!r}: no ir_datasets id after {PREFIX!r} (e.g. "
                                     f"'{PREFIX}msmarco-passage/trec-dl-2019')")
    irds = _ir_datasets(shown)
    try:
        return irds.load(did)
    except KeyError:
        raise ReferenceNotFoundError(f"{shown}: unknown ir_datasets id {did!r} (the ids are listed at "
                                     f"https://ir-datasets.com)") from None


def _unavailable(shown: str, what: str, error: BaseException) -> DatasetUnavailableError:
    home = os.environ.get("IR_DATASETS_HOME", os.path.join("~", ".ir_datasets"))
    reason = error.args[0] if error.args and isinstance(error.args[0], str) else str(error)
    return DatasetUnavailableError(f"{shown}: ir_datasets could not provide the {what} ({type(error).__name__}: "
                                   f"{reason}); to work offline "
                                   f"place the files at their cache paths under {home} (see docs/guide.md, "
                                   f"section 'Test collections from ir_datasets (offline)')")


def _rows(read, shown: str, what: str) -> list:
    """The rows ``read()`` gets from ir_datasets; its I/O failures and an empty result become our errors."""
    try:
        rows = read()
    except (OSError, RuntimeError) as e:
        raise _unavailable(shown, what, e) from e
    if not rows:
        raise EmptyInputError(f"{shown}: the dataset's {what} are empty")
    return rows


def qrels_of(spec: str) -> Qrels:
    """The qrels of a dataset (``irds:<id>`` or a bare id), converted to :class:`~ir_rbstar.io.Qrels`."""
    dataset = load_dataset(spec)
    shown = f"{PREFIX}{_id_of(spec)}"
    if not dataset.has_qrels():
        raise MissingQrelsError(f"{shown}: this ir_datasets dataset provides no qrels")
    rows = _rows(lambda: [(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()], shown, "qrels")
    q, d, g = (np.array(col, dtype=object) for col in zip(*rows, strict=True))
    return qrels_from_columns(q, d, g, shown)


def scoreddocs_cache_key(spec: str) -> Tuple[str, int, int]:
    """A cache key for the scoreddocs of ``irds:<id>`` in the form of the run-file cache's keys:
    the id with its scoreddocs file (or ir_datasets' home) and that file's size and modification time."""
    did = _id_of(spec)
    dataset = load_dataset(spec)
    path = None
    if dataset.has_scoreddocs():
        try:
            path = os.fspath(dataset.scoreddocs_path())
        except Exception:                  # filtered or generated scoreddocs have no single file
            path = None
    if path and os.path.isfile(path):
        st = os.stat(path)
        return f"{PREFIX}{did}|{os.path.abspath(path)}", st.st_size, st.st_mtime_ns
    return f"{PREFIX}{did}|{os.environ.get('IR_DATASETS_HOME', '')}", 0, 0


def scoreddocs_of(spec: str) -> Ranking:
    """The scoreddocs of ``irds:<id>`` as a :class:`~ir_rbstar.io.Ranking` (ordered by score, like a
    run file; the source is the string as written)."""
    dataset = load_dataset(spec)
    shown = spec.strip()
    if not dataset.has_scoreddocs():
        raise ReferenceNotFoundError(f"{shown}: this ir_datasets dataset provides no scoreddocs (no run to use "
                                     f"as a reference)")
    rows = _rows(lambda: [(s.query_id, s.doc_id, s.score) for s in dataset.scoreddocs_iter()], shown, "scoreddocs")
    q, d = (np.array(col, dtype=object) for col in list(zip(*rows, strict=True))[:2])
    s = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    return ranking_from_columns(q, d, s, shown)


def _is_spec(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike)) and "\n" not in str(obj)


_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)*")
_FILE_SUFFIXES = (".txt", ".gz", ".qrels", ".tsv", ".trec", ".run", ".csv", ".json", ".jsonl", ".bz2", ".xz", ".zip")


def _looks_like_id(spec: str) -> bool:
    """Whether a missing path could be a bare ir_datasets id (``a-b/c/d``), so that ir_datasets is not
    imported to look up names such as ``../qrels.txt``."""
    return bool(_ID.fullmatch(spec)) and not spec.lower().endswith(_FILE_SUFFIXES)


def resolve_qrels(qrels: Any) -> Qrels:
    """Qrels in any form ir_rbstar reads, where a string is a TREC qrels file, ``irds:<id>`` or a bare
    ir_datasets id (a path that exists wins). The one place that turns a qrels spec into data."""
    if not _is_spec(qrels):
        return to_qrels(qrels)
    spec = os.fspath(qrels)
    if os.path.exists(spec) or os.path.exists(os.path.expanduser(spec)):
        return read_trec_qrels(spec if os.path.exists(spec) else os.path.expanduser(spec))
    if dataset_id(spec) is not None:
        return qrels_of(spec)
    # a bare id, when ir_datasets is there and knows it; otherwise the file is missing
    if isinstance(qrels, str) and _looks_like_id(spec) and importlib.util.find_spec("ir_datasets") is not None:
        try:
            dataset = load_dataset(spec)
        except ReferenceNotFoundError:
            dataset = None
        if dataset is not None:
            return qrels_of(spec)
        raise FileNotFoundError(f"qrels file not found: {spec} (nor is it an ir_datasets id)")
    hint = "" if importlib.util.find_spec("ir_datasets") is not None else \
        f"; for an ir_datasets id: {_INSTALL}"
    raise FileNotFoundError(f"qrels file not found: {spec}{hint}")


def load_qrels(spec: Any) -> pd.DataFrame:
    """Read and validate qrels into a DataFrame ``query_id, doc_id, relevance`` (int): a TREC qrels file
    (``.gz`` allowed), or an ir_datasets id, ``'irds:<id>'`` or bare (``'msmarco-passage/trec-dl-2019'``;
    needs ``ir_rbstar[datasets]``), for the dataset's qrels. A path that exists wins over an id.
    ``ir_rbstar.read_qrels`` is this function."""
    if not _is_spec(spec):
        raise InputFormatError(f"load_qrels: expected a file path or an ir_datasets id, got {type(spec).__name__}")
    return resolve_qrels(spec).frame()


def load_scoreddocs(spec: str) -> pd.DataFrame:
    """The scoreddocs of a dataset (``irds:<id>`` or a bare id) as a run DataFrame
    ``query_id, doc_id, score`` in trec_eval order."""
    if dataset_id(spec) is None:
        spec = PREFIX + str(spec).strip()
    return ranking_frame(scoreddocs_of(spec))


def grade_scale(qrels: Any, top_grade: int) -> Tuple[int, str]:
    """The top of the collection's grade scale (``max_rel`` of the graded measures) and where it comes from.

    ``qrels`` is what the qrels were given as (a path, an id, a table), ``top_grade`` the highest grade its
    judgments hold. When the qrels are an ir_datasets id (``irds:<id>`` or a bare id that is not a file),
    the dataset's ``qrels_defs`` (the grades it defines) give the scale: a collection whose judged grades
    happen to stop below the top of its scale is still read on its own scale. Otherwise, or when the
    definitions are not available, the scale is the highest grade in the qrels (at least 1).

    >>> grade_scale("qrels.txt", 3)
    (3, 'the highest grade in the qrels')
    >>> grade_scale("qrels.txt", 0)
    (1, 'the highest grade in the qrels')
    """
    top = max(1, int(top_grade))
    did = _dataset_id(qrels)
    if did is not None:
        defined = _defined_grades(did)
        if defined:
            return max(top, max(defined)), f"the grades ir_datasets defines for {did} (qrels_defs)"
    return top, "the highest grade in the qrels"


def _dataset_id(qrels: Any) -> Optional[str]:
    """The ir_datasets id the qrels name (``irds:<id>``, or a bare id that is not an existing file), else None."""
    if not isinstance(qrels, str) or "\n" in qrels:
        return None
    did = dataset_id(qrels)
    if did is not None:
        return did
    if os.path.exists(qrels) or os.path.exists(os.path.expanduser(qrels)) or not _looks_like_id(qrels):
        return None
    return qrels.strip()


def _defined_grades(did: str) -> List[int]:
    """The integer grades of the dataset's ``qrels_defs`` (empty when ir_datasets cannot say)."""
    try:
        defs = load_dataset(did).qrels_defs()
    except Exception:                       # no ir_datasets, unknown id, no qrels: the qrels' own grades decide
        return []
    out = []
    for key in defs or {}:
        try:
            out.append(int(key))
        except (TypeError, ValueError):
            continue
    return out


def top_of_scale(spec: Any, qrels: Optional[Qrels]) -> int:
    """The top of the grade scale of ``qrels`` (given as ``spec``: a path, an ir_datasets id, a table), as
    :func:`grade_scale` sets it; 1 without judgments. The default graded measures of the report, the judging
    functions and ``distance_matrix`` take it as their ``max_rel``."""
    return grade_scale(spec, qrels.max_grade)[0] if qrels is not None else 1
