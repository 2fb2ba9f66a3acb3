"""The froggy shell, driven through a pseudo-terminal as a user types:
gdb's commands on tests/programs/debuggee.c, with the real values they
print."""

import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "daemon"))

from daemon_support import DEBUGGEE, Daemon, mark, process_state, wait_for  # noqa: E402
from guest import FROGGY, as_user  # noqa: E402
from terminal import Terminal  # noqa: E402

NOBODY = 65534


@pytest.fixture
def daemon():
    started = Daemon()
    yield started
    started.check_clean_exit()


@pytest.fixture
def home(tmp_path):
    return tmp_path


@pytest.fixture
def shell(daemon, home):
    """shell("run", DEBUGGEE, "basic") or shell("attach", pid): froggy
    on a terminal, at its first prompt."""
    opened = []

    def start(*args, options=()):
        env = dict(os.environ, HOME=str(home), TERM="dumb", G_DEBUG="fatal-criticals")
        argv = [FROGGY, "--socket", daemon.socket, *options, *args]
        opened.append(Terminal(argv, env=env))
        opened[-1].first = opened[-1].prompt()
        return opened[-1]

    yield start
    for terminal in opened:
        terminal.close()


@pytest.fixture
def spawn():
    started = []

    def start(*args, user=None):
        started.append(subprocess.Popen([as_user(DEBUGGEE, user), *args], stdout=subprocess.DEVNULL,
                                        user=user, group=user))
        return started[-1]

    yield start
    for process in started:
        process.kill()
        process.wait()


def line_text(name):
    with open(os.path.join(os.path.dirname(__file__), "..", "programs", "debuggee.c")) as source:
        return source.read().splitlines()[mark(name) - 1]


def test_breakpoints_by_function_and_line_registers_and_variables(shell):
    froggy = shell("run", "--", DEBUGGEE, "basic")
    assert re.search(r"Starting program: .*debuggee basic", froggy.first)
    assert "Program stopped at its exec" in froggy.first

    out = froggy.command("break leaf")
    assert re.fullmatch(rf"Breakpoint 1 at 0x[0-9a-f]+: file debuggee.c, line {mark('leaf-first')}.\n", out)
    out = froggy.command(f"b debuggee.c:{mark('watch-write')}")
    assert f"Breakpoint 2 at " in out and f"line {mark('watch-write')}." in out

    out = froggy.command("continue")
    hit = re.search(rf"Thread (\d+) hit Breakpoint 1, leaf \(\) at debuggee.c:{mark('leaf-first')}\n", out)
    assert hit, out
    # Then the source line, as gdb shows it.
    assert f"{mark('leaf-first')}\t{line_text('leaf-first')}\n" in out
    pid = int(hit.group(1))

    # leaf(21): its argument is in rdi; rip is the breakpoint's address.
    assert froggy.command("print $rdi") == "$1 = 21\n"
    rip = froggy.command("info registers rip")
    address = re.search(r"Breakpoint 1 at (0x[0-9a-f]+)", froggy.raw).group(1)
    assert re.fullmatch(rf"rip +{address} +{address}\n", rip), rip
    assert froggy.command("p watched") == "$2 = 0\n"
    assert froggy.command("print/x $rdi + 1") == "$3 = 0x16\n"

    out = froggy.command("c")
    assert f"Thread {pid} hit Breakpoint 2, outer () at debuggee.c:{mark('watch-write')}" in out
    out = froggy.command("info breakpoints")
    assert re.search(rf"^1 +breakpoint +keep y +{address} +in leaf at debuggee.c:{mark('leaf-first')}\n"
                     r"\tbreakpoint already hit 1 time\n", out, re.M), out
    assert re.search(rf"^2 +breakpoint +keep y .* in outer at debuggee.c:{mark('watch-write')}", out, re.M)
    out = froggy.command("continue")
    assert f"[Process {pid} exited normally]" in out
    froggy.send("quit\n")
    assert froggy.wait() == 0


def test_a_tracepoint_shows_every_hit_and_never_stops(shell):
    froggy = shell("run", "--", DEBUGGEE, "threads", "2", "3")
    out = froggy.command("trace tick")
    assert re.fullmatch(rf"Tracepoint 1 at 0x[0-9a-f]+: file debuggee.c, line {mark('tick')}.\n", out), out
    out = froggy.command("info breakpoints")
    assert re.search(rf"^1 +tracepoint +keep y +0x[0-9a-f]+ +in tick at debuggee.c:{mark('tick')}\n", out, re.M), out

    # Two threads, three ticks each: six lines, and the program's end,
    # with no stop to continue from.
    out = froggy.command("continue")
    passed = re.findall(rf"^\[Thread (\d+) passed tracepoint 1, tick \(\) at debuggee.c:{mark('tick')}\]$",
                        out, re.M)
    assert len(passed) == 6, out
    assert sorted(passed.count(tid) for tid in set(passed)) == [3, 3], out
    assert re.search(r"\[Process \d+ exited normally\]", out), out
    assert "hit Breakpoint" not in out
    froggy.send("quit\n")
    assert froggy.wait() == 0


