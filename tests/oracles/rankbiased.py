"""Straight-from-the-definition oracles for the rank-biased family of Moffat, Mackenzie, Mallia & Petri
(SIGIR-AP 2024, doi:10.1145/3673791.3698405).

These are deliberately slow, loop-based and independent of the package: every quantity is computed
the way the definition reads, ties in a reference ranking are handled by *enumerating* every order of
every tie group and averaging, and the RBO_max derivation is checked by brute force over list
extensions (``rbo_max_bruteforce``).  Keep inputs small.  One exception to "the way the definition
reads": the RBO oracles take X_d at every depth from ``overlaps`` (one pass), which
tests/families/test_rankbiased_oracle.py checks against the set intersections |B_{1..d} ∩ R_{1..d}|.

Notation (Moffat et al. 2024): B is the observation (the run, cut at ``k``), R the
reference ranking, p the persistence, w(i) = (1-p) p^(i-1) for 1-based rank i.

Input conventions used throughout:
  * a run / reference run for one query is a dict ``{doc_id: score}``;
  * qrels for one query are a dict ``{doc_id: grade}``;
  * whole collections are dicts of those keyed by query id.
"""
import itertools
import math
from collections import namedtuple

__all__ = [
    'weight', 'run_ranking', 'observation', 'ref_from_run', 'ref_from_qrels', 'Reference',
    'tie_orders', 'expect_over_ties',
    'rbp', 'rbp_res', 'rbr', 'rbr_res', 'rba', 'rba_res', 'rbo', 'rbo_res', 'rbo_ext',
    'rbr_untied', 'rba_untied', 'rba_res_untied', 'rbo_min_untied', 'rbo_max_untied',
    'rbo_ext_untied', 'rbo_max_bruteforce', 'overlap', 'MAX_REL', 'evaluate', 'MEASURES', 'run_orders',
    'count_orders', 'rbo_hi_open', 'evaluate_extreme',
]


# ---------------------------------------------------------------------------------------------
# basics

def weight(i, p):
    """w(i) = (1-p) p^(i-1), i 1-based."""
    return (1.0 - p) * p ** (i - 1)


def run_ranking(run_q):
    """Order a run's documents: score descending, ties broken by doc id descending (string compare),
    which is trec_eval's order."""
    items = list(run_q.items())
    items.sort(key=lambda doc_score: (doc_score[1], doc_score[0]), reverse=True)
    return [doc for doc, _ in items]


def observation(run_q, k=None):
    """B: the first k documents of the run in run order (all of them when k is None)."""
    ranking = run_ranking(run_q)
    if k is not None:
        ranking = ranking[:k]
    return ranking


# A reference ranking: ``groups`` is a list of tie groups (lists of doc ids), best group first; the
# order inside a group is irrelevant.  ``known`` is the set of documents whose membership of R is
# known (R itself for a run-file reference; every judged document for a qrels-derived one).
Reference = namedtuple('Reference', ['groups', 'known'])


def ref_from_run(ref_q):
    """Reference ranking from a run: score descending; equal scores form a tie group."""
    groups = []
    scores = sorted(set(ref_q.values()), reverse=True)
    for s in scores:
        groups.append(sorted(doc for doc, score in ref_q.items() if score == s))
    members = set(ref_q)
    return Reference(groups, members)


def ref_from_qrels(qrels_q, rel=1):
    """Reference ranking from qrels: judged documents with grade >= rel, grade descending, equal
    grades tied.  Every judged document is 'known' (a judged doc below rel is known not in R)."""
    groups = []
    grades = sorted(set(g for g in qrels_q.values() if g >= rel), reverse=True)
    for g in grades:
        groups.append(sorted(doc for doc, grade in qrels_q.items() if grade == g))
    return Reference(groups, set(qrels_q))


def tie_orders(groups):
    """Every order of the reference ranking obtained by permuting each tie group independently."""
    per_group = [list(itertools.permutations(g)) for g in groups]
    for combo in itertools.product(*per_group):
        order = []
        for part in combo:
            order.extend(part)
        yield order


def expect_over_ties(groups, f):
    """Mean of f(R) over every tie order R (uniform over the orders)."""
    total = 0.0
    count = 0
    for order in tie_orders(groups):
        total += f(order)
        count += 1
    return total / count


def ref_size(ref):
    return sum(len(g) for g in ref.groups)


