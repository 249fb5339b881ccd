"""The (query, document) hash index that joins runs, references and qrels (ir_rbstar.io.DocIndex)."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings, strategies as st

from tests.conftest import examples
from tests.helpers import compiled_off, keeping_every_table

import ir_measures
import ir_rbstar
from ir_rbstar import io as rio
from ir_rbstar.io import querytable
from ir_rbstar.errors import DuplicateDocumentError, RbstarError
from ir_rbstar.io.docindex import JudgmentIndex, SortedIndex, _differ, judgment_index, verify_matches

# Hashes that share their low bits (they all want the same slots of a query's table) but differ above:
# they exercise the overflow levels of the index, which uniform hashes rarely reach on small inputs.
CLUMPED = st.integers(0, 40).map(lambda k: (k << 40) | 5)
UNIFORM = st.integers(0, 2 ** 64 - 1)


@st.composite
def pairs(draw, max_rows=60):
    n = draw(st.integers(0, max_rows))
    q = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    h = draw(st.lists(st.one_of(CLUMPED, UNIFORM), min_size=n, max_size=n))
    return np.array(q, dtype=np.int64), np.array(h, dtype=np.uint64)


# the hash index, and the sorted index that large runs use (with its usual key prefixes, and with
# prefixes of 4 and 1 bits, so that most rows share a prefix with another and are told apart exactly)
# and the small qrels' index: lookups in its sorted keys, in its hash index, or either by size
class _NumpyLookups:
    """An index whose lookups run the numpy loop (the compiled probe switched off)."""

    def __init__(self, index):
        self.index, self.clashes = index, index.clashes

    def lookup(self, q, h):
        with compiled_off():
            return self.index.lookup(q, h)


BUILDERS = {"DocIndex": rio.DocIndex, "DocIndex, numpy lookups": lambda q, h: _NumpyLookups(rio.DocIndex(q, h)),
            "SortedIndex": SortedIndex,
            "SortedIndex, 4-bit prefixes": lambda q, h: SortedIndex(q, h, row_bits=60),
            "SortedIndex, 1-bit prefixes": lambda q, h: SortedIndex(q, h, row_bits=63),
            "JudgmentIndex": JudgmentIndex,
            "JudgmentIndex, hash lookups": lambda q, h: JudgmentIndex(q, h, few_probes=0),
            "JudgmentIndex, either": lambda q, h: JudgmentIndex(q, h, few_probes=20)}


@settings(max_examples=examples(300), deadline=None)
@given(stored=pairs(), probes=pairs())
def test_lookup_agrees_with_a_dict(stored, probes):
    # every index on the same drawn pairs (one draw checks all of them: drawing cost more than the checks)
    for kind, build in BUILDERS.items():
        try:
            _check_lookup(build, stored, probes)
        except AssertionError as e:
            raise AssertionError(f"{kind}: {e}") from e


def _check_lookup(build, stored, probes):
    q, h = stored
    first = {}
    for i, key in enumerate(zip(q.tolist(), h.tolist())):
        first.setdefault(key, i)
    index = build(q, h)
    # every stored pair is found, at a row holding that pair
    rows = index.lookup(q, h)
    assert (rows >= 0).all()
    assert np.array_equal(q[rows], q) and np.array_equal(h[rows], h)
    # pairs stored once are found at their own row; a repeated pair is reported as a clash
    repeated = {key for key in first if sum(1 for k in zip(q.tolist(), h.tolist()) if k == key) > 1}
    for i, key in enumerate(zip(q.tolist(), h.tolist())):
        if key not in repeated:
            assert rows[i] == i
    clashed = set() if index.clashes is None else {(int(q[a]), int(h[a])) for a in index.clashes[0]} | \
        {(int(q[b]), int(h[b])) for b in index.clashes[1]}
    assert clashed == repeated
    # probes: found exactly when stored (queries beyond the stored ones included)
    pq, ph = probes
    pq = pq + 3                                       # queries 7..9 are unknown to the index
    got = index.lookup(pq, ph)
    for i, key in enumerate(zip(pq.tolist(), ph.tolist())):
        if key in first:
            assert (int(q[got[i]]), int(h[got[i]])) == key
        else:
            assert got[i] == -1


def test_small_qrels_get_the_judgment_index_and_large_ones_the_hash_index(monkeypatch):
    from ir_rbstar.io import docindex, extension
    q, h = np.zeros(5, dtype=np.int64), np.arange(5, dtype=np.uint64)
    with compiled_off():
        assert isinstance(judgment_index(q, h), JudgmentIndex)
    # with the compiled probe, small qrels too get the hash index (its lookups are faster than the sorted keys')
    assert isinstance(judgment_index(q, h), rio.DocIndex if extension.compiled is not None else JudgmentIndex)
    monkeypatch.setattr(docindex, "SMALL_INDEX", 4)
    assert isinstance(judgment_index(q, h), rio.DocIndex)
    qrels = rio.to_qrels(pd.DataFrame({"query_id": ["1"] * 5, "doc_id": list("abcde"), "relevance": [1] * 5}))
    assert isinstance(qrels._cache["index"], rio.DocIndex)


def test_empty_index_and_empty_lookup():
    index = rio.DocIndex(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64))
    assert index.lookup(np.array([0, 3]), np.array([1, 2], dtype=np.uint64)).tolist() == [-1, -1]
    assert index.lookup(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64)).tolist() == []


def _colliding_hash(monkeypatch):
    """Make the document ids 'doc-aaaaaaaaaa' and 'doc-bbbbbbbbbb' (more than 8 bytes) hash alike."""
    real = rio.hash_ids

    def fake(ids):
        h = real(ids)
        h[ids == b"doc-bbbbbbbbbb"] = real(np.array([b"doc-aaaaaaaaaa"]))[0]
        return h
    monkeypatch.setattr(rio.columns, "hash_ids", fake)      # where the columns of a DataFrame are hashed


def test_hash_collision_within_a_run_is_reported_not_taken_for_a_duplicate(monkeypatch):
    _colliding_hash(monkeypatch)
    frame = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-aaaaaaaaaa", "doc-bbbbbbbbbb"], "score": [2.0, 1.0]})
    with pytest.raises(RbstarError, match="hash collision") as err:
        rio.to_ranking(frame)
    assert not isinstance(err.value, DuplicateDocumentError)


def test_hash_collision_between_run_and_reference_is_reported(monkeypatch):
    _colliding_hash(monkeypatch)
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-aaaaaaaaaa", "doc-cccccccccc"], "score": [2.0, 1.0]})
    ref = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["doc-bbbbbbbbbb", "doc-cccccccccc"], "score": [2.0, 1.0]})
    ir_rbstar.register_run("collide_ref", ref)
    try:
        with pytest.raises(RbstarError, match="hash collision"):
            ir_measures.calc_aggregate([ir_rbstar.parse("RBO(p=0.9,ref='collide_ref')")[0]], None, run)
    finally:
        ir_rbstar.unregister_run("collide_ref")


def test_hash_collision_between_run_and_judgments_is_reported(monkeypatch):
    # the qrels' queries in another order than the run's: the run's rows are gathered in the qrels' order, their
    # ids made on first use, which the join must still compare where ids are longer than 8 bytes
    _colliding_hash(monkeypatch)
    qrels = {"q2": {"doc-cccccccccc": 1}, "q1": {"doc-bbbbbbbbbb": 1}}
    run = {"q1": {"doc-aaaaaaaaaa": 2.0, "doc-cccccccccc": 1.0}, "q2": {"doc-cccccccccc": 1.0}}
    with pytest.raises(RbstarError, match="hash collision"):
        ir_measures.calc_aggregate([ir_rbstar.parse("RBP(p=0.5)")[0]], qrels, run)


def test_duplicate_names_the_earliest_repeated_pair():
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q1", "q2"], "doc_id": ["a", "b", "c", "b", "c"],
                          "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    with pytest.raises(DuplicateDocumentError, match="'b' appears twice for query 'q1'"):
        rio.to_ranking(frame)


# --- the sort key, the index kept across the sort, and the two ways of joining judgments -----------

FLOATS32 = st.floats(allow_nan=False, width=32)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(FLOATS32, min_size=1, max_size=40))
def test_descending_code_orders_like_the_float32_scores(values):
    key = np.array(values, dtype=np.float32)
    code = rio.tables._descending_code(key)
    i, j = np.meshgrid(np.arange(len(key)), np.arange(len(key)))
    # a larger score gets a smaller code; equal scores (0.0 and -0.0 included) the same code
    assert np.array_equal(code[i] < code[j], key[i] > key[j])
    assert np.array_equal(code[i] == code[j], key[i] == key[j])
    assert (code >= 0).all() and (code < 2 ** 32).all()


@st.composite
def run_and_qrels(draw):
    docs = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
    run, qrels = {}, {}
    for q in draw(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=5, unique=True)):
        ranked = draw(st.lists(st.sampled_from(docs), max_size=len(docs), unique=True))
        run[q] = {d: float(draw(st.integers(0, 3))) for d in ranked}
    for q in draw(st.lists(st.sampled_from("abcdefg"), max_size=6, unique=True)):
        judged = draw(st.lists(st.sampled_from(docs), max_size=4, unique=True))
        qrels[q] = {d: draw(st.integers(-1, 3)) for d in judged}
    return run, qrels


@settings(max_examples=examples(300), deadline=None)
@given(run_and_qrels(), st.sampled_from([None, 1, 3]), st.booleans())
def test_judgments_joined_from_either_side_agree(data, cutoff, extra_query):
    """The judgments of B come from looking each row up in the qrels, or (when the run keeps its index
    and the judgments are fewer) each judgment up in the run: the same grades either way, on the run's
    own queries or a universe with queries the run lacks, with or without a cutoff; and the rows are in
    trec_eval's order (score descending, then document id descending) after a sort that moved them."""
    from ir_rbstar.context import gather, join_judgments
    run_d, qrels_d = data
    run, qrels = rio.to_ranking(run_d), rio.to_qrels(qrels_d)
    assert not run.has_index()                  # duplicates found by a sort: the index is built on first use
    universe = run.qcodes if not extra_query else np.append(run.qcodes, rio.QUERY_IDS.encode(["zz"]))
    b = gather(run, universe, cutoff)
    queries = universe[b.seg]
    by_rows = join_judgments(run, qrels, b, lambda: queries, side="rows")
    by_judgments = join_judgments(run, qrels, b, lambda: queries, side="judgments")
    assert np.array_equal(by_rows[0], by_judgments[0]) and np.array_equal(by_rows[1], by_judgments[1])
    # and both are the judgments, read off the dicts
    names = rio.QUERY_IDS.decode(queries)
    ids = [d.decode() for d in b.dbytes.tolist()]
    expected = [qrels_d.get(q, {}).get(d) for q, d in zip(names, ids)]
    assert by_rows[1].tolist() == [g is not None for g in expected]
    assert by_rows[0].tolist() == [g or 0 for g in expected]
    for q, docs in ((q, docs) for q, docs in run_d.items() if docs):
        seg = list(rio.QUERY_IDS.decode(run.qcodes)).index(q)
        ranked = [d.decode() for d in run.dbytes[run.offsets[seg]:run.offsets[seg + 1]].tolist()]
        assert ranked == sorted(docs, key=lambda d: (docs[d], d.encode()), reverse=True)


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_a_run_in_score_order_with_ties_moves_only_the_tied_rows(tmp_path, engine):
    """A run already in score order (as TREC files and most dicts are) has only its tied rows reordered
    (by document id, descending): the ranking, its index (built on first use), the judgments joined from either side,
    and a duplicate inside a tie group (named by its input lines) all come out as for a full sort."""
    pytest.importorskip("numba") if engine == "numba" else None
    from ir_rbstar import engine as E
    from ir_rbstar.context import gather, join_judgments
    run_d = {"q": {"a": 2.0, "b": 1.0, "c": 1.0, "e": 1.0, "d": 0.5}, "r": {"x": 1.0, "y": 1.0}}
    qrels = rio.to_qrels({"q": {"b": 1, "c": 2, "d": 3}, "r": {"y": 1}})
    with E.using(engine):
        run = rio.to_ranking(run_d)
        ranked = [d.decode() for d in run.dbytes.tolist()]
        assert ranked == ["a", "e", "c", "b", "d", "y", "x"]
        assert run.scores.tolist() == [2.0, 1.0, 1.0, 1.0, 0.5, 1.0, 1.0]
        assert not run.has_index()          # built on first use (the join below), on the ranked rows
        b = gather(run, run.qcodes)
        for side in ("rows", "judgments"):
            grade, judged = join_judgments(run, qrels, b, lambda: run.qcodes[b.seg], side=side)
            assert grade.tolist() == [0, 0, 2, 1, 3, 1, 0] and judged.tolist() == [0, 0, 1, 1, 1, 1, 0]
        path = tmp_path / "dup.run"
        path.write_text("q Q0 a 1 2.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 1.0 t\nq Q0 b 4 1.0 t\n")
        with pytest.raises(DuplicateDocumentError, match=r"'b' appears twice for query 'q' \(lines 2 and 4\)"):
            rio.read_trec_run(str(path))
        frame = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "b"], "score": [2.0, 1, 1, 1]})
        with pytest.raises(DuplicateDocumentError, match=r"'b' appears twice for query 'q'"):
            rio.to_ranking(frame)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["a", "b", "c", "d", "D123456789"]),
                          st.sampled_from([1.0, 2.0, 2.0, 0.5])), min_size=1, max_size=25),
       st.lists(st.tuples(st.sampled_from(["q1", "q2", "q4"]), st.sampled_from(["a", "b", "e", "D123456789"])),
                max_size=10))
