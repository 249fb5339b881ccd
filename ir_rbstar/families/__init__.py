"""Per-family glue: turns a RunContext into per-query values using the kernels of ir_rbstar.core.

Each module's ``compute(measures, ctx)`` is in ``ir_rbstar.provider.COMPUTE``; adding
a measure means one declaration (ir_rbstar/measures), one kernel (ir_rbstar/core) and its case here.
Internal: not part of the public API (docs/api.md).
"""
