"""Building the report: every run evaluated once, means, significance, distances, pictures, files."""
from __future__ import annotations

from dataclasses import replace

import contextlib

import os
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..errors import MissingQrelsError, ParameterError, RbstarError
from ..io import QUERY_IDS, Qrels, Ranking, ranking_frame, to_ranking
from .formats import ResultsTable, write_table
from .stats import DEFAULT_PERMUTATIONS, DEFAULT_SEED, holm, randomization_pvalues
from .catalogue import Column, PRIOR_GROUP, _distances, _parse_columns, default_measures, grade_scale
from .inputs import _free, _run_inputs, read_groups
from .markdown import _markdown, with_intervals
from .story import per_measure
from .pictures import _draw_pictures, _nrg_axes


#: picture and table files (name -> what it holds)
FILES = {
    "report.md": "the report",
    "per_query.tsv": "per-query values: run, query_id, one column per measure",
    "means.tsv": "run, measure, mean, queries, rank",
    "significance.tsv": "comparisons with the baseline: differences, p, Holm-corrected p, d_z and its interval",
    "all_pairs.tsv": "every pair of runs per ranked measure: means, difference, randomised Tukey HSD p",
    "robust.tsv": "runs against the baseline over a measure's bounds (residual, tie orders): robust verdicts",
    "distance_med.tsv": "MED_nDCG@10 between every pair of runs",
    "distance_rbo.tsv": "1 - RBO(p=0.9) between every pair of runs",
    "effort_gain.png": "Twist against AP, every run x topic",
    "nrg.png": "NRG against its base measure, one point per run",
    "distance_med.png": "heat map of the MED_nDCG@10 matrix",
    "distance_rbo.png": "heat map of the 1 - RBO(p=0.9) matrix",
    "crp.png": "CRP curve (and DCG) of the baseline on one topic",
    "results.json": "the means with 95% t intervals and the significance markers, as JSON",
    "results.jsonl": "the per-query values, one JSON object per run, query and measure",
    "results.tex": "the same as a LaTeX (booktabs) table for a paper",
    "results.html": "the same as a self-contained HTML page, the pictures embedded",
}


Progress = Callable[[int, int, str], None]


class _Evaluator:
    """Every measure for one qrels, built once and applied to each run (whole columns)."""

    def __init__(self, columns: List[Column], qrels: Qrels):
        import ir_measures
        from ..provider import PROVIDER, split_by_provider
        self.columns = columns
        self.measures = list(dict.fromkeys(c.measure for c in columns))
        self.ours, self.others = split_by_provider(self.measures)
        self.qids = np.asarray(QUERY_IDS.decode(qrels.qcodes)).astype(str)
        self.row = {q: i for i, q in enumerate(self.qids.tolist())}
        self.ev_ours = PROVIDER.evaluator(self.ours, qrels) if self.ours else None
        self.ev_others = ir_measures.evaluator(self.others, qrels.frame()) if self.others else None

    def values(self, ranking: Ranking) -> pd.DataFrame:
        """Per-query values of one run: rows = the qrels' queries, columns = the labels (NaN: none)."""
        got: Dict[Any, np.ndarray] = {}
        if self.ev_ours is not None:
            vals = self.ev_ours.values(ranking)
            if list(np.asarray(vals["query_id"]).astype(str)) != self.qids.tolist():
                raise RbstarError("internal: the provider's query order differs from the qrels'")
            for m in self.ours:
                got[m] = np.asarray(vals[m], dtype=np.float64)
        if self.ev_others is not None:
            for m in self.others:
                got[m] = np.full(len(self.qids), np.nan)
            for metric in self.ev_others.iter_calc(ranking_frame(ranking)):
                i = self.row.get(str(metric.query_id))
                if i is not None:
                    got[metric.measure][i] = metric.value
        data = {c.label: (1.0 - got[c.measure]) if c.complement else got[c.measure] for c in self.columns}
        return pd.DataFrame(data, index=pd.Index(self.qids, name="query_id"))


