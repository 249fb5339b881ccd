"""RBP reads only the rows of B with a gain: its weights (and those rows' query and rank) are made at those
rows alone (``families.rankbiased._weights_at``, ``Rows.seg_rank_at``), not as full-length columns of B.
On random runs and judgments (ties, queries without rows, cutoffs that cut groups, graded and binary
gain), each value is the same double as the whole-column formula gives (every row's gain x the
``rank_weights`` of every rank, summed per query, as the package computed it before), whether or not
RBP_res cached the whole column first; and the rows' query and rank at any rows are those of the whole
columns."""
import numpy as np
from hypothesis import given, settings, strategies as st

import ir_rbstar
from ir_rbstar.context import RunContext
from ir_rbstar.core import rankbiased as K
from ir_rbstar.families import rankbiased as F
from ir_rbstar.io import to_qrels, to_ranking

from tests.conftest import examples


@st.composite
def cases(draw):
    n_q = draw(st.integers(1, 5))
    run, qrels = {}, {}
    for q in range(n_q):
        docs = [f"d{i}" for i in range(draw(st.integers(0, 25)))]
        if docs:   # scores from a few values: many ties
            run[f"q{q}"] = {d: float(draw(st.integers(0, 4))) for d in docs}
        judged = draw(st.lists(st.sampled_from(docs + ["x1", "x2"]), unique=True, max_size=12))
        qrels[f"q{q}"] = {d: draw(st.integers(0, 3)) for d in judged} or {"x0": 1}
    cutoff = draw(st.sampled_from([None, 1, 3, 10]))
    return run, qrels, cutoff, draw(st.sampled_from([0.5, 0.8, 0.95]))


def whole_column(m, ctx, p, cutoff):
    """RBP as before: the gain of every row of B times the weight of every rank of B, summed per query."""
    b = ctx.observation(cutoff)
    grade, judged = ctx.judgments(cutoff)
    gain = F.rbp_gain(m, ctx, grade, judged)
    weight = K.rank_weights(b.rank, p)
    return np.bincount(b.seg, weights=gain * weight, minlength=ctx.n)


@settings(max_examples=examples(60), deadline=None)
@given(cases())
def test_rbp_at_gain_rows_is_the_whole_column_value(case):
    run, qrels, cutoff, p = case
    ranking, judgments = to_ranking(run), to_qrels(qrels)
    suffix = "" if cutoff is None else f"@{cutoff}"
    for text in (f"RBP(p={p},max_rel=3){suffix}", f"RBP(p={p},rel=2){suffix}", f"RBP(p={p},rel=1){suffix}"):
        m = ir_rbstar.parse(text)[0]
        expected = whole_column(m, RunContext(ranking, judgments, judgments.qcodes), p, cutoff)
        alone = F._rbp(m, RunContext(ranking, judgments, judgments.qcodes), p, cutoff)
        assert alone.tobytes() == expected.tobytes(), text
        ctx = RunContext(ranking, judgments, judgments.qcodes)      # RBP_res first: its cached column is read
        F._rbp(ir_rbstar.parse(f"RBP_res(p={p}){suffix}")[0], ctx, p, cutoff)
        assert F._rbp(m, ctx, p, cutoff).tobytes() == expected.tobytes(), text


@settings(max_examples=examples(60), deadline=None)
@given(cases(), st.data())
def test_seg_rank_at_reads_the_whole_columns(case, data):
    run, qrels, cutoff, _ = case
    ranking, judgments = to_ranking(run), to_qrels(qrels)
    b = RunContext(ranking, judgments, judgments.qcodes).observation(cutoff)
    n = len(b.docs)
    rows = np.array(sorted(data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=10 if n else 0))),
                    dtype=np.int64)
    seg, rank = b.seg_rank_at(rows)                  # before the columns are made (identity rows)
    assert np.array_equal(seg, b.seg[rows]) and np.array_equal(rank, b.rank[rows])
    seg2, rank2 = b.seg_rank_at(rows)                # and after
    assert np.array_equal(seg2, seg) and np.array_equal(rank2, rank)
    half = RunContext(ranking, judgments, judgments.qcodes).observation(cutoff)
    assert len(half.seg) == n       # the query column made; the rank column not yet (unless the cutoff made it)
    seg3, rank3 = half.seg_rank_at(rows)
    assert np.array_equal(seg3, seg) and np.array_equal(rank3, rank)
