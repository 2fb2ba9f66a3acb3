"""Source-level debugging through froggyd: breakpoints, registers, memory,
the four step kinds, backtraces, watchpoints and symbols, on
tests/programs/debuggee.c."""

import os
import subprocess

import pytest

from daemon_support import DEBUGGEE, launch, mark, process_state, run_to
from froggy_rpc import RpcError, word

SOURCE = "debuggee.c"


def read_word(client, session, address):
    data = client.call("memory.read", session=session, address=address,
                       length=8)["data"]
    return int.from_bytes(bytes.fromhex(data), "little")


def test_launch_stops_at_the_exec(client):
    started = launch(client, "basic")
    pid = started["pid"]
    assert started["thread"] == pid and started["threads"] == [pid]
    assert process_state(pid) in ("t", "T")
    threads = client.call("threads", session=started["session"])
    assert [(t["thread"], t["state"]) for t in threads] == [(pid, "stopped")]
    # The first instruction is the dynamic loader's entry point.
    registers = client.call("registers.read", session=started["session"],
                            thread=pid)
    where = client.call("symbol.lookup", session=started["session"],
                        address=registers["rip"])
    assert "ld-linux" in where["module"], where
    with open(f"/proc/{pid}/cmdline") as cmdline:
        assert cmdline.read().split("\0")[:2] == [DEBUGGEE, "basic"]


def test_function_breakpoint_hits_after_the_prologue(client):
    started = launch(client, "basic")
    session = started["session"]
    inserted = client.call("breakpoint.insert", session=session,
                           location="middle")
    assert inserted["function"] == "middle"
    assert inserted["line"] == mark("middle-first")
    assert inserted["file"].endswith(SOURCE)
    client.call("continue", session=session)
    hit = client.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    assert hit["thread"] == started["pid"] and hit["stopped"]
    assert hit["pc"] == inserted["addresses"][0]
    assert (hit["function"], hit["line"]) == ("middle", mark("middle-first"))
    registers = client.call("registers.read", session=session,
                            thread=hit["thread"])
    assert registers["rip"] == hit["pc"]
    assert word(registers["rdi"]) == 20          # middle(20)
    # The executable is PIE: its load bias is honoured.
    lookup = client.call("symbol.lookup", session=session, name="middle")
    assert lookup["module"] == DEBUGGEE
    assert word(lookup["address"]) <= word(hit["pc"]) < word(lookup["address"]) + 64
    assert word(lookup["address"]) > 0x500000000000


def test_a_breakpoint_trap_is_not_logged_as_an_unhandled_signal(client):
    """The int3 traps into the daemon's engine, not into a tracee with no
    SIGTRAP handler: the kernel must not log it as it does an unhandled
    trap ("traps: debuggee[PID] trap int3"), as it does not for ptrace."""
    def kernel_log():
        return subprocess.run(["dmesg"], capture_output=True, text=True,
                              check=True).stdout.splitlines()

    before = len(kernel_log())
    started = launch(client, "basic")
    session, pid = started["session"], started["pid"]
    hit = run_to(client, session, "leaf")
    client.call("breakpoint.remove", session=session, id=hit["breakpoint"])
    client.call("continue", session=session)
    client.wait_event("exit", thread=pid)
    assert hit["thread"] == pid
    traps = [line for line in kernel_log()[before:] if f"[{pid}]" in line]
    assert traps == []


def test_file_line_breakpoint(client):
    session = launch(client, "basic")["session"]
    line = mark("leaf-return")
    hit = run_to(client, session, f"{SOURCE}:{line}")
    assert (hit["function"], hit["file"].endswith(SOURCE), hit["line"]) == \
        ("leaf", True, line)
    lines = client.call("source.lines", session=session,
                        location=f"{SOURCE}:{line}")
    assert hit["pc"] in [entry["address"] for entry in lines]
    assert all(entry["line"] == line for entry in lines)


