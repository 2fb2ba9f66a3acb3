"""utrace_attach_task() lookups and the documented errors of the calls."""

import ctypes
import errno
import os
import shutil
import signal
import subprocess
import time

import pytest


def test_lookup_by_ops_and_data(session, start_tracee):
    tracee = start_tracee("block")
    s = session()
    s.attach(tracee.pid, "exec")
    s.attach(tracee.pid, "exec")
    # Matching the data finds each engine itself; matching the ops (the
    # same for both) or nothing finds the first one attached.
    s("lookup 0 data")
    s("lookup 1 data")
    s("lookup 0 ops")
    assert s.error("lookup 1 ops") == errno.EXDEV
    assert s.error("lookup 1 any") == errno.EXDEV
    s("control 0 detach")
    s("lookup 1 ops")
    assert s.error("lookup 0 data") == errno.ENOENT


def test_exclusive_attach_refuses_a_second_matching_engine(session, start_tracee):
    tracee = start_tracee("block")
    s = session()
    s.attach(tracee.pid, "exec", exclusive=True)
    assert s.error(f"attach {tracee.pid} exclusive") == errno.EEXIST
    other = session()
    assert other.error(f"attach {tracee.pid} exclusive") == errno.EEXIST
    s("control 0 detach")
    other(f"attach {tracee.pid} exclusive")


def test_an_observer_neither_stops_nor_changes_the_thread(session, start_tracee):
    """An observer's stop and step requests are refused, and its answers
    change nothing: the signal it would suppress is delivered."""
    s = session()
    tracee = start_tracee("signals")
    s.attach(tracee.pid, "signal", reply="resume sig=ign", observer=True)
    for action in ("stop", "interrupt", "singlestep", "blockstep"):
        assert s.error(f"control 0 {action}") == errno.EPERM, action
    s("control 0 report")
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["usr1_handled"] == "1"
    usr1 = s.wait_for("signal", signo=signal.SIGUSR1)
    assert usr1["sigaction"] == "deliver"


def test_step_needs_quiesce(session, start_tracee):
    tracee = start_tracee("block")
    s = session()
    s.attach(tracee.pid, "syscall_entry")
    assert s.error("control 0 singlestep") == errno.EINVAL
    assert s.error("control 0 blockstep") == errno.EINVAL


def test_calls_on_a_dead_thread(session, start_tracee):
    """On a zombie only detach works (-EALREADY for the rest); once the
    thread is reaped, every call says the engine is gone (-ESRCH)."""
    tracee = start_tracee("exec", "/bin/true")
    s = session()
    s.attach(tracee.pid, "death,reap")
    s.attach(tracee.pid, "death")
    tracee.go()
    s.wait_for("death")
    # The tracee is a zombie until we, its parent, wait for it.
    time.sleep(0.2)
    assert tracee.state()["State"].startswith("Z")
    assert s.error("control 0 stop") == errno.EALREADY
    assert s.error("control 0 resume") == errno.EALREADY
    assert s.error("events 0 death,reap,quiesce") == errno.EALREADY
    s("control 1 detach")
    assert s.error("control 1 resume") == errno.ESRCH

    assert tracee.wait() == 0
    s.wait_for("reap", pid=tracee.pid)
    assert s.error("control 0 detach") == errno.ESRCH
    assert s.error("events 0 reap") == errno.ESRCH
    s("barrier 0")
    # No second engine callback after its detach.
    assert [line["event"] for line in s.events(1)] == ["death"]


def test_set_events_while_running_says_in_progress(session, start_tracee):
    tracee = start_tracee("spin")
    s = session()
    s.attach(tracee.pid, "syscall_entry,syscall_exit")
    tracee.go()
    tracee.readline()
    # Adding events takes effect at once; dropping them while the thread
    # runs may race with a callback on its way.
    s("events 0 syscall_entry,syscall_exit,exec")
    assert s.error("events 0 exec") == errno.EINPROGRESS
    s("barrier 0")


PTRACE_PEEKUSER, PTRACE_POKEUSER, PTRACE_KILL, PTRACE_ATTACH = 3, 6, 8, 16
PTRACE_SINGLEBLOCK = 33
USER_REGS_RIP = 16 * 8  # offsetof(struct user_regs_struct, rip)


