"""Property tests of the tie-aware RBO kernel (ir_rbstar.core.rbo_variants, Corsi & Urbano, SIGIR 2024):
against the plain-Python oracle (tests/oracles/rbo_variants.py) on random small rankings, several
queries per call; the properties the paper states; RBO^a against brute force over tie breakings; the
package's RBO family (rankbiased.rbo_family) where the two agree; and, when the environment variable
IR_RBSTAR_CORSI_URBANO_TEST names it, the authors' own test file (rbo/test.csv of
github.com/julian-urbano/sigir2024-rbo; not in this repository: its licence is CC-BY-SA).

Random inputs: rankings of 0..7 items from a pool of 10 (so lists of unequal length, disjoint lists
and empty lists all occur), tie groups of 1..3 items on neither, one or both sides, the same item
names in different queries (so a segmentation slip mixes queries up), and item codes either small or
spread over the whole int64 range (the two ways the kernel matches items).
"""
import csv
import os
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.conftest import examples

from ir_rbstar.core.rankbiased import rbo_family
from ir_rbstar.core.rbo_variants import SCORES, VARIANTS, rbo_variants
from tests.oracles import rbo_variants as O

POOL = list("abcdefghij")
TOL = 1e-9
SETTINGS = settings(max_examples=examples(150), deadline=None)
TEST_FILE_ENV = "IR_RBSTAR_CORSI_URBANO_TEST"


# ---------------------------------------------------------------------------------------------
# inputs

@st.composite
def rankings(draw, ties=None, max_size=7, min_size=0):
    """A list of sets; ``ties`` None: drawn; False: every group a single item."""
    items = draw(st.lists(st.sampled_from(POOL), min_size=min_size, max_size=max_size, unique=True))
    tied = draw(st.booleans()) if ties is None else ties
    out, i = [], 0
    while i < len(items):
        size = draw(st.integers(1, 3)) if tied else 1
        out.append(set(items[i:i + size]))
        i += size
    return out


def columns(queries, spread=False, reverse=False):
    """Kernel input for a list of (x, y) ranking pairs: (n, x columns, y columns). An item name has
    the same code in every query; ``spread`` puts the codes far apart in int64 (at most 32 names);
    ``reverse`` lists each tie group's items in the other order."""
    names = {}

    def code(item):
        k = names.setdefault(item, len(names))
        return k * (1 << 58) - (1 << 62) if spread else 100 + 7 * k

    def flat(which):
        cols = ([], [], [], [])
        for q, pair in enumerate(queries):
            top = 0
            for group in pair[which]:
                for item in sorted(group, reverse=reverse):
                    for col, value in zip(cols, (q, code(item), top, len(group)), strict=True):
                        col.append(value)
                top += len(group)
        return [np.array(col, dtype=np.int64) for col in cols]

    return len(queries), flat(0), flat(1)


def kernel(queries, p, variant, **kw):
    n, x, y = columns(queries, **kw)
    return rbo_variants(p, variant, n, *x, *y)


def close(a, b, tol=TOL):
    return abs(a - b) <= tol


PS = st.floats(0.05, 0.98)
BATCH = st.lists(st.tuples(rankings(), rankings()), min_size=1, max_size=4)


# ---------------------------------------------------------------------------------------------
# the kernel against the oracle

@SETTINGS
@given(BATCH, PS, st.booleans(), st.booleans())
def test_kernel_matches_oracle(queries, p, spread, reverse):
    for variant in VARIANTS:
        got = kernel(queries, p, variant, spread=spread, reverse=reverse)
        for q, (x, y) in enumerate(queries):
            want = O.rbo_tied(x, y, p, variant)
            for score in SCORES:
                assert close(got[score][q], want[score]), (variant, score, q, x, y, got[score][q], want[score])


@SETTINGS
@given(BATCH, PS, st.randoms(use_true_random=False))
def test_query_order_and_sides_do_not_matter(queries, p, rnd):
    """Rows of a query stay together but the queries come in any order; X and Y swapped."""
    n, x, y = columns(queries)
    order = list(range(n))
    rnd.shuffle(order)

    def shuffled(cols):
        rows = np.concatenate([np.flatnonzero(cols[0] == q) for q in order]).astype(np.int64)
        return [c[rows] for c in cols]

    for variant in VARIANTS:
        plain = rbo_variants(p, variant, n, *x, *y)
        moved = rbo_variants(p, variant, n, *shuffled(x), *shuffled(y))
        swapped = rbo_variants(p, variant, n, *y, *x)
        for score in SCORES:
            np.testing.assert_allclose(moved[score], plain[score], rtol=0, atol=TOL)
            np.testing.assert_allclose(swapped[score], plain[score], rtol=0, atol=TOL)