def test_the_large_run_path_gives_the_same_ranking_error_and_joins(rows, probes):
    """Runs of a million rows or more check for duplicates with the sorted index built beside the sort
    (ranking_from_columns' large-input path), or, when their queries are long, by the table of each query's
    sorted rows (kept for the joins): the same Ranking, the same error and the same joins as the
    small-input path, here forced onto the same small inputs."""
    from ir_rbstar.io import columns

    def convert(threshold):
        saved = columns._PARALLEL_ROWS
        columns._PARALLEL_ROWS = threshold
        try:
            return rio.to_ranking([ir_measures.ScoredDoc(*r) for r in rows]), None
        except DuplicateDocumentError as e:
            return None, str(e)
        finally:
            columns._PARALLEL_ROWS = saved

    small, small_error = convert(10 ** 9)
    large, large_error = convert(0)
    with keeping_every_table():          # long queries (here: of any length): their table kept, no index
        long, long_error = convert(0)
    assert small_error == large_error == long_error
    if small is None:
        return
    assert isinstance(large._cache["index"], (SortedIndex, rio.MovedIndex))
    with keeping_every_table():                  # an index only where the rows do not fit a table
        fits = querytable.wide_layout(rio.QUERY_IDS.encode([r[0] for r in rows])) is not None
    assert ("index" in long._cache) == (not fits)
    for name in ("qcodes", "offsets", "dbytes", "docs", "scores"):
        assert getattr(small, name).tobytes() == getattr(large, name).tobytes() == getattr(long, name).tobytes(), name
    pq = rio.QUERY_IDS.encode([q for q, _ in probes])
    pb = np.array([d.encode() for _, d in probes], dtype="S10") if probes else np.empty(0, dtype="S1")
    ph = rio.hash_ids(pb)
    assert small.find(pq, ph, pb).tolist() == large.find(pq, ph, pb).tolist() == long.find(pq, ph, pb).tolist()


