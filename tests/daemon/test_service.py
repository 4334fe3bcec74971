"""
Tests for L{gsmcpd.daemon.service}: the service tree's order, refusals and
assembly, in memory (the whole daemon over real sockets is
L{tests.daemon.test_service_sockets}).
"""

import collections
import functools
import sys
import types

from twisted.application.internet import StreamServerEndpointService
from twisted.application.service import IService, MultiService, Service
from twisted.internet.address import IPv4Address
from twisted.internet.defer import Deferred
from twisted.internet.error import CannotListenError
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.daemon.admin import Health
from gsmcpd.daemon.heap import FREEZE_INTERVAL
from gsmcpd.daemon.maintenance import Maintenance
from gsmcpd.daemon.options import Options
from gsmcpd.daemon.service import GsmcpService, assemble
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.daemon.stone import (
    CONTROL_INTERVAL,
    ControlSession,
    StartupRefused,
    StoneService,
)
from gsmcpd.gci.pool import GemSessionPool
from gsmcpd.observe.metrics import Metrics
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.eras.legacy.adapter import LegacyEra
from gsmcpd.protocol.eras.modern.adapter import ModernEra
from gsmcpd.protocol.eras.modern.lending import Lending
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.eras.modern.tasks import TaskStore
from gsmcpd.protocol.handlers import Handlers
from gsmcpd.protocol.methods import MethodTable
from gsmcpd.sessions.clients import ClientSessions
from gsmcpd.sessions.hygiene import HYGIENE_INTERVAL, ViewHygiene
from gsmcpd.sessions.lifetime import MAINTENANCE_INTERVAL, Reaper
from gsmcpd.sessions.listeners import ChangeNotices, SessionListeners
from gsmcpd.sessions.logins import Logins, SessionOpener
from gsmcpd.sessions.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.replacement import GemReplacement
from gsmcpd.sessions.shares import Shares
from gsmcpd.sessions.table import WorkSessions
from gsmcpd.sessions.warm import WarmSessions
from gsmcpd.transport.http import McpApp
from gsmcpd.transport.modern import ModernPost


class Recorded(Service):
    """
    A child that notes when it starts and stops.
    """

    def __init__(self, name, journal, stopping=None):
        self.name = name
        self.journal = journal
        self.stopping = stopping

    def startService(self):
        super().startService()
        self.journal.append(f"start {self.name}")

    def stopService(self):
        super().stopService()
        self.journal.append(f"stop {self.name}")
        return self.stopping


class FakeStone(Recorded):
    def __init__(self, journal, ready):
        super().__init__("stone", journal)
        self._ready = ready

    def whenReady(self):
        return self._ready


class FakeReactor:
    def __init__(self):
        self.stopped = False

    def stop(self):
        self.stopped = True


class FakePort:
    def getHost(self):
        return IPv4Address("TCP", "127.0.0.1", 8123)


class GsmcpServiceTests(SynchronousTestCase):

    def setUp(self):
        self.journal = []
        self.ready = Deferred()
        self.listening = Deferred()
        self.reactor = FakeReactor()
        self.logged = []
        globalLogPublisher.addObserver(self.logged.append)
        self.addCleanup(globalLogPublisher.removeObserver, self.logged.append)
        self.service = GsmcpService(
            FakeStone(self.journal, self.ready),
            [Recorded("reaper", self.journal),
             Recorded("listening", self.journal)],
            lambda: self.listening, self.reactor, "tcp:8123 (test)")

    def test_isAMultiService(self):
        self.assertIsInstance(self.service, MultiService)
        verifyObject(IService, self.service)
        self.assertEqual([child.name for child in self.service],
                         ["stone", "reaper", "listening"])

    def test_nothingBoundBeforeTheStone(self):
        self.service.privilegedStartService()
        self.assertEqual(self.journal, [])

    def test_servedOnceTheStoneAnswers(self):
        serving = self.service.whenServing()
        self.service.startService()
        self.assertEqual(self.journal, ["start stone"])
        self.ready.callback(None)
        self.assertEqual(self.journal, ["start stone", "start reaper",
                                        "start listening"])
        self.assertNoResult(serving)
        port = FakePort()
        self.listening.callback(port)
        self.assertIs(self.successResultOf(serving), port)
        [line] = [e for e in self.logged if "banner" in e]
        self.assertEqual((line["banner"], line["port"]),
                         ("tcp:8123 (test)", 8123))

    def refusal(self):
        [line] = [e for e in self.logged
                  if e.get("log_format", "").startswith("gsmcpd: refusing")]
        return line

    def test_stoneRefusalOneLineAndStop(self):
        self.service.startService()
        self.ready.errback(StartupRefused("cannot log in"))
        self.assertEqual(str(self.refusal()["why"]), "cannot log in")
        self.assertNotIn("log_failure", self.refusal())
        self.assertTrue(self.reactor.stopped)
        self.assertEqual(self.journal, ["start stone"])
        self.failureResultOf(self.service.whenServing(), StartupRefused)

    def test_listenRefusal(self):
        self.service.startService()
        self.ready.callback(None)
        self.listening.errback(CannotListenError(
            "127.0.0.1", 8123, OSError("Address already in use")))
        self.assertIn("cannot listen: Couldn't listen on 127.0.0.1:8123",
                      str(self.refusal()["why"]))
        self.assertTrue(self.reactor.stopped)

    def test_unexpectedFailureLoggedWithTraceback(self):
        self.service.startService()
        self.ready.errback(ZeroDivisionError())
        self.assertTrue(self.refusal()["log_failure"].check(
            ZeroDivisionError))
        self.flushLoggedErrors(ZeroDivisionError)
        self.assertTrue(self.reactor.stopped)

    def test_stoppedInReverseOneAfterAnother(self):
        self.service.startService()
        self.ready.callback(None)
        listeningStopped = Deferred()
        self.service.getServiceNamed("listening").stopping = \
            listeningStopped
        del self.journal[:]
        stopped = self.service.stopService()
        self.assertEqual(self.journal, ["stop listening"])
        listeningStopped.callback(None)
        self.assertEqual(self.journal, ["stop listening", "stop reaper",
                                        "stop stone"])
        self.successResultOf(stopped)

    def test_stopGoesOnPastAFailure(self):
        self.service.startService()
        self.ready.callback(None)
        self.service.getServiceNamed("listening").stopping = Deferred()
        stopped = self.service.stopService()
        self.service.getServiceNamed("listening").stopping.errback(
            OSError("the port was already gone"))
        self.successResultOf(stopped)
        self.assertEqual(self.journal[-2:], ["stop reaper", "stop stone"])
        self.assertEqual(len(self.flushLoggedErrors(OSError)), 1)

    def test_stoppedBeforeTheStoneAnswered(self):
        """
        Only what started stops, and nothing starts after the stop.
        """
        self.service.startService()
        self.successResultOf(self.service.stopService())
        self.ready.callback(None)
        self.assertEqual(self.journal, ["start stone", "stop stone"])
        self.assertFalse(self.reactor.stopped)


