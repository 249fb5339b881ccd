"""Which measures the explorer page evaluates: the ones asked for, and those derived from the first of them
(the *primary* measure, the one the per-query table compares): its tie range, a residual, a MED measure and
RBO between the two runs compared."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Union

from ..errors import ParameterError
from ..parsing import parse, parse_measure

#: measures with a tie-aware version (``<NAME>_TA``) whose ``stat='min'`` / ``'max'`` give the tie range
TIE_AWARE = {"P": "P_TA", "R": "R_TA", "AP": "AP_TA", "RR": "RR_TA", "nDCG": "nDCG_TA", "RBP": "RBP_TA",
             "P_TA": "P_TA", "R_TA": "R_TA", "F1_TA": "F1_TA", "AP_TA": "AP_TA", "RR_TA": "RR_TA",
             "nDCG_TA": "nDCG_TA", "RBP_TA": "RBP_TA"}
#: measures that have a residual measure of their own (the true value lies in [value, value + residual])
WITH_RESIDUAL = {"RBP": "RBP_res", "RBR": "RBR_res", "RBA": "RBA_res", "RBO": "RBO_res"}
DEFAULT_P = 0.8
DEFAULT_RBO = "RBO(p=0.9)"


@dataclass
class Plan:
    """The measures of one page. ``measures`` holds every measure evaluated per run and query (the asked ones
    first, then the derived ones, each once); the other fields name derived measures by their label, or are
    None where the primary measure has no such companion."""

    measures: list                      # measure objects, evaluated for every run
    asked: List[str]                    # labels of the measures asked for (the primary first)
    tie_min: Optional[str]
    tie_max: Optional[str]
    res_value: Optional[str]            # the measure whose residual is shown (e.g. RBP(p=0.8,max_rel=3))
    res: Optional[str]                  # its residual (e.g. RBP_res(p=0.8))
    res_p: Optional[float]              # the persistence of that residual (where its weight sits)
    med: Any                            # a MED measure without ref
    rbo: Any                            # an RBO measure without ref

    @property
    def primary(self) -> str:
        return self.asked[0]

    @property
    def res_cutoff(self) -> Optional[int]:
        return None if self.res is None else parse_measure(self.res).params.get("cutoff")


def _one(text: Union[str, Any], what: str):
    if not isinstance(text, str):
        return text
    parsed = parse(text)
    if len(parsed) != 1:
        raise ParameterError(f"{what}={text!r} must name one measure")
    return parsed[0]


def _with(measure, **params):
    """``measure`` with some parameters replaced (None removes one)."""
    merged = {k: v for k, v in {**measure.params, **params}.items() if v is not None}
    return type(measure)(**merged)


def _cutoff(measure) -> Optional[int]:
    return measure.params.get("cutoff")


def _tie_pair(m):
    name = TIE_AWARE.get(m.NAME)
    if name is None or "ref" in m.params:
        return None
    if name == "RBP_TA" and m.NAME == "RBP" and "max_rel" not in m.params and "rel" not in m.params:
        return None                      # ir_measures' binary RBP: rel=1 is its default
    cls = type(parse_measure(name))
    params = {k: v for k, v in m.params.items() if k in cls.SUPPORTED_PARAMS and k != "stat"}
    return cls(**params, stat="min"), cls(**params, stat="max")


def _residual(m, p: float, max_rel: int):
    """(value measure, residual measure, p): the primary's own residual, or RBP's over the whole ranking (no
    cutoff: the residual is then what the unjudged documents and the end of the run leave open, not the
    p^k that a cutoff k would add to every query alike)."""
    if m.NAME in WITH_RESIDUAL and getattr(m, "FAMILY", None) == "rankbiased":
        cls = type(parse_measure(WITH_RESIDUAL[m.NAME]))
        params = {k: v for k, v in m.params.items() if k in cls.SUPPORTED_PARAMS}
        return m, cls(**params), float(m.params.get("p", DEFAULT_P))
    value = parse_measure(f"RBP(p={p},max_rel={max_rel})" if max_rel > 1 else f"RBP(p={p})")
    return value, parse_measure(f"RBP_res(p={p})"), p


def _med_for(m, max_rel: int):
    """The MED measure in the units of the primary measure, where the family has one."""
    cut = _cutoff(m)
    name = m.NAME.removesuffix("_TA")
    rel = m.params.get("rel")
    rel_s = f",rel={rel}" if rel not in (None, 1) else ""
    if name == "P" and cut:
        return parse_measure(f"MED_P{'(' + rel_s[1:] + ')' if rel_s else ''}@{cut}")
    if name == "RBP":
        at = f"@{cut}" if cut else ""
        return parse_measure(f"MED_RBP(p={m.params.get('p', DEFAULT_P)}{rel_s}){at}")
    if name == "AP":
        return parse_measure(f"MED_AP{'(' + rel_s[1:] + ')' if rel_s else ''}@{cut or 100}")
    if name == "ERR":
        return parse_measure(f"MED_ERR(max_rel={max_rel})@{cut or 30}")
    return parse_measure(f"MED_nDCG(max_rel={max_rel})@{cut or 10}")


def make_plan(measures: Union[str, Sequence[Any], None], max_rel: int, p: float = DEFAULT_P,
              med: Union[str, Any, None] = None, rbo: Union[str, Any, None] = DEFAULT_RBO) -> Plan:
    """The measures of a page. ``measures``: a string of measures or a list (strings or objects); the first
    is the primary one (default ``nDCG@10``). ``max_rel``: the top of the grade scale (for RBP's and MED's
    graded gains). ``p``: persistence of the RBP residual (over the whole ranking) shown when the primary
    measure has no residual of its own. ``med``, ``rbo``: the pair measures (without ``ref``); ``med``
    defaults to the MED measure of the primary's family (MED_nDCG for others)."""
    if measures is None:
        measures = "nDCG@10"
    asked = parse(measures) if isinstance(measures, str) else [_one(m, "measure") for m in measures]
    if not asked:
        raise ParameterError("measures: give at least one measure")
    for m in asked:
        if "ref" in m.params or "prior" in m.params or "runs" in m.params:
            raise ParameterError(f"{m}: the explorer evaluates every run against the qrels; a measure with "
                                 f"ref/prior/runs is not supported here (MED and RBO between runs are shown)")
    first = asked[0]
    ties = _tie_pair(first)
    res_value, res, res_p = _residual(first, p, max_rel)
    all_measures = list(asked)
    for m in ([*ties] if ties else []) + [res_value, res]:
        if m not in all_measures:
            all_measures.append(m)
    med_m = _one(med, "med") if med is not None else _med_for(first, max_rel)
    rbo_m = _one(rbo, "rbo") if rbo is not None else None
    from ..med import SYMMETRIC
    for m, what in ((med_m, "med"), (rbo_m, "rbo")):
        if m is not None and (m.NAME not in SYMMETRIC or "ref" in m.params):
            raise ParameterError(f"{what}={m}: one of {', '.join(SYMMETRIC)}, without ref")
    return Plan(measures=all_measures, asked=[str(m) for m in asked],
                tie_min=str(ties[0]) if ties else None, tie_max=str(ties[1]) if ties else None,
                res_value=str(res_value), res=str(res), res_p=res_p, med=med_m, rbo=rbo_m)
