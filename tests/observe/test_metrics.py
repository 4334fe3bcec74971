"""
Tests for L{gsmcpd.observe.metrics}: what a Prometheus scrape reads.
"""

from prometheus_client.parser import text_string_to_metric_families
from twisted.internet.task import Clock
from twisted.python.failure import Failure
from twisted.trial.unittest import TestCase

from gsmcpd.observe.calloutcome import COMMITTED_META, resultOutcome
from gsmcpd.observe.metrics import SESSION_ENDINGS, Metrics
from gsmcpd.protocol.jsonrpc import JsonRpcError
from gsmcpd.protocol.recording import outcomeOf
from gsmcpd.sessions.registry import SessionRegistry
from tests.fakes import FakePool


def ended(response):
    """
    What a call answered with the JSON-RPC C{response} (or nothing, for
    L{None}) came to: the tests below write the answers a client reads.
    """
    if response is None:
        return outcomeOf(None)
    if "error" in response:
        error = response["error"]
        return outcomeOf(Failure(JsonRpcError(
            error.get("code"), error.get("message", ""), error.get("data"))))
    return resultOutcome(response["result"])


def scrape(metrics):
    """
    The rendered text parsed back with prometheus_client's own parser:
    C{{sample name: {labels tuple: value}}}.
    """
    samples = {}
    for family in text_string_to_metric_families(
            metrics.render().decode("utf-8")):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[
                tuple(sorted(sample.labels.items()))] = sample.value
    return samples


