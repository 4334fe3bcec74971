"""
The layers of L{gsmcpd}, enforced: a lower layer never imports a higher
one (docs/architecture.rst draws them).
"""

import ast
import pathlib

from twisted.trial.unittest import TestCase

import gsmcpd

LAYERS = (
    ("daemon",),
    ("transport",),
    ("protocol",),
    ("sessions",),
    ("tools",),
    ("gci", "smalltalk"),
    ("auth", "observe"),
)
"""Top to bottom; packages on one line may import each other."""

ALLOWED_TESTING = {
    "daemon": ("gsmcpd.testing.simulator.build",
               "gsmcpd.testing.simulator.launch"),
}
"""What of the simulated stone (a test double) runtime code may import: only
the daemon, only to build and launch it for --simulated."""

MAX_TOP_MODULES = 5
MAX_LINES = 400
LONG_MODULES_ALLOWED = ("smalltalk/parser.py",)
"""The parser is excepted from the size limit; the simulator is not part of
the runtime (gsmcpd/testing)."""

MAX_PROTOCOL_LINES = 4000
"""The protocol layer is the thin part between the transport and the
sessions (issue 31's bound): every line of it, imports included, as
C{wc -l} counts them."""

ROOT = pathlib.Path(gsmcpd.__file__).parent


def runtimeModules():
    """
    Every module of the runtime package, as C{(path, layer)}: everything
    but the simulated stone.
    """
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if parts[0] == "testing":
            continue
        yield path, (parts[0] if len(parts) > 1 else None)


def codeLines(path):
    """
    The module's line count less the lines of its top-level imports.
    """
    text = path.read_text()
    imports = sum(node.end_lineno - node.lineno + 1
                  for node in ast.parse(text).body
                  if isinstance(node, (ast.Import, ast.ImportFrom)))
    return len(text.splitlines()) - imports


def packageOf(path):
    """
    The dotted name of the package C{path} (a module of L{ROOT}) is in,
    which its relative imports start from.
    """
    return ".".join(path.relative_to(ROOT.parent).parent.parts)


def importedNames(path, package=None):
    """
    The modules (and names from them) C{path} imports, relative imports
    resolved against C{package} (by default, the one C{path} is in).
    """
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module
            if node.level > 0:
                base = (package or packageOf(path)).split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([module] if module else []))
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def rank(layer):
    for index, names in enumerate(LAYERS):
        if layer in names:
            return index
    return None


def violations(path, layer, package=None):
    """
    The imports of C{path} (in C{layer}, and in C{package} when it is not
    a module of L{ROOT}) that reach above it.
    """
    found = set()
    for name in importedNames(path, package):
        parts = name.split(".")
        if parts[0] != "gsmcpd" or len(parts) < 2:
            continue
        target = parts[1]
        if target == "testing":
            if not name.startswith(ALLOWED_TESTING.get(layer, ())) and \
                    name != "gsmcpd.testing":
                found.add(name)
            continue
        mine, theirs = rank(layer), rank(target)
        if theirs is None:
            continue
        if mine is None or theirs < mine:
            found.add(name)
    return sorted(found)


class LayeringTests(TestCase):

    def test_everyPackageHasALayer(self):
        """
        A new package is placed in L{LAYERS} before it is used.
        """
        packages = {path.parent.name for path, layer in runtimeModules()
                    if layer is not None}
        # Subpackages sit in their package's layer.
        self.assertEqual({p for p in packages if rank(p) is None} - {
            "templates", "eras", "legacy", "modern"}, set())

    def test_noLowerLayerImportsAHigherOne(self):
        found = {str(path.relative_to(ROOT)): bad
                 for path, layer in runtimeModules()
                 for bad in [violations(path, layer)] if bad}
        self.assertEqual(found, {})

    def test_moduleDirectlyUnderThePackageImportsNothingOfIt(self):
        """
        Modules directly under C{gsmcpd} (version, package docstring) sit
        below every layer.
        """
        found = {str(path.relative_to(ROOT)): bad
                 for path, layer in runtimeModules() if layer is None
                 for bad in [[n for n in importedNames(path)
                              if n.startswith("gsmcpd.")]] if bad}
        self.assertEqual(found, {})

    def test_erasApart(self):
        """
        The era-neutral protocol modules import neither era, and neither
        era imports the other: what only one era has lives in its package.
        """
        eras = ROOT / "protocol" / "eras"
        found = {}
        for path, layer in runtimeModules():
            if layer != "protocol":
                continue
            parts = path.relative_to(ROOT).parts
            era = parts[2] if parts[1] == "eras" and len(parts) > 3 else None
            allowed = "" if era is None else f"gsmcpd.protocol.eras.{era}"
            bad = sorted({name for name in importedNames(path)
                          if name.startswith("gsmcpd.protocol.eras")
                          and not name.startswith(allowed or "-")})
            if bad:
                found[str(path.relative_to(ROOT))] = bad
        self.assertTrue(eras.is_dir())
        self.assertEqual(found, {})

    def test_fewModulesAtTheTop(self):
        top = [p.name for p in ROOT.glob("*.py")]
        self.assertLessEqual(len(top), MAX_TOP_MODULES, top)

    def test_modulesAreSmall(self):
        """
        No module runs over MAX_LINES, not counting its top-level imports
        (ruff's isort writes one imported name per line).
        """
        long = {str(path.relative_to(ROOT)): lines
                for path, _ in runtimeModules()
                for lines in [codeLines(path)]
                if lines > MAX_LINES and not str(path.relative_to(ROOT))
                .endswith(LONG_MODULES_ALLOWED)}
        self.assertEqual(long, {})

    def test_protocolLayerIsThin(self):
        """
        The protocol layer stays within MAX_PROTOCOL_LINES: what is not the
        protocol's business lives in the layer it belongs to.
        """
        lines = sum(len(path.read_text().splitlines())
                    for path in (ROOT / "protocol").rglob("*.py"))
        self.assertLessEqual(lines, MAX_PROTOCOL_LINES)

    def test_detectsAnUpwardImport(self):
        """
        The check itself: a tools module importing the transport is caught,
        however it spells the import.
        """
        path = pathlib.Path(self.mktemp())
        path.write_text("from gsmcpd.transport.http import McpApp\n"
                        "import gsmcpd.testing.simulator.stone\n"
                        "from gsmcpd.gci.errors import GciError\n"
                        "from ..protocol.calls import CallRunner\n"
                        "from .. import daemon\n"
                        "from . import base\n")
        self.assertEqual(violations(path, "tools", "gsmcpd.tools"), [
            "gsmcpd.daemon", "gsmcpd.protocol.calls",
            "gsmcpd.protocol.calls.CallRunner",
            "gsmcpd.testing.simulator.stone", "gsmcpd.transport.http",
            "gsmcpd.transport.http.McpApp"])

    def test_relativeImportsResolveAgainstTheirPackage(self):
        module = ROOT / "tools" / "base.py"
        package = ROOT / "tools" / "__init__.py"
        self.assertEqual((packageOf(module), packageOf(package)),
                         ("gsmcpd.tools", "gsmcpd.tools"))
