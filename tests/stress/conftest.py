"""The stress tests run for as long as --stress-scale makes them, and
use the daemon tests' helpers (tests/daemon)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "daemon"))


def pytest_collection_modifyitems(config, items):
    """About ten minutes per unit of scale at most, under TCG and KASAN."""
    scale = config.getoption("stress_scale")
    for item in items:
        if "/stress/" in str(item.fspath):
            item.add_marker(pytest.mark.timeout(300 + 600 * scale))
