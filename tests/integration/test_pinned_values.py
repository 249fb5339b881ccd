"""Per-query values pinned on the bundled Vaswani collection: a guard for refactoring, not evidence of
correctness (that is the oracle, paper-example and independent-implementation tests' job).

Every family, with default and non-default parameters, on three bundled runs: each (run, query, measure)
value must stay what it was when the file ``tests/fixtures/pinned/vaswani.json.gz`` was written, to 1e-12.
Moving code between modules must not change a number. When a change of values is intended (a fixed
definition), regenerate the file and say why in CHANGELOG.md:

    python -m tests.integration.test_pinned_values --write
"""
import gzip
import json
import math
import os
import sys
import warnings

import pytest

import ir_rbstar
from ir_rbstar import demo
from tests.helpers import FIXTURES

PINNED = str(FIXTURES / "pinned" / "vaswani.json.gz")
RUNS = ("bm25", "bm25l", "minilm_rerank")
REF, GROUP = "pinned_ref", "pinned_group"
TOL = 1e-12
MEASURES = (
    "RBP(p=0.8) RBP(p=0.9,rel=1)@10 RBP_res(p=0.8)@20 "
    f"RBR(p=0.8)@20 RBR_res(p=0.8)@20 RBR(p=0.7,ref='{REF}')@10 RBR_res(p=0.8,ref='{REF}')@10 "
    f"RBA(p=0.9,ref='{REF}')@50 RBA_res(p=0.8)@20 RBO(p=0.9,ref='{REF}')@20 RBO_res(p=0.9,ref='{REF}')@20 "
    "RBO_ext(p=0.8)@20 "
    "P_TA@10 R_TA@100 F1_TA@10 AP_TA AP_TA@10 RR_TA RR_TA(judged_only=True)@10 nDCG_TA@10 "
    "nDCG_TA(dcg='exp-log2')@20 RBP_TA(p=0.8)@20 "
    "P@10 R@100 AP RR nDCG@10 "
    "Twist Twist_rho@100 Twist_sigma@20 "
    f"NRG(prior='{GROUP}')@10 NRG(prior='{GROUP}',base='RBP',p=0.8,norm=False)@10 UniqueRel(prior='{GROUP}')@10 "
    f"RarP(runs='{GROUP}')@10 TaSC(prior='{GROUP}')@10 "
    f"MED_P(ref='{REF}')@10 MED_RBP(p=0.8,ref='{REF}')@20 MED_nDCG(ref='{REF}')@10 MED_AP(ref='{REF}')@10 "
    f"MED_ERR(ref='{REF}')@10 MED_nDCG(ref='{REF}',judgments=False)@10"
)


def compute() -> dict:
    """{run: {measure: {query: value}}} by ``iter_calc`` on the bundled files."""
    runs = demo.demo_runs()
    ir_rbstar.register_run(REF, runs["bm25_flat"])
    ir_rbstar.register_runs(GROUP, {name: runs[name] for name in RUNS})
    qrels = ir_rbstar.read_qrels(os.path.join(demo.data_dir(), "qrels"))
    measures = ir_rbstar.parse(MEASURES)
    out = {}
    try:
        for name in RUNS:
            values = {str(m): {} for m in measures}
            run = ir_rbstar.read_run(runs[name])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")           # MED budget warnings: the bound is what is pinned
                for metric in ir_rbstar.provider.PROVIDER.iter_calc(measures, qrels, run):
                    values[str(metric.measure)][str(metric.query_id)] = float(metric.value)
            out[name] = values
    finally:
        ir_rbstar.unregister_run(REF)
        ir_rbstar.unregister_runs(GROUP)
    return out


def test_every_family_keeps_its_pinned_values():
    if not os.path.exists(PINNED):
        pytest.fail(f"{PINNED} is missing: write it with `python -m tests.integration.test_pinned_values --write`")
    with gzip.open(PINNED, "rt") as f:
        pinned = json.load(f)
    got = compute()
    assert set(got) == set(pinned["values"])
    for run, measures in pinned["values"].items():
        assert set(got[run]) == set(measures), run
        for measure, queries in measures.items():
            assert set(got[run][measure]) == set(queries), (run, measure)
            for q, value in queries.items():
                now = got[run][measure][q]
                assert math.isclose(now, value, rel_tol=0, abs_tol=TOL), (run, measure, q, value, now)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    os.makedirs(os.path.dirname(PINNED), exist_ok=True)
    with gzip.open(PINNED, "wt") as f:
        json.dump({"measures": MEASURES, "runs": list(RUNS), "reference": "bm25_flat",
                   "values": compute()}, f, sort_keys=True)
    print(f"wrote {PINNED}")
