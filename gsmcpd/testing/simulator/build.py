"""
Build the simulated stone's libgcits (C{fakegcits.c}) on first use.

The library is compiled once per version of its source into a cache
directory, so an installed daemon or a test run needs only a C compiler, and
an edit to the C file is picked up without cleaning anything.  Run
C{python -m gsmcpd.testing.simulator.build} to build it ahead of time; it prints the
library's path.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

SOURCE_NAME = "fakegcits.c"
CFLAGS = ("-shared", "-fPIC", "-O2", "-pthread", "-Wall", "-Werror")


class SimulatorBuildError(Exception):
    """
    The simulated stone's library could not be built; the message says why
    in one line.
    """


def cacheDirectory(environ=os.environ):
    """
    Where built libraries go: C{$GSMCP_CACHE_DIR}, else
    C{$XDG_CACHE_HOME/gsmcpd}, else C{~/.cache/gsmcpd}.
    """
    if environ.get("GSMCP_CACHE_DIR"):
        return Path(environ["GSMCP_CACHE_DIR"])
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]) / "gsmcpd"
    return Path.home() / ".cache" / "gsmcpd"


def findCompiler(environ=os.environ):
    """
    The compiler to use: C{$CC} if set, else C{cc}, else C{gcc}.
    """
    candidates = [environ["CC"]] if environ.get("CC") else []
    candidates += ["cc", "gcc"]
    for candidate in candidates:
        found = shutil.which(candidate, path=environ.get("PATH", os.defpath))
        if found:
            return found
    raise SimulatorBuildError(
        "the simulated stone needs a C compiler to build its libgcits: none "
        "found (tried $CC, cc, gcc); on Debian: apt-get install gcc")


def libraryPath(environ=os.environ):
    """
    The path of the built library, compiling it first if this version of the
    source has not been built yet.
    """
    source = (resources.files(__package__) / SOURCE_NAME).read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    directory = cacheDirectory(environ)
    target = directory / f"libgcits-simulated-{digest}.so"
    if target.exists():
        return str(target)
    compiler = findCompiler(environ)
    try:
        return _build(compiler, source, directory, target)
    except OSError as e:
        raise SimulatorBuildError(
            f"cannot build the simulated stone's libgcits in {directory}: "
            f"{e.strerror or e}; set GSMCP_CACHE_DIR to a directory this "
            "user may write")


def _build(compiler, source, directory, target):
    directory.mkdir(parents=True, exist_ok=True)
    # Compile to a private name and rename: a racing process either sees no
    # library or a complete one.
    with tempfile.TemporaryDirectory(dir=directory) as work:
        sourcePath = Path(work) / SOURCE_NAME
        sourcePath.write_bytes(source)
        built = Path(work) / target.name
        result = subprocess.run(
            [compiler, *CFLAGS, "-o", str(built), str(sourcePath)],
            capture_output=True, text=True)
        if result.returncode != 0:
            detail = (result.stderr.strip().splitlines() or ["no output"])[0]
            raise SimulatorBuildError(
                f"building the simulated stone's libgcits with {compiler} "
                f"failed: {detail}")
        os.replace(built, target)
    return str(target)


def main():
    try:
        print(libraryPath())
    except SimulatorBuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
