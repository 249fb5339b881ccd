"""Out of core on one machine: evaluate runs, qrels and reference runs larger than memory by blocks of
whole queries, in memory bounded by the block size.

>>> from ir_rbstar.scale.stream import stream_aggregate, stream_calc
>>> means = stream_aggregate("RBO(p=0.9,ref='b.run') RBP_res(p=0.8) RBR(p=0.8)@10", "a.run",
...                          qrels="qrels.txt", order="sorted", block_rows=1_000_000)   # doctest: +SKIP
>>> for metric in stream_calc(measures, "a.parquet", qrels="qrels.parquet"): ...          # doctest: +SKIP

**Inputs.** The run, the qrels (or None), every reference run a measure names by a file path
(``ref='b.run'``) and every run of a ``prior=``/``runs=`` string that names files (a file, a glob
``runs/*.run``, a comma list) are read block by block, each file once however many measures name it. An
input is a TREC file (plain or ``.gz``), a Parquet file (``.parquet``/``.pq``), a directory of Parquet
files or a :class:`pyarrow.dataset.Dataset` (columns ``query_id``, ``doc_id``, ``score`` / ``relevance``
as ir_measures names them, or ``qid``/``docno``/``label`` as PyTerrier does; ``columns=`` maps those names
to others, e.g. ``{"query_id": "user_id"}``), or an object already in memory (a DataFrame, ...). Names a
measure gives that are registered runs or groups (:func:`ir_rbstar.register_run`), ``irds:`` ids, and
in-memory runs given in ``runs=``/``groups=`` are in memory already and are used as they are. Parquet
needs pyarrow (the ``scale`` extra).

**Exact.** A query's value depends only on its own rows, so evaluating blocks of whole queries (every
input's rows of a query in the same block) gives each query the value the whole evaluation gives
(tested for every family against ``ir_measures.iter_calc`` on the whole inputs, to 1e-12). The queries
are those of the whole evaluation: with qrels, the qrels' queries (a judged query that the run does not
retrieve gets its value); without, the run's. Bit for bit for most measures; a few (RBO_res, RBO_ext,
RBA, ...) can differ in the last one or two bits, as they do whenever the engine evaluates another set
of queries together (a pt.Experiment batch, a subset of the qrels): their kernel is chosen for the
whole batch (the tie-averaging one when any query of it has tied scores), and with
``IR_RBSTAR_ENGINE=auto`` the compiled kernels (numba) serve inputs of
at least ``ir_rbstar.engine.MIN_ROWS`` rows, so blocks smaller than that are evaluated by numpy
(``IR_RBSTAR_ENGINE=numba`` makes every block use the compiled kernels).

**Order** (``order=``), how blocks of whole queries are found:

* ``"sorted"``: every input lists its queries in ascending byte order of the query id, each query's rows
  together (as ``LC_ALL=C sort -s -k1,1 FILE`` leaves a TREC file; Parquet likewise, in file order). One
  pass: the inputs are merged by key range, a block holding every input's rows with query id up to a
  bound chosen so that no input gives more than ``block_rows`` rows (plus the rest of its last query).
  A query id smaller than the one before, in any input, raises InputFormatError naming the file, the
  line (row for Parquet) and the query, with the remedies (sort the file, or order="any").
* ``"numeric"``: the same, for inputs sorted by the query ids' integer values (``sort -s -n -k1,1``, or a
  Parquet file sorted by an integer user id); every query id must be an integer.
* ``"any"``: any row order. One pass over each input hash-partitions its rows by query id into P parts
  (binary files in a temporary directory under ``tmpdir``, removed afterwards, also after an error or
  when the iteration is abandoned and the generator closed), P = (largest input's rows, estimated from
  its size) / ``block_rows``; then the parts are evaluated one at a time. A part that turns out larger
  than twice its share (an estimate too low, e.g. for ``.gz`` files) is split again in the same way.
  Disk needed: about the size of the inputs' id and value columns (as much as the uncompressed text,
  a little less). Queries come out in the parts' order, not the inputs'.
* ``"auto"`` (the default): one cheap pass reads only the query ids of every file and checks the
  orders; sorted (or numeric) when every input holds it, else "any". Sorted files (the common case of
  large exports, which come grouped and ordered by user or query) then cost one light pass more than
  ``order="sorted"``; give the order when you know it.

Files grouped by query but not sorted (each query's rows together, queries in some other order) are not
"sorted": give ``order="any"`` (or sort them), ``"auto"`` does so by itself.

**Memory bound.** sorted/numeric: for each input, its rows of the current block (at most ``block_rows``
plus the rest of the last query, a read chunk more while it is being cut) and the evaluation's working
set of one block, about ``_BYTES_PER_ROW`` bytes per row of the block's inputs together; any: one read
chunk plus the largest part (about ``block_rows`` rows of every input). It does not grow with the
number of rows, only with the block size, and with the number of distinct query ids through the
process-wide table of query ids (``ir_rbstar.io.QUERY_IDS``, about 150 bytes per query) and the means'
accumulators (constant per measure). Parquet files are read through a buffered stream, a batch at a
time (not a row group at a time). ``memory=`` (bytes, or "2G") sets ``block_rows`` from a budget for
the blocks (``budget / (_BYTES_PER_ROW * number of inputs)``); the interpreter and the libraries
(numpy, pandas, numba's kernels, pyarrow) take about 250 MB more.

Measured (two systems' top-100 lists with ties and 10 judgments per user, 8-byte ids, files sorted;
RBO@100 and RBA against the other system, RBP_res@10, RBR@10; 2 shared cores, numba): 10M rows per
system, TREC, ``block_rows=250_000``: 7 s and 381 MB peak (the same 5M rows: 243-368 MB), against 47 s
and 3.5 GB for the whole files in memory; Parquet 7.8 s, 465 MB; order="any" 11 s, 361 MB;
order="auto" 8.8 s (the check pass reads the query ids: about 25% more time).

**Means.** :func:`stream_aggregate` sums each measure's values exactly (integer arithmetic over the
doubles' mantissas, constant memory per measure), so its means equal
:func:`ir_rbstar.scale.blocks.aggregate` on all the per-query values (``math.fsum``, then one
division), whatever the blocks; ``calc_aggregate``'s running sum can differ in the last bits.
"""
from __future__ import annotations

