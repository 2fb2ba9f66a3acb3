"""/dev/utrace: the C selftests of tests/kselftest/utrace, one test each."""

import pytest

from kselftest_run import Selftest

SELFTEST = Selftest("utrace_test")


@pytest.fixture(scope="module")
def selftest_run():
    return SELFTEST.run()


def test_every_selftest_ran(selftest_run):
    SELFTEST.check_all_ran(*selftest_run)


@pytest.mark.parametrize("name", SELFTEST.names)
def test_selftest(selftest_run, name):
    output, verdicts = selftest_run
    assert verdicts.get(name) == "ok", SELFTEST.log_of(output, name)
