"""The optional compiled reader of dicts of dicts (csrc/_ir_rbstar_dicts.c, ir_rbstar/io/dictscan.py) against the
Python path it stands in for: the same columns for every dict it takes, None (the Python path's turn) for every
dict it must not take, the same answer as Python's comparison of a kept qrels, and the same evaluation through
ir_measures either way. Skipped where the extension is not built (installed without a C compiler, or a source
checkout run without installing)."""
import math
import platform
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ir_measures
import ir_rbstar
from ir_rbstar.errors import InputFormatError
from ir_rbstar.io import QUERY_IDS, convert, dictscan, qcache, to_ranking
from ir_rbstar.io import extension

from tests.inputs import test_record_fast_path as fast_path

from tests.conftest import examples
from tests.helpers import compiled_off

pytestmark = pytest.mark.skipif(not dictscan.available(), reason="the compiled reader (_ir_rbstar_dicts) is not "
                                "built: install the package with a C compiler (pip install .)")

SETTINGS = settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
ASCII_IDS = st.text(st.characters(min_codepoint=1, max_codepoint=127), max_size=30)


def python_columns(obj, what):
    """The columns the Python path makes (the extension switched off for the call)."""
    with compiled_off():
        *columns, distinct = convert._columns_from_dict(obj, "test", what, "score" if what == "run" else "grade")
        assert distinct is False                # (said only of ids the compiled reader read)
        return columns


@st.composite
def dicts(draw, grades=False):
    """{query: {doc: value}}: ASCII ids of 0-30 characters (no NUL), floats of every kind (NaN and infinities
    too: the checks that follow name them) or whole-number grades within int64."""
    values = st.integers(-(1 << 63), (1 << 63) - 1) if grades else st.floats(allow_nan=True, allow_infinity=True)
    out = {}
    for q in draw(st.lists(st.text("0123456789q", min_size=1, max_size=4), min_size=1, max_size=5, unique=True)):
        out[q] = draw(st.dictionaries(ASCII_IDS, values, max_size=12))
    return out


def _same_arrays(a, b):
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape
    if a.dtype.kind == "f":
        assert np.array_equal(a, b, equal_nan=True)
        assert np.array_equal(np.signbit(a), np.signbit(b))            # -0.0 stays -0.0
    else:
        assert a.tolist() == b.tolist()


@SETTINGS
@given(dicts())
def test_run_columns_equal_the_python_path(obj):
    n = sum(map(len, obj.values()))
    got = dictscan.dict_columns(obj, n, grades=False)
    if n == 0:
        assert got is None                      # nothing to read: the Python path's turn
        return
    codes, docs, values = python_columns(obj, "run")
    _same_arrays(got[0], docs)
    _same_arrays(got[1], values)
    # and through the converter itself (the compiled reader on)
    codes2, docs2, values2, distinct = convert._columns_from_dict(obj, "test", "run", "score")
    assert distinct == (len(set(obj)) == len(obj) and max(map(len, obj.values())) < 256)
    assert codes2.codes.tolist() == codes.codes.tolist()
    _same_arrays(docs2, docs)
    _same_arrays(values2, values)


@SETTINGS
@given(dicts(grades=True))
def test_grade_columns_equal_the_python_path(obj):
    n = sum(map(len, obj.values()))
    got = dictscan.dict_columns(obj, n, grades=True)
    if n == 0:
        return
    _, docs, values = python_columns(obj, "qrels")
    _same_arrays(got[0], docs)
    assert got[1].dtype == np.int64
    assert got[1].tolist() == values.tolist()     # the Python path keeps grades as objects, checked later


def test_ids_longer_than_the_first_thousand_widen_the_buffer():
    # the width is guessed from the first 1,024 ids: later, longer ones widen the rows already copied
    obj = {"1": {f"d{i}": float(i) for i in range(1500)}}
    obj["2"] = {"x" * 40: 1.0, "y" * 100: 2.0, "z": 3.0}
    got = dictscan.dict_columns(obj, 1503, grades=False)
    _, docs, values = python_columns(obj, "run")
    assert got[0].dtype == np.dtype("S100")
    _same_arrays(got[0], docs)
    _same_arrays(got[1], values)
    # widened by doubling ahead of need, then narrowed to the longest id
    obj["2"] = {"x" * 9: 1.0}
    got = dictscan.dict_columns(obj, 1501, grades=False)
    assert got[0].dtype == np.dtype("S9") and got[0][-1] == b"x" * 9