import contextlib
import glob as _glob
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast

import numpy as np
from ir_measures import Metric

from .. import engine, references
from ..errors import (DuplicateDocumentError, ParameterError,
                      ReferenceNotFoundError, RbstarError)
from ..io import Qrels, Ranking, qrels_from_columns, ranking_from_columns
from ..io.trec import column_order_hint
from ..measures.base import RbstarMeasure
from ..progress import Progress
from .blocks import as_measures, block_columns, evaluate_block
from ._means import Means
from ._order import _detect_order, _merged_blocks, _partitioned_blocks
from ._sources import (_BYTES_PER_LINE, _BYTES_PER_ROW, _PARQUET_COLUMNS, _QRELS, _RUN, DEFAULT_BLOCK_ROWS,
                       ORDERS, Source, _Cols, _is_parquet, _is_path, _MemorySource, _ParquetSource, _Source,
                       _TrecSource)

__all__ = ["stream_calc", "stream_aggregate", "Means", "ORDERS", "DEFAULT_BLOCK_ROWS"]

# ------------------------------------------------------------------------------------- the plan

@dataclass
class _Plan:
    sources: List[_Source]
    run: int                                          # index of the run in sources
    qrels: Optional[int]
    refs: Dict[str, int]                              # ref string -> source
    groups: Dict[str, List[Tuple[str, Union[int, Ranking]]]]   # prior/runs string -> its runs


class _Planner:
    def __init__(self, columns, chunk_bytes: int, chunk_rows: int):
        self.columns, self.chunk_bytes, self.chunk_rows = columns, chunk_bytes, chunk_rows
        self.sources: List[_Source] = []
        self.index: Dict[Any, int] = {}

    def add(self, obj: Any, kind: str, label: str) -> int:
        if isinstance(obj, (Ranking, Qrels)) or not (_is_path(obj) or _is_parquet(obj)):
            key: Any = ("object", id(obj), kind)
        else:
            key = ("path", os.path.abspath(os.path.expanduser(os.fspath(obj))) if _is_path(obj) else id(obj), kind)
        if key not in self.index:
            self.index[key] = len(self.sources)
            self.sources.append(self._make(obj, kind, label))
        return self.index[key]

    def _make(self, obj: Any, kind: str, label: str) -> _Source:
        if _is_path(obj) or _is_parquet(obj):
            if _is_parquet(obj):
                return _ParquetSource(obj if not _is_path(obj) else os.path.expanduser(os.fspath(obj)), kind,
                                      self.columns, self.chunk_rows)
            return _TrecSource(os.path.expanduser(os.fspath(obj)), kind, self.chunk_bytes)
        return _MemorySource(obj, kind, label, self.chunk_rows)


