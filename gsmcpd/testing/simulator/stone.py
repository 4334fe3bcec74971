"""
The simulated stone: users, the login cap, sessions and their
transactions, and what interrupts a session's running call.

Nothing here knows about sockets; L{gsmcpd.testing.simulator.server} connects it
to the fake libgcits.
"""

import itertools
import secrets
import threading
import time

import attr

from gsmcpd.testing.simulator import errors, events, profiling, seed
from gsmcpd.testing.simulator.repository import Repository, Transaction

DEFAULT_USER = "DataCurator"
DEFAULT_PASSWORD = "swordfish"
DEFAULT_STONE = "gs64stone"
VERSION = "3.7.4"

READ_ONLY_USER = "McpReadOnly"
"""A restricted user every simulated stone is seeded with (as
setup-read-only-user.sh provisions one on a real stone): commit-locked, no
privileges beyond compiling, and a password nobody is told.  Its sessions
log in with a one-time password that a full user mints for it."""

FULL_PRIVILEGES = frozenset({
    "SystemControl", "SessionAccess", "OtherPassword", "CodeModification",
    "UserPassword", "GarbageCollection", "FileControl", "SessionPriority"})
"""What the simulator's full users (DataCurator, by default) hold."""

RESTRICTED_PRIVILEGES = frozenset({"CodeModification"})
"""What a seeded restricted user holds: it may compile, not stop sessions."""

GCI_ONETIME_PASSWORD = 0x400
"""The GciTsLogin flag that says the password is a one-time password."""

DEFAULT_CACHE_NAME = "GciTs"
"""What the shared cache calls a GciTs client's gem until it names itself."""

MAX_CACHE_NAME = 31

DEFAULT_HOST = "localhost"

DEFAULT_SIGNAL_ABORT_CR_BACKLOG = 20
"""STN_SIGNAL_ABORT_CR_BACKLOG's default."""

# GsProcess OOPs the simulator hands out for interrupted calls: plausible
# object identifiers, distinct per session.
_PROCESS_OOP_BASE = 0x10000000


class GemKilled(BaseException):
    """
    The session's gem was stopped while it ran: unwind without answering.
    (A BaseException so no Smalltalk handler in the model can catch it.)
    """


@attr.s(eq=False)
class Interrupt:
    """
    Breaks and kills for one session's running call.

    A break counts only while a call is in progress, as GciTsBreak has no
    effect between calls.  A call can be made to ignore soft breaks, or
    both kinds (L{ignoreBreaks}): such a call ends only when its gem is
    stopped.
    """

    _event = attr.ib(factory=threading.Event)
    _lock = attr.ib(factory=threading.Lock)
    _running = attr.ib(default=False)
    _hard = attr.ib(default=False)
    _killed = attr.ib(default=False)
    _ignore = attr.ib(default=None)
    _pendingEvent = attr.ib(default=None)
    context = attr.ib(default=0x14)

    def begin(self):
        with self._lock:
            self._running, self._hard = True, False
            if not self._killed and self._pendingEvent is None:
                self._event.clear()

    def end(self):
        with self._lock:
            self._running = False
            self._ignore = None

    def ignoreBreaks(self, which):
        """
        Make the running call (or the next, if none runs) ignore soft
        breaks (C{"soft"}) or both kinds (C{"both"}); it lasts to the end
        of that call.
        """
        if which not in ("soft", "both"):
            raise ValueError(f"which must be 'soft' or 'both', not {which!r}")
        with self._lock:
            self._ignore = which

    def breakCall(self, hard):
        with self._lock:
            if not self._running:
                return
            if self._ignore == "both" or (self._ignore == "soft" and not hard):
                return
            self._hard = self._hard or hard
            self._event.set()

    def deliver(self, name, detail=""):
        """
        An asynchronous event (L{events}) for the running call, or for the
        next one if none runs; no handler or break setting stops it.
        """
        with self._lock:
            self._pendingEvent = (name, detail)
            self._event.set()

    def takeEvent(self):
        """
        The pending event's C{(name, detail)}; it ends the call, so a
        break that arrived with it goes too.
        """
        with self._lock:
            event, self._pendingEvent = self._pendingEvent, None
            if not self._killed:
                self._event.clear()
        return event

    def kill(self):
        with self._lock:
            self._killed = True
            self._event.set()

    @property
    def killed(self):
        return self._killed

    def poll(self):
        """
        What interrupted the call since the last poll: C{None}, C{"soft"},
        C{"hard"} or C{"event"} (L{takeEvent}).

        @raise GemKilled: the gem was stopped.
        """
        if not self._event.is_set():
            return None
        if self._killed:
            raise GemKilled()
        with self._lock:
            if self._pendingEvent is not None:
                return "event"
            hard, self._hard = self._hard, False
            self._event.clear()
        return "hard" if hard else "soft"

    def check(self):
        """
        Raise what interrupted the call, if anything did (no Smalltalk
        handler gets a say: see the evaluator for that).
        """
        kind = self.poll()
        if kind is not None:
            raise errors.breakError(kind == "hard", self.context)

    def wait(self, seconds):
        """
        Wait up to C{seconds} for an interrupt; whether one came.
        """
        return self._event.wait(seconds)

    def sleep(self, seconds):
        """
        Wait up to C{seconds}, ending early (and raising) on an interrupt.
        """
        if self._event.wait(seconds):
            self.check()


