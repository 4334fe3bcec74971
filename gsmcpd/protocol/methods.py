"""
The one method table: each MCP method this server serves, its handler, and
which eras serve it.

A method is served only where something provides it (resources, prompts,
completion and logging only when a served toolset offers them, the skill
methods when there are skills, the task methods when a tool may run as a
task).  Each era's adapter finds its requests' methods here; a method the
table holds for the other era only is, for it, a method it does not have.
"""

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attr

from gsmcpd.protocol.facts import BOTH, LEGACY, MODERN, RequestFacts
from gsmcpd.protocol.handlers import Handlers

Handler = Callable[[RequestFacts], Any]


@attr.s(frozen=True, slots=True, auto_attribs=True)
class Method:
    """
    One method: its handler and the eras that serve it.

    @ivar call: whether it runs as a call (L{gsmcpd.protocol.calls}): on
        its work session's GemStone session, with a deadline, ended by a
        cancellation, counted and audited.  C{completion/complete} is not
        one: a completer is given only the argument's name and partial
        value, never a gem or a call context, so it answers from memory.
    """

    handler: Handler
    eras: frozenset[str]
    call: bool = False


TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")


class MethodTable:
    """
    The methods one server serves, by name.
    """

    def __init__(self, handlers: Handlers,
                 skills: Mapping[str, Handler] | None = None,
                 tasks: Handler | None = None):
        """
        @param skills: the skill methods' handlers by name
            (L{gsmcpd.protocol.eras.modern.skills}), when there are skills.
        @param tasks: the task methods' handler
            (L{gsmcpd.protocol.eras.modern.tasks}), when a tool may run as
            a task.
        """
        h = handlers
        served = h.surface.capabilities()
        resources = "resources" in served
        # Skill files are resources: the 2026 era reads them even where no
        # toolset serves any.
        readable = (BOTH if resources else frozenset()) | (
            frozenset({MODERN}) if skills else frozenset())
        methods = {
            "ping": Method(h.ping, frozenset({LEGACY})),
            "initialize": Method(h.initialized, frozenset({LEGACY})),
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
                "resources/subscribe": Method(h.subscribe,
                                              frozenset({LEGACY})),
                "resources/unsubscribe": Method(h.unsubscribe,
                                                frozenset({LEGACY}))})
        if "prompts" in served:
            methods.update({"prompts/list": Method(h.promptsList, BOTH),
                            "prompts/get": Method(h.promptsGet, BOTH)})
        if "completions" in served:
            methods["completion/complete"] = Method(h.complete, BOTH)
        if "logging" in served:
            methods["logging/setLevel"] = Method(h.setLevel,
                                                 frozenset({LEGACY}))
        for name, handler in (skills or {}).items():
            methods[name] = Method(handler, frozenset({MODERN}))
        if tasks is not None:
            methods.update((name, Method(tasks, frozenset({MODERN})))
                           for name in TASK_METHODS)
        self._methods = methods

    def __iter__(self) -> Iterator[str]:
        return iter(self._methods)

    def find(self, name: str | None, era: str) -> Method | None:
        """
        The method C{name} as era C{era} serves it, or L{None}.
        """
        method = self._methods.get(name)  # type: ignore[arg-type]
        return method if method is not None and era in method.eras else None
