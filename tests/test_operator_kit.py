"""
The operator's kit in C{etc/}: the Grafana dashboard's and the Prometheus
rules' queries name only metrics C{/metrics} exposes, and the rules pass
C{promtool check rules} (when promtool is installed: Debian's
C{prometheus} package).
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from twisted.trial.unittest import SkipTest, SynchronousTestCase

from gsmcpd.observe.metrics import Metrics

ETC = Path(__file__).resolve().parent.parent / "etc"
DASHBOARD = ETC / "grafana" / "gsmcpd-dashboard.json"
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
        threshold, commits failing.
        """
        text = " ".join(ruleExpressions(
            "\n".join(path.read_text() for path in RULES)))
        for name in ("gsmcpd_stone_reachable", "gsmcpd_pool_slots",
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

    def test_checkRules(self):
        promtool = shutil.which("promtool")
        if promtool is None:
            raise SkipTest("promtool is not installed (apt-get install "
                           "prometheus)")
        done = subprocess.run([promtool, "check", "rules", *map(str, RULES)],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
