"""Run a kselftest_harness binary once and read its TAP verdicts.

The binary runs once for the module that uses it; each of its TEST()s is
then reported as its own pytest test, with the harness's log of that test
when it fails.
"""

import os
import re

from guest import BUILD, TOP, run


def tap_verdicts(output):
    """The TAP verdicts of a kselftest_harness run: {"global.NAME": verdict}.

    The verdict is "ok" or "not ok", or, from a directive, "skip", "xfail"
    or "xpass": "ok 3 global.x # SKIP no hardware" is not a pass, and a
    test that requires "ok" fails on it.
    """
    verdicts = {}
    for verdict, name, directive in re.findall(
            r"^(ok|not ok) \d+ (\S+)(?:\s+#\s*(\w+))?", output, re.M):
        directive = directive.upper()
        if directive in ("SKIP", "XFAIL", "XPASS"):
            verdict = directive.lower()
        verdicts[name] = verdict
    return verdicts


class Selftest:
    """The TEST()s of tests/kselftest/FOLDER/NAME.c and the built NAME."""

    def __init__(self, name, folder="utrace"):
        self.source = os.path.join(TOP, "tests", "kselftest", folder, f"{name}.c")
        self.binary = os.path.join(BUILD, "tests", "kselftest", name)
        with open(self.source) as source:
            self.names = re.findall(r"^TEST\((\w+)\)", source.read(), re.M)

    def run(self, timeout=1800, env=None):
        """Run every test; return (output, {name: "ok" or "not ok"})."""
        assert os.access(self.binary, os.X_OK), f"{self.binary} is not built"
        result = run([self.binary], timeout=timeout,
                     env=dict(os.environ, **(env or {})))
        output = result.stdout + result.stderr
        verdicts = {name[len("global."):]: verdict
                    for name, verdict in tap_verdicts(output).items()
                    if name.startswith("global.")}
        return output, verdicts

    def check_all_ran(self, output, verdicts):
        assert sorted(verdicts) == sorted(self.names), output
        assert re.search(rf"^1\.\.{len(self.names)}$", output, re.M), output

    @staticmethod
    def log_of(output, name):
        """The harness's lines for one test: its section of the TAP output
        and its failure messages, which it writes to stderr."""
        match = re.search(rf"^#\s+RUN\s+global\.{name} .*?^(?:not )?ok \d+ global\.{name}$",
                          output, re.M | re.S)
        messages = [line for line in output.splitlines() if f":{name}:" in line]
        return "\n".join([match.group(0) if match else ""] + messages)
