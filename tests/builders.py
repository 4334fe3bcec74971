"""
The 2025 era's adapter over in-memory doubles, for tests that answer
parsed messages on a client's session with no HTTP (the transport's tests,
L{tests.transport.test_web}, drive the same adapter through the Klein app).
"""

from twisted.internet.task import Clock

from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.eras.legacy.adapter import LegacyEra
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.protocol.methods import MethodTable
from gsmcpd.protocol.pipeline import CallPipeline
from gsmcpd.protocol.versions import LATEST_LEGACY_VERSION
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.listeners import ChangeNotices, SessionListeners
from gsmcpd.sessions.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.work import WorkSession
from tests.fakes import FakePool


def legacyEra(tools, identity=None, registry=None, clock=None):
    """
    A L{LegacyEra} serving C{tools}, its calls run by a L{CallRunner} on
    C{clock} (by default a fresh L{Clock}, so no deadline ever passes),
    over C{registry} (by default one of its own, over a L{FakePool}, with
    no fair shares).
    """
    handlers = Handlers(tools, identity or ServerIdentity())
    clock = Clock() if clock is None else clock
    registry = SessionRegistry(FakePool(), clock) if registry is None \
        else registry
    return LegacyEra(handlers, MethodTable(handlers),
                     CallPipeline(handlers, CallRunner(registry, clock)),
                     registry,
                     PendingRequests(clock), SessionListeners(ChangeNotices()))


def clientSession(gem, handle="h1", version=LATEST_LEGACY_VERSION,
                  capabilities=None, **kwargs):
    """
    A 2025 client's session, working in a work session over C{gem}.
    """
    return ClientSession(WorkSession(handle, gem), version, {}, capabilities,
                         **kwargs)
