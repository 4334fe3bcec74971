"""
The 2025 revisions' requests, independent of HTTP: a client negotiates
once (C{initialize}), then each request names its L{ClientSession} (by
the session id the transport hands over) and is answered as a JSON-RPC
response.
"""

from collections.abc import Callable
from typing import Any, cast

import attr
from twisted.internet.defer import Deferred, fail, inlineCallbacks, succeed
from zope.interface import implementer

from gsmcpd.auth.tokens import Principal, admits
from gsmcpd.gci.pool import ServerStopping, SessionLimitReached
from gsmcpd.gci.session import shielded
from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import kinds
from gsmcpd.protocol.calls import (
    LoginFailedError,
    loginFailed,
    sessionLimitMessage,
)
from gsmcpd.protocol.catalogsurface import unwrapCall
from gsmcpd.protocol.eras.legacy.dialect import LegacyDialect
from gsmcpd.protocol.facts import LEGACY, RequestFacts
from gsmcpd.protocol.handlers import Handlers, answersAsStream, unknownTool
from gsmcpd.protocol.jsonrpc import (
    METHOD_NOT_FOUND,
    SERVER_ERROR,
    JsonObject,
    JsonRpcError,
    Message,
    errorResponse,
    result,
    stoppingError,
)
from gsmcpd.protocol.methods import MethodTable
from gsmcpd.protocol.pipeline import CallPipeline, IEra, Lookup, Placed, Unmade
from gsmcpd.protocol.shares import END_ONE, shareRefusal
from gsmcpd.protocol.versions import negotiateVersion
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.clients import ClientSessions, NoSessionId, NoSuchSession
from gsmcpd.sessions.context import CallContext
from gsmcpd.sessions.interfaces import ICallSink, IClientRequests
from gsmcpd.sessions.listeners import SessionListeners
from gsmcpd.sessions.outbound import StreamAsker
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.running import CANCELLED
from gsmcpd.sessions.shares import ShareExhausted

Opened = tuple[ClientSession | None, JsonObject]
"""What C{initialize} comes to: the client session it opened (L{None}
when it opened none), and the response."""


def clientNamed(clients: ClientSessions, sessionId: str | None,
                principal: Principal | None) -> ClientSession:
    """
    The live client session C{sessionId} names among C{clients}, if
    C{principal} (L{None} without authentication) opened it: read, nothing
    counted.

    @raise NoSessionId: without a session id.
    @raise NoSuchSession: for no such session, and by the same steps for
        another identity's.
    """
    if sessionId is None:
        raise NoSessionId()
    session = clients.byHandle.get(sessionId)
    # One check for a live session and for none, by the same steps: a
    # guesser cannot tell a foreign session from a made-up id.
    admitted = admits(None if session is None else session.work.principal,
                      principal, f"session {sessionId[:8]}",
                      exists=session is not None)
    if session is None or not admitted:
        raise NoSuchSession()
    return session


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ClientCall:
    """
    What a 2025-era request carries besides its message: who sends it
    (L{LegacyEra.principalOf}), how its call's own stream is opened.
    """

    client: ClientSession
    principal: Principal | None
    openStream: Callable[[ClientSession], ICallSink | None]