def ref_members(ref):
    out = set()
    for g in ref.groups:
        out.update(g)
    return out


def overlap(B, R, d):
    """X_d = |B_{1..d} ∩ R_{1..d}|; a prefix longer than the list is the whole list."""
    return len(set(B[:d]) & set(R[:d]))


def overlaps(B, R, n):
    """[X_0, X_1, ..., X_n] of :func:`overlap`, depth by depth: an item seen for the first time in one
    list adds 1 when the other list's prefix holds it (the same integers as ``overlap(B, R, d)`` for
    every d, in one pass instead of one set intersection per depth)."""
    seen_b, seen_r = set(), set()
    x = 0
    out = [0]
    for d in range(1, n + 1):
        if d <= len(B) and B[d - 1] not in seen_b:
            seen_b.add(B[d - 1])
            x += B[d - 1] in seen_r
        if d <= len(R) and R[d - 1] not in seen_r:
            seen_r.add(R[d - 1])
            x += R[d - 1] in seen_b
        out.append(x)
    return out


# ---------------------------------------------------------------------------------------------
# RBP (ranking | set)

MAX_REL = 3     # the top of the grade scale of the graded RBP the tests evaluate (grades are <= 3)


def rbp(B, qrels_q, p, rel=None, G=None):
    """RBP = sum_{i<=|B|} gain(B_i) w(i).  rel given: binary gain (grade >= rel).  rel None: graded,
    gain = max(grade, 0) / G with G = max_rel, the top of the grade scale.  Unjudged: gain 0."""
    total = 0.0
    for i, doc in enumerate(B, start=1):
        if doc not in qrels_q:
            gain = 0.0
        elif rel is not None:
            gain = 1.0 if qrels_q[doc] >= rel else 0.0
        else:
            gain = max(qrels_q[doc], 0) / G
        total += gain * weight(i, p)
    return total


def rbp_res(B, qrels_q, p):
    """Weight of the unjudged positions of B plus the tail p^n, n = |B| (= min(k, run length))."""
    total = 0.0
    for i, doc in enumerate(B, start=1):
        if doc not in qrels_q:
            total += weight(i, p)
    return total + p ** len(B)


# ---------------------------------------------------------------------------------------------
# RBR (set | ranking)

def rbr_untied(B, R, p):
    """Eq. 8: sum over e in B (as a set) of w(rank_R(e)); 0 when e is not in R."""
    total = 0.0
    for e in set(B):
        if e in R:
            total += weight(R.index(e) + 1, p)
    return total


def rbr(B, ref, p):
    return expect_over_ties(ref.groups, lambda R: rbr_untied(B, R, p))


def unknown_items(B, ref):
    """Items of B, in B order, whose membership of R is unknown."""
    members = ref_members(ref)
    return [e for e in B if e not in members and e not in ref.known]


def rbr_res(B, ref, p):
    """Eq. 9 with b = number of unknown items of B: (1-p)/p sum_{i=1..b} p^(|R|+i)."""
    b = len(unknown_items(B, ref))
    size = ref_size(ref)
    total = 0.0
    for i in range(1, b + 1):
        total += p ** (size + i)
    return (1.0 - p) / p * total


# ---------------------------------------------------------------------------------------------
# RBA (ranking | ranking)

def rba_untied(B, R, p):
    """Eq. 11: sum over e in B∩R of (1-p) p^((rank_B(e)+rank_R(e))/2 - 1)."""
    total = 0.0
    for rb, e in enumerate(B, start=1):
        if e in R:
            rr = R.index(e) + 1
            total += (1.0 - p) * p ** ((rb + rr) / 2.0 - 1.0)
    return total


def rba(B, ref, p):
    return expect_over_ties(ref.groups, lambda R: rba_untied(B, R, p))


def rba_res_untied(B, R, known, p):
    """Algorithm 1 as printed: extra + p^|B∪R|, the B-only loop restricted to *unknown* items
    (judged non-relevant items are known not to be in R and cannot gain anything)."""
    extra = 0.0
    t = len(R) + 1
    for rb, e in enumerate(B, start=1):
        if e not in R and e not in known:
            extra += (1.0 - p) * p ** ((rb + t) / 2.0 - 1.0)
            t += 1
    t = len(B) + 1
    for rr, e in enumerate(R, start=1):
        if e not in B:
            extra += (1.0 - p) * p ** ((t + rr) / 2.0 - 1.0)
            t += 1
    shared = len(set(B) & set(R))
    union = len(B) + len(R) - shared
    return extra + p ** union


