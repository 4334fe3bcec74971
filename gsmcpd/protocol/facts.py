"""
What a handler is told of the request it answers, whichever era carried
it: one frozen L{RequestFacts}, and its era's L{IDialect} (what the eras
say differently), so no handler asks which era it serves.
"""

from typing import Any

import attr
from zope.interface import Attribute, Interface

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.context import FROM_MEMORY, CallContext
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool

LEGACY = "legacy"
"""The 2025 revisions: a handshake, and an MCP session named by a header."""
MODERN = "modern"
"""2026-07-28: no handshake; every request says who sends it."""
BOTH = frozenset({LEGACY, MODERN})
_SAME: Any = object()  # RequestFacts.replace's default: a fact left as is.


class IDialect(Interface):
    """What one era says differently, told to each handler of its requests."""

    instructions = Attribute("The hint for the model, or None.")
    capabilities = Attribute("The server's capabilities in that era.")
    handleTools = Attribute(
        "Tools listed after the catalog's (the 2026 era's open_session "
        "and close_session), a tuple.")
    skills = Attribute("The skill files served as resources, by URI.")
    resourceNotFound = Attribute("The JSON-RPC code of a missing resource.")

    def describe(tool: Tool) -> JsonObject:
        """C{tool} as C{tools/list} describes it in that era."""

    def discovered(answer: JsonObject, serverInfo: JsonObject) -> JsonObject:
        """C{server/discover}'s C{answer} and server info, as placed there."""

    def sessionGoneError(work: IWorkSession, number: int) -> JsonRpcError:
        """The error a call whose gem died in C{work} is answered with."""


@attr.s(frozen=True, slots=True, auto_attribs=True)
class RequestFacts:
    """
    One request as its handler sees it.

    @ivar method: the JSON-RPC method.
    @ivar params: its params, as the client sent them.
    @ivar id: its id.
    @ivar dialect: the L{IDialect} of the era that carried it.
    @ivar clientCapabilities: what its client declared it can do.
    @ivar principal: who sends it (its token's, with the GemStone user of
        the session it runs in), or L{None} without authentication.
    @ivar work: the work session it runs in, or L{None} for a request that
        has none (it never touches the stone).
    @ivar client: the 2025 client session that sent it, or L{None}.
    @ivar tool: for C{tools/call}, the tool it names, looked up once by its
        era (L{None}: none by that name for this principal).
    @ivar arguments: for C{tools/call}, the tool's arguments as its era
        resolved them (the 2026 era takes the C{session} handle out).
    @ivar context: what a tool may ask of the request it serves (its
        stream, log messages, questions for the client, its ending).
    """

    method: str | None
    params: JsonObject
    id: object
    dialect: IDialect
    clientCapabilities: JsonObject
    principal: Principal | None = None
    work: IWorkSession | None = None
    client: ClientSession | None = None
    tool: Tool | None = None
    arguments: Any = None
    context: CallContext = FROM_MEMORY

    def replace(self, *, work: IWorkSession | None = _SAME,
                tool: Tool | None = _SAME, arguments: Any = _SAME,
                context: CallContext = _SAME) -> "RequestFacts":
        """C{attr.evolve} without its introspection: a call makes several."""
        return RequestFacts(
            self.method, self.params, self.id, self.dialect,
            self.clientCapabilities, self.principal,
            self.work if work is _SAME else work, self.client,
            self.tool if tool is _SAME else tool,
            self.arguments if arguments is _SAME else arguments,
            self.context if context is _SAME else context)