@attr.s(eq=False)
class Session:
    """
    One logged-in session: who, its number, its transaction, its interrupt.
    """

    stone = attr.ib()
    number = attr.ib()
    user = attr.ib()
    transaction = attr.ib()
    interrupt = attr.ib()
    cacheName = attr.ib(default=DEFAULT_CACHE_NAME)
    loggedInAt = attr.ib(default=0)
    lastRequestAt = attr.ib(default=0)
    """When it logged in and when its gem last had a call, as C{System
    timeGmt} counts (L{gsmcpd.testing.simulator.sessiontable})."""
    sends = attr.ib(init=False, default=0)
    """The sends its gem has run: the model's CPU clock (L{profiling})."""
    profiler = attr.ib(init=False, default=None)
    """The C{ProfMonitor} sampling its gem, if one is."""
    debugRuns = attr.ib(init=False, factory=dict)
    """Its processes that can stop, by OOP (L{debugging})."""
    breakpoints = attr.ib(init=False, factory=dict)
    """Its breakpoints: for each compiled method's id, the method and its
    step points (L{debugging})."""
    sorts = attr.ib(init=False, factory=itertools.count)
    """Counts the sorts it ran: where a sort block leaves two elements
    unordered, GemStone's order of them is not specified, and the model's
    turns around at every other sort (L{sequences})."""

    def eventError(self):
        """
        The GCI error the pending asynchronous event ends the running call
        with; a lost object table aborts the session first (the stricter
        reading: its uncommitted changes are gone with its view).
        """
        name, detail = self.interrupt.takeEvent()
        if events.EVENTS[name].losesView:
            self.transaction.abort()
        return events.error(name, self.interrupt.context, detail)


def seededRepository():
    """
    A repository holding the code a stone starts with (L{seed}).
    """
    repository = Repository()
    seed.install(repository)
    return repository