def _streamable(name: str) -> bool:
    path = os.path.expanduser(name)
    return os.path.isfile(path) or (os.path.isdir(path) and _is_parquet(path))


def _plan(ms: Sequence, run: Source, qrels: Optional[Source], runs: Mapping[str, Source],
          groups: Mapping[str, Mapping[str, Source]], planner: _Planner) -> _Plan:
    run_i = planner.add(run, _RUN, "<run>")
    qrels_i = None if qrels is None else planner.add(qrels, _QRELS, "<qrels>")
    refs: Dict[str, int] = {}
    sets: Dict[str, List[Tuple[str, Union[int, Ranking]]]] = {}
    for m in ms:
        if not isinstance(m, RbstarMeasure):
            continue
        ref = m.params.get("ref")
        if isinstance(ref, str) and ref not in refs:
            if ref in runs:
                refs[ref] = planner.add(runs[ref], _RUN, f"run {ref!r}")
            elif references._named_run(ref) is None and _streamable(ref):
                refs[ref] = planner.add(ref, _RUN, ref)
            else:
                references.resolve_run(ref, f"{m}: ref")      # in memory (registered, irds:), or the error
        for what in ("prior", "runs"):
            spec = m.params.get(what)
            if isinstance(spec, str) and spec not in sets:
                items = _group_items(spec, f"{m}: {what}", runs, groups, planner)
                if items is not None:
                    sets[spec] = items
    return _Plan(planner.sources, run_i, qrels_i, refs, sets)


def _group_items(spec: str, what: str, runs: Mapping[str, Source], groups: Mapping[str, Mapping[str, Source]],
                 planner: _Planner) -> Optional[List[Tuple[str, Union[int, Ranking]]]]:
    """The runs of a ``prior=``/``runs=`` string, as :func:`ir_rbstar.references.resolve_runs` finds them,
    files streamed (source indices), in-memory runs as they are; None for a group in memory (registered)."""
    if spec in groups:
        return [(str(n), planner.add(r, _RUN, f"run {n!r} of group {spec!r}")) for n, r in groups[spec].items()]
    if references._named_group(spec) is not None:
        return None
    if spec not in runs and _streamable(spec):
        return [(spec, planner.add(spec, _RUN, spec))]
    out: List[Tuple[str, Union[int, Ranking]]] = []
    for item in references.split_list(spec):
        if not item:
            raise ReferenceNotFoundError(f"{what}={spec!r}: an empty name in the list")
        if item in runs:
            out.append((item, planner.add(runs[item], _RUN, f"run {item!r}")))
            continue
        group, named = references._named(item)
        if group is not None:
            out.extend(group.runs)
        elif named is not None:
            out.append((item, named))
        elif references._GLOB_CHARS & set(item):
            paths = sorted(p for p in _glob.glob(os.path.expanduser(item)) if os.path.isfile(p))
            if not paths:
                raise ReferenceNotFoundError(f"{what}={spec!r}: the glob {item!r} matches no file "
                                             f"(looked in {os.path.abspath(os.path.dirname(item) or '.')})")
            out.extend((path, planner.add(path, _RUN, path)) for path in paths)
        elif _streamable(item):
            out.append((item, planner.add(item, _RUN, item)))
        else:
            out.append((item, references.resolve_run(item, what)))    # irds:, or the error
    return out


# ------------------------------------------------------------------------------------- evaluation

def _table(src: _Source, cols: _Cols):
    """The block's rows of one input as a validated Ranking / Qrels (messages name the input's lines)."""
    lines = cols.line

    def line_of(i: int) -> int:
        return int(lines[i])
    try:
        if src.kind == _RUN:
            return ranking_from_columns(cols.q, cols.d, cols.v, src.name, line_of, dhash=cols.h)
        return qrels_from_columns(cols.q, cols.d, cols.v, src.name, line_of, dhash=cols.h)
    except RbstarError as e:
        if src.word == "line":
            if isinstance(e, DuplicateDocumentError) and src.kind != _RUN:
                raise DuplicateDocumentError(f"{e}{column_order_hint(cols.d)}") from None
            raise
        text = str(e).replace(f"{src.name}: line ", f"{src.name}: row ").replace("(lines ", "(rows ")
        raise type(e)(text) from None