def spin_bounds(tracee):
    """Start a "spin" tracee looping: its spin_start and spin_end."""
    tracee.go()
    bounds = dict(word.split("=") for word in tracee.readline().split())
    return tuple(int(bounds[k], 16) for k in ("spin_start", "spin_end"))


def ptrace_blockstep_crosses_the_branch(tracee):
    """What this CPU does for a block step, asked of the kernel's own
    PTRACE_SINGLEBLOCK: from spin_start, does one block step run the
    256 nops and the jump back (True, the CPU traps on branches), or
    one nop only (False: QEMU's TCG ignores DEBUGCTL.BTF)?"""
    libc = ctypes.CDLL(None, use_errno=True)
    ptrace = libc.ptrace
    ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    ptrace.restype = ctypes.c_long
    spin_start, _ = spin_bounds(tracee)
    assert ptrace(PTRACE_ATTACH, tracee.pid, None, None) == 0, os.strerror(ctypes.get_errno())
    _, status = os.waitpid(tracee.pid, 0)
    assert os.WIFSTOPPED(status) and os.WSTOPSIG(status) == signal.SIGSTOP, hex(status)
    assert ptrace(PTRACE_POKEUSER, tracee.pid, USER_REGS_RIP, spin_start) == 0
    assert ptrace(PTRACE_SINGLEBLOCK, tracee.pid, None, None) == 0, os.strerror(ctypes.get_errno())
    _, status = os.waitpid(tracee.pid, 0)
    assert os.WIFSTOPPED(status) and os.WSTOPSIG(status) == signal.SIGTRAP, hex(status)
    ip = ptrace(PTRACE_PEEKUSER, tracee.pid, USER_REGS_RIP, None)
    ptrace(PTRACE_KILL, tracee.pid, None, None)
    assert ip in (spin_start, spin_start + 1), (hex(spin_start), hex(ip))
    return ip == spin_start


def test_blockstep_runs_to_the_branch_as_ptrace_does(session, start_tracee):
    """The loop is 256 one-byte nops and a jump back.  From its start,
    block-steps are counted until the thread is back there: one where
    the CPU traps on branches (a plain single step would take 257
    there), and where it cannot (QEMU's TCG, as PTRACE_SINGLEBLOCK
    shows), one per instruction, each stopping the thread one
    instruction on.  Either way the trap never reaches the thread."""
    crosses = ptrace_blockstep_crosses_the_branch(start_tracee("spin"))
    s = session()
    tracee = start_tracee("spin")
    s.attach(tracee.pid, "quiesce", reply="stop")
    spin_start, spin_end = spin_bounds(tracee)
    s.error("control 0 stop")
    s.wait_stopped()
    # To the loop's start first, from wherever the stop came.
    for _ in range(spin_end - spin_start + 2):
        if s.registers().int("ip") == spin_start:
            break
        s("control 0 blockstep")
        s.wait_stopped()
    assert s.registers().int("ip") == spin_start
    ips = []
    while not ips or ips[-1] != spin_start:
        assert len(ips) <= spin_end - spin_start, [hex(ip) for ip in ips[-3:]]
        s("control 0 blockstep")
        s.wait_stopped()
        ips.append(s.registers().int("ip"))
    if crosses:
        assert ips == [spin_start]
    else:
        assert ips == list(range(spin_start + 1, spin_end + 1)) + [spin_start]
    s("reply 0 resume")
    s("control 0 resume")
    time.sleep(0.2)
    assert tracee.proc.poll() is None
    assert tracee.state()["SigPnd"].strip("0") == ""


NOBODY = 65534


@pytest.fixture
def setuid_root_copy(tracee_program):
    """A set-user-ID root copy of the tracee program on the guest's tmpfs."""
    path = "/tmp/utrace_tracee_setuid"
    shutil.copy(tracee_program, path)
    os.chown(path, 0, 0)
    os.chmod(path, 0o4755)
    yield path
    os.unlink(path)


CAP_SYS_PTRACE = 19


