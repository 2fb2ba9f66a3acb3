"""Fixtures shared by the whole guest suite (paths are in guest.py)."""

import glob
import os
import shutil

import pytest

from guest import BUILD


def pytest_addoption(parser):
    parser.addoption(
        "--stress-scale", type=int, default=1, metavar="N",
        help="multiply the iterations of the stress tests (tests/stress) by N; "
             "1, the short run of every check, unless qemu/check --stress")


def pytest_collection_modifyitems(config, items):
    """Tests that change the machine for good (Yama's ptrace_scope 3 cannot
    be lowered again) run after every other test."""
    items.sort(key=lambda item: item.get_closest_marker("last_in_boot") is not None)


def pytest_sessionstart(session):
    if os.environ.get("FROGGY_GUEST") != "1":
        raise pytest.UsageError(
            "the guest suite runs inside the Froggy guest: use qemu/check")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that hung: have the kernel log every task's state and stack,
    to see where things are stuck.  The log then fails the run as well."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo and "Timeout" in str(call.excinfo.value):
        with open("/proc/sysrq-trigger", "w") as trigger:
            trigger.write("t")


def pytest_sessionfinish(session, exitstatus):
    """A skipped test is not a passed one, nor is one expected to fail
    (xfail), nor one that passed against that expectation (xpass): any of
    them fails the run."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not reporter or exitstatus != 0:
        return
    unpassed = {kind: len(reporter.stats[kind])
                for kind in ("skipped", "xfailed", "xpassed") if reporter.stats.get(kind)}
    if unpassed:
        reporter.write_line("froggy: the run fails on " + ", ".join(
            f"{count} {kind}" for kind, count in unpassed.items()), red=True)
        session.exitstatus = 1


# Where the sanitizers write their reports when froggyd and froggy come
# from the sanitizer build (tests/guest-suite --sanitizers).
SANITIZER_REPORTS = os.environ.get("FROGGY_SANITIZER_REPORTS")


@pytest.fixture(autouse=True)
def no_sanitizer_report():
    """A report of ASan, LSan or UBSan from anything the test ran fails
    that test, with the report; it is then set aside, so that the next
    test starts clean."""
    yield
    if not SANITIZER_REPORTS:
        return
    reports = sorted(glob.glob(os.path.join(SANITIZER_REPORTS, "*.*")))
    if not reports:
        return
    texts = []
    for report in reports:
        with open(report, errors="replace") as text:
            texts.append(f"--- {os.path.basename(report)}\n{text.read()}")
        shutil.move(report, os.path.join(SANITIZER_REPORTS, "seen"))
    pytest.fail("sanitizer reports:\n" + "\n".join(texts), pytrace=False)


@pytest.fixture(scope="session")
def stress_scale(request):
    return request.config.getoption("stress_scale")


@pytest.fixture(scope="session")
def build_dir():
    return BUILD


@pytest.fixture(scope="session")
def kernel_dir():
    return os.path.join(BUILD, "kernel")


@pytest.fixture(scope="session")
def tracee():
    """Path of a test program built by CMake: tracee("gdb_target")."""
    def path(name):
        exe = os.path.join(BUILD, "tests", "programs", name)
        assert os.access(exe, os.X_OK), f"{exe} is not built"
        return exe
    return path

