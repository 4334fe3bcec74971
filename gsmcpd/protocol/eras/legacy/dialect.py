"""What the 2025 revisions say differently (an L{IDialect})."""

import attr
from zope.interface import implementer

from gsmcpd.protocol.calls import SessionGoneError
from gsmcpd.protocol.facts import IDialect
from gsmcpd.protocol.handlers import RESOURCE_NOT_FOUND
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool


@implementer(IDialect)
@attr.s(frozen=True, auto_attribs=True)
class LegacyDialect:
    """The 2025 era's: C{-32002} for a missing resource, a dead gem as the end
    of the MCP session."""

    instructions: str | None
    capabilities: JsonObject
    handleTools: tuple[Tool, ...] = ()
    skills: dict[str, object] = attr.Factory(dict)
    resourceNotFound: int = RESOURCE_NOT_FOUND

    def describe(self, tool: Tool) -> JsonObject:
        return tool.descriptor()

    def discovered(self, answer: JsonObject, serverInfo: JsonObject
                   ) -> JsonObject:
        return dict(answer, serverInfo=serverInfo)

    def sessionGoneError(self, work: IWorkSession, number: int
                         ) -> JsonRpcError:
        return SessionGoneError(number)
