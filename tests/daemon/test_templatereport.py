"""
Tests for L{gsmcpd.daemon.templatereport}: each template's verdict, the
table a user reads and the JSON they attach to a bug report.
"""

import json

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd import __version__
from gsmcpd.daemon.templatereport import Report, Row
from gsmcpd.tools.templates.render import templateNames


def everyTemplatePassing():
    return [Row(name, True, "answered", (name,)) for name in templateNames()]


class ReportTests(SynchronousTestCase):

    def test_allPass(self):
        report = Report(everyTemplatePassing(), {"user": "u", "stone": "s",
                                                 "version": "3.7.4"}, "3.7.4")
        self.assertTrue(report.ok)
        table = report.table().splitlines()
        self.assertEqual(table[0], f"gsmcpd {__version__}, libgcits 3.7.4, "
                         "stone s (GemStone 3.7.4) as u")
        count = len(templateNames())
        self.assertEqual(table[-1], f"{count} of {count} templates pass")

    def test_notes(self):
        """
        What was left out on purpose is a line of its own, before the
        verdicts, and in the JSON; neither a pass nor a failure.
        """
        report = Report(everyTemplatePassing(), notes=["left out: run it"])
        self.assertTrue(report.ok)
        table = report.table().splitlines()
        self.assertEqual(table[-2], "NOTE  left out: run it")
        self.assertEqual(report.document()["notes"], ["left out: run it"])

    def test_failureIsPutDownToTheLastTemplateRun(self):
        rows = everyTemplatePassing() + [
            Row("delete_class", False, "refused", ("get_class_definition",
                                                   "delete_class"))]
        report = Report(rows)
        self.assertEqual(rows[-1].blamed, "delete_class")
        self.assertEqual(report.templates["delete_class"], "fail")
        self.assertEqual(report.templates["get_class_definition"], "pass")
        self.assertFalse(report.ok)
        self.assertIn("FAIL  delete_class", report.table())
        self.assertIn("[templates: get_class_definition, delete_class]",
                      report.table())

    def test_notRunIsNotAPass(self):
        report = Report(everyTemplatePassing()[1:])
        first = templateNames()[0]
        self.assertEqual(report.templates[first], "not run")
        self.assertFalse(report.ok)
        self.assertTrue(report.table().endswith(
            f"; failing or not run: {first}\n"))

    def test_aFailingRowWithNoTemplateFails(self):
        report = Report(everyTemplatePassing() + [
            Row("nothing committed", False, "GsmcpdCheckProbe visible")])
        self.assertIsNone(report.rows[-1].blamed)
        self.assertFalse(report.ok)

    def test_document(self):
        report = Report([Row("status", True, "user: u", ("status",), 3)],
                        {"user": "u"}, "3.7.4")
        document = json.loads(json.dumps(report.document()))
        self.assertEqual(document["steps"], [{
            "step": "status", "ok": True, "detail": "user: u",
            "templates": ["status"], "milliseconds": 3}])
        self.assertEqual((document["gsmcpd"], document["library"],
                          document["stone"], document["ok"]),
                         (__version__, "3.7.4", {"user": "u"}, False))
        self.assertEqual(document["templates"]["status"], "pass")