class Sub(dict):
    pass


@pytest.mark.parametrize("obj, grades", [
    ({"1": {"d\u00e9": 1.0}}, False),          # a non-ASCII id: UTF-8 in the Python path
    ({"1": {"d\x00": 1.0}}, False),            # a NUL: numpy's bytes drop trailing NULs (the Python path decides)
    ({"1": {b"d": 1.0}}, False),               # bytes ids
    ({"1": {None: 1.0}}, False),               # a missing id: the Python path names it
    ({"1": {"d": 1}}, False),                  # an int score
    ({"1": {"d": np.float64(1.0)}}, False),    # a numpy score
    ({"1": {"d": True}}, False),
    ({"1": {"d": 1.0}}, True),                 # a float grade: the Python path names a non-integer one
    ({"1": {"d": True}}, True),
    ({"1": {"d": 1 << 63}}, True),             # beyond int64
    ({"1": Sub(d=1.0)}, False),                # a dict subclass (its own iteration order)
    ({"1": {"d": 1.0}, "2": [("e", 1.0)]}, False),
])
def test_what_it_does_not_take_is_left_to_python(obj, grades):
    n = sum(map(len, obj.values()))
    assert dictscan.dict_columns(obj, n, grades=grades) is None


def test_a_wrong_count_is_left_to_python():
    obj = {"1": {"a": 1.0, "b": 2.0}}
    assert dictscan.dict_columns(obj, 3, grades=False) is None
    assert dictscan.dict_columns(obj, 1, grades=False) is None


def _python_same(flat, obj):
    with compiled_off():
        return flat.same(obj)


@SETTINGS
@given(dicts(grades=True), st.data())
def test_kept_qrels_compared_as_python_compares_them(obj, data):
    obj = {q: docs for q, docs in obj.items() if docs} or {"1": {"d": 1}}
    flat = qcache.FlatDict({q: dict(d) for q, d in obj.items()})
    change = data.draw(st.sampled_from(["none", "grade", "grade as float", "same grade new object", "doc",
                                        "doc equal string", "order", "query", "extra", "drop", "inner type"]))
    new = {q: dict(d) for q, d in obj.items()}
    q = data.draw(st.sampled_from(sorted(new)))
    d = data.draw(st.sampled_from(sorted(new[q])))
    if change == "grade":
        new[q][d] = new[q][d] + 1 if new[q][d] < (1 << 62) else 0
    elif change == "grade as float":
        new[q][d] = float(new[q][d])
    elif change == "same grade new object":
        new[q][d] = int(str(new[q][d]))         # equal, another object beyond the small ints
    elif change == "doc":
        new[q] = {(k + "!" if k == d else k): v for k, v in new[q].items()}
    elif change == "doc equal string":
        new[q] = {("".join(list(k)) if k == d else k): v for k, v in new[q].items()}
    elif change == "order":
        new[q] = dict(reversed(list(new[q].items())))
    elif change == "query":
        new = {(k + "x" if k == q else k): v for k, v in new.items()}
    elif change == "extra":
        new[q]["new doc"] = 1
    elif change == "drop":
        del new[q][d]
    elif change == "inner type":
        new[q] = Sub(new[q])
    compiled = dictscan.same_lists(new, flat.queries, flat.doc_lists, flat.value_lists)
    expected = _python_same(flat, new)
    assert flat.same(new) is expected
    if compiled is not None:
        assert compiled is expected
    if change in ("none", "same grade new object", "doc equal string"):
        assert compiled is True                 # the plain case is decided in C
    if change == "grade as float":
        assert compiled is None or compiled is expected


def test_values_without_a_truth_value_are_left_to_python():
    flat = qcache.FlatDict({"1": {"d": 1}})
    assert dictscan.same_lists({"1": {"d": np.array([1, 1])}}, flat.queries, flat.doc_lists, flat.value_lists) \
        is None
    assert flat.same({"1": {"d": np.array([1, 1])}}) is False


@pytest.fixture(scope="module")
def vaswani_dicts():
    from ir_rbstar.demo import data_dir
    v = data_dir()
    run, qrels = {}, {}
    for x in ir_measures.read_trec_run(f"{v}/bm25.run.gz"):
        run.setdefault(x.query_id, {})[x.doc_id] = x.score
    for x in ir_measures.read_trec_qrels(f"{v}/qrels"):
        qrels.setdefault(x.query_id, {})[x.doc_id] = x.relevance
    return run, qrels


