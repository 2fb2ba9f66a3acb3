"""The debuggee built with -O2 (debuggee-O2): breakpoints by function,
registers at a function's entry, a backtrace through the optimized
frames and a step out.  leaf, middle and outer are noinline and none
calls the next as a tail call, so each keeps its frame; lines and
locals may move, so only what the ABI fixes is asserted."""

import os

from daemon_support import BUILD
from froggy_rpc import word

DEBUGGEE_O2 = os.path.join(BUILD, "tests", "programs", "debuggee-O2")


def launch_o2(client, *args):
    return client.call("launch", argv=[DEBUGGEE_O2, *args])


def run_to_entry(client, session, function):
    """A breakpoint at @function's first instruction (not past its
    prologue, which -O2 may blur), continued to."""
    entry = client.call("symbol.lookup", session=session, name=function)
    assert entry["module"] == DEBUGGEE_O2
    inserted = client.call("breakpoint.insert", session=session,
                           location="*" + entry["address"])
    client.call("continue", session=session)
    hit = client.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    assert (hit["pc"], hit["function"]) == (entry["address"], function), hit
    return hit


def test_optimized_breakpoint_by_function_stops_in_it(client):
    started = launch_o2(client, "basic")
    session = started["session"]
    inserted = client.call("breakpoint.insert", session=session, location="leaf")
    assert inserted["function"] == "leaf"
    leaf = client.call("symbol.lookup", session=session, name="leaf")
    start = word(leaf["address"])
    assert start <= word(inserted["addresses"][0]) < start + leaf["size"]
    client.call("continue", session=session)
    hit = client.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    assert (hit["thread"], hit["pc"], hit["function"]) == \
        (started["pid"], inserted["addresses"][0], "leaf")
    client.call("continue", session=session)
    assert client.wait_event("exit", thread=started["pid"])["code"] == 0


def test_optimized_arguments_at_entry_and_backtrace_through_the_callers(client):
    started = launch_o2(client, "basic")
    session, pid = started["session"], started["pid"]
    run_to_entry(client, session, "leaf")
    registers = client.call("registers.read", session=session, thread=pid)
    assert word(registers["rdi"]) == 21                  # leaf(20 + 1)
    frames = client.call("backtrace", session=session, thread=pid)
    assert [f.get("function") for f in frames[:4]] == ["leaf", "middle", "outer", "main"], frames
    assert all(f["module"] == DEBUGGEE_O2 for f in frames[:4])
    # Each caller's pc is a return address inside it.
    for frame in frames[1:4]:
        caller = client.call("symbol.lookup", session=session, address=frame["pc"])
        assert caller["function"] == frame["function"], (frame, caller)


def test_optimized_step_out_returns_the_value(client):
    started = launch_o2(client, "basic")
    session, pid = started["session"], started["pid"]
    run_to_entry(client, session, "leaf")
    client.call("step", session=session, thread=pid, kind="out")
    done = client.wait_event("step-done", thread=pid)
    assert (done["kind"], done["function"]) == ("out", "middle")
    registers = client.call("registers.read", session=session, thread=pid)
    assert word(registers["rax"]) == 42                  # leaf(21)
