"""
Tests for L{gsmcpd.daemon.tap}, the twistd plugin that names it, and the
rule that every daemon module has its own test module.
"""

import pathlib

from twisted.application.service import MultiService
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import LogLevel, capturedLogs, formatEvent
from twisted.trial.unittest import SynchronousTestCase

import gsmcpd.daemon
from gsmcpd.daemon import tap
from gsmcpd.daemon.options import Options


class MakeServiceTests(SynchronousTestCase):

    def options(self, *argv):
        options = tap.Options()
        options.parseOptions(list(argv))
        return options

    def test_serviceTree(self):
        service = tap.makeService(
            self.options("--simulated", "--toolsets", "execution"), {},
            MemoryReactorClock())
        self.assertIsInstance(service, MultiService)

    def test_refusalIsOneLine(self):
        error = self.assertRaises(
            SystemExit, tap.makeService, self.options("--max-sessions", "0"),
            {}, MemoryReactorClock())
        self.assertEqual(str(error), "gsmcpd: refusing to start: "
                         "--max-sessions '0': expected a positive count or "
                         "'none'")

    def test_formerNameWarns(self):
        """
        A setting given under its former name is logged as a warning naming
        the new one.
        """
        with capturedLogs() as events:
            tap.makeService(self.options("--simulated", "--toolsets",
                                         "execution", "--request-timeout",
                                         "5"), {}, MemoryReactorClock())
        warnings = [formatEvent(event) for event in events
                    if event["log_level"] == LogLevel.warn]
        self.assertEqual(warnings, ["--request-timeout is deprecated and "
                                    "will be removed: use --call-timeout"])

    def test_environmentRead(self):
        error = self.assertRaises(
            SystemExit, tap.makeService, self.options(),
            {"GSMCP_SIMULATED": "yes", "GSMCP_MAX_LIFETIME": "forever"},
            MemoryReactorClock())
        self.assertIn("GSMCP_MAX_LIFETIME='forever'", str(error))


class PluginTests(SynchronousTestCase):

    def test_optionsHoldHangups(self):
        """
        twistd asks for the options of the plugin it runs first: the
        process begins there (L{gsmcpd.daemon.early}).
        """
        from twisted.plugins import gsmcp_plugin
        held = []
        self.patch(gsmcp_plugin, "begin", lambda: held.append(True))
        self.assertIs(gsmcp_plugin.gsmcp.options, Options)
        self.assertEqual(held, [True])

    def test_twistdFindsIt(self):
        from twisted.plugins import gsmcp_plugin
        from twisted.plugins.gsmcp_plugin import gsmcp
        self.patch(gsmcp_plugin, "begin", lambda: None)
        self.assertEqual(gsmcp.tapname, "gsmcp")
        self.assertIs(gsmcp.options, Options)
        self.assertIs(gsmcp.makeService, tap.makeService)


class EveryModuleTestedTests(SynchronousTestCase):

    def test_testModulePerDaemonModule(self):
        tests = pathlib.Path(__file__).parent
        for module in pathlib.Path(gsmcpd.daemon.__file__).parent.glob(
                "*.py"):
            if module.name != "__init__.py":
                self.assertTrue((tests / f"test_{module.name}").exists(),
                                module.name)
