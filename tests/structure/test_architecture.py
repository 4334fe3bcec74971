"""
docs/architecture.rst against the tree: its Modules section names every
module of every package, and the modules it says read HTTP headers are the
ones that do.
"""

import collections
import pathlib
import re
import sys

import attr
from twisted.trial.unittest import SynchronousTestCase

from tests.structure.test_layering import LAYERS, ROOT

DOCUMENT = ROOT.parent / "docs" / "architecture.rst"

HEADER_READS = re.compile(r"getHeader\(|requestHeaders")


def modulesSection():
    """
    Each package the Modules section describes, by dotted name, with the
    names it quotes in double backticks.
    """
    text = DOCUMENT.read_text()
    section = text.split("\nModules\n-------\n", 1)[1].split(
        "\nThe service tree\n", 1)[0]
    parts = re.split(r"^``(gsmcpd[\w.]*)``[^\n]*\n", section, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def packages():
    """
    Every package of the tree (the test doubles' own subpackages aside),
    by dotted name, with its modules' names.
    """
    found = {}
    for path in ROOT.rglob("*.py"):
        dotted = ".".join(path.parent.relative_to(ROOT.parent).parts)
        if dotted == "gsmcpd" or dotted.startswith("gsmcpd.testing.") and \
                dotted.count(".") > 2:
            continue
        modules = found.setdefault(dotted, set())
        if path.stem != "__init__":
            modules.add(path.stem)
    return found


class ModulesSectionTests(SynchronousTestCase):

    def test_everyModuleNamed(self):
        """
        Every module is named in its package's paragraph (the test doubles
        are named as packages).
        """
        described = modulesSection()
        for package, modules in packages().items():
            if package == "gsmcpd.testing":
                continue
            self.assertIn(package, described)
            if package.startswith("gsmcpd.testing."):
                continue
            named = set(re.findall(r"``(\w+)``", described[package]))
            self.assertEqual(modules - named, set(), package)

    def test_everyPackageDescribedExists(self):
        tree = packages()
        for package in modulesSection():
            self.assertIn(package, tree)

    def test_headerReaders(self):
        """
        The modules that read HTTP headers are the ones the transport's
        paragraph names, all in the transport.
        """
        readers = {".".join(path.relative_to(ROOT).with_suffix("").parts)
                   for path in ROOT.rglob("*.py")
                   if path.relative_to(ROOT).parts[0] != "testing" and
                   HEADER_READS.search(path.read_text())}
        self.assertEqual({reader.split(".")[0] for reader in readers},
                         {"transport"})
        sentence = modulesSection()["gsmcpd.transport"].split(
            "Headers are read", 1)[1].split("nothing below", 1)[0]
        transport = packages()["gsmcpd.transport"]
        named = {name for name in re.findall(r"``(\w+)``", sentence)
                 if name in transport} | {"http"}
        self.assertEqual({reader.split(".")[1] for reader in readers}, named)


LAYER_NAMES = {name: index for index, names in enumerate(LAYERS)
               for name in names}


def layerOf(filename):
    """
    The layer (a package of L{LAYERS}) of the runtime module C{filename},
    or L{None} for any other file (Twisted, the tests, the test doubles).
    """
    try:
        parts = pathlib.Path(filename).relative_to(ROOT).parts
    except ValueError:
        return None
    return parts[0] if len(parts) > 1 and parts[0] in LAYER_NAMES else None


@attr.s(auto_attribs=True)
class Trace:
    """
    The runtime modules one request passed through: each Python call from
    one runtime module into another (Twisted's frames in between skipped),
    as C{(caller, callee)} file pairs.
    """

    hops: list[tuple[str, str]] = attr.Factory(list)

    def profile(self, frame, event, arg):
        if event != "call" or layerOf(frame.f_code.co_filename) is None:
            return
        callee = frame.f_code.co_filename
        caller = frame.f_back
        while caller is not None and \
                layerOf(caller.f_code.co_filename) is None:
            caller = caller.f_back
        if caller is not None and caller.f_code.co_filename != callee:
            self.hops.append((caller.f_code.co_filename, callee))

    def files(self):
        return {file for hop in self.hops for file in hop}

    def crossings(self, within=None):
        """
        C{(caller layer, callee layer)} of each call that crosses from one
        layer into another: down into a lower one, or up (a callback).

        @param within: a folder of the runtime package (an era's codec):
            only the crossings of calls made from or into it.
        """
        mine = (lambda file: True) if within is None else (
            lambda file: str(ROOT / within) in file)
        return [(layerOf(caller), layerOf(callee))
                for caller, callee in self.hops
                if layerOf(caller) != layerOf(callee)
                and (mine(caller) or mine(callee))]

    def beyondOnce(self):
        """
        Each ordered pair of layers crossed more than once, with how often.
        """
        return {pair: count for pair, count
                in collections.Counter(self.crossings()).items() if count > 1}

    def summary(self):
        return {"files": len(self.files()), "hops": len(self.hops),
                "crossings": len(self.crossings())}


def traced(testCase, call):
    """
    Run C{call} (a L{Deferred} of a response) under a L{Trace}.
    """
    trace = Trace()
    sys.setprofile(trace.profile)
    try:
        testCase.successResultOf(call())
    finally:
        sys.setprofile(None)
    return trace


class CallPathTests(SynchronousTestCase):
    """
    One C{tools/call} of each era traced with C{sys.setprofile}: the files
    it passes through, the hops between them, and the layers it crosses.

    Each boundary is crossed at most once down and once up.  The transport
    calls the protocol layer once (C{protocol.endpoint.Endpoint.post}).
    The era finds the call's work session by reading the sessions layer's
    tables (2025: the client session its session id names,
    C{eras.legacy.adapter.clientNamed}; 2026: its handle's,
    C{eras.modern.lending.handleNamed}), the principal checked by the
    auth layer once (C{auth.tokens.admits}); the protocol layer looks the
    tool up once (C{ToolCatalog.scoped}) and reads the rest as data (the
    journal's C{summary} for the record; in the 2026 era, a tool's
    C{inputSchema}).  It then hands the call to the sessions layer once
    (C{sessions.running.WorkCalls.run}), which counts it as its session's
    activity, admits it, and (2026) calls its era back once for the call's
    context, its stream opened only then (C{ModernEra._context}); it starts
    the call's observation (C{observe.observed}, ended by its record in
    the protocol layer) and runs the tool through one tools entry
    (C{tools.invocation.invoke}: no call back up), which starts its
    GemStone call once through its context (C{ICallControl.start}).  Off
    this path, a session whose gem is being replaced, or a 2026 call
    without a handle (a throwaway session admitted, then lent), takes a
    second step down.
    """

    def setUp(self):
        from tests.transport.test_modern import ModernTestCase
        self.case = ModernTestCase("send")
        self.case.setUp()
        self.addCleanup(self.case.tearDown)

    def legacyCall(self):
        case = self.case
        handle, _ = case.successResultOf(case.initialize())
        return traced(case, lambda: case.call(handle, "execute_code",
                                              {"code": "3 + 4"}))

    def modernCall(self):
        case = self.case
        handle = case.successResultOf(case.openSession())
        return traced(case, lambda: case.tool(
            "execute_code", {"code": "3 + 4", "session": handle},
            mcp_param_session=handle))

    def test_oncePerBoundary(self):
        """
        Each era's call crosses each boundary at most once down and once
        up.
        """
        for era, trace in (("2025", self.legacyCall()),
                           ("2026", self.modernCall())):
            self.assertEqual(trace.beyondOnce(), {}, (era, trace.summary()))

    def test_modernAddsOnlyItsCodec(self):
        """
        The 2026 call enters no layer the 2025 one does not, and crosses
        no more layers than the 2025 one plus the crossings its codec
        (C{protocol/eras/modern}) makes, each counted; the 2025 one's
        codec makes no more.
        """
        legacy, modern = self.legacyCall(), self.modernCall()
        self.assertLessEqual({layerOf(file) for file in modern.files()},
                             {layerOf(file) for file in legacy.files()})
        codec = modern.crossings(within="protocol/eras/modern")
        self.assertLessEqual(len(modern.crossings()),
                             len(legacy.crossings()) + len(codec))
        self.assertLessEqual(
            len(legacy.crossings(within="protocol/eras/legacy")), len(codec))
