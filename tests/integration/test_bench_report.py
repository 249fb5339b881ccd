"""benchmarks/bench_report.py: every progress step of the report is charged to one of its sections (so the
table by section stays complete when the report's steps change), and the table's structure. In process,
on the bundled Vaswani collection; no time is checked."""
import importlib

from ir_rbstar import report
from tests.helpers import VASWANI

bench = importlib.import_module("benchmarks.bench_report")


def test_every_step_of_the_report_has_a_section(tmp_path):
    runs = {name: str(VASWANI / f"{name}.run.gz") for name in ("bm25", "bm25l", "bm25_flat")}
    messages = []
    report.build_report(str(VASWANI / "qrels"), runs, tmp_path, baseline="bm25", pictures=False,
                        progress=lambda step, total, message: messages.append(message))
    sections = [bench.section_of(m) for m in messages]
    assert "other" not in sections, [m for m in messages if bench.section_of(m) == "other"]
    order = [name for name, _ in bench.SECTIONS]
    seen = list(dict.fromkeys(sections))
    assert seen == sorted(seen, key=order.index)           # the sections come in the report's order


def test_table_has_a_row_per_section_and_the_totals():
    result = {"sections": {"read": 1.0, "evaluate": 2.0, "distances": 0.5}, "total_cpu": 4.0, "maxrss_mb": 300.0,
              "wall": 5.0}
    text = bench.table({10: result, 59: result})
    lines = text.splitlines()
    assert lines[0] == "| section | 10 runs | 59 runs |"
    rows = {line.split("|")[1].strip(): line for line in lines[2:]}
    assert set(rows) == {"read", "evaluate", "distances", "**total CPU (process)**", "peak RSS (MB)", "wall (s)"}
    assert "| read | 1.0 | 1.0 |" in lines
