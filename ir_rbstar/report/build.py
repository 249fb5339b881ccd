"""Building the report: the inputs checked, the runs read (judged queries only), the one per-query table
(:mod:`.table`), the sections as functions of it (:mod:`.sections`), the distance matrices, the pictures
and the files."""
from __future__ import annotations

from dataclasses import replace

import contextlib

import os
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..datasets import grade_scale
from ..errors import MissingQrelsError, ParameterError
from ..io import QUERY_IDS, Ranking, to_ranking
from .formats import write_table
from .stats import DEFAULT_PERMUTATIONS, DEFAULT_SEED
from .catalogue import PRIOR_GROUP, _distances, _parse_columns, default_measures
from .sections import _means, _significance, all_pairs, bound_pairs, results_table, robust  # noqa: F401
from .table import effort_gain_values, judged_only, per_query_table
from .inputs import _free, _run_inputs, read_groups
from .markdown import _markdown, mean_intervals, with_intervals
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


def _scope(judged: int, unjudged: int, rows: int, kept: int) -> str:
    """The report's sentence on which queries are evaluated."""
    text = (f"Every measure is evaluated over the {judged:,} queries of the qrels (a query without judgments "
            f"has no value under any measure).")
    if unjudged:
        text += (f" The runs also rank {unjudged:,} quer{'y' if unjudged == 1 else 'ies'} without judgments: "
                 f"their {rows - kept:,} rows ({(rows - kept) / rows:.0%} of the {rows:,} rows read) are left out "
                 f"after reading.")
    return text


class _Steps:
    def __init__(self, total: int, progress: Optional[Progress]):
        self.total, self.done, self.progress = total, 0, progress

    def __call__(self, message: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, message)


