"""Building a :class:`~ir_rbstar.io.tables.Ranking` or :class:`~ir_rbstar.io.tables.Qrels` from columns
(query ids, document ids, scores or grades): validation (scores, grades, duplicates) and the sort."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ..engine import compiled
from ..errors import DuplicateDocumentError, InputFormatError, RbstarError
from . import querytable
from .docindex import (MovedIndex, Moves, SortedIndex, clashes_by_sort, hashes_are_ids, input_rows,
                       judgment_index)
from .ids import QUERY_IDS, CodedIds, _raw, _show, _to_str, check_utf8, doc_bytes, hash_ids
from .tables import Qrels, Ranking, _block_firsts, _build_ranking, _query_codes, first_seen


def _check_duplicates(clashes: Optional[Tuple[np.ndarray, np.ndarray]], qcodes: np.ndarray, dbytes: np.ndarray,
                      what: str, source: str, line_of=None) -> None:
    """Raise on the ``clashes`` (pairs of rows with the same query and document hash), if any.

    A document given more than once is reported by its first two rows, the one whose second row comes
    first in the input (whichever rows the clashes name, so every engine reports the same lines)."""
    if clashes is None or len(clashes[0]) == 0:
        return
    rows = np.unique(np.concatenate(clashes))
    q, d = qcodes[rows], dbytes[rows]
    order = np.lexsort((rows, d, q))
    rows, q, d = rows[order], q[order], d[order]
    repeat = np.flatnonzero((q[1:] == q[:-1]) & (d[1:] == d[:-1]))
    if len(repeat) == 0:
        a, b = int(clashes[0][0]), int(clashes[1][0])
        raise RbstarError(f"{source}: 64-bit hash collision between document ids {_raw(dbytes[a])!r} and "
                          f"{_raw(dbytes[b])!r}; please report this (it should practically never happen)")
    firsts = repeat[np.r_[True, repeat[1:] != repeat[:-1] + 1]]      # the first repeat of each document
    i = firsts[np.argmin(rows[firsts + 1])]
    a, b = int(rows[i]), int(rows[i + 1])
    where = f" (lines {line_of(a)} and {line_of(b)})" if line_of is not None else ""
    verb = "appears twice" if what == "run" else "is judged twice"
    raise DuplicateDocumentError(
        f"{source}: document {_to_str(dbytes[b:b + 1])[0]!r} {verb} for query "
        f"{QUERY_IDS.decode(qcodes[b:b + 1])[0]!r}{where}; a {what} may hold each document once per query")


def _check_scores(scores: np.ndarray, source: str, qids, dids, line_of=None) -> None:
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = f" line {line_of(i)}:" if line_of is not None else ""
        raise InputFormatError(f"{source}:{where} score {_show(scores[i])!r} of document {_show(dids[i])!r} for query "
                               f"{_show(qids[i])!r} is not a finite number")


_POW10 = 10.0 ** np.arange(16)


def _plain_decimals(tokens: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Values of byte-string tokens ``[+-]digits[.digits]`` with at most 15 digits, and where they apply.

    Such a token is an integer m < 10^15 < 2^53 divided by 10^f with f <= 15: both are exact doubles,
    so the one division is correctly rounded, the same double as ``float(token)`` (strtod). It works a
    character column at a time over all tokens, about twice as fast as numpy's per-token
    conversion; other tokens (exponents, more digits, nan, garbage) are flagged for that conversion.
    """
    n, w = len(tokens), tokens.dtype.itemsize
    chars = np.ascontiguousarray(tokens.view(np.uint8).reshape(n, w).T)
    mantissa = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int16)
    frac = np.zeros(n, dtype=np.int16)
    seen_dot = np.zeros(n, dtype=bool)
    ended = np.zeros(n, dtype=bool)
    bad = np.zeros(n, dtype=bool)
    neg = chars[0] == ord("-")
    sign = neg | (chars[0] == ord("+"))
    for j in range(w):
        c = chars[j]
        d = c - np.uint8(ord("0"))
        is_digit = d < 10
        pad = c == 0
        dot = c == ord(".")
        other = ~(is_digit | pad | dot)
        if j == 0:
            other &= ~sign
        bad |= other | (dot & seen_dot) | (ended & ~pad)
        ended |= pad
        seen_dot |= dot
        mantissa *= np.where(is_digit, 10, 1)
        mantissa += np.where(is_digit, d, 0)
        digits += is_digit
        frac += is_digit & seen_dot
    ok = ~bad & (digits >= 1) & (digits <= 15)
    values = mantissa / _POW10[np.where(ok, frac, 0)]
    np.negative(values, out=values, where=neg)
    return values, ok