def _engine_for(sources: Sequence[_Source]) -> Callable[[], ContextManager]:
    """The engine for the blocks: the one the whole inputs would get. Under ``"auto"`` the compiled
    kernels serve inputs of at least ``MIN_ROWS`` rows; blocks are smaller, but the work is the whole
    input's, so large inputs are read and evaluated by the compiled kernels when numba is there (the
    engine is set for each block's reading and evaluation, not across the iteration's yields)."""
    if engine.get_engine() != "auto" or max(s.estimate_rows() for s in sources) < engine.MIN_ROWS:
        return contextlib.nullcontext
    try:
        engine._load()
    except (RbstarError, ImportError):
        return contextlib.nullcontext
    return lambda: engine.using("numba")


@dataclass
class _Block:
    run: Ranking
    qrels: Optional[Qrels]
    runs: Dict[str, Ranking]
    groups: Dict[str, references.PriorSet]
    fast: Callable[[], ContextManager] = contextlib.nullcontext

    def empty(self) -> bool:
        """No query to evaluate: with qrels, none judged in the block; without, none retrieved."""
        return len(self.qrels.qcodes) == 0 if self.qrels is not None else len(self.run.qcodes) == 0


def _blocks(plan: _Plan, mode: str, block_rows: int, tmpdir: Optional[str],
            progress: Optional[Progress]) -> Iterator[_Block]:
    sources = plan.sources
    fast = _engine_for(sources)
    if mode == "auto":
        with fast():
            mode = _detect_order(sources)
    root = None
    try:
        if mode == "any":
            root = tempfile.mkdtemp(prefix="ir_rbstar-stream-", dir=tmpdir)
            raw: Iterator[List[_Cols]] = _partitioned_blocks(sources, block_rows, root, progress)
            total = 0
        else:
            raw = _merged_blocks(sources, mode, block_rows)
            total = max(1, math.ceil(sources[plan.run].estimate_rows() / block_rows)) if progress else 0
        step = 0
        while True:
            with fast():
                cols = next(raw, None)
                if cols is None:
                    break
                tables = [_table(s, c) for s, c in zip(sources, cols, strict=True)]
            step += 1
            groups = {spec: references.PriorSet([(n, tables[r] if isinstance(r, int) else r) for n, r in items])
                      for spec, items in plan.groups.items()}
            block = _Block(tables[plan.run], None if plan.qrels is None else tables[plan.qrels],
                           {name: tables[i] for name, i in plan.refs.items()}, groups, fast)
            if progress is not None:
                rows = len(cols[plan.run])
                progress(step, max(total, step), f"block {step}: {len(block.run.qcodes)} queries, {rows} run rows")
            if not block.empty():
                yield block
    finally:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