def test_step_into_backtrace_and_finish(shell):
    froggy = shell("run", DEBUGGEE, "basic")
    froggy.command(f"tbreak debuggee.c:{mark('middle-call')}")
    out = froggy.command("continue")
    assert f"hit Temporary breakpoint 1, middle () at debuggee.c:{mark('middle-call')}" in out
    assert froggy.command("info breakpoints") == "No breakpoints or watchpoints.\n"

    out = froggy.command("step")
    assert out == f"leaf () at debuggee.c:{mark('leaf-first')}\n" \
                  f"{mark('leaf-first')}\t{line_text('leaf-first')}\n"

    out = froggy.command("bt")
    frames = out.splitlines()
    assert frames[0] == f"#0  leaf () at debuggee.c:{mark('leaf-first')}"
    assert re.fullmatch(rf"#1  0x[0-9a-f]{{16}} in middle \(\) at debuggee.c:{mark('middle-call')}", frames[1])
    assert re.fullmatch(rf"#2  0x[0-9a-f]{{16}} in outer \(\) at debuggee.c:{mark('outer-call')}", frames[2])
    assert re.match(r"#3  0x[0-9a-f]{16} in main \(\) at debuggee.c:\d+", frames[3])

    out = froggy.command("frame 1")
    assert re.match(rf"#1  0x[0-9a-f]{{16}} in middle \(\) at debuggee.c:{mark('middle-call')}\n"
                    rf"{mark('middle-call')}\t", out), out

    out = froggy.command("finish")
    assert out.startswith(f"Run till exit from #0  leaf () at debuggee.c:{mark('leaf-first')}\n")
    assert re.search(rf"0x[0-9a-f]{{16}} in middle \(\) at debuggee.c:{mark('middle-call')}\n", out), out
    # leaf(21) returns 42.
    assert out.endswith("Value returned is $1 = 42\n"), out

    out = froggy.command("next")
    assert out == f"{mark('middle-return')}\t{line_text('middle-return')}\n"
    out = froggy.command("stepi")
    assert re.fullmatch(rf"0x[0-9a-f]{{16}}\t{mark('middle-return')}\t.*\n", out), out
    # stepi N is one request: as in gdb, only where it ends is shown.
    before = froggy.command("p $pc")
    out = froggy.command("stepi 2")
    assert re.fullmatch(r"(0x[0-9a-f]{16}\t)?\d+\t.*\n|0x[0-9a-f]{16} in \w+ \(\) .*\n.*\n", out), out
    assert froggy.command("p $pc") != before


def test_examine_the_stack_and_a_global(shell):
    froggy = shell("run", DEBUGGEE, "basic")
    froggy.command("break leaf")
    froggy.command("continue")
    sp = int(re.search(r"= (0x[0-9a-f]+)", froggy.command("p $sp")).group(1), 16)
    out = froggy.command("x/4xg $sp")
    lines = out.splitlines()
    assert len(lines) == 2, out
    assert re.fullmatch(rf"0x{sp:x}:\t0x[0-9a-f]{{16}}\t0x[0-9a-f]{{16}}", lines[0])
    assert re.fullmatch(rf"0x{sp + 16:x}:\t0x[0-9a-f]{{16}}\t0x[0-9a-f]{{16}}", lines[1])

    # The same words, as gdb's other formats and units show them.
    words = [int(w, 16) for w in re.findall(r"\t0x([0-9a-f]{16})", out)]
    out = froggy.command("x/2dw $sp")
    low = [w if w < 2**31 else w - 2**32 for w in (words[0] & 0xffffffff, words[0] >> 32)]
    assert out == f"0x{sp:x}:\t{low[0]}\t{low[1]}\n"

    froggy.command(f"break debuggee.c:{mark('outer-return')}")
    froggy.command("continue")
    # outer(20) stored 45 in watched.
    assert re.fullmatch(r"0x[0-9a-f]+:\t45\n", froggy.command("x/1dg &watched"))
    assert froggy.command("set var watched = 7") == ""
    assert froggy.command("print watched") == "$2 = 7\n"
    assert froggy.command("set $rax = 0x99") == ""
    assert froggy.command("p/x $rax") == "$3 = 0x99\n"
    out = froggy.command("x/s 0")
    assert out.startswith("reading memory:") or "Cannot access memory" in out, out


