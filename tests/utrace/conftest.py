"""Fixtures for the utrace engine tests (helpers in utrace_session.py)."""

import os
import subprocess
import time

import pytest

from guest import BUILD, KERNEL_OBJ
from utrace_session import Tracee, UtraceSession

MODULE = os.path.join(KERNEL_OBJ, "lib", "test_utrace.ko")


@pytest.fixture(scope="session")
def utrace_module():
    """Load the test module for the whole run; unloading it at the end
    proves every engine the tests attached was released."""
    loaded = subprocess.run(["insmod", MODULE], capture_output=True, text=True)
    assert loaded.returncode == 0, loaded.stderr
    yield
    for _ in range(100):
        unloaded = subprocess.run(["rmmod", "test_utrace"],
                                  capture_output=True, text=True)
        if unloaded.returncode == 0:
            break
        time.sleep(0.1)
    assert unloaded.returncode == 0, f"engines leaked: {unloaded.stderr}"


@pytest.fixture
def session(utrace_module):
    sessions = []

    def open_session():
        sessions.append(UtraceSession())
        return sessions[-1]

    yield open_session
    for s in sessions:
        s.close()


@pytest.fixture
def start_tracee(tracee_program):
    started = []

    def start(mode, *args, user=None, own_group=False):
        started.append(Tracee(tracee_program, mode, *args, user=user,
                              own_group=own_group))
        return started[-1]

    yield start
    for t in started:
        t.kill()


@pytest.fixture(scope="session")
def tracee_program():
    path = os.path.join(BUILD, "tests", "programs", "utrace_tracee")
    assert os.access(path, os.X_OK), path
    return path

