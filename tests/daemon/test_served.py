"""
Tests for L{gsmcpd.daemon.served}: a configuration's toolsets, and how the
daemon introduces itself in each era (the options that choose them are
tested with the others in L{tests.daemon.test_options}).
"""

import os

import attr
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd import __version__
from gsmcpd.daemon.security import READ_ONLY_INSTRUCTIONS
from gsmcpd.daemon.served import (
    MAX_INSTRUCTIONS,
    SIMULATED_TITLE,
    readInstructions,
    servedToolsets,
    serverIdentity,
)
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.protocol.handlers import Handlers
from gsmcpd.protocol.jsonrpc import encode
from gsmcpd.tools.catalogtools import servedCatalog
from gsmcpd.tools.instructions import CATALOG_PARAGRAPH
from tests.transport.test_modern import ModernTestCase, modern
from tests.transport.test_web import request

BUDGET = 28_000
"""Bytes of the default surface in each era (see L{DefaultSurfaceTests})."""


@attr.s(auto_attribs=True)
class Settings:
    """
    The settings L{servedToolsets} and L{serverIdentity} read.
    """

    toolsetNames: tuple | None = ("execution", "session")
    toolsetOptions: dict = attr.Factory(dict)
    readOnly: bool = False
    surface: str = "full"
    instructionsFile: str | None = None
    serverName: str = "gsmcpd"
    serverVersion: str | None = None
    serverTitle: str | None = None
    simulated: bool = False
    toolsets: tuple = ()

    def served(self):
        self.toolsets = servedToolsets(self)
        return self


class ServedTests(SynchronousTestCase):

    def test_toolsets(self):
        names = [toolset.name for toolset in Settings().served().toolsets]
        self.assertEqual(names, ["execution", "session"])

    def test_noToolset(self):
        error = self.assertRaises(ConfigError, servedToolsets,
                                  Settings(toolsetNames=()))
        self.assertIn("names no toolset", str(error))

    def test_eachEraItsInstructions(self):
        identity = serverIdentity(Settings().served())
        self.assertEqual((identity.name, identity.version, identity.title),
                         ("gsmcpd", __version__, None))
        self.assertIn("open_session", identity.modernInstructions)
        self.assertNotIn("open_session", identity.instructions)

    def test_catalogSurface(self):
        identity = serverIdentity(Settings(surface="catalog").served())
        for text in (identity.instructions, identity.modernInstructions):
            self.assertTrue(text.endswith(CATALOG_PARAGRAPH))

    def test_readOnlyAndSimulated(self):
        identity = serverIdentity(Settings(readOnly=True,
                                           simulated=True).served())
        self.assertTrue(identity.instructions.startswith(
            READ_ONLY_INSTRUCTIONS))
        self.assertEqual(identity.title, SIMULATED_TITLE)

    def test_readOnlyNamesNoMutation(self):
        """
        Under --read-only the mutation toolset cannot be served at all, so
        the line naming what an operator could add leaves it out.
        """
        for surface in ("full", "catalog"):
            identity = serverIdentity(Settings(
                toolsetNames=None, readOnly=True, surface=surface).served())
            for text in (identity.instructions,
                         identity.modernInstructions):
                self.assertIn("Not served here: admin, changes, debugger, refactoring, "
                              "tonel (", text)
                self.assertNotIn("mutation", text.split("Not served")[1])

    def test_instructionsFile(self):
        path = self.mktemp()
        with open(path, "w", encoding="utf-8") as f:
            f.write("Mine.")
        identity = serverIdentity(Settings(instructionsFile=path).served())
        self.assertEqual((identity.instructions,
                          identity.modernInstructions), ("Mine.", "Mine."))
        error = self.assertRaises(ConfigError, serverIdentity, Settings(
            instructionsFile=path + ".missing").served())
        self.assertIn("--instructions-file", str(error))


class ReadInstructionsTests(SynchronousTestCase):

    def write(self, content, mode="w"):
        path = self.mktemp()
        with open(path, mode) as f:
            f.write(content)
        return path

    def test_text(self):
        self.assertEqual(readInstructions(self.write("Use tests.\n")),
                         "Use tests.\n")

    def test_emptyFileSendsNone(self):
        self.assertIsNone(readInstructions(self.write("")))

    def test_atTheLimit(self):
        text = "x" * MAX_INSTRUCTIONS
        self.assertEqual(readInstructions(self.write(text)), text)

    def test_overTheLimitIsRefused(self):
        path = self.write("x" * (MAX_INSTRUCTIONS + 1))
        error = self.assertRaises(ConfigError, readInstructions, path)
        self.assertIn(str(MAX_INSTRUCTIONS), str(error))

    def test_missingFileIsRefused(self):
        path = os.path.join(self.mktemp(), "absent")
        error = self.assertRaises(ConfigError, readInstructions, path)
        self.assertIn("absent", str(error))

    def test_notUtf8IsRefused(self):
        path = self.write(b"\xff\xfe bad", "wb")
        self.assertRaises(ConfigError, readInstructions, path)


class DefaultSurfaceTests(ModernTestCase):
    """
    The surface a deployment that names no toolset serves, measured as an
    agent's context takes it in before any work: in the 2025 era
    C{tools/list} and the instructions, in the 2026 era C{server/discover}
    and C{tools/list}, each as the compact JSON the daemon sends.
    """

    def setUp(self):
        super().setUp()
        settings = Settings(toolsetNames=None).served()
        self.serve(Handlers(servedCatalog("full", settings.toolsets),
                            serverIdentity(settings)))

    def test_servesDebugging(self):
        """
        The debugging toolset is served by default, and the instructions
        name each shipped toolset that is not, with the option that serves
        it.
        """
        names = [tool.name for tool in self.handlers.tools]
        self.assertIn("inspect", names)
        self.assertIn("profile_code", names)
        for instructions in (self.handlers.identity.instructions,
                             self.handlers.identity.modernInstructions):
            self.assertTrue(instructions.endswith(
                "\n\nNot served here: admin, changes, debugger, refactoring, tonel (an "
                "operator adds one to --toolsets)."), instructions[-200:])

    @inlineCallbacks
    def test_2025Budget(self):
        handle, opened = yield self.initialize()
        _, listed = yield self.post(request("tools/list"), handle)
        names = [tool["name"] for tool in listed["result"]["tools"]]
        self.assertIn("inspect", names)
        self.assertIn("profile_code", names)
        size = len(encode(listed)) + len(
            opened["result"]["instructions"].encode("utf-8"))
        self.assertLessEqual(size, BUDGET)

    @inlineCallbacks
    def test_2026Budget(self):
        _, discovered = yield self.send(modern("server/discover"))
        _, listed = yield self.send(modern("tools/list", 2))
        names = [tool["name"] for tool in listed["result"]["tools"]]
        self.assertIn("inspect", names)
        self.assertIn("open_session", names)
        self.assertLessEqual(len(encode(discovered)) + len(encode(listed)),
                             BUDGET)
