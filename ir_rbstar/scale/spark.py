"""Evaluate Spark DataFrames with the package's measures (and ir_measures' own): the ``spark`` extra.

Example (``run``, ``qrels`` and ``base`` are Spark DataFrames)::

    from ir_rbstar.scale import spark
    ev = spark.evaluate("RBP(p=0.8)@10 RBO(p=0.9,ref='base')@10 nDCG@10", run, qrels,
                        runs={"base": base}, columns={"query_id": "user_id", "doc_id": "item_id",
                                                      "score": "prediction", "relevance": "rating"})
    ev.per_query      # Spark DataFrame: query_id string, measure string, value double
    ev.means()        # small pandas DataFrame: measure, value

How it works. Every input (the run, the qrels, each reference run named by ``ref=`` and each run of a
``prior=``/``runs=`` group) is reduced to ir_measures' columns, tagged with the table it comes from,
and the tagged rows are unioned into one DataFrame (tag, query_id, doc_id, score, relevance). A
partition key, a hash of the query id modulo P, puts every row of a query, from every input, in
the same bucket; the union is repartitioned by that key (one shuffle, in which every input row travels
once) and each bucket is evaluated by one pandas call (``groupBy(key).applyInPandas``) that splits the
rows by tag and hands them to :func:`ir_rbstar.scale.blocks.evaluate_block`, the package's own engine.
A reference run with no row in a bucket is given as an empty frame. Each bucket holds about 1/P of all
rows and many queries, so the per-call overhead of the engine is paid P times, not once per query.

P (``partitions``) defaults to the larger of four times the session's default parallelism and its
``spark.sql.shuffle.partitions`` (:func:`default_partitions`): enough buckets to keep every core busy
while uneven buckets finish, few enough that each pandas call gets many queries. Spark's
``applyInPandas`` loads a whole bucket at once (in the JVM and in the Python worker), so a bucket must
fit in an executor's memory: about ``rows / P`` rows of all inputs together, some 250 bytes per row in
the evaluation. Keep buckets at a few hundred thousand to a few million rows (give ``partitions=``):
with 8 buckets of 26M rows each, local mode with an 8 GB driver lost its JVM.

What is exact. A query's value depends only on its own rows, so the per-query values are the very
numbers the single-machine evaluation (``ir_measures.iter_calc`` with the same runs in a
:func:`ir_rbstar.run_scope`) gives, whatever P is: the same queries (with qrels, the qrels' queries;
without, the run's) and the same values; bit for bit, except that a few rank-biased measures choose their
kernel for a whole call (the tie-averaging one when any query of the call has tied scores), and that kernel
and the untied one agree to about 1e-16 (the compiled and numpy engines give the same doubles): a value
can move in its last bits with the other queries of its bucket, as it does when a single machine
evaluates a subset of the queries.
:meth:`SparkEvaluation.means` with ``exact=True``
(the default) sums each measure's values exactly (``math.fsum``) so the means do not depend on the order
in which the buckets arrive; they can differ from ``calc_aggregate``'s running sum in the last bits.
``exact=False`` uses Spark's own sum (streamed, last bits depend on the order).

Inputs. Query and document ids are cast to strings, scores to double; relevance must hold integers
(an input with a fractional grade is an error, never truncated). ``columns`` maps ir_measures' names
(``query_id``, ``doc_id``, ``score``, ``relevance``) to the inputs' own, for every input. Every run a
measure names (``ref=``, ``prior=``, ``runs=``) must be given in ``runs=`` (name -> DataFrame) or
``groups=`` (group name -> {run name -> DataFrame}); names are not looked up as files or registered
runs, which executors do not see. Measures are checked on the driver (on one synthetic query) before
any Spark job runs; errors in the data (a duplicate document, a null id, a fractional grade) are
raised by the executors when an action runs, inside Spark's ``PythonException``.

Cluster. Executors import ``ir_rbstar``: install the package (with its dependencies) on every executor
or ship it (e.g. ``spark.submit.pyFiles``, a packed virtualenv or conda env via ``spark.archives``).
The per-query frame is lazy: every action re-evaluates, so ``persist()`` it when used more than once.
"""
from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd
from ir_measures import MeanAgg