def test_breakpoint_list_remove_and_errors(client):
    session = launch(client, "basic")["session"]
    first = client.call("breakpoint.insert", session=session, location="leaf",
                        ignore_count=2, temporary=True)
    second = client.call("breakpoint.insert", session=session,
                         location="outer", condition="$rdi == 20")
    listed = {b["id"]: b for b in client.call("breakpoint.list", session=session)}
    assert listed[first["id"]]["ignore_count"] == 2
    assert listed[first["id"]]["temporary"] is True
    assert listed[second["id"]]["condition"] == "$rdi == 20"
    client.call("breakpoint.remove", session=session, id=first["id"])
    assert [b["id"] for b in client.call("breakpoint.list", session=session)] == \
        [second["id"]]
    with pytest.raises(RpcError) as refused:
        client.call("breakpoint.remove", session=session, id=first["id"])
    assert refused.value.code == -32006
    with pytest.raises(RpcError) as refused:
        client.call("breakpoint.insert", session=session,
                    location="no_such_function")
    assert refused.value.code == -32007
    with pytest.raises(RpcError) as refused:
        client.call("breakpoint.insert", session=session, location="outer",
                    condition="$nosuchreg == 1")
    assert refused.value.code == -32602


def test_conditional_breakpoint_stops_only_when_true(client):
    """spin calls outer(1) forever: a condition that never holds lets it
    run; one that holds stops it."""
    session = launch(client, "spin")["session"]
    never = client.call("breakpoint.insert", session=session,
                        location="outer", condition="$rdi == 2")
    always = client.call("breakpoint.insert", session=session,
                         location="leaf", condition="$rdi == 2",
                         ignore_count=3)
    client.call("continue", session=session)
    hit = client.wait_event("breakpoint-hit")
    assert hit["breakpoint"] == always["id"], hit
    listed = {b["id"]: b for b in client.call("breakpoint.list", session=session)}
    assert listed[always["id"]]["hits"] == 4
    assert listed[never["id"]]["hits"] == 0


def test_an_auto_continue_breakpoint_reports_every_hit_and_never_stops(client):
    """As gdb's "commands; continue; end": three threads tick ten times
    each through it and the process runs to its end without a continue."""
    started = launch(client, "threads", "3", "10")
    session, pid = started["session"], started["pid"]
    inserted = client.call("breakpoint.insert", session=session,
                           location="tick", auto_continue=True)
    listed = client.call("breakpoint.list", session=session)
    assert listed[0]["auto_continue"] is True
    with pytest.raises(RpcError) as refused:
        client.call("breakpoint.insert", session=session, location="tick",
                    auto_continue="yes")
    assert refused.value.code == -32602
    client.call("continue", session=session)
    exited = client.wait_event("exit", thread=pid)
    assert exited["code"] == 0, exited
    hits = [event for event in client.events
            if event["reason"] == "breakpoint-hit"]
    assert len(hits) == 30, hits
    assert all(not hit["stopped"] and hit["breakpoint"] == inserted["id"] and
               hit["pc"] == inserted["addresses"][0] and
               hit["function"] == "tick" and hit["line"] == mark("tick")
               for hit in hits), hits
    # Every ticker hit it ten times; the leader, in pthread_join, never.
    per_thread = {}
    for hit in hits:
        per_thread[hit["thread"]] = per_thread.get(hit["thread"], 0) + 1
    assert sorted(per_thread.values()) == [10, 10, 10] and pid not in per_thread


def test_memory_read_hides_breakpoints(client):
    session = launch(client, "basic")["session"]
    leaf = client.call("symbol.lookup", session=session, name="leaf")
    before = client.call("memory.read", session=session,
                         address=leaf["address"], length=32)["data"]
    inserted = client.call("breakpoint.insert", session=session,
                           location="*" + leaf["address"])
    assert inserted["addresses"] == [leaf["address"]]
    after = client.call("memory.read", session=session,
                        address=leaf["address"], length=32)["data"]
    assert after == before and not after.startswith("cc")


def test_memory_read_of_unmapped_memory_names_the_errno(client):
    session = launch(client, "basic")["session"]
    with pytest.raises(RpcError) as refused:
        client.call("memory.read", session=session, address="0x8", length=8)
    assert refused.value.code == -32008 and "errno 5" in refused.value.message


def test_memory_write_changes_a_variable(client):
    """watched is 0 until outer() writes it: the bytes written are read
    back, and differ from what was there."""
    session = launch(client, "basic")["session"]
    watched = client.call("symbol.lookup", session=session, name="watched")
    assert read_word(client, session, watched["address"]) == 0
    written = client.call("memory.write", session=session,
                          address=watched["address"],
                          data=(0x1122334455667788).to_bytes(8, "little").hex())
    assert written["length"] == 8
    assert read_word(client, session, watched["address"]) == 0x1122334455667788


