"""
The operator's kit in C{etc/}: the Grafana dashboard's and the Prometheus
rules' queries name only metrics C{/metrics} exposes, the rules pass
C{promtool check rules} (when promtool is installed: Debian's
C{prometheus} package), and the HAProxy examples pass C{haproxy -c}.
"""

import json
import os
import re
import shutil
import subprocess
from datetime import UTC
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from twisted.trial.unittest import SkipTest, SynchronousTestCase

from gsmcpd.observe.metrics import Metrics

ETC = Path(__file__).resolve().parents[2] / "etc"
DASHBOARD = ETC / "grafana" / "gsmcpd-dashboard.json"
HAPROXY = sorted((ETC / "haproxy").glob("*.cfg"))
ALERT_TESTS = Path(__file__).resolve().parents[1] / "prometheus" / \
    "gsmcpd-alerts-test.yml"
RULES = sorted((ETC / "prometheus").glob("*.yml"))
PROMETHEUS_OWN = {"up"}
"""Series Prometheus makes itself for each scrape."""
SAMPLE_SUFFIXES = {"counter": ("_total",), "info": ("_info",),
                   "histogram": ("_bucket", "_sum", "_count"),
                   "gauge": ("",)}
METRIC_NAME = re.compile(r"\b(?:gsmcpd|process)_[a-z0-9_]+\b|\bup(?=\{)")


def exposedNames():
    """
    The sample names a scrape of the daemon's /metrics can carry.
    """
    names = set()
    for family in text_string_to_metric_families(
            Metrics("1").render().decode("utf-8")):
        for suffix in SAMPLE_SUFFIXES.get(family.type, ("",)):
            names.add(family.name + suffix)
        names.update(sample.name for sample in family.samples)
    return names


def ruleExpressions(text):
    """
    Every C{expr:} of a rules file, one-line or a C{|} block.
    """
    lines = text.splitlines()
    found = []
    for n, line in enumerate(lines):
        match = re.match(r"^(\s*)expr:\s*(.*)$", line)
        if not match:
            continue
        indent, rest = len(match.group(1)), match.group(2)
        if rest.strip() != "|":
            found.append(rest)
            continue
        block = []
        for following in lines[n + 1:]:
            if following.strip() and \
                    len(following) - len(following.lstrip()) <= indent:
                break
            block.append(following.strip())
        found.append(" ".join(block))
    return found


def dashboardExpressions():
    dashboard = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in dashboard["panels"]
            for target in panel.get("targets", ())]


class MetricNamesTests(SynchronousTestCase):

    def assertExposed(self, expressions, where):
        exposed = exposedNames() | PROMETHEUS_OWN
        named = set()
        for expression in expressions:
            for name in METRIC_NAME.findall(expression):
                named.add(name)
                self.assertIn(name, exposed, f"{where}: {expression}")
        return named

    def test_dashboard(self):
        named = self.assertExposed(dashboardExpressions(), DASHBOARD.name)
        self.assertIn("gsmcpd_call_duration_seconds_bucket", named)
        self.assertGreater(len(named), 15)

    def test_rules(self):
        self.assertTrue(RULES)
        for path in RULES:
            expressions = ruleExpressions(path.read_text())
            self.assertTrue(expressions, path)
            self.assertExposed(expressions, path.name)

    def test_alertsTheIssueAsksFor(self):
        """
        Stone unreachable, sessions near the cap, call errors, p99 over a
        threshold, commits failing, the audit trail unwritable.
        """
        text = " ".join(ruleExpressions(
            "\n".join(path.read_text() for path in RULES)))
        for name in ("gsmcpd_stone_reachable", "gsmcpd_pool_slots",
                     "gsmcpd_audit_writable == 0",
                     'gsmcpd_tool_calls_total{outcome="error"}',
                     "histogram_quantile(0.99",
                     'gsmcpd_commits_total{outcome="conflict"}'):
            self.assertIn(name, text)

    def test_namesAreFound(self):
        """
        The name finder sees a misspelt metric, so the tests above can
        fail.
        """
        self.assertEqual(METRIC_NAME.findall(
            'rate(gsmcpd_tool_call_total{x="y"}[5m]) > 0'),
            ["gsmcpd_tool_call_total"])
        self.assertNotIn("gsmcpd_tool_call_total", exposedNames())


class PromtoolTests(SynchronousTestCase):

    def promtool(self, *arguments):
        promtool = shutil.which("promtool")
        if promtool is None:
            raise SkipTest("promtool is not installed (apt-get install "
                           "prometheus)")
        done = subprocess.run([promtool, *arguments], capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)

    def test_checkRules(self):
        self.promtool("check", "rules", *map(str, RULES))

    def test_alertsFire(self):
        """
        Each alert in C{tests/prometheus/} fires on the series it is about,
        for the daemon they describe and no other.
        """
        self.promtool("test", "rules", str(ALERT_TESTS))


class HaproxyConfigTests(SynchronousTestCase):

    def test_examplesValid(self):
        """
        Both examples, the TLS-terminating one with a certificate to load
        (C{-c} binds nothing: the ports are only parsed).
        """
        haproxy = shutil.which("haproxy")
        if haproxy is None:
            raise SkipTest("haproxy is not installed")
        pem = self.mktemp()
        with open(pem, "wb") as f:
            f.write(selfSigned())
        environ = dict(os.environ, GSMCPD_CERT=pem, GSMCPD_CA=pem,
                       GSMCPD_BIND="127.0.0.1:18443",
                       GSMCPD_BIND_HTTP="127.0.0.1:18080")
        self.assertEqual(len(HAPROXY), 2)
        for path in HAPROXY:
            done = subprocess.run([haproxy, "-c", "-f", str(path)],
                                  capture_output=True, text=True, timeout=60,
                                  env=environ)
            self.assertEqual(done.returncode, 0, path.name + done.stderr)


def selfSigned():
    """
    A certificate and its key, PEM, as HAProxy's C{crt} takes them.
    """
    from datetime import datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                         "mcp.example.com")])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    certificate = (x509.CertificateBuilder().subject_name(name)
                   .issuer_name(name).public_key(key.public_key())
                   .serial_number(1).not_valid_before(start)
                   .not_valid_after(start + timedelta(days=3650))
                   .sign(key, hashes.SHA256()))
    return certificate.public_bytes(serialization.Encoding.PEM) + \
        key.private_bytes(serialization.Encoding.PEM,
                          serialization.PrivateFormat.PKCS8,
                          serialization.NoEncryption())
