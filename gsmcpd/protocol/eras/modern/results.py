"""
How a 2026-era result is dressed: C{resultType} on every one, and on lists
and reads how long (C{ttlMs}) and for whom (C{cacheScope}) a client may
reuse it.
"""

import attr

from gsmcpd.protocol.jsonrpc import JsonObject

COMPLETE = "complete"
INPUT_REQUIRED = "input_required"

CACHE_HINTS: dict[str, JsonObject] = {
    # The served toolsets, prompts, fixed resources and templates are
    # chosen at startup and never change while the daemon runs.
    **dict.fromkeys(("server/discover", "tools/list", "prompts/list",
                     "resources/list", "resources/templates/list",
                     "skills/list", "skills/get"),
                    {"ttlMs": 3_600_000, "cacheScope": "public"}),
    # What a read shows depends on the reader's view of the repository: a
    # class's source is only current until that view moves (a commit, an
    # abort, another session's commit seen), so it is not reused at all;
    # subscriptions/listen says when it changed.
    "resources/read": {"ttlMs": 0, "cacheScope": "private"},
}
"""C{"public"}: a shared gateway may serve it to anyone; C{"private"}: only
its caller may reuse it."""


def complete(method: str, value: JsonObject) -> JsonObject:
    """A finished result: C{resultType} and any cache hint."""
    return dict(value, resultType=COMPLETE, **CACHE_HINTS.get(method, {}))


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ModernAnswer:
    """
    @ivar minted: the handle C{open_session} opened, named in an
        C{Mcp-Param-Session} header so a load balancer learns to route the
        session's later calls, or L{None}.
    """

    value: JsonObject
    minted: str | None = None
