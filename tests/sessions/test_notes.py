"""
Tests for L{gsmcpd.sessions.notes}: which C{[session]} note a result ends
with.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.sessions.notes import (
    COMMITTED_NOTE,
    MOVED_NOTE,
    SESSION_NOTE,
    THROWAWAY_NOTE,
    VIEW_TOOLS,
    sessionNotes,
)
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.base import Tool, annotations, closedSchema
from gsmcpd.tools.templates.outcomes import ViewMove


def tool(readOnly):
    return Tool("t", "t", "d", closedSchema(), annotations(readOnly), None)


class SessionNotesTests(SynchronousTestCase):

    def setUp(self):
        self.session = WorkSession("h" * 32, None)

    def test_uncommittedChanges(self):
        self.assertEqual(sessionNotes(tool(False), True, self.session),
                         [SESSION_NOTE])
        self.assertEqual(sessionNotes(tool(False), False, self.session), [])

    def test_noSession(self):
        """
        A call that ran in no GemStone session kept nothing to note.
        """
        self.assertEqual(sessionNotes(tool(False), None, None), [])

    def test_readOnlySaysNothing(self):
        self.session.throwaway = True
        self.assertEqual(sessionNotes(tool(True), True, self.session), [])

    def test_throwaway(self):
        """
        In a throwaway session the note says nothing was kept, whether or
        not the session held changes before they were aborted.
        """
        self.session.throwaway = True
        for needsCommit in (True, False, None):
            self.assertEqual(
                sessionNotes(tool(False), needsCommit, self.session),
                [THROWAWAY_NOTE])

    def test_codeMovedTheView(self):
        """
        Code that moved the view says so first, committed or not, before
        the note on uncommitted changes.
        """
        self.assertEqual(
            sessionNotes(tool(False), True, self.session, ViewMove(True, True)),
            [COMMITTED_NOTE, SESSION_NOTE])
        self.assertEqual(
            sessionNotes(tool(False), False, self.session,
                         ViewMove(True, False)), [MOVED_NOTE])

    def test_viewToolsSayNothingOfIt(self):
        """
        commit, abort and refresh move the view by design: their answer
        says what they did.
        """
        for name in VIEW_TOOLS:
            moving = Tool(name, name, "d", closedSchema(), annotations(False),
                          None)
            self.assertEqual(sessionNotes(moving, False, self.session,
                                          ViewMove(True, True)), [])
