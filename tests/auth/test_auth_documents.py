"""
The authorization server's documents: how long each may be cached, and
local JSON files.  (Fetching them is tested with the keys, in
L{tests.auth.test_auth_keys} and L{tests.auth.test_auth_sockets}.)
"""

from email.utils import formatdate

from twisted.trial.unittest import SynchronousTestCase
from twisted.web.http_headers import Headers

from gsmcpd.auth.documents import (
    DEFAULT_FRESHNESS,
    MAX_FRESHNESS,
    MIN_FRESHNESS,
    DocumentError,
    freshness,
    readJsonFile,
)

NOW = 1_800_000_000.0


class FreshnessTests(SynchronousTestCase):
    """
    L{freshness} reads the caching headers, within bounds.
    """

    def seconds(self, **headers):
        return freshness(Headers({name.replace("_", "-"): [value]
                                  for name, value in headers.items()}),
                         NOW)

    def test_maxAge(self):
        self.assertEqual(self.seconds(cache_control="public, max-age=600"),
                         600)

    def test_none(self):
        self.assertEqual(self.seconds(), DEFAULT_FRESHNESS)

    def test_noCacheIsStillNotAFetchPerRequest(self):
        self.assertEqual(self.seconds(cache_control="no-cache"),
                         MIN_FRESHNESS)

    def test_bounded(self):
        self.assertEqual(self.seconds(cache_control="max-age=99999999"),
                         MAX_FRESHNESS)

    def test_expires(self):
        self.assertEqual(self.seconds(
            expires=formatdate(NOW + 1_000, usegmt=True)), 1_000)


class ReadJsonFileTests(SynchronousTestCase):
    def test_read(self):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write('{"a": 1}')
        self.assertEqual(readJsonFile(path), {"a": 1})

    def test_refused(self):
        self.assertIn("No such file", str(self.assertRaises(
            DocumentError, readJsonFile, self.mktemp())))
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("{")
        self.assertIn("not JSON", str(self.assertRaises(
            DocumentError, readJsonFile, path)))
