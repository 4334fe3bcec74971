"""
The simulated stone: users, the login cap, sessions and their
transactions, and what interrupts a session's running call.

Nothing here knows about sockets; L{gsmcpd.simulator.server} connects it
to the fake libgcits.
"""

import itertools
import threading

import attr

from gsmcpd.simulator import errors, seed
from gsmcpd.simulator.repository import Repository, Transaction

DEFAULT_USER = "DataCurator"
DEFAULT_PASSWORD = "swordfish"
DEFAULT_STONE = "gs64stone"
VERSION = "3.7.4"

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
    effect between calls.
    """

    _event = attr.ib(factory=threading.Event)
    _lock = attr.ib(factory=threading.Lock)
    _running = attr.ib(default=False)
    _hard = attr.ib(default=False)
    _killed = attr.ib(default=False)
    context = attr.ib(default=0x14)

    def begin(self):
        with self._lock:
            self._running, self._hard = True, False
            if not self._killed:
                self._event.clear()

    def end(self):
        with self._lock:
            self._running = False

    def breakCall(self, hard):
        with self._lock:
            if self._running:
                self._hard = self._hard or hard
                self._event.set()

    def kill(self):
        with self._lock:
            self._killed = True
            self._event.set()

    def check(self):
        """
        Raise what interrupted the call, if anything did.
        """
        if self._event.is_set():
            if self._killed:
                raise GemKilled()
            with self._lock:
                hard = self._hard
                self._event.clear()
            raise errors.breakError(hard, self.context)

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
    A repository and the sessions logged in to it.
    """

    name = attr.ib(default=DEFAULT_STONE)
    users = attr.ib(factory=lambda: {DEFAULT_USER: DEFAULT_PASSWORD})
    maxLogins = attr.ib(default=10)
    version = attr.ib(default=VERSION)
    repository = attr.ib(factory=seededRepository)
    sessions = attr.ib(factory=dict)
    _numbers = attr.ib(factory=lambda: itertools.count(1))
    _lock = attr.ib(factory=threading.Lock)

    def login(self, user, password):
        """
        Log C{user} in, or raise the GciError a real stone answers.
        """
        with self._lock:
            if self.users.get(user) != password:
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
                Transaction(self.repository, self.repository.commitNumber),
                Interrupt(context=_PROCESS_OOP_BASE + number * 0x100))
            self.sessions[number] = session
            return session

    def logout(self, session):
        with self._lock:
            self.sessions.pop(session.number, None)

    def describeSessions(self):
        with self._lock:
            sessions = list(self.sessions.values())
        return [{"session": s.number, "user": s.user,
                 "commitsBehind": s.transaction.commitsBehind} for s in sessions]

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
