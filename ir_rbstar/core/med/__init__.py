"""Kernels of the MED family (maximized effectiveness difference: Tan & Clarke, *A Family of Rank
Similarity Measures based on Maximized Effectiveness Difference*, IEEE TKDE 2015).

MED(A, B) = max over relevance assignments of |S(A) - S(B)|. The maximum of |.| is the larger of the
maxima of S(A) - S(B) and S(B) - S(A); each is a *direction*: the list whose score is pushed up is
``up``, the other ``down``. In a direction, a document is

* predetermined (judged): its value is fixed;
* free (in one list only, or a filler position after a list's end up to the depth k): it gets the top
  value r_G in ``up`` and 0 in ``down`` (every measure here is non-decreasing in each value);
* bound (unjudged, in both lists): one variable shared by both lists.

Dot-product measures (P, RBP, nDCG: S = C . D / N with a non-increasing discount D) are solved in
closed form per row (section III of the paper): a bound document is worth r_G max(0, d_up - d_down).

ERR and AP need a search over the bound variables. Both measures are affine in each single value
(ERR is multilinear, AP quadratic in 0/1 values), so every variable takes 0 or r_G at a maximum. Both
searches are branch and bound, best first (the open node with the highest bound is expanded next),
over the two directions of a query pair at once: they share the incumbent (the best value attained
by either direction, at least 0, since MED is the larger of the two and never below 0), so a direction
whose bounds fall below the other direction's maximum is closed without being solved. A search stops
when no open node's bound exceeds the incumbent by more than ``TOL`` = 1e-12: the value is then the
exact maximum (within TOL), where the paper approximates AP by tabu search and ERR by a search over
at most 5 relevant bound documents (eq. 24).

**Budget.** Each direction of each query may expand at most ``budget`` nodes. A search that reaches it
stops and returns a certified upper bound instead: the larger of the incumbent and the bound of every
open node, never below the maximum. Nodes are counted per query and direction and each query's search
depends on its own data only, so a value (exact or bound) never depends on the other queries of a call.

* AP (eq. 19) is a quadratic 0-1 problem  c + l.z + sum_{u<v} Q_uv z_u z_v (:func:`ap_qubo`). At each
  node, variables whose marginal value has one sign whatever the others are, are fixed (first-order
  persistency, Boros & Hammer, *Pseudo-Boolean optimization*, Discrete Applied Mathematics 2002: if
  l_v + sum_u min(0, Q_uv) >= 0, some maximum has z_v = 1; if l_v + sum_u max(0, Q_uv) <= 0, some maximum
  has z_v = 0), to a fixed point. Each node is bounded by the smaller of two upper bounds:

  - the roof bound c + sum_v max(0, l_v + 1/2 sum_u max(0, Q_uv)) (each pair's positive part split
    evenly between its two variables);
  - the *chain bound*: with the variables in the order of their positions in ``down``,
    Q_uv = (1/max(pa_u, pa_v) - 1/max(pb_u, pb_v)) / k is at most w_v = max over the u before v of Q_uv,
    so the objective is at most c + sum_v z_v (l_v + w_v N_v), N_v the number of ones before v, whose
    maximum a dynamic programme over (variable, N_v) finds exactly in O(m^2). Pairs in the same order in
    both lists have Q_uv = (1/pa_v - 1/pb_v)/k, which depends on v alone, so when both lists rank the
    shared documents in the same order (a run and the same run with documents inserted, say) the bound
    is the exact maximum: the root closes the search.

  The chain bound's maximiser, improved by 1-flip local search, is a candidate for the incumbent at
  every node. Branching is on the variable that the chain bound misjudges most (or, when the roof bound
  is the tighter one, on the variable whose roof score is largest in magnitude).
* ERR (eq. 23) is solved for all queries at once, vectorised. First, variables whose marginal value
  has one sign whatever the others are, are fixed (:func:`_fix_err`: the slope of ERR at a position is
  largest with every undecided value 0 and smallest with every one r_G). Then the branch and bound
  decides the remaining variables in order of their higher position, every node bounded by the
  decoupled relaxation (undecided values r_G in ``up`` and 0 in ``down``; ERR is increasing in every
  value, so this is an upper bound, and it is exact at the leaves), with incumbents from 1-flip local
  search. Each round expands, per query and direction, its best open nodes (a number that grows with
  the nodes it has expanded, so a hard query needs few rounds).
"""
from __future__ import annotations

from .ap import ap_qubo, max_ap, max_qubo, med_ap
from .common import TOL, Dense, Searched, Side, ap_rows, dense, dot_direction, err_rows
from .err import _err_search, _err_slopes, max_err, med_err

__all__ = ["Side", "Dense", "Searched", "dot_direction", "dense", "err_rows", "ap_rows", "med_err", "med_ap",
           "max_err", "max_ap", "max_qubo", "ap_qubo", "TOL", "_err_search", "_err_slopes"]