@st.composite
def _near_pair(draw):
    """Two ids: the same one, or one byte changed, cut or NUL-extended (anywhere: past the first word too)."""
    a = draw(st.binary(max_size=17))
    b, how = bytearray(a), draw(st.sampled_from(["same", "byte", "cut", "nul"]))
    if how == "byte" and b:
        b[draw(st.integers(0, len(b) - 1))] ^= draw(st.integers(1, 255))
    elif how == "cut" and b:
        del b[draw(st.integers(0, len(b) - 1)):]
    elif how == "nul":
        b += b"\x00"
    return a, bytes(b)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_near_pair(), max_size=12), st.integers(1, 20), st.integers(1, 20))
@example([(b"document-0001", b"document-0002"), (b"ab\x00c", b"ab")], 16, 13)
def test_matched_ids_compare_as_numpy_compares_them(pairs, width_a, width_b):
    """verify_matches compares ids as 8-byte words: the rows numpy's comparison finds different, whatever
    the two columns' widths (ids cut to them, NUL bytes inside or at the end)."""
    a = np.array([p[0] for p in pairs], dtype=f"S{width_a}")
    b = np.array([p[1] for p in pairs], dtype=f"S{width_b}")
    np.testing.assert_array_equal(_differ(a, b), a != b)
    np.testing.assert_array_equal(_differ(a, a.copy()), np.zeros(len(a), dtype=bool))


def test_a_mismatched_pair_names_both_ids():
    a = np.array([b"clueweb09-en0000-00-00001", b"same-long-document-id-0001"])
    b = np.array([b"clueweb09-en0000-00-00001", b"same-long-document-id-0002"])
    verify_matches(a[:1], b[:1], "src")
    with pytest.raises(RbstarError, match="src: 64-bit hash collision between document ids "
                                          "b'same-long-document-id-0001' and b'same-long-document-id-0002'"):
        verify_matches(a, b, "src")
