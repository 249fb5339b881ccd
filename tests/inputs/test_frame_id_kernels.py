"""The compiled loops that turn a DataFrame's id columns into what a Ranking holds, against their numpy
counterparts on the same inputs: ``_compiled.hash_words`` (used by ``io.hash_ids`` when the compiled engine
is loaded and serves the input's size) must give ``hash_ids``' numpy hashes, for ids of every width."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ir_rbstar import engine
from ir_rbstar.io.ids import hash_ids

from tests.conftest import examples

numba = pytest.importorskip("numba", reason="the compiled engine needs numba (the 'fast' extra)")

IDS = st.lists(st.binary(min_size=1, max_size=30).map(lambda b: b.replace(b"\0", b"x")), min_size=1, max_size=40)


@settings(max_examples=examples(100), deadline=None)
@given(IDS, st.integers(0, 9))
def test_compiled_hashes_are_the_numpy_hashes(ids, pad):
    from ir_rbstar import _compiled
    arr = np.array(ids, dtype=f"S{max(map(len, ids)) + pad}")       # any padded width, whole words or not
    with engine.using("numpy"):
        want = hash_ids(arr)
    words = -(-arr.dtype.itemsize // 8)
    got = _compiled.hash_words(arr.astype(f"S{8 * words}").view(np.uint64).reshape(len(arr), words))
    assert got.tobytes() == want.tobytes()
    with engine.using("numba"):                  # hash_ids itself takes the compiled loop when it is loaded
        assert hash_ids(arr).tobytes() == want.tobytes()


def test_hash_ids_takes_the_compiled_loop_only_when_loaded_and_large(monkeypatch):
    from ir_rbstar import _compiled
    calls = []
    original = _compiled.hash_words
    monkeypatch.setattr(_compiled, "hash_words", lambda w: calls.append(len(w)) or original(w))
    arr = np.array([b"d1", b"d22"])
    with engine.using("auto"):
        hash_ids(arr)                            # below engine.MIN_ROWS: numpy
    assert calls == []
    with engine.using("numba"):
        hash_ids(arr)
    assert calls == [2]
