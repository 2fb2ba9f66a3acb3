"""gdb and strace, the peers Froggy is measured against, work in the guest."""

import re

from guest import run


def test_gdb_breaks_prints_and_continues(tracee):
    prog = tracee("gdb_target")
    result = run(["gdb", "-nx", "-batch",
                  "-ex", "break add_numbers",
                  "-ex", "run",
                  "-ex", "next",
                  "-ex", "print total",
                  "-ex", "print a * 100 + b",
                  "-ex", "continue",
                  prog])
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert re.search(r"Breakpoint 1, add_numbers \(a=19, b=23\) at .*gdb_target\.c:\d+",
                     out), out
    assert re.search(r"^\$1 = 42$", out, re.M), out
    assert re.search(r"^\$2 = 1923$", out, re.M), out
    assert "result=42 counter=42" in out
    assert re.search(r"\[Inferior 1 \(process \d+\) exited normally\]", out), out


def test_strace_follows_a_fork(tracee, tmp_path):
    log = tmp_path / "strace.log"
    result = run(["strace", "-f", "-o", str(log), tracee("fork_target")])
    assert result.returncode == 0, result.stderr
    parent_line = re.search(r"parent: child (\d+) exited with 7", result.stdout)
    assert parent_line, result.stdout
    child = parent_line.group(1)
    trace = log.read_text()
    # The parent's fork returns the child's pid, on the call's own line or,
    # when the child's calls came in between, on its "resumed" line.
    assert re.search(rf"^\d+ +(clone|clone3|fork|vfork)\(.*\) += {child}$", trace, re.M) or \
        re.search(rf"^\d+ +<\.\.\. (clone|clone3|fork|vfork) resumed>.*\) += {child}$",
                  trace, re.M), trace
    # ...and the child's own system calls are traced under that pid.
    assert re.search(rf'^{child} +write\(1, "child says hello\\n", 17\) += 17$',
                     trace, re.M), trace
    assert re.search(rf"^{child} +exit_group\(7\) += \?$", trace, re.M), trace
    assert re.search(rf"^{child} +\+\+\+ exited with 7 \+\+\+$", trace, re.M), trace
