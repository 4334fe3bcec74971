"""What the 2026-07-28 era says differently (an L{IDialect})."""

from collections.abc import Callable, Mapping
from typing import Any

import attr
from zope.interface import implementer

from gsmcpd.protocol.eras.modern.envelope import SERVER_INFO_KEY
from gsmcpd.protocol.eras.modern.handles import sessionGoneError
from gsmcpd.protocol.facts import MODERN, IDialect
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonObject, JsonRpcError
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool


@implementer(IDialect)
@attr.s(frozen=True, auto_attribs=True)
class ModernDialect:
    """
    The 2026-07-28 era's: C{session} arguments, handle tools, skills,
    C{-32602} for a missing resource, the end of a dead gem's handle.
    """

    instructions: str | None
    capabilities: JsonObject
    describe: Callable[[Tool], JsonObject]
    handleTools: tuple[Tool, ...]
    skills: Mapping[str, Any]
    era: str = MODERN
    resourceNotFound: int = INVALID_PARAMS

    def discovered(self, answer: JsonObject, serverInfo: JsonObject
                   ) -> JsonObject:
        return dict(answer, _meta={SERVER_INFO_KEY: serverInfo})

    def sessionGoneError(self, work: IWorkSession, number: int
                         ) -> JsonRpcError:
        return sessionGoneError(work, number)
