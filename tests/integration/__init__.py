"""The package as a whole, through every door: ir_measures, the ir-rbstar command, PyTerrier,
ir_datasets ids, both engines, the report, the plots, pinned values, the benchmarks' tables."""
