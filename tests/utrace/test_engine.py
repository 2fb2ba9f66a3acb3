"""The utrace engine API, exercised through the test module.

Each test starts a tracee (tests/programs/utrace_tracee.c), attaches
engines to it through the module, lets it run, and checks the callbacks
the engines got, in order, with their values, and what the tracee saw.
"""

import errno
import os
import signal
import time

from utrace_session import NR_EXIT_GROUP, NR_GETPPID, NR_READ, NR_WRITE

SIGCHLD = 17
SIGUSR1, SIGUSR2, SIGSTOP, SIGCONT, SIGTRAP = 10, 12, 19, 18, 5
CLONE_THREAD = 0x00010000
ERESTARTSYS = 512


def order(lines, *events):
    """The events of @lines, in order, keeping only those named."""
    return [line["event"] for line in lines if line["event"] in events]


def test_exec_exit_death_reap_in_order(session, start_tracee):
    s = session()
    tracee = start_tracee("exec", "/bin/true")
    s.attach(tracee.pid, "exec,exit,death,reap")
    tracee.go()
    assert tracee.wait() == 0
    reap = s.wait_for("reap", pid=tracee.pid)
    lines = s.events(0)
    assert order(lines, "exec", "exit", "death", "reap") == \
        ["exec", "exit", "death", "reap"]
    exec_line = lines[0]
    assert exec_line["file"] == "/bin/true"
    assert exec_line["tid"] == str(tracee.pid)
    exit_line = s.events(0, "exit")[0]
    assert exit_line.int("code") == 0
    death = s.events(0, "death")[0]
    assert death["group_dead"] == "1"
    assert death["signal"] == str(SIGCHLD)
    assert reap["pid"] == str(tracee.pid)


def test_clone_reports_child_and_flags(session, start_tracee):
    s = session()
    tracee = start_tracee("fork-exit")
    s.attach(tracee.pid, "clone,exit,death,reap")
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 3
    s.wait_for("reap", pid=tracee.pid)
    clone = s.events(0, "clone")[0]
    assert clone["child"] == facts["child"]
    flags = clone.int("flags")
    assert flags & 0xff == SIGCHLD
    assert not flags & CLONE_THREAD
    assert facts["status"] == "5"
    # The exit code is the wait status: exit(3) is 3 << 8.
    assert s.events(0, "exit")[0].int("code") == 3 << 8
    assert order(s.events(0), "clone", "exit", "death", "reap") == \
        ["clone", "exit", "death", "reap"]


def test_syscall_entry_and_exit_values(session, start_tracee):
    s = session()
    tracee = start_tracee("syscalls")
    s.attach(tracee.pid, "syscall_entry,syscall_exit")
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 0

    entries = s.events(0, "syscall_entry")
    exits = s.events(0, "syscall_exit")
    getppid_exit = next(e for e in exits if e.int("nr") == NR_GETPPID)
    assert getppid_exit.int("ret") == os.getpid() == int(facts["getppid"])
    writes = [e for e in entries if e.int("nr") == NR_WRITE and e.int("arg2") == 2]
    assert writes and writes[0].int("arg0") == 1
    write_exits = [e.int("ret") for e in exits if e.int("nr") == NR_WRITE]
    assert 2 in write_exits
    # The write to a bad descriptor returns -EBADF to the tracee.
    assert -errno.EBADF in write_exits
    assert facts["badwrite"] == "-1"
    assert facts["badwrite_errno"] == str(errno.EBADF)
    # Each entry is followed by the exit of the same call; the first exit
    # is the read() the tracee was blocked in when the engine attached,
    # and the last entry is exit_group(), which never returns.
    exit_nrs = [e.int("nr") for e in exits]
    assert exit_nrs[0] == NR_READ
    entry_nrs = [e.int("nr") for e in entries]
    assert entry_nrs[-1] == NR_EXIT_GROUP
    assert entry_nrs[:-1] == exit_nrs[1:]


def test_syscall_abort_skips_the_call(session, start_tracee):
    s = session()
    tracee = start_tracee("syscalls")
    s.attach(tracee.pid, "syscall_entry,syscall_exit",
             reply=f"resume sys=abort:{NR_GETPPID}")
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["getppid"] == "-1"
    assert facts["getppid_errno"] == str(errno.ENOSYS)
    getppid_exit = next(e for e in s.events(0, "syscall_exit")
                        if e.int("nr") == NR_GETPPID)
    assert getppid_exit.int("ret") == -errno.ENOSYS


