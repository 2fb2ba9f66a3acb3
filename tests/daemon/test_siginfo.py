"""siginfo.read and siginfo.write: the siginfo of the signal a thread
stopped for, as the kernel keeps it (gdb's $_siginfo), and what the
thread gets with that signal when it continues."""

import os
import signal
import struct

import pytest

from daemon_support import process_state, wait_for
from froggy_rpc import RpcError, word

SI_USER = 0
SI_QUEUE = -1
SIGINFO_SIZE = 128


def attach_and_kill(client, spawn):
    """A spinner attached and running, then stopped at a SIGUSR1 this
    test sends it with kill(): (session, pid)."""
    process = spawn("spin")
    wait_for(lambda: process_state(process.pid) in ("R", "S"),
             what="the spinner")
    session = client.call("attach", pid=process.pid)["session"]
    client.call("continue", session=session)
    os.kill(process.pid, signal.SIGUSR1)
    stop = client.wait_event("signal", thread=process.pid)
    assert (stop["signal"], stop["stopped"]) == (signal.SIGUSR1, True), stop
    return session, process.pid


def test_siginfo_of_a_kill_names_the_sender(client, spawn):
    session, pid = attach_and_kill(client, spawn)
    info = client.call("siginfo.read", session=session, thread=pid)
    assert (info["signo"], info["errno"], info["code"]) == \
        (signal.SIGUSR1, 0, SI_USER)
    assert (info["pid"], info["uid"]) == (os.getpid(), os.getuid())
    # kill()'s siginfo has no value and no address.
    assert "value" not in info and "addr" not in info
    raw = bytes.fromhex(info["raw"])
    assert len(raw) == SIGINFO_SIZE
    assert struct.unpack_from("<iiixxxxiI", raw) == \
        (signal.SIGUSR1, 0, SI_USER, os.getpid(), os.getuid())
    assert raw[24:] == bytes(SIGINFO_SIZE - 24)


def test_siginfo_written_is_read_back_and_the_signal_delivered(client, spawn):
    session, pid = attach_and_kill(client, spawn)
    raw = bytearray.fromhex(client.call("siginfo.read", session=session,
                                        thread=pid)["raw"])
    # As from sigqueue(), with a value.
    struct.pack_into("<i", raw, 8, SI_QUEUE)
    struct.pack_into("<Q", raw, 24, 0x5eed)
    assert client.call("siginfo.write", session=session, thread=pid,
                       raw=raw.hex()) is None
    info = client.call("siginfo.read", session=session, thread=pid)
    assert info["raw"] == raw.hex()
    assert (info["signo"], info["code"], word(info["value"])) == \
        (signal.SIGUSR1, SI_QUEUE, 0x5eed)
    assert info["pid"] == os.getpid()
    # The spinner has no handler: the signal, still SIGUSR1, kills it.
    client.call("continue", session=session)
    assert client.wait_event("exit", thread=pid)["termsig"] == signal.SIGUSR1


def test_siginfo_errors(client, spawn):
    process = spawn("spin")
    wait_for(lambda: process_state(process.pid) in ("R", "S"),
             what="the spinner")
    session = client.call("attach", pid=process.pid)["session"]
    # Stopped by the attach, not at a signal: the kernel has no siginfo.
    with pytest.raises(RpcError) as no_signal:
        client.call("siginfo.read", session=session, thread=process.pid)
    assert no_signal.value.code == -32008
    assert "errno 22" in no_signal.value.message
    client.call("continue", session=session)
    with pytest.raises(RpcError) as running:
        client.call("siginfo.read", session=session, thread=process.pid)
    assert running.value.code == -32004

    os.kill(process.pid, signal.SIGUSR1)
    client.wait_event("signal", thread=process.pid)
    for raw in ("00" * (SIGINFO_SIZE - 1), "00" * (SIGINFO_SIZE + 1), "zz" * SIGINFO_SIZE):
        with pytest.raises(RpcError) as bad:
            client.call("siginfo.write", session=session, thread=process.pid, raw=raw)
        assert bad.value.code == -32602, raw
    with pytest.raises(RpcError) as no_thread:
        client.call("siginfo.read", session=session, thread=1)
    assert no_thread.value.code == -32001
    # A siginfo of no signal is refused by the kernel, and changes nothing.
    with pytest.raises(RpcError) as signo_zero:
        client.call("siginfo.write", session=session, thread=process.pid,
                    raw="00" * SIGINFO_SIZE)
    assert signo_zero.value.code == -32008
    info = client.call("siginfo.read", session=session, thread=process.pid)
    assert (info["signo"], info["pid"]) == (signal.SIGUSR1, os.getpid())
