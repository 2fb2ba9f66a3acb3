"""Sessions: attach and detach, non-stop threads, several clients on one
session, what a disconnect and SIGTERM leave behind, and who may trace
what when froggyd serves other users."""

import os
import signal
import time

import pytest

from daemon_support import (DEBUGGEE, NOBODY, calls_as_user, launch, process_state, run_to,
                            wait_for)
from froggy_rpc import RpcError, word
from guest import as_user


def stopped(pid):
    return process_state(pid) in ("t", "T")


def running(pid):
    return process_state(pid) in ("R", "S", "D")


def read_counters(client, session, count):
    address = client.call("symbol.lookup", session=session,
                          name="counters")["address"]
    data = bytes.fromhex(client.call("memory.read", session=session,
                                     address=address,
                                     length=8 * count)["data"])
    return [int.from_bytes(data[i:i + 8], "little") for i in range(0, len(data), 8)]


def test_attach_then_detach_lets_it_run(client, spawn):
    process = spawn("spin")
    wait_for(lambda: running(process.pid), what="the spinner")
    attached = client.call("attach", pid=process.pid)
    assert attached["threads"] == [process.pid]
    assert stopped(process.pid)
    session = attached["session"]
    hit = run_to(client, session, "outer", thread=process.pid)
    registers = client.call("registers.read", session=session,
                            thread=hit["thread"])
    assert word(registers["rdi"]) == 1               # outer(1)
    client.call("detach", session=session)
    client.wait_event("session-ended")
    # Running again, the breakpoint gone (an int3 left would kill it).
    wait_for(lambda: running(process.pid), what="the detached spinner")
    time.sleep(0.5)
    assert process.poll() is None and not stopped(process.pid)
    with pytest.raises(RpcError) as gone:
        client.call("threads", session=session)
    assert gone.value.code == -32000


def test_detach_while_a_vfork_child_is_stopped(client, spawn):
    """The parent of a stopped vfork child sleeps in vfork() and cannot
    stop: its breakpoints come out through the child, which shares its
    memory, and the detach does not wait for it."""
    process = spawn("vfork", "wait")
    wait_for(lambda: process_state(process.pid) == "S", what="the waiting debuggee")
    session = client.call("attach", pid=process.pid)["session"]
    client.call("breakpoint.insert", session=session, location="tick")
    client.call("catch", session=session, kind="syscall", syscalls=["exit_group"])
    client.call("continue", session=session)
    os.kill(process.pid, signal.SIGUSR1)
    entry = client.wait_event("syscall-entry", name="exit_group")
    child = entry["thread"]
    assert child != process.pid and entry["stopped"]
    client.call("detach", session=session)
    client.wait_event("session-ended", timeout=60)
    # Both ran on: the child exited with 7 and the parent passed tick(1),
    # no int3 left in it.
    assert process.wait(timeout=60) == 0


def test_attach_errors(client, spawn):
    with pytest.raises(RpcError) as missing:
        client.call("attach", pid=0x3ffffff0)
    assert missing.value.code == -32001
    process = spawn("spin")
    client.call("attach", pid=process.pid)
    with pytest.raises(RpcError) as twice:
        client.call("attach", pid=process.pid)
    assert twice.value.code == -32009


def test_nonstop_stops_one_of_four_threads(client):
    started = launch(client, "threads", "4")
    session, pid = started["session"], started["pid"]
    client.call("continue", session=session)
    wait_for(lambda: len(client.call("threads", session=session)) == 5,
             what="four threads")
    workers = [t["thread"] for t in client.call("threads", session=session)
               if t["thread"] != pid]
    victim = workers[2]
    assert client.call("stop", session=session,
                       thread=victim)["threads"] == [victim]
    states = {t["thread"]: t["state"]
              for t in client.call("threads", session=session)}
    assert states[victim] == "stopped"
    assert [states[t] for t in workers if t != victim] == ["running"] * 3

    before = read_counters(client, session, 4)
    time.sleep(1)
    after = read_counters(client, session, 4)
    unchanged = [i for i in range(4) if before[i] == after[i]]
    assert len(unchanged) == 1, (before, after)
    # Going on, it counts again.
    client.call("continue", session=session, thread=victim)
    time.sleep(0.2)
    client.call("stop", session=session, thread=victim)
    again = read_counters(client, session, 4)
    assert again[unchanged[0]] > after[unchanged[0]]
    client.call("kill", session=session)
    client.wait_event("session-ended")