def build_report(qrels: Any, runs: Any, out_dir: Any, *, reference: Any = None, baseline: Optional[str] = None,
                 groups: Any = None, measures: Any = None, progress: Optional[Progress] = None,
                 alpha: float = 0.05, permutations: Optional[int] = None, seed: int = DEFAULT_SEED,
                 topic: Optional[str] = None, pictures: bool = True, max_rel: Optional[int] = None,
                 explore: bool = False, aux: Any = None) -> pd.DataFrame:
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
    ``permutations`` and ``seed`` set the significance tests (:func:`randomization_pvalues`, adaptive by
    default: as many sign flips as Holm's correction per measure needs; an integer gives the fixed-size test
    and the all-pairs test's resamples; :func:`holm`; next to them d_z and its noncentral-t interval, and the
    robust verdicts of :func:`robust` where a measure has bounds); ``topic`` the query of the CRP picture
    (default: the one whose Twist is nearest the median); ``pictures=False`` draws none; ``explore=True`` also writes
    ``explore.html`` (:func:`ir_rbstar.explore.explore`, the baseline or first run against each other run), linked
    from ``results.html``. ``aux``: auxiliary judgments (a qrels file, an ir_datasets id, a DataFrame or dict of
    dicts) filling the holes of the RBP and RBP_res columns, with the provenance split in ``per_query.tsv`` and
    the robust verdicts that depend on them marked (:mod:`ir_rbstar.report.aux`). ``max_rel`` is the top of the
    qrels' grade scale (e.g. 3 for TREC DL), written into every graded measure (those of the default set,
    of ``measures`` and of the distance matrix); None: the collection's
    (:func:`~ir_rbstar.datasets.grade_scale`: the ir_datasets ``qrels_defs``, else the highest grade).

    Returns the per-query values: a DataFrame indexed by (run, query_id) over the qrels' queries, one
    column per measure (every query has a value for every measure, as at every other door);
    ``attrs["files"]`` lists the files written (names inside ``out_dir``).

    Raises ParameterError for no run, an unknown ``baseline``, groups naming unknown runs, a bad
    measure, ``alpha`` outside (0, 1) or ``out_dir`` naming a file; FileNotFoundError for a missing run
    or groups file; MissingQrelsError without qrels; ReferenceNotFoundError for an unknown reference;
    the usual input errors for malformed files; GradeScaleError for an auxiliary grade outside the grade scale.
    Without matplotlib the report says which extra to install instead of drawing the pictures.
    """
    from .. import references
    from ..med import distance_frame

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
        from ..plots.common import named_run
        baseline = named_run(baseline, inputs)
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
             + pictures * (2 * (len(names) > 1) + 2 + (nrg_plot is not None)) + 1 + (explore and len(names) > 1))
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
        human_columns: List[Any] = []
        aux_text: List[str] = []
        if aux is not None:                    # [29a] auxiliary judgments: checked on the scale before the work
            from . import aux as with_aux
            spec, aux_q = with_aux.aux_spec(aux, out_dir, q, scale[0])
            columns, human_columns = with_aux.aux_columns(columns, spec)
            aux_text = with_aux.inputs_text(spec, q, aux_q, columns)
        if topic is not None and pictures and str(topic) not in set(QUERY_IDS.decode(q.qcodes).astype(str).tolist()):
            raise ParameterError(f"topic={topic!r} is not a query of the qrels")
        rankings: Dict[str, Ranking] = {}
        answered: Dict[str, int] = {}
        rows_read = [0, 0]                     # rows read, rows of judged queries
        unjudged: set = set()                  # queries of the runs without judgments
        for name, run in inputs.items():
            step(f"reading run {name}")
            read = to_ranking(run, source=None if isinstance(run, (str, os.PathLike)) else f"run {name!r}")
            answered[name] = int(np.isin(read.qcodes, q.qcodes).sum())
            rows_read[0] += len(read)
            # every measure is evaluated over the qrels' queries: the other queries' rows are never used
            rankings[name] = judged_only(read, q.qcodes)
            rows_read[1] += len(rankings[name])
            if len(rankings[name].qcodes) < len(read.qcodes):
                unjudged.update(np.setdiff1d(read.qcodes, q.qcodes).tolist())
            del read

        # -- name what the measures name, for this report's evaluations only
        if ref_ranking is not None and ref_tag is not None:
            scoped[ref_tag] = judged_only(ref_ranking, q.qcodes)
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
        per_query = per_query_table(columns, q, {name: rankings[name] for name in names}, step)
        human = per_query_table(human_columns, q, rankings) if human_columns else None
        means = _means(per_query, names, columns)
        sig = None
        if baseline is not None:
            step(f"significance tests against {baseline}")
            sig = _significance(per_query, names, baseline, columns, permutations, seed, alpha)
            sig = per_measure(sig, alpha)          # [26C] Holm over a family per measure (story.per_measure)
        robust_rows = None
        if baseline is not None:
            robust_rows = robust(per_query, names, baseline, columns, alpha)
            if human is not None:              # [29a] the same verdicts over the human-only bounds
                robust_rows = with_aux.mark_robust(robust_rows, robust(human, names, baseline, human_columns, alpha),
                                                   columns)
        pairs = None
        if len(names) > 1:
            step("all pairs of runs: randomised Tukey HSD")
            pairs = all_pairs(per_query, names, columns, permutations or DEFAULT_PERMUTATIONS, seed, alpha)

        os.makedirs(out_dir, exist_ok=True)
        files: List[str] = []

        def path(name: str) -> str:
            files.append(name)
            return os.path.join(out_dir, name)

        written = per_query if human is None else with_aux.split_columns(per_query, human, columns)
        written.reset_index().to_csv(path("per_query.tsv"), sep="\t", index=False)
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
            for key, m in distances:           # every unordered pair once, as arrays (ir_rbstar.matrices)
                matrices[key] = distance_frame(rankings, m, q)
                matrices[key].to_csv(path(f"distance_{key}.tsv"), sep="\t")

        # -- pictures
        drawn: List[Tuple[str, str]] = []
        notes: List[str] = []
        missing: List[str] = []
        if pictures:
            _draw_pictures(out_dir, step, q, rankings, names, means, matrices, baseline, group_of, nrg_plot, topic,
                           drawn, notes, missing, points=effort_gain_values(per_query, q))
            files.extend(name for name, _ in drawn)

        step("writing report.md")
        intervals = mean_intervals(per_query, names, columns)      # once, for report.md and the results files
        text = _markdown(q, qrels, inputs, names, answered, reference, ref_tag, baseline, base_tag, group_of,
                         prior_tag, columns, means, sig, pairs, matrices, drawn, notes, missing, alpha, permutations,
                         seed, measures is None, pictures, per_query=per_query, robust_rows=robust_rows,
                         grade_scale=scale, scope=_scope(len(q.qcodes), len(unjudged), *rows_read),
                         intervals=intervals, aux_text=aux_text)
        with open(path("report.md"), "w", encoding="utf-8") as f:
            f.write(text)
        table = results_table(per_query, means, sig, columns, baseline, alpha, intervals=False)
        table = with_intervals(table, per_query, names, columns, intervals)   # [26C] report.md's intervals, in range
        images = [(caption, os.path.join(out_dir, name)) for name, caption in drawn]
        links: List[Tuple[str, str]] = []
        if explore and len(names) > 1:
            step("explore.html: the per-query explorer page")
            from ..explore import explore as write_explorer
            order = ([baseline] if baseline is not None else []) + [n for n in names if n != baseline]
            write_explorer(qrels, {n: rankings[n] for n in order}, path("explore.html"), max_rel=scale[0],
                           pairs="first")
            links.append(("Per query: the explorer page (explore.html)", "explore.html"))
        for name, options in (("results.json", {}), ("results.tex", {"intervals": True}),
                              ("results.html", {"images": images, "links": links})):
            write_table(table, path(name), **options)
        write_table(replace(table, per_query=per_query.reset_index()), path("results.jsonl"))
    per_query.attrs["files"] = sorted(files, key=lambda n: (n != "report.md", not n.endswith(".tsv"), files.index(n)))
    return per_query


