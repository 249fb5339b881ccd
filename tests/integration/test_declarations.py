"""Each measure's declaration carries everything about it, and what it says is true.

One declaration per measure: family (a key of ``ir_rbstar.measures.families.FAMILIES``), pretty name,
short description, parameters, citation (through the family: author, year, venue, DOI) and ``DEFAULT``,
the value of a query the run does not answer. The provider dispatches on ``FAMILY``; the report's texts
come from ``SHORT_DESC``; nothing else lists the measures of a family.
"""
import math
import pathlib
import re

import ir_measures
import pandas as pd
import pytest

import ir_rbstar
from ir_rbstar.measures.families import CITATIONS, FAMILIES, FOREIGN_FAMILY, family_of
from ir_rbstar.provider import COMPUTE

PACKAGE = pathlib.Path(ir_rbstar.__file__).parent


def test_every_declaration_is_complete():
    for m in ir_rbstar.MEASURES:
        assert m.FAMILY in FAMILIES, m.NAME
        assert m.PRETTY_NAME and m.SHORT_DESC, m.NAME
        assert m.SHORT_DESC != m.PRETTY_NAME
        assert type(m).__doc__ and len(type(m).__doc__) > 200, m.NAME      # the definition
        assert m.citation is FAMILIES[m.FAMILY].citation
        assert m.DEFAULT is None or isinstance(m.DEFAULT, float), m.NAME
        assert m.FAMILY in COMPUTE


def test_the_families_cover_the_measures_and_have_citations():
    used = {m.FAMILY for m in ir_rbstar.MEASURES}
    assert used == set(FAMILIES) == set(COMPUTE)
    for c in CITATIONS.values():
        assert re.fullmatch(r"10\.\d{4,5}/\S+", c.doi), c
        assert str(c).startswith(c.authors) and c.url in str(c)
    assert FAMILIES["med"].citation.short == "Tan & Clarke 2015"
    assert FAMILIES["rankbiased"].citation.short == "Moffat et al. 2024"
    for name, key in FOREIGN_FAMILY.items():
        assert family_of(ir_measures.parse_measure(name + ("@10" if name in ("P", "R") else ""))).key == key


def test_no_second_list_of_a_familys_measures():
    """The lists that used to repeat the declarations (families/*.NAMES, provider.FAMILIES, the report's
    _TIE_AWARE/_ABOUT/_family) are gone: no module spells out the names of a family's measures."""
    offenders = []
    families = {key: {m.NAME for m in ir_rbstar.MEASURES if m.FAMILY == key} for key in FAMILIES}
    for path in PACKAGE.rglob("*.py"):
        text = re.sub(r"__all__\s*=\s*\[.*?\]", "", path.read_text(), flags=re.S)     # exports are not lists
        # tuples and lists of names (a dict from name to how to compute it is a compute table, allowed)
        for match in re.finditer(r"[(\[]((?:\s*\"\w+\"\s*,?)+)[)\]]", text):
            names = set(re.findall(r"\"(\w+)\"", match.group(1)))
            for key, family in families.items():
                if family <= names:
                    offenders.append(f"{path.relative_to(PACKAGE)}: {key}: {match.group(0)[:80]}")
    assert not offenders


def _unanswered_case():
    qrels = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2", "3"], "doc_id": ["a", "b", "c", "a", "d", "e"],
                          "relevance": [1, 0, 1, 1, 1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "x", "c", "d"],
                        "score": [3.0, 2.0, 1.0, 1.0]})
    ref = pd.DataFrame({"query_id": ["1", "1", "2", "2", "3", "3"], "doc_id": ["c", "a", "a", "d", "e", "f"],
                        "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0]})
    return qrels, run, ref


def _instance(m):
    params = {}
    if "ref" in m.SUPPORTED_PARAMS:
        params["ref"] = "decl_ref"
    if "prior" in m.SUPPORTED_PARAMS:
        params["prior"] = "decl_prior"
    if "runs" in m.SUPPORTED_PARAMS:
        params["runs"] = "decl_prior"
    if "cutoff" in m.SUPPORTED_PARAMS:
        params["cutoff"] = 5
    return type(m)(**params)


@pytest.mark.parametrize("name", [m.NAME for m in ir_rbstar.MEASURES])
def test_default_is_the_value_of_an_unanswered_query(name):
    """``DEFAULT`` is what a query the run does not answer gets (query '3' below), for every measure
    whose value there does not depend on the reference (MED's is the distance of an empty list from
    the reference's: ``DEFAULT`` None)."""
    qrels, run, ref = _unanswered_case()
    ir_rbstar.register_run("decl_ref", ref)
    ir_rbstar.register_runs("decl_prior", {"r": ref})
    try:
        proto = next(m for m in ir_rbstar.MEASURES if m.NAME == name)
        m = _instance(proto)
        values = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}
    finally:
        ir_rbstar.unregister_run("decl_ref")
        ir_rbstar.unregister_runs("decl_prior")
    assert set(values) == {"1", "2", "3"}
    if proto.DEFAULT is None:
        assert proto.FAMILY == "med" and 0.0 <= values["3"] <= 1.0 and math.isfinite(values["3"])
    else:
        assert values["3"] == pytest.approx(proto.DEFAULT, abs=1e-12), name


def test_the_report_describes_columns_from_the_declarations():
    from ir_rbstar.report.catalogue import about, family_label
    for m in ir_rbstar.MEASURES:
        assert about(m) == m.SHORT_DESC
        assert family_label(m) == FAMILIES[m.FAMILY].label
    assert family_label(ir_measures.nDCG @ 10) == "trec_eval (ir_measures)"
    assert "trec_eval" in about(ir_measures.nDCG @ 10)
