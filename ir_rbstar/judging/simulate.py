"""Simulating judging strategies with the real qrels as the oracle.

:func:`simulate` hides the judgments, lets each strategy choose documents round by round (``batch`` per
round) from the pool of the runs, reveals their true grades, and at every budget records, for each measure:

* ``tau_b``, ``tau_ap`` -- Kendall's tau-b and tau_AP (:func:`ir_rbstar.stats.ranking_agreement`) of the
  ranking of the runs by their mean against the ranking with every judgment of the qrels;
* ``verdicts_agree`` -- the share of the pairs of runs whose verdict (paired t test, Holm-corrected at
  ``alpha``, :func:`ir_rbstar.stats.all_pairs`: A better, B better, or no significant difference) is the
  one the full judgments give;
* ``robust_agree`` (RBP only) -- the share of the full judgments' significant verdicts already reached
  *robustly*: significant in the same direction at the point values and at both extreme completions of the
  residual bounds (as :mod:`ir_rbstar.stats.robust` defines them; Holm over the pairs for each completion);
* ``mean_residual`` (RBP only) -- the mean RBP_res over runs and queries.

A document the true qrels do not hold counts as **non-relevant** once revealed (grade 0), as in the
pooling literature (Losada et al. 2017; Moffat et al. 2007): the real qrels are the oracle. Every value at a
budget equals the package's evaluation with the revealed documents as qrels (tests/judging/test_replay.py).
The full-judgment values are the package's evaluation with the whole qrels. Deterministic for a ``seed``.
"""
from __future__ import annotations

import itertools
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..io import Ranking
from ..progress import Progress
from ..stats import all_pairs, ranking_agreement
from ..stats.paired import ttest_rel
from .pool import Pool, _as_rankings, build_pool, check_measure_scale, is_residual, measure_or_default, weights_of
from .evaluate import Judged, RevealedEvaluator
from .orders import check_names, order_positions, read_order, replay_order
from .prior import prior_gains
from .select import load_judgments, positive_int
from .strategies import STRATEGIES, choose

__all__ = ["simulate", "replay", "SIMULATION_COLUMNS", "needed", "full_values", "plot_simulation", "pool_budgets",
           "DEFAULT_FRACTIONS"]

#: the budgets :func:`simulate` records when none are given, as shares of the pool (:func:`pool_budgets`)
DEFAULT_FRACTIONS = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)

SIMULATION_COLUMNS = ("strategy", "budget", "judged", "measure", "tau_b", "tau_ap", "verdicts_agree",
                      "robust_agree", "mean_residual")


