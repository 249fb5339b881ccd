"""What the subcommands of :mod:`ir_rbstar.cli` share: the default number of decimal places and the QRELS
argument ('none'/'-', a TREC qrels file, or an ir_datasets id)."""
from __future__ import annotations

DEFAULT_PLACES = 4
NO_QRELS = ("none", "-")


def load_qrels(spec: str):
    """QRELS of a command: 'none'/'-' (no qrels), a TREC qrels file, or an ir_datasets id ('irds:<id>' or
    bare; a file that exists wins)."""
    if spec.lower() in NO_QRELS:
        return None
    from .datasets import resolve_qrels
    return resolve_qrels(spec)