def test_blocks_of_queries(monkeypatch):
    """Many queries in small blocks (a query never split) give what one block gives."""
    import ir_rbstar.core.rbo_variants as kernel_module
    rnd = random.Random(5)
    queries = []
    for _ in range(60):
        pair = []
        for _side in range(2):
            items = rnd.sample(POOL, rnd.randint(0, 10))
            groups, i = [], 0
            while i < len(items):
                size = rnd.randint(1, 3)
                groups.append(set(items[i:i + size]))
                i += size
            pair.append(groups)
        queries.append(tuple(pair))
    whole = {v: kernel(queries, 0.9, v) for v in VARIANTS}
    monkeypatch.setattr(kernel_module, "BLOCK_ROWS", 16)
    for variant in VARIANTS:
        parts = kernel(queries, 0.9, variant)
        for score in SCORES:
            np.testing.assert_allclose(parts[score], whole[variant][score], rtol=0, atol=1e-12)
        for q in (0, 17, 59):
            assert close(parts["ext"][q], O.rbo_tied(*queries[q], 0.9, variant)["ext"])


# ---------------------------------------------------------------------------------------------
# properties stated in the paper

@SETTINGS
@given(BATCH, PS)
def test_paper_properties(queries, p):
    got = {v: kernel(queries, p, v) for v in VARIANTS}
    for variant in VARIANTS:
        r = got[variant]
        np.testing.assert_allclose(r["res"], r["max"] - r["min"], rtol=0, atol=1e-12)
        assert np.all(r["min"] <= r["ext"] + TOL) and np.all(r["ext"] <= r["max"] + TOL), variant
        assert np.all(r["min"] >= -TOL) and np.all(r["max"] <= 1 + TOL), variant
    for score in ("min", "max", "ext"):
        assert np.all(got["a"][score] <= got["b"][score] + TOL), score      # RBO^a <= RBO^b


@SETTINGS
@given(st.lists(rankings(min_size=1), min_size=1, max_size=4), PS)
def test_b_of_a_ranking_with_itself_is_one(lists, p):
    queries = [(x, x) for x in lists]
    r = kernel(queries, p, "b")
    np.testing.assert_allclose(r["ext"], 1.0, rtol=0, atol=TOL)
    np.testing.assert_allclose(r["max"], 1.0, rtol=0, atol=TOL)
    a = kernel(queries, p, "a")
    for q, x in enumerate(lists):
        if any(len(group) > 1 for group in x):
            assert a["ext"][q] < 1.0          # RBO^a pays for the ties, RBO^b does not


@SETTINGS
@given(st.lists(st.tuples(rankings(ties=False), rankings(ties=False)), min_size=1, max_size=4), PS)
def test_without_ties_every_variant_is_ordinary_rbo(queries, p):
    plain = [O.rbo_untied([next(iter(g)) for g in x], [next(iter(g)) for g in y], p) for x, y in queries]
    for variant in VARIANTS:
        got = kernel(queries, p, variant)
        for q in range(len(queries)):
            for score in SCORES:
                assert close(got[score][q], plain[q][score]), (variant, score, queries[q])


@settings(max_examples=examples(80), deadline=None)
@given(rankings(max_size=5), rankings(max_size=5), PS)
def test_a_is_the_mean_over_tie_breakings(x, y, p):
    """RBO^a's min is the mean of untied RBO over every order of the ties; so are max, ext and res when
    the longer list has no ties (or the lengths are equal). Otherwise the paper's max and ext take the
    tied items S lacks at their expected presence, and stay at or below that mean."""
    brute = O.rbo_a_bruteforce(x, y, p)
    a = kernel([(x, y)], p, "a")
    lx, ly = sum(map(len, x)), sum(map(len, y))
    longer = x if lx >= ly else y
    exact = lx == ly or all(len(group) == 1 for group in longer)
    assert close(a["min"][0], brute["min"])
    for score in ("max", "ext", "res"):
        if exact:
            assert close(a[score][0], brute[score]), score
        else:
            assert a[score][0] <= brute[score] + TOL, score


@SETTINGS
@given(rankings(ties=False), rankings(), PS, st.booleans())
def test_relation_to_the_rbo_family(untied, tied, p, untied_is_x):
    """One side untied (B), the other tied (R): rankbiased.rbo_family's RBO equals RBO^a's min; its
    RBO_ext and RBO_res equal a's ext and res unless the tied list is the longer one, where ours are at
    least theirs (rbo_family takes the expectation of Webber's scores over the tie orders)."""
    B = [next(iter(g)) for g in untied]
    pos = O.positions(tied)
    shared = [e for e in B if e in pos]
    ours = rbo_family(1, p, np.array([len(B)]), np.array([len(pos)]), np.zeros(len(shared), np.int64),
                      np.array([B.index(e) + 1 for e in shared], np.int64),
                      np.array([pos[e][0] for e in shared], np.int64), np.array([pos[e][1] for e in shared], np.int64))
    pair = (untied, tied) if untied_is_x else (tied, untied)
    a = kernel([pair], p, "a")
    assert close(ours["RBO"][0], a["min"][0])
    same = len(B) >= len(pos) or all(len(group) == 1 for group in tied)
    for mine, theirs in (("RBO_ext", "ext"), ("RBO_res", "res")):
        if same:
            assert close(ours[mine][0], a[theirs][0]), mine
        else:
            assert ours[mine][0] >= a[theirs][0] - TOL, mine


