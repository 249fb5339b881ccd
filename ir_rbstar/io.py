"""Reading runs and qrels into one columnar form.

Every input form (TREC text file, ``.gz``, pandas DataFrame, dict of dicts, iterable of namedtuples)
is converted once into integer-coded numpy arrays:

* :class:`Ranking`: one segment per query, rows in trec_eval order (score descending, ties broken by
  doc id descending), with the tie groups of equal score known for every row;
* :class:`Qrels`: judgments with integer grades, sorted by (query, document) for vectorised look-up.

Query and document ids are interned in process-wide vocabularies, so that rows of different tables
can be joined on 64-bit integer keys with ``np.searchsorted`` instead of Python dictionaries.
Nothing here knows about measures.
"""
from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Tuple

import numpy as np
import pandas as pd

from .errors import DuplicateDocumentError, EmptyInputError, InputFormatError

__all__ = ["Ranking", "Qrels", "to_ranking", "to_qrels", "read_trec_run", "read_trec_qrels", "read_run_frame",
           "read_qrels_frame",
           "QUERY_IDS", "DOC_IDS"]

_KEY_SHIFT = np.int64(32)


class _Vocab:
    """Interns strings as dense integer codes (one vocabulary for queries, one for documents)."""

    def __init__(self) -> None:
        self._index = pd.Index(np.empty(0, dtype=object), dtype=object)

    def __len__(self) -> int:
        return len(self._index)

    def encode(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=object)
        if len(values) == 0:
            return np.empty(0, dtype=np.int64)
        codes = self._index.get_indexer(values)
        missing = codes < 0
        if missing.any():
            new = pd.unique(values[missing])
            start = len(self._index)
            self._index = self._index.append(pd.Index(new, dtype=object))
            codes[missing] = start + pd.Index(new, dtype=object).get_indexer(values[missing])
        return codes.astype(np.int64, copy=False)

    def lookup(self, values: np.ndarray) -> np.ndarray:
        """Codes of known strings, -1 for unknown ones (the vocabulary is not extended)."""
        return self._index.get_indexer(np.asarray(values, dtype=object)).astype(np.int64, copy=False)

    def decode(self, codes: np.ndarray) -> np.ndarray:
        return self._index.to_numpy(dtype=object)[np.asarray(codes, dtype=np.int64)]


QUERY_IDS = _Vocab()
DOC_IDS = _Vocab()


