"""Where things are in the guest, and small helpers for the suite.

The suite runs inside the QEMU guest that qemu/boot starts: the checkout and
its build folder are at the same paths as on the host, named by FROGGY_TOP
and FROGGY_BUILD.
"""

import os
import shutil
import subprocess

TOP = os.environ.get("FROGGY_TOP", os.path.dirname(os.path.dirname(__file__)))
BUILD = os.environ.get("FROGGY_BUILD", os.path.join(TOP, "build"))
# The Kbuild folder of the kernel the guest booted (qemu/boot --debug:
# the KASAN kernel's), with its modules and its release.
KERNEL_OBJ = os.environ.get("FROGGY_KERNEL_OBJ", os.path.join(BUILD, "kernel", "obj"))
# Where froggyd and froggy come from: BUILD, or the sanitizer build
# (tests/guest-suite --sanitizers).  Everything else comes from BUILD.
USER_SPACE = os.environ.get("FROGGY_USER_SPACE", BUILD)
FROGGYD = os.path.join(USER_SPACE, "froggyd", "froggyd")
FROGGY = os.path.join(USER_SPACE, "client", "froggy")


# Where reachable_copy() leaves its copies: the guest's /tmp, a tmpfs.
REACHABLE = "/tmp/froggy-reachable"


def reachable_copy(path):
    """A copy of path that every user can reach, for what a test runs as
    another user (nobody): the checkout may sit where only root can
    enter, such as a clone in root's 0700 home."""
    os.makedirs(REACHABLE, exist_ok=True)
    os.chmod(REACHABLE, 0o755)
    copy = os.path.join(REACHABLE, os.path.basename(path))
    if not os.path.exists(copy):
        shutil.copy(path, copy + ".part")
        os.chmod(copy + ".part", 0o755)
        os.rename(copy + ".part", copy)
    return copy


def as_user(program, user):
    """program as user (None: root, as the test) may run it."""
    return program if user is None else reachable_copy(program)


def run(argv, timeout=300, **kwargs):
    """Run argv to completion; return the CompletedProcess with text output."""
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=timeout, **kwargs)
