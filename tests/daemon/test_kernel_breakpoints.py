"""froggyd's breakpoints through the kernel's uprobes
(UTRACE_IOC_INSERT_BREAKPOINT): the kernel keeps them, in the traced
process alone, and steps a thread over one without holding any other
thread; the daemon writes no int3 of its own into file-backed code."""

import os

from daemon_support import launch, process_state, wait_for


def kernel_breakpoints(daemon):
    """How many breakpoints the daemon's /dev/utrace sessions hold in the
    kernel, from their fdinfo."""
    count = 0
    fds = f"/proc/{daemon.process.pid}/fd"
    for fd in os.listdir(fds):
        try:
            if os.readlink(f"{fds}/{fd}") != "/dev/utrace":
                continue
            with open(f"/proc/{daemon.process.pid}/fdinfo/{fd}") as info:
                for line in info:
                    if line.startswith("utrace-breakpoints:"):
                        count += int(line.split()[1])
        except FileNotFoundError:
            continue
    return count


def byte_in_memory(pid, address):
    """The byte at @address of process @pid as the process sees it."""
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(int(address, 16))
        return mem.read(1)[0]


def test_a_breakpoint_is_the_kernels_and_memory_reads_hide_it(daemon):
    client = daemon.connect()
    started = launch(client, "basic")
    session, pid = started["session"], started["pid"]
    leaf = client.call("symbol.lookup", session=session, name="leaf")
    before = client.call("memory.read", session=session,
                         address=leaf["address"], length=16)["data"]
    assert kernel_breakpoints(daemon) == 0
    inserted = client.call("breakpoint.insert", session=session,
                           location="*" + leaf["address"])
    # uprobes' breakpoint instruction, which the daemon did not write...
    assert kernel_breakpoints(daemon) == 1
    assert byte_in_memory(pid, leaf["address"]) == 0xcc
    # ...and which its clients never see.
    assert client.call("memory.read", session=session, address=leaf["address"],
                       length=16)["data"] == before
    client.call("breakpoint.remove", session=session, id=inserted["id"])
    assert kernel_breakpoints(daemon) == 0
    assert byte_in_memory(pid, leaf["address"]) == int(before[:2], 16)


def test_a_breakpoint_goes_into_a_process_that_runs(daemon):
    """No thread needs to stop for the kernel to insert one."""
    client = daemon.connect()
    started = launch(client, "threads", "2")
    session, pid = started["session"], started["pid"]
    client.call("continue", session=session)
    wait_for(lambda: process_state(pid) != "t", what="the process to run")
    inserted = client.call("breakpoint.insert", session=session,
                           location="tick")
    hit = client.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    assert hit["stopped"] and hit["pc"] == inserted["addresses"][0], hit
    assert hit["thread"] != pid
    client.call("kill", session=session)


def test_eight_threads_through_one_breakpoint_each_stop_on_their_own(daemon):
    """Eight threads tick five times each through one stopping breakpoint;
    each hit stops its own thread, which the client continues alone, and
    every one of the 40 is reported at the breakpoint's address."""
    client = daemon.connect()
    started = launch(client, "threads", "8", "5")
    session, pid = started["session"], started["pid"]
    inserted = client.call("breakpoint.insert", session=session,
                           location="tick")
    client.call("continue", session=session)
    per_thread = {}
    while True:
        event = client.wait_event()
        if event["reason"] == "breakpoint-hit":
            assert event["stopped"] and event["pc"] == inserted["addresses"][0]
            per_thread[event["thread"]] = per_thread.get(event["thread"], 0) + 1
            client.call("continue", session=session, thread=event["thread"])
        elif event["reason"] == "exit" and event["thread"] == pid:
            break
    assert event["code"] == 0, event
    assert sorted(per_thread.values()) == [5] * 8 and pid not in per_thread
    assert kernel_breakpoints(daemon) == 0
