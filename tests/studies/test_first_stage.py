"""First-stage evaluation with RBR (section 3 of Moffat et al., SIGIR-AP 2024): the Pareto frontier
(ir_rbstar.plots.pareto_frontier) against a brute-force dominance check, the pictures plot_rbr_cost and
plot_rbr_bounds, the selection of Recall(B | R_k) observations of examples/first_stage_rbr.py on a
hand-made example, base <= full <= base + residual on random inputs, docs/first_stage.md (its examples
print what they show), and on the real DL19 data (skipped without ../shared/data) the script's --check
and numbers recomputed from the run files in plain Python."""
import functools
import gzip
import importlib
import itertools
import re
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples

pytest.importorskip("matplotlib")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import ir_rbstar  # noqa: E402
from ir_rbstar import plots  # noqa: E402
from ir_rbstar.errors import ParameterError  # noqa: E402
from tests.helpers import REPO, expected_python_output, names_command, shared_data  # noqa: E402

DOC = REPO / "docs" / "first_stage.md"
TOL = 1e-12


fs = importlib.import_module("examples.first_stage_rbr")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------------------------------------
# the Pareto frontier

def _dominates(cj, vj, ci, vi):
    return cj <= ci and vj >= vi and (cj < ci or vj > vi)


values_ = st.one_of(st.integers(0, 6).map(float), st.floats(0.0, 1.0, allow_nan=False))
points_ = st.lists(st.tuples(values_, values_), max_size=40)


@settings(max_examples=examples(300))
@given(points_)
def test_pareto_frontier_is_the_set_of_undominated_points(points):
    cost = [c for c, _ in points]
    value = [v for _, v in points]
    on = plots.pareto_frontier(cost, value)
    assert on.dtype == bool and on.shape == (len(points),)
    for i, (ci, vi) in enumerate(points):
        dominated = any(_dominates(cj, vj, ci, vi) for cj, vj in points)
        if on[i]:                                    # no frontier point is dominated
            assert not dominated, (i, points)
        else:                                        # every other point is dominated by a frontier point
            assert any(on[j] and _dominates(points[j][0], points[j][1], ci, vi) for j in range(len(points))), \
                (i, points)
    if points:
        assert on.any()                              # the cheapest best point is always on it


@settings(max_examples=examples(100))
@given(points_, st.randoms(use_true_random=False))
def test_pareto_frontier_does_not_depend_on_the_order_of_the_points(points, rnd):
    order = list(range(len(points)))
    rnd.shuffle(order)
    on = plots.pareto_frontier([c for c, _ in points], [v for _, v in points])
    shuffled = plots.pareto_frontier([points[i][0] for i in order], [points[i][1] for i in order])
    assert shuffled.tolist() == on[order].tolist()


def test_pareto_frontier_by_hand():
    # (10, .5) is beaten by (10, .6); (20, .6) is not better than (10, .6); (30, .6) neither; the two
    # equal points (40, .9) are both on it
    on = plots.pareto_frontier([10, 10, 20, 30, 40, 40, 50], [0.5, 0.6, 0.6, 0.6, 0.9, 0.9, 0.8])
    assert on.tolist() == [False, True, False, False, True, True, False]
    assert plots.pareto_frontier([], []).tolist() == []


@pytest.mark.parametrize("cost, value, match", [
    ([1, 2], [0.5], "2 costs but 1 values"),
    ([1, float("nan")], [0.5, 0.6], "cost: item 1"),
    ([1, 2], [0.5, float("inf")], "value: item 1"),
    ([[1, 2]], [[0.5, 0.6]], "one-dimensional"),
    (["a", "b"], [0.5, 0.6], "give numbers"),
])
def test_pareto_frontier_rejects_bad_input(cost, value, match):
    with pytest.raises(ParameterError, match=match):
        plots.pareto_frontier(cost, value)


# ---------------------------------------------------------------------------------------------
# the pictures

def _cost_table():
    return pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
                         "cost": [5, 10, 100, 1000] * 3,
                         "rbr": [0.30, 0.40, 0.70, 0.90, 0.35, 0.45, 0.65, 0.95, 0.10, 0.20, 0.30, 0.40]})


