"""What the report measures: its default measure string, the distances, and the columns (label,
family, what it means, which direction is better) parsed from a measure string."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from ..errors import ParameterError
from ..measures.base import RbstarMeasure
from ..measures.families import family_of



#: the name under which the runs are registered as NRG's prior set (``NRG(prior='others')@10``)
PRIOR_GROUP = "others"


#: the measures of the distance matrices (MED judged against the qrels; RBO as 1 - RBO)
DISTANCES = (("med", "MED_nDCG@10"), ("rbo", "RBO(p=0.9)"))


def _distances(max_rel: int = 1):
    """The report's distance measures, graded ones on the grade scale ``max_rel``."""
    scale = "" if max_rel == 1 else f"(max_rel={max_rel})"
    return tuple((key, m.replace("MED_nDCG@", f"MED_nDCG{scale}@")) for key, m in DISTANCES)


@dataclass(frozen=True)
class Column:
    """One column of the report: the measure evaluated, shown as ``label`` (``1-RBO(...)`` when
    ``complement``: the value is 1 - the measure's); ``better`` is "higher", "lower" or "" (descriptive:
    neither ranked nor tested), with the reason in ``note``."""

    label: str
    measure: Any
    complement: bool = False
    better: str = "higher"
    note: str = ""


def about(measure) -> str:
    """What a column's measure is, for the report's table: the declaration's ``SHORT_DESC``; for
    ir_measures' own measures, theirs (with a note where they order tied scores as trec_eval does)."""
    text = getattr(measure, "SHORT_DESC", "") or "an ir_measures measure"
    if not isinstance(measure, RbstarMeasure) and family_of(measure) is not None:
        text += " (trec_eval: tied scores ordered by document id)"
    return text


def family_label(measure) -> str:
    """The family a column's measure belongs to, as the report names it."""
    if isinstance(measure, RbstarMeasure):
        return measure.family.label
    return "trec_eval (ir_measures)"


def default_measures(reference: Optional[str] = None, baseline: Optional[str] = None,
                     prior: Optional[str] = PRIOR_GROUP, max_rel: int = 1) -> str:
    """The report's default measures as a measure string (``1-`` marks a distance 1 - similarity).

    Always: nDCG@10, P@10, AP, R@100 (trec_eval's order of ties) and the tie-aware nDCG_TA@10, P_TA@10, AP_TA;
    RBP(p=0.8) (graded on the scale ``max_rel``) and its residual; Twist. With a ``reference`` (a registered
    name or run file): RBR(p=0.8)@20, RBA(p=0.9), RBO(p=0.9) against it. With ``prior`` (a registered group of
    runs): NRG@10. With a ``baseline`` (a registered name): MED_nDCG@10 and 1-RBO(p=0.9) against it.

    >>> print(default_measures(reference="mono", baseline="bm25"))  # doctest: +NORMALIZE_WHITESPACE
    nDCG@10 nDCG_TA@10 P@10 P_TA@10 AP AP_TA R@100 RBP(p=0.8) RBP_res(p=0.8) RBR(p=0.8,ref='mono')@20
    RBA(p=0.9,ref='mono') RBO(p=0.9,ref='mono') Twist NRG(prior='others')@10 MED_nDCG(ref='bm25')@10
    1-RBO(p=0.9,ref='bm25')
    """
    scale = "" if max_rel == 1 else f",max_rel={max_rel}"
    items = ["nDCG@10", "nDCG_TA@10", "P@10", "P_TA@10", "AP", "AP_TA", "R@100", f"RBP(p=0.8{scale})",
             "RBP_res(p=0.8)"]
    if reference is not None:
        ref = f"ref={reference!r}"
        items += [f"RBR(p=0.8,{ref})@20", f"RBA(p=0.9,{ref})", f"RBO(p=0.9,{ref})"]
    items.append("Twist")
    if prior is not None:
        items.append(f"NRG(prior={prior!r})@10")
    if baseline is not None:
        ref = f"ref={baseline!r}"
        items += [f"MED_nDCG({ref}{scale})@10", f"1-RBO(p=0.9,{ref})"]
    return " ".join(items)


def graded(measure: Any) -> bool:
    """Whether a measure turns the qrels' grades into gains on a grade scale ``max_rel`` (graded RBP, RBP_TA,
    MED_nDCG, MED_ERR...: it has the parameter, no binary ``rel`` and reads the judgments). A judgment-free
    measure (``judgments=False``) reads no grade: its ``max_rel``, where it matters, is the scale it assumes
    for the unknown documents, which its own string states; the collection's scale is not written into it."""
    params = getattr(measure, "params", {})
    return ("max_rel" in getattr(measure, "SUPPORTED_PARAMS", {}) and params.get("rel") is None
            and params.get("judgments", True) is not False)