def _means(per_query: pd.DataFrame, names: List[str], columns: List[Column]) -> pd.DataFrame:
    """run, measure, mean, queries, rank (1 = best; empty for descriptive measures)."""
    grouped = per_query.groupby(level="run", sort=False)
    means = grouped.mean().reindex(names)
    counts = grouped.count().reindex(names)
    rows = []
    for c in columns:
        rank = pd.Series(np.nan, index=names)
        if c.better:
            rank = means[c.label].rank(method="min", ascending=(c.better == "lower"))
        for name in names:
            rows.append({"run": name, "measure": c.label, "mean": means.at[name, c.label],
                         "queries": int(counts.at[name, c.label]), "rank": rank[name]})
    out = pd.DataFrame(rows)
    out["rank"] = out["rank"].astype("Int64")
    return out


def _significance(per_query: pd.DataFrame, names: List[str], baseline: str, columns: List[Column],
                  permutations: int, seed: int, alpha: float) -> pd.DataFrame:
    base = per_query.xs(baseline, level="run")
    rows, diffs = [], []
    for name in names:
        if name == baseline:
            continue
        mine = per_query.xs(name, level="run")
        for c in columns:
            if not c.better:
                continue
            a, b = mine[c.label].to_numpy(), base[c.label].to_numpy()
            both = ~np.isnan(a) & ~np.isnan(b)
            d = a[both] - b[both]
            diffs.append(d)
            rows.append({"run": name, "measure": c.label, "better": c.better, "queries": int(both.sum()),
                         "baseline_mean": float(b[both].mean()) if both.any() else np.nan,
                         "run_mean": float(a[both].mean()) if both.any() else np.nan,
                         "difference": float(d.mean()) if len(d) else np.nan})
    out = pd.DataFrame(rows, columns=["run", "measure", "better", "queries", "baseline_mean", "run_mean",
                                      "difference"])
    out["p"] = randomization_pvalues(diffs, permutations, seed) if diffs else np.zeros(0)
    out["p_holm"] = holm(out["p"].to_numpy())
    out["d_z"], out["d_z_low"], out["d_z_high"] = _effect_sizes(diffs)
    sign = np.where(out["better"] == "lower", -1.0, 1.0) * np.sign(out["difference"].to_numpy())
    significant = out["p_holm"].to_numpy() <= alpha
    out["significant"] = np.where(significant & (sign > 0), "better", np.where(significant & (sign < 0), "worse", ""))
    return out


