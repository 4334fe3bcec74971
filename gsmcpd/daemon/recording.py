"""
The session C{gsmcpd check --templates} runs its steps on: the real one,
noting which templates ran for the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred
from zope.interface import implementer

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IDebugSession
from gsmcpd.gci.session import GemSession

if TYPE_CHECKING:
    from gsmcpd.gci.debugcalls import Stopped


@implementer(IDebugSession)
class Recording:
    """
    A session that notes which template each source is (its first line's
    C{"gsmcp:<name>"} tag) on its way to the real one.
    """

    def __init__(self, gem: GemSession) -> None:
        self._gem = gem
        self.ran: list[str] = []

    def _noted(self, source: str) -> None:
        self.ran.append(source.split("\n", 1)[0][len('"gsmcp:'):-1])

    def execute(self, source: str, maxBytes: int) -> Deferred[bytes]:
        self._noted(source)
        return self._gem.execute(source, maxBytes)

    def executeDebug(self, source: str,
                     process: int | None = None) -> Deferred[Stopped | None]:
        self._noted(source)
        return self._gem.executeDebug(source, process)

    def continueDebug(self, process: int) -> Deferred[Stopped | None]:
        return self._gem.continueDebug(process)

    def clearDebug(self, process: int) -> Deferred[None]:
        return self._gem.clearDebug(process)

    @property
    def paused(self) -> frozenset[int]:
        return self._gem.paused

    @property
    def name(self) -> str:
        return self._gem.name

    @property
    def busy(self) -> bool:
        return self._gem.busy

    @property
    def gone(self) -> GciError | None:
        return self._gem.gone

    def interrupt(self, hard: bool) -> None:
        self._gem.interrupt(hard)

    def callState(self, d: Deferred[Any]) -> str | None:
        return self._gem.callState(d)

    def endCall(self, d: Deferred[Any], hard: bool) -> str | None:
        return self._gem.endCall(d, hard)

    def abandon(self, reason: str) -> None:
        self._gem.abandon(reason)

    def logout(self) -> Deferred[None]:
        return self._gem.logout()
