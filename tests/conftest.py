"""Hypothesis profiles for the whole suite. Paths and helpers the tests share are in tests/helpers.py."""
import os

from hypothesis import HealthCheck, settings

# CI runs are reproducible (derandomized); local runs explore new examples.
settings.register_profile("ci", derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
