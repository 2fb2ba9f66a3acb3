"""Fixtures shared by the whole guest suite (paths are in guest.py)."""

import os

import pytest

from guest import BUILD


def pytest_sessionstart(session):
    if os.environ.get("FROGGY_GUEST") != "1":
        raise pytest.UsageError(
            "the guest suite runs inside the Froggy guest: use qemu/check")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that hung: have the kernel log every task's state and stack,
    to see where things are stuck.  The log then fails the run as well."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo and "Timeout" in str(call.excinfo.value):
        with open("/proc/sysrq-trigger", "w") as trigger:
            trigger.write("t")


def pytest_sessionfinish(session, exitstatus):
    """A skipped test is not a passed one: it fails the run."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter and reporter.stats.get("skipped") and exitstatus == 0:
        session.exitstatus = 1


@pytest.fixture(scope="session")
def build_dir():
    return BUILD


@pytest.fixture(scope="session")
def kernel_dir():
    return os.path.join(BUILD, "kernel")


@pytest.fixture(scope="session")
def tracee():
    """Path of a test program built by CMake: tracee("gdb_target")."""
    def path(name):
        exe = os.path.join(BUILD, "tests", "programs", name)
        assert os.access(exe, os.X_OK), f"{exe} is not built"
        return exe
    return path

