"""froggyd against a JSON fuzzer: malformed, truncated, huge, deeply
nested, wrong-typed and unknown-method messages, and random params for
every method.  Each is answered with an error, or ends that one
connection; a bystander client with a stopped tracee is served all along,
and at the end the daemon holds nothing of the fuzzer's and exits cleanly.

--stress-scale multiplies the number of messages (400 in every check).
"""

import json
import os
import random
import signal
import socket
import time

import pytest

from daemon_support import DEBUGGEE, Daemon, process_state, wait_for
from froggy_rpc import Client, Disconnected, RpcError

METHODS = [
    "initialize", "shutdown", "launch", "attach", "detach", "kill",
    "session.list", "session.join", "session.release", "session.control",
    "threads", "stop", "interrupt", "continue", "step", "registers.read",
    "registers.write", "memory.read", "memory.write", "siginfo.read",
    "siginfo.write", "breakpoint.insert",
    "breakpoint.remove", "breakpoint.enable", "breakpoint.list",
    "watchpoint.insert", "watchpoint.remove", "catch", "catch.remove",
    "events.subscribe", "backtrace", "symbol.lookup", "symbol.complete",
    "source.lines",
]

PARAM_NAMES = [
    "session", "thread", "pid", "argv", "env", "cwd", "stdio", "follow_fork",
    "all_threads", "signal", "kind", "regset", "registers", "address",
    "length", "data", "location", "condition", "ignore_count", "temporary",
    "id", "enabled", "syscalls", "signals", "entry", "exit", "events",
    "max_frames", "name", "prefix", "limit", "protocol", "client", "raw",
]

# The largest request the daemon reads (protocol/README.md).
MAX_MESSAGE = 16 << 20


