"""Benchmarks of ir_rbstar against other tools (see README.md here). Run them from the repository root
as modules, e.g. ``python -m benchmarks.run_all --quick``; their workers run the files themselves
(``python benchmarks/bench_x.py --worker ...``), so both forms work."""
