"""/dev/utrace under stress: the C tests of utrace_stress.c (an ioctl
fuzzer, thread churn under stop-all, exec from a non-leader thread, a
fork storm, attaches and detaches racing fork, detach with signals
pending, an attach racing a set-user-ID exec, a lossless stream read
slowly under stops and resumes), one pytest test each, and a clean kernel
log after them.

--stress-scale multiplies their iterations: 1 in every check (20,000
fuzzed calls), 50 for qemu/check --stress (1,000,000).
"""

import re
import subprocess

import pytest

from kselftest_run import Selftest

STRESS = Selftest("utrace_stress")

# What a kernel log must not say (qemu/boot checks the whole log as well).
# The fuzzer's tracees die of what it writes into them, which the kernel
# logs too ("traps: ... general protection fault"): that is no complaint.
KERNEL_COMPLAINTS = re.compile(
    r"WARNING:|BUG:|KASAN|Call Trace|Oops|possible recursive locking"
    r"|inconsistent lock state|general protection fault, ")


def kernel_log():
    return subprocess.run(["dmesg"], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def stress_run(stress_scale):
    before = len(kernel_log().splitlines())
    output, verdicts = STRESS.run(timeout=600 * stress_scale,
                                  env={"UTRACE_STRESS_SCALE": str(stress_scale)})
    complaints = [line for line in kernel_log().splitlines()[before:]
                  if KERNEL_COMPLAINTS.search(line)]
    print(output)
    return output, verdicts, complaints


def test_every_stress_test_ran(stress_run):
    output, verdicts, _ = stress_run
    STRESS.check_all_ran(output, verdicts)


@pytest.mark.parametrize("name", STRESS.names)
def test_stress(stress_run, name):
    output, verdicts, _ = stress_run
    assert verdicts.get(name) == "ok", STRESS.log_of(output, name)


def test_kernel_log_is_clean_after_the_stress(stress_run):
    _, _, complaints = stress_run
    assert complaints == []


def test_fuzzer_made_its_calls(stress_run, stress_scale):
    output, _, _ = stress_run
    match = re.search(r"^# fuzz: (\d+) calls, (\d+) succeeded", output, re.M)
    assert match, output
    assert int(match.group(1)) >= 20000 * stress_scale
    assert int(match.group(2)) > 0
