"""Document ids that are not ASCII survive the studies' conversions of a run: ``ir_rbstar.dicts.ranking_dict``
(with its queries and depth) and ``scripts._docblock``'s frame of the judged queries (``judged_frame``, which
``examples/first_stage_rbr`` and ``scripts/ties_report`` use; numpy's ``astype(str)`` on the ids' bytes decodes
ASCII only)."""

from ir_rbstar.dicts import ranking_dict
from ir_rbstar.io import read_trec_run
from tests.helpers import load_script

RUN = ("q1 Q0 caf\u00e9 1 3.0 r\n"
       "q1 Q0 na\u00efve 2 2.0 r\n"
       "q1 Q0 plain 3 1.0 r\n"
       "q2 Q0 \u6587\u66f8 1 5.0 r\n"
       "q3 Q0 other 1 1.0 r\n")


def _ranking(tmp_path):
    path = tmp_path / "utf8.run"
    path.write_text(RUN, encoding="utf-8")
    return read_trec_run(str(path))


def test_ranking_dict_decodes_utf8(tmp_path):
    got = ranking_dict(_ranking(tmp_path), ["q1", "q2"], depth=2)
    assert got == {"q1": {"caf\u00e9": 3.0, "na\u00efve": 2.0}, "q2": {"\u6587\u66f8": 5.0}}


def test_docblock_judged_frame_decodes_utf8(tmp_path):
    frame = load_script("_docblock").judged_frame(_ranking(tmp_path), ["q1", "q2"])
    assert list(zip(frame["query_id"], frame["doc_id"], frame["score"], strict=True)) == [
        ("q1", "caf\u00e9", 3.0), ("q1", "na\u00efve", 2.0), ("q1", "plain", 1.0), ("q2", "\u6587\u66f8", 5.0)]