def _block_rows(block_rows: Optional[int], memory: Any, n_inputs: int) -> int:
    if block_rows is not None:
        if isinstance(block_rows, bool) or not isinstance(block_rows, (int, np.integer)) or block_rows < 1:
            raise ParameterError(f"block_rows must be a positive integer, not {block_rows!r}")
        return int(block_rows)
    if memory is None:
        return DEFAULT_BLOCK_ROWS
    budget = _bytes(memory)
    return max(1000, budget // (_BYTES_PER_ROW * max(n_inputs, 1)))


def _bytes(memory: Any) -> int:
    if isinstance(memory, (int, np.integer)) and not isinstance(memory, bool) and memory > 0:
        return int(memory)
    if isinstance(memory, str):
        text = memory.strip().upper().rstrip("B")
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
        try:
            value = float(text[:-1] if text[-1:] in "KMGT" else text) * scale
        except ValueError:
            value = -1
        if value > 0:
            return int(value)
    raise ParameterError(f"memory must be a number of bytes or a size such as '2G', not {memory!r}")


def _prepare(measures, run, qrels, runs, groups, order, block_rows, memory, columns):
    ms = as_measures(measures)
    if order not in ORDERS:
        raise ParameterError(f"order must be one of {', '.join(repr(o) for o in ORDERS)}, not {order!r}")
    for m in ms:                                  # bad measures fail before any file is read
        if isinstance(m, RbstarMeasure):
            m.validate_params()
            m.check_required()
    if columns is not None:
        unknown = set(columns) - set(_PARQUET_COLUMNS)
        if unknown:
            raise ParameterError(f"columns: unknown name {sorted(unknown)[0]!r}; map {', '.join(_PARQUET_COLUMNS)}")
    planner = _Planner(columns, chunk_bytes=1 << 20, chunk_rows=1 << 16)
    plan = _plan(ms, run, qrels, dict(runs or {}), dict(groups or {}), planner)
    rows = _block_rows(block_rows, memory, len(plan.sources))
    # read chunks of about a quarter of a block: a cursor holds at most a block and a chunk
    for src in plan.sources:
        if isinstance(src, _TrecSource):
            src.chunk_bytes = int(min(max(rows * _BYTES_PER_LINE // 4, 256), 16 << 20))
        elif isinstance(src, _ParquetSource):
            src.batch_rows = int(min(max(rows // 4, 16), 1 << 18))
        elif isinstance(src, _MemorySource):
            src.chunk_rows = int(min(max(rows // 4, 16), 1 << 18))
    return ms, plan, rows


def stream_calc(measures: Any, run: Source, qrels: Optional[Source] = None, *,
                runs: Optional[Mapping[str, Source]] = None,
                groups: Optional[Mapping[str, Mapping[str, Source]]] = None,
                order: str = "auto", block_rows: Optional[int] = None, memory: Any = None,
                tmpdir: Optional[str] = None, columns: Optional[Mapping[str, str]] = None,
                provider: Optional[str] = None, progress: Optional[Progress] = None) -> Iterator[Metric]:
    """Per-query metrics of ``run`` (and ``qrels``, None when every measure compares with a reference),
    read and evaluated by blocks of whole queries (see the module's documentation): the values
    ``ir_measures.iter_calc`` gives on the whole inputs, block after block.

    ``runs`` maps a name a measure gives in ``ref=`` (or in a ``prior=``/``runs=`` list) to its input,
    ``groups`` a ``prior=``/``runs=`` string to ``{run name: input}``; file paths in measures are read
    as they are. ``order``: "auto", "sorted", "numeric" or "any"; ``block_rows``: rows of each input per
    block (default 1,000,000), or ``memory`` a budget in bytes ("4G") from which it is set; ``tmpdir``:
    where order="any" puts its temporary parts; ``columns``: ir_measures' column names -> the Parquet
    inputs' own; ``provider``: the provider of ir_measures' own measures; ``progress(step, total, message)``
    is called once per block (total: an estimate). The temporary files are removed when the iteration
    ends, fails, or is closed (``generator.close()``, or a ``with contextlib.closing(...)``)."""
    ms, plan, rows = _prepare(measures, run, qrels, runs, groups, order, block_rows, memory, columns)
    for block in _blocks(plan, order, rows, tmpdir, progress):
        with block.fast():
            metrics = list(evaluate_block(ms, block.run, block.qrels, block.runs, cast(Any, block.groups), provider))
        yield from metrics


def stream_aggregate(measures: Any, run: Source, qrels: Optional[Source] = None, **options: Any) -> Dict[Any, float]:
    """Each measure's aggregate (its mean, summed exactly) over every query, streamed as
    :func:`stream_calc` (same arguments): ``{measure: value}`` as ``ir_measures.calc_aggregate`` returns."""
    unknown = set(options) - {"runs", "groups", "order", "block_rows", "memory", "tmpdir", "columns", "provider",
                              "progress"}
    if unknown:
        raise TypeError(f"stream_aggregate: unexpected argument {sorted(unknown)[0]!r}")
    ms, plan, rows = _prepare(measures, run, qrels, options.get("runs"), options.get("groups"),
                              options.get("order", "auto"), options.get("block_rows"), options.get("memory"),
                              options.get("columns"))
    means = Means(ms)
    for block in _blocks(plan, options.get("order", "auto"), rows, options.get("tmpdir"), options.get("progress")):
        with block.fast():
            columns = block_columns(ms, block.run, block.qrels, block.runs, cast(Any, block.groups),
                                    options.get("provider"))
        for m, (_, values) in columns.items():
            means.add(m, values)
    return means.result()