from ..errors import InputFormatError, MissingExtraError, ParameterError, ReferenceNotFoundError
from ..io.columns import grade_column
from ..io.ids import _show
from ._spark_support import check_driver, surfaced
from ..measures.base import RbstarMeasure
from ..references import split_list
from .blocks import aggregate, as_measures, block_frame, evaluate_block, metrics_frame

__all__ = ["evaluate", "SparkEvaluation", "PER_QUERY_SCHEMA", "default_partitions"]

#: the schema of :attr:`SparkEvaluation.per_query`
PER_QUERY_SCHEMA = "query_id string, measure string, value double"
_NAMES = ("query_id", "doc_id", "score", "relevance")
_RUN_COLS = ("query_id", "doc_id", "score")
_QREL_COLS = ("query_id", "doc_id", "relevance")
_RUN, _QRELS = 0, 1                         # tags of the run and the qrels; references follow from 2
_KEY = "__rbstar_bucket"
_TAG = "__rbstar_table"
_PROBE = "__rbstar_probe__"


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence pyspark's own noise under pandas 3 on the driver: its FutureWarning that it "does not yet
    fully support pandas >= 3.0.0" (issued at every pandas conversion) and pandas' deprecation of the
    ``copy`` keyword that pyspark's converters still pass. Nothing of this package is filtered."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        warnings.filterwarnings("ignore", message="The copy keyword is deprecated", module="pyspark")
        # its copy of an executor's traceback, when toPandas fails: the error itself follows (surfaced())
        warnings.filterwarnings("ignore", message="toPandas attempted Arrow optimization", category=UserWarning)
        yield


def _pyspark() -> Tuple[Any, Any]:
    """(pyspark.sql, pyspark.sql.functions), or MissingExtraError."""
    try:
        import pyspark.sql as sql
        import pyspark.sql.functions as functions
    except ImportError as exc:
        raise MissingExtraError('Spark evaluation needs pyspark (and pyarrow): pip install "ir-rbstar[spark]"') \
            from exc
    return sql, functions


@dataclass(frozen=True)
class _Plan:
    """What the executors need: the measures, whether qrels were given, and the tag of the rows of each
    named run (a run name of the scope, or (group, member) of a group; tags from 2, or 0 when the
    evaluated run itself is named)."""

    measures: List[Any]
    with_qrels: bool
    run_names: Dict[str, int] = field(default_factory=dict)              # name -> tag
    group_members: Dict[str, Dict[str, int]] = field(default_factory=dict)  # group -> member -> tag
    provider: Optional[str] = None


def _empty(columns: Sequence[str]) -> pd.DataFrame:
    dtypes = {"query_id": object, "doc_id": object, "score": float, "relevance": np.int64}
    return pd.DataFrame({c: pd.Series([], dtype=dtypes[c]) for c in columns})


def _rows(frame: pd.DataFrame, columns: Sequence[str], what: str) -> pd.DataFrame:
    """One input's rows of a bucket, with ir_measures' columns and dtypes."""
    out = frame.loc[:, list(columns)].reset_index(drop=True)
    for c in ("query_id", "doc_id"):
        missing = np.flatnonzero(out[c].isna().to_numpy())
        if len(missing):
            row = out.iloc[int(missing[0])]
            shown = ", ".join(f"{k}={_show(v)!r}" for k, v in row.items())
            raise InputFormatError(f"{what}: a null {c} (row {shown})")
        out[c] = out[c].astype(object)
    if "score" in columns:
        out["score"] = out["score"].astype(float)
    if "relevance" in columns:
        out["relevance"] = grade_column(out["relevance"].to_numpy(), what, out["query_id"].to_numpy(),
                                        out["doc_id"].to_numpy())
    return out


