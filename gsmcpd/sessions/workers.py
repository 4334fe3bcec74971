"""
Worker identity: every session logged in as a restricted GemStone user,
with no second password held by the daemon.

The daemon's own session mints a one-time password for the worker user
before each login (GemStone 3.7's C{createOnetimePasswordForUserId:
validForSeconds:}); the worker logs in with it and the
C{GCI_ONETIME_PASSWORD} flag.  Minting for another user needs that user on
the minting user's allow-list, granted once.
"""

from collections.abc import Generator
from typing import Any

import attr
from twisted.internet.defer import Deferred, inlineCallbacks

from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.gci.session import LoginParameters
from gsmcpd.tools.base import ToolCall

GCI_ONETIME_PASSWORD = 0x400
ONETIME_VALIDITY = 60
"""Seconds a minted password is good for; the login follows at once."""


def grantNeeded(minter: str, worker: str) -> str:
    """
    The one-time grant that lets C{minter} mint for C{worker}.
    """
    return (f"grant it once, as a user with the OtherPassword privilege: "
            f"(AllUsers userWithId: '{minter}') addOnetimePasswordUserId: "
            f"'{worker}'. System commitTransaction.")


@attr.s
class WorkerLogins:
    """
    Login parameters for each worker session, with a fresh password.

    @ivar control: the daemon's own logged-in L{GemSession}.
    @ivar base: the daemon's own login parameters.
    @ivar workerUser: the GemStone user a worker logs in as unless its
        login names one (the user its bearer token names).
    """

    control: IGemSession = attr.ib()
    base: LoginParameters = attr.ib()
    workerUser: str | None = attr.ib()

    @inlineCallbacks
    def __call__(self, user: str | None = None
                 ) -> Generator[Deferred[Any], Any, LoginParameters]:
        user = user or self.workerUser
        if user is None:
            raise ValueError("a worker login names no GemStone user")
        minted = yield ToolCall(self.control).runTemplate(
            "mint_onetime_password",
            {"userId": user, "seconds": ONETIME_VALIDITY})
        return attr.evolve(self.base, user=user,
                           password=minted["password"],
                           flags=self.base.flags | GCI_ONETIME_PASSWORD)
