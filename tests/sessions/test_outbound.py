"""
Tests for L{gsmcpd.sessions.outbound}: server-sent requests get
ids of their own, reach the right stream, and always decide something; a
2025 call asks its client by them.
"""

import json

from twisted.internet.defer import succeed
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.observe.clipping import CLIPPED_LENGTH
from gsmcpd.protocol.jsonrpc import parseMessage
from gsmcpd.sessions.interfaces import (
    ClientAnsweredError,
    ClientDidNotAnswer,
    IClientRequests,
)
from gsmcpd.sessions.outbound import (
    REQUEST_TIMEOUT,
    PendingRequests,
    StreamAsker,
)
from gsmcpd.tools.questions import elicitation, roots
from gsmcpd.tools.templates.outcomes import ToolError
from tests.builders import clientSession
from tests.fakes import FakeGem, RecordingSink


class Session(RecordingSink):
    """
    A session as L{PendingRequests} sees it: a handle, the prefix logs
    name it by, and a stream.
    """

    def __init__(self, handle):
        super().__init__()
        self.handle = handle
        self.label = handle[:8]


def response(requestId, **fields):
    return parseMessage(json.dumps(
        dict({"jsonrpc": "2.0", "id": requestId}, **fields)).encode())


class PendingRequestsTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.pending = PendingRequests(self.clock)
        self.session = Session("h1")

    def test_provides(self):
        self.assertTrue(verifyObject(IClientRequests, self.pending))

    def test_requestPostedWithServerId(self):
        """
        The id is in the server's own namespace, so it can never collide
        with an id the client chose.
        """
        self.pending.send(self.session, "sampling/createMessage", {"a": 1})
        self.pending.send(self.session, "ping")
        self.assertEqual(self.session.messages, [
            {"jsonrpc": "2.0", "id": "srv-1",
             "method": "sampling/createMessage", "params": {"a": 1}},
            {"jsonrpc": "2.0", "id": "srv-2", "method": "ping"}])
        self.assertEqual(len(self.pending), 2)

    def test_viaACallsStream(self):
        via = RecordingSink()
        self.pending.send(self.session, "ping", via=via)
        self.assertEqual(self.session.messages, [])
        self.assertEqual([m["method"] for m in via.messages], ["ping"])

    def test_answerFiresWithResult(self):
        d = self.pending.send(self.session, "ping")
        self.assertTrue(self.pending.answer(
            self.session, response("srv-1", result={"ok": True})))
        self.assertEqual(self.successResultOf(d), {"ok": True})
        self.assertEqual(len(self.pending), 0)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_errorAnswerFails(self):
        d = self.pending.send(self.session, "ping")
        self.pending.answer(self.session, response(
            "srv-1", error={"code": -1, "message": "declined"}))
        failure = self.failureResultOf(d, ClientAnsweredError)
        self.assertEqual(failure.value.args[0]["message"], "declined")

    def test_unknownIdIsNotOurs(self):
        self.assertFalse(self.pending.answer(
            self.session, response("srv-9", result={})))

    def test_unknownAnswerLoggedWithoutTheHandle(self):
        """
        A response to no request of ours is logged with the session's label,
        never its full handle (a bearer capability), and a clipped id.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        handle = "0123456789abcdef0123456789abcdef"
        self.assertFalse(self.pending.answer(
            Session(handle), response("x" * 1_000_000, result={})))
        [event] = [e for e in events
                   if e.get("log_namespace") == PendingRequests.log.namespace]
        self.assertEqual(event["session"], "01234567")
        self.assertNotIn(handle, repr(event))
        self.assertLess(len(event["id"]), CLIPPED_LENGTH + 50)

    def test_anotherSessionCannotAnswer(self):
        """
        A client cannot answer (or spoil) a request sent to someone else.
        """
        d = self.pending.send(self.session, "ping")
        self.assertFalse(self.pending.answer(
            Session("h2"), response("srv-1", result={})))
        self.assertNoResult(d)

    def test_unansweredRequestTimesOut(self):
        d = self.pending.send(self.session, "ping")
        self.clock.advance(REQUEST_TIMEOUT - 0.1)
        self.assertNoResult(d)
        self.clock.advance(0.1)
        self.failureResultOf(d, ClientDidNotAnswer)
        self.assertEqual(len(self.pending), 0)

    def test_lateAnswerIsNotOurs(self):
        d = self.pending.send(self.session, "ping")
        self.clock.advance(REQUEST_TIMEOUT)
        self.failureResultOf(d, ClientDidNotAnswer)
        self.assertFalse(self.pending.answer(
            self.session, response("srv-1", result={})))

    def test_forgetDropsOnlyThatSessionsRequests(self):
        mine = self.pending.send(self.session, "ping")
        theirs = self.pending.send(Session("h2"), "ping")
        self.pending.forget(self.session)
        self.assertNoResult(mine)
        self.assertEqual(len(self.pending), 1)
        self.clock.advance(REQUEST_TIMEOUT)
        self.assertNoResult(mine)
        self.failureResultOf(theirs, ClientDidNotAnswer)


class Pending:
    """
    The server's requests to clients, answered at once by method.
    """

    def __init__(self):
        self.sent = []

    def send(self, session, method, params=None, via=None):
        self.sent.append((session, method, via))
        return succeed({"answered": method})


class StreamAskerTests(SynchronousTestCase):
    """
    Asking on the call's stream: what the client's session declared says
    what it can answer, and each question is one request.
    """

    def test_canAskByTheSessionsCapabilities(self):
        client = clientSession(FakeGem(), capabilities={
            "elicitation": {}, "sampling": True})
        asker = StreamAsker(Pending(), client, RecordingSink())
        self.assertTrue(asker.canAsk("elicitation"))
        self.assertFalse(asker.canAsk("sampling"))
        self.assertFalse(asker.canAsk("roots"))

    def test_askSendsEach(self):
        pending, sink = Pending(), RecordingSink()
        client = clientSession(FakeGem())
        answers = self.successResultOf(StreamAsker(pending, client, sink).ask(
            {"who": elicitation("Who?", {"name": {"type": "string"}}),
             "roots": roots()}))
        self.assertEqual(sorted(method for _, method, _ in pending.sent),
                         ["elicitation/create", "roots/list"])
        self.assertEqual({(session, via) for session, _, via in pending.sent},
                         {(client, sink)})
        self.assertEqual(answers["roots"], {"answered": "roots/list"})

    def test_noStreamNoQuestion(self):
        """
        A call not answered as a stream cannot ask: each request is
        refused, and the question fails naming why.
        """
        pending = Pending()
        asker = StreamAsker(pending, clientSession(FakeGem()), None)
        error = self.assertRaises(ToolError, asker.send, "roots/list", {})
        self.assertEqual(error.kind, "refused")
        failure = self.failureResultOf(asker.ask({"roots": roots()}),
                                       ToolError)
        self.assertIn("accepts an event stream", failure.value.message)
        self.assertEqual(pending.sent, [])
