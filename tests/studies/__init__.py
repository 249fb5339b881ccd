"""The study scripts (scripts/*_report.py, examples/first_stage_rbr.py) and the docs blocks they write;
their real-data tests need ../shared/data and skip, naming the path, when it is absent."""