def rba_res(B, ref, p):
    return expect_over_ties(ref.groups, lambda R: rba_res_untied(B, R, ref.known, p))


# ---------------------------------------------------------------------------------------------
# RBO (ranking | ranking), Webber et al. 2010

def rbo_min_untied(B, R, p):
    """RBO_min: eq. 5 summed to infinity with both lists frozen (no further overlap):
    (1-p)/p [ sum_{d=1..l} p^d X_d/d + X_l sum_{d>l} p^d/d ], sum_{d>=1} p^d/d = -ln(1-p)."""
    l = max(len(B), len(R))
    if l == 0:
        return 0.0
    X = overlaps(B, R, l)
    head = 0.0
    harmonic_head = 0.0
    for d in range(1, l + 1):
        head += p ** d * X[d] / d
        harmonic_head += p ** d / d
    tail = X[l] * (-math.log1p(-p) - harmonic_head)
    return (1.0 - p) / p * (head + tail)


def max_overlap_profile(B, R, d, X):
    """X_d^max (the derivation in the contract): s = min length, l = max length.
    d <= s: X_d; s < d <= l: X_d + (d - s); d > l: min(d, a + 2(d - l)), a = X_l + (l - s).
    ``X``: :func:`overlaps` of B and R to depth l at least."""
    s = min(len(B), len(R))
    l = max(len(B), len(R))
    if d <= s:
        return X[d]
    if d <= l:
        return X[d] + (d - s)
    a = X[l] + (l - s)
    return min(d, a + 2 * (d - l))


def rbo_max_untied(B, R, p):
    """Largest value eq. 5 can take over all extensions of both lists."""
    s = min(len(B), len(R))
    l = max(len(B), len(R))
    X = overlaps(B, R, l)
    total = 0.0
    for d in range(1, l + 1):
        total += p ** d * max_overlap_profile(B, R, d, X) / d
    a = X[l] + (l - s)
    # for d > l the profile is a + 2(d-l) while that is below d, i.e. for d < 2l - a; from
    # D = max(l+1, 2l-a) on it is d itself, and sum_{d>=D} p^d = p^D / (1-p).
    D = max(l + 1, 2 * l - a)
    for d in range(l + 1, D):
        total += p ** d * (a + 2 * (d - l)) / d
    total += p ** D / (1.0 - p)
    return (1.0 - p) / p * total


def rbo_ext_untied(B, R, p):
    """Webber et al. 2010 eq. 32 (uneven lengths), X_s/s := 0 when s = 0."""
    s = min(len(B), len(R))
    l = max(len(B), len(R))
    if l == 0:
        return 0.0
    X = overlaps(B, R, l)
    Xs, Xl = X[s], X[l]
    part1 = 0.0
    for d in range(1, l + 1):
        part1 += p ** d * X[d] / d
    part2 = 0.0
    if s > 0:
        for d in range(s + 1, l + 1):
            part2 += p ** d * Xs * (d - s) / (s * d)
    xs_over_s = Xs / s if s > 0 else 0.0
    last = ((Xl - Xs) / l + xs_over_s) * p ** l
    return (1.0 - p) / p * (part1 + part2) + last


def rbo(B, ref, p):
    return expect_over_ties(ref.groups, lambda R: rbo_min_untied(B, R, p))


def rbo_res(B, ref, p):
    return expect_over_ties(ref.groups, lambda R: rbo_max_untied(B, R, p) - rbo_min_untied(B, R, p))


def rbo_ext(B, ref, p):
    return expect_over_ties(ref.groups, lambda R: rbo_ext_untied(B, R, p))


# ---------------------------------------------------------------------------------------------
# residuals with a qrels-derived reference ("open": a judged document enters R by its grade, anywhere)

def rbr_res_open(B, ref, p):
    """The largest RBR over the gradings of B's unjudged documents minus RBR: the maximum puts them
    above every judged document (test_residual_bounds.py checks this against every grading)."""
    unknown = unknown_items(B, ref)
    if not unknown:
        return 0.0
    top = Reference([[e] for e in sorted(unknown)] + list(ref.groups), set(ref.known) | set(unknown))
    return rbr(B, top, p) - rbr(B, ref, p)


