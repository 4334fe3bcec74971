"""
Tests for L{gsmcpd.daemon.refusal}.
"""

import atexit

from twisted.internet.defer import fail, succeed
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.refusal import (
    EXIT_REFUSED,
    exitNonZeroIfRefused,
    parseEndpoint,
    underTwistd,
)
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.transport.connections import LISTEN_BACKLOG


class Service:

    def __init__(self, outcome):
        self._outcome = outcome

    def whenServing(self):
        return self._outcome


class ExitStatusTests(TestCase):

    def hook(self, outcome):
        exits = []
        hook = exitNonZeroIfRefused(Service(outcome), exits.append)
        atexit.unregister(hook)
        hook()
        return exits

    def test_refusedExitsNonZero(self):
        self.assertEqual(self.hook(fail(RuntimeError("no stone"))),
                         [EXIT_REFUSED])

    def test_servedExitsAsUsual(self):
        self.assertEqual(self.hook(succeed(object())), [])


class ParseEndpointTests(TestCase):

    def refusal(self, description):
        return str(self.assertRaises(ValueError, parseEndpoint, Clock(),
                                     description))

    def test_backlogQueuesABurst(self):
        """
        An endpoint that queues connections queues L{LISTEN_BACKLOG} (not
        Twisted's 50, which 200 clients connecting at once overflowed)
        unless its description says how many.
        """
        self.assertEqual(parseEndpoint(Clock(), "tcp:8000")._backlog,
                         LISTEN_BACKLOG)
        self.assertEqual(parseEndpoint(Clock(), "unix:/run/g.sock")._backlog,
                         LISTEN_BACKLOG)
        self.assertEqual(parseEndpoint(
            Clock(), "tcp:8000:backlog=7:interface=127.0.0.1")._backlog, 7)

    def test_unreadableCertificate(self):
        self.assertEqual(self.refusal("ssl:8443:privateKey=/nonexistent"),
                         "cannot read /nonexistent: No such file or "
                         "directory")

    def test_noSystemdSocket(self):
        self.assertIn("systemd passed no socket",
                      self.refusal("systemd:domain=INET:index=3"))

    def test_unknownKind(self):
        self.assertIn("Unknown endpoint type", self.refusal("bogus:1"))

    def test_notACertificate(self):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("not a key\n")
        self.assertTrue(self.refusal(f"ssl:8443:privateKey={path}"))


class UnderTwistdTests(TestCase):

    def config(self, logFormat):
        return type("Config", (), {"logFormat": logFormat})()

    def test_notUnderTwistdAddsNothing(self):
        service = Service(succeed(None))
        self.assertIs(underTwistd(service, self.config("json"), object()),
                      service)

    def test_jsonLogsNeedTwistdsLogger(self):
        options = type("Options", (), {"parent": {"logger": None}})()
        error = self.assertRaises(ConfigError, underTwistd,
                                  Service(succeed(None)), self.config("json"),
                                  options)
        self.assertIn("--logger gsmcpd.observe.logformat.jsonLogObserver",
                      str(error))
