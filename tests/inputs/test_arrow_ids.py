"""Document and query ids of pyarrow-backed DataFrame columns (pandas' default string type) read from the
arrow buffers: the same Ranking as the general path (object columns), whatever the ids hold."""
from __future__ import annotations

import contextlib

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings, strategies as st

from ir_rbstar.errors import DuplicateDocumentError
from ir_rbstar.io.convert import to_ranking
from ir_rbstar.io import idcolumns
from ir_rbstar.io.idcolumns import _ascii_bytes
from ir_rbstar.io.ids import QUERY_IDS

from tests.conftest import examples
from tests.helpers import compiled_off

pa = pytest.importorskip("pyarrow")

_ALPHABET = st.sampled_from(["a", "b", "Z", "0", "9", "-", " ", "\x00", "é", "✓"])


def _frames(qids, dids, scores):
    arrow = pd.DataFrame({"query_id": pd.array(qids, dtype="string[pyarrow]"),
                          "doc_id": pd.array(dids, dtype="string[pyarrow]"), "score": scores})
    plain = pd.DataFrame({"query_id": np.array(qids, dtype=object), "doc_id": np.array(dids, dtype=object),
                          "score": scores})
    return arrow, plain


def _same(a, b):
    assert QUERY_IDS.decode(a.qcodes).tolist() == QUERY_IDS.decode(b.qcodes).tolist()
    assert np.array_equal(a.offsets, b.offsets)
    assert a.dbytes.tolist() == b.dbytes.tolist() and a.dbytes.dtype == b.dbytes.dtype
    assert np.array_equal(a.docs, b.docs) and np.array_equal(a.scores, b.scores)


# ids of several lengths padded by numpy or by arrow (the C extension switched off), or in C where it is built
@pytest.mark.parametrize("how", ["numpy", "arrow", "compiled"])
@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "30"]), st.text(_ALPHABET, max_size=12),
                          st.integers(0, 5)), min_size=1, max_size=30, unique_by=lambda t: (t[0], t[1])),
       st.integers(0, 3))
def test_arrow_columns_convert_as_object_columns(how, rows, skip):
    with _way(how):
        _arrow_columns_convert_as_object_columns(rows, skip)


@contextlib.contextmanager
def _way(how):
    """The numpy steps ("numpy": ids of several lengths padded by a scatter; "arrow": by arrow's padding), with
    the C extension switched off, or the C steps ("compiled", skipped where the extension is not built)."""
    if how == "compiled":
        from ir_rbstar.io import extension
        if extension.compiled is None:
            pytest.skip("the C extension is not built")
        yield
        return
    with compiled_off(), mock.patch.object(idcolumns, "_PAD_BY_ARROW", idcolumns._PAD_BY_ARROW if how == "numpy" else 0):
        yield


def _arrow_columns_convert_as_object_columns(rows, skip):
    qids, dids, scores = (list(c) for c in zip(*rows, strict=True))
    arrow, plain = _frames(qids, dids, np.array(scores, dtype=np.float64))
    skip = min(skip, len(rows) - 1)
    arrow, plain = arrow.iloc[skip:], plain.iloc[skip:]          # a slice: arrow arrays with an offset
    try:
        expected = to_ranking(plain)
    except DuplicateDocumentError as e:          # ids that differ by trailing NUL bytes: the same id stored
        with pytest.raises(DuplicateDocumentError) as got:
            to_ranking(arrow)
        assert str(got.value) == str(e)
        return
    _same(to_ranking(arrow), expected)


@pytest.mark.parametrize("how", ["numpy", "arrow", "compiled"])
def test_ascii_bytes_reads_the_buffers(how):
    with _way(how):
        for kind in (pa.string(), pa.large_string()):
            arr = pa.array(["d10", "", "d2", "abcdef"], type=kind).slice(1)
            out = _ascii_bytes(arr)
            assert out.dtype == np.dtype("S6") and out.tolist() == [b"", b"d2", b"abcdef"]
            out[0] = b"x"                                  # writable: the sort may move rows in place
            assert arr.to_pylist() == ["", "d2", "abcdef"]  # and the arrow array is not changed
    assert _ascii_bytes(pa.array(["ab", "cd"])).tolist() == [b"ab", b"cd"]      # one length (a copy of the buffer)
    assert _ascii_bytes(pa.array(["a\x00", "b"])) is None                        # NUL bytes: general path
    assert _ascii_bytes(pa.array(["é", "b"])) is None                            # non-ASCII: general path
    assert _ascii_bytes(pa.array(["", ""])).tolist() == [b"", b""]


def test_duplicates_in_arrow_columns_are_named():
    arrow, _ = _frames(["q1", "q1", "q2", "q1"], ["d1", "d2", "d1", "d1"], np.array([3.0, 2.0, 1.0, 0.5]))
    with pytest.raises(DuplicateDocumentError, match="document 'd1' appears twice for query 'q1'"):
        to_ranking(arrow, source="src")


@pytest.mark.parametrize("interleaved", [False, True])
def test_arrow_query_ids_in_blocks_or_interleaved(interleaved):
    """Query ids in blocks are interned per block; interleaved ones (many short blocks) through arrow's
    dictionary encoding: the same Ranking as from object columns either way."""
    qids = [f"q{i % 7}" if interleaved else f"q{i // 50}" for i in range(350)]
    dids = [f"d{i}" for i in range(350)]
    arrow, plain = _frames(qids, dids, np.arange(350, dtype=np.float64) % 11)
    _same(to_ranking(arrow), to_ranking(plain))



