"""
Tests for L{gsmcpd.protocol.eras.modern.lending}: which work session a
2026-era call runs in, a handle's or a throwaway one for a call without a
handle, its refusals as the era words them.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol.eras.modern.envelope import NO_SUCH_SESSION, Envelope
from gsmcpd.protocol.eras.modern.handles import HANDLE_TOOLS
from gsmcpd.protocol.eras.modern.lending import Lending, handleNamed
from gsmcpd.protocol.jsonrpc import JsonRpcError
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.warm import THROWAWAY_REASON
from gsmcpd.tools.base import ANY_SESSION, OWN_SESSION, Tool, annotations, closedSchema
from gsmcpd.tools.templates.outcomes import ToolError
from tests.fakes import FakePool

LOCK = ("disable_commits", {"reason": THROWAWAY_REASON})
"""The commit lock every throwaway session is armed with at its login."""

ENVELOPE = Envelope(MODERN_VERSION, {"elicitation": {}},
                    {"name": "t", "version": "1"}, "debug")


def tool(readOnly, runsOn=ANY_SESSION):
    return Tool("t", "t", "d", closedSchema(), annotations(readOnly), None,
                runsOn=runsOn)


class LendingTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool(2)
        self.registry = SessionRegistry(self.pool, self.clock)
        self.sessions = Lending(self.registry)

    def openHandle(self):
        """
        Run C{open_session}: the handle it answers.
        """
        minted = []
        opened = self.successResultOf(self.sessions.handleTool(
            HANDLE_TOOLS[0], {}, ENVELOPE, minted.append))
        self.assertEqual(minted, [opened["structuredContent"]["session"]])
        return minted[0]

    def test_handle(self):
        opened = self.successResultOf(self.registry.opener.open())
        session, done = self.successResultOf(
            self.sessions.forTool(tool(False), opened.handle, ENVELOPE, 1))
        self.assertIs(session, opened)
        done()
        self.assertIs(self.registry.work.get(opened.handle), opened)

    def test_handleFoundByReading(self):
        """
        A handle's session is found by reading the live sessions, nothing
        counted and nothing admitted (the call is, as it runs): a request
        id in flight there does not stop it being found.
        """
        opened = self.successResultOf(self.registry.opener.open())
        opened.calls.running[1] = object()
        self.clock.advance(5)
        session, done = self.successResultOf(
            self.sessions.forTool(tool(False), opened.handle, ENVELOPE, 1))
        self.assertIs(session, opened)
        self.assertEqual(opened.liveness.lastActivity, 0)

    def test_handleNamedForItsOwnerOnly(self):
        """
        A handle names its session for the identity that opened it only,
        by the same steps as one that names nothing.
        """
        alice = Principal("alice", "Alice", frozenset(), 0.0)
        handled = self.successResultOf(self.registry.opener.open(alice))
        self.assertIs(handleNamed(self.registry, handled.handle, alice),
                      handled)
        for who in (None, Principal("bob", "Bob", frozenset(), 0.0)):
            self.assertIsNone(handleNamed(self.registry, handled.handle,
                                          who))
        self.assertIsNone(handleNamed(self.registry, "0" * 32, alice))

    def test_handleWaitsForItsReplacement(self):
        """
        A handle's session whose gem is being replaced is found once the
        replacement is over (found again then), its activity counted.
        """
        opened = self.successResultOf(self.registry.opener.open())
        opened.replacementBegan()
        self.clock.advance(5)
        lending = self.sessions.forTool(tool(False), opened.handle,
                                        ENVELOPE, 1)
        self.assertNoResult(lending)
        self.assertEqual(opened.liveness.lastActivity, 5)
        opened.replacementOver()
        session, done = self.successResultOf(lending)
        self.assertIs(session, opened)

    def test_handleClosedWhileReplaced(self):
        """A session closed while its replacement was awaited is none."""
        opened = self.successResultOf(self.registry.opener.open())
        opened.replacementBegan()
        lending = self.sessions.forTool(tool(False), opened.handle,
                                        ENVELOPE, 1)
        self.registry.work.remove(opened)
        opened.replacementOver()
        failure = self.failureResultOf(lending, JsonRpcError)
        self.assertEqual(failure.value.code, NO_SUCH_SESSION)

    def test_noSuchHandle(self):
        gone = "f" * 32
        failure = self.failureResultOf(
            self.sessions.forTool(tool(True), gone, ENVELOPE, 1), JsonRpcError)
        self.assertEqual(failure.value.code, NO_SUCH_SESSION)
        self.assertIn(repr(gone), failure.value.message)

    def test_sessionIdIsNoHandle(self):
        """
        A 2025 session's id is never a 2026 handle: refused as one that
        names nothing.
        """
        legacy = self.successResultOf(self.registry.clients.open(
            "2025-11-25", None))
        failure = self.failureResultOf(
            self.sessions.forTool(tool(True), legacy.handle, ENVELOPE, 1),
            JsonRpcError)
        self.assertEqual(failure.value.code, NO_SUCH_SESSION)
        self.assertIsNone(handleNamed(self.registry, legacy.handle, None))

    def test_throwawaySessionIsNoHandle(self):
        """
        A throwaway session's handle, kept warm or lent, never names a
        session to a call: it is refused as one that names nothing.
        """
        self.registry.warm.perUser = 2
        session, done = self.successResultOf(
            self.sessions.forTool(tool(True), None, ENVELOPE, 1))
        self.assertIsNone(handleNamed(self.registry, session.handle, None))
        done()
        failure = self.failureResultOf(
            self.sessions.forTool(tool(True), session.handle, ENVELOPE, 1),
            JsonRpcError)
        self.assertEqual(failure.value.code, NO_SUCH_SESSION)
        self.assertEqual(len(self.registry.warm), 1)

    def test_lastingChangeNeedsHandle(self):
        failure = self.failureResultOf(self.sessions.forTool(
            tool(False, OWN_SESSION), None, ENVELOPE, 1), ToolError)
        self.assertIn("open_session", failure.value.message)
        self.assertEqual(self.pool.opened, [])

    def test_callWithoutHandleLoggedOut(self):
        """
        A tool called without a handle runs on a throwaway session that is
        logged out when the call ends, whatever the tool (a read-only one
        too: what it left in the session may not reach another call); its
        logout discards its work, so no abort is sent.
        """
        self.registry.warm.perUser = 2
        for readOnly in (False, True):
            session, done = self.successResultOf(
                self.sessions.forTool(tool(readOnly), None, ENVELOPE, 1))
            self.assertTrue(session.throwaway)
            before = list(session.gem.calls)
            done()
            self.assertEqual(session.gem.calls, before)
            self.assertTrue(session.gem.loggedOut)
            self.assertIsNone(self.registry.work.get(session.handle))
        self.assertEqual(len(self.registry.warm), 1)

    def test_changeWithoutWarmReadsLoggedOut(self):
        """
        With no session kept warm, the throwaway session logs out and no
        spare logs in.
        """
        session, done = self.successResultOf(
            self.sessions.forTool(tool(False), None, ENVELOPE, 1))
        done()
        self.assertEqual(session.gem.calls, [LOCK])
        self.assertTrue(session.gem.loggedOut)
        self.assertEqual(len(self.pool.opened), 1)

    def test_handleSessionNotThrowaway(self):
        handle = self.openHandle()
        self.assertFalse(self.registry.work.get(handle).throwaway)

    def test_readBorrowsAFreshSession(self):
        """
        A read without a handle logs in for the call and out after it.
        """
        session, done = self.successResultOf(
            self.sessions.forTool(tool(True), None, ENVELOPE, 1))
        self.assertIs(self.registry.work.get(session.handle), session)
        done()
        self.assertIsNone(self.registry.work.get(session.handle))
        self.assertTrue(self.pool.opened[0].loggedOut)

    def test_secondCallTakesASpare(self):
        """
        With warm reads on, the first call's session is logged out and a
        spare logged in ahead: the second call takes it, never used, after
        moving its view to the newest commit.
        """
        self.registry.warm.perUser = 2
        first, done = self.successResultOf(
            self.sessions.forTool(tool(True), None, ENVELOPE, 1))
        done()
        self.assertTrue(first.gem.loggedOut)
        spare = self.pool.opened[-1]
        self.assertEqual(spare.calls, [LOCK])
        second, done = self.successResultOf(
            self.sessions.forTool(tool(True), None, ENVELOPE, 1))
        self.assertIs(second.gem, spare)
        self.assertEqual(spare.calls, [LOCK, ("abort", {})])
        done()
        self.assertTrue(spare.loggedOut)

    def test_cancelledReadNotKept(self):
        """
        A read the server ended (here, its client cancelled it) is closed,
        not kept: its gem may still be taking the break.
        """
        self.registry.warm.perUser = 2
        session, done = self.successResultOf(
            self.sessions.forTool(tool(True), None, ENVELOPE, 1))
        session.calls.ended = True
        done()
        self.assertTrue(session.gem.loggedOut)
        self.assertEqual(len(self.registry.work), 0)

    def test_openSessionNeverTakesAWarmOne(self):
        """
        C{open_session} logs a session of its own in, as before: a session
        that may change the repository never starts as a read's.
        """
        self.registry.warm.perUser = 2
        session, done = self.successResultOf(
            self.sessions.lender.borrowed(None, None, "x"))
        done()
        spare, = self.registry.work
        handle = self.openHandle()
        self.assertNotEqual(handle, spare.handle)
        self.assertEqual(len(self.pool.opened), 3)

    def test_full(self):
        """
        With every slot taken the refusal is of kind C{sessionLimit} and
        says what an agent can do (never a server flag to change).
        """
        for _ in range(2):
            self.successResultOf(self.registry.opener.open())
        error = self.failureResultOf(self.sessions.forTool(
            tool(True), None, ENVELOPE, 1), ToolError).value
        self.assertEqual((error.kind, error.details), ("sessionLimit",
                                                      {"limit": 2}))
        self.assertIn("close_session", error.message)
        self.assertNotIn("--", error.message)

    def test_closeSession(self):
        """
        C{close_session} logs the session its handle names out; a value
        that names none is the tool's refusal, naming open_session.
        """
        handle = self.openHandle()
        result = self.successResultOf(self.sessions.handleTool(
            HANDLE_TOOLS[1], {"session": handle}, ENVELOPE, self.fail))
        self.assertEqual(result["structuredContent"], {"session": handle})
        self.assertIsNone(self.registry.work.get(handle))
        self.assertTrue(self.pool.opened[0].loggedOut)
        refused = self.successResultOf(self.sessions.handleTool(
            HANDLE_TOOLS[1], {"session": "nope"}, ENVELOPE, self.fail))
        self.assertTrue(refused["isError"])
        self.assertIn("open_session", refused["content"][0]["text"])

    def test_closeUnknownHandleRefused(self):
        """
        C{close_session} of a handle that names no session is refused as a
        L{CallRefused} (audited), its error the one its client is told.
        """
        failure = self.failureResultOf(self.sessions.handleTool(
            HANDLE_TOOLS[1], {"session": "f" * 32}, ENVELOPE, self.fail),
            CallRefused)
        self.assertEqual(failure.value.kind, "unknownHandle")
        self.assertEqual(failure.value.error.code, NO_SUCH_SESSION)
