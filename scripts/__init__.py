"""Maintenance scripts: the generated blocks of the docs, their pictures, the bundled demo runs.

Run them from the repository root as modules, e.g. ``python -m scripts.make_docs --check``: the current
directory then comes first on the path, so they use the working tree's ir_rbstar and share _docblock.py.
"""
