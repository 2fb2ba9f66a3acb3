"""The kernel's own ptrace and x86 selftests pass on the patched kernel.

They are built from the same patched tree by qemu/build-kernel.  Each one
runs as its own test and must exit 0; its output is checked too, so a test
that silently did nothing would not pass.
"""

import os
import re

import pytest

from guest import run
from kselftest_run import tap_verdicts

X86_TESTS = [
    "single_step_syscall_32", "single_step_syscall_64",
    "ptrace_syscall_32", "ptrace_syscall_64",
    "sigreturn_32", "sigreturn_64",
    "sysret_rip_64",
    "test_syscall_vdso_32",
    "check_initial_reg_state_32", "check_initial_reg_state_64",
]


# Where QEMU's TCG does not behave like the hardware these tests were
# written for, a test fails on every kernel, ours or stock.  Those failures
# are listed here, exactly, so that any other failure still fails the test.
TCG_FAILURES = {
    # IRET to a 64-bit CS: the CPU nulls an FS holding the null selector
    # with RPL 3, TCG keeps it (validate_seg() in QEMU's seg_helper.c
    # leaves null FS and GS alone on x86_64).
    "sigreturn_32": ["[FAIL]\tReg 1 mismatch: requested 0x0; got 0x3"],
}


@pytest.mark.parametrize("name", X86_TESTS)
def test_x86_selftest(kernel_dir, name):
    result = run([os.path.join(kernel_dir, "selftests", "x86", name)])
    output = result.stdout + result.stderr
    failures = [line for line in output.splitlines() if line.startswith("[FAIL]")]
    expected = TCG_FAILURES.get(name, [])
    assert failures == expected, output
    assert result.returncode == (1 if expected else 0), output
    assert "[OK]" in output, output


def ptrace_selftest(kernel_dir, name):
    result = run([os.path.join(kernel_dir, "selftests", "ptrace", name)])
    return result.returncode, result.stdout + result.stderr


def test_ptrace_get_syscall_info(kernel_dir):
    status, output = ptrace_selftest(kernel_dir, "get_syscall_info")
    assert status == 0, output
    assert tap_verdicts(output) == {"global.get_syscall_info": "ok"}, output


def test_ptrace_peeksiginfo(kernel_dir):
    status, output = ptrace_selftest(kernel_dir, "peeksiginfo")
    assert status == 0, output
    assert output.strip().endswith("PASS"), output


def test_ptrace_vmaccess(kernel_dir):
    """/proc/PID/mem stays readable while exec waits for a traced thread.

    The file's second case, global.attach, expects PTRACE_ATTACH to fail
    with EAGAIN in that situation.  That needs Bernd Edlinger's "exec: Fix
    dead-lock in de_thread with ptrace_attach", which is not in 6.1: on a
    stock 6.1 kernel the attach blocks until the harness times it out.  We
    hold our kernel to the same outcome, so a change in either direction
    is noticed.
    """
    status, output = ptrace_selftest(kernel_dir, "vmaccess")
    assert tap_verdicts(output) == {"global.vmaccess": "ok",
                                       "global.attach": "not ok"}, output
    assert "attach: Test terminated by timeout" in output, output
    assert status == 1, output


def test_seccomp_bpf(kernel_dir, tmp_path):
    """The seccomp selftests pass, every one of them.

    Their SECCOMP_RET_TRACE cases drive a ptrace tracer through the code
    the series' seccomp hook sits in (PTRACE_O_TRACESECCOMP stops, skipped
    and changed calls, the order of seccomp and syscall stops), so they
    show that ptrace's side of it is unchanged.  A skip is a failure: the
    test configuration has what they need (CONFIG_CHECKPOINT_RESTORE).
    """
    result = run([os.path.join(kernel_dir, "selftests", "seccomp", "seccomp_bpf")],
                 timeout=900, cwd=tmp_path)
    output = result.stdout + result.stderr
    verdicts = tap_verdicts(output)
    plan = re.search(r"^1\.\.(\d+)$", output, re.M)
    assert plan and len(verdicts) == int(plan.group(1)), output
    assert {name: v for name, v in verdicts.items() if v != "ok"} == {}, output
    assert any(name.startswith("TRACE_syscall.ptrace.") for name in verdicts), output
    assert result.returncode == 0, output
