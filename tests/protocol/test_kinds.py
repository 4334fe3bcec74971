"""
Tests for L{gsmcpd.protocol.kinds}: C{error.data.kind} is a closed set,
declared once and documented once.
"""

import ast
import re

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.pool import ServerStopping
from gsmcpd.protocol import kinds
from gsmcpd.protocol.jsonrpc import SERVER_ERROR, JsonRpcError
from gsmcpd.tools.templates.outcomes import ERROR_KINDS
from tests.structure.test_architecture import DOCUMENT
from tests.structure.test_layering import ROOT, runtimeModules

PROTOCOL = DOCUMENT.parent / "protocol.rst"


def spelledKinds():
    """
    Every C{"kind": value} of a dict the runtime code (outside the tools,
    whose results name kinds of other things) builds, as C{(where,
    value)}: a string it spells, or the name it gives.
    """
    for path, layer in runtimeModules():
        if layer in ("tools", None):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "kind":
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    yield where, value


class ClosedSetTests(SynchronousTestCase):

    def test_unknownKindRefused(self):
        """
        An error naming a kind outside the set cannot be made.
        """
        self.assertRaises(ValueError, JsonRpcError, SERVER_ERROR, "x",
                          {"kind": "somethingNew"})
        for kind in kinds.KINDS:
            JsonRpcError(SERVER_ERROR, "x", {"kind": kind})
        JsonRpcError(SERVER_ERROR, "x", {"uri": "any"})

    def test_everySpelledKindDeclared(self):
        """
        Each kind the runtime code builds an error with is a declared one,
        named through L{kinds} (or, for what the lower layers carry, read
        from them: checked below).
        """
        read = {"stopping.kind", "error.why"}  # a CallEnded: run.why
        for where, value in spelledKinds():
            if isinstance(value, ast.Attribute) and \
                    isinstance(value.value, ast.Name) and \
                    value.value.id == "kinds":
                self.assertIn(getattr(kinds, value.attr), kinds.KINDS, where)
            else:
                self.assertIn(ast.unparse(value), read, where)

    def test_whatTheLowerLayersCarry(self):
        """
        The kinds read from below: a draining pool's, and why the server
        ended a call (a cancelled one is never answered).
        """
        self.assertIn(ServerStopping.kind, kinds.KINDS)
        ended = set()
        for path, layer in runtimeModules():
            if layer in ("sessions", "protocol"):
                source = path.read_text()
                ended.update(re.findall(r'run\.end\(\s*"(\w+)"', source))
                ended.update(re.findall(r'self\.end, "(\w+)"', source))
        self.assertEqual(ended - {"cancelled"}, kinds.ENDED)
        self.assertTrue(kinds.ENDED <= kinds.KINDS)


class DocumentedTests(SynchronousTestCase):

    def section(self):
        text = PROTOCOL.read_text()
        return text.split("\nError kinds\n", 1)[1].split("\n~~~", 1)[0]

    def test_tableIsTheSet(self):
        lines = self.section().splitlines()
        borders = [n for n, line in enumerate(lines)
                   if line.startswith("=====")]
        rows = lines[borders[1] + 1:borders[2]]
        listed = {match.group(1) for row in rows
                  for match in [re.match(r"``(\w+)``", row)] if match}
        self.assertEqual(listed, set(kinds.KINDS))

    def test_toolErrorKindsListed(self):
        prose = self.section().split("A tool's own failure", 1)[1]
        self.assertEqual(set(re.findall(r"``(\w+)``", prose)) &
                         set(ERROR_KINDS), set(ERROR_KINDS))
