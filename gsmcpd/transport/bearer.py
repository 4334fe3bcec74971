"""
The bearer gate: with authentication on, every request to C{/mcp} carries a
token naming who sends it, and a session answers only the identity that
opened it.
"""

import json

import attr
from twisted.internet.defer import inlineCallbacks
from twisted.logger import Logger

from gsmcpd.auth.tokens import AuthenticationError, NoToken, bearerToken

PRINCIPAL = "gsmcpdPrincipal"
"""Where an admitted request carries its L{Principal}."""


@attr.s
class BearerGate:
    """
    @ivar validator: a L{TokenValidator}.
    @ivar resource: the L{ProtectedResource} this server is.
    @ivar scopeToolsets: a L{ScopeToolsets}, or L{None} when every token
        may use every served toolset.
    """

    log = Logger()

    validator = attr.ib()
    resource = attr.ib()
    scopeToolsets = attr.ib(default=None)

    @inlineCallbacks
    def admit(self, request):
        """
        Check the request's token.

        @return: a L{Deferred} firing with L{None} when it is admitted (its
            principal is then L{principalOf} it), or else with the
            L{Challenge} to answer.
        """
        header = request.getHeader(b"authorization")
        try:
            token = bearerToken(None if header is None
                                else header.decode("latin-1"))
            principal = yield self.validator.validate(token)
        except AuthenticationError as e:
            if not isinstance(e, NoToken):
                self.log.info("refused a bearer token on {method} {path}: "
                              "{why}", method=request.method.decode(),
                              path=request.path.decode("latin-1"), why=e)
            return self.resource.challenge(e)
        setattr(request, PRINCIPAL, principal)
        return None

    def metadata(self, request):
        """
        The RFC 9728 document, as a response body.
        """
        request.setHeader(b"content-type", b"application/json")
        request.setHeader(b"cache-control", b"max-age=3600")
        return json.dumps(self.resource.metadata()).encode("utf-8")

    def owns(self, request, session):
        """
        Whether the request's identity opened C{session}; a stranger's
        request is logged, and is to be answered as if the session did not
        exist.
        """
        principal = principalOf(request)
        if session.principal is None or principal is None or \
                session.principal.identity == principal.identity:
            return True
        self.log.warn("session {handle}: a request from {stranger} refused, "
                      "it belongs to {owner}", handle=session.handle[:8],
                      stranger=principal.identity,
                      owner=session.principal.identity)
        return False

    def toolsetsFor(self, principal):
        """
        The toolset names C{principal}'s scopes open, or L{None} for all.
        """
        if self.scopeToolsets is None or principal is None:
            return None
        return self.scopeToolsets.toolsetsFor(principal.scopes)


def principalOf(request):
    """
    The L{Principal} the bearer gate admitted C{request} as, or L{None}.
    """
    return getattr(request, PRINCIPAL, None)
