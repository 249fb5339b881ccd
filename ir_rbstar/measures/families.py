"""The five measure families and the papers they come from: one table read by the declarations, the
provider's dispatch, the report's texts and the generated documentation.

Each declaration names its family in ``FAMILY`` (a key of :data:`FAMILIES`) and carries its own
``PRETTY_NAME``, ``SHORT_DESC``, parameters and ``DEFAULT`` (the value of a query the run does not
answer); the family gives the label, the documentation page and the citation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

__all__ = ["Citation", "Family", "FAMILIES", "CITATIONS", "family_of"]


@dataclass(frozen=True)
class Citation:
    """A paper, as a reader would look it up: authors, year, title, venue and a DOI (``doi`` is a DOI
    name such as ``10.1145/3673791.3698405``; ``note`` says what the DOI points to when it is not the
    paper's own)."""

    authors: str
    year: int
    title: str
    venue: str
    doi: str
    note: str = ""

    @property
    def short(self) -> str:
        """Author-year form, e.g. ``Moffat et al. 2024``."""
        names = self.authors.split(", ")
        first = names[0].split()[-1]
        if len(names) == 1:
            return f"{first} {self.year}"
        if len(names) == 2:
            return f"{first} & {names[1].split()[-1]} {self.year}"
        return f"{first} et al. {self.year}"

    @property
    def url(self) -> str:
        return f"https://doi.org/{self.doi}"

    def __str__(self) -> str:
        note = f" ({self.note})" if self.note else ""
        return f"{self.authors}. {self.title}. {self.venue}, {self.year}. {self.url}{note}"


MOFFAT_2024 = Citation("Alistair Moffat, Joel Mackenzie, Antonio Mallia, Matthias Petri", 2024,
                       "Rank-Biased Quality Measurement for Sets and Rankings", "SIGIR-AP",
                       "10.1145/3673791.3698405")
MCSHERRY_2008 = Citation("Frank McSherry, Marc Najork", 2008,
                         "Computing Information Retrieval Performance Measures Efficiently in the Presence of "
                         "Tied Scores", "ECIR, LNCS 4956, 414-421", "10.1007/978-3-540-78646-7_38")
FERRO_2016 = Citation("Nicola Ferro, Gianmaria Silvello, Heikki Keskustalo, Ari Pirkola, Kalervo Järvelin", 2016,
                      "The Twist Measure for IR Evaluation: Taking User's Effort into Account",
                      "Journal of the Association for Information Science and Technology 67(3), 620-648",
                      "10.1002/asi.23416")
TAN_2015 = Citation("Luchen Tan, Charles L. A. Clarke", 2015,
                    "A Family of Rank Similarity Measures Based on Maximized Effectiveness Difference",
                    "IEEE Transactions on Knowledge and Data Engineering", "10.48550/arXiv.1408.3587",
                    note="the arXiv version, arXiv:1408.3587")
BIGDELI_2024 = Citation("Amin Bigdeli, Negar Arabzadeh, Ebrahim Bagheri, Charles L. A. Clarke", 2024,
                        "Evaluating Relative Retrieval Effectiveness with Normalized Residual Gain", "SIGIR-AP",
                        "10.1145/3673791", note="the DOI of the SIGIR-AP 2024 proceedings")
MOFFAT_ZOBEL_2008 = Citation("Alistair Moffat, Justin Zobel", 2008,
                             "Rank-Biased Precision for Measurement of Retrieval Effectiveness",
                             "ACM Transactions on Information Systems 27(1)", "10.1145/1416950.1416952")
WEBBER_2010 = Citation("William Webber, Alistair Moffat, Justin Zobel", 2010,
                       "A Similarity Measure for Indefinite Rankings",
                       "ACM Transactions on Information Systems 28(4)", "10.1145/1852102.1852106")

#: every paper the package cites, by key
CITATIONS: Dict[str, Citation] = {
    "moffat2024": MOFFAT_2024, "mcsherry2008": MCSHERRY_2008, "ferro2016": FERRO_2016, "tan2015": TAN_2015,
    "bigdeli2024": BIGDELI_2024, "moffat2008": MOFFAT_ZOBEL_2008, "webber2010": WEBBER_2010,
}


@dataclass(frozen=True)
class Family:
    """A family of measures: ``label`` as the report prints it, the documentation ``page`` (under
    ``docs/``) and its ``title``, the ``question`` its measures answer, and the ``citation`` of the paper
    that defines the family (``also``: earlier papers some of its measures come from)."""

    key: str
    label: str
    title: str
    page: str
    question: str
    citation: Citation
    also: Tuple[Citation, ...] = ()


FAMILIES: Dict[str, Family] = {f.key: f for f in (
    Family("rankbiased", "rank-biased", "Rank-biased precision, recall, alignment and overlap", "rankbiased.md",
           "how good is a ranking, a first stage's set, or the agreement of two rankings, and how much could "
           "still change?", MOFFAT_2024, (MOFFAT_ZOBEL_2008, WEBBER_2010)),
    Family("ties", "tie-aware", "Tie-aware measures", "ties.md",
           "what is a run worth when its tied scores are not ordered by document id?", MCSHERRY_2008),
    Family("twist", "effort (Twist)", "Twist, effort and CRP curves", "twist.md",
           "how much avoidable effort does a ranking cost its reader?", FERRO_2016),
    Family("nrg", "residual gain", "Normalized residual gain and effectiveness relative to prior runs", "nrg.md",
           "what does a run find that the other runs had not already shown?", BIGDELI_2024),
    Family("med", "MED", "Maximized effectiveness difference", "med.md",
           "how far apart are two rankings, in the units of a measure?", TAN_2015),
)}

#: ir_measures' own measures this package can compute, and the family that computes them
FOREIGN_FAMILY: Dict[str, str] = {"RBP": "rankbiased", "P": "ties", "R": "ties", "AP": "ties", "RR": "ties",
                                  "nDCG": "ties"}


def family_of(measure) -> Optional[Family]:
    """The family of one of this package's declarations, or of an ir_measures measure it computes
    (``RBP`` -> rank-biased, ``P``/``R``/``AP``/``RR``/``nDCG`` -> tie-aware family); None otherwise."""
    key = getattr(measure, "FAMILY", "") or FOREIGN_FAMILY.get(str(getattr(measure, "NAME", "")), "")
    return FAMILIES.get(key)
