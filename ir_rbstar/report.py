"""``ir-rbstar report``: one command that evaluates several runs with every measure family and writes
a Markdown report with tables and pictures into one folder.

:func:`build_report` evaluates each run once with all the measures (ir_measures' built-ins and
ir_rbstar's), then writes into ``out_dir``:

* ``report.md``: the inputs, the measures and why they were chosen, the means (system x measure,
  with the number of queries), the rank of every system under every measure, the paired significance
  tests against the baseline, the run-distance matrices and the pictures;
* ``per_query.tsv``: one row per run and query, one column per measure (empty: no value);
* ``means.tsv``: one row per run and measure: mean, number of queries, rank;
* ``significance.tsv`` (with a baseline): difference, p and Holm-corrected p of every comparison;
* ``distance_med.tsv``, ``distance_rbo.tsv`` (two runs or more): MED_nDCG@10 and 1 - RBO(p=0.9)
  between every pair of runs;
* pictures (PNG, when matplotlib is installed): ``effort_gain.png`` (Twist against AP),
  ``nrg.png`` (NRG@10 against nDCG@10, one point per run), ``distance_med.png`` and
  ``distance_rbo.png`` (heat maps), ``crp.png`` (the CRP curve of the baseline on one topic).

Significance: a paired, two-sided randomization test of the per-query differences (sign flips; exact
over all 2^n flips when 2^n <= ``permutations``, otherwise ``permutations`` random flips with a fixed
seed), with Holm's step-down correction over all (system, measure) comparisons
(:func:`randomization_pvalues`, :func:`holm`). Only queries with a value for both the system and the
baseline are paired.

Command line: ``ir-rbstar report QRELS RUN [RUN ...] --output DIR [--reference REF] [--baseline NAME]
[--groups FILE] [--measures "..."] [--quiet]`` and ``ir-rbstar report --demo --output DIR`` (the bundled
Vaswani collection).
"""
from __future__ import annotations

import argparse
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from .errors import InputFormatError, MissingQrelsError, ParameterError, RbstarError
from .io import QUERY_IDS, Qrels, Ranking, ranking_frame, to_ranking

__all__ = ["build_report", "default_measures", "randomization_pvalues", "randomization_test", "holm",
           "read_groups", "add_arguments", "main", "DEFAULT_PERMUTATIONS", "DEFAULT_SEED", "PRIOR_GROUP",
           "FILES"]

#: random sign flips per comparison when 2^n exceeds it (below, all 2^n flips are enumerated)
DEFAULT_PERMUTATIONS = 10_000
#: seed of the random sign flips (the same flips for every comparison with the same number of queries)
DEFAULT_SEED = 0
#: the name under which the runs are registered as NRG's prior set (``NRG(prior='others')@10``)
PRIOR_GROUP = "others"
#: the measures of the distance matrices (MED judged against the qrels; RBO as 1 - RBO)
DISTANCES = (("med", "MED_nDCG@10"), ("rbo", "RBO(p=0.9)"))


def _distances(max_rel: int = 1):
    """The report's distance measures, graded ones on the grade scale ``max_rel``."""
    scale = "" if max_rel == 1 else f"(max_rel={max_rel})"
    return tuple((key, m.replace("MED_nDCG@", f"MED_nDCG{scale}@")) for key, m in DISTANCES)
#: picture and table files (name -> what it holds)
FILES = {
    "report.md": "the report",
    "per_query.tsv": "per-query values: run, query_id, one column per measure",
    "means.tsv": "run, measure, mean, queries, rank",
    "significance.tsv": "comparisons with the baseline: differences, p, Holm-corrected p",
    "distance_med.tsv": "MED_nDCG@10 between every pair of runs",
    "distance_rbo.tsv": "1 - RBO(p=0.9) between every pair of runs",
    "effort_gain.png": "Twist against AP, every run x topic",
    "nrg.png": "NRG against its base measure, one point per run",
    "distance_med.png": "heat map of the MED_nDCG@10 matrix",
    "distance_rbo.png": "heat map of the 1 - RBO(p=0.9) matrix",
    "crp.png": "CRP curve (and DCG) of the baseline on one topic",
}
_CHUNK = 1 << 21                 # sign-matrix entries per block of random flips
_PLACES = 4

Progress = Callable[[int, int, str], None]


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------