def test_watch_a_global(shell):
    froggy = shell("run", DEBUGGEE, "basic")
    froggy.command("break outer")
    froggy.command("continue")
    assert froggy.command("watch watched") == "Hardware watchpoint 2: watched\n"
    out = froggy.command("continue")
    assert re.search(r"hit Hardware watchpoint 2: watched\n\nOld value = 0\nNew value = 45\n", out), out
    assert f"outer () at debuggee.c:{mark('outer-return')}" in out
    out = froggy.command("info breakpoints")
    assert re.search(r"^2 +hw watchpoint +keep y +watched$", out, re.M), out
    froggy.command("delete 2")
    out = froggy.command("continue")
    assert "exited normally" in out


def test_catch_a_syscall(shell):
    froggy = shell("run", DEBUGGEE, "basic")
    assert froggy.command("catch syscall write") == "Catchpoint 1 (syscall write)\n"
    out = froggy.command("continue")
    assert re.search(r"Thread \d+ hit Catchpoint 1 \(call to syscall write\), ", out), out
    assert froggy.command("print $rdx") == "$1 = 8\n"      # "leaf 21\n"
    out = froggy.command("continue")
    assert re.search(r"hit Catchpoint 1 \(returned from syscall write\), ", out), out
    assert froggy.command("print $rax") == "$2 = 8\n"
    froggy.command("disable 1")
    assert "exited normally" in froggy.command("continue")


def test_an_int80_call_is_named_from_the_i386_table(shell):
    froggy = shell("run", DEBUGGEE, "int80")
    assert froggy.command("catch syscall getppid") == "Catchpoint 1 (syscall getppid)\n"
    out = froggy.command("continue")
    assert re.search(r"hit Catchpoint 1 \(call to syscall getppid \(i386\)\), ", out), out
    out = froggy.command("continue")
    assert re.search(r"hit Catchpoint 1 \(returned from syscall getppid \(i386\)\), ", out), out
    out = froggy.command("continue")
    assert re.search(r"hit Catchpoint 1 \(call to syscall getppid\), ", out), out
    froggy.command("delete 1")
    assert "exited normally" in froggy.command("continue")


def test_detach_lets_the_program_finish(shell, daemon):
    froggy = shell("run", DEBUGGEE, "basic")
    froggy.command("break leaf")
    pid = int(re.search(r"Thread (\d+) hit", froggy.command("continue")).group(1))
    out = froggy.command("detach")
    assert f"[Detached from process {pid}]\n" in out
    # The program writes its line to our terminal (maybe before we said
    # it was detached), then exits with 0.
    if "leaf 21\n" not in out:
        froggy.expect(r"leaf 21\n")
    wait_for(lambda: f"launched process {pid} reaped, status 0x0" in daemon.log(),
             what="the detached program's normal exit")
    assert froggy.command("continue") == "The program is not being run.\n"


