"""
The session C{gsmcpd check --templates} runs its steps on: the real one,
noting which templates ran for the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twisted.internet.defer import Deferred

from gsmcpd.gci.session import GemSession

if TYPE_CHECKING:
    from gsmcpd.gci.debugcalls import Stopped


class Recording:
    """
    A session that notes which template each source is (its first line's
    C{"gsmcp:<name>"} tag) on its way to the real one: templates only
    execute, or run a debugged run's steps.
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
