"""PyTerrier integration, loaded by ``import pyterrier`` as ``pt.rbstar`` (entry point ``pyterrier.modules``).

``pt.Experiment`` parses measure *strings* with trec_eval names only, so give it measure objects:

    import pyterrier as pt
    pt.Experiment([bm25, monot5], topics, qrels,
                  eval_metrics=pt.rbstar.parse("nDCG@10 RBP(p=0.8)@10 RBR(p=0.8,ref='mono')@20"))

(``ir_rbstar.parse`` is the same function.) Reference runs for ``ref=`` can be registered from a
PyTerrier result frame (columns ``qid, docno, score``), a run file or ``'irds:<id>'`` (an ir_datasets
dataset's scoreddocs) with :func:`register_run`. :func:`qrels` reads qrels for ``pt.Experiment`` from a
TREC qrels file or an ir_datasets id:

    pt.Experiment([bm25], topics, pt.rbstar.qrels("irds:msmarco-passage/trec-dl-2019"),
                  eval_metrics=pt.rbstar.parse("nDCG@10 RBR(p=0.8,ref='irds:msmarco-passage/trec-dl-2019')@20"))
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from . import parse, register_run, registered_runs, unregister_run  # noqa: F401  (re-exported)

__all__ = ["parse", "qrels", "register_run", "registered_runs", "unregister_run"]


def qrels(spec: Any) -> pd.DataFrame:
    """Qrels as a DataFrame with PyTerrier's columns ``qid, docno, label`` (integer grades), for
    ``pt.Experiment``: from a TREC qrels file (``.gz`` allowed), an ir_datasets id (``'irds:<id>'`` or
    bare; needs ``ir_rbstar[datasets]``) or a ``pt.get_dataset('irds:...')`` object. A path that exists
    wins over an id. Validated as :func:`ir_rbstar.read_qrels` validates.

    >>> import ir_rbstar.pyterrier as rb
    >>> df = rb.qrels("ir_rbstar/data/vaswani/qrels")
    >>> list(df.columns), len(df)
    (['qid', 'docno', 'label'], 2083)
    """
    from .datasets import PREFIX, load_qrels
    from .io import to_qrels
    irds_id = getattr(spec, "_irds_id", None)          # pt.get_dataset('irds:<id>')
    if isinstance(irds_id, str):
        frame = load_qrels(PREFIX + irds_id)
    elif hasattr(spec, "get_qrels") and callable(spec.get_qrels):  # another PyTerrier dataset
        frame = to_qrels(spec.get_qrels(), source=f"{type(spec).__name__}.get_qrels()").frame()
    else:
        frame = load_qrels(spec)
    return frame.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