def _evaluate_bucket(plan: _Plan, pdf: pd.DataFrame) -> pd.DataFrame:
    """The per-query values of one bucket's queries (the pandas side of ``applyInPandas``)."""
    parts = {int(t): part for t, part in pdf.groupby(_TAG, sort=False)}
    run = _rows(parts[_RUN], _RUN_COLS, "the run (Spark DataFrame)") if _RUN in parts else _empty(_RUN_COLS)
    qrels = None
    if plan.with_qrels:
        qrels = (_rows(parts[_QRELS], _QREL_COLS, "the qrels (Spark DataFrame)") if _QRELS in parts
                 else _empty(_QREL_COLS))
        if qrels.empty:                      # no judged query in this bucket: nothing to evaluate
            return metrics_frame([])
    elif run.empty:                          # without qrels the queries are the run's
        return metrics_frame([])
    cache: Dict[int, pd.DataFrame] = {}

    def of(tag: int, what: str) -> pd.DataFrame:
        if tag not in cache:
            cache[tag] = _rows(parts[tag], _RUN_COLS, what) if tag in parts else _empty(_RUN_COLS)
        return cache[tag]

    runs = {name: of(tag, f"the run {name!r} (Spark DataFrame)") for name, tag in plan.run_names.items()}
    groups = {g: {m: of(tag, f"the run {m!r} of group {g!r} (Spark DataFrame)") for m, tag in members.items()}
              for g, members in plan.group_members.items()}
    return block_frame(plan.measures, run, qrels, runs, groups, plan.provider, source="the run (Spark DataFrame)")


