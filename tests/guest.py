"""Where things are in the guest, and small helpers for the suite.

The suite runs inside the QEMU guest that qemu/boot starts: the checkout and
its build folder are at the same paths as on the host, named by FROGGY_TOP
and FROGGY_BUILD.
"""

import os
import subprocess

TOP = os.environ.get("FROGGY_TOP", os.path.dirname(os.path.dirname(__file__)))
BUILD = os.environ.get("FROGGY_BUILD", os.path.join(TOP, "build"))


def run(argv, timeout=300, **kwargs):
    """Run argv to completion; return the CompletedProcess with text output."""
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=timeout, **kwargs)