def voluntary_switches(tid):
    with open(f"/proc/{tid}/status") as status:
        for line in status:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError(f"no voluntary_ctxt_switches in /proc/{tid}/status")


def test_a_step_over_holds_a_sleeping_thread_where_it_sleeps(client):
    """Each continue from the breakpoint steps the worker over it with
    the other threads held.  The leader, asleep in pthread_join(), is held
    where it sleeps rather than woken and stopped: its context switches do
    not grow with the hits (an interrupt costs it two a hit: its stop, and
    its sleep again).  It joins the worker at the end as usual."""
    hits = 20
    started = launch(client, "threads", "1", str(hits))
    session, pid = started["session"], started["pid"]
    client.call("breakpoint.insert", session=session, location="tick")
    client.call("continue", session=session)
    for _ in range(3):
        client.wait_event("breakpoint-hit")
        client.call("continue", session=session)
    wait_for(lambda: process_state(pid) == "S")
    before = voluntary_switches(pid)
    for _ in range(hits - 4):
        client.wait_event("breakpoint-hit")
        client.call("continue", session=session)
    # The last hit: the worker has stepped over 16 times since.
    client.wait_event("breakpoint-hit")
    after = voluntary_switches(pid)
    client.call("continue", session=session)
    end = client.wait_event("exit", thread=pid)
    assert end["code"] == 0
    assert after - before <= 2, (before, after)


def test_breakpoint_in_four_threads_is_hit_once_per_call(client):
    started = launch(client, "threads", "4", "5")
    session, pid = started["session"], started["pid"]
    tick = client.call("breakpoint.insert", session=session, location="tick")
    client.call("continue", session=session)
    hits = {}
    history = []
    while True:
        event = client.wait_event()
        history.append((event["reason"], event.get("thread"), event.get("pc")))
        if event["reason"] == "breakpoint-hit":
            assert event["breakpoint"] == tick["id"]
            hits[event["thread"]] = hits.get(event["thread"], 0) + 1
            try:
                client.call("continue", session=session, thread=event["thread"])
            except RpcError as error:
                raise AssertionError(f"{error} after {history}")
        elif event["reason"] == "exit" and event["thread"] == pid:
            break
    assert event["code"] == 0
    assert sorted(hits.values()) == [5, 5, 5, 5], hits


def test_two_clients_share_a_session(daemon):
    owner = daemon.connect()
    observer = daemon.connect()
    started = launch(owner, "basic")
    session, pid = started["session"], started["pid"]
    observer.call("session.join", session=session)
    assert observer.call("session.list") == \
        [{"session": session, "pid": pid, "controller": False}]
    assert owner.call("session.list")[0]["controller"] is True
    with pytest.raises(RpcError) as refused:
        observer.call("continue", session=session)
    assert refused.value.code == -32005

    inserted = owner.call("breakpoint.insert", session=session,
                          location="leaf")
    owner.call("continue", session=session)
    seen = observer.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    assert seen["thread"] == pid and seen["function"] == "leaf"
    owner.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    # Observers read, too.
    assert observer.call("registers.read", session=session,
                         thread=pid)["rip"] == seen["pc"]

    # Control changes hands.
    with pytest.raises(RpcError) as taken:
        observer.call("session.control", session=session)
    assert taken.value.code == -32005
    owner.call("session.release", session=session)
    observer.call("session.control", session=session)
    with pytest.raises(RpcError) as not_any_more:
        owner.call("continue", session=session)
    assert not_any_more.value.code == -32005
    observer.call("continue", session=session)
    assert owner.wait_event("exit", thread=pid)["code"] == 0
    assert observer.wait_event("exit", thread=pid)["code"] == 0


