"""The test suite (a package, so that tests import tests.helpers and tests.oracles; see README.md)."""