def pool_budgets(size: int, batch: int, fractions: Sequence[float] = DEFAULT_FRACTIONS) -> List[int]:
    """Budgets at the given shares of a pool of ``size`` candidates, each rounded to a whole number of rounds
    of ``batch`` documents (at least one round; the whole pool for 1.0), without repeats, ascending. Whole
    rounds keep every strategy's choices the same whatever budgets are recorded: a budget inside a round
    would split it. No budget for an empty pool."""
    if size <= 0:
        return []
    rounds = -(-size // batch)
    # (a share of 1 or more is every round: rounding 4.3 rounds to 4 would leave part of the pool unjudged)
    return sorted({batch * (rounds if f >= 1 else min(rounds, max(1, int(round(f * size / batch)))))
                   for f in fractions})


def _residual_text(measure: str) -> Optional[str]:
    w = weights_of(measure)
    if w.name != "RBP":
        return None
    return f"RBP_res(p={w.p})" + (f"@{w.cutoff}" if w.cutoff is not None else "")


def _trimmed(run: Ranking, qcodes: np.ndarray, depth: Optional[int]) -> Ranking:
    """The rows of ``run`` in the queries ``qcodes`` with rank <= ``depth`` (all ranks for None), in the same
    order: what a measure with cutoff ``depth`` reads of it."""
    from ..io import ranking_frame, to_ranking
    keep = np.isin(run.row_queries(), qcodes)
    if depth is not None:
        keep &= run.row_ranks() <= depth
    if keep.all():
        return run
    frame = ranking_frame(run)[keep]
    return to_ranking(frame.reset_index(drop=True), source=run.source)


def full_values(qrels, runs: Dict[str, Ranking], measures: Sequence[str], pool: Pool) -> Dict[str, np.ndarray]:
    """{measure: runs x queries} in the pool's order (``pool.runs``, looked up by name in ``runs``, whatever
    order they come in; ``pool.queries``) by the package's own evaluation with the whole qrels (0 where a run
    does not answer a query). Measures with a cutoff read the runs' top k only (the same values, less work)."""
    from ..io import QUERY_IDS
    from ..parsing import parse_measure
    from ..provider import iter_calc_columnar
    queries = pool.queries
    where = {q: i for i, q in enumerate(queries)}
    qcodes = QUERY_IDS.encode(list(queries))
    out = {m: np.zeros((len(pool.runs), len(queries))) for m in measures}
    for m in measures:
        pm = parse_measure(m)
        cutoff = weights_of(m).cutoff
        for r, name in enumerate(pool.runs):
            for metric in iter_calc_columnar([pm], qrels, _trimmed(runs[name], qcodes, cutoff)):
                if metric.query_id in where:
                    out[m][r, where[metric.query_id]] = metric.value
    return out


def holm(pvalues: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's (1979) step-down rejections at level ``alpha``: the report's numpy Holm
    (:func:`ir_rbstar.report.stats.holm`, tested equal to statsmodels'), whose adjusted p-values are compared
    with ``alpha`` (statsmodels' ``multipletests`` runs ``gc.collect()`` on every call; a simulation makes
    thousands)."""
    from ..report.stats import holm as adjusted
    return adjusted(np.asarray(pvalues, dtype=np.float64)) <= alpha


def _verdicts(values: np.ndarray, runs: List[str], alpha: float) -> np.ndarray:
    frame = pd.DataFrame(values, index=runs)
    table = all_pairs(frame, alpha=alpha, effect_ci=None, correction=None)
    p = np.where(np.isnan(table["pvalue"].to_numpy(float)), 1.0, table["pvalue"].to_numpy(float))
    return np.where(holm(p, alpha), np.sign(table["difference"].to_numpy(float)), 0.0)


def _robust_verdicts(low: np.ndarray, high: np.ndarray, alpha: float) -> np.ndarray:
    a, b = (np.array(x, dtype=np.int64) for x in zip(*itertools.combinations(range(len(low)), 2), strict=True))
    sig = []
    for xa, xb in ((low[a], low[b]), (low[a], high[b]), (high[a], low[b])):
        d = xa - xb
        with np.errstate(invalid="ignore", divide="ignore"):
            p = ttest_rel(xa, xb, axis=1)[1]
        p = np.where(np.isnan(p), 1.0, p)
        reject = holm(p, alpha)
        sig.append(np.where(reject, np.sign(d.mean(axis=1)), 0.0))
    s = np.stack(sig)
    return np.where((s == s[0]).all(axis=0), s[0], 0.0)


def replay(pool: Pool, grades: np.ndarray, strategy: str, budgets: Sequence[int], batch: int,
           seed: int = 0, prior: Optional[np.ndarray] = None) -> Iterator[Tuple[int, np.ndarray]]:
    """(budget, revealed mask) at every budget (ascending) of ``strategy`` run round by round from no
    judgment, each round revealing the true ``grades`` of the ``batch`` documents it chose; ``prior``
    (expected gains per candidate, NaN where unknown) as :func:`~ir_rbstar.judging.strategies.choose` takes it."""
    rng = np.random.default_rng(seed)
    revealed = np.zeros(pool.n_candidates, dtype=bool)
    for budget in budgets:
        if budget >= pool.n_candidates:
            # the whole pool, in whatever order it is judged: the rounds that would get there (a quarter of the
            # default grid's, from 75% of the pool) change nothing recorded; every strategy reveals it all
            revealed[:] = True
        while int(revealed.sum()) < min(budget, pool.n_candidates):
            pick = choose(pool, revealed, grades, strategy, min(batch, budget - int(revealed.sum())), rng=rng,
                          explain=False, prior=prior)
            if len(pick.index) == 0:
                break
            revealed[pick.index] = True
        yield budget, revealed.copy()


def simulate(qrels: Any, runs: Any, measures: Optional[Sequence[str]] = None, strategies: Sequence[str] = STRATEGIES,
             budgets: Optional[Sequence[int]] = None, batch: Optional[int] = None,
             select_measure: Optional[str] = None, depth: Optional[int] = None, seed: int = 0,
             alpha: float = 0.05, progress: Optional[Progress] = None, prior: Any = None,
             orders: Optional[Mapping[str, Any]] = None) -> pd.DataFrame:
    """Replay ``strategies`` with ``qrels`` as the oracle; one row per strategy, budget and measure
    (:data:`SIMULATION_COLUMNS`). ``measures`` default to ``RBP(p=0.8)`` with ``max_rel`` the highest grade of
    ``qrels`` (``RBP(p=0.8,max_rel=3)`` on TREC DL). ``select_measure`` (default: the first of ``measures``)
    gives the pool and the weights the strategies use; ``batch`` documents per round (default: one per query of the
    qrels). ``budgets``: the numbers of judgments at which to record (default: 2%, 5%, 10%, 20%, 30%, 50%, 75%
    and 100% of the pool, each a whole number of rounds, :func:`pool_budgets`). ``judged`` is the number of
    documents revealed (less than ``budget`` once the pool is exhausted).
    ``prior`` (auxiliary qrels or probabilities of relevance, :mod:`ir_rbstar.judging.prior`) guides the
    goals as in :func:`~ir_rbstar.judging.select`; the oracle stays ``qrels``. ``progress``: a
    ``progress(step, total, message)`` callable (:mod:`ir_rbstar.progress`; ``ir-rbstar simulate-judging``
    makes one, on a terminal or with ``--progress``), called once per strategy and budget evaluated: a
    simulation of many strategies, budgets and small rounds can take minutes. ``orders``: judging orders made
    elsewhere, name -> an order (:mod:`ir_rbstar.judging.orders`: a DataFrame or file of query and document
    ids in the order they are judged), replayed after the strategies under the same protocol, their first
    ``budget`` documents judged at each budget; their rows carry the name as ``strategy``, and ``judged``
    counts every document of the order judged, in the pool or not."""
    oracle = load_judgments(qrels)
    if oracle is None or len(oracle.grades) == 0:
        raise ParameterError("qrels: a simulation needs the real judgments as its oracle")
    measures = [str(m) for m in measures] if measures is not None else [measure_or_default(None, oracle, qrels)]
    if not measures:
        raise ParameterError("measures: give at least one measure")
    for s in strategies:
        if s not in STRATEGIES:
            raise ParameterError(f"strategies: unknown strategy {s!r}; one of {', '.join(STRATEGIES)}")
    if budgets is not None:
        budgets = sorted({int(positive_int(b, "budgets") or 0) for b in budgets})
        if not budgets:
            raise ParameterError("budgets: give at least one budget (or none for the default grid)")
    orders = dict(orders or {})
    check_names(orders, STRATEGIES)
    order_pairs = {name: read_order(order, name)[0] for name, order in orders.items()}
    rankings = _as_rankings(runs)
    if len(rankings) < 2:
        raise ParameterError("runs: a simulation compares at least 2 runs")
    from ..io import QUERY_IDS
    pool = build_pool(rankings, select_measure or measures[0], queries=list(QUERY_IDS.decode(oracle.qcodes)),
                      depth=depth)
    # the grade scale of the measure choosing and of those evaluated (a residual reads no grade); the
    # evaluator takes the grades as given
    graded = [m for m in measures if not is_residual(m)]
    for m in dict.fromkeys([select_measure or measures[0], *graded]):
        check_measure_scale(weights_of(m), oracle, m)
    batch = positive_int(batch, "batch", allow_none=True) or len(pool.queries)
    if budgets is None:
        budgets = pool_budgets(pool.n_candidates, batch)
    grades, in_qrels = pool.lookup(oracle)
    grades = np.where(in_qrels, grades, 0)
    expected = prior_gains(pool, prior, oracle)
    extra = [r for r in (_residual_text(m) for m in measures) if r is not None and r not in measures]
    evaluator = RevealedEvaluator(pool, rankings, measures + extra, grades)
    full = full_values(oracle, rankings, measures, pool)
    full_mean = {m: full[m].mean(axis=1) for m in measures}
    full_verdict = {m: _verdicts(full[m], pool.runs, alpha) for m in measures}
    rows = []
    total, step = (len(strategies) + len(orders)) * len(budgets), 0
    runs_of: List[Tuple[str, Optional[Judged], Iterator[Tuple[int, np.ndarray, int, Optional[np.ndarray]]]]] = [
        (s, None, ((b, r, int(r.sum()), None) for b, r in replay(pool, grades, s, budgets, batch, seed, expected)))
        for s in strategies]
    for name, pairs in order_pairs.items():
        positions, outside = order_positions(pool, pairs)
        if len(pairs) and not (positions >= 0).any():
            # (most likely ids of another form: every judgment would change nothing, a flat curve)
            raise ParameterError(f"orders[{name!r}]: none of its {len(pairs)} documents is in the pool (the "
                                 f"documents the runs rank within the measure's depth for the queries of the "
                                 f"qrels); are its query and document ids those of the runs?")
        # its documents outside the pool are judged too: a run may rank one deeper, and nDCG's ideal counts it
        truth, _ = oracle.lookup(pool.qcodes[outside.query], outside.dhash, outside.dbytes)
        judged_outside = evaluator.judged(outside.query, outside.dhash, outside.dbytes, truth)
        runs_of.append((name, judged_outside, replay_order(pool, positions, outside, len(pairs), budgets)))
    for strategy, outside_judged, trajectory in runs_of:
        for budget, revealed, judged, shown in trajectory:
            step += 1
            values = evaluator.values(revealed, outside_judged, shown)
            for m in measures:
                v = values[m]
                agree = ranking_agreement(pd.Series(full_mean[m], index=pool.runs),
                                          pd.Series(v.mean(axis=1), index=pool.runs))
                verdict = _verdicts(v, pool.runs, alpha)
                res = _residual_text(m)
                robust = mean_res = float("nan")
                if res is not None:
                    mean_res = float(values[res].mean())
                    rv = _robust_verdicts(v, v + values[res], alpha)
                    sig = full_verdict[m] != 0
                    robust = float((rv[sig] == full_verdict[m][sig]).mean()) if sig.any() else float("nan")
                rows.append((strategy, budget, judged, m, agree.tau_b, agree.tau_ap,
                             float((verdict == full_verdict[m]).mean()), robust, mean_res))
            if progress is not None:
                progress(step, total, f"{strategy}: budget {budget}, {judged} judged")
    return pd.DataFrame(rows, columns=list(SIMULATION_COLUMNS))


def needed(table: pd.DataFrame, tau: float = 0.9, verdicts: float = 0.95) -> pd.DataFrame:
    """The smallest budget from which on each strategy stays at tau_b >= ``tau`` (and, separately, at
    verdicts_agree >= ``verdicts``), per measure; NaN when no budget of the table reaches it."""
    out = []
    for (m, s), g in table.groupby(["measure", "strategy"], sort=False):
        g = g.sort_values("budget")
        row = {"measure": m, "strategy": s}
        for col, target in (("tau_b", tau), ("verdicts_agree", verdicts)):
            ok = (g[col].to_numpy() >= target)
            tail_ok = np.flip(np.cumprod(np.flip(ok))).astype(bool)
            row[f"{col}>={target:g}"] = float(g["judged"].to_numpy()[tail_ok][0]) if tail_ok.any() else float("nan")
        out.append(row)
    return pd.DataFrame(out)


def plot_simulation(table: pd.DataFrame, path: Optional[str] = None):
    """Curves of tau_b, verdicts_agree and mean_residual against the judgments made, one line per
    strategy, one row of panels per measure (matplotlib). Returns the figure; saved to ``path`` if given."""
    import matplotlib
    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    measures = list(dict.fromkeys(table["measure"]))
    cols = ["tau_b", "verdicts_agree", "mean_residual"]
    fig, axes = plt.subplots(len(measures), len(cols), figsize=(4 * len(cols), 3 * len(measures)), squeeze=False)
    for i, m in enumerate(measures):
        sub = table[table["measure"] == m]
        for j, col in enumerate(cols):
            ax = axes[i][j]
            if sub[col].isna().all():
                ax.axis("off")
                ax.text(0.5, 0.5, f"{m}: no {col}", ha="center", va="center", fontsize=9)
                continue
            for s, g in sub.groupby("strategy", sort=False):
                ax.plot(g["judged"], g[col], marker=".", label=s)
            ax.set_title(f"{m}: {col}", fontsize=9)
            ax.set_xlabel("judgments")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig
