"""froggyd's protocol layer: versioning, and bad input answered without
the daemon losing its footing (protocol/README.md, "Errors")."""

import json
import os
import re
import signal
import socket

import pytest

from daemon_support import (DEBUGGEE, launch, process_state, run_to, small_buffer_client,
                            wait_for)
from froggy_rpc import Client, Disconnected, RpcError


def still_serves(daemon):
    """A new client is served: the daemon survived what came before."""
    fresh = daemon.connect(initialize=False)
    assert fresh.initialize()["protocol"] == 1
    fresh.close()


def test_initialize_reports_version_and_capabilities(daemon):
    client = daemon.connect(initialize=False)
    result = client.call("initialize", client="pytest", protocol=1)
    assert result["protocol"] == 1
    assert result["server"].startswith("froggyd ")
    for capability in ("launch", "attach", "breakpoints", "watchpoints",
                       "catch", "step", "backtrace", "auto-continue"):
        assert capability in result["capabilities"], result


def test_a_newer_protocol_is_refused(daemon):
    client = daemon.connect(initialize=False)
    with pytest.raises(RpcError) as refused:
        client.call("initialize", protocol=99)
    assert refused.value.code == -32010
    assert client.initialize()["protocol"] == 1


def test_requests_before_initialize_are_refused(daemon):
    client = daemon.connect(initialize=False)
    with pytest.raises(RpcError) as refused:
        client.call("threads", session=1)
    assert refused.value.code == -32002


def test_unknown_method(client):
    with pytest.raises(RpcError) as refused:
        client.call("frobnicate")
    assert refused.value.code == -32601
    assert "frobnicate" in refused.value.message


@pytest.mark.parametrize("params", [
    {"argv": "not-a-list"},
    {"argv": [1, 2]},
    {"argv": [DEBUGGEE], "cwd": 7},
    {"argv": [DEBUGGEE], "follow_fork": "yes"},
    {"argv": [DEBUGGEE], "unknown_option": 1},
    {},
])
def test_wrong_params_are_named(client, params):
    with pytest.raises(RpcError) as refused:
        client.call("launch", **params)
    assert refused.value.code == -32602, refused.value


def test_addresses_must_be_hex_strings(client):
    session = launch(client, "basic")["session"]
    for bad in (4198400, "4198400", "0xZZ", "0x1" + "0" * 17):
        with pytest.raises(RpcError) as refused:
            client.call("memory.read", session=session, address=bad, length=4)
        assert refused.value.code == -32602, bad
    with pytest.raises(RpcError) as refused:
        client.call("memory.read", session=session, address="0x1000",
                    length=2 << 20)
    assert refused.value.code == -32602


def test_unknown_session_and_thread(client):
    session = launch(client, "basic")["session"]
    with pytest.raises(RpcError) as refused:
        client.call("threads", session=session + 100)
    assert refused.value.code == -32000
    with pytest.raises(RpcError) as refused:
        client.call("registers.read", session=session, thread=1)
    assert refused.value.code == -32001


def test_a_running_thread_must_be_stopped_first(client):
    started = launch(client, "spin")
    session, thread = started["session"], started["thread"]
    client.call("continue", session=session)
    with pytest.raises(RpcError) as refused:
        client.call("registers.read", session=session, thread=thread)
    assert refused.value.code == -32004
    with pytest.raises(RpcError) as refused:
        client.call("step", session=session, thread=thread)
    assert refused.value.code == -32004
    assert client.call("stop", session=session)["threads"] == [thread]
    assert client.call("registers.read", session=session, thread=thread)["rip"]


def test_invalid_requests(daemon):
    client = daemon.connect()
    # JSON-RPC 2.0: a request without a method, or whose method is not a
    # string, gets -32600; one without params is served as with none.
    client.send({"jsonrpc": "2.0", "id": 50, "params": {}})
    client.send({"jsonrpc": "2.0", "id": 51, "method": 12, "params": {}})
    client.send({"jsonrpc": "2.0", "id": "52", "method": "session.list"})
    for request_id, reason in ((50, "a request without a method"),
                               (51, "a method that is not a string")):
        with pytest.raises(RpcError) as refused:
            client.finish(request_id)
        assert refused.value.code == -32600
        assert refused.value.message == f"invalid request: {reason}"
    assert client.finish("52") == []
    # A notification from the client gets no answer, and the connection
    # goes on.
    client.send({"jsonrpc": "2.0", "method": "session.list", "params": {}})
    assert client.call("session.list") == []
    # params that are not an object are answered.
    client.send({"jsonrpc": "2.0", "id": 1000, "method": "session.list",
                 "params": [1]})
    with pytest.raises(RpcError) as refused:
        client.finish(1000)
    assert refused.value.code == -32602
    # A batch, or a message that is not JSON-RPC 2.0, ends the connection
    # as a framing error does.
    for bad in ([{"jsonrpc": "2.0", "id": 53, "method": "session.list",
                  "params": {}}],
                {"id": 54, "method": "session.list", "params": {}}):
        victim = daemon.connect()
        victim.send(bad)
        with pytest.raises(Disconnected):
            victim.call("session.list", timeout=30)
    still_serves(daemon)


def test_malformed_json_ends_only_that_connection(daemon):
    bad = daemon.connect()
    bystander = daemon.connect()
    bad.send_raw(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    with pytest.raises(Disconnected):
        bad.call("session.list", timeout=30)
    assert bystander.call("session.list") == []
    still_serves(daemon)


def test_huge_messages(daemon):
    client = daemon.connect()
    # Big but under the 16 MiB limit: answered (the param is refused).
    with pytest.raises(RpcError) as refused:
        client.call("symbol.lookup", session=1, name="x" * (4 << 20))
    assert refused.value.code == -32000
    # Over the limit: the connection ends before the body is read.
    oversized = daemon.connect()
    oversized.sock.sendall(b"Content-Length: %d\r\n\r\n{" % (64 << 20))
    with pytest.raises(Disconnected):
        oversized.call("session.list", timeout=30)
    still_serves(daemon)


def test_deep_nesting_and_endless_headers_end_only_that_connection(daemon):
    client = daemon.connect()
    # 64 levels in all are allowed (and the param refused)...
    nested = "[" * 62 + "]" * 62
    client.send_raw('{"jsonrpc":"2.0","id":9,"method":"threads","params":{"session":%s}}' % nested)
    with pytest.raises(RpcError) as refused:
        client.finish(9)
    assert refused.value.code == -32602
    # ...one more is not.  json-glib parses by recursion: 16 MiB of "["
    # would overflow the daemon's stack.
    for depth in (63, 4 << 20):
        deep = daemon.connect()
        nested = "[" * depth + "]" * depth
        with pytest.raises(Disconnected):
            deep.send_raw('{"jsonrpc":"2.0","id":9,"method":"threads","params":{"session":%s}}'
                          % nested)
            deep.finish(9, timeout=60)
    # A header line that never ends, a GVariant body.
    for raw in (b"Content-Length: 5" + b" " * 20000,
                b"Content-Type: application/gvariant\r\nContent-Length: 4\r\n\r\nabcd"):
        bad = daemon.connect()
        bad.sock.sendall(raw)
        with pytest.raises(Disconnected):
            bad.call("session.list", timeout=60)
    assert "nested deeper than 64 levels" in daemon.log()
    assert "headers longer than 8192 bytes" in daemon.log()
    still_serves(daemon)


def test_a_client_that_lags_loses_thread_exits_not_its_connection(daemon):
    """debuggee churn ends threads by the thousand, each an exit
    notification.  A client that reads none for a while is not cut off:
    past 1024 unread messages the exits of threads are dropped, a lost
    notification counts them, and the session goes on as before."""
    client = small_buffer_client(daemon)
    started = launch(client, "churn")
    session, pid = started["session"], started["pid"]
    client.start("continue", session=session)
    wait_for(lambda: "dropping notifications of running threads" in daemon.log(),
             timeout=600, what="the daemon to drop notifications for the lagging client")
    # Reading now: the exits it was sent, then the count of those it was not.
    exits, lost = 0, None
    while lost is None:
        for event in client.take_events(timeout=300):
            if event["reason"] == "lost":
                lost = event
            elif event["reason"] == "exit":
                assert event["thread"] != pid, event
                exits += 1
    assert lost["session"] == session and lost["count"] > 0, lost
    assert exits > 0
    # It still controls the session: a stop of every thread is answered,
    # whatever the kernel dropped while the daemon was busy with the flood.
    client.call("stop", session=session, timeout=300)
    assert all(process_state(int(tid)) in ("t", None) for tid in os.listdir(f"/proc/{pid}/task"))
    # Still connected, and the end of the process is never dropped.
    os.kill(pid, signal.SIGKILL)
    ended, leader_exits = False, []
    while not ended:
        for event in client.take_events(timeout=300):
            ended |= event["reason"] == "session-ended"
            if event["reason"] == "exit" and event["thread"] == pid:
                leader_exits.append(event)
    assert [event.get("termsig") for event in leader_exits] == [signal.SIGKILL]
    assert "reads no replies" not in daemon.log()


def test_a_flooding_client_that_never_reads_is_cut_off(daemon):
    flooder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    flooder.connect(daemon.socket)
    flooder.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    flooder.settimeout(10)
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "frobnicate",
                          "params": {}})
    frame = b"Content-Length: %d\r\n\r\n%s" % (len(request), request.encode())
    # 40,000 requests, far more replies than the 4096 the daemon queues.
    # The send ends in an error, or blocks: the daemon stopped reading.
    try:
        for _ in range(4000):
            flooder.sendall(frame * 10)
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    wait_for(lambda: "reads no replies" in daemon.log(),
             what="the daemon to cut the flooder off")
    # Its side of the connection is closed: once the newcomer has gone
    # too, only the listening socket is left.
    still_serves(daemon)

    def sockets():
        fds = f"/proc/{daemon.process.pid}/fd"
        return [fd for fd in os.listdir(fds)
                if os.readlink(f"{fds}/{fd}").startswith("socket:")]

    wait_for(lambda: len(sockets()) == 1, what="only the listening socket")
    flooder.close()
    # The thousands of replies queued for it were dropped at once, not
    # failed (and logged) one by one.
    assert daemon.log().count("stream failure") == 0, daemon.log()[-2000:]