MEASURES = "RBP(p=0.8) RBP_res(p=0.8) nDCG_TA@10 AP_TA P_TA@10 Twist RR nDCG@10 AP"


def _per_query(qrels, run):
    qcache.clear()
    return sorted((m.query_id, str(m.measure), m.value)
                  for m in ir_measures.iter_calc(ir_rbstar.parse(MEASURES), qrels, run))


def test_the_same_values_with_and_without_the_extension(vaswani_dicts, monkeypatch):
    run, qrels = vaswani_dicts
    with_c = _per_query(qrels, run)
    # twice: the second call meets the kept qrels, compared in C
    assert _per_query(qrels, run) == with_c
    monkeypatch.setattr(extension, "compiled", None)
    without = _per_query(qrels, run)
    assert len(with_c) == len(without) > 0
    for a, b in zip(with_c, without, strict=True):
        assert a[:2] == b[:2]
        assert a[2] == b[2] or (math.isnan(a[2]) and math.isnan(b[2]))


@pytest.mark.parametrize("compiled", [True, False])
def test_errors_name_the_same_thing_either_way(compiled, monkeypatch):
    # a dict the compiled reader does not take is converted by the Python path, whose errors name the key
    if not compiled:
        monkeypatch.setattr(extension, "compiled", None)
    qcache.clear()
    with pytest.raises(InputFormatError, match=r"query '1' of the run dict has no document id at key 1"):
        ir_measures.calc_aggregate(ir_rbstar.parse("RBP(p=0.8)"), {"1": {"a": 1}}, {"1": {"b": 2.0, None: 1.0}})


# ---------------------------------------------------------------------------------------------------------------
# namedtuples: the compiled reader against the general path (pyarrow's converter and the block filter off too),
# on the random records of test_record_fast_path (numbers, bytes, None and non-ASCII text as ids, scores that are
# not floats, queries in several blocks, queries left out)

def _general_ranking(items, queries):
    with compiled_off():
        return fast_path.general(items, queries)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fast_path.records(), st.sampled_from(["ScoredDoc", "Reordered", "Wide"]), st.booleans())
def test_namedtuples_give_the_general_paths_ranking_or_error(rows, shape, filtered):
    if shape == "ScoredDoc":
        items = [ir_measures.ScoredDoc(*r) for r in rows]
    elif shape == "Reordered":
        items = [fast_path.Reordered(s, q, d) for q, d, s in rows]
    else:
        items = [fast_path.Wide(q, d, s, "t") for q, d, s in rows]
    queries = {"q1", "10", "7"} if filtered else None
    got, got_error = fast_path.outcome(lambda: to_ranking(items, queries=queries))
    want, want_error = fast_path.outcome(lambda: _general_ranking(items, queries))
    assert got_error == want_error
    if got is not None:
        fast_path.assert_same(got, want)


def test_the_compiled_reader_takes_plain_namedtuples_and_declines_the_rest():
    S = ir_measures.ScoredDoc
    plain = [S("q", f"d{i}", float(i % 3)) for i in range(50)] + [S("r", "x" * 2000, 1.0), S("q", "e", 2.0)]
    codes, ids, scores = dictscan.record_columns(plain, [0, 1, 2], grades=False)
    assert QUERY_IDS.decode(codes.codes).tolist() == ["q"] * 50 + ["r", "q"]     # blocks as they come
    assert ids.dtype == np.dtype("S2000") and ids[10] == b"d10" and ids[50] == b"x" * 2000 and scores[4] == 1.0
    qrels = [ir_measures.Qrel("q", "d", 2, "0"), ir_measures.Qrel("q", "e", -1, "0")]
    codes, ids, grades = dictscan.record_columns(qrels, [0, 1, 2], grades=True)
    assert grades.dtype == np.int64 and grades.tolist() == [2, -1]
    for odd in ([S("q", 5, 1.0)], [S("q", "é", 1.0)], [S(None, "a", 1.0)], [S(7, "a", 1.0)], [S("q", "a", "1.5")],
                [S("q", "a\x00", 1.0)], [S("q", "a", None)], [S("q", "a", 1)], [S("q", "a", np.float64(1.0))],
                [S("q", "a", 1.0), ("q", "b")], [S("q", "a", 1.0), "qb1"]):
        assert dictscan.record_columns(odd, [0, 1, 2], grades=False) is None
    assert dictscan.record_columns([ir_measures.Qrel("q", "d", True, "0")], [0, 1, 2], grades=True) is None
    assert dictscan.record_columns([ir_measures.Qrel("q", "d", 1 << 64, "0")], [0, 1, 2], grades=True) is None