def underscored(tokens: np.ndarray) -> np.ndarray:
    """Which byte tokens hold ``_``: Python's float() and numpy read ``1_000`` as 1000 (trec_eval's atof as 1),
    so a number written so is refused, not read as either."""
    return np.char.find(tokens, b"_") >= 0


def text_floats(tokens) -> np.ndarray:
    """Scores (numbers written as text, or values numpy casts) as doubles. One beyond the doubles' range
    becomes +-inf, as C's strtod makes it, without numpy's overflow warning (which would print on the user's
    terminal): the scores' finite check then names its line."""
    with np.errstate(over="ignore"):
        return np.asarray(tokens, dtype=np.float64)


def _as_float(scores: Any, qids, dids, source: str, line_of=None) -> np.ndarray:
    try:
        if isinstance(scores, np.ndarray) and scores.dtype.kind == "S":
            if 0 < scores.dtype.itemsize <= 17:
                values, ok = _plain_decimals(scores)
                if not ok.all():
                    if underscored(scores[~ok]).any():
                        raise ValueError("an underscore in a number")
                    values[~ok] = text_floats(scores[~ok])
                return values
            if underscored(scores).any():
                raise ValueError("an underscore in a number")
        return text_floats(scores)
    except (TypeError, ValueError):
        import pandas as pd                # (the error's path: the row to name)
        raw = np.asarray(scores, dtype=object)
        conv = np.array(pd.to_numeric(pd.Series(raw), errors="coerce"), dtype=np.float64)
        if isinstance(scores, np.ndarray) and scores.dtype.kind == "S":
            conv[underscored(scores)] = np.nan
        i = int(np.flatnonzero(np.isnan(conv))[0])
        where = f" line {line_of(i)}:" if line_of is not None else ""
        raise InputFormatError(f"{source}:{where} score {_show(raw[i])!r} of document {_show(dids[i])!r} for query "
                               f"{_show(qids[i])!r} is not a number") from None


def _query_column(qids, source: str, line_of) -> Tuple[Any, np.ndarray]:
    """(the query ids for messages, their codes) from an array of ids or :class:`CodedIds`."""
    if isinstance(qids, CodedIds):
        return qids, qids.codes
    qids = np.asarray(qids) if isinstance(qids, np.ndarray) else np.asarray(qids, dtype=object)
    check_utf8(qids, "query id", source, line_of)
    return qids, _query_codes(qids)


#: from this many rows on, a conversion whose queries are too short for a kept table (:data:`.querytable.KEEP_WIDTH`)
#: builds the run's index beside the sort, in a second thread; long queries are checked, and their table
#: kept, by sorting each query's rows (7,000 x 1,000 rows: RBP from dicts 1.8 -> 0.9 s CPU, the index's one
#: sort of 7M keys and the run-qrels join by that index, 700,000 judgments looked up, replaced by the tables' merge)
_PARALLEL_ROWS = 1_000_000


