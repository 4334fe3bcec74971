"""
C{GET /healthz} and C{GET /metrics}: for load balancers, systemd and
Prometheus, not for MCP clients.

They are off the MCP path: no Origin, Host or token gate applies, and they
never touch a GemStone session, so a scrape or a health check costs no
stone work.  They are served beside C{/mcp}, or alone on C{--admin-port}.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from klein import Klein
from twisted.web.iweb import IRequest
from twisted.web.resource import IResource, Resource
from twisted.web.server import Request

from gsmcpd.auth.keys import IKeySource
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.metrics import Metrics

if TYPE_CHECKING:
    from gsmcpd.daemon.stone import ControlSession

ADMIN_PATHS = (b"healthz", b"metrics")

DRAINING = 404
"""C{/healthz} while the daemon drains: HAProxy's C{http-check
disable-on-404} then sends it no new session but still the requests of the
sessions it holds (through the stick table), where a 503 would mark it
down and send those elsewhere, to be answered 404."""


class Health:
    """
    Whether the daemon should get new sessions, and if not, why.

    @ivar serving: listening, and the stone answered the daemon's login.
    @ivar stopping: told to stop (draining, then logging sessions out).
    @ivar controlSession: the daemon's own GemStone session
        (L{gsmcpd.daemon.stone.ControlSession}): its C{unreachable} says
        why the stone is out of reach.
    @ivar sessionCount: answers how many MCP sessions are open.
    @ivar signingKeys: with authentication, where tokens' keys come from
        (its C{keys}); while it holds none, every token is refused.
    @ivar audit: the L{gsmcpd.observe.audit.AuditLog}, or L{None}; while
        its C{failure} says why its file cannot be written, no call runs.
    """

    def __init__(self, sessionCount: Callable[[], int] = lambda: 0,
                 controlSession: ControlSession | None = None,
                 signingKeys: IKeySource | None = None,
                 audit: AuditLog | None = None) -> None:
        self.serving = False
        self.stopping = False
        self.controlSession = controlSession
        self.sessionCount = sessionCount
        self.signingKeys = signingKeys
        self.audit = audit

    def problem(self) -> tuple[str, str] | None:
        """
        Why the daemon is not taking sessions, or L{None} while it is.
        """
        if self.stopping:
            return "stopping", "the daemon is stopping: it serves the " \
                "sessions it holds until its drain grace ends, and opens " \
                "no new one"
        if not self.serving:
            return "starting", "the daemon has not reached its stone yet"
        unreachable = getattr(self.controlSession, "unreachable", None)
        if unreachable is not None:
            return "unavailable", unreachable
        if self.signingKeys is not None and not self.signingKeys.keys:
            return "unavailable", "no signing keys are loaded"
        failure = None if self.audit is None else self.audit.failure
        if failure is not None:
            return "unavailable", f"the audit trail cannot be written: " \
                f"{failure}"
        return None

    def describe(self) -> tuple[int, dict[str, object]]:
        """
        C{(HTTP status, JSON document)} for C{/healthz}.
        """
        problem = self.problem()
        if problem is None:
            return 200, {"status": "serving",
                         "sessions": self.sessionCount()}
        status, reason = problem
        return DRAINING if status == "stopping" else 503, \
            {"status": status, "reason": reason}

    def summary(self) -> str:
        """
        A line for systemd's C{STATUS=}.
        """
        problem = self.problem()
        if problem is not None:
            return problem[1]
        count = self.sessionCount()
        return f"serving {count} session{'s' if count != 1 else ''}"


class AdminApp:
    """
    The health and metrics routes.
    """

    app = Klein()

    def __init__(self, health: Health, metrics: Metrics) -> None:
        self.health = health
        self.metrics = metrics

    def resource(self) -> IResource:
        return self.app.resource()

    @app.route("/healthz", methods=["GET", "HEAD"])
    def healthz(self, request: IRequest) -> bytes:
        status, document = self.health.describe()
        request.setResponseCode(status)
        request.setHeader(b"content-type", b"application/json")
        request.setHeader(b"cache-control", b"no-store")
        return json.dumps(document).encode("utf-8")

    @app.route("/metrics", methods=["GET"])
    def scrape(self, request: IRequest) -> bytes:
        request.setHeader(b"content-type",
                          self.metrics.contentType.encode("ascii"))
        return self.metrics.render()


class AdminBeside(Resource):
    """
    The site's root when C{/healthz} and C{/metrics} share the MCP port:
    their two paths go to the admin app, every other to the MCP app, in
    one dictionary lookup (no second round of routing on the hot path).
    """

    def __init__(self, mcp: IResource, admin: IResource) -> None:
        super().__init__()
        self._mcp = mcp
        self._admin = admin

    def getChildWithDefault(self, name: bytes, request: Request) -> IResource:
        # Give the segment back: both apps route on the whole path (during
        # traversal both lists are set, though Request allows None).
        request.postpath.insert(  # type: ignore[union-attr]
            0, request.prepath.pop())  # type: ignore[union-attr]
        return self._admin if name in ADMIN_PATHS else self._mcp
