"""
Tests for building the simulated stone's libgcits and for its wire format.
"""

import os
import socket
from pathlib import Path

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import build, wire


class BuildTests(SynchronousTestCase):

    def test_cacheDirectory(self):
        self.assertEqual(build.cacheDirectory({"GSMCP_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/x"}),
                         Path("/c"))
        self.assertEqual(build.cacheDirectory({"XDG_CACHE_HOME": "/x"}), Path("/x/gsmcpd"))
        self.assertEqual(build.cacheDirectory({}), Path.home() / ".cache" / "gsmcpd")

    def test_noCompiler(self):
        e = self.assertRaises(build.SimulatorBuildError, build.findCompiler,
                              {"CC": "no-such-cc-here", "PATH": ""})
        self.assertIn("needs a C compiler", str(e))
        self.assertNotIn("\n", str(e))

    def test_unwritableCacheIsOneLine(self):
        """
        A user who cannot write the cache (a service user whose home is
        /nonexistent) is told, in one line, to set GSMCP_CACHE_DIR.
        """
        blocker = self.mktemp()
        Path(blocker).write_text("not a directory")
        e = self.assertRaises(
            build.SimulatorBuildError, build.libraryPath,
            {**os.environ, "GSMCP_CACHE_DIR": os.path.join(blocker, "cache")})
        self.assertIn(f"cannot build the simulated stone's libgcits in "
                      f"{blocker}/cache: ", str(e))
        self.assertTrue(str(e).endswith("; set GSMCP_CACHE_DIR to a "
                                        "directory this user may write"))
        self.assertNotIn("\n", str(e))

    def test_buildsOnceIntoCache(self):
        directory = self.mktemp()
        environ = {**os.environ, "GSMCP_CACHE_DIR": directory}
        path = build.libraryPath(environ)
        self.assertTrue(Path(path).name.startswith("libgcits-simulated-"))
        self.assertEqual(os.listdir(directory), [Path(path).name])
        before = os.stat(path).st_mtime_ns
        self.assertEqual(build.libraryPath(environ), path)
        self.assertEqual(os.stat(path).st_mtime_ns, before)


class WireTests(SynchronousTestCase):

    def test_roundTrip(self):
        left, right = socket.socketpair()
        self.addCleanup(left.close)
        self.addCleanup(right.close)
        left.sendall(wire.encodeFields(wire.EXECUTE, ["3 + 4", b"\x00\xff", 12]))
        self.assertEqual(wire.readFrame(right), (wire.EXECUTE, [b"3 + 4", b"\x00\xff", b"12"]))

    def test_closed(self):
        left, right = socket.socketpair()
        self.addCleanup(right.close)
        left.sendall(b"\x00\x00")
        left.close()
        self.assertRaises(wire.ConnectionClosed, wire.readFrame, right)
