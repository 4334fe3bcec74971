"""
The site's way into the C{/mcp} app: the one hot request straight to its
route, every other through Klein.
"""

from twisted.internet.defer import CancelledError, maybeDeferred
from twisted.logger import Logger
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET


class McpResource(Resource):
    """
    The app as the site sees it: C{POST /mcp}, nearly every request the
    daemon serves, handed straight to the app's route, and every other
    request routed by Klein.

    Klein binds a werkzeug map, parses the URL back into parts and wraps
    the route in several L{Deferred}s for every request, about a tenth of
    the daemon's cost of a tool call.  The answer is the same either way:
    the same route, the same error handler.
    """

    isLeaf = True
    log = Logger()

    def __init__(self, app):
        """
        @param app: a L{gsmcpd.transport.http.McpApp}: its C{post} route,
            its C{failed} error handler and its Klein C{app}.
        """
        super().__init__()
        self._app = app
        self._routed = app.app.resource()

    def render(self, request):
        if request.method != b"POST" or request.path != b"/mcp":
            return self._routed.render(request)
        over = request.notifyFinish()
        answering = maybeDeferred(self._app.post, request)
        # As Klein does: a client that hangs up cancels what is pending.
        over.addErrback(lambda _: answering.cancel())
        answering.addErrback(self._failed, request, over)
        answering.addCallback(self._write, request, over)
        answering.addErrback(self._unanswered, request, over)
        return NOT_DONE_YET

    def _failed(self, failure, request, over):
        if over.called:
            # Nobody is left to hear it, but a bug is still a bug.
            if not failure.check(CancelledError):
                self.log.failure("answering a request whose client has "
                                 "gone", failure)
            return None
        return self._app.failed(request, failure)

    def _write(self, body, request, over):
        """
        Send C{body} whole, with its length: unlike a chunked answer, it
        needs no framing and no closing chunk.
        """
        if over.called:
            return
        if not request.startedWriting:
            request.setHeader(b"content-length", b"%d" % len(body or b""))
        if body:
            request.write(body)
        request.finish()

    def _unanswered(self, failure, request, over):
        self.log.failure("answering a request", failure)
        if not over.called:
            request.processingFailed(failure)
