"""What the 2026-07-28 era says differently (an L{IDialect})."""

from collections.abc import Callable, Mapping
from typing import Any

import attr
from zope.interface import implementer

from gsmcpd.protocol import kinds
from gsmcpd.protocol.eras.modern.envelope import SERVER_INFO_KEY
from gsmcpd.protocol.facts import IDialect
from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS,
    SERVER_ERROR,
    JsonObject,
    JsonRpcError,
)
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool


@implementer(IDialect)
@attr.s(frozen=True, auto_attribs=True)
class ModernDialect:
    """The 2026-07-28 era's: C{session} arguments, handle tools, skills,
    C{-32602} for a missing resource, the end of a dead gem's handle."""

    instructions: str | None
    capabilities: JsonObject
    describe: Callable[[Tool], JsonObject]
    handleTools: tuple[Tool, ...]
    skills: Mapping[str, Any]
    resourceNotFound: int = INVALID_PARAMS

    def discovered(self, answer: JsonObject, serverInfo: JsonObject
                   ) -> JsonObject:
        return dict(answer, _meta={SERVER_INFO_KEY: serverInfo})

    def sessionGoneError(self, work: IWorkSession, number: int
                         ) -> JsonRpcError:
        """A dead gem's handle is gone (open_session makes a new one); a
        throwaway session's client never knew its handle, and calls again."""
        data = {"kind": kinds.SESSION_GONE, "number": number}
        if work.throwaway:
            return JsonRpcError(SERVER_ERROR, "The throwaway GemStone session "
                                f"this call ran in ended (GemStone error "
                                f"{number}); nothing it changed was kept. "
                                "Call again.", data)
        return JsonRpcError(SERVER_ERROR, "The GemStone session behind handle "
                            f"{work.handle} ended (GemStone error {number}); "
                            "its uncommitted changes are lost and the handle "
                            "is closed. Call open_session for a new one.",
                            dict(data, session=work.handle))
