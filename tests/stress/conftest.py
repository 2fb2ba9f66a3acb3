"""The stress tests run for as long as --stress-scale makes them, and
use the daemon tests' helpers (tests/daemon)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "daemon"))


# Known to fail now and then, so kept out of the short run of every check
# until fixed: a stop of every thread over `debuggee churn` went
# unanswered for 120 s in one CI run of six (a death record the kernel
# dropped under the flood of thread events is the suspect: the daemon
# then waits for that thread to stop).  qemu/check --stress runs it.
LONG_RUN_ONLY = "test_stop_all_and_continue_all_over_threads_that_come_and_go"


def pytest_collection_modifyitems(config, items):
    """About ten minutes per unit of scale at most, under TCG and KASAN."""
    scale = config.getoption("stress_scale")
    for item in items:
        if "/stress/" in str(item.fspath):
            item.add_marker(pytest.mark.timeout(300 + 600 * scale))
    if scale == 1:
        held = [item for item in items if item.name == LONG_RUN_ONLY]
        if held:
            config.hook.pytest_deselected(items=held)
            items[:] = [item for item in items if item not in held]
