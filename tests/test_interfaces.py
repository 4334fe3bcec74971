"""
Every provider of every interface, fakes included, checked with
L{verifyObject}: a fake that drifts from its interface fails here rather
than passing the tests that use it.  (L{EventStream}, an L{IPushProducer},
is checked where a real GET opens one, in L{tests.test_web}.)
"""

from twisted.internet import reactor
from twisted.internet.interfaces import IOpenSSLServerConnectionCreator
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase
from twisted.web.test.requesthelper import DummyRequest
from zope.interface.verify import verifyObject

from gsmcpd.auth.keys import IKeySource, KeyFile, RemoteKeys, usableKeys
from gsmcpd.gci.interfaces import IGemSession, ISessionPool
from gsmcpd.gci.pool import GemSessionPool
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.protocol.eras.modern.asking import ModernAsker, TaskAsker
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.protocol.eras.modern.adapter import AskingContext
from gsmcpd.protocol.eras.legacy.outbound import PendingRequests
from gsmcpd.protocol.eras.modern.tasks import TaskProgress, TaskStore
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.interfaces import ICallSink, IClientRequests
from gsmcpd.tools.context import NULL_CONTEXT, ICallContext
from gsmcpd.tools.questions import IAsker, StreamAsker
from gsmcpd.transport.sse import CallStream, EventSequence
from gsmcpd.transport.tls import ReloadingContexts, TLSEndpoint
from tests.fakes import FakeGem, FakePool, RecordingSink
from tests.idp import IdentityProvider, TestCA, writeIdentity
from tests.toolharness import InProcessGem, ToolHarness


class FakeClient:
    clientCapabilities = {}


def login():
    return LoginParameters(stoneNrs="gs64stone", gemNrs="gemnetobject",
                           user="DataCurator", password="swordfish")


class GciProviderTests(TestCase):

    def test_gemSession(self):
        gem = GemSession(object(), login(), reactor, "verified")
        self.addCleanup(gem.logout)
        self.assertTrue(verifyObject(IGemSession, gem))

    def test_fakeGem(self):
        self.assertTrue(verifyObject(IGemSession, FakeGem()))

    def test_inProcessGem(self):
        harness = ToolHarness(["execution"])
        self.assertTrue(verifyObject(IGemSession,
                                     InProcessGem(harness.stone)))

    def test_gemSessionPool(self):
        pool = GemSessionPool(object(), login(), reactor, 1)
        self.assertTrue(verifyObject(ISessionPool, pool))

    def test_fakePool(self):
        self.assertTrue(verifyObject(ISessionPool, FakePool()))


class CallProviderTests(TestCase):

    def test_nullContext(self):
        self.assertTrue(verifyObject(ICallContext, NULL_CONTEXT))

    def test_runningCall(self):
        run = RunningCall(object(), 1, None, Clock(), RecordingSink(),
                          PendingRequests(Clock()))
        self.assertTrue(verifyObject(ICallContext, run))

    def test_callStream(self):
        stream = CallStream(DummyRequest([b"mcp"]), Clock(),
                            EventSequence("c1", None), token=None)
        self.assertTrue(verifyObject(ICallSink, stream))

    def test_recordingSink(self):
        self.assertTrue(verifyObject(ICallSink, RecordingSink()))

    def test_pendingRequests(self):
        self.assertTrue(verifyObject(IClientRequests,
                                     PendingRequests(Clock())))


class OtherProviderTests(TestCase):
    """
    The providers beside the call path: a task's stream, the token keys'
    sources, the 2026 prompt's asking context, and the TLS contexts.
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
        One provider of L{IAsker} per way of asking: on the call's stream,
        in input-required rounds, inside a task.
        """
        envelope = Envelope(MODERN_VERSION, {}, None, None)
        store = TaskStore(Clock())
        for asker in (StreamAsker(None, FakeClient()),
                      ModernAsker(envelope, {}),
                      TaskAsker(store, None, envelope)):
            self.assertTrue(verifyObject(IAsker, asker))

    def test_askingContext(self):
        asker = ModernAsker(Envelope(MODERN_VERSION, {}, None, None), {})
        self.assertTrue(verifyObject(ICallContext, AskingContext(asker)))

    def test_reloadingContexts(self):
        ca = TestCA()
        certificate, key = writeIdentity(self, ca)
        contexts = ReloadingContexts(TLSEndpoint(
            port=0, interface="127.0.0.1", backlog=50, privateKey=key,
            certKey=certificate))
        self.assertTrue(verifyObject(IOpenSSLServerConnectionCreator,
                                     contexts))
