"""The judge and simulate-judging commands, in process (cli.main)."""
import pandas as pd
import pytest

from ir_rbstar import cli
from ir_rbstar.judging import select
from tests.helpers import VASWANI

QRELS = str(VASWANI / "qrels")
RUNS = [str(VASWANI / "bm25.run.gz"), str(VASWANI / "bm25_flat.run.gz")]


def test_judge_writes_the_selection_and_a_stub(tmp_path):
    out, stub = tmp_path / "next.tsv", tmp_path / "next.qrels"
    code = cli.main(["judge", QRELS, *RUNS, "--measure", "RBP(p=0.8)@10", "--budget", "12", "--batch", "5",
                     "--goal", "pairs", "-o", str(out), "--stub", str(stub)])
    assert code == 0
    table = pd.read_csv(out, sep="\t", dtype={"query_id": str, "doc_id": str})
    assert list(table.columns) == ["query_id", "doc_id", "priority", "round", "strategy", "reason"]
    assert len(table) == 12 and list(table["round"]) == [1] * 5 + [2] * 5 + [3] * 2
    same = select({"bm25": RUNS[0], "bm25_flat": RUNS[1]}, QRELS, "RBP(p=0.8)@10", budget=12, batch=5)
    assert list(table["doc_id"]) == list(same["doc_id"]) and list(table["query_id"]) == list(same["query_id"])
    lines = stub.read_text().splitlines()
    assert lines[0] == f"{table['query_id'][0]} 0 {table['doc_id'][0]} _" and len(lines) == 12


def test_judge_progress_on_request(capsys):
    """--progress: one line per round on stderr ([round/rounds], the last round short); the selection on
    stdout is the same as without it, and stderr stays empty without it (not a terminal)."""
    args = ["judge", QRELS, *RUNS, "--measure", "RBP(p=0.8)@10", "--budget", "12", "--batch", "5"]
    assert _progress_lines(capsys, args) == [f"ir-rbstar judge: [{r}/3] round {r}: {n} of 12 chosen"
                                             for r, n in ((1, 5), (2, 10), (3, 12))]


def _progress_lines(capsys, args):
    """The command run without and then with --progress: the same standard output, nothing on stderr
    without it (stderr is not a terminal here); the lines on stderr with it."""
    assert cli.main(args) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert cli.main([*args, "--progress"]) == 0
    told = capsys.readouterr()
    assert told.out == quiet.out
    return told.err.splitlines()


