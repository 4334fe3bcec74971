"""
A plain Twisted resource for one path: each verb its C{render_X}, every
answer written whole with its length, and every failure through one error
entry.
"""

import re
from typing import cast
from urllib.parse import unquote_to_bytes

from twisted.internet.defer import CancelledError, Deferred, maybeDeferred
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Request

from gsmcpd.transport.gates import Refusal

_MERGED_SLASHES = re.compile(b"/{2,}")
NOT_UTF8 = b"Non-UTF-8 encoding in URL."
"""The answer to a path whose percent-decoded bytes are not UTF-8."""

Body = bytes | None
"""A route's body, or L{None} when it ended the response itself."""

Answer = Body | Deferred[Body]
"""What a route answers: its body, at once or later."""


class AnsweringResource(Resource):
    """
    The leaf that answers C{path}: a request's C{render_}I{VERB} answers
    the body, or a L{Deferred} firing with it (with L{None} when the verb
    ended the response itself, an event stream); an unknown path or verb
    is a L{Refusal}; any failure is answered by C{failed}, the one error
    entry.  A client that hangs up cancels what is pending.

    @cvar path: the one path answered.
    @cvar allowed: the C{Allow} header of a C{405}.
    """

    isLeaf = True
    log = Logger()
    path = b"/"
    allowed = b""

    def render(self, request: Request) -> object:
        over: Deferred[None] = request.notifyFinish()
        # maybeDeferred waits for a Deferred the route answers.
        answering = cast("Deferred[Body]",
                         maybeDeferred(self._route, request))
        over.addErrback(lambda _: answering.cancel())
        answering.addCallbacks(self._write, self._failed,
                               callbackArgs=(request, over),
                               errbackArgs=(request, over))
        answering.addErrback(self._unanswered, request, over)
        return NOT_DONE_YET

    def _route(self, request: Request) -> Answer:
        # Percent-escapes decoded, as Twisted decodes the path's segments;
        # repeated slashes are one, as a base URL ending in one makes them.
        path = unquote_to_bytes(request.path)
        try:
            path.decode("utf-8")
        except UnicodeDecodeError:
            # Answered as Klein answered it, before any route: not in JSON.
            request.setResponseCode(400)
            return NOT_UTF8
        if path != self.path and _MERGED_SLASHES.sub(b"/", path) != self.path:
            raise Refusal(404, "Not Found: " + self.unrouted)
        verb = getattr(self, "render_" + request.method.decode("latin-1"),
                       None)
        if verb is None:
            request.setHeader(b"allow", self.allowed)
            raise Refusal(405, "Method Not Allowed: " + self.unrouted)
        answer: Answer = verb(request)
        return answer

    unrouted = "this server answers nothing here"
    """What an unknown path's or method's refusal says after its name."""

    def failed(self, request: Request, failure: Failure) -> bytes:
        """
        The answer to a request that failed.
        """
        raise NotImplementedError()

    def _failed(self, failure: Failure, request: Request,
                over: "Deferred[None]") -> None:
        if over.called:
            # Nobody is left to hear it, but a bug is still a bug.
            if not failure.check(CancelledError):
                self.log.failure("answering a request whose client has "
                                 "gone", failure)
            return
        self._write(self.failed(request, failure), request, over)

    def _write(self, body: Body, request: Request,
               over: "Deferred[None]") -> None:
        """
        Send C{body} whole, with its length: unlike a chunked answer, it
        needs no framing and no closing chunk.
        """
        if over.called:
            return
        # A HEAD answer carries no body, so no length of one.
        if not request.startedWriting and request.method != b"HEAD":
            request.setHeader(b"content-length", b"%d" % len(body or b""))
        if body:
            request.write(body)
        request.finish()

    def _unanswered(self, failure: Failure, request: Request,
                    over: "Deferred[None]") -> None:
        self.log.failure("answering a request", failure)
        if not over.called:
            request.processingFailed(failure)