@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.text(_ALPHABET, max_size=4), max_size=30), st.booleans(), st.booleans(),
       st.integers(0, 3), st.integers(0, 3))
@example(["ab", "ab", "ba", "ba", "ab"], True, False, 0, 0)
@example(["q1", "q1", "q2", "q\x00", "q\x00", "q2"], True, True, 1, 0)
def test_new_ids_marks_each_id_unlike_the_one_before(ids, one_length, large, cut_front, cut_back):
    """Query blocks (:func:`_new_ids`): whether each id differs from the one before, as comparing the ids
    as text says, for ids of one length in bytes (compared as rows of the data buffer) and of several
    (arrow's kernel), NUL bytes and non-ASCII ids included, in string and large_string arrays and in
    slices of them (an offset into the buffers)."""
    from ir_rbstar.io.idcolumns import _new_ids
    if one_length and ids:                      # ids of one length in bytes: ASCII, cut to the first's
        ascii_ids = ["".join(c if ord(c) < 128 else "a" for c in t) for t in ids]
        width = max(len(ascii_ids[0]), 1)
        ids = [(t + "xyzw" * width)[:width] for t in ascii_ids]
    arr = pa.array(ids, type=pa.large_string() if large else pa.string())
    arr = arr.slice(min(cut_front, len(ids)), max(len(ids) - cut_front - cut_back, 0))
    text = arr.to_pylist()
    want = np.array([i == 0 or text[i] != text[i - 1] for i in range(len(text))], dtype=bool)
    assert np.array_equal(_new_ids(arr), want)


@pytest.mark.parametrize("cuts", [(0, 3), (3,), (2, 5, 7), (0, 0, 4)])
def test_arrow_columns_in_several_chunks_convert_as_object_columns(cuts):
    """A frame put together by ``pd.concat`` holds its arrow columns in several chunks (empty ones and a
    sliced one among them, the rows of a query across two): combined, they give the Ranking of the object
    columns, for ids of one length (query blocks compared on the data buffer) and of several."""
    qids = ["q1", "q1", "q2", "q2", "q2", "q3", "q3", "q1", "q4"]
    for dids in ([f"d{i}" for i in range(9)], ["a", "bb", "", "ccc", "d", "ee", "f", "é", "g"]):
        arrow, plain = _frames(qids, dids, np.array([3.0, 2.0, 2.0, 1.0, 2.0, 0.5, 0.5, 1.0, 4.0]))
        bounds = (0, *cuts, len(qids))
        parts = [arrow.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        joined = pd.concat(parts)
        assert joined["query_id"].array.__arrow_array__().num_chunks == len(parts)
        _same(to_ranking(joined), to_ranking(plain))


@pytest.mark.parametrize("how", ["numpy", "compiled"])
@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.sampled_from(["q1", "q2", "q10", "", "q\x00", "é", "q1 "]), max_size=40),
       st.booleans(), st.integers(0, 3), st.integers(0, 3), st.sampled_from([None, 1, 3]))
def test_query_blocks_intern_each_block_of_equal_ids(how, ids, large, cut_front, cut_back, limit):
    """Query ids per block of equal ids (:func:`idcolumns._query_blocks`), in numpy and arrow steps or in C: the
    same ids in the same order as the array holds them, or None (arrow's dictionary encoding then) where there
    are more blocks than the limit, in string and large_string arrays and in slices of them."""
    arr = pa.array(ids, type=pa.large_string() if large else pa.string())
    arr = arr.slice(min(cut_front, len(ids)), max(len(ids) - cut_front - cut_back, 0))
    text = arr.to_pylist()
    blocks = sum(1 for i in range(len(text)) if i == 0 or text[i] != text[i - 1])
    with _way(how):
        got = idcolumns._query_blocks(arr, limit)
    if blocks > (limit if limit is not None else max(64, len(text) // 16)):
        assert got is None
    else:
        assert QUERY_IDS.decode(got.codes).tolist() == text


def test_ascii_ids_in_c_view_budget_and_refusals():
    """The C step's own answers: a view of the data buffer for ids of one length when asked (the caller's
    arrow array, nothing else holds it), a copy otherwise; None (the numpy path, which names the id) past the
    width budget; None for NUL bytes and non-ASCII ids; inconsistent offsets refused."""
    from ir_rbstar.io import dictscan, extension
    if extension.compiled is None:
        pytest.skip("the C extension is not built")
    offsets, data = idcolumns._string_buffers(pa.array(["ab", "cd", "ef"]).slice(1))
    assert dictscan.ascii_ids(offsets, data, 1 << 20, True) == (None, 2)
    ids, width = dictscan.ascii_ids(offsets, data, 1 << 20, False)
    assert width == 2 and ids.tolist() == [b"cd", b"ef"]
    offsets, data = idcolumns._string_buffers(pa.array(["a", "bcd", ""]))
    assert dictscan.ascii_ids(offsets, data, 8, False) is None           # 3 rows x 3 bytes > 8
    assert dictscan.ascii_ids(offsets, data, 9, False)[0].tolist() == [b"a", b"bcd", b""]
    for bad in (["a\x00"], ["é"]):
        assert dictscan.ascii_ids(*idcolumns._string_buffers(pa.array(bad)), 1 << 20, False) is None
    with pytest.raises(ValueError, match="offsets outside the data"):
        extension.compiled.ascii_ids(np.array([0, 5], dtype=np.int32), np.zeros(3, dtype=np.uint8), 100, False)
    with pytest.raises(ValueError, match="offsets must hold 4- or 8-byte integers"):
        extension.compiled.id_blocks(np.array([0, 1], dtype=np.int16), np.zeros(3, dtype=np.uint8), 10)
