"""/dev/utrace: the C selftests of tests/kselftest/utrace, one test each.

The selftest binary (kselftest_harness, TAP output) runs once for the
module; each of its TEST()s is reported here as its own pytest test, with
the harness's log of that test when it fails.
"""

import os
import re

import pytest

from guest import BUILD, TOP, run

SOURCE = os.path.join(TOP, "tests", "kselftest", "utrace", "utrace_test.c")
BINARY = os.path.join(BUILD, "tests", "kselftest", "utrace_test")

with open(SOURCE) as source:
    NAMES = re.findall(r"^TEST\((\w+)\)", source.read(), re.M)


@pytest.fixture(scope="module")
def selftest_run():
    assert os.access(BINARY, os.X_OK), f"{BINARY} is not built"
    result = run([BINARY], timeout=1800)
    output = result.stdout + result.stderr
    verdicts = {name: verdict for verdict, name in
                re.findall(r"^(ok|not ok) \d+ global\.(\w+)", output, re.M)}
    return output, verdicts


def log_of(output, name):
    """The harness's lines for one test: its section of the TAP output
    and its failure messages, which it writes to stderr."""
    match = re.search(rf"^#\s+RUN\s+global\.{name} .*?^(?:not )?ok \d+ global\.{name}$",
                      output, re.M | re.S)
    messages = [line for line in output.splitlines() if f":{name}:" in line]
    return "\n".join([match.group(0) if match else ""] + messages)


def test_every_selftest_ran(selftest_run):
    output, verdicts = selftest_run
    assert sorted(verdicts) == sorted(NAMES), output
    assert re.search(rf"^1\.\.{len(NAMES)}$", output, re.M), output


@pytest.mark.parametrize("name", NAMES)
def test_selftest(selftest_run, name):
    output, verdicts = selftest_run
    assert verdicts.get(name) == "ok", log_of(output, name)