def test_disconnect_releases_the_tracees(daemon, spawn):
    first = daemon.connect()
    process = spawn("spin")
    session = first.call("attach", pid=process.pid)["session"]
    run_to(first, session, "outer", thread=process.pid)
    launched = launch(first, "spin")["pid"]
    assert stopped(process.pid) and stopped(launched)
    first.close()

    wait_for(lambda: running(process.pid) and running(launched),
             what="both tracees to run again")
    time.sleep(0.5)
    assert process.poll() is None
    # Nobody traces them any more: another client may.
    second = daemon.connect()
    for pid in (process.pid, launched):
        again = second.call("attach", pid=pid)
        second.call("detach", session=again["session"])
    os.kill(launched, 9)


def test_sigterm_leaves_no_stopped_task(froggyd, spawn):
    daemon = froggyd()
    client = daemon.connect()
    process = spawn("spin")
    session = client.call("attach", pid=process.pid)["session"]
    run_to(client, session, "middle", thread=process.pid)
    threads = launch(client, "threads", "3")
    client.call("continue", session=threads["session"])
    wait_for(lambda: len(client.call("threads",
                                     session=threads["session"])) == 4,
             what="three threads")
    client.call("stop", session=threads["session"])
    tasks = os.listdir(f"/proc/{threads['pid']}/task")
    assert all(process_state(int(t)) in ("t", "T") for t in tasks)

    assert daemon.terminate() == 0
    for pid in [process.pid] + [int(t) for t in tasks]:
        wait_for(lambda: not stopped(pid), what=f"task {pid} to run")
    assert process.poll() is None
    os.kill(threads["pid"], 9)


def test_sigterm_once_the_socket_exists_exits_cleanly(froggyd):
    """A client may connect, and a service manager stop the daemon, as
    soon as its socket is there: SIGTERM must then already be the clean
    exit with 0, never the signal's default action.  (froggyd() waits
    for the socket only; the fixture sends the SIGTERM and checks.)"""
    for _ in range(5):
        froggyd()


def test_permissions_follow_the_client_uid(froggyd, spawn):
    daemon = froggyd("--shared")
    root = daemon.connect()
    root_process = spawn("spin")
    root_session = root.call("attach", pid=root_process.pid)["session"]
    own = spawn("spin", user=NOBODY)
    wait_for(lambda: running(own.pid), what="nobody's spinner")

    results = calls_as_user(NOBODY, daemon.socket, [
        ("attach_root", "attach", {"pid": spawn("spin").pid}),
        ("attach_own", "attach", {"pid": own.pid}),
        ("join_root", "session.join", {"session": root_session}),
        ("launch", "launch", {"argv": [as_user(DEBUGGEE, NOBODY), "spin"]}),
    ])
    assert results["attach_root"][0] == -32003
    assert results["attach_own"]["threads"] == [own.pid]
    assert results["join_root"][0] == -32003
    assert results["launch"]["pid"] > 0
    with open(f"/proc/{results['launch']['pid']}/status") as status:
        uids = [line.split()[1:] for line in status if line.startswith("Uid:")][0]
    assert uids == [str(NOBODY)] * 4
    # The helper's disconnect let its tracees go.
    wait_for(lambda: running(own.pid), what="nobody's spinner to run")
    os.kill(results["launch"]["pid"], 9)


def test_stop_is_not_lost_to_a_busy_conditional_breakpoint(client):
    """spin calls outer(1) every 10 ms: the breakpoint's condition is
    never true, so the daemon resumes the thread at each hit.  A stop
    asked meanwhile must still take effect and be answered."""
    started = launch(client, "spin")
    session, pid = started["session"], started["pid"]
    never = client.call("breakpoint.insert", session=session,
                        location="outer", condition="$rdi == 2")
    client.call("continue", session=session)
    wait_for(lambda: running(pid), what="the spinner to run")
    time.sleep(1)       # about a hundred calls of outer(1), resumed
    assert client.call("stop", session=session)["threads"] == [pid]
    assert client.wait_event("interrupted", thread=pid)["stopped"]
    assert stopped(pid)
    listed = client.call("breakpoint.list", session=session)[0]
    assert listed["id"] == never["id"] and listed["hits"] == 0
    client.call("kill", session=session)
    client.wait_event("session-ended")