def rba_res_open(B, ref, p):
    """(1-p)/p sum_i p^((a_i + i)/2) + p^((|B| + u)/2), a_i the B-ranks of the u unjudged documents,
    at most 1 - RBA."""
    q = math.sqrt(p)
    ranks = [i for i, e in enumerate(B, start=1) if e not in ref.known]
    total = sum((1.0 - p) / p * q ** (a + i) for i, a in enumerate(ranks, start=1))
    return min(total + q ** (len(B) + len(ranks)), 1.0 - rba(B, ref, p))      # RBA <= 1


def rbo_hi_open(B, ref, p, depth=4000):
    """(1-p)/p sum_d p^d min(d, X_d + U_d + max(0, d - |B|)) / d summed term by term (X_d by enumerating
    the tie orders, U_d = unjudged documents among B's first d): the most RBO can reach."""
    size = max(len(B), ref_size(ref))
    xs = [expect_over_ties(ref.groups, lambda R, d=d: overlap(B, R, d)) for d in range(size + 1)]
    unknown = set(e for e in B if e not in ref.known)
    # U_d for d = 0..|B| (B's prefixes longer than B are B): counted once per depth, not re-intersected
    u = [len(unknown & set(B[:d])) for d in range(len(B) + 1)]
    hi = 0.0
    for d in range(1, depth + 1):
        x = xs[min(d, size)] + u[min(d, len(B))] + max(0, d - len(B))
        hi += p ** d * min(d, x) / d
    return hi * (1.0 - p) / p


def rbo_res_open(B, ref, p):
    """max(hi, RBO_ext) - RBO (hi: :func:`rbo_hi_open`)."""
    return max(rbo_hi_open(B, ref, p), rbo_ext(B, ref, p)) - rbo(B, ref, p)


# ---------------------------------------------------------------------------------------------
# brute-force check of RBO_max

def _growth_tail(x, D, p):
    """sum_{d>D} p^d min(d, x + 2(d-D)) / d: the best the tail can do once both lists have D items
    with overlap x.  It is an upper bound (each step adds at most one item to each list, hence at most
    2 to the overlap, and X_d <= d) and it is attained (while some item of either prefix is unmatched,
    append to each list an unmatched item of the other; once all are matched, append the same fresh
    item to both)."""
    total = 0.0
    d = D + 1
    while True:
        xd = x + 2 * (d - D)
        if xd >= d:
            return total + p ** d / (1.0 - p)
        total += p ** d * xd / d
        d += 1


def rbo_max_bruteforce(B, R, p, extra=1):
    """Max of eq. 5 over every way of extending B and R to depth D = max(|B|,|R|) + extra with items
    drawn from B∪R and fresh items (fresh items are interchangeable, so a new fresh item is always the
    next unused one), plus the exact best tail beyond depth D (``_growth_tail``)."""
    B = list(B)
    R = list(R)
    D = max(len(B), len(R)) + extra
    originals = list(dict.fromkeys(B + R))
    best = [-1.0]

    def value(BB, RR):
        X = overlaps(BB, RR, D)
        total = 0.0
        for d in range(1, D + 1):
            total += p ** d * X[d] / d
        total += _growth_tail(X[D], D, p)
        return (1.0 - p) / p * total

    def candidates(lst, fresh_used):
        used = set(lst)
        pool = originals + ['#fresh%d' % i for i in range(fresh_used)]
        out = [e for e in pool if e not in used]
        out.append('#fresh%d' % fresh_used)  # one new fresh item stands for all of them
        return out

    def extend(BB, RR, fresh_used):
        if len(BB) < D:
            for e in candidates(BB, fresh_used):
                extend(BB + [e], RR, fresh_used + (1 if e == '#fresh%d' % fresh_used else 0))
            return
        if len(RR) < D:
            for e in candidates(RR, fresh_used):
                extend(BB, RR + [e], fresh_used + (1 if e == '#fresh%d' % fresh_used else 0))
            return
        v = value(BB, RR)
        if v > best[0]:
            best[0] = v

    extend(B, R, 0)
    return best[0]


# ---------------------------------------------------------------------------------------------
# whole-collection evaluation with the contract's query-set rules

