"""
The simulated stone's session table and shared page cache as System
answers them: C{descriptionOfSession:} and the page cache monitor's
statistics.

Field numbers and statistic names are GemStone's (see
C{tests/selectors/admin.tsv} for their sources); what the model cannot know
(a gem's process id, its session state, the cache's own page kinds) is nil
or left out, never made up.
"""

from gsmcpd.testing.simulator.kernel import classMethod
from gsmcpd.testing.simulator.objects import Array, String, UserProfile

CACHE_FRAMES = 8192
"""Frames in the simulated shared page cache (128 MB of 16 KB pages)."""

KERNEL_PAGES = 1200
"""Pages the kernel's own objects hold in the cache once the stone runs."""

PAGES_PER_SESSION = 16
"""Pages a logged-in session's gem keeps in the cache (its view's roots)."""

DIRTY_PAGES_PER_WRITER = 4
"""Pages a session holding uncommitted changes has dirtied."""

MONITOR_STATISTICS = ("FrameCount", "FreeFrameCount", "GlobalDirtyPageCount",
                      "LocalDirtyPageCount", "TotalCrPages")
"""The page cache monitor statistics the model keeps, in its order (a real
stone has many more, in another order: readers look a name up)."""


@classMethod("System", "descriptionOfSession:")
def _descriptionOfSession(ev, receiver, number):
    """
    The fields the simulator models (1 UserProfile, 3 host, 8 holds the
    oldest commit record, 10 session id, 14 its last request, 15 its
    login, 16 commits behind); the rest are nil.  Another session's needs
    SessionAccess.  For a session not logged in GemStone answers an Array
    whose UserProfile is nil, not nil (as the audit of issue 30 reports of
    3.7); the model leaves every other field nil too (the stricter reading).
    """
    stone = ev.session.stone
    if number != ev.session.number:
        stone.requirePrivilege(ev.session, "SessionAccess", "System descriptionOfSession:")
    target = stone.sessions.get(number)
    fields = [None] * 24
    if target is None:
        return Array(fields)
    fields[0] = UserProfile(target.user)
    fields[2] = String(stone.host)
    fields[7] = number in stone.backlogState()[1]
    fields[9] = number
    fields[13] = target.lastRequestAt
    fields[14] = target.loggedInAt
    fields[15] = target.transaction.commitsBehind
    return Array(fields)


COMMIT_RECORD_PAGES = 65521
"""A prime: the model's commit records' pages are their commit numbers
scattered over this many pages, so no two records the stone holds share
one and a reader cannot take a page for a count."""


@classMethod("System", "commitRecordPageForSessionId:")
def _commitRecordPage(ev, receiver, number):
    """
    The page of the commit record the session's view was taken at: it
    changes when the view moves to a newer commit (its commit, or an abort
    or continue after another session committed), and says nothing of
    order.  Another session's needs SessionAccess (as its description
    does); nil for a session not logged in.
    """
    stone = ev.session.stone
    if number != ev.session.number:
        stone.requirePrivilege(ev.session, "SessionAccess",
                               "System commitRecordPageForSessionId:")
    target = stone.sessions.get(number)
    if target is None:
        return None
    return 1 + (target.transaction.view * 40503 + 7919) % COMMIT_RECORD_PAGES


@classMethod("System", "cacheStatisticsDescriptionForMonitor")
def _monitorStatisticNames(ev, receiver):
    return Array([String(name) for name in MONITOR_STATISTICS])


@classMethod("System", "sharedPageCacheMonitorCacheStatistics")
def _monitorStatistics(ev, receiver):
    values = monitorStatistics(ev.session.stone)
    return Array([values[name] for name in MONITOR_STATISTICS])


def monitorStatistics(stone):
    """
    The cache's use by name: the kernel's pages, each session's, each
    commit record the backlog holds and the pages of sessions holding
    uncommitted changes.  Nothing is committed but not yet written (the
    model writes at once), so no page is locally dirty.
    """
    sessions = list(stone.sessions.values())
    backlog = stone.backlogState()[0]
    dirty = DIRTY_PAGES_PER_WRITER * sum(
        1 for each in sessions if each.transaction.needsCommit)
    used = KERNEL_PAGES + PAGES_PER_SESSION * len(sessions) + backlog + dirty
    return {"FrameCount": CACHE_FRAMES,
            "FreeFrameCount": max(CACHE_FRAMES - used, 0),
            "GlobalDirtyPageCount": dirty, "LocalDirtyPageCount": 0,
            "TotalCrPages": backlog}