def test_detach_answers_when_an_attach_can_follow(client, spawn):
    """With a breakpoint in a running process, a detach has to stop it
    to take the int3 out: its answer comes after that, so an attach sent
    right after it is not refused as already traced."""
    process = spawn("spin")
    wait_for(lambda: running(process.pid), what="the spinner")
    for _ in range(3):
        session = client.call("attach", pid=process.pid)["session"]
        client.call("breakpoint.insert", session=session, location="leaf", condition="$rdi == 99")
        client.call("continue", session=session)
        client.call("detach", session=session)
        again = client.call("attach", pid=process.pid)
        assert again["threads"] == [process.pid]
        client.call("detach", session=again["session"])
    wait_for(lambda: running(process.pid), what="the detached spinner")
    assert "TracerPid:\t0" in open(f"/proc/{process.pid}/status").read()


def test_failed_launches_and_attaches_leave_the_daemon_whole(daemon, client, spawn, tmp_path):
    """A launch or attach refused after its session was made: the
    session is detached and gone (the sanitizer run checks its memory),
    and the daemon serves on."""
    not_executable = tmp_path / "script"
    not_executable.write_text("no interpreter line\n")
    not_executable.chmod(0o755)
    for params, code in (({"argv": ["/nonexistent/program"]}, -32007),
                         ({"argv": ["no-such-program-on-path"]}, -32007),
                         ({"argv": [DEBUGGEE], "cwd": "/nonexistent"}, -32602),
                         ({"argv": [str(not_executable)]}, -32001)):
        with pytest.raises(RpcError) as refused:
            client.call("launch", **params)
        assert refused.value.code == code, (params, refused.value)
    with pytest.raises(RpcError):
        client.call("attach", pid=0x3ffffff0)
    process = spawn("spin")
    client.call("attach", pid=process.pid)
    with pytest.raises(RpcError):
        client.call("attach", pid=process.pid)
    assert [entry["pid"] for entry in client.call("session.list")] == [process.pid]
    assert launch(client, "basic")["pid"] > 0


def test_attached_comes_before_the_answer_with_the_stop_pc(client, spawn):
    process = spawn("spin")
    attached = client.call("attach", pid=process.pid)
    # Read before the answer, so queued already.
    events = [event for event in client.events if event["reason"] == "attached"]
    assert len(events) == 1, client.events
    event = events[0]
    assert (event["session"], event["thread"], event["pid"], event["stopped"]) == \
        (attached["session"], process.pid, process.pid, True)
    registers = client.call("registers.read", session=attached["session"],
                            thread=process.pid)
    assert event["pc"] == registers["rip"]


def test_shutdown_lets_go_of_what_the_client_held(daemon, spawn):
    """shutdown answers null and detaches the sessions the client alone
    was in, as a disconnect does: the attached process runs on
    untraced, while the connection is still open."""
    client = daemon.connect()
    process = spawn("spin")
    client.call("attach", pid=process.pid)
    assert stopped(process.pid)
    assert client.call("shutdown") is None
    other = daemon.connect()
    assert other.call("session.list") == []
    wait_for(lambda: running(process.pid), what="the attached process to run on")
    with open(f"/proc/{process.pid}/status") as status:
        assert "TracerPid:\t0\n" in status.read()


def test_a_thread_specific_breakpoint_stops_only_its_thread(client):
    """threads 2 10: two tickers call tick() ten times each.  A
    breakpoint on tick for the first ticker stops it ten times, and the
    other ticker never."""
    started = launch(client, "threads", "2", "10")
    session, pid = started["session"], started["pid"]
    first = client.call("breakpoint.insert", session=session, location="ticker",
                        temporary=True)
    client.call("continue", session=session)
    ticker = client.wait_event("breakpoint-hit", breakpoint=first["id"])["thread"]
    assert ticker != pid
    only = client.call("breakpoint.insert", session=session, location="tick",
                       thread=ticker)
    assert client.call("breakpoint.list", session=session)[-1]["thread"] == ticker
    client.call("continue", session=session)
    hits = []
    while True:
        event = client.wait_event()
        if event["reason"] == "exit" and event["thread"] == pid:
            break
        if event["reason"] == "breakpoint-hit":
            # The other ticker may have reached the temporary breakpoint
            # before it went.
            if event["breakpoint"] == only["id"]:
                hits.append(event["thread"])
            client.call("continue", session=session, thread=event["thread"])
    assert event.get("code") == 0, (event, hits)
    assert hits == [ticker] * 10
