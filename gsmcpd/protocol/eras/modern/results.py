"""
How a 2026-era result is dressed: C{resultType} on every one, and on lists
and reads how long (C{ttlMs}) and for whom (C{cacheScope}) a client may
reuse it.
"""

import attr

from gsmcpd.protocol.jsonrpc import JsonObject

COMPLETE = "complete"
INPUT_REQUIRED = "input_required"

HOUR_MS = 3_600_000


@attr.s(frozen=True, auto_attribs=True)
class CacheHint:
    """
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
    **dict.fromkeys(("server/discover", "tools/list", "prompts/list",
                     "resources/list", "resources/templates/list",
                     "skills/list", "skills/get"),
                    CacheHint(HOUR_MS, "public")),
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
    @ivar minted: the handle C{open_session} opened, named in an
        C{Mcp-Param-Session} header so a load balancer learns to route the
        session's later calls, or L{None}.
    """

    value: JsonObject
    minted: str | None = None
