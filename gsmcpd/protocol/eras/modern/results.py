"""
How a 2026-era result is dressed: C{resultType} on every one (C{complete},
or C{input_required} when the server needs answers first), and on lists and
reads how long (C{ttlMs}) and for whom (C{cacheScope}) a client may reuse
it; and framed as its response (L{ModernAnswer}).
"""

import attr

from gsmcpd.protocol.jsonrpc import JsonObject, result

COMPLETE = "complete"
INPUT_REQUIRED = "input_required"

HOUR_MS = 3_600_000


@attr.s(frozen=True, auto_attribs=True)
class CacheHint:
    """
    How long, and how widely, a client may reuse a result.

    @ivar cacheScope: C{"public"} when a shared gateway may serve it to
        anyone, C{"private"} when only the caller may reuse it.
    """

    ttlMs: int
    cacheScope: str

    def __attrs_post_init__(self) -> None:
        if self.ttlMs < 0 or self.cacheScope not in ("public", "private"):
            raise ValueError(f"not a cache hint: {self!r}")


CACHE_HINTS = {
    # The served toolsets, prompts, fixed resources and templates are
    # chosen at startup and never change while the daemon runs.
    "server/discover": CacheHint(HOUR_MS, "public"),
    "tools/list": CacheHint(HOUR_MS, "public"),
    "prompts/list": CacheHint(HOUR_MS, "public"),
    "resources/list": CacheHint(HOUR_MS, "public"),
    "resources/templates/list": CacheHint(HOUR_MS, "public"),
    "skills/list": CacheHint(HOUR_MS, "public"),
    "skills/get": CacheHint(HOUR_MS, "public"),
    # What a read shows depends on the reader's view of the repository: a
    # class's source is only current until that view moves (a commit, an
    # abort, another session's commit seen), so it is not reused at all;
    # subscriptions/listen says when it changed.
    "resources/read": CacheHint(0, "private"),
}


def complete(method: str, value: JsonObject) -> JsonObject:
    """A finished result: C{resultType} and any cache hint."""
    dressed = dict(value, resultType=COMPLETE)
    hint = CACHE_HINTS.get(method)
    if hint is not None:
        dressed.update(ttlMs=hint.ttlMs, cacheScope=hint.cacheScope)
    return dressed


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ModernAnswer:
    """
    A 2026-era request's answer.

    @ivar minted: the handle C{open_session} opened, named in an
        C{Mcp-Param-Session} header so a load balancer learns to route the
        session's later calls, or L{None}.
    """

    value: JsonObject
    minted: str | None = None

    def response(self, messageId: object) -> JsonObject:
        return result(messageId, self.value)
