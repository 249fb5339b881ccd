"""Worked examples on real data, run from the repository root as modules, e.g.
``python -m examples.first_stage_rbr`` (it shares scripts/_docblock.py with the report scripts)."""
