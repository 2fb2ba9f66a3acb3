"""The stress tests run for as long as --stress-scale makes them, and
use the daemon tests' helpers (tests/daemon)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "daemon"))


# Known to fail, so kept out of the short run of every check until fixed:
# under load a thread can stay stopped after a step-over, and a stop-all
# can answer before a thread born during it is stopped.  qemu/check
# --stress runs them.
LONG_RUN_ONLY = "test_daemon_stress.py"


def pytest_collection_modifyitems(config, items):
    """About ten minutes per unit of scale at most, under TCG and KASAN."""
    scale = config.getoption("stress_scale")
    for item in items:
        if "/stress/" in str(item.fspath):
            item.add_marker(pytest.mark.timeout(300 + 600 * scale))
    if scale == 1:
        held = [item for item in items if str(item.fspath).endswith(LONG_RUN_ONLY)]
        if held:
            config.hook.pytest_deselected(items=held)
            items[:] = [item for item in items if item not in held]