def test_plot_rbr_cost_lines_and_frontier_points(tmp_path):
    table = _cost_table()
    path = tmp_path / "cost.png"
    fig = plots.plot_rbr_cost(table, path=path, title="t")
    ax = fig.axes[0]
    assert len(ax.lines) == 3 + 1                                # one per system, then the frontier
    for line, name in zip(ax.lines, ["a", "b", "c"]):
        assert line.get_label() == name
        mine = table[table["system"] == name]
        assert line.get_xdata().tolist() == mine["cost"].tolist()
        assert np.allclose(line.get_ydata(), mine["rbr"].to_numpy())
    # frontier by hand: b@5 .35, b@10 .45, a@100 .70, b@1000 .95
    front = ax.collections[0].get_offsets()
    assert sorted(map(tuple, np.asarray(front).tolist())) == [(5, 0.35), (10, 0.45), (100, 0.70), (1000, 0.95)]
    assert ax.lines[-1].get_label().startswith("Pareto frontier (4 of 12")
    assert ax.get_xscale() == "log" and ax.get_title() == "t"
    assert path.stat().st_size > 5_000


def test_plot_rbr_cost_into_given_axes_linear_scale():
    fig, axes = plt.subplots(1, 2)
    out = plots.plot_rbr_cost(_cost_table().rename(columns={"cost": "k"}), cost="k", ax=axes[1], logx=False)
    assert out is fig and len(axes[1].lines) == 4 and len(axes[0].lines) == 0
    assert axes[1].get_xscale() == "linear" and axes[1].get_xlabel() == "k"


@pytest.mark.parametrize("change, match", [
    (lambda t: t.drop(columns="rbr"), "rbr='rbr'"),
    (lambda t: t.assign(rbr=np.nan), "no finite value"),
    (lambda t: t.iloc[:0], "empty"),
    (lambda t: {"x": 1}, "DataFrame"),
])
def test_plot_rbr_cost_errors(change, match):
    with pytest.raises(ParameterError, match=match):
        plots.plot_rbr_cost(change(_cost_table()))
    with pytest.raises(ParameterError, match="unsupported file extension"):
        plots.plot_rbr_cost(_cost_table(), path="x.jpg")


def test_plot_rbr_bounds_orders_by_base_then_full(tmp_path):
    obs = pd.DataFrame({"base": [0.5, 0.4, 0.5, 0.4], "residual": [0.1, 0.2, 0.1, 0.2],
                        "full": [0.58, 0.45, 0.52, 0.41]})
    fig = plots.plot_rbr_bounds(obs, best=0.65, path=tmp_path / "b.svg")
    lines = {line.get_label(): line for line in fig.axes[0].lines}
    assert list(lines) == ["base + residual", "full", "base", "best attainable"]
    assert lines["base"].get_ydata().tolist() == [0.4, 0.4, 0.5, 0.5]
    assert lines["full"].get_ydata().tolist() == [0.41, 0.45, 0.52, 0.58]
    assert np.allclose(lines["base + residual"].get_ydata(), [0.6, 0.6, 0.6, 0.6])
    assert lines["best attainable"].get_ydata()[0] == 0.65
    assert (tmp_path / "b.svg").read_text().startswith("<?xml")
    assert len(plots.plot_rbr_bounds(obs).axes[0].lines) == 3
    with pytest.raises(ParameterError, match="best"):
        plots.plot_rbr_bounds(obs, best=float("nan"))


# ---------------------------------------------------------------------------------------------
# the selection of observations (examples/first_stage_rbr.py), by hand