class SparkEvaluation:
    """The result of :func:`evaluate`: per-query values as a (lazy) Spark DataFrame, means on demand."""

    def __init__(self, measures: List[Any], per_query: Any):
        self.measures = measures
        #: Spark DataFrame (query_id string, measure string (``str(measure)``), value double), one row per
        #: (query, measure), in no particular order; lazy: every action re-evaluates unless persisted
        self.per_query = per_query
        self._frame: Optional[pd.DataFrame] = None       # the per-query values, once collected
        self._means: Dict[bool, pd.DataFrame] = {}
        self._kept = False                               # per_query persisted by means(), not by the user

    def persist(self) -> "SparkEvaluation":
        """Keep the per-query values once computed (``DataFrame.persist``), for several actions."""
        self.per_query = self.per_query.persist()
        return self

    def unpersist(self) -> "SparkEvaluation":
        """Release what :meth:`persist` or :meth:`means` kept in Spark."""
        self.per_query = self.per_query.unpersist()
        self._kept = False
        return self

    def to_pandas(self) -> pd.DataFrame:
        """The per-query values collected to the driver, sorted by measure (in the order given) and query.
        Collected once: :meth:`means` then aggregates this frame instead of running the pipeline again."""
        if self._frame is None:
            with _quiet(), surfaced():
                frame = self.per_query.toPandas()
            order = {str(m): i for i, m in enumerate(self.measures)}
            frame = frame.assign(_order=frame["measure"].map(order)).sort_values(["_order", "query_id"],
                                                                                   kind="stable")
            self._frame = frame.drop(columns="_order").reset_index(drop=True).astype(
                {"query_id": object, "measure": object, "value": float})
            if self._kept:                       # kept by means(): the driver now holds the values
                self.unpersist()
        return self._frame.copy()

    def means(self, exact: bool = True) -> pd.DataFrame:
        """Each measure's aggregate (columns ``measure`` (label), ``value``), in the order of the measures,
        with the measure's own ir_measures aggregator (the mean for almost all).

        ``exact=True``: the values of each measure are summed exactly (``math.fsum``, one Spark task per
        measure holding that measure's values, not the query ids), so the means do not depend on how the
        buckets were cut or arrive. ``exact=False``: means come from Spark's streamed ``sum``/``count``
        (no per-measure memory; the last bits may depend on the order); measures with another aggregator
        still go through the exact path.
        """
        if self._frame is not None:              # collected already: aggregate it, no Spark job
            return self._local_means()
        if exact not in self._means:
            if not self.per_query.is_cached:    # kept for a later to_pandas(), which releases it
                self.per_query = self.per_query.persist()
                self._kept = True
            with _quiet(), surfaced():
                self._means[exact] = self._spark_means(exact)
        return self._means[exact].copy()

    def _local_means(self) -> pd.DataFrame:
        labels = [str(m) for m in self.measures]
        frame = self._frame if self._frame is not None else metrics_frame([])
        result = {}
        for m in self.measures:
            rows = frame[frame["measure"] == str(m)]
            result[str(m)] = float(aggregate([m], rows.assign(query_id=""))[m]) if len(rows) else \
                aggregate([m], metrics_frame([]))[m]
        return pd.DataFrame({"measure": labels, "value": [result[label] for label in labels]}).astype(
            {"measure": object, "value": float})

    def _spark_means(self, exact: bool) -> pd.DataFrame:
        _, F = _pyspark()
        labels = [str(m) for m in self.measures]
        values = self.per_query.select("measure", "value")
        result: Dict[str, float] = {}
        exact_ms = list(self.measures)
        if not exact:
            streamed = [m for m in self.measures if type(m.aggregator()) is MeanAgg]
            if streamed:
                rows = (values.where(F.col("measure").isin([str(m) for m in streamed]))
                        .groupBy("measure").agg(F.sum("value").alias("s"), F.count("value").alias("n")).collect())
                result.update({r["measure"]: float(r["s"]) / r["n"] for r in rows})
                for m in streamed:
                    result.setdefault(str(m), m.aggregator().result())
            exact_ms = [m for m in self.measures if type(m.aggregator()) is not MeanAgg]
        if exact_ms:
            measures = list(exact_ms)

            def reduce(pdf: pd.DataFrame) -> pd.DataFrame:
                label = pdf["measure"].iloc[0]
                ms = [m for m in measures if str(m) == label]
                agg = aggregate(ms, pdf.assign(query_id=""))
                return pd.DataFrame({"measure": [label], "value": [float(agg[ms[0]])]})

            rows = (values.where(F.col("measure").isin([str(m) for m in exact_ms])).groupBy("measure")
                    .applyInPandas(reduce, "measure string, value double").collect())
            got = {r["measure"]: r["value"] for r in rows}
            for m in exact_ms:                  # a measure without any value: its aggregator's empty result
                result[str(m)] = got[str(m)] if str(m) in got else aggregate([m], metrics_frame([]))[m]
        return pd.DataFrame({"measure": labels, "value": [result[label] for label in labels]}).astype(
            {"measure": object, "value": float})


def _check_columns(columns: Optional[Mapping[str, str]]) -> Dict[str, str]:
    if columns is None:
        return {n: n for n in _NAMES}
    if not isinstance(columns, Mapping):
        raise ParameterError("columns must map ir_measures' column names (query_id, doc_id, score, relevance) "
                             "to the DataFrames' own")
    unknown = sorted(set(columns) - set(_NAMES))
    if unknown:
        raise ParameterError(f"columns: {unknown[0]!r} is not one of ir_measures' column names "
                             f"({', '.join(_NAMES)})")
    for k, v in columns.items():
        if not isinstance(v, str) or not v:
            raise ParameterError(f"columns[{k!r}] must be a column name (a non-empty string), got {v!r}")
    return {n: str(columns.get(n, n)) for n in _NAMES}