def make_keys(qcodes: np.ndarray, dcodes: np.ndarray) -> np.ndarray:
    """One int64 key per (query, document) pair."""
    return (qcodes.astype(np.int64) << _KEY_SHIFT) | dcodes.astype(np.int64)


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """Segment index of every row, from segment offsets."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def positions(offsets: np.ndarray) -> np.ndarray:
    """0-based position of every row inside its segment."""
    n = int(offsets[-1])
    seg = segment_ids(offsets)
    return np.arange(n, dtype=np.int64) - offsets[:-1][seg]


@dataclass
class Ranking:
    """A run in columnar form: one segment per query, rows in trec_eval order."""

    qcodes: np.ndarray      # query code of each segment (unique)
    offsets: np.ndarray     # segment boundaries, len(qcodes) + 1
    docs: np.ndarray        # document code of each row
    scores: np.ndarray      # score of each row
    source: str = "<run>"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    @property
    def query_ids(self) -> np.ndarray:
        return QUERY_IDS.decode(self.qcodes)

    def row_segments(self) -> np.ndarray:
        if "seg" not in self._cache:
            self._cache["seg"] = segment_ids(self.offsets)
        return self._cache["seg"]

    def row_positions(self) -> np.ndarray:
        """0-based rank of each row within its query."""
        if "pos" not in self._cache:
            self._cache["pos"] = positions(self.offsets)
        return self._cache["pos"]

    def tie_groups(self) -> Tuple[np.ndarray, np.ndarray]:
        """For each row: the 0-based position where its tie group (equal score) starts, and its size."""
        if "ties" not in self._cache:
            n = len(self)
            seg = self.row_segments()
            new = np.ones(n, dtype=bool)
            if n > 1:
                new[1:] = (seg[1:] != seg[:-1]) | (self.scores[1:] != self.scores[:-1])
            gid = np.cumsum(new) - 1
            first = np.flatnonzero(new)
            sizes = np.diff(np.append(first, n))
            start = self.row_positions()[first]
            self._cache["ties"] = (start[gid], sizes[gid])
        return self._cache["ties"]

    def has_ties(self) -> bool:
        return bool((self.tie_groups()[1] > 1).any())

    def sorted_keys(self) -> Tuple[np.ndarray, np.ndarray]:
        """(keys sorted ascending, row index of each sorted key)."""
        if "keys" not in self._cache:
            keys = make_keys(self.qcodes[self.row_segments()], self.docs)
            perm = np.argsort(keys, kind="stable")
            self._cache["keys"] = (keys[perm], perm)
        return self._cache["keys"]

    def find_rows(self, qcodes: np.ndarray, dcodes: np.ndarray) -> np.ndarray:
        """Row index of each (query, doc) pair in this ranking, -1 where absent."""
        return _find(self.sorted_keys(), make_keys(qcodes, dcodes))

    def segment_of(self, qcodes: np.ndarray) -> np.ndarray:
        """Segment index of each query code, -1 where the query has no rows here."""
        if "qsort" not in self._cache:
            perm = np.argsort(self.qcodes, kind="stable")
            self._cache["qsort"] = (self.qcodes[perm], perm)
        return _find(self._cache["qsort"], np.asarray(qcodes, dtype=np.int64))

    def segment_lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


@dataclass
class Qrels:
    """Relevance judgments, sorted by (query, document) key."""

    qcodes: np.ndarray      # unique query codes, in first-seen order
    keys: np.ndarray        # sorted (query, doc) keys
    rowq: np.ndarray        # query code of each sorted row
    rowd: np.ndarray        # doc code of each sorted row
    grades: np.ndarray      # integer grade of each sorted row
    source: str = "<qrels>"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def max_grade(self) -> int:
        return int(self.grades.max()) if len(self.grades) else 0

    def lookup(self, qcodes: np.ndarray, dcodes: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(grade, judged) for each (query, doc) pair; grade is 0 where unjudged."""
        rows = _find((self.keys, None), make_keys(qcodes, dcodes))
        judged = rows >= 0
        grade = np.zeros(len(rows), dtype=np.int64)
        grade[judged] = self.grades[rows[judged]]
        return grade, judged

    def as_ranking(self, rel: int) -> Ranking:
        """The reference ranking derived from the judgments: grade >= rel, grade descending, equal grades tied."""
        key = ("ranking", rel)
        if key not in self._cache:
            keep = self.grades >= rel
            q, d, g = self.rowq[keep], self.rowd[keep], self.grades[keep].astype(np.float64)
            self._cache[key] = _build_ranking(q, d, g, None, f"{self.source} (grade >= {rel})", qorder=self.qcodes)
        return self._cache[key]