def test_a_flooders_backlog_does_not_hold_up_another_client(daemon):
    """A client's requests already waiting are served in turn with
    another's, not all before it: with the daemon stopped, a flooder
    queues 1000 breakpoint.insert requests, then an observer of the
    same session asks breakpoint.list.  The list it gets counts the
    inserts served before its own request."""
    flooder, observer = daemon.connect(), daemon.connect()
    flooder.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    started = launch(flooder, "basic")
    session = started["session"]
    observer.call("session.join", session=session)
    pc = flooder.call("registers.read", session=session, thread=started["thread"])["rip"]
    inserts = b"".join(
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        for body in (json.dumps({"jsonrpc": "2.0", "id": 10000 + n,
                                 "method": "breakpoint.insert",
                                 "params": {"session": session, "location": f"*{pc}"}}).encode()
                     for n in range(1000)))
    os.kill(daemon.process.pid, signal.SIGSTOP)
    try:
        flooder.sock.settimeout(30)
        flooder.sock.sendall(inserts)
        listed = observer.start("breakpoint.list", session=session)
    finally:
        os.kill(daemon.process.pid, signal.SIGCONT)
    served_before = len(observer.finish(listed, timeout=300))
    print(f"{served_before} of the 1000 inserts were served before the list")
    assert served_before < 16, f"{served_before} of the 1000 inserts were served first"
    ids = {flooder.finish(10000 + n, timeout=300)["id"] for n in range(1000)}
    assert len(ids) == 1000
    assert len(observer.call("breakpoint.list", session=session)) == 1000