def test_memory_write_over_a_breakpoint_keeps_it_armed(client):
    """New bytes written over an int3 read back as written (the
    breakpoint still hidden); the original bytes written back, the
    breakpoint still stops the thread there."""
    session = launch(client, "basic")["session"]
    leaf = client.call("symbol.lookup", session=session, name="leaf")
    original = client.call("memory.read", session=session,
                           address=leaf["address"], length=4)["data"]
    inserted = client.call("breakpoint.insert", session=session,
                           location="*" + leaf["address"])
    different = bytes(b ^ 0xff for b in bytes.fromhex(original)).hex()
    assert different != original
    client.call("memory.write", session=session, address=leaf["address"],
                data=different)
    assert client.call("memory.read", session=session, address=leaf["address"],
                       length=4)["data"] == different
    client.call("memory.write", session=session, address=leaf["address"],
                data=original)
    assert client.call("memory.read", session=session, address=leaf["address"],
                       length=4)["data"] == original
    client.call("continue", session=session)
    hit = client.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    assert hit["pc"] == leaf["address"] and hit["function"] == "leaf"


def test_step_out_register_write_and_step_over(client):
    session = launch(client, "basic")["session"]
    hit = run_to(client, session, f"{SOURCE}:{mark('leaf-return')}")
    thread = hit["thread"]

    client.call("step", session=session, thread=thread, kind="out")
    done = client.wait_event("step-done", thread=thread)
    assert (done["kind"], done["function"], done["line"]) == \
        ("out", "middle", mark("middle-call"))
    registers = client.call("registers.read", session=session, thread=thread)
    assert word(registers["rax"]) == 42                  # leaf(21)
    client.call("registers.write", session=session, thread=thread,
                registers={"rax": "0x3e8"})
    assert word(client.call("registers.read", session=session,
                            thread=thread)["rax"]) == 1000

    run_to(client, session, f"{SOURCE}:{mark('watch-write')}", thread)
    client.call("step", session=session, thread=thread, kind="over")
    done = client.wait_event("step-done", thread=thread)
    assert (done["function"], done["line"]) == ("outer", mark("outer-return"))
    watched = client.call("symbol.lookup", session=session, name="watched")
    assert read_word(client, session, watched["address"]) == 1003


def test_step_line_goes_into_calls_with_lines_only(client):
    session = launch(client, "basic")["session"]
    thread = run_to(client, session, "middle")["thread"]
    expected = [("middle", "middle-call"),   # y = x + 1 done
                ("leaf", "leaf-first"),      # into leaf
                ("leaf", "leaf-write")]      # over snprintf: libc has no lines
    for function, line in expected:
        client.call("step", session=session, thread=thread, kind="line")
        done = client.wait_event("step-done", thread=thread)
        assert (done["function"], done["line"]) == (function, mark(line)), done


def test_step_over_does_not_enter_calls(client):
    session = launch(client, "basic")["session"]
    thread = run_to(client, session, f"{SOURCE}:{mark('middle-call')}")["thread"]
    client.call("step", session=session, thread=thread, kind="over")
    done = client.wait_event("step-done", thread=thread)
    assert (done["function"], done["line"]) == ("middle", mark("middle-return"))


def test_step_instruction(client):
    session = launch(client, "basic")["session"]
    hit = run_to(client, session, "outer")
    thread = hit["thread"]
    pc = word(hit["pc"])
    for _ in range(3):
        client.call("step", session=session, thread=thread)
        done = client.wait_event("step-done", thread=thread)
        assert done["kind"] == "instruction"
        rip = client.call("registers.read", session=session, thread=thread)["rip"]
        assert rip == done["pc"]
        assert 0 < word(rip) - pc <= 15 or done["function"] == "middle"
        pc = word(rip)


