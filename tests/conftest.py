"""Shared test configuration: a deterministic Hypothesis profile so CI runs are
reproducible (``derandomize``) and quick (modest example counts, no deadline since the
machine is shared), and the fixtures shared by several test modules."""

import pytest
from hypothesis import HealthCheck, settings

import ferric

settings.register_profile(
    "ferric",
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ferric")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "crash_sweep: the narrow-dtype crash sweep "
                   "(tests/test_narrow_dtype_crash_sweep.py; subprocesses, ~30-60 s)")


@pytest.fixture
def restore_threads():
    """Puts ``ferric``'s intra-op thread count back after a test that sets it."""
    before = ferric.get_num_threads()
    yield
    ferric.set_num_threads(before)
