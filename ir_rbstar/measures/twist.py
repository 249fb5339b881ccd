"""Declarations of the Twist family (Ferro, Silvello, Keskustalo, Pirkola, Järvelin, JASIST 2016).

Twist measures the avoidable *effort* a ranking costs its reader, from how far each document sits
from its place in the ideal ranking, instead of the gain it brings. For one query, with N the number
of documents of the run considered (its length, at most k with ``@k``), RB the *recall base* (judged
documents with grade >= ``rel``) and the ideal run holding them by grade descending:

* RP[j] (relative position, Def. 1) is 0 when the document at position j lies within the positions
  its grade occupies in the ideal run, j - (first such position) when it is above them, j - (last such
  position) when below. Unjudged documents and grades below ``rel`` are non-relevant, whose band
  starts at RB + 1. CRP[j] = RP[1] + ... + RP[j] (Def. 2).
* Crossings: positions j in [1, N-1] where CRP[j] and CRP[j+1] lie on opposite sides of zero, zero
  counting as both; balance point beta = max(RB, first crossing), infinite without one; recovery ratio
  rho = RB / beta (Def. 3). A run of one document crosses when CRP[1] = 0 (it ends on the
  axis; the crossing rule has no pair to look at there), so the ideal run always has rho = 1.
* s+ and s-: the sums of the positive RP values and of the absolute negative ones; the full-scale run
  is the reverse of the ideal run of length M = max(N, 2 RB); sigma+ = 1 - s+ / s+_fs,
  sigma- = 1 - s- / s-_fs, sigma = their harmonic mean, 0 when both are 0 (Defs. 4, 5).
* Twist tau = (rho + sigma) / 2 (Def. 6).

Edge cases: a query whose recall base is 0 (no relevant document judged) has no Twist in the paper's
sense; as a measure it scores 0 (as trec_eval's AP, R and nDCG do for such a query), so every query of
the qrels has a value and a mean never depends on the other measures asked for or on the door used
(the analysis helpers of :mod:`ir_rbstar.twist` still report such queries as having no value);
a query of the qrels for which the run returns nothing gets 0 (as a run of only non-relevant
documents would); the run order is trec_eval's (score descending, ties by doc id descending).
Short runs (N < RB, e.g. ``@10`` on a query with 100 relevant documents) are compared with a full-scale
run of length 2 RB, so their space ratio is high: read Twist@k with k >= RB.
"""
from __future__ import annotations

from .base import RbstarMeasure, param_cutoff, param_rel

__all__ = ["Twist", "Twist_rho", "Twist_sigma", "TWIST"]


class _TwistMeasure(RbstarMeasure):
    FAMILY = "twist"
    SUPPORTED_PARAMS = {"cutoff": param_cutoff(), "rel": param_rel(1)}


class _Twist(_TwistMeasure):
    """Twist: the effort a ranking costs its reader, 1 for the ideal ordering (Ferro et al. 2016, Def. 6).

    tau = (rho + sigma) / 2, the mean of the recovery ratio ``Twist_rho`` and the space ratio
    ``Twist_sigma``; 0 for a run of at least RB documents none of which is relevant. A query with
    recall base 0 (no relevant document) scores 0; a query the run does not answer scores 0.
    Examples: ``Twist``, ``Twist@100``, ``Twist(rel=2)@1000``.
    """
    __name__ = "Twist"
    NAME = "Twist"
    PRETTY_NAME = "Twist"
    SHORT_DESC = "effort: how far documents sit from their place in the ideal ranking (1 = ideal)"


class _Twist_rho(_TwistMeasure):
    """Recovery ratio of Twist: how soon the cumulated misplacement of the run first returns to zero.

    rho = RB / max(RB, first crossing of CRP with zero) (Ferro et al. 2016, Def. 3), 0 when CRP never crosses
    zero; a crossing where CRP only touches zero counts, so a run whose first document is in its place
    has rho = 1. Queries as for ``Twist``. Example: ``Twist_rho@100``.
    """
    __name__ = "Twist_rho"
    NAME = "Twist_rho"
    PRETTY_NAME = "Twist Recovery Ratio"
    SHORT_DESC = "Twist's recovery ratio: how soon the run's misplacement first returns to zero"


class _Twist_sigma(_TwistMeasure):
    """Space ratio of Twist: how much less ground the run walks than the full-scale (most misplaced) run.

    sigma = the harmonic mean of 1 - s+/s+_fs and 1 - s-/s-_fs (Ferro et al. 2016, Defs. 4-5), where s+ and
    s- are the space the run walks forward (relevant documents that come late) and backward
    (documents that come too early), and _fs marks the full-scale run (the ideal run reversed, of
    length max(N, 2 RB)); 0 when both ratios are 0. Queries as for ``Twist``. Example: ``Twist_sigma@100``.
    """
    __name__ = "Twist_sigma"
    NAME = "Twist_sigma"
    PRETTY_NAME = "Twist Space Ratio"
    SHORT_DESC = "Twist's space ratio: how much less ground the run walks than the most misplaced run"


Twist = _Twist()
Twist_rho = _Twist_rho()
Twist_sigma = _Twist_sigma()
TWIST = (Twist, Twist_rho, Twist_sigma)