# -- the compiled probe of the hash index (dictscan.probe, used by DocIndex.lookup) --

def _numpy_lookup(index, q, h):
    with compiled_off():
        return index.lookup(q, h)


@pytest.mark.parametrize("seed", range(4))
def test_probe_finds_what_the_numpy_loop_finds(seed):
    # thousands of pairs, a third of them with clumped hashes (the same low bits: several levels), probed with
    # the stored pairs, absent documents, absent and negative query codes, and queries beyond the index's
    from ir_rbstar.io.docindex import DocIndex
    rng = np.random.default_rng(seed)
    n = 6000
    q = rng.integers(0, 50, n)
    h = rng.integers(0, 2 ** 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n).astype(np.uint64)
    clumped = rng.random(n) < 0.3
    h[clumped] = (rng.integers(0, 200, int(clumped.sum())).astype(np.uint64) << np.uint64(40)) | np.uint64(5)
    index = DocIndex(q, h)
    assert len(index._levels) >= 3                      # the overflow levels are exercised
    pq = np.concatenate([q, rng.integers(-3, 60, 3000), q[:500]])
    ph = np.concatenate([h, rng.integers(0, 2 ** 63, 3000, dtype=np.uint64), h[:500] ^ np.uint64(1 << 50)])
    got = index.lookup(pq, ph)
    expected = _numpy_lookup(index, pq, ph)
    np.testing.assert_array_equal(got, expected)
    hit = got >= 0
    assert hit[:n].all() and (q[got[:n]] == q).all() and (h[got[:n]] == h).all()


@pytest.mark.parametrize("n", [1, 63, 64, 65, 128, 130])
def test_probe_in_chunks_finds_every_pair_whatever_the_count(n):
    # the probe works through the pairs in chunks of 64 (three passes each): counts on both sides of a chunk's
    # end, pairs of queries absent from the index among them, and clumped hashes reaching the deeper levels
    from ir_rbstar.io.docindex import DocIndex
    rng = np.random.default_rng(n)
    q = rng.integers(0, 3, 400)
    h = (rng.permutation(400).astype(np.uint64) << np.uint64(32)) | np.uint64(9)    # the same low bits
    index = DocIndex(q, h)
    assert len(index._levels) >= 2
    pick = rng.integers(0, 400, n)
    pq, ph = q[pick].copy(), h[pick].copy()
    pq[::5] = 7                                          # a query the index lacks
    ph[1::7] ^= np.uint64(1 << 20)                       # a document it lacks
    got = index.lookup(pq, ph)
    np.testing.assert_array_equal(got, _numpy_lookup(index, pq, ph))
    found = pq != 7
    found[1::7] = False
    np.testing.assert_array_equal(got >= 0, found)
    np.testing.assert_array_equal(got[found], pick[found])


def test_probe_reads_tables_of_eight_byte_rows():
    # an index of 2**31 rows or more stores its rows as int64: the probe reads either width
    from ir_rbstar.io.docindex import DocIndex
    rng = np.random.default_rng(7)
    q, h = rng.integers(0, 5, 500), rng.integers(0, 2 ** 63, 500).astype(np.uint64)
    index = DocIndex(q, h)
    wide = [(mask, base, table.astype(np.int64)) for mask, base, table in index._levels]
    assert index._levels[0][2].dtype == np.int32
    np.testing.assert_array_equal(dictscan.probe(index._local, wide, index._hash, q, h), np.arange(500))


