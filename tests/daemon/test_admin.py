"""
Tests for L{gsmcpd.daemon.admin}: C{/healthz} and C{/metrics}, in memory.
"""

import json

from klein import Klein
from prometheus_client.parser import text_string_to_metric_families
from treq.testing import StubTreq
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.admin import AdminApp, AdminBeside, Health
from gsmcpd.observe.metrics import Metrics


class Gone:
    unreachable = ("the stone cannot be reached: GemStone error 4100: the "
                   "session is invalid")


class Alive:
    unreachable = None


class Failed:
    failure = "/var/log/gsmcpd/audit.log: No space left on device (ENOSPC)"


class EchoMcp:
    """
    Stands in for the MCP app: answers with the path it saw.
    """

    app = Klein()

    @app.route("/mcp", methods=["POST", "GET"])
    def mcp(self, request):
        return b"mcp " + request.path


class AdminTests(TestCase):

    def setUp(self):
        self.health = Health(sessionCount=lambda: 2)
        self.metrics = Metrics("1.0", processMetrics=False)
        admin = AdminApp(self.health, self.metrics)
        self.treq = StubTreq(AdminBeside(EchoMcp().app.resource(),
                                         admin.resource()))

    @inlineCallbacks
    def get(self, path, **kwargs):
        response = yield self.treq.get(f"http://127.0.0.1:8000{path}",
                                       **kwargs)
        body = yield response.content()
        return response, body

    @inlineCallbacks
    def healthz(self):
        response, body = yield self.get("/healthz")
        self.assertEqual(response.headers.getRawHeaders("content-type"),
                         ["application/json"])
        return response.code, json.loads(body)

    @inlineCallbacks
    def test_startingIsUnavailable(self):
        code, document = yield self.healthz()
        self.assertEqual(code, 503)
        self.assertEqual(document["status"], "starting")

    @inlineCallbacks
    def test_servingIs200WithTheSessionCount(self):
        self.health.serving = True
        self.health.controlSession = Alive()
        self.assertEqual((yield self.healthz()),
                         (200, {"status": "serving", "sessions": 2}))
        self.assertEqual(self.health.summary(), "serving 2 sessions")

    @inlineCallbacks
    def test_stoneGoneIs503WithAReason(self):
        self.health.serving = True
        self.health.controlSession = Gone()
        code, document = yield self.healthz()
        self.assertEqual(code, 503)
        self.assertEqual(document["status"], "unavailable")
        self.assertIn("4100", document["reason"])

    @inlineCallbacks
    def test_unwritableAuditIs503WithTheReason(self):
        """
        While the audit trail cannot be written, no call runs: C{/healthz}
        says so, naming the file and the error, and so does systemd's
        status line.
        """
        self.health.serving = True
        self.health.audit = Failed()
        code, document = yield self.healthz()
        reason = ("the audit trail cannot be written: /var/log/gsmcpd/"
                  "audit.log: No space left on device (ENOSPC)")
        self.assertEqual((code, document),
                         (503, {"status": "unavailable", "reason": reason}))
        self.assertEqual(self.health.summary(), reason)
        self.health.audit.failure = None
        self.assertEqual((yield self.healthz())[0], 200)

    @inlineCallbacks
    def test_stoppingIs404(self):
        """
        A draining daemon answers 404, which HAProxy's C{http-check
        disable-on-404} reads as: no new session, the held ones still
        (etc/haproxy/gsmcpd.cfg).
        """
        self.health.serving = True
        self.health.stopping = True
        code, document = yield self.healthz()
        self.assertEqual((code, document["status"]), (404, "stopping"))
        self.assertIn("serves the sessions it holds", document["reason"])

    @inlineCallbacks
    def test_noOriginGate(self):
        self.health.serving = True
        response, _ = yield self.get(
            "/healthz", headers={"origin": ["https://evil.example"]})
        self.assertEqual(response.code, 200)

    @inlineCallbacks
    def test_metricsParse(self):
        self.metrics.sessionClosed("idle")
        response, body = yield self.get("/metrics")
        self.assertEqual(response.code, 200)
        self.assertTrue(response.headers.getRawHeaders("content-type")[0]
                        .startswith("text/plain"))
        names = {sample.name for family in text_string_to_metric_families(
            body.decode("utf-8")) for sample in family.samples}
        self.assertIn("gsmcpd_sessions_closed_total", names)

    @inlineCallbacks
    def test_otherPathsReachTheMcpApp(self):
        response, body = yield self.get("/mcp")
        self.assertEqual(body, b"mcp /mcp")
        response, _ = yield self.get("/elsewhere")
        self.assertEqual(response.code, 404)
