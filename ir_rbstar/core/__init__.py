"""Numeric kernels: numpy only, no I/O, no ir_measures. One module per measure family."""
