"""
The message trace's tap on C{/mcp} (L{gsmcpd.observe.trace}): outside
every gate, so a request refused with 401, 403 or 400 is traced too.
"""

from twisted.web.http_headers import Headers
from twisted.web.iweb import IRequest
from twisted.web.resource import IResource, Resource
from twisted.web.server import Request

from gsmcpd.observe.trace import MessageTrace

MCP_PATH = b"/mcp"
SESSION_HEADERS = (b"mcp-session-id", b"mcp-param-session")
"""Where a request or its answer names its session, in either era."""


def bearerOf(request: IRequest) -> str | None:
    """The request's bearer token, or L{None}: struck from its lines."""
    scheme, _, token = (request.getHeader(b"authorization") or b"") \
        .decode("latin-1").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def _sessionOf(headers: Headers) -> str | None:
    for name in SESSION_HEADERS:
        value = headers.getRawHeaders(name)
        if value:
            return value[0].decode("latin-1")
    return None


class TracedResource(Resource):
    """
    C{resource}, with each C{/mcp} request's body and each write of its
    answer handed to the trace.
    """

    isLeaf = True

    def __init__(self, resource: IResource, trace: MessageTrace) -> None:
        super().__init__()
        self.resource = resource
        self.trace = trace

    def render(self, request: Request) -> bytes | int:
        if request.path == MCP_PATH:
            self._tap(request)
        return self.resource.render(request)

    def _tap(self, request: Request) -> None:
        trace = self.trace
        secret = bearerOf(request)
        session = _sessionOf(request.requestHeaders)
        if request.method == b"POST" and request.content is not None:
            body = request.content.read()
            request.content.seek(0)
            trace.received(session, body, secret)
        write = request.write

        def traced(data: bytes) -> None:
            if data:
                eventStream = (request.responseHeaders.getRawHeaders(
                    b"content-type") or [b""])[0].startswith(
                        b"text/event-stream")
                trace.answered(
                    session or _sessionOf(request.responseHeaders), data,
                    eventStream, secret)
            write(data)

        # This one request's writes, tapped where they are made.
        request.write = traced  # type: ignore[method-assign]
