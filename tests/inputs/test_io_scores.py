"""Scores read from TREC files: the vectorised decimal conversion gives exactly float(token)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from ir_rbstar import io as rio
from ir_rbstar.errors import InputFormatError

EDGE = ["0", "-0", "+0", "0.", ".5", "-.5", "+3.25", "-0.0", "00012.5000", "999999999999999",
        "9999999999999999", "0.000000000000001", "123456789012.345", "1e5", "-2.5E-3", "nan", "-inf",
        "1234567890123456", "0.1", "0.3", "-17.0000000001"]


def _convert(tokens):
    arr = np.array([t.encode() for t in tokens])
    return rio.columns._as_float(arr, np.array([b"q"] * len(arr)), np.array([b"d"] * len(arr)), "x.run")


def _same(a, b):
    return (a == b or (np.isnan(a) and np.isnan(b))) and np.signbit(a) == np.signbit(b)


decimal = st.builds(lambda sign, whole, dot, frac: sign + whole + dot + frac,
                    st.sampled_from(["", "-", "+"]), st.text("0123456789", max_size=12),
                    st.sampled_from(["", "."]), st.text("0123456789", max_size=9)
                    ).filter(lambda s: any(c.isdigit() for c in s))


@given(st.lists(decimal, min_size=1, max_size=40))
def test_plain_decimals_equal_strtod(tokens):
    got = _convert(tokens)
    for t, g in zip(tokens, got):
        assert _same(g, float(t)), t


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=40),
       st.integers(0, 10))
def test_formatted_floats_round_trip(values, places):
    tokens = [f"{v:.{places}f}" for v in values] + [repr(v) for v in values]
    got = _convert(tokens)
    for t, g in zip(tokens, got):
        assert _same(g, float(t)), t


def test_edge_tokens():
    got = _convert(EDGE)
    for t, g in zip(EDGE, got):
        assert _same(g, float(t)), t


@pytest.mark.parametrize("bad", ["1.2.3", "-", ".", "1-2", "abc", "1,5", "--1"])
def test_malformed_score_is_named(tmp_path, bad):
    path = tmp_path / "r.run"
    path.write_text(f"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 {bad} t\n")
    with pytest.raises(InputFormatError, match=rf"r\.run: line 2: score '{__import__('re').escape(bad)}'"):
        rio.read_trec_run(str(path))