def test_probe_refuses_a_broken_index():
    from ir_rbstar.io.docindex import DocIndex
    q, h = np.arange(4), np.arange(4, dtype=np.uint64)
    index = DocIndex(q, h)
    mask, base, table = index._levels[0]

    def probe(local, levels):
        extension.compiled.probe(local, tuple(levels), index._hash, q, h.view(np.int64), np.empty(4, dtype=np.int64))
    with pytest.raises(ValueError, match="outside its table"):
        probe(index._local, [(mask, base + 10 ** 6, table)])
    with pytest.raises(ValueError, match="outside its table"):
        probe(index._local, [(mask, base, np.full_like(table, 99))])
    with pytest.raises(ValueError, match="outside its table"):       # a broken deeper level, reached when the
        other = np.full_like(table, 3 - np.arange(len(table)) % 4)   # first level holds another document
        probe(index._local, [(mask, base, other), (mask, base + 10 ** 6, table)])
    with pytest.raises(ValueError, match="8-byte integers"):
        probe(index._local.astype(np.int32), index._levels)
    with pytest.raises(ValueError, match="mask, base, table"):
        probe(index._local, [(mask, base)])
    with pytest.raises(ValueError, match="one cell per query"):
        probe(index._local, [(mask, base, table), (mask[:1], base[:1], table)])
    # arrays of other widths are left to the numpy loop (numpy 2 makes them int64; an older numpy on Windows,
    # int32), which gives the same rows
    assert dictscan.probe(index._local.astype(np.int32), index._levels, index._hash, q, h) is None
    assert index.lookup(q, h).tolist() == [0, 1, 2, 3]


def test_a_query_given_twice_by_its_keys_still_gets_the_duplicate_check():
    # the compiled reader's ids are one dict's distinct str keys, and the duplicate check is skipped for them;
    # 1 and '1' are one query, though, whose ids then come from two dicts
    from ir_rbstar.errors import DuplicateDocumentError
    with pytest.raises(DuplicateDocumentError, match="d7"):
        to_ranking({1: {"d7": 1.0, "d8": 0.5}, "1": {"d7": 2.0}})
    ranking = to_ranking({1: {"d7": 1.0, "d8": 0.5}, "2": {"d7": 2.0}})
    assert ranking.dbytes.tolist() == [b"d7", b"d8", b"d7"]


# -- the compiled scan of regular TREC files (dictscan.scan_columns, tried before pyarrow's reader) --

def _arrow(data, ncols, fields, numeric):
    from ir_rbstar.io import arrowscan
    with compiled_off():
        return arrowscan.arrow_columns(data, ncols, fields, numeric, 1 << 30, query=0)


@pytest.mark.parametrize("sep,eol,last", [(" ", "\n", "\n"), ("\t", "\n", ""), (" ", "\n", "")])
def test_scan_gives_pyarrows_columns(sep, eol, last):
    pytest.importorskip("pyarrow")
    rows = [sep.join([f"q{q}\u00e9", "Q0", f"doc-{d}" * (1 + d % 3), str(d + 1), score, "tag"])
            for q in (3, 1, 3) for d, score in enumerate(["1", "-0", "2.5e-3", ".5", "7.", "-1E+2", "0.1"])]
    data = (eol.join(rows) + last).encode()
    for ncols, fields, numeric in ((6, (0, 2, 4), 4), (6, (0, 2, 3), None)):
        got, want = dictscan.scan_columns(data, ncols, fields, numeric, 1 << 30), _arrow(data, ncols, fields, numeric)
        assert got is not None and want is not None
        assert got[0].codes.tolist() == want[0].codes.tolist()
        for f in fields[1:]:
            _same_arrays(got[f], want[f])
    qrels = "\n".join(f"{q} 0 d{d} {d % 4}" for q in range(3) for d in range(5)).encode()
    got, want = dictscan.scan_columns(qrels, 4, (0, 2, 3), None, 1 << 30), _arrow(qrels, 4, (0, 2, 3), None)
    assert got[0].codes.tolist() == want[0].codes.tolist()
    _same_arrays(got[2], want[2])
    _same_arrays(got[3], want[3])


@pytest.mark.parametrize("text", ["q Q0 d 1 1.5 t\n\nq Q0 e 2 1 t\n", "q Q0 d 1 1.5\r t\n", "\tq Q0 d 1 1.5 t\n",
                                  "q Q0 d 1 1.5 t\r\r\n", "q Q0 d 1 1.5 t\rq Q0 e 2 1 t\n", "q Q0 d 1 1.5 t\r\n\r\n",
                                  "q Q0 d 1 1.5 t\n\r", "q Q0 d 1 1.5 t \x0b\n", "q Q0\x0cd 1 1.5 t\n",
                                  "q Q0 d 1 1.5\n", "q Q0 d 1 1.5 t x\n", " q Q0 d 1 1.5 t\n", "q Q0 d 1 1.5 t x \n",
                                  "q Q0 d 1 +1.5 t\n", "q Q0 d 1 1e400 t\n", "q Q0 d 1 nan t\n", "q Q0 d 1 1_0 t\n",
                                  "q Q0 d 1 0x1 t\n", "q Q0 d 1 1e t\n", "q Q0 d 1 . t\n", "q Q0 d\x00 1 1 t\n",
                                  "\xff Q0 d 1 1 t\n", ""])