def _frame(rankings):
    """{query: [doc, ...] or {doc: score}} -> a run DataFrame (lists get scores n, n-1, ...)."""
    rows = []
    for q, docs in rankings.items():
        scored = docs if isinstance(docs, dict) else {d: float(len(docs) - i) for i, d in enumerate(docs)}
        rows += [(q, d, float(s)) for d, s in scored.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _weights(p, n):
    return {i: (1 - p) * p ** (i - 1) for i in range(1, n + 1)}


def test_observations_by_hand():
    p, k, kp = 0.8, 4, 6
    a = [f"a{i:02d}" for i in range(1, 13)]
    b = [f"b{i:02d}" for i in range(1, 13)]
    reference = _frame({
        "q1": a, "q2": b,
        "q3": ["c1", "c2", "c3"],                                            # too short: left out
        "q4": {f"d{i:02d}": s for i, s in enumerate([10, 9, 8, 7, 7, 5, 4], start=1)},   # tie at ranks 4/5
    })
    runs = {
        "x": _frame({"q1": [a[0], a[2], a[3], a[4], a[5], a[6]],             # misses R2: 3 hits
                     "q2": [b[0], b[1], b[2], b[3], "z1", "z2"],             # 4 hits
                     "q3": ["c1", "c2", "c3", "n1", "n2", "n3"], "q4": [f"d{i:02d}" for i in range(1, 7)]}),
        "y": _frame({"q1": [a[0], a[1], a[2], "n1", "n2", "n3"],             # misses R4: 3 hits
                     "q2": [b[0], b[1], "n1", "n2", "n3", "n4"]}),           # 2 hits
        # tie at ranks 6 and 7: doc id descending puts n9 before a04, so a04 is not in the top 6
        "z": _frame({"q1": {a[0]: 10, a[1]: 9, a[2]: 8, "n1": 7, "n2": 6, a[3]: 5, "n9": 5},
                     "q2": [b[0], b[1], b[2], b[3], b[4]]}),                 # 5 documents: too short
    }
    obs = fs.observations(runs, reference, p=p, k=k, k_prime=kp)
    assert obs.attrs["dropped"] == {"q3": "only 3 reference documents", "q4": "tied reference scores at ranks 4 and 5"}
    assert obs.attrs["short"] == 1
    got = {(r.system, r.query_id): (r.hits, r.missed_ranks) for r in obs.itertuples()}
    assert got == {("x", "q1"): (3, "2"), ("x", "q2"): (4, ""), ("y", "q1"): (3, "4"), ("y", "q2"): (2, "3,4"),
                   ("z", "q1"): (3, "4")}
    three = fs.select(obs, 3)
    assert sorted(zip(three["system"], three["query_id"])) == [("x", "q1"), ("y", "q1"), ("z", "q1")]
    assert np.allclose(three["recall"], 0.75)
    # the values, from the definition: the weights of the reference ranks B holds
    w = _weights(p, 12)
    ranks = {("x", "q1"): [1, 3, 4, 5, 6, 7], ("y", "q1"): [1, 2, 3], ("z", "q1"): [1, 2, 3]}
    for (system, q), held in ranks.items():
        row = obs[(obs["system"] == system) & (obs["query_id"] == q)].iloc[0]
        assert row["base"] == pytest.approx(sum(w[i] for i in held if i <= k), abs=TOL)
        assert row["full"] == pytest.approx(sum(w[i] for i in held), abs=TOL)
        assert row["base_res"] == pytest.approx(p ** k * (1 - p ** (kp - 3)), abs=TOL)
    # (x, q1) holds R1, R3, R4 and R5..R7: the top of its band, base + residual exactly; but it misses R2,
    # so it stays below the best a set of 6 with 3 of R's top 4 can do (miss R4, hold R5..R7)
    row = obs[(obs["system"] == "x") & (obs["query_id"] == "q1")].iloc[0]
    assert row["full"] == pytest.approx(row["base"] + row["base_res"], abs=TOL)
    assert fs.best_attainable(p, k, kp, 3) == pytest.approx(sum(w[i] for i in (1, 2, 3, 5, 6, 7)), abs=TOL)
    assert row["full"] < fs.best_attainable(p, k, kp, 3) - 0.01
    assert fs.bound_violations(obs) == {"base > full": 0, "full + full_res > base + base_res": 0}
    assert not any(n.startswith("first_stage_rbr") for n in ir_rbstar.registered_runs())     # cleaned up


@pytest.mark.parametrize("k, kp, hits", [(4, 6, 2), (4, 6, 3), (5, 7, 4), (3, 5, 1)])
def test_best_attainable_by_brute_force(k, kp, hits):
    p, n = 0.8, 12
    w = _weights(p, n)
    best = max(sum(w[i] for i in inside) + sum(w[i] for i in outside)
               for inside in itertools.combinations(range(1, k + 1), hits)
               for outside in itertools.combinations(range(k + 1, n + 1), kp - hits))
    assert fs.best_attainable(p, k, kp, hits) == pytest.approx(best, abs=TOL)


def test_missed_label():
    assert fs.missed_label(0b11) == "1,2" and fs.missed_label(0b1100000000) == "9,10" and fs.missed_label(0) == ""


@st.composite
def _case(draw):
    """A reference of 6-25 documents (scores from a small range: ties) and three runs mixing reference
    documents with documents the reference does not have."""
    n = draw(st.integers(6, 25))
    scores = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    reference = {"q": {f"r{i}": float(s) for i, s in enumerate(scores)}}
    runs = {}
    for j in range(3):
        docs = draw(st.lists(st.sampled_from([f"r{i}" for i in range(n)] + [f"x{i}" for i in range(8)]),
                             min_size=8, max_size=16, unique=True))
        run_scores = draw(st.lists(st.integers(0, 9), min_size=len(docs), max_size=len(docs)))
        runs[f"run{j}"] = _frame({"q": dict(zip(docs, map(float, run_scores)))})
    return _frame(reference), runs, draw(st.sampled_from([0.5, 0.8, 0.95]))


@settings(max_examples=examples(60))
@given(_case())
def test_full_lies_between_base_and_base_plus_residual(case):
    reference, runs, p = case
    k, kp = 4, 8
    obs = fs.observations(runs, reference, p=p, k=k, k_prime=kp)
    if not len(obs):                       # the reference had a tie across rank 4
        assert obs.attrs["dropped"] == {"q": "tied reference scores at ranks 4 and 5"}
        return
    assert (obs["base"] <= obs["full"] + TOL).all()
    assert (obs["full"] <= obs["base"] + obs["base_res"] + TOL).all()
    assert (obs["full"] + obs["full_res"] <= obs["base"] + obs["base_res"] + TOL).all()
    assert fs.bound_violations(obs) == {"base > full": 0, "full + full_res > base + base_res": 0}
    # the hits, counted from the definition: the top 4 of the reference, the top 8 of the run
    ref = sorted(((s, d) for d, s in zip(reference["doc_id"], reference["score"])), reverse=True)
    top_ref = {d for _, d in ref[:k]}
    for r in obs.itertuples():
        run = runs[r.system]
        top = {d for _, d in sorted(zip(run["score"], run["doc_id"]), reverse=True)[:kp]}
        assert r.hits == len(top & top_ref)


# ---------------------------------------------------------------------------------------------
# docs/first_stage.md

def test_doc_first_example_from_the_definition():
    """The three sets of the first example, scored by eq. 8 and eq. 9 in plain Python."""
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)[0]
    printed = {line[:20].strip(): [float(x) for x in line[20:].strip(" []").split(",")]
               for line in expected_python_output(code)}
    p = 0.8
    rank = {f"r{i}": i for i in range(1, 31)}
    sets = {"misses r1, r2": [f"r{i}" for i in range(3, 23)],
            "misses r9, r10": [f"r{i}" for i in [*range(1, 9), *range(11, 23)]],
            "misses r9, r10, far": [f"r{i}" for i in range(1, 9)] + [f"x{i}" for i in range(12)]}
    for name, docs in sets.items():
        in10 = [rank[d] for d in docs if rank.get(d, 99) <= 10]
        b = len(docs) - len(in10)
        expected = [len(in10) / 10, sum((1 - p) * p ** (i - 1) for i in in10),
                    (1 - p) / p * sum(p ** (10 + i) for i in range(1, b + 1)),
                    sum((1 - p) * p ** (rank[d] - 1) for d in docs if d in rank)]
        assert printed[name] == [round(x, 4) for x in expected], name