def test_stop_at_syscall_entry_and_repeat_with_report(session, start_tracee):
    s = session()
    tracee = start_tracee("syscalls")
    s.attach(tracee.pid, "syscall_entry", reply="stop")
    tracee.go()
    s.wait_stopped()
    first = s.events(0, "syscall_entry")
    assert first[-1].int("nr") == NR_GETPPID
    assert first[-1]["resumed"] == "0"
    assert s.registers().int("nr") == NR_GETPPID

    # Resumed with a report, the callbacks come again, flagged resumed.
    s("reply 0 resume")
    s("control 0 report")
    repeat = s.wait_for("syscall_entry", nr=NR_GETPPID, resumed=1)
    assert repeat.int("nr") == NR_GETPPID
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["getppid"] == str(os.getpid())


def test_signals_delivered_and_ignored(session, start_tracee):
    s = session()
    tracee = start_tracee("signals")
    s.attach(tracee.pid, "signal,signal_ign")
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["usr1_handled"] == "1"
    signals = s.events(0, "signal")
    usr1 = next(line for line in signals if line.get("signo") == str(SIGUSR1))
    assert usr1["sigaction"] == "deliver" and usr1["handler"] == "user"
    usr2 = next(line for line in signals if line.get("signo") == str(SIGUSR2))
    assert usr2["handler"] == "ignore"


def test_signal_suppressed_by_engine(session, start_tracee):
    s = session()
    tracee = start_tracee("signals")
    s.attach(tracee.pid, "signal", reply="resume sig=ign")
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["usr1_handled"] == "0"
    assert any(line.get("signo") == str(SIGUSR1) for line in s.events(0, "signal"))


def test_a_held_signal_keeps_its_place_in_the_queue(session, start_tracee):
    """UTRACE_SIGNAL_HOLD puts the signal back where it was: three
    real-time signals, the first held once, still arrive in the order
    they were sent, as POSIX wants."""
    s = session()
    tracee = start_tracee("rt-order")
    s.attach(tracee.pid, "signal", reply="resume hold")
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["rt_order"] == "1,2,3"
    # The first one was reported twice: held, then delivered.
    rt = [line for line in s.events(0, "signal")
          if line.get("signo") == str(signal.SIGRTMIN)]
    assert len(rt) == 4


def test_job_control_stop_reported(session, start_tracee):
    s = session()
    tracee = start_tracee("block")
    s.attach(tracee.pid, "signal_stop,jctl")
    tracee.go()
    time.sleep(0.2)
    os.kill(tracee.pid, SIGSTOP)
    stop = s.wait_for("signal", signo=SIGSTOP)
    assert stop["handler"] == "default"
    s.wait_for("jctl", type="stopped")
    assert tracee.state()["State"].startswith("T")
    os.kill(tracee.pid, SIGCONT)
    s.wait_for("jctl", type="continued")
    tracee.proc.stdin.write("after-stop\n")
    tracee.proc.stdin.flush()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["data"] == "after-stop"


def test_stop_then_resume(session, start_tracee):
    s = session()
    tracee = start_tracee("spin")
    s.attach(tracee.pid, "quiesce", reply="stop")
    tracee.go()
    tracee.readline()
    assert s.error("control 0 stop") == errno.EINPROGRESS
    s.wait_stopped()

    status = tracee.state()
    assert status["State"] == "t (tracing stop)"
    assert status["UtracePid"] == str(os.getpid())
    assert status["TracerPid"] == "0"
    # The stop is not a ptrace or job control stop: the parent's wait()
    # does not see it.
    assert os.waitpid(tracee.pid, os.WNOHANG | os.WUNTRACED) == (0, 0)
    # Stopped is stopped: it stays where it is.
    ip = s.registers().int("ip")
    time.sleep(0.2)
    assert s.registers().int("ip") == ip

    s("reply 0 resume")
    s("control 0 resume")
    time.sleep(0.2)
    assert tracee.state()["State"].startswith(("R", "S"))
    assert s.error("examine 0") == errno.EINVAL


