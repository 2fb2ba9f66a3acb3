"""Drive the kernel's utrace test module and the tracee program.

The test module (lib/test_utrace.c, built with the series) is a utrace
engine driven through /sys/kernel/debug/utrace_test: each open file is a
session, each write one command, and read() returns the log of the
callbacks the engines got.  See the module's header comment for the
commands.
"""

import os
import re
import subprocess
import time

import pytest

from guest import as_user

CONTROL = "/sys/kernel/debug/utrace_test"

# x86_64 system call numbers the tests look for.
NR_READ, NR_WRITE, NR_GETPPID, NR_EXIT_GROUP = 0, 1, 110, 231


class LogLine(dict):
    """One callback: {"engine": 0, "event": "exec", "tid": "81", ...}."""

    def __init__(self, text):
        words = text.split()
        super().__init__(word.split("=", 1) for word in words[2:])
        self["engine"] = int(words[0][1:])
        self["event"] = words[1]
        self.text = text

    def int(self, key):
        return int(self[key], 0)

    def __repr__(self):
        return self.text


class UtraceSession:
    """One open of the control file: a target thread and its engines."""

    def __init__(self):
        self.fd = os.open(CONTROL, os.O_RDWR)
        self.lines = []
        self._partial = b""

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __call__(self, command):
        """Run a command; raises OSError with the utrace call's errno."""
        os.write(self.fd, command.encode())

    def error(self, command):
        """Run a command that must fail; return its errno."""
        with pytest.raises(OSError) as failure:
            self(command)
        return failure.value.errno

    def attach(self, tid, events, reply="resume", exclusive=False, observer=False):
        engine = sum(1 for _ in getattr(self, "_engines", []))
        self(f"attach {tid}" + (" exclusive" if exclusive else "")
             + (" observer" if observer else ""))
        self._engines = getattr(self, "_engines", []) + [tid]
        self(f"events {engine} {events}")
        self(f"reply {engine} {reply}")
        return engine

    def poll(self):
        """Append the log lines the engines wrote since the last poll."""
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                break
            self._partial += chunk
        *complete, self._partial = self._partial.split(b"\n")
        self.lines.extend(LogLine(line.decode()) for line in complete if line)
        return self.lines

    def events(self, engine=None, event=None):
        return [line for line in self.poll()
                if (engine is None or line["engine"] == engine)
                and (event is None or line["event"] == event)]

    def wait_for(self, event, engine=0, timeout=30, **values):
        """Wait for a log line of @event whose fields match @values."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.events(engine, event):
                if all(str(line.get(k)) == str(v) for k, v in values.items()):
                    return line
            time.sleep(0.02)
        raise AssertionError(f"no {event} {values} from e{engine} in {self.lines}")

    def wait_stopped(self, engine=0, msecs=20000):
        self(f"wait {engine} {msecs}")

    def registers(self, engine=0):
        before = len(self.poll())
        self(f"examine {engine}")
        regs = [line for line in self.poll()[before:] if line["event"] == "regs"]
        assert regs, self.lines
        return regs[-1]


class Tracee:
    """tests/programs/utrace_tracee: prints "ready PID", waits for a line."""

    def __init__(self, program, mode, *args, user=None, own_group=False):
        """@own_group: start it in a process group of its own, which its
        parent keeps from being orphaned, so that SIGTSTP stops it."""
        self.proc = subprocess.Popen([as_user(program, user), mode, *args], text=True,
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, user=user,
                                     process_group=0 if own_group else None)
        ready = self.readline()
        assert ready.startswith("ready "), ready
        self.pid = int(ready.split()[1])
        assert self.pid == self.proc.pid
        self.wait_blocked_in_read()

    def wait_blocked_in_read(self, timeout=30):
        """Wait until the tracee sleeps in read() for its "go" line, so an
        engine attached now sees what comes after, and nothing before."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(f"/proc/{self.pid}/syscall") as f:
                if f.read().split()[0] == str(NR_READ):
                    return
            time.sleep(0.01)
        raise AssertionError(f"tracee {self.pid} never blocked in read()")

    def readline(self):
        return self.proc.stdout.readline().strip()

    def facts(self):
        """Read the rest of the output as {key: value} facts."""
        out = self.proc.stdout.read()
        return dict(re.findall(r"(\w+)=(\S*)", out))

    def go(self, line=""):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, timeout=60):
        return self.proc.wait(timeout=timeout)

    def state(self, tid=None):
        with open(f"/proc/{self.pid}/task/{tid or self.pid}/status") as f:
            return dict(line.split(":\t", 1) for line in f.read().splitlines()
                        if ":\t" in line)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
