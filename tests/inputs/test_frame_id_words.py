"""``io.hash_ids`` reads the 8-byte words of ids whose width is not a multiple of 8 from the ids' own
bytes (``_padded_words``) instead of numpy's cast to the wider bytes type: the same words, hence the same
hashes, for every width, and for arrays that are not contiguous (which take the cast)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from ir_rbstar import engine
from ir_rbstar.io import ids as I

from tests.conftest import examples

IDS = st.lists(st.binary(min_size=1, max_size=30).map(lambda b: b.replace(b"\0", b"x")), min_size=1, max_size=40)


@settings(max_examples=examples(100), deadline=None)
@given(IDS, st.integers(0, 9))
def test_padded_words_are_the_cast_words(ids, pad):
    arr = np.array(ids, dtype=f"S{max(map(len, ids)) + pad}")
    words = -(-arr.dtype.itemsize // 8)
    want = arr.astype(f"S{8 * words}").view(np.uint64).reshape(len(arr), words)
    assert I._padded_words(arr, words).tobytes() == want.tobytes()


@settings(max_examples=examples(60), deadline=None)
@given(IDS, st.integers(0, 9))
def test_hashes_are_those_of_the_cast_words(ids, pad):
    """hash_ids (numpy engine) on contiguous ids and on a strided view of them equals the hash of the
    words numpy's cast gives, computed as hash_ids always did."""
    arr = np.array(ids, dtype=f"S{max(map(len, ids)) + pad}")
    words = -(-arr.dtype.itemsize // 8)
    w = arr.astype(f"S{8 * words}").view(np.uint64).reshape(len(arr), words)
    with np.errstate(over="ignore"):
        want = I._mix(w[:, 0].copy())
        for j in range(1, words):
            nz = w[:, j] != 0
            want[nz] = I._mix(want[nz] ^ w[nz, j])
    strided = np.repeat(arr, 2)[::2]
    with engine.using("numpy"):
        assert I.hash_ids(arr).tobytes() == want.tobytes()
        assert I.hash_ids(strided).tobytes() == want.tobytes()
