"""
The one method table: each MCP method, its handler, and the eras serving it.

A method is served only where something provides it (resources, prompts,
completion and logging when a served toolset offers them, skills when there
are skills, tasks when a tool may run as a task); a method the table holds
for the other era only is, to an era, one it does not have.
"""

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attr

from gsmcpd.protocol.facts import BOTH, LEGACY, MODERN, RequestFacts
from gsmcpd.protocol.handlers import Handlers

Handler = Callable[[RequestFacts], Any]
_LEGACY = frozenset({LEGACY})
_MODERN = frozenset({MODERN})


@attr.s(frozen=True, slots=True, auto_attribs=True)
class Method:
    """
    One method: its handler and the eras that serve it.

    @ivar call: whether it runs as a call (L{gsmcpd.protocol.calls}): on a
        GemStone session, with a deadline, cancellable, counted and audited.
        C{completion/complete} is not: a completer gets no gem, only the
        argument's name and partial value, and answers from memory.
    """

    handler: Handler
    eras: frozenset[str]
    call: bool = False


TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")


class MethodTable:
    """The methods one server serves, by name."""

    def __init__(self, handlers: Handlers,
                 skills: Mapping[str, Handler] | None = None,
                 tasks: Handler | None = None):
        """
        @param tasks: the one handler of L{TASK_METHODS}, if a tool may run
            as a task.
        """
        h = handlers
        served = h.surface.capabilities()
        resources = "resources" in served
        # Skill files are resources: the 2026 era reads them even where no
        # toolset serves any.
        readable = (BOTH if resources else frozenset()) | (
            _MODERN if skills else frozenset())
        methods = {
            "ping": Method(h.ping, _LEGACY),
            "initialize": Method(h.initialized, _LEGACY),
            "server/discover": Method(h.discover, BOTH),
            "tools/list": Method(h.toolsList, BOTH),
            "tools/call": Method(h.toolsCall, BOTH, call=True),
        }
        if readable:
            methods["resources/list"] = Method(h.resourcesList, readable)
            methods["resources/read"] = Method(h.resourcesRead, readable,
                                               call=True)
        if resources:
            methods.update({
                "resources/templates/list": Method(h.templatesList, BOTH),
                "resources/subscribe": Method(h.subscribe, _LEGACY),
                "resources/unsubscribe": Method(h.unsubscribe, _LEGACY)})
        if "prompts" in served:
            methods.update({"prompts/list": Method(h.promptsList, BOTH),
                            "prompts/get": Method(h.promptsGet, BOTH)})
        if "completions" in served:
            methods["completion/complete"] = Method(h.complete, BOTH)
        if "logging" in served:
            methods["logging/setLevel"] = Method(h.setLevel, _LEGACY)
        for name, handler in (skills or {}).items():
            methods[name] = Method(handler, _MODERN)
        if tasks is not None:
            methods.update((name, Method(tasks, _MODERN))
                           for name in TASK_METHODS)
        self._methods = methods

    def __iter__(self) -> Iterator[str]:
        return iter(self._methods)

    def find(self, name: str | None, era: str) -> Method | None:
        """The method C{name} as era C{era} serves it, or L{None}."""
        method = self._methods.get(name)  # type: ignore[arg-type]
        return method if method is not None and era in method.eras else None