def _find(sorted_index: Tuple[np.ndarray, Optional[np.ndarray]], keys: np.ndarray) -> np.ndarray:
    sorted_keys, perm = sorted_index
    if len(sorted_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    pos = np.searchsorted(sorted_keys, keys)
    pos_c = np.minimum(pos, len(sorted_keys) - 1)
    hit = sorted_keys[pos_c] == keys
    out = np.where(hit, pos_c, -1).astype(np.int64)
    if perm is not None:
        out[hit] = perm[out[hit]]
    return out


# ---------------------------------------------------------------------------------------------
# Building a Ranking from three columns
# ---------------------------------------------------------------------------------------------

def _build_ranking(qcodes: np.ndarray, dcodes: np.ndarray, scores: np.ndarray,
                   doc_strings: Optional[np.ndarray], source: str,
                   qorder: Optional[np.ndarray] = None) -> Ranking:
    """Sort rows into trec_eval order. ``doc_strings`` (the original ids) break score ties, descending."""
    n = len(qcodes)
    if qorder is not None:
        # segments follow a given query order (e.g. the qrels' order)
        rank_of_q = np.full(int(max(qcodes.max(initial=-1), qorder.max(initial=-1))) + 1, -1, dtype=np.int64)
        rank_of_q[qorder] = np.arange(len(qorder))
        qsort = rank_of_q[qcodes]
    else:
        # segments in order of first appearance in the input
        uq, first = np.unique(qcodes, return_index=True)
        rank = np.empty(len(uq), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(uq))
        qsort = rank[np.searchsorted(uq, qcodes)]
    order = np.lexsort((-scores, qsort))
    if doc_strings is not None and n > 1:
        order = _break_ties_by_docid(order, qsort, scores, doc_strings)
    q_sorted = qcodes[order]
    new_seg = np.ones(n, dtype=bool)
    if n > 1:
        new_seg[1:] = q_sorted[1:] != q_sorted[:-1]
    starts = np.flatnonzero(new_seg)
    offsets = np.append(starts, n).astype(np.int64)
    return Ranking(qcodes=q_sorted[starts], offsets=offsets, docs=dcodes[order],
                   scores=scores[order], source=source)


def _break_ties_by_docid(order: np.ndarray, qsort: np.ndarray, scores: np.ndarray,
                         doc_strings: np.ndarray) -> np.ndarray:
    qs, ss = qsort[order], scores[order]
    tied_prev = np.zeros(len(order), dtype=bool)
    tied_prev[1:] = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not tied_prev.any():
        return order
    gid = np.cumsum(~tied_prev) - 1
    sizes = np.bincount(gid)
    rows = np.flatnonzero(sizes[gid] > 1)          # positions (in `order`) that belong to a tie
    g = gid[rows]
    d = np.asarray(doc_strings, dtype=object)[order[rows]]
    asc = np.lexsort((d, g))                         # by group, then doc id ascending
    # reverse within each group: element at offset i of a group of size m goes to offset m-1-i
    grp_sorted = g[asc]
    grp_first = np.flatnonzero(np.r_[True, grp_sorted[1:] != grp_sorted[:-1]])
    grp_size = np.diff(np.append(grp_first, len(asc)))
    start_of = np.repeat(grp_first, grp_size)
    size_of = np.repeat(grp_size, grp_size)
    idx = np.arange(len(asc))
    desc = asc[start_of + size_of - 1 - (idx - start_of)]
    out = order.copy()
    out[rows] = order[rows][desc]
    return out


def _check_duplicates(qcodes: np.ndarray, dcodes: np.ndarray, what: str, source: str,
                      qids: np.ndarray, dids: np.ndarray, line_of=None) -> None:
    keys = make_keys(qcodes, dcodes)
    perm = np.argsort(keys, kind="stable")
    sk = keys[perm]
    dup = np.flatnonzero(sk[1:] == sk[:-1])
    if len(dup):
        first, second = perm[dup[0]], perm[dup[0] + 1]
        first, second = min(first, second), max(first, second)
        where = ""
        if line_of is not None:
            where = f" (lines {line_of(first)} and {line_of(second)})"
        raise DuplicateDocumentError(
            f"{source}: document {dids[second]!r} appears twice for query {qids[second]!r}{where}; "
            f"a {what} may hold each document once per query")


def _check_scores(scores: np.ndarray, source: str, qids, dids, line_of=None) -> None:
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = f" line {line_of(i)}:" if line_of is not None else ""
        raise InputFormatError(f"{source}:{where} score {scores[i]!r} of document {dids[i]!r} for query "
                               f"{qids[i]!r} is not a finite number")


def ranking_from_columns(qids, dids, scores, source: str, line_of=None) -> Ranking:
    qids = np.asarray(qids, dtype=object)
    dids = np.asarray(dids, dtype=object)
    try:
        scores = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raw = np.asarray(scores, dtype=object)
        conv = pd.to_numeric(pd.Series(raw), errors="coerce").to_numpy()
        i = int(np.flatnonzero(np.isnan(conv))[0])
        where = f" line {line_of(i)}:" if line_of is not None else ""
        raise InputFormatError(f"{source}:{where} score {raw[i]!r} of document {dids[i]!r} for query "
                               f"{qids[i]!r} is not a number") from None
    _check_scores(scores, source, qids, dids, line_of)
    qc = QUERY_IDS.encode(qids)
    dc = DOC_IDS.encode(dids)
    _check_duplicates(qc, dc, "run", source, qids, dids, line_of)
    return _build_ranking(qc, dc, scores, dids, source)


def qrels_from_columns(qids, dids, grades, source: str, line_of=None) -> Qrels:
    qids = np.asarray(qids, dtype=object)
    dids = np.asarray(dids, dtype=object)
    raw = np.asarray(grades)
    if raw.dtype.kind in "iub":
        g = raw.astype(np.int64)
    else:
        conv = pd.to_numeric(pd.Series(raw, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(conv) | (conv != np.round(conv))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = f" line {line_of(i)}:" if line_of is not None else ""
            raise InputFormatError(f"{source}:{where} relevance {raw[i]!r} of document {dids[i]!r} for query "
                                   f"{qids[i]!r} is not an integer grade")
        g = conv.astype(np.int64)
    qc = QUERY_IDS.encode(qids)
    dc = DOC_IDS.encode(dids)
    keys = make_keys(qc, dc)
    perm = np.argsort(keys, kind="stable")
    sk = keys[perm]
    dup = np.flatnonzero(sk[1:] == sk[:-1])
    if len(dup):
        a, b = sorted((perm[dup[0]], perm[dup[0] + 1]))
        where = f" (lines {line_of(a)} and {line_of(b)})" if line_of is not None else ""
        raise DuplicateDocumentError(f"{source}: document {dids[b]!r} is judged twice for query {qids[b]!r}{where}")
    uq, first = np.unique(qc, return_index=True)
    qorder = uq[np.argsort(first, kind="stable")]
    return Qrels(qcodes=qorder, keys=sk, rowq=qc[perm], rowd=dc[perm], grades=g[perm], source=source)


# ---------------------------------------------------------------------------------------------
# TREC files
# ---------------------------------------------------------------------------------------------

def _open_text(path: str):
    return gzip.open(path, "rt") if str(path).endswith(".gz") else open(path, "rt")


def _line_mapper(path: str):
    """Maps a data-row index to its 1-based line number in the file (blank lines are skipped)."""
    cache = {}

    def line_of(row: int) -> int:
        if "lines" not in cache:
            nums = []
            with _open_text(path) as f:
                for lineno, line in enumerate(f, 1):
                    if line.strip():
                        nums.append(lineno)
            cache["lines"] = nums
        return cache["lines"][row]
    return line_of


def _read_columns(path: str, ncols: int, what: str, layout: str) -> pd.DataFrame:
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what} file not found: {path}")
    if os.path.isdir(path):
        raise InputFormatError(f"{path}: is a directory, expected a {what} file")
    try:
        df = pd.read_csv(path, sep=r"\s+", header=None, names=list(range(ncols)), dtype=str,
                         engine="c", na_filter=False, quoting=3, comment=None)
    except pd.errors.EmptyDataError:
        raise EmptyInputError(f"{path}: the {what} file is empty") from None
    except pd.errors.ParserError as e:
        msg = str(e)
        line = None
        if " in line " in msg:
            try:
                line = int(msg.split(" in line ")[1].split(",")[0])
            except ValueError:
                line = None
        raise InputFormatError(f"{path}:{'' if line is None else f' line {line}:'} expected {ncols} "
                               f"whitespace-separated columns ({layout}); {msg.split('. ')[-1].strip()}") from None
    except UnicodeDecodeError as e:
        raise InputFormatError(f"{path}: not a text {what} file ({e})") from None
    if len(df) == 0:
        raise EmptyInputError(f"{path}: the {what} file is empty")
    short = (df[ncols - 1] == "").to_numpy()
    if short.any():
        i = int(np.flatnonzero(short)[0])
        raise InputFormatError(f"{path}: line {_line_mapper(path)(i)}: expected {ncols} whitespace-separated "
                               f"columns ({layout}), found fewer")
    return df


def read_run_frame(path: str) -> pd.DataFrame:
    """Read and validate a TREC run file into a DataFrame ``query_id, doc_id, score``.

    Checks the column count, that every score is a finite number and that no document appears twice
    for a query; errors name the file and line.
    """
    ranking_src = _read_run_columns(path)
    return pd.DataFrame({"query_id": ranking_src[0], "doc_id": ranking_src[1], "score": ranking_src[2]})


def _read_run_columns(path: str):
    path = os.fspath(path)
    df = _read_columns(path, 6, "run", "query_id Q0 doc_id rank score tag")
    line_of = _line_mapper(path)
    q, d = df[0].to_numpy(dtype=object), df[2].to_numpy(dtype=object)
    s = _parse_float_column(df[4], path, line_of, df)
    _check_scores(s, path, q, d, line_of)
    return q, d, s, line_of


def read_trec_run(path: str) -> Ranking:
    """Read a TREC run file (``qid Q0 docno rank score tag``; ``.gz`` allowed) into a :class:`Ranking`.

    The rank column is ignored: rows are ordered by score (descending), ties by doc id (descending).
    """
    q, d, s, line_of = _read_run_columns(path)
    return ranking_from_columns(q, d, s, os.fspath(path), line_of)


def _parse_float_column(col: pd.Series, path: str, line_of, df) -> np.ndarray:
    conv = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(conv) & ~col.str.lower().isin(["nan"]).to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFormatError(f"{path}: line {line_of(i)}: score {col.iloc[i]!r} of document {df[2].iloc[i]!r} "
                               f"for query {df[0].iloc[i]!r} is not a number")
    return conv


def read_qrels_frame(path: str) -> pd.DataFrame:
    """Read and validate a TREC qrels file into a DataFrame ``query_id, doc_id, relevance`` (int)."""
    qrels = read_trec_qrels(path)
    return pd.DataFrame({"query_id": QUERY_IDS.decode(qrels.rowq), "doc_id": DOC_IDS.decode(qrels.rowd),
                         "relevance": qrels.grades})


def read_trec_qrels(path: str) -> Qrels:
    """Read a TREC qrels file (``qid iteration docno grade``; ``.gz`` allowed)."""
    path = os.fspath(path)
    df = _read_columns(path, 4, "qrels", "query_id iteration doc_id relevance")
    return qrels_from_columns(df[0].to_numpy(dtype=object), df[2].to_numpy(dtype=object),
                              df[3].to_numpy(dtype=object), path, _line_mapper(path))


# ---------------------------------------------------------------------------------------------
# Any input form
# ---------------------------------------------------------------------------------------------

_RUN_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("score",))
_QREL_COLS = (("query_id", "qid"), ("doc_id", "docno"), ("relevance", "label"))


def _pick(df: pd.DataFrame, options, source: str, what: str) -> np.ndarray:
    for name in options:
        if name in df.columns:
            return df[name].to_numpy()
    raise InputFormatError(f"{source}: {what} DataFrame has no column {options[0]!r} "
                           f"(columns found: {list(df.columns)})")


def _is_path(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike)) and "\n" not in str(obj)


