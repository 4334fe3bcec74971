"""
Every provider of every interface, fakes included, checked with
L{verifyObject}: a fake that drifts from its interface fails here rather
than passing the tests that use it.  (L{EventStream}, an L{IPushProducer},
is checked where a real GET opens one, in L{tests.transport.test_web}.)
"""

from twisted.internet import reactor
from twisted.internet.interfaces import (
    IOpenSSLServerConnectionCreator,
    IProtocolNegotiationFactory,
)
from twisted.internet.task import Clock
from twisted.logger import ILogObserver
from twisted.trial.unittest import TestCase
from twisted.web.resource import Resource
from twisted.web.test.requesthelper import DummyRequest
from zope.interface.verify import verifyObject

from gsmcpd.auth.keys import IKeySource, KeyFile, RemoteKeys, usableKeys
from gsmcpd.daemon.recording import Recording
from gsmcpd.gci.interfaces import IDebugSession, ISessionPool
from gsmcpd.gci.pool import GemSessionPool
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.observe.auditchain import ChainedJsonObserver
from gsmcpd.observe.auditfile import AuditFile
from gsmcpd.protocol.eras.legacy.dialect import LegacyDialect
from gsmcpd.protocol.eras.modern.asking import ModernAsker
from gsmcpd.protocol.eras.modern.dialect import ModernDialect
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.tasks import TaskProgress, TaskStore
from gsmcpd.protocol.facts import IDialect
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.context import CallContext
from gsmcpd.sessions.interfaces import (
    ICallSink,
    IClientRequests,
    ISessionCloser,
    IWorkSession,
)
from gsmcpd.sessions.outbound import PendingRequests, StreamAsker
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.base import Tool
from gsmcpd.tools.context import NULL_CONTEXT, ICallContext, ICallControl
from gsmcpd.tools.questions import NULL_ASKER, IAsker
from gsmcpd.transport.connections import GuardedFactory, GuardedSite
from gsmcpd.transport.sse import CallStream, EventSequence
from gsmcpd.transport.tls import ReloadingContexts, TLSEndpoint
from tests.builders import clientSession
from tests.fakes import FakeGem, FakePool, RecordingSink
from tests.idp import IdentityProvider, TestCA, writeIdentity
from tests.toolharness import InProcessGem, ToolHarness


def login():
    return LoginParameters(stoneNrs="gs64stone", gemNrs="gemnetobject",
                           user="DataCurator", password="swordfish")


class GciProviderTests(TestCase):

    def test_gemSession(self):
        gem = GemSession(object(), login(), reactor, "verified")
        self.addCleanup(gem.logout)
        self.assertTrue(verifyObject(IDebugSession, gem))

    def test_fakeGem(self):
        self.assertTrue(verifyObject(IDebugSession, FakeGem()))

    def test_inProcessGem(self):
        harness = ToolHarness(["execution"])
        self.assertTrue(verifyObject(IDebugSession,
                                     InProcessGem(harness.stone)))

    def test_templateCheckRecording(self):
        gem = GemSession(object(), login(), reactor, "recorded")
        self.addCleanup(gem.logout)
        self.assertTrue(verifyObject(IDebugSession, Recording(gem)))

    def test_gemSessionPool(self):
        pool = GemSessionPool(object(), login(), reactor, 1)
        self.assertTrue(verifyObject(ISessionPool, pool))

    def test_fakePool(self):
        self.assertTrue(verifyObject(ISessionPool, FakePool()))


class CallProviderTests(TestCase):

    def test_nullContext(self):
        self.assertTrue(verifyObject(ICallContext, NULL_CONTEXT))

    def test_runningCall(self):
        """
        A running call is how it is ended, not what its tool may ask of it.
        """
        run = RunningCall(WorkSession("h1", FakeGem()), 1, None, Clock())
        self.assertTrue(verifyObject(ICallControl, run))
        self.assertFalse(ICallContext.providedBy(run))

    def test_callContext(self):
        """
        A call's context, made of its parts, whatever they are.
        """
        client = clientSession(FakeGem())
        run = RunningCall(client.work, 1, None, Clock())
        for context in (CallContext(), CallContext(
                StreamAsker(PendingRequests(Clock()), client,
                            RecordingSink()), RecordingSink(),
                client.wantsLog, run)):
            self.assertTrue(verifyObject(ICallContext, context))

    def test_workSession(self):
        self.assertTrue(verifyObject(IWorkSession,
                                     WorkSession("h1", FakeGem())))

    def test_callStream(self):
        stream = CallStream(DummyRequest([b"mcp"]), Clock(),
                            EventSequence("c1", None), token=None)
        self.assertTrue(verifyObject(ICallSink, stream))

    def test_recordingSink(self):
        self.assertTrue(verifyObject(ICallSink, RecordingSink()))

    def test_pendingRequests(self):
        self.assertTrue(verifyObject(IClientRequests,
                                     PendingRequests(Clock())))

    def test_sessionRegistry(self):
        self.assertTrue(verifyObject(ISessionCloser,
                                     SessionRegistry(FakePool(), Clock())))

    def test_dialects(self):
        for dialect in (LegacyDialect(None, {}),
                        ModernDialect(None, {}, Tool.descriptor, (), {})):
            self.assertTrue(verifyObject(IDialect, dialect))


class OtherProviderTests(TestCase):
    """
    The providers beside the call path: a task's stream, the token keys'
    sources, the ways of asking, and the TLS contexts.
    """

    def test_taskProgress(self):
        self.assertTrue(verifyObject(ICallSink, TaskProgress(
            TaskStore(Clock()))))

    def test_keyFile(self):
        self.assertTrue(verifyObject(IKeySource, KeyFile(usableKeys(
            IdentityProvider().jwks()))))

    def test_remoteKeys(self):
        self.assertTrue(verifyObject(IKeySource, RemoteKeys(
            None, Clock(), jwksUrl="https://idp.test/certs")))

    def test_askers(self):
        """
        One provider of L{IAsker} per era (the 2026 one's in input-required
        rounds or inside a task), and one for no client.
        """
        envelope = Envelope(MODERN_VERSION, {}, None, None)
        for asker in (StreamAsker(PendingRequests(Clock()),
                                  clientSession(FakeGem()), None),
                      ModernAsker(envelope, {}), NULL_ASKER):
            self.assertTrue(verifyObject(IAsker, asker))

    def test_reloadingContexts(self):
        ca = TestCA()
        certificate, key = writeIdentity(self, ca)
        contexts = ReloadingContexts(TLSEndpoint(
            port=0, interface="127.0.0.1", backlog=50, privateKey=key,
            certKey=certificate))
        self.assertTrue(verifyObject(IOpenSSLServerConnectionCreator,
                                     contexts))

    def test_auditObservers(self):
        """
        The audit's file, and the chain it writes through.
        """
        path = self.mktemp()
        trail = AuditFile(path)
        self.addCleanup(trail.close)
        self.assertTrue(verifyObject(ILogObserver, trail))
        with open(path, "ab") as file:
            self.assertTrue(verifyObject(ILogObserver,
                                         ChainedJsonObserver(file)))

    def test_guardedFactory(self):
        """
        The served factory tells TLS which protocols it speaks (ALPN).
        """
        factory = GuardedFactory(GuardedSite(Resource(), reactor=Clock()))
        self.assertTrue(verifyObject(IProtocolNegotiationFactory, factory))
        self.assertEqual(factory.acceptableProtocols(), [b"http/1.1"])