class AssemblyTests(SynchronousTestCase):

    def setUp(self):
        self.reactor = MemoryReactorClock()

    def assembled(self, *argv):
        options = Options()
        options.parseOptions(["--simulated", "--toolsets", "execution",
                              *argv])
        return assemble(options.config({}), FakeLibrary(), self.reactor)

    def test_tree(self):
        service = self.assembled()
        self.assertEqual([child.name for child in service],
                         ["stone", "hangup", "reaper", "hygiene", "control", "heap",
                          "listening", "operations"])
        self.assertIsInstance(service.getServiceNamed("stone"), StoneService)
        self.assertIsInstance(service.getServiceNamed("listening"),
                              StreamServerEndpointService)
        loops = [service.getServiceNamed(name)
                 for name in ("reaper", "hygiene", "control", "heap")]
        for loop in loops:
            self.assertIsInstance(loop, Maintenance)
            self.assertIs(loop.clock, self.reactor)
        self.assertEqual([loop.step for loop in loops],
                         [MAINTENANCE_INTERVAL, HYGIENE_INTERVAL,
                          CONTROL_INTERVAL, FREEZE_INTERVAL])

    def test_pinnedViewGraceReachesViewHygiene(self):
        """
        View hygiene, which ends a call pinning the oldest commit record,
        is the one user of C{--pinned-view-grace}.
        """
        hygiene = self.assembled("--pinned-view-grace", "30") \
            .getServiceNamed("hygiene")._work.__self__
        self.assertEqual(hygiene.pinnedViewGrace, 30)

    def test_auditNamesTheWorkerUser(self):
        """
        With C{--worker-user}, sessions log in as the worker user, so that is
        the GemStone user the audit trail names.
        """
        log = self.mktemp()
        audits = [self.assembled("--audit-log", log, *argv)
                  .getServiceNamed("audit")._audit
                  for argv in ((), ("--worker-user", "McpReadOnly"))]
        for audit in audits:
            self.addCleanup(audit.close)
        self.assertEqual([audit.defaultUser for audit in audits],
                         ["DataCurator", "McpReadOnly"])

    def test_emptyWorkerUserNamesNone(self):
        """
        An empty C{--worker-user} (C{--worker-user=}, or C{worker-user = ""}
        in the configuration file) names no worker user, as everywhere else:
        the stone starts with no worker to prove, where it once tried to
        call the empty text as its check.
        """
        stone = self.assembled("--worker-user=").getServiceNamed("stone")
        self.assertIsNone(stone._checkWorker)
        self.assertIsNotNone(self.assembled(
            "--worker-user", "McpReadOnly").getServiceNamed(
                "stone")._checkWorker)

    def test_traceWhenAsked(self):
        """
        C{--trace-log} adds the trace, reopened on C{SIGHUP}, with its
        settings; an unwritable file refuses to start, naming the option.
        """
        path = self.mktemp()
        service = self.assembled("--trace-log", path, "--trace-max-body",
                                 "none", "--trace-keep", "2")
        trace = service.getServiceNamed("trace")
        self.addCleanup(trace.file.close)
        self.assertIs(service.getServiceNamed("hangup")._trace, trace)
        self.assertEqual((trace.maxBody, trace.file.keep, trace.file.path,
                          trace.file.maxBytes),
                         (None, 2, path, 50_000_000))
        self.assertNotIn("trace", [child.name for child in self.assembled()])
        self.assertIn("--trace-log", str(self.assertRaises(
            ConfigError, self.assembled, "--trace-log",
            self.mktemp() + "/missing/trace.log")))

    def test_simulatedStoneOnlyWhenAsked(self):
        stone = self.assembled().getServiceNamed("stone")
        self.assertIsNotNone(stone.simulator)
        self.assertEqual(stone.simulator.login.stoneNrs,
                         stone.simulator.socketPath)

    def test_badEndpointRefused(self):
        self.assertIn("--port 'carrier-pigeon:8000'", str(self.assertRaises(
            ConfigError, self.assembled, "--port", "carrier-pigeon:8000",
            "--allow-unauthenticated-remote")))

    def test_listensWhereConfigured(self):
        service = self.assembled("--port", "tcp:8123:interface=127.0.0.1")
        listening = service.getServiceNamed("listening")
        listening.startService()
        self.addCleanup(listening.stopService)
        [(port, _, _, interface)] = self.reactor.tcpServers
        self.assertEqual((port, interface), (8123, "127.0.0.1"))