def on_scale(measure: Any, max_rel: Optional[int], override: bool = False) -> Any:
    """``measure`` on the grade scale ``max_rel`` when it is graded: written into it (``RBP(p=0.8,max_rel=3)``)
    unless it names its own ``max_rel`` and ``override`` is False. Other measures are returned as they are."""
    if max_rel is None or not graded(measure):
        return measure
    if "max_rel" in measure.params and not override:
        return measure
    return measure(max_rel=int(max_rel))


#: the range of the per-query values of ir_measures' own measures (this package's measures declare theirs:
#: ``RANGE`` / ``value_range()`` of their declaration): ratios in [0, 1], counts >= 0; any other is unbounded
_UNIT = (0.0, 1.0)
_TREC_RANGES = {
    **{name: _UNIT for name in ("P", "R", "AP", "nDCG", "RR", "ERR", "Rprec", "Bpref", "infAP", "SetP", "SetR",
                                "SetF", "SetAP", "Judged", "Success", "alpha_nDCG", "NERR8", "NERR9", "NERR10",
                                "NERR11", "compat")},
    **{name: (0.0, None) for name in ("NumRet", "NumRel", "NumRelRet", "NumQ")},
}


def value_range(measure: Any, complement: bool = False) -> Tuple[Optional[float], Optional[float]]:
    """The range (low, high) of a measure's per-query values, None for an open end: the one place the report
    takes a measure's range from (its intervals stay inside it). This package's measures declare it
    (:meth:`~ir_rbstar.measures.base.RbstarMeasure.value_range`: [0, 1] for the rank-biased, tie-aware, Twist,
    MED measures and normalised NRG; counts >= 0; RarP [0, 1 + alpha]); ir_measures' ratios are [0, 1].
    ``complement``: the range of 1 - value.

    >>> from ir_rbstar.parsing import parse_measure
    >>> value_range(parse_measure("RBP(p=0.8)")), value_range(parse_measure("RBO(p=0.9)"), complement=True)
    ((0.0, 1.0), (0.0, 1.0))
    """
    low: Optional[float]
    high: Optional[float]
    if isinstance(measure, RbstarMeasure):
        low, high = measure.value_range()
    else:
        low, high = _TREC_RANGES.get(getattr(measure, "NAME", str(measure)), (None, None))
    if complement:
        low, high = (None if high is None else 1.0 - high), (None if low is None else 1.0 - low)
    return low, high


def _parse_columns(measures: Any, baseline_tag: Optional[str], max_rel: Optional[int] = None,
                   override: bool = False) -> List[Column]:
    """Columns from a measure string (or list of strings / measure objects); ``1-`` before an RBO,
    RBO_ext or RBA measure makes it a distance. ``max_rel``: the collection's grade scale, written into every
    graded measure (:func:`on_scale`; with ``override`` also into those that name their own)."""
    from ..med import SIMILARITIES
    from ..parsing import parse_measure, split_measures

    if isinstance(measures, str):
        items: List[Any] = split_measures(measures)
    elif isinstance(measures, (list, tuple)):
        items = []
        for m in measures:
            items.extend(split_measures(m) if isinstance(m, str) else [m])
    else:
        raise ParameterError(f"measures={measures!r}: give a string of measures or a list of them")
    columns: List[Column] = []
    seen = set()
    for item in items:
        complement = isinstance(item, str) and item.startswith("1-")
        text = item[2:] if complement else item
        if isinstance(text, str):
            try:
                m = parse_measure(text)
            except ParameterError as e:
                raise ParameterError(f"measures: {e}") from None
        else:
            m = text
        m = on_scale(m, max_rel, override)
        if complement and m.NAME not in SIMILARITIES:
            raise ParameterError(f"measures: {item!r}: '1-' makes a distance of {', '.join(SIMILARITIES)} only")
        label = f"1-{m}" if complement else str(m)
        if label in seen:
            continue
        seen.add(label)
        name = m.NAME
        if name.endswith("_res"):
            better, note = "", "a residual: how much the value could still change, not a quality"
        elif baseline_tag is not None and m.params.get("ref") == baseline_tag:
            better, note = "", "against the baseline: how far each run is from it"
        elif complement or name.startswith("MED_"):
            better, note = "lower", "a distance from the reference"
        else:
            better, note = "higher", ""
        columns.append(Column(label, m, complement, better, note))
    if not columns:
        raise ParameterError("measures: no measure given")
    return columns
