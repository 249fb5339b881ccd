"""The measure families (rank-biased, tie-aware, Twist, NRG, MED): worked examples from the papers,
the package against the oracles of tests/oracles on random inputs, bounds and invariants."""