class FakeLibrary:
    version = "3.7.4 (fake)"


def reachable(root):
    """
    Every object reachable from C{root} through attributes, containers,
    bound methods and closures: what the service tree holds.
    """
    seen, todo = {}, [root]
    while todo:
        each = todo.pop()
        if id(each) in seen or isinstance(each, (str, bytes, int, float,
                                                 bool, type(None), type)):
            continue
        seen[id(each)] = each
        if isinstance(each, dict):
            todo.extend(each.keys())
            todo.extend(each.values())
        elif isinstance(each, (list, tuple, set, frozenset)):
            todo.extend(each)
        elif isinstance(each, types.MethodType):
            todo.append(each.__self__)
        elif isinstance(each, types.FunctionType):
            todo.extend(cell.cell_contents for cell in each.__closure__ or ()
                        if _filled(cell))
        elif isinstance(each, functools.partial):
            todo.extend([each.func, *each.args, *each.keywords.values()])
        if hasattr(each, "__dict__") and \
                not isinstance(each, types.ModuleType):
            todo.extend(vars(each).values())
        for name in getattr(type(each), "__slots__", ()):
            todo.append(getattr(each, name, None))
    return list(seen.values())


def _filled(cell):
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True


def ourClasses():
    """
    The classes of gsmcpd's runtime whose instances take attributes (not
    frozen attrs values, not the simulated stone's).
    """
    for name, module in list(sys.modules.items()):
        if not name.startswith("gsmcpd.") or name.startswith(
                "gsmcpd.testing"):
            continue
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == name and \
                    "__setattr__" not in vars(value) and \
                    "__slots__" not in vars(value):
                yield value


class ServiceTreeTests(SynchronousTestCase):
    """
    The whole service, built by L{assemble} on a clock and a fake library:
    each collaborator built once, reachable from the tree, and given all it
    needs by constructor (nothing assigned to an object from outside it).
    """

    def setUp(self):
        self.reactor = MemoryReactorClock()

    def build(self):
        options = Options()
        options.parseOptions(["--simulated", "--audit-log", "-"])
        return assemble(options.config({}), FakeLibrary(), self.reactor)

    def test_everyCollaboratorOnceInTheTree(self):
        objects = reachable(self.build())
        counts = collections.Counter(type(each) for each in objects)
        for kind in (SessionRegistry, WorkSessions, Logins, SessionOpener,
                     ClientSessions, GemReplacement, Shares,
                     WarmSessions, CallRunner, Handlers,
                     MethodTable, LegacyEra, ModernEra, Lending, ModernPost,
                     McpApp, ChangeNotices,
                     SessionListeners, PendingRequests, GemSessionPool,
                     Health, Metrics, Reaper, ViewHygiene, ControlSession,
                     RequestStateSeal, TaskStore):
            self.assertEqual(counts[kind], 1, kind.__name__)

    def test_nothingAssignedAfterwards(self):
        """
        While the tree is built, no object of ours has an attribute set by
        anything but its own methods.
        """
        assigned = []

        def recording(obj, name, value):
            frame = sys._getframe(1)
            while frame is not None and frame.f_locals.get("self") is not obj:
                frame = frame.f_back
            if frame is None:
                assigned.append(f"{type(obj).__name__}.{name}")
            object.__setattr__(obj, name, value)

        self.build()  # every module imported
        for cls in ourClasses():
            self.patch(cls, "__setattr__", recording)
        self.build()
        self.assertEqual(assigned, [])
