"""A small froggyd client for the tests: JSON-RPC 2.0 with Content-Length
framing over the daemon's UNIX socket (protocol/README.md).

Responses and notifications arrive interleaved; the client keeps the
notifications in order so a test can wait for the one it expects.
"""

import json
import select
import socket
import time


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Disconnected(Exception):
    pass


class Client:
    def __init__(self, path, timeout=60):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.timeout = timeout
        self.buffer = b""
        self.next_id = 1
        self.responses = {}
        self.events = []

    def close(self):
        self.sock.close()

    # Framing {{{
    def send_raw(self, body):
        if isinstance(body, str):
            body = body.encode()
        try:
            self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        except (BrokenPipeError, ConnectionResetError) as error:
            raise Disconnected(f"froggyd closed the connection: {error}")

    def send(self, message):
        self.send_raw(json.dumps(message))

    def _read_message(self, deadline):
        while True:
            header_end = self.buffer.find(b"\r\n\r\n")
            if header_end >= 0:
                headers = self.buffer[:header_end].decode().split("\r\n")
                length = None
                for header in headers:
                    name, _, value = header.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                assert length is not None, f"no Content-Length in {headers}"
                start = header_end + 4
                if len(self.buffer) >= start + length:
                    body = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return json.loads(body)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no message from froggyd")
            ready, _, _ = select.select([self.sock], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = self.sock.recv(1 << 16)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise Disconnected("froggyd closed the connection")
            self.buffer += chunk

    def _pump(self, deadline):
        message = self._read_message(deadline)
        assert message.get("jsonrpc") == "2.0", message
        if "id" in message and "method" not in message:
            self.responses[message["id"]] = message
        else:
            assert message["method"] == "event", message
            self.events.append(message["params"])
    # }}}

    def start(self, method, **params):
        """Send a request; return its id for finish()."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method,
                   "params": params})
        return request_id

    def finish(self, request_id, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while request_id not in self.responses:
            self._pump(deadline)
        response = self.responses.pop(request_id)
        if "error" in response:
            error = response["error"]
            assert set(error) <= {"code", "message", "data"}, error
            raise RpcError(error["code"], error["message"])
        return response["result"]

    def call(self, method, timeout=None, **params):
        return self.finish(self.start(method, **params), timeout)

    def wait_event(self, reason=None, timeout=None, **match):
        """The first queued or coming notification with this reason and
        these fields; the ones before it stay queued."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for index, event in enumerate(self.events):
                if reason is not None and event.get("reason") != reason:
                    continue
                if all(event.get(k) == v for k, v in match.items()):
                    return self.events.pop(index)
            try:
                self._pump(deadline)
            except TimeoutError:
                raise TimeoutError(
                    f"no {reason} {match} event; queued: {self.events}")

    def take_events(self, timeout=None):
        """Every notification queued, at least one, in order; the queue is
        left empty.  For the floods of events wait_event() would rescan."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while not self.events:
            self._pump(deadline)
        taken, self.events = self.events, []
        return taken

    def drain(self, seconds=0.2):
        """Read what arrives within @seconds; return the queued events."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self._pump(deadline)
        except TimeoutError:
            pass
        return list(self.events)

    def initialize(self):
        return self.call("initialize", client="pytest")


def word(text):
    """A protocol hex string as an int."""
    assert isinstance(text, str) and text.startswith("0x"), text
    return int(text, 16)
