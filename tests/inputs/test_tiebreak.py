"""Score ties broken by document id, descending (ir_rbstar/io/tiebreak.py), against Python's own sort of
each tie group: groups whose ids ascend (as NIST's runs list them), descend, or come in no order, ids
across the 8-byte word boundaries and prefixes of one another, an id twice (kept in its order), with and
without a sorting permutation. Each case is run both ways: in C where the extension is built
(ir_rbstar/io/dictscan.py's tie_order) and by the numpy steps."""
import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

from tests.conftest import examples

from ir_rbstar.io import dictscan, tiebreak
from ir_rbstar.io.docindex import Moves
from tests.helpers import compiled_off


def break_ties_by_docid(order, same, dbytes):
    """The tie-break by the numpy steps and, where the extension is built, in C: the same permutation."""
    with compiled_off():
        by_numpy = tiebreak.break_ties_by_docid(order, same, dbytes)
    if dictscan.available():
        in_c = tiebreak.break_ties_by_docid(order, same, dbytes)
        assert type(in_c) is type(by_numpy)
        n = len(same) + 1
        assert as_permutation(in_c, n, order).tolist() == as_permutation(by_numpy, n, order).tolist()
    return by_numpy

SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
# ids sharing long prefixes, of lengths on both sides of 8 and 16 bytes (the words compared)
IDS = st.builds(lambda head, tail: head + tail, st.sampled_from(["", "LA0410", "FT934-54", "clueweb12-00"]),
                st.text(alphabet="0129-az", min_size=0, max_size=9))


@st.composite
def tie_groups(draw):
    """(ids of the rows in ranked order, same, order): groups of tied rows and single rows, each
    group's ids ascending, descending or shuffled (an id now and then twice), ``order`` None or a
    permutation of the input rows."""
    ranked, same = [], []
    for _ in range(draw(st.integers(1, 8))):
        size = draw(st.integers(1, 9))
        ids = draw(st.lists(IDS, min_size=size, max_size=size))
        how = draw(st.sampled_from(["ascending", "descending", "shuffled", "twice"]))
        if how == "ascending":
            ids = sorted(set(ids))
        elif how == "descending":
            ids = sorted(set(ids), reverse=True)
        elif how == "twice":
            ids = ids + ids[:1]
        same += [False] + [True] * (len(ids) - 1)
        ranked += ids
    n = len(ranked)
    order = None
    if draw(st.booleans()):
        order = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    dbytes = np.empty(n, dtype=object)
    if order is None:
        dbytes[:] = [s.encode() for s in ranked]
    else:
        dbytes[order] = [s.encode() for s in ranked]        # input row order[i] is ranked row i
    return dbytes.astype(bytes), np.array(same[1:], dtype=bool), order


def expected(dbytes, same, order):
    """Each run of tied ranked rows sorted by id, descending, equal ids in their order (Python's sort)."""
    n = len(same) + 1
    src = np.arange(n) if order is None else order.copy()
    out = src.copy()
    start = 0
    for i in range(1, n + 1):
        if i == n or not same[i - 1]:
            out[start:i] = sorted(src[start:i], key=lambda r: dbytes[r], reverse=True)
            start = i
    return out


def as_permutation(result, n, order):
    if result is None:
        return np.arange(n) if order is None else order
    if isinstance(result, Moves):
        full = np.arange(n)
        full[result.rows] = result.src
        return full
    return result


@SETTINGS
@given(tie_groups())
def test_ties_are_broken_as_python_sorts_each_group(data):
    dbytes, same, order = data
    got = break_ties_by_docid(order, same, dbytes)
    assert as_permutation(got, len(dbytes), order).tolist() == expected(dbytes, same, order).tolist()


def test_nists_ascending_groups_are_reversed_and_descending_ones_kept():
    ids = np.array([b"b", b"LA041090-0148", b"LA041090-0150", b"LA041490-0064", b"z", b"y", b"a"])
    same = np.array([False, True, True, False, True, True])     # groups: [b], [LA.., LA.., LA..], [z, y, a]
    got = as_permutation(break_ties_by_docid(None, same, ids), len(ids), None)
    assert ids[got].tolist() == [b"b", b"LA041490-0064", b"LA041090-0150", b"LA041090-0148", b"z", b"y", b"a"]


def test_many_groups_of_long_ids_and_prefixes():
    rng = np.random.default_rng(7)
    n = 20_000
    ids = np.array([f"clueweb12-{rng.integers(0, 10 ** 6):07d}-{rng.integers(0, 99):02d}"[:rng.integers(8, 22)].encode()
                    for _ in range(n)])
    same = rng.random(n - 1) < 0.9
    order = rng.permutation(n)
    got = break_ties_by_docid(order, same, ids)
    assert got.tolist() == expected(ids, same, order).tolist()


def test_many_groups_need_an_eight_byte_group_number(monkeypatch):
    # the groups' numbers are written in 4 bytes below 2**32 and 8 above: both give Python's order
    ids = np.array([b"b", b"a", b"cc", b"c", b"a", b"b"])     # two groups in no order: both sorted
    same = np.array([True, True, False, True, True])
    want = expected(ids, same, None).tolist()
    real = tiebreak._sort_groups
    monkeypatch.setattr(tiebreak, "_sort_groups", lambda i, g: real(i, g * 2 ** 33))
    assert as_permutation(break_ties_by_docid(None, same, ids), len(ids), None).tolist() == want


def test_large_groups_in_no_order():
    # groups of thousands of rows (the C path's merge sort), ids twice among them, and prefixes
    rng = np.random.default_rng(11)
    n = 6_000
    ids = np.array([f"doc{rng.integers(0, 3_000)}"[:rng.integers(3, 8)].encode() for _ in range(n)])
    same = np.ones(n - 1, dtype=bool)
    same[[1_000, 1_001, 4_500]] = False
    for order in (None, rng.permutation(n)):
        got = as_permutation(break_ties_by_docid(order, same, ids), n, order)
        assert got.tolist() == expected(ids, same, order).tolist()
