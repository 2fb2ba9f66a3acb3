"""Fixtures for the froggyd tests: a daemon per test on its own socket,
clients of it, and the debuggee program (tests/programs/debuggee.c) run
untraced.  The helpers are in daemon_support.py."""

import subprocess

import pytest

from daemon_support import DEBUGGEE, Daemon
from guest import as_user


@pytest.fixture
def froggyd():
    """Start a daemon: froggyd() or froggyd("--shared").  At the end each
    one must exit cleanly on SIGTERM, having logged no warning."""
    daemons = []

    def start(*options):
        daemons.append(Daemon(*options))
        return daemons[-1]

    yield start
    for daemon in daemons:
        daemon.check_clean_exit()


@pytest.fixture
def daemon(froggyd):
    return froggyd()


@pytest.fixture
def client(daemon):
    return daemon.connect()


@pytest.fixture
def spawn():
    """Start the debuggee untraced, as a child of the test; killed at the
    end.  Its output goes to /dev/null."""
    started = []

    def start(*args, user=None):
        started.append(subprocess.Popen(
            [as_user(DEBUGGEE, user), *args], stdout=subprocess.DEVNULL,
            user=user, group=user))
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=60)