@attr.s(eq=False)
class Stone:
    """
    A repository, its users, and the sessions logged in to it.

    Every user named in C{users} is a full user (L{FULL_PRIVILEGES}); the
    stone also seeds L{READ_ONLY_USER} and each of C{restrictedUsers} as
    commit-locked users with a random password, and lets every full user
    mint one-time passwords for them.

    @ivar clock: seconds, monotonic; one-time passwords expire by it
        (L{advanceClock} moves it for tests).
    @ivar stopGem: called with a session number to stop that session's gem
        (the socket server closes its connection); by default the session
        is just logged out and its call killed.
    """

    name = attr.ib(default=DEFAULT_STONE)
    host = attr.ib(default=DEFAULT_HOST)
    """The host every session's gem runs on."""
    users = attr.ib(factory=lambda: {DEFAULT_USER: DEFAULT_PASSWORD})
    maxLogins = attr.ib(default=10)
    version = attr.ib(default=VERSION)
    repository = attr.ib(factory=seededRepository)
    sessions = attr.ib(factory=dict)
    restrictedUsers = attr.ib(default=())
    signalAbortBacklog = attr.ib(default=DEFAULT_SIGNAL_ABORT_CR_BACKLOG)
    privileges = attr.ib(init=False, factory=dict)
    commitsDisabled = attr.ib(init=False, factory=set)
    onetimeGrants = attr.ib(init=False, factory=dict)
    stopGem = attr.ib(default=None)
    lacking = attr.ib(default=frozenset())
    """Kernel methods this stone does not have, as C{"System
    class>>sessionsReferencingOldestCr"}: an older GemStone version may lack
    an optional one, and its senders must ask (C{respondsTo:}) first."""
    cpuClock = attr.ib(default=profiling.threadCPU)
    """A session's CPU time in nanoseconds, which its profilers sample by
    and C{System millisecondsToRun:} reads (L{profiling})."""
    sampleJitter = attr.ib(default=profiling.DEFAULT_JITTER)
    """How far a profiler's intervals stray from the one asked for, as a
    fraction of it (L{profiling})."""
    _onetime = attr.ib(init=False, factory=dict)      # password -> (userId, expiry)
    _clockOffset = attr.ib(init=False, default=0.0)
    _numbers = attr.ib(factory=lambda: itertools.count(1))
    _lock = attr.ib(factory=threading.RLock)

    def __attrs_post_init__(self):
        self.users = dict(self.users)
        full = list(self.users)
        for user in full:
            self.privileges[user] = set(FULL_PRIVILEGES)
        for user in (READ_ONLY_USER, *self.restrictedUsers):
            if user in full:
                continue
            self.addUser(user, secrets.token_urlsafe(24), RESTRICTED_PRIVILEGES,
                         commitsDisabled=True)
            for minter in full:
                self.grantOnetime(minter, user)

    # ------------------------------------------------------------- users

    def addUser(self, user, password, privileges=FULL_PRIVILEGES, commitsDisabled=False):
        """
        Add (or replace) a user.
        """
        with self._lock:
            self.users[user] = password
            self.privileges[user] = set(privileges)
            (self.commitsDisabled.add if commitsDisabled else self.commitsDisabled.discard)(user)

    def grantOnetime(self, minter, userId):
        """
        Put C{userId} on C{minter}'s one-time password allow list (what
        C{(AllUsers userWithId: minter) addOnetimePasswordUserId: userId}
        and a commit do on a real stone).
        """
        with self._lock:
            if minter not in self.users or userId not in self.users:
                raise KeyError(f"no user {minter if minter not in self.users else userId!r}")
            self.onetimeGrants.setdefault(minter, set()).add(userId)

    def clock(self):
        return time.monotonic() + self._clockOffset

    def timeGmt(self):
        """
        C{System timeGmt}: seconds since 1970, moved by L{advanceClock} too.
        """
        return int(time.time() + self._clockOffset)

    def advanceClock(self, seconds):
        with self._lock:
            self._clockOffset += float(seconds)

    def requirePrivilege(self, session, privilege, what):
        if privilege not in self.privileges.get(session.user, ()):
            raise errors.noPrivilege(
                f"{what} requires the {privilege} privilege, which user "
                f"{session.user} does not have")

    def mintOnetimePassword(self, session, userId, seconds):
        """
        A one-time password for C{userId}, valid for one login within
        C{seconds}: what C{GsCurrentSession currentSession
        createOnetimePasswordForUserId:validForSeconds:} answers.

        @raise errors.SmalltalkError: C{userId} is not the session's own
            user and not on its allow list (SecurityError 2151), or an
            argument is of the wrong kind.
        """
        if not isinstance(userId, str) or not isinstance(seconds, int) \
                or isinstance(seconds, bool) or seconds <= 0:
            raise errors.argumentTypeError("createOnetimePasswordForUserId:validForSeconds:")
        with self._lock:
            if userId != session.user and userId not in self.onetimeGrants.get(session.user, ()):
                raise errors.noPrivilege(
                    f"user {session.user} may not create a one-time password for "
                    f"{userId}: {userId} is not on its one-time password allow list "
                    f"(UserProfile>>addOnetimePasswordUserId:)")
            if userId not in self.users:
                raise errors.SmalltalkError(
                    errors.NOT_FOUND, "Error",
                    errors.describe("Error", errors.NOT_FOUND, f"no user with id {userId}"))
            password = secrets.token_urlsafe(24)
            self._onetime[password] = (userId, self.clock() + seconds)
            return password

    def _takeOnetimePassword(self, user, password):
        """
        Whether C{password} is an unexpired one-time password for C{user};
        it is used up either way.
        """
        entry = self._onetime.pop(password, None)
        if entry is None:
            return False
        userId, expiry = entry
        return userId == user and self.clock() <= expiry

    # ------------------------------------------------------------ logins

    def login(self, user, password, flags=0):
        """
        Log C{user} in, or raise the GciError a real stone answers.  With
        L{GCI_ONETIME_PASSWORD} in C{flags}, C{password} must be a one-time
        password minted for C{user}.
        """
        with self._lock:
            if flags & GCI_ONETIME_PASSWORD:
                accepted = user in self.users and self._takeOnetimePassword(user, password)
            else:
                accepted = user in self.users and self.users[user] == password
            if not accepted:
                raise errors.GciError(
                    errors.LOGIN_DENIED,
                    "Login failed:  the userId/password combination is invalid or expired.",
                    fatal=True, reason="loginDenied")
            if len(self.sessions) >= self.maxLogins:
                raise errors.GciError(
                    errors.MAX_SESSIONS,
                    "Login failed: the maximum number of users are already logged in.",
                    fatal=True, reason="maxSessions")
            number = next(self._numbers)
            session = Session(
                self, number, user,
                Transaction(self.repository, self.repository.commitNumber,
                            commitsDisabledFor=f"the UserProfile of {user} disables commits"
                            if user in self.commitsDisabled else None),
                Interrupt(context=_PROCESS_OOP_BASE + number * 0x100))
            session.loggedInAt = session.lastRequestAt = self.timeGmt()
            self.sessions[number] = session
            return session

    def logout(self, session):
        with self._lock:
            self.sessions.pop(session.number, None)

    def stopSession(self, stopper, number):
        """
        Stop session C{number}'s gem, as C{System stopSession:} does.

        @raise errors.SmalltalkError: C{stopper}'s user lacks SystemControl.
        """
        self.requirePrivilege(stopper, "SystemControl", "System stopSession:")
        with self._lock:
            target = self.sessions.get(number)
        if target is None:
            return False
        if self.stopGem is not None:
            self.stopGem(number)
        else:
            target.interrupt.kill()
            self.logout(target)
        return True

    # ----------------------------------------------------- shared cache

    def nameGem(self, session, name):
        """
        C{System cacheName: name} for C{session}.
        """
        if not isinstance(name, str):
            raise errors.argumentTypeError("cacheName:")
        if not 1 <= len(name) <= MAX_CACHE_NAME:
            raise errors.outOfRange(
                f"reason:rtErrArgOutOfRange, the cache name has {len(name)} characters; "
                f"it must have 1 to {MAX_CACHE_NAME}")
        session.cacheName = name
        return name

    def cacheNameOf(self, number):
        with self._lock:
            session = self.sessions.get(number)
        return None if session is None else session.cacheName

    # ---------------------------------------------------- commit records

    def backlogState(self):
        """
        C{(backlog, oldestPinnedBy)}: the commit records the repository
        holds, from the oldest view a logged-in session still has up to and
        including the newest commit, and the sessions on that oldest view.
        """
        with self._lock:
            views = {number: s.transaction.view for number, s in self.sessions.items()}
        newest = self.repository.commitNumber
        if not views:
            return 1, []
        oldest = min(views.values())
        return newest - oldest + 1, sorted(n for n, view in views.items() if view == oldest)

    def configurationAt(self, name):
        """
        C{System stoneConfigurationAt:}; nil for settings the simulator does
        not model.
        """
        if name == "StnSignalAbortCrBacklog":
            return self.signalAbortBacklog
        return None

    def describeSessions(self):
        with self._lock:
            sessions = list(self.sessions.values())
        return [{"session": s.number, "user": s.user,
                 "commitsBehind": s.transaction.commitsBehind,
                 "view": s.transaction.view, "cacheName": s.cacheName}
                for s in sessions]

    def commitFromOutside(self, key, value):
        """
        Commit C{value} at C{key} as some other session would, moving every
        session's view behind.
        """
        transaction = Transaction(self.repository, self.repository.commitNumber)
        transaction.write(key, value)
        if not transaction.commit():
            raise AssertionError("a commit on the newest view cannot conflict")
        return self.repository.commitNumber