class MetricsTests(TestCase):

    def test_processMetricsAndVersion(self):
        samples = scrape(Metrics("1.2.3"))
        self.assertIn("process_cpu_seconds_total", samples)
        self.assertIn("process_open_fds", samples)
        self.assertEqual(samples["gsmcpd_build_info"],
                         {(("version", "1.2.3"),): 1.0})

    def test_twoDaemonsNeverShareCounts(self):
        first, second = Metrics("1", False), Metrics("1", False)
        first.sessionClosed("idle")
        self.assertNotIn((("reason", "idle"),),
                         scrape(second).get("gsmcpd_sessions_closed_total",
                                            {}))

    def test_aToolCallIsCountedAndTimed(self):
        metrics = Metrics("1", processMetrics=False)
        clock = Clock()
        call = metrics.callStarted("execute_code", clock)
        self.assertEqual(scrape(metrics)["gsmcpd_calls_in_flight"][()], 1.0)
        clock.advance(0.3)
        call.finished(ended({"jsonrpc": "2.0", "id": 1, "result": {}}))
        call.finished(ended({"jsonrpc": "2.0", "id": 1, "error": {}}))
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_calls_in_flight"][()], 0.0)
        tool = (("tool", "execute_code"),)
        self.assertEqual(samples["gsmcpd_call_duration_seconds_count"][tool],
                         1.0)
        self.assertAlmostEqual(
            samples["gsmcpd_call_duration_seconds_sum"][tool], 0.3)
        self.assertEqual(samples["gsmcpd_call_duration_seconds_bucket"][
            (("le", "0.25"), ("tool", "execute_code"))], 0.0)
        self.assertEqual(samples["gsmcpd_call_duration_seconds_bucket"][
            (("le", "0.5"), ("tool", "execute_code"))], 1.0)
        self.assertEqual(samples["gsmcpd_tool_calls_total"][
            (("outcome", "ok"), ("tool", "execute_code"))], 1.0)

    def test_errorsCountedByTheKindTheClientIsTold(self):
        metrics = Metrics("1", processMetrics=False)
        clock = Clock()
        metrics.callStarted("compile_method", clock).finished(
            ended({"result": {"isError": True, "structuredContent": {
                "error": {"kind": "compileError"}}}}))
        metrics.callStarted("execute_code", clock).finished(
            ended({"error": {"code": -32001, "data": {"kind": "deadline"}}}))
        metrics.callStarted("execute_code", clock).finished(ended(None))
        samples = scrape(metrics)
        errors = samples["gsmcpd_gemstone_errors_total"]
        self.assertEqual(errors[(("kind", "compileError"),)], 1.0)
        self.assertEqual(errors[(("kind", "deadline"),)], 1.0)
        calls = samples["gsmcpd_tool_calls_total"]
        self.assertEqual(calls[(("outcome", "toolError"),
                                ("tool", "compile_method"))], 1.0)
        self.assertEqual(calls[(("outcome", "error"),
                                ("tool", "execute_code"))], 1.0)
        self.assertEqual(calls[(("outcome", "cancelled"),
                                ("tool", "execute_code"))], 1.0)

    def test_breaksAndReplacementsByEscalationStep(self):
        metrics = Metrics("1", processMetrics=False)
        clock = Clock()
        for step in ("soft", "replaced", None):
            metrics.callStarted("execute_code", clock).finished(
                ended({"error": {"data": {"kind": "deadline"}}}), step)
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_breaks_total"], {
            (("strength", "soft"),): 2.0, (("strength", "hard"),): 1.0})
        self.assertEqual(samples["gsmcpd_session_replacements_total"][()],
                         1.0)

    def test_commitsAndConflicts(self):
        metrics = Metrics("1", processMetrics=False)
        clock = Clock()
        conflict = {"error": {"kind": "refused", "message": "Commit failed",
                              "conflicts": {"Write-Write": {
                                  "count": 1, "names": ["an Account"]}}}}
        readOnly = {"error": {"kind": "refused", "message": "error 2249"}}
        for structured in ({"committed": True}, {"committed": True},
                           conflict, readOnly):
            metrics.callStarted("commit", clock).finished(ended({"result": {
                "isError": "error" in structured,
                "structuredContent": structured}}))
        self.assertEqual(scrape(metrics)["gsmcpd_commits_total"], {
            (("outcome", "committed"),): 2.0,
            (("outcome", "conflict"),): 1.0, (("outcome", "failed"),): 1.0})

    def test_codeThatCommitted(self):
        """
        Any other tool's call whose result says its code committed counts
        as a committed commit, failed or not; one that does not, as none.
        """
        metrics = Metrics("1", processMetrics=False)
        clock = Clock()
        for isError in (False, True):
            metrics.callStarted("execute_code", clock).finished(ended({"result": {
                "isError": isError, "structuredContent": {},
                "_meta": {COMMITTED_META: True}}}))
        metrics.callStarted("execute_code", clock).finished(ended({"result": {
            "isError": False, "structuredContent": {}}}))
        self.assertEqual(scrape(metrics)["gsmcpd_commits_total"], {
            (("outcome", "committed"),): 2.0})

    def test_codeThatMayHaveCommitted(self):
        """
        A result that says the stone may have committed (C{null}) counts
        as a commit of unknown outcome, never as a committed one.
        """
        metrics = Metrics("1", processMetrics=False)
        metrics.callStarted("execute_code", Clock()).finished(ended({"result": {
            "isError": False, "structuredContent": {},
            "_meta": {COMMITTED_META: None}}}))
        self.assertEqual(scrape(metrics)["gsmcpd_commits_total"], {
            (("outcome", "unknown"),): 1.0})

    def test_askedForInputIsNotAnError(self):
        """
        A 2026-era round that asks the client is counted as
        C{askedForInput}: not an error, and not a commit.
        """
        metrics = Metrics("1", processMetrics=False)
        metrics.callStarted("commit", Clock()).finished(ended({"result": {
            "resultType": "input_required", "inputRequests": {}}}))
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_tool_calls_total"], {
            (("outcome", "askedForInput"), ("tool", "commit")): 1.0})
        self.assertNotIn("gsmcpd_commits_total", samples)

    def test_refusalsByKind(self):
        """
        Refusals are counted apart from calls, by kind; a foreign handle
        counts as an unknown one, as the client is told, since anyone who
        reaches the port may read the metrics.
        """
        metrics = Metrics("1", processMetrics=False)
        for kind in ("foreignHandle", "unknownHandle", "notInScope"):
            metrics.refused(kind)
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_call_refusals_total"], {
            (("kind", "noSuchHandle"),): 2.0,
            (("kind", "notInScope"),): 1.0})
        self.assertNotIn("gsmcpd_tool_calls_total", samples)
        self.assertRaises(ValueError, metrics.refused, "whim")

    def test_auditWatched(self):
        """
        With no audit trail to fail, it reads writable; watched, the
        gauge and the unwritten count are read when scraped.
        """
        metrics = Metrics("1", processMetrics=False)
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_audit_writable"][()], 1.0)
        self.assertEqual(samples["gsmcpd_audit_lines_unwritten_total"][()],
                         0.0)
        state = {"writable": 1, "unwritten": 0}
        metrics.watch(auditWritable=lambda: state["writable"],
                      auditUnwritten=lambda: state["unwritten"])
        state.update(writable=0, unwritten=3)
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_audit_writable"][()], 0.0)
        self.assertEqual(samples["gsmcpd_audit_lines_unwritten_total"][()],
                         3.0)

    def test_traceLostWatched(self):
        """
        The trace's lost lines read zero until watched, then what the
        trace counts, when scraped.
        """
        metrics = Metrics("1", processMetrics=False)
        self.assertEqual(
            scrape(metrics)["gsmcpd_trace_lines_lost_total"][()], 0.0)
        lost = [0]
        metrics.watch(traceLost=lambda: lost[0])
        lost[0] = 7
        self.assertEqual(
            scrape(metrics)["gsmcpd_trace_lines_lost_total"][()], 7.0)

    def test_closedSessionsByShortReason(self):
        metrics = Metrics("1", processMetrics=False)
        metrics.sessionClosed("stream_lost")
        metrics.sessionClosed("stream_lost")
        self.assertEqual(scrape(metrics)["gsmcpd_sessions_closed_total"], {
            (("reason", "stream_lost"),): 2.0})

    def test_reasonIsAClosedSet(self):
        """
        A sentence, or any word outside the set, is refused: a label must
        keep its few values whatever the log says.
        """
        metrics = Metrics("1", processMetrics=False)
        self.assertRaises(ValueError, metrics.sessionClosed,
                          "idle 62s with no event stream (limit 60s)")
        for code in SESSION_ENDINGS:
            self.assertRegex(code, r"\A[a-z_]{2,20}\Z")

    def test_responsesByStatusClass(self):
        metrics = Metrics("1", processMetrics=False)
        for code, refused in ((200, False), (202, False), (404, False),
                              (401, True), (403, True), (403, False),
                              (503, False)):
            metrics.responded(_Request(code, refused))
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_http_responses_total"], {
            (("class", "2xx"),): 2.0, (("class", "4xx"),): 4.0,
            (("class", "5xx"),): 1.0})
        self.assertEqual(samples["gsmcpd_auth_refusals_total"], {
            (("status", "401"),): 1.0, (("status", "403"),): 1.0})

    def test_watchedGaugesReadWhenScraped(self):
        metrics = Metrics("1", processMetrics=False)
        state = {"open": 2, "opening": 1, "streams": 1, "warm": 1}
        metrics.watch(sessionsOpen=lambda: state["open"],
                      sessionsOpening=lambda: state["opening"],
                      sessionsWarm=lambda: state["warm"],
                      slotsUsed=lambda: state["open"] + state["opening"],
                      slotsLimit=lambda: 5,
                      eventStreams=lambda: state["streams"],
                      stoneReachable=lambda: state["reachable"])
        state["open"], state["reachable"] = 3, 0
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_stone_reachable"][()], 0.0)
        self.assertEqual(samples["gsmcpd_sessions_open"][()], 3.0)
        self.assertEqual(samples["gsmcpd_sessions_opening"][()], 1.0)
        self.assertEqual(samples["gsmcpd_sessions_warm"][()], 1.0)
        self.assertEqual(samples["gsmcpd_event_streams"][()], 1.0)
        self.assertEqual(samples["gsmcpd_pool_slots"][
            (("state", "used"),)], 4.0)
        self.assertEqual(samples["gsmcpd_pool_slots"][
            (("state", "free"),)], 1.0)


class _Request:

    def __init__(self, code, authRefused):
        self.code = code
        if authRefused:
            self.authRefused = True


class SessionEndingTests(TestCase):

    def test_registryCountsTheCode(self):
        """
        The registry counts a close by its code, and refuses an unknown
        one before the session is touched.
        """
        metrics = Metrics("1", processMetrics=False)
        registry = SessionRegistry(FakePool(), Clock(), metrics=metrics)
        session = self.successResultOf(registry.opener.open(clientInfo={}))
        self.assertRaises(ValueError, registry.close, session.handle,
                          "a reason", code="no such code")
        self.assertIs(registry.work.get(session.handle), session)
        self.successResultOf(registry.close(session.handle, "the client "
                                            "deleted it", code="deleted"))
        self.assertEqual(scrape(metrics)["gsmcpd_sessions_closed_total"],
                         {(("reason", "deleted"),): 1.0})
