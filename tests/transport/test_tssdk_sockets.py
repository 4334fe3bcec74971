"""
Every served tool called over a real socket by the official TypeScript
SDK's v2 line (C{@modelcontextprotocol/client}, tests/node/ts_sdk_catalog.mjs)
in its default C{legacy} mode (the 2025 handshake) and with
C{versionNegotiation: {mode: "auto"}} (2026-07-28), on both surfaces: the
twin of test_catalogsurface_sockets for the other official SDK.  Skipped
without the Node clients (bin/setup-node), except under CI.
"""

import os
import shutil

from twisted.trial.unittest import SkipTest

from tests.realdaemon import DaemonTestCase

NODE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "node")
FLOW = os.path.join(NODE, "ts_sdk_catalog.mjs")


class TypeScriptSurfaceFlowTests(DaemonTestCase):

    def setUp(self):
        if shutil.which("node") is None or not os.path.isdir(os.path.join(
                NODE, "node_modules", "@modelcontextprotocol", "client")):
            missing = ("the TypeScript SDK's v2 line is not installed in "
                       "tests/node (bin/setup-node)")
            if os.environ.get("CI"):
                self.fail(missing)
            raise SkipTest(missing)

    def daemon(self, surface):
        return self.startDaemon("--surface", surface)

    def flow(self, daemon, surface, mode):
        return self.runClient("node", FLOW, daemon.url, surface, mode)

    def test_catalog(self):
        """
        On the catalog surface, with C{versionNegotiation: {mode: "auto"}}
        (2026-07-28): open_session, then tool_call of
        compile_class_definition with the handle as tool_call's own
        argument defines the class; direct calls of unlisted tools with the
        handle read and delete it in that session (the read given
        tool_get's definition as C{toolDefinition}, so that the SDK mirrors
        the handle in C{Mcp-Param-Session}, the delete without it); tool_get
        shows the session argument.  In the SDK's default legacy mode (2025-11-25)
        the same calls work without a handle.
        """
        daemon = self.daemon("catalog")
        seen = self.flow(daemon, "catalog", "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertIn("open", seen["steps"])
        self.assertIn("tool_call", seen["listed"])
        self.assertNotIn("compile_class_definition", seen["listed"])
        self.assertNotIn("get_class_definition", seen["listed"])
        self.assertNotIn("delete_class", seen["listed"])
        self.assertIn("session", seen["describedArguments"])
        seen = self.flow(daemon, "catalog", "legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertIn("className", seen["describedArguments"])
        self.assertNotIn("session", seen["describedArguments"])
        self.assertIn("closed: the client deleted it", daemon.log())

    def test_full(self):
        """
        On the full surface the same class is defined, read and deleted by
        direct calls, in both modes.
        """
        daemon = self.daemon("full")
        seen = self.flow(daemon, "full", "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertIn("delete_class", seen["listed"])
        self.assertIn("closed: the client closed it (close_session)",
                      daemon.log())
        seen = self.flow(daemon, "full", "legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