def _tagged(df: Any, tag: int, wanted: Sequence[str], names: Dict[str, str], what: str, F: Any, sql: Any) -> Any:
    """``df`` reduced to (tag, query_id, doc_id, score, relevance), cast; a missing column is an error."""
    if isinstance(df, pd.DataFrame):
        raise ParameterError(f"{what} must be a Spark DataFrame, got a pandas DataFrame (convert it with "
                             f"spark.createDataFrame)")
    if not isinstance(df, sql.DataFrame) and not (hasattr(df, "sparkSession") and hasattr(df, "select")):
        raise ParameterError(f"{what} must be a Spark DataFrame, got {type(df).__name__}")
    have = list(df.columns)
    for n in wanted:
        if names[n] not in have:
            mapped = "" if names[n] == n else f" (ir_measures' {n!r}, mapped by columns=)"
            raise InputFormatError(f"{what}: no column {names[n]!r}{mapped}; its columns are {have}")
    cast = {"query_id": "string", "doc_id": "string", "score": "double", "relevance": "double"}
    cols = [F.lit(tag).cast("int").alias(_TAG)]
    for n in _NAMES:
        col = F.col(f"`{names[n]}`") if n in wanted else F.lit(None)
        cols.append(col.cast(cast[n]).alias(n))
    return df.select(*cols)


def _named_runs(measures: Sequence[Any], runs: Mapping[str, Any],
                groups: Mapping[str, Mapping[str, Any]]) -> Tuple[List[str], List[str]]:
    """(run names, group names) the measures use, every one given; else ReferenceNotFoundError."""
    given = ", ".join(repr(n) for n in sorted(set(runs) | set(groups))) or "none"
    used_runs: List[str] = []
    used_groups: List[str] = []

    def use(name: str, what: str, spec: str) -> None:
        if what != "ref" and name in groups:
            if name not in used_groups:
                used_groups.append(name)
        elif name in runs:
            if name not in used_runs:
                used_runs.append(name)
        else:
            where = "runs=" if what == "ref" else "runs= (one run) or groups= (several)"
            raise ReferenceNotFoundError(f"{what}={spec!r}: no run named {name!r} was given; give it as a Spark "
                                         f"DataFrame in {where} (given: {given})")

    for m in measures:
        if not isinstance(m, RbstarMeasure):
            continue
        ref = m.params.get("ref")
        if isinstance(ref, str):
            use(ref, "ref", ref)
        for what in ("prior", "runs"):
            spec = m.params.get(what)
            if not isinstance(spec, str):
                continue
            if spec in groups or spec in runs:
                use(spec, what, spec)
            else:                                # a comma-separated list of given names
                for item in split_list(spec):
                    use(item, what, spec)
    return used_runs, used_groups


def _probe(plan: _Plan) -> None:
    """Evaluate one synthetic query on the driver: a bad parameter, a measure needing qrels when none are
    given, or a measure nobody computes fails here, before any Spark job."""
    run = pd.DataFrame({"query_id": [_PROBE], "doc_id": ["d"], "score": [1.0]})
    qrels = pd.DataFrame({"query_id": [_PROBE], "doc_id": ["d"], "relevance": [1]}) if plan.with_qrels else None
    runs = {name: run for name in plan.run_names}
    groups = {g: {m: run for m in members} for g, members in plan.group_members.items()}
    for _ in evaluate_block(plan.measures, run, qrels, runs, groups, plan.provider):
        pass


def default_partitions(spark: Any) -> int:
    """The larger of four buckets per core of the session's default parallelism and the session's
    ``spark.sql.shuffle.partitions`` (200 unless set), at least 1: the setting Spark users already size to
    their data. A bucket is one pandas call holding about 1/P of all input rows (Spark's applyInPandas
    loads a whole group at once), so P should keep buckets at a few hundred thousand to a few million
    rows: 200 suits up to some 10^8 rows; give ``partitions=`` (or raise the setting) beyond."""
    try:
        shuffle = int(spark.conf.get("spark.sql.shuffle.partitions", "200"))
    except Exception:
        shuffle = 200
    try:
        cores = int(spark.sparkContext.defaultParallelism)
    except Exception:                            # Spark Connect has no SparkContext
        cores = shuffle // 4
    return max(1, 4 * cores, shuffle)


