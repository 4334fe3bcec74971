"""
Tests for L{gsmcpd.protocol.pipeline}: every C{tools/call} of either era
takes one pipeline, its tool looked up once and the call admitted once.
(The answers of both eras, byte for byte: L{tests.structure.test_answercorpus}.)
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.daemon.service import eras
from gsmcpd.protocol import kinds
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.protocol.jsonrpc import INVALID_REQUEST
from gsmcpd.protocol.pipeline import IEra
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.listeners import ChangeNotices, SessionListeners
from gsmcpd.sessions.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.shares import CALLS_PER_IDENTITY, FairShares, ShareExhausted
from gsmcpd.tools.catalog import ToolCatalog
from tests.builders import clientSession
from tests.fakes import FakeGem, FakePool
from tests.protocol.test_handlers import message

ENVELOPE = Envelope(MODERN_VERSION, {}, {"name": "t", "version": "1"},
                    "debug")


class PipelineTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.registry = SessionRegistry(FakePool(2), self.clock)
        handlers = Handlers(ToolCatalog.named(["execution"]),
                            ServerIdentity())
        self.legacy, self.modern = eras(
            handlers, CallRunner(self.registry, self.clock), self.registry,
            PendingRequests(self.clock), SessionListeners(ChangeNotices()),
            self.clock)
        self.admitted = []
        admitCall = self.registry.shares.admitCall
        self.patch(self.registry.shares, "admitCall", lambda work, *rest: (
            self.admitted.append(work), admitCall(work, *rest))[1])
        self.looked = []
        toolCalled = handlers.toolCalled
        self.patch(handlers, "toolCalled", lambda *args: (
            self.looked.append(args), toolCalled(*args))[1])

    def call(self, **params):
        return message("tools/call", name="execute_code",
                       arguments={"code": "3 + 4"}, **params)

    def test_bothErasAreCodecs(self):
        self.assertTrue(verifyObject(IEra, self.legacy))
        self.assertTrue(verifyObject(IEra, self.modern))
        self.assertIs(self.legacy.pipeline, self.modern.pipeline)

    def test_legacyOnceEach(self):
        """
        A 2025 call is looked up once and admitted once, into its client's
        work session.
        """
        client = clientSession(FakeGem())
        self.successResultOf(self.legacy.answer(client, self.call()))
        self.assertEqual(len(self.looked), 1)
        self.assertEqual(self.admitted, [client.work])

    def test_throwawayAdmittedOnceBeforeItIsLent(self):
        """
        A 2026 call without a handle is admitted once, before a throwaway
        session is lent for it (not again once it is lent).
        """
        self.successResultOf(self.modern.answer(
            self.call(), ENVELOPE, {}, lambda: None))
        self.assertEqual(len(self.looked), 1)
        self.assertEqual(self.admitted, [None])

    def test_unknownToolRecordedAsItsEraRecordsIt(self):
        """
        Where the eras differ, the difference is a step of the era: a call
        of no tool is recorded with the arguments it gave in the 2025 era,
        and without them in the 2026 one (its arguments were never read).
        """
        recorded = []
        calls = self.legacy.calls
        original = calls.recorded
        self.patch(calls, "recorded", lambda call, answer: (
            recorded.append(call.arguments), original(call, answer))[1])
        unknown = message("tools/call", name="nope", arguments={"a": 1})
        self.successResultOf(self.legacy.answer(clientSession(FakeGem()),
                                                unknown))
        self.failureResultOf(self.modern.answer(unknown, ENVELOPE, {},
                                                lambda: None))
        self.assertEqual(recorded, [{"a": 1}, None])

    def inFlight(self, requestId=1):
        """
        A client session whose work session runs request C{requestId}.
        """
        client = clientSession(FakeGem())
        client.work.admit(RunningCall(client.work, requestId, None,
                                      self.clock))
        return client

    def overShare(self):
        """
        One call in flight is every work session's share.
        """
        self.registry.shares.caps = FairShares(callsPerSession=1)

    def test_idInFlightBeforeShare(self):
        """
        A reused request id is answered as such before the caller's share
        is asked: an invalid request, not C{shareCap}.
        """
        self.overShare()
        response = self.successResultOf(self.legacy.answer(
            self.inFlight(), self.call()))
        self.assertEqual(response["error"]["code"], INVALID_REQUEST)
        self.assertIn("already in flight", response["error"]["message"])

    def test_legacyUnknownToolAdmittedFirst(self):
        """
        A 2025 call of no tool is admitted as any call of its client is:
        a reused id, then the share, are answered before the missing tool.
        """
        unknown = message("tools/call", name="nope", arguments={})
        response = self.successResultOf(self.legacy.answer(
            self.inFlight(), unknown))
        self.assertIn("already in flight", response["error"]["message"])
        self.overShare()
        response = self.successResultOf(self.legacy.answer(
            self.inFlight(2), unknown))
        self.assertEqual(response["error"]["data"]["kind"], kinds.SHARE_CAP)
        self.assertEqual(len(self.looked), 2)

    def test_modernRefusedAtAdmissionSpendsItsState(self):
        """
        A 2026 call refused at admission spends its C{requestState}, as it
        did when its round admitted it: the same state is not accepted
        again, whether it was refused before a throwaway session was lent
        or once its handle's session was found.
        """
        handle = self.successResultOf(self.modern.answer(
            message("tools/call", name="open_session", arguments={}),
            ENVELOPE, {}, lambda: None)).minted
        admitCall = self.registry.shares.admitCall

        def overShare(work, *rest):
            raise ShareExhausted(CALLS_PER_IDENTITY, 1)
        for arguments, headers in (
                ({"code": "3 + 4"}, {}),
                ({"code": "3 + 4", "session": handle},
                 {"mcp-param-session": [handle]})):
            params = {"name": "execute_code", "arguments": arguments}
            call = message("tools/call", **params, requestState=(
                self.modern.seal.seal("tools/call", params, {})))
            self.registry.shares.admitCall = overShare
            failure = self.failureResultOf(self.modern.answer(
                call, ENVELOPE, headers, lambda: None))
            self.assertEqual((failure.value.data or {}).get("kind"),
                             kinds.SHARE_CAP, (arguments, failure.value))
            self.registry.shares.admitCall = admitCall
            failure = self.failureResultOf(self.modern.answer(
                call, ENVELOPE, headers, lambda: None))
            self.assertIn("already used", failure.value.message, arguments)