def test_doc_structure():
    text = DOC.read_text()
    fs.generated_block(text)                  # exactly one pair of markers, in order
    assert names_command(text, "examples.first_stage_rbr")
    for name in fs.PICTURES:
        assert f"](img/{name})" in text and (DOC.parent / "img" / name).stat().st_size > 10_000
    assert "### What reproduces and what does not" in text


def test_replace_block():
    doc = f"intro\n{fs.START}\nold\n{fs.END}\noutro\n"
    new = fs.replace_block(doc, "| a |")
    assert fs.generated_block(new) == "| a |" and new.startswith("intro\n") and new.endswith("outro\n")


# ---------------------------------------------------------------------------------------------
# real data (skips without ../shared/data)

@functools.cache
def _read(path, queries=None):
    """{query: {doc: score}} from a TREC run file, in plain Python, of the queries in ``queries`` (a
    frozenset; None: all). Each file is read once per module: the tests below share the reference and
    some runs, and do not change what they get."""
    out = defaultdict(dict)
    with gzip.open(path, "rt") as f:
        for line in f:
            q, rest = line.split(None, 1)
            if queries is None or q in queries:
                _, d, _, s, *_ = rest.split()
                out[q][d] = float(s)
    return out


def _ranked(docs):
    """Doc ids by score descending, ties by doc id descending (trec_eval's order)."""
    return [d for s, d in sorted(((s, d) for d, s in docs.items()), reverse=True)]


def _rbr(top, reference, p):
    """Eq. 8 with tie sharing: each document of ``top`` gets the mean weight of its reference score group.
    ``top``: the documents of B, or {document: the chance that it is in B}."""
    ranks = defaultdict(list)
    for i, d in enumerate(_ranked(reference), start=1):
        ranks[reference[d]].append(i)
    weight = {d: sum((1 - p) * p ** (i - 1) for i in ranks[s]) / len(ranks[s]) for d, s in reference.items()}
    shares = top if isinstance(top, dict) else dict.fromkeys(top, 1.0)
    return sum(share * weight.get(d, 0.0) for d, share in shares.items())


