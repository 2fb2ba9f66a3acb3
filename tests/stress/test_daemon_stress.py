"""froggyd under stress: threads racing through one breakpoint while the
machine is busy, every hit counted once and every thread let go, and a
stop-all/continue-all loop over threads that come and go.

--stress-scale multiplies the hits and the rounds.
"""

import multiprocessing
import os
import subprocess

import pytest

from daemon_support import DEBUGGEE, Daemon, launch, process_state
from froggy_rpc import RpcError


@pytest.fixture
def daemon():
    daemon = Daemon()
    yield daemon
    daemon.check_clean_exit()


@pytest.fixture
def busy_machine():
    """A CPU hog per CPU, so that threads are preempted at any point
    (in the middle of a step-over, say)."""
    hogs = [subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"])
            for _ in range(multiprocessing.cpu_count())]
    yield
    for hog in hogs:
        hog.kill()
        hog.wait()


def test_eight_threads_through_one_breakpoint_on_a_busy_machine(daemon, busy_machine,
                                                                stress_scale):
    """Each thread's hits are exactly its calls: none lost to another
    thread's step-over, none reported twice, none left stopped."""
    calls = 5 * stress_scale
    client = daemon.connect()
    started = launch(client, "threads", "8", str(calls))
    session, pid = started["session"], started["pid"]
    tick = client.call("breakpoint.insert", session=session, location="tick")
    client.call("continue", session=session)
    hits = {}
    while True:
        event = client.wait_event(timeout=300)
        if event["reason"] == "breakpoint-hit":
            assert event["breakpoint"] == tick["id"]
            hits[event["thread"]] = hits.get(event["thread"], 0) + 1
            client.call("continue", session=session, thread=event["thread"])
        elif event["reason"] == "exit" and event["thread"] == pid:
            break
    assert event["code"] == 0
    assert sorted(hits.values()) == [calls] * 8, hits


def test_stop_all_and_continue_all_over_threads_that_come_and_go(daemon, stress_scale):
    """debuggee churn: threads created and joined without end.  Each stop
    answers with threads that are all stopped in /proc; each continue lets
    them all run; at the end the process is killed and reaped."""
    client = daemon.connect()
    started = launch(client, "churn")
    session, pid = started["session"], started["pid"]
    client.call("continue", session=session)
    for _ in range(10 * stress_scale):
        try:
            stopped = client.call("stop", session=session, timeout=120)["threads"]
        except RpcError as error:
            raise AssertionError(f"stop: {error}")
        assert pid in stopped
        states = {int(tid): process_state(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}
        assert all(state in ("t", None, "X", "Z") for state in states.values()), states
        client.call("continue", session=session)
    client.call("kill", session=session)
    client.wait_event("exit", thread=pid, timeout=120)