# ---------------------------------------------------------------------------------------------
# edges and errors

def test_empty_rankings():
    p = 0.8
    queries = [([], []), ([], [{"a"}, {"b"}]), ([{"a"}, {"b", "c"}], []), ([{"a"}], [{"a"}])]
    for variant in VARIANTS:
        r = kernel(queries, p, variant)
        np.testing.assert_allclose(r["min"][:3], 0.0, atol=0)
        np.testing.assert_allclose(r["ext"][:3], 0.0, atol=0)
        assert close(r["max"][0], 1.0) and close(r["max"][1], 1.0)
        assert r["max"][2] < 1.0                                    # the other list's tie
        for q, (x, y) in enumerate(queries):
            want = O.rbo_tied(x, y, p, variant)
            for score in SCORES:
                assert close(r[score][q], want[score]), (variant, score, q)
    # no rows at all, and queries with no rows
    empty = np.zeros(0, np.int64)
    r = rbo_variants(0.9, "a", 2, *[empty] * 8)
    assert r["min"].tolist() == [0.0, 0.0] and np.allclose(r["max"], 1.0)


def test_bad_arguments():
    empty = np.zeros(0, np.int64)
    with pytest.raises(ValueError, match="ties"):
        rbo_variants(0.9, "x", 1, *[empty] * 8)
    with pytest.raises(ValueError, match="p "):
        rbo_variants(1.0, "a", 1, *[empty] * 8)
    with pytest.raises(ValueError, match="0..0"):
        rbo_variants(0.9, "a", 1, np.array([1]), np.array([5]), np.array([0]), np.array([1]), *[empty] * 4)
    one = [np.array([0]), np.array([5]), np.array([0]), np.array([1])]
    two = [np.array([0, 0]), np.array([5, 5]), np.array([0, 1]), np.array([1, 1])]
    with pytest.raises(ValueError, match="twice"):
        rbo_variants(0.9, "a", 1, *two, *one)
    with pytest.raises(ValueError, match="start and size of Y"):
        rbo_variants(0.9, "a", 1, *one, np.array([0, 0]), np.array([5, 6]), np.array([0, 0]), np.array([1, 1]))


# ---------------------------------------------------------------------------------------------
# the authors' test file

def test_corsi_urbano_test_file():
    path = os.environ.get(TEST_FILE_ENV)
    if not path:
        pytest.skip(f"{TEST_FILE_ENV} is not set (the path of rbo/test.csv from "
                    "github.com/julian-urbano/sigir2024-rbo, not shipped here: CC-BY-SA)")
    if not os.path.isfile(path):
        pytest.skip(f"{TEST_FILE_ENV}={path}: no such file")
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows, path
    worst = {(v, s): 0.0 for v in VARIANTS for s in SCORES}
    for row in rows:
        pair = (O.parse_ranking(row["x"]), O.parse_ranking(row["y"]))
        for variant in VARIANTS:
            got = kernel([pair], float(row["p"]), variant)
            for score in SCORES:
                diff = abs(got[score][0] - float(row[f"{variant}.{score}"]))
                worst[variant, score] = max(worst[variant, score], diff)
    bad = {key: diff for key, diff in worst.items() if not diff <= 1e-6}
    assert not bad, bad


# ---------------------------------------------------------------------------------------------
# through the measures: RBO(ties='a'|'b'|'w'), RBO_res, RBO_ext against runs and references with scores

def _groups_of(scores):
    """{doc: score} -> [set, ...] by score descending (equal scores one group)."""
    return [set(d for d, v in scores.items() if v == s) for s in sorted(set(scores.values()), reverse=True)]


@st.composite
def scored_case(draw):
    pool = ['d%d' % i for i in range(8)]
    run, ref = {}, {}
    for q in ('q1', 'q2'):
        run[q] = {d: float(draw(st.integers(0, 3))) for d in draw(st.lists(st.sampled_from(pool), min_size=1,
                                                                            max_size=7, unique=True))}
        ref[q] = {d: float(draw(st.integers(0, 3))) for d in draw(st.lists(st.sampled_from(pool), min_size=1,
                                                                            max_size=7, unique=True))}
    return run, ref