def evaluate(measures: Any, run: Any, qrels: Any = None, runs: Optional[Mapping[str, Any]] = None,
             groups: Optional[Mapping[str, Mapping[str, Any]]] = None, columns: Optional[Mapping[str, str]] = None,
             partitions: Optional[int] = None, provider: Optional[str] = None) -> SparkEvaluation:
    """Evaluate a Spark DataFrame ``run`` for ``measures`` (objects or strings, the package's and
    ir_measures' own).

    ``qrels``: a Spark DataFrame of judgments, or None when the measures need none (e.g. RBO against a
    reference). ``runs``: name -> Spark DataFrame, every run a measure names with ``ref=`` (or a single
    run of ``prior=``/``runs=``); ``groups``: group name -> {run name -> Spark DataFrame}, the runs of a
    ``prior=``/``runs=`` group. A ``prior=`` string may also list given names, comma-separated.
    ``columns``: ir_measures' column names -> the inputs' own (every input). ``partitions``: the number P
    of buckets of queries (default: :func:`default_partitions`). ``provider``: as
    :func:`ir_rbstar.scale.blocks.evaluate_block`.

    Returns a :class:`SparkEvaluation`; nothing is computed until an action (``per_query.collect()``,
    ``means()``, ...). See the module's description for partitioning and exactness.
    """
    sql, F = _pyspark()
    ms = as_measures(measures)
    if not ms:
        raise ParameterError("measures: no measure given")
    labels = [str(m) for m in ms]
    if len(set(labels)) != len(labels):
        dup = next(label for label in labels if labels.count(label) > 1)
        raise ParameterError(f"measures: {dup} is given twice")
    runs = dict(runs or {})
    groups = {str(g): dict(members) for g, members in (groups or {}).items()}
    for g, members in groups.items():
        if not members:
            raise ParameterError(f"groups[{g!r}]: an empty group (give at least one run)")
    names = _check_columns(columns)
    if partitions is not None and (isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1):
        raise ParameterError(f"partitions must be a positive integer, got {partitions!r}")
    used_runs, used_groups = _named_runs(ms, runs, groups)

    with _quiet():                               # pyspark's pandas-3 notices, not ours
        parts = [_tagged(run, _RUN, _RUN_COLS, names, "run", F, sql)]
        if qrels is not None:
            parts.append(_tagged(qrels, _QRELS, _QREL_COLS, names, "qrels", F, sql))
        tags = {id(run): _RUN}                   # id(DataFrame) -> tag: a DataFrame given twice is shuffled once

        def tag_of(df: Any, what: str) -> int:
            if id(df) not in tags:
                tags[id(df)] = len(parts)
                parts.append(_tagged(df, len(parts), _RUN_COLS, names, what, F, sql))
            return tags[id(df)]

        run_names = {name: tag_of(runs[name], f"run {name!r}") for name in used_runs}
        group_members = {g: {str(m): tag_of(df, f"run {m!r} of group {g!r}") for m, df in groups[g].items()}
                         for g in used_groups}
        plan = _Plan(ms, qrels is not None, run_names, group_members, provider)
        _probe(plan)

        spark = run.sparkSession
        check_driver(spark)
        p = partitions if partitions is not None else default_partitions(spark)
        union = parts[0]
        for part in parts[1:]:
            union = union.unionByName(part)
        keyed = union.withColumn(_KEY, F.pmod(F.xxhash64("query_id"), F.lit(p)).cast("int")).repartition(p, _KEY)

        def fn(pdf: pd.DataFrame) -> pd.DataFrame:
            return _evaluate_bucket(plan, pdf)

        per_query = keyed.groupBy(_KEY).applyInPandas(fn, PER_QUERY_SCHEMA)
    return SparkEvaluation(ms, per_query)

