"""froggy's command line: every form the README and the man page
document, parsed as they say (options before the program, the program's
own arguments left alone), and clear errors for the forms that are
wrong."""

import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "daemon"))

from daemon_support import DEBUGGEE, Daemon, mark, process_state, wait_for  # noqa: E402
from guest import FROGGY  # noqa: E402



@pytest.fixture(scope="module")
def daemon():
    started = Daemon()
    yield started
    started.check_clean_exit()


def froggy(daemon, *args):
    return subprocess.run([FROGGY, "--socket", daemon.socket, *args],
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL,
                          env=dict(os.environ, G_DEBUG="fatal-criticals"))


def leaf_hit(out):
    return re.search(rf"Thread \d+ hit Breakpoint 1, leaf \(\) at debuggee.c:{mark('leaf-first')}\n", out)


def test_run_takes_ex_and_batch_before_the_double_dash(daemon):
    done = froggy(daemon, "run", "-ex", "break leaf", "-ex", "continue", "--batch", "--", DEBUGGEE, "basic")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    assert re.search(r"Starting program: .*debuggee basic\n", done.stdout)
    assert leaf_hit(done.stdout), done.stdout


def test_run_takes_a_command_file(daemon, tmp_path):
    commands = tmp_path / "commands"
    commands.write_text("break leaf\ncontinue\nprint $rdi\n")
    done = froggy(daemon, "run", "-x", str(commands), "--batch", "--", DEBUGGEE, "basic")
    assert done.returncode == 0, done.stdout + done.stderr
    assert leaf_hit(done.stdout), done.stdout
    assert "$1 = 21\n" in done.stdout


def test_run_without_double_dash_gives_the_program_its_own_options(daemon):
    # gdb's spelling (-batch, -ex) for froggy; everything from the program
    # on is the program's, dashes and all: sh exits with its argument count.
    done = froggy(daemon, "run", "-batch", "-ex", "continue", "/bin/sh", "-c", 'exit $#', "sh",
                  "-ex", "--batch", "--")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\[Process \d+ exited with code 3\]\n", done.stdout), done.stdout


def test_options_before_the_command_still_count(daemon):
    done = subprocess.run([FROGGY, "-ex", "break leaf", "--socket", daemon.socket, "--batch",
                           "run", "-ex", "continue", DEBUGGEE, "basic"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert leaf_hit(done.stdout), done.stdout


def test_attach_takes_its_options_after_the_pid(daemon):
    spinner = subprocess.Popen([DEBUGGEE, "spin"], stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: process_state(spinner.pid) in ("R", "S"), what="the spinner")
        done = froggy(daemon, "attach", str(spinner.pid), "-ex", "info frame", "-batch")
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.startswith(f"Attaching to process {spinner.pid}\n")
        assert re.search(r"^#0  (0x[0-9a-f]+ in )?\w+ \(\)", done.stdout, re.M), done.stdout
        assert done.stdout.endswith(f"[Detached from process {spinner.pid}]\n")
    finally:
        spinner.kill()
        spinner.wait()


@pytest.mark.parametrize("args, message", [
    ((), "froggy: which command?\n"),
    (("frobnicate",), "froggy: unknown command: frobnicate\n"),
    (("run",), "froggy: run what? froggy run [--] PROGRAM [ARGUMENTS...]\n"),
    (("run", "--batch", "--"), "froggy: run what? froggy run [--] PROGRAM [ARGUMENTS...]\n"),
    (("attach",), "froggy: attach to what? froggy attach PID\n"),
    (("attach", "12x"), "froggy: attach to what? froggy attach PID\n"),
    (("attach", "1", "2"), "froggy: attach to what? froggy attach PID\n"),
    (("rpc", "extra"), "froggy: rpc takes no arguments\n"),
    (("rpc", "-ex", "x"), "froggy: Unknown option --ex\n"),
    (("run", "-ex"), "froggy: Missing argument for --ex\n"),
])
def test_bad_command_lines_say_what_is_wrong(daemon, args, message):
    done = froggy(daemon, "--no-start", *args)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(message), done.stderr