@implementer(IEra)
class LegacyEra:
    """
    Answers 2025-era requests for one server: a call's questions go out as
    C{pending} requests; C{listeners} are the subscribers to change notices
    (the registry's C{onClose} removes a session's).
    """

    def __init__(self, handlers: Handlers, methods: MethodTable,
                 pipeline: CallPipeline, sessions: SessionRegistry,
                 pending: IClientRequests, listeners: SessionListeners):
        self.handlers = handlers
        self.methods = methods
        self.pipeline = pipeline
        self.calls = pipeline.calls
        self.sessions = sessions
        self.pending = pending
        self.listeners = listeners
        self.dialect = LegacyDialect(handlers.identity.instructions,
                                     handlers.capabilities())

    def initializeResult(self, params: JsonObject) -> JsonObject:
        """The C{initialize} result for a client that sent C{params}."""
        answer = {
            "protocolVersion": negotiateVersion(params.get("protocolVersion")),
            "capabilities": self.dialect.capabilities,
            "serverInfo": self.handlers.serverInfo(),
        }
        if self.dialect.instructions:
            answer["instructions"] = self.dialect.instructions
        return answer

    @inlineCallbacks
    def initialize(self, message: Message, principal: Principal | None
                   ) -> Any:
        """Open a client's session: a L{Deferred} of its L{Opened}."""
        params = message.params
        try:
            opening = self.sessions.clients.open(
                negotiateVersion(params.get("protocolVersion")),
                params.get("clientInfo"), params.get("capabilities"),
                principal)
        except SessionLimitReached as e:
            return None, JsonRpcError(
                SERVER_ERROR, sessionLimitMessage(
                    e.limit, "End an MCP session of this server you no "
                    "longer need, or try again in a minute."),
                {"kind": kinds.SESSION_LIMIT, "limit": e.limit}
            ).asResponse(message.id)
        except ShareExhausted as e:
            refusal = shareRefusal(e, END_ONE)
            self.calls.records.refused(None, CallRefused(kinds.SHARE_CAP,
                                                         refusal))
            return None, refusal.asResponse(message.id)
        except ServerStopping as e:
            return None, stoppingError(e).asResponse(message.id)
        try:
            # A client that hangs up mid-login leaves a session it will never
            # use; the reaper releases it, counted all along.
            client = yield shielded(opening.addErrback(loginFailed))
        except LoginFailedError as e:
            return None, e.asResponse(message.id)
        self.listeners.add(client)
        return client, result(message.id, self.initializeResult(params))

    def principalOf(self, client: ClientSession,
                    principal: Principal | None) -> Principal | None:
        """
        Who a request on C{client}'s session sends it as: what a request may
        call is its own token's business, as in the 2026 era (a narrower
        token narrows the session at once), and the GemStone user stays
        the one its gem logged in as.
        """
        opened = client.work.principal
        if principal is None:
            return opened
        if opened is None:
            # With a token every session is opened by one.
            raise ValueError("a token's request on a session opened without")
        return attr.evolve(principal, user=opened.user)

    def answer(self, client: ClientSession, message: Message,
               principal: Principal | None = None,
               openStream: Callable[[ClientSession], ICallSink | None] =
               lambda client: None) -> Deferred[JsonObject | None]:
        """
        A L{Deferred} of the response to one request on C{client}'s session
        (L{None}: a notification, or a request its client cancelled), sent
        as C{principal} (the bearer gate's); C{openStream} answers a call's
        own event stream, or L{None} when its client does not accept one.
        Every request counts as its session's activity: a call's as it runs
        or is refused, any other here.
        """
        if message.kind == "notification":
            self.sessions.active(client.work)
            if message.method == "notifications/cancelled":
                self.calls.work.cancel(client.work, message.params.get(
                    "requestId"), message.params.get("reason"))
            return succeed(None)
        message = unwrapCall(self.handlers.tools, message)
        method = self.methods.find(message.method, LEGACY)
        if method is None or not method.call:
            self.sessions.active(client.work)
        if method is None:
            return succeed(JsonRpcError(
                METHOD_NOT_FOUND, f"Method not found: {message.method}"
            ).asResponse(message.id))
        carried = ClientCall(client, self.principalOf(client, principal),
                             openStream)
        if message.method == "tools/call":
            answering = self.pipeline.call(self, message, carried, method)
        else:
            request = self.decode(message, carried)
            # Only a call asks its client: a method answered from memory
            # (a prompt) cannot.
            answering = self.calls.answer(self._asking(request, None)
                                          if method.call else request, method)
        return answering.addCallbacks(
            _framed, errorResponse, callbackArgs=(message.id,),
            errbackArgs=(message.id,))

    # Its codec (L{IEra}): the three verbs of a tools/call.

    def decode(self, message: Message, carrier: ClientCall,
               lookup: Lookup | None = None) -> RequestFacts:
        """
        A request on its client's session: a call on its own stream when
        it asks for progress or its tool streams.
        """
        client, params = carrier.client, message.params
        request = RequestFacts(
            message.method, params, message.id, self.dialect,
            client.clientCapabilities, carrier.principal, client.work,
            client, None, params.get("arguments"))
        if lookup is None:
            return request
        # Opened before the tool is looked up when the client asked for
        # progress: even its refusal is answered on it.
        asked = answersAsStream(params, None)
        request = self._asking(request, carrier.openStream(client)
                               if asked else None)
        try:
            tool = lookup(request)
        except CallRefused as e:
            raise Unmade(request, e)
        except JsonRpcError:
            # Answered once admitted, as any call of its client is.
            return request
        if answersAsStream(params, tool) and not asked:
            request = self._asking(request, carrier.openStream(client))
        return request.replace(tool=tool)

    def _asking(self, request: RequestFacts,
                sink: ICallSink | None) -> RequestFacts:
        """C{request} as a call that asks its client on C{sink} (or none)."""
        client = cast(ClientSession, request.client)
        return request.replace(context=CallContext(
            StreamAsker(self.pending, client, sink), sink, client.wantsLog))

    def place(self, call: RequestFacts, carrier: ClientCall
              ) -> Placed | Deferred[Placed]:
        """
        In its client's work session, admitted as it runs; a call of no
        tool admitted here, then refused.
        """
        if call.tool is None:
            try:
                self.calls.admit(call, call.work)
            except (CallRefused, JsonRpcError) as e:
                return fail(Unmade(call, e))
            return fail(Unmade(call, unknownTool(call.params)))
        return Placed(call)

    def frame(self, value: JsonObject) -> JsonObject:
        return value


def _framed(value: Any, messageId: object) -> JsonObject | None:
    return None if value is CANCELLED else result(messageId, value)
