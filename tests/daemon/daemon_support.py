"""What the froggyd tests share: the paths, a daemon on its own socket,
the debuggee's marked lines, and the steps every test takes."""

import os
import re
import signal
import subprocess
import time

from froggy_rpc import Client
from guest import BUILD, TOP

FROGGYD = os.path.join(BUILD, "froggyd", "froggyd")
DEBUGGEE = os.path.join(BUILD, "tests", "programs", "debuggee")
DEBUGGEE_SOURCE = os.path.join(TOP, "tests", "programs", "debuggee.c")


def mark(name):
    """The line of debuggee.c that carries the comment MARK:name."""
    with open(DEBUGGEE_SOURCE) as source:
        for number, text in enumerate(source, 1):
            if re.search(rf"MARK:{re.escape(name)}\b", text):
                return number
    raise KeyError(name)


def process_state(pid):
    """The state letter /proc shows for pid, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def wait_for(predicate, timeout=60, what="the condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Daemon:
    counter = 0

    def __init__(self, *options):
        Daemon.counter += 1
        self.socket = f"/tmp/froggyd-test-{os.getpid()}-{Daemon.counter}.sock"
        self.log_path = self.socket.replace(".sock", ".log")
        self.clients = []
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [FROGGYD, "--socket", self.socket, "--verbose", *options],
                stdout=log, stderr=subprocess.STDOUT)
        wait_for(lambda: os.path.exists(self.socket) or
                 self.process.poll() is not None, what="froggyd's socket")
        assert self.process.poll() is None, self.log()

    def log(self):
        with open(self.log_path) as log:
            return log.read()

    def connect(self, initialize=True):
        client = Client(self.socket)
        self.clients.append(client)
        if initialize:
            client.initialize()
        return client

    def terminate(self):
        """SIGTERM: the daemon detaches everything and exits with 0."""
        for client in self.clients:
            client.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("froggyd did not exit on SIGTERM:\n" + self.log())
        return status


def launch(client, *args, **params):
    """Launch the debuggee under froggyd; the result of "launch"."""
    return client.call("launch", argv=[DEBUGGEE, *args], **params)


def run_to(client, session, location, thread=None):
    """Set a breakpoint at @location, continue, and return the hit."""
    inserted = client.call("breakpoint.insert", session=session,
                           location=location)
    client.call("continue", session=session)
    hit = client.wait_event("breakpoint-hit", breakpoint=inserted["id"])
    if thread is not None:
        assert hit["thread"] == thread, hit
    return hit