@SETTINGS
@given(scored_case(), PS, st.sampled_from(list(VARIANTS)), st.one_of(st.none(), st.integers(1, 6)))
def test_measures_equal_the_oracle(case, p, variant, k):
    """RBO, RBO_res, RBO_ext with ties=variant equal the oracle's min, res, ext on the run's top k (a tie group
    straddling k kept whole) against the reference run, both as lists of tie groups."""
    import ir_measures
    import ir_rbstar
    run, ref = case
    names = {'RBO': 'min', 'RBO_res': 'res', 'RBO_ext': 'ext'}
    with ir_rbstar.run_scope(runs={'R': ref}):
        ms = {name: ir_rbstar.parse_measure("%s(p=%r,ties=%r,ref='R')%s" % (name, p, variant, '@%d' % k if k else ''))
              for name in names}
        got = {(r.query_id, str(r.measure)): r.value for r in ir_measures.iter_calc(list(ms.values()), None, run)}
    for q in run:
        x = _groups_of(run[q])
        if k is not None:              # keep the groups that start within the first k positions
            kept, seen = [], 0
            for group in x:
                if seen >= k:
                    break
                kept.append(group)
                seen += len(group)
            x = kept
        want = O.rbo_tied(x, _groups_of(ref[q]), p, variant)
        for name, score in names.items():
            assert got[(q, str(ms[name]))] == pytest.approx(want[score], abs=1e-12), (q, name, variant, x, ref[q])


@st.composite
def keyed_lists(draw):
    """Two item lists of a few queries each: codes unique within a list's query, shared between the lists
    at random; codes small, or anywhere in int64 (document hashes)."""
    wide = draw(st.booleans())
    code = st.integers(-2 ** 63, 2 ** 63 - 1) if wide else st.integers(0, 40)
    pool = draw(st.lists(code, min_size=1, max_size=40, unique=True))
    out = []
    for _ in range(2):
        seg, item = [], []
        for q in range(draw(st.integers(1, 4))):
            for c in draw(st.lists(st.sampled_from(pool), max_size=25, unique=True)):
                seg.append(q)
                item.append(c)
        out += [np.array(seg, dtype=np.int64), np.array(item, dtype=np.int64)]
    return out


@given(keyed_lists(), st.sampled_from([None, 16, 17, 24]))
@settings(max_examples=examples(150), deadline=None)
def test_match_items_finds_every_shared_item_once(lists, code_bits):
    """The sort-based join against a dict of the pairs: codes that fit whole, document-hash codes shortened
    to the bits left, and shortened to 16 bits (collisions of the shortened codes are then frequent: the
    exact second pass must find every match all the same); an item twice in one list is an error
    (when the other is not empty)."""
    from ir_rbstar.core.rbo_variants import match_items
    xs, xi, ys, yi = lists
    where = {(s, i): k for k, (s, i) in enumerate(zip(ys.tolist(), yi.tolist(), strict=True))}
    want = sorted((k, where[key]) for k, key in enumerate(zip(xs.tolist(), xi.tolist(), strict=True)) if key in where)
    ix, iy = match_items(xs, xi, ys, yi, code_bits=code_bits)
    assert sorted(zip(ix.tolist(), iy.tolist(), strict=True)) == want
    if len(xs) and len(ys):                         # (with an empty side there is nothing to join)
        with pytest.raises(ValueError, match="occurs twice"):
            match_items(np.append(xs, xs[0]), np.append(xi, xi[0]), ys, yi, code_bits=code_bits)


@given(keyed_lists(), st.integers(1, 40), st.integers(0, 2))
@settings(max_examples=examples(100), deadline=None)
def test_match_counted_is_match_items_by_query_lengths(lists, block, empty):
    """The join of rows given by each query's number of rows (no query column) gives the pairs of the join
    over all rows, also with queries that have no rows on one side or on both (``empty`` of them added
    at the front); an item twice in a query's list is an error as there."""
    from ir_rbstar.core.rbo_variants import match_counted, match_items
    xs, xi, ys, yi = lists
    xs, ys = xs + empty, ys + empty
    n = int(max(xs.max(initial=-1), ys.max(initial=-1))) + 2           # one more query, empty on both sides
    x_lens, y_lens = np.bincount(xs, minlength=n), np.bincount(ys, minlength=n)

    def pairs(ix, iy):
        return sorted(zip(ix.tolist(), iy.tolist(), strict=True))
    assert pairs(*match_counted(x_lens, xi, y_lens, yi, block=block)) == pairs(*match_items(xs, xi, ys, yi))
    if len(xs) and len(ys):
        twice = np.insert(xi, 1, xi[0])
        x_twice = x_lens.copy()
        x_twice[xs[0]] += 1
        with pytest.raises(ValueError, match="occurs twice"):
            match_counted(x_twice, twice, y_lens, yi, block=block)
    with pytest.raises(ValueError, match="row counts"):
        match_counted(x_lens[:-1], xi, y_lens, yi)
