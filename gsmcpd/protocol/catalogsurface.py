"""
The protocol's part of the compact catalog surface
(L{gsmcpd.tools.catalogtools}): a call of C{tool_call} is the direct call
it names (its instructions: L{gsmcpd.tools.instructions}).
"""

from typing import Any

import attr

from gsmcpd.protocol.jsonrpc import Message, invalidParams
from gsmcpd.tools.catalogtools import TOOL_CALL
from gsmcpd.tools.templates.outcomes import ToolError


def unwrapCall(catalog: Any, message: Message,
               lifted: tuple[str, ...] = ()) -> Message:
    """
    C{message} as the direct C{tools/call} it names when it is a valid call
    of C{tool_call}, else itself: made before either era looks, so it meets
    everything a direct call meets by construction.

    @param lifted: the arguments this era adds to C{tool_call}'s schema
        (the 2026 era's C{session}), passed on among the called tool's.
    """
    if message.method != "tools/call" or \
            message.params.get("name") != TOOL_CALL:
        return message
    tool = catalog.get(TOOL_CALL)
    arguments = message.params.get("arguments")
    if tool is None or not isinstance(arguments, dict):
        return message
    own = {key: value for key, value in arguments.items()
           if key not in lifted}
    try:
        tool.validate(own)
    except ToolError:
        return message
    if own["name"] == TOOL_CALL:
        return message
    called = dict(own.get("arguments", {}))
    for key in lifted:
        if key in arguments:
            if called.get(key, arguments[key]) != arguments[key]:
                raise invalidParams(f"tool_call's {key!r} and the {key!r} "
                                    "among its arguments differ")
            called[key] = arguments[key]
    return attr.evolve(message, params=dict(
        message.params, name=own["name"], arguments=called))


def mirroringShown(catalog: Any, message: Message,
                   lifted: tuple[str, ...]) -> bool:
    """
    Whether the client of a C{tools/call} was shown the schema declaring
    its C{Mcp-Param-*} headers, so must have sent them: the tool is listed,
    or a C{lifted} argument was given as C{tool_call}'s own.  A tool known
    only from C{tool_get} (a result no client mirrors by) has its headers
    checked when sent, not required.
    """
    sent = message.raw.get("params")
    if isinstance(sent, dict) and sent.get("name") == TOOL_CALL and \
            message.params.get("name") != TOOL_CALL:
        # A message keeps what its client sent as raw.
        through = sent.get("arguments")
        return isinstance(through, dict) and any(
            key in through for key in lifted)
    return catalog.lists(message.params.get("name"))
