"""
Every runtime module has its own trial test module (issue 10, "tests per
module"), found by its path: C{gsmcpd/<package>/.../<module>.py} is tested
by C{tests/<package>/test_<module>.py} or
C{tests/<package>/test_<parent>_<module>.py}, where C{<package>} is the
module's top package and C{<parent>} the package it is in (for
C{tools/templates}, C{test_template_<module>.py}).  A module whose tests
live elsewhere is listed, with the reason, in L{TESTED_ELSEWHERE}.
"""

import ast
import pathlib

from twisted.trial.unittest import SynchronousTestCase

from tests.structure.test_layering import ROOT, runtimeModules

TESTS = pathlib.Path(__file__).parents[1]

TESTED_ELSEWHERE = {
    # The ctypes binding and the session thread need the real C library:
    # tested together against the simulated stone.
    "gci.library": "gci.test_gci",
    "gci.session": "gci.test_gci",
    "gci.login": "gci.test_gci",
    # A debugged run's calls, through a GemSession on the simulated stone.
    "gci.debugcalls": "gci.test_gci_debugging",
    # A session's debugger state, through the tools that keep it.
    "tools.debugruns": "tools.test_tools_debugger",
    # The debugger's breakpoints, through the toolset that serves them.
    "tools.breakpoints": "tools.test_tools_debugger",
    # The Klein app, in memory with StubTreq (named before the restructure).
    "transport.http": "transport.test_web",
    # The 2026-07-28 endpoint, driven through its transport as a client
    # drives it.
    "protocol.eras.modern.adapter": "transport.test_modern",
    # Each era's answer to a POST, through the transport that calls it.
    "protocol.eras.modern.entry": "transport.test_modern",
    "protocol.eras.legacy.entry": "transport.test_web",
    # The renderer, with every template it renders.
    "tools.templates.render": "tools.test_templates",
    # The registry's parts, through the registry that assembles them.
    "sessions.table": "sessions.test_registry",
    "sessions.logins": "sessions.test_registry",
    "sessions.replacement": "sessions.test_registry",
    # The syntax tree and its walk, through the parser that builds them.
    "smalltalk.ast": "smalltalk.test_smalltalk_parser",
    "smalltalk.walk": "smalltalk.test_smalltalk_parser",
    # Interfaces: every provider of every one, fakes included, in one place.
    "gci.interfaces": "structure.test_interfaces",
    "sessions.interfaces": "structure.test_interfaces",
}
"""Runtime module (dotted, below C{gsmcpd}) to the test module that tests
it (dotted, below C{tests}), where that is not found by path."""


def dottedName(path):
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def candidates(dotted):
    """
    The test modules (dotted, below C{tests}) that would test C{dotted} by
    convention: in the sub-package of C{tests} named after its top package.
    """
    *packages, module = dotted.split(".")
    names = [f"test_{module}"]
    if packages:
        parent = packages[-1]
        names.append(f"test_{parent}_{module}")
        if parent.endswith("s"):
            names.append(f"test_{parent[:-1]}_{module}")
    return [".".join(packages[:1] + [name]) for name in names]


def testModuleOf(dotted, existing, table=TESTED_ELSEWHERE):
    """
    The test module of C{dotted} among C{existing}, or L{None}.
    """
    if dotted in table:
        return table[dotted] if table[dotted] in existing else None
    return next((name for name in candidates(dotted) if name in existing),
                None)


def modulesToTest():
    """
    Every runtime module but package initialisers (which
    L{EveryModuleTestedTests.test_initialisersHoldNoBehaviour} keeps that
    way), as C{(dotted name, path)}.
    """
    return [(dottedName(path), path) for path, _ in runtimeModules()
            if path.name != "__init__.py"]


def existingTestModules():
    """
    The test modules of C{tests}' sub-packages, dotted below C{tests}.
    """
    return {f"{path.parent.name}.{path.stem}"
            for path in TESTS.glob("*/test_*.py")}


class EveryModuleTestedTests(SynchronousTestCase):

    def test_everyModuleHasATestModule(self):
        existing = existingTestModules()
        untested = sorted(dotted for dotted, _ in modulesToTest()
                          if testModuleOf(dotted, existing) is None)
        self.assertEqual(untested, [], "runtime modules without a test "
                         "module: add tests/<package>/test_<module>.py")

    def test_tableIsCurrent(self):
        """
        Every entry names a module that exists and has no test module by
        name: one that gains its own leaves the table.
        """
        modules = {dotted for dotted, _ in modulesToTest()}
        existing = existingTestModules()
        stale = {dotted: testModule
                 for dotted, testModule in TESTED_ELSEWHERE.items()
                 if dotted not in modules
                 or testModule not in existing
                 or testModuleOf(dotted, existing, {}) is not None}
        self.assertEqual(stale, {})

    def test_initialisersHoldNoBehaviour(self):
        """
        Package initialisers are skipped, so nothing with behaviour may
        hide in one.
        """
        found = {}
        for path, _ in runtimeModules():
            if path.name != "__init__.py":
                continue
            defined = [node.name for node in ast.parse(path.read_text()).body
                       if isinstance(node, (ast.FunctionDef,
                                            ast.AsyncFunctionDef,
                                            ast.ClassDef))]
            if defined:
                found[dottedName(path)] = defined
        self.assertEqual(found, {})

    def test_detectsAModuleWithoutTests(self):
        """
        The check itself: a new module is caught, and found once tested
        under either name in its package's tests, not elsewhere.
        """
        self.assertIsNone(testModuleOf("sessions.quota",
                                       {"sessions.test_sessions"}))
        self.assertIsNone(testModuleOf("sessions.quota",
                                       {"protocol.test_quota"}))
        self.assertEqual(testModuleOf("sessions.quota",
                                      {"sessions.test_quota"}),
                         "sessions.test_quota")
        self.assertEqual(
            testModuleOf("sessions.quota", {"sessions.test_sessions_quota"}),
            "sessions.test_sessions_quota")
        self.assertEqual(
            testModuleOf("tools.templates.run", {"tools.test_template_run"}),
            "tools.test_template_run")
        self.assertIsNone(testModuleOf("gci.library", {"gci.test_library"},
                                       {"gci.library": "gci.test_gci"}))

    def test_everyTestModuleInAPackage(self):
        """
        No test module sits directly in C{tests}: each is in the
        sub-package of what it tests.
        """
        self.assertEqual(sorted(path.name for path in TESTS.glob("test_*.py")),
                         [])
