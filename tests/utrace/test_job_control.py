"""Job control with utrace engines attached: the parent of a traced
program sees the same stops and continues as the parent of an untraced
one.

A thread an engine holds stopped counts as stopped in its group's job
control stop: the stop completes and the parent's wait() reports it,
SIGCONT continues the other threads and leaves the held one held, and a
held thread let go while its group is stopped stops with its group.  A
stop an engine makes of a signal is taken, and a SIGCONT that comes while
the engine decides cancels it, as for ptrace.
"""

import os
import time

SIGUSR1, SIGSTOP, SIGCONT, SIGTSTP = 10, 19, 18, 20


def wait_status(pid, flags, timeout=20):
    """The next wait() status of @pid that @flags ask for, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got, status = os.waitpid(pid, flags | os.WNOHANG)
        if got:
            return status
        time.sleep(0.02)
    return None


def wait_state(tracee, tid, letter, timeout=20):
    """Wait until thread @tid is in the state whose letter is @letter."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = tracee.state(tid)["State"]
        if state[0] == letter:
            return state
        time.sleep(0.02)
    raise AssertionError(f"thread {tid} stays {state!r}, not {letter}")


def start_held(session, start_tracee):
    """A program of a blocked leader and three spinning threads, the
    first spinning thread held stopped by an engine."""
    tracee = start_tracee("busy-threads", "3", own_group=True)
    tracee.go()
    threads = [int(tracee.readline().split("=")[1]) for _ in range(3)]
    s = session()
    s.attach(threads[0], "quiesce", reply="stop")
    s("control 0 interrupt")
    s.wait_stopped()
    assert tracee.state(threads[0])["State"] == "t (tracing stop)"
    return tracee, s, threads[0], [tracee.pid] + threads[1:]


def assert_group_stopped(tracee, signo):
    status = wait_status(tracee.pid, os.WUNTRACED)
    assert status is not None, "the parent never saw the group stop"
    assert os.WIFSTOPPED(status) and os.WSTOPSIG(status) == signo, hex(status)


def test_a_group_stop_counts_a_held_thread_as_stopped(session, start_tracee):
    tracee, s, held, others = start_held(session, start_tracee)

    os.kill(tracee.pid, SIGTSTP)
    assert_group_stopped(tracee, SIGTSTP)
    for tid in others:
        assert tracee.state(tid)["State"] == "T (stopped)"
    assert tracee.state(held)["State"] == "t (tracing stop)"

    # SIGCONT continues the group; the engine's thread stays held.
    os.kill(tracee.pid, SIGCONT)
    status = wait_status(tracee.pid, os.WCONTINUED)
    assert status is not None and os.WIFCONTINUED(status), status
    for tid in others[1:]:
        wait_state(tracee, tid, "R")
    assert tracee.state(held)["State"] == "t (tracing stop)"

    # Let go, it runs.
    s("reply 0 resume")
    s("control 0 resume")
    wait_state(tracee, held, "R")


def test_a_held_thread_let_go_stops_with_its_group(session, start_tracee):
    tracee, s, held, others = start_held(session, start_tracee)
    os.kill(tracee.pid, SIGTSTP)
    assert_group_stopped(tracee, SIGTSTP)

    s("reply 0 resume")
    s("control 0 resume")
    assert wait_state(tracee, held, "T") == "T (stopped)"
    # One group stop, told once.
    assert os.waitpid(tracee.pid, os.WNOHANG | os.WUNTRACED) == (0, 0)

    os.kill(tracee.pid, SIGCONT)
    status = wait_status(tracee.pid, os.WCONTINUED)
    assert status is not None and os.WIFCONTINUED(status), status
    for tid in [held] + others[1:]:
        wait_state(tracee, tid, "R")


def test_group_stops_racing_holds(session, start_tracee):
    """A hold and a group stop requested together, in either order of
    arrival: every stop reaches the parent, every SIGCONT ends it."""
    tracee = start_tracee("busy-threads", "3", own_group=True)
    tracee.go()
    threads = [int(tracee.readline().split("=")[1]) for _ in range(3)]
    s = session()
    s.attach(threads[0], "quiesce", reply="resume")
    for round in range(30):
        s("reply 0 stop")
        s("control 0 interrupt")
        os.kill(tracee.pid, SIGTSTP)
        assert_group_stopped(tracee, SIGTSTP)
        os.kill(tracee.pid, SIGCONT)
        status = wait_status(tracee.pid, os.WCONTINUED)
        assert status is not None and os.WIFCONTINUED(status), (round, status)
        # Stopped for the group first, it makes the report once continued.
        s.wait_stopped()
        s("reply 0 resume")
        s("control 0 resume")
        for tid in threads:
            wait_state(tracee, tid, "R")


def test_an_engine_can_turn_a_signal_into_a_stop(session, start_tracee):
    s = session()
    tracee = start_tracee("signals")
    s.attach(tracee.pid, "signal", reply="resume sig=stop")
    tracee.go()
    # The stop is taken, and named for the signal it stands in for.
    assert_group_stopped(tracee, SIGUSR1)
    assert tracee.state()["State"] == "T (stopped)"
    os.kill(tracee.pid, SIGCONT)
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["usr1_handled"] == "0"


def test_a_sigcont_while_the_engine_decides_cancels_the_stop(session,
                                                            start_tracee):
    s = session()
    tracee = start_tracee("block")
    s.attach(tracee.pid, "signal_stop", reply="stop")
    tracee.go()
    time.sleep(0.2)
    os.kill(tracee.pid, SIGSTOP)
    s.wait_for("signal", signo=SIGSTOP)
    s.wait_stopped()
    os.kill(tracee.pid, SIGCONT)
    s("reply 0 resume")
    s("control 0 resume")
    # SIGCONT came after SIGSTOP: no stop, and the program goes on.
    tracee.go("after-cont")
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["data"] == "after-cont"