def randomization_pvalues(diffs: Sequence[Any], permutations: int = DEFAULT_PERMUTATIONS,
                          seed: int = DEFAULT_SEED) -> np.ndarray:
    """Two-sided p-values of paired randomization (sign-flip) tests, one per array of per-query
    differences.

    Under the null hypothesis each difference is as likely to have the opposite sign, so every
    assignment of signs is equally likely. The statistic is |sum of the differences| (the same test
    as |mean|); p is the share of sign assignments whose statistic is at least the observed one
    (Fisher's randomization test, recommended for IR by Smucker, Allan and Carterette, CIKM 2007).
    With n differences and 2^n <= ``permutations`` all 2^n assignments are enumerated (exact p);
    otherwise ``permutations`` random assignments are drawn (seeded with ``seed``; arrays of the same
    length share them) and p = (b + 1) / (permutations + 1), b counting the draws at least as extreme
    (it is never 0). Statistics closer than 1e-9 x the sum of |differences| count as equal (sums of the
    same numbers in another order differ by rounding). An empty array gives NaN; differences that are
    all 0 give p = 1. Work is done in
    blocks of a matrix product (sign matrix x differences), never per flip in Python.

    >>> randomization_pvalues([[1.0, 2.0, 3.0], [1.0, -1.0]]).tolist()
    [0.25, 1.0]
    """
    if not isinstance(permutations, (int, np.integer)) or isinstance(permutations, bool) or permutations < 1:
        raise ParameterError(f"permutations={permutations!r}: give a positive integer")
    arrays = []
    for i, d in enumerate(diffs):
        a = np.asarray(d, dtype=np.float64)
        if a.ndim != 1:
            raise ParameterError(f"diffs[{i}]: give a one-dimensional array of differences")
        if not np.isfinite(a).all():
            raise ParameterError(f"diffs[{i}]: every difference must be a finite number")
        arrays.append(a)
    out = np.full(len(arrays), np.nan)
    by_length: Dict[int, List[int]] = {}
    for i, a in enumerate(arrays):
        by_length.setdefault(len(a), []).append(i)
    for n, idx in by_length.items():
        if n == 0:
            continue
        d = np.column_stack([arrays[i] for i in idx])                  # n x k
        observed = np.abs(d.sum(axis=0))
        # sums of the same numbers in another order may differ in the last bits
        threshold = observed - 1e-9 * np.abs(d).sum(axis=0)
        if n < 63 and 2 ** n <= permutations:
            flips = (np.arange(2 ** n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1
            sums = (1.0 - 2.0 * flips) @ d
            out[idx] = (np.abs(sums) >= threshold).sum(axis=0) / float(2 ** n)
            continue
        rng = np.random.default_rng(seed)
        rows = max(1, _CHUNK // n)
        count = np.zeros(len(idx))
        done = 0
        while done < permutations:
            size = min(rows, permutations - done)
            flips = rng.integers(0, 2, size=(size, n), dtype=np.int8)
            sums = (1.0 - 2.0 * flips) @ d
            count += (np.abs(sums) >= threshold).sum(axis=0)
            done += size
        out[idx] = (count + 1.0) / (permutations + 1.0)
    return out


def randomization_test(diffs: Any, permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED) -> float:
    """The two-sided p-value of a paired randomization test of one array of per-query differences
    (see :func:`randomization_pvalues`).

    >>> randomization_test([0.5, 0.25, 0.125])
    0.25
    """
    return float(randomization_pvalues([diffs], permutations, seed)[0])


def holm(pvalues: Any) -> np.ndarray:
    """Holm's step-down (Holm-Bonferroni) adjusted p-values, in the order given: with the m p-values
    sorted, p_(1) <= ... <= p_(m), the i-th adjusted value is max over j <= i of min(1, (m - j + 1)
    p_(j)) (Holm 1979). Rejecting where the adjusted p <= alpha controls the family-wise error rate
    at alpha. NaN entries are left out of the family and stay NaN.

    >>> holm([0.01, 0.04, 0.03, 0.005]).round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ParameterError("holm: give a one-dimensional array of p-values")
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise ParameterError("holm: p-values must lie in [0, 1]")
    out = np.full(len(p), np.nan)
    values = p[ok]
    m = len(values)
    if not m:
        return out
    order = np.argsort(values, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    out[ok] = adjusted
    return out


# ---------------------------------------------------------------------------------------------
# Measures
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Column:
    """One column of the report: the measure evaluated, shown as ``label`` (``1-RBO(...)`` when
    ``complement``: the value is 1 - the measure's); ``better`` is "higher", "lower" or "" (descriptive:
    neither ranked nor tested), with the reason in ``note``."""

    label: str
    measure: Any
    complement: bool = False
    better: str = "higher"
    note: str = ""


_TIE_AWARE = ("P_TA", "R_TA", "F1_TA", "AP_TA", "RR_TA", "nDCG_TA", "RBP_TA")
_ABOUT = {
    "nDCG": "normalised discounted cumulative gain (trec_eval: tied scores ordered by document id)",
    "P": "precision (trec_eval order of ties)",
    "R": "recall (trec_eval order of ties)",
    "AP": "average precision over the whole ranking (trec_eval order of ties)",
    "RR": "reciprocal rank (trec_eval order of ties)",
    "nDCG_TA": "nDCG, tie-aware: the mean over every order of tied scores",
    "P_TA": "precision, tie-aware", "R_TA": "recall, tie-aware", "F1_TA": "F1, tie-aware",
    "AP_TA": "average precision, tie-aware", "RR_TA": "reciprocal rank, tie-aware",
    "RBP_TA": "RBP, tie-aware",
    "RBP": "rank-biased precision against the qrels (graded)",
    "RBP_res": "RBP residual: the weight of unjudged positions and of the tail",
    "RBR": "rank-biased recall: the run's top k as a set, credited by the reference ranking",
    "RBR_res": "RBR residual", "RBA_res": "RBA residual", "RBO_res": "RBO residual",
    "RBA": "rank-biased alignment of the run with the reference ranking",
    "RBO": "rank-biased overlap with the reference ranking",
    "RBO_ext": "extrapolated rank-biased overlap",
    "Twist": "effort: how far documents sit from their place in the ideal ranking (1 = ideal)",
    "Twist_rho": "Twist's recovery ratio", "Twist_sigma": "Twist's space ratio",
    "NRG": "normalised residual gain: the base measure counting only what the prior runs had not shown",
    "UniqueRel": "relevant documents no prior run has in its top k",
    "RarP": "rareness-based precision",
    "TaSC": "(1 - best prior nDCG@k) x the run's nDCG@k",
    "MED_P": "maximized P difference", "MED_RBP": "maximized RBP difference",
    "MED_nDCG": "maximized nDCG difference: the largest difference any relevance of the unjudged documents allows",
    "MED_AP": "maximized AP difference", "MED_ERR": "maximized ERR difference",
}


def _family(name: str) -> str:
    if name in _TIE_AWARE:
        return "tie-aware"
    if name.startswith("RB"):
        return "rank-biased"
    if name.startswith("Twist"):
        return "effort (Twist)"
    if name in ("NRG", "UniqueRel", "RarP", "TaSC"):
        return "residual gain"
    if name.startswith("MED_"):
        return "MED"
    return "trec_eval (ir_measures)"


def default_measures(reference: Optional[str] = None, baseline: Optional[str] = None,
                     prior: Optional[str] = PRIOR_GROUP, max_rel: int = 1) -> str:
    """The report's default measures as a measure string (``1-`` marks a distance 1 - similarity).

    Always: nDCG@10, P@10, AP, R@100 (trec_eval's order of ties) and the tie-aware nDCG_TA@10, P_TA@10, AP_TA;
    RBP(p=0.8) (graded on the scale ``max_rel``) and its residual; Twist. With a ``reference`` (a registered
    name or run file): RBR(p=0.8)@20, RBA(p=0.9), RBO(p=0.9) against it. With ``prior`` (a registered group of
    runs): NRG@10. With a ``baseline`` (a registered name): MED_nDCG@10 and 1-RBO(p=0.9) against it.

    >>> print(default_measures(reference="mono", baseline="bm25"))  # doctest: +NORMALIZE_WHITESPACE
    nDCG@10 nDCG_TA@10 P@10 P_TA@10 AP AP_TA R@100 RBP(p=0.8) RBP_res(p=0.8) RBR(p=0.8,ref='mono')@20
    RBA(p=0.9,ref='mono') RBO(p=0.9,ref='mono') Twist NRG(prior='others')@10 MED_nDCG(ref='bm25')@10
    1-RBO(p=0.9,ref='bm25')
    """
    scale = "" if max_rel == 1 else f",max_rel={max_rel}"
    items = ["nDCG@10", "nDCG_TA@10", "P@10", "P_TA@10", "AP", "AP_TA", "R@100", f"RBP(p=0.8{scale})",
             "RBP_res(p=0.8)"]
    if reference is not None:
        ref = f"ref={reference!r}"
        items += [f"RBR(p=0.8,{ref})@20", f"RBA(p=0.9,{ref})", f"RBO(p=0.9,{ref})"]
    items.append("Twist")
    if prior is not None:
        items.append(f"NRG(prior={prior!r})@10")
    if baseline is not None:
        ref = f"ref={baseline!r}"
        items += [f"MED_nDCG({ref}{scale})@10", f"1-RBO(p=0.9,{ref})"]
    return " ".join(items)


def _parse_columns(measures: Any, baseline_tag: Optional[str]) -> List[Column]:
    """Columns from a measure string (or list of strings / measure objects); ``1-`` before an RBO,
    RBO_ext or RBA measure makes it a distance."""
    from .med import SIMILARITIES
    from .parsing import parse_measure, split_measures

    if isinstance(measures, str):
        items: List[Any] = split_measures(measures)
    elif isinstance(measures, (list, tuple)):
        items = []
        for m in measures:
            items.extend(split_measures(m) if isinstance(m, str) else [m])
    else:
        raise ParameterError(f"measures={measures!r}: give a string of measures or a list of them")
    columns: List[Column] = []
    seen = set()
    for item in items:
        complement = isinstance(item, str) and item.startswith("1-")
        text = item[2:] if complement else item
        if isinstance(text, str):
            try:
                m = parse_measure(text)
            except ParameterError as e:
                raise ParameterError(f"measures: {e}") from None
        else:
            m = text
        if complement and m.NAME not in SIMILARITIES:
            raise ParameterError(f"measures: {item!r}: '1-' makes a distance of {', '.join(SIMILARITIES)} only")
        label = f"1-{m}" if complement else str(m)
        if label in seen:
            continue
        seen.add(label)
        name = m.NAME
        if name.endswith("_res"):
            better, note = "", "a residual: how much the value could still change, not a quality"
        elif baseline_tag is not None and m.params.get("ref") == baseline_tag:
            better, note = "", "against the baseline: how far each run is from it"
        elif complement or name.startswith("MED_"):
            better, note = "lower", "a distance from the reference"
        else:
            better, note = "higher", ""
        columns.append(Column(label, m, complement, better, note))
    if not columns:
        raise ParameterError("measures: no measure given")
    return columns


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------

def read_groups(groups: Any, runs: Sequence[str]) -> Dict[str, str]:
    """Run name -> group, from a mapping or a TSV file of ``run<TAB>group`` lines (blank lines and
    lines starting with ``#`` are skipped). Every run must have exactly one group, and every run named
    must be one of ``runs``.

    Raises InputFormatError for a line without exactly two tab-separated fields or a run given two
    groups, ParameterError for a run that is not one of ``runs`` or a run without a group,
    FileNotFoundError for a missing file.
    """
    known = list(runs)
    where: Dict[str, str] = {}
    if isinstance(groups, Mapping):
        source = "groups"
        out = {}
        for run, group in groups.items():
            out[str(run)] = str(group)
            where[str(run)] = f"{source}[{str(run)!r}]"
    elif isinstance(groups, (str, os.PathLike)):
        source = os.fspath(groups)
        if not os.path.isfile(source):
            raise FileNotFoundError(f"groups file not found: {source}")
        out = {}
        with open(source, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                text = line.rstrip("\r\n")
                if not text.strip() or text.lstrip().startswith("#"):
                    continue
                fields = [x.strip() for x in text.split("\t")]
                if len(fields) != 2 or not all(fields):
                    raise InputFormatError(f"{source} line {number}: expected 'run<TAB>group', got {text!r}")
                run, group = fields
                if run in out and out[run] != group:
                    raise InputFormatError(f"{source} line {number}: run {run!r} is already in group {out[run]!r}")
                out[run] = group
                where.setdefault(run, f"{source} line {number}")
    else:
        raise ParameterError(f"groups: give a dict of run -> group or a TSV file, not {type(groups).__name__}")
    unknown = [r for r in out if r not in known]
    if unknown:
        raise ParameterError(f"{where[unknown[0]]}: run {unknown[0]!r} is not one of the runs "
                             f"({', '.join(repr(r) for r in known)})")
    missing = [r for r in known if r not in out]
    if missing:
        raise ParameterError(f"{source}: no group for run {missing[0]!r}"
                             + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    return {r: out[r] for r in known}


def _run_inputs(runs: Any) -> Dict[str, Any]:
    from .plots import run_names
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    if isinstance(runs, Mapping):
        named = {str(k): v for k, v in runs.items()}
    elif isinstance(runs, (list, tuple)):
        named = run_names([os.fspath(p) for p in runs])
    else:
        raise ParameterError(f"runs: give a dict of name -> run (path, DataFrame) or a list of run files, "
                             f"not {type(runs).__name__}")
    if not named:
        raise ParameterError("runs: no run given; give at least one run")
    for name, run in named.items():
        if isinstance(run, (str, os.PathLike)) and not os.path.isfile(os.path.expanduser(os.fspath(run))):
            raise FileNotFoundError(f"run file not found: {os.fspath(run)} (run {name!r})")
    return named


def _describe(obj: Any) -> str:
    if isinstance(obj, (str, os.PathLike)):
        return f"`{os.fspath(obj)}`"
    return f"a {type(obj).__name__}"


def _claim_run(saved: Dict[str, Optional[Ranking]], name: str, ranking: Ranking) -> None:
    """Register ``ranking`` as ``name``, first keeping what ``name`` referred to (None: nothing)."""
    from . import references
    if name not in saved:
        saved[name] = references.resolve_run(name) if name in references.registered_runs() else None
    references.register_run(name, ranking)


def _free(name: str, taken: set) -> str:
    out, k = name, 2
    while out in taken:
        out, k = f"{name}_{k}", k + 1
    taken.add(out)
    return out


# ---------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------

class _Evaluator:
    """Every measure for one qrels, built once and applied to each run (whole columns)."""

    def __init__(self, columns: List[Column], qrels: Qrels):
        import ir_measures
        from .provider import PROVIDER, split_by_provider
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
    sign = np.where(out["better"] == "lower", -1.0, 1.0) * np.sign(out["difference"].to_numpy())
    significant = out["p_holm"].to_numpy() <= alpha
    out["significant"] = np.where(significant & (sign > 0), "better", np.where(significant & (sign < 0), "worse", ""))
    return out


def _typical_topic(qrels: Qrels, ranking: Ranking) -> Optional[str]:
    """The query whose Twist is nearest the run's median Twist (the first such in the qrels' order)."""
    from .twist import twist_table
    table = twist_table(qrels, ranking)
    tau = table["tau"].to_numpy(dtype=np.float64)
    ok = ~np.isnan(tau)
    if not ok.any():
        return None
    median = float(np.median(tau[ok]))
    distance = np.where(ok, np.abs(tau - median), np.inf)
    return str(table["query_id"].to_numpy()[int(np.argmin(distance))])


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------

def _table(head: List[str], rows: List[List[str]], align: Optional[str] = None) -> str:
    align = align or "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"
    lines = ["| " + " | ".join(head) + " |", align]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _num(v: float, places: int = _PLACES) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{places}f}"


def _p(v: float) -> str:
    if math.isnan(v):
        return ""
    return f"{v:.1e}" if v < 0.5 * 10 ** -_PLACES else f"{v:.{_PLACES}f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _means_markdown(means: pd.DataFrame, names: List[str], columns: List[Column], baseline: Optional[str],
                    nq: int, answered: Dict[str, int]) -> str:
    head = ["measure"] + [f"{n} (baseline)" if n == baseline else n for n in names]
    rows = [["queries with a ranking"] + [str(answered[n]) for n in names]]
    table = means.set_index(["measure", "run"])
    for c in columns:
        cells = []
        for n in names:
            mean, count = table.at[(c.label, n), "mean"], int(table.at[(c.label, n), "queries"])
            text = _num(mean) if count else "-"
            if count and count != nq:
                text += f" (n={count})"
            cells.append(text)
        rows.append([f"`{_cell(c.label)}`"] + cells)
    return _table(head, rows)


def _ranks_markdown(means: pd.DataFrame, names: List[str], columns: List[Column]) -> str:
    head = ["measure"] + names
    table = means.set_index(["measure", "run"])
    rows = []
    for c in columns:
        if not c.better:
            continue
        label = f"`{_cell(c.label)}`" + (" (lower is better)" if c.better == "lower" else "")
        ranks = [table.at[(c.label, n), "rank"] for n in names]
        rows.append([label] + ["" if pd.isna(r) else str(int(r)) for r in ranks])
    return _table(head, rows)


def _significance_markdown(sig: pd.DataFrame) -> str:
    head = ["run", "measure", "queries", "baseline", "run mean", "difference", "p", "p (Holm)", ""]
    marks = {"better": "\u25b2", "worse": "\u25bc", "": ""}
    rows = []
    for r in sig.itertuples(index=False):
        label = f"`{_cell(r.measure)}`" + (" (lower is better)" if r.better == "lower" else "")
        diff = "" if math.isnan(r.difference) else f"{r.difference:+.{_PLACES}f}"
        rows.append([r.run, label, str(r.queries), _num(r.baseline_mean), _num(r.run_mean), diff, _p(r.p),
                     _p(r.p_holm), marks[r.significant]])
    return _table(head, rows, "|---|---|---:|---:|---:|---:|---:|---:|:---:|")


def _matrix_markdown(matrix: pd.DataFrame) -> str:
    head = [""] + [str(c) for c in matrix.columns]
    rows = [[str(i)] + [_num(float(v)) for v in matrix.loc[i]] for i in matrix.index]
    return _table(head, rows)


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------

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
                 topic: Optional[str] = None, pictures: bool = True, max_rel: int = 1) -> pd.DataFrame:
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
    :func:`holm`); ``topic`` the query of the CRP picture (default: the one whose Twist is nearest the
    median); ``pictures=False`` draws none. ``max_rel`` is the top of the qrels' grade scale (e.g. 3 for
    TREC DL), used by the graded measures of the default set and of the distance matrix.

    Returns the per-query values: a DataFrame indexed by (run, query_id) over the qrels' queries, one
    column per measure (every query has a value for every measure, as at every other door);
    ``attrs["files"]`` lists the files written (names inside ``out_dir``).

    Raises ParameterError for no run, an unknown ``baseline``, groups naming unknown runs, a bad
    measure, ``alpha`` outside (0, 1) or ``out_dir`` naming a file; FileNotFoundError for a missing run
    or groups file; MissingQrelsError without qrels; ReferenceNotFoundError for an unknown reference;
    the usual input errors for malformed files. Without matplotlib the report says which extra to
    install instead of drawing the pictures.
    """
    from . import references
    from .med import matrix_of, pairwise

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
    # 'others' refer to the report's runs while it runs (a registration they hide is restored after)
    claimed: set = set()
    ref_tag: Optional[str] = None
    ref_ranking: Optional[Ranking] = None
    if reference is not None:
        if isinstance(reference, str) and reference in references.registered_runs():
            ref_tag = reference
            claimed.add(ref_tag)
        elif isinstance(reference, (str, os.PathLike)):
            from .plots import run_name
            ref_ranking = references.resolve_run(os.fspath(reference), "reference")
            ref_tag = _free(run_name(reference), claimed)
        else:
            ref_ranking = to_ranking(reference, source="reference")
            ref_tag = _free("reference", claimed)
    base_tag = _free(baseline, claimed) if baseline is not None else None
    prior_tag = PRIOR_GROUP
    asked = measures if measures is not None else \
        default_measures(ref_tag, base_tag, prior_tag if len(names) > 1 else None, max_rel)
    columns = _parse_columns(asked, base_tag)
    wanted = {str(v) for c in columns for k, v in c.measure.params.items() if k in ("ref", "prior", "runs")}

    nrg_plot = _nrg_axes(columns) if len(names) > 1 else None
    # qrels, read and evaluate each run, [best of each group], [tests], [matrices and their two heat maps],
    # effort/gain, [NRG], CRP, report.md
    total = (1 + 2 * len(names) + (group_of is not None) + (baseline is not None) + (len(names) > 1)
             + pictures * (2 * (len(names) > 1) + 2 + (nrg_plot is not None)) + 1)
    step = _Steps(total, progress)

    saved: Dict[str, Optional[Ranking]] = {}
    saved_groups: Dict[str, Any] = {}
    try:
        # -- read
        step("reading the qrels" + (f" {os.fspath(qrels)}" if isinstance(qrels, (str, os.PathLike)) else ""))
        from .datasets import resolve_qrels
        q = resolve_qrels(qrels)
        if not len(q.qcodes):
            raise MissingQrelsError("qrels: no judgments")
        if topic is not None and pictures and str(topic) not in set(QUERY_IDS.decode(q.qcodes).astype(str).tolist()):
            raise ParameterError(f"topic={topic!r} is not a query of the qrels")
        rankings: Dict[str, Ranking] = {}
        for name, run in inputs.items():
            step(f"reading run {name}")
            rankings[name] = to_ranking(run, source=None if isinstance(run, (str, os.PathLike)) else f"run {name!r}")

        # -- register what the measures name
        if ref_ranking is not None and ref_tag is not None:
            _claim_run(saved, ref_tag, ref_ranking)
        if base_tag is not None and baseline is not None:
            _claim_run(saved, base_tag, rankings[baseline])
        for name in names:
            if name in wanted and name not in claimed:
                _claim_run(saved, name, rankings[name])
                claimed.add(name)
        best = None
        if group_of is not None:
            from .nrg import best_per_team
            step("NRG prior sets: the best run of every group by nDCG@10")
            best = best_per_team(rankings, group_of, q, "nDCG@10")
        if prior_tag not in saved_groups:
            saved_groups[prior_tag] = (references.resolve_runs(prior_tag)
                                       if prior_tag in references.registered_groups() else None)
        references.register_runs(prior_tag, rankings, teams=group_of, best=best)

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

        os.makedirs(out_dir, exist_ok=True)
        files: List[str] = []

        def path(name: str) -> str:
            files.append(name)
            return os.path.join(out_dir, name)

        per_query.reset_index().to_csv(path("per_query.tsv"), sep="\t", index=False)
        means.to_csv(path("means.tsv"), sep="\t", index=False)
        if sig is not None:
            sig.to_csv(path("significance.tsv"), sep="\t", index=False)

        matrices: Dict[str, pd.DataFrame] = {}
        if len(names) > 1:
            distances = _distances(max_rel)
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
                         prior_tag, columns, means, sig, matrices, drawn, notes, missing, alpha, permutations,
                         seed, measures is None, pictures)
        with open(path("report.md"), "w", encoding="utf-8") as f:
            f.write(text)
    finally:
        for name, previous in saved.items():
            if previous is None:
                references.unregister_run(name)
            else:
                references.register_run(name, previous)
        for name, group in saved_groups.items():
            if group is None:
                references.unregister_runs(name)
            else:
                references.register_runs(name, dict(group.runs), teams=group.team, best=group.best)
    per_query.attrs["files"] = sorted(files, key=lambda n: (n != "report.md", not n.endswith(".tsv"), files.index(n)))
    return per_query


def _draw_pictures(out_dir: str, step: "_Steps", q: Qrels, rankings: Dict[str, Ranking], names: List[str],
                   means: pd.DataFrame, matrices: Dict[str, pd.DataFrame], baseline: Optional[str],
                   group_of: Optional[Dict[str, str]], nrg_plot: Optional[Tuple[str, str]], topic: Optional[str],
                   drawn: List[Tuple[str, str]], notes: List[str], missing: List[str]) -> None:
    """Draw the pictures into ``out_dir``; append (file, caption) of each to ``drawn``, remarks to
    ``notes``, and the install hint to ``missing`` when matplotlib is not there (nothing more is tried)."""
    crp_run = baseline if baseline is not None else names[0]
    crp_topic = str(topic) if topic is not None else _typical_topic(q, rankings[crp_run])

    def draw(message: str, name: str, caption: str, make: Callable[[str], Any]) -> None:
        step(message)
        if missing:
            return
        try:
            fig = make(os.path.join(out_dir, name))
        except ImportError as e:
            if isinstance(e, RbstarError):
                raise
            missing.append(str(e))
            return
        if fig is not None:
            _close(fig)
            drawn.append((name, caption))

    def effort_gain(target: str):
        from .plots import plot_effort_gain
        try:
            fig, _ = plot_effort_gain(q, rankings, gain="AP", path=target)
        except RbstarError as e:
            notes.append(f"The effort/gain picture was not drawn: {e}")
            return None
        return fig

    draw("picture: Twist effort/gain (Twist against AP)", "effort_gain.png",
         "Effort/gain: Twist (x) against AP (y), one point per run and topic, on the 4 x 4 grid of "
         "Ferro et al. (Twist 0.25/0.5/0.75; AP quartiles), with the share of points per cell.", effort_gain)
    if nrg_plot is not None:
        x, y = nrg_plot

        def nrg(target: str):
            from .plots import plot_nrg
            table = means.pivot(index="run", columns="measure", values="mean").reindex(names)
            points = pd.DataFrame({"run": names, x: table[x].to_numpy(), y: table[y].to_numpy()})
            kind: Optional[str] = "group"
            highlight = None
            if group_of is not None:
                points["group"] = [group_of[n] for n in names]
            elif baseline is not None:
                points["group"] = ["baseline" if n == baseline else "run" for n in names]
                highlight = "baseline"
            else:
                kind = None
            return plot_nrg(points, x=x, y=y, group=kind, highlight=highlight, path=target)

        draw(f"picture: {y} against {x}", "nrg.png",
             f"`{y}` against `{x}`, one point per run: how much of a run's gain the "
             + ("best runs of the other groups" if group_of is not None else "other runs")
             + " had not already shown.", nrg)
    elif len(names) > 1:
        notes.append("No NRG picture: the measures hold no NRG@k (base nDCG or P) together with its base "
                     "measure nDCG@k or P@k.")
    if matrices:
        for key, _ in DISTANCES:
            matrix = matrices[key]
            label = matrix.attrs["distance"]

            def heat(target: str, matrix=matrix):
                from .plots import plot_distance_matrix
                return plot_distance_matrix(matrix, path=target)

            draw(f"picture: heat map of {label}", f"distance_{key}.png",
                 f"{label} between every pair of runs (mean over the queries).", heat)
    if crp_topic is not None:
        def crp(target: str):
            from .plots import plot_crp
            return plot_crp(q, rankings[crp_run], crp_topic, dcg=True, path=target,
                            title=f"{crp_run}, query {crp_topic}")

        draw(f"picture: CRP curve of {crp_run}, query {crp_topic}", "crp.png",
             f"CRP curve of {crp_run} on query {crp_topic}"
             + (" (its Twist is nearest the run's median Twist)" if topic is None else "")
             + ", with the ideal and full-scale runs, beside its cumulative DCG.", crp)
    else:
        step("picture: CRP curve")
        notes.append("The CRP picture was not drawn: no query has a relevant document.")


def _close(fig) -> None:
    if fig is None:
        return
    import matplotlib.pyplot as plt
    plt.close(fig)


def _nrg_axes(columns: List[Column]) -> Optional[Tuple[str, str]]:
    """(base measure label, NRG label) of the first NRG column whose base measure is also a column."""
    labels = {c.label for c in columns}
    for c in columns:
        if c.measure.NAME != "NRG" or c.complement:
            continue
        base, k = c.measure.params.get("base", "nDCG"), c.measure.params.get("cutoff")
        if base in ("nDCG", "P") and k is not None and f"{base}@{k}" in labels:
            return f"{base}@{k}", c.label
    return None


def _markdown(q: Qrels, qrels: Any, inputs: Dict[str, Any], names: List[str], answered: Dict[str, int],
              reference: Any, ref_tag: Optional[str], baseline: Optional[str], base_tag: Optional[str],
              group_of: Optional[Dict[str, str]], prior_tag: str, columns: List[Column], means: pd.DataFrame,
              sig: Optional[pd.DataFrame], matrices: Dict[str, pd.DataFrame], pictures: List[Tuple[str, str]],
              notes: List[str], missing: List[str], alpha: float, permutations: int, seed: int,
              defaults: bool, drawing: bool) -> str:
    from . import __version__
    nq = len(q.qcodes)
    relevant = int((q.grades >= 1).sum())
    out = ["# Evaluation report", ""]
    low, high = int(q.grades.min()), q.max_grade
    grades = f"grade {low}" if low == high else f"grades {low} to {high}"
    out.append(f"Made by ir_rbstar {__version__}. Qrels: {_describe(qrels)}: {nq:,} queries, {len(q.grades):,} "
               f"judgments ({grades}), {relevant:,} with grade >= 1.")
    out.append("")
    rows = []
    for n in names:
        role = "baseline" if n == baseline else ""
        if group_of is not None:
            role = (role + ", " if role else "") + f"group {group_of[n]}"
        rows.append([n, _describe(inputs[n]), str(answered[n]), role])
    out += [f"Runs ({len(names)}):", "", _table(["run", "from", "queries answered", ""], rows,
                                                 "|---|---|---:|---|"), ""]
    if reference is not None:
        out.append(f"Reference ranking of RBR, RBA and RBO: `{ref_tag}` ({_describe(reference)}).")
    else:
        out.append("No reference ranking (`--reference`): RBR, RBA and RBO are not among the default measures.")
    if baseline is not None:
        alias = f" (as `ref='{base_tag}'`)" if base_tag != baseline else ""
        out.append(f"Baseline: `{baseline}`{alias}.")
    else:
        out.append("No baseline (`--baseline`): no significance tests, and no distances to a baseline.")
    if len(names) > 1:
        if group_of is not None:
            out.append(f"NRG's prior set (`prior='{prior_tag}'`): for each run, the best run by nDCG@10 of every "
                       "other group.")
        else:
            out.append(f"NRG's prior set (`prior='{prior_tag}'`): for each run, all the other runs.")
    out.append("")

    out += ["## Measures", ""]
    if defaults:
        out += ["The default choice: the trec_eval staples nDCG@10 and P@10 (the first page), AP (the whole "
                "ranking) and R@100 (what a first stage hands to a re-ranker), with the tie-aware nDCG_TA@10, "
                "P_TA@10 and AP_TA next to them (the mean over every order of tied scores: a difference between "
                "the two columns is an artefact of trec_eval's tie-breaking by document id); RBP(p=0.8) with its "
                "residual, the room the unjudged documents leave; against the reference ranking, RBR(p=0.8)@20 "
                "(the top 20 as a candidate set for re-ranking) and RBA(p=0.9), RBO(p=0.9) (agreement of the "
                "whole ranking); Twist (the effort a ranking costs its reader); NRG@10 (the nDCG@10 of what the "
                "other runs had not already shown); against the baseline, MED_nDCG@10 (the largest nDCG@10 "
                "difference any relevance of the unjudged documents allows) and 1-RBO(p=0.9).", ""]
    rows = []
    for c in columns:
        about = _ABOUT.get(c.measure.NAME, "an ir_measures measure")
        if c.complement:
            about = f"1 - ({about}): a distance"
        better = {"higher": "higher", "lower": "lower", "": f"not ranked ({c.note})"}[c.better]
        rows.append([f"`{_cell(c.label)}`", _family(c.measure.NAME), about, better])
    out += [_table(["measure", "family", "what", "better"], rows, "|---|---|---|---|"), ""]

    out += ["## Means", "",
            f"Mean over the queries of the qrels ({nq:,}) that have a value; `(n=...)` where fewer queries have "
            "one (e.g. Twist has no value for a query without a relevant document).", "",
            _means_markdown(means, names, columns, baseline, nq, answered), ""]

    out += ["## Ranks", "", "Rank of each run by its mean (1 = best; equal means share the best rank). Residuals "
            "and measures against the baseline are not ranked.", "", _ranks_markdown(means, names, columns), ""]

    out += ["## Significance against the baseline", ""]
    if sig is None:
        out += ["No baseline was given (`--baseline NAME`).", ""]
    elif not len(sig):
        out += ["Nothing to test: the baseline is the only run, or no measure is ranked.", ""]
    else:
        m = int(sig["p"].notna().sum())
        out += [f"Paired two-sided randomization test (Fisher's sign-flip test; Smucker, Allan and Carterette, "
                f"CIKM 2007) of the per-query differences run - `{baseline}`: p is the share of the 2^n ways of "
                f"flipping the signs of the n differences whose |mean| is at least the observed one; all 2^n when "
                f"2^n <= {permutations:,}, otherwise {permutations:,} random ones (seed {seed}), p = (b + 1) / "
                f"({permutations:,} + 1). Holm-Bonferroni correction (Holm 1979) over all {m} comparisons "
                f"(every run but the baseline x every ranked measure); \u25b2 / \u25bc: significantly better / "
                f"worse than the baseline at \u03b1 = {alpha:g} after the correction. Only queries with a value "
                f"for both the run and the baseline are paired (the queries column).", "",
                _significance_markdown(sig), ""]

    if matrices:
        out += ["## Distances between the runs", ""]
        for key, _ in DISTANCES:
            matrix = matrices[key]
            judged = "; judged documents count with their grades" if matrix.attrs["measure"].startswith("MED") else ""
            out += [f"{matrix.attrs['distance']}, mean over the queries (rows: run, columns: the run it is "
                    f"compared with{judged}):", ""]
            out += [_matrix_markdown(matrix) if len(names) <= 12 else f"(in `distance_{key}.tsv`)", ""]

    out += ["## Pictures", ""]
    if not drawing:
        out += ["No pictures were asked for.", ""]
    if missing:
        out += [f"The pictures were not drawn: {missing[0]}.", ""]
    for name, caption in pictures:
        out += [f"![{name}]({name})", "", caption, ""]
    for note in notes:
        out += [note, ""]
    return "\n".join(out).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``ir-rbstar report``."""
    parser.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                        help="TREC qrels file (or ir_datasets id), then one or more TREC run files (named by "
                             "file name without .gz/.run/.txt)")
    parser.add_argument("--output", "-O", required=True, metavar="DIR",
                        help="folder to write report.md, the tables and the pictures into (created if needed)")
    parser.add_argument("--reference", "-r", metavar="REF",
                        help="reference ranking (run file) for RBR, RBA and RBO")
    parser.add_argument("--baseline", "-b", metavar="NAME",
                        help="the run the others are tested against (its name, i.e. file name without "
                             ".gz/.run/.txt, or its path)")
    parser.add_argument("--groups", "-g", metavar="FILE",
                        help="TSV file of run<TAB>group lines: NRG's prior set is then the best run of "
                             "every other group")
    parser.add_argument("--measures", "-m", metavar="MEASURES",
                        help="measures instead of the default set, e.g. \"nDCG@10 RBP(p=0.8) 1-RBO(p=0.9,ref='bm25')\"")
    parser.add_argument("--max-rel", dest="max_rel", type=int, default=1, metavar="G",
                        help="top of the qrels' grade scale for the graded measures (default 1; 3 for TREC DL)")
    parser.add_argument("--topic", metavar="QUERY", help="query of the CRP picture (default: a typical one)")
    parser.add_argument("--no-pictures", dest="pictures", action="store_false", help="draw no pictures")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS,
                        help=f"random sign flips per test (default {DEFAULT_PERMUTATIONS:,})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the sign flips")
    parser.add_argument("--demo", action="store_true",
                        help="the bundled Vaswani collection: its qrels, the four first-stage runs, "
                             "minilm_rerank as reference, bm25 as baseline")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--progress", action="store_true",
                        help="progress lines on stderr even when it is not a terminal (default: only on a terminal)")
    return parser


def _demo_inputs() -> Tuple[str, Dict[str, str], str, str]:
    from .demo import REFERENCE, data_dir, demo_runs
    runs = demo_runs()
    reference = runs.pop(REFERENCE)
    return os.path.join(data_dir(), "qrels"), runs, reference, "bm25"


def main(argv: Optional[List[str]] = None) -> int:
    """``ir-rbstar report ...``: write the report, print the files written (stdout) and the progress
    (stderr: on a terminal or with --progress, never with --quiet)."""
    parser = argparse.ArgumentParser(
        prog="ir-rbstar report",
        usage="%(prog)s QRELS RUN [RUN ...] --output DIR [options]\n       %(prog)s --demo --output DIR [options]",
        description="Evaluate runs with every measure family (ir_measures' and ir_rbstar's) and write a "
                    "Markdown report (means, ranks, significance against a baseline, distances) with "
                    "pictures into one folder.")
    args = add_arguments(parser).parse_args(argv)
    if args.demo:
        if args.inputs:
            raise ParameterError("--demo uses the bundled collection: give no QRELS or RUN")
        qrels, runs, reference, baseline = _demo_inputs()
        reference = args.reference or reference
        baseline = args.baseline or baseline
    else:
        if len(args.inputs) < 2:
            raise ParameterError("give QRELS and at least one RUN (or --demo)")
        qrels, runs = args.inputs[0], args.inputs[1:]
        reference, baseline = args.reference, args.baseline

    from .progress import reporter
    progress = reporter(False if args.quiet else (True if args.progress else None), prefix="ir-rbstar report")

    table = build_report(qrels, runs, args.output, reference=reference, baseline=baseline, groups=args.groups,
                         measures=args.measures, progress=progress, alpha=args.alpha,
                         permutations=args.permutations, seed=args.seed, topic=args.topic, pictures=args.pictures,
                         max_rel=args.max_rel)
    files = table.attrs["files"]
    print(f"{len(files)} files written to {args.output}:")
    for name in files:
        print(f"  {name}")
    return 0
