"""PyTerrier integration, loaded by ``import pyterrier`` as ``pt.rbstar`` (entry point ``pyterrier.modules``).

``pt.Experiment`` parses measure *strings* with trec_eval names only, so give it measure objects:

    import pyterrier as pt
    pt.Experiment([bm25, monot5], topics, qrels,
                  eval_metrics=pt.rbstar.parse("nDCG@10 RBP(p=0.8)@10 RBR(p=0.8,ref='mono')@20"))

(``ir_rbstar.parse`` is the same function.) Reference runs for ``ref=`` can be registered from a
PyTerrier result frame (columns ``qid, docno, score``) with :func:`register_run`.
"""
from __future__ import annotations

from . import parse, register_run, registered_runs, unregister_run  # noqa: F401  (re-exported)

__all__ = ["parse", "register_run", "registered_runs", "unregister_run"]
