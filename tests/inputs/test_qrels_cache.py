"""The qrels converted from namedtuples are kept for the next call only while they cannot be stale
(ir_rbstar/io/qcache.py): the same tuple objects in the same order, fields of immutable types."""
import itertools

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rbstar
from ir_rbstar.io import QUERY_IDS, qcache, to_qrels

Q = ir_measures.Qrel
S = ir_measures.ScoredDoc


@pytest.fixture(autouse=True)
def _empty_cache():
    qcache.clear()
    yield
    qcache.clear()


def grades(qrels):
    """{(query, document): grade} of a converted qrels."""
    qids = QUERY_IDS.decode(qrels.rowq).tolist()
    return {(q, d.decode()): int(g) for q, d, g in zip(qids, qrels.rowb.tolist(), qrels.grades.tolist(), strict=True)}


def judgments():
    return [Q("q1", "a", 1), Q("q1", "b", 0), Q("q2", "a", 2), Q("q2", "c", 3)]


def test_the_same_tuples_give_the_kept_conversion_also_through_a_tee_or_a_new_list():
    items = judgments()
    first = to_qrels(items)
    assert to_qrels(items) is first
    assert to_qrels(list(items)) is first                      # a new list of the same tuples
    assert to_qrels(itertools.tee(items, 1)[0]) is first       # as ir_measures hands them on
    assert to_qrels(items, source="other") is not first        # another source name (for messages)


@pytest.mark.parametrize("change", ["replace", "append", "remove", "swap", "equal_copy"])
def test_a_changed_list_is_converted_again(change):
    items = judgments()
    first = to_qrels(items)
    if change == "replace":
        items[1] = Q("q1", "b", 3)
    elif change == "append":
        items.append(Q("q3", "z", 1))
    elif change == "remove":
        del items[0]
    elif change == "swap":
        items[0], items[1] = items[1], items[0]
    else:                                                      # equal contents, other objects
        items = [Q(*x) for x in items]
    again = to_qrels(items)
    assert again is not first
    assert grades(again) == {(x.query_id, x.doc_id): x.relevance for x in items}


def test_the_values_follow_a_change_of_the_list_between_calls():
    qrels = [Q("q1", "a", 1), Q("q1", "b", 0)]
    run = [S("q1", "a", 1.0), S("q1", "b", 2.0)]
    measure = ir_rbstar.parse("RBP(p=0.5)")
    before = ir_measures.calc_aggregate(measure, qrels, run)
    assert before[measure[0]] == pytest.approx(0.5 * 0.5 * 1)        # a at rank 2
    qrels[1] = Q("q1", "b", 1)
    after = ir_measures.calc_aggregate(measure, qrels, run)
    assert after[measure[0]] == pytest.approx(0.5 * (1 + 0.5))        # b at rank 1 now relevant too


def test_tuples_holding_a_mutable_field_are_not_reused():
    grade = np.array(1)                                        # a 0-d array can change in place
    items = [Q("q1", "a", grade), Q("q1", "b", 0)]
    first = to_qrels(items)
    assert qcache.cached(items, "<qrels iterable>") is None and qcache._last is None   # checked, dropped
    grade[...] = 2
    assert grades(to_qrels(items))[("q1", "a")] == 2 and grades(first)[("q1", "a")] == 1


def test_tuples_holding_a_structured_numpy_scalar_are_not_reused():
    rows = np.ones(1, dtype=[("g", "i8")])                     # rows[0] (np.void) is a view of the array
    items = [Q("q1", "a", rows[0], "0")]
    to_qrels(items)
    assert qcache.cached(items, "<qrels iterable>") is None and qcache._last is None
    rows["g"] = 2
    assert grades(to_qrels(items))[("q1", "a")] == 2


def test_other_tuple_types_and_large_lists_are_not_reused(monkeypatch):
    class Mine(tuple):                                         # fields not read by namedtuple accessors
        _fields = ("query_id", "doc_id", "relevance", "iteration")
    items = [Mine(("q1", "a", 1, "0"))]
    qcache.keep(items, "s", object())
    assert qcache.cached(items, "s") is None and qcache._last is None
    mixed = [Q("q1", "a", 1), S("q1", "b", 1.0)]               # two classes
    qcache.keep(mixed, "s", object())
    assert qcache.cached(mixed, "s") is None
    monkeypatch.setattr(qcache, "MAX_ROWS", 3)
    items = judgments()
    to_qrels(items)
    assert qcache._last is None


