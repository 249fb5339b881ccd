"""MED of a list against itself, as the MED docstring and docs/med.md state it: 0 for lists at least k deep, not
for shorter ones (their filler positions are unseen documents that may differ between the two copies)."""
import pytest

import ir_measures
import ir_rbstar
from ir_rbstar.measures import med as med_measures


@pytest.mark.parametrize("depth, expected", [(7, 0.3), (10, 0.0), (12, 0.0)])
def test_med_p_of_a_list_against_itself(depth, expected):
    run = {"q": {f"d{i}": float(100 - i) for i in range(depth)}}
    ir_rbstar.register_run("med_identity_copy", run)
    got = ir_measures.calc_aggregate(ir_rbstar.parse("MED_P(ref='med_identity_copy')@10"), None, run)
    assert list(got.values())[0] == pytest.approx(expected, abs=1e-12)


def test_the_docstring_does_not_promise_zero_for_every_identical_pair():
    text = " ".join(med_measures.__doc__.split())
    assert "zero for identical lists at least k deep" in text and "7-document list against itself is 0.3" in text
