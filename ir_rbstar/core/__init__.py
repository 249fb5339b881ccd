"""Numeric kernels: numpy only, no I/O, no ir_measures. One module per measure family.

Internal: not part of the public API (docs/api.md); names here may change without notice.
"""