def as_dict(items):
    out = {}
    for x in items:
        out.setdefault(x.query_id, {})[x.doc_id] = x.relevance
    return out


def test_a_dict_equal_to_the_last_gives_its_conversion_and_a_changed_one_is_converted_again():
    qrels = as_dict(judgments())
    first = to_qrels(qrels)
    assert to_qrels(qrels) is first
    assert to_qrels(as_dict(judgments())) is first                 # another dict, equal contents
    qrels["q1"]["b"] = 2                                            # an inner dict changed in place
    again = to_qrels(qrels)
    assert again is not first and grades(again)[("q1", "b")] == 2
    del qrels["q2"]["c"]
    assert grades(to_qrels(qrels)) == {("q1", "a"): 1, ("q1", "b"): 2, ("q2", "a"): 2}
    qrels["q3"] = {"z": 1}
    assert ("q3", "z") in grades(to_qrels(qrels))


@pytest.mark.parametrize("reorder", ["queries", "documents"])
def test_a_dict_equal_but_in_another_order_is_converted_again_in_its_own_order(reorder):
    # dict equality ignores order; the conversion keeps it (the qrels' queries, iter_calc's order)
    first = {"q2": {"x": 1, "a": 0}, "q1": {"b": 2}}
    if reorder == "queries":
        other = {"q1": {"b": 2}, "q2": {"x": 1, "a": 0}}
    else:
        other = {"q2": {"a": 0, "x": 1}, "q1": {"b": 2}}
    to_qrels(first)
    assert to_qrels(first) is not None and qcache._last_dict is not None and qcache._last_dict.checked
    again = to_qrels(other)
    order = [(q, d) for q, docs in other.items() for d in docs]
    assert list(zip(QUERY_IDS.decode(again.rowq).tolist(), [d.decode() for d in again.rowb.tolist()],
                    strict=True)) == order


def test_a_dict_whose_values_follow_a_change_between_calls():
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"a": 1.0, "b": 2.0}}
    measure = ir_rbstar.parse("RBP(p=0.5)")
    assert ir_measures.calc_aggregate(measure, qrels, run)[measure[0]] == pytest.approx(0.25)
    qrels["q1"]["b"] = 1
    assert ir_measures.calc_aggregate(measure, qrels, run)[measure[0]] == pytest.approx(0.75)


@pytest.mark.parametrize("qrels", [{1: {"a": 1}}, {"q1": {b"a": 1}}, {"q1": {"a": 1.0}}, {"q1": {"a": np.int64(1)}}])
def test_dicts_of_other_types_are_not_reused(qrels):
    first = to_qrels(qrels)
    again = to_qrels(qrels)
    assert again is not first and grades(again) == grades(first)


def test_run_rows_of_other_queries_are_left_out_of_a_dict_by_their_text():
    from ir_rbstar.io import to_ranking
    run = {"q1": {"a": 1.0}, "q2": {"b": 2.0}, b"q3": {"c": 3.0}, 4: {"d": 4.0}}
    kept = to_ranking(run, queries={"q1", "q3", "4"})
    assert sorted(QUERY_IDS.decode(kept.qcodes).tolist()) == ["4", "q1", "q3"]
    kept = to_ranking({"q1": {"a": 1.0}, "q2": {"b": 2.0}}, queries={"q2"})
    assert QUERY_IDS.decode(kept.qcodes).tolist() == ["q2"] and kept.scores.tolist() == [2.0]


def test_qrels_tuples_read_for_some_queries_are_not_given_the_kept_conversion_of_all():
    from ir_rbstar.io import convert
    items = judgments()
    assert len(to_qrels(items).grades) == 4
    some = convert._convert(items, None, convert._QRELS, queries={"q1"})
    assert grades(some) == {("q1", "a"): 1, ("q1", "b"): 0}


