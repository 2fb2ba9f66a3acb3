"""The classic ptrace behaviours, one test each (tests/kselftest/ptrace).

Attach to a stopped process, a detach delivering a signal, a blocking
call restarted around a debugger's stop, vfork and vfork-done events, a
traced orphan reparented and reaped once, a step into a signal handler,
a hardware watchpoint, and a 32-bit tracee's views.  They pass on the
kernel with the series, and `qemu/check --stock` holds a kernel built
without it to the same outcome.
"""

import pytest

from kselftest_run import Selftest

SELFTEST = Selftest("ptrace_regressions", folder="ptrace")


@pytest.fixture(scope="module")
def selftest_run():
    return SELFTEST.run()


def test_every_regression_test_ran(selftest_run):
    SELFTEST.check_all_ran(*selftest_run)


@pytest.mark.parametrize("name", SELFTEST.names)
def test_ptrace_regression(selftest_run, name):
    output, verdicts = selftest_run
    assert verdicts.get(name) == "ok", SELFTEST.log_of(output, name)
