import os

from hypothesis import HealthCheck, settings

# tests/test_readme.py and tests/test_docs.py import these from here (``from conftest import ...``);
# everything else imports them from tests.helpers.
from tests.helpers import (FIXTURES, REPO, SHARED, SHARED_DATA, VASWANI,  # noqa: F401
                           expected_python_output, load_script, shared_data)

# CI runs are reproducible (derandomized); local runs explore new examples.
settings.register_profile("ci", derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