def test_judge_to_stdout_with_a_baseline_strategy_and_no_qrels(capsys):
    assert cli.main(["judge", "none", *RUNS, "--measure", "nDCG@10", "--budget", "3", "--strategy", "depth"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("query_id\tdoc_id") and len(lines) == 4 and "depth: best rank 1" in lines[1]


def test_judge_baseline_by_name_file_name_or_path(capsys):
    outputs = []
    for given in ("bm25", "bm25.run.gz", RUNS[0]):
        assert cli.main(["judge", QRELS, *RUNS, "--measure", "RBP(p=0.8)@10", "--budget", "3",
                         "--baseline", given]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2] and "bm25 vs bm25_flat" in outputs[0]


@pytest.mark.parametrize("args, message", [
    (["--budget", "0"], "budget: must be a positive integer"),
    (["--budget", "5", "--baseline", "nope"], "baseline: unknown run 'nope'"),
    (["--budget", "5", "--measure", "MAP"], "judging supports"),
    (["--budget", "5", "--per-query", "-1"], "per_query"),
])
def test_judge_bad_input_is_one_line_and_exit_2(capsys, args, message):
    assert cli.main(["judge", QRELS, *RUNS, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ir-rbstar: error: ") and message in err and len(err.strip().splitlines()) == 1


def test_judge_from_an_empty_qrels_file_starts_from_nothing(capsys, tmp_path):
    # (the issue: QRELS may be empty or none; an empty file is judgments not begun, as 'none')
    empty = tmp_path / "empty.qrels"
    empty.write_text("")
    args = [*RUNS, "--measure", "RBP(p=0.8)@10", "--budget", "6"]
    assert cli.main(["judge", "none", *args]) == 0
    none = capsys.readouterr().out
    assert cli.main(["judge", str(empty), *args]) == 0
    assert capsys.readouterr().out == none and len(none.splitlines()) == 7
    # simulate-judging needs the real judgments: an empty file stays an error there
    assert cli.main(["simulate-judging", str(empty), *RUNS, "--budgets", "5"]) == 2
    assert "empty" in capsys.readouterr().err


def test_judge_unknown_run_file(capsys):
    assert cli.main(["judge", QRELS, RUNS[0], "missing.run", "--budget", "5"]) == 2
    assert "missing.run" in capsys.readouterr().err


def test_a_run_file_given_twice_is_an_error(capsys, tmp_path):
    # (the same file compared with itself; a second file of the same name is a run of its own)
    assert cli.main(["judge", QRELS, RUNS[0], RUNS[1], RUNS[0], "--budget", "5"]) == 2
    assert f"RUN: the file {RUNS[0]} is given twice" in capsys.readouterr().err
    assert cli.main(["simulate-judging", QRELS, RUNS[0], RUNS[0], "--budgets", "5"]) == 2
    assert "given twice" in capsys.readouterr().err
    other = tmp_path / "bm25.run.gz"
    other.write_bytes(open(RUNS[0], "rb").read())
    assert cli.main(["judge", QRELS, RUNS[0], str(other), "--budget", "3"]) == 0
    assert "given twice" not in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["judge", "simulate"])
def test_a_missing_prior_file_is_named_as_the_prior(capsys, flag):
    args = ["judge", QRELS, *RUNS, "--budget", "5"] if flag == "judge" else \
        ["simulate-judging", QRELS, *RUNS, "--budgets", "5"]
    assert cli.main([*args, "--prior", "no-such-prior.qrels"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ir-rbstar: error: prior: ") and "no-such-prior.qrels" in err


def test_simulate_judging_table_and_picture(tmp_path, capsys):
    picture = tmp_path / "curves.png"
    code = cli.main(["simulate-judging", QRELS, *RUNS, str(VASWANI / "bm25l.run.gz"), "--measures",
                     "RBP(p=0.8)@10", "--strategies", "pairs,depth", "--budgets", "40,80", "--picture", str(picture)])
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split("\t") == ["strategy", "budget", "judged", "measure", "tau_b", "tau_ap", "verdicts_agree",
                                  "robust_agree", "mean_residual"]
    assert len(out) == 1 + 2 * 2 and picture.stat().st_size > 1000
    assert cli.main(["simulate-judging", QRELS, *RUNS, "--measures", "RBP(p=0.8)@5", "--strategies", "depth"]) == 0
    default = capsys.readouterr().out.splitlines()[1:]               # no --budgets: the default grid of the pool
    judged = [int(line.split("\t")[2]) for line in default]
    assert len(judged) >= 4 and judged == sorted(set(judged))
    assert cli.main(["simulate-judging", QRELS, *RUNS, "--budgets", "a,b"]) == 2
    assert "--budgets" in capsys.readouterr().err


def test_simulate_judging_progress_on_request(capsys):
    """--progress: one line per strategy and budget on stderr, [step/total] counting to the end; the table
    on stdout is the same as without it (and stderr stays empty without it, stderr not being a terminal)."""
    args = ["simulate-judging", QRELS, *RUNS, "--measures", "RBP(p=0.8)@10", "--strategies", "pairs,depth",
            "--budgets", "40,80,120"]
    lines = _progress_lines(capsys, args)
    assert [line.split("] ")[0] for line in lines] == [f"ir-rbstar simulate-judging: [{k}/6" for k in range(1, 7)]
    assert lines[0].endswith("pairs: budget 40, 40 judged") and lines[-1].startswith(
        "ir-rbstar simulate-judging: [6/6] depth: budget 120")


def test_the_default_measure_fits_graded_qrels(tmp_path, capsys):
    """No --measure(s): RBP(p=0.8) with max_rel the qrels' top grade, so graded qrels (TREC DL's 0..3,
    Robust's 0..2) work as they are; RBP(p=0.8) given on them is refused by both commands, naming the fix."""
    lines = (VASWANI / "qrels").read_text().splitlines()
    graded = tmp_path / "graded.qrels"
    graded.write_text("\n".join(" ".join(ln.split()[:3] + [str(1 + i % 2)]) for i, ln in enumerate(lines)) + "\n")
    assert cli.main(["simulate-judging", str(graded), *RUNS, "--strategies", "depth", "--budgets", "40"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split("\t")[3] for row in rows] == ["RBP(p=0.8,max_rel=2)"]
    assert cli.main(["judge", str(graded), *RUNS, "--budget", "3"]) == 0
    assert "expected gain ~ " in capsys.readouterr().out
    for args in (["simulate-judging", str(graded), *RUNS, "--measures", "RBP(p=0.8)", "--budgets", "40"],
                 ["judge", str(graded), *RUNS, "--budget", "3", "--measure", "RBP(p=0.8)"]):
        assert cli.main(args) == 2
        assert "holds grade 2" in capsys.readouterr().err
