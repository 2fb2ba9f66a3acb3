"""The guest runs the kernel this checkout just built, not the host's."""

import os
import re

from guest import KERNEL_OBJ


def read(path):
    with open(path) as f:
        return f.read()


def test_release_is_the_built_kernel():
    built = read(os.path.join(KERNEL_OBJ, ".froggy-release")).strip()
    assert os.uname().release == built
    assert "-froggy" in built


def test_version_string_matches_the_build():
    """UTS_VERSION carries the build's timestamp: only our image has it."""
    header = read(os.path.join(KERNEL_OBJ, "include", "generated", "utsversion.h"))
    uts_version = re.search(r'#define UTS_VERSION "([^"]+)"', header).group(1)
    assert os.uname().version == uts_version


def test_guest_sees_two_cpus():
    assert os.cpu_count() == 2


def test_writable_places_are_tmpfs():
    mounts = {}
    for line in read("/proc/mounts").splitlines():
        device, where, fstype = line.split()[:3]
        mounts[where] = fstype
    assert mounts["/"] == "9p"
    assert mounts["/tmp"] == "tmpfs"
    assert mounts["/run"] == "tmpfs"
    with open("/tmp/froggy-write-check", "w") as f:
        f.write("ok")
    assert read("/tmp/froggy-write-check") == "ok"