def test_scan_declines_what_is_not_regular(text):
    # the scanners (or pyarrow's reader) then read it and name what they refuse
    data = text.encode("latin-1")
    assert dictscan.scan_columns(data, 6, (0, 2, 4), 4, 1 << 30) is None


@pytest.mark.parametrize("text", ["q  Q0 d 1 1.5 t\nq\tQ0\t\td 2 1 t\n", "q Q0 d 1 1.5 t \nq Q0 e 2 1 t\t \n",
                                  "q Q0  d 1 1.5 t \r\nq Q0 e 2 1 t\r\n", "q \t Q0 d 1 1.5 t\t\r"])
def test_scan_takes_runs_of_blanks_as_the_scanners_do(text):
    """Runs of spaces and tabs between tokens, blanks ending a line (before LF or CR LF): the tokens the scanners
    find (and pyarrow's reader does not take)."""
    got = dictscan.scan_columns(text.encode(), 6, (0, 2, 4), 4, 1 << 30)
    rows = [line.split() for line in text.encode().splitlines()]
    assert QUERY_IDS.decode(got[0].codes).tolist() == [r[0].decode() for r in rows]
    assert got[2].tolist() == [r[2] for r in rows] and _bits(got[4]) == _bits([float(r[4]) for r in rows])


def test_scan_declines_ids_over_the_budget():
    data = b"".join(b"q Q0 d%d %d 1 t\n" % (i, i) for i in range(50)) + b"q Q0 " + b"x" * 100 + b" 51 1 t\n"
    assert dictscan.scan_columns(data, 6, (0, 2, 4), 4, 51 * 100) is not None
    assert dictscan.scan_columns(data, 6, (0, 2, 4), 4, 51 * 100 - 1) is None
    data = b"".join(b"q Q0 d%d %d 1 t\n" % (i, i) for i in range(50)) + b"q" * 100 + b" Q0 d 51 1 t\n"
    assert dictscan.scan_columns(data, 6, (0, 2, 4), 4, 51 * 100 - 1) is None


NUMBERS = st.from_regex(r"-?[0-9]{1,17}(\.[0-9]{0,17})?([eE][+-]?[0-9]{1,3})?", fullmatch=True) | \
    st.from_regex(r"-?\.[0-9]{1,17}([eE][+-]?[0-9]{1,2})?", fullmatch=True) | \
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.{abs(hash(x)) % 17}g}")


@SETTINGS
@given(st.lists(NUMBERS, min_size=1, max_size=40))
def test_scanned_numbers_are_pythons_floats(numbers):
    # the scan reads a number as Python's float does (the exact fast path, or glibc's strtod_l) or declines the
    # whole file: only for a number that is not finite, or without glibc one beyond the fast path
    taken = []
    for x in numbers:
        got = dictscan.scan_columns(f"q Q0 d 1 {x} t\n".encode(), 6, (0, 2, 4), 4, 1 << 30)
        assert got is not None or math.isinf(float(x)) or not _EVERY_NUMBER, x
        if got is not None:
            assert got[4].view(np.int64).tolist() == np.array([float(x)]).view(np.int64).tolist(), x  # -0.0 too
            taken.append(x)
    data = "".join(f"q Q0 d{i} {i + 1} {x} t\n" for i, x in enumerate(numbers)).encode()
    got = dictscan.scan_columns(data, 6, (0, 2, 4), 4, 1 << 30)
    assert (got is not None) == (len(taken) == len(numbers))
    if got is not None:
        assert got[4].view(np.int64).tolist() == np.array([float(x) for x in numbers]).view(np.int64).tolist()


#: whether the C library rounds strtod_l correctly and the scan reads every finite plain number (glibc); elsewhere
#: numbers beyond the exact fast path leave the file to pyarrow's reader
_EVERY_NUMBER = platform.libc_ver()[0] == "glibc"


def _bits(values) -> bytes:
    return np.asarray(values, dtype=np.float64).tobytes()


