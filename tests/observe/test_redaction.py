"""
Tests for L{gsmcpd.observe.redaction}: a secret field's value and a
session handle never pass, in a body that parses, in one damaged any way,
and in any form a header may carry a handle in.
"""

import base64
import json
import random

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.redaction import (
    REDACTED,
    handleForms,
    redacted,
    redactedText,
    struck,
)

SECRET = "Hunter2-s3cr3t"
KEYS = ("password", "access_token", "otp", "client_secret", "apiKey",
        "oneTimePassword", "Authorization", "passphrase", "refresh_token",
        "passwords", "pin")


def damaged(rng, key, value):
    """
    A body holding C{key}: C{value} in a random one of many ways JSON goes
    wrong: a trailing comma, quotes missing or single, escapes, a cut.
    """
    quote = rng.choice(['"', "'", ""])
    keyText = rng.choice([key, key.upper(), "".join(
        f"\\u{ord(c):04x}" if rng.random() < 0.3 else c for c in key)])
    valueText = rng.choice([
        f'"{value}"', f"'{value}'", value, f'"{value}', f'"a\\"{value}"',
        f'{{"pin": "{value}", "x": "}}"}}', f'["{value}", 1]',
        f'"{value}, "next": 1', f'{value},{value}'])
    separator = rng.choice([":", ": ", " : ", "=", " ", ":\n  "])
    before = rng.choice(['{"jsonrpc":"2.0","params":{"arguments":{',
                         '{', '', '[{"id":1,', '{"user":"bob, '])
    after = rng.choice(['}}}', ',}', ',', '', '}', ' garbage ]]'])
    pair = f"{quote}{keyText}{quote}{separator}{valueText}"
    if rng.random() < 0.3:
        pair = json.dumps(pair)[1:-1]   # the whole thing escaped once more
    return before + pair + after


class RedactedTests(SynchronousTestCase):

    def test_secretFields(self):
        self.assertEqual(redacted({
            "password": "swordfish", "oneTimePassword": "123456",
            "access_token": "eyJ", "client_secret": "s", "apiKey": "k",
            "Authorization": "Bearer x", "otp": "1",
            "nested": [{"passwd": "p", "name": "ok"}],
            "_meta": {"progressToken": 7}, "emptyPassword": ""}), {
            "password": REDACTED, "oneTimePassword": REDACTED,
            "access_token": REDACTED, "client_secret": REDACTED,
            "apiKey": REDACTED, "Authorization": REDACTED, "otp": REDACTED,
            "nested": [{"passwd": REDACTED, "name": "ok"}],
            "_meta": {"progressToken": 7}, "emptyPassword": ""})

    def test_pluralsAndKin(self):
        """
        A list of secrets, and names a careful client might use.
        """
        fields = ("passwords", "tokens", "otps", "pwd", "pin", "privateKey",
                  "session_cookie", "apiKeys")
        self.assertEqual(redacted({name: ["s"] for name in fields}),
                         {name: REDACTED for name in fields})
        kept = {"progressToken": 1, "pinned": 2, "passed": 3, "name": 4}
        self.assertEqual(redacted(kept), kept)

    def test_handlesCut(self):
        self.assertEqual(redacted({"arguments": {"session": "0123456789ab"}}),
                         {"arguments": {"session": "01234567…"}})
        self.assertEqual(redacted({"session": None}), {"session": None})


class RedactedTextTests(SynchronousTestCase):

    def test_trailingComma(self):
        """
        The repro: a body a trailing comma keeps from parsing.
        """
        text = redactedText(
            '{"user":"bob","password":"pw1","access_token":"tk2",'
            '"otp":"333444",}')
        self.assertEqual(
            text, '{"user":"bob","password":"[redacted]","access_token":'
            '"[redacted]","otp":"[redacted]",}')

    def test_nestedValueStruckWhole(self):
        self.assertEqual(
            redactedText('{"credentials": {"note": "}", "pin": "1"}, '
                         '"a": 1,'),
            '{"credentials": [redacted], "a": 1,')

    def test_escapedKey(self):
        self.assertNotIn("pw", redactedText('{"pass\\u0077ord":"pw",'))

    def test_handleCut(self):
        self.assertEqual(redactedText('{"session":"0123456789abcdef",}'),
                         '{"session":"01234567…",}')

    def test_plainTextKept(self):
        text = '{"name":"execute_code","arguments":{"code":"3 + 4"},}'
        self.assertEqual(redactedText(text), text)

    def test_damagedVariants(self):
        """
        Thousands of damaged bodies, each a secret key and a value in a
        different wreck of JSON: the value never survives.
        """
        rng = random.Random(28)
        for _ in range(3000):
            value = f"{SECRET}{rng.randrange(10**6)}"
            body = damaged(rng, rng.choice(KEYS), value)
            self.assertNotIn(SECRET, redactedText(body), body)


class HandleFormsTests(SynchronousTestCase):

    HANDLE = "3f2a91c0d4e5b6a7c8d9e0f1a2b3c4d5"

    def forms(self, header):
        return handleForms(header)

    def test_everyForm(self):
        """
        Whichever form the header takes, every form of the handle is struck
        from a body, leaving its prefix.
        """
        raw = self.HANDLE.encode()
        encodings = [base64.b64encode(raw).decode(),
                     base64.b64encode(raw).decode().rstrip("="),
                     base64.urlsafe_b64encode(raw).decode()]
        headers = [self.HANDLE] + [f"=?base64?{each}?=" for each in encodings]
        body = " ".join([self.HANDLE] + encodings + headers)
        for header in headers:
            handle, forms = self.forms(header)
            self.assertEqual(handle, self.HANDLE)
            text = struck(body, handle, forms)
            self.assertNotIn(self.HANDLE, text)
            for each in encodings:
                self.assertNotIn(each.rstrip("="), text)
            self.assertIn("3f2a91c0…", text)

    def test_bareBase64(self):
        """
        Base64 of the handle without the wrapping: what it decodes to is
        struck too.
        """
        encoded = base64.urlsafe_b64encode(self.HANDLE.encode()).decode()
        handle, forms = self.forms(encoded)
        self.assertEqual(handle, encoded)
        self.assertNotIn(self.HANDLE, struck(f"a {self.HANDLE} b", handle,
                                             forms))
        for form in set(self.forms(self.HANDLE)[1]) - {self.HANDLE}:
            # A handle that is base64 of nothing readable adds nothing.
            self.assertEqual(base64.b64decode(
                form.translate(str.maketrans("-_", "+/"))
                + "=" * (-len(form) % 4)), self.HANDLE.encode())

    def test_oddLengthPadded(self):
        handle = self.HANDLE + "xy"
        wrapped = base64.b64encode(handle.encode()).decode()
        self.assertTrue(wrapped.endswith("="))
        self.assertEqual(self.forms(f"=?BASE64?{wrapped}?=")[0], handle)

    def test_shortOrNone(self):
        self.assertEqual(self.forms(None), (None, ()))
        self.assertEqual(self.forms("abc"), ("abc", ()))

    def test_badBase64KeptAsSent(self):
        handle, forms = self.forms("=?base64?!!!!?=")
        self.assertEqual(handle, "=?base64?!!!!?=")
        self.assertIn(handle, forms)
