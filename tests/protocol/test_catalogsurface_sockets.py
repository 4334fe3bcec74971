"""
Every served tool called over a real socket by the official Python SDK
client in its default mode (which negotiates 2026-07-28) and in the 2025
handshake, on both surfaces (tests/clients/python_sdk_catalog.py): a tool
a surface does not list is reached with the session's handle.
"""

import os
import sys

from tests.realdaemon import CLIENTS, DaemonTestCase

FLOW = os.path.join(CLIENTS, "python_sdk_catalog.py")


class SurfaceFlowTests(DaemonTestCase):

    def daemon(self, surface):
        return self.startDaemon("--surface", surface)

    def flow(self, daemon, surface, mode):
        return self.runClient(sys.executable, FLOW, daemon.url, surface, mode)

    def test_catalog(self):
        """
        On the catalog surface, in the SDK's default mode (2026-07-28):
        open_session, then tool_call of compile_class_definition with the
        handle as tool_call's own argument defines the class; direct calls
        of unlisted tools with the handle read and delete it in that
        session; tool_get shows the session argument.  In the 2025 era the
        same calls work without a handle.
        """
        daemon = self.daemon("catalog")
        seen = self.flow(daemon, "catalog", "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertIn("tool_call", seen["listed"])
        self.assertNotIn("compile_class_definition", seen["listed"])
        self.assertNotIn("delete_class", seen["listed"])
        self.assertIn("session", seen["describedArguments"])
        seen = self.flow(daemon, "catalog", "legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertNotIn("session", seen["describedArguments"])

    def test_full(self):
        """
        On the full surface the same class is defined, read and deleted by
        direct calls, in both eras.
        """
        daemon = self.daemon("full")
        seen = self.flow(daemon, "full", "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertIn("delete_class", seen["listed"])
        seen = self.flow(daemon, "full", "legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
