"""launch's parameters as protocol/README.md gives them: argv[0] looked
up in PATH, env, cwd and stdio with their defaults and errors, and the
launched notification that comes before the answer."""

import os
import shutil

import pytest

from daemon_support import DEBUGGEE
from froggy_rpc import RpcError


def run_to_exit(client, started):
    client.call("continue", session=started["session"])
    return client.wait_event("exit", thread=started["pid"])


def test_launch_looks_a_bare_program_name_up_in_path(client, tmp_path):
    started = client.call("launch", argv=["env"], stdio=str(tmp_path / "out"))
    assert os.readlink(f"/proc/{started['pid']}/exe") == \
        os.path.realpath(shutil.which("env"))


def test_launch_env_is_the_programs_whole_environment(client, tmp_path):
    out = tmp_path / "out"
    started = client.call("launch", argv=["/usr/bin/env"], stdio=str(out),
                          env=["FROGGY_A=1", "FROGGY_B=two words"])
    assert run_to_exit(client, started)["code"] == 0
    assert out.read_text() == "FROGGY_A=1\nFROGGY_B=two words\n"


def test_launch_without_env_passes_the_daemons(client, tmp_path):
    out = tmp_path / "out"
    started = client.call("launch", argv=["/usr/bin/env"], stdio=str(out))
    assert run_to_exit(client, started)["code"] == 0
    # The daemon has the test's environment.
    assert f"PATH={os.environ['PATH']}" in out.read_text().splitlines()


def test_launch_cwd_is_the_programs_directory(client, tmp_path):
    started = client.call("launch", argv=[DEBUGGEE, "basic"], cwd=str(tmp_path))
    assert os.readlink(f"/proc/{started['pid']}/cwd") == os.path.realpath(tmp_path)


def test_launch_without_cwd_runs_in_the_daemons_directory(client):
    started = client.call("launch", argv=[DEBUGGEE, "basic"])
    assert os.readlink(f"/proc/{started['pid']}/cwd") == os.getcwd()


def test_launch_cwd_that_is_a_file_is_invalid(client, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(RpcError) as refused:
        client.call("launch", argv=[DEBUGGEE, "basic"], cwd=str(a_file))
    assert refused.value.code == -32602
    assert client.call("session.list") == []


def test_launch_stdio_is_stdin_stdout_and_stderr(client, tmp_path):
    """One file, one offset: the line read from it, then what is written
    to stdout and stderr after it."""
    io = tmp_path / "io"
    io.write_text("hello\n")
    started = client.call("launch", argv=["/bin/sh", "-c",
                                          'read line; echo "out:$line"; echo "err:$line" >&2'],
                          stdio=str(io))
    for fd in (0, 1, 2):
        assert os.readlink(f"/proc/{started['pid']}/fd/{fd}") == str(io)
    assert run_to_exit(client, started)["code"] == 0
    assert io.read_text() == "hello\nout:hello\nerr:hello\n"


def test_launch_stdio_file_is_created(client, tmp_path):
    out = tmp_path / "new"
    started = client.call("launch", argv=["/bin/echo", "made"], stdio=str(out))
    assert run_to_exit(client, started)["code"] == 0
    assert out.read_text() == "made\n"


def test_launch_without_stdio_uses_dev_null(client):
    started = client.call("launch", argv=[DEBUGGEE, "basic"])
    for fd in (0, 1, 2):
        assert os.readlink(f"/proc/{started['pid']}/fd/{fd}") == "/dev/null"


def test_launch_with_a_stdio_that_cannot_be_opened_says_so(client, tmp_path):
    with pytest.raises(RpcError) as refused:
        client.call("launch", argv=[DEBUGGEE, "basic"],
                    stdio=str(tmp_path / "no-such-directory" / "out"))
    assert refused.value.code == -32001
    assert "stdio" in refused.value.message, refused.value.message
    assert client.call("session.list") == []


def test_launch_of_a_missing_program_is_not_found(client, tmp_path):
    with pytest.raises(RpcError) as refused:
        client.call("launch", argv=[str(tmp_path / "missing")])
    assert refused.value.code == -32007


def test_launched_comes_before_the_answer_with_the_stop_pc(client):
    request = client.start("launch", argv=[DEBUGGEE, "basic"])
    started = client.finish(request)
    # Read before the answer, so queued already.
    launched = [event for event in client.events if event["reason"] == "launched"]
    assert len(launched) == 1, client.events
    event = launched[0]
    assert (event["session"], event["thread"], event["pid"], event["stopped"]) == \
        (started["session"], started["pid"], started["pid"], True)
    registers = client.call("registers.read", session=started["session"],
                            thread=started["pid"])
    assert event["pc"] == registers["rip"]