def to_ranking(run: Any, source: Optional[str] = None) -> Ranking:
    """Convert a run in any supported form to a :class:`Ranking`."""
    if isinstance(run, Ranking):
        return run
    if _is_path(run):
        return read_trec_run(run)
    if isinstance(run, pd.DataFrame):
        src = source or "<run DataFrame>"
        q, d, s = (_pick(run, c, src, "run") for c in _RUN_COLS)
        return ranking_from_columns(q, d, s, src)
    if isinstance(run, dict):
        src = source or "<run dict>"
        return ranking_from_columns(*_columns_from_dict(run, src, "run", "score"), src)
    if hasattr(run, "__iter__"):
        src = source or "<run iterable>"
        q, d, s = _columns_from_tuples(run, ("query_id", "doc_id", "score"), src, "run")
        return ranking_from_columns(q, d, s, src)
    raise InputFormatError(f"unsupported run type {type(run).__name__}: give a TREC run file path, a DataFrame "
                           f"(query_id, doc_id, score), a dict of dicts or an iterable of namedtuples")


def to_qrels(qrels: Any, source: Optional[str] = None) -> Qrels:
    """Convert qrels in any supported form to :class:`Qrels`."""
    if isinstance(qrels, Qrels):
        return qrels
    if _is_path(qrels):
        return read_trec_qrels(qrels)
    if isinstance(qrels, pd.DataFrame):
        src = source or "<qrels DataFrame>"
        q, d, g = (_pick(qrels, c, src, "qrels") for c in _QREL_COLS)
        return qrels_from_columns(q, d, g, src)
    if isinstance(qrels, dict):
        src = source or "<qrels dict>"
        return qrels_from_columns(*_columns_from_dict(qrels, src, "qrels", "relevance"), src)
    if hasattr(qrels, "__iter__"):
        src = source or "<qrels iterable>"
        q, d, g = _columns_from_tuples(qrels, ("query_id", "doc_id", "relevance"), src, "qrels")
        return qrels_from_columns(q, d, g, src)
    raise InputFormatError(f"unsupported qrels type {type(qrels).__name__}: give a TREC qrels file path, a "
                           f"DataFrame (query_id, doc_id, relevance), a dict of dicts or an iterable of namedtuples")


