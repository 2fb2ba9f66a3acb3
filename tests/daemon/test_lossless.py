"""Lossless sessions (launch or attach with "lossless": true): every event
reaches every client, and the tracee goes at the pace of the slowest.

A client that reads nothing for a while makes a plain session drop the
notifications of running threads (a "lost" counts them).  A lossless one
stops reading the kernel's queue instead; the queue fills, and the
tracee's thread waits in its system call for room."""

import pytest

from daemon_support import launch, process_state, small_buffer_client, utrace_fdinfo, wait_for
from froggy_rpc import RpcError

CALLS = 10000
KERNEL_QUEUE_MAX = 4096  # UTRACE_DEV_QUEUE_MAX


def stream_calls_to_a_client_that_lags(daemon, **params):
    """debuggee getppid, its system call entries reported, continued by a
    client that reads nothing yet (and takes little into its socket)."""
    client = small_buffer_client(daemon)
    started = launch(client, "getppid", str(CALLS), **params)
    session, pid = started["session"], started["pid"]
    client.call("events.subscribe", session=session, events={"syscall-entry": "report"})
    client.start("continue", session=session)
    return client, session, pid


def read_to_the_end(client, session):
    """Every notification up to the end of the session, in order."""
    events = []
    while not events or events[-1]["reason"] != "session-ended":
        for event in client.take_events(timeout=600):
            if event["session"] == session:
                events.append(event)
    return events


def process_exit(events, pid):
    exits = [event for event in events if event["reason"] == "exit" and event["thread"] == pid]
    assert len(exits) == 1, exits
    return exits[0]


def getppid_entries(events):
    return [event for event in events
            if event["reason"] == "syscall-entry" and event["name"] == "getppid"]


def test_a_lossless_session_waits_for_a_client_that_lags(daemon):
    client, session, pid = stream_calls_to_a_client_that_lags(daemon, lossless=True)
    wait_for(lambda: "a client lags: the tracee waits for it" in daemon.log(),
             timeout=600, what="the daemon to stop reading for the lagging client")
    # Behind the daemon the kernel's queue fills, and the tracee waits for
    # room (killable: "D"), in the middle of its loop.
    wait_for(lambda: any(info["utrace-queued"] >= KERNEL_QUEUE_MAX
                         for info in utrace_fdinfo(daemon.process.pid)),
             timeout=600, what="the kernel's queue to fill")
    wait_for(lambda: process_state(pid) == "D", timeout=600,
             what="the tracee to wait for room")
    assert all(info["utrace-lost"] == 0 for info in utrace_fdinfo(daemon.process.pid))

    events = read_to_the_end(client, session)
    assert not [event for event in events if event["reason"] == "lost"]
    calls = getppid_entries(events)
    assert len(calls) == CALLS
    assert not any(call["stopped"] for call in calls)
    assert process_exit(events, pid)["code"] == 0
    assert "its clients caught up" in daemon.log()


def test_an_attached_program_waits_for_a_lossless_client_until_the_detach(daemon, spawn):
    """attach takes lossless too: a program already running is held to the
    pace of a client that reads nothing, and runs free once detached."""
    process = spawn("getppid", "1000000000")
    client = small_buffer_client(daemon)
    session = client.call("attach", pid=process.pid, lossless=True)["session"]
    client.call("events.subscribe", session=session, events={"syscall-entry": "report"})
    client.start("continue", session=session)
    wait_for(lambda: process_state(process.pid) == "D", timeout=600,
             what="the attached program to wait for room")
    assert all(info["utrace-lost"] == 0 for info in utrace_fdinfo(daemon.process.pid))

    # The detach ends the wait; what the kernel still queued goes with the
    # session, and nothing was lost before it.
    client.call("detach", session=session, timeout=600)
    events = client.take_events()
    assert getppid_entries(events)
    assert not [event for event in events if event["reason"] == "lost"]
    wait_for(lambda: process_state(process.pid) == "R", timeout=600,
             what="the detached program to run free")
    assert process.poll() is None


def syscall_entries(events):
    return [event for event in events if event["reason"] == "syscall-entry"]


def entries_around_the_loop(daemon):
    """How many system calls debuggee getppid makes besides its loop
    (the loader's, and its exit): those of "getppid 0", all read by a
    client that keeps up."""
    client = daemon.connect()
    started = launch(client, "getppid", "0")
    session = started["session"]
    client.call("events.subscribe", session=session, events={"syscall-entry": "report"})
    client.call("continue", session=session)
    events = read_to_the_end(client, session)
    assert not [event for event in events if event["reason"] == "lost"]
    assert not getppid_entries(events)
    assert process_exit(events, started["pid"])["code"] == 0
    return len(syscall_entries(events))


def test_a_plain_session_counts_every_call_it_drops(daemon):
    """The same run without "lossless": the tracee is never held up, and
    every system call it makes is either sent or counted in a "lost",
    exactly.  Only the process's death record may be lost besides them
    (the kernel drops it as it drops non-stopping records): then its
    exit comes without a status, and is counted as well."""
    around = entries_around_the_loop(daemon)
    client, session, pid = stream_calls_to_a_client_that_lags(daemon)
    wait_for(lambda: "dropping notifications of running threads" in daemon.log(),
             timeout=600, what="the daemon to drop notifications for the lagging client")
    events = read_to_the_end(client, session)
    lost = sum(event["count"] for event in events if event["reason"] == "lost")
    calls = getppid_entries(events)
    assert lost > 0 and len(calls) < CALLS
    # The process's end is never dropped; the kernel may have dropped its
    # death record, and then its exit comes without a status.
    death_lost = "status" not in process_exit(events, pid)
    assert len(syscall_entries(events)) + lost == around + CALLS + death_lost


def test_lossless_is_a_boolean(daemon):
    client = daemon.connect()
    with pytest.raises(RpcError) as refused:
        client.call("launch", argv=["/bin/true"], lossless="yes")
    assert refused.value.code == -32602
