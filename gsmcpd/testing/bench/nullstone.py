"""
The null stone (C{nullgcits.c}): a libgcits that answers every execution at
once with a fixed envelope, so the bench can measure what the daemon itself
costs per call, through its real ctypes path, with no stone in the way.

A benchmark fixture: built by the bench into its own run directory and
loaded by the daemon through its ordinary C{--gci-library} setting; nothing
the daemon ships builds or names it.
"""

import os
import subprocess

from gsmcpd.testing.simulator.build import CFLAGS, findCompiler

SOURCE = os.path.join(os.path.dirname(__file__), "nullgcits.c")
NAME = "libgcits-null.so"


def build(directory):
    """
    Compile the null stone into C{directory}; its path.

    @raise RuntimeError: with the compiler's first line when it fails.
    """
    target = os.path.join(directory, NAME)
    done = subprocess.run([findCompiler(), *CFLAGS, "-o", target, SOURCE],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("building the null stone failed: "
                           + (done.stderr.strip().splitlines() or [""])[0])
    return target


def daemonOptions(directory):
    """
    The C{gsmcp} options that serve the null stone: its library, and the
    password file every real login needs (the null stone reads none of
    them).
    """
    password = os.path.join(directory, "null-stone-password")
    # Owner-only, as the daemon requires of every password file.
    with open(os.open(password, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                      0o600), "w") as f:
        f.write("unused by the null stone\n")
    return ("--gci-library", build(directory), "--password-file", password,
            "--stone", "nullstone")
