"""
Tests for L{gsmcpd.daemon.clientconfig}: every snippet is well formed and
names the daemon's URL, with the bearer header only when auth is on.
"""

import ast
import json

from twisted.trial.unittest import TestCase

from gsmcpd.daemon.clientconfig import (
    CLIENTS,
    TOKEN_VARIABLE,
    TYPESCRIPT_FILE,
    Target,
    UnknownClient,
    endpointUrl,
    snippet,
)

URL = "http://127.0.0.1:8000/mcp"
JSON_CLIENTS = ("claude-desktop", "cursor", "vscode")


class EndpointUrlTests(TestCase):

    def test_tcpWithInterface(self):
        self.assertEqual(endpointUrl("tcp:8000:interface=127.0.0.1"), URL)

    def test_anyInterfaceIsReachedAsLocalhost(self):
        self.assertEqual(endpointUrl("tcp:port=9000:interface=0.0.0.0"),
                         "http://localhost:9000/mcp")

    def test_tlsAndIPv6(self):
        self.assertEqual(
            endpointUrl("ssl:8443:privateKey=k.pem:interface=\\:\\:1"),
            "https://[::1]:8443/mcp")
        self.assertEqual(endpointUrl("tcp6:8000:interface=\\:\\:1"),
                         "http://[::1]:8000/mcp")

    def test_anExplicitHostWins(self):
        self.assertEqual(endpointUrl("tcp:8000", host="mcp.example.com"),
                         "http://mcp.example.com:8000/mcp")

    def test_socketActivationDoesNotSay(self):
        self.assertIsNone(endpointUrl("systemd:domain=INET:index=0"))


class SnippetTests(TestCase):

    def test_everyClientNamesTheUrlWithoutAToken(self):
        for client in CLIENTS:
            text = snippet(client, Target(URL))
            self.assertIn(URL, text, client)
            self.assertNotIn("Authorization", text, client)

    def test_everyClientSendsTheBearerHeaderWhenAuthIsOn(self):
        for client in CLIENTS:
            text = snippet(client, Target(URL, bearer=True))
            self.assertIn("Authorization", text, client)
            self.assertIn("Bearer", text, client)

    def test_jsonSnippetsParse(self):
        for bearer in (False, True):
            for client in JSON_CLIENTS:
                json.loads(snippet(client, Target(URL, bearer=bearer)))

    def test_pythonSnippetParses(self):
        """
        Both forms parse, and work through a session handle, as the SDK's
        default mode (2026-07-28) needs:
        tests/daemon/test_clientconfig_sockets.py runs the plain one.
        """
        for bearer in (False, True):
            text = snippet("python", Target(URL, bearer=bearer))
            ast.parse(text)
            self.assertIn('call_tool("open_session", {})', text)
            self.assertIn('"session": session', text)

    def test_typescriptNamesItsFile(self):
        """
        The TypeScript snippet is for the SDK's v2 line and names the file
        to save it as; tests/daemon/test_clientconfig_sockets.py runs it so.
        """
        for bearer in (False, True):
            text = snippet("typescript", Target(URL, bearer=bearer))
            self.assertTrue(text.startswith(f"// {TYPESCRIPT_FILE}: npm install "
                                            "@modelcontextprotocol/client"), text)
            self.assertIn('await import("@modelcontextprotocol/client")', text)
            self.assertNotIn("\nimport ", text)

    def test_claudeCode(self):
        self.assertEqual(
            snippet("claude-code", Target(URL, name="gs", bearer=True)),
            f"claude mcp add --transport http gs {URL} "
            f'--header "Authorization: Bearer ${TOKEN_VARIABLE}"\n')

    def test_claudeDesktopBridgesThroughMcpRemote(self):
        document = json.loads(snippet("claude-desktop",
                                      Target(URL, bearer=True)))
        server = document["mcpServers"]["gemstone"]
        self.assertEqual(server["command"], "npx")
        self.assertEqual(server["args"][:3], ["-y", "mcp-remote", URL])
        self.assertIn("Authorization:${AUTH_HEADER}", server["args"])

    def test_vscodePromptsForTheToken(self):
        document = json.loads(snippet("vscode", Target(URL, bearer=True)))
        self.assertEqual(document["servers"]["gemstone"]["type"], "http")
        self.assertTrue(document["inputs"][0]["password"])

    def test_unknownClientNamesTheChoices(self):
        error = self.assertRaises(UnknownClient, snippet, "emacs",
                                  Target(URL))
        self.assertIn("claude-code", str(error))