MEASURES = ('RBP', 'RBP_res', 'RBR', 'RBR_res', 'RBA', 'RBA_res', 'RBO', 'RBO_res', 'RBO_ext')


def run_orders(run_q):
    """Every order of a run obtained by permuting each group of equal scores independently (groups by
    score descending); one order when the run has no ties."""
    groups = [sorted(doc for doc, score in run_q.items() if score == s)
              for s in sorted(set(run_q.values()), reverse=True)]
    return list(tie_orders(groups))


def count_orders(scores):
    """How many orders the ties of ``{doc: score}`` allow."""
    total = 1
    for s in set(scores.values()):
        total *= math.factorial(sum(1 for v in scores.values() if v == s))
    return total


def _mean(f, orders, ref, p):
    return sum(f(order, ref, p) for order in orders) / len(orders)


def evaluate(name, qrels, run, p=0.8, k=None, rel='default', ref_run=None, ties='docid'):
    """Per-query values {qid: value} of measure ``name``.

    qrels: {qid: {doc: grade}} or None; run: {qid: {doc: score}}; ref_run: {qid: {doc: score}} for a
    run-file / registered reference, or None for a qrels-derived one (RBP/RBP_res always use qrels).
    rel='default' means the measure's default (None for RBP/RBP_res, 1 otherwise).
    ties: 'docid' takes the run (and a reference run) in trec_eval's order (ties broken by doc id
    descending), averaging only over equal grades of a qrels-derived reference; 'expected' averages the
    value over every order of the run's ties too (RBP/RBP_res keep trec_eval's order either way).
    Query set: qrels' queries when qrels is given, else the run's queries.  A query missing from the
    run has B empty; missing from the reference, R empty.
    """
    if rel == 'default':
        rel = None if name in ('RBP', 'RBP_res') else 1
    if qrels is not None:
        qids = list(qrels)
    else:
        qids = list(run)
    G = MAX_REL
    out = {}
    for qid in qids:
        run_q = run.get(qid, {})
        B = observation(run_q, k)
        qrels_q = (qrels or {}).get(qid, {})
        if name == 'RBP':
            out[qid] = rbp(B, qrels_q, p, rel, G)
            continue
        if name == 'RBP_res':
            out[qid] = rbp_res(B, qrels_q, p)
            continue
        if ref_run is not None:
            ref = ref_from_run(ref_run.get(qid, {}))
            if ties == 'docid':
                ref = Reference([[doc] for doc in run_ranking(ref_run.get(qid, {}))], ref.known)
        else:
            ref = ref_from_qrels(qrels_q, rel)
        fn = {'RBR': rbr, 'RBR_res': rbr_res, 'RBA': rba, 'RBA_res': rba_res, 'RBO': rbo,
              'RBO_res': rbo_res, 'RBO_ext': rbo_ext}[name]
        if ref_run is None:          # a qrels-derived reference: the open residuals
            fn = {'RBR_res': rbr_res_open, 'RBA_res': rba_res_open, 'RBO_res': rbo_res_open}.get(name, fn)
        orders = [order[:k] if k is not None else order for order in run_orders(run_q)]
        if ties == 'docid':
            out[qid] = fn(B, ref, p)
        elif fn is rbo_res_open:
            # the residual of the mean over the run's tie orders: the mean of what each order can reach
            # (or its extrapolation, if larger) minus the mean RBO
            hi, ext, low = (_mean(f, orders, ref, p) for f in (rbo_hi_open, rbo_ext, rbo))
            out[qid] = max(hi, ext) - low
        else:
            values = [fn(order, ref, p) for order in orders]
            out[qid] = sum(values) / len(values)
    return out


def _population_variance(values):
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def evaluate_extreme(name, qrels, run, p=0.8, k=None, rel=1, ref_run=None, stat='max'):
    """{qid: the smallest (stat='min') or largest ('max') value, or the variance ('var'), of RBR, RBA, RBO or RBO_ext} over every order
    of the run's ties (cut at k after ordering) and every order of the reference's ties, by enumeration."""
    fn = {'RBR': rbr_untied, 'RBA': rba_untied, 'RBO': rbo_min_untied, 'RBO_ext': rbo_ext_untied}[name]
    pick = {'max': max, 'min': min, 'var': _population_variance}[stat]
    out = {}
    for qid in (list(qrels) if qrels is not None else list(run)):
        run_q = run.get(qid, {})
        ref = ref_from_run(ref_run.get(qid, {})) if ref_run is not None else ref_from_qrels(qrels.get(qid, {}), rel)
        values = [fn(order[:k] if k is not None else order, R, p)
                  for order in run_orders(run_q) for R in tie_orders(ref.groups)]
        out[qid] = pick(values)
    return out