def test_step_count_is_that_many_instructions_and_stops_at_a_breakpoint(client):
    """count: N steps in one request, one step-done, at the pc N single
    steps reach; a breakpoint on the way ends the count there."""
    ends = []
    for count in (1, 20):
        session = launch(client, "basic")["session"]
        hit = run_to(client, session, "outer")
        thread = hit["thread"]
        for _ in range(20 // count):
            client.call("step", session=session, thread=thread, count=count)
            done = client.wait_event("step-done", thread=thread)
        ends.append(word(done["pc"]) - word(hit["pc"]))
        assert not [event for event in client.events if event["reason"] == "step-done"]
        # Past snprintf(), thousands of instructions on.
        write = client.call("breakpoint.insert", session=session,
                            location=f"debuggee.c:{mark('leaf-write')}")
        client.call("step", session=session, thread=thread, count=100000)
        done = client.wait_event("step-done", thread=thread, timeout=300)
        assert done["pc"] == write["addresses"][0] and done["function"] == "leaf"
        for kind, bad in (("line", 2), ("instruction", 0), ("instruction", 1000001)):
            with pytest.raises(RpcError) as refused:
                client.call("step", session=session, thread=thread, kind=kind, count=bad)
            assert refused.value.code == -32602
        client.call("kill", session=session)
        client.wait_event("session-ended")
    assert ends[0] == ends[1]


def test_backtrace_from_libc_through_three_frames(client):
    session = launch(client, "basic")["session"]
    client.call("catch", session=session, kind="syscall", syscalls=["write"],
                exit=False)
    client.call("continue", session=session)
    entry = client.wait_event("syscall-entry")
    frames = client.call("backtrace", session=session, thread=entry["thread"])
    assert [f["level"] for f in frames] == list(range(len(frames)))
    assert "libc.so" in frames[0]["module"], frames[0]
    assert "write" in frames[0]["function"], frames[0]
    names = [f.get("function") for f in frames]
    at = names.index("leaf")
    assert names[at:at + 4] == ["leaf", "middle", "outer", "main"], names
    assert frames[at]["line"] == mark("leaf-write")
    assert frames[at + 1]["line"] == mark("middle-call")
    assert frames[at + 2]["line"] == mark("outer-call")
    assert all(f["module"] == DEBUGGEE for f in frames[at:at + 4])
    limited = client.call("backtrace", session=session, thread=entry["thread"],
                          max_frames=2)
    assert [f["pc"] for f in limited] == [f["pc"] for f in frames[:2]]


def test_watchpoint_catches_the_write(client):
    session = launch(client, "basic")["session"]
    watched = client.call("symbol.lookup", session=session, name="watched")
    inserted = client.call("watchpoint.insert", session=session,
                           address=watched["address"], length=8)
    client.call("continue", session=session)
    caught = client.wait_event("watchpoint", watchpoint=inserted["id"])
    assert caught["address"] == watched["address"]
    assert caught["function"] == "outer"
    assert caught["line"] in (mark("watch-write"), mark("outer-return"))
    assert read_word(client, session, watched["address"]) == 45
    client.call("watchpoint.remove", session=session, id=inserted["id"])
    with pytest.raises(RpcError) as refused:
        client.call("watchpoint.insert", session=session,
                    address=watched["address"], length=3)
    assert refused.value.code == -32602
    client.call("continue", session=session)
    assert client.wait_event("exit", thread=caught["thread"])["code"] == 0


def test_symbols_in_shared_libraries(client):
    session = launch(client, "basic")["session"]
    # Let the loader map libc first.
    run_to(client, session, "main")
    found = client.call("symbol.lookup", session=session, name="getpid")
    assert "libc.so" in found["module"]
    back = client.call("symbol.lookup", session=session,
                       address=found["address"])
    assert back["function"] in ("getpid", "__getpid", "__GI___getpid")
    assert back["offset"] == "0x0"
    with pytest.raises(RpcError) as refused:
        client.call("symbol.lookup", session=session, name="no_such_symbol_x")
    assert refused.value.code == -32007


def test_symbol_lookup_gives_the_size_of_variables_and_functions(client):
    session = launch(client, "basic")["session"]
    watched = client.call("symbol.lookup", session=session, name="watched")
    assert (watched["function"], watched["size"]) == ("watched", 8)
    counters = client.call("symbol.lookup", session=session, name="counters")
    assert (counters["function"], counters["size"]) == ("counters", 16 * 8)
    # A function's size covers its code, the breakpoint past the prologue too.
    outer = client.call("symbol.lookup", session=session, name="outer")
    inserted = client.call("breakpoint.insert", session=session,
                           location="outer")
    assert word(outer["address"]) <= word(inserted["addresses"][0]) < \
        word(outer["address"]) + outer["size"]
    # By address there is no symbol looked up by name: no size.
    back = client.call("symbol.lookup", session=session,
                       address=outer["address"])
    assert back["function"] == "outer" and "size" not in back


def test_symbol_complete_finds_functions_and_source_files(client):
    session = launch(client, "basic")["session"]
    found = client.call("symbol.complete", session=session, prefix="outer")
    assert "outer" in found["names"], found
    assert all(name.startswith("outer") for name in found["names"])
    assert (found["files"], found["complete"]) == ([], True)
    found = client.call("symbol.complete", session=session, prefix="debuggee")
    assert "debuggee.c" in found["files"], found
    assert all(name.startswith("debuggee") for name in found["files"])
    assert found["complete"] is True
    found = client.call("symbol.complete", session=session, prefix="counte")
    assert "counters" in found["names"], found


def test_symbol_complete_covers_the_shared_libraries(client):
    session = launch(client, "basic")["session"]
    # Let the loader map libc first.
    run_to(client, session, "main")
    found = client.call("symbol.complete", session=session, prefix="getpi")
    assert "getpid" in found["names"], found
    # Versions are left out; "memcpy@GLIBC_2.2.5" is memcpy.
    found = client.call("symbol.complete", session=session, prefix="memcp",
                        limit=10000)
    assert "memcpy" in found["names"], found
    assert not any("@" in name or "." in name for name in found["names"])


def test_symbol_complete_of_nothing_is_empty(client):
    session = launch(client, "basic")["session"]
    found = client.call("symbol.complete", session=session,
                        prefix="no_such_symbol_x")
    assert found == {"names": [], "files": [], "complete": True}


def test_symbol_complete_limit_keeps_the_first_in_order(client):
    session = launch(client, "basic")["session"]
    run_to(client, session, "main")
    many = client.call("symbol.complete", session=session, prefix="_",
                       limit=10000)
    assert many["names"] == sorted(set(many["names"])), many["names"][:20]
    assert many["files"] == sorted(set(many["files"])), many["files"]
    assert len(many["names"]) > 10
    everything = sorted(many["names"] + many["files"])
    one = client.call("symbol.complete", session=session, prefix="_", limit=1)
    assert one["names"] + one["files"] == everything[:1]
    assert one["complete"] is False
    ten = client.call("symbol.complete", session=session, prefix="_",
                      limit=10)
    assert sorted(ten["names"] + ten["files"]) == everything[:10]
    assert ten["complete"] is False
    # The default limit is 200.
    default = client.call("symbol.complete", session=session, prefix="")
    assert len(default["names"]) + len(default["files"]) == 200
    assert default["complete"] is False


def test_symbol_complete_refuses_bad_params(client):
    session = launch(client, "basic")["session"]
    for params in ({"prefix": "outer", "limit": 0},
                   {"prefix": "outer", "limit": 10001},
                   {"prefix": "outer", "limit": "10"},
                   {"prefix": 5},
                   {}):
        with pytest.raises(RpcError) as refused:
            client.call("symbol.complete", session=session, **params)
        assert refused.value.code == -32602, params


def test_symbol_complete_needs_no_stop_and_no_control(daemon):
    controller = daemon.connect()
    observer = daemon.connect()
    session = launch(controller, "spin")["session"]
    controller.call("continue", session=session)
    observer.call("session.join", session=session)
    threads = observer.call("threads", session=session)
    assert [t["state"] for t in threads] == ["running"]
    found = observer.call("symbol.complete", session=session, prefix="tic")
    assert "tick" in found["names"], found


def conditions_that_stop(client, conditions):
    """basic calls outer(20), middle(20) and leaf(21) once each, in that
    order, then reaches leaf's return line: a breakpoint on each of
    @conditions, and an unconditional one on that line last; the ids of
    the conditional ones, those that stopped the run before it, and the
    hits breakpoint.list counts for each then."""
    session = launch(client, "basic")["session"]
    client.wait_event("launched", session=session)
    ids = []
    for location, condition in conditions:
        inserted = client.call("breakpoint.insert", session=session,
                               location=location, condition=condition)
        ids.append(inserted["id"])
    last = client.call("breakpoint.insert", session=session,
                       location=f"{SOURCE}:{mark('leaf-return')}")["id"]
    stops = []
    while not stops or stops[-1] != last:
        client.call("continue", session=session)
        event = client.wait_event()
        assert event["reason"] == "breakpoint-hit", event
        stops.append(event["breakpoint"])
    hits = {b["id"]: b["hits"] for b in client.call("breakpoint.list", session=session)}
    return ids, stops[:-1], [hits[i] for i in ids]


def test_a_condition_number_with_a_leading_zero_is_decimal(client):
    """outer(20) must not stop on "== 024" (octal twenty); middle(20)
    must stop on "== 020" (octal sixteen)."""
    (octal, decimal), stops, hits = conditions_that_stop(
        client, [("outer", "$rdi == 024"), ("middle", "$rdi == 020")])
    assert stops == [decimal]
    assert hits == [0, 1]


def test_a_condition_number_with_0x_is_hex(client):
    """outer(20) must not stop on "== 0x20"; leaf(21) must stop on
    "== 0x15"."""
    (wrong, right), stops, hits = conditions_that_stop(
        client, [("outer", "$rdi == 0x20"), ("leaf", "$rdi == 0x15")])
    assert stops == [right]
    assert hits == [0, 1]


def test_a_condition_number_must_have_digits(client):
    session = launch(client, "basic")["session"]
    for bad in ("$rdi == 0x", "$rdi == ", "$rdi == 2x"):
        with pytest.raises(RpcError) as refused:
            client.call("breakpoint.insert", session=session, location="leaf",
                        condition=bad)
        assert refused.value.code == -32602, bad


def test_a_write_watchpoint_lets_a_read_pass(client):
    """readwatched only reads watched: a write watchpoint (the default
    kind, and "write" named) never stops it."""
    for kind in ({}, {"kind": "write"}):
        started = launch(client, "readwatched")
        session = started["session"]
        watched = client.call("symbol.lookup", session=session, name="watched")
        client.call("watchpoint.insert", session=session,
                    address=watched["address"], length=8, **kind)
        client.call("continue", session=session)
        assert client.wait_event("exit", thread=started["pid"])["code"] == 0
        assert not [event for event in client.events if event["reason"] == "watchpoint"]


def test_a_readwrite_watchpoint_stops_a_read(client):
    started = launch(client, "readwatched")
    session = started["session"]
    watched = client.call("symbol.lookup", session=session, name="watched")
    inserted = client.call("watchpoint.insert", session=session,
                           address=watched["address"], length=8, kind="readwrite")
    client.call("continue", session=session)
    caught = client.wait_event("watchpoint", watchpoint=inserted["id"])
    assert (caught["thread"], caught["stopped"], caught["address"]) == \
        (started["pid"], True, watched["address"])
    # The trap comes after the reading instruction, on the same line.
    assert (caught["function"], caught["line"]) == ("main", mark("read-watched"))
    client.call("continue", session=session)
    assert client.wait_event("exit", thread=started["pid"])["code"] == 0


def test_a_fifth_watchpoint_finds_no_debug_register(client):
    """x86 has four debug registers: the fifth watchpoint answers
    -32011, and removing one makes room again."""
    session = launch(client, "basic")["session"]
    counters = word(client.call("symbol.lookup", session=session,
                                name="counters")["address"])
    ids = [client.call("watchpoint.insert", session=session, address=hex(counters + 8 * i),
                       length=8)["id"] for i in range(4)]
    assert len(set(ids)) == 4
    with pytest.raises(RpcError) as refused:
        client.call("watchpoint.insert", session=session, address=hex(counters + 32), length=8)
    assert refused.value.code == -32011
    client.call("watchpoint.remove", session=session, id=ids[1])
    client.call("watchpoint.insert", session=session, address=hex(counters + 32), length=8)
    with pytest.raises(RpcError) as refused:
        client.call("watchpoint.remove", session=session, id=ids[1])
    assert refused.value.code == -32006


def test_an_unknown_watchpoint_kind_is_invalid(client):
    session = launch(client, "basic")["session"]
    watched = client.call("symbol.lookup", session=session, name="watched")
    with pytest.raises(RpcError) as refused:
        client.call("watchpoint.insert", session=session, address=watched["address"],
                    length=8, kind="read")
    assert refused.value.code == -32602
