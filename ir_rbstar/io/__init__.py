"""Reading runs and qrels into one columnar form.

Every input form (TREC text file, ``.gz``, pandas DataFrame, dict of dicts, iterable of namedtuples)
is converted once into numpy arrays:

* :class:`Ranking`: one segment per query, rows in trec_eval order, with the tie groups of equal score
  known for every row;
* :class:`Qrels`: judgments with integer grades, sorted by (query, document) key.

Query ids are interned as small integer codes (process-wide). Document ids are kept as bytes
(``numpy`` ``S`` arrays) together with a 64-bit hash of each; rows of different tables are joined on
a 64-bit key made of the query code and the document hash with ``np.searchsorted``, and every match
is verified on the document bytes, so a hash collision can never join two different documents
(it would raise :class:`~ir_rbstar.errors.RbstarError`; with 64-bit hashes it is not expected to happen).

**The run order and a tie**, one definition for every measure: trec_eval keeps a run's scores as
single-precision floats, so a run is ordered by its scores rounded to float32, descending, then by
document id (its bytes), descending; two documents are *tied* when their scores are equal in float32.
This is exactly trec_eval's (and pytrec_eval's) order, so every tie-oblivious measure equals
pytrec_eval's on every input, and a ``_TA`` measure equals its tie-oblivious counterpart whenever no two
scores of a query are equal in float32 (rounding is monotone, so scores that differ in float32 keep
their float64 order). The float64 scores themselves are kept (e.g. in :func:`ranking_frame`).

TREC files are tokenised by a vectorised scanner over the raw bytes (no Python per line); a file the
scanner does not accept (indented or irregular lines) is re-read line by line, which names the first
offending line and the number of columns found. A UTF-8 byte-order mark is skipped; ids must be UTF-8.


The package's modules, from the bottom up: :mod:`.ids` (query and document ids), :mod:`.docindex` (the
join index), :mod:`.tables` (:class:`Ranking`, :class:`Qrels`, the sort), :mod:`.columns` (building
them from columns, with validation), :mod:`.trec` (TREC files), :mod:`.idcolumns` (id columns from arrow
arrays and iterables), :mod:`.records` (iterables of namedtuples), :mod:`.qcache` (the last qrels
converted from namedtuples or a dict of dicts, given again while they are unchanged) and :mod:`.convert`
(every input form).
The names below are the ones the rest of the package uses.

Internal: not part of the public API (docs/api.md); the readers users call are exported by
``ir_rbstar`` (``read_run``, ``read_qrels``).
"""
from __future__ import annotations

from .columns import qrels_from_columns, ranking_from_columns
from .convert import to_qrels, to_ranking
from .docindex import (DocIndex, MovedIndex, Moves, hashes_are_ids, input_rows, rows_of_segments, verify_ids,
                       verify_matches, verify_pairs)
from .ids import QUERY_IDS, CodedIds, check_utf8, doc_bytes, hash_ids
from .tables import Qrels, Ranking, order_key, segment_ids, tie_layout
from .trec import ranking_frame, read_run_frame, read_trec_qrels, read_trec_run, shape_error

__all__ = ["Ranking", "Qrels", "to_ranking", "to_qrels", "read_trec_run", "read_trec_qrels", "read_run_frame",
           "ranking_frame", "QUERY_IDS", "doc_bytes", "hash_ids", "check_utf8", "CodedIds",
           "DocIndex", "MovedIndex", "Moves", "input_rows", "rows_of_segments", "verify_ids", "verify_matches",
           "verify_pairs", "hashes_are_ids",
           "order_key", "segment_ids", "tie_layout", "qrels_from_columns", "ranking_from_columns", "shape_error"]
