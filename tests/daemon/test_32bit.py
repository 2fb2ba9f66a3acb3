"""A 32-bit program (tests/programs/debuggee.c built with -m32) under the
64-bit daemon.  Its i386 registers come widened into the x86_64 layout,
as PTRACE_GETREGS gives them to a 64-bit debugger (cs tells them apart),
and breakpoints, steps, backtraces and system call catchpoints work as
they do on a 64-bit program."""

from daemon_support import DEBUGGEE, mark, run_to
from froggy_rpc import word

DEBUGGEE_M32 = DEBUGGEE + "-m32"
USER32_CS = 0x23


def launch_m32(client, *args):
    return client.call("launch", argv=[DEBUGGEE_M32, *args])


def read_u32(client, session, address):
    data = client.call("memory.read", session=session, address=hex(address), length=4)["data"]
    return int.from_bytes(bytes.fromhex(data), "little")


def test_a_breakpoint_in_a_32bit_program_and_its_registers(client):
    started = launch_m32(client, "basic")
    session, pid = started["session"], started["pid"]
    hit = run_to(client, session, "middle", pid)
    assert (hit["function"], hit["line"]) == ("middle", mark("middle-first"))

    registers = client.call("registers.read", session=session, thread=pid)
    assert registers["rip"] == hit["pc"]
    assert word(registers["cs"]) == USER32_CS
    assert all(word(registers[name]) < 1 << 32 for name in ("rip", "rsp", "rbp", "rax"))
    assert all(word(registers[name]) == 0 for name in ("r8", "r15"))
    fp = client.call("registers.read", session=session, thread=pid, regset="fp")
    assert word(fp["mxcsr"]) == 0x1f80                 # the power-on default
    # cdecl: past the prologue, middle(20)'s argument is at ebp + 8.
    assert read_u32(client, session, word(registers["rbp"]) + 8) == 20

    frames = client.call("backtrace", session=session, thread=pid)
    assert [frame.get("function") for frame in frames[:3]] == ["middle", "outer", "main"]
    assert frames[0]["line"] == mark("middle-first")

    # Over the breakpoint's int3 (the pc written back, one step) to the end.
    client.call("step", session=session, thread=pid, kind="over")
    done = client.wait_event("step-done", thread=pid)
    assert done["function"] == "middle" and done["line"] > mark("middle-first")
    client.call("continue", session=session)
    assert client.wait_event("exit", thread=pid)["code"] == 0


def test_step_out_and_a_register_write_in_a_32bit_program(client):
    started = launch_m32(client, "basic")
    session, pid = started["session"], started["pid"]
    run_to(client, session, f"debuggee.c:{mark('leaf-return')}", pid)

    # Out of leaf: its caller found by unwinding the i386 stack.
    client.call("step", session=session, thread=pid, kind="out")
    done = client.wait_event("step-done", thread=pid)
    assert (done["kind"], done["function"], done["line"]) == \
        ("out", "middle", mark("middle-call"))
    assert word(client.call("registers.read", session=session, thread=pid)["rax"]) == 42
    client.call("registers.write", session=session, thread=pid, registers={"rax": "0x3e8"})
    assert word(client.call("registers.read", session=session, thread=pid)["rax"]) == 1000

    # middle() returns what leaf() gave it plus 3; outer() stores that.
    run_to(client, session, f"debuggee.c:{mark('watch-write')}", pid)
    client.call("step", session=session, thread=pid, kind="over")
    client.wait_event("step-done", thread=pid)
    watched = client.call("symbol.lookup", session=session, name="watched")
    assert watched["size"] == 4                    # a long is 32 bits there
    assert read_u32(client, session, word(watched["address"])) == 1003


def test_a_32bit_program_s_system_calls_are_named_from_the_i386_table(client):
    started = launch_m32(client, "basic")
    session, pid = started["session"], started["pid"]
    client.call("catch", session=session, kind="syscall", syscalls=["write"])
    client.call("continue", session=session)
    entry = client.wait_event("syscall-entry", thread=pid)
    assert (entry["name"], entry["abi"], entry["nr"]) == ("write", "i386", 4)
    assert entry["stopped"]
