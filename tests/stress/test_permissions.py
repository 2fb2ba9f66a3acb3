"""Who may trace whom, under Yama's ptrace_scope 1 and 3: through the
device and through a root froggyd serving an unprivileged client, every
refusal is a clear error, as ptrace's own.

(The device's uid rules, a root process, another user's process and an
exec racing the attach, are in utrace_test.c and utrace_stress.c; the
daemon's uid rules in daemon/test_sessions.py.)
"""

import ctypes
import errno
import fcntl
import os
import struct
import subprocess

import pytest

from daemon_support import (DEBUGGEE, NOBODY, Daemon, call_as_user, calls_as_user,
                            process_state, wait_for)
from froggy_rpc import RpcError
from guest import as_user

SCOPE = "/proc/sys/kernel/yama/ptrace_scope"
PERMISSION = -32003

# <linux/utrace.h>: the handshake and the attach, as the selftests make them.
UTRACE_API = 1
UTRACE_FEATURES_ALL = 7


def _iowr(nr, size):
    return (3 << 30) | (size << 16) | (0xB8 << 8) | nr


UTRACE_IOC_API = _iowr(0x00, 32)
UTRACE_IOC_ATTACH = _iowr(0x01, 56)


def device_attach_errno(pid):
    """Attach to pid through /dev/utrace: 0, or the errno."""
    fd = os.open("/dev/utrace", os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, UTRACE_IOC_API,
                    bytearray(struct.pack("=IIQ2Q", 32, UTRACE_API, UTRACE_FEATURES_ALL, 0, 0)))
        try:
            fcntl.ioctl(fd, UTRACE_IOC_ATTACH,
                        bytearray(struct.pack("=IIiIQQQ2Q", 56, 0, pid, 0, 0, 0, 0, 0, 0)))
        except OSError as error:
            return error.errno
        return 0
    finally:
        os.close(fd)


def ptrace_attach_errno(pid):
    """PTRACE_ATTACH, the reference: 0 (and detached again), or the errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, pid, None, None) == 0:       # PTRACE_ATTACH
        os.waitpid(pid, 0x40000000)                 # __WALL
        libc.ptrace(17, pid, None, None)            # PTRACE_DETACH
        return 0
    return ctypes.get_errno()


def write_scope(value):
    with open(SCOPE, "w") as scope:
        scope.write(str(value))


def read_scope():
    with open(SCOPE) as scope:
        return int(scope.read())


@pytest.fixture
def spinner():
    """debuggee spin, started untraced by the test: as root, or as nobody."""
    started = []

    def start(user=None):
        process = subprocess.Popen([as_user(DEBUGGEE, user), "spin"], stdout=subprocess.DEVNULL,
                                   user=user, group=user)
        started.append(process)
        wait_for(lambda: process_state(process.pid) in ("R", "S"), what="the spinner")
        return process

    yield start
    for process in started:
        process.kill()
        process.wait(timeout=60)


@pytest.fixture
def shared_daemon():
    daemon = Daemon("--shared")
    yield daemon
    daemon.check_clean_exit()


def as_nobody(daemon, pid):
    """What nobody is answered, by a root daemon and by the device, when
    it attaches to pid and launches a program of its own."""
    results = calls_as_user(NOBODY, daemon.socket, [
        ("attach", "attach", {"pid": pid}),
        ("launch", "launch", {"argv": [DEBUGGEE, "spin"]}),
    ])
    if isinstance(results["launch"], dict):
        os.kill(results["launch"]["pid"], 9)
    results["device"] = call_as_user(NOBODY, device_attach_errno, pid)
    return results


def test_yama_scope_1_lets_nobody_trace_what_is_not_its_descendant(
        shared_daemon, spinner):
    own = spinner(user=NOBODY)
    previous = read_scope()
    write_scope(1)
    try:
        results = as_nobody(shared_daemon, own.pid)
        # The same user's process, but not the helper's descendant.
        assert results["attach"][0] == PERMISSION
        assert "ptrace_scope 1" in results["attach"][1]
        assert results["device"] == errno.EPERM
        # A program it launches is its own to trace.
        assert results["launch"]["pid"] > 0
        # Root may, as with ptrace.
        root = shared_daemon.connect()
        session = root.call("attach", pid=own.pid)["session"]
        root.call("detach", session=session)
        assert ptrace_attach_errno(own.pid) == 0
    finally:
        write_scope(previous)


@pytest.mark.last_in_boot
def test_yama_scope_3_refuses_every_tracer(shared_daemon, spinner):
    """ptrace_scope 3 cannot be lowered again: this runs last."""
    own = spinner(user=NOBODY)
    target = spinner()
    write_scope(3)
    assert read_scope() == 3
    # ptrace, the reference, refuses root.
    assert ptrace_attach_errno(target.pid) == errno.EPERM
    # So does the device...
    assert device_attach_errno(target.pid) == errno.EPERM
    # ...and the daemon, to root: attach and launch alike.
    root = shared_daemon.connect()
    with pytest.raises(RpcError) as refused:
        root.call("attach", pid=target.pid)
    assert refused.value.code == PERMISSION
    assert "not permitted" in refused.value.message
    with pytest.raises(RpcError) as refused:
        root.call("launch", argv=[DEBUGGEE, "spin"])
    assert refused.value.code == PERMISSION
    assert "ptrace_scope 3" in refused.value.message
    # And to nobody, its own process included.
    results = as_nobody(shared_daemon, own.pid)
    assert results["attach"] == [PERMISSION, "permission denied: Yama ptrace_scope 3 "
                                             "forbids all tracing"]
    assert results["launch"][0] == PERMISSION
    assert results["device"] == errno.EPERM
    # Nothing was left stopped by the attempts.
    assert process_state(own.pid) in ("R", "S")
    assert process_state(target.pid) in ("R", "S")
