"""The optional C extension ``_ir_rbstar_dicts`` (csrc/, built by setup.py where a C compiler is there), or None
where it is not built. Every compiled step reads :data:`compiled` when it runs: setting it to None switches them
all off at once, so that the numpy and Python code they stand in for runs (the tests do, to hold each step to
that code: ``tests.helpers.compiled_off``). The steps' wrappers are in :mod:`.dictscan`, but for the hashing of
ids, in :func:`.ids.hash_ids` (a module :mod:`.dictscan` reads)."""
from __future__ import annotations

try:
    import _ir_rbstar_dicts as compiled
except ImportError:                 # not built (no C compiler at install time) or a source checkout
    compiled = None


def step(name: str):
    """The compiled step ``name``, or None where the extension is not built (or, in a development tree, was built
    before the step was added: its callers then take the numpy or Python path, as without it)."""
    return getattr(compiled, name, None)