def without_cap_sys_ptrace(action):
    """Run action() in a child process whose credentials lack
    CAP_SYS_PTRACE, as an unprivileged tracer's would; engines it attaches
    record those credentials as their tracer's."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
            data = (ctypes.c_uint32 * 6)()
            if libc.capget(header, data) == 0:
                # The low words of effective and permitted.
                data[0] &= ~(1 << CAP_SYS_PTRACE)
                data[1] &= ~(1 << CAP_SYS_PTRACE)
                if libc.capset(header, data) == 0:
                    action()
                    status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def setuid_exec_facts(session, start_tracee, setuid_root_copy, attach):
    tracee = start_tracee("exec", setuid_root_copy, "ids", user=NOBODY)
    s = session()
    attach(s, tracee.pid)
    s("events 0 exec")
    tracee.go()
    s.wait_for("exec", file=setuid_root_copy)
    facts = tracee.facts()
    assert tracee.wait() == 0
    return facts


def test_setuid_exec_privilege_under_engines(session, start_tracee, setuid_root_copy):
    """As under ptrace: no privilege under an engine that could control the
    thread, unless its tracer has CAP_SYS_PTRACE; an observer's leaves it."""
    root = {"uid": str(NOBODY), "euid": "0"}
    nobody = {"uid": str(NOBODY), "euid": str(NOBODY)}
    # Untraced, the copy does run as root.
    untraced = subprocess.run([setuid_root_copy, "ids"], user=NOBODY,
                              capture_output=True, text=True, check=True)
    assert untraced.stdout.split() == [f"uid={NOBODY}", "euid=0"]
    # An engine of a tracer without CAP_SYS_PTRACE: LSM_UNSAFE_PTRACE and
    # NO_NEW_PRIVS, the program keeps its caller's credentials.
    assert setuid_exec_facts(
        session, start_tracee, setuid_root_copy,
        lambda s, pid: without_cap_sys_ptrace(lambda: s(f"attach {pid}"))) == nobody
    # With CAP_SYS_PTRACE, as ptracer_capable() allows a ptracer.
    assert setuid_exec_facts(
        session, start_tracee, setuid_root_copy,
        lambda s, pid: s(f"attach {pid}")) == root
    # An observer, capable or not, changes nothing.
    assert setuid_exec_facts(
        session, start_tracee, setuid_root_copy,
        lambda s, pid: without_cap_sys_ptrace(
            lambda: s(f"attach {pid} observer"))) == root


def test_an_observer_without_cap_sys_ptrace_is_detached_by_a_privileged_exec(
        session, start_tracee, setuid_root_copy):
    tracee = start_tracee("exec", setuid_root_copy, "ids", user=NOBODY)
    s = session()
    without_cap_sys_ptrace(lambda: s(f"attach {tracee.pid} observer"))
    s("events 0 exec,death")
    s(f"attach {tracee.pid} observer")
    s("events 1 exec,death")
    tracee.go()
    # Both see the exec; only the capable one is still there for the death.
    s.wait_for("exec", engine=0, file=setuid_root_copy)
    s.wait_for("exec", engine=1, file=setuid_root_copy)
    assert tracee.facts() == {"uid": str(NOBODY), "euid": "0"}
    assert tracee.wait() == 0
    s.wait_for("death", engine=1)
    assert s.events(0, "death") == []
    assert s.error("control 0 resume") == errno.ESRCH


def test_stop_of_a_thread_in_a_job_control_stop(session, start_tracee):
    s = session()
    tracee = start_tracee("spin")
    s.attach(tracee.pid, "quiesce")
    tracee.go()
    tracee.readline()
    os.kill(tracee.pid, signal.SIGSTOP)
    deadline = time.monotonic() + 30
    while not tracee.state()["State"].startswith("T"):
        assert time.monotonic() < deadline, tracee.state()
        time.sleep(0.02)
    # A job control stop counts as stopped: no -EINPROGRESS...
    s("reply 0 stop")
    s("control 0 stop")
    # ...and SIGCONT takes the thread from it into the utrace stop.
    os.kill(tracee.pid, signal.SIGCONT)
    s.wait_stopped()
    assert tracee.state()["State"] == "t (tracing stop)"
    ip = s.registers().int("ip")
    time.sleep(0.2)
    assert s.registers().int("ip") == ip
    s("reply 0 resume")
    s("control 0 resume")
    time.sleep(0.2)
    assert tracee.state()["State"].startswith(("R", "S"))
