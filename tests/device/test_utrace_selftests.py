"""/dev/utrace: the C selftests of tests/kselftest/utrace, one test each:
utrace_test (every request and event) and utrace_breakpoints (breakpoints
through uprobes)."""

import pytest

from kselftest_run import Selftest

SELFTESTS = {name: Selftest(name) for name in ("utrace_test", "utrace_breakpoints")}


@pytest.fixture(scope="module")
def selftest_run():
    """A binary's run (output, verdicts), made when a test first asks."""
    runs = {}

    def run_of(binary):
        if binary not in runs:
            runs[binary] = SELFTESTS[binary].run()
        return runs[binary]
    return run_of


@pytest.mark.parametrize("binary", SELFTESTS)
def test_every_selftest_ran(selftest_run, binary):
    SELFTESTS[binary].check_all_ran(*selftest_run(binary))


@pytest.mark.parametrize("binary,name", [(binary, name)
                                         for binary, selftest in SELFTESTS.items()
                                         for name in selftest.names])
def test_selftest(selftest_run, binary, name):
    output, verdicts = selftest_run(binary)
    assert verdicts.get(name) == "ok", SELFTESTS[binary].log_of(output, name)
