"""The document hash (ir_rbstar/io/ids.py::hash_ids) equals its definition id by id, whichever share of the ids
reaches each later 8-byte word (all of them: mixed in place; most: mixed whole and kept where they apply;
few: gathered), and whatever the padded width of the column; and the ids' 8-byte words (``id_words``), which
the hash, the id comparison of the joins (``docindex._differ``) and the tie-break by id all read, are the
ids' bytes, NUL-padded, in either byte order, for every width, layout and number of words."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from ir_rbstar.io.docindex import _differ
from ir_rbstar.io.ids import hash_ids, id_words

from tests.conftest import examples

_M1, _M2, _MASK = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 2 ** 64 - 1


def _mix(z: int) -> int:
    z ^= z >> 30
    z = z * _M1 & _MASK
    z ^= z >> 27
    z = z * _M2 & _MASK
    return z ^ (z >> 31)


def _defined(ident: bytes) -> int:
    """The first word mixed; each later word that is not all padding xor-ed in and mixed (little-endian)."""
    padded = ident + b"\0" * (-len(ident) % 8 or (8 if not ident else 0))
    words = [int.from_bytes(padded[i:i + 8], "little") for i in range(0, len(padded), 8)]
    h = _mix(words[0])
    for w in words[1:]:
        if w:
            h = _mix(h ^ w)
    return h


_ID = st.binary(min_size=1, max_size=30).map(lambda b: bytes(c or 1 for c in b))     # no NUL bytes


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(_ID, min_size=1, max_size=40), st.sampled_from(["any", "long", "short"]), st.integers(0, 9))
def test_the_hash_is_its_definition_id_by_id(ids, mix, extra):
    if mix == "long":                               # every id, or most, past 16 bytes
        ids = [i + b"x" * 17 for i in ids[:-1]] + ids[-1:]
    elif mix == "short":                            # few reach a second word
        ids = [i[:8] for i in ids[:-1]] + [ids[-1] + b"y" * 9]
    col = np.array(ids, dtype=f"S{max(map(len, ids)) + extra}")
    assert hash_ids(col).tolist() == [_defined(i) for i in ids]


def test_every_branch_of_the_later_words():
    base = [b"a" * 9, b"b" * 10, b"c" * 11, b"d" * 12]
    for ids in (base, base[:3] + [b"e"], [b"f"] * 3 + [b"g" * 9]):       # all, most, few past 8 bytes
        col = np.array(ids, dtype="S16")
        assert hash_ids(col).tolist() == [_defined(i) for i in ids]


def _words_defined(ident: bytes, words: int, order: str) -> list:
    padded = ident + b"\0" * (8 * words - len(ident))
    return [int.from_bytes(padded[i:i + 8], order) for i in range(0, 8 * words, 8)]


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(_ID, min_size=0, max_size=30), st.integers(0, 9), st.integers(0, 2), st.booleans())
def test_id_words_are_the_padded_bytes_and_order_as_the_ids(ids, extra, more, strided):
    width = max(map(len, ids), default=1) + extra
    col = np.array(ids, dtype=f"S{width}") if ids else np.empty(0, dtype=f"S{width}")
    if strided:                                     # a gathered view: not contiguous
        col = np.repeat(col, 2)[::2]
    words = -(-width // 8) + more
    little = id_words(col, words)
    big = id_words(col, words, ordered=True)
    assert little.shape == big.shape == (len(ids), words)
    assert little.tolist() == [_words_defined(i, words, "little") for i in ids]
    assert big.tolist() == [_words_defined(i, words, "big") for i in ids]
    # read big-endian, the rows order as the ids do, byte for byte; equal rows, equal ids
    by_words = sorted(range(len(ids)), key=lambda k: (tuple(big[k]), k))
    assert by_words == sorted(range(len(ids)), key=lambda k: (ids[k], k))
    other = np.array(ids[::-1], dtype=f"S{max(width - extra, 1)}") if ids else np.empty(0, dtype="S1")
    assert _differ(col, other).tolist() == [a != b for a, b in zip(ids, ids[::-1], strict=True)]


def test_id_words_view_whole_words_and_copy_the_rest():
    col = np.array([b"abcdefgh", b"ijklmnop"], dtype="S8")
    assert np.shares_memory(id_words(col), col)
    assert not np.shares_memory(id_words(col, ordered=True), col)
    short = np.array([b"abc", b"de"], dtype="S5")
    assert not np.shares_memory(id_words(short), short)
    assert not np.shares_memory(id_words(col, ordered=True), col)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2 ** 31), st.binary(min_size=1, max_size=20).filter(lambda b: b"\0" not in b)),
                min_size=1, max_size=30),
       st.sampled_from([4, 8]), st.booleans())
def test_keyed_id_bytes_order_as_prefix_then_id(rows, head, complement):
    # the explorer's exact grouping and the tie-break's sort of mixed tie groups both read these keys
    from ir_rbstar.io.ids import keyed_id_bytes
    prefix = np.array([p for p, _ in rows], dtype=np.int64)
    ids = np.array([i for _, i in rows], dtype="S")
    key = keyed_id_bytes(prefix, ids, head, complement)
    width = ids.dtype.itemsize
    assert key.shape == (len(rows), head + width)
    as_bytes = [bytes(k) for k in key]
    for (p, i), k in zip(rows, as_bytes, strict=True):
        body = i + b"\0" * (width - len(i))
        assert k == p.to_bytes(head, "big") + (bytes(255 - b for b in body) if complement else body)
    # comparing rows as bytes orders them by (prefix, id), the id descending when complemented
    want = sorted(range(len(rows)), key=lambda j: (rows[j][0], rows[j][1]))
    if complement:
        want = sorted(range(len(rows)), key=lambda j: rows[j][0])
        by_prefix = {}
        for j in want:
            by_prefix.setdefault(rows[j][0], []).append(j)
        want = [j for p in sorted(by_prefix) for j in sorted(by_prefix[p], key=lambda j: rows[j][1], reverse=True)]
    got = sorted(range(len(rows)), key=lambda j: (as_bytes[j], j))
    assert [rows[j] for j in got] == [rows[j] for j in want]
