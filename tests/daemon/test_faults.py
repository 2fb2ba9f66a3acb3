"""Faults the daemon must survive or leave no trace of (the short subset
of the hardening cases that runs in every check)."""

import os
import signal
import subprocess

from daemon_support import BUILD, Daemon, launch, process_state, utrace_fdinfo, wait_for

MANY_THREADS = os.path.join(BUILD, "bench", "many_threads")


def tracer_pid(tid):
    with open(f"/proc/{tid}/status") as status:
        return int([line.split()[1] for line in status if line.startswith("TracerPid:")][0])


def test_a_killed_daemon_lets_100_stopped_threads_run_on():
    """SIGKILL, no clean-up: closing the device must release every
    stopped thread of 10 processes, none left stopped or zombie."""
    processes = []
    daemon = Daemon()
    try:
        for _ in range(10):
            process = subprocess.Popen([MANY_THREADS, "10"], stdout=subprocess.PIPE, text=True)
            assert process.stdout.readline().strip() == "ready"
            processes.append(process)
        client = daemon.connect()
        for process in processes:
            attached = client.call("attach", pid=process.pid, timeout=300)
            assert len(attached["threads"]) == 10
        tasks = [int(t) for p in processes for t in os.listdir(f"/proc/{p.pid}/task")]
        assert len(tasks) == 100
        assert all(process_state(t) in ("t", "T") for t in tasks)

        # Killed on purpose, so no exit status to check: but nothing up
        # to here may have been worth a warning.
        log = daemon.log()
        assert "-WARNING" not in log and "-CRITICAL" not in log, log[-5000:]
        daemon.process.kill()
        assert daemon.process.wait(timeout=60) == -9
        for tid in tasks:
            wait_for(lambda: process_state(tid) == "S", what=f"task {tid} to wait again")
            assert tracer_pid(tid) == 0
        # Every process is alive and whole; none became a zombie.
        for process in processes:
            assert process.poll() is None
            assert len(os.listdir(f"/proc/{process.pid}/task")) == 10
    finally:
        for process in processes:
            process.kill()
            process.wait()
        if daemon.process.poll() is None:
            daemon.process.kill()
            daemon.process.wait()


def test_a_tracee_killed_while_stopped_is_reaped_by_its_parent(froggyd, spawn):
    """SIGKILL at a breakpoint, during a step and at a system call stop:
    the real parent (this test) reaps it, killed by signal 9, and the
    daemon reports the exit and ends the session."""
    daemon = froggyd()
    client = daemon.connect()

    def killed(process, session):
        process.send_signal(9)
        assert process.wait(timeout=60) == -9
        end = client.wait_event("exit", session=session, thread=process.pid)
        assert end["termsig"] == 9
        client.wait_event("session-ended", session=session)

    at_breakpoint = spawn("spin")
    session = client.call("attach", pid=at_breakpoint.pid)["session"]
    client.call("breakpoint.insert", session=session, location="leaf")
    client.call("continue", session=session)
    client.wait_event("breakpoint-hit", session=session)
    killed(at_breakpoint, session)

    stepping = spawn("spin")
    session = client.call("attach", pid=stepping.pid)["session"]
    inserted = client.call("breakpoint.insert", session=session, location="leaf")
    client.call("continue", session=session)
    client.wait_event("breakpoint-hit", session=session)
    client.call("breakpoint.remove", session=session, id=inserted["id"])
    client.call("step", session=session, thread=stepping.pid, kind="line")
    killed(stepping, session)

    in_syscall = spawn("spin")
    session = client.call("attach", pid=in_syscall.pid)["session"]
    client.call("catch", session=session, kind="syscall", syscalls=["clock_nanosleep"])
    client.call("continue", session=session)
    entry = client.wait_event("syscall-entry", session=session)
    assert entry["name"] == "clock_nanosleep" and entry["stopped"]
    killed(in_syscall, session)


def test_a_stop_after_lost_thread_records_stops_the_threads_the_kernel_has(froggyd):
    """froggyd frozen (SIGSTOP) while debuggee churn makes and ends threads:
    the kernel drops the session's records past 4096, CLONE and DEATH
    records among them.  Thawed, the daemon reports the loss, and each stop
    of every thread answers with the threads /proc shows, all stopped:
    none that died is waited for, none it never heard of runs on."""
    daemon = froggyd()
    client = daemon.connect()
    started = launch(client, "churn")
    session, pid = started["session"], started["pid"]
    client.call("continue", session=session)
    daemon.process.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: any(info.get("utrace-lost", 0) >= 1000
                             for info in utrace_fdinfo(daemon.process.pid)),
                 timeout=600, what="the kernel to drop a thousand records")
    finally:
        daemon.process.send_signal(signal.SIGCONT)
    # (Not always the kernel's count first: the test, not reading, falls
    # behind too, and the daemon drops thread exits for it.)
    assert client.wait_event("lost", session=session, timeout=300)["count"] > 0
    wait_for(lambda: "resynced" in daemon.log(), timeout=300, what="a resync")

    for _ in range(3):
        client.call("stop", session=session, timeout=300)
        listed = client.call("threads", session=session)
        tasks = {int(tid) for tid in os.listdir(f"/proc/{pid}/task")}
        assert {thread["thread"] for thread in listed} == tasks
        assert all(thread["state"] == "stopped" for thread in listed), listed
        assert all(process_state(tid) in ("t", None) for tid in tasks)
        client.call("continue", session=session)
    client.call("kill", session=session)
    client.wait_event("exit", thread=pid, timeout=120)
