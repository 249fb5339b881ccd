"""Text for the explorer page: the first lines of the documents shown (from a TREC ``<DOC>`` file, a
``docid<TAB>text`` file, or an ir_datasets id whose documents are available offline) and the queries'
text (a ``qid<TAB>text`` file or an ir_datasets id). Only the documents the page shows are kept."""
from __future__ import annotations

import gzip
import os
import re
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

from ..errors import DatasetUnavailableError, InputFormatError, ParameterError

__all__ = ["document_texts", "query_texts", "first_lines", "LINES", "CHARS"]

#: how much of a document the page keeps: its first LINES non-empty lines, at most CHARS characters
LINES = 2
CHARS = 200
NO_TEXT = ("Document ids only: no document text was given (--docs FILE, a TREC <DOC> file or docid<TAB>text, "
           "or --docs irds:<id> with the documents available offline).")
_DOCNO = re.compile(rb"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S)
_TAG = re.compile(r"<[^>]+>")


def first_lines(text: str, lines: int = LINES, chars: int = CHARS) -> str:
    """The first ``lines`` non-empty lines of ``text`` (markup removed), cut to ``chars`` characters."""
    kept = [" ".join(line.split()) for line in _TAG.sub(" ", text).splitlines()]
    out = "\n".join([line for line in kept if line][:lines])
    return out if len(out) <= chars else out[: chars - 1].rstrip() + "\u2026"


def _open(path: str):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def _trec_docs(path: str, wanted: Set[str]) -> Iterator[Tuple[str, str]]:
    """(docno, text) of the wanted documents of a TREC ``<DOC>`` file."""
    block: List[bytes] = []
    inside = False
    with _open(path) as f:
        for line in f:
            stripped = line.strip()
            if stripped.upper().startswith(b"<DOC>"):
                inside, block = True, []
            elif stripped.upper().startswith(b"</DOC>"):
                inside = False
                raw = b"".join(block)
                m = _DOCNO.search(raw)
                if m is None:
                    continue
                docno = m.group(1).decode("utf-8", "replace")
                if docno in wanted:
                    yield docno, (raw[: m.start()] + raw[m.end():]).decode("utf-8", "replace")
            elif inside:
                block.append(line)


def _tsv_docs(path: str, wanted: Set[str]) -> Iterator[Tuple[str, str]]:
    with _open(path) as f:
        for line in f:
            head, sep, rest = line.partition(b"\t")
            if not sep:
                continue
            docno = head.decode("utf-8", "replace").strip()
            if docno in wanted:
                yield docno, rest.decode("utf-8", "replace").replace("\t", "\n")


def _looks_trec(path: str) -> bool:
    with _open(path) as f:
        start = f.read(4096).lstrip()
    return start.upper().startswith(b"<DOC")


def _dataset_docs(spec: str, wanted: Set[str]) -> Iterator[Tuple[str, str]]:
    from ..datasets import load_dataset
    dataset = load_dataset(spec)
    try:
        store = dataset.docs_store()
        found = store.get_many(sorted(wanted))
    except Exception as e:            # ir_datasets raises many kinds (missing files, no docs, ...)
        raise DatasetUnavailableError(f"docs={spec!r}: the documents are not available offline ({e})") from e
    for docno, doc in found.items():
        fields = [str(getattr(doc, f)) for f in doc._fields[1:] if isinstance(getattr(doc, f), str)]
        yield docno, "\n".join(fields)


def document_texts(docs: Any, qrels_spec: Any,
                   doc_ids: List[List[str]]) -> Tuple[Optional[List[List[Optional[str]]]], str]:
    """(per query, the first lines of each document of its table, or None without text; a note for the page)."""
    if docs is None:
        return None, NO_TEXT
    wanted = {d for table in doc_ids for d in table}
    spec = os.fspath(docs) if isinstance(docs, os.PathLike) else docs
    if not isinstance(spec, str):
        raise ParameterError(f"docs={docs!r}: a file path or an ir_datasets id")
    path = os.path.expanduser(spec)
    found: Dict[str, str] = {}
    if os.path.isfile(path):
        source = os.path.basename(path)
        reader = _trec_docs if _looks_trec(path) else _tsv_docs
        for docno, text in reader(path, wanted):
            found[docno] = first_lines(text)
    else:
        from ..datasets import dataset_id
        if dataset_id(spec) is None and not spec.startswith("irds:"):
            raise FileNotFoundError(f"docs file not found: {spec}")
        source = spec
        for docno, text in _dataset_docs(spec, wanted):
            found[docno] = first_lines(text)
    texts = [[found.get(d) for d in table] for table in doc_ids]
    missing = len(wanted) - len(found.keys() & wanted)
    note = f"Document text from {source} (first {LINES} lines); "
    note += f"{missing} of the {len(wanted)} documents shown have no text there." if missing else \
        f"all {len(wanted)} documents shown have text."
    return texts, note


def query_texts(queries: Any, qrels_spec: Any, qids: List[str]) -> Optional[List[Optional[str]]]:
    """The text of each query (None where unknown), from a ``qid<TAB>text`` file or an ir_datasets id."""
    if queries is None:
        return None
    spec = os.fspath(queries) if isinstance(queries, os.PathLike) else str(queries)
    path = os.path.expanduser(spec)
    found: Dict[str, str] = {}
    if os.path.isfile(path):
        with _open(path) as f:
            for n, line in enumerate(f, 1):
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                if not text.strip():
                    continue
                qid, sep, rest = text.partition("\t")
                if not sep:
                    raise InputFormatError(f"{spec}, line {n}: expected query_id<TAB>text")
                found[qid.strip()] = " ".join(rest.split())
    else:
        from ..datasets import load_dataset
        dataset = load_dataset(spec)
        try:
            for q in dataset.queries_iter():
                found[str(q.query_id)] = " ".join(str(q.text).split())
        except Exception as e:
            raise DatasetUnavailableError(f"queries={spec!r}: the queries are not available offline ({e})") from e
    return [found.get(q) for q in qids]
