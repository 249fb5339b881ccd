"""The package's metadata is in pyproject.toml; this adds its one optional C extension (csrc/), a faster reader of
runs and qrels given as dicts of dicts or lists of namedtuples. ``optional=True``: where it cannot be compiled
(no C compiler), the package installs without it and reads the same inputs in Python (ir_rbstar/io/dictscan.py)."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("_ir_rbstar_dicts", ["csrc/_ir_rbstar_dicts.c"], optional=True)])