# ---------------------------------------------------------------------------------------------
# test plumbing (no measure logic here): turning oracle inputs into what the package consumes and
# reading its per-query output back.  pandas / ir_measures / ir_rbstar are imported lazily so the
# oracles above stay importable on their own.

def qrels_df(qrels):
    """{qid: {doc: grade}} -> DataFrame(query_id, doc_id, relevance:int)."""
    import pandas as pd
    rows = [(qid, doc, int(g)) for qid, docs in qrels.items() for doc, g in docs.items()]
    df = pd.DataFrame(rows, columns=['query_id', 'doc_id', 'relevance'])
    df['relevance'] = df['relevance'].astype(int)
    return df


def run_df(run):
    """{qid: {doc: score}} -> DataFrame(query_id, doc_id, score:float)."""
    import pandas as pd
    rows = [(qid, doc, float(s)) for qid, docs in run.items() for doc, s in docs.items()]
    df = pd.DataFrame(rows, columns=['query_id', 'doc_id', 'score'])
    df['score'] = df['score'].astype(float)
    return df


def write_trec_run(path, run, tag='oracle'):
    """Write {qid: {doc: score}} as a TREC run file (qid Q0 docid rank score tag), rank = position in
    run order.  Scores are written with repr() so equal scores stay equal."""
    with open(path, 'w') as f:
        for qid, docs in run.items():
            for rank, doc in enumerate(run_ranking(docs), start=1):
                f.write('%s Q0 %s %d %r %s\n' % (qid, doc, rank, float(docs[doc]), tag))
    return str(path)


def ranked_run(qid, docs):
    """A run for one query whose scores strictly decrease along ``docs`` (score = n - position), so
    the order is unambiguous."""
    n = len(docs)
    return {qid: {doc: float(n - i) for i, doc in enumerate(docs)}}


def graded_qrels(qid, docs):
    """qrels giving docs[0] the highest grade n, docs[1] n-1, ..., docs[-1] grade 1."""
    n = len(docs)
    return {qid: {doc: n - i for i, doc in enumerate(docs)}}


def measure_string(name, p=None, k=None, rel='default', ref=None, ties=None):
    """e.g. RBR(p=0.6,rel=2,ref='/tmp/x.run')@5; parameters left out stay at their defaults."""
    params = []
    if ties is not None and name not in ('RBP', 'RBP_res'):
        params.append('ties=%r' % ties)
    if p is not None:
        params.append('p=%r' % float(p))
    if rel != 'default':
        params.append('rel=%r' % rel)
    if ref is not None:
        params.append('ref=%r' % str(ref))
    if name == 'RBP' and rel == 'default':
        params.append('max_rel=%d' % MAX_REL)
    out = name
    if params:
        out += '(' + ','.join(params) + ')'
    if k is not None:
        out += '@%d' % k
    return out


def package_provider():
    """The ir_rbstar provider as registered with ir_measures (found by the module its class lives in,
    so the test does not depend on the provider's NAME)."""
    import ir_rbstar  # noqa: F401  (registers)
    import ir_measures
    found = [prov for prov in ir_measures.providers.registry.values()
             if type(prov).__module__.split('.')[0] == 'ir_rbstar']
    assert len(found) == 1, 'expected exactly one ir_rbstar provider, found %r' % (found,)
    return found[0]


def per_query(measures, qrels, run, via='pipeline'):
    """{(query_id, str(measure)): value} from ir_measures.iter_calc (via='pipeline') or from the
    package's own provider (via='provider')."""
    import ir_measures
    import ir_rbstar
    measures = [ir_rbstar.parse_measure(m) if isinstance(m, str) else m for m in measures]
    if via == 'pipeline':
        it = ir_measures.iter_calc(measures, qrels, run)
    else:
        it = package_provider().iter_calc(measures, qrels, run)
    out = {}
    for m in it:
        key = (str(m.query_id), str(m.measure))
        assert key not in out, 'duplicate result for %r' % (key,)
        out[key] = float(m.value)
    return out