def _effect_sizes(diffs: List[np.ndarray]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d_z = mean(d) / sd(d) of each array of per-query differences and its 95% noncentral-t interval
    (:func:`ir_rbstar.stats.effect_size_dz`, :func:`ir_rbstar.stats.effect_size_dz_interval`); NaN for
    fewer than 2 differences or constant ones."""
    from ..stats import effect_size_dz, effect_size_dz_interval
    out = np.full((3, len(diffs)), np.nan)
    for k, d in enumerate(diffs):
        if len(d) >= 2:
            low, high = effect_size_dz_interval(d, 0.95)
            out[:, k] = float(effect_size_dz(d)), float(low), float(high)
    return out[0], out[1], out[2]


def bound_pairs(columns: List[Column]) -> List[Tuple[str, str, str, str]]:
    """(measure, low label, high label, kind) for every ranked, higher-is-better column whose per-query
    value is known only within bounds the report also evaluates: ``X`` with its residual ``X_res`` (same
    parameters; the value lies in [X, X + X_res] once the unjudged documents are judged), and
    ``X(stat='min')`` with ``X(stat='max')`` (the worst and best order of tied scores). ``kind`` is
    ``'residual'`` or ``'ties'``; for a residual the high label names the residual column."""
    def same(a: Any, b: Any, skip: Tuple[str, ...] = ()) -> bool:
        shared = (set(a.SUPPORTED_PARAMS) & set(b.SUPPORTED_PARAMS)) - set(skip)
        return all(a.params.get(k, a.SUPPORTED_PARAMS[k].default) == b.params.get(k, b.SUPPORTED_PARAMS[k].default)
                   for k in shared)

    plain = [c for c in columns if not c.complement]
    out: List[Tuple[str, str, str, str]] = []
    for c in plain:
        if c.better != "higher":
            continue
        m = c.measure
        for r in plain:
            if r.measure.NAME == f"{m.NAME}_res" and same(m, r.measure):
                out.append((c.label, c.label, r.label, "residual"))
                break
        if m.params.get("stat") == "min":
            for r in plain:
                if r.measure.NAME == m.NAME and r.measure.params.get("stat") == "max" and same(m, r.measure, ("stat",)):
                    out.append((c.label, c.label, r.label, "ties"))
                    break
    return out


def robust(per_query: pd.DataFrame, names: List[str], baseline: str, columns: List[Column],
           alpha: float) -> Optional[pd.DataFrame]:
    """Every run against the baseline over the bounds of each measure of :func:`bound_pairs`, by
    :func:`ir_rbstar.stats.robust_table` (paired t at the two extreme completions, Holm over the runs of
    the measure, level ``alpha``) on the queries where every run has both bounds. One row per measure and
    run: ``measure`` (the lower bound's column), ``upper`` (the upper bound: ``X + X_res`` or the
    ``stat='max'`` column), ``bounds`` (``residual`` / ``ties``), robust_table's columns, ``queries``.
    None when no measure has bounds or there is only one run."""
    from ..stats import robust_table
    pairs = bound_pairs(columns)
    if not pairs or len(names) < 2:
        return None
    parts = []
    for measure, low_label, high_label, kind in pairs:
        low = per_query[low_label].unstack("query_id").reindex(names)
        high = per_query[high_label].unstack("query_id").reindex(names)
        if kind == "residual":
            high = low + high
        ok = low.notna().all(axis=0) & high.notna().all(axis=0)
        low, high = low.loc[:, ok], high.loc[:, ok]
        if low.shape[1] < 2:
            continue
        table = robust_table(low, high, baseline, test="t", alpha=alpha, correction="holm")
        table.insert(0, "bounds", kind)
        table.insert(0, "upper", f"{measure} + {high_label}" if kind == "residual" else high_label)
        table.insert(0, "measure", measure)
        table["queries"] = low.shape[1]
        parts.append(table)
    return pd.concat(parts, ignore_index=True) if parts else None


class _Steps:
    def __init__(self, total: int, progress: Optional[Progress]):
        self.total, self.done, self.progress = total, 0, progress

    def __call__(self, message: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, message)


def build_report(qrels: Any, runs: Any, out_dir: Any, *, reference: Any = None, baseline: Optional[str] = None,
                 groups: Any = None, measures: Any = None, progress: Optional[Progress] = None,
                 alpha: float = 0.05, permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED,
                 topic: Optional[str] = None, pictures: bool = True, max_rel: Optional[int] = None) -> pd.DataFrame:
    """Evaluate ``runs`` against ``qrels`` with every measure family and write a report into ``out_dir``.

    ``qrels``: a TREC qrels file (or anything :func:`ir_rbstar.read_qrels` reads), a DataFrame
    (``query_id, doc_id, relevance``) or a dict of dicts. ``runs``: a dict of name -> run (TREC run
    file, DataFrame, dict of dicts) or a list of run files (named by file name without
    ``.gz``/``.run``/``.txt``). ``reference``: the reference ranking of RBR, RBA and RBO: a run file
    (available to the measures under its file name), a name given to :func:`ir_rbstar.register_run`,
    or a run. ``baseline``: the name of one of the runs: the significance tests compare every other run
    with it, and MED_nDCG@10 and 1-RBO(p=0.9) measure how far each run is from it (its name also works
    as ``ref=``). ``groups``: run -> group, as a dict or a TSV file of ``run<TAB>group`` lines: NRG's
    prior set of a run is then the best run (by nDCG@10) of every other group, instead of all the
    other runs, and the NRG picture is coloured by group. ``measures``: a measure string (or list)
    replacing :func:`default_measures`; ``1-RBO(...)`` is a distance; the runs are available as
    ``prior='others'``. ``progress(step, total, message)`` is called before each step. ``alpha``,
    ``permutations`` and ``seed`` set the significance tests (:func:`randomization_pvalues`,
    :func:`holm`; next to them d_z and its noncentral-t interval, and the robust verdicts of
    :func:`robust` where a measure has bounds); ``topic`` the query of the CRP picture (default: the one
    whose Twist is nearest the median); ``pictures=False`` draws none. ``max_rel`` is the top of the
    qrels' grade scale (e.g. 3 for TREC DL), written into every graded measure (those of the default set,
    of ``measures`` and of the distance matrix); None: the collection's
    (:func:`~ir_rbstar.report.catalogue.grade_scale`: the ir_datasets ``qrels_defs``, else the highest grade).

    Returns the per-query values: a DataFrame indexed by (run, query_id) over the qrels' queries, one
    column per measure (every query has a value for every measure, as at every other door);
    ``attrs["files"]`` lists the files written (names inside ``out_dir``).

    Raises ParameterError for no run, an unknown ``baseline``, groups naming unknown runs, a bad
    measure, ``alpha`` outside (0, 1) or ``out_dir`` naming a file; FileNotFoundError for a missing run
    or groups file; MissingQrelsError without qrels; ReferenceNotFoundError for an unknown reference;
    the usual input errors for malformed files. Without matplotlib the report says which extra to
    install instead of drawing the pictures.
    """
    from .. import references
    from ..med import matrix_of, pairwise

    # -- check every input before the work starts
    out_dir = os.fspath(out_dir)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ParameterError(f"out_dir={out_dir!r} is a file; give a folder (it is created when missing)")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ParameterError(f"alpha={alpha!r}: give a significance level in (0, 1)")
    if qrels is None:
        raise MissingQrelsError("qrels=None: the report needs relevance judgments")
    inputs = _run_inputs(runs)
    names = list(inputs)
    if baseline is not None:
        by_path = {os.fspath(v): k for k, v in inputs.items() if isinstance(v, (str, os.PathLike))}
        baseline = by_path.get(os.fspath(baseline), baseline) if isinstance(baseline, (str, os.PathLike)) else baseline
        if baseline not in inputs:
            raise ParameterError(f"baseline={baseline!r} is not one of the runs ({', '.join(repr(n) for n in names)})")
    group_of = read_groups(groups, names) if groups is not None else None

    # names for ref= and prior=: the reference's file name, the baseline's and the runs' names and
    # 'others' refer to the report's runs in its evaluations only (a run scope: nothing is registered)
    claimed: set = set()
    ref_tag: Optional[str] = None
    ref_ranking: Optional[Ranking] = None
    if reference is not None:
        if isinstance(reference, str) and reference in references.registered_runs():
            ref_tag = reference
            claimed.add(ref_tag)
        elif isinstance(reference, (str, os.PathLike)):
            from ..plots import run_name
            ref_ranking = references.resolve_run(os.fspath(reference), "reference")
            ref_tag = _free(run_name(reference), claimed)
        else:
            ref_ranking = to_ranking(reference, source="reference")
            ref_tag = _free("reference", claimed)
    base_tag = _free(baseline, claimed) if baseline is not None else None
    prior_tag = PRIOR_GROUP
    asked = measures if measures is not None else \
        default_measures(ref_tag, base_tag, prior_tag if len(names) > 1 else None)
    columns = _parse_columns(asked, base_tag)           # checked before the work starts; on its scale below
    wanted = {str(v) for c in columns for k, v in c.measure.params.items() if k in ("ref", "prior", "runs")}

    nrg_plot = _nrg_axes(columns) if len(names) > 1 else None
    # qrels, read and evaluate each run, [best of each group], [tests], [matrices and their two heat maps],
    # effort/gain, [NRG], CRP, report.md
    total = (1 + 2 * len(names) + (group_of is not None) + (baseline is not None) + 2 * (len(names) > 1)
             + pictures * (2 * (len(names) > 1) + 2 + (nrg_plot is not None)) + 1)
    step = _Steps(total, progress)

    scoped: Dict[str, Ranking] = {}
    with contextlib.ExitStack() as stack:
        # -- read
        step("reading the qrels" + (f" {os.fspath(qrels)}" if isinstance(qrels, (str, os.PathLike)) else ""))
        from ..datasets import resolve_qrels
        q = resolve_qrels(qrels)
        if not len(q.qcodes):
            raise MissingQrelsError("qrels: no judgments")
        # [26C] the grade scale: --max-rel, else the collection's; written into every graded measure
        scale = (max_rel, "given (max_rel)") if max_rel is not None else grade_scale(qrels, q.max_grade)
        asked = measures if measures is not None else \
            default_measures(ref_tag, base_tag, prior_tag if len(names) > 1 else None, scale[0])
        columns = _parse_columns(asked, base_tag, scale[0], override=max_rel is not None)
        if topic is not None and pictures and str(topic) not in set(QUERY_IDS.decode(q.qcodes).astype(str).tolist()):
            raise ParameterError(f"topic={topic!r} is not a query of the qrels")
        rankings: Dict[str, Ranking] = {}
        for name, run in inputs.items():
            step(f"reading run {name}")
            rankings[name] = to_ranking(run, source=None if isinstance(run, (str, os.PathLike)) else f"run {name!r}")

        # -- name what the measures name, for this report's evaluations only
        if ref_ranking is not None and ref_tag is not None:
            scoped[ref_tag] = ref_ranking
        if base_tag is not None and baseline is not None:
            scoped[base_tag] = rankings[baseline]
        for name in names:
            if name in wanted and name not in claimed:
                scoped[name] = rankings[name]
                claimed.add(name)
        best = None
        if group_of is not None:
            from ..nrg import best_per_team
            step("NRG prior sets: the best run of every group by nDCG@10")
            best = best_per_team(rankings, group_of, q, "nDCG@10")
        prior_set = references.PriorSet(list(rankings.items()), group_of, best)
        stack.enter_context(references.run_scope(runs=scoped, groups={prior_tag: prior_set}))

        # -- evaluate
        evaluator = _Evaluator(columns, q)
        frames = []
        for name in names:
            step(f"evaluating {name} ({len(evaluator.measures)} measures)")
            frames.append(evaluator.values(rankings[name]))
        per_query = pd.concat(frames, keys=names, names=["run", "query_id"])
        means = _means(per_query, names, columns)
        sig = None
        if baseline is not None:
            step(f"significance tests against {baseline}")
            sig = _significance(per_query, names, baseline, columns, permutations, seed, alpha)
            sig = per_measure(sig, alpha)          # [26C] Holm over a family per measure (story.per_measure)
        robust_rows = None
        if baseline is not None:
            robust_rows = robust(per_query, names, baseline, columns, alpha)
        pairs = None
        if len(names) > 1:
            step("all pairs of runs: randomised Tukey HSD")
            pairs = all_pairs(per_query, names, columns, permutations, seed, alpha)

        os.makedirs(out_dir, exist_ok=True)
        files: List[str] = []

        def path(name: str) -> str:
            files.append(name)
            return os.path.join(out_dir, name)

        per_query.reset_index().to_csv(path("per_query.tsv"), sep="\t", index=False)
        means.to_csv(path("means.tsv"), sep="\t", index=False)
        if sig is not None:
            sig.to_csv(path("significance.tsv"), sep="\t", index=False)
        if pairs is not None:
            pairs.to_csv(path("all_pairs.tsv"), sep="\t", index=False)
        if robust_rows is not None:
            robust_rows.to_csv(path("robust.tsv"), sep="\t", index=False)

        matrices: Dict[str, pd.DataFrame] = {}
        if len(names) > 1:
            distances = _distances(scale[0])
            step("distance matrices: " + ", ".join(m for _, m in distances))
            values = pairwise(rankings, [m for _, m in distances], q)
            for key, m in distances:
                matrices[key] = matrix_of(values, m)
                matrices[key].to_csv(path(f"distance_{key}.tsv"), sep="\t")

        # -- pictures
        drawn: List[Tuple[str, str]] = []
        notes: List[str] = []
        missing: List[str] = []
        if pictures:
            _draw_pictures(out_dir, step, q, rankings, names, means, matrices, baseline, group_of, nrg_plot, topic,
                           drawn, notes, missing)
            files.extend(name for name, _ in drawn)

        step("writing report.md")
        answered = {n: int(np.isin(rankings[n].qcodes, q.qcodes).sum()) for n in names}
        text = _markdown(q, qrels, inputs, names, answered, reference, ref_tag, baseline, base_tag, group_of,
                         prior_tag, columns, means, sig, pairs, matrices, drawn, notes, missing, alpha, permutations,
                         seed, measures is None, pictures, per_query=per_query, robust_rows=robust_rows,
                         grade_scale=scale)
        with open(path("report.md"), "w", encoding="utf-8") as f:
            f.write(text)
        table = results_table(per_query, means, sig, columns, baseline, alpha)
        table = with_intervals(table, per_query, names, columns)   # [26C] the intervals of report.md, in range
        images = [(caption, os.path.join(out_dir, name)) for name, caption in drawn]
        for name, options in (("results.json", {}), ("results.tex", {"intervals": True}),
                              ("results.html", {"images": images})):
            write_table(table, path(name), **options)
        write_table(replace(table, per_query=per_query.reset_index()), path("results.jsonl"))
    per_query.attrs["files"] = sorted(files, key=lambda n: (n != "report.md", not n.endswith(".tsv"), files.index(n)))
    return per_query


def all_pairs(per_query: pd.DataFrame, names: List[str], columns: List[Column], resamples: int, seed: int,
              alpha: float) -> pd.DataFrame:
    """Every pair of runs under every ranked measure, by the randomised Tukey HSD test (Carterette, TOIS 2012;
    :func:`ir_rbstar.stats.tukey_hsd_randomized`, ``resamples`` resamples, ``seed``): family-wise over the
    pairs of one measure. Only the queries where every run has a value take part (``queries``)."""
    from ..stats import tukey_hsd_randomized
    parts = []
    for c in columns:
        if not c.better:
            continue
        frame = per_query[c.label].unstack("query_id").reindex(names).dropna(axis=1)
        if frame.shape[1] < 2:
            continue
        res = tukey_hsd_randomized(frame, n_resamples=resamples, seed=seed, alpha=alpha)
        res.insert(0, "measure", c.label)
        res["better"] = c.better
        res["queries"] = frame.shape[1]
        parts.append(res)
    columns_out = ["measure", "run_a", "run_b", "mean_a", "mean_b", "difference", "pvalue", "reject", "better",
                   "queries"]
    return pd.concat(parts, ignore_index=True)[columns_out] if parts else pd.DataFrame(columns=columns_out)


def results_table(per_query: pd.DataFrame, means: pd.DataFrame, sig: Optional[pd.DataFrame], columns: List[Column],
                  baseline: Optional[str], alpha: float) -> ResultsTable:
    """The report's means as a :class:`~ir_rbstar.report.formats.ResultsTable`: each with its 95% t interval
    over the queries that have a value (:func:`ir_rbstar.stats.mean_interval`), and, against the baseline,
    the Holm-corrected p of the randomization test and the direction where it is significant."""
    from ..stats import mean_interval
    frame = means[["run", "measure", "mean"]].copy()
    lows, highs = [], []
    for run, label in zip(frame["run"], frame["measure"], strict=True):
        values = per_query.loc[run, label].dropna().to_numpy()
        if len(values) >= 2:
            ci = mean_interval(values, confidence=0.95, method="t")
            lows.append(ci.low)
            highs.append(ci.high)
        else:
            lows.append(np.nan)
            highs.append(np.nan)
    frame["low"], frame["high"] = lows, highs
    if sig is not None:
        marks = sig[["run", "measure", "p_holm", "significant"]].rename(columns={"p_holm": "p",
                                                                              "significant": "direction"})
        frame = frame.merge(marks, on=["run", "measure"], how="left")
    lower = frozenset(c.label for c in columns if c.better == "lower")
    plain = frozenset(c.label for c in columns if not c.better)
    return ResultsTable.from_frame(frame, baseline=baseline, alpha=alpha, lower_is_better=lower, descriptive=plain)
