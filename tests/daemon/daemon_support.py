"""What the froggyd tests share: the paths, a daemon on its own socket,
the debuggee's marked lines, and the steps every test takes."""

import ctypes
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

from froggy_rpc import Client
from guest import BUILD, FROGGYD, TOP, reachable_copy  # noqa: F401 (the tests import them from here)

DEBUGGEE = os.path.join(BUILD, "tests", "programs", "debuggee")
DEBUGGEE_SOURCE = os.path.join(TOP, "tests", "programs", "debuggee.c")
NOBODY = 65534


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

    def check_clean_exit(self):
        """SIGTERM, then what every test that starts a daemon asserts at
        its end: the daemon exited 0, having logged no warning and no
        critical.  The log is printed, for pytest to show on a failure."""
        status = self.terminate()
        log = self.log()
        print(f"froggyd log ({self.log_path}):\n{log}")
        assert status == 0, f"froggyd exited with {status}:\n{log[-5000:]}"
        assert "-WARNING" not in log and "-CRITICAL" not in log, log[-5000:]


def utrace_fdinfo(pid):
    """The counters of pid's open /dev/utrace files, a dict per file."""
    infos = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "/dev/utrace":
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as fdinfo:
                lines = fdinfo.read().splitlines()
        except FileNotFoundError:
            continue
        fields = {}
        for line in lines:
            key, _, value = line.partition(":")
            if key.startswith("utrace-") and key != "utrace-thread":
                fields[key] = int(value)
        infos.append(fields)
    return infos


def small_buffer_client(daemon):
    """A connected client whose socket takes little in: while the test
    reads nothing, the daemon soon has messages queued for it."""
    client = daemon.connect()
    client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return client


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


# Run by calls_as_user() as another user: connect, make the calls in turn,
# print the results as JSON.
_CALLS_AS_USER = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
from froggy_rpc import Client, RpcError
client = Client(sys.argv[2])
client.initialize()
results = {"uid": os.getuid()}
for name, method, params in json.loads(sys.argv[3]):
    try:
        results[name] = client.call(method, **params)
    except RpcError as error:
        results[name] = [error.code, error.message]
print(json.dumps(results))
"""


CAP_SYS_PTRACE = 19


def _become(uid, groups, capabilities):
    """What a child does before its exec to be uid, in groups (and its own
    group uid), with the capabilities listed in effect across the exec
    (ambient), and none else."""
    def become():
        libc = ctypes.CDLL(None, use_errno=True)
        os.setgroups(list(groups))
        os.setresgid(uid, uid, uid)
        if capabilities:
            assert libc.prctl(8, 1, 0, 0, 0) == 0            # PR_SET_KEEPCAPS
        os.setresuid(uid, uid, uid)
        if capabilities:
            mask = sum(1 << capability for capability in capabilities)
            header = (ctypes.c_uint32 * 2)(0x20080522, 0)      # _LINUX_CAPABILITY_VERSION_3
            data = (ctypes.c_uint32 * 6)(mask, mask, mask, 0, 0, 0)
            assert libc.capset(header, data) == 0, ctypes.get_errno()
            for capability in capabilities:                     # PR_CAP_AMBIENT, RAISE
                assert libc.prctl(47, 2, capability, 0, 0) == 0, ctypes.get_errno()
    return become


def calls_as_user(uid, socket, calls, timeout=900, groups=(), capabilities=()):
    """Connect to the daemon at socket as user uid (with supplementary
    groups and capabilities, if given) and make calls, a list of (name,
    method, params), in turn; then disconnect.  Returns {name: the
    result, or [code, message] for an error}."""
    client_module = reachable_copy(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                "froggy_rpc.py"))
    helper = subprocess.run(
        [sys.executable, "-c", _CALLS_AS_USER, os.path.dirname(client_module),
         socket, json.dumps(calls)],
        preexec_fn=_become(uid, groups, capabilities),
        capture_output=True, text=True, timeout=timeout)
    assert helper.returncode == 0, helper.stderr
    results = json.loads(helper.stdout)
    assert results.pop("uid") == uid
    return results


def call_as_user(uid, function, *args):
    """function(*args), a small int, in a child that has become uid."""
    pid = os.fork()
    if pid == 0:
        code = 255
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            code = function(*args)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
