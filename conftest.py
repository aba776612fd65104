"""Hypothesis profiles for every test: ``dev`` (fast, the default) and ``ci`` (thorough).

Choose one with the ``HYPOTHESIS_PROFILE`` environment variable. ``dev`` draws new
random examples on every run, to keep exploring; ``ci`` is derandomized, so the
CI run checks exactly the examples a developer's ``ci`` run checked.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev",
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    max_examples=200,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    derandomize=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
