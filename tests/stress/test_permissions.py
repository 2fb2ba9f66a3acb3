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
import tempfile

import pytest

from daemon_support import (CAP_SYS_PTRACE, DEBUGGEE, NOBODY, Daemon, call_as_user,
                            calls_as_user, process_state, wait_for)
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
        ("launch", "launch", {"argv": [as_user(DEBUGGEE, NOBODY), "spin"]}),
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


def test_a_client_with_cap_sys_ptrace_traces_what_its_uid_could_not(shared_daemon, spinner):
    """The kernel judges: nobody with CAP_SYS_PTRACE may attach to root's
    process (and join root's session on it), as its own ptrace() could;
    nobody without it may not."""
    target = spinner()
    root = shared_daemon.connect()
    root_session = root.call("attach", pid=target.pid)["session"]
    root.call("continue", session=root_session)
    calls = [("join", "session.join", {"session": root_session}),
             ("list", "session.list", {})]
    plain = calls_as_user(NOBODY, shared_daemon.socket, calls)
    assert plain["join"][0] == PERMISSION
    assert plain["list"] == []
    capable = calls_as_user(NOBODY, shared_daemon.socket, calls, capabilities=[CAP_SYS_PTRACE])
    assert capable["join"] is None
    assert [entry["session"] for entry in capable["list"]] == [root_session]
    root.call("detach", session=root_session)

    other = spinner()
    plain = calls_as_user(NOBODY, shared_daemon.socket, [("attach", "attach", {"pid": other.pid})])
    assert plain["attach"][0] == PERMISSION
    assert f"does not let uid {NOBODY} trace process {other.pid}" in plain["attach"][1]
    capable = calls_as_user(NOBODY, shared_daemon.socket, [("attach", "attach", {"pid": other.pid})],
                            capabilities=[CAP_SYS_PTRACE])
    assert capable["attach"]["threads"] == [other.pid]
    # The helper's disconnect let it go.
    wait_for(lambda: process_state(other.pid) in ("R", "S"), what="the spinner to run on")


def test_a_launch_reaches_a_directory_through_a_supplementary_group(shared_daemon):
    """The program runs with the client's supplementary groups: a working
    directory only a group of the client's may enter is its to use."""
    group = 4242
    # Not under pytest's tmp_path, which only root may enter.
    folder = os.path.join(tempfile.mkdtemp(prefix="froggy-group-", dir="/tmp"), "group-only")
    os.chmod(os.path.dirname(folder), 0o755)
    os.mkdir(folder)
    os.chown(folder, 0, group)
    os.chmod(folder, 0o070)
    launch = ("launch", "launch", {"argv": [as_user(DEBUGGEE, NOBODY), "spin"], "cwd": str(folder)})
    without = calls_as_user(NOBODY, shared_daemon.socket, [launch])
    assert without["launch"][0] == -32001, without
    assert "could not open its stdio file or enter its directory" in without["launch"][1]
    member = calls_as_user(NOBODY, shared_daemon.socket, [launch], groups=[group])
    pid = member["launch"]["pid"]
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status)
        assert fields["Groups"].split() == [str(group)]
        assert fields["Uid"].split() == [str(NOBODY)] * 4
        assert int(fields["CapEff"], 16) == 0
        assert os.readlink(f"/proc/{pid}/cwd") == folder
    finally:
        os.kill(pid, 9)


def test_yama_scope_2_lets_only_cap_sys_ptrace_attach(shared_daemon, spinner):
    own = spinner(user=NOBODY)
    previous = read_scope()
    write_scope(2)
    try:
        attach = [("attach", "attach", {"pid": own.pid})]
        plain = calls_as_user(NOBODY, shared_daemon.socket, attach)
        assert plain["attach"][0] == PERMISSION
        assert "under Yama ptrace_scope 2" in plain["attach"][1]
        assert call_as_user(NOBODY, device_attach_errno, own.pid) == errno.EPERM
        capable = calls_as_user(NOBODY, shared_daemon.socket, attach, capabilities=[CAP_SYS_PTRACE])
        assert capable["attach"]["threads"] == [own.pid]
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
    assert results["attach"][0] == PERMISSION
    assert results["attach"][1].startswith(f"permission denied: the kernel does not let uid {NOBODY} "
                                            f"trace process {own.pid} under Yama ptrace_scope 3")
    assert results["launch"][0] == PERMISSION
    assert results["device"] == errno.EPERM
    # Nothing was left stopped by the attempts.
    assert process_state(own.pid) in ("R", "S")
    assert process_state(target.pid) in ("R", "S")
