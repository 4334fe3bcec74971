"""
Tests for L{gsmcpd.observe.logformat}.
"""

import io
import json

from twisted.logger import Logger, LogPublisher
from twisted.python.failure import Failure
from twisted.trial.unittest import TestCase

from gsmcpd.observe.logformat import describeClient, jsonLogObserver


class JsonLogTests(TestCase):

    def setUp(self):
        self.out = io.StringIO()
        publisher = LogPublisher(jsonLogObserver(self.out))
        self.log = Logger(namespace="gsmcpd.test", observer=publisher)

    def records(self):
        return [json.loads(line) for line in self.out.getvalue().splitlines()]

    def test_oneObjectPerEvent(self):
        self.log.info("session {handle}: opened for {client}",
                      handle="ab12", client="claude-code 1.0")
        self.log.warn("second\nline", count=3)
        first, second = self.records()
        self.assertEqual(first["level"], "info")
        self.assertEqual(first["namespace"], "gsmcpd.test")
        self.assertEqual(first["message"],
                         "session ab12: opened for claude-code 1.0")
        self.assertEqual(first["handle"], "ab12")
        self.assertTrue(first["time"].endswith("+00:00"))
        self.assertEqual(second["message"], "second\nline")
        self.assertEqual(second["count"], 3)

    def test_unserializableFieldsBecomeText(self):
        self.log.info("odd {thing}", thing=object(), pair=(1, {2: b"x"}))
        record, = self.records()
        self.assertTrue(record["thing"].startswith("<object"))
        self.assertEqual(record["pair"], [1, {"2": "b'x'"}])

    def test_failureCarriesItsTraceback(self):
        try:
            raise ZeroDivisionError("division by zero")
        except ZeroDivisionError:
            self.log.failure("it broke", Failure())
        record, = self.records()
        self.assertEqual(record["level"], "critical")
        self.assertIn("ZeroDivisionError", record["traceback"])


class DescribeClientTests(TestCase):

    def test_nameAndVersion(self):
        self.assertEqual(describeClient({"name": "claude-code",
                                         "version": "1.0.3"}),
                         "claude-code 1.0.3")

    def test_missing(self):
        self.assertEqual(describeClient(None), "an unnamed client")
        self.assertEqual(describeClient({"version": "2"}),
                         "an unnamed client 2")
        self.assertEqual(describeClient({"name": "x"}), "x")