def test_singlestep_advances_one_instruction(session, start_tracee):
    s = session()
    tracee = start_tracee("spin")
    s.attach(tracee.pid, "quiesce", reply="stop")
    tracee.go()
    bounds = dict(word.split("=") for word in tracee.readline().split())
    spin_start, spin_end = (int(bounds[k], 16) for k in ("spin_start", "spin_end"))
    s.error("control 0 stop")
    s.wait_stopped()
    ip = s.registers().int("ip")
    # Stopped before the loop (still returning from the write that
    # printed the bounds, on a slow machine): let it run into the loop.
    for _ in range(20):
        if spin_start <= ip < spin_end:
            break
        s("control 0 resume")
        time.sleep(0.05)
        s.error("control 0 stop")
        s.wait_stopped()
        ip = s.registers().int("ip")

    inside = 0
    for _ in range(6):
        s("control 0 singlestep")
        s.wait_stopped()
        new_ip = s.registers().int("ip")
        if spin_start <= ip < spin_end:
            assert new_ip == ip + 1, (hex(ip), hex(new_ip))
            inside += 1
        ip = new_ip
    assert inside >= 3

    # The step traps went to the engine, never to the tracee.
    traps = [line for line in s.events(0, "signal") if line.get("signo") == str(SIGTRAP)]
    assert len(traps) == 6
    assert all(line["sigaction"] == "ign" for line in traps)
    s("reply 0 resume")
    s("control 0 resume")
    time.sleep(0.2)
    assert tracee.proc.poll() is None
    assert tracee.state()["SigPnd"].strip("0") == ""


def test_interrupt_breaks_a_blocking_syscall(session, start_tracee):
    s = session()
    tracee = start_tracee("block")
    s.attach(tracee.pid, "quiesce", reply="stop")
    tracee.go()
    time.sleep(0.3)
    # A stop does not interrupt a blocked system call...
    assert s.error("control 0 stop") == errno.EINPROGRESS
    assert s.error("wait 0 300") == errno.ETIMEDOUT
    # ...an interrupt does, and the thread reports and stops.
    s("control 0 interrupt")
    s.wait_stopped()
    regs = s.registers()
    assert regs.int("nr") == NR_READ
    assert regs.int("ret") == -ERESTARTSYS

    # Resumed, the read restarts and gets the data.
    s("reply 0 resume")
    s("control 0 resume")
    tracee.proc.stdin.write("data\n")
    tracee.proc.stdin.flush()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["read"] == "5" and facts["data"] == "data"


def test_two_engines_smallest_action_wins(session, start_tracee):
    s = session()
    tracee = start_tracee("syscalls")
    s.attach(tracee.pid, "syscall_entry", reply="stop")
    s.attach(tracee.pid, "syscall_entry", reply="resume")
    tracee.go()
    s.wait_stopped(0)
    first = s.events(0, "syscall_entry")[-1]
    second = s.events(1, "syscall_entry")[-1]
    assert first.int("nr") == second.int("nr") == NR_GETPPID
    # Engine 1 was told what engine 0 chose.
    assert first["action"] == "resume" and second["action"] == "stop"

    # Engine 1 cannot let it go: engine 0 still holds it.
    s("control 1 resume")
    time.sleep(0.2)
    assert tracee.state()["State"] == "t (tracing stop)"
    assert s.error("examine 1") == errno.EINVAL

    s("reply 0 resume")
    s("control 0 resume")
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["getppid"] == str(os.getpid())


def test_detach_from_a_callback(session, start_tracee):
    s = session()
    tracee = start_tracee("block")
    s.attach(tracee.pid, "syscall_entry,syscall_exit", reply="detach")
    tracee.go()
    time.sleep(0.3)
    # The first callback, the entry or the exit of the read() that takes
    # the "go" line, detached the engine: no more came.
    assert len(s.events(0)) == 1
    first = s.events(0)[0]
    assert first["event"] in ("syscall_entry", "syscall_exit")
    assert first.int("nr") == NR_READ
    assert tracee.state()["UtracePid"] == "0"
    s("barrier 0")
    assert s.error("control 0 resume") == errno.ESRCH
    assert s.error("events 0 exec") == errno.ESRCH
    tracee.proc.stdin.write("x\n")
    tracee.proc.stdin.flush()
    assert tracee.wait() == 0
    assert len(s.events(0)) == 1