def ranking_from_columns(qids, dids, scores, source: str, line_of=None, dhash: Optional[np.ndarray] = None,
                         loaded_only: bool = True, fresh: bool = False, fresh_ids: bool = False,
                         fresh_scores: bool = False, distinct_short: bool = False) -> Ranking:
    """A :class:`Ranking` from columns (query ids or :class:`CodedIds`, document ids, scores), validated.

    ``fresh``: the document ids and scores are new arrays made for this call by the caller (a conversion),
    which nothing else holds, so the sort may move their rows in place; ``fresh_ids``: the document ids
    only (a DataFrame's converted id column); ``fresh_scores``: the scores only. Ids that
    :func:`~ir_rbstar.io.ids.doc_bytes` encodes here are new arrays too. ``distinct_short``: the caller knows
    that no query holds a document id twice (a dict's ``str`` keys, one dict a query) and that every query has
    fewer than :data:`.querytable.KEEP_WIDTH` rows (no table to keep): the duplicate check is then skipped where
    the hashes are the ids themselves (:func:`.docindex.hashes_are_ids`; a longer id may share its hash)."""
    given = dids
    dbytes = doc_bytes(dids if isinstance(dids, np.ndarray) else np.asarray(dids, dtype=object))
    fresh_ids = fresh or fresh_ids or dbytes is not given
    qids, qc = _query_column(qids, source, line_of)
    check_utf8(dbytes, "document id", source, line_of)
    scores = _as_float(scores, qids, dbytes, source, line_of)
    _check_scores(scores, source, qids, dbytes, line_of)
    dh = hash_ids(dbytes) if dhash is None else dhash
    own = (fresh_ids, dhash is None, fresh or fresh_scores)   # which of (ids, hashes, scores) the sort may reorder
    kernels = compiled(len(qc), loaded_only=loaded_only)
    if kernels is None:
        layout = querytable.wide_layout(qc) if len(qc) >= _PARALLEL_ROWS else None
        if len(qc) < _PARALLEL_ROWS or layout is not None:
            # duplicates by one sort of each query's rows (a table kept for the joins when the queries are
            # long); the hash index is built on first use (references of the RBO family and runs joined
            # from their rows' side or by the kept tables never need it)
            # (a tenth of a call of RBP from a dict of 100 documents a query, which cannot hold a duplicate)
            skip = distinct_short and hashes_are_ids(dbytes)
            clashes, table = (None, None) if skip else clashes_by_sort(qc, dh, layout)
            _check_duplicates(clashes, qc, dbytes, "run", source, line_of)
            ranking, order = _build_ranking(qc, dbytes, dh, scores, source, with_order=True, inplace=own)
            if table is not None:                # each query's sorted keys, for the run-reference join
                ranking.keep(querytable.KEPT, table if order is None else table._replace(order=order))
            return ranking
        # large inputs of short queries (no table kept): the duplicate check and the sort are independent
        # numpy work, run side by side (the index reads the hashes meanwhile: they are not reordered in place)
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(SortedIndex, qc, dh)      # the index for the joins, built by one sort
            ranking, order = _build_ranking(qc, dbytes, dh, scores, source, with_order=True,
                                            inplace=(own[0], False, own[2]))
            index = pending.result()
        if index.clashes is not None and len(index.clashes[0]):
            _check_duplicates(index.clashes, qc, _input_order(dbytes, ranking, order), "run", source, line_of)
        # kept for joins (judgments, references): built on the input order, answering in the ranked one
        ranking.keep("index", index if order is None else MovedIndex(index, order))
        return ranking
    # compiled: sort first, then look for duplicates query by query (rows of a query are contiguous)
    ranking, order = _build_ranking(qc, dbytes, dh, scores, source, with_order=True, inplace=own)
    first, later = kernels.segment_clashes(ranking.offsets, ranking.docs.view(np.int64))
    if len(first):
        if order is not None:
            first, later = input_rows(order, first), input_rows(order, later)
        _check_duplicates((first, later), qc, _input_order(dbytes, ranking, order), "run", source, line_of)
    return ranking


def _input_order(dbytes: np.ndarray, ranking: Ranking, order) -> np.ndarray:
    """The document ids in input order, for the duplicate check's message: ``dbytes`` itself, unless the
    sort moved rows within it (:class:`Moves` applied in place), then the ranking's ids moved back."""
    if isinstance(order, Moves) and ranking.dbytes is dbytes:
        return order.undo(dbytes)
    return dbytes

_INT64_LIMIT = 2.0 ** 63          # grades are whole numbers in [-2^63, 2^63): int64


