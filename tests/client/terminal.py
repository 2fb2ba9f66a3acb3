"""A program on a pseudo-terminal, driven as a user would: type a line,
wait for the text to come.  (The pty module: no pexpect needed.)"""

import os
import pty
import re
import select
import signal
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


class Terminal:
    def __init__(self, argv, env=None, cwd=None):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            if cwd:
                os.chdir(cwd)
            os.execve(argv[0], argv, env or os.environ)
        self.raw = ""       # everything read, escapes removed
        self.seen = 0       # how far expect() has looked
        self.status = None

    def read_some(self, timeout):
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            data = b""
        if not data:
            raise EOFError("the program closed the terminal:\n" + self.raw)
        self.raw += ANSI.sub("", data.decode(errors="replace"))
        return True

    def expect(self, pattern, timeout=120):
        """Wait for @pattern (a regex) after what was matched before;
        returns the match."""
        regex = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.raw, self.seen)
            if found:
                self.seen = found.end()
                return found
            left = deadline - time.monotonic()
            assert left > 0, f"timed out waiting for {pattern!r}; got:\n" + \
                self.raw[self.seen:]
            self.read_some(min(left, 1.0))

    def prompt(self, timeout=120):
        """Wait for the shell's prompt; returns what came before it."""
        start = self.seen
        found = self.expect(r"\(froggy\) ", timeout)
        return self.raw[start:found.start()]

    def send(self, text):
        os.write(self.fd, text.encode())

    def command(self, line, timeout=120):
        """Type a line and return its output, up to the next prompt."""
        self.send(line + "\n")
        self.expect(re.escape(line) + r"\n")
        return self.prompt(timeout)

    def wait(self, timeout=120):
        deadline = time.monotonic() + timeout
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                break
            assert time.monotonic() < deadline, "froggy did not exit:\n" + self.raw
            try:
                self.read_some(0.2)
            except EOFError:
                pass
        return self.status

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.wait()
        os.close(self.fd)
