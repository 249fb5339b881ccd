"""``ir-rbstar report``: one command that evaluates several runs with every measure family and writes
a Markdown report with tables and pictures into one folder.

:func:`build_report` evaluates each run once with all the measures (ir_measures' built-ins and
ir_rbstar's) over the queries that have judgments, into one per-query table (:mod:`.table`) from which
every section and picture reads, then writes into ``out_dir``:

* ``report.md``: the inputs, the measures and why they were chosen, the means (system x measure,
  with their 95% intervals, inside each measure's range, and the number of queries), the rank of every
  system under every measure, the paired significance tests against the baseline with the effect size
  d_z and its noncentral-t interval, the robust verdicts over bounds (residuals, tie orders), whether
  these sections agree, the run-distance matrices and the pictures;
* ``per_query.tsv``: one row per run and query, one column per measure (empty: no value);
* ``means.tsv``: one row per run and measure: mean, number of queries, rank;
* ``significance.tsv`` (with a baseline): difference, p, Holm-corrected p, d_z and its 95% interval of
  every comparison;
* ``robust.tsv`` (with a baseline and a measure known within bounds: ``X`` next to ``X_res``, or
  ``X(stat='min')`` next to ``X(stat='max')``): every run against the baseline over the bounds
  (:func:`ir_rbstar.stats.robust_table`);
* ``all_pairs.tsv`` (two runs or more): every pair of runs under every ranked measure, by the randomised
  Tukey HSD test (:func:`ir_rbstar.stats.tukey_hsd_randomized`);
* ``distance_med.tsv``, ``distance_rbo.tsv`` (two runs or more): MED_nDCG@10 and 1 - RBO(p=0.9)
  between every pair of runs;
* pictures (PNG, when matplotlib is installed): ``effort_gain.png`` (Twist against AP),
  ``nrg.png`` (NRG@10 against nDCG@10, one point per run), ``distance_med.png`` and
  ``distance_rbo.png`` (heat maps), ``crp.png`` (the CRP curve of the baseline on one topic);
* ``results.json``, ``results.tex`` (a booktabs table for a paper) and ``results.html`` (self-contained,
  the pictures embedded): the means with 95% intervals and the significance markers against the
  baseline (:mod:`.formats`: :func:`write_table` writes the same tables as TSV, JSON, JSONL, Markdown,
  LaTeX or HTML); ``results.jsonl``: the per-query values, one JSON object per line.

Significance: a paired, two-sided randomization test of the per-query differences (sign flips; exact
over all 2^n flips when 2^n <= ``permutations``, otherwise ``permutations`` random flips with a fixed
seed), with Holm's step-down correction over the runs of each measure (a family per measure;
:func:`randomization_pvalues`, :func:`holm`, :func:`ir_rbstar.report.story.per_measure`); report.md says
where the baseline table, the all-pairs test and the robust verdicts differ, and why (:mod:`.story`).
Only queries with a value for both the system and the baseline are paired.

Command line: ``ir-rbstar report QRELS RUN [RUN ...] --output DIR [--reference REF] [--baseline NAME]
[--groups FILE] [--measures "..."] [--quiet]`` and ``ir-rbstar report --demo --output DIR`` (the bundled
Vaswani collection).


Modules: :mod:`.stats` (randomization test, Holm), :mod:`.formats` (table writers), :mod:`.catalogue`
(measures and columns), :mod:`.inputs` (runs and groups), :mod:`.table` (the per-query table),
:mod:`.sections` (means, tests, robust verdicts, all pairs: functions of the table), :mod:`.build`
(:func:`build_report`), :mod:`.markdown` (the page) and :mod:`.command` (``ir-rbstar report``); the
distance matrices come from :func:`ir_rbstar.med.distance_frame` (:mod:`ir_rbstar.matrices`).
"""
from __future__ import annotations

from .stats import DEFAULT_PERMUTATIONS, DEFAULT_SEED, holm, randomization_pvalues, randomization_test
from .catalogue import PRIOR_GROUP, default_measures
from .inputs import read_groups
from .build import FILES, build_report
from .formats import Cell, ResultsTable, write_table
from .command import add_arguments, main

__all__ = ["build_report", "write_table", "ResultsTable", "Cell",
           "default_measures", "randomization_pvalues", "randomization_test", "holm",
           "read_groups", "add_arguments", "main", "DEFAULT_PERMUTATIONS", "DEFAULT_SEED", "PRIOR_GROUP",
           "FILES"]
