"""ptrace and exclusive utrace engines do not share a thread."""

import ctypes
import errno

PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_SEIZE = 0, 16, 0x4206

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                        ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def ptrace(request, pid):
    """Returns 0 or the errno of the ptrace call."""
    ctypes.set_errno(0)
    if libc.ptrace(request, pid, None, None) == -1:
        return ctypes.get_errno()
    return 0


def test_ptrace_attach_refused_by_an_exclusive_engine(session, start_tracee):
    tracee = start_tracee("block")
    s = session()
    s.attach(tracee.pid, "exec", exclusive=True)
    assert ptrace(PTRACE_ATTACH, tracee.pid) == errno.EBUSY
    assert ptrace(PTRACE_SEIZE, tracee.pid) == errno.EBUSY
    # Once the engine is gone, ptrace is welcome again.
    s("control 0 detach")
    assert ptrace(PTRACE_SEIZE, tracee.pid) == 0
    assert tracee.state()["TracerPid"] != "0"


def test_non_exclusive_engine_leaves_ptrace_alone(session, start_tracee):
    tracee = start_tracee("block")
    session().attach(tracee.pid, "exec")
    assert ptrace(PTRACE_SEIZE, tracee.pid) == 0


def test_exclusive_attach_refused_on_a_ptraced_thread(session, start_tracee):
    tracee = start_tracee("block")
    assert ptrace(PTRACE_SEIZE, tracee.pid) == 0
    s = session()
    assert s.error(f"attach {tracee.pid} exclusive") == errno.EBUSY
    s(f"attach {tracee.pid}")


def test_traceme_refused_by_an_exclusive_engine(session, start_tracee):
    tracee = start_tracee("traceme")
    session().attach(tracee.pid, "exec", exclusive=True)
    tracee.go()
    facts = tracee.facts()
    assert tracee.wait() == 0
    assert facts["traceme"] == "-1"
    assert facts["traceme_errno"] == str(errno.EBUSY)