def _top_shares(docs, k):
    """{document: the chance that it is among the run's top k} when the run's ties (scores equal in single
    precision) come in a uniformly random order: 1 above a tie group that straddles k, (k - s) / g in it."""
    groups = defaultdict(list)
    for d, s in docs.items():
        groups[float(np.float32(s))].append(d)
    shares, start = {}, 0
    for score in sorted(groups, reverse=True):
        if start >= k:
            break
        group = groups[score]
        shares.update(dict.fromkeys(group, min(len(group), k - start) / len(group)))
        start += len(group)
    return shares


@pytest.fixture(scope="module")
def dl19():
    shared_data(fs.QRELS)
    shared_data(fs.REFERENCE)
    return fs.compute(shared_data())


def test_script_check_says_the_doc_is_current(dl19, monkeypatch, capsys, tmp_path):
    """``--check`` (the script's own path: data present, bounds, block compared); the computation is the
    fixture's, made by the same ``compute``, so it is not repeated. A stale copy of the page fails (the
    block it is compared with is the first call's: ``report`` of the same inputs, not made again)."""
    monkeypatch.setattr(fs, "compute", lambda data_dir: dl19)
    made = []
    real_report = fs.report

    def report_once(*inputs):
        if not made:
            made.append(real_report(*inputs))
        return made[0]

    monkeypatch.setattr(fs, "report", report_once)
    assert fs.main(["--check"]) == 0, "docs/first_stage.md is stale: run  python -m examples.first_stage_rbr --write"
    assert "is current" in capsys.readouterr().err
    stale = tmp_path / "first_stage.md"
    stale.write_text(DOC.read_text().replace("| `splade` |", "| `splade (old)` |", 1))
    assert fs.main(["--check", "--doc", str(stale)]) == 1
    assert "is stale" in capsys.readouterr().err


def test_mean_rbr_at_20_from_the_run_files(dl19):
    """splade's and bm25base_p's mean RBR(p)@20 over the 43 queries, recomputed from the files (a tie group
    of the run that straddles rank 20 puts each member in the top 20 with its probability)."""
    _, _, table = dl19
    reference = _read(shared_data(fs.REFERENCE))
    assert len(reference) == 43
    block = fs.generated_block(DOC.read_text())
    for name, path in (("splade", fs.POOL_ORDERINGS["splade"]), ("bm25base_p", f"{fs.RUNS}/bm25base_p.gz")):
        run = _read(shared_data(path), frozenset(reference))
        for p in (0.8, 0.95):
            values = [_rbr(_top_shares(run.get(q, {}), 20), reference[q], p) for q in reference]
            mean = sum(values) / len(values)
            got = table[(table["system"] == name) & (table["p"] == p) & (table["k"] == 20)]["rbr"]
            assert len(got) == 1 and float(got.iloc[0]) == pytest.approx(mean, abs=1e-9), (name, p)
        # and the doc shows it (p = 0.8 table: the first of the two)
        row = [line for line in block.splitlines() if line.startswith(f"| `{name}` |")][0]
        mean08 = sum(_rbr(_top_shares(run.get(q, {}), 20), reference[q], 0.8) for q in reference) / len(reference)
        assert row.split("|")[4].strip().strip("*") == f"{mean08:.4f}"


def test_fig3_counts_from_the_run_files(dl19):
    """How many (first stage, query) pairs have exactly 8 (9) of the reference's top 10 in their top 20,
    counted in plain Python, and every observation within its bounds."""
    _, obs, _ = dl19
    reference = _read(shared_data(fs.REFERENCE))
    r10 = {q: set(_ranked(docs)[:10]) for q, docs in reference.items() if len(docs) >= 10}
    assert len(r10) == 42
    counts = defaultdict(int)
    for name in fs.first_stage_names():
        path = fs.POOL_ORDERINGS.get(name, f"{fs.RUNS}/{name}.gz")
        run = _read(shared_data(path), frozenset(reference))
        for q, top in r10.items():
            counts[len(set(_ranked(run[q])[:20]) & top)] += 1
    first = obs[obs["kind"] == fs.FIRST_STAGE]
    for hits in (8, 9):
        assert int((first["hits"] == hits).sum()) == counts[hits]
        sel = fs.select(obs, hits)
        assert len(sel) > 0 and fs.bound_violations(sel) == {"base > full": 0,
                                                              "full + full_res > base + base_res": 0}
        assert np.allclose(sel["base_res"], 0.8 ** 10 * (1 - 0.8 ** (20 - hits)), rtol=0, atol=TOL)
    assert sum(counts.values()) == 10 * 42