class Fuzzer:
    def __init__(self, daemon, seed, own_pid):
        self.daemon = daemon
        self.random = random.Random(seed)
        self.own_pid = own_pid     # a process the fuzzer may attach to
        self.sessions = []         # the fuzzer's own sessions
        self.counts = {}
        self.client = None

    # Values {{{
    def scalar(self):
        r = self.random
        return r.choice([
            0, 1, -1, 2 ** 31, 2 ** 63, -2 ** 63, 2 ** 64 + 1, 1e300, -0.5,
            float("1e-300"), "", "0x", "0x401000", "0xffffffffffffffff",
            "main", "debuggee.c:1", "*0x0", "x" * self.random.randint(1, 5000),
            "\u00e9\u4e2d\U0001f600", "\\u0000", None, True, False, [], {},
            r.randint(-2 ** 70, 2 ** 70), r.random(),
        ])

    def value(self, depth=0):
        r = self.random
        if depth < 3 and r.random() < 0.2:
            if r.random() < 0.5:
                return [self.value(depth + 1) for _ in range(r.randint(0, 4))]
            return {r.choice(PARAM_NAMES): self.value(depth + 1)
                    for _ in range(r.randint(0, 4))}
        return self.scalar()

    def session_id(self):
        """Never the bystander's: only the fuzzer's own or absurd ones."""
        choices = [0, -1, 2 ** 40, "1", None, [1], 1.5]
        if self.sessions:
            choices += self.sessions * 3
        return self.random.choice(choices)

    def params(self, method):
        r = self.random
        params = {}
        for _ in range(r.randint(0, 6)):
            params[r.choice(PARAM_NAMES)] = self.value()
        if r.random() < 0.7:
            params["session"] = self.session_id()
        # Attach and launch only what is the fuzzer's to trace or start.
        if "pid" in params or method == "attach":
            params["pid"] = r.choice([self.own_pid, 0, -1, 2 ** 31, "1", None])
        if "argv" in params or method == "launch":
            params["argv"] = r.choice([[DEBUGGEE, "spin"], ["/nonexistent"], [],
                                       [1, 2], "ls", [""], [DEBUGGEE] * 3000])
        for key in ("cwd", "stdio"):
            if key in params:
                params[key] = r.choice(["/", "/nonexistent", "/dev/null", 7, None])
        return params
    # }}}

    # Messages {{{
    def well_framed(self):
        """A JSON-RPC request the daemon must answer: (body, id)."""
        r = self.random
        request_id = r.randint(1, 2 ** 31)
        kind = r.choice(["method", "method", "method", "unknown", "nested",
                         "params-type"])
        if kind == "unknown":
            method = r.choice(["frobnicate", "", "initialize ", "session.",
                               "\u00e9", "x" * 1000, "rpc.discover"])
            params = {}
        else:
            method = r.choice(METHODS)
            params = self.params(method)
        if kind == "nested":
            depth = r.choice([32, 64, 200, 1000, 10000, 100000])
            nested = "[" * depth + "]" * depth
            body = ('{"jsonrpc":"2.0","id":%d,"method":%s,"params":{"session":%s}}'
                    % (request_id, json.dumps(method), nested))
            return body.encode(), request_id, kind
        if kind == "params-type":
            params = r.choice([[], [1, 2], "params", 7, None, True])
            if params is None:
                message = {"jsonrpc": "2.0", "id": request_id, "method": method}
                if r.random() < 0.5:
                    message["params"] = None
                return json.dumps(message).encode(), request_id, "no-params"
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                           "params": params})
        return body.encode(), request_id, kind

    def breaking(self):
        """A message that ends the connection, or is no request at all:
        (raw bytes, kind)."""
        r = self.random
        good = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session.list",
                           "params": {}}).encode()

        def framed(body):
            return b"Content-Length: %d\r\n\r\n" % len(body) + body

        kind = r.choice(["garbage", "truncated-json", "truncated-frame",
                         "bad-header", "huge", "batch", "not-2.0", "bad-utf8",
                         "no-id"])
        if kind == "garbage":
            return framed(bytes(r.randrange(256) for _ in range(r.randint(1, 200)))), kind
        if kind == "truncated-json":
            return framed(good[:r.randint(1, len(good) - 1)]), kind
        if kind == "truncated-frame":
            return b"Content-Length: %d\r\n\r\n" % (len(good) + 100) + good, kind
        if kind == "bad-header":
            return r.choice([b"Content-Length: -5\r\n\r\n", b"Content-Length: x\r\n\r\n",
                             b"Content-Length: 99999999999999999999\r\n\r\n",
                             b"\r\n\r\n" + good, b"Content-Type: text\r\n\r\n" + good,
                             b"Content-Length:\r\n\r\n", b"\x00" * 64 + b"\r\n\r\n",
                             b"Content-Length: 5" + b" " * 70000]), kind
        if kind == "huge":
            return b"Content-Length: %d\r\n\r\n{" % (MAX_MESSAGE + r.randint(1, 1 << 30)), kind
        if kind == "batch":
            return framed(b"[" + good + b"]"), kind
        if kind == "not-2.0":
            return framed(json.dumps({"jsonrpc": r.choice(["1.0", 2, None]), "id": 1,
                                      "method": "session.list", "params": {}}).encode()), kind
        if kind == "bad-utf8":
            return framed(b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe","params":{}}'), kind
        # A notification or a response: nothing to answer.
        return framed(r.choice([
            b'{"jsonrpc":"2.0","method":"session.list","params":{}}',
            b'{"jsonrpc":"2.0","id":7,"result":null}',
            b'{"jsonrpc":"2.0","id":8,"error":{"code":1,"message":"x"}}',
        ])), kind
    # }}}

    def connect(self):
        if self.client is None:
            self.client = self.daemon.connect(initialize=self.random.random() < 0.9)
        return self.client

    def drop(self):
        if self.client is not None:
            self.client.close()
            self.client = None
            self.sessions = []

    def count(self, kind, outcome):
        key = f"{kind}: {outcome}"
        self.counts[key] = self.counts.get(key, 0) + 1

    def one(self):
        r = self.random
        client = self.connect()
        if r.random() < 0.25:
            raw, kind = self.breaking()
            if kind == "truncated-frame":
                # The client goes away in the middle of its message.
                client.sock.sendall(raw)
                self.count(kind, "client gone")
                self.drop()
                return
            try:
                client.sock.sendall(raw)
                # Answered, or the connection ends: no hang either way.
                client.call("session.list", timeout=60)
                self.count(kind, "answered, connection kept")
            except (Disconnected, BrokenPipeError, ConnectionResetError):
                self.count(kind, "connection ended")
                self.drop()
            except RpcError:
                self.count(kind, "answered with an error")
            return

        body, request_id, kind = self.well_framed()
        if kind == "no-params":
            # Not a request as the protocol defines one: no answer, and
            # the connection goes on.
            client.send_raw(body)
            try:
                client.call("session.list", timeout=60)
                self.count(kind, "ignored")
            except RpcError:
                self.count(kind, "ignored")
            return
        try:
            client.send_raw(body)
            result = client.finish(request_id, timeout=120)
            self.count(kind, "result")
            if isinstance(result, dict) and isinstance(result.get("session"), int):
                self.sessions.append(result["session"])
        except RpcError as error:
            assert isinstance(error.code, int), error
            assert isinstance(error.message, str) and error.message, error
            self.count(kind, f"error {error.code}")
        except Disconnected:
            # Only a message the daemon cannot parse may end a connection.
            assert kind == "nested", body[:200]
            self.count(kind, "connection ended")
            self.drop()


def daemon_children(daemon):
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[2]) == daemon.process.pid:
                        children.append(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                pass
    return children


def daemon_sockets(daemon):
    fds = f"/proc/{daemon.process.pid}/fd"
    count = 0
    for fd in os.listdir(fds):
        try:
            count += os.readlink(f"{fds}/{fd}").startswith("socket:")
        except FileNotFoundError:
            pass
    return count


def test_json_fuzzer_leaves_the_daemon_serving(stress_scale):
    messages = 400 * stress_scale
    seed = int(os.environ.get("FROGGY_FUZZ_SEED", time.time()))
    print(f"seed {seed} (FROGGY_FUZZ_SEED replays it)")
    daemon = Daemon()
    own = None
    try:
        bystander = daemon.connect()
        watched = bystander.call("launch", argv=[DEBUGGEE, "spin"])
        own_process = bystander.call("launch", argv=[DEBUGGEE, "spin"])
        # Given up, so that the fuzzer may attach to it (it is the
        # fuzzer's to trace, not the bystander's).
        bystander.call("detach", session=own_process["session"])
        own = own_process["pid"]

        fuzzer = Fuzzer(daemon, seed, own)
        for number in range(messages):
            fuzzer.one()
            if number % 20 == 0:
                threads = bystander.call("threads", session=watched["session"])
                assert [t["state"] for t in threads] == ["stopped"], threads
        fuzzer.drop()

        # The bystander was served throughout and still is.
        threads = bystander.call("threads", session=watched["session"])
        assert threads[0]["thread"] == watched["pid"]
        assert threads[0]["state"] == "stopped"
        print(f"{messages} messages:")
        for key in sorted(fuzzer.counts):
            print(f"  {key}: {fuzzer.counts[key]}")
        # Nothing of the fuzzer's connections is left: the listener and
        # the bystander's socket.
        wait_for(lambda: daemon_sockets(daemon) == 2, what="the fuzzer's sockets to close")
        # No process the fuzzer launched is held stopped.
        for pid in daemon_children(daemon):
            if pid != watched["pid"]:
                wait_for(lambda: process_state(pid) != "t",
                         what=f"launched process {pid} to be let go")
        bystander.call("kill", session=watched["session"])
    finally:
        for pid in daemon_children(daemon) + ([own] if own else []):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        alive = daemon.process.poll() is None
        status = daemon.terminate()
        log = daemon.log()
        print(f"froggyd {'ran' if alive else 'died'}; the end of its log:\n{log[-4000:]}")
    assert status == 0, log[-5000:]
    assert "-WARNING" not in log and "-CRITICAL" not in log, log[-5000:]
    assert "segfault" not in log, log[-5000:]