def grade_column(grades: Any, source: str, qids, dids, line_of=None) -> np.ndarray:
    """Grades as int64, validated: a grade must be a whole number within int64 (``3``, ``-1``, ``2.0``,
    ``1e3``); a fractional, non-finite (nan, inf) or out-of-range (``1e20``, 22 digits) grade is an
    :class:`InputFormatError` naming the source, line, query and document, at every door (never cast
    silently to another number)."""
    raw = np.asarray(grades)
    if raw.dtype.kind in "ib":
        return raw.astype(np.int64)
    if raw.dtype.kind == "u" and not (raw > np.iinfo(np.int64).max).any():
        return raw.astype(np.int64)
    out = np.zeros(len(raw), dtype=np.int64)
    if raw.dtype.kind == "S":
        any_underscore = raw.dtype.itemsize > 0 and bool((raw.view(np.uint8) == ord("_")).any())
        if not any_underscore:
            try:
                return raw.astype(np.int64)         # plain integers within int64: exact
            except (ValueError, OverflowError):
                pass
        body = np.char.lstrip(raw, b"+-")
        digits = np.char.isdigit(body) & (np.char.str_len(raw) - np.char.str_len(body) <= 1)   # one sign at most
        plain = digits & (np.char.str_len(body) < 19)     # below 10^18: int64 for sure
        out[plain] = raw[plain].astype(np.int64)
        conv = np.zeros(len(raw), dtype=np.float64)
        conv[~plain] = _grade_floats(raw[~plain])
        if any_underscore:
            conv[underscored(raw)] = np.nan                # 1_0: no number (Python would read 10, atof 1)
        for i in np.flatnonzero(digits & ~plain).tolist():         # 19 digits or more: exactly, one by one
            value = int(raw[i])
            if -(2 ** 63) <= value < 2 ** 63:
                out[i], plain[i] = value, True
            else:
                conv[i] = np.inf if value > 0 else -np.inf
    else:
        plain = np.zeros(len(raw), dtype=bool)
        conv = _grade_floats(raw)
        if raw.dtype.kind == "O":
            # integers (Python's, numpy's) of 2^53 or more in magnitude: exactly, one by one (rare), as
            # a float64 would round them (2^62 + 1 to 2^62) and put 2^63 - 1 out of range
            with np.errstate(invalid="ignore"):
                big = np.flatnonzero(np.abs(conv) >= 2.0 ** 53)
            for i in big.tolist():
                v = raw[i]
                if isinstance(v, (int, np.integer)) and -(2 ** 63) <= int(v) < 2 ** 63:
                    out[i], plain[i] = int(v), True
    with np.errstate(invalid="ignore"):
        bad = ~plain & (~np.isfinite(conv) | (conv != np.round(conv)) | (conv >= _INT64_LIMIT)
                        | (conv < -_INT64_LIMIT))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = f" line {line_of(i)}:" if line_of is not None else ""
        why = ("is not an integer grade" if np.isnan(conv[i]) or conv[i] != np.round(conv[i])
               else "is out of range (a grade is an integer of at most 64 bits, below 2^63 in magnitude)")
        hint = ""
        if raw.dtype.kind == "S" and _not_a_number(raw[i]):
            hint = "; are the columns in the order query_id iteration doc_id relevance?"
        raise InputFormatError(f"{source}:{where} relevance {_show(raw[i])!r} of document "
                               f"{_show(dids[i])!r} for query {_show(qids[i])!r} {why}{hint}")
    out[~plain] = conv[~plain]
    return out


def _not_a_number(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return True
    return False


def _grade_floats(raw: np.ndarray) -> np.ndarray:
    try:                                   # Python numbers (a dict of dicts): one C pass
        return raw.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        import pandas as pd
        return pd.to_numeric(pd.Series(raw, dtype=object).map(_show), errors="coerce").to_numpy(dtype=np.float64)


def qrels_from_columns(qids, dids, grades, source: str, line_of=None, dhash: Optional[np.ndarray] = None) -> Qrels:
    """:class:`Qrels` from columns (query ids or :class:`CodedIds`, document ids, integer grades), validated."""
    dbytes = doc_bytes(dids if isinstance(dids, np.ndarray) else np.asarray(dids, dtype=object))
    qids, qc = _query_column(qids, source, line_of)
    check_utf8(dbytes, "document id", source, line_of)
    g = grade_column(grades, source, qids, dbytes, line_of)
    dh = hash_ids(dbytes) if dhash is None else dhash
    index = judgment_index(qc, dh)
    _check_duplicates(index.clashes, qc, dbytes, "qrels", source, line_of)
    # the queries in first-seen order: of the first row of each block of equal codes (the same order)
    qorder = first_seen(qc[_block_firsts(qc)]) if len(qc) else np.empty(0, dtype=np.int64)
    qrels = Qrels(qcodes=np.asarray(qorder, dtype=np.int64), rowq=qc, rowd=dh, rowb=dbytes, grades=g, source=source)
    qrels.keep("index", index)
    return qrels