def test_a_client_that_never_reads_big_replies_is_cut_off_at_64_mib(daemon):
    """Replies of 2 MiB (a 1 MiB memory.read, in hex) fill the 64 MiB a
    client may have waiting long before the 4096 messages do."""
    client = daemon.connect()
    started = launch(client, "basic")
    session, pid = started["session"], started["pid"]
    run_to(client, session, "main")
    with open(f"/proc/{pid}/maps") as maps:
        libc = next(line.split("-")[0] for line in maps if "libc.so" in line)
    mib = client.call("memory.read", session=session, address=f"0x{libc}", length=1 << 20)
    assert mib["length"] == 1 << 20
    reader = small_buffer_client(daemon)
    reader.call("session.join", session=session)
    for _ in range(100):
        reader.start("memory.read", session=session, address=f"0x{libc}", length=1 << 20)
    wait_for(lambda: "reads no replies" in daemon.log(), timeout=300,
             what="the daemon to cut the reader off")
    cut_off = re.search(r"reads no replies \((\d+) queued, (\d+) bytes\)", daemon.log())
    queued, queued_bytes = int(cut_off.group(1)), int(cut_off.group(2))
    assert queued_bytes >= 64 << 20 and queued_bytes < (64 << 20) + (3 << 20), cut_off.group(0)
    assert queued <= 33, cut_off.group(0)
    # The session is the controller's still.
    assert client.call("memory.read", session=session, address=f"0x{libc}", length=16)["length"] == 16


def test_a_request_with_over_1024_items_is_invalid_unparsed(daemon):
    """Past 1024 array elements and object members in all, a request is
    answered -32600 without being parsed whole: jsonrpc-glib turns a
    JSON array into a GVariant in time quadratic in its length: one
    request of 100,000 numbers held every client up for most of a minute
    on a fast machine, and far longer under TCG."""
    client, bystander = daemon.connect(), daemon.connect()
    # The message's own four members, "padding", and the elements.
    with pytest.raises(RpcError) as refused:
        client.call("session.list", padding=[0] * 1019)
    assert refused.value.code == -32602
    for elements in (1020, 100000):
        with pytest.raises(RpcError) as refused:
            client.call("session.list", padding=[0] * elements, timeout=120)
        assert refused.value.code == -32600
        assert refused.value.message == \
            "invalid request: more than 1024 array elements and object members"
    # Its id is found however it is spelled, and nested empties count nothing.
    client.send_raw('{ "params": {"a": [[], {}, "]}", %s] }, "id" : "x", "jsonrpc": "2.0", '
                    '"method": "session.list"}' % json.dumps([[0]] * 600))
    with pytest.raises(RpcError) as refused:
        client.finish("x")
    assert refused.value.code == -32600
    client.send({"jsonrpc": "2.0", "id": 7, "method": "session.list",
                 "params": {"a": [[]] * 1000}})
    with pytest.raises(RpcError) as refused:
        client.finish(7)
    assert refused.value.code == -32602
    # A notification past the mark is dropped, and the connection goes on.
    client.send({"jsonrpc": "2.0", "method": "session.list", "params": {"a": [0] * 5000}})
    assert client.call("session.list") == []
    assert bystander.call("session.list") == []
    # A batch past it ends the connection, as any batch does.
    batch = daemon.connect()
    batch.send([{"jsonrpc": "2.0", "id": n, "method": "session.list", "params": {}}
                for n in range(2000)])
    with pytest.raises(Disconnected):
        batch.call("session.list", timeout=60)
    still_serves(daemon)


@pytest.mark.parametrize("pid", [1e300, -1e300, 9.3e18, -9.3e18, 2.5, 1e-300])
def test_numbers_no_integer_can_hold_are_refused(client, pid):
    """A JSON number that is a double out of int64's range is refused,
    never converted (undefined behaviour, which the sanitizer run
    catches)."""
    with pytest.raises(RpcError) as refused:
        client.call("attach", pid=pid)
    assert refused.value.code == -32602, refused.value


def test_the_socket_is_for_its_owner_only(daemon):
    # Served first: the daemon is up, past its start-up.
    still_serves(daemon)
    mode = os.stat(daemon.socket).st_mode
    assert (mode & 0o7777, os.stat(daemon.socket).st_uid) == (0o600, os.getuid())


def test_a_shared_socket_is_for_every_user(froggyd):
    shared = froggyd("--shared")
    still_serves(shared)
    assert os.stat(shared.socket).st_mode & 0o7777 == 0o666
