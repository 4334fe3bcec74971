"""
No test waits on the wall clock (house rule): time-based behaviour is
driven with L{twisted.internet.task.Clock}.  Real-socket modules are named
so (C{*_sockets.py}), the simulated stone's own tests run it on real time,
and the few others that need real time are listed, with the reason, in
L{WALL_CLOCK_ALLOWED}.
"""

import ast
import pathlib

from twisted.trial.unittest import SynchronousTestCase

TESTS = pathlib.Path(__file__).parents[1]

WALL_CLOCK_ALLOWED = {
    # The real ctypes binding against the simulated stone, on real threads:
    # a break must land while a call runs there.
    "gci/test_gci": "reactor.callLater",
    # The helper that starts a real twistd process (for test_clients and
    # the *_sockets modules) and waits for its port.
    "realdaemon": "time.sleep",
    # The hostile suite's live daemon helper, for its *_sockets modules.
    "hostile/live": "time.sleep",
    # Runs the documents' commands (for test_docs_sockets) and waits for
    # the daemons they start.
    "docrunner": "time.sleep",
}
"""Test module (its path under tests/, without .py) to what of the wall
clock it uses."""


def testModules():
    """
    Every Python module under tests/, subpackages included, by its path
    without C{.py}; the Node clients' dependencies are not ours.
    """
    return {path.relative_to(TESTS).with_suffix("").as_posix(): path
            for path in sorted(TESTS.rglob("*.py"))
            if "node" not in path.relative_to(TESTS).parts}


def exempt(name):
    stem = name.rsplit("/", 1)[-1]
    return stem.endswith("_sockets") or stem.startswith("test_simulator") \
        or name in WALL_CLOCK_ALLOWED


def wallClockWaits(source):
    """
    The lines of C{source} that wait on the wall clock: C{time.sleep},
    a C{sleep} imported from C{time}, and the global reactor's
    C{callLater} or C{deferLater}.
    """
    tree = ast.parse(source)
    sleeps = {alias.asname or alias.name
              for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module == "time"
              for alias in node.names if alias.name == "sleep"}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        name = ast.unparse(function)
        if name == "time.sleep" or name in sleeps or \
                name == "reactor.callLater" or (
                    name.split(".")[-1] == "deferLater" and node.args and
                    ast.unparse(node.args[0]) == "reactor"):
            found.append(node.lineno)
    return found


class NoWallClockTests(SynchronousTestCase):

    def test_noTestWaitsOnTheWallClock(self):
        found = {name: lines
                 for name, path in testModules().items()
                 if not exempt(name)
                 for lines in [wallClockWaits(path.read_text())] if lines}
        self.assertEqual(found, {}, "drive a Clock instead, or name the "
                         "module *_sockets.py if it needs real sockets")

    def test_exemptionsAreCurrent(self):
        """
        An exempted module still exists and still needs the exemption.
        """
        modules = testModules()
        stale = [name for name in WALL_CLOCK_ALLOWED
                 if name not in modules
                 or not wallClockWaits(modules[name].read_text())]
        self.assertEqual(stale, [])

    def test_detects(self):
        """
        The check itself.
        """
        source = (
            "import time\n"
            "from time import sleep as nap\n"
            "from twisted.internet import reactor, task\n"
            "time.sleep(1)\n"
            "nap(1)\n"
            "reactor.callLater(1, print)\n"
            "task.deferLater(reactor, 1, print)\n"
            "task.deferLater(self.clock, 1, print)\n"
            "self.clock.callLater(1, print)\n")
        self.assertEqual(wallClockWaits(source), [4, 5, 6, 7])
