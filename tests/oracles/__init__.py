"""Plain-Python oracles: each family computed straight from its paper's definitions, slowly and
independently of ir_rbstar, for the tests to compare the package with."""