def test_the_scan_reads_short_and_long_numbers_as_python_does(tmp_path):
    short = b"q Q0 a 1 7.6953125 t\nq Q0 b 2 -0.000123 t\nq Q0 c 3 12345678901234.5 t\nq Q0 d 4 1e22 t\n"
    got = dictscan.scan_columns(short, 6, (0, 2, 4), 4, 1 << 30)
    assert _bits(got[4]) == _bits([7.6953125, -0.000123, 12345678901234.5, 1e22])
    # 17-digit reprs, more digits than a double holds, powers of ten beyond 10^22, halfway cases, subnormals, -0
    for long in (b"0.30000000000000004", b"0.9906681403517723", b"1234567890123456", b"1e23", b"1e-23",
                 b"9007199254740993", b"2.4703282292062328e-324", b"1e-400", b"-0.0", b"4.9e-324",
                 b"123456789012345678901234567890.123456789", b"1.7976931348623157e308"):
        got = dictscan.scan_columns(short + b"q Q0 e 5 " + long + b" t\n", 6, (0, 2, 4), 4, 1 << 30)
        if not _EVERY_NUMBER:
            assert got is None
            continue
        assert _bits(got[4][-1:]) == _bits([float(long)]), long
    for infinite in (b"1e999", b"-2e308"):                # not finite: declined (the readers name it)
        assert dictscan.scan_columns(short + b"q Q0 e 5 " + infinite + b" t\n", 6, (0, 2, 4), 4, 1 << 30) is None
    # a file larger than SLOW_NUMBERS leaves its long numbers to pyarrow's reader: the same values either way
    data = short + b"q Q0 e 5 0.9906681403517723 t\n"
    assert extension.compiled.scan(data, 6, (0, 2, 4), 4, 1 << 30, False) is None
    assert extension.compiled.scan(short, 6, (0, 2, 4), 4, 1 << 30, False) is not None
    with mock.patch.object(dictscan, "SLOW_NUMBERS", 0):
        assert dictscan.scan_columns(data, 6, (0, 2, 4), 4, 1 << 30) is None
    path = tmp_path / "run.txt"
    path.write_bytes(data.replace(b" t\n", b" tag\n"))
    with mock.patch.object(dictscan, "SLOW_NUMBERS", 0):
        elsewhere = ir_rbstar.read_run(path)
    here = ir_rbstar.read_run(path)
    assert _bits(here["score"]) == _bits(elsewhere["score"]) and here["doc_id"].tolist() == elsewhere["doc_id"].tolist()


@SETTINGS
@given(st.lists(st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b"\x00", b"x")), min_size=1, max_size=30),
       st.integers(0, 9))
def test_hashes_are_the_numpy_steps(ids, extra):
    # any width (the padding of a wider column, too: the hash does not depend on it) and non-contiguous ids
    from ir_rbstar.io import ids as id_module
    arr = np.array(ids, dtype=f"S{max(map(len, ids)) + extra}")
    for column in (arr, np.repeat(arr, 2)[::2]):
        with compiled_off():
            want = id_module.hash_ids(column)
        got = id_module.hash_ids(column)
        assert got.dtype == np.uint64 and got.tolist() == want.tolist()
        assert got.flags.writeable


_TOKEN_BYTES = [b"0", b"7", b".", b"-", b"+", b"e", b"a", b"Q", b"\xc3\xa9"]
_ANY_BYTES = [b" ", b"\t", b"\n", b"\r", b"\x00", b"\xff", b"0", b"."]


