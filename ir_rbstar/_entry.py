"""Plugin entry points for ir_measures' provider discovery (entry-point group ``ir_measures.provider``).

Released ir_measures (0.4.x) does not read entry points: there ``import ir_rbstar`` registers the
measures and puts the provider into ``ir_measures.DefaultPipeline``, and the stock ``ir_measures``
command knows none of this package's measures (use ``ir-rbstar``, which accepts the same arguments).
ir_measures' development line reads the group ``ir_measures.provider`` when it is imported,
instantiates each class and orders ``DefaultPipeline`` by the class attribute ``PRIORITY``; with it,
the stock command finds this package by itself. This module is what that loader imports: it defines
the two pipeline places and imports nothing heavy until a class is instantiated.
"""
from __future__ import annotations

from ir_measures.providers import Provider

__all__ = ["First", "Last"]


class _Place(Provider):
    """A place of ir_rbstar in ir_measures' default pipeline, computing with ``ir_rbstar.PROVIDER``."""

    NAME = "ir_rbstar"
    OWN = True

    def __init__(self):
        super().__init__()
        import ir_rbstar  # noqa: F401  (registers the measure declarations with ir_measures' parser)

    def _place(self):
        from ir_rbstar import provider
        return provider.FIRST if self.OWN else provider.LAST

    def supports(self, measure) -> bool:
        return self._place().supports(measure)

    def _evaluator(self, measures, qrels):
        return self._place()._evaluator(measures, qrels)

    def install_instructions(self) -> str:
        return "pip install ir_rbstar"


class First(_Place):
    """First place: only ir_rbstar's own measure declarations (so that ir_rbstar's ``RBP`` is never
    taken by a built-in provider), nothing that ir_measures' providers serve."""

    PRIORITY = -100.0
    OWN = True


class Last(_Place):
    """Last place: ir_measures' own measures that ir_rbstar computes and no built-in provider serves
    (e.g. ``RBP@10``, ``R(rel=2)@10``)."""

    PRIORITY = 100.0
    OWN = False
