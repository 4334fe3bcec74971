"""
C{requestState}: what a 2026-era server remembers between the rounds of one
request, kept by the client instead of the server.

An input-required result hands the client an opaque string the client sends
back, unchanged, with its answers.  Nothing is stored here: the string
carries the state itself, sealed with an HMAC under a key only this daemon
holds, bound to the request it belongs to (method, tool or prompt or
resource, arguments) and to a deadline, and carrying a nonce that makes it
good for one round: a string that was altered, that came from another
daemon (or this one before a restart), that belongs to a different
request, that is too old or that was already used is refused
(C{tamperedState}).  So an answer carried in it (or given under a key it
asked, L{gsmcpd.protocol.eras.modern.asking}) cannot be replayed in a later
round nor moved to another call.  The state is signed, not encrypted: the
client can read it, so it never holds a secret.  Only the nonces used, not
the states, are remembered, each until its state's deadline.
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
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonObject, JsonRpcError

VERSION = "s1"
"""The seal's format, first in every sealed string."""

BOUND_PARAMS = ("name", "uri", "arguments")
"""The parameters that make two rounds the same request; everything else
(C{_meta}, C{inputResponses}, C{requestState}) changes between rounds."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical(value: object) -> bytes:
    """
    C{value} as the bytes a digest of it is taken over: key order and
    spacing aside, equal JSON values are equal bytes.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def requestBinding(method: str, params: JsonObject) -> str:
    """
    The digest that ties sealed state to one request: its method and the
    parameters that name what it acts on.
    """
    bound = {key: params[key] for key in BOUND_PARAMS if key in params}
    return hashlib.sha256(canonical([method, bound])).hexdigest()


def refused(why: str) -> JsonRpcError:
    return JsonRpcError(INVALID_PARAMS,
                        f"Invalid params: requestState refused ({why}); "
                        "start the request again without it",
                        {"kind": kinds.TAMPERED_STATE})


class RequestStateSeal:
    """
    Seals and opens C{requestState} strings for one daemon.

    @ivar lifetime: seconds a sealed state stays valid: long enough for a
        person to answer a confirmation, short enough that an old answer
        cannot be replayed days later.
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
        """
        How many used states are remembered (each until its deadline).
        """
        return len(self._spent)

    def _mac(self, body: str, binding: str) -> str:
        return _b64(hmac.new(self._key, f"{body}|{binding}".encode(),
                             hashlib.sha256).digest())

    def seal(self, method: str, params: JsonObject, state: object) -> str:
        """
        @param state: any JSON value the next round needs.
        @return: the string to send as C{requestState}.
        """
        body = VERSION + "." + _b64(canonical({
            "state": state, "nonce": secrets.token_urlsafe(16),
            "expires": int(self._clock.seconds() + self.lifetime)}))
        return body + "." + self._mac(body, requestBinding(method, params))

    def open(self, method: str, params: JsonObject) -> Any:
        """
        The state sealed into C{params["requestState"]}, or L{None} when the
        request carries none; once opened, it is spent.

        @raise JsonRpcError: C{-32602} (C{tamperedState}) for a string this
            daemon did not seal for this very request, one past its
            deadline, or one already opened.
        """
        return self.spend(self.verified(method, params))

    def spend(self, payload: Any) -> Any:
        """
        The state of a C{payload} L{verified} earlier (L{None}: the request
        carried none), spent now: its round opens it.

        @raise JsonRpcError: C{-32602} (C{tamperedState}) for one past its
            deadline, or spent since it was verified.
        """
        if payload is None:
            return None
        self._unspent(payload)
        self._spent.add(payload["nonce"])
        heapq.heappush(self._spentUntil, (payload["expires"],
                                          payload["nonce"]))
        return payload["state"]

    def verified(self, method: str, params: JsonObject) -> Any:
        """
        The payload sealed into C{params["requestState"]}, verified once
        and not spent (L{None} when the request carries none): a call is
        refused for it before a session is lent, and its round spends it.

        @raise JsonRpcError: as L{open}.
        """
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
        payload = json.loads(_unb64(body[len(VERSION) + 1:]))
        self._unspent(payload)
        return payload

    def _unspent(self, payload: Any) -> None:
        """
        Refuse a verified C{payload} past its deadline or already spent.
        """
        self._forgetExpired()
        if self._clock.seconds() > payload["expires"]:
            raise refused("it expired")
        if payload["nonce"] in self._spent:
            raise refused("it was already used: each one answers one round")

    def _forgetExpired(self) -> None:
        """
        Forget the nonces of states past their deadlines: those are refused
        as expired anyway.
        """
        now = self._clock.seconds()
        while self._spentUntil and self._spentUntil[0][0] < now:
            self._spent.discard(heapq.heappop(self._spentUntil)[1])