def test_sigkill_ends_a_stop(session, start_tracee):
    s = session()
    tracee = start_tracee("spin")
    s.attach(tracee.pid, "quiesce,exit,death,reap", reply="stop")
    tracee.go()
    tracee.readline()
    s.error("control 0 stop")
    s.wait_stopped()
    os.kill(tracee.pid, signal.SIGKILL)
    assert tracee.wait() == -signal.SIGKILL
    s.wait_for("reap", pid=tracee.pid)
    assert s.events(0, "exit")[0].int("code") == signal.SIGKILL
    assert order(s.events(0), "exit", "death", "reap") == ["exit", "death", "reap"]
    assert s.error("control 0 resume") == errno.ESRCH


def test_exec_from_a_thread_other_than_the_leader(session, start_tracee):
    tracee = start_tracee("thread-exec", "/bin/true")
    tracee.go()
    thread = int(tracee.readline().split("=")[1])
    assert thread != tracee.pid
    on_thread, on_leader = session(), session()
    on_thread.attach(thread, "exec,exit,death,reap")
    on_leader.attach(tracee.pid, "exec,exit,death,reap")
    tracee.go()
    assert tracee.wait() == 0

    # The thread took over the leader's pid, and its engine saw the exec.
    exec_line = on_thread.wait_for("exec", file="/bin/true")
    assert exec_line["tid"] == str(tracee.pid)
    on_thread.wait_for("reap", pid=tracee.pid)
    # The old leader died in the exec, without exec'ing.
    on_leader.wait_for("reap")
    assert on_leader.events(0, "exec") == []
    assert order(on_leader.events(0), "exit", "death", "reap") == \
        ["exit", "death", "reap"]


def test_clone_of_a_thread_is_reported(session, start_tracee):
    s = session()
    tracee = start_tracee("thread-exit")
    s.attach(tracee.pid, "clone", reply="resume")
    tracee.go()
    thread = int(tracee.readline().split("=")[1])
    child = s.wait_for("clone")
    assert child["child"] == str(thread)
    assert child.int("flags") & CLONE_THREAD
    assert tracee.readline() == "joined"
    assert tracee.wait() == 4


def test_clone_while_stopped(session, start_tracee):
    s = session()
    tracee = start_tracee("thread-exit")
    s.attach(tracee.pid, "clone", reply="stop")
    tracee.go()
    s.wait_stopped()
    # The new thread runs while its creator is held stopped.
    thread = int(tracee.readline().split("=")[1])
    assert s.wait_for("clone")["child"] == str(thread)
    assert tracee.state()["State"] == "t (tracing stop)"
    s("reply 0 resume")
    s("control 0 resume")
    assert tracee.readline() == "joined"
    assert tracee.wait() == 4


def test_thread_exits_while_a_stop_is_requested(session, start_tracee):
    """A stop requested of a thread blocked in the kernel is still pending
    when another thread's exit_group() kills it: it dies, it does not
    stop, and the process exits as it should."""
    tracee = start_tracee("group-exit", "1")
    tracee.go()
    thread = int(tracee.readline().split("=")[1])
    s = session()
    s.attach(thread, "exit,death,reap")
    assert s.error("control 0 stop") == errno.EINPROGRESS
    tracee.go()
    assert tracee.wait() == 6
    s.wait_for("reap", pid=thread)
    assert order(s.events(0), "exit", "death", "reap") == ["exit", "death", "reap"]
    assert s.events(0, "exit")[0]["tid"] == str(thread)


def test_group_exit_while_threads_are_stopped(session, start_tracee):
    tracee = start_tracee("group-exit", "3")
    tracee.go()
    threads = [int(tracee.readline().split("=")[1]) for _ in range(3)]
    sessions = []
    for tid in threads[:2]:
        s = session()
        s.attach(tid, "quiesce,exit,death,reap", reply="stop")
        s("control 0 interrupt")
        s.wait_stopped()
        assert tracee.state(tid)["State"] == "t (tracing stop)"
        sessions.append((tid, s))
    tracee.go()
    assert tracee.wait() == 6
    for tid, s in sessions:
        s.wait_for("reap", pid=tid)
        assert order(s.events(0), "exit", "death", "reap") == ["exit", "death", "reap"]
