"""Fixtures shared by the whole guest suite.

The suite runs inside the QEMU guest that qemu/boot starts: the checkout and
its build folder are at the same paths as on the host, named by FROGGY_TOP
and FROGGY_BUILD.
"""

import os
import subprocess

import pytest

TOP = os.environ.get("FROGGY_TOP", os.path.dirname(os.path.dirname(__file__)))
BUILD = os.environ.get("FROGGY_BUILD", os.path.join(TOP, "build"))


def pytest_sessionstart(session):
    if os.environ.get("FROGGY_GUEST") != "1":
        raise pytest.UsageError(
            "the guest suite runs inside the Froggy guest: use qemu/check")


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


def run(argv, timeout=300, **kwargs):
    """Run argv to completion; return the CompletedProcess with text output."""
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=timeout, **kwargs)
