"""`froggy rpc`, the scripting interface: JSON-RPC lines in, every
response and notification out, one JSON object per line."""

import ctypes
import json
import os
import signal
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "daemon"))

from daemon_support import DEBUGGEE, process_state, wait_for  # noqa: E402
from guest import FROGGY  # noqa: E402



PR_SET_CHILD_SUBREAPER = 36

# The froggyd that froggy starts logs to /dev/null; any warning or
# critical it logs makes it abort instead, so that its exit status (0 on
# SIGTERM) also says it logged none.
DAEMON_ENV = dict(os.environ, G_DEBUG="fatal-warnings")


@pytest.fixture(autouse=True)
def adopt_orphans():
    """froggy starts froggyd double-forked, so that it outlives froggy:
    made a subreaper, the test inherits it and can wait for its exit
    status."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    assert prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0, os.strerror(ctypes.get_errno())
    yield
    prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


class Rpc:
    """froggy rpc as a coprocess: one request at a time, answers read
    line by line."""

    def __init__(self, socket_path, *options):
        self.process = subprocess.Popen(
            [FROGGY, "--socket", socket_path, *options, "rpc"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=DAEMON_ENV)
        self.next_id = 1
        self.lines = []

    def read(self):
        line = self.process.stdout.readline()
        assert line, f"froggy rpc ended: {self.process.stderr.read()}"
        self.lines.append(line)
        return json.loads(line)

    def call(self, method, **params):
        request_id = self.next_id
        self.next_id += 1
        self.process.stdin.write(json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": method,
             "params": params}) + "\n")
        self.process.stdin.flush()
        while True:
            message = self.read()
            if message.get("id") == request_id:
                assert "error" not in message, message
                return message["result"]

    def wait_event(self, reason):
        while True:
            message = self.read()
            if message.get("method") == "event" and \
                    message["params"]["reason"] == reason:
                return message["params"]

    def close(self):
        self.process.stdin.close()
        rest = self.process.stdout.read()
        status = self.process.wait(timeout=60)
        self.lines.extend(line + "\n" for line in rest.splitlines())
        return status


def stop_daemon(socket_path):
    """The froggyd that froggy started on @socket_path, adopted by the
    test (adopt_orphans): SIGTERM, and it must exit 0, which under
    G_DEBUG=fatal-warnings also means it logged no warning."""
    found = subprocess.run(["pgrep", "-f", f"froggyd --socket {socket_path}"],
                           capture_output=True, text=True).stdout.split()
    assert len(found) == 1, found
    pid = int(found[0])
    with open(f"/proc/{pid}/status") as status:
        assert f"PPid:\t{os.getpid()}\n" in status.read(), "froggyd was not adopted"
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: process_state(pid) == "Z", what="froggyd to exit")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, f"froggyd exited with status {status:#x}"


def test_scripted_session_starts_the_daemon(tmp_path):
    socket_path = str(tmp_path / "froggyd.sock")
    rpc = Rpc(socket_path)
    try:
        assert rpc.call("initialize", client="test")["protocol"] == 1
        started = rpc.call("launch", argv=[DEBUGGEE, "basic"])
        session, pid = started["session"], started["pid"]
        inserted = rpc.call("breakpoint.insert", session=session,
                            location="leaf")
        rpc.call("continue", session=session)
        hit = rpc.wait_event("breakpoint-hit")
        assert (hit["breakpoint"], hit["function"]) == (inserted["id"], "leaf")
        registers = rpc.call("registers.read", session=session, thread=pid)
        assert registers["rip"] == hit["pc"]
        assert int(registers["rdi"], 16) == 21
        rpc.call("continue", session=session)
        end = rpc.wait_event("exit")
        assert (end["thread"], end["code"]) == (pid, 0)
        # A request whose answer is still owed when the input ends.
        rpc.process.stdin.write(json.dumps(
            {"jsonrpc": "2.0", "id": "last", "method": "session.list",
             "params": {}}) + "\n")
        assert rpc.close() == 0
        messages = [json.loads(line) for line in rpc.lines]
        assert all(isinstance(m, dict) for m in messages)
        assert {"jsonrpc": "2.0", "id": "last", "result": []} in messages
    finally:
        if rpc.process.poll() is None:
            rpc.process.kill()
        stop_daemon(socket_path)


def test_piped_script_and_bad_lines(tmp_path):
    socket_path = str(tmp_path / "froggyd.sock")
    script = "\n".join([
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {}}),
        "",
        "this is not JSON",
        "[1, 2]",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "frobnicate",
                    "params": {}}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session.list",
                    "params": {}}),
        # Without params, as JSON-RPC allows; without a method: invalid.
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "session.list"}),
        json.dumps({"jsonrpc": "2.0", "id": 5}),
    ]) + "\n"
    try:
        done = subprocess.run([FROGGY, "--socket", socket_path, "rpc"],
                              input=script, capture_output=True, text=True,
                              timeout=120, env=DAEMON_ENV)
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert [a["id"] for a in answers] == [1, 2, 3, 4, 5]
        assert answers[1]["error"]["code"] == -32601
        assert answers[2]["result"] == []
        assert answers[3]["result"] == []
        assert answers[4]["error"]["code"] == -32600
        # The bad lines are named on stderr, and the status says so.
        assert "line 3 is not JSON" in done.stderr
        assert "line 4 is not a JSON object" in done.stderr
        assert done.returncode == 1
    finally:
        stop_daemon(socket_path)


def test_no_daemon_and_no_start(tmp_path):
    socket_path = str(tmp_path / "nobody.sock")
    done = subprocess.run([FROGGY, "--socket", socket_path, "--no-start", "rpc"],
                          input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"froggy: cannot connect to froggyd at {socket_path}")
    assert not os.path.exists(socket_path)