def _columns_from_dict(obj: dict, source: str, what: str, value_name: str):
    """Three object arrays (query ids, doc ids, values) from a dict of dicts."""
    qs, ds, vs = [np.empty(0, dtype=object)], [np.empty(0, dtype=object)], [np.empty(0, dtype=object)]
    for qid, docs in obj.items():
        if not isinstance(docs, dict):
            raise InputFormatError(f"{source}: {what}[{qid!r}] must be a dict of doc_id -> {value_name}")
        qs.append(np.full(len(docs), qid, dtype=object))
        ds.append(np.fromiter(docs.keys(), dtype=object, count=len(docs)))
        vs.append(np.fromiter(docs.values(), dtype=object, count=len(docs)))
    return np.concatenate(qs), np.concatenate(ds), np.concatenate(vs)


def _columns_from_tuples(items: Iterable, fields, source: str, what: str):
    cols = ([], [], [])
    for i, item in enumerate(items):
        if isinstance(item, str):
            raise InputFormatError(f"{source}: the {what} is an iterable of strings (a file path given where "
                                   f"ir_measures expects records?): read files with ir_rbstar.read_{what}(path)")
        try:
            for col, f in zip(cols, fields):
                col.append(getattr(item, f))
        except AttributeError:
            raise InputFormatError(f"{source}: item {i} of the {what} has no field {f!r} "
                                   f"(expected namedtuples with fields {fields})") from None
    return (np.array(cols[0], dtype=object), np.array(cols[1], dtype=object), np.array(cols[2], dtype=object))