def test_a_change_made_while_converting_is_not_kept_as_the_conversion_of_the_changed_qrels(monkeypatch):
    """Another thread changes the dict (the list) while it is converted: the conversion kept is that of the
    copy taken before, so the changed qrels are converted again at the next call, never given the old
    conversion."""
    from ir_rbstar.io import convert
    qrels = {"q1": {"a": 1, "b": 0}}
    items = judgments()
    real_dict, real_tuples = convert._columns_from_dict, convert.columns_from_tuples

    def dict_then_change(*args, **kwargs):
        out = real_dict(*args, **kwargs)
        qrels["q1"]["a"] = 0
        return out

    def tuples_then_change(*args, **kwargs):
        out = real_tuples(*args, **kwargs)
        items[0] = Q("q1", "a", 0)
        return out

    monkeypatch.setattr(convert, "_columns_from_dict", dict_then_change)
    monkeypatch.setattr(convert, "columns_from_tuples", tuples_then_change)
    assert grades(to_qrels(qrels))[("q1", "a")] == 1            # what the dict held when the call began
    assert grades(to_qrels(items))[("q1", "a")] == 1
    monkeypatch.undo()
    assert grades(to_qrels(qrels))[("q1", "a")] == 0
    assert grades(to_qrels(items))[("q1", "a")] == 0


def test_the_public_clear_cache_drops_the_kept_qrels():
    to_qrels(judgments())
    to_qrels(as_dict(judgments()))
    assert qcache._last is not None and qcache._last_dict is not None
    ir_rbstar.references.clear_cache()
    assert qcache._last is None and qcache._last_dict is None


def test_a_dict_whose_documents_move_to_another_query_is_converted_again():
    # the same documents and grades in the same order, split otherwise between the queries
    first = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    moved = {"q1": {"a": 1}, "q2": {"b": 0, "c": 2}}
    assert to_qrels(first) is to_qrels({q: dict(d) for q, d in first.items()})
    assert grades(to_qrels(moved)) == {("q1", "a"): 1, ("q2", "b"): 0, ("q2", "c"): 2}


def test_a_dict_with_an_inner_value_that_is_not_a_dict_is_refused_after_a_kept_one():
    from ir_rbstar.errors import InputFormatError
    to_qrels({"q1": {"a": 1}})
    to_qrels({"q1": {"a": 1}})
    with pytest.raises(InputFormatError, match="must be a dict"):
        to_qrels({"q1": ["a"]})


@pytest.mark.parametrize("values, want", [([1, 2 ** 62 + 1], [1, 2 ** 62 + 1]),     # int64, exactly
                                          ([True, 2], [1, 2]), ([1.0, 2], [1, 2]), ([np.int64(3), 0], [3, 0])])
def test_dict_grades_of_every_numeric_type_convert_to_the_same_integers(values, want):
    qrels = {"q1": dict(zip(["a", "b"], values, strict=True))}
    assert [grades(to_qrels(qrels))[("q1", d)] for d in ("a", "b")] == want


@pytest.mark.parametrize("kept, changed", [(2049, np.float16(2048)), (2 ** 24 + 1, np.float32(2 ** 24)),
                                           (2 ** 62 + 1, np.float64(2 ** 62)), (-2049, np.float16(-2048))])
def test_a_big_grade_changed_to_a_numpy_float_that_numpy_finds_equal_is_converted_again(kept, changed):
    # numpy 2 compares a float with a Python int in the float's own type (NEP 50): np.float16(2048) == 2049;
    # numpy 1 promoted the int first (the two differ there, and the changed grade is plainly a new one)
    if int(np.__version__.split(".")[0]) >= 2:
        assert changed == kept
    qrels = {"q1": {"a": kept, "b": 1}}
    to_qrels(qrels)
    to_qrels(qrels)
    qrels["q1"]["a"] = changed
    assert grades(to_qrels(qrels))[("q1", "a")] == int(changed)


def test_grades_up_to_the_exact_bound_are_reused():
    qrels = {"q1": {"a": qcache.EXACT_GRADE, "b": -qcache.EXACT_GRADE}}
    assert to_qrels(qrels) is to_qrels(qrels)
    qrels["q1"]["a"] = np.float16(qcache.EXACT_GRADE)          # equal, and the same grade
    assert to_qrels(qrels) is to_qrels({"q1": {"a": qcache.EXACT_GRADE, "b": -qcache.EXACT_GRADE}})


@pytest.mark.parametrize("grade", [np.array([2, 3]), pd.NA], ids=repr)
def test_a_grade_changed_to_a_value_without_a_truth_value_is_named_by_the_conversion(grade):
    # its == with the kept grade is an array or NA, whose truth value raises: not the kept dict
    from ir_rbstar.errors import InputFormatError
    qrels = {"q1": {"a": 2, "b": 1}}
    to_qrels(qrels)
    to_qrels(qrels)
    qrels["q1"]["a"] = grade
    with pytest.raises(InputFormatError, match="relevance .* of document 'a' for query 'q1'"):
        to_qrels(qrels)
