"""
C{requestState}: what a 2026-era server remembers between the rounds of one
request, kept by the client, sealed with an HMAC under this daemon's key,
bound to its request and a deadline, with a nonce good for one round: an
answer in it cannot be replayed nor moved to another call.  Signed, not
encrypted: it never holds a secret.  Only used nonces are remembered.
"""

import base64
import hashlib
import heapq
import hmac
import json
import os
import secrets
from typing import Any

from gsmcpd.protocol import kinds
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError, invalidParams

VERSION = "s1"
"""The seal's format, first in every sealed string."""

BOUND_PARAMS = ("name", "uri", "arguments")
"""What makes two rounds the same request; the rest changes between rounds."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def canonical(value: object) -> bytes:
    """The bytes a digest is taken over: equal JSON values, equal bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def requestBinding(method: str, params: JsonObject) -> str:
    """The digest that ties sealed state to one request."""
    bound = {key: params[key] for key in BOUND_PARAMS if key in params}
    return hashlib.sha256(canonical([method, bound])).hexdigest()


def refused(why: str) -> JsonRpcError:
    return invalidParams(f"requestState refused ({why}); start the request "
                         "again without it", {"kind": kinds.TAMPERED_STATE})


class RequestStateSeal:
    """
    @ivar lifetime: seconds a state stays valid: long enough for a person
        to answer a confirmation, too short to replay an answer days later.
    """

    def __init__(self, clock: Any, key: bytes | None = None,
                 lifetime: float = 900.0) -> None:
        self._clock = clock
        self._key = os.urandom(32) if key is None else key
        self.lifetime = lifetime
        self._spent: set[str] = set()
        self._spentUntil: list[tuple[int, str]] = []

    @property
    def remembered(self) -> int:
        """How many used states are remembered (each until its deadline)."""
        return len(self._spent)

    def _mac(self, body: str, binding: str) -> str:
        return _b64(hmac.new(self._key, f"{body}|{binding}".encode(),
                             hashlib.sha256).digest())

    def seal(self, method: str, params: JsonObject, state: object) -> str:
        """The C{requestState} carrying C{state}, a JSON value."""
        body = VERSION + "." + _b64(canonical({
            "state": state, "nonce": secrets.token_urlsafe(16),
            "expires": int(self._clock.seconds() + self.lifetime)}))
        return body + "." + self._mac(body, requestBinding(method, params))

    def open(self, method: str, params: JsonObject) -> Any:
        """
        The state in C{params["requestState"]}, or L{None}; spent.

        @raise JsonRpcError: C{-32602} (C{tamperedState}) for a string not
            sealed here for this very request, expired, or already opened.
        """
        return self.spend(self.verified(method, params))

    def spend(self, payload: Any) -> Any:
        """The state of a C{payload} L{verified} earlier, spent now."""
        if payload is None:
            return None
        self._unspent(payload)
        self._spent.add(payload["nonce"])
        heapq.heappush(self._spentUntil, (payload["expires"],
                                          payload["nonce"]))
        return payload["state"]

    def verified(self, method: str, params: JsonObject) -> Any:
        """The payload, verified but not spent: a call is refused for it before
        a session is lent, and its round spends it."""
        sealed = params.get("requestState")
        if sealed is None:
            return None
        if not isinstance(sealed, str) or sealed.count(".") != 2:
            raise refused("not a state this server issued")
        body, mac = sealed.rsplit(".", 1)
        expected = self._mac(body, requestBinding(method, params))
        if not hmac.compare_digest(mac.encode("utf-8"),
                                   expected.encode("ascii")):
            raise refused("it fails verification: altered, issued for "
                          "another request, or by another server")
        if not body.startswith(VERSION + "."):
            raise refused("an unknown format")
        encoded = body[len(VERSION) + 1:]
        payload = json.loads(base64.urlsafe_b64decode(
            encoded + "=" * (-len(encoded) % 4)))
        self._unspent(payload)
        return payload

    def _unspent(self, payload: Any) -> None:
        """Refuse a verified C{payload} past its deadline or already spent."""
        now = self._clock.seconds()
        # Nonces past their deadlines need no remembering: refused as expired.
        while self._spentUntil and self._spentUntil[0][0] < now:
            self._spent.discard(heapq.heappop(self._spentUntil)[1])
        if now > payload["expires"]:
            raise refused("it expired")
        if payload["nonce"] in self._spent:
            raise refused("it was already used: each one answers one round")
