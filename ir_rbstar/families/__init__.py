"""Per-family glue: turns a RunContext into per-query values using the kernels of ir_rbstar.core."""