def test_attach_batch_commands_and_detach(daemon, spawn, tmp_path):
    spinner = spawn("spin")
    wait_for(lambda: process_state(spinner.pid) in ("R", "S"), what="the spinner")
    commands = tmp_path / "commands"
    commands.write_text("break leaf\ncontinue\nbacktrace 3\nprint $rdi\n")
    done = subprocess.run([FROGGY, "--socket", daemon.socket, "attach", str(spinner.pid),
                           "-x", str(commands), "--batch", "-ex", "info threads"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, G_DEBUG="fatal-criticals"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    out = done.stdout
    assert out.startswith(f"Attaching to process {spinner.pid}\n")
    assert re.search(rf"Thread {spinner.pid} hit Breakpoint 1, leaf \(\) at debuggee.c:{mark('leaf-first')}", out)
    assert re.search(r"#0  leaf \(\) at debuggee.c:\d+\n#1  .* in middle \(\).*\n#2  .* in outer \(\)", out)
    assert "$1 = 2\n" in out                          # outer(1) -> leaf(2)
    assert re.search(rf"^\* {spinner.pid} +{spinner.pid} +0x[0-9a-f]+ in leaf \(\)", out, re.M), out
    assert out.endswith(f"[Detached from process {spinner.pid}]\n")
    # Detached: it spins on, untraced.
    wait_for(lambda: process_state(spinner.pid) in ("R", "S"), what="the spinner to run on")
    assert "TracerPid:\t0" in open(f"/proc/{spinner.pid}/status").read()


def test_attach_without_permission_fails_clearly(spawn):
    shared = Daemon("--shared")
    try:
        root_process = spawn("spin")
        done = subprocess.run([as_user(FROGGY, NOBODY), "--socket", shared.socket, "--no-start", "attach",
                               str(root_process.pid)], user=NOBODY, group=NOBODY,
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert done.returncode != 0
        assert re.fullmatch(rf"froggy: cannot attach to process {root_process.pid}: "
                            r"permission denied \(.*\)\n", done.stderr), done.stderr
    finally:
        shared.check_clean_exit()


def test_errors_are_one_line_and_the_shell_goes_on(shell):
    froggy = shell("run", DEBUGGEE, "basic")
    assert froggy.command("frobnicate") == 'Undefined command: "frobnicate".  Try "help".\n'
    out = froggy.command("break no_such_function")
    assert out.count("\n") == 1 and "no_such_function" in out, out
    assert froggy.command("de") == 'Ambiguous command "de": delete detach.\n'
    assert froggy.command("print $nosuch") == 'No register named "nosuch".\n'
    assert froggy.command("frame 99").startswith("No frame at level 99.")
    assert froggy.command("delete 5") == "No breakpoint number 5.\n"
    assert "break" in froggy.command("help")
    assert froggy.command("help bt").startswith("backtrace [N]\n")
    out = froggy.command("break leaf")
    assert out.startswith("Breakpoint 1 at ")


def test_a_stop_in_the_background_is_printed_over_the_prompt(shell):
    froggy = shell("run", DEBUGGEE, "basic")
    froggy.command("break leaf")
    out = froggy.command("continue &")
    assert out == "Continuing.\n"
    # The prompt is back while it runs; the hit comes over it.
    froggy.expect(rf"Thread \d+ hit Breakpoint 1, leaf \(\) at debuggee.c:{mark('leaf-first')}\n")
    froggy.prompt()
    assert froggy.command("print $rdi") == "$1 = 21\n"
    assert "exited normally" in froggy.command("continue")


def test_a_signal_stops_and_continue_chooses_what_is_delivered(shell):
    # debuggee signal raises SIGUSR1 and exits with the number its
    # handler saw.
    froggy = shell("run", DEBUGGEE, "signal")
    out = froggy.command("continue")
    assert re.search(r"Thread \d+ received signal SIGUSR1, User defined signal 1.\n", out), out
    out = froggy.command("continue 0")
    assert out.startswith("Continuing with no signal.\n") and "exited normally" in out, out

    again = shell("run", DEBUGGEE, "signal")
    again.command("c")
    out = again.command("signal SIGUSR1")
    assert out.startswith("Continuing with signal SIGUSR1.\n")
    assert re.search(r"\[Process \d+ exited with code 1\]", out), out


def test_ctrl_c_interrupts_the_running_program(shell):
    froggy = shell("run", DEBUGGEE, "spin")
    froggy.send("continue\n")
    froggy.expect(r"Continuing.\n")
    froggy.send("\x03")
    out = froggy.prompt()
    assert re.search(r"Thread \d+ stopped.\n0x[0-9a-f]+ in ", out), out
    out = froggy.command("info threads")
    assert "(running)" not in out and "* " in out
    froggy.send("kill\n")
    assert re.search(r"\[Process \d+ killed\]", froggy.prompt())


def test_completion_and_history(shell, home):
    froggy = shell("run", DEBUGGEE, "basic")
    froggy.command("break main")
    froggy.command("continue")
    froggy.send("brea\t")
    froggy.expect(r"break ")
    froggy.send("midd\t")
    froggy.expect(r"middle ")
    froggy.send("\n")
    assert "Breakpoint 2 at " in froggy.prompt()
    froggy.send("tbreak debuggee.\t")
    froggy.expect(r"debuggee\.c:")
    froggy.send(f"{mark('leaf-return')}\n")
    assert f"line {mark('leaf-return')}." in froggy.prompt()
    froggy.send("info reg\t")
    froggy.expect("registers ")
    froggy.send("$ri\t")
    froggy.expect(r"\$rip ")
    froggy.send("\n")
    assert re.search(r"^rip +0x", froggy.prompt(), re.M)
    froggy.send("quit\n")
    assert froggy.wait() == 0
    history = (home / ".froggy_history").read_text().splitlines()
    assert history[:2] == ["break main", "continue"] and history[-1] == "quit"