@st.composite
def _scan_inputs(draw):
    """Rows of tokens: numbers, or the characters a TREC file's layout turns on (digits, signs, points, exponents,
    letters, a two-byte UTF-8 character), one separator, LF or CR LF line ends, a last one or not, and now and
    then one byte replaced by a separator, a newline, CR, NUL or a byte that is not UTF-8; and a layout to read
    them with."""
    ncols = draw(st.integers(1, 4))
    sep = draw(st.sampled_from([b" ", b"\t"]))
    token = st.one_of(st.from_regex(rb"-?[0-9]{1,4}(\.[0-9]{0,3})?(e-?[0-9])?", fullmatch=True),
                      # numbers beyond the exact fast path: Python's reprs, long digit strings, far exponents
                      st.floats(allow_nan=False, allow_infinity=False).map(lambda x: repr(x).encode()),
                      st.from_regex(rb"-?[0-9]{14,25}(\.[0-9]{0,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
                      st.lists(st.sampled_from(_TOKEN_BYTES), min_size=1, max_size=3).map(b"".join))
    # between tokens the file's separator, now and then a run of blanks; now and then blanks ending a line
    gap = st.one_of(st.just(sep), st.sampled_from([b"  ", b" \t", b"\t\t", b"\t "]))
    row = st.tuples(st.lists(st.tuples(gap, token), min_size=ncols - 1, max_size=ncols - 1), token,
                    st.sampled_from([b"", b"", b"", b" ", b"\t "]))
    rows = draw(st.lists(row.map(lambda r: r[1] + b"".join(g + t for g, t in r[0]) + r[2]), min_size=1, max_size=4))
    eol = draw(st.sampled_from([b"\n", b"\r\n"]))               # LF or CR LF line ends
    data = eol.join(rows) + draw(st.sampled_from([b"", eol, b"\r"]))
    if data and draw(st.booleans()):
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + draw(st.sampled_from(_ANY_BYTES)) + data[at + 1:]
    others = draw(st.lists(st.integers(1, ncols - 1), unique=True, max_size=ncols - 1)) if ncols > 1 else []
    numeric = draw(st.sampled_from([None] + others))
    return data, ncols, tuple([0] + others), numeric


def _scan_by_definition(data, ncols, fields, numeric):
    """What the scan must give, from the layout's definition (None where it must decline): tokens separated by
    runs of spaces and tabs, none before a line's first token, any after its last; a CR before a newline, or
    ending the data after a token or a blank, is part of the line's end; any other byte <= 32 declines."""
    import re
    data = data.replace(b"\r\n", b"\n")
    if data.endswith(b"\r") and not data.endswith(b"\n\r"):
        data = data[:-1]
    if not data or any(c <= 32 and c not in b" \t\n" for c in data):
        return None
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    rows = []
    for line in lines:
        if not line or line[:1] in (b" ", b"\t"):
            return None
        tokens = re.split(rb"[ \t]+", line.rstrip(b" \t"))
        if len(tokens) != ncols:
            return None
        rows.append(tokens)
    if not rows:
        return None
    if numeric is not None:
        number = re.compile(rb"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
        if not all(number.fullmatch(r[numeric]) for r in rows):
            return None
    return rows


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scan_inputs())
def test_the_scan_reads_what_the_layout_defines(case):
    data, ncols, fields, numeric = case
    got = dictscan.scan_columns(data, ncols, fields, numeric, 1 << 30)
    rows = _scan_by_definition(data, ncols, fields, numeric)
    if rows is None:
        assert got is None
        return
    if got is None:
        # declined only for a query id that is not UTF-8, a number that is not finite, or (without glibc) one
        # beyond the exact fast path
        not_utf8 = any(not _utf8(r[0]) for r in rows)
        infinite = numeric is not None and any(math.isinf(float(r[numeric])) for r in rows)
        assert not_utf8 or infinite or not _EVERY_NUMBER
        return
    assert QUERY_IDS.decode(got[0].codes).tolist() == [r[0].decode() for r in rows]
    for f in fields[1:]:
        if f == numeric:
            assert _bits(got[f]) == _bits([float(r[f]) for r in rows])
        else:
            assert got[f].tolist() == [r[f] for r in rows]


def _utf8(b: bytes) -> bool:
    try:
        b.decode()
    except UnicodeDecodeError:
        return False
    return True


def test_compiled_steps_refuse_arguments_that_would_read_outside_their_buffers():
    """Arguments the package never passes, checked so that a wrong one is an error, not a read out of bounds."""
    ids = np.array([b"a", b"b", b"c"])
    same = np.array([1, 1], dtype=np.uint8)
    with pytest.raises(ValueError, match="order must hold rows 0 to n - 1"):
        extension.compiled.tie_order(same, np.array([0, 1, 7], dtype=np.int64), ids, 1)
    assert extension.compiled.tie_order(same, np.array([2, 0, 1], dtype=np.int64), ids, 1) is not None
    data = b"q Q0 d 1 1.5 t\n"
    for numeric in (0, 3, 6):               # the query field, a field not kept, a column outside the row
        with pytest.raises(ValueError, match="numeric must be -1 or a kept field"):
            extension.compiled.scan(data, 6, (0, 2, 4), numeric, 1 << 30)
    assert extension.compiled.scan(data, 6, (0, 2, 4), -1, 1 << 30) is not None
